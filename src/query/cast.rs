//! Linear shape casts: where two translating shapes first come within a target distance.

use glam::Vec2;

use super::advance::{Advance, Core, Outcome, Sweep, Sweeps, advance, bounding_circle, tolerance};
use super::gjk::Proxy;
use super::{QueryError, check_amount, check_pose, check_vector, parts, reach_of};
use crate::collide;
use crate::math::{Aabb, Pose, Rot};
use crate::shape::{Chain, ChainSegment, Shape};

/// Options of [`cast_shapes`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CastOptions {
    /// The cast covers fractions `[0, max_fraction]` of the translations. Default 1.
    pub max_fraction: f32,
    /// Stop this far before touching (a skin for a character mover). Default 0.
    pub target_distance: f32,
}

impl Default for CastOptions {
    fn default() -> Self {
        Self { max_fraction: 1.0, target_distance: 0.0 }
    }
}

/// Where a cast stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CastHit {
    /// The fraction of the translations at which the shapes come within the target distance
    /// (within a small tolerance, never past it).
    pub fraction: f32,
    /// The contact point at that fraction, world space: midway between the closest points.
    pub point: Vec2,
    /// Unit, from A towards B: the normal of the surfaces at the hit. For a cast that starts in
    /// contact it is the contact's normal (from [`collide::contact`] when the cores overlap),
    /// zero only for shapes so deep that no normal exists (coincident cores).
    pub normal: Vec2,
    /// The shapes were already within the target distance at fraction 0; `fraction` is 0.
    pub started_in_contact: bool,
    /// The part of A hit (0 for a convex shape).
    pub part_a: u32,
    /// The part of B hit (0 for a convex shape).
    pub part_b: u32,
}

/// Casts `sa` from `pa` along `translation_a` and `sb` from `pb` along `translation_b` at the
/// same time, and returns the first fraction in `[0, options.max_fraction]` at which they come
/// within `options.target_distance`, or `None` if they never do.
///
/// The answer is never later than the true first contact: the cast stops where the distance
/// is between the target and the target plus a tolerance of 1e-4 times the smaller shape's
/// size (half the longer side of its bounding box plus its rounding; for a compound, of the
/// parts that hit), plus the f32 rounding of the sizes, of the distance between the shapes
/// and of their translations. Where a shape's geometry sits relative to its pose's origin does
/// not matter. A compound hits with its first part to hit (the lowest part pair on equal
/// fractions).
///
/// ```
/// use sapwood::query::{cast_shapes, CastOptions};
/// use sapwood::{Pose, Shape, Vec2};
/// let ball = Shape::circle(0.5)?;
/// let wall = Shape::cuboid(Vec2::new(0.5, 5.0))?;
/// let hit = cast_shapes(
///     &ball, &Pose::IDENTITY, Vec2::new(10.0, 0.0),
///     &wall, &Pose::from_translation(Vec2::new(5.0, 0.0)), Vec2::ZERO,
///     &CastOptions::default(),
/// )?.expect("the ball reaches the wall");
/// assert!((hit.fraction - 0.4).abs() < 1e-4); // 4 of the 10 units: 5 - 0.5 - 0.5
/// assert!((hit.normal - Vec2::X).length() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`QueryError::NonFinite`] for a non-finite pose, translation, fraction or distance;
/// [`QueryError::Negative`] for a negative `max_fraction` or `target_distance`.
pub fn cast_shapes(
    sa: &Shape,
    pa: &Pose,
    translation_a: Vec2,
    sb: &Shape,
    pb: &Pose,
    translation_b: Vec2,
    options: &CastOptions,
) -> Result<Option<CastHit>, QueryError> {
    let (pa, pb) = (&check_pose(pa)?, &check_pose(pb)?);
    check_vector(translation_a)?;
    check_vector(translation_b)?;
    check_amount(options.max_fraction)?;
    check_amount(options.target_distance)?;
    if let (Shape::Circle(a), Shape::Circle(b)) = (sa, sb) {
        let target = options.target_distance;
        return Ok(circles(pa.p, a.radius, translation_a, pb.p, b.radius, translation_b, target, options.max_fraction));
    }
    let sweeps = Sweeps::translations(pa, translation_a, pb, translation_b);
    let Some((adv, part_a, part_b)) = earliest(sa, sb, &sweeps, options.target_distance, options.max_fraction) else {
        return Ok(None);
    };
    let started_in_contact = adv.outcome == Outcome::AtStart;
    let mut normal = if started_in_contact {
        adv.at.normal
    } else {
        ghost_normal(sa, pa.q, sb, pb.q, [part_a, part_b], adv.at.normal)
    };
    // The narrow-phase kernels trust their shapes; one assembled from bytes (unspecified
    // answer, see `distance`) must not reach them.
    if normal == Vec2::ZERO && sa.validate().is_ok() && sb.validate().is_ok() {
        normal = collide::manifold(sa, pa, sb, pb).normal;
    }
    Ok(Some(CastHit {
        fraction: adv.t,
        point: 0.5 * (adv.at.point_a + adv.at.point_b),
        normal,
        started_in_contact,
        part_a,
        part_b,
    }))
}

