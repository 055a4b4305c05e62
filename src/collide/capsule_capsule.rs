//! Capsule–capsule: closest points of the two core segments, with a two-point manifold for
//! nearly parallel capsules and an exact depth when the cores cross.
//!
//! Capsule features are those of `circle_capsule`: end `a` is vertex 0, end `b` vertex 1, edge 0
//! the side on the right of `a -> b`, edge 1 the side on its left.
//!
//! # Depth
//! Two capsules overlap by the penetration of the origin into `S + disk(ra + rb)`, where
//! `S = core_b - core_a` (a Minkowski difference of two segments: a parallelogram). Hence:
//! - cores apart by `d`: depth `ra + rb - d` along the line of closest points;
//! - cores crossing (or touching): depth `ra + rb + h`, `h` the origin's distance to the
//!   boundary of `S`, i.e. the smallest push that puts one core entirely on one side of the
//!   other's line. The four candidates are the two segment normals in both directions (the face
//!   normals of `S`); for an interior point of a convex polygon the nearest boundary point lies
//!   on the nearest face line, so the minimum of the four is exact, and the incident end point
//!   that sets it projects inside the reference segment.
//!
//! # Points
//! One point, unless the segments are within [`PARALLEL_SIN`] of parallel and one core's closest
//! point is interior to the other: then the incident segment is clipped to the reference
//! segment's slab (as Box2D v3's `b2CollideCapsules` does), and both clipped points are kept when
//! both are in contact (depth `>= 0`) and at least [`MIN_SPAN`] of the reference length apart.
//! The deeper of the two then has the exact depth above, since depth along the reference normal
//! is linear along the incident segment.

use glam::Vec2;

use crate::collide::circle_capsule::capsule_side;
use crate::collide::clip::{Edge, clip};
use crate::collide::{Manifold, feature_id};
use crate::math::Pose;
use crate::shape::Capsule;

/// Largest `|sin|` of the angle between the cores that still gives a two-point manifold
/// (about 5.7 degrees). Larger: tilted capsules get a second point whose end is already lifting
/// off; smaller: a capsule resting nearly flat gets one point and rocks about it. Beyond this
/// angle the far end lifts off faster than a solver benefits from a second point.
pub(crate) const PARALLEL_SIN: f32 = 0.1;

/// Smallest distance between the two clipped points, as a fraction of the reference segment's
/// length, for keeping both: closer points add no rotational constraint, only a near-duplicate
/// row for the solver. Larger would drop two-point contacts of capsules overlapping at their
/// ends.
pub(crate) const MIN_SPAN: f32 = 1e-3;

/// Closest points of segments `p1 + s d1` and `p2 + t d2`, `s, t` in `[0, 1]` (Ericson, *Real-Time
/// Collision Detection* 5.1.9). Returns `(s, t, squared distance)`.
///
/// The denominator `|d1|^2 |d2|^2 - (d1.d2)^2` is computed as the squared cross product, which
/// loses no precision to cancellation; below `f32::EPSILON^2` of its scale the segments are
/// treated as parallel (`s = 0`, then `t` and `s` re-projected), where any pair on the overlap is
/// as close as the true one to within `EPSILON` of the lengths. A core whose squared length
/// underflows is treated as a point.
#[inline]
pub(crate) fn closest_params(p1: Vec2, d1: Vec2, p2: Vec2, d2: Vec2) -> (f32, f32, f32) {
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t) = if a <= 0.0 && e <= 0.0 {
        (0.0, 0.0)
    } else if a <= 0.0 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let cross = d1.perp_dot(d2);
            let denom = cross * cross;
            let mut s = if denom > f32::EPSILON * f32::EPSILON * a * e {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    let dist2 = (p1 + s * d1 - (p2 + t * d2)).length_squared();
    (s, t, dist2)
}

/// Which core carries the contact's face: its segment gives the normal.
#[derive(Clone, Copy, PartialEq)]
enum Reference {
    A,
    B,
}

