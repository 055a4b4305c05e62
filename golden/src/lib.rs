//! The same bits in every build: a scene with bullets, rotations, statics, a chain, a compound,
//! sensors, pair hooks, removals, inserts and a character mover is stepped, every step's
//! [`World::state_hash`] and the character's pose are folded into one value, and that value
//! (and the last state hash) must equal the constants below, in every build CI makes: the
//! parallel and the serial one, and with other code generation:
//!
//! ```text
//! cargo test --release -p sapwood-golden
//! cargo test --release -p sapwood-golden --no-default-features
//! RUSTFLAGS="-C target-cpu=native" cargo test --release -p sapwood-golden
//! RUSTFLAGS="-C opt-level=1" cargo test --release -p sapwood-golden
//! ```
//!
//! (A crate of its own, so that a build with other flags compiles sapwood alone, not the
//! dev-dependencies of its whole test suite.)
//!
//! sapwood computes its sines, cosines and arctangents itself (`tests/no_libm.rs`), so nothing
//! in a step depends on the platform's maths library, and Rust never fuses a multiply and an
//! add on its own, so wider vector units change nothing either.
//!
//! A second scene, piles of boxes at rest, holds the narrow phase's SIMD lanes to the same
//! bits as the one-pair path and to the same bits in every build.
//!
//! Steps alternate between many colliders moving (the narrow phase scans the pair entries) and
//! a few (it walks the movers' pair lists), and the scene runs on the SAP and on the dynamic
//! tree (which finds pairs by query, through the parallel pair search), so every parallel pass
//! of the step takes part. A change to the step that changes the constants is a change of
//! results, to be explained in its commit.

use std::sync::Arc;

use sapwood::collide::Manifold;
use sapwood::internal::SplitMix64;
use sapwood::{
    BroadPhaseKind, ChainOptions, CharacterConfig, ColliderDesc, ColliderId, ColliderView, PairHooks, Pose, Shape,
    Vec2, World, WorldConfig,
};

/// Refuses pairs of two colliders whose user data are both 3 mod 5, disables contacts with a
/// collider whose user data is 7 mod 11 while it is above the other, and halves the depths of
/// the contacts of one whose user data is 2 mod 13: pure functions of their arguments, as
/// determinism asks.
struct Hooks;

impl PairHooks for Hooks {
    fn filter_pair(&self, a: &ColliderView<'_>, b: &ColliderView<'_>) -> bool {
        !(a.user_data % 5 == 3 && b.user_data % 5 == 3)
    }

    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, m: &mut Manifold) -> bool {
        let above = |x: &ColliderView<'_>, y: &ColliderView<'_>| x.user_data % 11 == 7 && x.pose.p.y > y.pose.p.y;
        if a.user_data % 13 == 2 || b.user_data % 13 == 2 {
            m.points.iter_mut().for_each(|p| p.depth *= 0.5);
        }
        !(above(a, b) || above(b, a))
    }
}

fn shape(rng: &mut SplitMix64, i: usize) -> Shape {
    let s = rng.range(0.2, 0.8);
    match i % 6 {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::cuboid(Vec2::new(s, 0.5 * s)).unwrap(),
        2 => Shape::capsule(Vec2::new(-s, 0.0), Vec2::new(s, 0.0), 0.3 * s).unwrap(),
        3 => Shape::polygon(&[Vec2::new(-s, -s), Vec2::new(s, -s), Vec2::new(0.2 * s, s)], 0.05).unwrap(),
        4 => Shape::rounded_box(Vec2::new(s, s), 0.1 * s).unwrap(),
        _ => Shape::compound(vec![
            (Pose::from_translation(Vec2::new(-s, 0.0)), Shape::cuboid(Vec2::new(0.5 * s, 0.2)).unwrap()),
            (Pose::new(Vec2::new(s, 0.0), 0.5), Shape::circle(0.5 * s).unwrap()),
        ])
        .unwrap(),
    }
}

