//! Phase (d): continuous collision, each moved bullet's earliest time of impact along its sweep.

use crate::math::{Aabb, Pose};
use crate::shape::Shape;

/// A box covering `shape` swept from `start` to `end` (the union of its tight boxes at both
/// poses; `tight_end` is the one at `end`). For a pure translation that union is exactly the
/// box of the swept area. A rotating shape can bulge out of it between the poses (a bar turning
/// a quarter turn sweeps its tip through the diagonal), so then the box also covers the disc of
/// the shape's reach around every point of the origin's path.
pub(super) fn sweep_box(shape: &Shape, start: &Pose, end: &Pose, tight_end: Aabb) -> Aabb {
    let ends = tight_end.union(&shape.aabb(start));
    if start.q == end.q {
        return ends;
    }
    let local = shape.aabb(&Pose::IDENTITY);
    let reach = local.min.abs().max(local.max.abs()).length();
    ends.union(&Aabb::from_points(start.p, end.p).fattened(reach))
}