/// The contact of two capsules, B given in A's frame; result in A's frame.
#[must_use]
pub fn manifold(a: &Capsule, b: &Capsule, xf: &Pose) -> Manifold {
    let p1 = a.a;
    let d1 = a.b - a.a;
    let p2 = xf.transform_point(b.a);
    let d2 = xf.transform_vector(b.b - b.a);
    let (ra, rb) = (a.radius, b.radius);
    let r = ra + rb;
    let (s, t, dist2) = closest_params(p1, d1, p2, d2);
    if dist2 > r * r && !(dist2 <= crossing_dist2(d1, d2) && cores_cross(p1, d1, p2, d2)) {
        return Manifold::EMPTY;
    }

    let q1 = p1 + d1;
    let q2 = p2 + d2;
    let len1 = d1.length();
    let len2 = d2.length();
    let u1 = if len1 > 0.0 { d1 / len1 } else { Vec2::X };
    let u2 = if len2 > 0.0 { d2 / len2 } else { Vec2::X };
    // Right normals: edge 0's outward normal.
    let n1 = Vec2::new(u1.y, -u1.x);
    let n2 = Vec2::new(u2.y, -u2.x);

    // Heights of each core's end points above the other core's line.
    let (hb0, hb1) = (n1.dot(p2 - p1), n1.dot(q2 - p1));
    let (ha0, ha1) = (n2.dot(p1 - p2), n2.dot(q1 - p2));
    let straddles = |h0: f32, h1: f32| h0.min(h1) <= 0.0 && h0.max(h1) >= 0.0;
    // For collinear cores both straddle tests pass trivially; the projections must overlap too.
    let (f0, f1) = (u1.dot(p2 - p1), u1.dot(q2 - p1));
    let crossing = straddles(hb0, hb1) && straddles(ha0, ha1) && f0.max(f1) >= 0.0 && f0.min(f1) <= len1;

    // The face that gives the normal (none for end point against end point), the normal from A
    // to B, the depth, the feature ids, and the two core points the contact spans.
    let (reference, normal, depth, fa, fb, ca, cb);
    if crossing {
        // Smallest push that clears one core from the other's line; ties keep the first.
        let candidates = [
            (Reference::A, n1, -hb0.min(hb1), if hb0 <= hb1 { 0 } else { 1 }),
            (Reference::A, -n1, hb0.max(hb1), if hb0 >= hb1 { 0 } else { 1 }),
            (Reference::B, n2, ha0.max(ha1), if ha0 >= ha1 { 0 } else { 1 }),
            (Reference::B, -n2, -ha0.min(ha1), if ha0 <= ha1 { 0 } else { 1 }),
        ];
        let mut best = candidates[0];
        for c in &candidates[1..] {
            if c.2 < best.2 {
                best = *c;
            }
        }
        let (rf, n, h, k) = best;
        reference = Some(rf);
        normal = n;
        depth = r + h;
        match rf {
            Reference::A => {
                let x = if k == 0 { p2 } else { q2 };
                cb = x;
                ca = x - n.dot(x - p1) * n;
                fa = capsule_side(d1, n);
                fb = k;
            }
            Reference::B => {
                let x = if k == 0 { p1 } else { q1 };
                ca = x;
                cb = x - n.dot(x - p2) * n;
                fa = k;
                fb = capsule_side(d2, -n);
            }
        }
    } else if s > 0.0 && s < 1.0 {
        // B's closest point faces A's side: the normal is A's segment normal, exactly.
        let x = if t == 0.0 {
            p2
        } else if t == 1.0 {
            q2
        } else {
            p2 + t * d2
        };
        let e = n1.dot(x - p1);
        let n = if e >= 0.0 { n1 } else { -n1 };
        reference = Some(Reference::A);
        normal = n;
        depth = r - e.abs();
        cb = x;
        ca = x - e * n1;
        fa = capsule_side(d1, n);
        fb = end_or_side(t, d2, -n);
    } else if t > 0.0 && t < 1.0 {
        // A's end point faces B's side.
        let x = if s == 0.0 { p1 } else { q1 };
        let e = n2.dot(x - p2); // A's end above B's line
        let n = if e >= 0.0 { -n2 } else { n2 };
        reference = Some(Reference::B);
        normal = n;
        depth = r - e.abs();
        ca = x;
        cb = x - e * n2;
        fa = end_or_side(s, d1, n);
        fb = capsule_side(d2, -n);
    } else {
        // Both closest points are end points. If one projects onto the other core's closed slab
        // (exactly parallel cores side by side give s = t = 0) the normal is that core's normal,
        // which lets the parallel case clip to two points; otherwise end point against end point,
        // whose positions, and so whose difference, are exact.
        let x = if s == 0.0 { p1 } else { q1 };
        let y = if t == 0.0 { p2 } else { q2 };
        let (gy, gx) = (u1.dot(y - p1), u2.dot(x - p2));
        fa = if s == 0.0 { 0 } else { 1 };
        fb = if t == 0.0 { 0 } else { 1 };
        ca = x;
        cb = y;
        if (0.0..=len1).contains(&gy) {
            let e = n1.dot(y - p1);
            normal = if e >= 0.0 { n1 } else { -n1 };
            reference = Some(Reference::A);
            depth = r - e.abs();
        } else if (0.0..=len2).contains(&gx) {
            let e = n2.dot(x - p2);
            normal = if e >= 0.0 { -n2 } else { n2 };
            reference = Some(Reference::B);
            depth = r - e.abs();
        } else {
            let delta = y - x;
            let dist = delta.length();
            normal = if dist > 0.0 { delta / dist } else { n1 };
            reference = None;
            depth = r - dist;
        }
    }

    if let Some(rf) = reference
        && u1.perp_dot(u2).abs() <= PARALLEL_SIN
        && let Some(m) = two_point_manifold(
            rf,
            normal,
            (ra, rb),
            Core { p: p1, d: d1, len: len1, u: u1 },
            Core { p: p2, d: d2, len: len2, u: u2 },
        )
    {
        return m;
    }
    let point = 0.5 * (ca + ra * normal + cb - rb * normal);
    Manifold::one_point(normal, point, depth, feature_id(fa, fb))
}

