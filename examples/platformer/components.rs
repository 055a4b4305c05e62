//! The game's components. sapwood's hecs integration reads `Pose` and `Shape` (and the optional
//! `ColliderOptions`) and adds a `ColliderHandle`; everything else here is the game's own.

use hecs::Entity;
use sapwood::{Filter, Vec2};

use crate::level::Track;

/// The character the keyboard (or the autopilot) drives with the character mover.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Player {
    /// World units per second. Horizontal from the input, vertical from gravity and jumps.
    pub velocity: Vec2,
    /// Standing on something no steeper than the mover's maximum slope, after the last move.
    pub grounded: bool,
    /// What it stands on (after the last move), if anything.
    pub ground: Option<Entity>,
    /// The moving platform it stands on, if any: its displacement is added to the next move.
    pub riding: Option<Entity>,
    /// The outward normal of what it stands on (zero in the air).
    pub ground_normal: Vec2,
}

/// A piece of the tile map's terrain (a closed chain).
#[derive(Clone, Copy, Debug, Default)]
pub struct Terrain;

/// A one-way platform: a one-sided chain whose front faces up.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneWay;

/// A moving platform: a moving collider whose pose the game sets each frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovingPlatform {
    pub track: Track,
    /// Seconds for a round trip.
    pub period: f32,
    /// Its displacement during the current frame (what it carries its rider by).
    pub delta: Vec2,
}

/// Collected when the player's collider enters it (a sensor).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pickup;

/// Spikes: entering them sends the player back to the last checkpoint (a sensor).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hazard;

/// Collision categories. Only the player and the sensors pair in the world's step (the pickups
/// and spikes report the player entering them); terrain and platforms pair with nothing there,
/// since the mover finds them with its own queries.
pub mod category {
    pub const TERRAIN: u32 = 1;
    pub const PLATFORM: u32 = 2;
    pub const PLAYER: u32 = 4;
    pub const PICKUP: u32 = 8;
    pub const HAZARD: u32 = 16;
    /// What the player's mover stands on and slides along.
    pub const SOLID: u32 = TERRAIN | PLATFORM;
}

/// The filter of a collider of category `cat`.
pub fn filter_for(cat: u32) -> Filter {
    use category::*;
    let mask = match cat {
        PLAYER => PICKUP | HAZARD,
        PICKUP | HAZARD => PLAYER,
        _ => 0,
    };
    Filter { category: cat, mask, group: 0 }
}
