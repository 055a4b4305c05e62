//! Capsule–segment: the capsule–capsule kernel, exact at any segment radius including 0.

use super::{Manifold, capsule_capsule};
use crate::math::Pose;
use crate::shape::{Capsule, Segment};

/// The contact manifold of a capsule (A) and a segment (B); `xf` is B's pose in A's frame.
#[must_use]
pub fn manifold(a: &Capsule, b: &Segment, xf: &Pose) -> Manifold {
    capsule_capsule::manifold(a, &b.as_capsule(), xf)
}

/// Whether a capsule and a segment touch; agrees with `manifold(..).count > 0`.
#[must_use]
pub fn overlap(a: &Capsule, b: &Segment, xf: &Pose) -> bool {
    capsule_capsule::overlap(a, &b.as_capsule(), xf)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::collide::contact;
    use crate::collide::test_util::{check_many_counting, random_pose};
    use crate::math::Pose;
    use crate::shape::Shape;

    #[test]
    fn capsule_lying_on_a_segment_gives_two_points() {
        let line = Shape::segment(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0)).unwrap();
        let pill = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap();
        let m = contact(&line, &Pose::IDENTITY, &pill, &Pose::from_translation(Vec2::new(0.0, 0.2))).unwrap();
        assert_eq!((m.count, m.normal), (2, Vec2::Y));
        for p in m.points() {
            assert!((p.depth - 0.05).abs() < 1e-6 && (p.point.x.abs() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn random_pairs_match_the_oracles() {
        let (touching, parry_off) = check_many_counting(0x00ca_05e6, 4000, |rng| {
            let seg = |rng: &mut crate::internal::SplitMix64, min_r: f32| {
                let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.05, 2.0);
                (a, b, if min_r == 0.0 && rng.below(2) == 0 { 0.0 } else { rng.range(0.01, 0.4) })
            };
            let (a, b, r) = seg(rng, 0.01);
            let cap = Shape::capsule(a, b, r).unwrap();
            let (a, b, r) = seg(rng, 0.0);
            (cap, random_pose(rng, 1.5), Shape::rounded_segment(a, b, r).unwrap(), random_pose(rng, 1.5))
        });
        // parry's oracle adapter reads crossing bare cores as a hair apart (its core distance
        // of intersecting segments is a rounding-level positive number, not a penetration);
        // the brute force decided each of these pairs.
        println!("{touching} touching pairs; parry disagrees on {parry_off} of 4000");
        assert!(touching > 400, "{touching} touching pairs");
    }
}
