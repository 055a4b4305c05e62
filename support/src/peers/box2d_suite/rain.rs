//! `rain`: ragdolls falling in groups on floors of tiles, created and destroyed as the
//! benchmark runs, as Box2D's `CreateRain` and `StepRain` build and drive them.

use boxdd_sys::ffi::b2Vec2;

use super::Driver;
use super::api::{STATIC, body_def, make_offset_box, shape_def, vec2};
use super::human::Human;
use super::registry::Registry;

/// The benchmark's counts, or its debug build's.
#[derive(Clone, Copy)]
struct Counts {
    /// Floors, each with a row of groups above it.
    rows: usize,
    /// Groups in a row.
    columns: usize,
    /// Ragdolls in a group.
    group_size: usize,
    /// Tiles in a floor, less one.
    grid_count: usize,
    /// Groups are created on steps whose number has none of these bits.
    delay_mask: usize,
}

/// Tile size (half a metre) and the height between floors.
const GRID_SIZE: f32 = 0.5;
const FLOOR_HEIGHT: f32 = 45.0;

/// The scene's state: its groups (empty until created), how many columns are filled, and the
/// column replaced next.
pub(super) struct Rain {
    counts: Counts,
    groups: Vec<Vec<Human>>,
    column_count: usize,
    column_index: usize,
}

impl Rain {
    /// Five floors of 501 tiles 0.5 m wide, 45 m apart (three of 201 when small), on one static
    /// body; no ragdoll yet.
    pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
        let counts = if small {
            Counts { rows: 3, columns: 10, group_size: 2, grid_count: 200, delay_mask: 0x1f }
        } else {
            Counts { rows: 5, columns: 40, group_size: 5, grid_count: 500, delay_mask: 0x7 }
        };
        let ground = r.body(&body_def(STATIC, 0.0, 0.0));
        let mut y = 0.0;
        for _ in 0..counts.rows {
            let mut x = -0.5 * counts.grid_count as f32 * GRID_SIZE;
            for _ in 0..=counts.grid_count {
                r.polygon(ground, &shape_def(), &make_offset_box(0.5 * GRID_SIZE, 0.5 * GRID_SIZE, vec2(x, y)));
                x += GRID_SIZE;
            }
            y += FLOOR_HEIGHT;
        }
        let groups = (0..counts.rows * counts.columns).map(|_| Vec::new()).collect();
        Driver::Rain(Rain { counts, groups, column_count: 0, column_index: 0 })
    }

    /// `StepRain`: every `delay_mask + 1` steps a column of groups (one per floor) is created
    /// while columns remain empty; afterwards the oldest column is destroyed and created
    /// again.
    pub(super) fn step(&mut self, r: &mut Registry, step: usize) {
        if step & self.counts.delay_mask != 0 {
            return;
        }
        if self.column_count < self.counts.columns {
            for row in 0..self.counts.rows {
                self.create_group(r, row, self.column_count);
            }
            self.column_count += 1;
        } else {
            for row in 0..self.counts.rows {
                let column = self.column_index;
                for human in std::mem::take(&mut self.groups[row * self.counts.columns + column]) {
                    human.destroy(r);
                }
                self.create_group(r, row, column);
            }
            self.column_index = (self.column_index + 1) % self.counts.columns;
        }
    }

    /// A group of ragdolls 0.5 m apart, 40 m above its floor, centred in its column; ragdoll
    /// `i` of every group has group `-(i + 1)`.
    fn create_group(&mut self, r: &mut Registry, row: usize, column: usize) {
        let c = self.counts;
        let span = c.grid_count as f32 * GRID_SIZE;
        let distance = 1.0 * span / c.columns as f32;
        let mut position: b2Vec2 =
            vec2(-0.5 * span + distance * (column as f32 + 0.5), 40.0 + FLOOR_HEIGHT * row as f32);
        let group = &mut self.groups[row * c.columns + column];
        for i in 0..c.group_size {
            group.push(Human::create(r, position, i as i32 + 1));
            position.x += 0.5;
        }
    }
}
