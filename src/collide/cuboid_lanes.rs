//! Resting box pairs four at a time: the reuse path of [`super::cuboid_cuboid`] in SIMD lanes.
//!
//! In a resting pile nearly every pair is a box pair whose witness holds (see [`super::reuse`]),
//! and its evaluation is then a fixed sequence of about a hundred flops with a few selects: the
//! relative pose, the witness's motion test, the two separations of the recorded faces, the
//! reference side, the clipping of the incident edge, the move to world space and the impulses
//! carried by feature id. Four such pairs side by side in 128-bit lanes cost little more than one
//! alone, where one pair at a time leaves most of the core's width idle.
//!
//! Every lane performs the scalar path's operations on the same operands in the same order (the
//! selects that replace its branches pick among values it would also have computed), so a lane's
//! manifold is the scalar path's bit for bit, feature ids and carried impulses included. A lane
//! whose decisions the scalar path would not take from the witness (the witness was written for
//! the other call order or no longer holds, the boxes no longer touch, the reference side
//! changed, the rotation is exactly the identity) writes nothing and is left to it.

use glam::Vec2;
use wide::{f32x4, i32x4};

use super::cuboid_cuboid::{CORNERS, NORMALS};
use super::polygon_polygon::REFERENCE_TOLERANCE;
use super::reuse::{Faces, Witness, tag};
use super::{Manifold, ManifoldPoint, feature_id};
use crate::math::Pose;

/// A lane's select mask: every bit set.
const TRUE: f32 = f32::from_bits(u32::MAX);

/// What the lanes need of a witness's faces, four rows of four per choice of A's face, B's face,
/// the incident face and the reference side (index [`row`]): the corner signs of A's edge and of
/// B's edge that the clipping uses, the normals of A's and B's recorded faces, and the masks of
/// the choices. Loaded a row at a time and transposed, these are plain vector loads where
/// computing each lane's values apart would assemble every column from scalars.
static FACE_ROWS: [[[f32; 4]; 4]; 128] = face_rows();

/// The feature ids of the two clipped points, per [`FACE_ROWS`] row: the reference edge's first
/// corner with the incident edge's second, and the other two, in the kernel's call order; then
/// (rows 128 and up) the same in the contact's order when the pair was swapped into the
/// kernel's (each id's halves exchanged, as `Manifold::flip` exchanges them).
static FACE_IDS: [[u32; 2]; 256] = face_ids();

/// The index into [`FACE_ROWS`] and [`FACE_IDS`] of box faces `f` ([`faces_of`]'s inverse).
/// The box kernel records it with its faces ([`recorded`]), so that the lanes read it in one
/// step.
const fn row_of(f: Faces) -> u32 {
    (f.a | f.b << 2 | f.incident << 4 | (f.flip as usize) << 6) as u32
}

/// The decisions the box kernel records for faces `f`: [`Faces::pack`]'s 13 bits, and the
/// lanes' row above them.
pub(crate) const fn recorded(f: Faces) -> u32 {
    f.pack() | row_of(f) << ROW_SHIFT
}

/// Where [`recorded`] puts the row.
const ROW_SHIFT: u32 = 13;

/// The row a box witness's `features` recorded (see [`recorded`]).
#[inline]
fn row(features: u32) -> usize {
    (features >> ROW_SHIFT & 127) as usize
}

/// The faces of row `i`: A's, B's, the incident one, and whether B holds the reference.
const fn faces_of(i: usize) -> Faces {
    Faces { a: i & 3, b: i >> 2 & 3, incident: i >> 4 & 3, flip: i >> 6 != 0 }
}

const fn face_ids() -> [[u32; 2]; 256] {
    let mut ids = [[0; 2]; 256];
    let mut i = 0;
    while i < 128 {
        let f = faces_of(i);
        let (r1, r2) = if f.flip { (f.b, (f.b + 1) & 3) } else { (f.a, (f.a + 1) & 3) };
        let (i1, i2) = (f.incident, (f.incident + 1) & 3);
        ids[i] = if f.flip {
            [feature_id(i2 as u16, r1 as u16), feature_id(i1 as u16, r2 as u16)]
        } else {
            [feature_id(r1 as u16, i2 as u16), feature_id(r2 as u16, i1 as u16)]
        };
        ids[i + 128] = [ids[i][0].rotate_left(16), ids[i][1].rotate_left(16)];
        i += 1;
    }
    ids
}

