//! Conservative advancement: the root finder under shape casts and times of impact.
//!
//! At a time `t` where the shapes are `d` apart along the unit normal `n` (A to B), the plane
//! through A's closest point with normal `n` separates them. Until B's support along `n` and
//! A's close that gap, the shapes cannot touch, and over a unit of sweep fraction neither can
//! move towards the plane faster than
//!
//! ```text
//!   bound = -(Δp_b - Δp_a) · n  +  |Δθ_a| · reach_a  +  |Δθ_b| · reach_b
//! ```
//!
//! (the translations' approach along `n`, plus the arc any point swings through: at most the
//! turned angle times its distance from the centre of rotation). So the step
//! `(d - aim) / bound` never passes the first time the distance falls to `aim`, and repeating
//! it from the new time converges on that time from below (Mirtich 1996; Catto's GDC 2013 talk
//! on continuous collision).
//!
//! With no rotation the distance is a convex function of `t` (the distance from a point moving
//! on a line to a convex set), the bound is its derivative, and the iteration is Newton's
//! method: quadratic, two to four steps for a head-on hit.

use glam::{DVec2, Vec2};

use super::distance::{LocalDistance, proxy_distance};
use super::gjk::{Proxy, SimplexCache};
use crate::math::{Pose, Rot};

/// A shape's motion over one sweep: from `start` to `end`, translating linearly and turning
/// about the pose's origin the shorter way round (at most half a turn per sweep).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sweep {
    /// The pose at fraction 0.
    pub start: Pose,
    /// The pose at fraction 1.
    pub end: Pose,
}

impl Sweep {
    /// A sweep from `start` to `end`.
    #[must_use]
    pub fn new(start: Pose, end: Pose) -> Self {
        Self { start, end }
    }

    /// A shape that does not move.
    #[must_use]
    pub fn fixed(pose: Pose) -> Self {
        Self { start: pose, end: pose }
    }

    /// The angle turned from `start` to `end`, in `(-π, π]`.
    #[must_use]
    pub fn angle(&self) -> f32 {
        if self.start.q == self.end.q {
            return 0.0;
        }
        self.start.q.inv_mul(&self.end.q).angle()
    }

    /// The pose at fraction `t` (0 gives `start` exactly; 1 gives `end` up to rounding).
    #[must_use]
    pub fn at(&self, t: f32) -> Pose {
        self.at_angle(t, self.angle())
    }

    #[inline]
    fn at_angle(&self, t: f32, angle: f32) -> Pose {
        let q = if angle == 0.0 { self.start.q } else { self.start.q.mul(&Rot::from_angle(t * angle)) };
        Pose { p: self.start.p + t * (self.end.p - self.start.p), q }
    }
}

/// Both shapes' sweeps, with B's translation relative to A's over the whole sweep. A cast gives
/// that relative translation as its caller did: from end poses it would carry the rounding of
/// the poses' positions, which for a core far from its pose's origin is far coarser than the
/// shapes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sweeps {
    pub a: Sweep,
    pub b: Sweep,
    pub rel: Vec2,
}

impl Sweeps {
    /// Two sweeps as given.
    pub fn new(a: Sweep, b: Sweep) -> Sweeps {
        Sweeps { a, b, rel: (b.end.p - b.start.p) - (a.end.p - a.start.p) }
    }

    /// Two translations without turning, from `pa` by `ta` and from `pb` by `tb`.
    pub fn translations(pa: &Pose, ta: Vec2, pb: &Pose, tb: Vec2) -> Sweeps {
        let sweep = |p: &Pose, d: Vec2| Sweep::new(*p, Pose { p: p.p + d, q: p.q });
        Sweeps { a: sweep(pa, ta), b: sweep(pb, tb), rel: tb - ta }
    }
}

/// How an advancement ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Within the tolerance of the target at the start.
    AtStart,
    /// Reached the target at `t > 0`.
    Hit,
    /// Never reached it before the maximum fraction.
    Missed,
    /// Ran out of iterations at `t`; the shapes are apart until then.
    Limit,
}

/// Where an advancement stopped: the fraction and the distance there, in world space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Advance {
    pub outcome: Outcome,
    pub t: f32,
    /// World-space closest points and normal at `t` (radii applied).
    pub at: LocalDistance,
}

/// A convex core as an advancement takes it: its proxy centred on its own bounding box (see
/// [`Proxy::centred`]), the centre in its shape's frame, and its reach from the shape's origin,
/// the centre the shape turns about. The centre is f64 so that a compound part's offset and its
/// core's own centre add up without rounding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Core {
    pub proxy: Proxy,
    pub centre: DVec2,
    pub reach: f32,
}

impl Core {
    /// A core from its proxy in its shape's frame.
    pub fn new(p: &Proxy) -> Core {
        let (proxy, c) = p.centred();
        Core { proxy, centre: c.as_dvec2(), reach: p.reach() }
    }

    /// A compound part's core from its proxy in the part's frame, placed at `local`.
    pub fn part(local: &Pose, p: &Proxy) -> Core {
        let turned = p.transformed(&Pose { p: Vec2::ZERO, q: local.q });
        let (proxy, c) = turned.centred();
        Core { proxy, centre: local.p.as_dvec2() + c.as_dvec2(), reach: p.transformed(local).reach() }
    }
}

