//! Queries on shapes at poses: rays and points, distances, casts and times of impact.
//!
//! | question | function | method |
//! |---|---|---|
//! | where does a ray enter a shape? | [`ray_cast`], [`ray_cast_part`] | closed form per kind, in the shape's frame |
//! | is a point inside? | [`contains_point`], [`containing_part`] | closed form per kind |
//! | where is the nearest surface point, inside or out? | [`project_point`] | closed form per kind |
//! | how far apart, and where? | [`distance`], [`distance_cached`] | GJK on the cores plus the radii; closed forms for circles and boxes |
//! | where do two translating shapes first meet? | [`cast_shapes`] | conservative advancement (Newton's method on the convex distance); closed form for two circles |
//! | when do two translating, turning shapes first meet? | [`time_of_impact`] | conservative advancement with a rotation bound |
//! | where may a mover go, given the surfaces it touches? | [`solve_planes`] | exact nearest point of an intersection of half-planes |
//!
//! For whole worlds, [`World`](crate::World) serves the same questions from its trees.
//!
//! # Results and their normals
//! A pair query's result is named for the question ([`RayHit`], [`CastHit`], [`ClosestPoints`]);
//! the world's answer to the same question is the same name with `World` in front
//! ([`WorldRayHit`](crate::WorldRayHit), [`WorldCastHit`](crate::WorldCastHit),
//! [`WorldClosestPoints`](crate::WorldClosestPoints)), with the collider's `id` and `part`. Every
//! collider is named by the [`ColliderId`](crate::ColliderId) that
//! [`World::insert`](crate::World::insert) returned. A field called `normal` points from A to B;
//! one that is a surface's outward normal is called `surface_normal`:
//!
//! | result (field) | from | the normal points |
//! |---|---|---|
//! | [`collide::Manifold`](crate::collide::Manifold) (`normal`) | [`collide::contact`](crate::collide::contact), [`Contact`](crate::Contact) | from A to B (`Contact::a` to `Contact::b`) |
//! | [`query::ClosestPoints`](crate::query::ClosestPoints) (`normal`) | [`query::distance`](crate::query::distance) | from A to B |
//! | [`query::CastHit`](crate::query::CastHit) (`normal`) | [`query::cast_shapes`](crate::query::cast_shapes) | from A to B |
//! | [`query::Toi`](crate::query::Toi) (`normal`) | [`query::time_of_impact`](crate::query::time_of_impact) | from A to B |
//! | [`Impact`](crate::Impact) (`normal`) | [`World::impacts`](crate::World::impacts) | from the bullet to `other` |
//! | [`WorldClosestPoints`](crate::WorldClosestPoints) (`normal`) | [`World::distance_to_nearest`](crate::World::distance_to_nearest) | from the probe to the collider |
//! | [`query::RayHit`](crate::query::RayHit), [`WorldRayHit`](crate::WorldRayHit) (`surface_normal`) | ray casts | out of the surface hit, back towards the ray's origin |
//! | [`WorldCastHit`](crate::WorldCastHit) (`surface_normal`) | [`World::cast_shape`](crate::World::cast_shape) | out of the collider hit, back towards the cast shape |
//! | [`query::PointProjection`](crate::query::PointProjection), [`WorldPointProjection`](crate::WorldPointProjection) (`surface_normal`) | [`project_point`], [`World::project_point`](crate::World::project_point) | out of the surface at the projected point (for a chain or a bare segment, towards the queried point) |
//! | [`CharacterHit`](crate::CharacterHit) (`surface_normal`) | [`World::move_character`](crate::World::move_character) | out of the surface, towards the character |
//!
//! # Bad input
//! Every query that takes numbers checks them, pair queries and world queries alike, and
//! answers a [`QueryError`] (never a panic, never a silent empty answer): `NonFinite` for a NaN
//! or infinite point, direction, translation, fraction or distance or a pose that is not finite
//! with a unit rotation, `Negative` for a negative fraction or distance, `OutOfRange` beyond a
//! documented range, `InvalidShape` for a world query's probe failing
//! [`Shape::validate`](crate::Shape::validate). A ray's `max_t` and a search's `max_distance`
//! may be infinite; a ray's direction may have any finite length. A rotation within 1e-4 of
//! unit length ([`Rot::is_valid`](crate::Rot::is_valid)) is accepted and computed with rescaled
//! to unit length, as the world keeps it, so that it does not scale distances. The pair queries do not
//! re-validate their shapes (a chain may have a million vertices): every constructor builds
//! only valid shapes, and one assembled from public fields is the caller's promise.
//!
//! # Conventions
//! - Every shape is a convex **core** (a point, a segment or a polygon) grown by a radius (a
//!   circle's, a capsule's, a rounded polygon's); compounds are unions of such parts, and a
//!   query on a compound answers for its nearest or first-hit part, naming it.
//! - Casts and times of impact stop a small tolerance short of contact, never past it: they
//!   never miss a contact that happens within the sweep.
//! - **The boundary is inside**, as everywhere in sapwood: [`contains_point`] is true for a point
//!   exactly on the surface, and a ray starting on the surface hits at `t = 0`.
//! - A ray starting inside a shape (or on its boundary) hits at `t = 0`, at its origin, with the
//!   normal `-dir / |dir|`: a solid shape has no entry point, and this normal points back along
//!   the ray like a surface the ray has just entered. A zero `dir` gives a zero normal.
//! - `t` is in units of `dir` (see [`Ray`]); hits are reported for `0 <= t <= max_t`.
//! - Rounded polygons are exact: the surface is the core polygon's edges pushed out by the
//!   radius, joined by circular arcs around the vertices.
//! - A [`Compound`](crate::Compound) is the union of its parts: a ray hits the closest part
//!   (on equal `t`, the lowest part index; [`ray_cast_part`] tells which), a point is inside
//!   when it is inside any part ([`containing_part`] tells the first).
//! - A bare [`Segment`] (radius 0) and a [`Chain`](crate::Chain) have no
//!   interior: a point is inside only exactly on the line. A chain's parts are its segments; a
//!   ray hits a segment from either side, except that a one-sided chain's segment is invisible
//!   to a ray starting behind it. Distances, casts and times of impact see a chain as its
//!   segments, both sides, and test only the segments its BVH offers near the other shape (or
//!   its swept path); a chain turning over a time-of-impact sweep is scanned segment by segment.
//!   A cast or time of impact landing on a join between segments reports the normal the chain's
//!   ghost vertices allow there (the face's at a flat or concave join), as the narrow phase does.
//!
//! ```
//! use sapwood::query::{contains_point, ray_cast};
//! use sapwood::{Pose, Ray, Shape, Vec2};
//!
//! let crate_ = Shape::cuboid(Vec2::new(1.0, 0.5))?;
//! let pose = Pose::from_translation(Vec2::new(5.0, 0.0));
//! let hit = ray_cast(&crate_, &pose, &Ray::new(Vec2::ZERO, Vec2::X), 100.0)?.unwrap();
//! assert_eq!((hit.t, hit.point, hit.surface_normal), (4.0, Vec2::new(4.0, 0.0), Vec2::NEG_X));
//! assert!(contains_point(&crate_, &pose, Vec2::new(6.0, 0.5))?); // a corner counts
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod advance;
mod cast;
mod distance;
mod gjk;
mod planes;
mod point;
mod project;
mod ray;
#[cfg(test)]
mod tests;
mod toi;

