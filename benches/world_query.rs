//! Shape casts through a whole world: sapwood's `World::cast_shape` beside rapier2d's
//! `QueryPipeline::cast_shape`, on the peer scene (`docs/SCENES.md` §2) at 8k and 64k colliders,
//! both engines built one collider at a time and stepped once (rapier's query pipeline reads
//! its broad phase's tree, sapwood's queries its trees).
//!
//! Each iteration is a batch of [`BATCH`] casts of a ball of radius 0.25 from random points of
//! the scene's bounds, each along a random direction 2 to 20 units long (a character's or a
//! bullet's move), closest hit only; the time is reported per cast. Before timing, both engines'
//! first-hit fractions are checked to agree (within 1e-3 of the cast's length) on 99% of the
//! casts.
//!
//! `mover/8k`: `World::move_character` of a capsule walking (with gravity and a jump every 60
//! frames) over a traced tile map 200 units wide (0.2-unit cells: 45° slopes, one-cell steps)
//! among 8,192 fixed props (boxes above the walkers' heads, bumped when they jump); 16 walkers, the time
//! reported per move; beside it rapier2d's `KinematicCharacterController::move_shape` in a copy of
//! the same world, configured alike. Both walks are checked to make progress before timing.
//!
//! Run: `cargo bench --bench world_query` (`-- mover` for the mover alone).

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use sapwood::query::CastOptions;
use sapwood::{CharacterConfig, ColliderDesc, Pose, QueryFilter, Shape, Tile, TileMap, Vec2, World};
use sapwood_support::SplitMix64;
use sapwood_support::parry_shapes::to_parry;
use sapwood_support::peers::rapier2d::control::{CharacterAutostep, CharacterLength, KinematicCharacterController};
use sapwood_support::peers::rapier2d::parry::shape::Ball;
use sapwood_support::peers::{RapierSide, SapwoodSide};
use sapwood_support::scenes::{DEFAULT_SEED, Scene};
use sapwood_support::timing::per_item;

const BATCH: usize = 1024;
const RADIUS: f32 = 0.25;

fn probes(scene: &Scene) -> Vec<(Pose, Vec2)> {
    let b = scene.bounds();
    let mut rng = SplitMix64::new(7);
    (0..BATCH)
        .map(|_| {
            let p = Vec2::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y));
            let dir = Vec2::from_angle(rng.range(-std::f32::consts::PI, std::f32::consts::PI));
            (Pose::from_translation(p), dir * rng.range(2.0, 20.0))
        })
        .collect()
}

fn casts(c: &mut Criterion) {
    let ball = Shape::circle(RADIUS).expect("valid radius");
    let rball = Ball::new(RADIUS);
    let (options, filter) = (CastOptions::default(), QueryFilter::default());
    for n in [8192, 65536] {
        let scene = Scene::peer(n, DEFAULT_SEED);
        let (sapwood, rapier) = (SapwoodSide::build(&scene), RapierSide::build(&scene));
        let probes = probes(&scene);
        let sapwood_cast = |pose: &Pose, t: Vec2| {
            sapwood.world.cast_shape(&ball, pose, t, &options, &filter).expect("valid probe").map(|h| h.fraction)
        };
        // Same first hit, up to near-ties (two colliders hit within 1e-3 of the cast).
        let mut same = 0;
        for (pose, t) in &probes {
            let s = sapwood_cast(pose, *t);
            let r = rapier.cast_shape(&rball, pose, *t).map(|(_, f)| f);
            match (s, r) {
                (None, None) => same += 1,
                (Some(a), Some(b)) if (a - b).abs() * t.length() < 1e-3 => same += 1,
                _ => {}
            }
        }
        assert!(same * 100 >= BATCH * 99, "{same} of {BATCH} casts agree with rapier2d");
        let mut g = c.benchmark_group(format!("world-cast/{n}"));
        g.bench_function("sapwood", |b| {
            b.iter_custom(|iters| per_item(iters, &probes, |(p, t)| sapwood_cast(p, *t).unwrap_or(2.0)))
        });
        g.bench_function("rapier", |b| {
            b.iter_custom(|iters| {
                per_item(iters, &probes, |(p, t)| rapier.cast_shape(&rball, p, *t).map_or(2.0, |h| h.1))
            })
        });
        g.finish();
    }
}

/// The mover's terrain: ground heights (in cells) by a random walk, each change of one cell a
/// slope tile or a step, traced into chains; 8,192 fixed props above it. Returns the world
/// and the ground height (units) of each cell column.
fn mover_world() -> (World, Vec<f32>) {
    const CELL: f32 = 0.2;
    let (width, height) = (1000usize, 40usize);
    let mut rng = SplitMix64::new(11);
    let mut heights = Vec::with_capacity(width);
    let mut h = 10i32;
    for c in 0..width {
        if c > 2 && c < width - 2 && rng.below(6) == 0 {
            h = (h + if rng.below(2) == 0 { 1 } else { -1 }).clamp(5, 30);
        }
        heights.push(h);
    }
    let rows: Vec<Vec<Tile>> = (0..height)
        .map(|row| {
            let level = (height - 1 - row) as i32;
            (0..width)
                .map(|c| {
                    let here = heights[c];
                    let next = heights.get(c + 1).copied().unwrap_or(here);
                    if level < here {
                        Tile::Solid
                    } else if level == here && next == here + 1 && c % 2 == 0 {
                        Tile::SlopeBottomRight // half the rises are ramps, half are steps
                    } else {
                        Tile::Empty
                    }
                })
                .collect()
        })
        .collect();
    let mut world = World::new();
    let map = TileMap::new(&rows).expect("a rectangular map");
    for chain in map.chains(CELL, Vec2::ZERO, false).expect("a traceable map") {
        world.insert(ColliderDesc::new(Shape::Chain(chain), Pose::IDENTITY).fixed()).expect("valid chain");
    }
    let ground: Vec<f32> = heights.iter().map(|&h| h as f32 * CELL).collect();
    for _ in 0..8192 {
        let x = rng.range(0.0, width as f32 * CELL);
        let y = ground[(x / CELL) as usize] + rng.range(2.2, 30.0); // above the walkers' heads
        let prop = Shape::cuboid(Vec2::new(rng.range(0.1, 0.3), rng.range(0.1, 0.3))).expect("valid box");
        world.insert(ColliderDesc::new(prop, Pose::new(Vec2::new(x, y), rng.range(-3.0, 3.0))).fixed()).expect("valid");
    }
    world.step();
    (world, ground)
}

