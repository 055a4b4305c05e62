//! Snapshots: a restored world must be indistinguishable from the original under the same
//! moves (same ids, bit-identical contacts in the same order, same events), every damaged
//! snapshot must be refused, and no bytes at all may make `World::from_bytes` panic.
//!
//! The structural tests edit bytes on purpose and reseal them (`snapshot::reseal`), so that the
//! decoder's checks behind the checksum see the edits.

use std::panic::{AssertUnwindSafe, catch_unwind};

use sapwood::broad::BroadPhaseKind;
use sapwood::{
    ColliderDesc, ColliderId, Contact, Filter, Polygon, Pose, Shape, SnapshotError, Vec2, World, WorldConfig, snapshot,
};
use sapwood_support::SplitMix64;

/// `next_u64() % n`: the draw these seeded tests were written with (not [`SplitMix64::below`],
/// which maps a float and so gives other sequences).
fn below_mod(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

fn random_shape(rng: &mut SplitMix64) -> Shape {
    let s = rng.range(0.3, 1.5);
    match below_mod(rng, 6) {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::capsule(Vec2::new(-s, 0.0), Vec2::new(s, rng.range(-0.5, 0.5)), 0.3 * s).unwrap(),
        2 => Shape::cuboid(Vec2::new(s, rng.range(0.2, 1.2))).unwrap(),
        3 => Shape::rounded_box(Vec2::new(s, 0.5 * s), 0.1).unwrap(),
        4 => Shape::from(Polygon::regular(3 + below_mod(rng, 6), s, 0.0).unwrap()),
        _ => {
            let pts: Vec<Vec2> = (0..6).map(|_| Vec2::new(rng.range(-s, s), rng.range(-s, s))).collect();
            Shape::polygon(&pts, 0.0).unwrap_or_else(|_| Shape::circle(s).unwrap())
        }
    }
}

fn random_desc(rng: &mut SplitMix64, extent: f32) -> ColliderDesc {
    let pose = Pose::new(Vec2::new(rng.range(-extent, extent), rng.range(-extent, extent)), rng.range(-3.0, 3.0));
    let mut d = ColliderDesc::new(random_shape(rng), pose);
    d.is_static = rng.next_f32() < 0.1;
    d.sensor = rng.next_f32() < 0.08;
    d.bullet = rng.next_f32() < 0.15;
    if rng.next_f32() < 0.1 {
        // Never pair with each other.
        d.filter = Filter { group: -1, ..Filter::default() };
    }
    d.user_data = rng.next_u64();
    d
}

/// A world of `n` colliders of every kind (static, sensors, filtered, two larger than the
/// config's `large_extent`), already stepped a few times with moves, removals and inserts.
fn scene(config: WorldConfig, n: usize, extent: f32, rng: &mut SplitMix64) -> (World, Vec<ColliderId>) {
    let mut world = World::with_config(config).unwrap();
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(world.insert(random_desc(rng, extent)).unwrap());
    }
    for _ in 0..2 {
        let big = ColliderDesc::new(Shape::cuboid(Vec2::new(150.0, 1.0)).unwrap(), Pose::from_translation(Vec2::ZERO));
        ids.push(world.insert(big).unwrap());
    }
    world.step();
    for _ in 0..5 {
        perturb(&mut world, &mut ids, extent, rng);
        world.step();
    }
    // A mass removal leaves long free lists of slots and pair entries, whose order decides the
    // ids and pair entries that later inserts get.
    for _ in 0..n / 10 {
        let id = ids.swap_remove(below_mod(rng, ids.len()));
        world.remove(id).unwrap();
    }
    world.step();
    (world, ids)
}

/// One step's worth of changes: moves, shape changes, removals, inserts. Returns the ids the
/// inserts produced, so that the two worlds can be compared on them.
fn perturb(world: &mut World, ids: &mut Vec<ColliderId>, extent: f32, rng: &mut SplitMix64) -> Vec<ColliderId> {
    for &id in ids.iter() {
        if rng.next_f32() < 0.3 {
            let mut pose = world.pose(id).unwrap();
            pose = if rng.next_f32() < 0.02 {
                Pose::new(Vec2::new(rng.range(-extent, extent), rng.range(-extent, extent)), 0.0)
            } else {
                let p = (pose.p + Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3))).clamp_length_max(1.5 * extent);
                Pose::new(p, pose.q.angle() + rng.range(-0.2, 0.2))
            };
            world.set_pose(id, pose).unwrap();
        }
        if rng.next_f32() < 0.01 {
            world.set_shape(id, random_shape(rng)).unwrap();
        }
    }
    for _ in 0..below_mod(rng, 4) {
        if !ids.is_empty() {
            let id = ids.swap_remove(below_mod(rng, ids.len()));
            world.remove(id).unwrap();
        }
    }
    let mut new = Vec::new();
    for _ in 0..below_mod(rng, 4) {
        let id = world.insert(random_desc(rng, extent)).unwrap();
        ids.push(id);
        new.push(id);
    }
    new
}

