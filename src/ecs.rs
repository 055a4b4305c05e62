//! [hecs](https://docs.rs/hecs) integration (feature `hecs`, on by default).
//!
//! An entity with a [`Pose`] and a [`Shape`] component gets a collider; [`HecsSync::sync`]
//! brings the collision world up to date with the ECS before each step:
//!
//! | the entity …                                   | the sync …                                      |
//! |------------------------------------------------|-------------------------------------------------|
//! | has `Pose` + `Shape` and no collider yet       | inserts one, adds [`ColliderHandle`]            |
//! | changed `Pose` or `Shape`                      | `set_pose` / `set_shape` (only what changed)    |
//! | changed or added/removed [`ColliderOptions`]   | the world's setters, same id (`set_static`, …)  |
//! | lost `Pose` or `Shape`, or was despawned       | removes the collider (and the handle component) |
//!
//! [`ColliderOptions`] is optional: an entity without it gets [`ColliderOptions::default`]. A
//! changed one changes the live collider, which keeps its id.
//!
//! Changes are found by comparing each component with the world's copy, so no change tracking
//! is needed from the game, and a steady-state sync allocates nothing. Contacts, events and
//! impacts map back to entities with [`HecsSync::contacts`], [`HecsSync::events`] and
//! [`HecsSync::impacts`]. [`HecsSync::set_options`] and the setters beside it change an
//! entity's options component and its collider in one call, between syncs.
//!
//! ```
//! use sapwood::ecs::{ColliderHandle, HecsSync};
//! use sapwood::{ColliderOptions, EventKind, Pose, Shape, Vec2, World};
//!
//! let mut ecs = hecs::World::new();
//! let mut world = World::new();
//! let mut sync = HecsSync::new();
//! let ground = ecs.spawn((Pose::IDENTITY, Shape::cuboid(Vec2::new(10.0, 0.5))?, ColliderOptions::fixed()));
//! let ball = ecs.spawn((Pose::from_translation(Vec2::new(0.0, 0.9)), Shape::circle(0.5)?));
//! sync.sync(&mut ecs, &mut world)?;
//! world.step();
//! let events: Vec<_> = sync.events(&world).collect();
//! assert_eq!(events, [(ground, ball, EventKind::ContactBegan)]);
//! assert!(ecs.get::<&ColliderHandle>(ball).is_ok());
//!
//! ecs.despawn(ball)?;
//! sync.sync(&mut ecs, &mut world)?;
//! world.step();
//! assert_eq!(sync.events(&world).collect::<Vec<_>>(), [(ground, ball, EventKind::ContactEnded)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use hecs::Entity;

use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::Shape;
use crate::storage::ColliderId;
use crate::world::{ColliderDesc, ColliderOptions, EventKind, Impact, World, WorldError};

/// The collider of an entity, added and maintained by [`HecsSync::sync`]. Read it; do not insert
/// it yourself (a handle the sync did not issue for this entity is replaced).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderHandle(pub ColliderId);

/// What the sync knows about one collider slot.
#[derive(Clone, Copy, Debug)]
struct Tracked {
    id: ColliderId,
    entity: Entity,
    options: ColliderOptions,
    /// Still the entity's collider. A removed collider's entry stays (until the slot is reused)
    /// so that the end events its removal raises still map to the entity.
    live: bool,
}

/// Keeps a [`World`] in step with the colliders described by a [`hecs::World`]. Use one
/// `HecsSync` per pair of worlds; colliders inserted into the world directly are left alone
/// (and do not map to entities).
#[derive(Default)]
pub struct HecsSync {
    /// Collider slot → entity, indexed by [`ColliderId::index`].
    by_slot: Vec<Option<Tracked>>,
    // Deferred structural changes: hecs cannot add or remove components while a query runs.
    /// Entities that need a (new) handle component.
    add_handle: Vec<(Entity, ColliderId)>,
    /// Entities whose handle component must go (their collider was removed).
    drop_handle: Vec<Entity>,
}

