//! The standard scenes of `docs/SCENES.md`, as plain data.
//!
//! Benchmarks, examples, tests and the example game all build their colliders from here, so that
//! numbers from different runs and engines can be set beside each other. A [`Scene`] is a list of
//! [`Collider`]s (shape, pose, motion) inside walls, plus a [`Scene::step`] that moves the moving
//! colliders one step, bouncing off the walls, and, in the `churn` scenario, replaces 1% of the
//! colliders. Nothing here knows about broad phases or worlds: feed the data to whatever engine is
//! being measured.
//!
//! ```
//! use sapwood_support::scenes::{Scene, SeedScenario, DEFAULT_SEED};
//!
//! let mut scene = Scene::seed(SeedScenario::RandomHalf, 1024, DEFAULT_SEED);
//! assert_eq!(scene.len(), 1024);
//! let mut moved = Vec::new();
//! scene.step();
//! scene.moving_aabbs(&mut moved); // (id, tight AABB) of every collider that moved
//! assert_eq!(moved.len(), 512);
//! ```
//!
//! # Randomness
//! Everything is drawn from one [`SplitMix64`] seeded by the caller (default [`DEFAULT_SEED`]),
//! in a fixed, documented order, so a scene is a pure function of `(scenario, n, seed)` and can be
//! rebuilt by another engine from this description alone. A uniform draw `U(a, b)` is
//! `a + (b - a) * f` with `f = rng.next_f32()`.
//!
//! ## Seed table (section 1), per collider `i` in order
//! 1. Shape: `i` even → axis-aligned box, width `U(5, 30)` then height `U(5, 30)`; `i` odd →
//!    circle of diameter `U(5, 30)`.
//! 2. Position, by scenario: uniform → `x = U(min.x, max.x)` then `y = U(min.y, max.y)`; `row`
//!    → `x` drawn, `y` = world centre; `column` → `x` = world centre, `y` drawn; `point` →
//!    world centre, nothing drawn; `two-clusters` → one draw `f`, `f < 0.5` → the cluster at a
//!    quarter of the width, otherwise at three quarters (both at half the height).
//! 3. Motion, if the collider moves: direction `U(0, 2π)`, then speed `U(20, 120)` units per
//!    second, stored per step as `speed / 60`. `random-half` moves the colliders with
//!    `i % 4 < 2` (exactly half of the boxes and half of the circles), `random-all` every one.
//!
//! `churn` starts like `random-still`. Each [`Scene::step`] then removes `max(1, round(n / 100))`
//! colliders, each picked by `rng.below(len)` from the current list, and inserts as many new ones,
//! each drawn as: shape coin (`f < 0.5` → box, then its two sizes; otherwise a circle), uniform
//! position, move coin (`f < 0.5` → moving, then direction and speed).
//!
//! ## Peer scene (section 2) and big world (section 3), per collider `i` in order
//! `k = f`; `k < 0.45` → circle, radius `U(0.2, 0.6)`; `k < 0.9` → box, half-extents
//! `U(0.2, 0.6)` then `U(0.2, 0.6)`; otherwise a regular polygon ([`Polygon::regular`]) with
//! `5 + rng.below(4)` vertices and circumradius `U(0.25, 0.6)`. Then `x`, `y` uniform in
//! `[0, L]²`, `L = sqrt(n / 0.5)`; then, for boxes and polygons, the angle `U(-π, π)`. Colliders
//! with `i % every == 0` move (`every = 2` in the peer scene, 100 or 10 in the big world):
//! direction `U(0, 2π)`, speed `U(0.02, 0.10)` units per step, then, except for circles, spin
//! `U(-0.05, 0.05)` radians per step.
//!
//! ## Pyramids (section 4): no randomness
//! Box2D's many-pyramids layout with pyramids of [`PYRAMID_ROWS`] rows ([`PYRAMID_BOXES`] boxes
//! of half-extent `h =` [`PYRAMID_HALF`]), `count` of them side by side on one fixed ground box
//! whose top is at `y = 0`, `2h (rows + 1)` apart, so that neighbouring bases are `2h` apart.
//! Collider 0 is the ground; then pyramid by pyramid from the left, row by row from the bottom,
//! box by box from the left. Every box is `moving`, but nothing moves it here: a simulation
//! does, and hands its poses over with [`Scene::set_pose`]; [`Scene::step`] leaves them alone.
//!
//! ## Static tiles (section 5), per mover in order
//! `n` fixed unit tiles (squares of side 1) in blocks of [`TILE_BLOCK`]² tiles, the blocks on a
//! square grid with corridors of [`TILE_CORRIDOR`] between them and half a corridor at the
//! walls; tile `t` is tile `t % 100` (row-major from the lower left) of block `t / 100`
//! (row-major, `ceil(sqrt(blocks))` blocks a row). Then the movers: `k = f`; `k < 0.5` → circle,
//! radius `U(0.2, 0.3)`; otherwise a box, half-extents `U(0.2, 0.3)` then `U(0.2, 0.3)`. Then
//! `x`, `y` uniform inside the walls; for boxes the angle `U(-π, π)`; direction `U(0, 2π)`,
//! speed `U(0.02, 0.10)` units per step, and, for boxes, spin `U(-0.05, 0.05)`. Each
//! [`Scene::step`] first turns each mover's velocity, in scene order, by `U(-t, t)` radians
//! (`t =` [`MOVER_TURN`]: a random walk), then moves it.
//!
//! ## Box2D's benchmark suite (section 6): no randomness
//! [`Scene::simulated`] starts empty; a simulation (Box2D running a scene of its benchmark
//! suite) inserts, removes and places colliders as its shapes appear, disappear and move, with
//! the ids it chooses. Each [`Scene::step`] starts a new list of changes: [`Scene::removed`],
//! [`Scene::inserted`] and [`Scene::moving`] (the colliders placed since) then say what an
//! engine following the simulation must be told.
//!
//! # Motion and walls
//! A moving collider's **centre** (`pose.p`) moves by `velocity` every step; when it would leave
//! the walls it is reflected back in and that velocity component changes sign. The centre never
//! leaves [`Scene::bounds`]; a shape may overhang a wall by up to its own size, exactly as at
//! placement, where the centre is drawn uniformly inside the walls. Spin is added to an angle
//! kept in `(-π, π]` and the rotation recomputed from it, so it does not drift over long runs.
//!
//! # Ids
//! Every collider carries a `u32` id, unique among the live colliders and small (below
//! `n + n / 100 + 1`), so broad phases may index arrays by it. Churn never hands out an id that was
//! freed in the same step: a removal and an insertion in one step always concern different ids.

use std::f32::consts::{PI, TAU};

use sapwood::{Aabb, Filter, Polygon, Pose, Rot, Shape, Vec2};

use crate::SplitMix64;

/// The default seed of every standard scene.
pub const DEFAULT_SEED: u64 = 42;

