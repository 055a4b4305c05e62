//! A steady-state step allocates nothing: a counting global allocator watches a full period of
//! a periodic scene (stepped, its impulses stored as a solver would, and queried) after periods
//! of warm-up (which size every scratch buffer).

use sapwood_support::{alloc_count, periodic, stacks};

#[global_allocator]
static GLOBAL: alloc_count::Counting = alloc_count::Counting;

const WARM_UP_PERIODS: usize = 32;

const BULLET_WARM_UP_PERIODS: usize = 30;

#[test]
fn steady_state_step_allocates_nothing() {
    let _turn = alloc_count::serial();
    for config in periodic::configs() {
        steady_state_step_allocates_nothing_with(config, false);
    }
}

/// The pair filter (at pair creation) and the contact hook (in the parallel narrow phase) add
/// no allocation either.
#[test]
fn steady_state_step_with_pair_hooks_allocates_nothing() {
    let _turn = alloc_count::serial();
    steady_state_step_allocates_nothing_with(sapwood::WorldConfig::default(), true);
}

/// Live state switched on some colliders every half period (every setter, see
/// `periodic::switch_state`): refreshed pairs and structure moves allocate nothing either.
#[test]
fn steady_state_step_with_state_switches_allocates_nothing() {
    let _turn = alloc_count::serial();
    for config in periodic::configs() {
        steady_state_step_allocates_nothing_switching(config, false, true);
    }
}

fn steady_state_step_allocates_nothing_with(config: sapwood::WorldConfig, hooks: bool) {
    steady_state_step_allocates_nothing_switching(config, hooks, false);
}

fn steady_state_step_allocates_nothing_switching(config: sapwood::WorldConfig, hooks: bool, switch: bool) {
    let pool = alloc_count::pool(2);
    pool.install(|| {
        alloc_count::take();
        let mut scene = periodic::build_with(4000, 3, config);
        if hooks {
            scene.world.set_pair_hooks(Some(std::sync::Arc::new(periodic::Hooks)));
        }
        for t in 0..2 * periodic::PERIOD {
            periodic::animate(&mut scene, t);
            if switch {
                periodic::switch_state(&mut scene, t);
            }
            scene.world.step();
        }
        assert!(!scene.world.contacts().is_empty());
        let mut hits = Vec::with_capacity(4096);
        let query = |world: &sapwood::World, hits: &mut Vec<sapwood::ColliderId>| {
            // Queries flush the movers' query tree: steady state must not allocate there either.
            let filter = sapwood::QueryFilter::default();
            hits.clear();
            world
                .query_aabb(&sapwood::Aabb::new(sapwood::Vec2::ZERO, sapwood::Vec2::splat(30.0)), &filter, hits)
                .unwrap();
            let ray = sapwood::Ray::new(sapwood::Vec2::ZERO, sapwood::Vec2::new(1.0, 0.7).normalize());
            world.ray_cast(&ray, 100.0, &filter).unwrap().is_some()
        };
        // The scene repeats every period, but the fat boxes (stretched along each collider's
        // motion, each renewed with a share of its reach drawn from its slot and box) need not:
        // a structure can still reach a new high-water mark (a scratch list's length, ids in a
        // hash cell) now and then, ever more rarely. Allocations per period 2..60: the SAP world
        // one in the 25th; the spatial-hash world one each in the 2nd, 6th, 19th, 25th, 30th and
        // 31st (a hash cell's list past 16 ids, a scratch list doubling past 512 entries). So:
        // warm up to the 32nd period, then four periods without a single allocation.
        let mut period = |k: usize, hits: &mut Vec<sapwood::ColliderId>| {
            let mut any_hit = false;
            for t in k * periodic::PERIOD..(k + 1) * periodic::PERIOD {
                periodic::animate(&mut scene, t);
                if switch {
                    periodic::switch_state(&mut scene, t);
                }
                scene.world.step();
                // A solver's write-back, which the next step carries by feature id.
                scene.world.store_impulses(|i, c| c.manifold.points.map(|p| (p.normal_impulse + 1.0, i as f32)));
                any_hit |= query(&scene.world, hits);
            }
            any_hit
        };
        // Switched colliders move between the structures (a static switch) and refresh their
        // pairs, so node pools and scratch lists reach their high-water marks later, as with
        // bullets: per period 2..60 the SAP world allocates once in the 2nd, 24th, 44th and
        // 51st, the spatial-hash world once in the 2nd, 24th, 36th, 44th, 47th, 50th and 51st,
        // and neither in the four from the 30th.
        let warm_up = if switch { BULLET_WARM_UP_PERIODS } else { WARM_UP_PERIODS };
        for k in 2..warm_up {
            period(k, &mut hits);
        }
        alloc_count::set_counting(true);
        let mut any_hit = false;
        for k in warm_up..warm_up + 4 {
            any_hit |= period(k, &mut hits);
        }
        alloc_count::set_counting(false);
        assert_eq!(alloc_count::allocations(), 0, "allocations during steady-state steps, {:?}", config.broad_phase);
        assert!(any_hit && !hits.is_empty(), "the queries must find something to mean anything");
    });
}

