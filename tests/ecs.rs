//! The hecs integration against the world's own state: every sequence of spawn, move, despawn,
//! component removal and option change leaves exactly one collider per qualifying entity, with
//! the entity's pose and shape, and events that name the right entities.
#![cfg(feature = "hecs")]

use hecs::Entity;
use sapwood::ecs::{ColliderHandle, HecsSync, entity};
use sapwood::{ColliderOptions, EventKind, Pose, Shape, Vec2, World};

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

fn circle() -> Shape {
    Shape::circle(0.5).unwrap()
}

fn handle(ecs: &hecs::World, e: Entity) -> Option<sapwood::ColliderId> {
    ecs.get::<&ColliderHandle>(e).ok().map(|h| h.0)
}

/// The world holds exactly the colliders of entities with a Pose and a Shape, each matching its
/// entity's components, and nothing else.
fn check(ecs: &hecs::World, world: &World, sync: &HecsSync) {
    let mut expected = 0;
    for (e, pose, shape) in ecs.query::<(Entity, &Pose, &Shape)>().iter() {
        let id = handle(ecs, e).expect("a synced entity has a handle");
        assert_eq!(world.pose(id).unwrap(), *pose);
        assert_eq!(world.shape(id).unwrap(), shape);
        assert_eq!(sync.entity(id), Some(e));
        assert_eq!(entity(world, id), Some(e));
        expected += 1;
    }
    assert_eq!(world.len(), expected);
    for (e, h) in ecs.query::<(Entity, &ColliderHandle)>().iter() {
        assert!(ecs.satisfies::<(&Pose, &Shape)>(e), "an entity without a collider kept its handle");
        assert!(world.contains(h.0));
    }
}

fn events(sync: &HecsSync, world: &World) -> Vec<(Entity, Entity, EventKind)> {
    sync.events(world).collect()
}

#[test]
fn spawn_move_despawn() {
    let (mut ecs, mut world, mut sync) = (hecs::World::new(), World::new(), HecsSync::new());
    let a = ecs.spawn((at(0.0, -0.6), circle()));
    let b = ecs.spawn((at(5.0, 0.0), circle()));
    let wall = ecs.spawn((at(0.0, -1.5), Shape::cuboid(Vec2::new(10.0, 0.5)).unwrap(), ColliderOptions::fixed()));
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    world.step();
    assert_eq!(events(&sync, &world), [(a, wall, EventKind::ContactBegan)]);
    assert_eq!(sync.contacts(&world).map(|(x, y, _)| (x, y)).collect::<Vec<_>>(), [(a, wall)]);

    // Move b onto a: only b's pose reaches the world.
    *ecs.get::<&mut Pose>(b).unwrap() = at(0.5, 0.0);
    let id_b = handle(&ecs, b).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    assert_eq!(handle(&ecs, b), Some(id_b), "a move keeps the collider");
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactBegan)]);

    // Despawn a: its collider goes, and the end events still name it.
    let id_a = handle(&ecs, a).unwrap();
    ecs.despawn(a).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    assert!(!world.contains(id_a));
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactEnded), (a, wall, EventKind::ContactEnded)]);
    assert_eq!(sync.entity(id_a), Some(a), "a removed collider still maps to its entity for its events");

    // A steady sync changes nothing.
    sync.sync(&mut ecs, &mut world).unwrap();
    world.step();
    assert!(world.events().is_empty());
    check(&ecs, &world, &sync);
}

#[test]
fn removing_a_component_removes_the_collider_and_readding_restores_it() {
    let (mut ecs, mut world, mut sync) = (hecs::World::new(), World::new(), HecsSync::new());
    let a = ecs.spawn((at(0.0, 0.0), circle()));
    let b = ecs.spawn((at(0.8, 0.0), circle()));
    sync.sync(&mut ecs, &mut world).unwrap();
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactBegan)]);

    ecs.remove_one::<Shape>(b).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    assert_eq!(handle(&ecs, b), None);
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactEnded)]);

    ecs.insert_one(b, circle()).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactBegan)]);

    ecs.remove_one::<Pose>(a).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactEnded)]);
}

