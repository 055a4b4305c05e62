//! Live collider state: filter, sensor, static, bullet and enabled switches, and the event
//! switches, checked through contacts, events, queries, snapshots and `validate`.

use sapwood::{
    Aabb, BroadPhaseKind, ColliderDesc, ColliderId, ColliderOptions, Event, EventKind, Filter, Pose, QueryFilter, Ray,
    Shape, Vec2, World, WorldConfig, WorldError,
};

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

fn ball(x: f32) -> ColliderDesc {
    ColliderDesc::new(Shape::circle(0.5).unwrap(), at(x, 0.0))
}

fn kinds() -> [BroadPhaseKind; 7] {
    BroadPhaseKind::all(Aabb::new(Vec2::splat(-64.0), Vec2::splat(64.0)), 2.0)
}

fn worlds() -> impl Iterator<Item = World> {
    kinds()
        .into_iter()
        .map(|broad_phase| World::with_config(WorldConfig { broad_phase, ..WorldConfig::default() }).unwrap())
}

fn step(world: &mut World) -> Vec<Event> {
    world.step();
    world.validate().unwrap();
    let events = world.events().to_vec();
    assert!(events.windows(2).all(|w| (w[0].a, w[0].b) <= (w[1].a, w[1].b)), "events in (a, b) order");
    events
}

fn ev(a: ColliderId, b: ColliderId, kind: EventKind) -> Event {
    Event { a, b, kind }
}

fn found(world: &World, aabb: Aabb) -> Vec<ColliderId> {
    let mut out = Vec::new();
    world.query_aabb(&aabb, &QueryFilter::default(), &mut out).unwrap();
    out
}

#[test]
fn disabling_ends_pairs_at_the_next_step_and_enabling_begins_them() {
    for mut world in worlds() {
        let a = world.insert(ball(0.0)).unwrap();
        let b = world.insert(ball(0.8)).unwrap();
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactBegan)]);
        world.set_enabled(b, false).unwrap();
        world.validate().unwrap();
        assert!(!world.is_enabled(b).unwrap());
        assert_eq!(world.contacts().len(), 1, "contacts change only in step");
        assert_eq!(found(&world, Aabb::new(Vec2::splat(-5.0), Vec2::splat(5.0))), [a]);
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactEnded)]);
        assert!(world.contacts().is_empty());
        // Moving a disabled collider is fine; it still pairs with nothing.
        world.set_pose(b, at(0.7, 0.0)).unwrap();
        assert!(step(&mut world).is_empty());
        assert_eq!(world.pose(b).unwrap(), at(0.7, 0.0));
        world.set_enabled(b, true).unwrap();
        assert_eq!(found(&world, Aabb::new(Vec2::splat(-5.0), Vec2::splat(5.0))), [a, b]);
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactBegan)]);
        assert_eq!(world.contacts().len(), 1);
        // Off and on again before a step: the pair carries on without events.
        world.set_enabled(a, false).unwrap();
        world.set_enabled(a, true).unwrap();
        assert!(step(&mut world).is_empty());
        assert_eq!(world.contacts().len(), 1);
    }
}

#[test]
fn inserted_disabled_colliders_pair_with_nothing_until_enabled() {
    for mut world in worlds() {
        let a = world.insert(ball(0.0)).unwrap();
        let b = world.insert(ball(0.8).disabled()).unwrap();
        let wall =
            world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.5, 5.0)).unwrap(), at(1.5, 0.0)).fixed()).unwrap();
        assert!(step(&mut world).is_empty());
        let mut hit = Vec::new();
        world.query_point(Vec2::new(0.8, 0.0), &QueryFilter::default(), &mut hit).unwrap();
        assert!(hit.is_empty());
        let ray = Ray::new(Vec2::new(0.8, 5.0), Vec2::new(0.0, -1.0));
        assert!(world.ray_cast(&ray, 10.0, &QueryFilter::default()).unwrap().is_none_or(|h| h.id != b));
        world.set_enabled(b, true).unwrap();
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactBegan), ev(b, wall, EventKind::ContactBegan)]);
    }
}

