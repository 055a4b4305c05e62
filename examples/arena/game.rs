//! The game state and one frame of it: the systems of `systems.rs` in a fixed order around the
//! collision step.
//!
//! ```text
//!  input ─▶ player_control ─▶ enemy_chase ─▶ fire ─▶ integrate
//!        ─▶ HecsSync::sync + World::step           (the collision back-end, timed)
//!        ─▶ separate (contacts) ─▶ hits (sensor events) ─▶ player_hurt (contacts)
//!        ─▶ respawn_dead ─▶ despawn_spent
//! ```
//! Everything is driven by a fixed `DT` and a seeded generator, so a run is a pure function of
//! its config and inputs (the test relies on it).

use std::time::Instant;

use hecs::Entity;
use sapwood::ecs::HecsSync;
use sapwood::{
    BroadPhaseKind, ColliderId, ColliderOptions, Polygon, Pose, Shape, Vec2, World, WorldConfig, WorldError, collide,
};
use sapwood_support::SplitMix64;

use crate::components::{Enemy, EnemyKind, Health, Player, Spin, Velocity, Wall, category, filter_for};
use crate::level;
use crate::systems;

/// The fat-box margin the game asks of the world, the same for every collider. A margin that
/// grows with each box's size gives the 416-unit boundary walls fat boxes far wider than an
/// enemy, so that every enemy near a wall keeps a candidate pair with it, evaluated again
/// whenever the enemy moves. Statics never move, so a fixed margin costs them nothing; a larger
/// one for the crowd buys fewer escapes with more candidate pairs, each evaluated every frame.
pub const AABB_MARGIN: f32 = 0.5;

/// The fixed simulation step, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// How a game is set up.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub enemies: usize,
    pub seed: u64,
    /// Positional separation of touching bodies; off only to show (in the test) what it does.
    pub separation: bool,
    /// The world's fat-box margin (see [`AABB_MARGIN`]).
    pub aabb_margin: f32,
    /// The movers' broad phase.
    pub broad_phase: BroadPhaseKind,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            enemies: 5000,
            seed: 0x5eed_0004,
            separation: true,
            aabb_margin: AABB_MARGIN,
            broad_phase: BroadPhaseKind::IncrementalSap,
        }
    }
}

/// What the player asks for this frame: a direction (not normalised; zero to stand still).
#[derive(Clone, Copy, Debug, Default)]
pub struct Input {
    pub dir: Vec2,
}

/// Running totals and the last frame's costs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub frame: u64,
    pub score: u64,
    pub kills: u64,
    pub deaths: u32,
    pub shots_fired: u64,
    /// Enemy hits by projectiles (sensor entries that did damage).
    pub hits: u64,
    /// Milliseconds in `HecsSync::sync` and in `World::step` last frame.
    pub sync_ms: f64,
    pub step_ms: f64,
}

/// Per-frame scratch shared by the systems, indexed by collider slot where it says so; kept
/// here so that a steady-state frame allocates nothing.
#[derive(Default)]
pub struct Scratch {
    /// Collider slot → category bit of its entity (0: unknown), rebuilt every frame.
    pub kind_by_slot: Vec<u32>,
    /// Collider slot → positional correction from touching movers.
    pub push: Vec<Vec2>,
    /// Collider slot → correction out of walls (applied in full, after `push`).
    pub wall_push: Vec<Vec2>,
    /// Collider slot → up to two wall normals (pointing out of the wall) it touches.
    pub wall_normals: Vec<[Vec2; 2]>,
    /// Collider slot → sum of contact normals towards touching enemies, weighted by depth.
    pub crowding: Vec<Vec2>,
    /// Query results.
    pub ids: Vec<ColliderId>,
    /// Entities to respawn or despawn.
    pub dead: Vec<Entity>,
    pub spent: Vec<Entity>,
    /// Shots to spawn: (position, direction, aimed).
    pub new_shots: Vec<(Vec2, Vec2, bool)>,
}

/// The whole game: ECS, collision world, the sync between them, and the game's own state.
pub struct Game {
    pub ecs: hecs::World,
    pub world: World,
    pub sync: HecsSync,
    pub rng: SplitMix64,
    pub config: Config,
    pub stats: Stats,
    pub player: Entity,
    /// The static colliders, for drawing and for the tests' wall checks.
    pub walls: Vec<(Shape, Pose)>,
    /// Seconds since the start.
    pub time: f32,
    pub scratch: Scratch,
}

/// Enemy radius bound used to keep spawns clear of walls.
const SPAWN_CLEARANCE: f32 = 2.0;

impl Game {
    /// A fresh arena with `config.enemies` enemies scattered away from the player.
    pub fn new(config: Config) -> Result<Game, Box<dyn std::error::Error>> {
        let mut ecs = hecs::World::new();
        let mut walls = level::boundary()?;
        walls.extend(level::obstacles()?);
        let wall_options = ColliderOptions { filter: filter_for(category::WALL), ..ColliderOptions::fixed() };
        for (shape, pose) in &walls {
            ecs.spawn((*pose, shape.clone(), wall_options, Wall));
        }
        let player = ecs.spawn((
            Pose::IDENTITY,
            Shape::circle(1.6)?,
            ColliderOptions { filter: filter_for(category::PLAYER), ..ColliderOptions::default() },
            Velocity::default(),
            Health::full(10),
            Player::default(),
        ));
        let mut game = Game {
            ecs,
            world: World::with_config(WorldConfig {
                aabb_margin: config.aabb_margin,
                aabb_margin_ratio: 0.0,
                broad_phase: config.broad_phase,
                ..WorldConfig::default()
            })?,
            sync: HecsSync::new(),
            rng: SplitMix64::new(config.seed),
            config,
            stats: Stats::default(),
            player,
            walls,
            time: 0.0,
            scratch: Scratch::default(),
        };
        for _ in 0..config.enemies {
            game.spawn_enemy()?;
        }
        // One step so that queries (the autopilot's, the guns') see the arena from frame 0.
        game.sync.sync(&mut game.ecs, &mut game.world)?;
        game.world.step();
        Ok(game)
    }

