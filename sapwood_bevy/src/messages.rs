//! The step's results as Bevy messages, naming entities.

use bevy_ecs::entity::Entity;
use bevy_ecs::message::{Message, MessageWriter};
use bevy_ecs::system::{Res, ResMut};
use sapwood::{EventKind, Impact};

use crate::resource::SapwoodWorld;

/// Two colliders started touching (neither is a sensor). `a` has the lower collider id; the
/// order is otherwise meaningless.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionStarted {
    /// One entity.
    pub a: Entity,
    /// The other.
    pub b: Entity,
}

/// Two colliders stopped touching, or one of them was removed (its entity despawned, its
/// `Collider` removed, or disabled).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionEnded {
    /// One entity (the lower collider id).
    pub a: Entity,
    /// The other.
    pub b: Entity,
}

/// A collider started overlapping a sensor.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEntered {
    /// The sensor (when two sensors meet, see
    /// [`WorldConfig::sensors_detect_sensors`](sapwood::WorldConfig::sensors_detect_sensors),
    /// the one with the lower collider id).
    pub sensor: Entity,
    /// What entered it.
    pub visitor: Entity,
}

/// A collider stopped overlapping a sensor, or one of them was removed.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorExited {
    /// The sensor.
    pub sensor: Entity,
    /// What left it.
    pub visitor: Entity,
}

/// A bullet's earliest impact in the last step (see [`Bullet`](crate::Bullet) and
/// [`sapwood::World::impacts`]): where along its motion since the step before it first touched
/// `other`.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct BulletImpact {
    /// The bullet.
    pub bullet: Entity,
    /// What it hit first.
    pub other: Entity,
    /// The fraction, point, normal (from the bullet towards `other`) and the bullet's pose at
    /// the time of impact; its ids are the two colliders'.
    pub impact: Impact,
}

/// Steps the world.
pub(crate) fn step_world(mut sapwood: ResMut<SapwoodWorld>) {
    sapwood.world.step();
}

/// Writes the last step's events and impacts as messages, in the world's order (ascending
/// collider ids, so the same for any thread count).
pub(crate) fn write_messages(
    sapwood: Res<SapwoodWorld>,
    mut started: MessageWriter<CollisionStarted>,
    mut ended: MessageWriter<CollisionEnded>,
    mut entered: MessageWriter<SensorEntered>,
    mut exited: MessageWriter<SensorExited>,
    mut impacts: MessageWriter<BulletImpact>,
) {
    for e in sapwood.world.events() {
        let (Some(ta), Some(tb)) = (sapwood.tracked(e.a), sapwood.tracked(e.b)) else { continue };
        let (a, b) = (ta.entity, tb.entity);
        // Entries keep what a collider was before its last change (and a removed one's stays),
        // so that an exit names the sensor that the pair began with.
        let sensor_first = match e.kind {
            EventKind::SensorExited => ta.options.sensor || ta.was_sensor || !(tb.options.sensor || tb.was_sensor),
            _ => ta.options.sensor || !tb.options.sensor,
        };
        let (sensor, visitor) = if sensor_first { (a, b) } else { (b, a) };
        match e.kind {
            EventKind::ContactBegan => {
                started.write(CollisionStarted { a, b });
            }
            EventKind::ContactEnded => {
                ended.write(CollisionEnded { a, b });
            }
            EventKind::SensorEntered => {
                entered.write(SensorEntered { sensor, visitor });
            }
            EventKind::SensorExited => {
                exited.write(SensorExited { sensor, visitor });
            }
        }
    }
    for (bullet, other, impact) in sapwood.impacts() {
        impacts.write(BulletImpact { bullet, other, impact: *impact });
    }
}
