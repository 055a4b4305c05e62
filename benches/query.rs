//! Nanoseconds per distance, linear cast and time-of-impact query, sapwood beside parry2d 0.31,
//! for every pair of shape kinds (circle, capsule, box, polygon, rounded polygon, compound), on
//! identical pre-generated inputs.
//!
//! Each benchmark runs a batch of [`BATCH`] queries of one kind pair and reports the time **per
//! query** (`iter_custom` divides the batch time by the batch size). Inputs are placed with the
//! exact reference of the oracle tests (`sapwood_support::exact_query`), a neutral referee:
//! - *distance*: B around the touching distance from A along a random direction, a third of the
//!   pairs overlapping by `1e-4..1e-1` of the size and the rest apart by `1e-3..1` of it;
//! - *cast*: B `0.5..2` sizes away, cast towards A's position with a sideways miss of up to a
//!   size (most casts hit, some graze or miss), A still;
//! - *time of impact*: the cast's motion plus a turn of up to one radian for each shape.
//!
//! What is compared with what (same shapes, same poses):
//! - `sapwood`: `query::distance`, `query::cast_shapes` (target distance 0, max fraction 1),
//!   `query::time_of_impact` (max fraction 1).
//! - `parry`: `query::distance`, `query::cast_shapes` (`ShapeCastOptions::with_max_time_of_impact(1)`,
//!   stopping at penetration), `query::cast_shapes_nonlinear` over `[0, 1]` with motions
//!   rotating about the pose origin. parry's closest points (`closest_points`) cost about the
//!   same as its distance and are not timed separately; sapwood's distance returns them.
//! - `box2d` (Box2D v3 through `boxdd-sys`, convex pairs only: its queries take one convex
//!   proxy per shape): `b2ShapeDistance` with radii, `b2ShapeCast` of B against A, and
//!   `b2TimeOfImpact` with sweeps turning about the pose origin. Box2D stops casts and times of
//!   impact at its linear slop (5 mm) from contact, sapwood within 1e-4 of the smaller shape's
//!   size: Box2D iterates to a coarser answer.
//!
//! Run: `cargo bench --bench query -- --warm-up-time 1 --measurement-time 2` (about 6 minutes);
//! one kind pair: `cargo bench --bench query -- 'query/box-polygon/'`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::DVec2;
use parry2d::math as pm;
use parry2d::query as pq;
use parry2d::shape as ps;
use sapwood::query::{self, CastOptions, Sweep};
use sapwood::{Pose, Rot, Shape, Vec2};
use sapwood_support::SplitMix64;
use sapwood_support::exact_query::{Body, ExactCast, PoseD, d64};
use sapwood_support::parry_shapes::{parry_pose, to_parry};
use sapwood_support::peers::box2d_query as b2;
use sapwood_support::random_shapes::{ConvexKind, convex, dir, log_range};
use sapwood_support::timing::per_item;

const BATCH: usize = 1024;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Circle,
    Capsule,
    Cuboid,
    Polygon,
    Rounded,
    Compound,
}

const KINDS: [Kind; 6] = [Kind::Circle, Kind::Capsule, Kind::Cuboid, Kind::Polygon, Kind::Rounded, Kind::Compound];

/// The convex generator's kind of `kind` (every kind but a compound).
fn convex_kind(kind: Kind) -> ConvexKind {
    match kind {
        Kind::Circle => ConvexKind::Circle,
        Kind::Capsule => ConvexKind::Capsule,
        Kind::Cuboid => ConvexKind::Cuboid,
        Kind::Polygon => ConvexKind::Polygon,
        Kind::Rounded => ConvexKind::Rounded,
        Kind::Compound => unreachable!("a compound's parts are convex"),
    }
}

/// A random shape of the kind; a compound is three convex parts of random kinds, the first at
/// its origin.
fn shape(rng: &mut SplitMix64, kind: Kind) -> Shape {
    let size = log_range(rng, 0.05, 5.0);
    if let Kind::Compound = kind {
        let parts = (0..3)
            .map(|i| {
                let k = KINDS[(rng.next_u64() % 5) as usize];
                let p = if i == 0 { Vec2::ZERO } else { dir(rng) * size * rng.range(0.2, 0.8) };
                let (angle, part_size) = (rng.range(-3.2, 3.2), size * rng.range(0.2, 0.6));
                (Pose::new(p, angle), convex(rng, convex_kind(k), part_size))
            })
            .collect();
        return Shape::compound(parts).unwrap();
    }
    convex(rng, convex_kind(kind), size)
}

