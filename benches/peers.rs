//! sapwood's `World` beside rapier2d's collision-only `CollisionPipeline` and Box2D v3 on the peer
//! scene (`docs/SCENES.md` §2), as criterion groups. The engines are driven by the same code as
//! `examples/peers.rs` (`support/src/peers.rs` and `support/src/peers/box2d.rs`; fairness rules
//! there), each built one collider at a time:
//!
//! - `peers-step/<t>t`: one iteration = the scene moves (not timed), then the engine is told every
//!   moved collider's pose and steps (timed), inside a rayon pool of `t` threads (1 and all
//!   cores). rapier2d is built without its `parallel` feature and Box2D without a task system:
//!   single-threaded at any `t`. Criterion times engines one after the other; the interleaved
//!   run with median, mean, p90 and p99 per engine is `examples/peers.rs`.
//! - `peers-build`: inserting every collider into an empty engine plus its first step.
//!
//! Sizes: 1024 and 8192 by default; others through `SAPWOOD_PEERS_SIZES` (criterion's
//! repetitions at 256k take minutes):
//! `SAPWOOD_PEERS_SIZES=65536,262144 cargo bench --bench peers`.
//! The markdown table with pair counts comes from `cargo run --release --example peers`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rayon::ThreadPool;
use sapwood_support::peers::{Box2dSide, RapierSide, SapwoodSide, time};
use sapwood_support::scenes::{DEFAULT_SEED, Scene};

fn sizes() -> Vec<usize> {
    match std::env::var("SAPWOOD_PEERS_SIZES") {
        Ok(s) => s.split(',').map(|x| x.trim().parse().expect("SAPWOOD_PEERS_SIZES: comma-separated sizes")).collect(),
        Err(_) => vec![1024, 8192],
    }
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
    pool.install(|| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            scene.step();
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

criterion_group!(benches, step, build);
criterion_main!(benches);
