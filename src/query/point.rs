//! Point containment against one shape at a pose, and the polygon point tests the kernels share.

use glam::Vec2;

use super::{QueryError, check_pose, check_vector};
use crate::math::Pose;
use crate::shape::{Capsule, Chain, Polygon, Shape};

/// Whether `point` lies inside `shape` at `pose` or on its boundary.
///
/// # Errors
/// [`QueryError::NonFinite`] for a NaN or infinite point or an invalid pose.
pub fn contains_point(shape: &Shape, pose: &Pose, point: Vec2) -> Result<bool, QueryError> {
    Ok(containing_part(shape, pose, point)?.is_some())
}

/// The first part (lowest index; 0 for a convex shape) of `shape` at `pose` that contains
/// `point`, boundary included.
///
/// ```
/// use sapwood::query::containing_part;
/// use sapwood::{Pose, Shape, Vec2};
/// let l = Shape::compound(vec![
///     (Pose::IDENTITY, Shape::cuboid(Vec2::new(0.5, 2.0))?),
///     (Pose::from_translation(Vec2::new(1.5, -1.5)), Shape::cuboid(Vec2::new(1.0, 0.5))?),
/// ])?;
/// assert_eq!(containing_part(&l, &Pose::IDENTITY, Vec2::new(2.0, -1.5))?, Some(1));
/// assert_eq!(containing_part(&l, &Pose::IDENTITY, Vec2::new(0.5, -1.5))?, Some(0)); // on both: the first
/// assert_eq!(containing_part(&l, &Pose::IDENTITY, Vec2::new(2.0, 1.0))?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`contains_point`].
pub fn containing_part(shape: &Shape, pose: &Pose, point: Vec2) -> Result<Option<u32>, QueryError> {
    let pose = &check_pose(pose)?;
    check_vector(point)?;
    Ok(part_containing(shape, pose, point))
}

/// [`containing_part`] on checked input.
pub(crate) fn part_containing(shape: &Shape, pose: &Pose, point: Vec2) -> Option<u32> {
    let p = pose.inv_transform_point(point);
    match shape {
        Shape::Compound(c) => {
            c.parts().iter().position(|(lp, part)| contains_local(part, lp.inv_transform_point(p))).map(|i| i as u32)
        }
        Shape::Chain(c) => chain_point(c, p),
        s => contains_local(s, p).then_some(0),
    }
}

/// The first chain segment through the local point `p` (exactly on it).
fn chain_point(c: &Chain, p: Vec2) -> Option<u32> {
    let mut found = None;
    c.segments_in(&crate::Aabb::new(p, p), |i| {
        let s = c.segment_at(i as usize);
        if contains_local(&Shape::Capsule(Capsule { a: s.a, b: s.b, radius: 0.0 }), p) {
            found = Some(i);
        }
        found.is_none()
    });
    found
}

pub(super) fn contains_local(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Circle(c) => reaches(p, Vec2::ZERO, Vec2::ZERO, c.radius),
        Shape::Capsule(c) => reaches(p, c.a, c.b, c.radius),
        Shape::Segment(s) => contains_local(&Shape::Capsule(s.as_capsule()), p),
        Shape::Chain(c) => chain_point(c, p).is_some(),
        Shape::Cuboid(b) => p.x.abs() <= b.half_extents.x && p.y.abs() <= b.half_extents.y,
        Shape::Polygon(poly) => within(poly, p, poly.radius),
        Shape::Compound(c) => c.parts().iter().any(|(lp, part)| contains_local(part, lp.inv_transform_point(p))),
    }
}