/// The folded per-step state hashes and the last state hash of `steps` steps on `broad_phase`.
#[must_use]
pub fn run(broad_phase: BroadPhaseKind, steps: usize) -> (u64, u64) {
    let mut world = World::with_config(WorldConfig { broad_phase, ..WorldConfig::default() }).unwrap();
    world.set_pair_hooks(Some(Arc::new(Hooks)));
    let mut rng = SplitMix64::new(29);
    // A floor of welded tiles, walls, and a one-sided chain ramp.
    for k in -40..40 {
        let tile = Shape::cuboid(Vec2::splat(0.5)).unwrap();
        world.insert(ColliderDesc::new(tile, Pose::from_translation(Vec2::new(k as f32, -12.0))).fixed()).unwrap();
    }
    for x in [-40.5, 40.5] {
        let wall = Shape::cuboid(Vec2::new(0.5, 30.0)).unwrap();
        world.insert(ColliderDesc::new(wall, Pose::from_translation(Vec2::new(x, 15.0))).fixed()).unwrap();
    }
    let ramp = [(12.0, 4.0), (6.0, 2.0), (0.0, 1.5), (-6.0, 2.5)].map(|(x, y)| Vec2::new(x, y));
    let ramp = Shape::chain(ramp.to_vec(), ChainOptions { closed: false, one_sided: true }).unwrap();
    world.insert(ColliderDesc::new(ramp, Pose::IDENTITY).fixed()).unwrap();
    let sensor = Shape::cuboid(Vec2::new(4.0, 3.0)).unwrap();
    world.insert(ColliderDesc::new(sensor, Pose::from_translation(Vec2::new(-8.0, -6.0))).fixed().sensor()).unwrap();

    let mut movers: Vec<ColliderId> = Vec::new();
    let mut bullets: Vec<ColliderId> = Vec::new();
    for i in 0..1200 {
        let p = Vec2::new(rng.range(-38.0, 38.0), rng.range(-10.0, 40.0));
        let mut d = ColliderDesc::new(shape(&mut rng, i), Pose::new(p, rng.range(-3.0, 3.0))).with_user_data(i as u64);
        d.sensor = i % 23 == 5;
        movers.push(world.insert(d).unwrap());
    }
    for i in 0..12 {
        let p = Vec2::new(-39.0, -10.0 + 4.0 * i as f32);
        let d = ColliderDesc::new(Shape::circle(0.1).unwrap(), Pose::from_translation(p)).bullet();
        bullets.push(world.insert(d.with_user_data(1000 + i)).unwrap());
    }

    // A character walking right along the floor and up the ramp, jumping now and then: the
    // mover's casts, plane solves and snapping.
    let (body, config) =
        (Shape::capsule(Vec2::new(0.0, -0.4), Vec2::new(0.0, 0.4), 0.3).unwrap(), CharacterConfig::default());
    let (mut character, mut hits) = (Pose::from_translation(Vec2::new(-30.0, -10.5)), Vec::new());
    let (mut folded, mut impacts) = (0xcbf2_9ce4_8422_2325u64, 0);
    for step in 0..steps {
        let walk = Vec2::new(0.4, if step % 15 == 0 { 1.5 } else { -0.3 });
        let moved = world.move_character(&body, &character, walk, &config, &mut hits).unwrap();
        character = moved.pose;
        let bits = bytemuck::cast::<Pose, [u32; 4]>(character);
        folded = bits.iter().fold(folded, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
        let share = if step % 2 == 0 { 0.5 } else { 0.03 };
        for &id in &movers {
            if rng.next_f32() < share {
                let pose = world.pose(id).unwrap();
                let p = pose.p + Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
                let p = p.clamp(Vec2::new(-38.0, -11.0), Vec2::new(38.0, 41.0));
                world.set_pose(id, Pose::new(p, pose.q.angle() + rng.range(-0.4, 0.4))).unwrap();
            }
        }
        // Bullets cross the world in a few steps, turning, and start again at the left wall.
        for (k, &id) in bullets.iter().enumerate() {
            let pose = world.pose(id).unwrap();
            let p = pose.p + Vec2::new(9.0, (k as f32 - 5.5) * 0.2);
            if p.x > 39.0 {
                world.teleport(id, Pose::from_translation(Vec2::new(-39.0, pose.p.y))).unwrap();
            } else {
                world.set_pose(id, Pose::new(p, pose.q.angle() + 1.3)).unwrap();
            }
        }
        if step % 5 == 4 {
            let i = rng.below(movers.len());
            world.remove(movers.swap_remove(i)).unwrap();
            let p = Vec2::new(rng.range(-38.0, 38.0), rng.range(-10.0, 40.0));
            let d = ColliderDesc::new(shape(&mut rng, step), Pose::from_translation(p)).with_user_data(step as u64);
            movers.push(world.insert(d).unwrap());
        }
        world.step();
        impacts += world.impacts().len();
        folded = (folded ^ world.state_hash()).wrapping_mul(0x0000_0100_0000_01b3);
    }
    assert!(impacts > steps, "the bullets hit things: {impacts} impacts");
    assert!(world.contacts().len() > 300, "a crowded scene: {} contacts", world.contacts().len());
    (folded, world.state_hash())
}

/// Pyramids of boxes at rest, every box nudged by a few micrometres and microradians each step
/// (as a solver leaves a resting pile): with manifold reuse on and no pair hooks, the narrow
/// phase computes most of their pairs four at a time in SIMD lanes. A second world with reuse
/// off (one pair at a time, no lanes) is fed the same poses; their contacts must be the same
/// bytes after every step, and their hash, folded over the steps, is returned.
#[must_use]
pub fn resting_pyramids(steps: usize) -> u64 {
    let config = |reuse_manifolds| WorldConfig { reuse_manifolds, ..WorldConfig::default() };
    let mut worlds = [World::with_config(config(true)).unwrap(), World::with_config(config(false)).unwrap()];
    let (mut rng, mut boxes) = (SplitMix64::new(0x5eed), Vec::new());
    let ground = ColliderDesc::new(Shape::cuboid(Vec2::new(40.0, 0.5)).unwrap(), Pose::IDENTITY).fixed();
    let unit = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    for w in &mut worlds {
        w.insert(ground.clone()).unwrap();
    }
    for pyramid in 0..4 {
        for row in 0..10 {
            for k in 0..10 - row {
                let p =
                    Vec2::new(-30.0 + 15.0 * pyramid as f32 + k as f32 + 0.5 * row as f32, 0.999 + 0.999 * row as f32);
                let d = ColliderDesc::new(unit.clone(), Pose::new(p, rng.range(-1e-3, 1e-3)));
                let ids = [worlds[0].insert(d.clone()).unwrap(), worlds[1].insert(d).unwrap()];
                boxes.push(ids);
            }
        }
    }
    let mut folded = 0xcbf2_9ce4_8422_2325u64;
    for step in 0..steps {
        for ids in &boxes {
            let pose = worlds[0].pose(ids[0]).unwrap();
            let p = pose.p + Vec2::new(rng.range(-2e-5, 2e-5), rng.range(-2e-5, 2e-5));
            let pose = Pose::new(p, pose.q.angle() + rng.range(-1e-5, 1e-5));
            for (w, &id) in worlds.iter_mut().zip(ids) {
                w.set_pose(id, pose).unwrap();
            }
        }
        for w in &mut worlds {
            w.step();
        }
        let bytes = worlds.each_ref().map(|w| bytemuck::cast_slice::<_, u8>(w.contacts()).to_vec());
        assert!(bytes[0] == bytes[1], "step {step}: the lanes changed a contact");
        folded = bytes[0].iter().fold(folded, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    }
    assert!(worlds[0].contacts().len() > 400, "resting piles: {} contacts", worlds[0].contacts().len());
    assert!(worlds[0].last_step_counts().reused > 300, "reused: {}", worlds[0].last_step_counts().reused);
    folded
}

#[test]
fn resting_boxes_step_to_the_same_hashes() {
    let folded = resting_pyramids(60);
    assert_eq!(folded, 0x4a08_72bd_40f3_e470, "the resting pyramids: {folded:#x}");
}

#[test]
fn every_build_steps_to_the_same_hashes() {
    let sap = run(BroadPhaseKind::IncrementalSap, 60);
    let tree = run(BroadPhaseKind::DynamicTree, 60);
    let expected = ((0x1e09_e4a1_eab8_49b2, 0xdae4_d98b_7402_4a98), (0x1f88_c418_7417_c8db, 0x1a84_8c47_3818_5cfa));
    assert_eq!((sap, tree), expected, "the SAP and the tree scene: {:#x?}", (sap, tree));
}