/// One frame of the walkers: gravity, a jump every 60 frames, and the move through `mover`,
/// which answers `(pose it ends at, grounded, hit a ceiling)`; a walker at the map's end goes
/// back to `restart` (on the ground, below the props).
fn walk_frame(
    walkers: &mut [(Pose, f32)],
    frame: &mut u64,
    restart: Pose,
    mut mover: impl FnMut(&Pose, Vec2) -> (Pose, bool, bool),
) {
    *frame += 1;
    for (pose, vy) in walkers.iter_mut() {
        // A jump of 1.1 units: head bumps on the lowest props, never onto one.
        *vy = if frame.is_multiple_of(60) { 0.2 } else { (*vy - 0.02).max(-0.5) };
        let (end, grounded, ceiling) = mover(pose, Vec2::new(0.1, *vy));
        if grounded && *vy < 0.0 || ceiling && *vy > 0.0 {
            *vy = 0.0;
        }
        *pose = if end.p.x > 195.0 { restart } else { end };
    }
}

fn mover(c: &mut Criterion) {
    let (world, ground) = mover_world();
    let start = |x: f32| Pose::from_translation(Vec2::new(x, ground[(x / 0.2) as usize] + 1.0));
    let body = Shape::capsule(Vec2::new(0.0, -0.3), Vec2::new(0.0, 0.3), 0.25).expect("valid capsule");
    let config = CharacterConfig::default();
    let mut hits = Vec::new();
    let mut sapwood_move = |pose: &Pose, t: Vec2| {
        let m = world.move_character(&body, pose, t, &config, &mut hits).expect("valid move");
        assert!(!m.stuck, "a walker got stuck at {:?}", m.pose);
        (m.pose, m.grounded, m.hit_ceiling)
    };
    // rapier2d's character controller in a copy of the same world, configured alike: a 0.01
    // skin, 45° slopes, snapping 0.2 down, steps up to 0.25 (at least a capsule wide).
    let rapier = RapierSide::from_world(&world);
    let controller = KinematicCharacterController {
        offset: CharacterLength::Absolute(config.skin),
        max_slope_climb_angle: config.max_slope,
        min_slope_slide_angle: config.max_slope,
        snap_to_ground: Some(CharacterLength::Absolute(config.snap_to_ground)),
        autostep: Some(CharacterAutostep {
            max_height: CharacterLength::Absolute(config.step_height),
            min_width: CharacterLength::Absolute(0.5),
            include_dynamic_bodies: false,
        }),
        ..KinematicCharacterController::default()
    };
    let rbody = to_parry(&body);
    let rapier_move = |pose: &Pose, t: Vec2| {
        let (moved, grounded) = rapier.move_character(&controller, &*rbody, pose, t);
        // rapier reports no ceiling: a blocked jump is one that moved less up than it asked.
        (Pose { p: pose.p + moved, q: pose.q }, grounded, t.y > 0.0 && moved.y < 0.5 * t.y)
    };
    // The walks must be walks: 300 frames (30 units asked) take each walker at least 15 along.
    let fresh = || (0..16).map(|i| (start(5.0 + 8.0 * i as f32), 0.0)).collect::<Vec<(Pose, f32)>>();
    let (mut sapwood_walkers, mut rapier_walkers, mut frame) = (fresh(), fresh(), 0u64);
    let mut rapier_frame = 0u64;
    for _ in 0..300 {
        walk_frame(&mut sapwood_walkers, &mut frame, start(5.0), &mut sapwood_move);
        walk_frame(&mut rapier_walkers, &mut rapier_frame, start(5.0), rapier_move);
    }
    for (name, walkers) in [("sapwood", &sapwood_walkers), ("rapier2d", &rapier_walkers)] {
        for (w, x0) in walkers.iter().zip(fresh()) {
            assert!(w.0.p.x - x0.0.p.x > 15.0, "a {name} walker went from x {} to {} in 300 frames", x0.0.p.x, w.0.p.x);
        }
    }
    let mut g = c.benchmark_group("mover/8k");
    g.bench_function("move_character", |b| {
        b.iter_custom(|iters| {
            let t0 = Instant::now();
            for _ in 0..iters {
                walk_frame(&mut sapwood_walkers, &mut frame, start(5.0), &mut sapwood_move);
            }
            t0.elapsed() / 16
        })
    });
    g.bench_function("rapier_move_shape", |b| {
        b.iter_custom(|iters| {
            let t0 = Instant::now();
            for _ in 0..iters {
                walk_frame(&mut rapier_walkers, &mut rapier_frame, start(5.0), rapier_move);
            }
            t0.elapsed() / 16
        })
    });
    g.finish();
}

criterion_group!(benches, casts, mover);
criterion_main!(benches);
