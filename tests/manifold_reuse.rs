//! `WorldConfig::reuse_manifolds` is exact: a world with it on and one with it off, fed the same
//! colliders and poses, hold the same contacts bit for bit after every step (points, depths,
//! normals, feature ids, carried impulses) and the same state hash, on the pyramids and the
//! spinner of Box2D's suite (capsules, circles and boxes) as Box2D simulates them, on
//! the peer scene and the seed scenarios, and on jittered piles of boxes and polygons, then of
//! every convex kind (rounded ones too, some with their vertices far from their origin). Each
//! check also asserts that reuse happened where pairs rest, so that the comparison is not
//! vacuous.

use sapwood::{ColliderDesc, ColliderId, Pose, Shape, Vec2, World, WorldConfig};
use sapwood_support::peers::{Box2dSim, Insertion, SapwoodSide, SuiteScene, SuiteSim, SuiteSize};
use sapwood_support::scenes::{DEFAULT_SEED, Scene, SeedScenario};

fn configs() -> (WorldConfig, WorldConfig) {
    let on = WorldConfig::default();
    assert!(on.reuse_manifolds, "reuse is on by default");
    (on, WorldConfig { reuse_manifolds: false, ..on })
}

/// The two worlds hold the same contacts, bit for bit, and the same state.
fn assert_same(on: &World, off: &World, what: &str) {
    let bytes = |w: &World| bytemuck::cast_slice::<_, u8>(w.contacts()).to_vec();
    assert!(bytes(on) == bytes(off), "{what}: contacts differ");
    assert_eq!(on.state_hash(), off.state_hash(), "{what}");
}

/// Steps a scene in both worlds for `steps` steps (`drive` moves the scene), checking after each;
/// returns the reused share of the manifolds computed in the last half.
fn run_scene(mut scene: Scene, steps: usize, mut drive: impl FnMut(&mut Scene)) -> f64 {
    let (on, off) = configs();
    let mut a = SapwoodSide::build_with(&scene, on, Insertion::OneByOne);
    let mut b = SapwoodSide::build_with(&scene, off, Insertion::OneByOne);
    let (mut reused, mut pairs) = (0u64, 0u64);
    for step in 0..steps {
        drive(&mut scene);
        a.step(&scene);
        b.step(&scene);
        assert_same(&a.world, &b.world, &format!("step {step}"));
        assert_eq!(b.world.last_step_counts().reused, 0);
        if step >= steps / 2 {
            let c = a.world.last_step_counts();
            (reused, pairs) = (reused + u64::from(c.reused), pairs + u64::from(c.pairs));
        }
    }
    reused as f64 / pairs.max(1) as f64
}

#[test]
fn pyramids_as_box2d_simulates_them() {
    let mut scene = Scene::pyramids(2);
    let mut sim = Box2dSim::build(&scene, true);
    // Let the stacks settle first: the check is about resting contact.
    for _ in 0..30 {
        sim.step();
    }
    sim.copy_poses(&mut scene);
    let share = run_scene(scene, 120, |s| {
        sim.step();
        sim.copy_poses(s);
    });
    assert!(share > 0.5, "reused {share}");
}

/// Spinner's pile of capsules, circles and boxes, churned by its bar, each step as Box2D
/// simulates it. (Rain's ragdolls would reuse nothing: their capsules meet welded tiles, whose
/// pairs run the welded kernel, and each other, a kind pair that does not reuse.)
#[test]
fn box2d_spinner_with_circles_and_capsules() {
    let mut sim = SuiteSim::build(SuiteScene::Spinner, SuiteSize::Small, false);
    let mut scene = Scene::simulated();
    sim.sync(&mut scene);
    let share = run_scene(scene, 200, |s| {
        sim.step();
        sim.sync(s);
    });
    assert!(share > 0.02, "reused {share}");
}

#[test]
fn peer_scene_and_seed_scenarios() {
    run_scene(Scene::peer(1024, DEFAULT_SEED), 60, Scene::step);
    for scenario in [SeedScenario::RandomHalf, SeedScenario::RandomAll] {
        run_scene(Scene::seed(scenario, 1024, DEFAULT_SEED), 40, Scene::step);
    }
}