#[test]
fn filter_changes_end_and_begin_pairs_at_the_next_step() {
    for mut world in worlds() {
        let a = world.insert(ball(0.0)).unwrap();
        let b = world.insert(ball(0.8)).unwrap();
        let c = world.insert(ball(-0.8)).unwrap();
        step(&mut world);
        assert_eq!(world.contacts().len(), 2);
        let loner = Filter { category: 2, mask: 2, group: 0 };
        world.set_filter(b, loner).unwrap();
        world.validate().unwrap();
        assert_eq!(world.filter(b).unwrap(), loner);
        assert_eq!(world.contacts().len(), 2);
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactEnded)]);
        // Allowed again: the pair begins although nothing moved.
        world.set_filter(b, Filter::default()).unwrap();
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactBegan)]);
        // A group that never pairs.
        let never = Filter { group: -1, ..Filter::default() };
        world.set_filter(a, never).unwrap();
        world.set_filter(c, never).unwrap();
        assert_eq!(step(&mut world), [ev(a, c, EventKind::ContactEnded)]);
        // Setting the same filter again is no change at all.
        world.set_filter(a, never).unwrap();
        assert!(step(&mut world).is_empty());
    }
}

#[test]
fn a_sensor_switch_ends_the_contact_and_enters_the_sensor() {
    for mut world in worlds() {
        let a = world.insert(ball(0.0)).unwrap();
        let b = world.insert(ball(0.8)).unwrap();
        step(&mut world);
        world.set_sensor(b, true).unwrap();
        assert!(world.is_sensor(b).unwrap());
        let events = step(&mut world);
        assert_eq!(events, [ev(a, b, EventKind::ContactEnded), ev(a, b, EventKind::SensorEntered)]);
        assert!(world.contacts().is_empty());
        world.set_sensor(b, false).unwrap();
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactBegan), ev(a, b, EventKind::SensorExited)]);
        assert_eq!(world.contacts().len(), 1);
    }
}

#[test]
fn a_static_switch_moves_the_collider_across_structures() {
    for mut world in worlds() {
        let ground = world
            .insert(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 0.5)).unwrap(), at(0.0, -1.0)).fixed())
            .unwrap();
        let a = world.insert(ball(0.0)).unwrap();
        let b = world.insert(ball(0.8)).unwrap();
        let events = step(&mut world);
        assert_eq!(events.len(), 3);
        world.set_static(a, true).unwrap();
        assert!(world.is_static(a).unwrap());
        // Its contact with the ground ends (no two statics pair); the one with b carries on.
        assert_eq!(step(&mut world), [ev(ground, a, EventKind::ContactEnded)]);
        assert_eq!(world.contacts().len(), 2);
        world.set_pose(b, at(0.85, 0.0)).unwrap();
        assert!(step(&mut world).is_empty());
        world.set_static(a, false).unwrap();
        assert_eq!(step(&mut world), [ev(ground, a, EventKind::ContactBegan)]);
        world.set_static(ground, false).unwrap();
        world.set_static(ground, true).unwrap();
        assert!(step(&mut world).is_empty());
        assert_eq!(world.contacts().len(), 3);
    }
}

#[test]
fn set_bullet_sweeps_from_the_pose_it_was_set_at() {
    let mut world = World::new();
    let wall =
        world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.005, 5.0)).unwrap(), Pose::IDENTITY).fixed()).unwrap();
    let b = world.insert(ColliderDesc::new(Shape::circle(0.05).unwrap(), at(-50.0, 0.0))).unwrap();
    step(&mut world);
    world.set_pose(b, at(50.0, 0.0)).unwrap();
    step(&mut world);
    assert!(world.impacts().is_empty(), "not a bullet yet");
    world.set_bullet(b, true).unwrap();
    assert!(world.is_bullet(b).unwrap());
    world.set_pose(b, at(-50.0, 0.0)).unwrap();
    step(&mut world);
    assert_eq!(world.impacts().len(), 1);
    assert_eq!(world.impacts()[0].other, wall);
    world.set_bullet(b, false).unwrap();
    world.set_pose(b, at(50.0, 0.0)).unwrap();
    step(&mut world);
    assert!(world.impacts().is_empty());
}