/// Two circles in closed form: the first root of `|d + t r| = ra + rb + target` (plus half the
/// tolerance the advancement aims at, so that both paths stop alike), `d` and `r` the relative
/// position and translation.
#[allow(clippy::too_many_arguments)]
fn circles(ca: Vec2, ra: f32, ta: Vec2, cb: Vec2, rb: f32, tb: Vec2, target: f32, max_t: f32) -> Option<CastHit> {
    let (d, r) = (cb - ca, tb - ta);
    let tol = 1e-4 * ra.min(rb)
        + 8.0 * f32::EPSILON * (d.abs().max_element() + (d + max_t.min(1.0) * r).abs().max_element() + ra + rb);
    let reach = ra + rb + target;
    let t = if d.length_squared() <= (reach + tol) * (reach + tol) {
        0.0
    } else {
        // In f64: the squares and products of f32 lengths neither underflow nor overflow there.
        // In f32, lengths below about 1e-19 square to subnormals or zero, and a negative
        // discriminant could round to -0 and pass for a hit.
        let (d, r, aim) = (d.as_dvec2(), r.as_dvec2(), f64::from(reach + 0.5 * tol));
        let (b, c) = (d.dot(r), d.length_squared() - aim * aim);
        // b² - a·c as a·(aim² - |l|²), l the miss vector of the relative ray: no cancellation
        // for small circles far apart (as in `query::ray_cast`).
        let a = r.length_squared();
        if b >= 0.0 || a == 0.0 {
            return None;
        }
        let l = d - (b / a) * r;
        let disc = a * (aim * aim - l.length_squared());
        if disc < 0.0 {
            return None;
        }
        let t = c / (-b + disc.sqrt());
        if t > f64::from(max_t) {
            return None;
        }
        t as f32
    };
    let (ca, cb) = (ca + t * ta, cb + t * tb);
    let n = (cb - ca).normalize_or_zero();
    Some(CastHit {
        fraction: t,
        point: 0.5 * (ca + ra * n + cb - rb * n),
        normal: n,
        started_in_contact: t == 0.0,
        part_a: 0,
        part_b: 0,
    })
}

/// The earliest advancement to `target` over all part pairs that is not a miss, with its parts;
/// on equal fractions the first pair in `(part_a, part_b)` order. Part pairs whose bounding
/// circles do not reach the target before the best fraction so far are skipped. Shared with
/// [`time_of_impact`](super::time_of_impact).
pub(crate) fn earliest(
    sa: &Shape,
    sb: &Shape,
    sweeps: &Sweeps,
    target: f32,
    max_t: f32,
) -> Option<(Advance, u32, u32)> {
    let (wa, wb) = (&sweeps.a, &sweeps.b);
    if let (Some(pa), Some(pb)) = (Proxy::of(sa), Proxy::of(sb)) {
        let (a, b) = (Core::new(&pa), Core::new(&pb));
        let adv = advance(&a, &b, sweeps, target, tolerance(&pa, &pb), max_t);
        return (adv.outcome != Outcome::Missed).then_some((adv, 0, 0));
    }
    let mut best: Option<(Advance, u32, u32)> = None;
    let (cull_a, cull_b) = (swept_cull(sa, wa, sb, wb, max_t, target), swept_cull(sb, wb, sa, wa, max_t, target));
    for (i, la, a) in parts(sa, cull_a) {
        let Some(pa) = Proxy::of(&a) else { continue };
        let ka = Core::part(&la, &pa);
        for (j, lb, b) in parts(sb, cull_b) {
            let Some(pb) = Proxy::of(&b) else { continue };
            let kb = Core::part(&lb, &pb);
            let limit = best.map_or(max_t, |(adv, ..)| adv.t);
            let tol = tolerance(&pa, &pb);
            let (ca, cb) = (bounding_circle(&ka), bounding_circle(&kb));
            if advance(&ca, &cb, sweeps, target, tol, limit).outcome == Outcome::Missed {
                continue;
            }
            let adv = advance(&ka, &kb, sweeps, target, tol, limit);
            if adv.outcome != Outcome::Missed && best.is_none_or(|(b, ..)| adv.t < b.t) {
                best = Some((adv, i, j));
                if adv.outcome == Outcome::AtStart {
                    return best;
                }
            }
        }
    }
    best
}