/// Rows of shapes overlapping their neighbours a little, nudged every step by a few micrometres
/// (as a solver nudges resting bodies), with now and then a large move and a shape change, which
/// must forget the pair's recorded decisions. `shape(i, far)` is the `i`-th collider's shape
/// and the point of its own frame it is centred on: `far` (every seventh collider's far offset)
/// where it can be, else the origin. Returns (manifolds reused, contacts) over all steps.
fn jittered_pile(shape: impl Fn(usize, Vec2) -> (Shape, Vec2)) -> (u32, usize) {
    let (on, off) = configs();
    let mut worlds = [World::with_config(on).unwrap(), World::with_config(off).unwrap()];
    let mut rng = sapwood_support::f64_rng::F64Rng::new(7);
    let mut shapes = Vec::new();
    let mut poses = Vec::new();
    for i in 0..200 {
        let (s, far) = shape(i, if i % 7 == 0 { Vec2::new(40.0, -25.0) } else { Vec2::ZERO });
        let (row, col) = (i / 20, i % 20);
        let pose = Pose::new(Vec2::new(col as f32 * 0.98, row as f32 * 0.98) - far, 0.01 * (i % 5) as f32);
        shapes.push(s);
        poses.push(pose);
    }
    let ids: Vec<Vec<ColliderId>> = worlds
        .iter_mut()
        .map(|w| shapes.iter().zip(&poses).map(|(s, p)| w.insert(ColliderDesc::new(s.clone(), *p)).unwrap()).collect())
        .collect();
    let (mut reused, mut touching) = (0u32, 0);
    for step in 0..200 {
        for (i, pose) in poses.iter_mut().enumerate() {
            let r = if step % 50 == 25 && i % 10 == 0 { 0.05 } else { 3e-6 };
            let d = Vec2::new(rng.range(-1.0, 1.0) as f32, rng.range(-1.0, 1.0) as f32) * r;
            let angle = pose.q.s.atan2(pose.q.c) + rng.range(-1.0, 1.0) as f32 * r;
            *pose = Pose::new(pose.p + d, angle);
        }
        let reshape = (step % 40 == 20).then(|| (step % 200, Shape::cuboid(Vec2::new(0.52, 0.5)).unwrap()));
        for (w, ids) in worlds.iter_mut().zip(&ids) {
            for (id, pose) in ids.iter().zip(&poses) {
                w.set_pose(*id, *pose).unwrap();
            }
            if let Some((i, shape)) = &reshape {
                w.set_shape(ids[*i], shape.clone()).unwrap();
            }
            w.step();
        }
        assert_same(&worlds[0], &worlds[1], &format!("step {step}"));
        (reused, touching) = (reused + worlds[0].last_step_counts().reused, touching + worlds[0].contacts().len());
    }
    (reused, touching)
}

/// A regular polygon of `n` vertices and circumradius 0.55 centred on `far`.
fn polygon(n: usize, far: Vec2, radius: f32) -> Shape {
    let vs: Vec<Vec2> = (0..n)
        .map(|k| {
            let t = std::f32::consts::TAU * k as f32 / n as f32 + 0.3;
            Vec2::new(t.cos(), t.sin()) * (0.55 - radius) + far
        })
        .collect();
    Shape::polygon(&vs, radius).unwrap()
}

#[test]
fn jittered_pile_of_boxes_and_polygons() {
    let (reused, touching) = jittered_pile(|i, far| match i % 4 {
        0 => (Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap(), Vec2::ZERO),
        1 => (Shape::rounded_box(Vec2::new(0.45, 0.5), 0.05).unwrap(), Vec2::ZERO),
        _ => (polygon(3 + i % 6, far, 0.0), far),
    });
    assert!(reused as usize * 2 > touching, "{reused} reused, {touching} contacts");
}

/// The same with circles, capsules and segments among the boxes and polygons (rounded ones
/// too): neighbours make the kind pairs that reuse (circles against polygons, capsules and
/// segments against boxes and polygons, rounded shapes resting with their cores apart) and
/// some that always run the full kernel (circles against circles, boxes and capsules,
/// capsules against capsules and segments).
#[test]
fn jittered_pile_of_circles_capsules_boxes_and_polygons() {
    let (reused, touching) = jittered_pile(|i, far| match i % 8 {
        0 | 4 => (Shape::capsule(Vec2::new(-0.3, -0.05) + far, Vec2::new(0.3, 0.05) + far, 0.26).unwrap(), far),
        1 => (Shape::circle(0.56).unwrap(), Vec2::ZERO),
        2 => (polygon(3 + i % 6, far, 0.1), far),
        3 => (Shape::cuboid(Vec2::new(0.5, 0.45)).unwrap(), Vec2::ZERO),
        5 => (Shape::rounded_segment(Vec2::new(-0.45, 0.1) + far, Vec2::new(0.45, -0.1) + far, 0.05).unwrap(), far),
        6 => (Shape::rounded_box(Vec2::new(0.4, 0.45), 0.1).unwrap(), Vec2::ZERO),
        _ => (polygon(3 + i % 6, far, 0.0), far),
    });
    assert!(reused as usize * 5 > touching * 3, "{reused} reused, {touching} contacts");
}