/// Vertex 0 or 1 for a parameter at an end, else the side whose outward normal is `outward`.
#[inline]
fn end_or_side(param: f32, d: Vec2, outward: Vec2) -> u16 {
    if param <= 0.0 {
        0
    } else if param >= 1.0 {
        1
    } else {
        capsule_side(d, outward)
    }
}

/// A capsule's core segment in A's frame: start `p`, direction `d` (end minus start), and the
/// length and unit direction of `d`.
#[derive(Clone, Copy)]
struct Core {
    p: Vec2,
    d: Vec2,
    len: f32,
    u: Vec2,
}

/// The two-point manifold of nearly parallel cores: the incident core clipped to the reference
/// core's slab by the shared [`clip`]. `radii` are A's and B's. `None` when fewer than two
/// clipped points are in contact or they are too close together.
fn two_point_manifold(rf: Reference, normal: Vec2, radii: (f32, f32), a: Core, b: Core) -> Option<Manifold> {
    // The reference core, its outward normal towards the incident core, the incident core, and
    // the radii in that order.
    let (rc, out, ic, (r_ref, r_inc)) = match rf {
        Reference::A => (a, normal, b, radii),
        Reference::B => (b, -normal, a, (radii.1, radii.0)),
    };
    let (o, u, len) = (rc.p, rc.u, rc.len);
    let (x0, x1) = (ic.p, ic.p + ic.d);
    let (g0, g1) = (u.dot(x0 - o), u.dot(x1 - o));
    if g0.max(g1) < 0.0 || g0.min(g1) > len || g0 == g1 {
        return None;
    }
    // `clip` clips the incident capsule's flat side (its core pushed out along its own side
    // normal) and takes the support point at the deeper end, so both points lie on the
    // incident surface. It walks the reference edge along `out.perp()` and the incident edge
    // the opposite way.
    let t = out.perp();
    let (v1, i1, v2, i2) = if t.dot(rc.d) >= 0.0 { (o, 0, o + rc.d, 1) } else { (o + rc.d, 1, o, 0) };
    let reference = Edge { v1, v2, i1, i2 };
    let (v1, i1, v2, i2) = if t.dot(ic.d) <= 0.0 { (x0, 0, x1, 1) } else { (x1, 1, x0, 0) };
    let incident = Edge { v1, v2, i1, i2 };
    let mut m = clip(&reference, out, &incident, r_ref, r_inc, rf == Reference::B, false);
    if m.count < 2 || (m.points[0].point - m.points[1].point).dot(u).abs() < MIN_SPAN * len {
        return None;
    }
    // `clip` lists the incident edge's v2 end first; keep the order end a, end b of the
    // incident capsule.
    if i2 == 1 {
        m.points.swap(0, 1);
    }
    debug_assert!((m.normal - normal).length() < 1e-6);
    Some(m)
}

