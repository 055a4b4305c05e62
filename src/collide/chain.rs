//! Anything against a chain: the chain's BVH picks the segments near each convex part of the
//! other shape, and each segment goes through the ghost-vertex kernel (`chain_segment.rs`).
//!
//! Every function takes the pair in canonical order: the chain is B (it is the last kind), A is
//! a convex shape or a compound. Work is proportional to the segments whose boxes meet A's
//! parts, never to the chain's length. Two chains never touch: chains are terrain, and a
//! polyline against a polyline has no interior to push out of.

use super::chain_segment::{self, Probe};
use super::{Manifold, feature_id};
use glam::Vec2;

use crate::math::{Aabb, Pose};
use crate::shape::{Chain, PART_SHIFT, Shape};

/// Bits of the segment index kept in the chain's 16-bit feature number; the low two bits name
/// the segment's start, end or face. Ids stay unique among the segments any one shape can
/// touch at once (fewer than 2¹⁴ consecutive ones).
const SEGMENT_BITS: u32 = 14;

/// Calls `f(part_a, segment, manifold)` for every touching (part of A, chain segment) pair, A's
/// parts outer, segments ascending, until `f` returns `false`. Manifolds are in world space,
/// normal from A to the chain; feature ids carry A's part index as compounds do and the
/// segment index in the chain's half.
pub(super) fn visit(sa: &Shape, pa: &Pose, chain: &Chain, pb: &Pose, mut f: impl FnMut(u32, u32, &Manifold) -> bool) {
    if matches!(sa, Shape::Chain(_)) {
        return;
    }
    let one_sided = chain.options().one_sided;
    let compound = matches!(sa, Shape::Compound(_));
    for (i, (lp, part)) in sa.parts_iter().enumerate() {
        let xf = pb.inv_mul(&pa.mul(lp));
        let b = part.aabb(&xf);
        let b = b.fattened(cull_slack(&b, pb));
        // Built at the first segment near the part, as most parts a chain pairs with have none
        // (everything inside a closed outline is inside its box); a two-sided chain's side test
        // needs it first.
        let mut probe = None;
        if !one_sided {
            let mut p = Probe::new(part, &xf);
            p.chain_side = side_of(chain, &b, p.centre);
            probe = Some(p);
        }
        let mut go_on = true;
        chain.segments_in(&b, |j| {
            let probe = probe.get_or_insert_with(|| Probe::new(part, &xf));
            let mut m = chain_segment::manifold(&chain.segment_at(j as usize), one_sided, probe);
            if m.count == 0 {
                return true;
            }
            let seg = ((j & ((1 << SEGMENT_BITS) - 1)) << 2) as u16;
            let part_tag = if compound { (i as u32) << PART_SHIFT } else { 0 };
            for p in &mut m.points[..m.count as usize] {
                // The kernel's A half is the segment's feature, its B half the part's.
                let (fa, fb) = ((p.id >> 16) as u16, p.id as u16);
                p.id = feature_id(fb, seg | fa) | (part_tag << 16);
            }
            let mut w = m.transformed(pb);
            w.normal = -w.normal;
            go_on = f(i as u32, j, &w);
            go_on
        });
        if !go_on {
            return;
        }
    }
}

/// Which side of `chain` point `c` is on (`true`: in front, right of the chain's direction), by
/// the nearest point of the segments overlapping `b`; at a vertex, by the sum of the two faces'
/// normals (the side of a polyline at its joins). `None` with no segment there or `c` on it.
fn side_of(chain: &Chain, b: &Aabb, c: Vec2) -> Option<bool> {
    let (mut best, mut at) = (f32::INFINITY, None);
    chain.segments_in(b, |j| {
        let s = chain.segment_at(j as usize);
        let e = s.b - s.a;
        let t = ((c - s.a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
        let d2 = (s.a + t * e).distance_squared(c);
        if d2 < best {
            (best, at) = (d2, Some((s, t)));
        }
        true
    });
    let (s, t) = at?;
    let normal = |a: Vec2, b: Vec2| (b - a).perp().normalize_or_zero() * -1.0;
    let n = match (t, s.ghost_a, s.ghost_b) {
        (0.0, Some(g), _) => normal(g, s.a) + normal(s.a, s.b),
        (1.0, _, Some(g)) => normal(s.a, s.b) + normal(s.b, g),
        _ => normal(s.a, s.b),
    };
    let v = if t == 0.0 {
        s.a
    } else if t == 1.0 {
        s.b
    } else {
        s.a
    };
    let h = n.dot(c - v);
    (h != 0.0).then_some(h > 0.0)
}

/// How far to widen a part's box in the chain's frame: the kernels compare coordinates of the
/// chain's magnitude, so a few ulps of it keep the cull from dropping a touching segment.
#[inline]
fn cull_slack(b: &Aabb, pb: &Pose) -> f32 {
    let mag = b.min.abs().max(b.max.abs()).max_element() + pb.p.abs().max_element();
    mag * 16.0 * f32::EPSILON + f32::MIN_POSITIVE
}

/// The merged manifold: the deepest (part, segment) pair's; on equal depth the first.
pub(super) fn manifold(sa: &Shape, pa: &Pose, chain: &Chain, pb: &Pose) -> Manifold {
    let mut best = Manifold::EMPTY;
    let mut best_depth = f32::NEG_INFINITY;
    visit(sa, pa, chain, pb, |_, _, m| {
        let d = m.max_depth().unwrap_or(f32::NEG_INFINITY);
        if d > best_depth {
            best_depth = d;
            best = *m;
        }
        true
    });
    best
}

/// Whether any (part, segment) pair touches; stops at the first.
pub(super) fn overlap(sa: &Shape, pa: &Pose, chain: &Chain, pb: &Pose) -> bool {
    let mut hit = false;
    visit(sa, pa, chain, pb, |_, _, _| {
        hit = true;
        false
    });
    hit
}
