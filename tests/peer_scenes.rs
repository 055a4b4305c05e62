//! The pyramids and the static scene (`docs/SCENES.md` §4 and §5) as `examples/peers` drives
//! them, at a size small enough for every `cargo test`: the scenes build in every engine, and
//! sapwood, rapier2d and Box2D v3 agree on which pairs touch, up to pairs that the exact `f64`
//! signed distance puts within a hair of touching (which engines may call either way).

use sapwood::WorldConfig;
use sapwood_support::exact_query::{self, Body, PoseD};
use sapwood_support::peers::{Box2dSide, Box2dSim, Insertion, RapierSide, SapwoodSide, disagreements};
use sapwood_support::scenes::{Collider, PYRAMID_BOXES, Scene};

/// The exact (`f64`) signed distance of two scene colliders at their poses: the oracle.
fn separation(a: &Collider, b: &Collider) -> f32 {
    let placed = |c: &Collider| Body::new(&c.shape).placed(&PoseD::from_pose(&c.pose));
    exact_query::signed_distance(&placed(a), &placed(b)) as f32
}

/// Every pair in only one of two touching lists is within `tolerance` of touching by the exact
/// signed distance at `scene`'s poses; returns how many there were.
fn near_ties(scene: &Scene, ours: &[(u32, u32, f32)], theirs: &[(u32, u32, f32)], tolerance: f32, what: &str) -> usize {
    let diff = disagreements(ours, theirs);
    for &((a, b), in_sapwood) in &diff {
        let s = separation(scene.get(a).unwrap(), scene.get(b).unwrap());
        assert!(
            s.abs() <= tolerance,
            "{what}: pair ({a}, {b}) only in {}, separation {s}",
            if in_sapwood { "sapwood" } else { "the peer" }
        );
    }
    diff.len()
}

#[test]
fn one_pyramid_touches_alike_in_sapwood_rapier_and_box2d() {
    let mut scene = Scene::pyramids(1);
    assert_eq!(scene.len(), 1 + PYRAMID_BOXES);
    let mut sap = SapwoodSide::build(&scene);
    let mut rap = RapierSide::build(&scene);
    let mut b2 = Box2dSim::build(&scene, true);
    // Initially every box exactly touches its neighbours and the ground: 19 + 18 + … side pairs,
    // two boxes under every box above the base, 20 on the ground.
    let initial = 190 + 2 * (PYRAMID_BOXES - 20) + 20;
    assert_eq!(sap.touching().len(), initial);
    let (mut before, mut sap_before) = (scene.clone(), sap.touching());
    let mut b2_contacts = Vec::new();
    let mut moved = 0.0f32;
    for step in 0..5 {
        b2.step();
        b2.copy_poses(&mut scene);
        sap.step(&scene);
        rap.step(&scene);
        let (sap_now, rap_now) = (sap.touching(), rap.touching());
        // Same poses: ties only (rapier's box–box manifold can put a point inside a pair that
        // is slightly apart, hence the wider margin than in the static scene).
        near_ties(&scene, &sap_now, &rap_now, 1e-4, "sapwood / rapier");
        // Box2D's manifolds after this step describe the poses after the previous one.
        b2.contacts(&mut b2_contacts);
        let b2_touching: Vec<(u32, u32, f32)> = b2_contacts.iter().copied().filter(|c| c.2 <= 0.0).collect();
        near_ties(&before, &sap_before, &b2_touching, 1e-4, "sapwood / Box2D");
        // Where Box2D has a manifold touching, its deepest point is as deep as the exact one.
        for &(a, b, s) in &b2_contacts {
            let exact = separation(before.get(a).unwrap(), before.get(b).unwrap());
            assert!(s > 0.0 || (s - exact).abs() < 1e-4, "step {step}: pair ({a}, {b}): Box2D {s}, exact {exact}");
        }
        assert!(sap_now.len() > initial / 2 && b2_touching.len() > initial / 2);
        moved = moved.max((scene.get(PYRAMID_BOXES as u32).unwrap().pose.p.y - 19.5).abs());
        (before, sap_before) = (scene.clone(), sap_now);
    }
    // Box2D's gravity moved the boxes: the other engines saw new poses, not the layout.
    assert!(moved > 1e-4, "{moved}");
}

#[test]
fn static_tiles_touch_alike_in_sapwood_rapier_and_box2d() {
    let mut scene = Scene::static_tiles(1_000, 100, 3);
    let unwelded = WorldConfig { weld_static_edges: false, ..WorldConfig::default() };
    let mut sap = SapwoodSide::build_with(&scene, unwelded, Insertion::OneByOne);
    let mut welded = SapwoodSide::build(&scene);
    let mut rap = RapierSide::build(&scene);
    let mut b2 = Box2dSide::build(&scene, false);
    let (mut touching, mut removed_by_welds) = (0, 0);
    for _ in 0..20 {
        scene.step();
        for side in [&mut sap, &mut welded] {
            side.step(&scene);
        }
        rap.step(&scene);
        b2.step(&scene);
        let (ours, theirs) = (sap.touching(), rap.touching());
        near_ties(&scene, &ours, &theirs, 1e-5, "sapwood / rapier");
        // Tiles (ids below 1,000) never pair with tiles; Box2D's manifolds (touching or within
        // 0.02) cover ours.
        assert_eq!(sap.touching_with_mover(&scene), ours.len());
        assert!(theirs.iter().all(|&(_, b, _)| b >= 1_000));
        assert!(b2.touching() as usize >= ours.len());
        // Welding removes pairs (the faces tiles share), never adds one.
        let diff = disagreements(&welded.touching(), &ours);
        assert!(diff.iter().all(|&(_, in_welded)| !in_welded), "{diff:?}");
        (touching, removed_by_welds) = (touching + ours.len(), removed_by_welds + diff.len());
    }
    assert!(touching > 100 && removed_by_welds > 0, "{touching} {removed_by_welds}");
}

/// The static scene at 70,000 tiles: a world of 65,536 colliders or more, where the narrow
/// phase reads what it needs of the tiles under the movers ahead of their kernels
/// (`warm_still_ends`). sapwood and rapier2d agree on which pairs touch, as above.
#[test]
fn a_big_static_world_touches_alike_in_sapwood_and_rapier() {
    let mut scene = Scene::static_tiles(70_000, 200, 5);
    let unwelded = WorldConfig { weld_static_edges: false, ..WorldConfig::default() };
    let mut sap = SapwoodSide::build_with(&scene, unwelded, Insertion::OneByOne);
    let mut rap = RapierSide::build(&scene);
    let mut touching = 0;
    for _ in 0..10 {
        scene.step();
        sap.step(&scene);
        rap.step(&scene);
        let (ours, theirs) = (sap.touching(), rap.touching());
        near_ties(&scene, &ours, &theirs, 1e-5, "sapwood / rapier");
        assert_eq!(sap.touching_with_mover(&scene), ours.len());
        touching += ours.len();
    }
    assert!(touching > 100, "{touching}");
}
