//! `junkyard`: pentagons dropped in a walled pit and shoved about by a kinematic pusher, as
//! Box2D's `CreateJunkyard` and `StepJunkyard` build and drive them.

use std::f32::consts::PI;

use boxdd_sys::ffi::{b2Body_SetTargetTransform, b2BodyId, b2Transform};

use super::Driver;
use super::api::{
    DYNAMIC, KINEMATIC, ROT_IDENTITY, STATIC, body_def, cos_sin, hull_polygon, make_offset_box, shape_def, vec2,
};
use super::compounds::walled_floor;
use super::registry::Registry;

/// Box2D's time step, which the pusher's path is written in.
const TIME_STEP: f32 = 1.0 / 60.0;

/// A floor of 161 tiles between walls of 50; 200 columns of 40 pentagons of radius 0.25 (2
/// rows when small) from 15 m up; a kinematic 4 × 8 m pusher.
pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
    let ground = r.body(&body_def(STATIC, 0.0, 0.0));
    walled_floor(r, ground, 80.0, 161, 50);

    let (columns, rows) = (200, if small { 2 } else { 40 });
    let radius = 0.25f32;
    // Box2D's "Fibonacci sphere": five points at multiples of the golden angle.
    let phi = PI * (5.0f32.sqrt() - 1.0);
    let points: Vec<_> = (0..5)
        .map(|i| {
            let (c, s) = cos_sin(phi * i as f32);
            vec2(radius * c, radius * s)
        })
        .collect();
    let pentagon = hull_polygon(&points, 0.0);
    let (mut side, y_start) = (-0.1f32, 15.0f32);
    for i in 0..columns {
        let x = 1.5 * (2.0 * i as f32 - columns as f32) * radius;
        for j in 0..rows {
            let y = 4.0 * j as f32 * radius + y_start;
            let body = r.body(&body_def(DYNAMIC, x + side, y));
            side = -side;
            r.polygon(body, &shape_def(), &pentagon);
        }
    }

    let pusher = r.body(&body_def(KINEMATIC, 0.0, 0.0));
    r.polygon(pusher, &shape_def(), &make_offset_box(2.0, 4.0, vec2(0.0, 4.0)));
    // Box2D never pairs a kinematic body with a static one: the pusher slides through the floor.
    r.keep_apart(ground, pusher);
    Driver::Junkyard(pusher)
}

/// The pusher's target for step `step`: `x = 60 sin(0.2 t)` on the floor, reached in one step.
pub(super) fn step(pusher: b2BodyId, step: usize) {
    let time = TIME_STEP * step as f32;
    let (_, sine) = cos_sin(0.2 * time);
    let target = b2Transform { p: vec2(60.0 * sine, 0.0), q: ROT_IDENTITY };
    // SAFETY: the scene's live kinematic body, between steps.
    unsafe { b2Body_SetTargetTransform(pusher, target, TIME_STEP, true) };
}
