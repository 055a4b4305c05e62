//! Segment–cuboid: the capsule–cuboid kernel (the segment as a rounded 2-gon through the polygon
//! SAT, distance and clipping machinery), exact at any segment radius including 0.

use super::{Manifold, capsule_polygon};
use crate::math::Pose;
use crate::shape::{Cuboid, Segment};

/// The contact manifold of a segment (A) and a cuboid (B); `xf` is B's pose in A's frame.
#[must_use]
pub fn manifold(a: &Segment, b: &Cuboid, xf: &Pose) -> Manifold {
    capsule_polygon::manifold_cuboid(&a.as_capsule(), b, xf)
}

/// Whether a segment and a cuboid touch; agrees with `manifold(..).count > 0`.
#[must_use]
pub fn overlap(a: &Segment, b: &Cuboid, xf: &Pose) -> bool {
    capsule_polygon::overlap_cuboid(&a.as_capsule(), b, xf)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::collide::contact;
    use crate::collide::test_util::{check_many, random_pose};
    use crate::math::Pose;
    use crate::shape::Shape;

    #[test]
    fn box_on_a_segment_and_a_segment_through_a_box() {
        let line = Shape::segment(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0)).unwrap();
        let crate_ = Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap();
        let m = contact(&line, &Pose::IDENTITY, &crate_, &Pose::from_translation(Vec2::new(0.25, 0.45))).unwrap();
        assert_eq!((m.count, m.normal), (2, Vec2::Y));
        assert!(m.points().iter().all(|p| (p.depth - 0.05).abs() < 1e-6));
        // Straight through, above the middle: the shortest way out lifts the bottom by 0.4.
        let m = contact(&line, &Pose::IDENTITY, &crate_, &Pose::from_translation(Vec2::new(0.0, 0.1))).unwrap();
        assert_eq!(m.normal, Vec2::Y);
        assert!((m.max_depth().unwrap() - 0.4).abs() < 1e-6);
    }

    #[test]
    fn random_pairs_match_the_oracles() {
        let touching = check_many(0x005e_6b0c, 4000, |rng| {
            let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.05, 2.0);
            let r = if rng.below(2) == 0 { 0.0 } else { rng.range(0.01, 0.4) };
            let seg = Shape::rounded_segment(a, b, r).unwrap();
            let bx = Shape::cuboid(Vec2::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0))).unwrap();
            (seg, random_pose(rng, 1.5), bx, random_pose(rng, 1.5))
        });
        assert!(touching > 400, "{touching} touching pairs");
    }
}
