//! Pair hooks: the filter and the contact hook against a brute-force model, the moments the
//! filter is asked, one-way platforms, snapshots and rebuilds.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use sapwood::collide::{self, Manifold};
use sapwood::{
    BroadPhaseKind, ColliderDesc, ColliderId, ColliderView, EventKind, PairHooks, Pose, Shape, Vec2, World, WorldConfig,
};
use sapwood_support::periodic::{self, Hooks};

/// `periodic::Hooks` with a filter that depends on a salt the test changes (then refilters).
struct Salted {
    salt: AtomicU64,
}

impl Salted {
    fn allows(&self, a: u64, b: u64) -> bool {
        Hooks::allows(a + self.salt.load(Ordering::Relaxed), b)
    }
}

impl PairHooks for Salted {
    fn filter_pair(&self, a: &ColliderView<'_>, b: &ColliderView<'_>) -> bool {
        self.allows(a.user_data, b.user_data)
    }

    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, m: &mut Manifold) -> bool {
        Hooks::modify(a.user_data, b.user_data, m)
    }
}

/// Manifolds by `(lower slot, higher slot)`.
type Contacts = BTreeMap<(u32, u32), Manifold>;

/// What the world should report, computed from scratch: every pair of live colliders (lower
/// slot first) that are not both static nor both sensors, the filter allows, and whose shapes touch, with the
/// contact hook applied to non-sensor manifolds. The periodic scene's user data is the
/// collider's index, from which its static and sensor flags follow.
fn model(world: &World, ids: &[ColliderId], hooks: Option<&Salted>) -> (Contacts, BTreeSet<(u32, u32)>) {
    let mut live: Vec<ColliderId> = ids.iter().copied().filter(|&id| world.contains(id)).collect();
    live.sort_by_key(|id| id.index());
    let (mut contacts, mut sensors) = (BTreeMap::new(), BTreeSet::new());
    for (i, &a) in live.iter().enumerate() {
        for &b in &live[i + 1..] {
            let (ua, ub) = (world.user_data(a).unwrap(), world.user_data(b).unwrap());
            // No two statics pair, nor (by default) two sensors.
            let two_sensors = ua % 17 == 5 && ub % 17 == 5;
            if ua % 10 == 3 && ub % 10 == 3 || two_sensors || hooks.is_some_and(|h| !h.allows(ua, ub)) {
                continue;
            }
            let (sa, pa, sb, pb) =
                (world.shape(a).unwrap(), world.pose(a).unwrap(), world.shape(b).unwrap(), world.pose(b).unwrap());
            if !sa.aabb(&pa).overlaps(&sb.aabb(&pb)) {
                continue;
            }
            let key = (a.index(), b.index());
            if ua % 17 == 5 || ub % 17 == 5 {
                if collide::overlaps(sa, &pa, sb, &pb).unwrap() {
                    sensors.insert(key);
                }
                continue;
            }
            let mut m = collide::contact(sa, &pa, sb, &pb).unwrap();
            if m.count == 0 {
                continue;
            }
            if hooks.is_some() {
                let keep = Hooks::modify(ua, ub, &mut m);
                m.count = m.count.min(2);
                if !keep || m.count == 0 {
                    continue;
                }
            }
            contacts.insert(key, m);
        }
    }
    (contacts, sensors)
}

/// The touching pairs as the events tell them, checked to alternate begin / end per pair.
#[derive(Default)]
struct EventModel {
    contacts: BTreeSet<(u32, u32)>,
    sensors: BTreeSet<(u32, u32)>,
}

impl EventModel {
    fn apply(&mut self, world: &World) {
        for e in world.events() {
            let key = (e.a.index(), e.b.index());
            let ok = match e.kind {
                EventKind::ContactBegan => self.contacts.insert(key),
                EventKind::ContactEnded => self.contacts.remove(&key),
                EventKind::SensorEntered => self.sensors.insert(key),
                EventKind::SensorExited => self.sensors.remove(&key),
            };
            assert!(ok, "{e:?} does not follow the pair's last event");
        }
    }
}

