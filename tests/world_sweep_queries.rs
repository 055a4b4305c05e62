//! The world's swept and distance queries (`cast_shape`, `cast_shape_all`,
//! `distance_to_nearest`, `distance_to_nearest_point`, `ray_cast_with`) against a linear scan
//! over every collider with the narrow queries (`query::cast_shapes`, `query::distance`), on
//! random worlds with every broad-phase kind, after random moves, removals and steps.

use sapwood::query::{self, CastOptions, QueryError};
use sapwood::{
    Aabb, BroadPhaseKind, ColliderDesc, ColliderId, Filter, Pose, QueryFilter, Ray, Shape, Vec2, World, WorldConfig,
};
use sapwood_support::SplitMix64;

fn random_shape(rng: &mut SplitMix64) -> Shape {
    match rng.below(7) {
        0 => Shape::circle(rng.range(0.1, 1.0)).unwrap(),
        1 => Shape::capsule(
            Vec2::new(-rng.range(0.1, 0.8), 0.0),
            Vec2::new(rng.range(0.1, 0.8), 0.0),
            rng.range(0.1, 0.4),
        )
        .unwrap(),
        2 => Shape::cuboid(Vec2::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0))).unwrap(),
        3 => Shape::rounded_box(Vec2::new(rng.range(0.1, 0.6), rng.range(0.1, 0.6)), rng.range(0.0, 0.3)).unwrap(),
        4 => Shape::cuboid(Vec2::new(rng.range(6.0, 12.0), rng.range(0.05, 0.4))).unwrap(), // a long wall
        5 => {
            let parts = (0..1 + rng.below(3))
                .map(|_| {
                    let local = Pose::new(Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)), rng.range(-3.0, 3.0));
                    (local, Shape::cuboid(Vec2::new(rng.range(0.1, 0.6), rng.range(0.1, 0.6))).unwrap())
                })
                .collect();
            Shape::compound(parts).unwrap()
        }
        _ => {
            let pts: Vec<Vec2> = (0..8).map(|_| Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))).collect();
            Shape::polygon(&pts, 0.0).unwrap_or_else(|_| Shape::circle(0.5).unwrap())
        }
    }
}

fn random_pose(rng: &mut SplitMix64, extent: f32) -> Pose {
    Pose::new(Vec2::new(rng.range(0.0, extent), rng.range(0.0, extent)), rng.range(-3.2, 3.2))
}

struct Scene {
    world: World,
    live: Vec<(ColliderId, Shape, Pose, ColliderDesc)>,
}

impl Scene {
    fn filters(&self) -> [QueryFilter; 4] {
        [
            QueryFilter::default(),
            QueryFilter { mask: 2, ..QueryFilter::default() },
            QueryFilter { include_sensors: false, ..QueryFilter::default() },
            QueryFilter { exclude: self.live.first().map(|c| c.0), ..QueryFilter::default() },
        ]
    }

    fn passes(c: &(ColliderId, Shape, Pose, ColliderDesc), f: &QueryFilter) -> bool {
        c.3.filter.category & f.mask != 0 && (f.include_sensors || !c.3.sensor) && f.exclude != Some(c.0)
    }
}

/// A world of `n` colliders (some static, some sensors, some on category 2), stepped, then
/// partly moved, partly removed and stepped again, so that the trees have churned.
fn random_scene(rng: &mut SplitMix64, config: WorldConfig, n: usize, extent: f32) -> Scene {
    let mut world = World::with_config(config).unwrap();
    let mut live = Vec::new();
    for _ in 0..n {
        let shape = random_shape(rng);
        let pose = random_pose(rng, extent);
        let mut desc = ColliderDesc::new(shape.clone(), pose);
        desc.is_static = rng.below(4) == 0;
        desc.sensor = rng.below(8) == 0;
        if rng.below(3) == 0 {
            desc.filter = Filter { category: 2, ..Filter::default() };
        }
        live.push((world.insert(desc.clone()).unwrap(), shape, pose, desc));
    }
    world.step();
    for c in live.iter_mut() {
        if rng.below(3) == 0 {
            c.2 = random_pose(rng, extent);
            world.set_pose(c.0, c.2).unwrap();
        }
    }
    let mut k = 0;
    while k < live.len() {
        if rng.below(10) == 0 {
            world.remove(live.swap_remove(k).0).unwrap();
        } else {
            k += 1;
        }
    }
    world.step();
    world.validate().unwrap();
    Scene { world, live }
}

