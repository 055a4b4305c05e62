//! `smash`: a heavy box at 40 m/s into a sleeping block of small boxes, without gravity, as
//! Box2D's `CreateSmash` builds it.

use super::Driver;
use super::api::{DYNAMIC, body_def, make_box, make_square, set_gravity, shape_def, vec2};
use super::registry::Registry;

/// A 8 m box of density 8 and a block of 120 × 80 boxes of 0.4 m (20 × 10 when small), created
/// asleep, side by side.
pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
    set_gravity(r.world, vec2(0.0, 0.0));
    let mut def = body_def(DYNAMIC, -20.0, 0.0);
    def.linearVelocity = vec2(40.0, 0.0);
    let hammer = r.body(&def);
    let mut shape = shape_def();
    shape.density = 8.0;
    r.polygon(hammer, &shape, &make_box(4.0, 4.0));

    let d = 0.4f32;
    let square = make_square(0.5 * d);
    let mut def = body_def(DYNAMIC, 0.0, 0.0);
    def.isAwake = false;
    let (columns, rows) = if small { (20, 10) } else { (120, 80) };
    for i in 0..columns {
        for j in 0..rows {
            def.position = vec2(i as f32 * d + 30.0, (j as f32 - rows as f32 / 2.0) * d);
            let body = r.body(&def);
            r.polygon(body, &shape_def(), &square);
        }
    }
    Driver::Nothing
}
