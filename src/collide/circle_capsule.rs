//! Circle–capsule: the circle's centre against the closest point of the capsule's core segment.
//!
//! Capsule features (shared with `capsule_capsule`): the capsule is the 2-gon `[a, b]` rounded
//! by its radius, so end `a` is vertex 0, end `b` vertex 1, **edge 0** the side on the right of
//! `a -> b` (outward normal `(d.y, -d.x)` for `d = b - a`, as for a counter-clockwise polygon's
//! edge from vertex 0) and **edge 1** the side on the left.

use glam::Vec2;

use crate::collide::{EDGE, Manifold, feature_id};
use crate::math::Pose;
use crate::shape::{Capsule, Circle};

/// The capsule side (edge 0 or 1) whose outward normal is `outward`, for a core along `d`.
#[inline]
pub(crate) fn capsule_side(d: Vec2, outward: Vec2) -> u16 {
    // Right normal (d.y, -d.x): positive dot means the right side, edge 0.
    if d.y * outward.x - d.x * outward.y >= 0.0 { EDGE } else { EDGE | 1 }
}

/// Parameter of the point of segment `p + t d` closest to the origin, clamped to `[0, 1]`.
#[inline]
fn closest_t(p: Vec2, d: Vec2) -> f32 {
    let dd = d.length_squared();
    // `dd` is positive for a valid capsule unless its length underflows; then any t is exact.
    if dd > 0.0 { (-p.dot(d) / dd).clamp(0.0, 1.0) } else { 0.0 }
}

/// The contact of circle A (centred on A's origin) and capsule B, in A's frame.
///
/// When the centre lies inside the core's slab the normal is the segment's perpendicular
/// computed from the segment itself (not from the difference of two nearly equal points), so it
/// stays exact for deep contacts. A centre exactly on the core segment (or on an end point)
/// gets B's right normal `(d.y, -d.x) / |d|` with depth `ra + rb`: B is pushed out to its right.
#[must_use]
pub fn manifold(a: &Circle, b: &Capsule, xf: &Pose) -> Manifold {
    let p = xf.transform_point(b.a);
    let d = xf.transform_vector(b.b - b.a);
    let r = a.radius + b.radius;
    let t = closest_t(p, d);
    let q = p + t * d;
    let d2 = q.length_squared();
    if d2 > r * r {
        return Manifold::EMPTY;
    }
    let (normal, dist, fb) = if t > 0.0 && t < 1.0 {
        // Side region: the distance is the signed height of the origin's foot on the line,
        // measured along the unit right normal of B.
        let len = d.length();
        let right = Vec2::new(d.y, -d.x) / len;
        let h = right.dot(p); // the line's offset from the origin along `right`
        if h >= 0.0 {
            // B lies on the +right side of A's centre: B's left side (edge 1) faces A.
            (right, h, EDGE | 1)
        } else {
            (-right, -h, EDGE)
        }
    } else {
        let dist = d2.sqrt();
        let fb = if t == 0.0 { 0 } else { 1 };
        if dist > 0.0 {
            (q / dist, dist, fb)
        } else {
            // Centre exactly on an end point: any direction with n.d >= 0 separates by `r`;
            // take the right normal, as the side region does for h == 0.
            (Vec2::new(d.y, -d.x).normalize_or(Vec2::Y), 0.0, fb)
        }
    };
    // Midpoint between A's surface point `ra * n` and B's `q - rb * n`.
    let point = 0.5 * (q + (a.radius - b.radius) * normal);
    Manifold::one_point(normal, point, r - dist, feature_id(0, fb))
}

