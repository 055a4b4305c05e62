//! sapwood's `World` beside rapier2d's collision-only `CollisionPipeline` and Box2D v3 on the
//! scenes of `docs/SCENES.md`, as criterion groups. The engines are driven by the same code as
//! `examples/peers` (`support/src/peers.rs` and `support/src/peers/box2d*.rs`; fairness rules
//! there), each built one collider at a time:
//!
//! - `peers-step/<t>t`: the peer scene (§2). One iteration = the scene moves (not timed), then the
//!   engine is told every moved collider's pose and steps (timed), inside a rayon pool of `t`
//!   threads (1 and all cores). rapier2d is built without its `parallel` feature and Box2D
//!   without a task system: single-threaded at any `t`. Criterion times engines one after the
//!   other; the interleaved run with median, mean, p90 and p99 per engine is `examples/peers`.
//! - `peers-build`: inserting every collider into an empty engine plus its first step.
//! - `pyramids-step/1t`: Box2D's many pyramids (§4). One iteration = Box2D simulates a step and
//!   its poses are handed over (not timed), then sapwood or rapier2d is told every box's pose
//!   and steps (timed); Box2D's entries time its own `b2World_Step` (its solver included), with
//!   contact recycling on (its default) and off.
//! - `static-step/1t`: the static scene (§5), fixed tiles and 1,000 movers, as `peers-step`.
//! - `static-build`: sapwood's world of the static scene built one collider at a time and by
//!   `insert_batch`, with its first step.
//! - `suite-step/1t`: scenes of Box2D's own benchmark suite (§6), spinner, rain and
//!   many_pyramids by default, at the benchmark's counts. Box2D simulates the scene for half of
//!   its step count (rain's ragdolls have filled its floors by then); then one iteration = Box2D
//!   steps and hands over its changes (not timed), then sapwood or rapier2d is told the shapes
//!   removed and inserted and the poses, and steps (timed); Box2D's entries time its own step
//!   (the scene's step function and `b2World_Step`), contact recycling on and off.
//!
//! Sizes are small so that a whole run stays within minutes: the peer scene 1024 and 8192, the
//! pyramids 840 boxes, the static scene 10,000 tiles; others through `SAPWOOD_PEERS_SIZES`,
//! `SAPWOOD_PYRAMIDS_SIZES` (boxes, multiples of 210) and `SAPWOOD_STATIC_SIZES` (criterion's
//! repetitions at the issue sizes take many minutes):
//! `SAPWOOD_PEERS_SIZES=65536,262144 cargo bench --bench peers`. The suite's scenes through
//! `SAPWOOD_SUITE_SCENES` (Box2D's names): `SAPWOOD_SUITE_SCENES=washer cargo bench --bench peers -- suite`.
//! The markdown tables with pair counts come from `cargo run --release --example peers`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rayon::ThreadPool;
use sapwood::WorldConfig;
use sapwood_support::peers::{
    Box2dSide, Box2dSim, Insertion, RapierSide, SapwoodSide, SuiteScene, SuiteSim, SuiteSize, time,
};
use sapwood_support::scenes::{DEFAULT_SEED, PYRAMID_BOXES, STATIC_MOVERS, Scene};

/// The sizes in the environment variable `var` (comma-separated), or `default`.
fn sizes_from(var: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(var) {
        Ok(s) => {
            s.split(',').map(|x| x.trim().parse().unwrap_or_else(|_| panic!("{var}: comma-separated sizes"))).collect()
        }
        Err(_) => default.to_vec(),
    }
}

fn sizes() -> Vec<usize> {
    sizes_from("SAPWOOD_PEERS_SIZES", &[1024, 8192])
}

fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("rayon pool")
}

/// Steps `iters` times in `pool`, timing only `step` (the engine's share).
fn timed_steps<E: Send>(
    pool: &ThreadPool,
    scene: &mut Scene,
    engine: &mut E,
    iters: u64,
    step: impl Fn(&mut E, &Scene) + Send + Sync,
) -> Duration {
    timed_steps_driven(pool, scene, engine, iters, Scene::step, step)
}

/// [`timed_steps`] with the scene moved by `advance` (the pyramids: Box2D's simulation).
fn timed_steps_driven<E: Send>(
    pool: &ThreadPool,
    scene: &mut Scene,
    engine: &mut E,
    iters: u64,
    mut advance: impl FnMut(&mut Scene) + Send,
    step: impl Fn(&mut E, &Scene) + Send + Sync,
) -> Duration {
    pool.install(|| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            advance(scene);
            total += time(|| step(engine, scene)).1;
        }
        total
    })
}