pub use advance::Sweep;
pub(crate) use cast::segment_vertex_normal;
pub use cast::{CastHit, CastOptions, cast_shapes};
pub use distance::{ClosestPoints, distance, distance_cached};
pub use gjk::SimplexCache;
pub(crate) use planes::solve;
pub use planes::{Plane, PlaneSolution, solve_planes};
pub(crate) use point::part_containing;
pub(crate) use point::{EdgeRegion, edge_region, max_separation, within};
pub use point::{containing_part, contains_point};
pub use project::{PointProjection, project_point};
pub(crate) use ray::cast_ray;
pub use ray::{RayHit, ray_cast, ray_cast_part};
pub use toi::{Toi, ToiState, time_of_impact};

use glam::Vec2;

use std::borrow::Cow;

use crate::math::{Aabb, Pose, Ray};
use crate::shape::{Segment, Shape};
use gjk::Proxy;

/// Why a query refused its input. Queries never panic; this is their answer to input that has
/// no meaningful result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryError {
    /// A pose, translation, sweep, fraction or distance is NaN or infinite, or a pose's
    /// rotation is not a unit rotation.
    NonFinite,
    /// A fraction or distance is negative.
    Negative,
    /// A value outside its documented range (a character mover's non-unit `up`, a maximum
    /// slope above 90°, a position beyond [`MAX_COORDINATE`](crate::MAX_COORDINATE)).
    OutOfRange,
    /// A shape the query cannot use: one failing [`Shape::validate`], or a kind the query does
    /// not accept (a character mover refuses compounds, chains and bare segments).
    InvalidShape,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            QueryError::NonFinite => "query input is NaN, infinite or not a unit rotation",
            QueryError::Negative => "query fraction or distance is negative",
            QueryError::OutOfRange => "query input is outside its documented range",
            QueryError::InvalidShape => "query shape is invalid or of a kind the query does not accept",
        })
    }
}