/// Whether `p` lies within `radius` of the segment `a`–`b` (a point when they are equal). The
/// squares are f32's as long as the radius's is normal; a radius below 1e-18 squares in f64,
/// where f32 would underflow to zero and take a point 1e-25 from a circle of radius 1e-39 for
/// inside. (At other sizes f32 decides as it always has: a point on the boundary, up to the
/// rounding of its pose, counts as inside.)
fn reaches(p: Vec2, a: Vec2, b: Vec2, radius: f32) -> bool {
    if radius >= 1e-18 {
        let d = b - a;
        let dd = d.length_squared();
        let t = if dd > 0.0 { ((p - a).dot(d) / dd).clamp(0.0, 1.0) } else { 0.0 };
        (p - a - t * d).length_squared() <= radius * radius
    } else {
        let (p, a, d, r) = (p.as_dvec2(), a.as_dvec2(), (b - a).as_dvec2(), f64::from(radius));
        let dd = d.length_squared();
        let t = if dd > 0.0 { ((p - a).dot(d) / dd).clamp(0.0, 1.0) } else { 0.0 };
        (p - a - t * d).length_squared() <= r * r
    }
}

/// What [`max_separation`] finds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EdgeSeparation {
    /// The edge whose line the point is farthest outside of (the first on ties).
    pub edge: usize,
    /// That signed distance.
    pub separation: f32,
    /// The runner-up edge's: what the edge won by.
    pub runner_up: f32,
    /// The largest 1-norm of the polygon's vertices, the size of what the separations are
    /// computed from (for a reuse witness's rounding share; unused values cost nothing once
    /// inlined).
    pub extent: f32,
}

/// The edge whose line `p` is farthest outside of, and what it won by. Ties keep the first
/// edge, so the result is deterministic.
#[inline]
pub(crate) fn max_separation(poly: &Polygon, p: Vec2) -> EdgeSeparation {
    let (vs, ns) = (poly.vertices(), poly.normals());
    let l1 = |v: Vec2| v.x.abs() + v.y.abs();
    let mut best =
        EdgeSeparation { edge: 0, separation: ns[0].dot(p - vs[0]), runner_up: f32::NEG_INFINITY, extent: l1(vs[0]) };
    for i in 1..vs.len() {
        let s = ns[i].dot(p - vs[i]);
        if s > best.separation {
            (best.edge, best.runner_up, best.separation) = (i, best.separation, s);
        } else if s > best.runner_up {
            best.runner_up = s;
        }
        best.extent = best.extent.max(l1(vs[i]));
    }
    best
}

/// Where a point outside the core polygon lies relative to edge `i` (the edge of maximum
/// separation): before its first vertex, after its second, or beside it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum EdgeRegion {
    /// Closest to vertex `i`.
    Start,
    /// Closest to vertex `i + 1`.
    End,
    /// Closest to the edge's interior: the distance is the separation itself.
    Face,
}

/// See [`EdgeRegion`].
#[inline]
pub(crate) fn edge_region(v1: Vec2, v2: Vec2, p: Vec2) -> EdgeRegion {
    let e = v2 - v1;
    if (p - v1).dot(e) < 0.0 {
        EdgeRegion::Start
    } else if (p - v2).dot(e) > 0.0 {
        EdgeRegion::End
    } else {
        EdgeRegion::Face
    }
}

/// Whether `p` (in the polygon's frame) lies within `r` of the core polygon, boundary included.
/// Shared with the circle–polygon kernel so that its overlap test and this point test make the
/// same decisions.
#[inline]
pub(crate) fn within(poly: &Polygon, p: Vec2, r: f32) -> bool {
    let EdgeSeparation { edge: i, separation: s, .. } = max_separation(poly, p);
    if s > r {
        return false;
    }
    if s <= 0.0 {
        return true;
    }
    let n = poly.count();
    let (v1, v2) = (poly.vertices[i], poly.vertices[if i + 1 == n { 0 } else { i + 1 }]);
    match edge_region(v1, v2, p) {
        EdgeRegion::Start => (v1 - p).length_squared() <= r * r,
        EdgeRegion::End => (v2 - p).length_squared() <= r * r,
        EdgeRegion::Face => true,
    }
}
