//! Distance and closest points between two shapes.

use glam::Vec2;

use super::gjk::{Proxy, SimplexCache, gjk};
use super::{QueryError, check_pose, part_proxy, parts, reach_of};
use crate::math::{Aabb, Pose};
use crate::shape::{Chain, Shape};

/// How far apart two shapes are, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClosestPoints {
    /// The distance between the surfaces; 0 when the shapes touch or overlap.
    pub distance: f32,
    /// The point of A closest to B, world space. When the shapes touch or overlap it equals
    /// `point_b`: a point both shapes contain.
    pub point_a: Vec2,
    /// The point of B closest to A, world space.
    pub point_b: Vec2,
    /// Unit, from A towards B, when the shapes are apart; when they overlap, the direction
    /// from A's core towards B's if the cores themselves are apart (the overlap is in the
    /// rounding), zero if the cores overlap (use [`collide::contact`](crate::collide::contact)
    /// for a depth and normal then).
    pub normal: Vec2,
    /// The part of A holding `point_a` (0 for a convex shape).
    pub part_a: u32,
    /// The part of B holding `point_b` (0 for a convex shape).
    pub part_b: u32,
}

/// The distance between `sa` at `pa` and `sb` at `pb`, with the closest points and the normal.
///
/// Convex pairs run GJK on the shapes' cores and add the radii; a compound is the minimum over
/// its parts (the first part pair in `(part_a, part_b)` order on equal distance), parts whose
/// bounding circles are farther apart than the best distance so far skipped.
///
/// ```
/// use sapwood::query::distance;
/// use sapwood::{Pose, Shape, Vec2};
/// let ball = Shape::circle(0.5)?;
/// let crate_ = Shape::cuboid(Vec2::new(1.0, 1.0))?;
/// let d = distance(&ball, &Pose::IDENTITY, &crate_, &Pose::from_translation(Vec2::new(4.0, 0.0)))?;
/// assert!((d.distance - 2.5).abs() < 1e-6);
/// assert_eq!((d.point_a, d.point_b, d.normal), (Vec2::new(0.5, 0.0), Vec2::new(3.0, 0.0), Vec2::X));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`QueryError::NonFinite`] for a pose with a NaN or infinite component or a non-unit
/// rotation. Shapes are taken as they are: those from the checked constructors (or passing
/// [`Shape::validate`]) give exact answers, others an unspecified but finite-time answer.
pub fn distance(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Result<ClosestPoints, QueryError> {
    distance_cached(sa, pa, sb, pb, &mut SimplexCache::default())
}

/// [`distance`], warm-started from `cache` and leaving the final simplex in it: keep one cache
/// per pair between frames and a pair that moved a little converges in one or two GJK
/// iterations. The answer does not depend on the cache. Compounds do not use it.
///
/// # Errors
/// As [`distance`].
pub fn distance_cached(
    sa: &Shape,
    pa: &Pose,
    sb: &Shape,
    pb: &Pose,
    cache: &mut SimplexCache,
) -> Result<ClosestPoints, QueryError> {
    let (pa, pb) = (&check_pose(pa)?, &check_pose(pb)?);
    if let Some(d) = closed_form(sa, pa, sb, pb) {
        return Ok(d);
    }
    let xf = pa.inv_mul(pb);
    let local = if let (Some(a), Some(b)) = (Proxy::of(sa), Proxy::of(sb)) {
        (proxy_distance(&a, &b, &xf, cache), 0, 0)
    } else {
        compound_distance(sa, sb, &xf)
    };
    let (d, part_a, part_b) = local;
    Ok(ClosestPoints {
        distance: d.distance,
        point_a: pa.transform_point(d.point_a),
        point_b: pa.transform_point(d.point_b),
        normal: pa.q.rotate(d.normal),
        part_a,
        part_b,
    })
}

/// Circles against circles and boxes, in world space: the pairs common enough (particles,
/// bullets, crowds, crates) to skip the frame change and GJK.
fn closed_form(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Option<ClosestPoints> {
    match (sa, sb) {
        (Shape::Circle(a), Shape::Circle(b)) => {
            Some(from_cores(pa.p, a.radius, pb.p, b.radius, (pb.p - pa.p).normalize_or_zero()))
        }
        (Shape::Circle(a), b @ (Shape::Cuboid(_) | Shape::Capsule(_))) => Some(circle_against(pa.p, a.radius, b, pb)),
        (a @ (Shape::Cuboid(_) | Shape::Capsule(_)), Shape::Circle(b)) => {
            let d = circle_against(pb.p, b.radius, a, pa);
            Some(ClosestPoints { point_a: d.point_b, point_b: d.point_a, normal: -d.normal, ..d })
        }
        (Shape::Cuboid(a), Shape::Cuboid(b)) => box_box(a.half_extents, pa, b.half_extents, pb),
        _ => None,
    }
}

/// Two boxes apart: the closest pair of points of two disjoint convex polygons always has a
/// vertex of one of them, so the answer is the nearest of the eight corners to the other box
/// (each a clamp in that box's frame). Overlapping boxes (by the separating-axis test on their
/// four axes) and corner-to-corner answers are left to GJK.
fn box_box(ha: Vec2, pa: &Pose, hb: Vec2, pb: &Pose) -> Option<ClosestPoints> {
    let xf = pa.inv_mul(pb);
    let (c, s) = (xf.q.c.abs(), xf.q.s.abs());
    let d = xf.p; // B's centre in A's frame
    let db = xf.q.inv_rotate(-d); // A's centre in B's frame
    let apart = d.x.abs() > ha.x + c * hb.x + s * hb.y
        || d.y.abs() > ha.y + s * hb.x + c * hb.y
        || db.x.abs() > hb.x + c * ha.x + s * ha.y
        || db.y.abs() > hb.y + s * ha.x + c * ha.y;
    if !apart {
        return None;
    }
    let corners = |h: Vec2| [-h, Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)];
    // (squared distance, A's closest point, B's, whether both are in B's frame (else A's)).
    let mut best = (f32::INFINITY, Vec2::ZERO, Vec2::ZERO, false);
    for v in corners(hb) {
        let v = xf.transform_point(v);
        let q = v.clamp(-ha, ha);
        let dd = (v - q).length_squared();
        if dd < best.0 {
            best = (dd, q, v, false);
        }
    }
    for v in corners(ha) {
        let v = xf.inv_transform_point(v);
        let q = v.clamp(-hb, hb);
        let dd = (v - q).length_squared();
        if dd < best.0 {
            best = (dd, v, q, true);
        }
    }
    let (_, core_a, core_b, in_b) = best;
    let d = core_b - core_a;
    if d.x != 0.0 && d.y != 0.0 {
        // Corner to corner: which corner is nearer is a rounding decision when two corners
        // nearly tie, and the answer would depend on the argument order; GJK's simplex does
        // not.
        return None;
    }
    let frame = if in_b { pb } else { pa };
    let n = frame.q.rotate(if in_b { -clamp_normal(core_a, core_b) } else { clamp_normal(core_b, core_a) });
    Some(from_cores(frame.transform_point(core_a), 0.0, frame.transform_point(core_b), 0.0, n))
}

/// The unit direction from `q`, a point clamped into a box, to the point `v` it was clamped
/// from: the face's own axis when one coordinate was clamped (exact however close `v` is), the
/// difference's direction at a corner, zero inside.
fn clamp_normal(v: Vec2, q: Vec2) -> Vec2 {
    let d = v - q;
    match (d.x == 0.0, d.y == 0.0) {
        (false, true) => Vec2::new(d.x.signum(), 0.0),
        (true, false) => Vec2::new(0.0, d.y.signum()),
        _ => d.normalize_or_zero(),
    }
}

/// A circle (A) against a box or a capsule (B): the centre's closest point on B's core, in B's
/// frame (a clamp into the box, a projection onto the capsule's segment).
fn circle_against(centre: Vec2, radius: f32, shape: &Shape, pose: &Pose) -> ClosestPoints {
    let c = pose.inv_transform_point(centre);
    let (q, rb) = match shape {
        Shape::Cuboid(b) => {
            let q = c.clamp(-b.half_extents, b.half_extents);
            let n = -pose.q.rotate(clamp_normal(c, q));
            return from_cores(centre, radius, pose.transform_point(q), 0.0, n);
        }
        Shape::Capsule(k) => {
            let e = k.b - k.a;
            (k.a + ((c - k.a).dot(e) / e.length_squared()).clamp(0.0, 1.0) * e, k.radius)
        }
        _ => (Vec2::ZERO, 0.0),
    };
    let n = -pose.q.rotate((c - q).normalize_or_zero());
    from_cores(centre, radius, pose.transform_point(q), rb, n)
}

/// The output for two cores' closest points and the unit normal between them (zero when the
/// cores touch or overlap), grown by the radii.
fn from_cores(core_a: Vec2, ra: f32, core_b: Vec2, rb: f32, n: Vec2) -> ClosestPoints {
    let d = with_radii(core_a, core_b, (core_b - core_a).dot(n), n, ra, rb);
    ClosestPoints { distance: d.distance, point_a: d.point_a, point_b: d.point_b, normal: n, part_a: 0, part_b: 0 }
}

/// A distance in A's frame, radii applied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalDistance {
    pub distance: f32,
    pub point_a: Vec2,
    pub point_b: Vec2,
    pub normal: Vec2,
}

