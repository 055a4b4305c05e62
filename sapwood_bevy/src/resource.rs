//! [`SapwoodWorld`]: the collision world as a Bevy resource, with the map between its collider
//! ids and the entities they belong to.

use bevy_ecs::entity::{Entity, EntityHashMap};
use bevy_ecs::resource::Resource;
use sapwood::collide::Manifold;
use sapwood::{ColliderId, ColliderOptions, Contact, Event, Impact, Vec2, World, WorldConfig, WorldError};

use crate::sync::SyncScratch;

/// What the plugin knows about one collider slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tracked {
    pub id: ColliderId,
    pub entity: Entity,
    /// What the entity's marker and setting components say.
    pub options: ColliderOptions,
    /// Whether it was a sensor before its options last changed: the pairs that end at the next
    /// step end as they began, so an exit is still a sensor's exit.
    pub was_sensor: bool,
    /// The uniform scale the world's shape was built with (the component's shape times this).
    pub scale: f32,
    /// Still the entity's collider. A removed collider's entry stays until its slot is reused,
    /// so that the end messages its removal raises at the next step still name the entity.
    pub live: bool,
}

/// The collision world of a [`SapwoodPlugin`](crate::SapwoodPlugin) app, kept in step with the
/// entities' [`Collider`](crate::Collider)s. Read contacts and the last step's results here; run
/// queries through [`SpatialQuery`](crate::SpatialQuery).
///
/// Every record of the world names colliders by [`ColliderId`]; the methods here name them by
/// entity. Colliders inserted through [`SapwoodWorld::world_mut`] belong to no entity and are
/// left out of every entity-named answer.
#[derive(Resource)]
pub struct SapwoodWorld {
    pub(crate) world: World,
    /// Collider slot → tracked collider, indexed by [`ColliderId::index`].
    pub(crate) by_slot: Vec<Option<Tracked>>,
    /// Entity → its live collider.
    pub(crate) by_entity: EntityHashMap<ColliderId>,
    /// Entities whose collider components were added or removed since the last sync, in the
    /// order the hooks saw them (may repeat; the sync deduplicates).
    pub(crate) queued: Vec<Entity>,
    pub(crate) scratch: SyncScratch,
}

impl SapwoodWorld {
    /// An empty world with `config`.
    ///
    /// # Errors
    /// [`WorldError::InvalidConfig`] as [`World::with_config`].
    pub fn new(config: WorldConfig) -> Result<Self, WorldError> {
        Ok(Self {
            world: World::with_config(config)?,
            by_slot: Vec::new(),
            by_entity: EntityHashMap::default(),
            queued: Vec::new(),
            scratch: SyncScratch::default(),
        })
    }

    pub(crate) fn queue(&mut self, entity: Entity) {
        self.queued.push(entity);
    }

    /// The collision world, for everything not offered here (its config, timings, state hash,
    /// queries by collider id, debug drawing).
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The collision world, to change what the plugin does not manage: pair hooks
    /// ([`World::set_pair_hooks`]), solver impulses, colliders of your own. The plugin owns the
    /// colliders of entities: changing those here is undone or contradicted at the next sync
    /// (change the components instead), and removing one leaves its entity without a collider
    /// until its `Collider` is inserted again.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The collider of `entity`, if it has one in the world.
    #[must_use]
    pub fn collider(&self, entity: Entity) -> Option<ColliderId> {
        self.by_entity.get(&entity).copied()
    }

    /// The entity of collider `id`, also just after the collider was removed (so that the
    /// messages its removal raised still name it), until its slot is reused.
    #[must_use]
    pub fn entity(&self, id: ColliderId) -> Option<Entity> {
        let t = self.tracked(id)?;
        Some(t.entity)
    }

    pub(crate) fn tracked(&self, id: ColliderId) -> Option<&Tracked> {
        self.by_slot.get(id.index() as usize)?.as_ref().filter(|t| t.id == id)
    }

    /// Every touching non-sensor pair as of the last step: `(a, b, manifold)`, normal from `a`
    /// to `b`, in [`World::contacts`] order.
    pub fn contacts(&self) -> impl Iterator<Item = (Entity, Entity, &Manifold)> + '_ {
        self.world.contacts().iter().filter_map(|c| Some((self.entity(c.a)?, self.entity(c.b)?, &c.manifold)))
    }

    /// Calls `f` with every contact of `entity` as of the last step: the other entity, the
    /// normal from `entity` towards it, and the manifold (whose own normal points from the
    /// pair's lower id to the higher; `normal` already says which way that is for `entity`).
    /// Does nothing for an entity without a collider.
    pub fn contacts_of(&self, entity: Entity, mut f: impl FnMut(Entity, Vec2, &Contact)) {
        let Some(id) = self.collider(entity) else { return };
        let _ = self.world.contacts_of(id, |c| {
            let (other, normal) = if c.a == id { (c.b, c.manifold.normal) } else { (c.a, -c.manifold.normal) };
            if let Some(other) = self.entity(other) {
                f(other, normal, c);
            }
        });
    }

    /// Whether `a` and `b` touch as of the last step (sensors never touch: see their messages).
    #[must_use]
    pub fn touching(&self, a: Entity, b: Entity) -> bool {
        let mut found = false;
        self.contacts_of(a, |other, _, _| found |= other == b);
        found
    }

    /// The last step's events by entity: `(a, b, event)`, in [`World::events`] order.
    pub fn events(&self) -> impl Iterator<Item = (Entity, Entity, &Event)> + '_ {
        self.world.events().iter().filter_map(|e| Some((self.entity(e.a)?, self.entity(e.b)?, e)))
    }

    /// The last step's bullet impacts: `(bullet, other, impact)`, in [`World::impacts`] order.
    pub fn impacts(&self) -> impl Iterator<Item = (Entity, Entity, &Impact)> + '_ {
        self.world.impacts().iter().filter_map(|i| Some((self.entity(i.bullet)?, self.entity(i.other)?, i)))
    }
}
