//! The plane solver of the character mover: the displacement nearest a target that keeps clear of a set of planes.

use glam::Vec2;

use super::{QueryError, check_vector};

/// A half-plane constraint on a displacement `d`: `d · normal >= offset`. For a mover touching a
/// surface, `normal` is the surface's unit outward normal and `offset` is how far the mover must
/// move along it (`skin - separation`: positive to back out of a surface closer than the skin,
/// negative when there is room left).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Plane {
    /// Unit normal.
    pub normal: Vec2,
    /// The least `d · normal` allowed.
    pub offset: f32,
}

/// What [`solve_planes`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlaneSolution {
    /// The displacement.
    pub delta: Vec2,
    /// Whether `delta` satisfies every plane (within rounding). When the planes leave no room
    /// (a mover squeezed between opposite surfaces), `delta` is a compromise that spreads the
    /// violation, and this is false.
    pub feasible: bool,
}

/// The displacement nearest to `target` that satisfies every plane (`d · n >= offset`): the
/// exact solution of that small quadratic program, not an iteration towards it.
///
/// In 2D the nearest feasible point is the target itself, its projection onto one violated
/// plane, or the corner of two planes, so the solver tries those candidates and keeps the
/// nearest one that satisfies all planes (the first in plane order on a tie, so the answer
/// depends only on the planes and their order). Being exact, it does not jitter in acute
/// corners, where the projected Gauss–Seidel iteration of Box2D's `b2SolvePlanes` converges
/// slowly. The cost is cubic in the plane count: callers keep it to a handful (the mover caps
/// it at 16).
///
/// When no point satisfies every plane, a few sweeps of projections onto each violated plane
/// in turn give a compromise, with [`PlaneSolution::feasible`] false.
///
/// ```
/// use sapwood::query::{solve_planes, Plane};
/// use sapwood::Vec2;
/// // A floor (normal +y) and a wall on the right (normal -x); the mover wants to go down-right.
/// let planes = [Plane { normal: Vec2::Y, offset: 0.0 }, Plane { normal: Vec2::NEG_X, offset: 0.0 }];
/// let s = solve_planes(Vec2::new(1.0, -1.0), &planes)?;
/// assert!(s.feasible);
/// assert_eq!(s.delta, Vec2::ZERO); // wedged into the corner
/// let s = solve_planes(Vec2::new(-1.0, -1.0), &planes)?;
/// assert_eq!(s.delta, Vec2::new(-1.0, 0.0)); // slides along the floor, away from the wall
/// # Ok::<(), sapwood::query::QueryError>(())
/// ```
///
/// # Errors
/// [`QueryError::NonFinite`] for a NaN or infinite target, normal or offset;
/// [`QueryError::OutOfRange`] for a normal whose length is not 1 (within 1e-3).
pub fn solve_planes(target: Vec2, planes: &[Plane]) -> Result<PlaneSolution, QueryError> {
    check_vector(target)?;
    for p in planes {
        check_vector(p.normal)?;
        if !p.offset.is_finite() {
            return Err(QueryError::NonFinite);
        }
        if (p.normal.length() - 1.0).abs() > 1e-3 {
            return Err(QueryError::OutOfRange);
        }
    }
    Ok(solve(target, planes))
}