/// The distance between two proxies, B at `xf` in A's frame, radii applied.
#[inline]
pub(crate) fn proxy_distance(a: &Proxy, b: &Proxy, xf: &Pose, cache: &mut SimplexCache) -> LocalDistance {
    let g = gjk(a, b, xf, cache);
    with_radii(g.point_a, g.point_b, g.distance, g.normal, a.radius, b.radius)
}

/// The distance of two shapes from their cores' closest points `core_a`, `core_b` (`d` apart
/// along the unit `n`, zero when the cores touch) and their radii.
fn with_radii(core_a: Vec2, core_b: Vec2, d: f32, n: Vec2, ra: f32, rb: f32) -> LocalDistance {
    let gap = d - (ra + rb);
    if gap > 0.0 && n != Vec2::ZERO {
        return LocalDistance { distance: gap, point_a: core_a + ra * n, point_b: core_b - rb * n, normal: n };
    }
    // Overlapping: the midpoint of the stretch of the line through the cores' closest points
    // that lies in both shapes. Along `n` from A's core point, A holds `[-ra, ra]` and B holds
    // `[d - rb, d + rb]`; they meet since `d <= ra + rb`. Their intersection, not `[d - rb, ra]`:
    // a small shape deep inside a large one ends before the large one's far surface. All of it
    // is A's core point when the cores overlap (n = 0).
    let lo = (d - rb).max(-ra);
    let hi = ra.min(d + rb);
    let mid = core_a + 0.5 * (lo + hi) * n;
    LocalDistance { distance: 0.0, point_a: mid, point_b: mid, normal: n }
}

