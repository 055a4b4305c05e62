//! The game state and one frame of it, in the order the collision back-end needs:
//!
//! ```text
//!  input ─▶ move_platforms (poses of the moving colliders)
//!        ─▶ HecsSync::sync + World::step            (timed: "step")
//!        ─▶ move_player: World::move_character, set_pose  (timed: "mover")
//!        ─▶ touch_sensors: pickups and spikes from the step's sensor events
//! ```
//! The step comes before the mover so that the mover's queries see the platforms where they
//! are this frame; the player's new pose reaches the world's pairs (and so the sensor events)
//! at the next step. Everything runs on a fixed `DT`, so a run is a pure function of its
//! inputs (the tests rely on it).

use std::time::Instant;

use hecs::Entity;
use sapwood::ecs::HecsSync;
use sapwood::{
    ChainOptions, CharacterConfig, CharacterHit, ColliderOptions, Pose, QueryFilter, Shape, Vec2, World, WorldConfig,
    WorldError,
};

use crate::components::{Hazard, MovingPlatform, OneWay, Pickup, Player, Terrain, category, filter_for};
use crate::level::{CELL, Level, LevelError};
use crate::systems;

/// The fixed simulation step, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// The player's capsule: core half-length and radius (1.6 units tall, 0.7 wide).
pub const PLAYER_HALF_CORE: f32 = 0.45;
pub const PLAYER_RADIUS: f32 = 0.35;
/// From the capsule's centre down to its lowest point.
pub const PLAYER_HALF_HEIGHT: f32 = PLAYER_HALF_CORE + PLAYER_RADIUS;

/// Seconds for the moving platform's round trip.
const PLATFORM_PERIOD: f32 = 7.0;
/// One point of the player's path is kept every this many frames (drawn in the picture).
const TRAIL_EVERY: u64 = 4;
const TRAIL_MAX: usize = 4096;

/// What the player asks for this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Input {
    /// -1 (left) to 1 (right).
    pub run: f32,
    /// Jump (held: a jump starts whenever the player is grounded).
    pub jump: bool,
    /// Drop through one-way platforms (held).
    pub drop: bool,
}

/// Running totals and the last frame's costs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub frame: u64,
    pub collected: u32,
    /// Times the spikes sent the player back.
    pub deaths: u32,
    /// The frame in which the player first reached the goal.
    pub finished: Option<u64>,
    /// Milliseconds in `HecsSync::sync` + `World::step`, and in the mover, last frame.
    pub step_ms: f64,
    pub mover_ms: f64,
}

/// The whole game: ECS, collision world, the sync between them, the level and the mover.
pub struct Game {
    pub ecs: hecs::World,
    pub world: World,
    pub sync: HecsSync,
    pub level: Level,
    pub player: Entity,
    pub player_shape: Shape,
    /// How the player moves through the world (its filter: solids only, not itself).
    pub mover: CharacterConfig,
    pub stats: Stats,
    /// Seconds since the start.
    pub time: f32,
    /// Where the player has been (a point every few frames, for the picture).
    pub trail: Vec<Vec2>,
    /// The mover's surfaces touched in the last move (kept so that a move allocates nothing).
    pub hits: Vec<CharacterHit>,
    /// Sensors the player entered this frame (scratch).
    pub entered: Vec<Entity>,
}