fn kinds(extent: f32) -> [BroadPhaseKind; 7] {
    BroadPhaseKind::all(Aabb::new(Vec2::splat(-5.0), Vec2::splat(extent + 5.0)), 2.0)
}

/// Runs `check` on several random scenes per broad-phase kind (with a small `large_extent`, so
/// that the residents' tree holds movers too).
fn for_scenes(mut check: impl FnMut(&Scene, &mut SplitMix64)) {
    let extent = 40.0;
    for (i, kind) in kinds(extent).into_iter().enumerate() {
        for seed in 0..4u64 {
            let mut rng = SplitMix64::new(1000 * i as u64 + seed);
            let config = WorldConfig { broad_phase: kind, large_extent: 4.0, ..WorldConfig::default() };
            let n = 150 + rng.below(150);
            let scene = random_scene(&mut rng, config, n, extent);
            check(&scene, &mut rng);
        }
    }
}

#[test]
fn cast_shape_matches_a_linear_scan() {
    let (mut hits, mut casts) = (0usize, 0usize);
    for_scenes(|scene, rng| {
        for _ in 0..60 {
            let filter = scene.filters()[rng.below(4)];
            let probe = random_shape(rng);
            let pose = random_pose(rng, 40.0);
            let translation = match rng.below(8) {
                0 => Vec2::ZERO,
                1 => Vec2::new(rng.range(-30.0, 30.0), 0.0),
                _ => Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0)),
            };
            let options = CastOptions {
                max_fraction: if rng.below(4) == 0 { rng.range(0.0, 1.0) } else { 1.0 },
                target_distance: if rng.below(4) == 0 { rng.range(0.0, 0.5) } else { 0.0 },
            };
            let mut want: Vec<(f32, ColliderId, u32, bool)> = scene
                .live
                .iter()
                .filter(|c| Scene::passes(c, &filter))
                .filter_map(|c| {
                    query::cast_shapes(&probe, &pose, translation, &c.1, &c.2, Vec2::ZERO, &options)
                        .unwrap()
                        .map(|h| (h.fraction, c.0, h.part_b, h.started_in_contact))
                })
                .collect();
            want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut all = Vec::new();
            scene.world.cast_shape_all(&probe, &pose, translation, &options, &filter, &mut all).unwrap();
            let got: Vec<_> = all.iter().map(|h| (h.fraction, h.id, h.part, h.started_in_contact)).collect();
            assert_eq!(got, want, "cast_shape_all");
            let closest = scene.world.cast_shape(&probe, &pose, translation, &options, &filter).unwrap();
            casts += 1;
            if closest.is_some() {
                hits += 1;
            }
            // Exactly the first of the linear scan's hits (ties to the smaller id), with the
            // narrow query's own answer for it.
            assert_eq!(closest, all.first().copied(), "cast_shape vs cast_shape_all");
            match (closest, want.first()) {
                (None, None) => {}
                (Some(h), Some(w)) => assert_eq!((h.fraction, h.id, h.part, h.started_in_contact), *w, "cast_shape"),
                (got, want) => panic!("cast_shape {got:?} vs linear scan {want:?}"),
            }
        }
    });
    // The scenes must make the comparison mean something.
    assert!(hits * 4 > casts, "{hits} hits in {casts} casts");
}