/// The minimum over part pairs, in A's frame, with the parts that gave it.
fn compound_distance(sa: &Shape, sb: &Shape, xf: &Pose) -> (LocalDistance, u32, u32) {
    let mut best: Option<(LocalDistance, u32, u32)> = None;
    let cull = |chain: &Shape, other: &Shape, origin: Vec2| match (chain, other) {
        (Shape::Chain(c), o) if !matches!(o, Shape::Chain(_)) => near_segments(c, origin, reach_of(o)),
        _ => None,
    };
    let (cull_a, cull_b) = (cull(sa, sb, xf.p), cull(sb, sa, xf.inv_transform_point(Vec2::ZERO)));
    for (i, la, a) in parts(sa, cull_a) {
        let Some(pa) = part_proxy(&la, &a) else { continue };
        let (ca, ra) = (la.p, pa.reach_from(la.p));
        for (j, lb, b) in parts(sb, cull_b) {
            let Some(pb) = part_proxy(&lb, &b) else { continue };
            let lower = (xf.transform_point(lb.p) - ca).length() - ra - pb.reach_from(lb.p);
            if best.is_some_and(|(d, ..)| lower >= d.distance) {
                continue;
            }
            let d = proxy_distance(&pa, &pb, xf, &mut SimplexCache::default());
            if best.is_none_or(|(b, ..)| d.distance < b.distance) {
                best = Some((d, i, j));
                if d.distance == 0.0 {
                    return (d, i, j);
                }
            }
        }
    }
    best.unwrap_or((
        LocalDistance { distance: f32::INFINITY, point_a: Vec2::ZERO, point_b: Vec2::ZERO, normal: Vec2::ZERO },
        0,
        0,
    ))
}

/// A box (chain frame) that every segment of `chain` as close as the nearest one to a shape
/// within `r` of the point `origin` overlaps. Some segment near the origin gives an upper bound
/// `u` on the distance (a point of the shape is within `r` of the origin, so within `r` plus
/// the origin's distance of that segment); a segment that close has a point within `u + r` of
/// the origin. The search for a first segment grows a box about the origin until it meets one.
/// `None` (no cull) when no bound comes out finite: a shape assembled from bytes may have a
/// NaN or infinite size, and its answer is unspecified but must come in finite time.
pub(super) fn near_segments(chain: &Chain, origin: Vec2, r: f32) -> Option<Aabb> {
    let around = |g: f32| Aabb::new(origin - Vec2::splat(g), origin + Vec2::splat(g));
    let whole = chain.aabb();
    let mut g = r.max(1e-6 * (origin.abs().max_element() + 1.0));
    // Each round doubles the box: from a size of at least 1e-6 of the coordinates, 64 rounds
    // outgrow any box of finite f32 coordinates.
    for _ in 0..64 {
        let u = chain.segments_overlapping(around(g)).fold(f32::INFINITY, |u, i| {
            let s = chain.segment_at(i as usize);
            let (e, w) = (s.b - s.a, origin - s.a);
            let along = (w.dot(e) / e.length_squared()).clamp(0.0, 1.0);
            u.min((w - along * e).length())
        });
        if u.is_finite() {
            // Never below the box that found the segment: the bound's own rounding (at tiny
            // scales a relative margin vanishes) must not lose it.
            let b = around(((u + 2.0 * r) * (1.0 + 1e-4)).max(g)).with_rounding_slack();
            return (b.min.is_finite() && b.max.is_finite()).then_some(b);
        }
        if !g.is_finite() || around(g).contains(&whole) {
            return None;
        }
        g *= 2.0;
    }
    None
}