/// Steps per second of the seed-table scenes: their speeds are given per second.
pub const SEED_STEPS_PER_SECOND: f32 = 60.0;

/// The colliders per unit² of the peer scene and the big world.
pub const PEER_DENSITY: f32 = 0.5;

/// Collider count of the big world (section 3).
pub const BIG_WORLD_COLLIDERS: usize = 1_000_000;

/// Rows of a pyramid (section 4): its base holds this many boxes, its top one.
pub const PYRAMID_ROWS: usize = 20;

/// Boxes in one pyramid: `20 + 19 + … + 1`.
pub const PYRAMID_BOXES: usize = PYRAMID_ROWS * (PYRAMID_ROWS + 1) / 2;

/// Half-extent of the pyramids' boxes: one-metre boxes.
pub const PYRAMID_HALF: f32 = 0.5;

/// Tiles along a side of one block of the static scene (section 5).
pub const TILE_BLOCK: usize = 10;

/// Width of the corridors between the static scene's blocks: room for the movers (at most
/// about 0.85 across) to pass one another between blocks.
pub const TILE_CORRIDOR: f32 = 3.0;

/// Movers of the static scene.
pub const STATIC_MOVERS: usize = 1000;

/// Largest turn of a static-scene mover's heading per step, in radians: enough to wander over
/// blocks and corridors within a few hundred steps, small enough that a mover still travels.
pub const MOVER_TURN: f32 = 0.3;

/// The eight scenarios of the seed table (section 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedScenario {
    /// Uniform placement, nothing moves.
    RandomStill,
    /// Uniform placement, half of the colliders move.
    RandomHalf,
    /// Uniform placement, every collider moves.
    RandomAll,
    /// Random x, all at the world's mid height; still.
    Row,
    /// All at the world's mid width, random y; still.
    Column,
    /// All at the world's centre; still.
    Point,
    /// Uniform and still; every step 1% removed, as many inserted (moving with probability 1/2).
    Churn,
    /// Each collider at one of two points that are far apart; still.
    TwoClusters,
}

impl SeedScenario {
    /// Every scenario, in the seed table's column order.
    pub const ALL: [SeedScenario; 8] = [
        SeedScenario::RandomStill,
        SeedScenario::RandomHalf,
        SeedScenario::RandomAll,
        SeedScenario::Row,
        SeedScenario::Column,
        SeedScenario::Point,
        SeedScenario::Churn,
        SeedScenario::TwoClusters,
    ];

    /// The name used in tables and on command lines (`"random-still"`, …).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SeedScenario::RandomStill => "random-still",
            SeedScenario::RandomHalf => "random-half",
            SeedScenario::RandomAll => "random-all",
            SeedScenario::Row => "row",
            SeedScenario::Column => "column",
            SeedScenario::Point => "point",
            SeedScenario::Churn => "churn",
            SeedScenario::TwoClusters => "two-clusters",
        }
    }

    /// The scenario with this [`SeedScenario::name`], if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<SeedScenario> {
        SeedScenario::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether collider `i` of the initial scene moves.
    const fn moves(self, i: usize) -> bool {
        match self {
            SeedScenario::RandomHalf => i % 4 < 2,
            SeedScenario::RandomAll => true,
            _ => false,
        }
    }
}

/// The world of the seed table for `n` colliders: 600 × 400 for `n <= 8192` (the seed ran 1024
/// and 8192 in the same world), otherwise 600 × 400 scaled by `sqrt(n / 1024)` on each axis so the
/// density is that of 1024 colliders (65536 → 4800 × 3200). The lower-left corner is the origin.
#[must_use]
pub fn seed_world(n: usize) -> Aabb {
    let scale = if n <= 8192 { 1.0 } else { (n as f32 / 1024.0).sqrt() };
    Aabb::new(Vec2::ZERO, Vec2::new(600.0, 400.0) * scale)
}

/// The side `L = sqrt(n / 0.5)` of the peer scene's square `[0, L]²`.
#[must_use]
pub fn peer_side(n: usize) -> f32 {
    (n as f32 / PEER_DENSITY).sqrt()
}

/// One collider of a scene: what a broad phase, a narrow phase or a world needs to place it.
#[derive(Clone, Debug, PartialEq)]
pub struct Collider {
    /// Unique among the scene's live colliders; see the module's section on ids.
    pub id: u32,
    /// The shape, in its local frame.
    pub shape: Shape,
    /// Where it is now.
    pub pose: Pose,
    /// The angle of `pose.q`, kept so that spinning does not accumulate rounding in `Rot`.
    pub angle: f32,
    /// Whether [`Scene::step`] moves it (or, in the pyramids, a simulation does). A still
    /// collider has zero velocity and spin.
    pub moving: bool,
    /// Static geometry, which engines are told about as such: sapwood's
    /// [`ColliderDesc::fixed`](sapwood::ColliderDesc::fixed), rapier without fixed–fixed pairs,
    /// a Box2D static body. Only the pyramids' ground and the static scene's tiles are fixed; the
    /// still colliders of the seed table and the peer scene are ordinary colliders that happen
    /// not to move. Fixed colliders come first in scene order.
    pub fixed: bool,
    /// Which colliders it pairs with: the default everywhere but in Box2D's benchmark suite,
    /// whose ragdolls and compounds carry Box2D's filters (see [`Scene::simulated`]).
    pub filter: Filter,
    /// Displacement of the centre per step, in world units.
    pub velocity: Vec2,
    /// Rotation per step, in radians (always 0 for circles and the seed table's shapes).
    pub spin: f32,
}

impl Collider {
    /// The tight bounding box ([`Shape::aabb`] at the current pose).
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        self.shape.aabb(&self.pose)
    }

    /// Moves one step inside `walls`, reflecting the centre off them. Allocation-free.
    #[inline]
    fn advance(&mut self, walls: &Aabb) {
        let mut p = self.pose.p + self.velocity;
        for axis in 0..2 {
            let (lo, hi) = (walls.min[axis], walls.max[axis]);
            if p[axis] < lo {
                p[axis] = 2.0 * lo - p[axis];
                self.velocity[axis] = self.velocity[axis].abs();
            } else if p[axis] > hi {
                p[axis] = 2.0 * hi - p[axis];
                self.velocity[axis] = -self.velocity[axis].abs();
            }
            // A step longer than the world is wide would reflect past the far wall.
            p[axis] = p[axis].clamp(lo, hi);
        }
        self.pose.p = p;
        if self.spin != 0.0 {
            let mut a = self.angle + self.spin;
            if a > PI {
                a -= TAU;
            } else if a <= -PI {
                a += TAU;
            }
            self.angle = a;
            self.pose.q = Rot::from_angle(a);
        }
    }
}

