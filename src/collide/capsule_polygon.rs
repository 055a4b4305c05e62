//! Capsule–polygon and capsule–box: the capsule is a rounded 2-gon (its segment, once in each
//! direction) run through the polygon kernel's SAT, exact-distance and clipping machinery, as
//! Box2D does. A capsule lying along a face clips to a 2-point manifold.
//!
//! Capsule features: vertex 0 is `a`, vertex 1 is `b`, edge 0 runs `a → b` (normal to its right),
//! edge 1 runs `b → a`.

use glam::Vec2;

use super::Manifold;
use super::polygon_polygon::{Hull, collide, collide_reusing, collide_test, polygon_size};
use super::reuse::Witness;
use crate::math::Pose;
use crate::shape::{Capsule, Cuboid, Polygon};

/// The capsule's segment as a 2-gon: vertices and the outward normals of its two edges.
#[inline]
fn segment_hull(c: &Capsule) -> ([Vec2; 2], [Vec2; 2]) {
    let e = c.b - c.a;
    // The constructor rejects a == b; should one slip through, any unit normal keeps the
    // results finite (the capsule is then a circle and every direction is a face normal).
    let n = Vec2::new(e.y, -e.x).try_normalize().unwrap_or(Vec2::X);
    ([c.a, c.b], [n, -n])
}

/// The capsule's size for the reference-face tolerance: half its segment (max-norm).
#[inline]
fn capsule_size(c: &Capsule) -> f32 {
    0.5 * (c.b - c.a).abs().max_element()
}

/// The contact manifold of a capsule (A) and a polygon (B); `xf` is B's pose in A's frame.
pub fn manifold(a: &Capsule, b: &Polygon, xf: &Pose) -> Manifold {
    let (v, n) = segment_hull(a);
    let ha = Hull { v: &v, n: &n, radius: a.radius };
    collide(&ha, &Hull::of(b), xf, capsule_size(a) + polygon_size(b))
}

/// [`manifold`] through a witness (the polygon kernel's reuse, which covers the capsule's
/// usual contact, its core apart from the polygon's and only the radius bridging the gap).
pub(crate) fn manifold_reusing(a: &Capsule, b: &Polygon, xf: &Pose, w: &mut Witness) -> Manifold {
    let (v, n) = segment_hull(a);
    let ha = Hull { v: &v, n: &n, radius: a.radius };
    collide_reusing(&ha, &Hull::of(b), xf, capsule_size(a) + polygon_size(b), w)
}

/// [`manifold_cuboid`] through a witness.
pub(crate) fn manifold_cuboid_reusing(a: &Capsule, b: &Cuboid, xf: &Pose, w: &mut Witness) -> Manifold {
    manifold_reusing(a, &b.to_polygon(), xf, w)
}

/// Whether a capsule and a polygon touch; agrees exactly with `manifold(..).count > 0`.
pub fn overlap(a: &Capsule, b: &Polygon, xf: &Pose) -> bool {
    let (v, n) = segment_hull(a);
    let ha = Hull { v: &v, n: &n, radius: a.radius };
    collide_test(&ha, &Hull::of(b), xf, capsule_size(a) + polygon_size(b))
}

/// Capsule–box: the box as a 4-gon.
pub fn manifold_cuboid(a: &Capsule, b: &Cuboid, xf: &Pose) -> Manifold {
    manifold(a, &b.to_polygon(), xf)
}

