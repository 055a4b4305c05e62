//! **sapwood_bevy** puts [sapwood](https://docs.rs/sapwood)'s collision world in a Bevy app:
//! entities with a [`Collider`] get a collider that follows their `GlobalTransform`; each fixed
//! step the world is synced, stepped, and its results come back the Bevy way: collision and
//! sensor [messages](bevy_ecs::message) naming entities, each entity's contacts on
//! [`SapwoodWorld`], and scene queries through the [`SpatialQuery`] system parameter. It
//! detects collisions; it does not solve them (no rigid bodies, no gravity): the game moves its
//! entities, with [`SpatialQuery::move_character`] for collide-and-slide.
//!
//! It depends on Bevy's sub-crates only (`bevy_app`, `bevy_ecs`, `bevy_math`,
//! `bevy_transform`; `bevy_gizmos` with the `gizmos` feature), so it builds without the engine's
//! renderer.
//!
//! ```
//! use bevy_app::{App, FixedMain};
//! use bevy_ecs::prelude::*;
//! use bevy_transform::{TransformPlugin, components::Transform};
//! use sapwood::{Shape, Vec2};
//! use sapwood_bevy::{Collider, CollisionStarted, SapwoodPlugin, Static};
//!
//! let mut app = App::new();
//! app.add_plugins((TransformPlugin, SapwoodPlugin::default()));
//! let ground = app
//!     .world_mut()
//!     .spawn((Collider(Shape::cuboid(Vec2::new(10.0, 0.5))?), Static))
//!     .id();
//! let ball = app
//!     .world_mut()
//!     .spawn((Collider(Shape::circle(0.5)?), Transform::from_xyz(0.0, 0.9, 0.0)))
//!     .id();
//! // A full app's `TimePlugin` runs the fixed schedules; here, one fixed step by hand.
//! app.world_mut().run_schedule(FixedMain);
//!
//! let started: Vec<_> = app.world_mut().resource_mut::<Messages<CollisionStarted>>().drain().collect();
//! assert_eq!(started, [CollisionStarted { a: ground, b: ball }]);
//! # Ok::<(), sapwood::ShapeError>(())
//! ```
//!
//! See [`sync`] for how entities become colliders, [`SapwoodPlugin`] for the schedule, and
//! the repository's `sapwood_bevy/examples/` for a small game.
#![warn(missing_docs)]
#![deny(unsafe_code)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod components;
#[cfg(feature = "gizmos")]
mod gizmos;
mod messages;
mod plugin;
mod resource;
mod spatial_query;
pub mod sync;
mod transform;

pub use components::{Bullet, Collider, ColliderDisabled, ColliderEvents, CollisionFilter, Sensor, Static};
#[cfg(feature = "gizmos")]
pub use gizmos::{GizmoCanvas, SapwoodGizmos, SapwoodGizmosPlugin};
pub use messages::{BulletImpact, CollisionEnded, CollisionStarted, SensorEntered, SensorExited};
pub use plugin::{SapwoodPlugin, SapwoodSystems};
pub use resource::SapwoodWorld;
/// The sapwood crate this plugin is built on, so that games use the very version it expects.
pub use sapwood;
pub use spatial_query::{
    CharacterContact, CharacterOutcome, Nearest, QueryScratch, RayHit, ShapeHit, SpatialFilter, SpatialQuery,
};
pub use transform::{ColliderError, ColliderRefused, pose_from_transform, to_bevy, to_sapwood};
