//! The plugin against a plain `sapwood::World` fed the same poses and changes: 1,000 entities,
//! 120 fixed steps, despawns and component changes on the way; the same bits for one and two
//! threads; and the edges of the sync (scale, bad transforms, hierarchies, skipped frames).

use std::collections::HashMap;

use bevy_app::{App, FixedMain};
use bevy_ecs::entity::Entity;
use bevy_ecs::message::Messages;
use bevy_ecs::system::SystemState;
use bevy_transform::TransformPlugin;
use bevy_transform::components::{GlobalTransform, Transform};
use sapwood::query::CastOptions;
use sapwood::{ColliderDesc, ColliderId, EventKind, Filter, Pose, Ray, Shape, Vec2, World};
use sapwood_bevy::{
    Bullet, BulletImpact, Collider, ColliderDisabled, ColliderRefused, CollisionEnded, CollisionFilter,
    CollisionStarted, SapwoodPlugin, SapwoodWorld, Sensor, SensorEntered, SensorExited, SpatialFilter, SpatialQuery,
    Static, pose_from_transform,
};

const N: usize = 1000;
const STEPS: usize = 120;

/// A deterministic hash of `i` and `salt` in `[0, 1)`.
fn unit(i: usize, salt: u64) -> f32 {
    let mut x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

fn shape(i: usize, variant: u64) -> Shape {
    let s = 0.3 + 0.5 * unit(i, 10 + variant);
    match (i + variant as usize) % 3 {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::cuboid(Vec2::new(s, 0.6 * s)).unwrap(),
        _ => Shape::capsule(Vec2::new(-s, 0.0), Vec2::new(s, 0.0), 0.4 * s).unwrap(),
    }
}

fn is_static(i: usize) -> bool {
    i.is_multiple_of(10)
}

/// Entity `i`'s transform at `step`: statics stay, the others wander about their home (a few
/// uniformly scaled); bullets cross the whole field every few steps.
fn transform(i: usize, step: usize) -> Transform {
    let home = Vec2::new(60.0 * unit(i, 1), 60.0 * unit(i, 2));
    let scale = if i % 7 == 3 { 1.5 } else { 1.0 };
    let t = step as f32;
    let (p, angle) = if is_static(i) {
        (home, unit(i, 3) * 3.0)
    } else if i % 25 == 2 {
        (Vec2::new((home.x + 7.0 * t) % 60.0, home.y), 0.0)
    } else {
        let phase = std::f32::consts::TAU * unit(i, 4);
        (home + 2.0 * Vec2::new((0.05 * t + phase).sin(), (0.07 * t + phase).cos()), 0.03 * t * (i % 5) as f32)
    };
    Transform::from_xyz(p.x, p.y, 0.0)
        .with_rotation(bevy_math::Quat::from_rotation_z(angle))
        .with_scale(bevy_math::Vec3::splat(scale))
}

/// A pose as the plugin derives it, and the shape at the transform's scale.
fn placed(i: usize, step: usize, shape: &Shape) -> (Pose, Shape) {
    let (pose, scale) = pose_from_transform(&GlobalTransform::from(transform(i, step))).unwrap();
    (pose, if scale == 1.0 { shape.clone() } else { shape.scaled(scale).unwrap() })
}

/// Everything one step produced, by entity index: compared between the plugin and the plain
/// world, and between thread counts.
#[derive(Debug, PartialEq, Default)]
struct StepRecord {
    hash: u64,
    started: Vec<(usize, usize)>,
    ended: Vec<(usize, usize)>,
    entered: Vec<(usize, usize)>,
    exited: Vec<(usize, usize)>,
    impacts: Vec<(usize, usize, [u32; 4])>,
    /// Every collider's pose, by entity index.
    poses: Vec<(usize, Vec<u8>)>,
    /// (a, b, the manifold's bytes) in the world's contact order.
    contacts: Vec<(usize, usize, Vec<u8>)>,
}

fn manifold_bytes(c: &sapwood::Contact) -> Vec<u8> {
    bytemuck::bytes_of(&c.manifold).to_vec()
}

/// What happens to entity `i` before `step` (besides moving): the script both runs follow.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    Despawn,
    MakeSensor,
    Disable,
    Enable,
    Refilter,
    Reshape,
    RemoveCollider,
    AddCollider,
}