/// One input of every query, with parry's copies.
struct Input {
    a: Shape,
    b: Shape,
    qa: ps::SharedShape,
    qb: ps::SharedShape,
    /// Distance: the poses.
    pa: Pose,
    pb: Pose,
    qpa: pm::Pose,
    qpb: pm::Pose,
    /// Cast: B from `cast_from` by `translation` (A still at `pa`).
    cast_from: Pose,
    translation: Vec2,
    /// Time of impact: both sweeps.
    sweep_a: Sweep,
    sweep_b: Sweep,
    motion_a: pq::NonlinearRigidMotion,
    motion_b: pq::NonlinearRigidMotion,
}

/// The touching distance of B from A along `u` (B's rotation `qb`), by the exact reference.
fn touching(a: &Shape, pa: &Pose, b: &Shape, qb: Rot, u: Vec2) -> f32 {
    let far = 2.0 * (a.bounding_radius() + b.bounding_radius()) as f64 + 1.0;
    let (u, p) = (d64(u), d64(pa.p));
    let ca = Body::new(a).placed(&PoseD::from_pose(pa));
    let cb = Body::new(b).placed(&PoseD { p: p + u * far, c: qb.c as f64, s: qb.s as f64 });
    let hit = ExactCast::new(&ca, DVec2::ZERO, &cb, -u * far, 1.0).first_within(0.0);
    (far * (1.0 - hit.map_or(1.0, |h| h.fraction))) as f32
}

fn nonlinear(sweep: &Sweep) -> pq::NonlinearRigidMotion {
    let lin = sweep.end.p - sweep.start.p;
    pq::NonlinearRigidMotion::new(
        parry_pose(&sweep.start),
        pm::Vector::ZERO,
        pm::Vector::new(lin.x, lin.y),
        sweep.angle(),
    )
}

fn batch(ka: Kind, kb: Kind, seed: u64) -> Vec<Input> {
    let mut rng = SplitMix64::new(seed);
    (0..BATCH)
        .map(|k| {
            let (a, b) = (shape(&mut rng, ka), shape(&mut rng, kb));
            let pa = Pose::new(Vec2::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)), rng.range(-3.2, 3.2));
            let qb = Rot::from_angle(rng.range(-3.2, 3.2));
            let u = dir(&mut rng);
            let t = touching(&a, &pa, &b, qb, u);
            let size = a.bounding_radius().max(b.bounding_radius());
            let gap = if k % 3 == 0 { -log_range(&mut rng, 1e-4, 1e-1) } else { log_range(&mut rng, 1e-3, 1.0) };
            let pb = Pose { p: pa.p + u * (t + gap * size).max(0.0), q: qb };
            let cast_from = Pose { p: pa.p + u * (t + size * rng.range(0.5, 2.0)), q: qb };
            let side = u.perp() * size * rng.range(-1.0, 1.0);
            let translation = (pa.p - cast_from.p) * rng.range(1.0, 2.0) + side;
            let sweep_a = Sweep::new(pa, Pose { p: pa.p, q: pa.q.mul(&Rot::from_angle(rng.range(-1.0, 1.0))) });
            let sweep_b = Sweep::new(
                cast_from,
                Pose { p: cast_from.p + translation, q: qb.mul(&Rot::from_angle(rng.range(-1.0, 1.0))) },
            );
            let (qa, qbs) = (to_parry(&a), to_parry(&b));
            Input {
                qpa: parry_pose(&pa),
                qpb: parry_pose(&pb),
                motion_a: nonlinear(&sweep_a),
                motion_b: nonlinear(&sweep_b),
                a,
                b,
                qa,
                qb: qbs,
                pa,
                pb,
                cast_from,
                translation,
                sweep_a,
                sweep_b,
            }
        })
        .collect()
}

