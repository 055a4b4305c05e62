//! Collision shapes. Convex shapes are stored inline (no heap allocation per shape); a
//! [`Compound`] or [`Chain`] is a shared handle to immutable data, so [`Shape`] is `Clone` but
//! not `Copy`.
//!
//! | kind | stored as | fast paths |
//! |---|---|---|
//! | [`Circle`] | radius, centred on the pose | every pair |
//! | [`Capsule`] | segment `a`–`b` plus radius `> 0` | circle, capsule |
//! | [`Segment`] | segment `a`–`b` plus radius `>= 0` (two-sided line when 0) | the capsule kernels |
//! | [`Cuboid`] | half-extents; axis-aligned under an unrotated pose, oriented otherwise | box–box SAT on 4 axes, AABB pairs |
//! | [`Polygon`] | convex hull, ≤ 8 vertices, optional rounding radius | — |
//! | [`Compound`] | `Arc` of ≤ 128 convex parts at local poses, part boxes | part boxes cull part pairs |
//! | [`Chain`] | `Arc` of a polyline (≤ 2²⁰ vertices), open or closed, optionally one-sided, static BVH | BVH culls segments; ghost vertices |
//!
//! **Why [`Segment`] is its own kind.** Geometrically a rounded segment *is* a capsule, and the
//! narrow phase treats it as one: the segment kernels run the capsule kernels, which are exact
//! at radius 0 (checked against parry and an f64 brute force). The kind exists for what differs
//! at radius 0: a [`Capsule`] keeps its promise of a positive radius (an interior, a point test
//! with area), while a bare segment has no interior, is what a chain is made of, and is what
//! users reach for as a wall or a one-way line.

mod chain;
mod compound;
mod decompose;
mod mass;
mod polygon;
mod tile_map;

pub use chain::{Chain, ChainOptions, ChainSegment, MAX_CHAIN_VERTICES};
pub(crate) use compound::PART_SHIFT;
pub use compound::{Compound, MAX_COMPOUND_PARTS};
pub use decompose::DecompositionError;
pub use mass::MassProperties;
pub use polygon::{MAX_POLYGON_VERTICES, Polygon};
pub use tile_map::{MAX_TILE_MAP_CELLS, Tile, TileMap, TileMapError};

use std::sync::Arc;

use glam::Vec2;

use crate::math::{Aabb, Pose};

/// Why a shape could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeError {
    /// A coordinate, size, radius or density was NaN or infinite.
    NonFinite,
    /// A radius or half-extent was zero or negative where a positive size is required.
    NonPositiveSize,
    /// A rounding radius was negative.
    NegativeRadius,
    /// Fewer than three distinct points (a capsule or segment whose two ends coincide, a chain
    /// of fewer than 2 vertices, 3 if closed).
    TooFewPoints,
    /// The points span no area.
    Collinear,
    /// The convex hull has more than [`MAX_POLYGON_VERTICES`] vertices, or a chain more than
    /// [`MAX_CHAIN_VERTICES`].
    TooManyVertices,
    /// A size or local coordinate exceeds [`MAX_SHAPE_SIZE`].
    TooLarge,
    /// A [`Compound`] with no parts.
    EmptyCompound,
    /// A [`Compound`] with more than [`MAX_COMPOUND_PARTS`] parts.
    TooManyParts,
    /// A [`Compound`] part that is itself a compound or a chain (parts must be convex).
    NestedCompound,
    /// A [`Compound`] part pose that is non-finite or has a non-unit rotation.
    InvalidPartPose,
    /// Two consecutive [`Chain`] vertices (the last and first of a closed chain included) are
    /// equal, or so close that the square of their distance underflows: the segment between
    /// them has no direction.
    DuplicateVertex,
    /// A density given to [`Shape::mass_properties`] was negative.
    NegativeDensity,
    /// The shape's extent (its largest dimension) is below [`MIN_SHAPE_SIZE`].
    TooSmall,
}

