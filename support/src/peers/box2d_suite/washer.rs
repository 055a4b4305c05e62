//! `washer`: small boxes in a turning ring, as Box2D's `CreateWasher` builds it (its kinematic
//! variant, the one the benchmark runs).

use std::f32::consts::PI;

use boxdd_sys::ffi::b2Rot;

use super::Driver;
use super::api::{
    DYNAMIC, KINEMATIC, STATIC, body_def, hull_polygon, inv_rotate, make_square, rotate, scale, shape_def, vec2,
};
use super::registry::Registry;

/// A kinematic ring at `(0, 10)` turning at 25°/s (and drifting by a millimetre a second): 36
/// blocks between radii 16 and 18 with gaps between them, and 4 paddles between 14 and 16;
/// inside it 90 × 90 boxes of 0.2 m (20 × 20 when small) with hit events on.
pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
    r.body(&body_def(STATIC, 0.0, 0.0));
    let mut def = body_def(KINEMATIC, 0.0, 10.0);
    def.angularVelocity = (PI / 180.0) * 25.0;
    def.linearVelocity = vec2(0.001, -0.002);
    let ring = r.body(&def);
    let (r0, r1, r2) = (14.0, 16.0, 18.0);
    let angle = PI / 18.0;
    let q = b2Rot { c: angle.cos(), s: angle.sin() };
    let qo = b2Rot { c: (0.1 * angle).cos(), s: (0.1 * angle).sin() };
    let mut u1 = vec2(1.0, 0.0);
    for i in 0..36 {
        let u2 = if i == 35 { vec2(1.0, 0.0) } else { rotate(q, u1) };
        let (a1, a2) = (inv_rotate(qo, u1), rotate(qo, u2));
        let block = [scale(r1, a1), scale(r2, a1), scale(r1, a2), scale(r2, a2)];
        r.polygon(ring, &shape_def(), &hull_polygon(&block, 0.0));
        if i % 9 == 0 {
            let paddle = [scale(r0, u1), scale(r1, u1), scale(r0, u2), scale(r1, u2)];
            r.polygon(ring, &shape_def(), &hull_polygon(&paddle, 0.0));
        }
        u1 = u2;
    }

    let (grid, a) = (if small { 20 } else { 90 }, 0.1f32);
    let square = make_square(a);
    let mut shape = shape_def();
    shape.enableHitEvents = true;
    let mut y = -1.1 * a * grid as f32 + 10.0;
    for _ in 0..grid {
        let mut x = -1.1 * a * grid as f32;
        for _ in 0..grid {
            let body = r.body(&body_def(DYNAMIC, x, y));
            r.polygon(body, &shape, &square);
            x += 2.1 * a;
        }
        y += 2.1 * a;
    }
    Driver::Nothing
}
