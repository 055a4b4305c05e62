//! `World::shift_origin`: a world built far from the origin and shifted back must hold the
//! pairs and, after one step, the contacts of a world built at the shifted coordinates; the
//! shift must keep every invariant (`validate`), be deterministic for any thread count, and
//! leave the world unchanged when it refuses an offset.

use std::collections::BTreeMap;

use sapwood::broad::BroadPhaseKind;
use sapwood::{Aabb, ColliderDesc, ColliderId, Filter, Pose, Shape, Vec2, World, WorldConfig, WorldError};
use sapwood_support::SplitMix64;

/// The broad phases, the bounded ones over a region around `center`.
fn kinds(center: Vec2) -> [BroadPhaseKind; 7] {
    BroadPhaseKind::all(Aabb::new(center - Vec2::splat(40.0), center + Vec2::splat(40.0)), 2.0)
}

fn shape(rng: &mut SplitMix64) -> Shape {
    let s = rng.range(0.4, 1.5);
    match rng.next_u64() % 4 {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::capsule(Vec2::new(-s, 0.0), Vec2::new(s, 0.2), 0.3 * s).unwrap(),
        2 => Shape::cuboid(Vec2::new(s, 0.6 * s)).unwrap(),
        _ => Shape::rounded_box(Vec2::new(s, 0.5 * s), 0.1).unwrap(),
    }
}

/// Descriptions of a crowded scene within ±12 of the origin: moving colliders, a few static
/// ones and sensors, one collider too large for the SAP, and a filter that keeps some apart.
fn scene(seed: u64) -> Vec<ColliderDesc> {
    let mut rng = SplitMix64::new(seed);
    let mut descs = Vec::new();
    for i in 0..160u64 {
        let p = Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0));
        let mut d = ColliderDesc::new(shape(&mut rng), Pose::new(p, rng.range(-3.0, 3.0))).with_user_data(i);
        d.is_static = i % 9 == 0;
        d.sensor = i % 13 == 5;
        if i % 11 == 3 {
            d.filter = Filter { group: -1, ..Filter::default() };
        }
        descs.push(d);
    }
    let wall = Shape::cuboid(Vec2::new(300.0, 0.5)).unwrap();
    descs.push(ColliderDesc::new(wall, Pose::from_translation(Vec2::new(0.0, -13.0))).with_user_data(999));
    descs
}

/// A world with `descs` moved to `at`, stepped a few times with moves there (so that pairs,
/// contacts and the structures have a history at those coordinates).
fn far_world(config: WorldConfig, descs: &[ColliderDesc], at: Vec2) -> (World, Vec<ColliderId>) {
    let mut world = World::with_config(config).unwrap();
    let ids: Vec<ColliderId> = descs
        .iter()
        .map(|d| {
            let mut d = d.clone();
            d.pose.p += at;
            world.insert(d).unwrap()
        })
        .collect();
    let mut rng = SplitMix64::new(7);
    for _ in 0..4 {
        world.step();
        for (&id, d) in ids.iter().zip(descs) {
            if !d.is_static && rng.next_f32() < 0.5 {
                let pose = world.pose(id).unwrap();
                let nudge = Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
                world.set_pose(id, Pose::new(pose.p + nudge, pose.q.angle() + 0.1)).unwrap();
            }
        }
    }
    world.step();
    (world, ids)
}

/// Contacts by the user data of their colliders.
fn contacts_by_user(world: &World) -> BTreeMap<(u64, u64), sapwood::Contact> {
    let user = |id: sapwood::ColliderId| world.user_data(id).unwrap();
    world.contacts().iter().map(|c| ((user(c.a), user(c.b)), *c)).collect()
}

/// After a shift and a step, the world agrees with one built at the shifted poses: the same
/// touching pairs and manifolds within 1e-5 of the shapes' size (they are computed from the
/// same poses and shapes, so in fact exactly).
#[test]
fn shifted_worlds_match_worlds_built_at_the_shifted_coordinates() {
    let descs = scene(1);
    let mut checked = 0;
    for far in [Vec2::new(1.0e5, -1.0e5), Vec2::new(-3.0e6, 2.5e6), Vec2::new(9.9e6, 9.9e6), Vec2::new(-9.99e6, 5.0e6)]
    {
        for broad_phase in kinds(far) {
            let config = WorldConfig { broad_phase, ..WorldConfig::default() };
            let (mut world, ids) = far_world(config, &descs, far);
            let before = world.contacts().len();
            world.shift_origin(far).unwrap();
            world.validate().unwrap_or_else(|e| panic!("{broad_phase:?} at {far}: {e}"));
            // The contacts stay, their points moved by the offset (to the spacing at `far`).
            assert_eq!(world.contacts().len(), before);
            let spacing = 2.0 * far.abs().max_element() * f32::EPSILON;
            world.step();
            world.validate().unwrap();

            let mut near = World::with_config(*world.config()).unwrap();
            for (&id, d) in ids.iter().zip(&descs) {
                let d = ColliderDesc { pose: world.pose(id).unwrap(), ..d.clone() };
                near.insert(d).unwrap();
            }
            near.step();
            let (got, want) = (contacts_by_user(&world), contacts_by_user(&near));
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                want.keys().collect::<Vec<_>>(),
                "{broad_phase:?} at {far}: touching pairs differ"
            );
            assert!(got.len() > 40, "the scene should be crowded: {} contacts", got.len());
            let tol = 1e-5 * 1.5;
            for (k, c) in &got {
                let (m, n) = (&c.manifold, &want[k].manifold);
                assert_eq!(m.count, n.count);
                assert!((m.normal - n.normal).length() <= tol, "{k:?}: normal {m:?} vs {n:?}");
                for (p, q) in m.points().iter().zip(n.points()) {
                    assert!((p.point - q.point).length() <= tol && (p.depth - q.depth).abs() <= tol, "{k:?}");
                }
            }
            assert!(spacing < 3.0);
            checked += 1;
        }
    }
    assert_eq!(checked, 28);
}

