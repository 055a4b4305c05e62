//! `World: Clone + Debug`: a clone is an independent world in the same state, which steps in
//! lock step with the original under the same changes, on every broad phase; `{:?}` is a short
//! summary.

use std::sync::Arc;

use sapwood::collide::Manifold;
use sapwood::{
    Aabb, BroadPhaseKind, ColliderDesc, ColliderId, ColliderView, PairHooks, Pose, QueryFilter, Shape, Vec2, World,
    WorldConfig,
};
use sapwood_support::SplitMix64;

/// Disables contacts with colliders whose user data is 0 mod 7.
struct Hooks;

impl PairHooks for Hooks {
    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, _m: &mut Manifold) -> bool {
        !a.user_data.is_multiple_of(7) && !b.user_data.is_multiple_of(7)
    }
}

fn desc(rng: &mut SplitMix64, i: u64) -> ColliderDesc {
    let p = Vec2::new(rng.range(-15.0, 15.0), rng.range(-15.0, 15.0));
    let shape = match i % 4 {
        0 => Shape::circle(rng.range(0.3, 1.0)).unwrap(),
        1 => Shape::cuboid(Vec2::new(rng.range(0.3, 1.0), 0.4)).unwrap(),
        2 => Shape::capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.3).unwrap(),
        _ => Shape::polygon(&[Vec2::ZERO, Vec2::X, Vec2::new(0.3, 0.8)], 0.0).unwrap(),
    };
    let mut d = ColliderDesc::new(shape, Pose::new(p, rng.range(-3.0, 3.0))).with_user_data(i);
    d.is_static = i.is_multiple_of(10);
    d.sensor = i % 13 == 4;
    d.bullet = i % 9 == 2;
    d
}

/// One step's worth of changes drawn from `rng`: moves, a removal and an insert.
fn change(world: &mut World, ids: &mut Vec<ColliderId>, rng: &mut SplitMix64) {
    for &id in ids.iter() {
        if rng.next_f32() < 0.3 {
            let pose = world.pose(id).unwrap();
            let p = pose.p + Vec2::new(rng.range(-0.8, 0.8), rng.range(-0.8, 0.8));
            world
                .set_pose(id, Pose::new(p.clamp(Vec2::splat(-16.0), Vec2::splat(16.0)), pose.q.angle() + 0.2))
                .unwrap();
        }
    }
    let gone = ids.swap_remove(rng.below(ids.len()));
    world.remove(gone).unwrap();
    let i = rng.next_u64() % 1000;
    let d = desc(rng, i);
    ids.push(world.insert(d).unwrap());
}

#[test]
fn a_clone_steps_in_lock_step_with_the_original_on_every_broad_phase() {
    let bounds = Aabb::new(Vec2::splat(-20.0), Vec2::splat(20.0));
    for broad_phase in BroadPhaseKind::all(bounds, 2.0) {
        let mut world = World::with_config(WorldConfig { broad_phase, ..WorldConfig::default() }).unwrap();
        world.set_pair_hooks(Some(Arc::new(Hooks)));
        let mut rng = SplitMix64::new(7);
        let mut ids: Vec<ColliderId> = (0..300).map(|i| world.insert(desc(&mut rng, i)).unwrap()).collect();
        for _ in 0..5 {
            change(&mut world, &mut ids, &mut rng);
            world.step();
        }
        // Changes pending, and the movers' query tree flushed by a query after them: the clone
        // takes both.
        change(&mut world, &mut ids, &mut rng);
        let probe = Aabb::new(Vec2::splat(-3.0), Vec2::splat(3.0));
        let mut hits = Vec::new();
        world.query_aabb(&probe, &QueryFilter::default(), &mut hits).unwrap();
        let mut copy = world.clone();
        assert_eq!(copy.state_hash(), world.state_hash(), "{broad_phase:?}");
        assert_eq!(copy.to_bytes(), world.to_bytes(), "{broad_phase:?}");
        let mut copy_hits = Vec::new();
        copy.query_aabb(&probe, &QueryFilter::default(), &mut copy_hits).unwrap();
        assert_eq!(copy_hits, hits, "{broad_phase:?}");

        let (mut ids_copy, mut rng_copy) = (ids.clone(), rng);
        let mut impacts = 0;
        for step in 0..20 {
            world.step();
            copy.step();
            let what = format!("{broad_phase:?}, step {step}");
            assert_eq!(copy.state_hash(), world.state_hash(), "{what}");
            assert_eq!(copy.contacts(), world.contacts(), "{what}");
            assert_eq!(copy.events(), world.events(), "{what}");
            assert_eq!(copy.impacts(), world.impacts(), "{what}");
            impacts += world.impacts().len();
            change(&mut world, &mut ids, &mut rng);
            change(&mut copy, &mut ids_copy, &mut rng_copy);
        }
        assert!(impacts > 0 && !world.contacts().is_empty(), "{broad_phase:?}: a lively scene");

        // Independent: stepping the copy its own way leaves the original as it was.
        let (hash, bytes) = (world.state_hash(), world.to_bytes());
        for &id in &ids_copy[..50] {
            copy.set_pose(id, Pose::from_translation(Vec2::new(0.0, 1.0))).unwrap();
        }
        copy.remove(ids_copy[60]).unwrap();
        copy.set_pair_hooks(None);
        copy.step();
        assert_ne!(copy.state_hash(), hash);
        assert_eq!((world.state_hash(), world.to_bytes()), (hash, bytes), "{broad_phase:?}: the original changed");
    }
}

#[test]
fn debug_is_a_short_summary() {
    let mut world = World::new();
    let mut rng = SplitMix64::new(3);
    for i in 0..2000 {
        world.insert(desc(&mut rng, i)).unwrap();
    }
    world.step();
    let text = format!("{world:?}");
    assert!(text.starts_with("World { colliders: 2000, bullets: 222, pairs: "), "{text}");
    assert!(text.contains(&format!("contacts: {}, ", world.contacts().len())), "{text}");
    assert!(text.contains("broad_phase: IncrementalSap"), "{text}");
    assert!(text.len() < 600, "{} bytes: {text}", text.len());
}
