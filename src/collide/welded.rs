//! A static polygon welded to its neighbours, against a convex shape or a compound: the kernel
//! that keeps shapes from catching on the seams between separate static tiles.
//!
//! A welded polygon is collided as the closed, one-sided chain of its core edges, each edge with
//! the ghost vertices its [`EdgeWeld`] names: where a neighbour's surface continues the edge, the
//! ghost is the neighbour's vertex, so the join is flat (or concave) and no normal along the
//! floor comes out of it; elsewhere the ghost is the polygon's own vertex, a real corner. Edges
//! that lie inside the neighbours (`buried`) take no part at all; a polygon whose every edge is
//! buried may be given no welds at all (an empty list). Each edge is one
//! `chain_segment::manifold`, the deepest wins (the chain merge rule), and the feature ids are
//! the polygon's own: vertex `i`, or edge `EDGE | i`, so they stay unique and stable per edge.
//!
//! A rounded polygon is its core grown by its radius: the probe is grown by that radius
//! instead (same depth and normal) and the points moved out to the polygon's true surface.
//!
//! A shape whose centre is inside the polygon's core is past every one-sided edge; it is given
//! the plain polygon kernel, so that a shape sunk that deep is still pushed out.

use glam::Vec2;

use super::chain_segment::{self, END, FACE, Probe, START};
use super::{EDGE, Manifold, feature_id};
use crate::math::Pose;
use crate::shape::{ChainSegment, PART_SHIFT, Polygon, Shape};

/// How one edge of a static polygon joins the surfaces around it (the polygon's local frame).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct EdgeWeld {
    /// The edge's start: the polygon's vertex, or where a neighbour covering that end stops.
    pub a: Vec2,
    /// The edge's end, likewise.
    pub b: Vec2,
    /// The vertex before the edge's start along the surface: the polygon's previous vertex at a
    /// real corner, a neighbour's vertex where a neighbour's edge runs into it.
    pub ghost_a: Vec2,
    /// The vertex after the edge's end along the surface.
    pub ghost_b: Vec2,
    /// The edge lies inside-or-on the neighbours: interior, it never collides.
    pub buried: bool,
    /// The polygon's edge count (the length of its run of records, see `world::weld`).
    pub count: u8,
}

impl EdgeWeld {
    /// Same ghosts and burial (the run length aside).
    #[inline]
    pub(crate) fn same(&self, other: &EdgeWeld) -> bool {
        (self.a, self.b, self.ghost_a, self.ghost_b, self.buried)
            == (other.a, other.b, other.ghost_a, other.ghost_b, other.buried)
    }
}

/// The core polygon of a polygonal shape (a box as its polygon; rounded ones keep their radius).
#[inline]
pub(crate) fn core(shape: &Shape) -> Option<Polygon> {
    match shape {
        Shape::Cuboid(b) => Some(b.to_polygon()),
        Shape::Polygon(p) => Some(**p),
        _ => None,
    }
}

/// A point inside a convex shape's core, in its own frame.
fn centre(shape: &Shape) -> Vec2 {
    match shape {
        Shape::Capsule(c) => 0.5 * (c.a + c.b),
        Shape::Segment(c) => 0.5 * (c.a + c.b),
        Shape::Polygon(p) => p.centroid(),
        _ => Vec2::ZERO,
    }
}

/// Whether `p` is inside (or on) the core polygon `q`.
#[inline]
fn inside(q: &Polygon, p: Vec2) -> bool {
    q.vertices().iter().zip(q.normals()).all(|(v, n)| n.dot(p - *v) <= 0.0)
}

/// Whether a pair of this polygon and `other` goes through the welded kernel: chains keep their
/// own ghost vertices and never meet a welded polygon's.
#[inline]
pub(crate) fn applies(other: &Shape) -> bool {
    !matches!(other, Shape::Chain(_))
}

