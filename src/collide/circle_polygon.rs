//! Circle–polygon. (stub: to be implemented)

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::{Circle, Polygon};

pub fn manifold(_a: &Circle, _b: &Polygon, _xf: &Pose) -> Manifold {
    todo!()
}

pub fn overlap(a: &Circle, b: &Polygon, xf: &Pose) -> bool {
    manifold(a, b, xf).count > 0
}
