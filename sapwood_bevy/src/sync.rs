//! The sync: brings the collision world up to date with the entities before each step.
//!
//! | the entity …                                         | found by            | the sync …                          |
//! |------------------------------------------------------|---------------------|-------------------------------------|
//! | gained a `Collider`                                  | hook (and `Changed`)| inserts a collider (one batch)      |
//! | lost its `Collider`, or was despawned                | hook                | removes the collider                |
//! | gained or lost `Sensor`, `Bullet`, `Static`, …       | hook                | the world's setters, same id        |
//! | changed `Collider`, `CollisionFilter`, `ColliderEvents` in place | `Changed` | `set_shape` / the setters    |
//! | moved (its `GlobalTransform` changed)                | `Changed`           | `set_pose` (and `set_shape` when the scale changed) |
//!
//! **Why hooks for the structural changes.** A component hook runs at the insertion or removal
//! itself and queues the entity in [`SapwoodWorld`], so nothing is missed however often the
//! step's schedule runs. `RemovedComponents` would not do: its messages are kept for two frames,
//! and a fixed schedule may not run for several (a slow frame rate skips none, but a fast one
//! runs the fixed schedule only every few frames).
//!
//! **Why change detection for the values.** A moved entity is the common case, thousands per
//! step; `Changed<GlobalTransform>` finds exactly them (its ticks are compared with the sync's
//! last run, so it is exact for any cadence) without a hook on every transform write. An entity
//! that did not change costs nothing, so a still scene syncs in time proportional to what moved.
//!
//! New colliders reach the world through [`World::insert_batch`](sapwood::World::insert_batch),
//! which gives them slots in the spatial order of their positions. The sync's buffers live in
//! the resource and are reused: a steady-state sync allocates nothing.

use bevy_ecs::change_detection::{DetectChanges, Ref};
use bevy_ecs::entity::{Entity, EntityHashMap, EntityHashSet};
use bevy_ecs::message::MessageWriter;
use bevy_ecs::query::{Changed, Has, Or};
use bevy_ecs::system::{Query, ResMut};
use bevy_transform::components::GlobalTransform;
use sapwood::{ColliderDesc, ColliderId, ColliderOptions, Shape};

use crate::components::{Bullet, Collider, ColliderDisabled, ColliderEvents, CollisionFilter, Sensor, Static};
use crate::resource::{SapwoodWorld, Tracked};
use crate::transform::{ColliderError, ColliderRefused, pose_from_transform};

/// What the sync reads of an entity.
pub(crate) type ColliderData = (
    Entity,
    Ref<'static, Collider>,
    Ref<'static, GlobalTransform>,
    Option<&'static CollisionFilter>,
    Option<&'static ColliderEvents>,
    Has<Sensor>,
    Has<Bullet>,
    Has<Static>,
    Has<ColliderDisabled>,
);

/// One entity's [`ColliderData`].
type ColliderItem<'a> = (
    Entity,
    Ref<'a, Collider>,
    Ref<'a, GlobalTransform>,
    Option<&'a CollisionFilter>,
    Option<&'a ColliderEvents>,
    bool,
    bool,
    bool,
    bool,
);

/// The entities whose collider values changed since the sync last ran.
pub(crate) type ValueChanged =
    Or<(Changed<Collider>, Changed<GlobalTransform>, Changed<CollisionFilter>, Changed<ColliderEvents>)>;

/// The sync's buffers and its memory of refusals.
#[derive(Default)]
pub(crate) struct SyncScratch {
    /// The hook queue being worked through (swapped with [`SapwoodWorld::queued`], so that
    /// both keep their capacity).
    queued: Vec<Entity>,
    /// Entities synced in this run, so that the change-detection pass skips those the queue
    /// already handled.
    seen: EntityHashSet,
    /// This run's new colliders, inserted as one batch, with what the sync tracks of each.
    new_descs: Vec<ColliderDesc>,
    new_tracked: Vec<(Entity, ColliderOptions, f32)>,
    new_ids: Vec<ColliderId>,
    /// Each refused entity's last reason, so that it is reported once.
    refused: EntityHashMap<ColliderError>,
}

/// The options an entity's marker and setting components give.
fn options_of(filter: Option<&CollisionFilter>, events: Option<&ColliderEvents>, flags: [bool; 4]) -> ColliderOptions {
    let [sensor, bullet, is_static, disabled] = flags;
    let events = events.copied().unwrap_or_default();
    ColliderOptions {
        is_static,
        sensor,
        bullet,
        enabled: !disabled,
        contact_events: events.contacts,
        sensor_events: events.sensors,
        filter: filter.map(|f| f.0).unwrap_or_default(),
    }
}

/// A relative change of scale below this keeps the shape: a rotating entity's scale, read from
/// its matrix, wobbles by a few f32 ulps, and rebuilding its shape for that would cost a clone
/// and the pair's cached decisions every step (1e-5 is below any visible change of size).
const SCALE_TOLERANCE: f32 = 1e-5;

/// `shape` scaled by `scale` (a clone when the scale is 1).
fn scaled(shape: &Shape, scale: f32) -> Result<Shape, ColliderError> {
    if scale == 1.0 { Ok(shape.clone()) } else { shape.scaled(scale).map_err(ColliderError::Scale) }
}