/// The entity stored in a collider's user data by [`HecsSync::sync`]. Only meaningful for
/// colliders the sync inserted (others' user data is whatever their owner put there) and only
/// while the collider is live; [`HecsSync::entity`] also answers for just-removed colliders.
#[must_use]
pub fn entity(world: &World, id: ColliderId) -> Option<Entity> {
    world.user_data(id).ok().and_then(Entity::from_bits)
}

impl HecsSync {
    /// A sync with no collider known yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Brings `world` up to date with `ecs` (see the [module docs](self) for the rules).
    /// Call it before each [`World::step`].
    ///
    /// # Errors
    /// The first [`WorldError`] met: an entity with an invalid `Pose` (NaN, non-unit rotation,
    /// beyond [`MAX_COORDINATE`](crate::MAX_COORDINATE)) or `Shape` keeps its previous collider
    /// state, or gets no collider when it is new. Every other entity is still synced.
    pub fn sync(&mut self, ecs: &mut hecs::World, world: &mut World) -> Result<(), WorldError> {
        let mut first_err = None;
        self.add_handle.clear();
        self.drop_handle.clear();

        // (1) Colliders whose entity is gone, lost a component, or whose handle was removed or
        // replaced by the user.
        for t in self.by_slot.iter_mut().flatten().filter(|t| t.live) {
            let handle = ecs.get::<&ColliderHandle>(t.entity).ok().map(|h| h.0);
            let keep = handle == Some(t.id) && ecs.satisfies::<(&Pose, &Shape)>(t.entity) && world.contains(t.id);
            if !keep {
                t.live = false;
                // Fails only when the user removed the collider directly: nothing left to do.
                let _ = world.remove(t.id);
                if handle == Some(t.id) {
                    self.drop_handle.push(t.entity);
                }
            }
        }

        // (2) New and changed entities.
        for (entity, pose, shape, options, handle) in
            ecs.query_mut::<(Entity, &Pose, &Shape, Option<&ColliderOptions>, Option<&ColliderHandle>)>()
        {
            let options = options.copied().unwrap_or_default();
            let owned = handle.and_then(|h| {
                let t = self.by_slot.get(h.0.index() as usize).copied().flatten()?;
                (t.live && t.id == h.0 && t.entity == entity).then_some(t)
            });
            if let Some(t) = owned {
                if t.options != options {
                    // The setters refuse only stale ids, and `owned` is live.
                    let result = world.set_options(t.id, options);
                    first_err = first_err.or(result.err());
                    if let Some(Some(t)) = self.by_slot.get_mut(t.id.index() as usize) {
                        t.options = options;
                    }
                }
                let result = Self::update(world, t.id, pose, shape);
                first_err = first_err.or(result.err());
                continue;
            }
            let desc = ColliderDesc {
                user_data: entity.to_bits().get(),
                ..ColliderDesc::new(shape.clone(), *pose).with_options(options)
            };
            match world.insert(desc) {
                Ok(id) => {
                    let i = id.index() as usize;
                    if i >= self.by_slot.len() {
                        self.by_slot.resize(i + 1, None);
                    }
                    self.by_slot[i] = Some(Tracked { id, entity, options, live: true });
                    self.add_handle.push((entity, id));
                }
                Err(e) => {
                    first_err = first_err.or(Some(e));
                    // A stale handle left on an entity that now has no collider would look valid.
                    if handle.is_some() {
                        self.drop_handle.push(entity);
                    }
                }
            }
        }

        // (3) Structural changes, after the query; drops first, since an entity whose collider
        // was replaced is in both lists. The entities were just seen alive.
        for &entity in &self.drop_handle {
            let _ = ecs.remove_one::<ColliderHandle>(entity);
        }
        for &(entity, id) in &self.add_handle {
            let _ = ecs.insert_one(entity, ColliderHandle(id));
        }
        first_err.map_or(Ok(()), Err)
    }

