//! The world's value types: errors, config, collider descriptions, contacts, events, timings.

use std::time::Duration;

use crate::broad::BroadPhaseKind;
use crate::collide::Manifold;
use glam::Vec2;

use crate::math::Pose;
use crate::shape::{Shape, ShapeError};
use crate::storage::{ColliderId, Filter};

/// The largest coordinate magnitude a pose may have (1e7). Contacts stay accurate to the
/// tests' tolerances within ±1e5; between 1e5 and 1e7 they are as accurate as f32 spacing
/// allows (about 1 unit at 1e7). Beyond, a pose is refused with [`WorldError::OutOfRange`].
pub const MAX_COORDINATE: f32 = 1.0e7;

/// Why a world call failed. The world is unchanged whenever one is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldError {
    /// The id names a removed collider, or was never issued by this world.
    StaleId,
    /// The pose has a NaN or infinite component, or its rotation is not a unit rotation.
    InvalidPose,
    /// A pose coordinate exceeds [`MAX_COORDINATE`].
    OutOfRange,
    /// The shape failed [`Shape::validate`].
    InvalidShape(ShapeError),
    /// A config value is out of range (a negative or non-finite margin, bad grid bounds, …).
    InvalidConfig,
    /// All 2^32 - 1 slots are in use.
    Full,
    /// An origin shift offset ([`World::shift_origin`](crate::World::shift_origin)) has a NaN
    /// or infinite component.
    InvalidOffset,
}

impl std::fmt::Display for WorldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorldError::StaleId => f.write_str("collider id is stale or was never issued"),
            WorldError::InvalidPose => f.write_str("pose is NaN, infinite or has a non-unit rotation"),
            WorldError::OutOfRange => write!(f, "pose coordinate beyond MAX_COORDINATE ({MAX_COORDINATE:e})"),
            WorldError::InvalidShape(e) => write!(f, "invalid shape: {e}"),
            WorldError::InvalidConfig => f.write_str("invalid world config"),
            WorldError::Full => f.write_str("world is full"),
            WorldError::InvalidOffset => f.write_str("origin shift offset is NaN or infinite"),
        }
    }
}

impl std::error::Error for WorldError {}

impl From<ShapeError> for WorldError {
    fn from(e: ShapeError) -> Self {
        WorldError::InvalidShape(e)
    }
}