/// Whether the capsules touch: the squared distance of the cores against `(ra + rb)^2`, or
/// cores that cross (see [`crossing_dist2`]).
#[inline]
#[must_use]
pub fn overlap(a: &Capsule, b: &Capsule, xf: &Pose) -> bool {
    let r = a.radius + b.radius;
    let (p1, d1, p2, d2) = (a.a, a.b - a.a, xf.transform_point(b.a), xf.transform_vector(b.b - b.a));
    let (_, _, dist2) = closest_params(p1, d1, p2, d2);
    dist2 <= r * r || (dist2 <= crossing_dist2(d1, d2) && cores_cross(p1, d1, p2, d2))
}

/// Below this squared distance of the closest points, cores may cross: the closest points of
/// two crossing segments are the crossing point computed twice, apart by rounding, which
/// grows as the crossing angle shrinks (a few ulps of the lengths over its sine: 4.5e-5 for
/// two segments of lengths 3 and 0.14 crossing at 0.008 rad). With radii summing to less than
/// that (a bare segment against a bare segment: 0), the straddle test [`cores_cross`] decides
/// instead of the distance. The bound is generous, a thousandth of the longer core: only cores
/// that close pay for the straddle test.
#[inline]
fn crossing_dist2(d1: Vec2, d2: Vec2) -> f32 {
    let scale = d1.abs().max_element().max(d2.abs().max_element());
    let e = 1e-3 * scale;
    e * e
}

/// Whether the cores cross or touch: each straddles the other's line, and for collinear cores
/// their projections overlap. The same arithmetic as the crossing branch of [`manifold`].
#[inline]
pub(crate) fn cores_cross(p1: Vec2, d1: Vec2, p2: Vec2, d2: Vec2) -> bool {
    let (q1, q2) = (p1 + d1, p2 + d2);
    let (len1, len2) = (d1.length(), d2.length());
    let u1 = if len1 > 0.0 { d1 / len1 } else { Vec2::X };
    let u2 = if len2 > 0.0 { d2 / len2 } else { Vec2::X };
    let (n1, n2) = (Vec2::new(u1.y, -u1.x), Vec2::new(u2.y, -u2.x));
    let (hb0, hb1) = (n1.dot(p2 - p1), n1.dot(q2 - p1));
    let (ha0, ha1) = (n2.dot(p1 - p2), n2.dot(q1 - p2));
    let straddles = |h0: f32, h1: f32| h0.min(h1) <= 0.0 && h0.max(h1) >= 0.0;
    let (f0, f1) = (u1.dot(p2 - p1), u1.dot(q2 - p1));
    straddles(hb0, hb1) && straddles(ha0, ha1) && f0.max(f1) >= 0.0 && f0.min(f1) <= len1
}

