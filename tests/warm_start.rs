//! Warm-starting state carried by the world: the impulses a solver stores with
//! `World::store_impulses` go, at the next step, to the point of the pair's recomputed manifold
//! with the same feature id; other points start at zero; a pair not recomputed keeps its own.
//! Checked against an oracle (the contacts before the step, matched by pair and id) in scenes
//! whose narrow phase takes either path (many movers: contacts updated in place; few: the
//! movers' pair lists), for 1, 2 and 8 threads, through snapshots, rebuilds and the contact hook.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sapwood::collide::Manifold;
use sapwood::{ColliderDesc, ColliderId, ColliderView, Contact, PairHooks, Pose, Shape, Vec2, World};
use sapwood_support::{SplitMix64, periodic, stacks};

/// A fake solver's answer for contact `i`'s points: distinct, never zero, and depending on what
/// the points carried, so that a carry to the wrong point or a lost impulse changes everything
/// after it.
fn fake_solve(step: usize, i: usize, c: &Contact) -> [(f32, f32); 2] {
    let mut out = [(0.0, 0.0); 2];
    for (k, p) in c.manifold.points().iter().enumerate() {
        let fresh = (step * 7919 + i * 2 + k) as f32 + 0.5;
        out[k] = (fresh + 0.25 * p.normal_impulse, -fresh + 0.5 * p.tangent_impulse);
    }
    out
}

/// What the oracle saw of one step.
#[derive(Default, Debug)]
struct Tally {
    /// Contacts of two unmoved colliders, equal bit for bit to their manifold before the step.
    kept: usize,
    /// Points of recomputed contacts that found their feature id before and got its impulses.
    carried: usize,
    /// Points of recomputed, continuing contacts with a feature id new to the pair: zero.
    new_points: usize,
    /// Contacts that began touching: all zero.
    began: usize,
}

/// Checks the contacts after a step against those before it (with the impulses stored) and the
/// colliders moved in between.
fn check_carry(before: &[Contact], moved: &HashSet<u32>, after: &[Contact], tally: &mut Tally) {
    let prev: HashMap<_, &Manifold> = before.iter().map(|c| ((c.a, c.b), &c.manifold)).collect();
    for c in after {
        let m = &c.manifold;
        let Some(old) = prev.get(&(c.a, c.b)) else {
            assert!(m.points.iter().all(|p| (p.normal_impulse, p.tangent_impulse) == (0.0, 0.0)), "began: {c:?}");
            tally.began += 1;
            continue;
        };
        if !moved.contains(&c.a.index()) && !moved.contains(&c.b.index()) {
            assert_eq!(m, *old, "a pair of two unmoved colliders keeps its manifold and impulses");
            tally.kept += 1;
            continue;
        }
        for p in m.points() {
            match old.points().iter().find(|q| q.id == p.id) {
                Some(q) => {
                    assert_eq!((p.normal_impulse, p.tangent_impulse), (q.normal_impulse, q.tangent_impulse), "{c:?}");
                    assert_ne!(p.normal_impulse, 0.0);
                    tally.carried += 1;
                }
                None => {
                    assert_eq!((p.normal_impulse, p.tangent_impulse), (0.0, 0.0), "new point: {c:?}");
                    tally.new_points += 1;
                }
            }
        }
        let unused = &m.points[m.count as usize..];
        assert!(unused.iter().all(|p| (p.normal_impulse, p.tangent_impulse) == (0.0, 0.0)), "{c:?}");
    }
}

/// The periodic scene (every shape kind, statics, sensors) with `movers_every`-th of its moving
/// colliders animated each step, a fake solver storing impulses after each step, and the oracle
/// after the next. Returns the tally and the state hash after every step.
fn run_oracle(threads: usize, movers_every: usize, steps: usize) -> (Tally, Vec<u64>) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut scene = periodic::build(3000, 21);
        let mut tally = Tally::default();
        let mut hashes = Vec::new();
        scene.world.step();
        for t in 0..steps {
            scene.world.store_impulses(|i, c| fake_solve(t, i, c));
            let before = scene.world.contacts().to_vec();
            let mut moved = HashSet::new();
            let phase = t as f32 * 0.05;
            for (i, &id) in scene.ids.iter().enumerate() {
                if scene.moving[i] && i % movers_every == 0 {
                    // Small moves, so that most touching pairs keep touching and most points
                    // keep their features; turning a little makes some change them.
                    let h = scene.home[i];
                    let r = 0.3 + (i % 5) as f32 * 0.1;
                    let pose =
                        Pose::new(h.p + r * Vec2::new(phase.cos(), phase.sin()), h.q.angle() + 0.2 * phase.sin());
                    scene.world.set_pose(id, pose).unwrap();
                    moved.insert(id.index());
                }
            }
            scene.world.step();
            check_carry(&before, &moved, scene.world.contacts(), &mut tally);
            hashes.push(scene.world.state_hash());
        }
        (tally, hashes)
    })
}