/// A fake solver's impulses for contact `i`: new values that depend on the carried ones.
fn solve(i: usize, c: &Contact) -> [(f32, f32); 2] {
    c.manifold.points.map(|p| (0.5 * p.normal_impulse + 1.0 + i as f32, p.tangent_impulse - 1.0))
}

fn contact_bytes(world: &World) -> &[u8] {
    bytemuck::cast_slice::<Contact, u8>(world.contacts())
}

/// Restores `world` from its bytes (optionally after this step's changes are already applied
/// but not stepped) and steps both worlds with the same changes for `steps` steps.
fn run_twins(config: WorldConfig, seed: u64, pending_changes: bool, steps: usize) {
    let extent = 30.0;
    let mut rng = SplitMix64::new(seed);
    let (mut a, mut ids) = scene(config, 400, extent, &mut rng);
    assert!(a.contacts().len() > 20, "the scene should have many contacts, has {}", a.contacts().len());
    // A solver's impulses are state: the restored world must carry them as the original does.
    a.store_impulses(solve);
    if pending_changes {
        perturb(&mut a, &mut ids, extent, &mut rng);
    }
    let bytes = a.to_bytes();
    let mut b = World::from_bytes(&bytes).unwrap();
    b.validate().unwrap();
    assert_eq!(b.to_bytes(), bytes, "a restored world writes the same bytes");
    assert_eq!(b.ids().collect::<Vec<_>>(), a.ids().collect::<Vec<_>>());
    assert_eq!(b.events(), a.events());
    assert_eq!(b.impacts(), a.impacts());
    assert_eq!(contact_bytes(&b), contact_bytes(&a));

    let (mut rng_a, mut rng_b) = (SplitMix64::new(seed ^ 0xABCD), SplitMix64::new(seed ^ 0xABCD));
    let mut ids_b = ids.clone();
    let (mut began, mut ended, mut impacts) = (0, 0, 0);
    for step in 0..steps {
        a.step();
        b.step();
        assert_eq!(contact_bytes(&b), contact_bytes(&a), "contacts differ after step {step}");
        a.store_impulses(solve);
        b.store_impulses(solve);
        assert_eq!(b.events(), a.events(), "events differ after step {step}");
        assert_eq!(b.impacts(), a.impacts(), "impacts differ after step {step}");
        impacts += a.impacts().len();
        assert_eq!(b.to_bytes(), a.to_bytes(), "state differs after step {step}");
        began += a.events().iter().filter(|e| e.kind == sapwood::EventKind::ContactBegan).count();
        ended += a.events().iter().filter(|e| e.kind == sapwood::EventKind::ContactEnded).count();
        let new_a = perturb(&mut a, &mut ids, extent, &mut rng_a);
        let new_b = perturb(&mut b, &mut ids_b, extent, &mut rng_b);
        assert_eq!(new_a, new_b, "inserts after step {step} got different ids");
    }
    // The run must have exercised pair churn, or it proves little.
    assert!(began > 50 && ended > 50, "too little churn: {began} began, {ended} ended");
    assert!(impacts > steps / 10, "too few impacts: {impacts} in {steps} steps");
}

#[test]
fn restored_world_steps_identically_with_sap() {
    run_twins(WorldConfig::default(), 1, false, 150);
}

#[test]
fn restored_world_steps_identically_with_pending_changes() {
    // Inserts, removals and moves made after the last step travel in the snapshot too.
    run_twins(WorldConfig::default(), 2, true, 150);
}

#[test]
fn restored_world_steps_identically_with_other_broad_phases() {
    let margins =
        WorldConfig { aabb_margin: 0.1, aabb_margin_ratio: 0.5, large_extent: 100.0, ..WorldConfig::default() };
    for broad_phase in [BroadPhaseKind::SortSweep, BroadPhaseKind::DynamicTree, BroadPhaseKind::BruteForce] {
        run_twins(WorldConfig { broad_phase, ..margins }, 3, true, 40);
    }
}

