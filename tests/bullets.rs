//! Continuous collision: bullets swept through a thin wall, determinism for any thread count,
//! rotating sweeps, bullets against bullets, and snapshots of worlds with bullets.

use std::hash::{DefaultHasher, Hash, Hasher};

use sapwood::{ColliderDesc, ColliderId, Impact, Pose, Shape, Vec2, World, WorldConfig};
use sapwood_support::SplitMix64;

const BULLETS: usize = 1000;
const RADIUS: f32 = 0.05;
/// Half the wall's thickness: the wall is 0.01 thick, centred on x = 0.
const WALL_HALF: f32 = 0.005;
const SPEED: f32 = 100.0;

/// Fires 1,000 bullets of radius 0.05 at 100 units per step across a 0.01-thick wall, each
/// from a random phase so that it crosses the wall once in four steps. Returns, per bullet,
/// the impacts reported for it and whether it ever touched the wall at a step's end.
fn fire(marked: bool) -> (Vec<Vec<Impact>>, Vec<bool>, ColliderId) {
    let mut world = World::new();
    let wall_shape = Shape::cuboid(Vec2::new(WALL_HALF, 110.0)).unwrap();
    let wall =
        world.insert(ColliderDesc::new(wall_shape, Pose::from_translation(Vec2::new(0.0, 100.0))).fixed()).unwrap();
    let mut rng = SplitMix64::new(17);
    let ball = Shape::circle(RADIUS).unwrap();
    let mut bullets = Vec::new();
    for i in 0..BULLETS {
        let p = Vec2::new(rng.range(-250.0, -150.0), 0.2 * i as f32);
        let desc = ColliderDesc::new(ball.clone(), Pose::from_translation(p));
        let id = world.insert(if marked { desc.bullet() } else { desc }).unwrap();
        bullets.push((id, p));
    }
    world.step();
    let (mut impacts, mut touched) = (vec![Vec::new(); BULLETS], vec![false; BULLETS]);
    for step in 1..=4 {
        for &(id, p) in &bullets {
            world.set_pose(id, Pose::from_translation(p + Vec2::new(SPEED * step as f32, 0.0))).unwrap();
        }
        world.step();
        world.validate().unwrap();
        for hit in world.impacts() {
            impacts[hit.bullet.index() as usize - 1].push(*hit);
        }
        for c in world.contacts() {
            assert_eq!(c.a, wall, "bullets never touch each other");
            touched[c.b.index() as usize - 1] = true;
        }
    }
    (impacts, touched, wall)
}

#[test]
fn marked_bullets_hit_a_thin_wall_unmarked_ones_tunnel() {
    let (impacts, touched, wall) = fire(true);
    let mut rng = SplitMix64::new(17);
    for (i, hits) in impacts.iter().enumerate() {
        let x0 = rng.range(-250.0, -150.0);
        assert_eq!(hits.len(), 1, "bullet {i}: one impact as it crosses the wall, got {hits:?}");
        let h = hits[0];
        assert_eq!(h.other, wall);
        // Where the ball's edge meets the wall's face, within the query's tolerance.
        let face = -WALL_HALF - RADIUS;
        assert!((h.pose.p.x - face).abs() < 0.01, "bullet {i}: stopped at x = {}", h.pose.p.x);
        let start = x0 + SPEED * ((face - x0) / SPEED).floor();
        assert!(
            (start + SPEED * h.fraction - h.pose.p.x).abs() < 1e-3,
            "bullet {i}: fraction {} disagrees with pose",
            h.fraction
        );
        assert!((h.normal - Vec2::X).length() < 1e-3, "bullet {i}: normal {:?}", h.normal);
        assert!(
            (h.point.x - (-WALL_HALF)).abs() < 0.01 && (h.point.y - 0.2 * i as f32).abs() < 0.01,
            "bullet {i}: {:?}",
            h.point
        );
    }
    let marked_touching = touched.iter().filter(|&&t| t).count();

    let (impacts, touched, _) = fire(false);
    assert!(impacts.iter().all(Vec::is_empty), "only bullets report impacts");
    // Without continuous collision a bullet is only seen when a step happens to end with it
    // inside the wall: 0.11 of every 100 units.
    let caught = touched.iter().filter(|&&t| t).count();
    assert!(caught < BULLETS / 10, "{caught} of {BULLETS} unmarked bullets were caught: most must pass through");
    assert_eq!(caught, marked_touching, "marking changes impacts, not contacts");
    println!("tunnelling: marked {BULLETS}/{BULLETS} impacts; unmarked {caught}/{BULLETS} caught by the discrete step");
}