/// What a scene is, which decides how [`Scene::step`] behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SceneKind {
    /// A seed-table scenario (section 1).
    Seed(SeedScenario),
    /// The peer mix (section 2 and, with `every > 2`, the big world of section 3); collider `i`
    /// moves when `i % every == 0`.
    Peer {
        /// One collider in `every` moves.
        every: usize,
    },
    /// Box2D's many pyramids (section 4); the boxes' poses come from a simulation.
    Pyramids {
        /// Pyramids side by side.
        count: usize,
    },
    /// Fixed tiles in blocks and movers on a random walk (section 5).
    StaticTiles {
        /// Fixed tiles; the movers follow them in scene order.
        tiles: usize,
    },
    /// Colliders that a simulation inserts, moves and removes (Box2D's benchmark suite,
    /// section 6); [`Scene::step`] only starts a new list of changes.
    Simulated,
}

/// A standard scene: colliders, walls and the generator that drives churn.
///
/// ```
/// use sapwood_support::scenes::{Scene, SeedScenario};
///
/// let mut churn = Scene::seed(SeedScenario::Churn, 1024, 42);
/// churn.step();
/// assert_eq!(churn.removed().len(), 10);
/// assert_eq!(churn.inserted().len(), 10);
/// assert_eq!(churn.len(), 1024);
/// for &id in churn.inserted() {
///     let c = churn.get(id).unwrap(); // place it in the engine under test
///     # let _ = c;
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Scene {
    kind: SceneKind,
    bounds: Aabb,
    colliders: Vec<Collider>,
    /// `id → index into colliders`, `u32::MAX` for a free id.
    index_of: Vec<u32>,
    rng: SplitMix64,
    /// Ids free for reuse by churn, taken from the back.
    free_ids: Vec<u32>,
    /// What the last step removed and inserted; reused buffers so that stepping never allocates
    /// once they have grown to the churn size.
    removed: Vec<u32>,
    inserted: Vec<u32>,
    /// Indices into `colliders` of the moving ones, in order: a driver tells an engine about
    /// its movers alone, as a game does, not after a scan of every still tile.
    movers: Vec<u32>,
    steps: u64,
}

impl Scene {
    /// A seed-table scenario with `n` colliders in [`seed_world`]`(n)`.
    #[must_use]
    pub fn seed(scenario: SeedScenario, n: usize, seed: u64) -> Scene {
        Scene::seed_in(scenario, n, seed_world(n), seed)
    }

    /// A seed-table scenario with `n` colliders in the given world (placements relative to it,
    /// shape sizes and speeds as in the seed table).
    ///
    /// # Panics
    /// When `world` is not a valid box or `n` does not fit in `u32`.
    #[must_use]
    pub fn seed_in(scenario: SeedScenario, n: usize, world: Aabb, seed: u64) -> Scene {
        assert!(world.is_valid(), "invalid world {world:?}");
        assert!(u32::try_from(n).is_ok(), "too many colliders");
        let mut rng = SplitMix64::new(seed);
        let mut colliders = Vec::with_capacity(n);
        for i in 0..n {
            let shape = if i % 2 == 0 { seed_box(&mut rng) } else { seed_circle(&mut rng) };
            let p = seed_position(scenario, &world, &mut rng);
            let velocity = if scenario.moves(i) { seed_velocity(&mut rng) } else { Vec2::ZERO };
            colliders.push(Collider {
                id: i as u32,
                shape,
                pose: Pose::from_translation(p),
                angle: 0.0,
                moving: scenario.moves(i),
                fixed: false,
                filter: Filter::default(),
                velocity,
                spin: 0.0,
            });
        }
        Scene::from_parts(SceneKind::Seed(scenario), world, colliders, rng)
    }

    /// The peer scene (section 2): `n` colliders in `[0, L]²`, every even one moving.
    #[must_use]
    pub fn peer(n: usize, seed: u64) -> Scene {
        Scene::peer_moving_every(n, 2, seed)
    }

    /// The big world (section 3): [`BIG_WORLD_COLLIDERS`] of the peer mix at the peer density,
    /// `percent_moving` of them moving (1 or 10 in the standard runs; any divisor of 100).
    ///
    /// # Panics
    /// When `percent_moving` is not in `1..=100` or does not divide 100.
    #[must_use]
    pub fn big_world(percent_moving: usize, seed: u64) -> Scene {
        assert!((1..=100).contains(&percent_moving) && 100 % percent_moving == 0, "percent must divide 100");
        Scene::peer_moving_every(BIG_WORLD_COLLIDERS, 100 / percent_moving, seed)
    }

    /// The peer mix with `n` colliders, collider `i` moving when `i % every == 0` (`every = 2` is
    /// the peer scene, `100` and `10` the big world's 1% and 10%).
    ///
    /// # Panics
    /// When `every == 0` or `n` does not fit in `u32`.
    #[must_use]
    pub fn peer_moving_every(n: usize, every: usize, seed: u64) -> Scene {
        assert!(every > 0, "every must be positive");
        assert!(u32::try_from(n).is_ok(), "too many colliders");
        let side = peer_side(n);
        let walls = Aabb::new(Vec2::ZERO, Vec2::splat(side));
        let mut rng = SplitMix64::new(seed);
        let mut colliders = Vec::with_capacity(n);
        for i in 0..n {
            let k = rng.next_f32();
            let shape = if k < 0.45 {
                Shape::circle(rng.range(0.2, 0.6)).expect("positive radius")
            } else if k < 0.9 {
                let hx = rng.range(0.2, 0.6);
                let hy = rng.range(0.2, 0.6);
                Shape::cuboid(Vec2::new(hx, hy)).expect("positive half-extents")
            } else {
                let count = 5 + rng.below(4);
                let r = rng.range(0.25, 0.6);
                Shape::from(Polygon::regular(count, r, 0.0).expect("regular polygon"))
            };
            let p = Vec2::new(rng.range(0.0, side), rng.range(0.0, side));
            let is_circle = matches!(shape, Shape::Circle(_));
            let angle = if is_circle { 0.0 } else { rng.range(-PI, PI) };
            let moving = i % every == 0;
            let (velocity, spin) = if moving {
                let dir = rng.range(0.0, TAU);
                let speed = rng.range(0.02, 0.10);
                let spin = if is_circle { 0.0 } else { rng.range(-0.05, 0.05) };
                (speed * Vec2::from_angle(dir), spin)
            } else {
                (Vec2::ZERO, 0.0)
            };
            let pose = Pose::new(p, angle);
            colliders.push(Collider {
                id: i as u32,
                shape,
                pose,
                angle,
                moving,
                fixed: false,
                filter: Filter::default(),
                velocity,
                spin,
            });
        }
        Scene::from_parts(SceneKind::Peer { every }, walls, colliders, rng)
    }