#[test]
fn ids_stay_stale_or_valid_exactly_as_before() {
    let mut rng = SplitMix64::new(7);
    let (mut world, ids) = scene(WorldConfig::default(), 60, 10.0, &mut rng);
    let gone = ids[5];
    world.remove(gone).unwrap();
    world.step();
    // The removed slot is reused by the next insert, under a new generation.
    let reused = world.insert(random_desc(&mut rng, 10.0)).unwrap();
    assert_eq!(reused.index(), gone.index());
    let restored = World::from_bytes(&world.to_bytes()).unwrap();
    assert!(!restored.contains(gone));
    assert!(restored.contains(reused));
    for &id in ids.iter().filter(|&&id| id != gone) {
        assert!(restored.contains(id));
        assert_eq!(restored.pose(id).unwrap(), world.pose(id).unwrap());
        assert_eq!(restored.shape(id).unwrap(), world.shape(id).unwrap());
        assert_eq!(restored.user_data(id).unwrap(), world.user_data(id).unwrap());
    }
}

/// A small stepped world with pairs, contacts, sensor overlaps, pending events, pending inserts
/// and released slots: every section non-empty.
fn small_snapshot() -> Vec<u8> {
    let mut rng = SplitMix64::new(11);
    let (mut world, mut ids) = scene(WorldConfig::default(), 24, 3.0, &mut rng);
    assert!(!world.contacts().is_empty());
    perturb(&mut world, &mut ids, 3.0, &mut rng);
    let victim = ids[0];
    world.remove(victim).unwrap();
    world.insert(random_desc(&mut rng, 3.0)).unwrap();
    world.to_bytes()
}

/// Decodes `bytes`; a world that decodes must be valid, so it must step and round-trip.
fn decode_and_use(bytes: &[u8]) -> Result<(), SnapshotError> {
    let mut world = World::from_bytes(bytes)?;
    let again = world.to_bytes();
    assert_eq!(World::from_bytes(&again).map(|w| w.to_bytes()), Ok(again), "an accepted world does not round-trip");
    world.step();
    World::from_bytes(&world.to_bytes()).expect("a stepped accepted world restores");
    Ok(())
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = small_snapshot();
    assert!(decode_and_use(&bytes).is_ok());
    for len in 0..bytes.len() {
        assert!(World::from_bytes(&bytes[..len]).is_err(), "a prefix of {len} of {} bytes was accepted", bytes.len());
    }
}

#[test]
fn single_byte_corruptions_never_panic() {
    let bytes = small_snapshot();
    let mut rng = SplitMix64::new(99);
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..6000 {
        let mut v = bytes.clone();
        let at = below_mod(&mut rng, v.len());
        let flip = 1 + below_mod(&mut rng, 255) as u8;
        v[at] ^= flip;
        // A damaged header stays damaged; otherwise past the checksum to the structural checks.
        let _ = snapshot::reseal(&mut v);
        match catch_unwind(AssertUnwindSafe(|| decode_and_use(&v))) {
            Ok(Ok(())) => accepted += 1,
            Ok(Err(e)) => {
                assert!(!e.to_string().is_empty());
                rejected += 1;
            }
            Err(_) => panic!("corruption {i}: byte {at} ^= {flip:#04x} panicked"),
        }
    }
    // Most single-byte changes hit floats or user data that stay valid; many must be caught.
    assert!(rejected > 1000, "only {rejected} of 6000 corruptions rejected ({accepted} accepted)");
}

#[test]
fn random_garbage_never_panics() {
    let valid = small_snapshot();
    let mut rng = SplitMix64::new(5);
    for i in 0..3000 {
        let len = below_mod(&mut rng, 2 * valid.len());
        let mut v: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if i % 3 == 0 && v.len() > 40 {
            // Plausible small counts and lengths instead of random ones.
            for k in (20..v.len()).step_by(7) {
                v[k] = 0;
            }
        }
        if i % 2 == 0 && v.len() >= 20 {
            // A valid header and checksum, so the garbage reaches the section parser.
            v[..12].copy_from_slice(&valid[..12]);
            snapshot::reseal(&mut v).unwrap();
        }
        let r = catch_unwind(AssertUnwindSafe(|| decode_and_use(&v)));
        assert!(r.is_ok(), "garbage {i} ({len} bytes) panicked");
    }
    assert_eq!(World::from_bytes(&[]).err(), Some(SnapshotError::BadMagic));
    let mut v = valid.clone();
    v[8..12].copy_from_slice(&99u32.to_le_bytes());
    assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::UnsupportedVersion { found: 99, supported: 10 }));
}

#[test]
fn huge_counts_do_not_allocate() {
    // Every u32 position set to u32::MAX in turn: a count there must be refused by the
    // remaining-bytes cap (an allocation of 4 billion records would abort the test).
    let bytes = small_snapshot();
    for at in 20..bytes.len() - 4 {
        let mut v = bytes.clone();
        v[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        snapshot::reseal(&mut v).unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| decode_and_use(&v)));
        assert!(r.is_ok(), "u32::MAX at byte {at} panicked");
    }
}