/// Calls `f(part, manifold)` for each touching part of `other` (part 0 for a convex shape):
/// world space, normal from the polygon to `other`, the polygon's features in the high half of
/// each id and the part's (part-tagged for a compound) in the low half.
pub(crate) fn visit(
    shape: &Shape,
    pose: &Pose,
    welds: &[EdgeWeld],
    other: &Shape,
    other_pose: &Pose,
    mut f: impl FnMut(u32, &Manifold),
) {
    let Some(q) = core(shape) else { return };
    let n = q.count();
    debug_assert!(welds.is_empty() || welds.len() == n, "one weld per edge, or none: all buried");
    let compound = matches!(other, Shape::Compound(_));
    for (i, (lp, part)) in other.parts_iter().enumerate() {
        let part_tag = if compound { (i as u32) << PART_SHIFT } else { 0 };
        let part_pose = other_pose.mul(lp);
        let xf = pose.inv_mul(&part_pose);
        let mut m = if inside(&q, xf.transform_point(centre(part))) {
            let m = super::manifold(shape, pose, part, &part_pose);
            if m.count == 0 {
                continue;
            }
            m
        } else {
            // The part grown by the polygon's rounding, against the polygon's core.
            let r = q.radius();
            let mut probe = Probe::new(part, &xf);
            probe.radius += r;
            let mut best = Manifold::EMPTY;
            let mut best_depth = f32::NEG_INFINITY;
            for (k, w) in welds.iter().enumerate() {
                if w.buried {
                    continue;
                }
                let seg = ChainSegment { a: w.a, b: w.b, ghost_a: Some(w.ghost_a), ghost_b: Some(w.ghost_b) };
                let mut e = chain_segment::manifold(&seg, true, &probe);
                let Some(d) = e.max_depth() else { continue };
                if d <= best_depth {
                    continue;
                }
                for p in &mut e.points[..e.count as usize] {
                    let feature = match (p.id >> 16) as u16 {
                        START => k as u16,
                        END => ((k + 1) % n) as u16,
                        FACE => EDGE | k as u16,
                        other => other,
                    };
                    p.id = feature_id(feature, p.id as u16);
                    p.point += r * e.normal;
                }
                (best, best_depth) = (e, d);
            }
            if best.count == 0 {
                continue;
            }
            best.transformed(pose)
        };
        for p in &mut m.points[..m.count as usize] {
            p.id |= part_tag;
        }
        f(i as u32, &m);
    }
}

/// The merged manifold of the welded polygon `shape` at `pose` and `other` at `other_pose`:
/// the deepest part's, on equal depth the first (the compound merge rule). World space, normal
/// from the polygon to `other`.
pub(crate) fn manifold(shape: &Shape, pose: &Pose, welds: &[EdgeWeld], other: &Shape, other_pose: &Pose) -> Manifold {
    let mut best = Manifold::EMPTY;
    let mut best_depth = f32::NEG_INFINITY;
    visit(shape, pose, welds, other, other_pose, |_, m| {
        let d = m.max_depth().unwrap_or(f32::NEG_INFINITY);
        if d > best_depth {
            (best, best_depth) = (*m, d);
        }
    });
    best
}

/// The outward normal of the welded polygon at surface point `point` (world) that a query found
/// with normal `normal` (world, out of the polygon): the nearest edge that collides decides, and
/// at its ends a normal leaning along a flat or concave join snaps to the face, as on a chain
/// (see `query::cast`'s ghost-vertex rule). `None` when every edge is buried.
pub(crate) fn surface_normal(
    shape: &Shape,
    pose: &Pose,
    welds: &[EdgeWeld],
    point: Vec2,
    normal: Vec2,
) -> Option<Vec2> {
    core(shape)?;
    let (p, m) = (pose.inv_transform_point(point), pose.q.inv_rotate(normal));
    let mut best: Option<(f32, ChainSegment)> = None;
    for w in welds {
        if w.buried {
            continue;
        }
        let (a, b) = (w.a, w.b);
        let e = b - a;
        let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
        let d = (a + t * e).distance_squared(p);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, ChainSegment { a, b, ghost_a: Some(w.ghost_a), ghost_b: Some(w.ghost_b) }));
        }
    }
    let (_, seg) = best?;
    Some(pose.q.rotate(crate::query::segment_vertex_normal(&seg, m)))
}