    /// Box2D's many-pyramids layout (section 4): a fixed ground, then `count` pyramids of
    /// [`PYRAMID_BOXES`] boxes side by side, every box `moving` (a simulation places them).
    ///
    /// # Panics
    /// When `count` is 0.
    #[must_use]
    pub fn pyramids(count: usize) -> Scene {
        assert!(count > 0, "at least one pyramid");
        let h = PYRAMID_HALF;
        // Box2D's spacing: a pyramid's base is `2h rows` wide and the next starts `2h` after it.
        let pitch = 2.0 * h * (PYRAMID_ROWS + 1) as f32;
        let ground_half = 0.5 * pitch * count as f32;
        let ground = Shape::cuboid(Vec2::new(ground_half, 2.0 * h)).expect("positive half-extents");
        let mut colliders = Vec::with_capacity(1 + count * PYRAMID_BOXES);
        let body = |id: u32, shape: Shape, pose: Pose, fixed: bool| Collider {
            id,
            shape,
            pose,
            angle: 0.0,
            moving: !fixed,
            fixed,
            filter: Filter::default(),
            velocity: Vec2::ZERO,
            spin: 0.0,
        };
        colliders.push(body(0, ground, Pose::from_translation(Vec2::new(0.0, -2.0 * h)), true));
        let cube = Shape::cuboid(Vec2::splat(h)).expect("positive half-extents");
        for p in 0..count {
            let base_left = -ground_half + p as f32 * pitch + 2.0 * h;
            for row in 0..PYRAMID_ROWS {
                for k in 0..PYRAMID_ROWS - row {
                    let x = base_left + row as f32 * h + k as f32 * 2.0 * h;
                    let y = (2 * row + 1) as f32 * h;
                    let id = colliders.len() as u32;
                    colliders.push(body(id, cube.clone(), Pose::from_translation(Vec2::new(x, y)), false));
                }
            }
        }
        let height = 2.0 * h * PYRAMID_ROWS as f32;
        let walls = Aabb::new(Vec2::new(-ground_half, -4.0 * h), Vec2::new(ground_half, height));
        Scene::from_parts(SceneKind::Pyramids { count }, walls, colliders, SplitMix64::new(0))
    }

    /// The static scene (section 5): `tiles` fixed unit tiles in blocks with corridors between
    /// them, then `movers` circles and boxes on a random walk over them.
    ///
    /// # Panics
    /// When `tiles` is 0 or `tiles + movers` does not fit in `u32`.
    #[must_use]
    pub fn static_tiles(tiles: usize, movers: usize, seed: u64) -> Scene {
        assert!(tiles > 0, "at least one tile");
        assert!(u32::try_from(tiles + movers).is_ok(), "too many colliders");
        let per_block = TILE_BLOCK * TILE_BLOCK;
        let blocks = tiles.div_ceil(per_block);
        let across = (blocks as f64).sqrt().ceil() as usize;
        let up = blocks.div_ceil(across);
        let pitch = TILE_BLOCK as f32 + TILE_CORRIDOR;
        let walls = Aabb::new(Vec2::ZERO, Vec2::new(across as f32 * pitch, up as f32 * pitch));
        let tile = Shape::cuboid(Vec2::splat(0.5)).expect("positive half-extents");
        let mut colliders = Vec::with_capacity(tiles + movers);
        for t in 0..tiles {
            let (b, k) = (t / per_block, t % per_block);
            let block = Vec2::new((b % across) as f32, (b / across) as f32) * pitch + Vec2::splat(0.5 * TILE_CORRIDOR);
            let offset = Vec2::new((k % TILE_BLOCK) as f32 + 0.5, (k / TILE_BLOCK) as f32 + 0.5);
            colliders.push(Collider {
                id: t as u32,
                shape: tile.clone(),
                pose: Pose::from_translation(block + offset),
                angle: 0.0,
                moving: false,
                fixed: true,
                filter: Filter::default(),
                velocity: Vec2::ZERO,
                spin: 0.0,
            });
        }
        let mut rng = SplitMix64::new(seed);
        for m in 0..movers {
            let is_circle = rng.next_f32() < 0.5;
            let shape = if is_circle {
                Shape::circle(rng.range(0.2, 0.3)).expect("positive radius")
            } else {
                let hx = rng.range(0.2, 0.3);
                Shape::cuboid(Vec2::new(hx, rng.range(0.2, 0.3))).expect("positive half-extents")
            };
            let x = rng.range(walls.min.x, walls.max.x);
            let p = Vec2::new(x, rng.range(walls.min.y, walls.max.y));
            let angle = if is_circle { 0.0 } else { rng.range(-PI, PI) };
            let dir = rng.range(0.0, TAU);
            let velocity = rng.range(0.02, 0.10) * Vec2::from_angle(dir);
            let spin = if is_circle { 0.0 } else { rng.range(-0.05, 0.05) };
            colliders.push(Collider {
                id: (tiles + m) as u32,
                shape,
                pose: Pose::new(p, angle),
                angle,
                moving: true,
                fixed: false,
                filter: Filter::default(),
                velocity,
                spin,
            });
        }
        Scene::from_parts(SceneKind::StaticTiles { tiles }, walls, colliders, rng)
    }

    fn from_parts(kind: SceneKind, bounds: Aabb, colliders: Vec<Collider>, rng: SplitMix64) -> Scene {
        let index_of = (0..colliders.len() as u32).collect();
        let churn = match kind {
            SceneKind::Seed(SeedScenario::Churn) => churn_count(colliders.len()),
            _ => 0,
        };
        let mut scene = Scene {
            kind,
            bounds,
            movers: Vec::with_capacity(colliders.len()),
            colliders,
            index_of,
            rng,
            free_ids: Vec::with_capacity(2 * churn),
            removed: Vec::with_capacity(churn),
            inserted: Vec::with_capacity(churn),
            steps: 0,
        };
        scene.index_movers();
        scene
    }

    /// Lists the moving colliders again (after churn changed the colliders); within the
    /// capacity of the collider count, so it never allocates.
    fn index_movers(&mut self) {
        self.movers.clear();
        let moving = self.colliders.iter().enumerate().filter(|(_, c)| c.moving).map(|(i, _)| i as u32);
        self.movers.extend(moving);
    }