/// Brute-force minimum translation for tests: `min over unit u of hA(u) + hB(-u)`, the distance
/// B must move along `u` to clear A (negative: the shapes are that far apart). Dense sampling,
/// then a ternary search around the best sample (the function is unimodal near its minimum,
/// kinks included). Returns `(depth, u)`.
#[cfg(test)]
pub(crate) fn mtd_oracle(ha: impl Fn(Vec2) -> f32, hb: impl Fn(Vec2) -> f32) -> (f32, Vec2) {
    let f = |th: f64| {
        let u = Vec2::new(th.cos() as f32, th.sin() as f32);
        (ha(u) + hb(-u)) as f64
    };
    let n = 4096;
    let step = std::f64::consts::TAU / n as f64;
    let mut best = (f64::INFINITY, 0.0);
    for i in 0..n {
        let th = i as f64 * step;
        let v = f(th);
        if v < best.0 {
            best = (v, th);
        }
    }
    let (mut lo, mut hi) = (best.1 - step, best.1 + step);
    for _ in 0..60 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let th = 0.5 * (lo + hi);
    (f(th).min(best.0) as f32, Vec2::new(th.cos() as f32, th.sin() as f32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::{EDGE, contact};
    use crate::shape::Shape;

    const A: Capsule = Capsule { a: Vec2::new(-2.0, 0.0), b: Vec2::new(2.0, 0.0), radius: 0.5 };

    fn cap(a: (f32, f32), b: (f32, f32), r: f32) -> Capsule {
        Capsule { a: Vec2::new(a.0, a.1), b: Vec2::new(b.0, b.1), radius: r }
    }

    fn support(c: &Capsule, xf: &Pose) -> impl Fn(Vec2) -> f32 {
        let (p, q, r) = (xf.transform_point(c.a), xf.transform_point(c.b), c.radius);
        move |u: Vec2| u.dot(p).max(u.dot(q)) + r
    }

    /// Checks the invariants every manifold must keep, against the brute-force oracle.
    fn check(a: &Capsule, b: &Capsule, xf: &Pose) -> Manifold {
        let m = manifold(a, b, xf);
        assert_eq!(overlap(a, b, xf), m.count > 0);
        let (depth, _) = mtd_oracle(support(a, &Pose::IDENTITY), support(b, xf));
        if m.count > 0 {
            assert!((m.normal.length() - 1.0).abs() < 1e-5);
            let max = m.max_depth().unwrap();
            assert!((max - depth).abs() < 2e-4, "depth {max} vs oracle {depth} for {xf:?} {b:?}");
            // Moving B by the depth along the normal clears A (up to the oracle's tolerance).
            let clear = support(a, &Pose::IDENTITY)(m.normal) + support(b, xf)(-m.normal);
            assert!((clear - max).abs() < 2e-4, "normal {:?} needs {clear}, depth {max}", m.normal);
            for p in m.points() {
                assert!(p.depth >= 0.0 && p.point.is_finite());
            }
        } else {
            assert!(depth < 1e-4, "oracle says overlap {depth}");
        }
        m
    }

    #[test]
    fn separated_and_touching_side_by_side() {
        let b = A;
        assert_eq!(check(&A, &b, &Pose::from_translation(Vec2::new(0.5, 1.001))).count, 0);
        // Stacked exactly: two points, depth 0, normal +y.
        let m = check(&A, &b, &Pose::from_translation(Vec2::new(0.0, 1.0)));
        assert_eq!((m.count, m.normal), (2, Vec2::Y));
        assert_eq!((m.points[0].depth, m.points[1].depth), (0.0, 0.0));
        assert_eq!(m.points[0].point, Vec2::new(-2.0, 0.5));
        assert_eq!(m.points[1].point, Vec2::new(2.0, 0.5));
        assert_ne!(m.points[0].id, m.points[1].id);
    }

    #[test]
    fn touching_end_to_end() {
        let b = cap((3.0, 0.0), (5.0, 0.0), 0.5);
        let m = check(&A, &b, &Pose::IDENTITY);
        assert_eq!((m.count, m.normal, m.points[0].depth), (1, Vec2::X, 0.0));
        assert_eq!(m.points[0].point, Vec2::new(2.5, 0.0));
        assert_eq!(m.points[0].id, feature_id(1, 0));
        // Collinear with a gap: separated.
        assert_eq!(check(&A, &cap((3.01, 0.0), (5.0, 0.0), 0.5), &Pose::IDENTITY).count, 0);
        // Collinear, overlapping by 0.5 between the round ends.
        let m = check(&A, &cap((2.5, 0.0), (6.5, 0.0), 0.5), &Pose::IDENTITY);
        assert_eq!((m.count, m.normal), (1, Vec2::X));
        assert_eq!(m.points[0].depth, 0.5);
    }

    #[test]
    fn parallel_partial_overlap_gives_two_points() {
        let b = cap((1.0, 0.75), (5.0, 0.75), 0.5);
        let m = check(&A, &b, &Pose::IDENTITY);
        assert_eq!((m.count, m.normal), (2, Vec2::Y));
        assert_eq!((m.points[0].depth, m.points[1].depth), (0.25, 0.25));
        assert_eq!(m.points[0].point, Vec2::new(1.0, 0.375));
        assert_eq!(m.points[1].point, Vec2::new(2.0, 0.375));
        // Each end of the contact interval is named by the vertex pair at that end (see
        // clip.rs): x = 1 by A's end a and B's end a; x = 2 by A's end b and B's end b, whose
        // side was clipped there.
        assert_eq!(m.points[0].id, feature_id(0, 0));
        assert_eq!(m.points[1].id, feature_id(1, 1));
    }

    #[test]
    fn slightly_tilted_resting_capsule() {
        let th = 0.025f32;
        let xf = Pose::new(Vec2::new(0.0, 0.9), th);
        let m = check(&A, &A, &xf);
        assert_eq!(m.count, 2);
        assert!((m.normal - Vec2::Y).length() < 1e-6);
        let (lo, hi) = (0.1 - 2.0 * th.sin(), 0.1 + 2.0 * th.sin());
        assert!((m.points[0].depth - hi).abs() < 1e-5, "{m:?}");
        // The shallow end's depth is measured from the tilted capsule's flat side, which sits
        // r·(1 - cos θ) = 1.6e-4 higher there than the core shifted by r along the normal.
        assert!((m.points[1].depth - lo).abs() < 2e-4, "{m:?}");
        // Tilted beyond the parallel tolerance: one point.
        let m = check(&A, &cap((-1.0, 0.0), (1.0, 0.0), 0.5), &Pose::new(Vec2::new(0.0, 1.1), 0.3));
        assert_eq!(m.count, 1);
        assert!((m.points[0].depth - (0.3f32.sin() - 0.1)).abs() < 1e-5);
    }

    #[test]
    fn crossing_cores_use_the_minimum_translation() {
        // B upright through A's core, its lower end 0.25 below A's axis: push B up by 1.25.
        let b = cap((0.5, -0.25), (0.5, 1.75), 0.5);
        let m = check(&A, &b, &Pose::IDENTITY);
        assert_eq!((m.count, m.normal, m.points[0].depth), (1, Vec2::Y, 1.25));
        assert_eq!(m.points[0].point, Vec2::new(0.5, -0.125));
        assert_eq!(m.points[0].id, feature_id(EDGE | 1, 0));
        // The same through a rotated pose.
        let b = cap((-1.0, 0.0), (1.0, 0.0), 0.5);
        let m = check(&A, &b, &Pose::new(Vec2::new(0.5, 0.75), std::f32::consts::FRAC_PI_2));
        assert!((m.normal - Vec2::Y).length() < 1e-6 && (m.points[0].depth - 1.25).abs() < 1e-6);
        // T: B's end exactly on A's core, depth ra + rb.
        let m = check(&A, &cap((0.0, 0.0), (0.0, 2.0), 0.5), &Pose::IDENTITY);
        assert_eq!((m.count, m.normal, m.points[0].depth), (1, Vec2::Y, 1.0));
        // Collinear and overlapping cores: depth ra + rb, A's right normal, two points.
        let m = check(&A, &cap((1.0, 0.0), (3.0, 0.0), 0.5), &Pose::IDENTITY);
        assert_eq!((m.count, m.normal), (2, Vec2::NEG_Y));
        assert_eq!((m.points[0].depth, m.points[1].depth), (1.0, 1.0));
        // Same capsule on top of itself.
        let m = check(&A, &A, &Pose::IDENTITY);
        assert_eq!((m.count, m.points[0].depth), (2, 1.0));
    }

    #[test]
    fn random_pairs_match_the_oracle() {
        // Seeded; covers crossing, near-parallel, end-on and separated pairs.
        let mut rng = crate::internal::SplitMix64::new(0x2545_f491);
        let mut rnd = move || rng.next_f32();
        let mut touching = 0;
        for _ in 0..3000 {
            let a = cap((rnd() * 4.0 - 2.0, rnd() * 2.0 - 1.0), (rnd() * 4.0 - 2.0, rnd() * 2.0 - 1.0), 0.05 + rnd());
            let b = cap((rnd() * 2.0 - 1.0, rnd() * 2.0 - 1.0), (rnd() * 2.0, rnd() * 2.0 - 1.0), 0.05 + rnd());
            let angle = if rnd() < 0.3 { (rnd() - 0.5) * 0.1 } else { rnd() * 6.3 };
            let xf = Pose::new(Vec2::new(rnd() * 6.0 - 3.0, rnd() * 6.0 - 3.0), angle);
            touching += (check(&a, &b, &xf).count > 0) as u32;
        }
        assert!(touching > 500, "{touching}");
    }

    #[test]
    fn symmetric_through_contact() {
        let a = Shape::capsule(Vec2::new(-1.0, 0.2), Vec2::new(1.5, -0.3), 0.4).unwrap();
        let b = Shape::capsule(Vec2::new(0.0, -1.0), Vec2::new(0.3, 1.0), 0.25).unwrap();
        for k in 0..50 {
            let pa = Pose::new(Vec2::new(0.1 * k as f32, 1.0), 0.05 * k as f32);
            let pb = Pose::new(Vec2::new(1.0, 1.2 + 0.02 * k as f32), -0.1 * k as f32);
            let m = contact(&a, &pa, &b, &pb).unwrap();
            let n = contact(&b, &pb, &a, &pa).unwrap();
            assert_eq!(m.count, n.count);
            assert_eq!(m.normal, -n.normal);
            for (p, q) in m.points().iter().zip(n.points()) {
                assert_eq!((p.point, p.depth, p.id), (q.point, q.depth, q.id.rotate_left(16)));
            }
            // The kernel itself, called in the other order, agrees on the depth.
            let (Shape::Capsule(ca), Shape::Capsule(cb)) = (&a, &b) else { unreachable!() };
            let m1 = manifold(ca, cb, &pa.inv_mul(&pb));
            let m2 = manifold(cb, ca, &pb.inv_mul(&pa));
            assert_eq!(m1.count > 0, m2.count > 0);
            if m1.count > 0 {
                assert!((m1.max_depth().unwrap() - m2.max_depth().unwrap()).abs() < 1e-5);
            }
        }
    }

    /// Regression (oracle, narrow_oracle capsule_capsule): two nearly parallel capsules (4.8°),
    /// radius 0.68 incident. Both points must lie on both surfaces; the incident core moved by
    /// r along the normal lies 8.4e-4 inside the incident capsule at the shallow end.
    #[test]
    fn regression_tilted_incident_point_on_surface() {
        let a = Shape::Capsule(cap((-0.53059447, -0.18972977), (0.5331137, -0.18972977), 0.48420697));
        let b = Shape::Capsule(cap((0.37360227, 0.7824384), (-1.032549, -0.8929155), 0.6821));
        let pa = Pose { p: Vec2::new(3.4510698, -2.7154827), q: crate::math::Rot { c: -0.9997079, s: 0.024169864 } };
        let pb = Pose { p: Vec2::new(3.5375142, -2.748464), q: crate::math::Rot { c: -0.57711524, s: 0.8166627 } };
        let m = contact(&a, &pa, &b, &pb).unwrap();
        assert_eq!(m.count, 2);
        let dist = |s: &Shape, pose: &Pose, p: Vec2| match s {
            Shape::Capsule(c) => {
                let (x, y) = (pose.transform_point(c.a), pose.transform_point(c.b));
                let t = ((p - x).dot(y - x) / (y - x).length_squared()).clamp(0.0, 1.0);
                (p - (x + t * (y - x))).length() - c.radius
            }
            _ => unreachable!(),
        };
        for p in m.points() {
            let (on_a, on_b) = (p.point + 0.5 * p.depth * m.normal, p.point - 0.5 * p.depth * m.normal);
            assert!(dist(&a, &pa, on_a).abs() < 1e-5 && dist(&b, &pb, on_b).abs() < 1e-5, "{m:?}");
        }
        assert!((m.max_depth().unwrap() - 0.7657379).abs() < 1e-5);
    }
}
