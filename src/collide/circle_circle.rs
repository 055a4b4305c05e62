//! Circle–circle: one point on the line of centres.
//!
//! A is centred on the origin of its own frame, B on `xf.p`. The shapes touch when the squared
//! centre distance is at most `(ra + rb)^2`; comparing squares keeps [`overlap`] free of `sqrt`,
//! and because `sqrt(fl(r * r)) == r` in IEEE arithmetic, a pair accepted by the squared test
//! never gets a negative depth from the `sqrt` in [`manifold`].

use glam::Vec2;

use crate::collide::{Manifold, feature_id};
use crate::math::Pose;
use crate::shape::Circle;

/// The contact of two circles in A's frame. Coincident centres give the fixed normal `+y` and
/// depth `ra + rb` (every direction is a minimum translation; one is picked so the result is
/// deterministic).
#[must_use]
pub fn manifold(a: &Circle, b: &Circle, xf: &Pose) -> Manifold {
    let c = xf.p;
    let r = a.radius + b.radius;
    let d2 = c.length_squared();
    if d2 > r * r {
        return Manifold::EMPTY;
    }
    let dist = d2.sqrt();
    // `d2` can underflow to zero for centres ~1e-20 apart, so test the length, not `c`.
    let normal = if dist > 0.0 { c / dist } else { Vec2::Y };
    // Midpoint between A's surface point `ra * n` and B's `c - rb * n`.
    let point = 0.5 * (c + (a.radius - b.radius) * normal);
    Manifold::one_point(normal, point, r - dist, feature_id(0, 0))
}

/// Whether the circles touch or overlap: one squared comparison.
#[inline]
#[must_use]
pub fn overlap(a: &Circle, b: &Circle, xf: &Pose) -> bool {
    let r = a.radius + b.radius;
    xf.p.length_squared() <= r * r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::contact;
    use crate::shape::Shape;

    fn circle(r: f32) -> Circle {
        Circle { radius: r }
    }

    fn check(a: &Circle, b: &Circle, xf: &Pose) -> Manifold {
        let m = manifold(a, b, xf);
        assert_eq!(overlap(a, b, xf), m.count > 0);
        if m.count > 0 {
            assert!((m.normal.length() - 1.0).abs() < 1e-6);
        }
        m
    }

    #[test]
    fn separated() {
        let m = check(&circle(1.0), &circle(0.5), &Pose::from_translation(Vec2::new(1.5, 0.1)));
        assert_eq!(m.count, 0);
        assert_eq!(check(&circle(1.0), &circle(1.0), &Pose::from_translation(Vec2::new(2.0 + 2e-7, 0.0))).count, 0);
    }

    #[test]
    fn exactly_touching_is_contact_with_zero_depth() {
        let m = check(&circle(1.0), &circle(0.5), &Pose::new(Vec2::new(0.0, -1.5), 0.3));
        assert_eq!(m.count, 1);
        assert_eq!(m.points[0].depth, 0.0);
        assert_eq!(m.normal, Vec2::NEG_Y);
        assert_eq!(m.points[0].point, Vec2::new(0.0, -1.0));
        // 3-4-5 triangle: exact in f32.
        let m = check(&circle(2.0), &circle(3.0), &Pose::from_translation(Vec2::new(3.0, 4.0)));
        assert_eq!(m.count, 1);
        assert_eq!(m.points[0].depth, 0.0);
        assert!((m.normal - Vec2::new(0.6, 0.8)).length() < 1e-7);
        assert!((m.points[0].point - Vec2::new(1.2, 1.6)).length() < 1e-6);
    }

    #[test]
    fn shallow_and_deep() {
        let m = check(&circle(1.0), &circle(0.5), &Pose::from_translation(Vec2::new(1.25, 0.0)));
        assert_eq!(m.count, 1);
        assert!((m.points[0].depth - 0.25).abs() < 1e-6);
        assert_eq!(m.normal, Vec2::X);
        // A's surface at x = 1, B's at x = 0.75: midpoint 0.875.
        assert!((m.points[0].point - Vec2::new(0.875, 0.0)).length() < 1e-6);
        assert_eq!(m.points[0].id, feature_id(0, 0));
        // Small circle deep inside the big one.
        let m = check(&circle(2.0), &circle(0.5), &Pose::from_translation(Vec2::new(-0.5, 0.0)));
        assert!((m.points[0].depth - 2.0).abs() < 1e-6);
        assert_eq!(m.normal, Vec2::NEG_X);
    }

    #[test]
    fn coincident_centres_pick_plus_y() {
        let m = check(&circle(1.0), &circle(0.5), &Pose::new(Vec2::ZERO, 1.0));
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec2::Y);
        assert_eq!(m.points[0].depth, 1.5);
        assert!(m.normal.is_finite() && m.points[0].point.is_finite());
    }

    #[test]
    fn symmetric_through_contact() {
        let (a, b) = (Shape::circle(1.0).unwrap(), Shape::circle(0.75).unwrap());
        let (pa, pb) = (Pose::new(Vec2::new(1.0, 2.0), 0.4), Pose::new(Vec2::new(2.2, 2.9), -1.0));
        let m = contact(&a, &pa, &b, &pb).unwrap();
        let n = contact(&b, &pb, &a, &pa).unwrap();
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, -n.normal);
        assert_eq!(m.points[0].point, n.points[0].point);
        assert_eq!(m.points[0].depth, n.points[0].depth);
        assert!((m.normal - Vec2::new(1.2, 0.9).normalize()).length() < 1e-6);
        assert!((m.points[0].depth - 0.25).abs() < 1e-5);
    }
}