#[test]
fn shape_and_option_changes() {
    let (mut ecs, mut world, mut sync) = (hecs::World::new(), World::new(), HecsSync::new());
    let a = ecs.spawn((at(0.0, 0.0), circle()));
    let b = ecs.spawn((at(3.0, 0.0), circle()));
    sync.sync(&mut ecs, &mut world).unwrap();
    world.step();
    assert!(world.events().is_empty());

    // Growing a reaches b: same collider, new shape.
    let id_a = handle(&ecs, a).unwrap();
    *ecs.get::<&mut Shape>(a).unwrap() = Shape::circle(2.6).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    assert_eq!(handle(&ecs, a), Some(id_a));
    world.step();
    assert_eq!(events(&sync, &world), [(a, b, EventKind::ContactBegan)]);

    // Making b a sensor keeps its collider: the contact ends, the sensor overlap begins.
    let id_b = handle(&ecs, b).unwrap();
    ecs.insert_one(b, ColliderOptions::sensor()).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    assert_eq!(handle(&ecs, b), Some(id_b));
    assert!(world.is_sensor(id_b).unwrap());
    world.step();
    let mut ev = events(&sync, &world);
    ev.sort_by_key(|e| e.2);
    assert_eq!(ev, [(a, b, EventKind::ContactEnded), (a, b, EventKind::SensorEntered)]);

    // A handle copied onto another entity is not trusted: that entity gets its own collider.
    let c = ecs.spawn((at(20.0, 0.0), circle(), ColliderHandle(handle(&ecs, a).unwrap())));
    sync.sync(&mut ecs, &mut world).unwrap();
    check(&ecs, &world, &sync);
    assert_ne!(handle(&ecs, c), handle(&ecs, a));

    // An invalid pose is reported; the other entities are still synced.
    *ecs.get::<&mut Pose>(c).unwrap() = Pose { p: Vec2::NAN, ..Pose::IDENTITY };
    *ecs.get::<&mut Pose>(a).unwrap() = at(40.0, 0.0);
    assert_eq!(sync.sync(&mut ecs, &mut world), Err(sapwood::WorldError::InvalidPose));
    assert_eq!(world.pose(handle(&ecs, a).unwrap()).unwrap(), at(40.0, 0.0));
}

#[test]
fn random_sequences_match_the_world() {
    let (mut ecs, mut world, mut sync) = (hecs::World::new(), World::new(), HecsSync::new());
    let mut state = 12345u64;
    let mut rand = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut live: Vec<Entity> = Vec::new();
    // Touching pairs by entity, tracked from events alone, must equal the contacts.
    let mut touching = std::collections::BTreeSet::new();
    for _ in 0..300 {
        for _ in 0..rand(4) {
            let p = at(rand(20) as f32 * 0.5, rand(20) as f32 * 0.5);
            live.push(ecs.spawn((p, circle())));
        }
        for _ in 0..rand(3) {
            if live.is_empty() {
                break;
            }
            let e = live[rand(live.len() as u64) as usize];
            match rand(4) {
                0 => {
                    ecs.despawn(e).unwrap();
                    live.retain(|&x| x != e);
                }
                1 => {
                    let _ = ecs.remove_one::<Pose>(e);
                }
                2 => {
                    let _ = ecs.insert_one(e, at(rand(20) as f32 * 0.5, 1.0));
                }
                _ => {
                    let _ = ecs.insert_one(e, Shape::circle(0.2 + rand(5) as f32 * 0.2).unwrap());
                }
            }
        }
        for &e in &live {
            if rand(3) == 0
                && let Ok(mut p) = ecs.get::<&mut Pose>(e)
            {
                p.p += Vec2::new(rand(3) as f32 - 1.0, rand(3) as f32 - 1.0) * 0.25;
            }
        }
        sync.sync(&mut ecs, &mut world).unwrap();
        check(&ecs, &world, &sync);
        world.step();
        for (a, b, kind) in sync.events(&world) {
            match kind {
                EventKind::ContactBegan => assert!(touching.insert((a, b))),
                EventKind::ContactEnded => assert!(touching.remove(&(a, b))),
                _ => unreachable!("no sensors here"),
            }
        }
        let contacts: std::collections::BTreeSet<_> = sync.contacts(&world).map(|(a, b, _)| (a, b)).collect();
        assert_eq!(contacts, touching);
    }
}