fn changes(step: usize, i: usize) -> Option<Change> {
    match (step, i % 20) {
        (40, 5 | 15) => Some(Change::Despawn),
        (60, 6) => Some(Change::MakeSensor),
        (60, 7) => Some(Change::Disable),
        (60, 8) => Some(Change::Refilter),
        (60, 9) => Some(Change::Reshape),
        (75, 7) => Some(Change::Enable),
        (75, 4) => Some(Change::RemoveCollider),
        (90, 4) => Some(Change::AddCollider),
        _ => None,
    }
}

const REFILTER: Filter = Filter { category: 2, mask: !1, group: 0 };
/// Entities spawned late, at step 100.
const LATE: usize = 50;

/// The plugin's run, and its entities' bits.
fn run_plugin(threads: usize) -> (Vec<StepRecord>, Vec<u64>) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut app = App::new();
        app.add_plugins((TransformPlugin, SapwoodPlugin::default()));
        let mut entities: Vec<Entity> = Vec::new();
        let mut index: HashMap<Entity, usize> = HashMap::new();
        let spawn = |app: &mut App, i: usize| {
            let mut e = app.world_mut().spawn((Collider(shape(i, 0)), transform(i, 0)));
            if is_static(i) {
                e.insert(Static);
            }
            if i % 10 == 1 {
                e.insert(Sensor);
            }
            if i % 25 == 2 {
                e.insert(Bullet);
            }
            e.id()
        };
        for i in 0..N {
            let e = spawn(&mut app, i);
            entities.push(e);
            index.insert(e, i);
        }
        let mut records = Vec::new();
        let mut alive = vec![true; N + LATE];
        for step in 0..STEPS {
            if step == 100 {
                for i in N..N + LATE {
                    let e = spawn(&mut app, i);
                    entities.push(e);
                    index.insert(e, i);
                }
            }
            for (i, &e) in entities.iter().enumerate() {
                if !alive[i] {
                    continue;
                }
                let world = app.world_mut();
                match changes(step, i) {
                    Some(Change::Despawn) => {
                        world.despawn(e);
                        alive[i] = false;
                        continue;
                    }
                    Some(Change::MakeSensor) => drop(world.entity_mut(e).insert(Sensor)),
                    Some(Change::Disable) => drop(world.entity_mut(e).insert(ColliderDisabled)),
                    Some(Change::Enable) => drop(world.entity_mut(e).remove::<ColliderDisabled>()),
                    Some(Change::Refilter) => drop(world.entity_mut(e).insert(CollisionFilter(REFILTER))),
                    Some(Change::Reshape) => world.get_mut::<Collider>(e).unwrap().0 = shape(i, 1),
                    Some(Change::RemoveCollider) => drop(world.entity_mut(e).remove::<Collider>()),
                    Some(Change::AddCollider) => drop(world.entity_mut(e).insert(Collider(shape(i, 2)))),
                    None => {}
                }
                if !is_static(i) {
                    *world.get_mut::<Transform>(e).unwrap() = transform(i, step);
                }
            }
            app.world_mut().run_schedule(FixedMain);

            let world = app.world_mut();
            let ix = |e: &Entity| index[e];
            let mut r = StepRecord { hash: 0, ..StepRecord::default() };
            r.started =
                world.resource_mut::<Messages<CollisionStarted>>().drain().map(|m| (ix(&m.a), ix(&m.b))).collect();
            r.ended = world.resource_mut::<Messages<CollisionEnded>>().drain().map(|m| (ix(&m.a), ix(&m.b))).collect();
            r.entered = world
                .resource_mut::<Messages<SensorEntered>>()
                .drain()
                .map(|m| (ix(&m.sensor), ix(&m.visitor)))
                .collect();
            r.exited = world
                .resource_mut::<Messages<SensorExited>>()
                .drain()
                .map(|m| (ix(&m.sensor), ix(&m.visitor)))
                .collect();
            r.impacts = world
                .resource_mut::<Messages<BulletImpact>>()
                .drain()
                .map(|m| (ix(&m.bullet), ix(&m.other), impact_bits(&m.impact)))
                .collect();
            assert_eq!(world.resource_mut::<Messages<ColliderRefused>>().drain().count(), 0);
            let sw = world.resource::<SapwoodWorld>();
            r.hash = sw.world().state_hash();
            r.poses = sw
                .world()
                .ids()
                .map(|id| (ix(&sw.entity(id).unwrap()), bytemuck::bytes_of(&sw.world().pose(id).unwrap()).to_vec()))
                .collect();
            r.poses.sort();
            r.contacts = sw
                .world()
                .contacts()
                .iter()
                .map(|c| (ix(&sw.entity(c.a).unwrap()), ix(&sw.entity(c.b).unwrap()), manifold_bytes(c)))
                .collect();
            // Each entity's contacts, as the resource gives them, agree with the contact list.
            for &(a, b, _) in r.contacts.iter().take(20) {
                assert!(sw.touching(entities[a], entities[b]) && sw.touching(entities[b], entities[a]));
            }
            records.push(r);
        }
        (records, entities.iter().map(|e| e.to_bits()).collect())
    })
}

