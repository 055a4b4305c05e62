//! Circle–segment: the circle–capsule kernel, exact at any segment radius including 0.

use super::{Manifold, circle_capsule};
use crate::math::Pose;
use crate::shape::{Circle, Segment};

/// The contact manifold of a circle (A) and a segment (B); `xf` is B's pose in A's frame.
#[must_use]
pub fn manifold(a: &Circle, b: &Segment, xf: &Pose) -> Manifold {
    circle_capsule::manifold(a, &b.as_capsule(), xf)
}

/// Whether a circle and a segment touch; agrees with `manifold(..).count > 0`.
#[must_use]
pub fn overlap(a: &Circle, b: &Segment, xf: &Pose) -> bool {
    circle_capsule::overlap(a, &b.as_capsule(), xf)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::collide::test_util::{check_many, random_pose};
    use crate::collide::{contact, overlaps};
    use crate::math::Pose;
    use crate::shape::Shape;

    #[test]
    fn circle_resting_on_a_bare_segment() {
        let line = Shape::segment(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)).unwrap();
        let ball = Shape::circle(0.5).unwrap();
        let m = contact(&line, &Pose::IDENTITY, &ball, &Pose::from_translation(Vec2::new(0.3, 0.4))).unwrap();
        assert_eq!((m.count, m.normal), (1, Vec2::Y));
        assert!((m.points[0].depth - 0.1).abs() < 1e-6);
        // From below, the normal flips: a bare segment is two-sided.
        let m = contact(&line, &Pose::IDENTITY, &ball, &Pose::from_translation(Vec2::new(0.3, -0.4))).unwrap();
        assert_eq!(m.normal, Vec2::NEG_Y);
        // Touching exactly counts; beyond the end cap it does not.
        assert!(overlaps(&line, &Pose::IDENTITY, &ball, &Pose::from_translation(Vec2::new(1.5, 0.0))).unwrap());
        assert!(!overlaps(&line, &Pose::IDENTITY, &ball, &Pose::from_translation(Vec2::new(1.51, 0.0))).unwrap());
    }

    #[test]
    fn random_pairs_match_the_oracles() {
        let touching = check_many(0x0005_e6c1, 4000, |rng| {
            let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.05, 2.0);
            let r = if rng.below(2) == 0 { 0.0 } else { rng.range(0.01, 0.4) };
            let seg = Shape::rounded_segment(a, b, r).unwrap();
            (Shape::circle(rng.range(0.05, 1.0)).unwrap(), random_pose(rng, 1.5), seg, random_pose(rng, 1.5))
        });
        assert!(touching > 400, "{touching} touching pairs");
    }
}