fn check(world: &World, ids: &[ColliderId], hooks: Option<&Salted>, events: &mut EventModel, at: &str) -> usize {
    world.validate().unwrap_or_else(|e| panic!("{at}: {e}"));
    events.apply(world);
    let (contacts, sensors) = model(world, ids, hooks);
    let got: BTreeMap<(u32, u32), Manifold> =
        world.contacts().iter().map(|c| ((c.a.index(), c.b.index()), c.manifold)).collect();
    assert_eq!(got.len(), world.contacts().len(), "{at}: a pair listed twice");
    assert_eq!(got, contacts, "{at}: contacts against the brute-force model");
    assert_eq!(events.contacts, contacts.keys().copied().collect(), "{at}: contact events against the contacts");
    assert_eq!(events.sensors, sensors, "{at}: sensor events against the model");
    contacts.len()
}

/// The periodic scene with `Salted` hooks, stepped with churn, a change of the filter's salt
/// (then every collider refiltered) and the hooks removed, checked after every step against
/// the brute-force model. With `few_movers`, one collider in 20 moves, so that the narrow
/// phase walks the movers' pair lists instead of scanning the pairs.
fn filter_and_contact_hook_match_the_model(config: WorldConfig, few_movers: bool) {
    let mut scene = periodic::build_with(700, 5, config);
    if few_movers {
        for (i, m) in scene.moving.iter_mut().enumerate() {
            *m &= i % 20 == 0;
        }
    }
    let hooks = Arc::new(Salted { salt: AtomicU64::new(0) });
    scene.world.set_pair_hooks(Some(hooks.clone()));
    let mut events = EventModel::default();
    let (mut refused_seen, mut disabled_seen) = (0, 0);
    for t in 0..2 * periodic::PERIOD + 20 {
        periodic::animate(&mut scene, t);
        if t == 30 {
            for k in (0..scene.ids.len()).step_by(11) {
                scene.world.remove(scene.ids[k]).unwrap();
                scene.moving[k] = false;
            }
        }
        if t == 60 {
            hooks.salt.store(2, Ordering::Relaxed);
            for &id in &scene.ids {
                if scene.world.contains(id) {
                    scene.world.refilter(id).unwrap();
                }
            }
        }
        if t == 2 * periodic::PERIOD {
            scene.world.set_pair_hooks(None);
        }
        scene.world.step();
        let with = (t < 2 * periodic::PERIOD).then_some(&*hooks);
        let n = check(&scene.world, &scene.ids, with, &mut events, &format!("step {t}"));
        if with.is_some() {
            // How much the hooks took away, so that the test is known to exercise them.
            let (plain, _) = model(&scene.world, &scene.ids, None);
            refused_seen += plain
                .keys()
                .filter(|&&(a, b)| {
                    let u = |s| {
                        scene
                            .ids
                            .iter()
                            .find(|id| id.index() == s)
                            .map(|&id| scene.world.user_data(id).unwrap())
                            .unwrap()
                    };
                    !hooks.allows(u(a), u(b))
                })
                .count();
            disabled_seen += plain.len().saturating_sub(n);
        }
    }
    assert!(
        refused_seen > 100 && disabled_seen > refused_seen,
        "refused {refused_seen}, disabled or refused {disabled_seen}"
    );
}

#[test]
fn filter_and_contact_hook_match_brute_force_with_sap() {
    filter_and_contact_hook_match_the_model(WorldConfig::default(), false);
    filter_and_contact_hook_match_the_model(WorldConfig::default(), true);
}

#[test]
fn filter_and_contact_hook_match_brute_force_with_spatial_hash() {
    let config = WorldConfig { broad_phase: BroadPhaseKind::SpatialHash { cell_size: 2.0 }, ..WorldConfig::default() };
    filter_and_contact_hook_match_the_model(config, false);
    filter_and_contact_hook_match_the_model(config, true);
}

/// Refuses every pair while `refuse` is set; counts its calls.
#[derive(Default)]
struct Switch {
    refuse: AtomicBool,
    calls: AtomicU32,
}