/// Anything that can stop the game.
#[derive(Debug)]
pub enum GameError {
    Level(LevelError),
    World(WorldError),
    Shape(sapwood::ShapeError),
    Query(sapwood::query::QueryError),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Level(e) => e.fmt(f),
            GameError::World(e) => e.fmt(f),
            GameError::Shape(e) => e.fmt(f),
            GameError::Query(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GameError {}

impl From<LevelError> for GameError {
    fn from(e: LevelError) -> Self {
        GameError::Level(e)
    }
}
impl From<WorldError> for GameError {
    fn from(e: WorldError) -> Self {
        GameError::World(e)
    }
}
impl From<sapwood::ShapeError> for GameError {
    fn from(e: sapwood::ShapeError) -> Self {
        GameError::Shape(e)
    }
}
impl From<sapwood::query::QueryError> for GameError {
    fn from(e: sapwood::query::QueryError) -> Self {
        GameError::Query(e)
    }
}

/// Where the player's capsule centre is when it stands on `feet`, a little above the ground so
/// that it starts clear of it (the mover keeps its skin from there on).
pub fn standing_at(feet: Vec2) -> Pose {
    Pose::from_translation(feet + Vec2::new(0.0, PLAYER_HALF_HEIGHT + 0.02))
}

impl Game {
    /// The built-in course, the player at its start.
    pub fn new() -> Result<Game, GameError> {
        Game::with_level(Level::course()?)
    }

    pub fn with_level(level: Level) -> Result<Game, GameError> {
        let mut ecs = hecs::World::new();
        let fixed = |cat| ColliderOptions { filter: filter_for(cat), ..ColliderOptions::fixed() };
        let sensor = |cat| ColliderOptions {
            is_static: true,
            sensor: true,
            filter: filter_for(cat),
            ..ColliderOptions::default()
        };
        for chain in &level.terrain {
            ecs.spawn((Pose::IDENTITY, Shape::Chain(chain.clone()), fixed(category::TERRAIN), Terrain));
        }
        for &c in &level.tiles {
            let tile = Shape::cuboid(Vec2::splat(0.5 * CELL))?;
            ecs.spawn((Pose::from_translation(c), tile, fixed(category::TERRAIN), Terrain));
        }
        for &(left, right) in &level.one_way {
            // Right to left, so that the front (a chain segment's right side) faces up.
            let edge = Shape::chain(vec![right, left], ChainOptions { closed: false, one_sided: true })?;
            ecs.spawn((Pose::IDENTITY, edge, fixed(category::TERRAIN), OneWay));
        }
        for &track in &level.tracks {
            let platform = MovingPlatform { track, period: PLATFORM_PERIOD, delta: Vec2::ZERO };
            let options = ColliderOptions { filter: filter_for(category::PLATFORM), ..ColliderOptions::default() };
            ecs.spawn((Pose::from_translation(track.left), Shape::cuboid(track.half_extents)?, options, platform));
        }
        for &p in &level.pickups {
            ecs.spawn((Pose::from_translation(p), Shape::circle(0.25)?, sensor(category::PICKUP), Pickup));
        }
        for &(lo, hi) in &level.spikes {
            // The sensor is the lower part of the spikes' cells: touching their tips is safe.
            let half = Vec2::new(0.5 * (hi.x - lo.x), 0.3 * (hi.y - lo.y));
            let pose = Pose::from_translation(Vec2::new(0.5 * (lo.x + hi.x), lo.y + half.y));
            ecs.spawn((pose, Shape::cuboid(half)?, sensor(category::HAZARD), Hazard));
        }
        let player_shape =
            Shape::capsule(Vec2::new(0.0, -PLAYER_HALF_CORE), Vec2::new(0.0, PLAYER_HALF_CORE), PLAYER_RADIUS)?;
        let player = ecs.spawn((
            standing_at(level.start),
            player_shape.clone(),
            ColliderOptions { filter: filter_for(category::PLAYER), ..ColliderOptions::default() },
            Player::default(),
        ));
        let mover = CharacterConfig {
            // Steps of one cell (0.5) are climbed without a jump; two cells are a wall.
            step_height: 0.55,
            // The 45° slope tiles are floors, with room for rounding.
            max_slope: 50f32.to_radians(),
            snap_to_ground: 0.3,
            filter: QueryFilter { mask: category::SOLID, include_sensors: false, exclude: None },
            ..CharacterConfig::default()
        };
        let mut game = Game {
            ecs,
            world: World::with_config(WorldConfig::default())?,
            sync: HecsSync::new(),
            level,
            player,
            player_shape,
            mover,
            stats: Stats::default(),
            time: 0.0,
            trail: Vec::new(),
            hits: Vec::new(),
            entered: Vec::new(),
        };
        // One step so that the mover's queries see the level from the first frame.
        game.sync.sync(&mut game.ecs, &mut game.world)?;
        game.world.step();
        Ok(game)
    }

    pub fn player_pose(&self) -> Pose {
        self.ecs.get::<&Pose>(self.player).map(|p| *p).unwrap_or(Pose::IDENTITY)
    }

    pub fn player_state(&self) -> Player {
        self.ecs.get::<&Player>(self.player).map(|p| *p).unwrap_or_default()
    }

    /// One fixed step of the game.
    pub fn frame(&mut self, input: Input) -> Result<(), GameError> {
        systems::move_platforms(&mut self.ecs, self.time + DT);

        let t0 = Instant::now();
        self.sync.sync(&mut self.ecs, &mut self.world)?;
        self.world.step();
        let t1 = Instant::now();
        systems::move_player(
            &mut self.ecs,
            &mut self.world,
            self.player,
            &self.player_shape,
            &self.mover,
            input,
            &mut self.hits,
        )?;
        let t2 = Instant::now();
        self.stats.step_ms = (t1 - t0).as_secs_f64() * 1e3;
        self.stats.mover_ms = (t2 - t1).as_secs_f64() * 1e3;

        systems::touch_sensors(self)?;
        let p = self.player_pose().p;
        if p.x >= self.level.goal_x && self.stats.finished.is_none() {
            self.stats.finished = Some(self.stats.frame);
        }
        if self.stats.frame.is_multiple_of(TRAIL_EVERY) && self.trail.len() < TRAIL_MAX {
            self.trail.push(p);
        }
        self.time += DT;
        self.stats.frame += 1;
        Ok(())
    }
}