/// The largest radius, half-extent or local vertex coordinate a world accepts (1e6). Beyond it
/// f32 arithmetic on sums of sizes loses every digit of a typical contact depth.
pub const MAX_SHAPE_SIZE: f32 = 1.0e6;

/// The smallest extent a shape may have (1e-9): a circle's radius, a box's largest half-extent,
/// the longest side of a segment's, capsule's or polygon's bounds (or its rounding radius, if
/// larger), a chain's bounds. The distance and contact kernels multiply up to four lengths of
/// the shapes they compare; for shapes below about 1e-11 those products leave f32's normal
/// range and the answers lose their digits (two overlapping boxes of 1e-12 were found apart).
/// A thin shape is fine: only its largest dimension counts.
pub const MIN_SHAPE_SIZE: f32 = 1.0e-9;

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ShapeError::NonFinite => "shape parameter is NaN or infinite",
            ShapeError::NonPositiveSize => "shape size must be positive",
            ShapeError::NegativeRadius => "rounding radius must not be negative",
            ShapeError::TooFewPoints => "too few distinct points (or a zero-length capsule or segment)",
            ShapeError::Collinear => "points are collinear and span no area",
            ShapeError::TooManyVertices => "more than 8 hull vertices, or a chain beyond MAX_CHAIN_VERTICES",
            ShapeError::TooLarge => "shape size exceeds MAX_SHAPE_SIZE (1e6)",
            ShapeError::EmptyCompound => "compound has no parts",
            ShapeError::TooManyParts => "compound has more than MAX_COMPOUND_PARTS (128) parts",
            ShapeError::NestedCompound => "compound part is itself a compound or a chain",
            ShapeError::InvalidPartPose => "compound part pose is non-finite or not a unit rotation",
            ShapeError::DuplicateVertex => "two consecutive chain vertices are equal",
            ShapeError::NegativeDensity => "density must not be negative",
            ShapeError::TooSmall => "shape extent below MIN_SHAPE_SIZE (1e-9)",
        })
    }
}

impl std::error::Error for ShapeError {}

/// A circle centred on its pose.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Circle {
    /// Radius, `> 0`.
    pub radius: f32,
}

impl Circle {
    /// The tight box at `pose`.
    #[inline]
    fn aabb_at(&self, pose: &Pose) -> Aabb {
        Aabb::from_center_half_extents(pose.p, Vec2::splat(self.radius))
    }
}

/// A capsule: every point within `radius` of the segment `a`–`b`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Capsule {
    /// First end of the core segment, local frame.
    pub a: Vec2,
    /// Second end of the core segment, local frame.
    pub b: Vec2,
    /// Radius, `> 0`.
    pub radius: f32,
}

/// A line segment `a`–`b`, optionally rounded: every point within `radius` (`>= 0`) of it. At
/// radius 0 it is a two-sided line with no interior.
///
/// A rounded segment *is* a capsule, and the narrow phase treats it as one: the segment kernels
/// run the capsule kernels, which are exact at radius 0. It is a kind of its own for what
/// differs at radius 0: a [`Capsule`] keeps its promise of a positive radius (an interior, a
/// point test with area), while a bare segment has none, and is what a [`Chain`] is made of.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Segment {
    /// First end, local frame.
    pub a: Vec2,
    /// Second end, local frame.
    pub b: Vec2,
    /// Rounding radius, `>= 0`.
    pub radius: f32,
}

impl Segment {
    /// The same geometry as a capsule, for the capsule kernels (exact at radius 0).
    #[inline]
    pub(crate) fn as_capsule(&self) -> Capsule {
        Capsule { a: self.a, b: self.b, radius: self.radius }
    }
}

/// A box given by its half-extents, centred on its pose.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cuboid {
    /// Half width and half height, both `> 0`.
    pub half_extents: Vec2,
}

impl Cuboid {
    /// The tight box at `pose`.
    #[inline]
    fn aabb_at(&self, pose: &Pose) -> Aabb {
        let h = self.half_extents;
        let (c, s) = (pose.q.c.abs(), pose.q.s.abs());
        Aabb::from_center_half_extents(pose.p, Vec2::new(c * h.x + s * h.y, s * h.x + c * h.y))
    }