/// The sync system (see the [module docs](self)).
pub(crate) fn sync_colliders(
    mut sapwood: ResMut<SapwoodWorld>,
    all: Query<ColliderData>,
    changed: Query<ColliderData, ValueChanged>,
    mut refusals: MessageWriter<ColliderRefused>,
) {
    let sw = &mut *sapwood;
    std::mem::swap(&mut sw.queued, &mut sw.scratch.queued);
    sw.scratch.seen.clear();
    // (1) The hooks' queue, in the order the changes happened: insertions, removals, markers.
    for i in 0..sw.scratch.queued.len() {
        let entity = sw.scratch.queued[i];
        if !sw.scratch.seen.insert(entity) {
            continue;
        }
        match all.get(entity) {
            Ok(data) => sw.sync_one(data, &mut refusals),
            Err(_) => sw.remove_entity(entity),
        }
    }
    sw.scratch.queued.clear();
    // (2) Moved, reshaped, refiltered entities.
    for data in &changed {
        if !sw.scratch.seen.contains(&data.0) {
            sw.sync_one(data, &mut refusals);
        }
    }
    sw.insert_new(&mut refusals);
}

impl SapwoodWorld {
    /// Brings one entity's collider up to date, or queues it for insertion.
    fn sync_one(
        &mut self,
        (entity, collider, transform, filter, events, sensor, bullet, is_static, disabled): ColliderItem,
        refusals: &mut MessageWriter<ColliderRefused>,
    ) {
        let options = options_of(filter, events, [sensor, bullet, is_static, disabled]);
        let (pose, scale) = match pose_from_transform(&transform) {
            Ok(p) => p,
            Err(e) => return self.refuse(entity, e, refusals),
        };
        let Some(&id) = self.by_entity.get(&entity) else {
            match scaled(&collider.0, scale) {
                Ok(shape) => {
                    let desc = ColliderDesc {
                        user_data: entity.to_bits(),
                        ..ColliderDesc::new(shape, pose).with_options(options)
                    };
                    self.scratch.new_descs.push(desc);
                    self.scratch.new_tracked.push((entity, options, scale));
                }
                Err(e) => self.refuse(entity, e, refusals),
            }
            return;
        };
        let Some(Some(t)) = self.by_slot.get_mut(id.index() as usize) else { return };
        if t.options != options {
            let old = t.options;
            t.options = options;
            t.was_sensor = old.sensor;
            if let Err(e) = self.world.set_options(id, options) {
                return self.refuse(entity, ColliderError::World(e), refusals);
            }
        }
        if collider.is_changed() || (scale - t.scale).abs() > SCALE_TOLERANCE * t.scale {
            let shape = match scaled(&collider.0, scale) {
                Ok(s) => s,
                Err(e) => return self.refuse(entity, e, refusals),
            };
            if let Err(e) = self.world.set_shape(id, shape) {
                return self.refuse(entity, ColliderError::World(e), refusals);
            }
            t.scale = scale;
        }
        match self.world.set_pose(id, pose) {
            Ok(()) => self.accept(entity),
            Err(e) => self.refuse(entity, ColliderError::World(e), refusals),
        }
    }

    /// Inserts the run's new colliders, as one batch when all are valid.
    fn insert_new(&mut self, refusals: &mut MessageWriter<ColliderRefused>) {
        if self.scratch.new_descs.is_empty() {
            return;
        }
        self.scratch.new_ids.clear();
        if self.world.insert_batch(&self.scratch.new_descs, &mut self.scratch.new_ids).is_err() {
            // Some description is invalid (a pose beyond the world's range, say): one by one,
            // so that the others still get their colliders.
            self.scratch.new_ids.clear();
            for i in 0..self.scratch.new_descs.len() {
                match self.world.insert(self.scratch.new_descs[i].clone()) {
                    Ok(id) => self.scratch.new_ids.push(id),
                    Err(e) => {
                        self.scratch.new_ids.push(ColliderId::default());
                        self.refuse(self.scratch.new_tracked[i].0, ColliderError::World(e), refusals);
                    }
                }
            }
        }
        for i in 0..self.scratch.new_ids.len() {
            let (id, (entity, options, scale)) = (self.scratch.new_ids[i], self.scratch.new_tracked[i]);
            if !self.world.contains(id) {
                continue;
            }
            let slot = id.index() as usize;
            if slot >= self.by_slot.len() {
                self.by_slot.resize(slot + 1, None);
            }
            self.by_slot[slot] = Some(Tracked { id, entity, options, was_sensor: options.sensor, scale, live: true });
            self.by_entity.insert(entity, id);
            self.accept(entity);
        }
        self.scratch.new_descs.clear();
        self.scratch.new_tracked.clear();
    }

    /// Removes the collider of an entity that lost its `Collider` (or its transform) or was
    /// despawned.
    fn remove_entity(&mut self, entity: Entity) {
        self.scratch.refused.remove(&entity);
        let Some(id) = self.by_entity.remove(&entity) else { return };
        // Fails only when the game removed the collider through `world_mut`: nothing left to do.
        let _ = self.world.remove(id);
        if let Some(Some(t)) = self.by_slot.get_mut(id.index() as usize) {
            t.live = false;
        }
    }

    fn accept(&mut self, entity: Entity) {
        if !self.scratch.refused.is_empty() {
            self.scratch.refused.remove(&entity);
        }
    }

    /// Reports a refusal once per entity and reason.
    fn refuse(&mut self, entity: Entity, error: ColliderError, refusals: &mut MessageWriter<ColliderRefused>) {
        if self.scratch.refused.insert(entity, error) != Some(error) {
            log::warn!("sapwood_bevy: entity {entity} has no up-to-date collider: {error}");
            refusals.write(ColliderRefused { entity, error });
        }
    }
}
