//! Circle–circle. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::Circle;

pub fn manifold(_a: &Circle, _b: &Circle, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Circle, b: &Circle, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}