    /// The box as a 4-gon, counter-clockwise from `(-hx, -hy)`, for the general kernels.
    #[inline]
    #[must_use]
    pub fn to_polygon(&self) -> Polygon {
        let (hx, hy) = (self.half_extents.x, self.half_extents.y);
        let mut p = <Polygon as bytemuck::Zeroable>::zeroed();
        p.count = 4;
        p.vertices[..4].copy_from_slice(&[
            Vec2::new(-hx, -hy),
            Vec2::new(hx, -hy),
            Vec2::new(hx, hy),
            Vec2::new(-hx, hy),
        ]);
        p.normals[..4].copy_from_slice(&[Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X]);
        p
    }
}

/// The kind of a [`Shape`], the index into the narrow phase's dispatch table.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ShapeKind {
    /// [`Circle`].
    Circle = 0,
    /// [`Capsule`].
    Capsule = 1,
    /// [`Segment`].
    Segment = 2,
    /// [`Cuboid`].
    Cuboid = 3,
    /// [`Polygon`].
    Polygon = 4,
    /// [`Compound`].
    Compound = 5,
    /// [`Chain`].
    Chain = 6,
}

impl ShapeKind {
    /// The number of shape kinds.
    pub const COUNT: usize = 7;
    /// The number of convex kinds (all but [`ShapeKind::Compound`] and [`ShapeKind::Chain`]),
    /// the side of the narrow phase's dispatch table.
    pub const CONVEX_COUNT: usize = 5;
}

/// A collision shape. Build one with the checked constructors ([`Shape::circle`],
/// [`Shape::capsule`], [`Shape::segment`], [`Shape::cuboid`], [`Shape::polygon`],
/// [`Shape::rounded_box`], [`Shape::compound`], [`Shape::concave_polygon`], [`Shape::chain`]);
/// they are the only way to get a shape the narrow phase accepts.
///
/// Circles, capsules, segments and boxes are inline data; [`Shape::Polygon`],
/// [`Shape::Compound`] and [`Shape::Chain`] hold shared handles, so a shape is `Clone` (cheap:
/// at most one reference-count increment) but not `Copy`, and 24 bytes whatever its kind. A
/// world keeps its colliders' shapes in one array that the step reads for every moved collider
/// and every pair: small shapes keep that array in the caches, at the cost of one more load for
/// a polygon's vertices. Colliders built from one polygon shape share its vertices.
///
/// ```
/// use sapwood::{Shape, ShapeError, Vec2};
/// let ball = Shape::circle(0.5)?;
/// let plank = Shape::cuboid(Vec2::new(2.0, 0.1))?;
/// assert_eq!(Shape::circle(f32::NAN), Err(ShapeError::NonFinite));
/// assert_eq!(Shape::cuboid(Vec2::new(0.0, 1.0)), Err(ShapeError::NonPositiveSize));
/// # let _ = (ball, plank);
/// # Ok::<(), ShapeError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::serialize::ShapeRepr")
)]
pub enum Shape {
    /// A circle.
    Circle(Circle),
    /// A capsule.
    Capsule(Capsule),
    /// A line segment, optionally rounded.
    Segment(Segment),
    /// A box.
    Cuboid(Cuboid),
    /// A convex, optionally rounded polygon (`Shape::from(polygon)` wraps a [`Polygon`]).
    Polygon(Arc<Polygon>),
    /// Convex parts at local poses (concave shapes).
    Compound(Compound),
    /// A polyline whose segments collide with their neighbours in mind (terrain).
    Chain(Chain),
}

// The step reads the shape array for every moved collider and every pair (see `Shape`).
const _: () = assert!(std::mem::size_of::<Shape>() == 24);

