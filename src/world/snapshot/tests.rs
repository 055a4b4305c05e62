//! Unit tests of the snapshot codec: round trips, truncations and named corruptions.

use glam::Vec2;

use super::codec::MIN_SLOT_BYTES;
use super::*;
use crate::ColliderDesc;
use crate::broad::BroadPhaseKind;
use crate::math::{Aabb, Pose};
use crate::shape::Shape;
use crate::world::WorldConfig;

fn sample() -> World {
    // Brute force keeps these codec tests independent of the SAP and tree implementations.
    let config = WorldConfig { broad_phase: BroadPhaseKind::BruteForce, ..WorldConfig::default() };
    let mut w = World::with_config(config).unwrap();
    let shapes = [
        Shape::circle(0.5).unwrap(),
        Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.5), 0.25).unwrap(),
        Shape::cuboid(Vec2::new(1.0, 2.0)).unwrap(),
        Shape::polygon(&[Vec2::ZERO, Vec2::X, Vec2::new(0.3, 1.0), Vec2::new(-0.5, 0.4)], 0.1).unwrap(),
    ];
    let mut ids = Vec::new();
    for i in 0..12 {
        let mut d =
            ColliderDesc::new(shapes[i % 4].clone(), Pose::new(Vec2::new(i as f32, -(i as f32)), 0.1 * i as f32));
        d.is_static = i % 5 == 0;
        d.sensor = i % 7 == 3;
        d.user_data = 1000 + i as u64;
        d.filter.group = i as i32 - 6;
        ids.push(w.insert(d).unwrap());
    }
    w.remove(ids[4]).unwrap();
    w.remove(ids[9]).unwrap();
    w
}

/// Every field the codec stores, compared field by field (links included).
fn assert_same(a: &World, b: &World) {
    let (ca, cb) = (&a.cols, &b.cols);
    assert_eq!(a.config, b.config);
    assert_eq!(ca.generation, cb.generation);
    assert_eq!(ca.alive, cb.alive);
    assert_eq!(ca.flags, cb.flags);
    assert_eq!(ca.pose, cb.pose);
    assert_eq!(ca.shape, cb.shape);
    assert_eq!(ca.aabb, cb.aabb);
    assert_eq!(ca.fat, cb.fat);
    assert_eq!(ca.filter, cb.filter);
    assert_eq!(ca.user_data, cb.user_data);
    assert_eq!(ca.pair_head, cb.pair_head);
    assert_eq!(ca.free, cb.free);
    assert_eq!(ca.alive_count, cb.alive_count);
    assert_eq!(a.released, b.released);
    assert_eq!(a.moved, b.moved);
    assert_eq!(a.free_pairs, b.free_pairs);
    assert_eq!(a.pairs.len(), b.pairs.len());
    assert_eq!(a.contacts, b.contacts);
    assert_eq!(a.contact_pair, b.contact_pair);
    assert_eq!(a.events, b.events);
    assert_eq!(a.pending_events, b.pending_events);
}

#[test]
fn unstepped_world_round_trips_field_by_field() {
    let w = sample();
    let bytes = w.to_bytes();
    let r = World::from_bytes(&bytes).unwrap();
    assert_same(&w, &r);
    assert_eq!(r.to_bytes(), bytes);
    // write_snapshot appends.
    let mut buf = vec![7u8];
    w.write_snapshot(&mut buf);
    assert_eq!(&buf[1..], &bytes[..]);
}

#[test]
fn stored_impulses_round_trip() {
    let mut w = sample();
    w.step();
    assert!(!w.contacts.is_empty());
    w.store_impulses(|i, _| [(i as f32 + 0.5, -1.25), (f32::NAN, f32::NEG_INFINITY)]);
    let bytes = w.to_bytes();
    let r = World::from_bytes(&bytes).unwrap();
    let impulses = |w: &World| -> Vec<[u32; 4]> {
        w.contacts
            .iter()
            .map(|c| {
                let [p, q] = c.manifold.points;
                [p.normal_impulse, p.tangent_impulse, q.normal_impulse, q.tangent_impulse].map(f32::to_bits)
            })
            .collect()
    };
    assert_eq!(impulses(&r), impulses(&w));
    assert!(impulses(&w).iter().any(|i| i[0] != 0));
    assert_eq!(r.to_bytes(), bytes);
}

#[test]
fn every_config_round_trips() {
    let kinds = [
        BroadPhaseKind::BruteForce,
        BroadPhaseKind::SortSweep,
        BroadPhaseKind::UniformGrid { bounds: Aabb::new(Vec2::splat(-5.0), Vec2::splat(5.0)), cell_size: 0.5 },
        BroadPhaseKind::SpatialHash { cell_size: 2.0 },
        BroadPhaseKind::Quadtree { bounds: Aabb::new(Vec2::splat(-5.0), Vec2::splat(7.0)) },
        BroadPhaseKind::DynamicTree,
        BroadPhaseKind::IncrementalSap,
    ];
    for broad_phase in kinds {
        let config = WorldConfig {
            broad_phase,
            aabb_margin: 0.125,
            aabb_margin_ratio: 0.5,
            large_extent: 99.0,
            aabb_motion_factor: 3.0,
            weld_static_edges: false,
            sensors_detect_sensors: true,
            sensors_detect_static: false,
            reuse_manifolds: false,
        };
        let w = World::with_config(config).unwrap();
        assert_eq!(World::from_bytes(&w.to_bytes()).unwrap().config, config);
    }
}