/// Capsule–box overlap: the box as a 4-gon.
pub fn overlap_cuboid(a: &Capsule, b: &Cuboid, xf: &Pose) -> bool {
    overlap(a, &b.to_polygon(), xf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::test_util::{SplitMix64, check_many, random_polygon, random_pose, scaled};
    use crate::collide::{contact, overlaps};
    use crate::shape::Shape;

    fn capsule(ax: f32, ay: f32, bx: f32, by: f32, r: f32) -> Shape {
        Shape::capsule(Vec2::new(ax, ay), Vec2::new(bx, by), r).unwrap()
    }

    fn random_capsule(rng: &mut SplitMix64) -> Shape {
        let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.05, 1.5);
        Shape::capsule(a, b, rng.range(0.05, 0.5)).unwrap()
    }

    #[test]
    fn capsule_lying_on_a_face_gives_two_points() {
        let c = capsule(-1.0, 0.0, 1.0, 0.0, 0.25);
        let floor = Shape::cuboid(Vec2::new(2.0, 0.5)).unwrap();
        let m = contact(&c, &Pose::IDENTITY, &floor, &Pose::from_translation(Vec2::new(0.0, -0.7))).unwrap();
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::NEG_Y);
        let mut xs = [m.points[0].point.x, m.points[1].point.x];
        xs.sort_by(f32::total_cmp);
        assert_eq!(xs, [-1.0, 1.0]);
        for p in m.points() {
            assert!((p.depth - 0.05).abs() < 1e-6);
            assert!((p.point.y + 0.225).abs() < 1e-6);
        }
        assert_ne!(m.points[0].id, m.points[1].id);
        // The same through the other argument order: same points, normal flipped.
        let s = contact(&floor, &Pose::from_translation(Vec2::new(0.0, -0.7)), &c, &Pose::IDENTITY).unwrap();
        assert_eq!(s.normal, Vec2::Y);
        assert_eq!(s.points, m.flipped().points);
    }

    #[test]
    fn capsule_standing_on_a_face_gives_one_point() {
        let c = capsule(0.0, 0.0, 0.0, 2.0, 0.5);
        let b = Shape::cuboid(Vec2::new(1.0, 1.0)).unwrap();
        let m = contact(&c, &Pose::IDENTITY, &b, &Pose::from_translation(Vec2::new(0.0, -1.4))).unwrap();
        assert_eq!(m.count, 1);
        assert!((m.normal - Vec2::NEG_Y).length() < 1e-6);
        assert!((m.points[0].depth - 0.1).abs() < 1e-6);
        assert!((m.points[0].point - Vec2::new(0.0, -0.45)).length() < 1e-6);
    }

    #[test]
    fn touching_and_separated_capsules() {
        let c = capsule(-1.0, 0.0, 1.0, 0.0, 0.5);
        let b = Shape::cuboid(Vec2::new(2.0, 1.0)).unwrap();
        let touch = Pose::from_translation(Vec2::new(0.5, -1.5));
        let m = contact(&c, &Pose::IDENTITY, &b, &touch).unwrap();
        assert_eq!(m.count, 2);
        assert!(m.points().iter().all(|p| p.depth == 0.0 && p.point.y == -0.5));
        assert!(overlaps(&c, &Pose::IDENTITY, &b, &touch).unwrap());
        let apart = Pose::from_translation(Vec2::new(0.5, -1.5001));
        assert_eq!(contact(&c, &Pose::IDENTITY, &b, &apart).unwrap().count, 0);
        assert!(!overlaps(&c, &Pose::IDENTITY, &b, &apart).unwrap());
        // Beyond the end cap diagonally: SAT's face gaps are within the radius, the true gap
        // from the cap's centre to the box corner is not.
        let corner = Pose::from_translation(Vec2::new(1.0 + 2.0 + 0.4, 1.0 + 0.4));
        assert!(!overlaps(&c, &Pose::IDENTITY, &b, &corner).unwrap());
        assert_eq!(contact(&c, &Pose::IDENTITY, &b, &corner).unwrap().count, 0);
    }

    #[test]
    fn capsule_against_rounded_polygon() {
        let c = capsule(-1.0, 0.0, 1.0, 0.0, 0.25);
        let rb = Shape::rounded_box(Vec2::new(0.5, 0.5), 0.25).unwrap();
        // Rounded box resting on the capsule's side, cores 0.4 apart: depth 0.1.
        let m = contact(&c, &Pose::IDENTITY, &rb, &Pose::from_translation(Vec2::new(0.2, 0.9))).unwrap();
        assert_eq!(m.count, 2);
        assert!((m.normal - Vec2::Y).length() < 1e-6);
        assert!(m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-6));
        // Deep: the capsule's core crosses the box's core 0.2 above its bottom face.
        let m = contact(&c, &Pose::IDENTITY, &rb, &Pose::from_translation(Vec2::new(0.0, 0.3))).unwrap();
        assert!((m.normal - Vec2::Y).length() < 1e-6);
        assert!((m.max_depth().unwrap() - (0.2 + 0.5)).abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn random_capsule_polygon_pairs_agree_with_brute_force_and_parry() {
        let touching = check_many(0x5eed_0003, 4000, |rng| {
            let (sa, sb) = (random_capsule(rng), random_polygon(rng, 0.4));
            (sa, random_pose(rng, 1.5), sb, random_pose(rng, 1.5))
        });
        assert!(touching > 800, "{touching}");
        check_many(0x5eed_0004, 2000, |rng| {
            let sa = random_capsule(rng);
            let sb = Shape::cuboid(Vec2::new(rng.range(0.2, 2.0), rng.range(0.2, 2.0))).unwrap();
            (sa, random_pose(rng, 1.5), sb, random_pose(rng, 1.5))
        });
    }

    /// Reuse is exact (see `test_util::reuse_walks`) for capsules and bare or rounded segments
    /// against boxes and sharp or rounded polygons, some of them far from their own origin; a
    /// capsule resting on a face touches through its radius with the cores apart, the case
    /// that makes capsules worth reusing, and resting motions mostly reuse.
    #[test]
    fn reuse_gives_the_full_kernels_manifold_bit_for_bit() {
        let (reused, evaluated) = crate::collide::test_util::reuse_walks(0x5eed_00a3, 400, |rng, scale| {
            let a = match rng.below(4) {
                0 => {
                    let (a, b) = (Vec2::new(rng.range(-1.0, 1.0), 0.0), Vec2::new(rng.range(-1.0, 1.0), 1.0));
                    Shape::rounded_segment(a, b, [0.0, 0.05][rng.below(2)]).unwrap()
                }
                _ => random_capsule(rng),
            };
            let b = match rng.below(3) {
                0 => Shape::cuboid(Vec2::new(rng.range(0.2, 2.0), rng.range(0.2, 2.0))).unwrap(),
                _ => random_polygon(rng, 0.4),
            };
            let offset = if rng.below(3) == 0 { Vec2::new(rng.range(-50.0, 50.0), 30.0) } else { Vec2::ZERO };
            (scaled(&a, scale, Vec2::ZERO), scaled(&b, scale, offset))
        });
        assert!(reused * 10 > evaluated * 7, "{reused} of {evaluated}");
    }

    /// Regression (oracle, narrow_oracle capsule_cuboid): a capsule of radius 0.1325 tilted 30°
    /// against a box face. Every point's capsule side must be on the capsule's surface (at
    /// distance r from the core); the core end moved by r along the normal lies 0.018 inside.
    #[test]
    fn regression_rounded_incident_points_on_surface() {
        let (ca, cb, r) = (Vec2::new(0.12374091, 0.063077874), Vec2::new(-0.118957326, -0.07830788), 0.13254729);
        let a = Shape::capsule(ca, cb, r).unwrap();
        let b = Shape::cuboid(Vec2::new(0.13841519, 0.24648665)).unwrap();
        let pa = Pose { p: Vec2::new(-1.7497941, -1.9953785), q: crate::math::Rot { c: -1.0, s: 0.0 } };
        let pb = Pose { p: Vec2::new(-1.7497941, -2.1617033), q: crate::math::Rot { c: 0.0, s: -1.0 } };
        let m = contact(&a, &pa, &b, &pb).unwrap();
        assert_eq!(m.count, 2);
        let (wa, wb) = (pa.transform_point(ca), pa.transform_point(cb));
        for p in m.points() {
            let on_a = p.point + 0.5 * p.depth * m.normal;
            let e = wb - wa;
            let t = ((on_a - wa).dot(e) / e.length_squared()).clamp(0.0, 1.0);
            let d = (on_a - (wa + t * e)).length();
            assert!((d - r).abs() < 1e-5, "capsule-side point {d} from the core, radius {r}: {m:?}");
        }
        assert!((m.max_depth().unwrap() - 0.16771549).abs() < 1e-5);
    }
}