fn impact_bits(i: &sapwood::Impact) -> [u32; 4] {
    [i.fraction.to_bits(), i.point.x.to_bits(), i.point.y.to_bits(), i.normal.x.to_bits()]
}

/// The plain world's run: the same script, through the world's own calls, in the order the
/// plugin makes them (changes in entity order, new colliders as one batch per step).
fn run_plain(bits: &[u64]) -> Vec<StepRecord> {
    let mut world = World::new();
    let mut ids: Vec<Option<ColliderId>> = vec![None; N + LATE];
    let mut shapes: Vec<Shape> = (0..N + LATE).map(|i| shape(i, 0)).collect();
    let mut sensor = vec![false; N + LATE];
    // Every id ever issued (removed colliders' end events name ids that are stale by then).
    let mut names: HashMap<ColliderId, usize> = HashMap::new();
    let desc = |i: usize, step: usize, shape: &Shape, sensor: bool| {
        let (pose, shape) = placed(i, step, shape);
        let mut d = ColliderDesc::new(shape, pose).with_user_data(bits[i]);
        d.is_static = is_static(i);
        d.sensor = sensor;
        d.bullet = i % 25 == 2;
        d
    };
    let insert = |world: &mut World,
                  ids: &mut Vec<Option<ColliderId>>,
                  names: &mut HashMap<ColliderId, usize>,
                  batch: Vec<(usize, ColliderDesc)>| {
        let descs: Vec<ColliderDesc> = batch.iter().map(|(_, d)| d.clone()).collect();
        let mut out = Vec::new();
        world.insert_batch(&descs, &mut out).unwrap();
        for ((i, _), id) in batch.iter().zip(out) {
            ids[*i] = Some(id);
            names.insert(id, *i);
        }
    };
    let batch: Vec<_> = (0..N)
        .map(|i| {
            sensor[i] = i % 10 == 1;
            (i, desc(i, 0, &shapes[i], sensor[i]))
        })
        .collect();
    insert(&mut world, &mut ids, &mut names, batch);
    let mut removed = vec![false; N + LATE];
    let mut records = Vec::new();
    for step in 0..STEPS {
        let mut batch = Vec::new();
        if step == 100 {
            for i in N..N + LATE {
                sensor[i] = i % 10 == 1;
                batch.push((i, desc(i, step, &shapes[i], sensor[i])));
            }
        }
        for i in 0..N {
            if removed[i] {
                continue;
            }
            match changes(step, i) {
                Some(Change::Despawn) => {
                    world.remove(ids[i].take().unwrap()).unwrap();
                    removed[i] = true;
                    continue;
                }
                Some(Change::MakeSensor) => {
                    sensor[i] = true;
                    world.set_sensor(ids[i].unwrap(), true).unwrap();
                }
                Some(Change::Disable) => world.set_enabled(ids[i].unwrap(), false).unwrap(),
                Some(Change::Enable) => world.set_enabled(ids[i].unwrap(), true).unwrap(),
                Some(Change::Refilter) => world.set_filter(ids[i].unwrap(), REFILTER).unwrap(),
                Some(Change::Reshape) => {
                    shapes[i] = shape(i, 1);
                    world.set_shape(ids[i].unwrap(), placed(i, step, &shapes[i]).1).unwrap();
                }
                Some(Change::RemoveCollider) => {
                    world.remove(ids[i].take().unwrap()).unwrap();
                }
                Some(Change::AddCollider) => {
                    shapes[i] = shape(i, 2);
                    batch.push((i, desc(i, step, &shapes[i], sensor[i])));
                }
                None => {}
            }
        }
        for i in 0..N + LATE {
            if let Some(id) = ids[i]
                && !is_static(i)
            {
                world.set_pose(id, placed(i, step, &shapes[i]).0).unwrap();
            }
        }
        // New colliders come last, as the plugin's batch does.
        insert(&mut world, &mut ids, &mut names, batch);
        world.step();

        let ix = |id: ColliderId| names[&id];
        let mut r = StepRecord { hash: world.state_hash(), ..Default::default() };
        r.poses = world.ids().map(|id| (ix(id), bytemuck::bytes_of(&world.pose(id).unwrap()).to_vec())).collect();
        r.poses.sort();
        for e in world.events() {
            let (a, b) = (ix(e.a), ix(e.b));
            match e.kind {
                EventKind::ContactBegan => r.started.push((a, b)),
                EventKind::ContactEnded => r.ended.push((a, b)),
                EventKind::SensorEntered | EventKind::SensorExited => {
                    let pair = if sensor[a] || !sensor[b] { (a, b) } else { (b, a) };
                    if e.kind == EventKind::SensorEntered { r.entered.push(pair) } else { r.exited.push(pair) }
                }
            }
        }
        r.impacts = world.impacts().iter().map(|m| (ix(m.bullet), ix(m.other), impact_bits(m))).collect();
        r.contacts = world.contacts().iter().map(|c| (ix(c.a), ix(c.b), manifold_bytes(c))).collect();
        records.push(r);
    }
    records
}

