//! Nanoseconds per contact manifold, sapwood against parry2d 0.31, for every pair of shape kinds,
//! on identical pre-generated near-touching inputs.
//!
//! Each benchmark iterates a batch of [`BATCH`] pairs of one kind pair (B placed around the
//! touching distance along a random direction, about half of them overlapping) and reports the
//! time **per pair** (`iter_custom` divides the batch time by the batch size).
//!
//! What is compared with what:
//! - `sapwood`: [`collide::contact`] from the two world poses: canonical ordering, relative pose,
//!   dispatch, kernel, and the manifold moved back to world space.
//! - `parry_manifold`: the fairest equivalent, `DefaultQueryDispatcher::contact_manifold_convex_convex`
//!   (the convex branch `PersistentQueryDispatcher::contact_manifolds` takes, and what rapier runs
//!   for a convex pair) with prediction 0 and the relative pose `pos1⁻¹·pos2` computed inside the
//!   loop. Its manifold is reset to `ContactManifold::new()` (no allocation in 2D) before each
//!   call: parry's manifolds are persistent, and a manifold kept from the same pair would let it
//!   skip the computation (`try_update_contacts_eps`) or warm-start GJK, which sapwood's
//!   stateless kernels never do. Its points stay in the shapes' local frames, so parry does
//!   slightly less work at the end.
//! - `parry_contact`: `query::contact` (one deepest point, no manifold) for reference; it answers
//!   a smaller question than a manifold and is not the headline ratio.
//!
//! Run: `cargo bench --bench narrow -- --warm-up-time 1 --measurement-time 2` (chains only:
//! `cargo bench --bench narrow -- narrow_chain`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use parry2d::math as pm;
use parry2d::query::{self as pq, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry2d::shape as ps;
use sapwood::{Pose, Rot, Shape, Vec2, collide};
use sapwood_support::SplitMix64;
use sapwood_support::parry_shapes::{parry_pose, to_parry};
use sapwood_support::random_shapes::{ConvexKind as Kind, convex, dir, log_range};
use sapwood_support::timing::per_item;

const BATCH: usize = 2048;

fn shape(rng: &mut SplitMix64, kind: Kind) -> Shape {
    let size = log_range(rng, 0.05, 5.0);
    convex(rng, kind, size)
}

struct Pair {
    a: Shape,
    pa: Pose,
    b: Shape,
    pb: Pose,
    qa: ps::SharedShape,
    qpa: pm::Pose,
    qb: ps::SharedShape,
    qpb: pm::Pose,
}

/// A batch of pairs around the touching distance: bisection on parry's `intersection_test`
/// (a neutral referee), then a relative perturbation of 1e-4 to 1e-1 of the size either way.
fn batch(ka: Kind, kb: Kind, seed: u64) -> Vec<Pair> {
    let mut rng = SplitMix64::new(seed);
    (0..BATCH)
        .map(|_| {
            let (a, b) = (shape(&mut rng, ka), shape(&mut rng, kb));
            let pa = Pose::new(Vec2::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)), rng.range(-3.2, 3.2));
            let qb = Rot::from_angle(rng.range(-3.2, 3.2));
            let u = dir(&mut rng);
            let (qa, qbs) = (to_parry(&a), to_parry(&b));
            let qpa = parry_pose(&pa);
            let hit = |t: f32| {
                let pb = Pose { p: pa.p + u * t, q: qb };
                pq::intersection_test(&qpa, &*qa, &parry_pose(&pb), &*qbs).unwrap().intersecting
            };
            let (mut lo, mut hi) = (0.0f32, 2.0 * (a.bounding_radius() + b.bounding_radius()) + 1.0);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if hit(mid) { lo = mid } else { hi = mid }
            }
            let size = a.bounding_radius().max(b.bounding_radius());
            let sign = if rng.next_f32() < 0.5 { -1.0 } else { 1.0 };
            let t = (0.5 * (lo + hi) + sign * size * log_range(&mut rng, 1e-4, 1e-1)).max(0.0);
            let pb = Pose { p: pa.p + u * t, q: qb };
            Pair { qpb: parry_pose(&pb), a, pa, b, pb, qa, qpa, qb: qbs }
        })
        .collect()
}

/// Time per pair: the batch time divided by the batch size.
fn per_pair(iters: u64, pairs: &[Pair], mut f: impl FnMut(&Pair) -> u32) -> Duration {
    let start = Instant::now();
    let mut acc = 0u32;
    for _ in 0..iters {
        for p in pairs {
            acc = acc.wrapping_add(f(black_box(p)));
        }
    }
    black_box(acc);
    start.elapsed() / pairs.len() as u32
}

