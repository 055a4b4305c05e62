//! **sapwood** is a data-oriented 2D collision library. Its priorities, in order: **exact**
//! (no missed or invented pair, manifolds checked against an independent oracle), **fast**
//! (flat arrays, a persistent sweep-and-prune and an SAH dynamic tree updated in place, rayon
//! over the candidate pairs), **deterministic** (bit-identical output for any thread count, and
//! without the `parallel` feature, single-threaded with the same bits) and **pleasant to embed**
//! (plain data in and out, typed errors, no panics on user input).
//!
//! ```
//! use sapwood::{collide, Pose, Shape, Vec2};
//!
//! let ball = Shape::circle(0.5)?;
//! let crate_ = Shape::cuboid(Vec2::new(1.0, 0.5))?;
//! let m = collide::contact(&ball, &Pose::from_translation(Vec2::new(0.0, 0.9)), &crate_, &Pose::IDENTITY)?;
//! assert_eq!(m.count, 1);
//! assert!((m.normal - Vec2::NEG_Y).length() < 1e-6); // from the ball down into the crate
//! assert!((m.points[0].depth - 0.1).abs() < 1e-5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]
#![deny(unsafe_code)]

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The terrain guide's examples (the character mover's game loop), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/TERRAIN.md")]
pub struct TerrainDoctests;

pub mod advisor;
pub mod broad;
mod clock;
pub mod collide;
pub mod debug_draw;
#[cfg(feature = "hecs")]
pub mod ecs;
mod index;
mod math;
mod par;
pub mod query;
#[cfg(feature = "serde")]
mod serialize;
mod shape;
mod storage;
mod trig;
mod world;

pub use broad::BroadPhaseKind;
pub use glam::Vec2;
/// The [hecs](https://docs.rs/hecs) crate the [`ecs`] integration is built on, so that games
/// use the very version `HecsSync` expects.
#[cfg(feature = "hecs")]
pub use hecs;
pub use math::{Aabb, Pose, Ray, Rot};
pub use query::PointProjection;
pub use shape::{
    Capsule, Chain, ChainOptions, ChainSegment, Circle, Compound, Cuboid, DecompositionError, MAX_CHAIN_VERTICES,
    MAX_COMPOUND_PARTS, MAX_POLYGON_VERTICES, MAX_SHAPE_SIZE, MAX_TILE_MAP_CELLS, MIN_SHAPE_SIZE, MassProperties,
    Polygon, Segment, Shape, ShapeError, ShapeKind, Tile, TileMap, TileMapError,
};
pub use storage::{ColliderId, Filter};
pub use world::snapshot::{self, SNAPSHOT_VERSION, SnapshotError};
pub use world::{
    CharacterConfig, CharacterHit, CharacterMove, ColliderDesc, ColliderOptions, ColliderView, Contact, Event,
    EventKind, Impact, MAX_COORDINATE, PairHooks, QueryFilter, StepCounts, StepTimings, World, WorldCastHit,
    WorldClosestPoints, WorldConfig, WorldError, WorldPointProjection, WorldRayHit,
};

// Not part of the API: public only so that this workspace's tests, benches and examples (and the
// unpublished `sapwood-support` crate they share) can reach them, hence hidden from the docs and
// free to change in any release. Hidden for the same reason where they are declared:
// `BroadPhase::{name, validate}`, `World::validate` and `World::debug_fat_aabbs`.
#[doc(hidden)]
pub mod internal;
