//! Box2D's benchmark suite (`docs/SCENES.md` §6) at the counts of Box2D's debug build, as
//! `examples/peers --scene suite` drives it: Box2D simulates each scene with its own solver and
//! each step sapwood is told the shapes Box2D destroyed and created and the poses of those that
//! moved. After every step sapwood's touching pairs must be those of an exact reference (the
//! `f64` signed distance of `sapwood_support::exact_query` at most 0, with Box2D's pair rules as
//! the scene's filters state them), up to pairs within a hair of touching. The reference knows
//! nothing of welds, so the comparison is made in a world with `weld_static_edges` off; the
//! default world, which welds the tiles of rain's, junkyard's and compounds' floors, must touch
//! a subset of its pairs.

use sapwood::{Aabb, Shape, Vec2, WorldConfig};
use sapwood_support::exact_query::{self, PlacedPart};
use sapwood_support::peers::{Insertion, SapwoodSide, SuiteScene, SuiteSim, SuiteSize, disagreements};
use sapwood_support::scenes::{Collider, Scene};

/// An overlap (m) deep enough that Box2D and sapwood must agree on it whatever their slop: ten
/// times the 5 mm Box2D accepts for capsules, and beyond a sleeping body's drift.
const CLEARLY: f32 = 0.05;

/// How far from touching (m) a pair may be, by the exact distance, and still be called either
/// way: the rounding of f32 kernels at these coordinates (up to about 250 m from the origin).
const NEAR: f64 = 5e-5;

/// A collider's convex parts placed at its pose (a chain's segments), each with its box.
fn parts(c: &Collider) -> Vec<(PlacedPart, Aabb)> {
    exact_query::placed_parts(&c.shape, &c.pose)
        .into_iter()
        .map(|part| {
            let (lo, hi) =
                part.core.vertices().iter().fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(l, h), p| {
                    let p = Vec2::new(p.x as f32, p.y as f32);
                    (l.min(p), h.max(p))
                });
            // Grown by the radius and a margin beyond f32 rounding, so that no touching pair is
            // left out.
            let r = Vec2::splat(part.core.radius as f32 + 1e-3);
            (part, Aabb::new(lo - r, hi + r))
        })
        .collect()
}

/// The exact reference: every pair of colliders that may pair (not both fixed, filters
/// allowing, one-sided chains facing them: spinner's loop, whose last segment closes it facing
/// out over its first ones) whose exact signed distance is at most `NEAR`, as `(lower id, higher id, signed
/// distance)`, sorted; pairs within `NEAR` of touching on the far side are kept too, for the
/// caller to tell ties from misses.
fn exact_pairs(scene: &Scene) -> Vec<(u32, u32, f64)> {
    let colliders = scene.colliders();
    let placed: Vec<Vec<(PlacedPart, Aabb)>> = colliders.iter().map(parts).collect();
    let boxes: Vec<Aabb> = placed.iter().map(|p| p.iter().skip(1).fold(p[0].1, |b, q| b.union(&q.1))).collect();
    // Sweep and prune along x.
    let mut order: Vec<usize> = (0..colliders.len()).collect();
    order.sort_by(|&i, &j| boxes[i].min.x.total_cmp(&boxes[j].min.x));
    let mut out = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].min.x > boxes[i].max.x {
                break;
            }
            let (a, b) = (&colliders[i], &colliders[j]);
            if !boxes[i].overlaps(&boxes[j]) || (a.fixed && b.fixed) || !a.filter.pairs_with(&b.filter) {
                continue;
            }
            let mut separation = f64::INFINITY;
            for (pa, ba) in &placed[i] {
                for (pb, bb) in &placed[j] {
                    if ba.overlaps(bb) && pa.faces(pb) && pb.faces(pa) {
                        separation = separation.min(exact_query::pair_signed_distance(&pa.core, &pb.core));
                    }
                }
            }
            if separation <= NEAR {
                out.push((a.id.min(b.id), a.id.max(b.id), separation));
            }
        }
    }
    out.sort_unstable_by_key(|&(a, b, _)| (a, b));
    out
}

