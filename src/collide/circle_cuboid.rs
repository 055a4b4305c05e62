//! Circle–box: clamp the circle's centre into the box (Ericson, *Real-Time Collision Detection*
//! 5.1.3), in the box's own frame where the box is an axis-aligned `[-h, h]`.
//!
//! Box features follow [`Cuboid::to_polygon`]: vertices counter-clockwise from `(-hx, -hy)`,
//! edge 0 bottom (`-y`), 1 right (`+x`), 2 top (`+y`), 3 left (`-x`).

use glam::Vec2;

use crate::collide::{EDGE, Manifold, feature_id};
use crate::math::Pose;
use crate::shape::{Circle, Cuboid};

/// The contact of circle A (centred on A's origin) and box B, in A's frame.
///
/// Outside the box the closest point is the clamped centre. A centre inside (or on the boundary
/// of) the box is pushed out through the face of least penetration, which is the exact minimum
/// translation; the depth is then `r + distance to that face`. Ties go to the x faces, and a
/// centre on an axis (`c.x == 0`) to the positive face.
#[must_use]
#[inline]
pub fn manifold(a: &Circle, b: &Cuboid, xf: &Pose) -> Manifold {
    let h = b.half_extents;
    let r = a.radius;
    // A's centre in B's frame.
    let c = xf.inv_transform_point(Vec2::ZERO);
    let q = c.clamp(-h, h);
    let delta = q - c; // from A's centre to B's closest point: the direction A -> B
    let d2 = delta.length_squared();
    if d2 > r * r {
        return Manifold::EMPTY;
    }
    let (local_normal, depth, surface_b, fb) = if q != c {
        let dist = d2.sqrt();
        // `q != c` implies `delta != 0`, but its square may underflow: fall back to the face.
        let n = if dist > 0.0 {
            delta / dist
        } else if q.x != c.x {
            Vec2::new(delta.x.signum(), 0.0)
        } else {
            Vec2::new(0.0, delta.y.signum())
        };
        let fb = match (q.x != c.x, q.y != c.y) {
            (true, true) => match (q.x > 0.0, q.y > 0.0) {
                (false, false) => 0,
                (true, false) => 1,
                (true, true) => 2,
                (false, true) => 3,
            },
            (true, false) => EDGE | if q.x > 0.0 { 1 } else { 3 },
            _ => EDGE | if q.y > 0.0 { 2 } else { 0 },
        };
        (n, r - dist, q, fb)
    } else {
        // Inside: the face of least penetration. Its outward normal is `s * axis`; A moves out
        // through it, so the normal from A to B is the opposite.
        let sx = if c.x >= 0.0 { 1.0 } else { -1.0 };
        let sy = if c.y >= 0.0 { 1.0 } else { -1.0 };
        let gap_x = h.x - c.x.abs();
        let gap_y = h.y - c.y.abs();
        if gap_x <= gap_y {
            let fb = EDGE | if sx > 0.0 { 1 } else { 3 };
            (Vec2::new(-sx, 0.0), r + gap_x, Vec2::new(sx * h.x, c.y), fb)
        } else {
            let fb = EDGE | if sy > 0.0 { 2 } else { 0 };
            (Vec2::new(0.0, -sy), r + gap_y, Vec2::new(c.x, sy * h.y), fb)
        }
    };
    // Midpoint between A's surface point `c + r n` and B's surface point, then into A's frame.
    let local_point = 0.5 * (c + r * local_normal + surface_b);
    Manifold::one_point(xf.transform_vector(local_normal), xf.transform_point(local_point), depth, feature_id(0, fb))
}