#[test]
fn setters_refuse_stale_ids_and_change_nothing() {
    let mut world = World::new();
    let a = world.insert(ball(0.0)).unwrap();
    world.remove(a).unwrap();
    let before = world.state_hash();
    assert_eq!(world.set_filter(a, Filter::default()), Err(WorldError::StaleId));
    assert_eq!(world.set_sensor(a, true), Err(WorldError::StaleId));
    assert_eq!(world.set_static(a, true), Err(WorldError::StaleId));
    assert_eq!(world.set_bullet(a, true), Err(WorldError::StaleId));
    assert_eq!(world.set_enabled(a, false), Err(WorldError::StaleId));
    assert_eq!(world.set_contact_events(a, false), Err(WorldError::StaleId));
    assert_eq!(world.set_sensor_events(a, false), Err(WorldError::StaleId));
    assert_eq!(world.filter(a), Err(WorldError::StaleId));
    assert_eq!(world.is_enabled(a), Err(WorldError::StaleId));
    assert_eq!(world.is_static(a), Err(WorldError::StaleId));
    assert_eq!(world.is_sensor(a), Err(WorldError::StaleId));
    assert_eq!(world.is_bullet(a), Err(WorldError::StaleId));
    assert_eq!(world.contact_events(a), Err(WorldError::StaleId));
    assert_eq!(world.sensor_events(a), Err(WorldError::StaleId));
    assert_eq!(world.state_hash(), before);
}

/// Pending state changes survive a snapshot: the restored world's next steps match.
#[test]
fn pending_changes_survive_snapshots() {
    for mut world in worlds() {
        let ground = world
            .insert(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 0.5)).unwrap(), at(0.0, -1.0)).fixed())
            .unwrap();
        let ids: Vec<ColliderId> = (0..6).map(|i| world.insert(ball(i as f32 * 0.9)).unwrap()).collect();
        step(&mut world);
        world.set_enabled(ids[0], false).unwrap();
        world.set_sensor(ids[1], true).unwrap();
        world.set_static(ids[2], true).unwrap();
        world.set_filter(ids[3], Filter { category: 4, mask: 4, group: 0 }).unwrap();
        world.set_bullet(ids[4], true).unwrap();
        world.set_contact_events(ids[5], false).unwrap();
        world.set_static(ground, false).unwrap();
        let mut copy = World::from_bytes(&world.to_bytes()).unwrap();
        copy.validate().unwrap();
        assert_eq!(copy.state_hash(), world.state_hash());
        for _ in 0..3 {
            let (e1, e2) = (step(&mut world), step(&mut copy));
            assert_eq!(e1, e2);
            assert_eq!(world.contacts(), copy.contacts());
            assert_eq!(world.state_hash(), copy.state_hash());
        }
        let rebuilt = world.rebuilt_with(*world.config()).unwrap();
        rebuilt.validate().unwrap();
        assert!(!rebuilt.is_enabled(ids[0]).unwrap() && rebuilt.is_bullet(ids[4]).unwrap());
        assert_eq!(rebuilt.contacts().len(), world.contacts().len());
    }
}

#[test]
fn state_changes_change_the_state_hash() {
    let mut world = World::new();
    let a = world.insert(ball(0.0)).unwrap();
    world.step();
    let mut seen = vec![world.state_hash()];
    world.set_contact_events(a, false).unwrap();
    seen.push(world.state_hash());
    world.set_sensor_events(a, false).unwrap();
    seen.push(world.state_hash());
    world.set_bullet(a, true).unwrap();
    seen.push(world.state_hash());
    world.set_enabled(a, false).unwrap();
    seen.push(world.state_hash());
    world.set_filter(a, Filter { category: 8, ..Filter::default() }).unwrap();
    seen.push(world.state_hash());
    let n = seen.len();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), n);
}

