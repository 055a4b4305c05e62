//! `World::state_hash`: equal for equal states however they were reached (thread count, run,
//! snapshot round trip), different after any change that decides later steps.

use sapwood::broad::BroadPhaseKind;
use sapwood::{ColliderDesc, ColliderId, Filter, Pose, Shape, Vec2, World, WorldConfig};
use sapwood_support::SplitMix64;

fn descs(seed: u64, n: usize) -> Vec<ColliderDesc> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let p = Vec2::new(rng.range(-10.0, 10.0), rng.range(-10.0, 10.0));
            let shape = match i % 3 {
                0 => Shape::circle(rng.range(0.3, 1.0)).unwrap(),
                1 => Shape::cuboid(Vec2::new(rng.range(0.3, 1.0), 0.4)).unwrap(),
                _ => Shape::capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.3).unwrap(),
            };
            let mut d = ColliderDesc::new(shape, Pose::new(p, rng.range(-3.0, 3.0))).with_user_data(i as u64);
            d.is_static = i % 10 == 0;
            d.sensor = i % 17 == 4;
            d
        })
        .collect()
}

/// A world stepped `steps` times with moves, removals and inserts drawn from `seed`.
fn churned(config: WorldConfig, seed: u64, steps: usize) -> (World, Vec<ColliderId>, Vec<u64>) {
    let mut world = World::with_config(config).unwrap();
    let mut ids: Vec<ColliderId> = descs(seed, 300).into_iter().map(|d| world.insert(d).unwrap()).collect();
    let mut rng = SplitMix64::new(seed ^ 0x55);
    let mut hashes = Vec::new();
    for _ in 0..steps {
        for &id in &ids {
            if rng.next_f32() < 0.3 {
                let pose = world.pose(id).unwrap();
                let p = pose.p + Vec2::new(rng.range(-0.2, 0.2), rng.range(-0.2, 0.2));
                world.set_pose(id, Pose::new(p, pose.q.angle() + 0.05)).unwrap();
            }
        }
        for _ in 0..2 {
            let id = ids.swap_remove((rng.next_u64() % ids.len() as u64) as usize);
            world.remove(id).unwrap();
        }
        let d = descs(rng.next_u64(), 1).pop().unwrap();
        ids.push(world.insert(d).unwrap());
        hashes.push(world.state_hash());
        world.step();
        hashes.push(world.state_hash());
    }
    (world, ids, hashes)
}

#[test]
fn equal_for_any_thread_count_and_distinct_from_step_to_step() {
    for broad_phase in [BroadPhaseKind::IncrementalSap, BroadPhaseKind::DynamicTree] {
        let config = WorldConfig { broad_phase, ..WorldConfig::default() };
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| churned(config, 1, 30).2)
        };
        let one = run(1);
        assert_eq!(run(2), one, "{broad_phase:?}: 2 threads");
        assert_eq!(run(8), one, "{broad_phase:?}: 8 threads");
        // Every edit and every step changed the state.
        let mut sorted = one.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), one.len(), "two different states hashed alike");
    }
}

#[test]
fn equal_after_a_snapshot_round_trip_and_in_lock_step_after_it() {
    let (mut world, ids, _) = churned(WorldConfig::default(), 2, 10);
    // Pending changes (a move, a removal, an insert) travel through the snapshot too.
    world.set_pose(ids[3], Pose::from_translation(Vec2::new(1.0, 2.0))).unwrap();
    world.remove(ids[4]).unwrap();
    world.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::IDENTITY)).unwrap();
    let mut copy = World::from_bytes(&world.to_bytes()).unwrap();
    assert_eq!(copy.state_hash(), world.state_hash());
    for _ in 0..5 {
        world.step();
        copy.step();
        assert_eq!(copy.state_hash(), world.state_hash());
    }
    // Another broad phase is another config, and so another state.
    let config = WorldConfig { broad_phase: BroadPhaseKind::SortSweep, ..*world.config() };
    assert_ne!(world.rebuilt_with(config).unwrap().state_hash(), world.state_hash());
}

/// The value is a function of the state alone: the same in every run and process (no
/// addresses, no hash-map order, a fixed seed). The constant was recorded from this build; it
/// changes only when the hash's definition or the world's state layout does.
#[test]
fn equal_across_runs() {
    // Allocation history differs between the two worlds (addresses, capacities).
    let _noise: Vec<Vec<u8>> = (0..100).map(|i| vec![0; i * 37]).collect();
    let build = || {
        let mut w = World::new();
        for d in descs(3, 40) {
            w.insert(d).unwrap();
        }
        w
    };
    let (a, b) = (build(), build());
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(a.state_hash(), GOLDEN, "the hash of an unstepped world changed: {:#018x}", a.state_hash());
}

const GOLDEN: u64 = 0x20be_8cf3_55cc_395a;

/// Each kind of change gives another value: pose, shape, filter, static and sensor flags,
/// user data, membership, and an id's generation (a collider removed and inserted again).
#[test]
fn different_after_any_change() {
    let base = descs(4, 50);
    let build = |edit: &dyn Fn(&mut Vec<ColliderDesc>)| {
        let mut d = base.clone();
        edit(&mut d);
        let mut w = World::new();
        let ids: Vec<ColliderId> = d.into_iter().map(|d| w.insert(d).unwrap()).collect();
        w.step();
        (w, ids)
    };
    let (mut world, ids) = build(&|_| {});
    let h0 = world.state_hash();
    assert_eq!(build(&|_| {}).0.state_hash(), h0);
    let mut seen = vec![h0];
    let mut differs = |what: &str, h: u64| {
        assert!(!seen.contains(&h), "{what}: the hash did not change");
        seen.push(h);
    };
    // Built differently.
    differs("filter", build(&|d| d[7].filter = Filter { category: 2, mask: 3, group: 0 }).0.state_hash());
    differs("filter group", build(&|d| d[7].filter.group = -1).0.state_hash());
    differs("static flag", build(&|d| d[7].is_static = !d[7].is_static).0.state_hash());
    differs("sensor flag", build(&|d| d[7].sensor = !d[7].sensor).0.state_hash());
    differs("one fewer collider", build(&|d| drop(d.pop())).0.state_hash());
    // Edited in place (each edit undone before the next, so each is compared with h0 too).
    let id = ids[7];
    let pose = world.pose(id).unwrap();
    world.set_pose(id, Pose { p: pose.p + Vec2::new(1e-6, 0.0), ..pose }).unwrap();
    differs("pose by 1e-6", world.state_hash());
    let shape = world.shape(id).unwrap().clone();
    world.set_shape(id, shape.scaled(1.0001).unwrap()).unwrap();
    differs("shape", world.state_hash());
    world.set_user_data(id, 12345).unwrap();
    differs("user data", world.state_hash());
    world.step();
    differs("step", world.state_hash());
    world.remove(ids[9]).unwrap();
    differs("removal", world.state_hash());
    let again = world.insert(base[9].clone()).unwrap();
    differs("insert", world.state_hash());
    world.step();
    assert_ne!(again, ids[9]);
    differs("reinsert under a new generation", world.state_hash());
    world.shift_origin(Vec2::new(0.5, 0.0)).unwrap();
    differs("origin shift", world.state_hash());
}