impl PairHooks for Switch {
    fn filter_pair(&self, _: &ColliderView<'_>, _: &ColliderView<'_>) -> bool {
        self.calls.fetch_add(1, Ordering::Relaxed);
        !self.refuse.load(Ordering::Relaxed)
    }
}

fn kinds(world: &World) -> Vec<EventKind> {
    world.events().iter().map(|e| e.kind).collect()
}

#[test]
fn the_filter_is_asked_when_a_pair_begins_and_when_told_and_its_answer_is_kept() {
    let mut world = World::new();
    let hooks = Arc::new(Switch::default());
    world.set_pair_hooks(Some(hooks.clone()));
    let calls = || hooks.calls.load(Ordering::Relaxed);
    let refuse = |on: bool| hooks.refuse.store(on, Ordering::Relaxed);
    let square = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    let a = world.insert(ColliderDesc::new(square.clone(), Pose::IDENTITY)).unwrap();
    let b = world.insert(ColliderDesc::new(square.clone(), Pose::from_translation(Vec2::new(0.9, 0.0)))).unwrap();
    let step = |world: &mut World| {
        world.step();
        world.validate().unwrap();
        kinds(world)
    };

    assert_eq!(step(&mut world), [EventKind::ContactBegan]);
    assert_eq!(calls(), 1, "asked once, when the pair began");
    // Motion does not ask again: the answer is kept while the pair lives.
    refuse(true);
    for k in 0..5 {
        world.set_pose(b, Pose::new(Vec2::new(0.9, 0.01 * k as f32), 0.01 * k as f32)).unwrap();
        assert!(step(&mut world).is_empty());
        assert_eq!(world.contacts().len(), 1);
    }
    assert_eq!(calls(), 1);
    // `refilter` asks at once; the contact ends at the next step.
    world.refilter(a).unwrap();
    assert_eq!((calls(), world.contacts().len()), (2, 1));
    assert_eq!(step(&mut world), [EventKind::ContactEnded]);
    assert!(world.contacts().is_empty());
    // Accepted again by the filter's state alone: still refused until asked.
    refuse(false);
    world.set_pose(b, Pose::from_translation(Vec2::new(0.8, 0.0))).unwrap();
    assert!(step(&mut world).is_empty());
    world.refilter(b).unwrap();
    assert_eq!(step(&mut world), [EventKind::ContactBegan]);
    // Refused and accepted again before a step: nothing happens.
    refuse(true);
    world.refilter(a).unwrap();
    refuse(false);
    world.refilter(b).unwrap();
    assert!(step(&mut world).is_empty());
    assert_eq!(world.contacts().len(), 1);
    // `set_shape` asks too.
    refuse(true);
    world.set_shape(a, Shape::circle(0.5).unwrap()).unwrap();
    assert_eq!(step(&mut world), [EventKind::ContactEnded]);
    // A pair whose fat boxes part and meet again is a new pair, asked again.
    refuse(false);
    let before = calls();
    world.set_pose(b, Pose::from_translation(Vec2::new(30.0, 0.0))).unwrap();
    assert!(step(&mut world).is_empty());
    world.set_pose(b, Pose::from_translation(Vec2::new(0.9, 0.0))).unwrap();
    assert_eq!(step(&mut world), [EventKind::ContactBegan]);
    assert_eq!(calls(), before + 1);
    // Removing the hooks accepts every pair; setting them asks about every pair.
    refuse(true);
    world.set_pair_hooks(Some(hooks.clone()));
    assert_eq!(step(&mut world), [EventKind::ContactEnded]);
    world.set_pair_hooks(None);
    assert_eq!(step(&mut world), [EventKind::ContactBegan]);
    assert_eq!(world.refilter(a), Ok(()));
    world.remove(a).unwrap();
    assert_eq!(world.refilter(a), Err(sapwood::WorldError::StaleId));
}