// ---------------------------------------------------------------------------------------------
// Events on demand
// ---------------------------------------------------------------------------------------------

#[test]
fn contact_event_switches_silence_events_but_not_contacts() {
    for off_in_desc in [false, true] {
        let mut world = World::new();
        let a = world.insert(ball(0.0)).unwrap();
        let quiet = if off_in_desc { ball(0.8).with_contact_events(false) } else { ball(0.8) };
        let b = world.insert(quiet).unwrap();
        let c = world.insert(ball(-0.8)).unwrap();
        if !off_in_desc {
            world.set_contact_events(b, false).unwrap();
        }
        assert!(!world.contact_events(b).unwrap() && world.contact_events(a).unwrap());
        assert_eq!(step(&mut world), [ev(a, c, EventKind::ContactBegan)]);
        assert_eq!(world.contacts().len(), 2, "contacts are unaffected");
        // Back on: the end is reported.
        world.set_contact_events(b, true).unwrap();
        world.set_pose(b, at(5.0, 0.0)).unwrap();
        assert_eq!(step(&mut world), [ev(a, b, EventKind::ContactEnded)]);
        // Off on the other end of a pair silences it too.
        world.set_contact_events(a, false).unwrap();
        world.remove(c).unwrap();
        assert!(step(&mut world).is_empty());
        assert!(world.contacts().is_empty());
    }
}

#[test]
fn sensor_event_switches_silence_sensor_events_only() {
    for off_on_sensor in [false, true] {
        let mut world = World::new();
        let s = world.insert(ball(0.0).sensor()).unwrap();
        let b = world.insert(ball(0.8)).unwrap();
        let c = world.insert(ball(-0.8)).unwrap();
        let d = world.insert(ball(1.6)).unwrap();
        world.set_sensor_events(if off_on_sensor { s } else { b }, false).unwrap();
        let events = step(&mut world);
        let expected = [ev(s, c, EventKind::SensorEntered), ev(b, d, EventKind::ContactBegan)];
        if off_on_sensor {
            // The sensor reports nothing it detects.
            assert_eq!(events, expected[1..]);
        } else {
            // Only the silenced visitor goes unreported.
            assert_eq!(events, expected);
        }
        world.set_sensor_events(s, true).unwrap();
        world.set_sensor_events(b, true).unwrap();
        world.set_pose(b, at(5.0, 0.0)).unwrap();
        world.set_pose(c, at(-5.0, 0.0)).unwrap();
        let events = step(&mut world);
        assert!(
            events.contains(&ev(s, b, EventKind::SensorExited)) && events.contains(&ev(s, c, EventKind::SensorExited))
        );
        assert!(events.contains(&ev(b, d, EventKind::ContactEnded)));
        // Contact events off leave sensor events alone, and the other way round.
        world.set_contact_events(s, false).unwrap();
        world.set_pose(b, at(0.0, 0.8)).unwrap();
        assert_eq!(step(&mut world), [ev(s, b, EventKind::SensorEntered)]);
    }
}

#[test]
fn sensor_rules_in_the_config_decide_sensor_pairs() {
    for (sensors, statics) in [(false, false), (false, true), (true, false), (true, true)] {
        let config =
            WorldConfig { sensors_detect_sensors: sensors, sensors_detect_static: statics, ..WorldConfig::default() };
        let mut world = World::with_config(config).unwrap();
        let s1 = world.insert(ball(0.0).sensor()).unwrap();
        let s2 = world.insert(ball(0.8).sensor()).unwrap();
        let wall = world
            .insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.5, 5.0)).unwrap(), at(-1.0, 0.0)).fixed())
            .unwrap();
        let still =
            world.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), at(1.6, 0.0)).sensor().fixed()).unwrap();
        let mut expected = Vec::new();
        if statics {
            expected.push(ev(s1, wall, EventKind::SensorEntered));
        }
        if sensors {
            expected.push(ev(s1, s2, EventKind::SensorEntered));
            expected.push(ev(s2, still, EventKind::SensorEntered));
        }
        expected.sort();
        assert_eq!(step(&mut world), expected, "sensors {sensors}, statics {statics}");
        // A static sensor never detects a static.
        let _ = world.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), at(2.4, 0.0)).fixed()).unwrap();
        assert!(step(&mut world).is_empty());
        let copy = World::from_bytes(&world.to_bytes()).unwrap();
        assert_eq!(copy.config(), world.config());
    }
    let d = WorldConfig::default();
    assert!(!d.sensors_detect_sensors && d.sensors_detect_static);
}