/// The same with bullets crossing the scene at 3 units a step (back and forth, so the scene
/// stays periodic) and the swept and distance queries asked every step: the continuous phase
/// and the new queries allocate nothing in steady state either.
#[test]
fn steady_state_step_with_bullets_allocates_nothing() {
    let _turn = alloc_count::serial();
    let pool = alloc_count::pool(2);
    pool.install(|| {
        let mut scene = periodic::build_with(3000, 5, sapwood::WorldConfig::default());
        let side = (3000.0f32 / 0.5).sqrt();
        let ball = sapwood::Shape::circle(0.1).unwrap();
        let bullets: Vec<(sapwood::ColliderId, sapwood::Vec2)> = (0..200)
            .map(|i| {
                let p = sapwood::Vec2::new(0.0, side * (i as f32 + 0.5) / 200.0);
                let desc = sapwood::ColliderDesc::new(ball.clone(), sapwood::Pose::from_translation(p)).bullet();
                (scene.world.insert(desc).unwrap(), p)
            })
            .collect();
        let mut impacts = 0;
        let mut hits = Vec::with_capacity(4096);
        let mut step = |scene: &mut periodic::Scene, t: usize, hits: &mut Vec<sapwood::WorldCastHit>| {
            periodic::animate(scene, t);
            let k = t % periodic::PERIOD;
            let x = 3.0 * if k < periodic::PERIOD / 2 { k } else { periodic::PERIOD - k } as f32;
            for &(id, p) in &bullets {
                scene.world.set_pose(id, sapwood::Pose::from_translation(p + sapwood::Vec2::new(x, 0.0))).unwrap();
            }
            scene.world.step();
            impacts += scene.world.impacts().len();
            let (filter, options) = (sapwood::QueryFilter::default(), sapwood::query::CastOptions::default());
            let pose = sapwood::Pose::from_translation(sapwood::Vec2::splat(side * 0.5));
            let t = sapwood::Vec2::new(20.0, 5.0);
            let w = &scene.world;
            let hit = w.cast_shape(&ball, &pose, t, &options, &filter).unwrap().is_some();
            hits.clear();
            w.cast_shape_all(&ball, &pose, t, &options, &filter, hits).unwrap();
            let near = w.distance_to_nearest(&ball, &pose, 10.0, &filter).unwrap().is_some();
            let ray = sapwood::Ray::new(pose.p, sapwood::Vec2::X);
            w.ray_cast_with(&ray, 50.0, &filter, |h| h.t).unwrap();
            hit && near
        };
        // The bullets' swept fat boxes make the pair searches' lists wander longer before they
        // repeat: over 40 periods, allocations came in the 6th (2), 13th and 19th (1 each, the
        // escaped colliders' began-pairs list growing) and none after. So warm up 24 periods.
        for t in 0..BULLET_WARM_UP_PERIODS * periodic::PERIOD {
            step(&mut scene, t, &mut hits);
        }
        alloc_count::take();
        alloc_count::set_counting(true);
        let mut found = false;
        for t in BULLET_WARM_UP_PERIODS * periodic::PERIOD..(BULLET_WARM_UP_PERIODS + 4) * periodic::PERIOD {
            found |= step(&mut scene, t, &mut hits);
        }
        alloc_count::set_counting(false);
        assert_eq!(alloc_count::allocations(), 0, "allocations during steady-state steps with bullets");
        assert!(found && impacts > 1000, "the bullets must hit things ({impacts} impacts) and the queries find some");
    });
}