#[test]
fn every_truncation_fails() {
    let bytes = sample().to_bytes();
    for len in 0..bytes.len() {
        assert!(World::from_bytes(&bytes[..len]).is_err(), "prefix of {len} bytes accepted");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(World::from_bytes(&long).err(), Some(SnapshotError::ChecksumMismatch));
    reseal(&mut long).unwrap();
    assert_eq!(World::from_bytes(&long).err(), Some(SnapshotError::TrailingBytes));
}

#[test]
fn the_checksum_is_xxh3_of_the_bytes_after_it() {
    // The format documentation's promise, which tools outside the crate rely on.
    let bytes = sample().to_bytes();
    let stored = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    assert_eq!(stored, xxhash_rust::xxh3::xxh3_64(&bytes[20..]));
    let mut v = bytes.clone();
    v[30] ^= 0x10;
    assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::ChecksumMismatch));
    v[30] ^= 0x10;
    assert!(World::from_bytes(&v).is_ok());
    assert_eq!(reseal(&mut v[..19]), Err(SnapshotError::Truncated));
    assert_eq!(reseal(&mut [0u8; 30]), Err(SnapshotError::BadMagic));
}

#[test]
fn named_corruptions_are_caught() {
    let w = sample();
    let bytes = w.to_bytes();
    let mut v = bytes.clone();
    v[8] = 9; // the previous format version, whose config had no manifold-reuse switch
    assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::UnsupportedVersion { found: 9, supported: 10 }));
    v[8] = 3; // an older one, which had no checksum
    assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::UnsupportedVersion { found: 3, supported: 10 }));
    assert!(World::from_bytes(&v).err().unwrap().to_string().contains("older than"));
    // Each edit below is resealed, as a deliberate edit would be, to reach the check it names.
    let edited = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut v = bytes.clone();
        edit(&mut v);
        assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::ChecksumMismatch));
        reseal(&mut v).unwrap();
        World::from_bytes(&v).err()
    };
    // A count far beyond the bytes: refused before allocating.
    let slot_count_at = bytes.windows(4).position(|t| t == SLOT).unwrap() + 12;
    let count = edited(&|v| v[slot_count_at..slot_count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes()));
    assert_eq!(count, Some(SnapshotError::Truncated));
    // The first slot's generation set to zero.
    let generation = edited(&|v| v[slot_count_at + 4..slot_count_at + 8].fill(0));
    assert_eq!(generation, Some(bad("a slot has generation 0")));
    // The first slot's circle radius made negative (the shape is last in the record).
    let radius_at = slot_count_at + 4 + MIN_SLOT_BYTES - 4;
    assert_eq!(bytes[radius_at - 1], 0, "the first slot is a circle");
    let radius = edited(&|v| v[radius_at..radius_at + 4].copy_from_slice(&(-1.0f32).to_le_bytes()));
    assert_eq!(radius, Some(SnapshotError::InvalidShape { slot: 0, error: ShapeError::NonPositiveSize }));
}

#[test]
fn a_missing_pair_entry_is_refused() {
    // Regression guard: a snapshot whose pair entries miss a candidate pair would restore
    // into a world that never reports that pair (the broad phase believes it known).
    let config = WorldConfig { broad_phase: BroadPhaseKind::BruteForce, ..WorldConfig::default() };
    let mut w = World::with_config(config).unwrap();
    for x in [0.0, 0.9, 5.0] {
        w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(x, 0.0)))).unwrap();
    }
    w.step();
    assert_eq!(w.contacts().len(), 1);
    assert!(World::from_bytes(&w.to_bytes()).is_ok());
    let p = w.pair_table.get([0, 1]).unwrap();
    w.destroy_pair(p, false);
    assert_eq!(
        World::from_bytes(&w.to_bytes()).err(),
        Some(bad("the pair entries are not the pairs whose fat boxes overlap"))
    );
}

#[test]
fn errors_display() {
    let e = SnapshotError::UnexpectedSection { expected: SLOT, found: *b"XXXX" };
    assert_eq!(e.to_string(), "expected section \"SLOT\", found \"XXXX\"");
    let e: Box<dyn std::error::Error> = Box::new(SnapshotError::Truncated);
    assert!(e.to_string().contains("truncated"));
}

#[test]
fn an_impact_that_no_step_writes_is_refused() {
    let mut w = World::new();
    let wall = Shape::cuboid(Vec2::new(0.1, 5.0)).unwrap();
    w.insert(ColliderDesc::new(wall, Pose::IDENTITY).fixed()).unwrap();
    let bullet = ColliderDesc::new(Shape::circle(0.1).unwrap(), Pose::from_translation(Vec2::new(-5.0, 0.0))).bullet();
    let b = w.insert(bullet).unwrap();
    w.step();
    w.set_pose(b, Pose::from_translation(Vec2::new(5.0, 0.0))).unwrap();
    w.step();
    assert_eq!(w.impacts().len(), 1);
    let bytes = w.to_bytes();
    // The fraction follows the tag, the section length, the count and the two ids.
    let fraction_at = bytes.windows(4).position(|t| t == IMPC).unwrap() + 4 + 8 + 4 + 16;
    assert_eq!(f32::from_le_bytes(bytes[fraction_at..fraction_at + 4].try_into().unwrap()), w.impacts()[0].fraction);
    for bad_value in [f32::NAN, -0.5, 2.0, f32::INFINITY] {
        let mut v = bytes.clone();
        v[fraction_at..fraction_at + 4].copy_from_slice(&bad_value.to_le_bytes());
        reseal(&mut v).unwrap();
        assert_eq!(
            World::from_bytes(&v).err(),
            Some(bad("an impact is not finite or its fraction is outside [0, 1]")),
            "{bad_value}"
        );
    }
    // The point's x made NaN.
    let mut v = bytes.clone();
    v[fraction_at + 4..fraction_at + 8].copy_from_slice(&f32::NAN.to_le_bytes());
    reseal(&mut v).unwrap();
    assert!(World::from_bytes(&v).is_err());
}