/// The damage done to a snapshot by `corrupt`, by kind.
const KINDS: [&str; 6] = ["bit flip", "byte write", "truncation", "swap", "insertion", "burst"];

/// Damages `bytes` in place in one of six ways, chosen by `kind`. A byte write and a swap
/// always change something (a write of the same value or a swap of equal bytes is drawn again).
fn corrupt(bytes: &mut Vec<u8>, kind: usize, rng: &mut SplitMix64) {
    let n = bytes.len();
    match kind {
        0 => {
            // One or three flips: an odd count of single-bit flips can never cancel out.
            for _ in 0..1 + 2 * below_mod(rng, 2) {
                let at = below_mod(rng, n);
                bytes[at] ^= 1 << below_mod(rng, 8);
            }
        }
        1 => {
            let at = below_mod(rng, n);
            let old = bytes[at];
            while bytes[at] == old {
                bytes[at] = rng.next_u64() as u8;
            }
        }
        2 => bytes.truncate(below_mod(rng, n)),
        3 => loop {
            let (i, j) = (below_mod(rng, n), below_mod(rng, n));
            if bytes[i] != bytes[j] {
                bytes.swap(i, j);
                break;
            }
        },
        4 => {
            let at = below_mod(rng, n + 1);
            let len = 1 + below_mod(rng, 16);
            let extra: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            bytes.splice(at..at, extra);
        }
        _ => {
            // A run of up to 64 random bytes overwritten (a torn write, a bad sector).
            let at = below_mod(rng, n);
            let end = (at + 1 + below_mod(rng, 64)).min(n);
            for b in &mut bytes[at..end] {
                *b = rng.next_u64() as u8;
            }
        }
    }
}

#[test]
fn every_random_corruption_is_rejected() {
    // Several worlds: the small one with every section filled, two stepped scenes (SAP and
    // the dynamic tree, pending changes), and one with compounds; each damaged many times.
    let mut rng = SplitMix64::new(20);
    let (mut sap, mut ids) = scene(WorldConfig::default(), 150, 12.0, &mut rng);
    perturb(&mut sap, &mut ids, 12.0, &mut rng);
    let tree_config = WorldConfig { broad_phase: BroadPhaseKind::DynamicTree, ..WorldConfig::default() };
    let (tree, _) = scene(tree_config, 60, 6.0, &mut rng);
    let mut compounds = World::new();
    for i in 0..20 {
        let parts = vec![
            (Pose::IDENTITY, Shape::circle(0.5).unwrap()),
            (Pose::new(Vec2::new(0.8, 0.0), 0.3), Shape::cuboid(Vec2::new(0.3, 0.6)).unwrap()),
        ];
        let pose = Pose::from_translation(Vec2::new(i as f32 * 0.9, (i % 3) as f32));
        compounds.insert(ColliderDesc::new(Shape::compound(parts).unwrap(), pose)).unwrap();
    }
    compounds.step();
    let snapshots = [small_snapshot(), sap.to_bytes(), tree.to_bytes(), compounds.to_bytes()];

    const PER_SNAPSHOT: usize = 30_000;
    let mut by_kind = [0usize; KINDS.len()];
    let mut by_error = std::collections::BTreeMap::<&'static str, usize>::new();
    for (w, bytes) in snapshots.iter().enumerate() {
        World::from_bytes(bytes).expect("the original decodes");
        for i in 0..PER_SNAPSHOT {
            let kind = i % KINDS.len();
            let mut v = bytes.clone();
            // A burst can rewrite a byte with its own value: draw again until something changed.
            while v == *bytes {
                corrupt(&mut v, kind, &mut rng);
            }
            let err = match World::from_bytes(&v) {
                Ok(_) => panic!("world {w}, corruption {i} ({}) was accepted", KINDS[kind]),
                Err(e) => e,
            };
            by_kind[kind] += 1;
            let name = match err {
                SnapshotError::ChecksumMismatch => "ChecksumMismatch",
                SnapshotError::BadMagic => "BadMagic",
                SnapshotError::UnsupportedVersion { .. } => "UnsupportedVersion",
                SnapshotError::Truncated => "Truncated",
                _ => "other",
            };
            *by_error.entry(name).or_default() += 1;
        }
    }
    let sizes: Vec<usize> = snapshots.iter().map(Vec::len).collect();
    println!("snapshot sizes {sizes:?} bytes; {} corruptions, all rejected", PER_SNAPSHOT * snapshots.len());
    for (kind, n) in KINDS.iter().zip(by_kind) {
        println!("  {kind:>10}: {n}");
    }
    println!("  errors: {by_error:?}");
    assert!(PER_SNAPSHOT * snapshots.len() >= 100_000);
    assert_eq!(by_error.get("other"), None, "only the header and checksum checks should fire");
}
