//! Box–box, two fast paths that give the same answer as the polygon kernel on the same boxes
//! (same reference face, same feature ids, same depth to rounding):
//!
//! - **Axis-aligned** (`xf.q` exactly the identity, seed 002): the four face separations are
//!   plain differences of half-extents and offsets; the contact points are the ends of the
//!   overlapping edge interval.
//! - **Oriented** (seed 004): SAT on the four box axes, each separation from the projected
//!   radius `|dot(axis_x, L)|·hx + |dot(axis_y, L)|·hy` (about 20 flops for all four axes
//!   instead of the polygon kernel's 2·16 vertex projections), then the shared
//!   reference/incident clipping on the chosen face.
//!
//! Box vertices and edges are numbered as in [`Cuboid::to_polygon`]: vertex `k` is corner
//! `CORNERS[k]`, edge `k` runs from vertex `k` to `k + 1` with normal `NORMALS[k]`.

use glam::Vec2;

use super::Manifold;
use super::clip::{Edge, clip};
use super::polygon_polygon::REFERENCE_TOLERANCE;
use crate::math::Pose;
use crate::shape::Cuboid;

/// Corner signs, counter-clockwise from (-, -).
const CORNERS: [Vec2; 4] = [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0)];
/// Edge normals: -y, +x, +y, -x.
const NORMALS: [Vec2; 4] = [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X];

/// Edge `k` of the box with half-extents `h`, mapped by `f`.
#[inline]
fn edge(h: Vec2, k: usize, f: impl Fn(Vec2) -> Vec2) -> Edge {
    let j = (k + 1) & 3;
    Edge { v1: f(CORNERS[k] * h), v2: f(CORNERS[j] * h), i1: k as u16, i2: j as u16, edge: k as u16 }
}

/// The face of a box most anti-parallel to `n` (given in that box's frame): the face whose
/// normal minimises `NORMALS[k]·n`, lowest index on ties (as the polygon kernel's search).
#[inline]
fn incident_face(n: Vec2) -> usize {
    let d = [-n.y, n.x, n.y, -n.x];
    let mut best = 0;
    for k in 1..4 {
        if d[k] < d[best] {
            best = k;
        }
    }
    best
}

/// The size used for the reference-face tolerance, as the polygon kernel computes it for a box.
#[inline]
fn size(a: &Cuboid, b: &Cuboid) -> f32 {
    a.half_extents.max_element() + b.half_extents.max_element()
}

/// Face separations of A's faces 0..4 when B is only translated by `p`.
#[inline]
fn aligned_separations(ha: Vec2, hb: Vec2, p: Vec2) -> [f32; 4] {
    let h = ha + hb;
    [-p.y - h.y, p.x - h.x, p.y - h.y, -p.x - h.x]
}

/// The four oriented-box separations (A's x, A's y, B's x, B's y) and the offset's projections
/// on B's axes, from the projected radii.
#[inline]
fn oriented_separations(ha: Vec2, hb: Vec2, xf: &Pose) -> ([f32; 4], Vec2) {
    let (c, s) = (xf.q.c.abs(), xf.q.s.abs());
    let l = xf.p;
    let lb = xf.q.inv_rotate(l); // L on B's axes
    let seps = [
        l.x.abs() - ha.x - (c * hb.x + s * hb.y),
        l.y.abs() - ha.y - (s * hb.x + c * hb.y),
        lb.x.abs() - hb.x - (c * ha.x + s * ha.y),
        lb.y.abs() - hb.y - (s * ha.x + c * ha.y),
    ];
    (seps, lb)
}

/// The contact manifold of two boxes; `xf` is B's pose in A's frame.
pub fn manifold(a: &Cuboid, b: &Cuboid, xf: &Pose) -> Manifold {
    let (ha, hb) = (a.half_extents, b.half_extents);
    if xf.q.is_identity() {
        let seps = aligned_separations(ha, hb, xf.p);
        // First maximum in face order, as the polygon kernel's loop; B's faces have the same
        // separations, so A always holds the reference face.
        let mut f = 0;
        for k in 1..4 {
            if seps[k] > seps[f] {
                f = k;
            }
        }
        if seps[f] > 0.0 {
            return Manifold::EMPTY;
        }
        let g = (f + 2) & 3;
        let reference = edge(ha, f, |v| v);
        let incident = edge(hb, g, |v| v + xf.p);
        return clip(&reference, NORMALS[f], &incident, 0.0, 0.0, false, true);
    }

    let (seps, lb) = oriented_separations(ha, hb, xf);
    let sa = seps[0].max(seps[1]);
    let sb = seps[2].max(seps[3]);
    if sa > 0.0 || sb > 0.0 {
        return Manifold::EMPTY;
    }
    if sb > sa + REFERENCE_TOLERANCE * size(a, b) {
        // B's face toward A is the reference; ties between a face pair go to the lower index.
        let g = if seps[3] > seps[2] {
            if lb.y >= 0.0 { 0 } else { 2 }
        } else if lb.x > 0.0 {
            3
        } else {
            1
        };
        let n = xf.q.rotate(NORMALS[g]);
        let f = incident_face(n);
        let reference = edge(hb, g, |v| xf.transform_point(v));
        clip(&reference, n, &edge(ha, f, |v| v), 0.0, 0.0, true, true)
    } else {
        let l = xf.p;
        let f = if seps[1] > seps[0] {
            if l.y > 0.0 { 2 } else { 0 }
        } else if l.x >= 0.0 {
            1
        } else {
            3
        };
        let g = incident_face(xf.q.inv_rotate(NORMALS[f]));
        let incident = edge(hb, g, |v| xf.transform_point(v));
        clip(&edge(ha, f, |v| v), NORMALS[f], &incident, 0.0, 0.0, false, true)
    }
}

/// Whether two boxes touch or overlap: the same separations as [`manifold`], without clipping.
pub fn overlap(a: &Cuboid, b: &Cuboid, xf: &Pose) -> bool {
    let (ha, hb) = (a.half_extents, b.half_extents);
    let seps = if xf.q.is_identity() { aligned_separations(ha, hb, xf.p) } else { oriented_separations(ha, hb, xf).0 };
    seps[0] <= 0.0 && seps[1] <= 0.0 && seps[2] <= 0.0 && seps[3] <= 0.0
}
