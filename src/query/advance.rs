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

use glam::Vec2;

use super::distance::{LocalDistance, proxy_distance};
use super::gjk::{Proxy, SimplexCache};
use crate::math::{Pose, Rot};

/// A shape's motion over one sweep: from `start` to `end`, translating linearly and turning
/// about the pose's origin the shorter way round (at most half a turn per sweep).
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// A translating pair converges in 2–5 steps (Newton's method, see the module docs). A pair
/// turning fast while closing slowly covers a small share of the remaining gap per step, about
/// `approach / bound` of it; this many steps bring a turn of half a revolution per sweep to
/// contact in all but a few thousandths of random cases, and the rest end in
/// `ToiState::IterationLimit` at a safe fraction.
pub(crate) const MAX_ITERATIONS: usize = 256;

/// The distance tolerance of an advancement: a ten-thousandth of the smaller shape's size,
/// plus the rounding of the coordinates GJK works in. The advancement aims at the target plus
/// half of it and stops within the target plus all of it, which keeps every step short of
/// the true contact despite f32 rounding of the distance.
pub(crate) fn tolerance(a: &Proxy, b: &Proxy, sa: &Sweep, sb: &Sweep, max_t: f32) -> f32 {
    let (ea, eb) = (a.extent(), b.extent());
    // The relative offsets at the ends of the searched span, not of the whole sweep: a long
    // translation searched over a short fraction stays in small coordinates.
    let (d0, d1) = (sb.start.p - sa.start.p, sb.end.p - sa.end.p);
    let span = d0.abs().max_element() + (d0 + max_t.min(1.0) * (d1 - d0)).abs().max_element();
    1e-4 * ea.min(eb) + 8.0 * f32::EPSILON * (span + ea + eb)
}

/// Advances A (proxy `a` in its body frame, moving along `sa`) and B until their distance
/// falls to `target` (within `tol`), or until `max_t`.
pub(crate) fn advance(a: &Proxy, sa: &Sweep, b: &Proxy, sb: &Sweep, target: f32, tol: f32, max_t: f32) -> Advance {
    let (angle_a, angle_b) = (sa.angle(), sb.angle());
    let rel = (sb.end.p - sb.start.p) - (sa.end.p - sa.start.p);
    let reach = |p: &Proxy, angle: f32| if angle == 0.0 { 0.0 } else { angle.abs() * p.reach() };
    let swing = reach(a, angle_a) + reach(b, angle_b);
    // The distance at `t` in A's frame at `t`, and the relative translation in that frame.
    // Without turning, B's pose relative to A moves on a line: no pose products per step.
    let (xf0, rel0) = (sa.start.inv_mul(&sb.start), sa.start.q.inv_rotate(rel));
    let turning = angle_a != 0.0 || angle_b != 0.0;
    let local = |t: f32, cache: &mut SimplexCache| {
        if turning {
            let pa = sa.at_angle(t, angle_a);
            (proxy_distance(a, b, &pa.inv_mul(&sb.at_angle(t, angle_b)), cache), pa.q.inv_rotate(rel))
        } else {
            (proxy_distance(a, b, &Pose { p: xf0.p + t * rel0, q: xf0.q }, cache), rel0)
        }
    };
    let done = |outcome: Outcome, t: f32, d: LocalDistance| {
        let pa = sa.at_angle(t, angle_a);
        let at = LocalDistance {
            distance: d.distance,
            point_a: pa.transform_point(d.point_a),
            point_b: pa.transform_point(d.point_b),
            normal: pa.q.rotate(d.normal),
        };
        Advance { outcome, t, at }
    };
    let aim = target + 0.5 * tol;
    let mut cache = SimplexCache::default();
    let mut t = 0.0f32;
    let mut approach = Vec2::ZERO;
    for k in 0..MAX_ITERATIONS {
        let (mut d, rel) = local(t, &mut cache);
        if d.distance <= target + tol {
            // Cores that touch exactly at the hit have no normal of their own; the direction
            // they approached along, from the last step, is the contact's normal.
            if d.normal == Vec2::ZERO {
                d.normal = approach;
            }
            return done(if k == 0 { Outcome::AtStart } else { Outcome::Hit }, t, d);
        }
        approach = d.normal;
        let bound = -rel.dot(d.normal) + swing;
        if bound <= 0.0 {
            return done(Outcome::Missed, t, d);
        }
        t += (d.distance - aim) / bound;
        if t > max_t {
            return done(Outcome::Missed, max_t, d);
        }
    }
    done(Outcome::Limit, t, local(t, &mut cache).0)
}

/// A part's bounding circle as a proxy (centre in its shape's frame): culls part pairs of
/// compounds before their exact advancement.
pub(crate) fn bounding_circle(local: &Pose, reach: f32) -> Proxy {
    let mut p = Proxy { points: [Vec2::ZERO; crate::shape::MAX_POLYGON_VERTICES], count: 1, radius: reach };
    p.points[0] = local.p;
    p
}