const fn face_rows() -> [[[f32; 4]; 4]; 128] {
    let mut rows = [[[0.0; 4]; 4]; 128];
    let mut i = 0;
    while i < 128 {
        let Faces { a, b, incident, flip } = faces_of(i);
        // A's edge is its reference face, or its incident face when B holds the reference.
        let (ea, eb) = if flip { (incident, b) } else { (a, incident) };
        rows[i] = [
            [CORNERS[ea].x, CORNERS[ea].y, CORNERS[(ea + 1) & 3].x, CORNERS[(ea + 1) & 3].y],
            [CORNERS[eb].x, CORNERS[eb].y, CORNERS[(eb + 1) & 3].x, CORNERS[(eb + 1) & 3].y],
            [NORMALS[a].x, NORMALS[a].y, NORMALS[b].x, NORMALS[b].y],
            [mask(a & 1 == 0), mask(b & 1 == 0), mask(flip), 0.0],
        ];
        i += 1;
    }
    rows
}

/// A lane's select mask for `m`.
const fn mask(m: bool) -> f32 {
    if m { TRUE } else { 0.0 }
}

/// Whether `w` can serve a box pair's lane at all: written by the oriented box kernel, with a
/// budget. The motion test runs in the lanes.
#[inline]
pub(crate) fn may_serve(w: &Witness) -> bool {
    w.features >> 24 == u32::from(tag::CUBOIDS) && w.budget > 0.0
}

/// One box pair for [`reuse4`], in the contact's order. The lane puts the boxes in canonical
/// order itself (`swap_order`), and declines a pair whose witness was written for the other
/// order.
pub(crate) struct Lane<'a> {
    pub pa: &'a Pose,
    pub pb: &'a Pose,
    pub ha: Vec2,
    pub hb: Vec2,
    pub witness: &'a mut Witness,
    /// The pair's manifold: the one of the last step on the way in, the new one on the way out.
    pub manifold: &'a mut Manifold,
}

/// The four lanes' rows `f(lane)`, transposed into columns.
#[inline(always)]
fn columns(f: impl Fn(usize) -> [f32; 4]) -> [f32x4; 4] {
    f32x4::transpose([f32x4::new(f(0)), f32x4::new(f(1)), f32x4::new(f(2)), f32x4::new(f(3))])
}

