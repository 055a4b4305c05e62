//! `large_pyramid` and `many_pyramids`: one-metre boxes stacked in pyramids, sleep off, as
//! Box2D's `CreateLargePyramid` and `CreateManyPyramids` build them.

use super::Driver;
use super::api::{DYNAMIC, STATIC, body_def, enable_sleeping, make_box, make_square, shape_def, vec2};
use super::registry::Registry;
use boxdd_sys::ffi::b2Segment;

/// One pyramid with a base of 100 boxes (20 when small) on a ground box 200 m wide.
pub(super) fn build_large(r: &mut Registry, small: bool) -> Driver {
    enable_sleeping(r.world, false);
    let base = if small { 20 } else { 100 };
    let ground = r.body(&body_def(STATIC, 0.0, -1.0));
    r.polygon(ground, &shape_def(), &make_box(100.0, 1.0));
    let mut shape = shape_def();
    shape.density = 1.0;
    let a = 0.5;
    let square = make_square(a);
    let shift = a;
    for i in 0..base {
        let y = (2.0 * i as f32 + 1.0) * shift;
        for j in i..base {
            let x = (i as f32 + 1.0) * shift + 2.0 * (j - i) as f32 * shift - a * base as f32;
            let body = r.body(&body_def(DYNAMIC, x, y));
            r.polygon(body, &shape, &square);
        }
    }
    Driver::Nothing
}

/// 20 × 20 pyramids of 55 boxes (5 × 5 when small), a row of them on each of as many floors,
/// each floor one segment of the ground body.
pub(super) fn build_many(r: &mut Registry, small: bool) -> Driver {
    enable_sleeping(r.world, false);
    let (base, extent) = (10, 0.5f32);
    let (rows, columns) = if small { (5, 5) } else { (20, 20) };
    let ground = r.body(&body_def(STATIC, 0.0, 0.0));
    let ground_dy = 2.0 * extent * (base as f32 + 1.0);
    let ground_width = 2.0 * extent * columns as f32 * (base as f32 + 1.0);
    let mut ground_y = 0.0;
    for _ in 0..rows {
        let segment =
            b2Segment { point1: vec2(-0.5 * ground_width, ground_y), point2: vec2(0.5 * ground_width, ground_y) };
        r.segment(ground, &shape_def(), &segment);
        ground_y += ground_dy;
    }
    let base_width = 2.0 * extent * base as f32;
    let mut base_y = 0.0;
    for _ in 0..rows {
        for j in 0..columns {
            let centre_x = -0.5 * ground_width + j as f32 * (base_width + 2.0 * extent) + 2.0 * extent;
            small_pyramid(r, base, extent, centre_x, base_y);
        }
        base_y += ground_dy;
    }
    Driver::Nothing
}

fn small_pyramid(r: &mut Registry, base: usize, extent: f32, centre_x: f32, base_y: f32) {
    let square = make_square(extent);
    for i in 0..base {
        let y = (2.0 * i as f32 + 1.0) * extent + base_y;
        for j in i..base {
            let x = (i as f32 + 1.0) * extent + 2.0 * (j - i) as f32 * extent + centre_x - 0.5;
            let body = r.body(&body_def(DYNAMIC, x, y));
            r.polygon(body, &shape_def(), &square);
        }
    }
}
