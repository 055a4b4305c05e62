//! The headless player. It knows only that the goal is to the right; it sees the course
//! through sapwood's ray casts and box queries, as a game's AI would, and decides each frame:
//!
//! - a wall ahead (a steep surface at knee height) → jump;
//! - no ground ahead → if spikes lie below, wait for a moving platform level with its feet to
//!   come close, or jump the gap when there is none; over a plain drop, walk off;
//! - riding a platform → walk to its front edge and wait there until solid ground is ahead.
//!
//! The one-way platform needs no rule of its own: the wall behind it is too high to clear
//! from the ground, so the first jump rises through the platform and lands on it, and the
//! second jump, from the platform, clears the wall.

use sapwood::ecs::entity as entity_of;
use sapwood::{Aabb, ColliderId, QueryFilter, Ray, Vec2, World};

use crate::components::{Hazard, MovingPlatform, category};
use crate::game::{Game, Input, PLAYER_HALF_HEIGHT, PLAYER_RADIUS};

/// How far below the feet the ground-ahead probes look for a floor.
const FLOOR_PROBE: f32 = 0.8;
/// How far ahead (from the centre) it looks for ground to walk onto, and for solid terrain
/// when deciding to leave a platform.
const STEP_AHEAD: f32 = 0.5;
const LEAVE_AHEAD: f32 = 1.2;
/// How far ahead a moving platform may be for it to be worth waiting for.
const WAIT_RANGE: f32 = 14.0;

/// What the probe straight down from a point found first.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Below {
    Nothing,
    Terrain,
    Platform,
    Spikes,
}

fn below(game: &Game, from: Vec2, depth: f32) -> Below {
    let filter = QueryFilter { mask: category::SOLID | category::HAZARD, include_sensors: true, exclude: None };
    let Some(hit) = game.world.ray_cast(&Ray::new(from, Vec2::NEG_Y), depth, &filter).unwrap() else {
        return Below::Nothing;
    };
    let Some(e) = entity_of(&game.world, hit.id) else { return Below::Terrain };
    if game.ecs.get::<&Hazard>(e).is_ok() {
        Below::Spikes
    } else if game.ecs.get::<&MovingPlatform>(e).is_ok() {
        Below::Platform
    } else {
        Below::Terrain
    }
}

/// A steep surface straight ahead at knee height, within a little of the capsule.
fn wall_ahead(world: &World, centre: Vec2) -> bool {
    let knee = centre + Vec2::new(0.0, 0.7 - PLAYER_HALF_HEIGHT);
    let filter = QueryFilter { mask: category::SOLID, include_sensors: false, exclude: None };
    world
        .ray_cast(&Ray::new(knee, Vec2::X), PLAYER_RADIUS + 0.3, &filter)
        .unwrap()
        .is_some_and(|hit| hit.surface_normal.y.abs() < 0.5)
}

/// A moving platform ahead whose top is level with `feet`.
fn platform_coming(world: &World, feet: Vec2, ids: &mut Vec<ColliderId>) -> bool {
    let filter = QueryFilter { mask: category::PLATFORM, include_sensors: false, exclude: None };
    let area = Aabb::from_points(feet + Vec2::new(0.0, -0.3), feet + Vec2::new(WAIT_RANGE, 0.3));
    ids.clear();
    world.query_aabb(&area, &filter, ids).unwrap();
    ids.iter().any(|&id| world.aabb(id).is_ok_and(|b| (b.max.y - feet.y).abs() < 0.2 && b.max.x > feet.x))
}

/// The input for this frame.
pub fn steer(game: &Game, ids: &mut Vec<ColliderId>) -> Input {
    let centre = game.player_pose().p;
    if centre.x >= game.level.goal_x {
        return Input::default();
    }
    let state = game.player_state();
    let feet = centre - Vec2::new(0.0, PLAYER_HALF_HEIGHT);
    let probe = |ahead: f32| below(game, feet + Vec2::new(ahead, 0.2), FLOOR_PROBE + 0.2);
    let run = Input { run: 1.0, ..Input::default() };
    let jump = Input { run: 1.0, jump: true, ..Input::default() };
    let wait = Input::default();
    if !state.grounded {
        return run;
    }
    if state.riding.is_some() {
        return match (probe(LEAVE_AHEAD), probe(STEP_AHEAD)) {
            (Below::Terrain, _) | (_, Below::Platform) => run,
            _ => wait,
        };
    }
    if wall_ahead(&game.world, centre) {
        return jump;
    }
    match probe(STEP_AHEAD) {
        Below::Terrain | Below::Platform => run,
        Below::Spikes => {
            if platform_coming(&game.world, feet, ids) {
                wait
            } else {
                jump
            }
        }
        // A drop: is there a floor within a fall of a few units?
        Below::Nothing => match below(game, feet + Vec2::new(STEP_AHEAD, 0.2), 8.0) {
            Below::Spikes if platform_coming(&game.world, feet, ids) => wait,
            Below::Spikes | Below::Nothing => jump,
            Below::Terrain | Below::Platform => run,
        },
    }
}
