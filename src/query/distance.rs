//! Distance and closest points between two shapes.

use glam::Vec2;

use super::gjk::{Proxy, SimplexCache, gjk};
use super::{QueryError, check_pose, part_proxy, parts};
use crate::math::Pose;
use crate::shape::Shape;

/// How far apart two shapes are, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceOutput {
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
pub fn distance(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Result<DistanceOutput, QueryError> {
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
) -> Result<DistanceOutput, QueryError> {
    check_pose(pa)?;
    check_pose(pb)?;
    let xf = pa.inv_mul(pb);
    let local = if let (Some(a), Some(b)) = (Proxy::of(sa), Proxy::of(sb)) {
        (proxy_distance(&a, &b, &xf, cache), 0, 0)
    } else {
        compound_distance(sa, sb, &xf)
    };
    let (d, part_a, part_b) = local;
    Ok(DistanceOutput {
        distance: d.distance,
        point_a: pa.transform_point(d.point_a),
        point_b: pa.transform_point(d.point_b),
        normal: pa.q.rotate(d.normal),
        part_a,
        part_b,
    })
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
    let n = g.normal;
    let gap = g.distance - (a.radius + b.radius);
    let (pa, pb) = (g.point_a + a.radius * n, g.point_b - b.radius * n);
    if gap > 0.0 {
        return LocalDistance { distance: gap, point_a: pa, point_b: pb, normal: n };
    }
    // Overlapping: the midpoint of the stretch along the normal that lies in both shapes (both
    // ends of it are in both when the cores are apart; all four points coincide when not).
    let mid = 0.5 * (pa + pb);
    LocalDistance { distance: 0.0, point_a: mid, point_b: mid, normal: n }
}

/// The minimum over part pairs, in A's frame, with the parts that gave it.
fn compound_distance(sa: &Shape, sb: &Shape, xf: &Pose) -> (LocalDistance, u32, u32) {
    let mut best: Option<(LocalDistance, u32, u32)> = None;
    for (i, la, a) in parts(sa) {
        let (ca, ra) = (la.p, a.bounding_radius());
        for (j, lb, b) in parts(sb) {
            let lower = (xf.transform_point(lb.p) - ca).length() - ra - b.bounding_radius();
            if best.is_some_and(|(d, ..)| lower >= d.distance) {
                continue;
            }
            let (Some(pa), Some(pb)) = (part_proxy(&la, a), part_proxy(&lb, b)) else { continue };
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