    /// An enemy of a random kind somewhere on the floor, clear of walls and of the player.
    fn spawn_enemy(&mut self) -> Result<Entity, Box<dyn std::error::Error>> {
        let roll = self.rng.next_f32();
        let (kind, shape, hp, speed) = if roll < 0.8 {
            (EnemyKind::Circle, Shape::circle(self.rng.range(0.8, 1.1))?, 1, self.rng.range(10.0, 15.0))
        } else if roll < 0.9 {
            let half = self.rng.range(0.7, 1.0);
            (
                EnemyKind::Capsule,
                Shape::capsule(Vec2::new(-half, 0.0), Vec2::new(half, 0.0), 0.55)?,
                2,
                self.rng.range(9.0, 13.0),
            )
        } else {
            let sides = 3 + (self.rng.next_u64() % 4) as usize;
            (EnemyKind::Polygon, Shape::from(Polygon::regular(sides, 1.3, 0.0)?), 3, self.rng.range(7.0, 10.0))
        };
        let p = loop {
            let p = Vec2::new(self.rng.range(-1.0, 1.0) * level::HALF.x, self.rng.range(-1.0, 1.0) * level::HALF.y);
            if p.length() > 45.0 && self.clear_of_walls(p) {
                break p;
            }
        };
        let angle = self.rng.range(0.0, std::f32::consts::TAU);
        let spin = if kind == EnemyKind::Polygon { self.rng.range(-2.0, 2.0) } else { 0.0 };
        Ok(self.ecs.spawn((
            Pose::new(p, angle),
            shape,
            ColliderOptions { filter: filter_for(category::ENEMY), ..ColliderOptions::default() },
            Velocity::default(),
            Spin(spin),
            Health::full(hp),
            Enemy { kind, speed },
        )))
    }

    /// Whether a disc of [`SPAWN_CLEARANCE`] at `p` misses every wall and obstacle.
    pub fn clear_of_walls(&self, p: Vec2) -> bool {
        let Ok(probe) = Shape::circle(SPAWN_CLEARANCE) else { return false };
        let pose = Pose::from_translation(p);
        p.abs().cmple(level::HALF - SPAWN_CLEARANCE).all()
            && self.walls.iter().all(|(s, wp)| !collide::overlaps(&probe, &pose, s, wp).unwrap())
    }

    /// A respawn point on the arena's edge band.
    pub fn edge_spawn_point(&mut self) -> Vec2 {
        loop {
            let p = level::edge_point(self.rng.next_f32(), self.rng.next_f32(), SPAWN_CLEARANCE + 1.0);
            if self.clear_of_walls(p) {
                return p;
            }
        }
    }

    pub fn player_pose(&self) -> Pose {
        self.ecs.get::<&Pose>(self.player).map(|p| *p).unwrap_or(Pose::IDENTITY)
    }

    pub fn player_health(&self) -> Health {
        self.ecs.get::<&Health>(self.player).map(|h| *h).unwrap_or(Health::full(0))
    }

    /// One fixed step of the game.
    pub fn frame(&mut self, input: Input) -> Result<(), WorldError> {
        systems::player_control(&mut self.ecs, input);
        let target = self.player_pose().p;
        systems::enemy_chase(&mut self.ecs, target, &self.scratch);
        systems::fire(&mut self.ecs, &self.world, &mut self.scratch, &mut self.stats, DT);
        systems::spawn_shots(&mut self.ecs, &mut self.scratch);
        systems::integrate(&mut self.ecs, DT);

        let t0 = Instant::now();
        self.sync.sync(&mut self.ecs, &mut self.world)?;
        let t1 = Instant::now();
        self.world.step();
        let t2 = Instant::now();
        self.stats.sync_ms = (t1 - t0).as_secs_f64() * 1e3;
        self.stats.step_ms = (t2 - t1).as_secs_f64() * 1e3;

        systems::classify(&self.ecs, &mut self.scratch);
        if self.config.separation {
            systems::separate(&mut self.ecs, &self.world, &mut self.scratch);
        }
        systems::hits(&mut self.ecs, &self.world, &self.sync, &mut self.scratch, &mut self.stats);
        systems::player_hurt(&mut self.ecs, &self.world, &mut self.scratch, &mut self.stats, self.player, DT);
        self.respawn_dead();
        systems::despawn_spent(&mut self.ecs, &mut self.scratch);
        self.time += DT;
        self.stats.frame += 1;
        Ok(())
    }

    /// Dead enemies come back on the edge band at full health (same entity, same collider:
    /// the teleport is a pose change).
    fn respawn_dead(&mut self) {
        let mut dead = std::mem::take(&mut self.scratch.dead);
        dead.sort_unstable_by_key(|e| e.to_bits());
        dead.dedup();
        for &e in &dead {
            let p = self.edge_spawn_point();
            if let Ok((pose, health)) = self.ecs.query_one_mut::<(&mut Pose, &mut Health)>(e) {
                pose.p = p;
                health.hp = health.max;
            }
        }
        dead.clear();
        self.scratch.dead = dead;
    }
}
