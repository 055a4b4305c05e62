//! serde support (the `serde` feature). The plain value types derive `Serialize` and
//! `Deserialize` where they are declared; this file holds the types a derive would take on
//! trust, whose invariants and caches a deserializer must establish again:
//!
//! - a [`Polygon`] is its vertices and radius; its normals and centroid are recomputed, so that
//!   vertices that are not convex and counter-clockwise are refused as [`Polygon::hull`]'s
//!   output would never be;
//! - a [`Compound`] is its parts, a [`Chain`] its vertices and options, a [`TileMap`] its rows,
//!   each read back through its constructor, which rebuilds the part boxes, the BVH or the grid
//!   and refuses what it refuses from a caller. A compound's parts are read as convex shapes
//!   only: a nested compound is not even in the format, so reading one cannot recurse;
//! - a [`Shape`] passes [`Shape::validate`], so a circle of NaN radius is refused;
//! - a [`World`] is its snapshot ([`World::to_bytes`]) as a byte string, read back by
//!   [`World::from_bytes`] with all of its checks: a serde round trip is a snapshot round trip.
//!
//! A refusal is the deserializer's error with the constructor's message, never a panic.

use std::fmt;

use glam::Vec2;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::math::Pose;
use crate::shape::{
    Capsule, Chain, ChainOptions, Circle, Compound, Cuboid, Polygon, Segment, Shape, ShapeError, Tile, TileMap,
};
use crate::world::World;

#[derive(Serialize)]
#[serde(rename = "Polygon")]
struct PolygonOut<'a> {
    vertices: &'a [Vec2],
    radius: f32,
}

#[derive(Deserialize)]
#[serde(rename = "Polygon")]
struct PolygonIn {
    vertices: Vec<Vec2>,
    radius: f32,
}

impl Serialize for Polygon {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        PolygonOut { vertices: self.vertices(), radius: self.radius() }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Polygon {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Polygon, D::Error> {
        let p = PolygonIn::deserialize(deserializer)?;
        Polygon::from_vertices(&p.vertices, p.radius).map_err(de::Error::custom)
    }
}

#[derive(Serialize)]
#[serde(rename = "Compound")]
struct CompoundOut<'a> {
    parts: &'a [(Pose, Shape)],
}

#[derive(Deserialize)]
#[serde(rename = "Compound")]
struct CompoundIn {
    parts: Vec<(Pose, Part)>,
}

/// A compound's part: the convex variants of [`Shape`], written as `Shape` writes them.
#[derive(Deserialize)]
#[serde(rename = "Shape")]
enum Part {
    Circle(Circle),
    Capsule(Capsule),
    Segment(Segment),
    Cuboid(Cuboid),
    Polygon(Polygon),
}

impl From<Part> for Shape {
    fn from(part: Part) -> Shape {
        match part {
            Part::Circle(c) => Shape::Circle(c),
            Part::Capsule(c) => Shape::Capsule(c),
            Part::Segment(s) => Shape::Segment(s),
            Part::Cuboid(c) => Shape::Cuboid(c),
            Part::Polygon(p) => Shape::from(p),
        }
    }
}

impl Serialize for Compound {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        CompoundOut { parts: self.parts() }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Compound {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Compound, D::Error> {
        let c = CompoundIn::deserialize(deserializer)?;
        Compound::new(c.parts.into_iter().map(|(pose, part)| (pose, part.into())).collect()).map_err(de::Error::custom)
    }
}

#[derive(Serialize)]
#[serde(rename = "Chain")]
struct ChainOut<'a> {
    vertices: &'a [Vec2],
    options: ChainOptions,
}

#[derive(Deserialize)]
#[serde(rename = "Chain")]
struct ChainIn {
    vertices: Vec<Vec2>,
    options: ChainOptions,
}

impl Serialize for Chain {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ChainOut { vertices: self.vertices(), options: self.options() }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Chain {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Chain, D::Error> {
        let c = ChainIn::deserialize(deserializer)?;
        Chain::new(c.vertices, c.options).map_err(de::Error::custom)
    }
}

/// A tile map's rows, written as a sequence of tile sequences.
struct Rows<'a>(&'a TileMap);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.rows())
    }
}

#[derive(Serialize)]
#[serde(rename = "TileMap")]
struct TileMapOut<'a> {
    rows: Rows<'a>,
}

#[derive(Deserialize)]
#[serde(rename = "TileMap")]
struct TileMapIn {
    rows: Vec<Vec<Tile>>,
}

impl Serialize for TileMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TileMapOut { rows: Rows(self) }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TileMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TileMap, D::Error> {
        let t = TileMapIn::deserialize(deserializer)?;
        TileMap::new(&t.rows).map_err(de::Error::custom)
    }
}

/// [`Shape`] as it is written, before [`Shape::validate`] (`Shape`'s derived `Deserialize`
/// reads this and converts).
#[derive(Deserialize)]
#[serde(rename = "Shape")]
pub(crate) enum ShapeRepr {
    Circle(Circle),
    Capsule(Capsule),
    Segment(Segment),
    Cuboid(Cuboid),
    Polygon(Polygon),
    Compound(Compound),
    Chain(Chain),
}

impl TryFrom<ShapeRepr> for Shape {
    type Error = ShapeError;

    fn try_from(repr: ShapeRepr) -> Result<Shape, ShapeError> {
        let shape = match repr {
            ShapeRepr::Circle(c) => Shape::Circle(c),
            ShapeRepr::Capsule(c) => Shape::Capsule(c),
            ShapeRepr::Segment(s) => Shape::Segment(s),
            ShapeRepr::Cuboid(c) => Shape::Cuboid(c),
            ShapeRepr::Polygon(p) => Shape::from(p),
            ShapeRepr::Compound(c) => Shape::Compound(c),
            ShapeRepr::Chain(c) => Shape::Chain(c),
        };
        shape.validate()?;
        Ok(shape)
    }
}

/// The world as its snapshot, a byte string (in formats without one, such as JSON, a sequence
/// of numbers). The pair hooks are code and are not written, as in a snapshot.
impl Serialize for World {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

impl<'de> Deserialize<'de> for World {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<World, D::Error> {
        deserializer.deserialize_byte_buf(SnapshotVisitor)
    }
}

struct SnapshotVisitor;

impl<'de> Visitor<'de> for SnapshotVisitor {
    type Value = World;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sapwood world snapshot (bytes)")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<World, E> {
        World::from_bytes(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<World, A::Error> {
        // The hint comes from the input: it sizes the first allocation only up to a bound.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        World::from_bytes(&bytes).map_err(de::Error::custom)
    }
}