impl From<Polygon> for Shape {
    /// The polygon as a shape: its data moves behind a shared handle (see [`Shape`]).
    ///
    /// ```
    /// use sapwood::{Polygon, Shape, Vec2};
    /// let wedge = Polygon::hull(&[Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::new(0.0, 1.0)], 0.0)?;
    /// let shape = Shape::from(wedge);
    /// // Clones share the vertices: colliders made from one shape read one polygon.
    /// let (Shape::Polygon(a), Shape::Polygon(b)) = (&shape, &shape.clone()) else { unreachable!() };
    /// assert!(std::sync::Arc::ptr_eq(a, b));
    /// assert_eq!(a.count(), 3);
    /// # Ok::<(), sapwood::ShapeError>(())
    /// ```
    fn from(p: Polygon) -> Shape {
        Shape::Polygon(Arc::new(p))
    }
}

/// A capsule's or segment's axis needs a direction: its squared length must be a normal f32
/// (ends 1e-30 apart are distinct, but the square of their difference underflows to zero, and
/// every kernel divides by it).
fn check_axis(a: Vec2, b: Vec2) -> Result<(), ShapeError> {
    if (b - a).length_squared() < f32::MIN_POSITIVE { Err(ShapeError::TooFewPoints) } else { Ok(()) }
}

fn check_positive(x: f32) -> Result<(), ShapeError> {
    if !x.is_finite() {
        Err(ShapeError::NonFinite)
    } else if x <= 0.0 {
        Err(ShapeError::NonPositiveSize)
    } else {
        Ok(())
    }
}

pub(crate) fn check_half_extents(h: Vec2) -> Result<(), ShapeError> {
    check_positive(h.x)?;
    check_positive(h.y)
}