/// How a world is built.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldConfig {
    /// The broad phase for moving colliders. Static and very large colliders always live in a
    /// dynamic tree, queried against the movers. Default: [`BroadPhaseKind::IncrementalSap`].
    pub broad_phase: BroadPhaseKind,
    /// Absolute part of the fat-box margin added around a collider's tight box.
    pub aabb_margin: f32,
    /// Relative part of the fat-box margin, times the tight box's larger side. A collider whose
    /// tight box stays inside its fat box does not touch the broad phase at all.
    pub aabb_margin_ratio: f32,
    /// The fat box also reaches this many times the collider's last displacement (since the
    /// step before) ahead in the direction it moved, up to the collider's own size: a collider
    /// moving steadily escapes less often, for a few more candidate pairs ahead of it. A
    /// collider moving faster than that (its reach would exceed its size) gets its margin alone,
    /// unless it moves less than twice as fast and is in at most two candidate pairs: a box
    /// stretched in a crowd would be mostly space, double the collider's pairs there, and still
    /// hold a collider jostled by its neighbours for fewer steps than the factor, while in open
    /// space it costs few pairs and holds a steady mover for several steps. 0 turns it off.
    /// Each renewed fat box gets between half and one and a half times its margin and reach
    /// (drawn from the collider's slot and box, so deterministic; the mean is the configured
    /// value), so that colliders moving alike do not all escape in the same step. A collider
    /// with its margin alone that moved further than its margin in the last step gets exactly
    /// its margin: it will escape again at the next step whatever it gets, and a share drawn
    /// afresh each step would only make its box's overlaps with its neighbours' flicker.
    pub aabb_motion_factor: f32,
    /// A moving collider whose tight box is larger than this on either side is kept out of the
    /// SAP (it would overlap everything on an axis) and lives in the tree instead.
    pub large_extent: f32,
    /// Static boxes and polygons ([`Shape::Cuboid`], [`Shape::Polygon`], rounded ones too)
    /// whose edges coincide with other statics' (exactly, or within 1e-4 of the smaller one's
    /// size; collinear overlapping edges too) are welded: a shape sliding across the joins of a
    /// floor or wall built from separate tiles gets the normals a [`Chain`](crate::Chain) would
    /// give there, never one along the surface from a tile's side, and edges inside the union of
    /// the statics (the faces two tiles share) never collide. Contacts, shape casts, times of
    /// impact and [`World::move_character`](crate::World::move_character) all see the welded
    /// surface. Real corners (a step's edge, a wall) stay corners, and removing or moving a
    /// static reopens its neighbours' edges.
    ///
    /// The welds are computed when statics are inserted, removed or changed (at the next step,
    /// from the static tree), never in a step in which no static changed. Default: `true`.
    pub weld_static_edges: bool,
    /// Whether a sensor detects another sensor: their overlap is a pair, with
    /// [`EventKind::SensorEntered`]/[`EventKind::SensorExited`] events. Off, two sensors never
    /// pair at all (no pair entry, no narrow-phase work). Default: `false`, as in Box2D v3: a
    /// trigger volume is usually meant for the things that move through it, not for other
    /// triggers.
    pub sensors_detect_sensors: bool,
    /// Whether a sensor detects static non-sensors (a moving sensor overlapping the level; a
    /// static sensor never detects a static either way, as no two statics pair, and a sensor
    /// meeting a static sensor follows [`WorldConfig::sensors_detect_sensors`]). Default:
    /// `true`, so that a character's ground sensor finds the level.
    pub sensors_detect_static: bool,
    /// Whether a touching pair that moved only a little since its manifold was last computed
    /// in full takes the kernel's discrete decisions (reference face, incident face) from that
    /// computation when a recorded margin proves they still hold, and computes only the points.
    /// The manifolds are the same bit for bit either way (see `collide::reuse` in the
    /// repository); resting stacks cost less. Boxes and polygons, capsules and segments against
    /// them, and circles against polygons (other kind pairs, and a pair with a welded static,
    /// run their kernel in full). The switch is for A/B measurement.
    /// Default: `true`.
    pub reuse_manifolds: bool,
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            broad_phase: BroadPhaseKind::IncrementalSap,
            aabb_margin: 0.0,
            // A wider margin makes escapes rarer (fewer broad-phase updates and pair searches)
            // but keeps more candidate pairs alive for the narrow phase to evaluate. The motion
            // reach already covers colliders moving steadily, so the margin only has to absorb
            // jitter and turning, and a small ratio is the better side of that trade.
            aabb_margin_ratio: 0.05,
            aabb_motion_factor: 8.0,
            large_extent: 256.0,
            weld_static_edges: true,
            sensors_detect_sensors: false,
            sensors_detect_static: true,
            reuse_manifolds: true,
        }
    }
}

/// Everything needed to insert a collider.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderDesc {
    /// The shape, in the collider's local frame.
    pub shape: Shape,
    /// Where the collider is.
    pub pose: Pose,
    /// Static colliders never move (`set_pose` still works but costs a tree update);
    /// static–static pairs are never generated.
    pub is_static: bool,
    /// A sensor reports [`EventKind::SensorEntered`]/[`EventKind::SensorExited`] and no manifold.
    pub sensor: bool,
    /// A fast collider (a bullet): each step sweeps it from its pose at the step before to its
    /// new pose, so that its broad-phase box covers the whole motion, and reports its earliest
    /// time of impact in [`World::impacts`](crate::World::impacts). Contacts and events are
    /// those of its current pose, as for any collider.
    pub bullet: bool,
    /// Which colliders this one pairs with.
    pub filter: Filter,
    /// Free for the user (the hecs integration stores the entity here).
    pub user_data: u64,
    /// A disabled collider keeps its id, pose and shape but is in no pair, no contact, no
    /// event, no impact and no query result until enabled (see
    /// [`World::set_enabled`](crate::World::set_enabled)). Default: `true`.
    pub enabled: bool,
    /// Whether pairs of this collider raise [`EventKind::ContactBegan`] and
    /// [`EventKind::ContactEnded`]. A pair raises them only when both its colliders have them
    /// on, so switching them off on one collider silences all its contacts' events (Box2D v3
    /// raises them when either shape asks). Contacts are reported in
    /// [`World::contacts`](crate::World::contacts) either way. Default: `true`.
    pub contact_events: bool,
    /// Whether pairs of this collider raise [`EventKind::SensorEntered`] and
    /// [`EventKind::SensorExited`]: on a sensor, whether it reports what it detects; on any
    /// other collider, whether sensors report it. A sensor pair raises them only when both
    /// colliders have them on. Default: `true`.
    pub sensor_events: bool,
}