/// Steps `scene` of the suite `steps` times, checking sapwood against the exact reference
/// after each step; returns (touching pair-steps, ties, pair-steps welds removed, shapes
/// inserted and removed after the first step).
fn check(which: SuiteScene, steps: usize) -> (usize, usize, usize, [usize; 2]) {
    // Recycling off: each step Box2D computes every awake contact's manifold afresh.
    let mut sim = SuiteSim::build(which, SuiteSize::Small, false);
    let mut scene = Scene::simulated();
    sim.sync(&mut scene);
    let unwelded = WorldConfig { weld_static_edges: false, ..WorldConfig::default() };
    let mut sap = SapwoodSide::build_with(&scene, unwelded, Insertion::OneByOne);
    let mut welded = SapwoodSide::build(&scene);
    let (mut before, mut ours_before, mut b2) = (scene.clone(), sap.touching(), Vec::new());
    let (mut touching, mut ties, mut welds, mut churn) = (0, 0, 0, [0, 0]);
    for step in 0..steps {
        sim.step();
        sim.sync(&mut scene);
        sap.step(&scene);
        welded.step(&scene);
        churn[0] += scene.inserted().len();
        churn[1] += scene.removed().len();
        assert_eq!(scene.len(), sim.shape_counts().0, "{} step {step}: the mirror holds every shape", which.name());
        let ours = sap.touching();
        // Welding removes pairs (faces two tiles share), never adds one.
        let diff = disagreements(&welded.touching(), &ours);
        assert!(diff.iter().all(|&(_, in_welded)| !in_welded), "{} step {step}: {diff:?}", which.name());
        welds += diff.len();
        let exact = exact_pairs(&scene);
        let exact_touching: Vec<(u32, u32, f32)> =
            exact.iter().filter(|p| p.2 <= 0.0).map(|&(a, b, s)| (a, b, s as f32)).collect();
        for ((a, b), in_sapwood) in disagreements(&ours, &exact_touching) {
            let s = exact.binary_search_by_key(&(a, b), |p| (p.0, p.1)).map_or(f64::INFINITY, |i| exact[i].2);
            let (ca, cb) = (scene.get(a).unwrap(), scene.get(b).unwrap());
            assert!(
                s.abs() <= NEAR,
                "{} step {step}: pair ({a}, {b}) {:?}–{:?} only in {}: exact signed distance {s:e}",
                which.name(),
                ca.shape.kind(),
                cb.shape.kind(),
                if in_sapwood { "sapwood" } else { "the reference" },
            );
            ties += 1;
        }
        touching += ours.len();
        // The mirror keeps Box2D's pairs: what Box2D's contacts after this step (made at the
        // poses before it) call clearly overlapping, sapwood touched then, and what sapwood
        // touched deeply Box2D had a contact for — so no filter, group or shape was lost on
        // the way. Pairs with a shape created or destroyed in this step are left out.
        sim.contacts(&mut b2);
        let churned = |id: u32| scene.inserted().contains(&id) || scene.removed().contains(&id);
        let has = |list: &[(u32, u32, f32)], a: u32, b: u32| list.binary_search_by_key(&(a, b), |p| (p.0, p.1)).is_ok();
        for &(a, b, separation) in b2.iter().filter(|p| !churned(p.0) && !churned(p.1)) {
            assert!(
                separation > -CLEARLY || has(&ours_before, a, b),
                "{} step {step}: pair ({a}, {b}) overlaps by {separation} in Box2D, not in sapwood",
                which.name()
            );
        }
        for &(a, b, depth) in ours_before.iter().filter(|p: &&(u32, u32, f32)| !churned(p.0) && !churned(p.1)) {
            let (ca, cb) = (before.get(a).unwrap(), before.get(b).unwrap());
            assert!(
                depth < CLEARLY || has(&b2, a, b),
                "{} step {step}: pair ({a}, {b}) {:?}–{:?} overlaps by {depth} in sapwood, Box2D has no contact",
                which.name(),
                ca.shape.kind(),
                cb.shape.kind(),
            );
        }
        (before, ours_before) = (scene.clone(), ours);
    }
    (touching, ties, welds, churn)
}

#[test]
fn box2d_suite_touches_as_the_exact_reference() {
    // Enough steps for each scene to fall, pile or collide (smash's box reaches the block after
    // about 70 steps, tumbler's and washer's boxes their drum after about 70 and 95); rain's
    // first column is replaced on step 320.
    let steps = |s: SuiteScene| match s {
        SuiteScene::Rain => 330,
        SuiteScene::Junkyard | SuiteScene::Tumbler | SuiteScene::Washer => 150,
        SuiteScene::Smash => 100,
        _ => 60,
    };
    for which in SuiteScene::ALL {
        let (touching, ties, welds, [inserted, removed]) = check(which, steps(which));
        eprintln!(
            "{}: {touching} touching pair-steps, {ties} ties, {welds} welded away, {inserted} inserted, {removed} removed",
            which.name()
        );
        assert!(touching > 100 * steps(which) / 10, "{}: {touching} touching pair-steps", which.name());
        assert!(ties * 1000 <= touching, "{}: {ties} ties of {touching}", which.name());
        if which == SuiteScene::Rain {
            assert!(inserted > 0 && removed > 0, "rain creates and destroys ragdolls: {inserted} / {removed}");
        }
    }
}

#[test]
fn suite_scenes_have_box2d_counts() {
    // Shapes as Box2D's benchmark builds them (its release counts), a chain counted once.
    for (which, shapes) in [
        (SuiteScene::Compounds, 20 * 150 * 2 + 81 + 200 + 1),
        (SuiteScene::Junkyard, 200 * 40 + 161 + 100 + 1),
        (SuiteScene::LargePyramid, 5050 + 1),
        (SuiteScene::ManyPyramids, 400 * 55 + 20),
        (SuiteScene::Rain, 5 * 501),
        (SuiteScene::Smash, 120 * 80 + 1),
        (SuiteScene::Spinner, 6076 + 1 + 1),
        (SuiteScene::Tumbler, 45 * 45 + 4),
        (SuiteScene::Washer, 90 * 90 + 40),
    ] {
        let mut sim = SuiteSim::build(which, SuiteSize::Benchmark, true);
        let mut scene = Scene::simulated();
        sim.sync(&mut scene);
        assert_eq!((scene.len(), sim.shape_counts()), (shapes, (shapes, shapes)), "{}", which.name());
        assert_eq!(SuiteScene::from_name(which.name()), Some(which));
    }
    // Rain's first step creates a column of five groups of five ragdolls of 13 shapes.
    let mut sim = SuiteSim::build(SuiteScene::Rain, SuiteSize::Benchmark, true);
    let mut scene = Scene::simulated();
    sim.sync(&mut scene);
    sim.step();
    sim.sync(&mut scene);
    assert_eq!(scene.inserted().len(), 5 * 5 * 13);
    let capsules = scene.colliders().iter().filter(|c| matches!(c.shape, Shape::Capsule(_))).count();
    assert_eq!(capsules, 5 * 5 * 11);
}