#[test]
fn the_plugin_equals_a_plain_world_fed_the_same_poses() {
    let (plugin, bits) = run_plugin(1);
    let plain = run_plain(&bits);
    let mut totals = [0usize; 5];
    for (step, (p, w)) in plugin.iter().zip(&plain).enumerate() {
        if p != w {
            let mut sorted = (p.contacts.clone(), w.contacts.clone());
            sorted.0.sort();
            sorted.1.sort();
            panic!(
                "step {step}: poses {} {:?}, hash {} {}, started {} ended {} entered {} exited {} impacts {}, contacts {} ({} vs {}), sorted contacts {}",
                p.poses == w.poses,
                p.poses.iter().zip(&w.poses).find(|(a, b)| a != b),
                p.hash,
                w.hash,
                p.started == w.started,
                p.ended == w.ended,
                p.entered == w.entered,
                p.exited == w.exited,
                p.impacts == w.impacts,
                p.contacts == w.contacts,
                p.contacts.len(),
                w.contacts.len(),
                sorted.0 == sorted.1
            );
        }
        for (t, n) in
            totals.iter_mut().zip([p.started.len(), p.ended.len(), p.entered.len(), p.exited.len(), p.impacts.len()])
        {
            *t += n;
        }
    }
    // The scene exercises every kind of result.
    assert!(totals.iter().all(|&n| n > 0), "started, ended, entered, exited, impacts: {totals:?}");
    assert!(plugin[STEPS - 1].contacts.len() > 50);
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    let (one, _) = run_plugin(1);
    let (two, _) = run_plugin(2);
    assert!(one == two, "the plugin's results depend on the thread count");
}

