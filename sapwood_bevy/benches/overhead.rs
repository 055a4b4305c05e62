//! The plugin's cost per fixed step against a plain `sapwood::World` fed the same poses.
//!
//! Both sides move every non-static collider each frame along the same paths, from the same
//! `Transform`s. The plugin's frame is one run of Bevy's fixed schedules: a system writes the
//! transforms, then the plugin propagates them, syncs, steps and writes its messages. The plain
//! frame computes the same transforms, turns them into poses (`pose_from_transform`), calls
//! `set_pose` for each, steps and reads the events. The difference is what the plugin adds.
//!
//! ```text
//! cargo bench -p sapwood_bevy --bench overhead            # 1,000 and 10,000 entities
//! cargo bench -p sapwood_bevy --bench overhead -- 10000   # one size
//! ```
//!
//! Prints median, mean, p90 and p99 over the measured frames (after a warm-up), in
//! microseconds, for the plain world, the plugin, and the step inside the plugin's frame.

use std::time::{Duration, Instant};

use bevy_app::{App, FixedMain, FixedUpdate};
use bevy_ecs::prelude::*;
use bevy_transform::TransformPlugin;
use bevy_transform::components::{GlobalTransform, Transform};
use sapwood::{ColliderDesc, Shape, Vec2, World};
use sapwood_bevy::{
    Bullet, BulletImpact, Collider, CollisionEnded, CollisionStarted, SapwoodPlugin, SapwoodWorld, Sensor,
    SensorEntered, SensorExited, Static, pose_from_transform,
};

/// A deterministic hash of `i` and `salt` in `[0, 1)`.
fn unit(i: usize, salt: u64) -> f32 {
    let mut x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

fn shape(i: usize) -> Shape {
    let s = 0.3 + 0.4 * unit(i, 10);
    match i % 3 {
        0 => Shape::circle(s),
        1 => Shape::cuboid(Vec2::new(s, 0.6 * s)),
        _ => Shape::capsule(Vec2::new(-s, 0.0), Vec2::new(s, 0.0), 0.4 * s),
    }
    .expect("valid shapes")
}

fn is_static(i: usize) -> bool {
    i.is_multiple_of(10)
}

/// Entity `i`'s transform at `frame`, in a square whose side keeps the density of 1,000 in 60 x 60.
fn transform(i: usize, frame: usize, side: f32) -> Transform {
    let home = Vec2::new(side * unit(i, 1), side * unit(i, 2));
    let t = frame as f32;
    let phase = std::f32::consts::TAU * unit(i, 4);
    let p =
        if is_static(i) { home } else { home + 2.0 * Vec2::new((0.05 * t + phase).sin(), (0.07 * t + phase).cos()) };
    let angle = if is_static(i) { 0.0 } else { 0.03 * t * (i % 5) as f32 };
    Transform::from_xyz(p.x, p.y, 0.0).with_rotation(bevy_math::Quat::from_rotation_z(angle))
}

#[derive(Resource)]
struct Frame {
    n: usize,
    side: f32,
}

#[derive(Component)]
struct Index(usize);

fn move_all(frame: Res<Frame>, mut movers: Query<(&Index, &mut Transform), Without<Static>>) {
    for (i, mut t) in &mut movers {
        *t = transform(i.0, frame.n, frame.side);
    }
}

/// Timings in microseconds, sorted.
struct Samples(Vec<f64>);

impl Samples {
    fn of(mut durations: Vec<Duration>) -> Self {
        durations.sort();
        Self(durations.iter().map(|d| d.as_secs_f64() * 1e6).collect())
    }

    fn row(&self, label: &str) -> String {
        let v = &self.0;
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        format!("| {label} | {:.0} | {:.0} | {:.0} | {:.0} |", at(0.5), mean, at(0.9), at(0.99))
    }
}

fn plugin_app(n: usize, side: f32) -> App {
    let mut app = App::new();
    app.add_plugins((TransformPlugin, SapwoodPlugin::default()))
        .insert_resource(Frame { n: 0, side })
        .add_systems(FixedUpdate, move_all);
    for i in 0..n {
        let mut e = app.world_mut().spawn((Collider(shape(i)), transform(i, 0, side), Index(i)));
        if is_static(i) {
            e.insert(Static);
        }
        if i % 10 == 1 {
            e.insert(Sensor);
        }
        if i % 25 == 2 {
            e.insert(Bullet);
        }
    }
    app
}

fn drain_messages(app: &mut App) -> usize {
    let w = app.world_mut();
    w.resource_mut::<Messages<CollisionStarted>>().drain().count()
        + w.resource_mut::<Messages<CollisionEnded>>().drain().count()
        + w.resource_mut::<Messages<SensorEntered>>().drain().count()
        + w.resource_mut::<Messages<SensorExited>>().drain().count()
        + w.resource_mut::<Messages<BulletImpact>>().drain().count()
}

fn bench(n: usize, warmup: usize, frames: usize) {
    let side = 60.0 * (n as f32 / 1000.0).sqrt();

    let mut app = plugin_app(n, side);
    let (mut plugin, mut plugin_step) = (Vec::new(), Vec::new());
    let mut messages = 0;
    for f in 0..warmup + frames {
        app.world_mut().resource_mut::<Frame>().n = f;
        let start = Instant::now();
        app.world_mut().run_schedule(FixedMain);
        let took = start.elapsed();
        messages += drain_messages(&mut app);
        if f >= warmup {
            plugin.push(took);
            plugin_step.push(app.world().resource::<SapwoodWorld>().world().last_step_timings().total());
        }
    }

    let mut world = World::new();
    let descs: Vec<ColliderDesc> = (0..n)
        .map(|i| {
            let (pose, _) = pose_from_transform(&GlobalTransform::from(transform(i, 0, side))).expect("a 2D transform");
            let mut d = ColliderDesc::new(shape(i), pose);
            d.is_static = is_static(i);
            d.sensor = i % 10 == 1;
            d.bullet = i % 25 == 2;
            d
        })
        .collect();
    let mut ids = Vec::new();
    world.insert_batch(&descs, &mut ids).expect("valid colliders");
    let mut plain = Vec::new();
    let mut events = 0;
    for f in 0..warmup + frames {
        let start = Instant::now();
        for (i, &id) in ids.iter().enumerate() {
            if !is_static(i) {
                let (pose, _) = pose_from_transform(&GlobalTransform::from(transform(i, f, side))).expect("2D");
                world.set_pose(id, pose).expect("a valid pose");
            }
        }
        world.step();
        events += world.events().len() + world.impacts().len();
        let took = start.elapsed();
        if f >= warmup {
            plain.push(took);
        }
    }
    assert_eq!(messages, events, "the plugin's messages are the world's events and impacts");

    println!("\n{n} entities ({frames} frames after {warmup} of warm-up; µs per frame)\n");
    println!("| | median | mean | p90 | p99 |");
    println!("|---|---:|---:|---:|---:|");
    println!("{}", Samples::of(plain).row("plain `World` (set_pose + step + events)"));
    println!("{}", Samples::of(plugin).row("plugin (move system + propagate + sync + step + messages)"));
    println!("{}", Samples::of(plugin_step).row("… of which `World::step`"));
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![1000, 10_000] } else { sizes };
    for n in sizes {
        let frames = if n > 5000 { 400 } else { 1000 };
        bench(n, 100, frames);
    }
}