    /// The moving colliders, in collider order (see [`Scene::colliders`]); in a simulated
    /// scene, those placed by [`Scene::move_to`] since the last step, in that order.
    pub fn moving(&self) -> impl Iterator<Item = &Collider> + '_ {
        self.movers.iter().map(|&i| &self.colliders[i as usize])
    }

    /// What this scene is.
    #[must_use]
    pub fn kind(&self) -> SceneKind {
        self.kind
    }

    /// The walls: moving centres stay inside; grids and quadtrees use it as their region.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// The live colliders. Their order is an implementation detail (churn swaps removed ones
    /// out); identify colliders by [`Collider::id`].
    #[must_use]
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// The number of live colliders.
    #[must_use]
    pub fn len(&self) -> usize {
        self.colliders.len()
    }

    /// Whether the scene has no collider.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.colliders.is_empty()
    }

    /// One more than the largest id ever handed out: arrays indexed by id need this length.
    #[must_use]
    pub fn id_bound(&self) -> usize {
        self.index_of.len()
    }

    /// The live collider with this id.
    #[must_use]
    pub fn get(&self, id: u32) -> Option<&Collider> {
        let i = *self.index_of.get(id as usize)?;
        self.colliders.get(i as usize)
    }

    /// Ids removed by the last [`Scene::step`], in removal order.
    #[must_use]
    pub fn removed(&self) -> &[u32] {
        &self.removed
    }

    /// Ids inserted by the last [`Scene::step`]; look them up with [`Scene::get`].
    #[must_use]
    pub fn inserted(&self) -> &[u32] {
        &self.inserted
    }

    /// Steps taken so far.
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Appends `(id, tight AABB)` of every live collider, in [`Scene::colliders`] order: the
    /// input of a broad phase's batch insertion.
    pub fn aabbs(&self, out: &mut Vec<(u32, Aabb)>) {
        out.extend(self.colliders.iter().map(|c| (c.id, c.aabb())));
    }

    /// Appends `(id, tight AABB)` of every moving collider that was not inserted by the last
    /// step (those are already in place): the input of a broad phase's batch update.
    pub fn moving_aabbs(&self, out: &mut Vec<(u32, Aabb)>) {
        let n = self.colliders.len() - self.inserted.len();
        // Inserted colliders are always at the end of the list (see `churn`).
        out.extend(self.colliders[..n].iter().filter(|c| c.moving).map(|c| (c.id, c.aabb())));
    }

    /// Advances one step: moves every moving collider (bouncing off the walls), then, for
    /// `churn`, removes 1% of the colliders and inserts as many new ones (which do not move in
    /// the step they appear). Afterwards [`Scene::removed`] and [`Scene::inserted`] say what
    /// changed. Allocation-free once the churn buffers have reached their size (first step).
    /// A simulated scene only clears its lists of changes, for the simulation to fill.
    pub fn step(&mut self) {
        self.removed.clear();
        self.inserted.clear();
        let walls = self.bounds;
        match self.kind {
            // A simulation places the boxes (`set_pose`).
            SceneKind::Pyramids { .. } => {}
            // A simulation inserts, moves and removes the colliders; a new step, a new list.
            SceneKind::Simulated => self.movers.clear(),
            SceneKind::StaticTiles { .. } => {
                for &i in &self.movers {
                    let c = &mut self.colliders[i as usize];
                    c.velocity = Rot::from_angle(self.rng.range(-MOVER_TURN, MOVER_TURN)).rotate(c.velocity);
                    c.advance(&walls);
                }
            }
            SceneKind::Seed(_) | SceneKind::Peer { .. } => {
                for &i in &self.movers {
                    self.colliders[i as usize].advance(&walls);
                }
            }
        }
        if self.kind == SceneKind::Seed(SeedScenario::Churn) {
            self.churn();
            self.index_movers();
        }
        self.steps += 1;
    }

    /// An empty scene that a simulation fills (section 6): see [`Scene::insert`],
    /// [`Scene::remove`] and [`Scene::move_to`]. Its bounds grow to hold every collider inserted.
    #[must_use]
    pub fn simulated() -> Scene {
        let empty = Aabb::new(Vec2::ZERO, Vec2::ZERO);
        Scene::from_parts(SceneKind::Simulated, empty, Vec::new(), SplitMix64::new(0))
    }

    /// Inserts a collider of a simulated scene with the id it carries; it is listed in
    /// [`Scene::inserted`] until the next [`Scene::step`].
    ///
    /// # Panics
    /// When the scene is not simulated, or a live collider has the id.
    pub fn insert(&mut self, c: Collider) {
        assert_eq!(self.kind, SceneKind::Simulated, "only a simulation inserts colliders");
        let id = c.id as usize;
        if self.index_of.len() <= id {
            self.index_of.resize(id + 1, u32::MAX);
        }
        assert_eq!(self.index_of[id], u32::MAX, "id {id} is live");
        self.index_of[id] = self.colliders.len() as u32;
        let b = c.aabb();
        self.bounds = if self.colliders.is_empty() { b } else { self.bounds.union(&b) };
        self.inserted.push(c.id);
        self.colliders.push(c);
    }

    /// Removes a collider of a simulated scene; it is listed in [`Scene::removed`] until the
    /// next [`Scene::step`]. Within a step, removals come before [`Scene::move_to`] (a removal
    /// reorders the colliders, which the list of moved ones refers to by position).
    ///
    /// # Panics
    /// When the scene is not simulated, no live collider has the id, or a collider was moved
    /// since the last step.
    pub fn remove(&mut self, id: u32) {
        assert_eq!(self.kind, SceneKind::Simulated, "only a simulation removes colliders");
        assert!(self.movers.is_empty(), "removals come before moves");
        let i = std::mem::replace(&mut self.index_of[id as usize], u32::MAX);
        assert_ne!(i, u32::MAX, "id {id} is not live");
        self.colliders.swap_remove(i as usize);
        if let Some(moved) = self.colliders.get(i as usize) {
            self.index_of[moved.id as usize] = i;
        }
        self.removed.push(id);
    }

    /// Places a collider of a simulated scene and lists it in [`Scene::moving`] until the next
    /// [`Scene::step`] (once per step: the simulation places each collider at most once).
    ///
    /// # Panics
    /// When the scene is not simulated or no live collider has the id.
    pub fn move_to(&mut self, id: u32, pose: Pose) {
        assert_eq!(self.kind, SceneKind::Simulated, "only a simulation moves colliders this way");
        self.set_pose(id, pose);
        self.movers.push(self.index_of[id as usize]);
    }

    /// Places the collider with this id (the pyramids' boxes are placed by a simulation). Its
    /// angle follows the pose.
    ///
    /// # Panics
    /// When no live collider has this id.
    pub fn set_pose(&mut self, id: u32, pose: Pose) {
        let i = self.index_of[id as usize];
        let c = &mut self.colliders[i as usize];
        c.pose = pose;
        c.angle = pose.q.angle();
    }

    /// Advances `count` steps; [`Scene::removed`] and [`Scene::inserted`] then describe only the
    /// last one.
    pub fn step_n(&mut self, count: usize) {
        for _ in 0..count {
            self.step();
        }
    }

    /// Removes `k` random colliders and appends `k` new ones. Freed ids join the free list only
    /// after this step's insertions, so an id is never removed and re-inserted in one step.
    fn churn(&mut self) {
        let k = churn_count(self.colliders.len()).min(self.colliders.len());
        for _ in 0..k {
            let i = self.rng.below(self.colliders.len());
            let gone = self.colliders.swap_remove(i);
            self.index_of[gone.id as usize] = u32::MAX;
            if let Some(moved) = self.colliders.get(i) {
                self.index_of[moved.id as usize] = i as u32;
            }
            self.removed.push(gone.id);
        }
        let world = self.bounds;
        for _ in 0..k {
            let shape = if self.rng.next_f32() < 0.5 { seed_box(&mut self.rng) } else { seed_circle(&mut self.rng) };
            let p = seed_position(SeedScenario::RandomStill, &world, &mut self.rng);
            let moving = self.rng.next_f32() < 0.5;
            let velocity = if moving { seed_velocity(&mut self.rng) } else { Vec2::ZERO };
            let id = match self.free_ids.pop() {
                Some(id) => id,
                None => {
                    self.index_of.push(u32::MAX);
                    (self.index_of.len() - 1) as u32
                }
            };
            self.index_of[id as usize] = self.colliders.len() as u32;
            self.colliders.push(Collider {
                id,
                shape,
                pose: Pose::from_translation(p),
                angle: 0.0,
                moving,
                fixed: false,
                filter: Filter::default(),
                velocity,
                spin: 0.0,
            });
            self.inserted.push(id);
        }
        self.free_ids.extend_from_slice(&self.removed);
    }
}