fn queries(c: &mut Criterion) {
    let cast_options = CastOptions::default();
    let parry_cast = pq::ShapeCastOptions::with_max_time_of_impact(1.0);
    let mut seed = 0;
    for (i, &ka) in KINDS.iter().enumerate() {
        for &kb in &KINDS[i..] {
            seed += 1;
            let inputs = batch(ka, kb, seed);
            let mut g = c.benchmark_group(format!("query/{ka:?}-{kb:?}").to_lowercase());
            g.bench_function("distance/sapwood", |bn| {
                bn.iter_custom(|iters| {
                    per_item(iters, &inputs, |x| query::distance(&x.a, &x.pa, &x.b, &x.pb).unwrap().distance)
                })
            });
            g.bench_function("distance/parry", |bn| {
                bn.iter_custom(|iters| {
                    per_item(iters, &inputs, |x| pq::distance(&x.qpa, &*x.qa, &x.qpb, &*x.qb).unwrap().distance)
                })
            });
            g.bench_function("cast/sapwood", |bn| {
                bn.iter_custom(|iters| {
                    per_item(iters, &inputs, |x| {
                        let h = query::cast_shapes(
                            &x.a,
                            &x.pa,
                            Vec2::ZERO,
                            &x.b,
                            &x.cast_from,
                            x.translation,
                            &cast_options,
                        );
                        h.unwrap().map_or(2.0, |h| h.fraction)
                    })
                })
            });
            let cast_pb: Vec<pm::Pose> = inputs.iter().map(|x| parry_pose(&x.cast_from)).collect();
            g.bench_function("cast/parry", |bn| {
                bn.iter_custom(|iters| {
                    let start = Instant::now();
                    let mut acc = 0.0f32;
                    for _ in 0..iters {
                        for (x, pb) in inputs.iter().zip(&cast_pb) {
                            let v = pm::Vector::new(x.translation.x, x.translation.y);
                            let h = pq::cast_shapes(&x.qpa, pm::Vector::ZERO, &*x.qa, pb, v, &*x.qb, parry_cast);
                            acc += h.unwrap().map_or(2.0, |h| h.time_of_impact);
                        }
                    }
                    black_box(acc);
                    start.elapsed() / inputs.len() as u32
                })
            });
            g.bench_function("toi/sapwood", |bn| {
                bn.iter_custom(|iters| {
                    per_item(iters, &inputs, |x| {
                        query::time_of_impact(&x.a, &x.sweep_a, &x.b, &x.sweep_b, 1.0).unwrap().fraction
                    })
                })
            });
            g.bench_function("toi/parry", |bn| {
                bn.iter_custom(|iters| {
                    per_item(iters, &inputs, |x| {
                        let h = pq::cast_shapes_nonlinear(&x.motion_a, &*x.qa, &x.motion_b, &*x.qb, 0.0, 1.0, true);
                        h.unwrap().map_or(2.0, |h| h.time_of_impact)
                    })
                })
            });
            let proxies: Option<Vec<_>> = inputs.iter().map(|x| Some((b2::proxy(&x.a)?, b2::proxy(&x.b)?))).collect();
            if let Some(px) = proxies {
                let both = || inputs.iter().zip(&px);
                g.bench_function("distance/box2d", |bn| {
                    bn.iter_custom(|iters| {
                        timed(iters, inputs.len(), || both().map(|(x, (a, b))| b2::distance(a, &x.pa, b, &x.pb)).sum())
                    })
                });
                g.bench_function("cast/box2d", |bn| {
                    bn.iter_custom(|iters| {
                        timed(iters, inputs.len(), || {
                            both()
                                .map(|(x, (a, b))| b2::cast(a, &x.pa, b, &x.cast_from, x.translation).unwrap_or(2.0))
                                .sum()
                        })
                    })
                });
                g.bench_function("toi/box2d", |bn| {
                    bn.iter_custom(|iters| {
                        timed(iters, inputs.len(), || {
                            both()
                                .map(|(x, (a, b))| {
                                    let (sa, sb) = (&x.sweep_a, &x.sweep_b);
                                    b2::time_of_impact(a, (&sa.start, &sa.end), b, (&sb.start, &sb.end))
                                })
                                .sum()
                        })
                    })
                });
            }
            g.finish();
        }
    }
}

/// Time per query of `iters` runs of a batch of `n` queries summed by `run`.
fn timed(iters: u64, n: usize, mut run: impl FnMut() -> f32) -> Duration {
    let start = Instant::now();
    let mut acc = 0.0f32;
    for _ in 0..iters {
        acc += run();
    }
    black_box(acc);
    start.elapsed() / n as u32
}

criterion_group!(benches, queries);
criterion_main!(benches);