/// Boxes and polygons side by side (each pressing on the next) on a floor of welded static
/// tiles, with pair hooks that edit some manifolds, while tiles are removed and put back (their
/// neighbours' welds change) and a static is reshaped: reuse on and off stay identical. Pairs
/// with a welded tile run the welded kernel in full; those between the bodies reuse.
#[test]
fn resting_on_welded_tiles_while_the_level_changes() {
    use std::sync::Arc;

    use sapwood::collide::Manifold;
    use sapwood::{ColliderView, PairHooks};

    struct Halve;
    impl PairHooks for Halve {
        fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, m: &mut Manifold) -> bool {
            if (a.user_data + b.user_data).is_multiple_of(3) {
                m.points.iter_mut().for_each(|p| p.depth *= 0.5);
            }
            true
        }
    }
    let (on, off) = configs();
    let mut worlds = [World::with_config(on).unwrap(), World::with_config(off).unwrap()];
    let mut rng = sapwood_support::f64_rng::F64Rng::new(11);
    let mut tiles = [Vec::new(), Vec::new()];
    let mut bodies = [Vec::new(), Vec::new()];
    let mut poses = Vec::new();
    for (w, (tiles, bodies)) in worlds.iter_mut().zip(tiles.iter_mut().zip(bodies.iter_mut())) {
        w.set_pair_hooks(Some(Arc::new(Halve)));
        for k in 0..40 {
            let tile = ColliderDesc::new(
                Shape::cuboid(Vec2::splat(0.5)).unwrap(),
                Pose::from_translation(Vec2::new(k as f32, 0.0)),
            );
            tiles.push(w.insert(tile.fixed().with_user_data(k)).unwrap());
        }
        for k in 0..30 {
            let shape = if k % 2 == 0 {
                Shape::cuboid(Vec2::new(0.4, 0.3)).unwrap()
            } else {
                Shape::polygon(
                    &[Vec2::new(-0.4, -0.3), Vec2::new(0.4, -0.3), Vec2::new(0.3, 0.3), Vec2::new(-0.3, 0.3)],
                    0.0,
                )
                .unwrap()
            };
            // Side by side, each overlapping the next a little: pairs of bodies that rest.
            let pose = Pose::new(Vec2::new(0.79 * k as f32 + 0.2, 0.795), 0.002 * (k % 3) as f32);
            bodies.push(w.insert(ColliderDesc::new(shape, pose).with_user_data(100 + k)).unwrap());
        }
    }
    for &id in &bodies[0] {
        poses.push(worlds[0].pose(id).unwrap());
    }
    let mut reused = 0;
    for step in 0..150 {
        for pose in &mut poses {
            let d = Vec2::new(rng.range(-1.0, 1.0) as f32, rng.range(-1.0, 1.0) as f32) * 2e-6;
            *pose = Pose::new(pose.p + d, pose.q.angle() + rng.range(-1.0, 1.0) as f32 * 2e-6);
        }
        for (i, w) in worlds.iter_mut().enumerate() {
            for (id, pose) in bodies[i].iter().zip(&poses) {
                w.set_pose(*id, *pose).unwrap();
            }
            let tile = 3 + (step / 10) % 30;
            match step % 10 {
                3 => {
                    w.remove(tiles[i][tile]).unwrap();
                }
                7 => {
                    let desc = ColliderDesc::new(
                        Shape::cuboid(Vec2::splat(0.5)).unwrap(),
                        Pose::from_translation(Vec2::new(tile as f32, 0.0)),
                    );
                    tiles[i][tile] = w.insert(desc.fixed()).unwrap();
                }
                9 => w.set_shape(tiles[i][tile + 1], Shape::cuboid(Vec2::new(0.5, 0.49)).unwrap()).unwrap(),
                _ => {}
            }
            w.step();
        }
        assert_same(&worlds[0], &worlds[1], &format!("step {step}"));
        reused += worlds[0].last_step_counts().reused;
    }
    assert!(reused > 1000, "{reused}");
}