#[test]
fn a_refused_sensor_pair_raises_no_events() {
    let mut world = World::new();
    let hooks = Arc::new(Switch::default());
    hooks.refuse.store(true, Ordering::Relaxed);
    world.set_pair_hooks(Some(hooks.clone()));
    let zone = ColliderDesc::new(Shape::circle(2.0).unwrap(), Pose::IDENTITY).sensor();
    let zone = world.insert(zone).unwrap();
    world.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::IDENTITY)).unwrap();
    world.step();
    assert!(world.events().is_empty());
    hooks.refuse.store(false, Ordering::Relaxed);
    world.refilter(zone).unwrap();
    world.step();
    assert_eq!(kinds(&world), [EventKind::SensorEntered]);
    hooks.refuse.store(true, Ordering::Relaxed);
    world.refilter(zone).unwrap();
    world.step();
    assert_eq!(kinds(&world), [EventKind::SensorExited]);
    assert!(world.contacts().is_empty());
}

/// One-way platforms: user data `PLATFORM` marks them; every other collider's user data indexes
/// the vertical velocities the game keeps (f32 bits, written between steps only). A contact
/// with a platform is kept when its normal points out of the top face and the other collider
/// is not moving up.
const PLATFORM: u64 = u64::MAX;

struct OneWay {
    vy: Vec<AtomicU32>,
}

impl PairHooks for OneWay {
    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, m: &mut Manifold) -> bool {
        let (platform, other, out) = match (a.user_data, b.user_data) {
            (PLATFORM, _) => (a, b, m.normal),
            (_, PLATFORM) => (b, a, -m.normal),
            _ => return true,
        };
        let vy = f32::from_bits(self.vy[other.user_data as usize].load(Ordering::Relaxed));
        out.dot(platform.pose.q.y_axis()) > 0.7 && vy <= 0.0
    }
}

#[test]
fn one_way_platform_holds_from_above_and_lets_through_from_below() {
    const DT: f32 = 1.0 / 60.0;
    const G: f32 = -20.0;
    let (half, top) = (0.4, 0.25);
    let mut world = World::new();
    let hooks = Arc::new(OneWay { vy: (0..2).map(|_| AtomicU32::new(0)).collect() });
    world.set_pair_hooks(Some(hooks.clone()));
    let slab = ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, top)).unwrap(), Pose::IDENTITY).fixed();
    let platform = world.insert(slab.with_user_data(PLATFORM)).unwrap();
    let square = Shape::cuboid(Vec2::splat(half)).unwrap();
    // Box 0 falls from above; box 1 is thrown up from below, through the platform, and falls
    // back onto it.
    let mut y = [3.0, -2.0];
    let mut vy = [0.0, 14.0];
    let x = [-4.0, 4.0];
    let ids: Vec<ColliderId> = (0..2)
        .map(|i| {
            world
                .insert(
                    ColliderDesc::new(square.clone(), Pose::from_translation(Vec2::new(x[i], y[i])))
                        .with_user_data(i as u64),
                )
                .unwrap()
        })
        .collect();
    let mut began_at = [None; 2];
    let mut crossed = false;
    for step in 0..240 {
        for i in 0..2 {
            vy[i] += G * DT;
            y[i] += vy[i] * DT;
            hooks.vy[i].store(vy[i].to_bits(), Ordering::Relaxed);
            world.set_pose(ids[i], Pose::from_translation(Vec2::new(x[i], y[i]))).unwrap();
        }
        world.step();
        world.validate().unwrap();
        for e in world.events() {
            assert_eq!((e.a, e.kind), (platform, EventKind::ContactBegan), "step {step}: {e:?}");
            let i = ids.iter().position(|&id| id == e.b).unwrap();
            assert!(began_at[i].is_none(), "box {i} began twice");
            // Only ever from above: moving down, its bottom at most one step's fall into the top.
            assert!(vy[i] <= 0.0 && y[i] - half > top + vy[i] * DT - 1e-4, "box {i} began at y {} vy {}", y[i], vy[i]);
            began_at[i] = Some(step);
        }
        // Contacts against the shapes: exactly the touching pairs the hook keeps.
        for i in 0..2 {
            let m = collide::contact(
                world.shape(platform).unwrap(),
                &Pose::IDENTITY,
                &square,
                &Pose::from_translation(Vec2::new(x[i], y[i])),
            )
            .unwrap();
            let kept = m.count > 0 && m.normal.y > 0.7 && vy[i] <= 0.0;
            let listed = world.contacts().iter().any(|c| c.b == ids[i]);
            assert_eq!(listed, kept, "step {step}, box {i}: y {} vy {} normal {}", y[i], vy[i], m.normal);
            if i == 1 && m.count > 0 && vy[i] > 0.0 {
                crossed = true;
            }
            // The game's response: a kept contact pushes the box out and stops its fall.
            if listed {
                y[i] += m.points().iter().map(|p| p.depth).fold(0.0, f32::max);
                vy[i] = 0.0;
            }
        }
    }
    assert!(crossed, "box 1 must overlap the platform on its way up");
    assert!(began_at[0].is_some() && began_at[1] > began_at[0], "{began_at:?}");
    for (i, y) in y.iter().enumerate() {
        assert!((y - (top + half)).abs() < 0.02, "box {i} rests on top: y {y}");
    }
    assert_eq!(world.contacts().len(), 2);
}

