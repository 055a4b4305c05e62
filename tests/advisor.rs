//! The broad-phase advisor and `World::rebuilt_with`: a rebuilt world keeps ids and has exactly
//! the same contacts, with every broad phase, and keeps agreeing while it steps.

use sapwood::advisor;
use sapwood::{ColliderDesc, ColliderId, Contact, EventKind, Pose, Vec2, World, WorldConfig};
use sapwood_support::scenes::{Scene, SeedScenario};

/// Touching pairs with their manifolds' point counts, as a sorted list (contact order is
/// unspecified).
fn contact_set(world: &World) -> Vec<(u32, u32, u32, u32, u32)> {
    let mut v: Vec<_> = world
        .contacts()
        .iter()
        .map(|c: &Contact| (c.a.index(), c.a.generation(), c.b.index(), c.b.generation(), c.manifold.count))
        .collect();
    v.sort_unstable();
    v
}

/// A churning, half-moving scene in a world, so that ids have generations above 1 and free slots.
fn churned_world() -> (World, Scene, Vec<Option<ColliderId>>) {
    let mut scene = Scene::seed(SeedScenario::Churn, 400, 7);
    let mut world = World::new();
    let descs: Vec<ColliderDesc> =
        scene.colliders().iter().map(|c| ColliderDesc::new(c.shape.clone(), c.pose)).collect();
    let mut out = Vec::new();
    world.insert_batch(&descs, &mut out).unwrap();
    let mut ids: Vec<Option<ColliderId>> = out.into_iter().map(Some).collect();
    world.step();
    for _ in 0..20 {
        scene.step();
        drive(&scene, &mut world, &mut ids);
        world.step();
    }
    (world, scene, ids)
}

/// Tells the world what the scene's last step changed.
fn drive(scene: &Scene, world: &mut World, ids: &mut Vec<Option<ColliderId>>) {
    for &gone in scene.removed() {
        world.remove(ids[gone as usize].take().unwrap()).unwrap();
    }
    let fresh = scene.inserted().len();
    let cs = scene.colliders();
    for c in cs[..cs.len() - fresh].iter().filter(|c| c.moving) {
        world.set_pose(ids[c.id as usize].unwrap(), c.pose).unwrap();
    }
    ids.resize(scene.id_bound().max(ids.len()), None);
    for &new in scene.inserted() {
        let c = scene.get(new).unwrap();
        ids[new as usize] = Some(world.insert(ColliderDesc::new(c.shape.clone(), c.pose)).unwrap());
    }
}

#[test]
fn rebuilt_worlds_have_the_same_contacts_and_ids_with_every_broad_phase() {
    let (world, scene, ids) = churned_world();
    let expected = contact_set(&world);
    assert!(expected.len() > 100, "the scene must have contacts: {}", expected.len());
    for kind in advisor::candidates(&world) {
        let mut copy = world.rebuilt_with(WorldConfig { broad_phase: kind, ..*world.config() }).unwrap();
        assert_eq!(copy.config().broad_phase, kind);
        assert_eq!(copy.len(), world.len());
        assert_eq!(contact_set(&copy), expected, "{kind:?}");
        assert_eq!(copy.events(), world.events(), "{kind:?}: last step's events carry over");
        for id in ids.iter().flatten() {
            assert_eq!(copy.pose(*id), world.pose(*id));
        }
        // Both keep agreeing while the scene goes on, including the ids of new colliders: an
        // identical, never rebuilt world (the scene is deterministic) against the copy.
        let (mut original, mut s1, mut i1) = churned_world();
        assert_eq!(contact_set(&original), expected);
        let (mut s2, mut i2) = (scene.clone(), ids.clone());
        for _ in 0..10 {
            s1.step();
            s2.step();
            drive(&s1, &mut original, &mut i1);
            drive(&s2, &mut copy, &mut i2);
            original.step();
            copy.step();
            assert_eq!(i1, i2, "{kind:?}: inserted colliders get the same ids");
            assert_eq!(contact_set(&copy), contact_set(&original), "{kind:?}");
            let (mut e1, mut e2) = (original.events().to_vec(), copy.events().to_vec());
            e1.sort_unstable();
            e2.sort_unstable();
            assert_eq!(e1, e2, "{kind:?}");
        }
    }
}

