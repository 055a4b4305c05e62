//! The systems of a frame (see `game.rs` for their order): the moving platforms, the player
//! through the character mover, and the sensors the player entered.

use hecs::Entity;
use sapwood::ecs::{ColliderHandle, entity as entity_of};
use sapwood::{CharacterConfig, CharacterHit, EventKind, Pose, Shape, Vec2, World};

use crate::components::{Hazard, MovingPlatform, OneWay, Pickup, Player};
use crate::game::{DT, Game, GameError, Input, standing_at};

/// Run speed, units per second, and how fast it is reached on the ground and in the air.
pub const RUN_SPEED: f32 = 6.0;
const GROUND_ACCEL: f32 = 60.0;
const AIR_ACCEL: f32 = 30.0;
/// Gravity and take-off speed: a jump rises v²/2g ≈ 2.6 units (2.5 with the fixed step).
pub const GRAVITY: f32 = 32.0;
pub const JUMP_SPEED: f32 = 13.0;
const MAX_FALL: f32 = 25.0;

/// Each platform's pose at `time`, eased at the ends of its track (so that the player has
/// time to step on and off), and its displacement since the last frame.
pub fn move_platforms(world: &mut hecs::World, time: f32) {
    for (pose, platform) in world.query_mut::<(&mut Pose, &mut MovingPlatform)>() {
        let phase = std::f32::consts::TAU * time / platform.period;
        let s = 0.5 - 0.5 * phase.cos();
        let p = platform.track.left.lerp(platform.track.right, s);
        platform.delta = p - pose.p;
        pose.p = p;
    }
}

/// Gravity and the input make a desired translation, the platform the player stands on adds
/// its own displacement, and the character mover takes the capsule as far as the world lets
/// it. The new pose goes to the world at once (and to the `Pose` component, so that the sync
/// finds nothing to do).
pub fn move_player(
    ecs: &mut hecs::World,
    world: &mut World,
    player: Entity,
    shape: &Shape,
    config: &CharacterConfig,
    input: Input,
    hits: &mut Vec<CharacterHit>,
) -> Result<(), GameError> {
    let Ok((pose, state, handle)) = ecs.query_one_mut::<(&Pose, &Player, &ColliderHandle)>(player) else {
        return Ok(());
    };
    let (pose, mut state, id) = (*pose, *state, handle.0);
    let carry = state.riding.and_then(|e| ecs.get::<&MovingPlatform>(e).ok().map(|m| m.delta)).unwrap_or(Vec2::ZERO);

    let mut v = state.velocity;
    let accel = if state.grounded { GROUND_ACCEL } else { AIR_ACCEL };
    v.x += (input.run.clamp(-1.0, 1.0) * RUN_SPEED - v.x).clamp(-accel * DT, accel * DT);
    if state.grounded {
        v.y = if input.jump { JUMP_SPEED } else { 0.0 };
    } else {
        v.y = (v.y - GRAVITY * DT).max(-MAX_FALL);
    }
    // Rising: no snapping back onto the ground just left.
    let rising = v.y > 0.0;
    let config = CharacterConfig {
        snap_to_ground: if rising { 0.0 } else { config.snap_to_ground },
        filter: sapwood::QueryFilter { exclude: Some(id), ..config.filter },
        ..*config
    };
    // Dropping through: the mover is told to ignore one-way platforms while the key is held.
    let one_way = |id| entity_of(world, id).is_some_and(|e| ecs.get::<&OneWay>(e).is_ok());
    let moved =
        world.move_character_with(shape, &pose, v * DT + carry, &config, hits, |id, _| !(input.drop && one_way(id)))?;

    state.grounded = moved.grounded && !rising;
    if state.grounded || (moved.hit_ceiling && v.y > 0.0) {
        v.y = 0.0;
    }
    state.velocity = v;
    let ground = moved.ground.filter(|_| state.grounded);
    state.ground_normal = ground.map_or(Vec2::ZERO, |g| g.surface_normal);
    state.ground = ground.and_then(|g| entity_of(world, g.id));
    state.riding = state.ground.filter(|&e| ecs.get::<&MovingPlatform>(e).is_ok());

    world.set_pose(id, moved.pose)?;
    if let Ok((pose, player_state)) = ecs.query_one_mut::<(&mut Pose, &mut Player)>(player) {
        *pose = moved.pose;
        *player_state = state;
    }
    Ok(())
}

/// Pickups the player entered are collected (despawned: the sync removes their colliders);
/// spikes send it back to the last checkpoint behind it.
pub fn touch_sensors(game: &mut Game) -> Result<(), GameError> {
    let player = game.player;
    game.entered.clear();
    for (a, b, kind) in game.sync.events(&game.world) {
        if kind == EventKind::SensorEntered && (a == player || b == player) {
            game.entered.push(if a == player { b } else { a });
        }
    }
    let mut hurt = false;
    for &e in &game.entered {
        if game.ecs.get::<&Pickup>(e).is_ok() {
            if game.ecs.despawn(e).is_ok() {
                game.stats.collected += 1;
            }
        } else if game.ecs.get::<&Hazard>(e).is_ok() {
            hurt = true;
        }
    }
    if hurt {
        let at = game.level.respawn_for(game.player_pose().p.x);
        let pose = standing_at(at);
        if let Ok(handle) = game.ecs.get::<&ColliderHandle>(player) {
            game.world.set_pose(handle.0, pose)?;
        }
        if let Ok((p, state)) = game.ecs.query_one_mut::<(&mut Pose, &mut Player)>(player) {
            *p = pose;
            *state = Player::default();
        }
        game.stats.deaths += 1;
    }
    Ok(())
}