/// Whether the circle and capsule touch: one clamped projection and a squared comparison.
#[inline]
#[must_use]
pub fn overlap(a: &Circle, b: &Capsule, xf: &Pose) -> bool {
    let p = xf.transform_point(b.a);
    let d = xf.transform_vector(b.b - b.a);
    let r = a.radius + b.radius;
    let q = p + closest_t(p, d) * d;
    q.length_squared() <= r * r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::contact;
    use crate::shape::Shape;

    const CAP: Capsule = Capsule { a: Vec2::new(-1.0, 0.0), b: Vec2::new(1.0, 0.0), radius: 0.5 };
    const BALL: Circle = Circle { radius: 0.5 };

    fn check(b: &Capsule, xf: &Pose) -> Manifold {
        let m = manifold(&BALL, b, xf);
        assert_eq!(overlap(&BALL, b, xf), m.count > 0);
        if m.count > 0 {
            assert!((m.normal.length() - 1.0).abs() < 1e-6);
            assert!(m.points[0].depth >= 0.0);
        }
        m
    }

    #[test]
    fn separated() {
        assert_eq!(check(&CAP, &Pose::from_translation(Vec2::new(0.0, 1.001))).count, 0);
        assert_eq!(check(&CAP, &Pose::from_translation(Vec2::new(2.001, 0.0))).count, 0);
        // Near the corner of the slab but outside the rounded end.
        assert_eq!(check(&CAP, &Pose::from_translation(Vec2::new(1.8, 0.7))).count, 0);
    }

    #[test]
    fn exactly_touching_side_and_end() {
        let m = check(&CAP, &Pose::from_translation(Vec2::new(0.0, 1.0)));
        assert_eq!(m.count, 1);
        assert_eq!(m.points[0].depth, 0.0);
        assert_eq!(m.normal, Vec2::Y);
        assert_eq!(m.points[0].point, Vec2::new(0.0, 0.5));
        // B's right side (edge 0) faces down, towards A.
        assert_eq!(m.points[0].id, feature_id(0, EDGE));
        let m = check(&CAP, &Pose::from_translation(Vec2::new(2.0, 0.0)));
        assert_eq!((m.count, m.points[0].depth, m.normal), (1, 0.0, Vec2::X));
        assert_eq!(m.points[0].id, feature_id(0, 0));
        let m = check(&CAP, &Pose::from_translation(Vec2::new(-2.0, 0.0)));
        assert_eq!((m.count, m.points[0].depth, m.normal), (1, 0.0, Vec2::NEG_X));
        assert_eq!(m.points[0].id, feature_id(0, 1));
    }

    #[test]
    fn shallow_side_below() {
        let m = check(&CAP, &Pose::from_translation(Vec2::new(0.25, -0.75)));
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec2::NEG_Y);
        assert!((m.points[0].depth - 0.25).abs() < 1e-6);
        assert!((m.points[0].point - Vec2::new(0.0, -0.375)).length() < 1e-6);
        assert_eq!(m.points[0].id, feature_id(0, EDGE | 1));
    }

    #[test]
    fn centre_on_core_is_deep_with_fixed_normal() {
        let m = check(&CAP, &Pose::from_translation(Vec2::new(0.5, 0.0)));
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec2::NEG_Y); // B's right normal
        assert_eq!(m.points[0].depth, 1.0);
        // Centre exactly on an end point.
        let m = check(&CAP, &Pose::from_translation(Vec2::new(1.0, 0.0)));
        assert_eq!((m.normal, m.points[0].depth), (Vec2::NEG_Y, 1.0));
        assert!(m.normal.is_finite() && m.points[0].point.is_finite());
    }

    #[test]
    fn rotated_capsule_end_on() {
        // B stands upright above A; its end `a` is at (0, 0.25).
        let xf = Pose::new(Vec2::new(0.0, 1.25), std::f32::consts::FRAC_PI_2);
        let m = check(&CAP, &xf);
        assert_eq!(m.count, 1);
        assert!((m.normal - Vec2::Y).length() < 1e-6);
        assert!((m.points[0].depth - 0.75).abs() < 1e-6);
        assert_eq!(m.points[0].id, feature_id(0, 0));
        assert!((m.points[0].point - Vec2::new(0.0, 0.125)).length() < 1e-6);
    }

    #[test]
    fn symmetric_through_contact() {
        let ball = Shape::Circle(BALL);
        let cap = Shape::Capsule(CAP);
        let (pa, pb) = (Pose::new(Vec2::new(3.0, -1.0), 0.3), Pose::new(Vec2::new(3.2, -0.1), 2.0));
        let m = contact(&ball, &pa, &cap, &pb).unwrap();
        let n = contact(&cap, &pb, &ball, &pa).unwrap();
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, -n.normal);
        assert_eq!(m.points[0].point, n.points[0].point);
        assert_eq!(m.points[0].depth, n.points[0].depth);
        assert_eq!(m.points[0].id, n.points[0].id.rotate_left(16));
    }
}