fn step(c: &mut Criterion) {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut thread_counts = vec![1];
    if all > 1 {
        thread_counts.push(all);
    }
    for threads in thread_counts {
        let pool = pool(threads);
        let mut g = c.benchmark_group(format!("peers-step/{threads}t"));
        g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
        for n in sizes() {
            let mut scene = Scene::peer(n, DEFAULT_SEED);
            let mut sap = pool.install(|| SapwoodSide::build(&scene));
            g.bench_function(BenchmarkId::new("sapwood", n), |b| {
                b.iter_custom(|iters| timed_steps(&pool, &mut scene, &mut sap, iters, |e, s| e.step(s)));
            });
            drop(sap);
            let mut scene = Scene::peer(n, DEFAULT_SEED);
            let mut rap = pool.install(|| RapierSide::build(&scene));
            g.bench_function(BenchmarkId::new("rapier2d", n), |b| {
                b.iter_custom(|iters| timed_steps(&pool, &mut scene, &mut rap, iters, |e, s| e.step(s)));
            });
            drop(rap);
            let mut scene = Scene::peer(n, DEFAULT_SEED);
            let mut b2 = Box2dSide::build(&scene, false);
            g.bench_function(BenchmarkId::new("box2d", n), |b| {
                b.iter_custom(|iters| timed_steps(&pool, &mut scene, &mut b2, iters, |e, s| e.step(s)));
            });
        }
        g.finish();
    }
}

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("peers-build");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    for n in sizes() {
        let scene = Scene::peer(n, DEFAULT_SEED);
        g.bench_with_input(BenchmarkId::new("sapwood", n), &scene, |b, scene| {
            b.iter(|| black_box(SapwoodSide::build(scene)));
        });
        g.bench_with_input(BenchmarkId::new("rapier2d", n), &scene, |b, scene| {
            b.iter(|| black_box(RapierSide::build(scene)));
        });
        g.bench_with_input(BenchmarkId::new("box2d", n), &scene, |b, scene| {
            b.iter(|| black_box(Box2dSide::build(scene, false)));
        });
    }
    g.finish();
}

/// One pyramids scene and the Box2D world simulating it (contact recycling on or off), settled
/// for a second of simulated time.
fn settled_pyramids(boxes: usize, recycle: bool) -> (Scene, Box2dSim) {
    assert!(boxes.is_multiple_of(PYRAMID_BOXES), "SAPWOOD_PYRAMIDS_SIZES counts boxes, a multiple of {PYRAMID_BOXES}");
    let mut scene = Scene::pyramids(boxes / PYRAMID_BOXES);
    let mut sim = Box2dSim::build(&scene, recycle);
    for _ in 0..60 {
        sim.step();
    }
    sim.copy_poses(&mut scene);
    (scene, sim)
}

fn pyramids(c: &mut Criterion) {
    let pool = pool(1);
    let mut g = c.benchmark_group("pyramids-step/1t");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for n in sizes_from("SAPWOOD_PYRAMIDS_SIZES", &[840]) {
        let (mut scene, mut sim) = settled_pyramids(n, true);
        let mut sap = pool.install(|| SapwoodSide::build(&scene));
        let advance = |sim: &mut Box2dSim, scene: &mut Scene| {
            sim.step();
            sim.copy_poses(scene);
        };
        g.bench_function(BenchmarkId::new("sapwood", n), |b| {
            b.iter_custom(|iters| {
                timed_steps_driven(&pool, &mut scene, &mut sap, iters, |s| advance(&mut sim, s), |e, s| e.step(s))
            });
        });
        drop(sap);
        let (mut scene, mut sim) = settled_pyramids(n, true);
        let mut rap = RapierSide::build(&scene);
        g.bench_function(BenchmarkId::new("rapier2d", n), |b| {
            b.iter_custom(|iters| {
                timed_steps_driven(&pool, &mut scene, &mut rap, iters, |s| advance(&mut sim, s), |e, s| e.step(s))
            });
        });
        drop(rap);
        for (name, recycle) in [("box2d", true), ("box2d-recycling-off", false)] {
            let (_, mut sim) = settled_pyramids(n, recycle);
            g.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| time(|| sim.step()).1).sum());
            });
        }
    }
    g.finish();
}

