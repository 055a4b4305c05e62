//! Polygon–polygon. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::Polygon;

pub fn manifold(_a: &Polygon, _b: &Polygon, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Polygon, b: &Polygon, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}

pub fn manifold_cuboid(a: &crate::shape::Cuboid, b: &Polygon, xf: &Pose) -> Manifold {
    manifold(&a.to_polygon(), b, xf)
}

pub fn overlap_cuboid(a: &crate::shape::Cuboid, b: &Polygon, xf: &Pose) -> bool {
    overlap(&a.to_polygon(), b, xf)
}