/// Half the colliders move: the narrow phase updates touching pairs in place in parallel.
#[test]
fn impulses_follow_feature_ids_with_many_movers() {
    let (tally, _) = run_oracle(2, 1, 40);
    eprintln!("many movers: {tally:?}");
    assert!(tally.kept > 100 && tally.carried > 1000 && tally.new_points > 10 && tally.began > 10, "{tally:?}");
}

/// One collider in 40 moves: the narrow phase walks the movers' pair lists and the serial apply
/// writes the updates.
#[test]
fn impulses_follow_feature_ids_with_few_movers() {
    let (tally, _) = run_oracle(2, 40, 60);
    eprintln!("few movers: {tally:?}");
    assert!(tally.kept > 1000 && tally.carried > 100 && tally.new_points > 0 && tally.began > 0, "{tally:?}");
}

/// The contacts, impulses included, and the whole state are bit-identical for 1, 2 and 8
/// threads.
#[test]
fn carried_impulses_are_identical_for_any_thread_count() {
    for movers_every in [1, 40] {
        let (_, one) = run_oracle(1, movers_every, 30);
        assert_eq!(one, run_oracle(2, movers_every, 30).1, "1 vs 2 threads, movers every {movers_every}");
        assert_eq!(one, run_oracle(8, movers_every, 30).1, "1 vs 8 threads, movers every {movers_every}");
    }
}

fn ground_and_crate(world: &mut World, y: f32) -> ColliderId {
    let ground = Shape::cuboid(Vec2::new(5.0, 0.5)).unwrap();
    world.insert(ColliderDesc::new(ground, Pose::IDENTITY).fixed()).unwrap();
    let crate_ = Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap();
    world.insert(ColliderDesc::new(crate_, Pose::from_translation(Vec2::new(0.0, y)))).unwrap()
}

fn impulses(world: &World) -> Vec<(u32, f32, f32)> {
    let c = &world.contacts()[0];
    c.manifold.points().iter().map(|p| (p.id, p.normal_impulse, p.tangent_impulse)).collect()
}

/// A crate resting on the ground, moved a little: both corners keep their ids and impulses. A
/// crate tilted onto one corner has a one-point manifold; set down flat, that corner keeps its
/// impulse and the other corner, new, starts at zero.
#[test]
fn resting_crate_keeps_its_impulses_and_a_new_corner_starts_at_zero() {
    let mut world = World::new();
    let crate_ = ground_and_crate(&mut world, 0.99);
    world.step();
    assert_eq!(impulses(&world).iter().map(|p| (p.1, p.2)).collect::<Vec<_>>(), [(0.0, 0.0); 2]);
    world.store_impulses(|_, _| [(3.0, -1.0), (5.0, 2.0)]);
    let stored = impulses(&world);
    world.set_pose(crate_, Pose::from_translation(Vec2::new(0.02, 0.985))).unwrap();
    world.step();
    let mut now = impulses(&world);
    now.sort_by_key(|p| p.0);
    let mut want = stored.clone();
    want.sort_by_key(|p| p.0);
    assert_eq!(now, want, "same corners, same impulses");

    // Tilted by 0.1 rad onto one corner, 0.01 deep.
    let tilt = Pose::new(Vec2::new(0.0, 0.5 + 0.5 * (0.1f32.cos() + 0.1f32.sin()) - 0.01), 0.1);
    world.set_pose(crate_, tilt).unwrap();
    world.step();
    assert_eq!(world.contacts()[0].manifold.count, 1);
    world.store_impulses(|_, _| [(7.0, 0.5), (9.0, 9.0)]);
    let corner = impulses(&world)[0];
    assert_eq!((corner.1, corner.2), (7.0, 0.5), "only the manifold's one point is stored");
    world.set_pose(crate_, Pose::from_translation(Vec2::new(0.0, 0.99))).unwrap();
    world.step();
    let flat = impulses(&world);
    assert_eq!(flat.len(), 2);
    for p in flat {
        let want = if p.0 == corner.0 { (7.0, 0.5) } else { (0.0, 0.0) };
        assert_eq!((p.1, p.2), want, "point {:#x}, tilted corner {:#x}", p.0, corner.0);
    }
}

/// A pair that stops touching and touches again starts from zero: lifted a little (the pair
/// stays, without a contact) or far (the pair ends), then set down where it was.
#[test]
fn a_pair_that_separates_and_touches_again_starts_at_zero() {
    for lift in [0.05, 20.0] {
        let mut world = World::new();
        let crate_ = ground_and_crate(&mut world, 0.99);
        world.step();
        world.store_impulses(|_, _| [(3.0, -1.0), (5.0, 2.0)]);
        world.set_pose(crate_, Pose::from_translation(Vec2::new(0.0, 0.99 + lift))).unwrap();
        world.step();
        assert!(world.contacts().is_empty());
        world.set_pose(crate_, Pose::from_translation(Vec2::new(0.0, 0.99))).unwrap();
        world.step();
        assert_eq!(impulses(&world).iter().map(|p| (p.1, p.2)).collect::<Vec<_>>(), [(0.0, 0.0); 2], "lift {lift}");
    }
}