    /// Pushes a changed pose or shape to the world; unchanged ones cost two comparisons.
    fn update(world: &mut World, id: ColliderId, pose: &Pose, shape: &Shape) -> Result<(), WorldError> {
        if world.pose(id)? != *pose {
            world.set_pose(id, *pose)?;
        }
        if world.shape(id)? != shape {
            world.set_shape(id, shape.clone())?;
        }
        Ok(())
    }

    /// The entity of a collider this sync inserted, also just after the collider was removed
    /// (so that the events its removal raised map back), until its slot is reused.
    #[must_use]
    pub fn entity(&self, id: ColliderId) -> Option<Entity> {
        let t = self.by_slot.get(id.index() as usize).copied().flatten()?;
        (t.id == id).then_some(t.entity)
    }

    /// The world's contacts as `(entity a, entity b, manifold)`, in [`World::contacts`] order,
    /// normal from `a` to `b`. Contacts with a collider the sync does not know are skipped.
    pub fn contacts<'a>(&'a self, world: &'a World) -> impl Iterator<Item = (Entity, Entity, &'a Manifold)> + 'a {
        world.contacts().iter().filter_map(move |c| Some((self.entity(c.a)?, self.entity(c.b)?, &c.manifold)))
    }

    /// The world's events as `(entity a, entity b, kind)`, in [`World::events`] order. Events
    /// with a collider the sync does not know are skipped.
    pub fn events<'a>(&'a self, world: &'a World) -> impl Iterator<Item = (Entity, Entity, EventKind)> + 'a {
        world.events().iter().filter_map(move |e| Some((self.entity(e.a)?, self.entity(e.b)?, e.kind)))
    }

    /// The world's impacts as `(bullet entity, entity hit, impact)`, in [`World::impacts`]
    /// order. Impacts with a collider the sync does not know are skipped.
    pub fn impacts<'a>(&'a self, world: &'a World) -> impl Iterator<Item = (Entity, Entity, &'a Impact)> + 'a {
        world.impacts().iter().filter_map(move |i| Some((self.entity(i.bullet)?, self.entity(i.other)?, i)))
    }

    /// Changes an entity's [`ColliderOptions`] with `edit`, in the component (added when
    /// absent) and on its live collider through the world's setters ([`World::set_enabled`],
    /// [`World::set_sensor`], [`World::set_filter`], …) at once, so that queries see it before
    /// the next sync and the sync finds nothing left to do: for example
    /// `sync.set_options(&mut ecs, &mut world, door, |o| o.sensor = true)`.
    ///
    /// # Errors
    /// [`WorldError::StaleId`] when the entity has no live collider from this sync (it is new
    /// since the last sync, lost its `Pose` or `Shape`, or was despawned); nothing changes then.
    pub fn set_options(
        &mut self,
        ecs: &mut hecs::World,
        world: &mut World,
        entity: Entity,
        edit: impl FnOnce(&mut ColliderOptions),
    ) -> Result<(), WorldError> {
        let id = ecs.get::<&ColliderHandle>(entity).map_err(|_| WorldError::StaleId)?.0;
        let tracked = self
            .by_slot
            .get_mut(id.index() as usize)
            .and_then(Option::as_mut)
            .filter(|t| t.live && t.id == id && t.entity == entity && world.contains(id))
            .ok_or(WorldError::StaleId)?;
        let old = ecs.get::<&ColliderOptions>(entity).map(|o| *o).unwrap_or_default();
        let mut new = old;
        edit(&mut new);
        world.set_options(id, new)?;
        tracked.options = new;
        if let Ok(mut o) = ecs.get::<&mut ColliderOptions>(entity) {
            *o = new;
        } else {
            ecs.insert_one(entity, new).map_err(|_| WorldError::StaleId)?;
        }
        Ok(())
    }
}
