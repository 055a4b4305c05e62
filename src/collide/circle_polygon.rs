//! Circle–polygon, for sharp and rounded polygons: the Voronoi regions of the core polygon.
//!
//! The rounded polygon is the core polygon grown by `radius`, so the circle touches it when its
//! centre is within `ra + rb` of the core. The region test follows Box2D's
//! `b2CollidePolygonAndCircle`: the edge of maximum separation decides everything.
//! - Separation above `ra + rb`: separated (the distance to a convex polygon is at least the
//!   separation from any of its edge lines).
//! - Separation `<= 0`: the centre is inside the core; the minimum translation leaves through the
//!   face of least penetration, which is the same edge.
//! - Otherwise the closest core point is on that edge or one of its two end vertices: for a
//!   centre outside, every other edge line is strictly nearer (convexity), so no further search
//!   is needed.

use glam::Vec2;

use super::reuse::{Witness, features, tag};
use crate::collide::{EDGE, Manifold, feature_id};
use crate::math::Pose;
use crate::query::{EdgeRegion, edge_region, max_separation, within};
use crate::shape::{Circle, Polygon};

/// The contact of circle A (centred on A's origin) and polygon B (rounded or not), in A's frame.
/// The depth is the exact minimum translation distance in every region.
#[must_use]
pub fn manifold(a: &Circle, b: &Polygon, xf: &Pose) -> Manifold {
    // A's centre in B's frame.
    let c = xf.inv_transform_point(Vec2::ZERO);
    let found = max_separation(b, c);
    from_face(a, b, xf, c, found.edge, found.separation)
}

/// [`manifold`] through a [`Witness`] (see [`super::reuse`]): the edge of maximum separation is
/// taken from it while it provably holds at `xf`, and only its separation is computed, as the
/// search computes it; the regions that follow are decided again.
#[inline]
pub(crate) fn manifold_reusing(a: &Circle, b: &Polygon, xf: &Pose, w: &mut Witness) -> Manifold {
    let c = xf.inv_transform_point(Vec2::ZERO);
    if let Some(i) = w.reusable(xf, tag::CIRCLE_POLYGON) {
        let i = i as usize;
        w.mark_reused();
        return from_face(a, b, xf, c, i, b.normals[i].dot(c - b.vertices[i]));
    }
    let found = max_separation(b, c);
    // Each separation moves by as much as A's centre in B's frame, at most the motion measure
    // with lever arm the offset (see `super::reuse`); the vertices' size is added for the share
    // kept against rounding. Both sides of the comparison move.
    let reach = xf.p.x.abs() + xf.p.y.abs() + found.extent;
    let (i, s) = (found.edge, found.separation);
    w.record(xf, 0.5 * (s - found.runner_up), reach, features(tag::CIRCLE_POLYGON, i as u32));
    from_face(a, b, xf, c, i, s)
}

/// The manifold from edge `i` of maximum separation `s`, A's centre at `c` in B's frame.
#[inline]
fn from_face(a: &Circle, b: &Polygon, xf: &Pose, c: Vec2, i: usize, s: f32) -> Manifold {
    let ra = a.radius;
    let rb = b.radius;
    let r = ra + rb;
    if s > r {
        return Manifold::EMPTY;
    }
    let count = b.count();
    let j = if i + 1 == count { 0 } else { i + 1 };
    let (v1, v2) = (b.vertices[i], b.vertices[j]);
    let face = |s: f32| {
        // Out through face i: B moves against its outward normal. Covers the centre inside the
        // core (s <= 0) as well as beside the edge.
        let ni = b.normals[i];
        let surface_b = c + (rb - s) * ni;
        (-ni, r - s, surface_b, EDGE | i as u16)
    };
    let vertex = |v: Vec2, index: usize, ni: Vec2| {
        let delta = v - c; // A -> B
        let d2 = delta.length_squared();
        if d2 > r * r {
            return None;
        }
        let dist = d2.sqrt();
        // dist >= s > 0 in exact arithmetic; the face normal guards an underflowed square.
        let n = if dist > 0.0 { delta / dist } else { -ni };
        Some((n, r - dist, v - rb * n, index as u16))
    };
    let found = if s <= 0.0 {
        Some(face(s))
    } else {
        match edge_region(v1, v2, c) {
            EdgeRegion::Start => vertex(v1, i, b.normals[i]),
            EdgeRegion::End => vertex(v2, j, b.normals[i]),
            EdgeRegion::Face => Some(face(s)),
        }
    };
    let Some((n, depth, surface_b, fb)) = found else {
        return Manifold::EMPTY;
    };
    // Midpoint between A's surface point `c + ra n` and B's, moved into A's frame.
    let local_point = 0.5 * (c + ra * n + surface_b);
    Manifold::one_point(xf.transform_vector(n), xf.transform_point(local_point), depth, feature_id(0, fb))
}