fn narrow(c: &mut Criterion) {
    let kinds = [Kind::Circle, Kind::Capsule, Kind::Cuboid, Kind::Polygon, Kind::Rounded];
    let mut seed = 0;
    for (i, &ka) in kinds.iter().enumerate() {
        for &kb in &kinds[i..] {
            seed += 1;
            let pairs = batch(ka, kb, seed);
            let name = format!("{ka:?}-{kb:?}").to_lowercase();
            let mut g = c.benchmark_group(format!("narrow/{name}"));
            g.bench_function("sapwood", |bn| {
                bn.iter_custom(|iters| {
                    per_pair(iters, &pairs, |p| collide::contact(&p.a, &p.pa, &p.b, &p.pb).unwrap().count)
                })
            });
            g.bench_function("parry_manifold", |bn| {
                bn.iter_custom(|iters| {
                    per_pair(iters, &pairs, |p| {
                        let mut m = ContactManifold::<(), ()>::new();
                        let pos12 = p.qpa.inv_mul(&p.qpb);
                        DefaultQueryDispatcher
                            .contact_manifold_convex_convex(&pos12, &*p.qa, &*p.qb, None, None, 0.0, &mut m)
                            .unwrap();
                        m.points.len() as u32
                    })
                })
            });
            g.bench_function("parry_contact", |bn| {
                bn.iter_custom(|iters| {
                    per_pair(iters, &pairs, |p| {
                        pq::contact(&p.qpa, &*p.qa, &p.qpb, &*p.qb, 0.0).unwrap().is_some() as u32
                    })
                })
            });
            g.finish();
        }
    }
}

/// Compounds of `n` parts against a box and against another compound, to decide whether the
/// part cull needs a tree: sapwood scans the part boxes linearly, parry walks its BVH.
/// The compound is a ring of `n` small boxes (a gear); the probe touches a few of them.
fn compound(c: &mut Criterion) {
    let ring = |n: usize| {
        let parts = (0..n)
            .map(|i| {
                let a = std::f32::consts::TAU * i as f32 / n as f32;
                let r = 2.0 + 0.02 * n as f32;
                (Pose::new(r * Vec2::from_angle(a), a), Shape::cuboid(Vec2::new(0.3, 0.1)).unwrap())
            })
            .collect();
        Shape::compound(parts).unwrap()
    };
    for n in [4usize, 16, 64, 128] {
        let a = ring(n);
        let r = 2.0 + 0.02 * n as f32;
        let mut rng = SplitMix64::new(n as u64);
        let probes: Vec<(Shape, Pose)> = (0..BATCH)
            .map(|k| {
                let s = if k % 2 == 0 { Shape::cuboid(Vec2::new(0.4, 0.4)).unwrap() } else { ring(n) };
                let off = if k % 2 == 0 {
                    r * Vec2::from_angle(rng.range(0.0, 6.3))
                } else {
                    Vec2::new(rng.range(-0.5, 0.5), 0.3)
                };
                (s, Pose::new(off, rng.range(-3.2, 3.2)))
            })
            .collect();
        let qa = to_parry(&a);
        let qprobes: Vec<(ps::SharedShape, pm::Pose)> =
            probes.iter().map(|(s, p)| (to_parry(s), parry_pose(p))).collect();
        for (label, parity) in [("box", 0), ("compound", 1)] {
            let mut g = c.benchmark_group(format!("narrow_compound/{n}_parts_vs_{label}"));
            g.bench_function("sapwood", |bn| {
                bn.iter_custom(|iters| {
                    let start = Instant::now();
                    let mut acc = 0u32;
                    for _ in 0..iters {
                        for (s, p) in probes.iter().skip(parity).step_by(2) {
                            acc =
                                acc.wrapping_add(collide::contact(&a, &Pose::IDENTITY, black_box(s), p).unwrap().count);
                        }
                    }
                    black_box(acc);
                    start.elapsed() / (BATCH as u32 / 2)
                })
            });
            g.bench_function("parry_contact", |bn| {
                bn.iter_custom(|iters| {
                    let start = Instant::now();
                    let mut acc = 0u32;
                    for _ in 0..iters {
                        for (s, p) in qprobes.iter().skip(parity).step_by(2) {
                            let hit = pq::contact(&pm::Pose::IDENTITY, &*qa, p, black_box(&**s), 0.0).unwrap();
                            acc = acc.wrapping_add(hit.is_some() as u32);
                        }
                    }
                    black_box(acc);
                    start.elapsed() / (BATCH as u32 / 2)
                })
            });
            g.finish();
        }
    }
}