/// `set_options` is the setters one by one: two worlds, one changed by `set_options` and one by
/// the seven setters, go through the same random changes with equal options, events, contacts
/// and state hashes after every step; a stale id changes nothing; `ColliderDesc::options` and
/// `with_options` give back what they were given.
#[test]
fn set_options_is_the_setters_one_by_one() {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut bits = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for broad_phase in kinds() {
        let config = WorldConfig { broad_phase, ..WorldConfig::default() };
        let (mut a, mut b) = (World::with_config(config).unwrap(), World::with_config(config).unwrap());
        let ids: Vec<ColliderId> = (0..12)
            .map(|i| {
                let desc = ball(0.8 * i as f32);
                let id = a.insert(desc.clone()).unwrap();
                assert_eq!(b.insert(desc).unwrap(), id);
                id
            })
            .collect();
        for _ in 0..60 {
            for _ in 0..3 {
                let id = ids[(bits() % ids.len() as u64) as usize];
                let r = bits();
                let on = |k: u32| r >> k & 1 != 0;
                let options = ColliderOptions {
                    is_static: on(0),
                    sensor: on(1),
                    bullet: on(2),
                    enabled: !on(3) || !on(4),
                    contact_events: on(5),
                    sensor_events: on(6),
                    filter: Filter {
                        category: 1 << (r >> 8 & 3),
                        mask: if on(10) { u32::MAX } else { 0b0111 },
                        group: 0,
                    },
                };
                a.set_options(id, options).unwrap();
                b.set_filter(id, options.filter).unwrap();
                b.set_static(id, options.is_static).unwrap();
                b.set_sensor(id, options.sensor).unwrap();
                b.set_bullet(id, options.bullet).unwrap();
                b.set_enabled(id, options.enabled).unwrap();
                b.set_contact_events(id, options.contact_events).unwrap();
                b.set_sensor_events(id, options.sensor_events).unwrap();
                assert_eq!(a.options(id).unwrap(), options);
                assert_eq!(b.options(id).unwrap(), options);
            }
            let moved = ids[(bits() % ids.len() as u64) as usize];
            let pose = at((bits() % 100) as f32 * 0.1, (bits() % 10) as f32 * 0.1);
            a.set_pose(moved, pose).unwrap();
            b.set_pose(moved, pose).unwrap();
            assert_eq!(step(&mut a), step(&mut b));
            assert_eq!(a.contacts(), b.contacts());
            assert_eq!(a.state_hash(), b.state_hash());
        }
        let gone = ids[0];
        a.remove(gone).unwrap();
        let before = a.state_hash();
        assert_eq!(a.set_options(gone, ColliderOptions::fixed()), Err(WorldError::StaleId));
        assert_eq!(a.options(gone), Err(WorldError::StaleId));
        assert_eq!(a.state_hash(), before);
    }
    let options = ColliderOptions { contact_events: false, ..ColliderOptions::sensor() };
    let desc = ball(0.0).with_options(options);
    assert_eq!(desc.options(), options);
    assert_eq!(ball(0.0).options(), ColliderOptions::default());
    let mut world = World::new();
    let id = world.insert(desc).unwrap();
    assert_eq!(world.options(id).unwrap(), options);
}
