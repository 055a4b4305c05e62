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
//! Run: `cargo bench --bench world_query`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use sapwood::query::CastOptions;
use sapwood::{Pose, QueryFilter, Shape, Vec2};
use sapwood_support::SplitMix64;
use sapwood_support::peers::rapier2d::parry::shape::Ball;
use sapwood_support::peers::{RapierSide, SapwoodSide};
use sapwood_support::scenes::{DEFAULT_SEED, Scene};

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

fn per_cast(iters: u64, n: usize, mut run: impl FnMut() -> f32) -> Duration {
    let start = Instant::now();
    let mut acc = 0.0f32;
    for _ in 0..iters {
        acc += run();
    }
    black_box(acc);
    start.elapsed() / n as u32
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
            b.iter_custom(|iters| {
                per_cast(iters, BATCH, || probes.iter().map(|(p, t)| sapwood_cast(p, *t).unwrap_or(2.0)).sum())
            })
        });
        g.bench_function("rapier", |b| {
            b.iter_custom(|iters| {
                per_cast(iters, BATCH, || {
                    probes.iter().map(|(p, t)| rapier.cast_shape(&rball, p, *t).map_or(2.0, |h| h.1)).sum()
                })
            })
        });
        g.finish();
    }
}

criterion_group!(benches, casts);
criterion_main!(benches);