/// The longer side of the bounds of `points` (not empty), for [`MIN_SHAPE_SIZE`].
pub(crate) fn extent_of(points: &[Vec2]) -> f32 {
    let (lo, hi) = points.iter().fold((points[0], points[0]), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    (hi - lo).max_element()
}

impl Shape {
    /// A circle of the given radius.
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] or [`ShapeError::NonPositiveSize`] for a bad radius,
    /// [`ShapeError::TooLarge`] beyond [`MAX_SHAPE_SIZE`], [`ShapeError::TooSmall`] below
    /// [`MIN_SHAPE_SIZE`].
    pub fn circle(radius: f32) -> Result<Shape, ShapeError> {
        Shape::Circle(Circle { radius }).checked()
    }

    /// A capsule around the segment `a`–`b`.
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] for a non-finite input, [`ShapeError::NonPositiveSize`] for a
    /// radius `<= 0`, [`ShapeError::TooFewPoints`] when `a == b` or so close that the square of
    /// their distance underflows (use a circle), [`ShapeError::TooLarge`] when an end's
    /// coordinate plus the radius exceeds [`MAX_SHAPE_SIZE`], [`ShapeError::TooSmall`] when it is
    /// smaller than [`MIN_SHAPE_SIZE`] across.
    pub fn capsule(a: Vec2, b: Vec2, radius: f32) -> Result<Shape, ShapeError> {
        Shape::Capsule(Capsule { a, b, radius }).checked()
    }

    /// The two-sided line segment `a`–`b`.
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] for a non-finite end, [`ShapeError::TooFewPoints`] when
    /// `a == b` or so close that the square of their distance underflows,
    /// [`ShapeError::TooLarge`] for a coordinate beyond [`MAX_SHAPE_SIZE`],
    /// [`ShapeError::TooSmall`] when it is smaller than [`MIN_SHAPE_SIZE`] across.
    pub fn segment(a: Vec2, b: Vec2) -> Result<Shape, ShapeError> {
        Shape::rounded_segment(a, b, 0.0)
    }

    /// The segment `a`–`b` rounded by `radius >= 0` (a capsule when `radius > 0`, with the
    /// segment kind: see [`Segment`] for why).
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] for a non-finite input, [`ShapeError::NegativeRadius`] for a
    /// negative radius, [`ShapeError::TooFewPoints`] when `a == b` or so close that the square
    /// of their distance underflows, [`ShapeError::TooLarge`] when an end's coordinate plus the
    /// radius exceeds [`MAX_SHAPE_SIZE`], [`ShapeError::TooSmall`] when it is smaller than
    /// [`MIN_SHAPE_SIZE`] across.
    pub fn rounded_segment(a: Vec2, b: Vec2, radius: f32) -> Result<Shape, ShapeError> {
        Shape::Segment(Segment { a, b, radius }).checked()
    }

    /// A box with the given half-extents.
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] or [`ShapeError::NonPositiveSize`] for bad half-extents,
    /// [`ShapeError::TooLarge`] beyond [`MAX_SHAPE_SIZE`], [`ShapeError::TooSmall`] when both
    /// are below [`MIN_SHAPE_SIZE`].
    pub fn cuboid(half_extents: Vec2) -> Result<Shape, ShapeError> {
        Shape::Cuboid(Cuboid { half_extents }).checked()
    }

    /// The shape if it passes [`Shape::validate`]: every constructor ends here.
    fn checked(self) -> Result<Shape, ShapeError> {
        self.validate()?;
        Ok(self)
    }

    /// The convex hull of `points` (at most 8 hull vertices), rounded by `radius` (may be 0).
    ///
    /// # Errors
    /// See [`Polygon::hull`].
    pub fn polygon(points: &[Vec2], radius: f32) -> Result<Shape, ShapeError> {
        Polygon::hull(points, radius).map(Shape::from)
    }

    /// A rounded rectangle: a box of `half_extents` grown by `radius` on every side.
    ///
    /// # Errors
    /// See [`Polygon::rounded_box`].
    pub fn rounded_box(half_extents: Vec2, radius: f32) -> Result<Shape, ShapeError> {
        Polygon::rounded_box(half_extents, radius).map(Shape::from)
    }

    /// A compound of convex `parts` at local poses; see [`Compound::new`].
    ///
    /// # Errors
    /// See [`Compound::new`].
    pub fn compound(parts: Vec<(Pose, Shape)>) -> Result<Shape, ShapeError> {
        Compound::new(parts).map(Shape::Compound)
    }

    /// A simple (concave or convex) polygon of any number of vertices, in either winding,
    /// rounded by `radius`, decomposed into convex parts; see
    /// [`Compound::from_concave_polygon`].
    ///
    /// ```
    /// use sapwood::{Shape, Vec2};
    /// let u = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (2.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
    /// let pts: Vec<Vec2> = u.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    /// let shape = Shape::concave_polygon(&pts, 0.0)?;
    /// assert!(shape.part_count() >= 2);
    /// # Ok::<(), sapwood::DecompositionError>(())
    /// ```
    ///
    /// # Errors
    /// See [`Compound::from_concave_polygon`].
    pub fn concave_polygon(points: &[Vec2], radius: f32) -> Result<Shape, DecompositionError> {
        Compound::from_concave_polygon(points, radius).map(Shape::Compound)
    }

    /// A chain through `vertices`; see [`Chain::new`].
    ///
    /// ```
    /// use sapwood::{ChainOptions, Shape, Vec2};
    /// let ground = [(4.0, 0.0), (2.0, 0.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| Vec2::new(x, y));
    /// let chain = Shape::chain(ground.to_vec(), ChainOptions { closed: false, one_sided: true })?;
    /// assert_eq!(chain.part_count(), 3); // one part per segment
    /// # Ok::<(), sapwood::ShapeError>(())
    /// ```
    ///
    /// # Errors
    /// See [`Chain::new`].
    pub fn chain(vertices: Vec<Vec2>, options: ChainOptions) -> Result<Shape, ShapeError> {
        Chain::new(vertices, options).map(Shape::Chain)
    }

    /// The kind, for dispatch.
    #[inline]
    #[must_use]
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Circle(_) => ShapeKind::Circle,
            Shape::Capsule(_) => ShapeKind::Capsule,
            Shape::Segment(_) => ShapeKind::Segment,
            Shape::Cuboid(_) => ShapeKind::Cuboid,
            Shape::Polygon(_) => ShapeKind::Polygon,
            Shape::Compound(_) => ShapeKind::Compound,
            Shape::Chain(_) => ShapeKind::Chain,
        }
    }

    /// The shape scaled uniformly about its local origin by `factor`.
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] or [`ShapeError::NonPositiveSize`] for a bad factor or when the
    /// scaled size overflows, [`ShapeError::TooLarge`] beyond [`MAX_SHAPE_SIZE`].
    pub fn scaled(&self, factor: f32) -> Result<Shape, ShapeError> {
        check_positive(factor)?;
        let s = match self {
            Shape::Circle(c) => Shape::circle(c.radius * factor)?,
            Shape::Capsule(c) => Shape::capsule(c.a * factor, c.b * factor, c.radius * factor)?,
            Shape::Segment(c) => Shape::rounded_segment(c.a * factor, c.b * factor, c.radius * factor)?,
            Shape::Cuboid(b) => Shape::cuboid(b.half_extents * factor)?,
            Shape::Polygon(p) => {
                let q = p.scaled(factor);
                if q.vertices().iter().any(|v| !v.is_finite()) || !q.radius.is_finite() {
                    return Err(ShapeError::NonFinite);
                }
                Shape::from(q)
            }
            Shape::Compound(c) => Shape::Compound(c.scaled(factor)?),
            Shape::Chain(c) => Shape::Chain(c.scaled(factor)?),
        };
        s.checked()
    }

    /// The tight bounding box under `pose`: exact for every kind.
    #[inline]
    #[must_use]
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        // Boxes and circles inline: every moved collider's box is recomputed each step, and
        // most colliders are of these kinds. The rest behind a call.
        match self {
            Shape::Circle(c) => c.aabb_at(pose),
            Shape::Cuboid(b) => b.aabb_at(pose),
            _ => self.aabb_behind_a_call(pose),
        }
    }

    /// [`Shape::aabb`], not inlined.
    fn aabb_behind_a_call(&self, pose: &Pose) -> Aabb {
        match self {
            Shape::Circle(c) => c.aabb_at(pose),
            Shape::Cuboid(b) => b.aabb_at(pose),
            Shape::Capsule(c) => {
                Aabb::from_points(pose.transform_point(c.a), pose.transform_point(c.b)).fattened(c.radius)
            }
            Shape::Segment(c) => {
                Aabb::from_points(pose.transform_point(c.a), pose.transform_point(c.b)).fattened(c.radius)
            }
            Shape::Polygon(p) => {
                let mut lo = Vec2::splat(f32::INFINITY);
                let mut hi = Vec2::splat(f32::NEG_INFINITY);
                for v in p.vertices() {
                    let w = pose.transform_point(*v);
                    lo = lo.min(w);
                    hi = hi.max(w);
                }
                Aabb::new(lo, hi).fattened(p.radius)
            }
            Shape::Compound(c) => c.aabb_at(pose),
            Shape::Chain(c) => c.aabb_at(pose),
        }
    }

    /// Checks that the shape is one the narrow phase accepts: finite, positive sizes up to
    /// [`MAX_SHAPE_SIZE`], a largest dimension of at least [`MIN_SHAPE_SIZE`], for polygons 3–8
    /// counter-clockwise convex vertices with unit normals, for compounds
    /// 1–[`MAX_COMPOUND_PARTS`] valid convex parts at valid poses, and for chains
    /// 2–[`MAX_CHAIN_VERTICES`] vertices (3 if closed) with no two consecutive equal. Every
    /// constructor applies these very checks, so only shapes assembled from public fields or
    /// bytes can fail it.
    ///
    /// # Errors
    /// The first [`ShapeError`] found.
    pub fn validate(&self) -> Result<(), ShapeError> {
        self.validate_sizes()?;
        if self.extent() < MIN_SHAPE_SIZE {
            return Err(ShapeError::TooSmall);
        }
        Ok(())
    }

    /// The largest dimension of the shape, for [`MIN_SHAPE_SIZE`] (a chain checks its own, as its
    /// constructor does; a compound's parts are held to it one by one).
    fn extent(&self) -> f32 {
        let span = |a: Vec2, b: Vec2| (b - a).abs().max_element();
        match self {
            Shape::Circle(c) => c.radius,
            Shape::Capsule(c) => span(c.a, c.b).max(c.radius),
            Shape::Segment(c) => span(c.a, c.b).max(c.radius),
            Shape::Cuboid(b) => b.half_extents.max_element(),
            Shape::Polygon(p) => polygon_extent(p),
            Shape::Chain(_) | Shape::Compound(_) => f32::INFINITY,
        }
    }

    /// [`Shape::validate`] but for [`MIN_SHAPE_SIZE`].
    fn validate_sizes(&self) -> Result<(), ShapeError> {
        let size_ok = |x: f32| if x > MAX_SHAPE_SIZE { Err(ShapeError::TooLarge) } else { Ok(()) };
        match self {
            Shape::Circle(c) => {
                check_positive(c.radius)?;
                size_ok(c.radius)
            }
            Shape::Capsule(c) => {
                if !c.a.is_finite() || !c.b.is_finite() {
                    return Err(ShapeError::NonFinite);
                }
                check_positive(c.radius)?;
                check_axis(c.a, c.b)?;
                size_ok(c.radius + c.a.abs().max_element().max(c.b.abs().max_element()))
            }
            Shape::Segment(c) => {
                if !c.a.is_finite() || !c.b.is_finite() || !c.radius.is_finite() {
                    return Err(ShapeError::NonFinite);
                }
                if c.radius < 0.0 {
                    return Err(ShapeError::NegativeRadius);
                }
                check_axis(c.a, c.b)?;
                size_ok(c.radius + c.a.abs().max_element().max(c.b.abs().max_element()))
            }
            Shape::Cuboid(b) => {
                check_half_extents(b.half_extents)?;
                size_ok(b.half_extents.max_element())
            }
            Shape::Polygon(p) => polygon_sizes(p),
            Shape::Compound(c) => c.validate(),
            Shape::Chain(c) => c.validate(),
        }
    }

    /// The radius of the smallest origin-centred circle holding the shape, for coarse culling.
    #[must_use]
    pub fn bounding_radius(&self) -> f32 {
        match self {
            Shape::Circle(c) => c.radius,
            Shape::Capsule(c) => c.a.length().max(c.b.length()) + c.radius,
            Shape::Segment(c) => c.a.length().max(c.b.length()) + c.radius,
            Shape::Cuboid(b) => b.half_extents.length(),
            Shape::Polygon(p) => p.vertices().iter().map(|v| v.length()).fold(0.0, f32::max) + p.radius,
            Shape::Compound(c) => c.bounding_radius(),
            Shape::Chain(c) => c.bounding_radius(),
        }
    }
}

