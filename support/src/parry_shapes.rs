//! sapwood shapes and poses as parry2d's, for the oracle tests and the narrow bench.

use parry2d::math as pm;
use parry2d::shape as ps;
use sapwood::{Pose, Shape, Vec2};

fn pv(p: Vec2) -> pm::Vector {
    pm::Vector::new(p.x, p.y)
}

/// The same pose in parry's types.
pub fn parry_pose(p: &Pose) -> pm::Pose {
    pm::Pose::from_parts(pv(p.p), pm::Rotation::from_cos_sin_unchecked(p.q.c, p.q.s))
}

/// The same shape in parry's types: a rounded polygon as a `RoundShape`, a compound part by part,
/// a segment as a segment or (rounded) a capsule, a chain as a polyline (parry's has no ghosts).
pub fn to_parry(shape: &Shape) -> ps::SharedShape {
    match shape {
        Shape::Circle(c) => ps::SharedShape::ball(c.radius),
        Shape::Capsule(c) => ps::SharedShape::capsule(pv(c.a), pv(c.b), c.radius),
        Shape::Segment(s) if s.radius > 0.0 => ps::SharedShape::capsule(pv(s.a), pv(s.b), s.radius),
        Shape::Segment(s) => ps::SharedShape::segment(pv(s.a), pv(s.b)),
        Shape::Cuboid(b) => ps::SharedShape::cuboid(b.half_extents.x, b.half_extents.y),
        Shape::Polygon(p) => {
            let vs: Vec<pm::Vector> = p.vertices().iter().map(|x| pv(*x)).collect();
            let poly = ps::ConvexPolygon::from_convex_polyline_unmodified(vs)
                .expect("sapwood polygons are valid parry polygons");
            if p.radius() > 0.0 {
                ps::SharedShape::new(ps::RoundShape { inner_shape: poly, border_radius: p.radius() })
            } else {
                ps::SharedShape::new(poly)
            }
        }
        Shape::Compound(c) => ps::SharedShape::new(ps::Compound::new(
            c.parts().iter().map(|(p, s)| (parry_pose(p), to_parry(s))).collect(),
        )),
        Shape::Chain(c) => {
            let n = c.vertices().len() as u32;
            let segments = c.segment_count() as u32;
            let indices = (0..segments).map(|i| [i, (i + 1) % n]).collect();
            ps::SharedShape::polyline(c.vertices().iter().map(|v| pv(*v)).collect(), Some(indices))
        }
    }
}