/// A small app with the plugin, stepped by hand.
fn app() -> App {
    let mut app = App::new();
    app.add_plugins((TransformPlugin, SapwoodPlugin::default()));
    app
}

fn step(app: &mut App) {
    app.world_mut().run_schedule(FixedMain);
}

fn drain<M: bevy_ecs::message::Message>(app: &mut App) -> Vec<M> {
    app.world_mut().resource_mut::<Messages<M>>().drain().collect()
}

fn circle(r: f32) -> Collider {
    Collider(Shape::circle(r).unwrap())
}

#[test]
fn a_uniform_scale_scales_the_shape_and_a_non_uniform_one_is_refused_once() {
    let mut app = app();
    let big = app.world_mut().spawn((circle(0.5), Transform::from_scale(bevy_math::Vec3::splat(2.0)))).id();
    let squashed =
        app.world_mut().spawn((circle(0.5), Transform::from_scale(bevy_math::Vec3::new(2.0, 1.0, 1.0)))).id();
    step(&mut app);
    let sw = app.world().resource::<SapwoodWorld>();
    assert_eq!(sw.world().shape(sw.collider(big).unwrap()).unwrap(), &Shape::circle(1.0).unwrap());
    assert_eq!(sw.collider(squashed), None);
    let refused = drain::<ColliderRefused>(&mut app);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].entity, squashed);
    assert!(refused[0].error.to_string().contains("not uniform"));
    // Moved but still squashed: no second report.
    app.world_mut().get_mut::<Transform>(squashed).unwrap().translation.x = 3.0;
    step(&mut app);
    assert!(drain::<ColliderRefused>(&mut app).is_empty());
    // Mended: it gets its collider, at the new place.
    app.world_mut().get_mut::<Transform>(squashed).unwrap().scale = bevy_math::Vec3::ONE;
    step(&mut app);
    let sw = app.world().resource::<SapwoodWorld>();
    let id = sw.collider(squashed).expect("a collider once the scale is uniform");
    assert_eq!(sw.world().pose(id).unwrap().p, Vec2::new(3.0, 0.0));
    // Rescaled: the shape follows.
    app.world_mut().get_mut::<Transform>(big).unwrap().scale = bevy_math::Vec3::splat(3.0);
    step(&mut app);
    let sw = app.world().resource::<SapwoodWorld>();
    assert_eq!(sw.world().shape(sw.collider(big).unwrap()).unwrap(), &Shape::circle(1.5).unwrap());
}

#[test]
fn bad_transforms_keep_the_last_good_collider_state_without_a_panic() {
    let mut app = app();
    let e = app.world_mut().spawn((circle(0.5), Transform::from_xyz(1.0, 2.0, 0.0))).id();
    step(&mut app);
    let bad = [
        Transform::from_xyz(f32::NAN, 0.0, 0.0),
        Transform::from_xyz(f32::INFINITY, 0.0, 0.0),
        Transform::from_xyz(1e9, 0.0, 0.0),
        Transform::from_rotation(bevy_math::Quat::from_rotation_x(1.0)),
        Transform::from_scale(bevy_math::Vec3::new(-1.0, 1.0, 1.0)),
        Transform::from_scale(bevy_math::Vec3::ZERO),
        Transform::from_scale(bevy_math::Vec3::splat(1e30)),
    ];
    let set = |app: &mut App, t: Transform| {
        *app.world_mut().get_mut::<Transform>(e).unwrap() = t;
        step(app);
        drain::<ColliderRefused>(app).len()
    };
    for t in bad {
        assert_eq!(set(&mut app, t), 1, "{t:?}");
        let sw = app.world().resource::<SapwoodWorld>();
        assert_eq!(sw.world().pose(sw.collider(e).unwrap()).unwrap().p, Vec2::new(1.0, 2.0), "{t:?}");
        // Reported once per entity and reason; a good transform clears the record.
        assert_eq!(set(&mut app, t), 0, "{t:?} reported twice");
        assert_eq!(set(&mut app, Transform::from_xyz(1.0, 2.0, 0.0)), 0);
    }
    // A shape the world refuses, built around the checked constructors.
    app.world_mut().get_mut::<Collider>(e).unwrap().0 = Shape::Circle(sapwood::Circle { radius: -1.0 });
    step(&mut app);
    assert_eq!(drain::<ColliderRefused>(&mut app).len(), 1);
}