#[test]
fn rebuilding_before_a_step_reports_the_pending_changes_with_the_next_step() {
    let mut world = World::new();
    let circle = sapwood::Shape::circle(1.0).unwrap();
    let a = world.insert(ColliderDesc::new(circle.clone(), Pose::IDENTITY)).unwrap();
    let b = world.insert(ColliderDesc::new(circle, Pose::from_translation(Vec2::new(5.0, 0.0)))).unwrap();
    world.step();
    assert!(world.contacts().is_empty());
    // Moved into contact but not stepped yet: the copy already has the contact and reports its
    // beginning with its next step, as the original would.
    world.set_pose(b, Pose::from_translation(Vec2::new(1.5, 0.0))).unwrap();
    let mut copy = world
        .rebuilt_with(WorldConfig { broad_phase: sapwood::BroadPhaseKind::DynamicTree, ..*world.config() })
        .unwrap();
    assert_eq!(copy.contacts().len(), 1);
    assert!(copy.events().is_empty());
    copy.step();
    world.step();
    assert_eq!(copy.events(), world.events());
    assert_eq!((copy.events()[0].a, copy.events()[0].kind), (a, EventKind::ContactBegan));
}

#[test]
fn advice_ranks_every_candidate_and_apply_keeps_the_contacts() {
    let (world, scene, ids) = churned_world();
    let mut calls = Vec::new();
    let (mut s, mut i) = (scene.clone(), ids.clone());
    let advice = advisor::advise(&world, 4, |w: &mut World, step| {
        calls.push(step);
        if step == 0 {
            (s, i) = (scene.clone(), ids.clone());
        }
        s.step();
        drive(&s, w, &mut i);
    })
    .unwrap();
    let kinds = advisor::candidates(&world);
    assert_eq!(calls.len(), 4 * kinds.len());
    assert_eq!(advice.ranking.len(), kinds.len());
    assert_eq!(advice.best, advice.ranking[0].0);
    assert!(advice.ranking.windows(2).all(|w| w[0].1 <= w[1].1));
    for k in &kinds {
        assert!(advice.ranking.iter().any(|(r, _)| r == k), "{k:?} not ranked");
    }
    let applied = advice.apply(&world).unwrap();
    assert_eq!(applied.config().broad_phase, advice.best);
    assert_eq!(contact_set(&applied), contact_set(&world));
    // The caller's world was not touched by the trial runs.
    assert_eq!(world.len(), scene.len());
}

#[test]
fn candidates_cover_the_world_and_drop_brute_force_when_large() {
    let (world, _, _) = churned_world();
    let ext = advisor::extent(&world).unwrap();
    for id in world.ids() {
        let b = world.aabb(id).unwrap();
        assert!(ext.contains(&b), "{b:?} outside {ext:?}");
    }
    assert!(advisor::candidates(&world).contains(&sapwood::BroadPhaseKind::BruteForce));
    assert_eq!(advisor::extent(&World::new()), None);
    assert_eq!(advisor::candidates(&World::new()).len(), 7);

    let big = Scene::seed(SeedScenario::RandomStill, advisor::BRUTE_FORCE_LIMIT + 1, 1);
    let mut w = World::new();
    let descs: Vec<ColliderDesc> = big.colliders().iter().map(|c| ColliderDesc::new(c.shape.clone(), c.pose)).collect();
    w.insert_batch(&descs, &mut Vec::new()).unwrap();
    let kinds = advisor::candidates(&w);
    assert_eq!(kinds.len(), 6);
    assert!(!kinds.contains(&sapwood::BroadPhaseKind::BruteForce));
    assert!(advisor::advise_among(&w, &[], 1, |_, _| {}).is_err());
}