#[test]
fn options_carry_every_flag_and_setters_keep_the_collider() {
    let (mut ecs, mut world, mut sync) = (sapwood::hecs::World::new(), World::new(), HecsSync::new());
    let wall = ecs.spawn((Pose::IDENTITY, Shape::cuboid(Vec2::new(0.005, 5.0)).unwrap(), ColliderOptions::fixed()));
    let options = ColliderOptions { contact_events: false, ..ColliderOptions::bullet() };
    let b = ecs.spawn((at(-50.0, 0.0), Shape::circle(0.05).unwrap(), options));
    sync.sync(&mut ecs, &mut world).unwrap();
    let id = handle(&ecs, b).unwrap();
    assert!(world.is_bullet(id).unwrap() && !world.contact_events(id).unwrap());
    world.step();
    // A bullet through the wall: the impact maps to entities.
    *ecs.get::<&mut Pose>(b).unwrap() = at(50.0, 0.0);
    sync.sync(&mut ecs, &mut world).unwrap();
    world.step();
    let impacts: Vec<_> = sync.impacts(&world).map(|(x, y, _)| (x, y)).collect();
    assert_eq!(impacts, [(b, wall)]);
    // Setters through the sync: the component follows, the id stays, the next sync is quiet.
    *ecs.get::<&mut Pose>(b).unwrap() = at(0.0, 0.0);
    sync.sync(&mut ecs, &mut world).unwrap();
    world.step();
    assert_eq!(world.contacts().len(), 1);
    assert!(sync.events(&world).next().is_none(), "contact events are off for the bullet");
    sync.set_options(&mut ecs, &mut world, b, |o| o.contact_events = true).unwrap();
    sync.set_options(&mut ecs, &mut world, b, |o| o.enabled = false).unwrap();
    assert!(!ecs.get::<&ColliderOptions>(b).unwrap().enabled);
    sync.sync(&mut ecs, &mut world).unwrap();
    assert_eq!(handle(&ecs, b), Some(id));
    world.step();
    assert_eq!(sync.events(&world).collect::<Vec<_>>(), [(wall, b, EventKind::ContactEnded)]);
    sync.set_options(&mut ecs, &mut world, b, |o| o.enabled = true).unwrap();
    sync.set_options(&mut ecs, &mut world, wall, |o| o.is_static = false).unwrap();
    sync.set_options(&mut ecs, &mut world, wall, |o| o.sensor = true).unwrap();
    sync.set_options(&mut ecs, &mut world, b, |o| o.bullet = false).unwrap();
    sync.set_options(&mut ecs, &mut world, b, |o| o.filter = sapwood::Filter::default()).unwrap();
    sync.set_options(&mut ecs, &mut world, b, |o| o.sensor_events = true).unwrap();
    sync.sync(&mut ecs, &mut world).unwrap();
    world.step();
    assert_eq!(sync.events(&world).collect::<Vec<_>>(), [(wall, b, EventKind::SensorEntered)]);
    // An entity without a collider from this sync is refused.
    let lone = ecs.spawn((at(9.0, 9.0),));
    assert_eq!(sync.set_options(&mut ecs, &mut world, lone, |o| o.enabled = false), Err(sapwood::WorldError::StaleId));
}