/// How a collider behaves, as one value: every switch of a [`ColliderDesc`] and its filter.
/// [`World::set_options`](crate::World::set_options) applies one to a live collider,
/// [`World::options`](crate::World::options) reads one back, and the ECS integrations keep one
/// per entity. The default is [`ColliderDesc::new`]'s: moving, enabled, neither a sensor nor a
/// bullet, both event switches on, the default filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderOptions {
    /// See [`ColliderDesc::is_static`](ColliderDesc#structfield.is_static).
    pub is_static: bool,
    /// See [`ColliderDesc::sensor`](ColliderDesc#structfield.sensor).
    pub sensor: bool,
    /// See [`ColliderDesc::bullet`](ColliderDesc#structfield.bullet).
    pub bullet: bool,
    /// See [`ColliderDesc::enabled`](ColliderDesc#structfield.enabled).
    pub enabled: bool,
    /// See [`ColliderDesc::contact_events`](ColliderDesc#structfield.contact_events).
    pub contact_events: bool,
    /// See [`ColliderDesc::sensor_events`](ColliderDesc#structfield.sensor_events).
    pub sensor_events: bool,
    /// Which colliders this one pairs with.
    pub filter: Filter,
}

impl Default for ColliderOptions {
    fn default() -> Self {
        Self {
            is_static: false,
            sensor: false,
            bullet: false,
            enabled: true,
            contact_events: true,
            sensor_events: true,
            filter: Filter::default(),
        }
    }
}

impl ColliderOptions {
    /// Options for a static collider.
    #[must_use]
    pub fn fixed() -> Self {
        Self { is_static: true, ..Self::default() }
    }

    /// Options for a (moving) sensor.
    #[must_use]
    pub fn sensor() -> Self {
        Self { sensor: true, ..Self::default() }
    }

    /// Options for a bullet.
    #[must_use]
    pub fn bullet() -> Self {
        Self { bullet: true, ..Self::default() }
    }
}

impl ColliderDesc {
    /// A moving, non-sensor collider with the default filter.
    #[must_use]
    pub fn new(shape: Shape, pose: Pose) -> Self {
        let ColliderOptions { is_static, sensor, bullet, enabled, contact_events, sensor_events, filter } =
            ColliderOptions::default();
        Self { shape, pose, is_static, sensor, bullet, filter, user_data: 0, enabled, contact_events, sensor_events }
    }

    /// The same with the switches and filter of `options`.
    #[must_use]
    pub fn with_options(self, options: ColliderOptions) -> Self {
        let ColliderOptions { is_static, sensor, bullet, enabled, contact_events, sensor_events, filter } = options;
        Self { is_static, sensor, bullet, enabled, contact_events, sensor_events, filter, ..self }
    }

    /// Its switches and filter.
    #[must_use]
    pub fn options(&self) -> ColliderOptions {
        ColliderOptions {
            is_static: self.is_static,
            sensor: self.sensor,
            bullet: self.bullet,
            enabled: self.enabled,
            contact_events: self.contact_events,
            sensor_events: self.sensor_events,
            filter: self.filter,
        }
    }

    /// The same, disabled (see [`ColliderDesc::enabled`](#structfield.enabled)): inserted
    /// switched off, to be switched on with [`World::set_enabled`](crate::World::set_enabled).
    #[must_use]
    pub fn disabled(mut self) -> Self {
        self.enabled = false;
        self
    }

    /// The same with contact events on or off (see
    /// [`ColliderDesc::contact_events`](#structfield.contact_events)).
    #[must_use]
    pub fn with_contact_events(mut self, on: bool) -> Self {
        self.contact_events = on;
        self
    }

    /// The same with sensor events on or off (see
    /// [`ColliderDesc::sensor_events`](#structfield.sensor_events)).
    #[must_use]
    pub fn with_sensor_events(mut self, on: bool) -> Self {
        self.sensor_events = on;
        self
    }

    /// The same, static.
    #[must_use]
    pub fn fixed(mut self) -> Self {
        self.is_static = true;
        self
    }

    /// The same, as a sensor.
    #[must_use]
    pub fn sensor(mut self) -> Self {
        self.sensor = true;
        self
    }

    /// The same, as a bullet (see [`ColliderDesc::bullet`](#structfield.bullet)): a fast
    /// collider whose motion between steps is swept, and whose earliest impact each step is
    /// reported in [`World::impacts`](crate::World::impacts).
    #[must_use]
    pub fn bullet(mut self) -> Self {
        self.bullet = true;
        self
    }

    /// The same with user data.
    #[must_use]
    pub fn with_user_data(mut self, user_data: u64) -> Self {
        self.user_data = user_data;
        self
    }

