//! Broad phases on the peer scene (`docs/SCENES.md` §2) at 1k, 8k and 64k colliders:
//!
//! - `build`: an empty structure, `insert_batch` of every collider, then `update_pairs` (so that
//!   deferred work is counted) — mass insertion;
//! - `update-1%`, `update-50%`, `update-100%`: the given share of colliders moves as in the peer
//!   scene; one iteration = `update_batch` of their new tight AABBs + `update_pairs` (the scene's
//!   motion and the AABB computation are not timed);
//! - `pairs`: listing every overlapping pair of a built, still structure.
//!
//! `BruteForce` is skipped above 8k colliders: it is O(n²) and would take minutes per sample.
//!
//! Run: `cargo bench --bench broad` (about 10 minutes on 2 cores); one algorithm or size:
//! `cargo bench --bench broad -- 'update-100%/sap'`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use sapwood::Aabb;
use sapwood::broad::{BroadPhase, BroadPhaseKind, Pair};
use sapwood_support::scenes::{DEFAULT_SEED, Scene};

const SIZES: [usize; 3] = [1024, 8192, 65536];

/// Peer shapes are at most 1.2 across (2·0.6; a rotated 0.6 × 0.6 box reaches 1.7), so a cell of
/// 2 holds about two colliders and most colliders touch one to four cells.
const CELL: f32 = 2.0;

fn kinds(bounds: Aabb) -> [BroadPhaseKind; 7] {
    [
        BroadPhaseKind::BruteForce,
        BroadPhaseKind::SortSweep,
        BroadPhaseKind::UniformGrid { bounds, cell_size: CELL },
        BroadPhaseKind::SpatialHash { cell_size: CELL },
        BroadPhaseKind::Quadtree { bounds },
        BroadPhaseKind::DynamicTree,
        BroadPhaseKind::IncrementalSap,
    ]
}

fn skip(kind: &BroadPhaseKind, n: usize) -> bool {
    matches!(kind, BroadPhaseKind::BruteForce) && n > 8192
}

fn aabbs(scene: &Scene) -> Vec<(u32, Aabb)> {
    let mut v = Vec::with_capacity(scene.len());
    scene.aabbs(&mut v);
    v
}

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    for n in SIZES {
        let scene = Scene::peer(n, DEFAULT_SEED);
        let items = aabbs(&scene);
        for kind in kinds(scene.bounds()) {
            if skip(&kind, n) {
                continue;
            }
            let name = kind.build().name();
            g.bench_with_input(BenchmarkId::new(name, n), &items, |b, items| {
                b.iter_batched(
                    || (kind.build(), Vec::<Pair>::new(), Vec::<Pair>::new()),
                    |(mut bp, mut began, mut ended)| {
                        bp.insert_batch(items);
                        bp.update_pairs(&mut began, &mut ended);
                        (bp, began, ended)
                    },
                    BatchSize::PerIteration,
                );
            });
        }
    }
    g.finish();
}

/// `every`: one collider in `every` moves (100 → 1%, 2 → 50%, 1 → 100%).
fn update(c: &mut Criterion, label: &str, every: usize) {
    let mut g = c.benchmark_group(label);
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    for n in SIZES {
        let scene0 = Scene::peer_moving_every(n, every, DEFAULT_SEED);
        for kind in kinds(scene0.bounds()) {
            if skip(&kind, n) {
                continue;
            }
            // Set up inside the closure, which runs only when the benchmark is selected.
            g.bench_function(BenchmarkId::new(kind.build().name(), n), |b| {
                let mut scene = scene0.clone();
                let mut bp = kind.build();
                let (mut began, mut ended) = (Vec::new(), Vec::new());
                bp.insert_batch(&aabbs(&scene));
                bp.update_pairs(&mut began, &mut ended);
                let mut moved = Vec::with_capacity(n);
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        scene.step();
                        moved.clear();
                        scene.moving_aabbs(&mut moved);
                        began.clear();
                        ended.clear();
                        let t = Instant::now();
                        bp.update_batch(&moved);
                        bp.update_pairs(&mut began, &mut ended);
                        total += t.elapsed();
                        black_box((&began, &ended));
                    }
                    total
                });
            });
        }
    }
    g.finish();
}

fn updates(c: &mut Criterion) {
    update(c, "update-1%", 100);
    update(c, "update-50%", 2);
    update(c, "update-100%", 1);
}

fn pairs(c: &mut Criterion) {
    let mut g = c.benchmark_group("pairs");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    for n in SIZES {
        let scene = Scene::peer(n, DEFAULT_SEED);
        let items = aabbs(&scene);
        for kind in kinds(scene.bounds()) {
            if skip(&kind, n) {
                continue;
            }
            g.bench_function(BenchmarkId::new(kind.build().name(), n), |b| {
                let mut bp: Box<dyn BroadPhase> = kind.build();
                bp.insert_batch(&items);
                let (mut began, mut ended) = (Vec::new(), Vec::new());
                bp.update_pairs(&mut began, &mut ended);
                let mut out = Vec::with_capacity(began.len());
                b.iter(|| {
                    out.clear();
                    bp.pairs(&mut out);
                    black_box(out.len())
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, build, updates, pairs);
criterion_main!(benches);