/// A scene of walls, bodies and fast bullets (circles, boxes, capsules, polygons), spinning
/// and flying for 40 steps, some reversing each step so they pass each other.
fn bullet_scene(threads: usize, steps: usize) -> Vec<u64> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut rng = SplitMix64::new(99);
        let mut world = World::new();
        let shapes = [
            Shape::circle(0.1).unwrap(),
            Shape::cuboid(Vec2::new(0.15, 0.05)).unwrap(),
            Shape::capsule(Vec2::new(-0.2, 0.0), Vec2::new(0.2, 0.0), 0.05).unwrap(),
            Shape::from(sapwood::Polygon::regular(5, 0.12, 0.0).unwrap()),
        ];
        for k in 0..30 {
            let wall = Shape::cuboid(Vec2::new(0.02, rng.range(2.0, 8.0))).unwrap();
            let p = Vec2::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0));
            let desc = ColliderDesc::new(wall, Pose::new(p, rng.range(-1.0, 1.0)));
            world.insert(if k % 3 == 0 { desc } else { desc.fixed() }).unwrap();
        }
        for _ in 0..1500 {
            let p = Vec2::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0));
            world.insert(ColliderDesc::new(shapes[rng.below(4)].clone(), Pose::new(p, rng.range(-3.0, 3.0)))).unwrap();
        }
        let mut bullets = Vec::new();
        for _ in 0..300 {
            let p = Vec2::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0));
            let v = Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(5.0, 30.0);
            let desc = ColliderDesc::new(shapes[rng.below(4)].clone(), Pose::new(p, 0.0)).bullet();
            bullets.push((world.insert(desc).unwrap(), p, v, rng.range(-2.0, 2.0)));
        }
        let mut hashes = Vec::new();
        for step in 0..steps {
            for (i, &(id, p, v, spin)) in bullets.iter().enumerate() {
                // Back and forth, so that the scene stays in place and bullets cross.
                let phase = if (step + i) % 8 < 4 { (step + i) % 8 } else { 8 - (step + i) % 8 };
                world.set_pose(id, Pose::new(p + v * phase as f32, spin * step as f32)).unwrap();
            }
            world.step();
            let mut h = DefaultHasher::new();
            bytemuck::cast_slice::<_, u8>(world.impacts()).hash(&mut h);
            bytemuck::cast_slice::<_, u8>(world.contacts()).hash(&mut h);
            world.events().hash(&mut h);
            world.state_hash().hash(&mut h);
            hashes.push(h.finish());
        }
        assert!(world.impacts().len() > 30, "the scene must have impacts to mean anything");
        hashes
    })
}

#[test]
fn impacts_identical_for_any_thread_count() {
    let one = bullet_scene(1, 40);
    assert_eq!(one, bullet_scene(2, 40), "1 vs 2 threads");
    assert_eq!(one, bullet_scene(8, 40), "1 vs 8 threads");
}

#[test]
fn a_spinning_bar_hits_what_its_end_boxes_miss() {
    // A bar 4 long turning 3 rad about its centre: flat at both ends (its boxes reach 0.33 up
    // at most), upright midway, where it sweeps through a post 1.5 above its centre.
    let mut world = World::new();
    let post_shape = Shape::circle(0.1).unwrap();
    let post =
        world.insert(ColliderDesc::new(post_shape, Pose::from_translation(Vec2::new(0.0, 1.5))).fixed()).unwrap();
    let bar_shape = Shape::cuboid(Vec2::new(2.0, 0.05)).unwrap();
    let bar = world.insert(ColliderDesc::new(bar_shape.clone(), Pose::IDENTITY).bullet()).unwrap();
    world.step();
    assert!(world.impacts().is_empty() && world.contacts().is_empty());
    let end = Pose::new(Vec2::ZERO, 3.0);
    let ends = bar_shape.aabb(&Pose::IDENTITY).union(&bar_shape.aabb(&end));
    assert!(ends.max.y < 1.4, "the end boxes stay below the post: {ends:?}");
    world.set_pose(bar, end).unwrap();
    world.step();
    world.validate().unwrap();
    assert!(world.contacts().is_empty(), "the bar ends clear of the post");
    let hit = world.impacts().first().expect("the bar sweeps through the post");
    assert_eq!((hit.bullet, hit.other), (bar, post));
    // Upright (angle pi/2, fraction 0.52) less the post's half-width seen from 1.5 away.
    assert!(hit.fraction > 0.4 && hit.fraction < 0.53, "{hit:?}");
}

