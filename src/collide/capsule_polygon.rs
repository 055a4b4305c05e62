//! Capsule–polygon. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::{Capsule, Polygon};

pub fn manifold(_a: &Capsule, _b: &Polygon, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Capsule, b: &Polygon, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}

pub fn manifold_cuboid(a: &Capsule, b: &crate::shape::Cuboid, xf: &Pose) -> Manifold {
    manifold(a, &b.to_polygon(), xf)
}

pub fn overlap_cuboid(a: &Capsule, b: &crate::shape::Cuboid, xf: &Pose) -> bool {
    overlap(a, &b.to_polygon(), xf)
}