/// The character mover allocates nothing once the caller's `hits` has grown: a capsule walks
/// back and forth over a traced tile map (slopes, steps, a one-way chain) beside a moving
/// platform, jumping now and then, and only its `move_character` calls are counted, after a
/// warm-up lap.
#[test]
fn character_mover_allocates_nothing() {
    use sapwood::{ChainOptions, CharacterConfig, ColliderDesc, Pose, Shape, TileMap, Vec2, World};
    let _turn = alloc_count::serial();
    let map = TileMap::parse(
        "
        #..............................#
        #..............................#
        #..............................#
        #..............................#
        #.........../####\\.............#
        #......###########.....##......#
        ################################",
    )
    .unwrap();
    let mut world = World::new();
    for chain in map.chains(1.0, Vec2::ZERO, false).unwrap() {
        world.insert(ColliderDesc::new(Shape::Chain(chain), Pose::IDENTITY).fixed()).unwrap();
    }
    let oneway =
        Shape::chain(vec![Vec2::new(28.0, 4.0), Vec2::new(25.0, 4.0)], ChainOptions { one_sided: true, closed: false });
    world.insert(ColliderDesc::new(oneway.unwrap(), Pose::IDENTITY).fixed()).unwrap();
    let slab = Shape::cuboid(Vec2::new(1.5, 0.2)).unwrap();
    let platform_at = |f: usize| Pose::from_translation(Vec2::new(16.0 + 6.0 * (f as f32 * 0.02).sin(), 4.5));
    let platform = world.insert(ColliderDesc::new(slab, platform_at(0))).unwrap();
    world.step();
    let player = Shape::capsule(Vec2::new(0.0, -0.3), Vec2::new(0.0, 0.3), 0.3).unwrap();
    let config = CharacterConfig::default();
    let mut pose = Pose::from_translation(Vec2::new(2.0, 1.7));
    let mut hits = Vec::with_capacity(64);
    let mut vy = 0.0f32;
    let (mut moves, mut grounded_frames) = (0, 0);
    for f in 0..2400 {
        world.set_pose(platform, platform_at(f)).unwrap();
        world.step();
        // Lap of 600 frames: right for 300, left for 300; a jump every 90 frames.
        let vx = if f % 600 < 300 { 0.08 } else { -0.08 };
        vy = if f % 90 == 0 { 0.35 } else { (vy - 0.02).max(-0.4) };
        let counting = f >= 600;
        alloc_count::set_counting(counting);
        let m = world.move_character(&player, &pose, Vec2::new(vx, vy), &config, &mut hits).unwrap();
        alloc_count::set_counting(false);
        if m.grounded && vy < 0.0 {
            vy = 0.0;
        }
        if m.hit_ceiling {
            vy = vy.min(0.0);
        }
        grounded_frames += usize::from(m.grounded);
        moves += usize::from(m.translation.length() > 0.01);
        pose = m.pose;
    }
    assert_eq!(alloc_count::take(), 0, "allocations in move_character after a warm-up lap");
    assert!(
        moves > 1500 && grounded_frames > 1000,
        "the walk must mean something: {moves} moves, {grounded_frames} grounded"
    );
}

/// Restoring the contacts' collider order allocates nothing: stacked crates whose contacts
/// stand out of order (`stacks::out_of_order`), then calm steps, the first of which sorts the
/// contacts.
#[test]
fn contact_sort_allocates_nothing() {
    let _turn = alloc_count::serial();
    let pool = alloc_count::pool(2);
    pool.install(|| {
        alloc_count::take();
        let (mut world, ids) = stacks::out_of_order();
        assert!(stacks::descents(world.contacts()) > 0);
        alloc_count::set_counting(true);
        for k in 0..10 {
            stacks::nudge(&mut world, &ids, if k % 2 == 0 { 1e-6 } else { -1e-6 });
            world.step();
        }
        alloc_count::set_counting(false);
        assert_eq!(stacks::descents(world.contacts()), 0, "the calm steps sorted the contacts");
        assert_eq!(alloc_count::allocations(), 0, "allocations during the sort and the calm steps");
    });
}

/// The counter itself: an allocation made while counting is seen, on the counting thread and
/// on an enrolled pool's worker (so the zeros above mean something).
#[test]
fn the_counter_sees_allocations() {
    use std::hint::black_box;
    let _turn = alloc_count::serial();
    alloc_count::take();
    alloc_count::set_counting(true);
    let v = black_box(vec![1u8; 100]);
    alloc_count::set_counting(false);
    drop(v);
    assert!(alloc_count::take() >= 1);

    let pool = alloc_count::pool(2);
    let count = |f: &(dyn Fn() -> usize + Sync)| {
        alloc_count::take();
        alloc_count::set_counting(true);
        black_box(pool.install(f));
        alloc_count::set_counting(false);
        alloc_count::take()
    };
    // Fifty allocations on a worker, well above the few a hand-off to the pool may make.
    let busy = count(&|| (0..50).map(|i| black_box(vec![i as u8; 100]).len()).sum());
    assert!(busy >= 50, "a worker's allocations: {busy} counted");
}

/// Regression: the workers of a dropped pool exit on their own time, and on the way out they
/// allocate (a worker hands its leftovers to crossbeam's epoch collector). They used to be
/// counted when that fell in the next test's counted window (the character mover's, once: one
/// allocation). A worker now leaves the count as it leaves its loop.
#[test]
fn a_dropped_pools_exiting_workers_are_not_counted() {
    use rayon::prelude::*;
    let _turn = alloc_count::serial();
    let mut counted = 0;
    for _ in 0..20 {
        let pool = alloc_count::pool(2);
        let v: Vec<usize> = (0..10_000).collect();
        std::hint::black_box(pool.install(|| v.par_iter().sum::<usize>()));
        drop(pool);
        alloc_count::take();
        alloc_count::set_counting(true);
        std::thread::sleep(std::time::Duration::from_millis(20));
        alloc_count::set_counting(false);
        counted += alloc_count::take();
    }
    assert_eq!(counted, 0, "allocations of exiting workers counted");
}

