//! The headless player: kites around the arena's centre, away from nearby enemies and walls.
//! It sees the world only through sapwood's queries, as a game's AI would.

use sapwood::{Aabb, ColliderId, Pose, QueryFilter, Shape, Vec2, World, collide};

use crate::components::category;
use crate::game::Input;

/// How far the autopilot looks for enemies (half-side of its query box).
const SIGHT: f32 = 30.0;
/// How far it keeps from walls (radius of its probe disc).
const WALL_PROBE: f32 = 10.0;
/// Radius of the orbit it follows around the centre, and the orbit's angular speed.
const ORBIT: f32 = 70.0;
const ORBIT_SPEED: f32 = 0.3;

/// The direction to go this frame.
pub fn steer(world: &World, player: Vec2, time: f32, ids: &mut Vec<ColliderId>) -> Input {
    // Follow a point moving round the centre...
    let a = time * ORBIT_SPEED;
    let goal = ORBIT * Vec2::new(a.cos(), 0.7 * a.sin());
    let mut dir = (goal - player).clamp_length_max(20.0) / 20.0;

    // ...away from enemies, more strongly the closer they are...
    let enemies = QueryFilter { mask: category::ENEMY, include_sensors: false, exclude: None };
    ids.clear();
    world.query_aabb(&Aabb::from_center_half_extents(player, Vec2::splat(SIGHT)), &enemies, ids).unwrap();
    let mut flee = Vec2::ZERO;
    for p in ids.iter().filter_map(|&id| world.pose(id).ok()) {
        let d = player - p.p;
        let l2 = d.length_squared().max(1.0);
        flee += d / l2;
    }

    // ...and away from walls it is about to touch; fleeing into a wall becomes sliding along it.
    let mut away = Vec2::ZERO;
    let walls = QueryFilter { mask: category::WALL, include_sensors: false, exclude: None };
    if let Ok(probe) = Shape::circle(WALL_PROBE) {
        let pose = Pose::from_translation(player);
        ids.clear();
        world.query_shape(&probe, &pose, &walls, ids).unwrap();
        for &id in ids.iter() {
            let (Ok(shape), Ok(wall_pose)) = (world.shape(id), world.pose(id)) else { continue };
            let m = collide::contact(&probe, &pose, shape, &wall_pose).unwrap();
            if let Some(depth) = m.max_depth() {
                away -= m.normal * (0.5 + depth / WALL_PROBE);
            }
        }
    }
    if let Some(w) = away.try_normalize() {
        let into = flee.dot(w);
        if into < 0.0 {
            flee -= into * w;
        }
    }
    dir += 6.0 * flee + 3.0 * away;
    Input { dir }
}