#[test]
fn distance_to_nearest_matches_a_linear_scan() {
    let (mut found, mut asked) = (0usize, 0usize);
    // The oracle's point: a circle of radius 0, a one-vertex core to GJK.
    let point = Shape::Circle(sapwood::Circle { radius: 0.0 });
    for_scenes(|scene, rng| {
        for _ in 0..60 {
            let filter = scene.filters()[rng.below(4)];
            let probe = random_shape(rng);
            let pose = random_pose(rng, 40.0);
            let max_distance = if rng.below(8) == 0 { f32::INFINITY } else { rng.range(0.0, 6.0) };
            let want = scene
                .live
                .iter()
                .filter(|c| Scene::passes(c, &filter))
                .map(|c| (query::distance(&probe, &pose, &c.1, &c.2).unwrap(), c.0))
                .filter(|(d, _)| d.distance <= max_distance)
                .min_by(|a, b| a.0.distance.total_cmp(&b.0.distance).then(a.1.cmp(&b.1)));
            let got = scene.world.distance_to_nearest(&probe, &pose, max_distance, &filter).unwrap();
            asked += 1;
            match (got, want) {
                (None, None) => {}
                (Some(g), Some((w, id))) => {
                    found += 1;
                    assert_eq!((g.id, g.distance, g.part), (id, w.distance, w.part_b), "distance_to_nearest");
                    assert_eq!((g.point, g.probe_point, g.normal), (w.point_b, w.point_a, w.normal));
                }
                (g, w) => panic!("distance_to_nearest {g:?} vs linear scan {w:?}"),
            }

            let p = Vec2::new(rng.range(-5.0, 45.0), rng.range(-5.0, 45.0));
            let want = scene
                .live
                .iter()
                .filter(|c| Scene::passes(c, &filter))
                .map(|c| (query::distance(&point, &Pose::from_translation(p), &c.1, &c.2).unwrap(), c.0))
                .filter(|(d, _)| d.distance <= max_distance)
                .min_by(|a, b| a.0.distance.total_cmp(&b.0.distance).then(a.1.cmp(&b.1)));
            let got = scene.world.distance_to_nearest_point(p, max_distance, &filter).unwrap();
            match (got, want) {
                (None, None) => {}
                (Some(g), Some((w, id))) => {
                    let point = if w.distance == 0.0 { p } else { w.point_b };
                    assert_eq!((g.id, g.distance, g.point), (id, w.distance, point), "distance_to_nearest_point");
                    // A point probe: the distance is the point's distance to the closest point.
                    assert!((g.distance - (g.point - p).length()).abs() < 1e-4 * (1.0 + g.distance), "{g:?} {p:?}");
                }
                (g, w) => panic!("distance_to_nearest_point {g:?} vs linear scan {w:?}"),
            }
        }
    });
    assert!(found * 4 > asked, "{found} found in {asked}");
}

#[test]
fn ray_cast_callback_follows_the_box2d_contract() {
    for_scenes(|scene, rng| {
        for _ in 0..40 {
            let filter = scene.filters()[rng.below(4)];
            let ray = Ray::new(
                Vec2::new(rng.range(-5.0, 45.0), rng.range(-5.0, 45.0)),
                Vec2::from_angle(rng.range(0.0, std::f32::consts::TAU)),
            );
            let max_t = rng.range(1.0, 50.0);
            let mut all = Vec::new();
            scene.world.ray_cast_all(&ray, max_t, &filter, &mut all).unwrap();
            // Continue unclipped: every hit once, as ray_cast_all reports them.
            let mut seen = Vec::new();
            scene
                .world
                .ray_cast_with(&ray, max_t, &filter, |h| {
                    seen.push(*h);
                    max_t
                })
                .unwrap();
            seen.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.id.cmp(&b.id)));
            assert_eq!(seen, all, "unclipped callback");
            // Clip at each hit: the last hit reported is the closest, and nothing reported lies
            // beyond the clip that was in force.
            let (mut clip, mut last) = (max_t, None);
            scene
                .world
                .ray_cast_with(&ray, max_t, &filter, |h| {
                    assert!(h.t <= clip, "a hit beyond the clip: {} > {clip}", h.t);
                    if h.t < clip || last.is_none() {
                        last = Some(h.t);
                    }
                    clip = clip.min(h.t);
                    h.t
                })
                .unwrap();
            assert_eq!(last, all.first().map(|h| h.t), "clipping finds the closest");
            // Ignore everything: every hit is still offered; stop at once: one call.
            let mut n = 0;
            scene
                .world
                .ray_cast_with(&ray, max_t, &filter, |_| {
                    n += 1;
                    -1.0
                })
                .unwrap();
            assert_eq!(n, all.len());
            let mut n = 0;
            scene
                .world
                .ray_cast_with(&ray, max_t, &filter, |_| {
                    n += 1;
                    0.0
                })
                .unwrap();
            assert_eq!(n, all.len().min(1));
        }
    });
}

