//! Circle–capsule. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::{Capsule, Circle};

pub fn manifold(_a: &Circle, _b: &Capsule, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Circle, b: &Capsule, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}