/// Colliders replaced per churn step: 1%, rounded, at least one.
fn churn_count(n: usize) -> usize {
    ((n + 50) / 100).max(1)
}

fn seed_box(rng: &mut SplitMix64) -> Shape {
    let w = rng.range(5.0, 30.0);
    let h = rng.range(5.0, 30.0);
    Shape::cuboid(Vec2::new(0.5 * w, 0.5 * h)).expect("positive size")
}

fn seed_circle(rng: &mut SplitMix64) -> Shape {
    Shape::circle(0.5 * rng.range(5.0, 30.0)).expect("positive radius")
}

fn seed_position(scenario: SeedScenario, world: &Aabb, rng: &mut SplitMix64) -> Vec2 {
    let (lo, hi) = (world.min, world.max);
    let mid = world.center();
    match scenario {
        SeedScenario::Row => Vec2::new(rng.range(lo.x, hi.x), mid.y),
        SeedScenario::Column => Vec2::new(mid.x, rng.range(lo.y, hi.y)),
        SeedScenario::Point => mid,
        SeedScenario::TwoClusters => {
            let fx = if rng.next_f32() < 0.5 { 0.25 } else { 0.75 };
            Vec2::new(lo.x + fx * (hi.x - lo.x), mid.y)
        }
        _ => {
            let x = rng.range(lo.x, hi.x);
            Vec2::new(x, rng.range(lo.y, hi.y))
        }
    }
}

