//! `compounds`: bodies of two triangles each, stacked in a walled pit, as Box2D's
//! `CreateCompounds` builds them.

use super::Driver;
use super::api::{DYNAMIC, STATIC, body_def, hull_polygon, make_offset_box, shape_def, vec2};
use super::registry::Registry;
use boxdd_sys::ffi::b2Segment;

/// A floor of 81 tiles between walls of 100 tiles, a 1.6 km segment 80 m below; 20 columns of
/// 150 bodies (10 of 40 when small), each a left and a right triangle meeting at the top.
pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
    let ground = r.body(&body_def(STATIC, 0.0, 0.0));
    walled_floor(r, ground, 40.0, 81, 100);
    let segment = b2Segment { point1: vec2(-800.0, -80.0), point2: vec2(800.0, -80.0) };
    r.segment(ground, &shape_def(), &segment);

    let (columns, rows) = if small { (10, 40) } else { (20, 150) };
    let left = hull_polygon(&[vec2(-1.0, 0.0), vec2(0.5, 1.0), vec2(0.0, 2.0)], 0.0);
    let right = hull_polygon(&[vec2(1.0, 0.0), vec2(-0.5, 1.0), vec2(0.0, 2.0)], 0.0);
    let mut shape = shape_def();
    shape.density = 1.0;
    shape.material.friction = 0.5;
    let (shift, extra_y) = (2.0f32, 0.25f32);
    let mut side = 0.25f32;
    let centre_x = shift * columns as f32 / 2.0 - 1.0;
    let (centre_y, y_start) = (1.15f32 / 2.0, 5.0f32);
    for i in 0..columns {
        let x = i as f32 * shift - centre_x;
        for j in 0..rows {
            let y = j as f32 * (shift + extra_y) + centre_y + y_start;
            let body = r.body(&body_def(DYNAMIC, x + side, y));
            side = -side;
            r.polygon(body, &shape, &left);
            r.polygon(body, &shape, &right);
        }
    }
    Driver::Nothing
}

/// A floor of `floor` tiles of 1.1 × 1 m from `x = -half_width`, and two walls of `wall` tiles
/// of 1 × 1.1 m at `x = ±half_width` from `y = 1` up (junkyard's and compounds' pits).
pub(super) fn walled_floor(
    r: &mut Registry,
    ground: boxdd_sys::ffi::b2BodyId,
    half_width: f32,
    floor: usize,
    wall: usize,
) {
    let grid = 1.0f32;
    let shape = shape_def();
    let mut x = -half_width * grid;
    for _ in 0..floor {
        r.polygon(ground, &shape, &make_offset_box(0.55 * grid, 0.5 * grid, vec2(x, 0.0)));
        x += grid;
    }
    for wall_x in [-half_width * grid, half_width * grid] {
        let mut y = grid;
        for _ in 0..wall {
            r.polygon(ground, &shape, &make_offset_box(0.5 * grid, 0.55 * grid, vec2(wall_x, y)));
            y += grid;
        }
    }
}
