//! The components a game puts on its entities: a [`Collider`], and the markers and settings that
//! say how it behaves (every flag of [`sapwood::ColliderDesc`]).
//!
//! Adding or removing any of them is structural and reaches the collision world through a
//! component hook (see [`crate::sync`]); changing the value of `Collider`, [`CollisionFilter`] or
//! [`ColliderEvents`] in place is seen by change detection.

use bevy_ecs::change_detection::DetectChangesMut;
use bevy_ecs::component::Component;
use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::world::DeferredWorld;
use bevy_transform::components::Transform;
use sapwood::{Filter, Shape};

use crate::resource::SapwoodWorld;

/// An entity's collision shape, in the entity's local frame: the plugin inserts a collider for
/// every entity with a `Collider` and a [`GlobalTransform`](bevy_transform::components::GlobalTransform)
/// (required, through [`Transform`]), moves it with the entity, reshapes it when the component
/// changes and removes it with the component or the entity.
///
/// The pose is the global transform's translation (x, y) and its rotation about z; a uniform
/// scale scales the shape ([`Shape::scaled`]). A non-uniform or mirrored scale, or a rotation out
/// of the xy plane, is refused (see [`ColliderError`](crate::ColliderError)).
///
/// ```
/// use sapwood::{Shape, Vec2};
/// use sapwood_bevy::Collider;
///
/// let ball = Collider(Shape::circle(0.5)?);
/// let crate_ = Collider::new(Shape::cuboid(Vec2::new(1.0, 0.5))?);
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct Collider(pub Shape);

impl Collider {
    /// A collider of `shape`.
    #[must_use]
    pub fn new(shape: Shape) -> Self {
        Self(shape)
    }
}

/// Marks a sensor: it reports [`SensorEntered`](crate::SensorEntered) and
/// [`SensorExited`](crate::SensorExited) and has no contact manifold (see
/// [`sapwood::ColliderDesc::sensor`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct Sensor;

/// Marks a bullet: a fast collider whose motion between two steps is swept, with its earliest
/// impact reported as a [`BulletImpact`](crate::BulletImpact) (see
/// [`sapwood::ColliderDesc::bullet`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct Bullet;

/// Marks a static collider: level geometry that rarely moves. Static colliders never pair with
/// each other, and touching static boxes are welded into one surface (see
/// [`sapwood::ColliderDesc::is_static`] and [`sapwood::WorldConfig::weld_static_edges`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct Static;

/// Switches a collider off while present: it keeps its place in the world but is in no pair,
/// contact, message or query result (see [`sapwood::World::set_enabled`]). Cheaper than removing
/// and re-adding the [`Collider`] for something switched on and off often.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct ColliderDisabled;

/// Which colliders this one pairs with (see [`Filter`]); absent means [`Filter::default`].
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct CollisionFilter(pub Filter);

/// The collider's event switches; absent means both on. A pair raises contact messages only
/// when both its colliders have `contacts` on, and sensor messages only when both have `sensors`
/// on (see [`sapwood::ColliderDesc::contact_events`]). Contacts are readable either way.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(on_add = queue_change, on_remove = queue_change)]
pub struct ColliderEvents {
    /// [`CollisionStarted`](crate::CollisionStarted) and [`CollisionEnded`](crate::CollisionEnded).
    pub contacts: bool,
    /// [`SensorEntered`](crate::SensorEntered) and [`SensorExited`](crate::SensorExited).
    pub sensors: bool,
}

impl Default for ColliderEvents {
    fn default() -> Self {
        Self { contacts: true, sensors: true }
    }
}

impl ColliderEvents {
    /// Both switches off: a collider that is only queried or read for contacts.
    pub const NONE: ColliderEvents = ColliderEvents { contacts: false, sensors: false };
}

/// The hook of every component above: the entity is queued for the next sync, which reads what
/// the entity has then. A hook rather than `RemovedComponents`, whose messages expire after two
/// frames, while a fixed schedule may skip frames; hooks run at the change itself.
fn queue_change(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut sapwood) = world.get_resource_mut::<SapwoodWorld>() {
        sapwood.bypass_change_detection().queue(ctx.entity);
    }
}
