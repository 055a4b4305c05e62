//! `World::last_step_counts`: what each step did, counted for every broad phase — colliders
//! that escaped their fat boxes, candidate pairs made and freed, pairs evaluated — on a scripted
//! pair of boxes, and against a model of the candidate pairs over a random walk.

use sapwood::{Aabb, BroadPhaseKind, ColliderDesc, ColliderId, Pose, Shape, StepCounts, Vec2, World, WorldConfig};

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

fn unit_box(pose: Pose) -> ColliderDesc {
    ColliderDesc::new(Shape::cuboid(Vec2::splat(0.5)).unwrap(), pose)
}

fn worlds() -> impl Iterator<Item = World> {
    BroadPhaseKind::all(Aabb::new(Vec2::splat(-64.0), Vec2::splat(64.0)), 2.0)
        .into_iter()
        .map(|broad_phase| World::with_config(WorldConfig { broad_phase, ..WorldConfig::default() }).unwrap())
}

fn step(world: &mut World) -> StepCounts {
    world.step();
    world.validate().unwrap();
    world.last_step_counts()
}

fn counts(escaped: u32, pairs_began: u32, pairs_ended: u32, pairs: u32) -> StepCounts {
    StepCounts { escaped, pairs_began, pairs_ended, pairs, reused: 0 }
}

#[test]
fn a_box_moved_onto_another_and_away_again() {
    for mut world in worlds() {
        let _a = world.insert(unit_box(at(0.0, 0.0))).unwrap();
        let b = world.insert(unit_box(at(10.0, 0.0))).unwrap();
        assert_eq!(step(&mut world), counts(2, 0, 0, 0), "both new, far apart");
        world.set_pose(b, at(0.9, 0.0)).unwrap();
        assert_eq!(step(&mut world), counts(1, 1, 0, 1), "b escaped onto a");
        assert_eq!(world.contacts().len(), 1);
        world.set_pose(b, at(0.9001, 0.0)).unwrap();
        assert_eq!(step(&mut world), counts(0, 0, 0, 1), "within its fat box: evaluated, no escape");
        assert_eq!(step(&mut world), counts(0, 0, 0, 0), "nothing moved: nothing counted");
        world.set_pose(b, at(10.0, 0.0)).unwrap();
        assert_eq!(step(&mut world), counts(1, 0, 1, 0), "b escaped away: the pair freed");
        assert!(world.contacts().is_empty());
    }
}

/// Random walks of a few boxes: pairs made minus pairs freed is the candidate pair count, which
/// is never below the touching pairs, and a step never counts more escapes than moved colliders.
#[test]
fn made_and_freed_pairs_add_up_over_a_random_walk() {
    for mut world in worlds() {
        let mut ids: Vec<ColliderId> = Vec::new();
        let mut poses = Vec::new();
        let mut rng = 0x9e37_79b9_u32;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            rng as f32 / u32::MAX as f32
        };
        for i in 0..24 {
            let pose = at((i % 6) as f32 * 1.1, (i / 6) as f32 * 1.1);
            ids.push(world.insert(unit_box(pose)).unwrap());
            poses.push(pose);
        }
        let first = step(&mut world);
        assert_eq!(first.escaped, ids.len() as u32, "every new collider gets its first fat box");
        let mut live = i64::from(first.pairs_began);
        assert_eq!(first.pairs_ended, 0);
        let mut escapes = 0u64;
        for _ in 0..300 {
            let mut moved = 0;
            for (id, pose) in ids.iter().zip(&mut poses) {
                if next() < 0.3 {
                    let step = Vec2::new(next() - 0.5, next() - 0.5) * 0.4;
                    pose.p = (pose.p + step).clamp(Vec2::splat(-2.0), Vec2::splat(8.0));
                    world.set_pose(*id, *pose).unwrap();
                    moved += 1;
                }
            }
            let c = step(&mut world);
            assert!(c.escaped <= moved, "{} escaped of {moved} moved", c.escaped);
            escapes += u64::from(c.escaped);
            live += i64::from(c.pairs_began) - i64::from(c.pairs_ended);
            assert!(
                live >= world.contacts().len() as i64,
                "{live} candidate pairs, {} touching",
                world.contacts().len()
            );
            assert!(c.pairs as i64 <= live);
        }
        assert!(escapes > 100, "the walk is long enough to escape: {escapes}");
        // Every pair freed: the count comes back to zero.
        for (k, id) in ids.iter().enumerate() {
            world.set_pose(*id, at(k as f32 * 10.0, 40.0)).unwrap();
        }
        let c = step(&mut world);
        assert_eq!(live + i64::from(c.pairs_began) - i64::from(c.pairs_ended), 0);
        assert!(world.contacts().is_empty());
    }
}

/// Two columns of boxes falling together, each box a step's fall (further than its margin)
/// below where it was: every box escapes every step, and after the first fall their fat boxes
/// keep the same overlaps, so no pair is made or freed. The gaps (0.08) lie between the least
/// and the most two margins could add up to if each renewal drew its share (0.05 to 0.15), so a
/// drawn share would make and free pairs at every step.
#[test]
fn colliders_falling_together_keep_their_pairs() {
    for mut world in worlds() {
        let spacing = 1.08;
        let ids: Vec<(ColliderId, Vec2)> = (0..2)
            .flat_map(|i| (0..10).map(move |j| Vec2::new(i as f32 * spacing, j as f32 * spacing)))
            .map(|p| (world.insert(unit_box(at(p.x, p.y))).unwrap(), p))
            .collect();
        step(&mut world);
        for k in 1..30 {
            for &(id, p) in &ids {
                world.set_pose(id, at(p.x, p.y - k as f32)).unwrap();
            }
            let c = step(&mut world);
            assert_eq!(c.escaped, 20, "fall {k}: every box outran its margin");
            if k > 1 {
                assert_eq!((c.pairs_began, c.pairs_ended), (0, 0), "fall {k}: {c:?}");
            }
        }
    }
}