/// Resting pairs of every convex kind (circles, capsules, segments, boxes, polygons, rounded
/// ones) nudged by micrometres each step, as a solver nudges them: the steps that take their
/// manifolds from reused decisions allocate nothing either.
#[test]
fn resting_pairs_reusing_manifolds_allocate_nothing() {
    use sapwood::{ColliderDesc, Pose, Shape, Vec2};
    let _turn = alloc_count::serial();
    let pool = alloc_count::pool(2);
    pool.install(|| {
        alloc_count::take();
        let shapes = [
            Shape::circle(0.56).unwrap(),
            Shape::capsule(Vec2::new(-0.3, -0.05), Vec2::new(0.3, 0.05), 0.26).unwrap(),
            Shape::cuboid(Vec2::new(0.5, 0.45)).unwrap(),
            sapwood::Polygon::regular(6, 0.5, 0.05).map(Shape::from).unwrap(),
            Shape::rounded_segment(Vec2::new(-0.45, 0.1), Vec2::new(0.45, -0.1), 0.05).unwrap(),
            sapwood::Polygon::regular(5, 0.55, 0.0).map(Shape::from).unwrap(),
        ];
        let mut world = sapwood::World::new();
        let mut placed: Vec<(sapwood::ColliderId, Pose)> = (0..200)
            .map(|i| {
                let pose = Pose::new(Vec2::new((i % 20) as f32, (i / 20) as f32) * 0.98, 0.01 * (i % 5) as f32);
                (world.insert(ColliderDesc::new(shapes[i % 6].clone(), pose)).unwrap(), pose)
            })
            .collect();
        let mut rng = sapwood_support::SplitMix64::new(5);
        let mut step = |world: &mut sapwood::World| {
            for (id, pose) in &mut placed {
                let d = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 3e-6;
                *pose = Pose::new(pose.p + d, pose.q.angle() + rng.range(-1.0, 1.0) * 3e-6);
                world.set_pose(*id, *pose).unwrap();
            }
            world.step();
            world.store_impulses(|i, c| c.manifold.points.map(|p| (p.normal_impulse + 1.0, i as f32)));
            world.last_step_counts().reused
        };
        for _ in 0..20 {
            step(&mut world);
        }
        alloc_count::set_counting(true);
        let reused: u32 = (0..50).map(|_| step(&mut world)).sum();
        alloc_count::set_counting(false);
        assert_eq!(alloc_count::allocations(), 0, "allocations while resting pairs reuse their manifolds");
        assert!(reused as usize > 50 * world.contacts().len() / 2, "{reused} reused");
    });
}

/// A world of two statics, one of them moved every step: each step rewelds every static at once
/// (the path a level's load takes, with its neighbour lists), and allocates nothing once warm.
#[test]
fn statics_rewelded_at_once_every_step_allocate_nothing() {
    use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    let _turn = alloc_count::serial();
    let pool = alloc_count::pool(2);
    pool.install(|| {
        let tile = || Shape::cuboid(Vec2::splat(0.5)).unwrap();
        let mut world = World::new();
        let moving = world.insert(ColliderDesc::new(tile(), Pose::from_translation(Vec2::ZERO)).fixed()).unwrap();
        world.insert(ColliderDesc::new(tile(), Pose::from_translation(Vec2::new(1.0, 0.0))).fixed()).unwrap();
        world
            .insert(ColliderDesc::new(Shape::circle(0.3).unwrap(), Pose::from_translation(Vec2::new(0.5, 0.75))))
            .unwrap();
        let frame = |world: &mut World, t: usize| {
            let x = if t.is_multiple_of(2) { 0.0 } else { -0.25 };
            world.set_pose(moving, Pose::from_translation(Vec2::new(x, 0.0))).unwrap();
            world.step();
        };
        // Replaced welds leave their records behind until a thousand have piled up and are
        // compacted away: the record list reaches its high-water mark within 150 steps.
        for t in 0..300 {
            frame(&mut world, t);
        }
        assert!(!world.contacts().is_empty());
        alloc_count::take();
        alloc_count::set_counting(true);
        for t in 300..600 {
            frame(&mut world, t);
        }
        alloc_count::set_counting(false);
        assert_eq!(alloc_count::allocations(), 0, "allocations while rewelding every static each step");
    });
}