fn seed_velocity(rng: &mut SplitMix64) -> Vec2 {
    let dir = rng.range(0.0, TAU);
    let speed = rng.range(20.0, 120.0);
    (speed / SEED_STEPS_PER_SECOND) * Vec2::from_angle(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sapwood::ShapeKind;

    fn assert_same(a: &Scene, b: &Scene) {
        assert_eq!(a.colliders(), b.colliders());
        assert_eq!(a.removed(), b.removed());
        assert_eq!(a.inserted(), b.inserted());
    }

    #[test]
    fn same_seed_same_scene_other_seed_other_scene() {
        for s in SeedScenario::ALL {
            let mut a = Scene::seed(s, 512, 42);
            let mut b = Scene::seed(s, 512, 42);
            assert_same(&a, &b);
            for _ in 0..30 {
                a.step();
                b.step();
                assert_same(&a, &b);
            }
            let c = Scene::seed(s, 512, 43);
            assert_ne!(a.colliders()[..10], c.colliders()[..10], "{}", s.name());
        }
        let (mut a, mut b) = (Scene::peer(1024, 42), Scene::peer(1024, 42));
        a.step_n(20);
        b.step_n(20);
        assert_same(&a, &b);
        assert_ne!(Scene::peer(1024, 1).colliders(), Scene::peer(1024, 42).colliders());
    }

    #[test]
    fn seed_distributions_are_in_range() {
        for s in SeedScenario::ALL {
            let scene = Scene::seed(s, 4096, 9);
            let w = scene.bounds();
            assert_eq!(w, Aabb::new(Vec2::ZERO, Vec2::new(600.0, 400.0)));
            let (mut boxes, mut circles, mut moving) = (0, 0, 0);
            for (i, c) in scene.colliders().iter().enumerate() {
                assert_eq!(c.id as usize, i);
                match c.shape {
                    Shape::Cuboid(b) => {
                        boxes += 1;
                        let size = 2.0 * b.half_extents;
                        assert!(size.cmpge(Vec2::splat(5.0)).all() && size.cmple(Vec2::splat(30.0)).all());
                    }
                    Shape::Circle(ci) => {
                        circles += 1;
                        assert!((5.0..=30.0).contains(&(2.0 * ci.radius)));
                    }
                    _ => panic!("seed scenes hold boxes and circles only"),
                }
                assert!(c.pose.q.is_identity());
                assert!(w.contains_point(c.pose.p));
                let p = c.pose.p;
                match s {
                    SeedScenario::Row => assert_eq!(p.y, 200.0),
                    SeedScenario::Column => assert_eq!(p.x, 300.0),
                    SeedScenario::Point => assert_eq!(p, Vec2::new(300.0, 200.0)),
                    SeedScenario::TwoClusters => {
                        assert!(p == Vec2::new(150.0, 200.0) || p == Vec2::new(450.0, 200.0));
                    }
                    _ => {}
                }
                if c.moving {
                    moving += 1;
                    let speed = c.velocity.length() * SEED_STEPS_PER_SECOND;
                    assert!((20.0 - 1e-3..=120.0 + 1e-3).contains(&speed), "speed {speed}");
                } else {
                    assert_eq!(c.velocity, Vec2::ZERO);
                }
                assert_eq!(c.spin, 0.0);
            }
            assert_eq!((boxes, circles), (2048, 2048));
            let expected = match s {
                SeedScenario::RandomHalf => 2048,
                SeedScenario::RandomAll => 4096,
                _ => 0,
            };
            assert_eq!(moving, expected, "{}", s.name());
        }
        // Uniform placement covers the world: every quarter of it gets about a quarter.
        let scene = Scene::seed(SeedScenario::RandomStill, 4096, 5);
        let left = scene.colliders().iter().filter(|c| c.pose.p.x < 300.0).count();
        let low = scene.colliders().iter().filter(|c| c.pose.p.y < 200.0).count();
        assert!((1800..2300).contains(&left) && (1800..2300).contains(&low), "{left} {low}");
        let clusters = Scene::seed(SeedScenario::TwoClusters, 4096, 5);
        let west = clusters.colliders().iter().filter(|c| c.pose.p.x < 300.0).count();
        assert!((1800..2300).contains(&west), "{west}");
    }

    #[test]
    fn seed_worlds_keep_density() {
        assert_eq!(seed_world(1024), Aabb::new(Vec2::ZERO, Vec2::new(600.0, 400.0)));
        assert_eq!(seed_world(8192), seed_world(1024));
        assert_eq!(seed_world(65536), Aabb::new(Vec2::ZERO, Vec2::new(4800.0, 3200.0)));
        let s = Scene::seed(SeedScenario::Point, 65536, 1);
        assert_eq!(s.colliders()[0].pose.p, Vec2::new(2400.0, 1600.0));
    }

    #[test]
    fn peer_distributions_are_in_range() {
        let n = 8192;
        let scene = Scene::peer(n, DEFAULT_SEED);
        let side = peer_side(n);
        assert!((side - 128.0).abs() < 1e-4);
        assert_eq!(scene.bounds(), Aabb::new(Vec2::ZERO, Vec2::splat(side)));
        let mut counts = [0usize; ShapeKind::COUNT];
        let mut vertex_counts = [0usize; 9];
        let mut area = 0.0;
        for (i, c) in scene.colliders().iter().enumerate() {
            counts[c.shape.kind() as usize] += 1;
            assert!(scene.bounds().contains_point(c.pose.p));
            assert!(c.pose.is_valid());
            match &c.shape {
                Shape::Circle(ci) => {
                    assert!((0.2..=0.6).contains(&ci.radius));
                    assert_eq!(c.angle, 0.0);
                    assert_eq!(c.spin, 0.0);
                    area += PI * ci.radius * ci.radius;
                }
                Shape::Cuboid(b) => {
                    assert!(b.half_extents.cmpge(Vec2::splat(0.2)).all());
                    assert!(b.half_extents.cmple(Vec2::splat(0.6)).all());
                    area += 4.0 * b.half_extents.x * b.half_extents.y;
                }
                Shape::Polygon(p) => {
                    vertex_counts[p.count()] += 1;
                    let r = p.vertices()[0].length();
                    assert!((0.25 - 1e-5..=0.6 + 1e-5).contains(&r));
                    let m = p.count() as f32;
                    area += 0.5 * m * r * r * (TAU / m).sin();
                }
                _ => panic!("only circles, boxes and polygons in the peer mix"),
            }
            assert!((-PI..=PI).contains(&c.angle));
            assert!((c.pose.q.angle() - c.angle).abs() < 1e-5 || c.angle.abs() > PI - 1e-5);
            assert_eq!(c.moving, i % 2 == 0);
            if c.moving {
                let speed = c.velocity.length();
                assert!((0.02 - 1e-6..=0.10 + 1e-6).contains(&speed));
                assert!((-0.05..=0.05).contains(&c.spin));
            } else {
                assert_eq!((c.velocity, c.spin), (Vec2::ZERO, 0.0));
            }
        }
        let frac = |k: ShapeKind| counts[k as usize] as f32 / n as f32;
        assert!((frac(ShapeKind::Circle) - 0.45).abs() < 0.03);
        assert!((frac(ShapeKind::Cuboid) - 0.45).abs() < 0.03);
        assert!((frac(ShapeKind::Polygon) - 0.10).abs() < 0.02);
        assert_eq!(vertex_counts[..5].iter().sum::<usize>(), 0);
        assert!(vertex_counts[5..].iter().all(|&v| v > 100), "{vertex_counts:?}");
        // "about 30% of the area covered" (counting overlaps twice).
        let covered = area / (side * side);
        assert!((0.25..0.35).contains(&covered), "{covered}");
    }

    #[test]
    fn big_world_scales_and_moves_one_in_every() {
        // The full million is exercised by the benchmarks; the recipe is the same at any size.
        let s = Scene::peer_moving_every(20_000, 100, 3);
        assert_eq!(s.colliders().iter().filter(|c| c.moving).count(), 200);
        assert_eq!(s.bounds().max, Vec2::splat(200.0));
        assert!((peer_side(BIG_WORLD_COLLIDERS) - 1414.2136).abs() < 1e-2);
    }

    #[test]
    fn bouncing_keeps_centres_inside_and_speeds_constant() {
        let scenes = [Scene::seed(SeedScenario::RandomAll, 300, 1), Scene::peer(300, 2), {
            // A world smaller than one step, to exercise the clamp.
            Scene::seed_in(SeedScenario::RandomAll, 50, Aabb::new(Vec2::ZERO, Vec2::splat(0.5)), 3)
        }];
        for mut scene in scenes {
            let speeds: Vec<f32> = scene.colliders().iter().map(|c| c.velocity.length()).collect();
            let mut bounced = 0;
            for _ in 0..2000 {
                let before: Vec<Vec2> = scene.colliders().iter().map(|c| c.velocity).collect();
                scene.step();
                for (c, v) in scene.colliders().iter().zip(before) {
                    assert!(scene.bounds().contains_point(c.pose.p), "{:?} left {:?}", c.pose.p, scene.bounds());
                    if c.velocity != v {
                        bounced += 1;
                    }
                    assert!(c.pose.is_valid());
                    assert!((-PI..=PI).contains(&c.angle));
                }
            }
            assert!(bounced > 100, "{bounced}");
            for (c, s) in scene.colliders().iter().zip(speeds) {
                assert!((c.velocity.length() - s).abs() <= 1e-5 * s.max(1.0));
            }
        }
    }

    #[test]
    fn churn_replaces_one_percent_with_fresh_ids() {
        let n = 1000;
        let mut scene = Scene::seed(SeedScenario::Churn, n, 11);
        assert!(scene.colliders().iter().all(|c| !c.moving));
        let mut ever_moving = 0;
        for step in 0..300 {
            scene.step();
            assert_eq!(scene.len(), n);
            assert_eq!(scene.removed().len(), 10);
            assert_eq!(scene.inserted().len(), 10);
            for id in scene.removed() {
                assert!(scene.get(*id).is_none());
                assert!(!scene.inserted().contains(id), "step {step}: id {id} removed and inserted");
            }
            for &id in scene.inserted() {
                let c = scene.get(id).expect("inserted is live");
                assert_eq!(c.id, id);
                assert!(scene.bounds().contains_point(c.pose.p));
                ever_moving += usize::from(c.moving);
            }
            let mut ids: Vec<u32> = scene.colliders().iter().map(|c| c.id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), n);
            assert!(scene.id_bound() <= n + 10);
            for c in scene.colliders() {
                assert_eq!(scene.get(c.id), Some(c));
            }
        }
        // Inserted colliders move with probability one half.
        assert!((1200..1800).contains(&ever_moving), "{ever_moving}");
        let mut moved = Vec::new();
        scene.moving_aabbs(&mut moved);
        assert!(moved.iter().all(|(id, _)| !scene.inserted().contains(id)));
        assert!(!moved.is_empty());
    }

    #[test]
    fn pyramids_follow_box2d_layout() {
        let count = 3;
        let mut scene = Scene::pyramids(count);
        assert_eq!(scene.len(), 1 + count * PYRAMID_BOXES);
        assert_eq!(PYRAMID_BOXES, 210);
        let ground = &scene.colliders()[0];
        assert!(ground.fixed && !ground.moving);
        assert_eq!(ground.aabb().max.y, 0.0);
        let boxes = &scene.colliders()[1..];
        assert!(boxes.iter().all(|c| c.moving && !c.fixed && c.pose.q.is_identity()));
        // Each pyramid: 20 boxes on the ground, each row centred on the one below, the top box
        // at 19.5; bases 1 m apart; the ground overhangs the outer bases by half a box.
        for (p, pyramid) in boxes.chunks(PYRAMID_BOXES).enumerate() {
            let base = &pyramid[..PYRAMID_ROWS];
            assert!(base.iter().all(|c| c.aabb().min.y == 0.0));
            for pair in base.windows(2) {
                assert_eq!(pair[1].aabb().min.x, pair[0].aabb().max.x, "neighbours touch");
            }
            let top = pyramid.last().unwrap();
            assert_eq!(top.pose.p.y, 19.5);
            assert!((top.pose.p.x - 0.5 * (base[0].pose.p.x + base[19].pose.p.x)).abs() < 1e-4);
            if p + 1 < count {
                let next = &boxes[(p + 1) * PYRAMID_BOXES];
                assert_eq!(next.aabb().min.x - base[19].aabb().max.x, 1.0);
            }
        }
        assert_eq!(boxes[0].aabb().min.x - ground.aabb().min.x, 0.5);
        assert_eq!(ground.aabb().max.x - boxes[(count - 1) * PYRAMID_BOXES + 19].aabb().max.x, 0.5);
        // A simulation places the boxes; stepping moves nothing.
        let before = scene.colliders().to_vec();
        scene.step();
        assert_eq!(scene.colliders(), &before[..]);
        let pose = Pose::new(Vec2::new(1.0, 2.0), 0.25);
        scene.set_pose(5, pose);
        assert_eq!((scene.get(5).unwrap().pose, scene.get(5).unwrap().angle), (pose, pose.q.angle()));
    }

    #[test]
    fn static_tiles_make_blocks_and_movers_wander() {
        let (tiles, movers) = (1_050, 300);
        let mut scene = Scene::static_tiles(tiles, movers, DEFAULT_SEED);
        assert_eq!(scene.len(), tiles + movers);
        // 11 blocks (the last half full) on a 4 × 3 grid of 13-unit cells.
        assert_eq!(scene.bounds(), Aabb::new(Vec2::ZERO, Vec2::new(52.0, 39.0)));
        let (fixed, moving): (Vec<&Collider>, Vec<&Collider>) = scene.colliders().iter().partition(|c| c.fixed);
        assert_eq!((fixed.len(), moving.len()), (tiles, movers));
        assert!(scene.colliders()[..tiles].iter().all(|c| c.fixed && !c.moving));
        for c in &fixed {
            let b = c.aabb();
            assert_eq!(b.max - b.min, Vec2::ONE);
            // Inside its block: half a corridor from the cell's edge.
            let cell = (b.min / 13.0).floor() * 13.0;
            assert!((b.min - cell).cmpge(Vec2::splat(1.5)).all() && (b.max - cell).cmple(Vec2::splat(11.5)).all());
        }
        let mut corners: Vec<(i32, i32)> =
            fixed.iter().map(|c| (c.aabb().min.x as i32, c.aabb().min.y as i32)).collect();
        corners.sort_unstable();
        corners.dedup();
        assert_eq!(corners.len(), tiles, "no two tiles in one place");
        let circles = moving.iter().filter(|c| matches!(c.shape, Shape::Circle(_))).count();
        assert!((100..200).contains(&circles), "{circles}");
        for c in &moving {
            assert!(c.moving && !c.fixed && scene.bounds().contains_point(c.pose.p));
            assert!(c.aabb().max.x - c.aabb().min.x <= 0.85);
        }
        // The walk turns headings, keeps speeds and stays inside the walls; tiles stay put.
        let start: Vec<Collider> = scene.colliders().to_vec();
        let mut over_tiles = 0;
        for _ in 0..200 {
            scene.step();
            for c in &scene.colliders()[tiles..] {
                assert!(scene.bounds().contains_point(c.pose.p));
                let cell = c.pose.p % 13.0;
                over_tiles += usize::from(cell.cmpgt(Vec2::splat(1.5)).all() && cell.cmplt(Vec2::splat(11.5)).all());
            }
        }
        assert_eq!(scene.colliders()[..tiles], start[..tiles]);
        let mut turned = 0;
        for (a, b) in start[tiles..].iter().zip(&scene.colliders()[tiles..]) {
            assert!((a.velocity.length() - b.velocity.length()).abs() < 1e-4 * a.velocity.length());
            turned += usize::from(a.velocity.normalize().dot(b.velocity.normalize()) < 0.995);
        }
        // After 200 turns of up to 0.3 rad a heading is nearly uniform: within 0.1 rad of its
        // start with probability 0.1 / π.
        assert!(turned > movers * 9 / 10, "{turned}");
        // Over blocks and in corridors alike.
        let share = over_tiles as f64 / (200 * movers) as f64;
        assert!((0.3..0.8).contains(&share), "{share}");
        let mut again = Scene::static_tiles(tiles, movers, DEFAULT_SEED);
        again.step_n(200);
        assert_eq!(again.colliders(), scene.colliders());
    }

    #[test]
    fn simulated_scenes_list_what_the_simulation_changed() {
        let mut scene = Scene::simulated();
        let cube = |id: u32, x: f32| Collider {
            id,
            shape: Shape::cuboid(Vec2::splat(0.5)).unwrap(),
            pose: Pose::from_translation(Vec2::new(x, 0.0)),
            angle: 0.0,
            moving: true,
            fixed: false,
            filter: Filter { group: -3, ..Filter::default() },
            velocity: Vec2::ZERO,
            spin: 0.0,
        };
        for (id, x) in [(0, 0.0), (1, 4.0), (7, -2.0)] {
            scene.insert(cube(id, x));
        }
        assert_eq!((scene.inserted(), scene.id_bound()), (&[0, 1, 7][..], 8));
        assert_eq!(scene.bounds(), Aabb::new(Vec2::new(-2.5, -0.5), Vec2::new(4.5, 0.5)));
        assert_eq!(scene.moving().count(), 0);
        // A new step: removals, then moves; stepping moves nothing by itself.
        scene.step();
        assert!(scene.inserted().is_empty());
        scene.remove(0);
        let pose = Pose::new(Vec2::new(1.0, 2.0), 0.5);
        scene.move_to(7, pose);
        assert_eq!(scene.removed(), &[0]);
        assert_eq!(scene.moving().map(|c| (c.id, c.pose)).collect::<Vec<_>>(), vec![(7, pose)]);
        assert_eq!((scene.len(), scene.get(0), scene.get(1).unwrap().filter.group), (2, None, -3));
        scene.step();
        assert!(scene.removed().is_empty() && scene.moving().count() == 0);
        assert_eq!(scene.get(7).unwrap().pose, pose);
    }

    #[test]
    fn names_round_trip() {
        for s in SeedScenario::ALL {
            assert_eq!(SeedScenario::from_name(s.name()), Some(s));
        }
        assert_eq!(SeedScenario::from_name("nope"), None);
    }
}