/// Whether the circle and box touch: clamp and one squared comparison.
#[inline]
#[must_use]
pub fn overlap(a: &Circle, b: &Cuboid, xf: &Pose) -> bool {
    let c = xf.inv_transform_point(Vec2::ZERO);
    let delta = c.clamp(-b.half_extents, b.half_extents) - c;
    delta.length_squared() <= a.radius * a.radius
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::contact;
    use crate::shape::Shape;

    const BOX: Cuboid = Cuboid { half_extents: Vec2::new(2.0, 1.0) };

    fn check(r: f32, xf: &Pose) -> Manifold {
        let a = Circle { radius: r };
        let m = manifold(&a, &BOX, xf);
        assert_eq!(overlap(&a, &BOX, xf), m.count > 0);
        if m.count > 0 {
            assert!((m.normal.length() - 1.0).abs() < 1e-6);
            assert!(m.points[0].depth >= 0.0);
        }
        m
    }

    /// A's centre at `c` in the box's frame, box unrotated.
    fn at(c: Vec2) -> Pose {
        Pose::from_translation(-c)
    }

    #[test]
    fn separated() {
        assert_eq!(check(0.5, &at(Vec2::new(0.0, 1.5001))).count, 0);
        assert_eq!(check(0.5, &at(Vec2::new(2.4, 1.4))).count, 0); // corner region, 0.566 away
    }

    #[test]
    fn exactly_touching_face_and_corner() {
        let m = check(0.5, &at(Vec2::new(0.5, 1.5)));
        assert_eq!((m.count, m.points[0].depth, m.normal), (1, 0.0, Vec2::NEG_Y));
        assert_eq!(m.points[0].point, Vec2::new(0.0, -0.5));
        assert_eq!(m.points[0].id, feature_id(0, EDGE | 2));
        // Corner at distance 5 along a 3-4-5 triangle.
        let m = check(5.0, &at(Vec2::new(5.0, 5.0)));
        assert_eq!((m.count, m.points[0].depth), (1, 0.0));
        assert!((m.normal - Vec2::new(-0.6, -0.8)).length() < 1e-6);
        assert_eq!(m.points[0].id, feature_id(0, 2));
    }

    #[test]
    fn shallow_face_and_corner() {
        let m = check(0.5, &at(Vec2::new(-2.25, 0.5)));
        assert_eq!(m.normal, Vec2::X);
        assert!((m.points[0].depth - 0.25).abs() < 1e-6);
        assert!((m.points[0].point - Vec2::new(0.375, 0.0)).length() < 1e-6);
        assert_eq!(m.points[0].id, feature_id(0, EDGE | 3));
        let m = check(1.0, &at(Vec2::new(2.3, -1.4)));
        assert!((m.points[0].depth - 0.5).abs() < 1e-6);
        assert!((m.normal - Vec2::new(-0.6, 0.8)).length() < 1e-6);
        assert_eq!(m.points[0].id, feature_id(0, 1));
    }

    #[test]
    fn centre_inside_uses_least_penetration_face() {
        // 0.5 from the right face, 0.75 from the top: out through the right face.
        let m = check(0.5, &at(Vec2::new(1.5, 0.25)));
        assert_eq!(m.normal, Vec2::NEG_X);
        assert_eq!(m.points[0].depth, 1.0);
        assert_eq!(m.points[0].id, feature_id(0, EDGE | 1));
        // A's deepest point (1.0, 0.25) and the face point (2, 0.25): midpoint 1.5, in A's frame.
        assert!((m.points[0].point - Vec2::ZERO).length() < 1e-6);
        // Centre exactly at the box centre: the nearer faces are the y ones, +y for c.y == 0.
        let m = check(0.5, &at(Vec2::ZERO));
        assert_eq!((m.normal, m.points[0].depth), (Vec2::NEG_Y, 1.5));
        // Centre on the boundary: depth r.
        let m = check(0.5, &at(Vec2::new(2.0, 0.0)));
        assert_eq!((m.normal, m.points[0].depth), (Vec2::NEG_X, 0.5));
    }

    #[test]
    fn rotated_box() {
        // The box turned a quarter: its long side is vertical; A sits 0.25 deep on its right.
        let xf = Pose::new(Vec2::new(-1.25, 0.0), std::f32::consts::FRAC_PI_2);
        let m = check(0.5, &xf);
        assert!((m.normal - Vec2::NEG_X).length() < 1e-6);
        assert!((m.points[0].depth - 0.25).abs() < 1e-6);
        assert!((m.points[0].point - Vec2::new(-0.375, 0.0)).length() < 1e-6);
    }

    #[test]
    fn matches_the_polygon_kernel_and_is_symmetric() {
        let ball = Shape::circle(0.7).unwrap();
        let bx = Shape::Cuboid(BOX);
        let poly = Shape::from(BOX.to_polygon());
        let pa = Pose::new(Vec2::new(1.0, 1.0), 0.2);
        for (x, y) in [(2.5, 1.2), (1.0, 1.5), (0.3, 0.2), (-1.5, 1.9), (3.0, 3.0)] {
            let pb = Pose::new(Vec2::new(x, y), 0.9);
            let m = contact(&ball, &pa, &bx, &pb).unwrap();
            let p = contact(&ball, &pa, &poly, &pb).unwrap();
            let n = contact(&bx, &pb, &ball, &pa).unwrap();
            assert_eq!(m.count, p.count);
            assert_eq!(m.count, n.count);
            if m.count > 0 {
                assert!((m.normal - p.normal).length() < 1e-5, "{m:?} {p:?}");
                assert!((m.points[0].depth - p.points[0].depth).abs() < 1e-5);
                assert!((m.points[0].point - p.points[0].point).length() < 1e-5);
                assert_eq!(m.points[0].id, p.points[0].id);
                assert_eq!(m.normal, -n.normal);
                assert_eq!(m.points[0].point, n.points[0].point);
            }
        }
    }
}
