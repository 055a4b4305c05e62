//! `tumbler`: small boxes in a square drum that a motor turns, as Box2D's `CreateTumbler`
//! builds it.

use std::f32::consts::PI;

use super::Driver;
use super::api::{DYNAMIC, STATIC, body_def, make_box, make_offset_box, revolute_def, revolute_joint, shape_def, vec2};
use super::registry::Registry;

/// A drum of four walls (one dynamic body of density 50, hinged to a ground body without
/// shapes, turned at 25°/s) around 45 × 45 boxes of 0.25 m (20 × 20 when small).
pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
    let ground = r.body(&body_def(STATIC, 0.0, 0.0));
    let drum = r.body(&body_def(DYNAMIC, 0.0, 10.0));
    let mut shape = shape_def();
    shape.density = 50.0;
    for (hx, hy, x, y) in
        [(0.5, 10.0, 10.0, 0.0), (0.5, 10.0, -10.0, 0.0), (10.0, 0.5, 0.0, 10.0), (10.0, 0.5, 0.0, -10.0)]
    {
        r.polygon(drum, &shape, &make_offset_box(hx, hy, vec2(x, y)));
    }
    let mut joint = revolute_def();
    joint.base.bodyIdA = ground;
    joint.base.bodyIdB = drum;
    joint.base.localFrameA.p = vec2(0.0, 10.0);
    joint.base.localFrameB.p = vec2(0.0, 0.0);
    joint.motorSpeed = (PI / 180.0) * 25.0;
    joint.maxMotorTorque = 1e8;
    joint.enableMotor = true;
    revolute_joint(r.world, &joint);

    let grid = if small { 20 } else { 45 };
    let square = make_box(0.125, 0.125);
    let mut y = -0.2 * grid as f32 + 10.0;
    for _ in 0..grid {
        let mut x = -0.2 * grid as f32;
        for _ in 0..grid {
            let body = r.body(&body_def(DYNAMIC, x, y));
            r.polygon(body, &shape_def(), &square);
            x += 0.4;
        }
        y += 0.4;
    }
    Driver::Nothing
}