/// Evaluates four box pairs, of which those in the mask `enabled` (bit `k` for `lanes[k]`) are
/// taken; each of those whose decisions hold gets its new manifold written in place and its
/// witness marked reused. Returns the mask of those lanes. A lane not enabled may hold any
/// poses, sizes and witness: it is computed alongside and its results dropped.
pub(crate) fn reuse4(lanes: [Lane<'_>; 4], enabled: u32) -> u32 {
    let rows = [row(lanes[0].witness.features), row(lanes[1].witness.features)];
    let rows = [rows[0], rows[1], row(lanes[2].witness.features), row(lanes[3].witness.features)];
    let first = columns(|k| bytemuck::cast(*lanes[k].pa));
    let second = columns(|k| bytemuck::cast(*lanes[k].pb));
    let [h1x, h1y, h2x, h2y] = columns(|k| [lanes[k].ha.x, lanes[k].ha.y, lanes[k].hb.x, lanes[k].hb.y]);
    // The canonical order (`swap_order` of two boxes): the poses' numbers compared in turn by
    // `f32::total_cmp`. Poses equal in every number are left to the scalar path.
    let total = |v: f32x4| -> i32x4 {
        let b: i32x4 = bytemuck::cast(v);
        b ^ ((b >> 31) & i32x4::splat(i32::MAX))
    };
    let (mut greater, mut decided) = (i32x4::ZERO, i32x4::ZERO);
    for (&u, &v) in first.iter().zip(&second) {
        let (u, v) = (total(u), total(v));
        greater |= !decided & u.simd_gt(v);
        decided |= !u.simd_eq(v);
    }
    let swap: f32x4 = bytemuck::cast(greater);
    let recorded = |k: usize| mask(lanes[k].witness.swapped);
    let recorded = f32x4::new([recorded(0), recorded(1), recorded(2), recorded(3)]);
    let in_order = bytemuck::cast::<_, f32x4>(decided) & !(swap ^ recorded);
    let pick = |u: f32x4, v: f32x4| (swap.select(v, u), swap.select(u, v));
    let ((ax, bx), (ay, by)) = (pick(first[0], second[0]), pick(first[1], second[1]));
    let ((ac, bc), (as_, bs)) = (pick(first[2], second[2]), pick(first[3], second[3]));
    let ((hax, hbx), (hay, hby)) = (pick(h1x, h2x), pick(h1y, h2y));
    let [wx, wy, wc, ws] = columns(|k| bytemuck::cast(lanes[k].witness.xf));
    let column = |f: fn(&Witness) -> f32| {
        f32x4::new([f(lanes[0].witness), f(lanes[1].witness), f(lanes[2].witness), f(lanes[3].witness)])
    };
    let (budget, reach) = (column(|w| w.budget), column(|w| w.reach));
    // `REFERENCE_TOLERANCE * cuboid_cuboid::size(A, B)`; the sum is the same in either order.
    let tolerance = f32x4::splat(REFERENCE_TOLERANCE) * (h1x.max(h1y) + h2x.max(h2y));
    let table = |j: usize| columns(|k| FACE_ROWS[rows[k]][j]);
    let ([a1sx, a1sy, a2sx, a2sy], [b1sx, b1sy, b2sx, b2sy]) = (table(0), table(1));
    let ([nax, nay, nbx, nby], [a_even, b_even, flip, _]) = (table(2), table(3));
    let zero = f32x4::ZERO;

    // B's pose in A's frame (`Pose::inv_mul`).
    let (dx, dy) = (bx - ax, by - ay);
    let (px, py) = (ac * dx + as_ * dy, -as_ * dx + ac * dy);
    let (c, s) = (ac * bc + as_ * bs, ac * bs - as_ * bc);
    let identity = c.simd_eq(f32x4::ONE) & s.simd_eq(zero);

    // The witness's motion test (`Witness::reusable`).
    let dq = (c - wc).abs() + (s - ws).abs();
    let holds = ((px - wx).abs() + (py - wy).abs() + reach * dq).simd_lt(budget);

    // The separations of the recorded faces (`cuboid_cuboid::separation`): A's axis y for its
    // faces 0 and 2, x for 1 and 3; B's likewise, on the offset in B's frame.
    let (lbx, lby) = (c * px + s * py, -s * px + c * py);
    let (ca, sa) = (c.abs(), s.abs());
    let sep_a = a_even.select(py.abs() - hay - (sa * hbx + ca * hby), px.abs() - hax - (ca * hbx + sa * hby));
    let sep_b = b_even.select(lby.abs() - hby - (sa * hax + ca * hay), lbx.abs() - hbx - (ca * hax + sa * hay));
    let same_side = !(sep_b.simd_gt(sep_a + tolerance) ^ flip);
    let ok = in_order & holds & !identity & sep_a.simd_le(zero) & sep_b.simd_le(zero) & same_side;
    let ok_bits = ok.to_bitmask() & enabled & 15;
    if ok_bits == 0 {
        return 0;
    }

    // The reference and incident edges (`cuboid_cuboid::build`): A's edge as it is, B's moved
    // into A's frame; the reference is B's when `flip`.
    let (a1x, a1y, a2x, a2y) = (a1sx * hax, a1sy * hay, a2sx * hax, a2sy * hay);
    let (v1x, v1y, v2x, v2y) = (b1sx * hbx, b1sy * hby, b2sx * hbx, b2sy * hby);
    let (b1x, b1y) = ((c * v1x - s * v1y) + px, (s * v1x + c * v1y) + py);
    let (b2x, b2y) = ((c * v2x - s * v2y) + px, (s * v2x + c * v2y) + py);
    let nx = flip.select(c * nbx - s * nby, nax);
    let ny = flip.select(s * nbx + c * nby, nay);
    let (r1x, r1y, r2x, r2y) =
        (flip.select(b1x, a1x), flip.select(b1y, a1y), flip.select(b2x, a2x), flip.select(b2y, a2y));
    let (i1x, i1y, i2x, i2y) =
        (flip.select(a1x, b1x), flip.select(a1y, b1y), flip.select(a2x, b2x), flip.select(a2y, b2y));
    // The clipping of the incident edge against the reference edge's side planes
    // (`clip::clip_sharp`: sharp shapes, the deepest vertex's depth restored).
    let (tx, ty) = (-ny, nx);
    let upper1 = (r2x - r1x) * tx + (r2y - r1y) * ty;
    let lw1 = (i1x - r1x) * tx + (i1y - r1y) * ty;
    let lw2 = (i2x - r1x) * tx + (i2y - r1y) * ty;
    let span = lw1 - lw2;
    let s1 = (i1x - r1x) * nx + (i1y - r1y) * ny;
    let s2 = (i2x - r1x) * nx + (i2y - r1y) * ny;
    // The incident edge's point at lateral coordinate `l` (`Surface::at` of a sharp edge).
    let at = |l: f32x4| {
        let t = (l - lw2) / (lw1 - lw2);
        let t = t.simd_lt(zero).select(zero, t);
        let t = t.simd_gt(f32x4::ONE).select(f32x4::ONE, t);
        let u = f32x4::ONE - t;
        (i2x * u + i1x * t, i2y * u + i1y * t)
    };
    let apart = span.simd_gt(zero);
    let lo_clipped = lw2.simd_lt(zero) & apart;
    let (vx, vy) = at(zero);
    let (lo_x, lo_y) = (lo_clipped.select(vx, i2x), lo_clipped.select(vy, i2y));
    let lo_sep = lo_clipped.select((vx - r1x) * nx + (vy - r1y) * ny, s2);
    let hi_clipped = lw1.simd_gt(upper1) & apart;
    let (vx, vy) = at(upper1);
    let (hi_x, hi_y) = (hi_clipped.select(vx, i1x), hi_clipped.select(vy, i1y));
    let hi_sep = hi_clipped.select((vx - r1x) * nx + (vy - r1y) * ny, s1);
    let lo_first = s2.simd_le(s1);
    let lo_sep = (lo_first & lo_clipped & lo_sep.simd_gt(s2)).select(s2, lo_sep);
    let hi_sep = (!lo_first & hi_clipped & hi_sep.simd_gt(s1)).select(s1, hi_sep);

    // Each point midway between the surfaces, then everything moved to world space by A's pose
    // (`Manifold::transform`).
    let half = f32x4::splat(0.5);
    let (lo_x, lo_y) = (lo_x + (half * (zero - lo_sep)) * nx, lo_y + (half * (zero - lo_sep)) * ny);
    let (hi_x, hi_y) = (hi_x + (half * (zero - hi_sep)) * nx, hi_y + (half * (zero - hi_sep)) * ny);
    let (nx, ny) = (flip.select(-nx, nx), flip.select(-ny, ny));
    let world = |x: f32x4, y: f32x4| ((ac * x - as_ * y) + ax, (as_ * x + ac * y) + ay);
    let (lo_x, lo_y) = world(lo_x, lo_y);
    let (hi_x, hi_y) = world(hi_x, hi_y);
    let (nx, ny) = (ac * nx - as_ * ny, as_ * nx + ac * ny);
    // In the contact's order: negated (the sign bit flipped) where the pair was swapped.
    let sign = recorded & f32x4::splat(-0.0);
    let (nx, ny) = (nx ^ sign, ny ^ sign);

    let (lo_x, lo_y, lo_sep) = (lo_x.to_array(), lo_y.to_array(), lo_sep.to_array());
    let (hi_x, hi_y, hi_sep) = (hi_x.to_array(), hi_y.to_array(), hi_sep.to_array());
    let (nx, ny) = (nx.to_array(), ny.to_array());
    let mut lanes = lanes;
    for (k, lane) in lanes.iter_mut().enumerate() {
        if ok_bits >> k & 1 == 0 {
            continue;
        }
        let [lo_id, hi_id] = FACE_IDS[rows[k] | usize::from(lane.witness.swapped) << 7];
        let lo = (Vec2::new(lo_x[k], lo_y[k]), lo_sep[k], lo_id);
        let hi = (Vec2::new(hi_x[k], hi_y[k]), hi_sep[k], hi_id);
        let m = &mut *lane.manifold;
        let (keep_lo, keep_hi) = (lo.1 <= 0.0, hi.1 <= 0.0);
        m.normal = Vec2::new(nx[k], ny[k]);
        lane.witness.mark_reused();
        // A resting pair mostly keeps both points, in the same order: each keeps its id and
        // impulses, and only its place and depth change.
        if keep_lo && keep_hi && m.count == 2 && m.points[0].id == lo.2 && m.points[1].id == hi.2 {
            (m.points[0].point, m.points[0].depth) = (lo.0, 0.0 - lo.1);
            (m.points[1].point, m.points[1].depth) = (hi.0, 0.0 - hi.1);
            continue;
        }
        // The old points' ids and impulses, for `Manifold::carry_impulses`.
        let old = [0, 1].map(|j| (m.points[j].id, m.points[j].normal_impulse, m.points[j].tangent_impulse));
        let old = &old[..(m.count as usize).min(2)];
        let point = |(point, _, id): (Vec2, f32, u32), depth: f32| {
            let (_, normal_impulse, tangent_impulse) = old.iter().find(|q| q.0 == id).copied().unwrap_or_default();
            ManifoldPoint { point, depth, id, normal_impulse, tangent_impulse }
        };
        let points = match (keep_lo, keep_hi) {
            (true, true) => [point(lo, 0.0 - lo.1), point(hi, 0.0 - hi.1)],
            (true, false) => [point(lo, 0.0 - lo.1), ManifoldPoint::default()],
            (false, true) => [point(hi, 0.0 - hi.1), ManifoldPoint::default()],
            (false, false) => [point(if lo.1 <= hi.1 { lo } else { hi }, 0.0), ManifoldPoint::default()],
        };
        m.points = points;
        m.count = 1 + u32::from(keep_lo && keep_hi);
    }
    ok_bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::test_util::{SplitMix64, resting};
    use crate::collide::{manifold_reusing, swap_order};
    use crate::shape::{Cuboid, Shape};

    /// A box B resting on a box A (`test_util::resting`, sizes from 1e-3 to 1e3), walked by steps
    /// from 1e-7 to 1e-3 of the size.
    struct Walk {
        sa: Shape,
        sb: Shape,
        pa: Pose,
        pb: Pose,
        step: f32,
        scale: f32,
        witness: Witness,
        manifold: Manifold,
    }

    impl Walk {
        fn new(rng: &mut SplitMix64, n: usize) -> Walk {
            let scale = 10f32.powf(rng.range(-3.0, 3.0));
            let half = |rng: &mut SplitMix64| Vec2::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0)) * scale;
            let (sa, sb) =
                (Shape::Cuboid(Cuboid { half_extents: half(rng) }), Shape::Cuboid(Cuboid { half_extents: half(rng) }));
            let (pa, pb) = resting(rng, &sa, &sb, scale, n);
            let step = scale * 10f32.powf(rng.range(-7.0, -3.0));
            Walk { sa, sb, pa, pb, step, scale, witness: Witness::default(), manifold: Manifold::EMPTY }
        }
    }

    /// Every lane that takes a pair gives the scalar path's manifold bit for bit (points, depths,
    /// normal, feature ids, the impulses carried from the last manifold) and marks the witness
    /// reused as the scalar path does; a lane that declines leaves the manifold as it was. Both
    /// reference sides and both call orders are taken many times.
    #[test]
    fn lanes_give_the_scalar_paths_manifolds_bit_for_bit() {
        let mut rng = SplitMix64::new(0x1a4e5);
        let (mut taken, mut declined, mut flipped, mut swapped, mut two_points) = (0, 0, 0, 0, 0);
        let mut reordered = 0;
        for group in 0..300 {
            let mut walks: [Walk; 4] = std::array::from_fn(|k| Walk::new(&mut rng, group * 4 + k));
            for step in 0..100 {
                let mut expected = [Manifold::EMPTY; 4];
                let mut after = [Witness::default(); 4];
                for (k, w) in walks.iter_mut().enumerate() {
                    let d = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * w.step;
                    w.pb = Pose::new(w.pb.p + d, w.pb.q.angle() + rng.range(-1.0, 1.0) * w.step / w.scale);
                    // Now and then the pair comes in the other call order, as a contact whose
                    // colliders were given the other way round.
                    if rng.below(50) == 0 {
                        std::mem::swap(&mut w.sa, &mut w.sb);
                        std::mem::swap(&mut w.pa, &mut w.pb);
                    }
                    after[k] = w.witness;
                    expected[k] = manifold_reusing(&w.sa, &w.pa, &w.sb, &w.pb, &mut after[k]);
                    expected[k].carry_impulses(&w.manifold);
                }
                let order = walks.each_ref().map(|w| swap_order(&w.sa, &w.pa, &w.sb, &w.pb));
                if walks.iter().all(|w| may_serve(&w.witness)) {
                    let old = walks.each_ref().map(|w| w.manifold);
                    let recorded = walks.each_ref().map(|w| w.witness.swapped);
                    let lanes = walks.each_mut().map(|w| {
                        let half = |s: &Shape| if let Shape::Cuboid(c) = s { c.half_extents } else { Vec2::ZERO };
                        Lane {
                            pa: &w.pa,
                            pb: &w.pb,
                            ha: half(&w.sa),
                            hb: half(&w.sb),
                            witness: &mut w.witness,
                            manifold: &mut w.manifold,
                        }
                    });
                    let mask = reuse4(lanes, 15);
                    for (k, w) in walks.iter().enumerate() {
                        if mask >> k & 1 != 0 {
                            let what = format!(
                                "group {group}, step {step}, lane {k}: {:?} at {:?}, {:?} at {:?}",
                                w.sa, w.pa, w.sb, w.pb
                            );
                            assert_eq!(
                                bytemuck::bytes_of(&w.manifold),
                                bytemuck::bytes_of(&expected[k]),
                                "{what}\n lane {:?}\n scalar {:?}",
                                w.manifold,
                                expected[k]
                            );
                            assert!(after[k].reused() && w.witness.reused(), "{what}");
                            taken += 1;
                            flipped += usize::from(Faces::unpack(w.witness.features).flip);
                            swapped += usize::from(order[k]);
                            two_points += usize::from(w.manifold.count == 2);
                        } else {
                            assert_eq!(bytemuck::bytes_of(&w.manifold), bytemuck::bytes_of(&old[k]));
                            declined += 1;
                        }
                        // A witness written for the other call order never serves.
                        assert!(recorded[k] == order[k] || mask >> k & 1 == 0);
                        reordered += usize::from(recorded[k] != order[k]);
                    }
                }
                // The next step carries impulses from this manifold: give each point its own.
                for (k, w) in walks.iter_mut().enumerate() {
                    w.witness = after[k];
                    w.manifold = expected[k];
                    for (j, p) in w.manifold.points.iter_mut().enumerate() {
                        (p.normal_impulse, p.tangent_impulse) = ((step * 4 + j) as f32, -(j as f32) - 0.5);
                    }
                }
            }
        }
        assert!(taken > 80_000 && declined > 5_000, "taken {taken}, declined {declined}");
        assert!(reordered > 1_000, "reordered {reordered}");
        assert!(
            flipped > 20_000 && swapped > 30_000 && two_points > 15_000,
            "flipped {flipped}, swapped {swapped}, two points {two_points}"
        );
    }
}