impl std::error::Error for QueryError {}

// The checks every query applies to its input, pair queries and world queries alike: the one
// error policy (see the module docs).

/// A pose with finite components and a unit rotation, handed back as the query computes with
/// it ([`Pose::valid_unit`]).
pub(crate) fn check_pose(pose: &Pose) -> Result<Pose, QueryError> {
    pose.valid_unit().ok_or(QueryError::NonFinite)
}

/// A finite point, direction or translation.
pub(crate) fn check_vector(v: Vec2) -> Result<(), QueryError> {
    if v.is_finite() { Ok(()) } else { Err(QueryError::NonFinite) }
}

/// A finite, non-negative scalar (a fraction or a distance).
pub(crate) fn check_amount(x: f32) -> Result<(), QueryError> {
    if !x.is_finite() {
        Err(QueryError::NonFinite)
    } else if x < 0.0 {
        Err(QueryError::Negative)
    } else {
        Ok(())
    }
}

/// A non-negative bound that may be infinite (a ray's `max_t`, a search's `max_distance`).
pub(crate) fn check_bound(x: f32) -> Result<(), QueryError> {
    if x.is_nan() {
        Err(QueryError::NonFinite)
    } else if x < 0.0 {
        Err(QueryError::Negative)
    } else {
        Ok(())
    }
}

/// A ray with a finite origin and direction, and a bound as [`check_bound`].
pub(crate) fn check_ray(ray: &Ray, max_t: f32) -> Result<(), QueryError> {
    check_vector(ray.origin)?;
    check_vector(ray.dir)?;
    check_bound(max_t)
}

/// A probe the world would accept as a collider: a shape passing [`Shape::validate`] (a shape
/// assembled from its public fields may not) at a valid pose.
pub(crate) fn check_probe(shape: &Shape, pose: &Pose) -> Result<Pose, QueryError> {
    let pose = check_pose(pose)?;
    shape.validate().map_err(|_| QueryError::InvalidShape)?;
    Ok(pose)
}

/// A shape's convex parts with their index and pose in the shape's frame: a convex shape is
/// its own part 0 at the identity; a chain's segment `i` is part `i`, a bare segment placed at
/// its midpoint (so that its bounding circle is tight for the callers' culls). Of a chain, only
/// the segments whose boxes overlap `cull` (in its frame) when given: the callers pass a box
/// holding every place where a segment could matter, so the answer is the full scan's.
fn parts(shape: &Shape, cull: Option<Aabb>) -> impl Iterator<Item = (u32, Pose, Cow<'_, Shape>)> {
    let (single, many, chain) = match shape {
        Shape::Compound(c) => (None, c.parts(), None),
        Shape::Chain(c) => (None, &[][..], Some(c)),
        s => (Some(s), &[][..], None),
    };
    let many = many.iter().enumerate().map(|(i, (lp, part))| (i as u32, *lp, Cow::Borrowed(part)));
    let segments = chain.into_iter().flat_map(move |c| {
        let everything = Aabb::new(Vec2::splat(f32::NEG_INFINITY), Vec2::splat(f32::INFINITY));
        c.segments_overlapping(cull.unwrap_or(everything)).map(move |i| {
            let i = i as usize;
            let s = c.segment_at(i);
            let mid = 0.5 * (s.a + s.b);
            let seg = Shape::Segment(Segment { a: s.a - mid, b: s.b - mid, radius: 0.0 });
            (i as u32, Pose::from_translation(mid), Cow::Owned(seg))
        })
    });
    single.map(|s| (0, Pose::IDENTITY, Cow::Borrowed(s))).into_iter().chain(many).chain(segments)
}

/// The radius of an origin-centred circle holding `shape`, safe for a shape assembled from
/// bytes (a polygon's vertex count is clamped as in its GJK proxy; a compound's parts are built
/// by constructors), for the chain culls.
fn reach_of(shape: &Shape) -> f32 {
    Proxy::of(shape).map_or_else(|| shape.bounding_radius(), |p| p.reach())
}

/// A part's GJK proxy in its shape's frame (`None` only for a nested compound or chain, which
/// no constructor builds).
#[inline]
fn part_proxy(local: &Pose, part: &Shape) -> Option<Proxy> {
    let p = Proxy::of(part)?;
    Some(if *local == Pose::IDENTITY { p } else { p.transformed(local) })
}
