//! Compound against anything: part pairs culled by their boxes, each pair through the convex
//! dispatch table.
//!
//! Every function here takes the pair in canonical order (the caller has applied `swap_order`),
//! so the part pairs are visited, merged and tie-broken the same way whichever order the user
//! passed: the symmetry guarantee of [`contact`](super::contact) carries over to compounds.
//!
//! The cull runs in A's frame: A's part boxes are precomputed there, B's part boxes are
//! computed under B's pose relative to A. A linear scan over part boxes, not a tree: with at
//! most [`MAX_COMPOUND_PARTS`] parts a box test costs four compares, and the kernels the cull
//! saves cost a hundred times more.

use super::{Manifold, touching};
use crate::math::{Aabb, Pose};
use crate::shape::{MAX_COMPOUND_PARTS, PART_SHIFT, Shape};

/// Visits the part pairs whose boxes overlap, A's parts outer, both ascending; `visit` gets
/// the part indices and world poses and returns `false` to stop.
fn for_each_candidate(
    sa: &Shape,
    pa: &Pose,
    sb: &Shape,
    pb: &Pose,
    mut visit: impl FnMut(u32, &Shape, &Pose, u32, &Shape, &Pose) -> bool,
) {
    if let (false, Shape::Compound(cb)) = (matches!(sa, Shape::Compound(_)), sb) {
        // Convex A against compound B (the order `swap_order` gives this mix): one box of A in
        // B's frame against B's precomputed part boxes, one box transform instead of one per
        // part of B.
        let box_a = sa.aabb(&pb.inv_mul(pa));
        let box_a = box_a.fattened(cull_slack(pa, pb, &box_a));
        for (j, ((lb, part_b), bb)) in cb.parts().iter().zip(cb.part_aabbs()).enumerate() {
            if box_a.overlaps(bb) && !visit(0, sa, pa, j as u32, part_b, &pb.mul(lb)) {
                return;
            }
        }
        return;
    }
    let xf = pa.inv_mul(pb);
    let mut boxes_b = [Aabb::EMPTY; MAX_COMPOUND_PARTS];
    let mut all_b = Aabb::EMPTY;
    let mut nb = 0;
    for (k, (lp, s)) in sb.parts_iter().enumerate() {
        boxes_b[k] = s.aabb(&xf.mul(lp));
        all_b = all_b.union(&boxes_b[k]);
        nb = k + 1;
    }
    let eps = cull_slack(pa, pb, &all_b);
    let all_b = all_b.fattened(eps);
    for (i, (la, part_a)) in sa.parts_iter().enumerate() {
        let box_a = match sa {
            Shape::Compound(c) => c.part_aabbs()[i],
            _ => sa.aabb(&Pose::IDENTITY),
        };
        if !box_a.overlaps(&all_b) {
            continue;
        }
        let wa = pa.mul(la);
        for (j, (lb, part_b)) in sb.parts_iter().enumerate().take(nb) {
            if box_a.overlaps(&boxes_b[j].fattened(eps)) && !visit(i as u32, part_a, &wa, j as u32, part_b, &pb.mul(lb))
            {
                return;
            }
        }
    }
}

/// How far to widen a cull box `b` (in either pose's frame). The kernels see the part poses
/// composed in world space, rounded differently from the relative pose the cull uses: a few
/// ulps of every magnitude involved keep the cull from dropping a pair that the kernel would
/// call touching.
#[inline]
fn cull_slack(pa: &Pose, pb: &Pose, b: &Aabb) -> f32 {
    let mag = pa.p.abs().max_element().max(pb.p.abs().max_element()) + b.min.abs().max(b.max.abs()).max_element();
    mag * 16.0 * f32::EPSILON + f32::MIN_POSITIVE
}

/// Mixes the part indices into each side's 16-bit feature number (bits 9..16), so that ids stay
/// unique and stable per part pair.
fn tag_parts(m: &mut Manifold, i: u32, j: u32) {
    let tag = ((i << PART_SHIFT) << 16) | (j << PART_SHIFT);
    for p in &mut m.points[..m.count as usize] {
        p.id |= tag;
    }
}

/// Calls `f` with every touching part pair's manifold (world space, part-tagged feature ids).
pub(super) fn for_each_contact(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose, mut f: impl FnMut(u32, u32, &Manifold)) {
    for_each_candidate(sa, pa, sb, pb, |i, a, wa, j, b, wb| {
        let mut m = super::manifold(a, wa, b, wb);
        if m.count > 0 {
            tag_parts(&mut m, i, j);
            f(i, j, &m);
        }
        true
    });
}

/// The merged manifold: the deepest part pair's; on equal depth the first in (part of A, part
/// of B) order of the canonical pair.
pub(super) fn manifold(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Manifold {
    let mut best = Manifold::EMPTY;
    let mut best_depth = f32::NEG_INFINITY;
    for_each_contact(sa, pa, sb, pb, |_, _, m| {
        let d = m.max_depth().unwrap_or(f32::NEG_INFINITY);
        if d > best_depth {
            best_depth = d;
            best = *m;
        }
    });
    best
}

/// Whether any part pair touches; stops at the first.
pub(super) fn overlap(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> bool {
    let mut hit = false;
    for_each_candidate(sa, pa, sb, pb, |_, a, wa, _, b, wb| {
        hit = touching(a, wa, b, wb);
        !hit
    });
    hit
}