#[test]
fn bullets_meet_head_on_and_resting_contacts_are_left_to_the_contacts() {
    let mut world = World::new();
    let ball = Shape::circle(0.5).unwrap();
    let a =
        world.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(-10.0, 0.0))).bullet()).unwrap();
    let b =
        world.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(10.0, 0.0))).bullet()).unwrap();
    let floor = Shape::cuboid(Vec2::new(50.0, 0.5)).unwrap();
    world.insert(ColliderDesc::new(floor, Pose::from_translation(Vec2::new(0.0, -1.0))).fixed()).unwrap();
    world.step();
    assert_eq!(world.contacts().len(), 2, "both rest on the floor");
    // They swap places: swept together they meet in the middle, at a quarter of the way
    // (centres 1 apart after each went 4.5 of 20).
    world.set_pose(a, Pose::from_translation(Vec2::new(10.0, 0.0))).unwrap();
    world.set_pose(b, Pose::from_translation(Vec2::new(-10.0, 0.0))).unwrap();
    world.step();
    let got: Vec<_> = world.impacts().iter().map(|h| (h.bullet, h.other)).collect();
    assert_eq!(got, [(a, b), (b, a)], "each bullet's earliest impact is the other, not the floor it rests on");
    for h in world.impacts() {
        assert!((h.fraction - 0.475).abs() < 1e-3, "{h:?}");
    }
    assert_eq!(world.contacts().len(), 2, "contacts are those of the current poses");
    // A still step: no sweep, no impact.
    world.step();
    assert!(world.impacts().is_empty());
}

#[test]
fn snapshots_carry_bullets_and_their_sweeps() {
    let mut world = World::with_config(WorldConfig::default()).unwrap();
    let wall = Shape::cuboid(Vec2::new(0.01, 5.0)).unwrap();
    world.insert(ColliderDesc::new(wall, Pose::IDENTITY).fixed()).unwrap();
    let ball = Shape::circle(0.1).unwrap();
    let ids: Vec<_> = (0..20)
        .map(|i| {
            let desc = ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(-20.0, i as f32 * 0.4 - 4.0)));
            world.insert(if i % 2 == 0 { desc.bullet() } else { desc }).unwrap()
        })
        .collect();
    world.step();
    // Moved but not stepped: the sweep is pending, and must survive the round trip.
    for &id in &ids {
        let p = world.pose(id).unwrap().p;
        world.set_pose(id, Pose::from_translation(p + Vec2::new(40.0, 0.0))).unwrap();
    }
    let mut copy = World::from_bytes(&world.to_bytes()).unwrap();
    assert_eq!(copy.state_hash(), world.state_hash());
    world.step();
    copy.step();
    assert_eq!(world.impacts().len(), 10, "the bullets hit the wall");
    assert_eq!(bytemuck::cast_slice::<_, u8>(copy.impacts()), bytemuck::cast_slice::<_, u8>(world.impacts()));
    assert_eq!(copy.state_hash(), world.state_hash());
    // The bullet flag is hashed (the sweep start too: a unit test in the crate, since no
    // public call changes a sweep start alone).
    let mut plain = World::new();
    let mut marked = World::new();
    for (w, bullet) in [(&mut plain, false), (&mut marked, true)] {
        let d = ColliderDesc::new(ball.clone(), Pose::IDENTITY);
        let id = w.insert(if bullet { d.bullet() } else { d }).unwrap();
        w.step();
        w.set_pose(id, Pose::from_translation(Vec2::new(5.0, 0.0))).unwrap();
    }
    assert_ne!(plain.state_hash(), marked.state_hash(), "the bullet flag is hashed");
}

/// A pair the pair filter refuses gives no impact, as it gives no contact.
#[test]
fn refused_pairs_give_no_impact() {
    struct NoWall;
    impl sapwood::PairHooks for NoWall {
        fn filter_pair(&self, a: &sapwood::ColliderView<'_>, b: &sapwood::ColliderView<'_>) -> bool {
            a.user_data != 7 && b.user_data != 7
        }
    }
    let mut impacts = [0, 0];
    for (k, hooks) in [false, true].into_iter().enumerate() {
        let mut world = World::new();
        if hooks {
            world.set_pair_hooks(Some(std::sync::Arc::new(NoWall)));
        }
        let wall = Shape::cuboid(Vec2::new(0.01, 5.0)).unwrap();
        world.insert(ColliderDesc::new(wall, Pose::IDENTITY).fixed().with_user_data(7)).unwrap();
        let ball = Shape::circle(0.1).unwrap();
        let b = world.insert(ColliderDesc::new(ball, Pose::from_translation(Vec2::new(-5.0, 0.0))).bullet()).unwrap();
        world.step();
        world.set_pose(b, Pose::from_translation(Vec2::new(5.0, 0.0))).unwrap();
        world.step();
        impacts[k] = world.impacts().len();
    }
    assert_eq!(impacts, [1, 0]);
}