/// Contacts not recomputed keep their impulses, and the write-back touches nothing else: ids,
/// normals, points, depths and counts are those of the step.
#[test]
fn store_impulses_changes_only_impulses_and_still_pairs_keep_them() {
    let mut world = World::new();
    ground_and_crate(&mut world, 0.99);
    world.step();
    let before = world.contacts()[0];
    world.store_impulses(|i, c| {
        assert_eq!((i, *c), (0, before));
        [(f32::NAN, f32::INFINITY), (-0.0, 1e30)]
    });
    let after = world.contacts()[0];
    let strip = |c: &Contact| {
        let mut c = *c;
        for p in &mut c.manifold.points {
            (p.normal_impulse, p.tangent_impulse) = (0.0, 0.0);
        }
        c
    };
    assert_eq!(strip(&after), strip(&before));
    let bits = |c: &Contact| c.manifold.points.map(|p| (p.normal_impulse.to_bits(), p.tangent_impulse.to_bits()));
    let stored = [(f32::NAN.to_bits(), f32::INFINITY.to_bits()), ((-0.0f32).to_bits(), 1e30f32.to_bits())];
    assert_eq!(bits(&after), stored, "stored as given");
    world.step();
    world.step();
    assert_eq!(bits(&world.contacts()[0]), stored, "nothing moved: nothing recomputed");
    // Through a snapshot too, bit for bit, and into the state hash.
    let copy = World::from_bytes(&world.to_bytes()).unwrap();
    assert_eq!(bits(&copy.contacts()[0]), stored);
    assert_eq!(copy.state_hash(), world.state_hash());
    let mut other = World::from_bytes(&world.to_bytes()).unwrap();
    other.store_impulses(|_, _| [(1.0, 0.0); 2]);
    assert_ne!(other.state_hash(), world.state_hash(), "the impulses are state");
}

/// A restored world warm-starts exactly like the original: same impulses carried, step after
/// step, with the same fake solver.
#[test]
fn a_restored_world_carries_the_same_impulses() {
    let mut scene = periodic::build(2000, 5);
    for t in 0..5 {
        periodic::animate(&mut scene, t);
        scene.world.step();
        scene.world.store_impulses(|i, c| fake_solve(t, i, c));
    }
    let copy = World::from_bytes(&scene.world.to_bytes()).unwrap();
    assert_eq!(copy.contacts(), scene.world.contacts());
    let mut worlds = [scene.world, copy];
    for t in 5..20 {
        for w in &mut worlds {
            let mut rng = SplitMix64::new(t as u64);
            let ids: Vec<ColliderId> = w.ids().collect();
            for &id in ids.iter().step_by(3) {
                let p = w.pose(id).unwrap();
                let d = Vec2::new(rng.next_f32() - 0.5, rng.next_f32() - 0.5) * 0.05;
                w.set_pose(id, Pose::new(p.p + d, p.q.angle())).unwrap();
            }
            w.step();
            w.store_impulses(|i, c| fake_solve(t, i, c));
        }
        let bytes = |w: &World| bytemuck::cast_slice::<_, u8>(w.contacts()).to_vec();
        assert_eq!(bytes(&worlds[0]), bytes(&worlds[1]), "step {t}");
        assert_eq!(worlds[0].state_hash(), worlds[1].state_hash());
    }
    assert!(worlds[0].contacts().iter().any(|c| c.manifold.points[0].normal_impulse != 0.0));
}

/// A world rebuilt with another broad phase keeps the impulses of its contacts.
#[test]
fn a_rebuilt_world_keeps_the_impulses() {
    let mut scene = periodic::build(2000, 8);
    periodic::animate(&mut scene, 0);
    scene.world.step();
    scene.world.store_impulses(|i, c| fake_solve(1, i, c));
    let config = sapwood::WorldConfig { broad_phase: sapwood::BroadPhaseKind::DynamicTree, ..*scene.world.config() };
    let copy = scene.world.rebuilt_with(config).unwrap();
    let by_pair =
        |w: &World| -> HashMap<_, Manifold> { w.contacts().iter().map(|c| ((c.a, c.b), c.manifold)).collect() };
    assert!(!scene.world.contacts().is_empty());
    assert_eq!(by_pair(&copy), by_pair(&scene.world));
}

