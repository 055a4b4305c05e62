//! Circle–box. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::{Circle, Cuboid};

pub fn manifold(_a: &Circle, _b: &Cuboid, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Circle, b: &Cuboid, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}