    /// The same with a filter.
    #[must_use]
    pub fn with_filter(mut self, filter: Filter) -> Self {
        self.filter = filter;
        self
    }
}

/// A touching pair and its manifold (world space, normal from `a` to `b`, `a.index < b.index`).
/// `Pod`, so `bytemuck::cast_slice(world.contacts())` exports all contacts without a copy.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Contact {
    /// The collider with the lower slot index.
    pub a: ColliderId,
    /// The other collider.
    pub b: ColliderId,
    /// The manifold.
    pub manifold: Manifold,
}

/// A bullet's earliest impact during the last step (see [`World::impacts`](crate::World::impacts)).
/// `Pod`, like [`Contact`].
///
/// The step swept the bullet from its pose at the step before to its pose now; `fraction` is
/// how far along that sweep it first touched `other` (0 = start, 1 = end), and `pose` is the
/// bullet's pose then (the sweep interpolates the position linearly and the angle the short
/// way). A solver clamps the bullet there, or sub-steps to that time.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Impact {
    /// The bullet.
    pub bullet: ColliderId,
    /// The collider it hit first.
    pub other: ColliderId,
    /// Time of impact as a fraction of the step's sweep, in `[0, 1]` (0 for a bullet that starts
    /// the step a hair's breadth from the collider, apart but within the time-of-impact
    /// tolerance, and moves towards it).
    pub fraction: f32,
    /// The contact point at the time of impact (world space).
    pub point: Vec2,
    /// The unit contact normal at the time of impact, from the bullet towards `other`.
    pub normal: Vec2,
    /// The bullet's pose at the time of impact.
    pub pose: Pose,
}

/// What happened to a pair.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EventKind {
    /// Two non-sensor colliders started touching.
    ContactBegan = 0,
    /// They stopped touching, or one was removed.
    ContactEnded = 1,
    /// A collider started overlapping a sensor (either of `a`, `b` may be the sensor).
    SensorEntered = 2,
    /// It stopped overlapping, or one was removed.
    SensorExited = 3,
}

/// One event, reported in ascending `(a, b)` order. Ids in events for removed colliders are
/// stale by the time they are read; they still tell which collider it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Event {
    /// The collider with the lower slot index.
    pub a: ColliderId,
    /// The other collider.
    pub b: ColliderId,
    /// What happened.
    pub kind: EventKind,
}

/// Wall-clock time of each phase of one [`World::step`](crate::World::step). Pair events are
/// raised inside the broad and narrow phases, where pairs end and touching changes; the last
/// phase only gathers and orders them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StepTimings {
    /// (a) Tight boxes of the moved colliders, the escape test and the escaped colliders' new
    /// fat boxes.
    pub aabbs: Duration,
    /// (b) The escaped colliders moved through the broad-phase structures, the search for the
    /// candidate pairs they began and ended, and the pair entries created and freed (a touching
    /// pair whose fat boxes parted ends here, with its event), and the welds of the statics
    /// changed since the last step recomputed (see [`WorldConfig::weld_static_edges`]).
    pub broad_phase: Duration,
    /// (c) Manifolds of the pairs with a moved collider, written to the contacts array, with the
    /// events of the pairs that started or stopped touching.
    pub narrow_phase: Duration,
    /// (d) The earliest impact of each bullet that moved, by time-of-impact queries over its
    /// candidate pairs.
    pub continuous: Duration,
    /// (e) The events raised by removals since the last step merged in, and all events sorted.
    pub events: Duration,
}

/// What one [`World::step`](crate::World::step) did, for profiling, tuning the fat-box margins
/// ([`WorldConfig::aabb_margin`](crate::WorldConfig::aabb_margin)) and HUDs (as Box2D's
/// `b2World_GetCounters`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Colliders whose tight box left their fat box (or that were new), and so went through
    /// the broad phase with a renewed fat box.
    pub escaped: u32,
    /// Candidate pairs made: fat boxes that began to overlap.
    pub pairs_began: u32,
    /// Candidate pairs freed: fat boxes that parted.
    pub pairs_ended: u32,
    /// Candidate pairs with a moved collider, whose manifold (or, for sensors, overlap) was
    /// computed when their tight boxes overlap.
    pub pairs: u32,
    /// Of those, the manifolds computed from decisions reused under
    /// [`WorldConfig::reuse_manifolds`].
    pub reused: u32,
}

impl StepTimings {
    /// The whole step.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.aabbs + self.broad_phase + self.narrow_phase + self.continuous + self.events
    }
}