#[test]
fn bad_probes_are_refused_and_change_nothing() {
    let mut rng = SplitMix64::new(5);
    let scene = random_scene(&mut rng, WorldConfig::default(), 100, 40.0);
    let hash = scene.world.state_hash();
    let (ball, f) = (Shape::circle(0.5).unwrap(), QueryFilter::default());
    let ok = CastOptions::default();
    let nan = Vec2::new(f32::NAN, 0.0);
    let w = &scene.world;
    let cast = |shape: &Shape, pose: Pose, t: Vec2, o: CastOptions| w.cast_shape(shape, &pose, t, &o, &f).map(|_| ());
    assert_eq!(cast(&ball, Pose::from_translation(nan), Vec2::X, ok), Err(QueryError::NonFinite));
    assert_eq!(cast(&ball, Pose::IDENTITY, Vec2::new(0.0, f32::INFINITY), ok), Err(QueryError::NonFinite));
    assert_eq!(
        cast(&ball, Pose::IDENTITY, Vec2::X, CastOptions { max_fraction: f32::NAN, ..ok }),
        Err(QueryError::NonFinite)
    );
    assert_eq!(
        cast(&ball, Pose::IDENTITY, Vec2::X, CastOptions { max_fraction: -1.0, ..ok }),
        Err(QueryError::Negative)
    );
    assert_eq!(
        cast(&ball, Pose::IDENTITY, Vec2::X, CastOptions { target_distance: -1.0, ..ok }),
        Err(QueryError::Negative)
    );
    let skewed = Pose { p: Vec2::ZERO, q: sapwood::Rot { c: 2.0, s: 0.0 } };
    assert_eq!(cast(&ball, skewed, Vec2::X, ok), Err(QueryError::NonFinite));
    // A probe the world would refuse as a collider is refused, as by `query_shape`.
    let bad_shape = Shape::Circle(sapwood::Circle { radius: -1.0 });
    let near = Pose::from_translation(w.pose(scene.live[0].0).unwrap().p);
    assert_eq!(w.cast_shape(&bad_shape, &near, Vec2::X, &ok, &f), Err(QueryError::InvalidShape));
    let mut out = vec![];
    assert_eq!(w.cast_shape_all(&ball, &Pose::IDENTITY, nan, &ok, &f, &mut out), Err(QueryError::NonFinite));
    assert!(out.is_empty());
    assert_eq!(w.distance_to_nearest(&ball, &Pose::IDENTITY, f32::NAN, &f), Err(QueryError::NonFinite));
    assert_eq!(w.distance_to_nearest(&ball, &Pose::IDENTITY, -1.0, &f), Err(QueryError::Negative));
    assert_eq!(w.distance_to_nearest(&bad_shape, &near, 1.0, &f), Err(QueryError::InvalidShape));
    assert_eq!(w.distance_to_nearest_point(nan, 1.0, &f), Err(QueryError::NonFinite));
    let mut called = false;
    let ray = Ray::new(Vec2::ZERO, Vec2::X);
    assert_eq!(
        w.ray_cast_with(&Ray::new(nan, Vec2::X), 1.0, &f, |_| {
            called = true;
            1.0
        }),
        Err(QueryError::NonFinite)
    );
    assert_eq!(
        w.ray_cast_with(&ray, -1.0, &f, |_| {
            called = true;
            1.0
        }),
        Err(QueryError::Negative)
    );
    assert!(!called);
    assert_eq!(w.state_hash(), hash);
}