/// A translating pair converges in 2–5 steps (Newton's method, see the module docs). A turning
/// pair steps by the longer of the first-order bound and the curved one (see [`curved_step`]),
/// which lets a thin shape turning fast pass a near miss in a few steps instead of creeping
/// past it at the pace of its swing; the rare sweep still undecided after this many steps ends
/// in `ToiState::IterationLimit` at a safe fraction.
pub(crate) const MAX_ITERATIONS: usize = 256;

/// The rounding of a distance GJK computes, per unit of the magnitude of its coordinates: a few
/// dozen f32 operations.
const ROUNDING: f32 = 8.0 * f32::EPSILON;

/// The size part of an advancement's distance tolerance: a ten-thousandth of the smaller
/// shape's size (see [`Proxy::size`]) plus the rounding of both sizes. Each step adds the
/// rounding of the coordinates GJK works in then: the distance between the shapes' centres,
/// never the distance of a core from its pose's origin. The advancement aims at the target plus
/// half the tolerance and stops within the target plus all of it, which keeps every step short
/// of the true contact despite f32 rounding of the distance.
pub(crate) fn tolerance(a: &Proxy, b: &Proxy) -> f32 {
    let (sa, sb) = (a.size(), b.size());
    1e-4 * sa.min(sb) + ROUNDING * (sa + sb)
}

/// Advances A (core `a`, moving along `sweeps.a`) and B (along `sweeps.b`) until their distance
/// falls to `target` (within `tol` from [`tolerance`] plus the coordinates' rounding), or until
/// `max_t`.
///
/// GJK runs on the proxies centred on their own bounding boxes, with B's centred frame placed
/// in A's in f64 ([`centred_relative`]): a core far from its pose's origin costs no precision.
/// The motion bounds use the uncentred proxies, since the shapes turn about their poses' origins.
pub(crate) fn advance(a: &Core, b: &Core, sweeps: &Sweeps, target: f32, tol: f32, max_t: f32) -> Advance {
    let (sa, sb, rel) = (&sweeps.a, &sweeps.b, sweeps.rel);
    let (angle_a, angle_b) = (sa.angle(), sb.angle());
    let reach = |c: &Core, angle: f32| if angle == 0.0 { 0.0 } else { angle.abs() * c.reach };
    let swing = reach(a, angle_a) + reach(b, angle_b);
    let (ac, ca, bc, cb) = (&a.proxy, a.centre, &b.proxy, b.centre);
    let turning = angle_a != 0.0 || angle_b != 0.0;
    // B's centred frame in A's at `t`, and the relative translation in A's frame then. Without
    // turning, that frame moves on a line: no pose products per step.
    let (x0, rel0) = (centred_relative(&sa.start, ca, &sb.start, cb), sa.start.q.inv_rotate(rel));
    let frame = |t: f32| {
        if turning {
            let (pa, pb) = (sa.at_angle(t, angle_a), sb.at_angle(t, angle_b));
            (centred_relative(&pa, ca, &pb, cb), pa.q.inv_rotate(rel))
        } else {
            (Pose { p: x0.p + t * rel0, q: x0.q }, rel0)
        }
    };
    let done = |outcome: Outcome, t: f32, d: LocalDistance| {
        let pa = sa.at_angle(t, angle_a);
        let at = LocalDistance {
            distance: d.distance,
            point_a: to_world(&pa, ca, d.point_a),
            point_b: to_world(&pa, ca, d.point_b),
            normal: pa.q.rotate(d.normal),
        };
        Advance { outcome, t, at }
    };
    let mut cache = SimplexCache::default();
    let mut t = 0.0f32;
    let mut approach = Vec2::ZERO;
    for k in 0..MAX_ITERATIONS {
        let (x, rel) = frame(t);
        let mut d = proxy_distance(ac, bc, &x, &mut cache);
        let tol = tol + ROUNDING * x.p.abs().max_element();
        if d.distance <= target + tol {
            // Cores that touch exactly at the hit have no normal of their own; the direction
            // they approached along, from the last step, is the contact's normal.
            if d.normal == Vec2::ZERO {
                d.normal = approach;
            }
            return done(if k == 0 { Outcome::AtStart } else { Outcome::Hit }, t, d);
        }
        approach = d.normal;
        let gap = d.distance - (target + 0.5 * tol);
        let opening = rel.dot(d.normal);
        let bound = swing - opening;
        let mut step = if bound > 0.0 { gap / bound } else { f32::INFINITY };
        if turning {
            let motion = Motion { opening, angle_a, angle_b };
            step = step.max(curved_step(ac, ca.as_vec2(), bc, cb.as_vec2(), &x, d.normal, gap, &motion));
        }
        t += step;
        // A NaN step (a shape assembled from bytes) ends the search like a miss.
        if t > max_t || t.is_nan() {
            return done(Outcome::Missed, max_t, d);
        }
    }
    let (x, _) = frame(t);
    done(Outcome::Limit, t, proxy_distance(ac, bc, &x, &mut cache))
}