/// Boxes less than one f32 spacing apart at the new coordinates come to touch: the shift must
/// give them pairs (`validate` compares the pairs with every touching pair of fat boxes).
#[test]
fn rounding_that_makes_boxes_touch_makes_pairs() {
    let exact =
        WorldConfig { aabb_margin: 0.0, aabb_margin_ratio: 0.0, aabb_motion_factor: 0.0, ..WorldConfig::default() };
    for broad_phase in kinds(Vec2::ZERO) {
        let mut world = World::with_config(WorldConfig { broad_phase, ..exact }).unwrap();
        let circle = Shape::circle(0.5).unwrap();
        let at = |x: f32, y: f32| Pose::from_translation(Vec2::new(x, y));
        // Mover pairs apart by 1e-6 on x, then a static wall apart by 1e-6 on y.
        world.insert(ColliderDesc::new(circle.clone(), at(0.0, 0.0))).unwrap();
        world.insert(ColliderDesc::new(circle.clone(), at(1.000_001, 0.0))).unwrap();
        world.insert(ColliderDesc::new(circle.clone(), at(0.0, 1.000_002))).unwrap();
        let wall = Shape::cuboid(Vec2::new(5.0, 0.5)).unwrap();
        world.insert(ColliderDesc::new(wall, at(0.0, -1.000_001)).fixed()).unwrap();
        world.step();
        assert!(world.contacts().is_empty());
        world.validate().unwrap();
        // At 1e5 the spacing is 2^-7: all four come to touch.
        world.shift_origin(Vec2::new(-1.0e5, -1.0e5)).unwrap();
        world.validate().unwrap_or_else(|e| panic!("{broad_phase:?}: {e}"));
        world.step();
        world.validate().unwrap();
        assert!(!world.contacts().is_empty(), "{broad_phase:?}: the rounded circles touch");
    }
}

/// The outcome of a shift does not depend on the thread count.
#[test]
fn shifts_are_deterministic_for_any_thread_count() {
    let descs = scene(2);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let far = Vec2::new(4.0e6, -4.0e6);
            let (mut world, _) = far_world(WorldConfig::default(), &descs, far);
            world.shift_origin(far - Vec2::new(3.0, 1.0)).unwrap();
            let shifted = world.to_bytes();
            world.step();
            world.shift_origin(Vec2::new(-2.0e5, 1.0e5)).unwrap();
            world.step();
            (shifted, world.to_bytes(), world.state_hash())
        })
    };
    let one = run(1);
    assert_eq!(run(2), one);
    assert_eq!(run(8), one);
}

#[test]
fn refused_offsets_leave_the_world_unchanged() {
    let (mut world, ids) = far_world(WorldConfig::default(), &scene(3), Vec2::new(9.0e6, 0.0));
    let before = world.to_bytes();
    let mut refuse = |offset: Vec2, want: WorldError| {
        assert_eq!(world.shift_origin(offset), Err(want), "{offset}");
        assert_eq!(world.to_bytes(), before, "{offset} changed the world");
    };
    refuse(Vec2::new(f32::NAN, 0.0), WorldError::InvalidOffset);
    refuse(Vec2::new(0.0, f32::INFINITY), WorldError::InvalidOffset);
    refuse(Vec2::new(f32::NEG_INFINITY, f32::NAN), WorldError::InvalidOffset);
    // The colliders near x = 9e6 would end beyond 1e7 on either side.
    refuse(Vec2::new(-2.0e6, 0.0), WorldError::OutOfRange);
    refuse(Vec2::new(0.0, 1.1e7), WorldError::OutOfRange);
    refuse(Vec2::new(3.0e7, 0.0), WorldError::OutOfRange);
    // Zero is a no-op; an empty world takes any offset up to twice the limit.
    world.shift_origin(Vec2::ZERO).unwrap();
    assert_eq!(world.to_bytes(), before);
    let mut empty = World::new();
    assert_eq!(empty.shift_origin(Vec2::splat(2.1e7)), Err(WorldError::OutOfRange));
    empty.shift_origin(Vec2::splat(2.0e7)).unwrap();
    assert!(world.contains(ids[0]));
}

/// Shifting there and back with removals, inserts and a snapshot in between keeps every
/// invariant, and a restored world goes on exactly like the original.
#[test]
fn shifts_mix_with_edits_and_snapshots() {
    let descs = scene(4);
    let far = Vec2::new(2.0e5, 7.0e5);
    let (mut world, mut ids) = far_world(WorldConfig::default(), &descs, far);
    let mut rng = SplitMix64::new(9);
    for round in 0..6 {
        // Pending edits travel through the shift.
        for _ in 0..3 {
            let id = ids.swap_remove((rng.next_u64() % ids.len() as u64) as usize);
            world.remove(id).unwrap();
        }
        let p = world.pose(ids[0]).unwrap().p + Vec2::new(0.5, 0.5);
        ids.push(world.insert(ColliderDesc::new(Shape::circle(0.7).unwrap(), Pose::from_translation(p))).unwrap());
        let offset = if round % 2 == 0 { far } else { -far };
        world.shift_origin(offset).unwrap();
        world.validate().unwrap_or_else(|e| panic!("round {round}: {e}"));
        let mut copy = World::from_bytes(&world.to_bytes()).unwrap();
        assert_eq!(copy.state_hash(), world.state_hash());
        world.step();
        copy.step();
        world.validate().unwrap();
        assert_eq!(copy.to_bytes(), world.to_bytes(), "round {round}");
    }
}