/// [`solve_planes`] on checked planes.
pub(crate) fn solve(target: Vec2, planes: &[Plane]) -> PlaneSolution {
    // Rounding allowance of a feasibility test: the candidates are computed from the target and
    // the offsets, so their error scales with those magnitudes.
    let scale = planes.iter().fold(target.abs().max_element(), |m, p| m.max(p.offset.abs()));
    let eps = 16.0 * f32::EPSILON * scale;
    let feasible = |d: Vec2| planes.iter().all(|p| d.dot(p.normal) >= p.offset - eps);
    if feasible(target) {
        return PlaneSolution { delta: target, feasible: true };
    }
    let mut best: Option<(f32, Vec2)> = None;
    let mut offer = |d: Vec2| {
        let e = (d - target).length_squared();
        if best.is_none_or(|(b, _)| e < b) && feasible(d) {
            best = Some((e, d));
        }
    };
    for (i, p) in planes.iter().enumerate() {
        let gap = p.offset - target.dot(p.normal);
        // Only a violated plane can be active at the optimum (its multiplier is positive).
        if gap > 0.0 {
            offer(target + gap * p.normal);
        }
        for q in &planes[i + 1..] {
            // The corner of the two lines d·n_p = o_p and d·n_q = o_q (Cramer's rule).
            let det = p.normal.perp_dot(q.normal);
            if det.abs() < 1e-6 {
                continue; // parallel: no corner, or a line of them that the projections cover
            }
            let x = (p.offset * q.normal.y - q.offset * p.normal.y) / det;
            let y = (p.normal.x * q.offset - q.normal.x * p.offset) / det;
            offer(Vec2::new(x, y));
        }
    }
    if let Some((_, d)) = best {
        return PlaneSolution { delta: d, feasible: true };
    }
    // No room: projected Gauss–Seidel from the target, a fixed number of sweeps so that the
    // cost stays bounded and the answer deterministic.
    let mut d = target;
    for _ in 0..16 {
        for p in planes {
            let gap = p.offset - d.dot(p.normal);
            if gap > 0.0 {
                d += gap * p.normal;
            }
        }
    }
    PlaneSolution { delta: d, feasible: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so that the test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn f(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Against brute force: the nearest feasible point of a fine polar grid around the target
    /// is never nearer than the solver's answer (beyond the grid's resolution), and the answer
    /// is feasible.
    #[test]
    fn exact_against_a_grid_search() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut feasible_cases = 0;
        for _ in 0..300 {
            let n = 1 + (rng.f() * 4.0) as usize;
            let planes: Vec<Plane> = (0..n)
                .map(|_| {
                    let a = rng.f() * std::f32::consts::TAU;
                    Plane { normal: Vec2::from_angle(a), offset: rng.f() - 0.7 }
                })
                .collect();
            let target = Vec2::new(rng.f() * 4.0 - 2.0, rng.f() * 4.0 - 2.0);
            let s = solve_planes(target, &planes).unwrap();
            if !s.feasible {
                continue;
            }
            feasible_cases += 1;
            for p in &planes {
                assert!(s.delta.dot(p.normal) >= p.offset - 1e-5, "{planes:?} {target} -> {s:?}");
            }
            let best = (s.delta - target).length();
            for i in 0..200 {
                for j in 1..=60 {
                    let d = target + Vec2::from_angle(i as f32 * std::f32::consts::TAU / 200.0) * (j as f32 * 0.05);
                    if planes.iter().all(|p| d.dot(p.normal) >= p.offset) {
                        assert!((d - target).length() >= best - 1e-4, "{planes:?} {target}: grid {d} beats {s:?}");
                    }
                }
            }
        }
        assert!(feasible_cases > 150, "{feasible_cases}");
    }

    /// An acute V notch (20°): the mover pushed into it lands exactly in the corner, the same
    /// answer for either plane order.
    #[test]
    fn acute_notch_is_exact_and_order_free() {
        let half = 10f32.to_radians();
        let left = Plane { normal: Vec2::new(half.cos(), half.sin()), offset: 0.0 };
        let right = Plane { normal: Vec2::new(-half.cos(), half.sin()), offset: 0.0 };
        let a = solve_planes(Vec2::new(0.3, -2.0), &[left, right]).unwrap();
        let b = solve_planes(Vec2::new(0.3, -2.0), &[right, left]).unwrap();
        assert!(a.feasible && a.delta.length() < 1e-6, "{a:?}");
        assert_eq!(a, b);
    }

    #[test]
    fn no_room_is_reported() {
        let planes = [Plane { normal: Vec2::X, offset: 1.0 }, Plane { normal: Vec2::NEG_X, offset: 1.0 }];
        let s = solve_planes(Vec2::ZERO, &planes).unwrap();
        assert!(!s.feasible);
        assert!(s.delta.is_finite());
    }
}