/// For a chain that does not turn over its sweep, a box in its frame that every one of its
/// segments the other shape can reach by `max_t` overlaps: the other shape's origin moves on a
/// line relative to the chain, and the whole shape stays within its bounding radius of that
/// origin whatever it turns, so the box of the origin's ends grown by that radius, the target
/// distance and (more than) the advancement's tolerance holds every point it comes within
/// reach of. `None` (no cull) for a shape that is not a chain, a turning chain, or a chain
/// against a chain.
fn swept_cull(chain: &Shape, wc: &Sweep, other: &Shape, wo: &Sweep, max_t: f32, target: f32) -> Option<Aabb> {
    let Shape::Chain(c) = chain else { return None };
    if matches!(other, Shape::Chain(_)) || wc.start.q != wc.end.q {
        return None;
    }
    let local = |t: f32| wc.at(t).inv_transform_point(wo.at(t).p);
    let (l0, l1) = (local(0.0), local(max_t));
    let (r, b) = (reach_of(other), c.aabb());
    let chain_reach = b.min.abs().max(b.max.abs()).length();
    // `tolerance`: 1e-4 of the smaller extent plus 8 ulps of the coordinates and sizes.
    let tol = 2e-4 * r + 1e-6 * (l0.length() + l1.length() + r + chain_reach + 1.0);
    let b = Aabb::from_points(l0, l1).fattened(r + target + tol).with_rounding_slack();
    // A shape assembled from bytes may have a NaN size: no cull then (its answer is unspecified).
    (b.min.is_finite() && b.max.is_finite()).then_some(b)
}

/// A hit normal (A to B, world) as the chains involved show it: where a shape meets a chain's
/// segment at a vertex, the normal GJK finds points from the vertex towards the shape, but a
/// vertex between two faces has no normal of its own unless the corner is convex towards the
/// shape, and then only one between the faces' normals (the narrow phase's ghost-vertex rule,
/// see `collide::chain_segment`). `qa`, `qb` are the shapes' rotations at the hit.
pub(crate) fn ghost_normal(sa: &Shape, qa: Rot, sb: &Shape, qb: Rot, parts: [u32; 2], normal: Vec2) -> Vec2 {
    let n = match sb {
        Shape::Chain(c) => -qb.rotate(vertex_normal(c, parts[1] as usize, qb.inv_rotate(-normal))),
        _ => normal,
    };
    match sa {
        Shape::Chain(c) => qa.rotate(vertex_normal(c, parts[0] as usize, qa.inv_rotate(n))),
        _ => n,
    }
}

/// The normal out of segment `i` of `c` that a shape in direction `n` (unit, chain frame) from
/// it meets. `n` leans towards the vertex it was found at (it is the face's normal, up to
/// rounding, on the face); there, with the faces' normals on the shape's side, `n` is kept if
/// the corner is convex towards the shape and `n` lies between them, else the nearer face's
/// normal is taken (a flat or concave vertex has no normal of its own). A free end keeps `n`.
fn vertex_normal(c: &Chain, i: usize, n: Vec2) -> Vec2 {
    segment_vertex_normal(&c.segment_at(i), n)
}

/// [`vertex_normal`] for one segment with its ghost vertices (a chain's, or a welded static
/// polygon's edge, see `collide::welded`).
pub(crate) fn segment_vertex_normal(s: &ChainSegment, n: Vec2) -> Vec2 {
    let e = s.b - s.a;
    let (before, after) = match (n.dot(e) > 0.0, s.ghost_a, s.ghost_b) {
        (true, _, Some(g)) => (e, g - s.b),
        (false, Some(g), _) => (s.a - g, e),
        _ => return n,
    };
    // The shape's side of the polyline at the vertex: left of a left turn is left of both
    // edges' lines, left of a right turn left of either.
    let turn = before.perp_dot(after);
    let (l0, l1) = (before.perp().dot(n) > 0.0, after.perp().dot(n) > 0.0);
    let side = if (turn > 0.0 && l0 && l1) || (turn <= 0.0 && (l0 || l1)) { 1.0 } else { -1.0 };
    let (f0, f1) = (side * before.perp().normalize(), side * after.perp().normalize());
    // Convex towards the shape when the chain turns away from its side.
    let convex = side * turn < 0.0;
    let arc = f0.perp_dot(f1);
    if convex && f0.perp_dot(n) * arc >= 0.0 && n.perp_dot(f1) * arc >= 0.0 {
        n
    } else if n.dot(f0) >= n.dot(f1) {
        f0
    } else {
        f1
    }
}
