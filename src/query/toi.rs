//! Time of impact: when two shapes, each translating and turning, first touch.

use glam::Vec2;

use super::advance::{Outcome, Sweep, Sweeps};
use super::cast::{earliest, ghost_normal};
use super::{QueryError, check_amount, check_pose, distance};
use crate::shape::Shape;

/// How a [`time_of_impact`] search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ToiState {
    /// The shapes come within the tolerance at `fraction` (0 if they start that close without
    /// overlapping).
    Hit,
    /// They stay apart over the whole sweep.
    Separated,
    /// They touch or overlap at the start; `fraction` is 0.
    Overlapping,
    /// The search ran out of iterations before deciding (rare: a shape turning fast past a near
    /// miss); the shapes are apart until `fraction`, and a caller can sweep on from there. It is
    /// not an impact: nothing was found to touch. [`World::step`](crate::World::step) resumes
    /// the search from `fraction` a few times, and reports no impact for a pair still undecided.
    IterationLimit,
}

/// The result of [`time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Toi {
    /// How the search ended.
    pub state: ToiState,
    /// The sweep fraction of the impact ([`ToiState::Hit`]), of the last safe time
    /// ([`ToiState::IterationLimit`]), the maximum fraction ([`ToiState::Separated`]) or 0.
    pub fraction: f32,
    /// The contact point at `fraction`, world space (midway between the closest points).
    pub point: Vec2,
    /// Unit normal from A towards B at `fraction`; zero when the cores overlap.
    pub normal: Vec2,
    /// The part of A (0 for a convex shape).
    pub part_a: u32,
    /// The part of B (0 for a convex shape).
    pub part_b: u32,
}

/// The first fraction in `[0, max_fraction]` of the sweeps at which `sa` moving along
/// `sweep_a` and `sb` along `sweep_b` come within a small tolerance of each other.
///
/// Each shape translates linearly and turns about its pose's origin (see [`Sweep`]). The
/// search is conservative advancement: it never steps past a contact, so it never reports
/// [`ToiState::Separated`] for shapes that touch during the sweep, and a hit is never later
/// than the true first contact. At a hit the distance, at the poses [`Sweep::at`] gives for
/// the fraction, is within 1e-4 times the smaller shape's size (half the longer side of its
/// bounding box plus its rounding) plus the f32 rounding of the sizes and of the distance
/// between the shapes, wherever a shape's geometry sits relative to its pose's origin. (That
/// offset does count in the motion: a shape turns about its pose's origin, and f32 poses of a
/// turning shape carry rounding along that lever.) A compound's parts are tried in turn, the
/// earliest impact kept.
///
/// ```
/// use sapwood::query::{time_of_impact, Sweep, ToiState};
/// use sapwood::{Pose, Shape, Vec2};
/// // A bar turning a quarter turn about its centre sweeps into a ball beside it.
/// let bar = Shape::cuboid(Vec2::new(2.0, 0.05))?;
/// let ball = Shape::circle(0.25)?;
/// let turn = Sweep::new(Pose::IDENTITY, Pose::new(Vec2::ZERO, std::f32::consts::FRAC_PI_2));
/// let still = Sweep::fixed(Pose::from_translation(Vec2::new(0.0, 1.0)));
/// let toi = time_of_impact(&bar, &turn, &ball, &still, 1.0)?;
/// assert_eq!(toi.state, ToiState::Hit);
/// assert!(toi.fraction > 0.5 && toi.fraction < 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`QueryError::NonFinite`] for a non-finite or non-unit pose in a sweep or a non-finite
/// `max_fraction`; [`QueryError::Negative`] for a negative one.
pub fn time_of_impact(
    sa: &Shape,
    sweep_a: &Sweep,
    sb: &Shape,
    sweep_b: &Sweep,
    max_fraction: f32,
) -> Result<Toi, QueryError> {
    let checked = |s: &Sweep| Ok::<_, QueryError>(Sweep::new(check_pose(&s.start)?, check_pose(&s.end)?));
    let (sweep_a, sweep_b) = (&checked(sweep_a)?, &checked(sweep_b)?);
    check_amount(max_fraction)?;
    let Some((adv, part_a, part_b)) = earliest(sa, sb, &Sweeps::new(*sweep_a, *sweep_b), 0.0, max_fraction) else {
        return Ok(Toi {
            state: ToiState::Separated,
            fraction: max_fraction,
            point: Vec2::ZERO,
            normal: Vec2::ZERO,
            part_a: 0,
            part_b: 0,
        });
    };
    // `earliest` stops at the first part pair within the tolerance at the start; another pair
    // of a compound may overlap there while that one does not.
    let overlapping_at_start = || {
        adv.at.distance == 0.0
            || (matches!(sa, Shape::Compound(_)) || matches!(sb, Shape::Compound(_)))
                && distance(sa, &sweep_a.start, sb, &sweep_b.start).is_ok_and(|d| d.distance == 0.0)
    };
    let state = match adv.outcome {
        Outcome::AtStart if overlapping_at_start() => ToiState::Overlapping,
        Outcome::AtStart | Outcome::Hit => ToiState::Hit,
        Outcome::Limit => ToiState::IterationLimit,
        Outcome::Missed => ToiState::Separated,
    };
    let point = 0.5 * (adv.at.point_a + adv.at.point_b);
    let normal = match adv.outcome {
        Outcome::Hit => {
            let (qa, qb) = (sweep_a.at(adv.t).q, sweep_b.at(adv.t).q);
            ghost_normal(sa, qa, sb, qb, [part_a, part_b], adv.at.normal)
        }
        _ => adv.at.normal,
    };
    Ok(Toi { state, fraction: adv.t, point, normal, part_a, part_b })
}