/// The contact hook sees zero impulses and cannot set them: a contact that begins starts at
/// zero, a continuing one gets what the solver stored.
#[test]
fn the_contact_hook_cannot_set_impulses() {
    struct Meddler;
    impl PairHooks for Meddler {
        fn modify_contact(&self, _: &ColliderView, _: &ColliderView, m: &mut Manifold) -> bool {
            for p in &mut m.points {
                assert_eq!((p.normal_impulse, p.tangent_impulse), (0.0, 0.0));
                (p.normal_impulse, p.tangent_impulse) = (42.0, 42.0);
            }
            true
        }
    }
    let mut world = World::new();
    world.set_pair_hooks(Some(Arc::new(Meddler)));
    let crate_ = ground_and_crate(&mut world, 0.99);
    world.step();
    assert!(world.contacts()[0].manifold.points.iter().all(|p| p.normal_impulse == 0.0));
    world.store_impulses(|_, _| [(1.0, 2.0); 2]);
    world.set_pose(crate_, Pose::from_translation(Vec2::new(0.01, 0.99))).unwrap();
    world.step();
    assert!(world.contacts()[0].manifold.points().iter().all(|p| (p.normal_impulse, p.tangent_impulse) == (1.0, 2.0)));
}

/// `contacts_of` hands out the same records, impulses included; `part_contacts` computes fresh
/// manifolds, with zero impulses.
#[test]
fn contacts_of_and_part_contacts() {
    let mut world = World::new();
    let crate_ = ground_and_crate(&mut world, 0.99);
    world.step();
    world.store_impulses(|_, _| [(1.5, 0.5); 2]);
    let mut seen = Vec::new();
    world.contacts_of(crate_, |c| seen.push(*c)).unwrap();
    assert_eq!(seen, world.contacts());
    let ground = world.ids().next().unwrap();
    let mut parts = 0;
    world
        .part_contacts(ground, crate_, |_, _, m| {
            parts += 1;
            assert!(m.points.iter().all(|p| (p.normal_impulse, p.tangent_impulse) == (0.0, 0.0)));
        })
        .unwrap();
    assert_eq!(parts, 1);
}

/// The impulses live in the `Pod` records: the zero-copy export sees them, at fixed offsets.
#[test]
fn the_impulses_are_part_of_the_exported_records() {
    use sapwood::collide::ManifoldPoint;
    assert_eq!(std::mem::size_of::<ManifoldPoint>(), 24);
    assert_eq!(std::mem::size_of::<Contact>(), 76);
    let mut world = World::new();
    ground_and_crate(&mut world, 0.99);
    world.step();
    world.store_impulses(|_, _| [(2.0, 3.0), (4.0, 5.0)]);
    let bytes: &[u8] = bytemuck::cast_slice(world.contacts());
    let f32_at = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    // a, b (8 bytes each), normal (8), then each point: point (8), depth, id, impulses.
    let first_point = 16 + 8;
    assert_eq!([f32_at(first_point + 16), f32_at(first_point + 20)], [2.0, 3.0]);
    assert_eq!([f32_at(first_point + 24 + 16), f32_at(first_point + 24 + 20)], [4.0, 5.0]);
}

/// Stacked crates whose contacts ended and began again out of collider order
/// (`stacks::out_of_order`): at the next calm step the world sorts its contacts back into
/// collider order, and every point keeps the impulses stored for its pair and feature id, with
/// 1 and 2 threads alike.
#[test]
fn contacts_regain_collider_order_and_keep_their_impulses() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (mut world, ids) = stacks::out_of_order();
            let pairs = stacks::COLUMNS * (stacks::ROWS - 1);
            assert_eq!(world.contacts().len(), pairs);
            let descents = stacks::descents(world.contacts());
            assert!(descents * 4 > pairs, "out of order before the calm step: {descents} descents");
            let stored = |c: &Contact, id: u32| (c.a.index() as f32 + 0.25, id as f32 + c.b.index() as f32);
            world.store_impulses(|_, c| {
                let mut out = [(0.0, 0.0); 2];
                for (o, p) in out.iter_mut().zip(c.manifold.points()) {
                    *o = stored(c, p.id);
                }
                out
            });
            stacks::nudge(&mut world, &ids, 1e-6);
            world.step();
            world.validate().unwrap();
            let contacts = world.contacts();
            assert_eq!(contacts.len(), pairs);
            let key = |c: &Contact| (c.a.index(), c.b.index());
            assert!(contacts.windows(2).all(|w| key(&w[0]) < key(&w[1])), "in collider order");
            for c in contacts {
                for p in c.manifold.points() {
                    assert_eq!((p.normal_impulse, p.tangent_impulse), stored(c, p.id), "{c:?}");
                }
            }
            bytemuck::cast_slice::<_, u8>(contacts).to_vec()
        })
    };
    assert!(run(1) == run(2), "the same contacts for any thread count");
}