#[test]
fn children_collide_where_their_parents_put_them_in_the_same_fixed_step() {
    let mut app = app();
    let parent = app.world_mut().spawn(Transform::from_xyz(10.0, 0.0, 0.0)).id();
    let child = app
        .world_mut()
        .spawn((circle(0.5), Transform::from_xyz(1.0, 0.0, 0.0), bevy_ecs::hierarchy::ChildOf(parent)))
        .id();
    step(&mut app);
    let pose = |app: &App| {
        let sw = app.world().resource::<SapwoodWorld>();
        sw.world().pose(sw.collider(child).unwrap()).unwrap()
    };
    assert_eq!(pose(&app).p, Vec2::new(11.0, 0.0));
    // The parent turns a quarter: the child swings round, within the same fixed step.
    *app.world_mut().get_mut::<Transform>(parent).unwrap() = Transform::from_xyz(10.0, 0.0, 0.0)
        .with_rotation(bevy_math::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
    step(&mut app);
    assert!((pose(&app).p - Vec2::new(10.0, 1.0)).length() < 1e-5);
}

#[test]
fn removals_survive_frames_without_a_fixed_step() {
    let mut app = app();
    let a = app.world_mut().spawn((circle(0.5), Transform::from_xyz(0.0, 0.0, 0.0))).id();
    let b = app.world_mut().spawn((circle(0.5), Transform::from_xyz(0.8, 0.0, 0.0))).id();
    step(&mut app);
    assert_eq!(drain::<CollisionStarted>(&mut app), [CollisionStarted { a, b }]);
    app.world_mut().despawn(b);
    // Frames whose fixed loop does not run: the message buffers turn over twice.
    for _ in 0..4 {
        app.update();
    }
    step(&mut app);
    assert_eq!(drain::<CollisionEnded>(&mut app), [CollisionEnded { a, b }]);
    assert_eq!(app.world().resource::<SapwoodWorld>().world().len(), 1);
}

#[test]
fn removing_and_adding_markers_and_components_changes_the_same_collider() {
    let mut app = app();
    let a = app.world_mut().spawn((circle(0.5), Transform::from_xyz(0.0, 0.0, 0.0))).id();
    let b = app.world_mut().spawn((circle(0.5), Transform::from_xyz(0.8, 0.0, 0.0))).id();
    step(&mut app);
    let id = app.world().resource::<SapwoodWorld>().collider(b).unwrap();
    drain::<CollisionStarted>(&mut app);
    app.world_mut().entity_mut(b).insert(Sensor);
    step(&mut app);
    assert_eq!(drain::<CollisionEnded>(&mut app), [CollisionEnded { a, b }]);
    assert_eq!(drain::<SensorEntered>(&mut app), [SensorEntered { sensor: b, visitor: a }]);
    app.world_mut().entity_mut(b).remove::<Sensor>().insert(ColliderDisabled);
    step(&mut app);
    assert_eq!(drain::<SensorExited>(&mut app), [SensorExited { sensor: b, visitor: a }]);
    assert!(drain::<CollisionStarted>(&mut app).is_empty());
    app.world_mut().entity_mut(b).remove::<ColliderDisabled>();
    step(&mut app);
    assert_eq!(drain::<CollisionStarted>(&mut app), [CollisionStarted { a, b }]);
    assert_eq!(app.world().resource::<SapwoodWorld>().collider(b), Some(id), "the same collider throughout");
    // The contact, from each side.
    let sw = app.world().resource::<SapwoodWorld>();
    let mut seen = Vec::new();
    sw.contacts_of(a, |other, normal, _| seen.push((other, normal)));
    sw.contacts_of(b, |other, normal, _| seen.push((other, normal)));
    assert_eq!(seen, [(b, Vec2::X), (a, -Vec2::X)]);
    // Event switches: off on one side silences the pair.
    app.world_mut().entity_mut(a).insert(sapwood_bevy::ColliderEvents::NONE);
    app.world_mut().get_mut::<Transform>(b).unwrap().translation.x = 5.0;
    step(&mut app);
    assert!(drain::<CollisionEnded>(&mut app).is_empty());
    // Removing the Collider removes the collider; the entity lives on.
    app.world_mut().entity_mut(a).remove::<Collider>();
    step(&mut app);
    assert_eq!(app.world().resource::<SapwoodWorld>().collider(a), None);
    assert_eq!(app.world().resource::<SapwoodWorld>().world().len(), 1);
}

#[test]
fn bullets_report_impacts_by_entity() {
    let mut app = app();
    let wall = app.world_mut().spawn((Collider(Shape::cuboid(Vec2::new(0.05, 5.0)).unwrap()), Static)).id();
    let bullet = app.world_mut().spawn((circle(0.1), Bullet, Transform::from_xyz(-20.0, 0.0, 0.0))).id();
    step(&mut app);
    app.world_mut().get_mut::<Transform>(bullet).unwrap().translation.x = 20.0;
    step(&mut app);
    let impacts = drain::<BulletImpact>(&mut app);
    assert_eq!(impacts.len(), 1);
    assert_eq!((impacts[0].bullet, impacts[0].other), (bullet, wall));
    assert!((impacts[0].impact.pose.p.x + 0.15).abs() < 0.01);
}

/// A row of circles on the x axis, 2 apart: entity k at x = 2k.
fn row(app: &mut App, n: usize) -> Vec<Entity> {
    (0..n).map(|k| app.world_mut().spawn((circle(0.5), Transform::from_xyz(2.0 * k as f32, 0.0, 0.0))).id()).collect()
}

#[test]
fn spatial_queries_answer_entities_and_leave_the_excluded_out() {
    let mut app = app();
    let row = row(&mut app, 6);
    step(&mut app);
    let mut state: SystemState<SpatialQuery> = SystemState::new(app.world_mut());
    let q = state.get(app.world()).unwrap();
    let ray = Ray::new(Vec2::new(-5.0, 0.0), Vec2::X);
    let all = SpatialFilter::default();
    assert_eq!(q.ray_cast(&ray, 100.0, &all).unwrap().unwrap().entity, row[0]);
    // One excluded (the world's own exclusion), then three (the plugin's filtering).
    assert_eq!(q.ray_cast(&ray, 100.0, &SpatialFilter::excluding(&[row[0]])).unwrap().unwrap().entity, row[1]);
    let three = [row[0], row[1], row[3]];
    let hit = q.ray_cast(&ray, 100.0, &SpatialFilter::excluding(&three)).unwrap().unwrap();
    assert_eq!(hit.entity, row[2]);
    assert!((hit.hit.t - 8.5).abs() < 1e-5);
    let mut hits = Vec::new();
    q.ray_cast_all(&ray, 100.0, &SpatialFilter::excluding(&three), &mut hits).unwrap();
    assert_eq!(hits.iter().map(|h| h.entity).collect::<Vec<_>>(), [row[2], row[4], row[5]]);
    // Shape casts.
    let probe = Shape::circle(0.25).unwrap();
    let from = Pose::from_translation(Vec2::new(-5.0, 0.0));
    let hit = q
        .cast_shape(&probe, &from, Vec2::new(20.0, 0.0), &CastOptions::default(), &SpatialFilter::excluding(&three))
        .unwrap()
        .unwrap();
    assert_eq!(hit.entity, row[2]);
    // Overlaps.
    let mut out = Vec::new();
    let wide = Shape::cuboid(Vec2::new(5.0, 1.0)).unwrap();
    q.shape_overlaps(&wide, &Pose::IDENTITY, &SpatialFilter::excluding(&three), &mut out).unwrap();
    assert_eq!(out, [row[2]]);
    out.clear();
    q.point_overlaps(Vec2::new(4.2, 0.0), &all, &mut out).unwrap();
    assert_eq!(out, [row[2]]);
    // Nearest: excluded ones are skipped, the bound still holds.
    let near = q.nearest_to_point(Vec2::new(-1.0, 0.0), 100.0, &SpatialFilter::excluding(&three)).unwrap().unwrap();
    assert_eq!(near.entity, row[2]);
    assert!((near.hit.distance - 4.5).abs() < 1e-5);
    assert!(q.nearest_to_point(Vec2::new(-1.0, 0.0), 4.0, &SpatialFilter::excluding(&three)).unwrap().is_none());
    let near = q.nearest(
        &probe,
        &Pose::from_translation(Vec2::new(-1.0, 0.0)),
        f32::INFINITY,
        &SpatialFilter::excluding(&three),
    );
    assert_eq!(near.unwrap().unwrap().entity, row[2]);
    // Bad input is an error, not a panic.
    assert!(q.ray_cast(&Ray::new(Vec2::NAN, Vec2::X), 1.0, &all).is_err());
    assert!(q.nearest_to_point(Vec2::ZERO, -1.0, &SpatialFilter::excluding(&three)).is_err());
}

#[test]
fn the_character_mover_slides_past_excluded_entities() {
    let mut app = app();
    let floor = app.world_mut().spawn((Collider(Shape::cuboid(Vec2::new(20.0, 0.5)).unwrap()), Static)).id();
    let wall = app
        .world_mut()
        .spawn((Collider(Shape::cuboid(Vec2::new(0.5, 2.0)).unwrap()), Static, Transform::from_xyz(3.0, 2.0, 0.0)))
        .id();
    let ghost_wall = app
        .world_mut()
        .spawn((Collider(Shape::cuboid(Vec2::new(0.5, 2.0)).unwrap()), Static, Transform::from_xyz(6.0, 2.0, 0.0)))
        .id();
    let player = app.world_mut().spawn((circle(0.4), Transform::from_xyz(0.0, 0.91, 0.0))).id();
    step(&mut app);
    let mut state: SystemState<SpatialQuery> = SystemState::new(app.world_mut());
    let q = state.get(app.world()).unwrap();
    let shape = Shape::circle(0.4).unwrap();
    let at = Pose::from_translation(Vec2::new(0.0, 0.91));
    let mut hits = Vec::new();
    let config = sapwood::CharacterConfig::default();
    let walk = Vec2::new(10.0, -0.5);
    let m = q.move_character(&shape, &at, walk, &config, &SpatialFilter::excluding(&[player]), &mut hits).unwrap();
    assert!(m.motion.hit_wall && m.ground == Some(floor));
    assert!(hits.iter().any(|h| h.entity == wall));
    let through = [player, wall];
    let m = q.move_character(&shape, &at, walk, &config, &SpatialFilter::excluding(&through), &mut hits).unwrap();
    assert!(m.motion.hit_wall && m.motion.pose.p.x > 5.0 && m.motion.pose.p.x < 5.5);
    assert!(hits.iter().any(|h| h.entity == ghost_wall) && hits.iter().all(|h| h.entity != wall));
}
