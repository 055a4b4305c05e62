//! The game's components. sapwood's hecs integration reads `Pose` and `Shape` (and the optional
//! `ColliderOptions`) and adds a `ColliderHandle`; everything else here is the game's own.

use sapwood::{Filter, Vec2};

/// Linear velocity, world units per second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity(pub Vec2);

/// Angular velocity, radians per second (projectiles spin).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spin(pub f32);

/// Hit points; at zero an enemy dies (and respawns), the player loses a life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Health {
    pub hp: i32,
    pub max: i32,
}

impl Health {
    pub fn full(max: i32) -> Self {
        Self { hp: max, max }
    }
}

/// The one entity the keyboard (or the autopilot) drives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Player {
    /// Seconds until the aimed gun and the fan fire again.
    pub aim_cooldown: f32,
    pub fan_cooldown: f32,
    /// The fan's current angle: it turns a little with every volley.
    pub fan_angle: f32,
    /// Seconds of invulnerability left after a hit.
    pub hurt_cooldown: f32,
}

/// What an enemy looks like, which sets its hit points and score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnemyKind {
    Circle,
    Capsule,
    Polygon,
}

/// A chaser.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Enemy {
    pub kind: EnemyKind,
    /// Chase speed, units per second.
    pub speed: f32,
}

/// A spinning oriented box that damages the enemies it enters (a sensor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projectile {
    pub damage: i32,
    /// Enemies it may still hit before it is spent.
    pub pierce: u32,
    /// Seconds left to live.
    pub life: f32,
}

/// A static wall or obstacle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wall;

/// Collision categories: who pairs with whom (Box2D-style bits, see `sapwood::Filter`).
pub mod category {
    pub const PLAYER: u32 = 1;
    pub const ENEMY: u32 = 2;
    pub const WALL: u32 = 4;
    pub const SHOT: u32 = 8;
}

/// Who meets whom: shots meet only enemies and walls (not the player, not each other); the
/// player meets enemies and walls; enemies meet everything. A pair forms only when each side's
/// mask holds the other's category.
pub fn filter_for(cat: u32) -> Filter {
    use category::*;
    let mask = match cat {
        SHOT => ENEMY | WALL,
        PLAYER => ENEMY | WALL,
        WALL => PLAYER | ENEMY | SHOT,
        _ => PLAYER | ENEMY | WALL | SHOT,
    };
    Filter { category: cat, mask, group: 0 }
}