/// Whether the circle and polygon touch: the same region test as [`manifold`] without `sqrt`.
#[inline]
#[must_use]
pub fn overlap(a: &Circle, b: &Polygon, xf: &Pose) -> bool {
    within(b, xf.inv_transform_point(Vec2::ZERO), a.radius + b.radius)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::contact;
    use crate::shape::Shape;

    fn check(r: f32, poly: &Polygon, xf: &Pose) -> Manifold {
        let a = Circle { radius: r };
        let m = manifold(&a, poly, xf);
        assert_eq!(overlap(&a, poly, xf), m.count > 0);
        if m.count > 0 {
            assert!((m.normal.length() - 1.0).abs() < 1e-6);
            assert!(m.points[0].depth >= 0.0);
            assert!(m.points[0].point.is_finite());
        }
        m
    }

    /// A's centre at `c` in B's frame, B unrotated.
    fn at(c: Vec2) -> Pose {
        Pose::from_translation(-c)
    }

    fn triangle() -> Polygon {
        // Right triangle (0,0), (4,0), (0,3): hypotenuse normal (0.6, 0.8), 5 long.
        Polygon::hull(&[Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(0.0, 3.0)], 0.0).unwrap()
    }

    #[test]
    fn separated() {
        let t = triangle();
        assert_eq!(check(0.5, &t, &at(Vec2::new(2.0, -0.5001))).count, 0);
        assert_eq!(check(0.5, &t, &at(Vec2::new(4.4, -0.4))).count, 0); // vertex region, 0.566 away
        let rb = Polygon::rounded_box(Vec2::ONE, 0.5).unwrap();
        // Beyond the rounded corner though inside the corner's square.
        assert_eq!(check(0.25, &rb, &at(Vec2::new(1.6, 1.6))).count, 0);
    }

    #[test]
    fn exactly_touching_face_and_vertex() {
        let t = triangle();
        let m = check(0.5, &t, &at(Vec2::new(2.0, -0.5)));
        assert_eq!((m.count, m.points[0].depth, m.normal), (1, 0.0, Vec2::Y));
        assert_eq!(m.points[0].point, Vec2::new(0.0, 0.5));
        // Edge 0 of the hull starts at (0, 0): check by the normal rather than the index.
        let fb = (m.points[0].id & 0xffff) as u16;
        assert!(fb & EDGE != 0 && t.normals()[(fb & !EDGE) as usize] == Vec2::NEG_Y);
        // Vertex (4, 0) from the lower right, 3-4-5.
        let m = check(5.0, &t, &at(Vec2::new(7.0, -4.0)));
        assert_eq!((m.count, m.points[0].depth), (1, 0.0));
        assert!((m.normal - Vec2::new(-0.6, 0.8)).length() < 1e-6);
        assert_eq!(t.vertices()[(m.points[0].id & 0xffff) as usize], Vec2::new(4.0, 0.0));
    }

    #[test]
    fn shallow_hypotenuse() {
        let t = triangle();
        // 0.25 beyond the hypotenuse from its midpoint (2, 1.5), radius 0.5.
        let c = Vec2::new(2.0, 1.5) + 0.25 * Vec2::new(0.6, 0.8);
        let m = check(0.5, &t, &at(c));
        assert!((m.normal - Vec2::new(-0.6, -0.8)).length() < 1e-6);
        assert!((m.points[0].depth - 0.25).abs() < 1e-6);
    }

    #[test]
    fn deep_inside_uses_least_penetration_face() {
        let t = triangle();
        // (0.5, 1.0): 0.5 from the left edge, 1.0 from the bottom, 1.3 from the hypotenuse.
        let m = check(0.25, &t, &at(Vec2::new(0.5, 1.0)));
        assert!((m.normal - Vec2::X).length() < 1e-6);
        assert!((m.points[0].depth - 0.75).abs() < 1e-6);
        // A's deepest point (0.75, 1) and the face point (0, 1): midpoint in A's frame.
        assert!((m.points[0].point - Vec2::new(-0.125, 0.0)).length() < 1e-6);
    }

    #[test]
    fn rounded_polygon_face_corner_and_deep() {
        let rb = Polygon::rounded_box(Vec2::ONE, 0.5).unwrap();
        // Touching the rounded face: centre 1.0 + 0.5 + 0.5 from the middle.
        let m = check(0.5, &rb, &at(Vec2::new(2.0, 0.25)));
        assert_eq!((m.count, m.points[0].depth, m.normal), (1, 0.0, Vec2::NEG_X));
        assert_eq!(m.points[0].point, Vec2::new(-0.5, 0.0));
        // Touching the rounded corner: the centre 0.625 = 0.125 + 0.5 from core vertex (1, 1)
        // along (0.6, 0.8), every coordinate exact in f32.
        let m = check(0.125, &rb, &at(Vec2::new(1.375, 1.5)));
        assert_eq!((m.count, m.points[0].depth), (1, 0.0));
        assert!((m.normal - Vec2::new(-0.6, -0.8)).length() < 1e-6);
        assert!((m.points[0].point - Vec2::new(-0.075, -0.1)).length() < 1e-6);
        assert_eq!(m.points[0].id & 0xffff, 2); // core vertex (1, 1)
        // Shallow at the corner: 0.2 deep.
        let m = check(0.5, &rb, &at(Vec2::new(1.48, 1.64)));
        assert!((m.points[0].depth - 0.2).abs() < 1e-5);
        // Deep: centre inside the core, 0.25 from the right face -> depth 0.5 + 0.5 + 0.25.
        let m = check(0.5, &rb, &at(Vec2::new(0.75, 0.1)));
        assert_eq!(m.normal, Vec2::NEG_X);
        assert!((m.points[0].depth - 1.25).abs() < 1e-6);
        // Centre in the rounded band beside the face (outside the core): depth R - s.
        let m = check(0.5, &rb, &at(Vec2::new(0.1, -1.3)));
        assert_eq!(m.normal, Vec2::Y);
        assert!((m.points[0].depth - 0.7).abs() < 1e-6);
    }

    #[test]
    fn rotated_polygon() {
        // B turned a half turn; A's centre lands at (2, 0.25) in B's frame, inside the triangle
        // 0.25 above its bottom edge (2 from the left edge, 1 from the hypotenuse).
        let t = triangle();
        let xf = Pose::new(Vec2::new(2.0, 0.25), std::f32::consts::PI);
        assert!((xf.inv_transform_point(Vec2::ZERO) - Vec2::new(2.0, 0.25)).length() < 1e-5);
        let m = check(0.5, &t, &xf);
        assert_eq!(m.count, 1);
        // Out through the bottom: +y in B's frame, -y in A's after the half turn.
        assert!((m.points[0].depth - 0.75).abs() < 1e-5);
        assert!((m.normal - Vec2::NEG_Y).length() < 1e-5);
    }

    #[test]
    fn symmetric_through_contact() {
        let ball = Shape::circle(0.6).unwrap();
        let poly =
            Shape::polygon(&[Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::new(2.5, 1.5), Vec2::new(0.3, 1.2)], 0.1).unwrap();
        let pb = Pose::new(Vec2::new(-1.0, 0.5), 0.7);
        for k in 0..40 {
            let a = k as f32 * 0.37;
            let pa = Pose::new(pb.p + Vec2::new(1.0, 0.6) + 1.6 * Vec2::from_angle(a), a);
            let m = contact(&ball, &pa, &poly, &pb).unwrap();
            let n = contact(&poly, &pb, &ball, &pa).unwrap();
            assert_eq!(m.count, n.count);
            if m.count > 0 {
                assert_eq!(m.normal, -n.normal);
                assert_eq!(m.points[0].point, n.points[0].point);
                assert_eq!(m.points[0].depth, n.points[0].depth);
            }
        }
    }

    /// Reuse is exact (see `test_util::reuse_walks`) for circles against sharp and rounded
    /// polygons, some far from their own origin, and resting motions mostly reuse.
    #[test]
    fn reuse_gives_the_full_kernels_manifold_bit_for_bit() {
        use crate::collide::test_util::{random_polygon, reuse_walks, scaled};
        let (reused, evaluated) = reuse_walks(0x5eed_00a4, 400, |rng, scale| {
            let a = Shape::circle(rng.range(0.05, 2.0)).unwrap();
            let offset = if rng.below(3) == 0 { Vec2::new(rng.range(-50.0, 50.0), 30.0) } else { Vec2::ZERO };
            (scaled(&a, scale, Vec2::ZERO), scaled(&random_polygon(rng, 0.4), scale, offset))
        });
        assert!(reused * 10 > evaluated * 7, "{reused} of {evaluated}");
    }

    #[test]
    fn random_pairs_match_the_oracle() {
        use crate::collide::capsule_capsule::mtd_oracle;
        let mut rng = crate::internal::SplitMix64::new(0x9e37_79b9);
        let mut rnd = move || rng.next_f32();
        let mut touching = 0;
        for _ in 0..2000 {
            let pts: Vec<Vec2> = (0..6).map(|_| Vec2::new(rnd() * 4.0 - 2.0, rnd() * 3.0 - 1.5)).collect();
            let radius = if rnd() < 0.5 { 0.0 } else { rnd() * 0.6 };
            let Ok(poly) = Polygon::hull(&pts, radius) else { continue };
            let ra = 0.05 + rnd() * 1.5;
            let xf = Pose::new(Vec2::new(rnd() * 6.0 - 3.0, rnd() * 6.0 - 3.0), rnd() * 6.3);
            let m = check(ra, &poly, &xf);
            let hb = |u: Vec2| {
                poly.vertices().iter().map(|v| u.dot(xf.transform_point(*v))).fold(f32::MIN, f32::max) + radius
            };
            let (depth, _) = mtd_oracle(|_| ra, hb);
            if m.count > 0 {
                touching += 1;
                assert!((m.points[0].depth - depth).abs() < 2e-4, "{m:?} vs {depth}");
                assert!((ra + hb(-m.normal) - m.points[0].depth).abs() < 2e-4);
            } else {
                assert!(depth < 1e-4);
            }
        }
        assert!(touching > 400, "{touching}");
    }
}
