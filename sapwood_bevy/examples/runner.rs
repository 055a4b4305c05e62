//! A small game on the plugin: a runner crosses a level of welded floor tiles, jumping now and
//! then, collects coins (sensors), and stops at the far wall; a turret's fast shots (bullets)
//! are stopped by that wall, however thin, through their impacts.
//!
//! Headless: this crate depends on no renderer, so the game runs without a window and prints
//! its score. A game with `bevy`'s `DefaultPlugins` adds the same systems (and the `gizmos`
//! feature's `SapwoodGizmosPlugin` to see the colliders).
//!
//! ```text
//! cargo run --release -p sapwood_bevy --example runner
//! ```

use std::time::Duration;

use bevy_app::{App, FixedPostUpdate, FixedUpdate, Startup};
use bevy_ecs::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::Transform;
use sapwood::{CharacterConfig, Shape, Vec2};
use sapwood_bevy::{
    Bullet, BulletImpact, CharacterContact, Collider, SapwoodPlugin, SapwoodSystems, Sensor, SensorEntered,
    SpatialFilter, SpatialQuery, Static, pose_from_transform,
};

/// The fixed step: Bevy's default fixed rate, 64 Hz.
const DT: f32 = 1.0 / 64.0;
const GRAVITY: f32 = -30.0;
const RUN_SPEED: f32 = 6.0;
const JUMP_SPEED: f32 = 11.0;
/// The far wall's face: nothing may pass it.
pub const WALL_X: f32 = 40.0;
/// Where the coins are: on the ground between the jumps (one every 96 steps, from x = 9, each
/// 4.5 long), and one at the top of the second jump.
pub const COINS: [(f32, f32); 7] =
    [(4.0, 1.0), (6.0, 1.0), (15.0, 1.0), (16.5, 1.0), (20.25, 3.2), (24.0, 1.0), (25.5, 1.0)];

/// The runner.
#[derive(Component, Default)]
pub struct Runner {
    /// Vertical speed.
    pub vy: f32,
    /// On the ground after its last move.
    pub grounded: bool,
    /// Fixed steps since it started.
    pub steps: u32,
}

/// A coin to collect.
#[derive(Component)]
pub struct Coin;

/// A turret's shot, flying right.
#[derive(Component)]
pub struct Shot;

/// What happened so far.
#[derive(Resource, Default, Debug)]
pub struct Score {
    /// Coins collected.
    pub coins: u32,
    /// Shots the far wall stopped.
    pub shots_stopped: u32,
    /// Shots fired.
    pub shots_fired: u32,
}

/// Builds the game: plugins, level, systems. The caller adds whatever runs the fixed
/// schedules (here `TimePlugin` with a fixed frame time).
pub fn build(app: &mut App) {
    app.add_plugins((TransformPlugin, SapwoodPlugin::default()))
        .init_resource::<Score>()
        .add_systems(Startup, spawn_level)
        .add_systems(FixedUpdate, (run, fire, fly))
        .add_systems(FixedPostUpdate, (collect, stop_shots).after(SapwoodSystems::Messages));
}

fn tile(half: Vec2, x: f32, y: f32) -> (Collider, Static, Transform) {
    (Collider(Shape::cuboid(half).expect("a valid box")), Static, Transform::from_xyz(x, y, 0.0))
}

fn spawn_level(mut commands: Commands) {
    // A floor of 2-wide tiles: welded into one surface, the runner never snags on a seam.
    for k in 0..22 {
        commands.spawn(tile(Vec2::new(1.0, 0.5), 2.0 * k as f32 - 1.0, -0.5));
    }
    // The far wall, thin: only a bullet's swept motion catches the shots.
    commands.spawn(tile(Vec2::new(0.05, 10.0), WALL_X + 0.05, 10.0));
    for (x, y) in COINS {
        commands.spawn((
            Collider(Shape::circle(0.3).expect("a valid circle")),
            Sensor,
            Coin,
            Transform::from_xyz(x, y, 0.0),
        ));
    }
    let body = Shape::capsule(Vec2::new(0.0, -0.4), Vec2::new(0.0, 0.4), 0.4).expect("a valid capsule");
    commands.spawn((Collider(body), Runner::default(), Transform::from_xyz(0.0, 0.81, 0.0)));
}

/// Runs right with gravity, jumping every second and a half, sliding along what it meets.
fn run(mut runners: Query<(Entity, &Collider, &mut Transform, &mut Runner)>, spatial: SpatialQuery) {
    let mut hits: Vec<CharacterContact> = Vec::new();
    for (entity, collider, mut transform, mut runner) in &mut runners {
        runner.steps += 1;
        if runner.grounded && runner.steps.is_multiple_of(96) {
            runner.vy = JUMP_SPEED;
        }
        runner.vy += GRAVITY * DT;
        let Ok((pose, _)) = pose_from_transform(&(*transform).into()) else { continue };
        let itself = [entity];
        // Coins are sensors: walk through them (they see the runner arrive).
        let filter = SpatialFilter::excluding(&itself).without_sensors();
        let motion = Vec2::new(RUN_SPEED * DT, runner.vy * DT);
        let Ok(moved) =
            spatial.move_character(&collider.0, &pose, motion, &CharacterConfig::default(), &filter, &mut hits)
        else {
            continue;
        };
        runner.grounded = moved.motion.grounded;
        if runner.grounded || (moved.motion.hit_ceiling && runner.vy > 0.0) {
            runner.vy = 0.0;
        }
        transform.translation.x = moved.motion.pose.p.x;
        transform.translation.y = moved.motion.pose.p.y;
    }
}

/// A shot every half second, from the left, high above the runner.
fn fire(mut commands: Commands, runners: Query<&Runner>, mut score: ResMut<Score>) {
    let Ok(runner) = runners.single() else { return };
    if runner.steps.is_multiple_of(32) && score.shots_fired < 8 {
        score.shots_fired += 1;
        let shot = Collider(Shape::circle(0.1).expect("a valid circle"));
        commands.spawn((shot, Bullet, Shot, Transform::from_xyz(0.0, 8.0, 0.0)));
    }
}

/// Shots fly 2 units a step: 20 times the far wall's thickness.
fn fly(mut shots: Query<&mut Transform, With<Shot>>) {
    for mut t in &mut shots {
        t.translation.x += 2.0;
    }
}

fn collect(
    mut entered: MessageReader<SensorEntered>,
    coins: Query<(), With<Coin>>,
    mut commands: Commands,
    mut score: ResMut<Score>,
) {
    for m in entered.read() {
        if coins.contains(m.sensor) {
            commands.entity(m.sensor).despawn();
            score.coins += 1;
        }
    }
}

fn stop_shots(mut impacts: MessageReader<BulletImpact>, mut commands: Commands, mut score: ResMut<Score>) {
    for m in impacts.read() {
        commands.entity(m.bullet).despawn();
        score.shots_stopped += 1;
    }
}

/// The game without a window, one fixed step per frame, for `frames` frames.
pub fn headless(frames: u32) -> App {
    let mut app = App::new();
    app.add_plugins(TimePlugin).insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(DT)));
    build(&mut app);
    for _ in 0..frames {
        app.update();
    }
    app
}

#[allow(dead_code)] // Included by the crate's tests, which have their own `main`.
fn main() {
    let mut app = headless(600);
    let world = app.world_mut();
    let x = world.query_filtered::<&Transform, With<Runner>>().single(world).map(|t| t.translation.x);
    println!("after 600 frames: {:?}, the runner at x = {:?}", world.resource::<Score>(), x);
}
