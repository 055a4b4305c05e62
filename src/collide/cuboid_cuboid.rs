//! Box–box. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::Cuboid;

pub fn manifold(_a: &Cuboid, _b: &Cuboid, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Cuboid, b: &Cuboid, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}