/// B's frame moved to `cb` in A's frame moved to `ca` (A at `pa`, B at `pb`). In f64: the cores'
/// world positions come out of their poses and offsets exactly, so that the relative pose
/// carries the rounding of the distance between the centres only, however far each core sits
/// from its pose's origin. The inverse of A's rotation is exact for a rotation whose f32 cosine
/// and sine are a hair off unit length.
fn centred_relative(pa: &Pose, ca: DVec2, pb: &Pose, cb: DVec2) -> Pose {
    let (c, s) = (f64::from(pa.q.c), f64::from(pa.q.s));
    let w = pb.p.as_dvec2() + rotate(pb.q, cb) - pa.p.as_dvec2();
    let local = DVec2::new(c * w.x + s * w.y, c * w.y - s * w.x) / (c * c + s * s);
    Pose { p: (local - ca).as_vec2(), q: pa.q.inv_mul(&pb.q) }
}

/// A point `v` of a core centred at `c`, in the world with its shape at `pose`.
fn to_world(pose: &Pose, c: DVec2, v: Vec2) -> Vec2 {
    (pose.p.as_dvec2() + rotate(pose.q, c + v.as_dvec2())).as_vec2()
}

fn rotate(q: Rot, v: DVec2) -> DVec2 {
    let (c, s) = (f64::from(q.c), f64::from(q.s));
    DVec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

/// The relative motion over a unit of fraction as [`curved_step`] sees it: the translations'
/// rate of opening along the normal, and the angles the shapes turn.
struct Motion {
    opening: f32,
    angle_a: f32,
    angle_b: f32,
}

/// A step from the current time over which the shapes stay more than `gap` closer than now
/// apart, from each core point's own path: along a direction `n` held fixed in the world (the
/// normal now, A's frame), a point turning at rate `w` on a lever `r` from its centre of
/// rotation moves at `w (perp(r) · n)` now, and its second derivative is at most `w² |r|`. So a
/// point of B at height `h_b` above B's lowest point along `n`, against a point of A at depth
/// `h_a` below A's highest, keeps the pair's gap along `n` above
/// `gap + h_b + h_a + s τ - c τ²` (`s` their first-order opening rate, `c` half the bound on the
/// second derivatives), and the support gap of the shapes along `n` bounds their distance from
/// below. The first root over all pairs of points is the step. Unlike the first-order bound,
/// which charges every point the full swing of the farthest, this sees a far end turning away
/// and a near end barely moving along `n`.
#[allow(clippy::too_many_arguments)] // both centred proxies with their centres, the frame, the gap
fn curved_step(a: &Proxy, ca: Vec2, b: &Proxy, cb: Vec2, x: &Pose, n: Vec2, gap: f32, m: &Motion) -> f32 {
    let (wa, wb) = (m.angle_a, m.angle_b);
    let lowest_b = b.points().iter().map(|v| x.q.rotate(*v).dot(n)).fold(f32::INFINITY, f32::min);
    let highest_a = a.points().iter().map(|u| u.dot(n)).fold(f32::NEG_INFINITY, f32::max);
    let arm_b = x.q.rotate(cb);
    let mut step = f32::INFINITY;
    for v in b.points() {
        let v = x.q.rotate(*v);
        let r = v + arm_b;
        let (hb, sb, cb2) = (v.dot(n) - lowest_b, wb * r.perp().dot(n), wb * wb * r.length());
        for u in a.points() {
            let r_a = *u + ca;
            let (ha, sa, ca2) = (highest_a - u.dot(n), wa * r_a.perp().dot(n), wa * wa * r_a.length());
            // The rates carry the rounding of the levers, which are as long as the cores are far
            // from their rotation centres.
            let slack = 4.0 * f32::EPSILON * (m.opening.abs() + (wb * r.length()).abs() + (wa * r_a.length()).abs());
            let s = m.opening + sb - sa - slack;
            step = step.min(first_root(gap + hb + ha, s, 0.5 * (cb2 + ca2)));
        }
    }
    step
}

/// The first `τ > 0` with `g + s τ - c τ² = 0`, for `g > 0` and `c >= 0` (infinite when there
/// is none), each branch in the form free of cancellation.
fn first_root(g: f32, s: f32, c: f32) -> f32 {
    let root = (s * s + 4.0 * c * g).sqrt();
    if s <= 0.0 {
        let den = root - s;
        if den > 0.0 { 2.0 * g / den } else { f32::INFINITY }
    } else if c > 0.0 {
        (s + root) / (2.0 * c)
    } else {
        f32::INFINITY
    }
}

/// A core's bounding circle about its centre, as a core: culls part pairs of compounds before
/// their exact advancement.
pub(crate) fn bounding_circle(core: &Core) -> Core {
    let mut proxy = core.proxy;
    (proxy.count, proxy.radius) = (1, core.proxy.reach());
    proxy.points[0] = Vec2::ZERO;
    Core { proxy, centre: core.centre, reach: core.centre.length() as f32 + proxy.radius }
}