fn static_scene(c: &mut Criterion) {
    let pool = pool(1);
    let mut g = c.benchmark_group("static-step/1t");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    let sizes = sizes_from("SAPWOOD_STATIC_SIZES", &[10_000]);
    for &n in &sizes {
        let mut scene = Scene::static_tiles(n, STATIC_MOVERS, DEFAULT_SEED);
        let mut sap = pool.install(|| SapwoodSide::build(&scene));
        g.bench_function(BenchmarkId::new("sapwood", n), |b| {
            b.iter_custom(|iters| timed_steps(&pool, &mut scene, &mut sap, iters, |e, s| e.step(s)));
        });
        drop(sap);
        let mut scene = Scene::static_tiles(n, STATIC_MOVERS, DEFAULT_SEED);
        let mut rap = RapierSide::build(&scene);
        g.bench_function(BenchmarkId::new("rapier2d", n), |b| {
            b.iter_custom(|iters| timed_steps(&pool, &mut scene, &mut rap, iters, |e, s| e.step(s)));
        });
        drop(rap);
        let mut scene = Scene::static_tiles(n, STATIC_MOVERS, DEFAULT_SEED);
        let mut b2 = Box2dSide::build(&scene, false);
        g.bench_function(BenchmarkId::new("box2d", n), |b| {
            b.iter_custom(|iters| timed_steps(&pool, &mut scene, &mut b2, iters, |e, s| e.step(s)));
        });
    }
    g.finish();
    let mut g = c.benchmark_group("static-build");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    for &n in &sizes {
        let scene = Scene::static_tiles(n, STATIC_MOVERS, DEFAULT_SEED);
        for (name, insertion) in
            [("sapwood-one-at-a-time", Insertion::OneByOne), ("sapwood-insert-batch", Insertion::Batch)]
        {
            g.bench_with_input(BenchmarkId::new(name, n), &scene, |b, scene| {
                b.iter(|| {
                    pool.install(|| black_box(SapwoodSide::build_with(scene, WorldConfig::default(), insertion)))
                });
            });
        }
    }
    g.finish();
}

/// A scene of Box2D's suite simulated for half its step count, and the mirror of it.
fn settled_suite(scene: SuiteScene, recycle: bool) -> (SuiteSim, Scene) {
    let mut sim = SuiteSim::build(scene, SuiteSize::Benchmark, recycle);
    let mut world = Scene::simulated();
    sim.sync(&mut world);
    for _ in 0..scene.steps() / 2 {
        sim.step();
        sim.sync(&mut world);
    }
    (sim, world)
}

fn suite(c: &mut Criterion) {
    let names = std::env::var("SAPWOOD_SUITE_SCENES").unwrap_or_else(|_| "spinner,rain,many_pyramids".to_string());
    let pool = pool(1);
    let mut g = c.benchmark_group("suite-step/1t");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for name in names.split(',').map(str::trim) {
        let scene = SuiteScene::from_name(name).unwrap_or_else(|| panic!("SAPWOOD_SUITE_SCENES: no scene {name}"));
        let advance = |sim: &mut SuiteSim, world: &mut Scene| {
            sim.step();
            sim.sync(world);
        };
        let (mut sim, mut world) = settled_suite(scene, true);
        let mut sap = pool.install(|| SapwoodSide::build(&world));
        g.bench_function(BenchmarkId::new("sapwood", name), |b| {
            b.iter_custom(|iters| {
                timed_steps_driven(&pool, &mut world, &mut sap, iters, |w| advance(&mut sim, w), |e, s| e.step(s))
            });
        });
        drop(sap);
        let (mut sim, mut world) = settled_suite(scene, true);
        let mut rap = RapierSide::build(&world);
        g.bench_function(BenchmarkId::new("rapier2d", name), |b| {
            b.iter_custom(|iters| {
                timed_steps_driven(&pool, &mut world, &mut rap, iters, |w| advance(&mut sim, w), |e, s| e.step(s))
            });
        });
        drop(rap);
        for (engine, recycle) in [("box2d", true), ("box2d-recycling-off", false)] {
            let (mut sim, mut world) = settled_suite(scene, recycle);
            g.bench_function(BenchmarkId::new(engine, name), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            let took = time(|| sim.step()).1;
                            sim.sync(&mut world);
                            took
                        })
                        .sum()
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, step, build, pyramids, static_scene, suite);
criterion_main!(benches);
