//! Capsule–polygon and capsule–box: the capsule is a rounded 2-gon (its segment, once in each
//! direction) run through the polygon kernel's SAT, exact-distance and clipping machinery, as
//! Box2D does. A capsule lying along a face clips to a 2-point manifold.
//!
//! Capsule features: vertex 0 is `a`, vertex 1 is `b`, edge 0 runs `a → b` (normal to its right),
//! edge 1 runs `b → a`.

use glam::Vec2;

use super::Manifold;
use super::polygon_polygon::{Hull, collide, collide_test, polygon_size};
use crate::math::Pose;
use crate::shape::{Capsule, Cuboid, Polygon};

/// The capsule's segment as a 2-gon: vertices and the outward normals of its two edges.
#[inline]
fn segment_hull(c: &Capsule) -> ([Vec2; 2], [Vec2; 2]) {
    let e = c.b - c.a;
    // The constructor rejects a == b; should one slip through, any unit normal keeps the
    // results finite (the capsule is then a circle and every direction is a face normal).
    let n = Vec2::new(e.y, -e.x).try_normalize().unwrap_or(Vec2::X);
    ([c.a, c.b], [n, -n])
}

/// The capsule's size for the reference-face tolerance: half its segment (max-norm).
#[inline]
fn capsule_size(c: &Capsule) -> f32 {
    0.5 * (c.b - c.a).abs().max_element()
}

/// The contact manifold of a capsule (A) and a polygon (B); `xf` is B's pose in A's frame.
pub fn manifold(a: &Capsule, b: &Polygon, xf: &Pose) -> Manifold {
    let (v, n) = segment_hull(a);
    let ha = Hull { v: &v, n: &n, radius: a.radius };
    collide(&ha, &Hull::of(b), xf, capsule_size(a) + polygon_size(b))
}

/// Whether a capsule and a polygon touch; agrees exactly with `manifold(..).count > 0`.
pub fn overlap(a: &Capsule, b: &Polygon, xf: &Pose) -> bool {
    let (v, n) = segment_hull(a);
    let ha = Hull { v: &v, n: &n, radius: a.radius };
    collide_test(&ha, &Hull::of(b), xf, capsule_size(a) + polygon_size(b))
}

/// Capsule–box: the box as a 4-gon.
pub fn manifold_cuboid(a: &Capsule, b: &Cuboid, xf: &Pose) -> Manifold {
    manifold(a, &b.to_polygon(), xf)
}

/// Capsule–box overlap: the box as a 4-gon.
pub fn overlap_cuboid(a: &Capsule, b: &Cuboid, xf: &Pose) -> bool {
    overlap(a, &b.to_polygon(), xf)
}
