//! A periodic test scene shared by the world's determinism and allocation tests: a mix of all
//! shape kinds, some static, some sensors, half of them moving along closed paths so that the
//! scene repeats itself exactly every `PERIOD` steps. `Hooks` are pair hooks for the same tests.

use crate::SplitMix64;
use sapwood::collide::Manifold;
use sapwood::{
    BroadPhaseKind, ColliderDesc, ColliderId, ColliderView, Filter, PairHooks, Pose, Shape, Vec2, World, WorldConfig,
};

pub const PERIOD: usize = 64;

pub struct Scene {
    pub world: World,
    pub ids: Vec<ColliderId>,
    pub home: Vec<Pose>,
    pub moving: Vec<bool>,
}

/// The movers' broad phases whose step differs in structure: the default SAP (pairs from its
/// swaps) and the spatial hash (pairs from parallel queries of the escaped colliders).
pub fn configs() -> [WorldConfig; 2] {
    [
        WorldConfig::default(),
        WorldConfig { broad_phase: BroadPhaseKind::SpatialHash { cell_size: 2.0 }, ..WorldConfig::default() },
    ]
}

pub fn build(n: usize, seed: u64) -> Scene {
    build_with(n, seed, WorldConfig::default())
}

pub fn build_with(n: usize, seed: u64, config: WorldConfig) -> Scene {
    let mut rng = SplitMix64::new(seed);
    let side = (n as f32 / 0.5).sqrt();
    let mut world = World::with_config(config).unwrap();
    let (mut ids, mut home, mut moving) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let k = rng.next_f32();
        let size = 0.2 + 0.4 * rng.next_f32();
        let shape = if k < 0.3 {
            Shape::circle(size).unwrap()
        } else if k < 0.6 {
            Shape::cuboid(Vec2::new(size, 0.2 + 0.4 * rng.next_f32())).unwrap()
        } else if k < 0.75 {
            Shape::capsule(Vec2::new(-size, 0.0), Vec2::new(size, 0.0), 0.2).unwrap()
        } else if k < 0.9 {
            sapwood::Polygon::regular(5 + i % 4, size + 0.05, 0.0).map(Shape::from).unwrap()
        } else {
            Shape::rounded_box(Vec2::splat(size * 0.7), 0.1).unwrap()
        };
        let pose =
            Pose::new(Vec2::new(side * rng.next_f32(), side * rng.next_f32()), std::f32::consts::TAU * rng.next_f32());
        let mut desc = ColliderDesc::new(shape, pose).with_user_data(i as u64);
        desc.is_static = i % 10 == 3;
        desc.sensor = i % 17 == 5;
        let moves = i % 2 == 0 && !desc.is_static;
        ids.push(world.insert(desc).unwrap());
        home.push(pose);
        moving.push(moves);
    }
    Scene { world, ids, home, moving }
}

/// Moves every moving collider to its place at time `t` on its closed path.
pub fn animate(scene: &mut Scene, t: usize) {
    let phase = t as f32 / PERIOD as f32 * std::f32::consts::TAU;
    for i in 0..scene.ids.len() {
        if !scene.moving[i] {
            continue;
        }
        let h = scene.home[i];
        let r = 0.5 + (i % 7) as f32 * 0.3;
        let a = phase + i as f32;
        let pose = Pose::new(h.p + r * Vec2::new(a.cos(), a.sin()), h.q.angle() + 0.5 * a.sin());
        scene.world.set_pose(scene.ids[i], pose).unwrap();
    }
}

/// Whether `phase` lies in the half period that starts at `start`.
fn in_half(phase: usize, start: usize) -> bool {
    (phase + PERIOD - start) % PERIOD < PERIOD / 2
}

/// Switches live state on one collider in 23 at time `t`: each setter (enabled, sensor,
/// static, filter, bullet, both event switches) on its own colliders, flipped for one half of
/// the period at its own phase, so that the scene still repeats every `PERIOD` steps. Removed
/// colliders are skipped.
pub fn switch_state(scene: &mut Scene, t: usize) {
    let phase = t % PERIOD;
    let w = &mut scene.world;
    for (i, &id) in scene.ids.iter().enumerate() {
        if !w.contains(id) {
            continue;
        }
        let flip = |start| in_half(phase, start);
        match i % 23 {
            1 => w.set_enabled(id, !flip(3)),
            2 => w.set_sensor(id, flip(9) != (i % 17 == 5)),
            4 => w.set_static(id, flip(15) != (i % 10 == 3)),
            6 => {
                w.set_filter(id, if flip(21) { Filter { category: 2, mask: !2, group: 0 } } else { Filter::default() })
            }
            7 => w.set_bullet(id, flip(27)),
            8 => w.set_contact_events(id, !flip(33)),
            9 => w.set_sensor_events(id, !flip(39)),
            _ => Ok(()),
        }
        .unwrap();
    }
}

/// Pair hooks whose answers depend on the pair and on the pose (pure functions of what they
/// are given), touching every path: a filter refusing about one pair in seven, a contact hook
/// that disables contacts whose normal is near +y when the lower collider's user data is a
/// multiple of 3 (a one-way rule), drops the second point of others and halves every depth.
pub struct Hooks;

impl Hooks {
    /// Whether the filter lets colliders with user data `a` and `b` pair.
    pub fn allows(a: u64, b: u64) -> bool {
        (a + b) % 7 != 3
    }

    /// The contact hook on user data and the manifold, as `PairHooks::modify_contact`.
    pub fn modify(a: u64, b: u64, m: &mut Manifold) -> bool {
        if a.is_multiple_of(3) && m.normal.y > 0.7 {
            return false;
        }
        if (a ^ b) % 4 == 1 {
            m.count = m.count.min(1);
        }
        for p in &mut m.points {
            p.depth *= 0.5;
        }
        true
    }
}

impl PairHooks for Hooks {
    fn filter_pair(&self, a: &ColliderView<'_>, b: &ColliderView<'_>) -> bool {
        Self::allows(a.user_data, b.user_data)
    }

    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, m: &mut Manifold) -> bool {
        Self::modify(a.user_data, b.user_data, m)
    }
}
