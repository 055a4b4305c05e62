//! Capsule–capsule. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::Capsule;

pub fn manifold(_a: &Capsule, _b: &Capsule, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Capsule, b: &Capsule, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}