/// [`Shape::validate`] of a polygon, without wrapping it in a shape.
pub(crate) fn validate_polygon(p: &Polygon) -> Result<(), ShapeError> {
    polygon_sizes(p)?;
    if polygon_extent(p) < MIN_SHAPE_SIZE {
        return Err(ShapeError::TooSmall);
    }
    Ok(())
}

/// [`Shape::extent`] of a polygon.
fn polygon_extent(p: &Polygon) -> f32 {
    extent_of(p.vertices()).max(p.radius)
}

/// [`Shape::validate_sizes`] of a polygon.
fn polygon_sizes(p: &Polygon) -> Result<(), ShapeError> {
    let n = p.count as usize;
    if !(3..=MAX_POLYGON_VERTICES).contains(&n) {
        return Err(ShapeError::TooFewPoints);
    }
    if !p.radius.is_finite() || !p.centroid.is_finite() {
        return Err(ShapeError::NonFinite);
    }
    if p.radius < 0.0 {
        return Err(ShapeError::NegativeRadius);
    }
    let vs = p.vertices();
    if vs.iter().chain(p.normals()).any(|v| !v.is_finite()) {
        return Err(ShapeError::NonFinite);
    }
    polygon::check_convex(vs, p.normals())?;
    let extent = p.radius + vs.iter().map(|v| v.abs().max_element()).fold(0.0, f32::max);
    if extent > MAX_SHAPE_SIZE { Err(ShapeError::TooLarge) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_reject_bad_input() {
        assert_eq!(Shape::circle(0.0), Err(ShapeError::NonPositiveSize));
        assert_eq!(Shape::circle(-1.0), Err(ShapeError::NonPositiveSize));
        assert_eq!(Shape::circle(f32::INFINITY), Err(ShapeError::NonFinite));
        assert_eq!(Shape::capsule(Vec2::ZERO, Vec2::ZERO, 1.0), Err(ShapeError::TooFewPoints));
        assert_eq!(Shape::capsule(Vec2::ZERO, Vec2::X, 0.0), Err(ShapeError::NonPositiveSize));
        assert_eq!(Shape::capsule(Vec2::NAN, Vec2::X, 1.0), Err(ShapeError::NonFinite));
        assert_eq!(Shape::cuboid(Vec2::new(1.0, -1.0)), Err(ShapeError::NonPositiveSize));
        assert_eq!(Shape::rounded_box(Vec2::ONE, -0.1), Err(ShapeError::NegativeRadius));
        assert_eq!(Shape::circle(1.0).unwrap().scaled(0.0), Err(ShapeError::NonPositiveSize));
        assert_eq!(Shape::circle(1.0).unwrap().scaled(f32::MAX), Err(ShapeError::TooLarge));
        assert_eq!(Shape::circle(2.0).unwrap().scaled(f32::MAX), Err(ShapeError::NonFinite));
    }

    #[test]
    fn segments_and_chains_scale() {
        let s = Shape::segment(Vec2::ZERO, Vec2::X).unwrap();
        assert_eq!(s.scaled(3.0), Shape::segment(Vec2::ZERO, Vec2::new(3.0, 0.0)));
        assert_eq!(s.scaled(f32::MAX), Err(ShapeError::TooLarge));
        let r = Shape::rounded_segment(Vec2::ZERO, Vec2::X, 0.5).unwrap().scaled(2.0).unwrap();
        assert_eq!(r.aabb(&Pose::IDENTITY), Aabb::new(Vec2::new(-1.0, -1.0), Vec2::new(3.0, 1.0)));
        let options = ChainOptions { closed: true, one_sided: true };
        let c = Shape::chain(vec![Vec2::ZERO, Vec2::X, Vec2::ONE], options).unwrap();
        let Ok(Shape::Chain(d)) = c.scaled(2.0) else { panic!("a scaled chain is a chain") };
        assert_eq!(d.vertices(), &[Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::splat(2.0)]);
        assert_eq!(d.options(), options);
        assert_eq!(c.scaled(1e7), Err(ShapeError::TooLarge));
        assert_eq!(c.scaled(-1.0), Err(ShapeError::NonPositiveSize));
    }

    #[test]
    fn aabbs_are_tight() {
        let pose = Pose::new(Vec2::new(1.0, 2.0), std::f32::consts::FRAC_PI_4);
        let b = Shape::cuboid(Vec2::new(1.0, 1.0)).unwrap().aabb(&pose);
        let r = std::f32::consts::SQRT_2;
        assert!((b.min - Vec2::new(1.0 - r, 2.0 - r)).length() < 1e-5);
        assert!((b.max - Vec2::new(1.0 + r, 2.0 + r)).length() < 1e-5);
        // The box as a polygon gives the same box.
        let p = Shape::from(Cuboid { half_extents: Vec2::ONE }.to_polygon()).aabb(&pose);
        assert!((p.min - b.min).length() < 1e-5 && (p.max - b.max).length() < 1e-5);
        let c = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap();
        let a = c.aabb(&Pose::new(Vec2::ZERO, std::f32::consts::FRAC_PI_2));
        assert!((a.min - Vec2::new(-0.5, -1.5)).length() < 1e-5);
        assert!((a.max - Vec2::new(0.5, 1.5)).length() < 1e-5);
        let s = c.scaled(2.0).unwrap().aabb(&Pose::IDENTITY);
        assert_eq!(s, Aabb::new(Vec2::new(-3.0, -1.0), Vec2::new(3.0, 1.0)));
    }
}
