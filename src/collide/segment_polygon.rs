//! Segment–polygon: the capsule–polygon kernel (the segment as a rounded 2-gon through the polygon
//! SAT, distance and clipping machinery), exact at any segment radius including 0.

use super::{Manifold, capsule_polygon};
use crate::math::Pose;
use crate::shape::{Polygon, Segment};

/// The contact manifold of a segment (A) and a polygon (B); `xf` is B's pose in A's frame.
#[must_use]
pub fn manifold(a: &Segment, b: &Polygon, xf: &Pose) -> Manifold {
    capsule_polygon::manifold(&a.as_capsule(), b, xf)
}

/// Whether a segment and a polygon touch; agrees with `manifold(..).count > 0`.
#[must_use]
pub fn overlap(a: &Segment, b: &Polygon, xf: &Pose) -> bool {
    capsule_polygon::overlap(&a.as_capsule(), b, xf)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::collide::test_util::{check_many, random_polygon, random_pose};
    use crate::collide::{contact, overlaps};
    use crate::math::Pose;
    use crate::shape::Shape;

    #[test]
    fn bare_segment_touching_a_rounded_triangle() {
        let tri = Shape::polygon(&[Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)], 0.1).unwrap();
        let line = Shape::segment(Vec2::new(-2.0, -0.1), Vec2::new(2.0, -0.1)).unwrap();
        assert!(overlaps(&line, &Pose::IDENTITY, &tri, &Pose::IDENTITY).unwrap());
        let m = contact(&line, &Pose::IDENTITY, &tri, &Pose::from_translation(Vec2::new(0.0, -0.05))).unwrap();
        assert_eq!((m.count, m.normal), (2, Vec2::Y));
        assert!(m.points().iter().all(|p| (p.depth - 0.05).abs() < 1e-6));
        assert!(!overlaps(&line, &Pose::IDENTITY, &tri, &Pose::from_translation(Vec2::new(0.0, 0.001))).unwrap());
    }

    #[test]
    fn random_pairs_match_the_oracles() {
        let touching = check_many(0x005e_6901, 4000, |rng| {
            let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.05, 2.0);
            let r = if rng.below(2) == 0 { 0.0 } else { rng.range(0.01, 0.4) };
            let seg = Shape::rounded_segment(a, b, r).unwrap();
            (seg, random_pose(rng, 1.5), random_polygon(rng, 0.5), random_pose(rng, 1.5))
        });
        assert!(touching > 400, "{touching} touching pairs");
    }
}