/// Chains: a rolling floor of `n` unit segments against small shapes resting on it, so that each
/// call meets two or three segments. sapwood walks the chain's BVH and runs the ghost-vertex
/// kernel per segment; parry walks its polyline's BVH (it has no ghost vertices).
fn chain(c: &mut Criterion) {
    for n in [1_000usize, 100_000] {
        let vs: Vec<Vec2> = (0..=n).rev().map(|i| Vec2::new(i as f32, 0.3 * (i as f32 * 0.05).sin())).collect();
        let floor = Shape::chain(vs, sapwood::ChainOptions::default()).unwrap();
        let mut rng = SplitMix64::new(n as u64);
        let probes: Vec<(Shape, Pose)> = (0..BATCH)
            .map(|k| {
                let s = match k % 4 {
                    0 => Shape::cuboid(Vec2::new(0.4, 0.3)).unwrap(),
                    1 => Shape::circle(0.4).unwrap(),
                    2 => Shape::capsule(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.0), 0.2).unwrap(),
                    _ => Shape::rounded_box(Vec2::new(0.3, 0.2), 0.1).unwrap(),
                };
                let x = rng.range(2.0, n as f32 - 2.0);
                (s, Pose::from_translation(Vec2::new(x, 0.3 * (x * 0.05).sin() + 0.3)))
            })
            .collect();
        let qa = to_parry(&floor);
        let qprobes: Vec<(ps::SharedShape, pm::Pose)> =
            probes.iter().map(|(s, p)| (to_parry(s), parry_pose(p))).collect();
        let (id, qid) = (Pose::IDENTITY, pm::Pose::IDENTITY);
        // Queries from a unit above the floor: distance, and a cast one unit down and across.
        let lifted: Vec<(Shape, Pose)> =
            probes.iter().map(|(s, p)| (s.clone(), Pose { p: p.p + Vec2::Y, q: p.q })).collect();
        let qlifted: Vec<(ps::SharedShape, pm::Pose)> =
            lifted.iter().map(|(s, p)| (to_parry(s), parry_pose(p))).collect();
        let (drop, options) = (Vec2::new(0.5, -1.5), sapwood::query::CastOptions::default());
        let qdrop = pm::Vector::new(0.5, -1.5);
        let parry_cast = pq::ShapeCastOptions::with_max_time_of_impact(1.0);
        let mut g = c.benchmark_group(format!("narrow_chain/{n}_segments"));
        g.bench_function("sapwood", |bn| {
            bn.iter_custom(|iters| {
                per_item(iters, &probes, |(s, p)| collide::contact(&floor, &id, s, p).unwrap().count as f32)
            })
        });
        g.bench_function("parry_contact", |bn| {
            bn.iter_custom(|iters| {
                per_item(iters, &qprobes, |(s, p)| {
                    pq::contact(&qid, &*qa, p, &**s, 0.0).unwrap().map_or(0.0, |c| c.dist)
                })
            })
        });
        g.bench_function("sapwood_distance", |bn| {
            bn.iter_custom(|iters| {
                per_item(iters, &lifted, |(s, p)| sapwood::query::distance(s, p, &floor, &id).unwrap().distance)
            })
        });
        g.bench_function("parry_distance", |bn| {
            bn.iter_custom(|iters| {
                per_item(iters, &qlifted, |(s, p)| pq::distance(p, &**s, &qid, &*qa).unwrap().distance)
            })
        });
        g.bench_function("sapwood_cast", |bn| {
            bn.iter_custom(|iters| {
                per_item(iters, &lifted, |(s, p)| {
                    let hit = sapwood::query::cast_shapes(s, p, drop, &floor, &id, Vec2::ZERO, &options).unwrap();
                    hit.map_or(2.0, |h| h.fraction)
                })
            })
        });
        g.bench_function("parry_cast", |bn| {
            bn.iter_custom(|iters| {
                per_item(iters, &qlifted, |(s, p)| {
                    let hit = pq::cast_shapes(p, qdrop, &**s, &qid, pm::Vector::ZERO, &*qa, parry_cast).unwrap();
                    hit.map_or(2.0, |h| h.time_of_impact)
                })
            })
        });
        g.finish();
    }
}

criterion_group!(benches, narrow, compound, chain);
criterion_main!(benches);