#[test]
fn hooks_are_not_in_snapshots_but_their_answers_are() {
    let mut scene = periodic::build(1500, 21);
    scene.world.set_pair_hooks(Some(Arc::new(Hooks)));
    for t in 0..20 {
        periodic::animate(&mut scene, t);
        scene.world.step();
    }
    let mut copy = World::from_bytes(&scene.world.to_bytes()).unwrap();
    assert!(copy.pair_hooks().is_none());
    assert_eq!(copy.state_hash(), scene.world.state_hash(), "the filter's answers are stored");
    copy.set_pair_hooks(Some(Arc::new(Hooks)));
    let mut plain = World::from_bytes(&scene.world.to_bytes()).unwrap();
    let mut diverged = false;
    for t in 20..20 + periodic::PERIOD {
        periodic::animate(&mut scene, t);
        for w in [&mut copy, &mut plain] {
            for (k, &id) in scene.ids.iter().enumerate() {
                if scene.moving[k] {
                    w.set_pose(id, scene.world.pose(id).unwrap()).unwrap();
                }
            }
        }
        scene.world.step();
        copy.step();
        plain.step();
        assert_eq!(copy.contacts(), scene.world.contacts(), "step {t}");
        assert_eq!(copy.events(), scene.world.events(), "step {t}");
        assert_eq!(copy.state_hash(), scene.world.state_hash(), "step {t}");
        diverged |= plain.contacts() != scene.world.contacts();
        plain.validate().unwrap();
    }
    assert!(diverged, "a restored world without hooks must differ to mean anything");
}

#[test]
fn a_rebuilt_world_shares_the_hooks() {
    let mut scene = periodic::build(1500, 22);
    scene.world.set_pair_hooks(Some(Arc::new(Hooks)));
    periodic::animate(&mut scene, 0);
    scene.world.step();
    let config = WorldConfig { broad_phase: BroadPhaseKind::SortSweep, ..WorldConfig::default() };
    let mut copy = scene.world.rebuilt_with(config).unwrap();
    assert!(copy.pair_hooks().is_some());
    let sorted = |w: &World| {
        let mut c: Vec<_> =
            w.contacts().iter().map(|c| (c.a.index(), c.b.index(), bytemuck::bytes_of(&c.manifold).to_vec())).collect();
        c.sort();
        c
    };
    assert_eq!(sorted(&copy), sorted(&scene.world));
    for t in 1..10 {
        periodic::animate(&mut scene, t);
        for (k, &id) in scene.ids.iter().enumerate() {
            if scene.moving[k] {
                copy.set_pose(id, scene.world.pose(id).unwrap()).unwrap();
            }
        }
        scene.world.step();
        copy.step();
        assert_eq!(copy.events(), scene.world.events(), "step {t}");
        assert_eq!(sorted(&copy), sorted(&scene.world), "step {t}");
    }
}
