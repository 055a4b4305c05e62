//! The collision world: colliders in struct-of-arrays columns, stepped in place.
//!
//! `World` itself (this file) holds the colliders and the structures, and offers construction,
//! mutation and reading. The step lives in `step` (one file per phase), the pair bookkeeping in
//! `pairs`, the user's pair filter and contact hook in `hooks`, the step's scratch buffers in
//! `scratch`, the public value types in `types`, the origin shift in `origin`, the state hash in
//! `state_hash`.
//!
//! Three kinds of index link the world's records, each its own type (`crate::index`): a
//! collider's **slot** ([`ColliderSlot`], its row in the columns and its broad-phase id), a pair's
//! **entry** (`PairIndex`, into `pairs`) and a **contact** (`ContactIndex`, into `contacts`).
//!
//! # The step
//! Only pairs in which a collider moved or changed are re-evaluated: a pair of two unmoved
//! colliders keeps its manifold, so a still scene costs almost nothing. A moved collider's tight
//! box is recomputed; only when it leaves the collider's fat box does the broad phase hear of it.
//!
//! # Pair bookkeeping
//! Every candidate pair (fat boxes overlap, filters allow it) owns a pair entry (`PairEntry`),
//! whether the pair hooks' filter refused it or not, found by its ordered slot pair in a
//! [`PairTable`] and linked into both colliders' doubly linked pair lists (Box2D's contact edges),
//! so that removing or moving a collider reaches its pairs directly.
//! Touching pairs additionally own a contact in the dense, `Pod` contacts array that
//! [`World::contacts`] exposes.

mod debug;
mod hooks;
mod mover_tree;
mod origin;
mod pairs;
mod query;
mod rebuild;
mod scratch;
mod state_hash;
mod step;
mod types;
mod validate;
mod weld;

pub use hooks::{ColliderView, PairHooks};
pub use query::{
    CharacterConfig, CharacterHit, CharacterMove, QueryFilter, WorldCastHit, WorldClosestPoints, WorldPointProjection,
    WorldRayHit,
};
pub use types::{
    ColliderDesc, ColliderOptions, Contact, Event, EventKind, Impact, MAX_COORDINATE, StepCounts, StepTimings,
    WorldConfig, WorldError,
};

use std::sync::Arc;

use crate::broad::{BroadPhaseKind, DynamicTree, Movers, PairTable};
use crate::collide::Manifold;
use crate::collide::reuse::Witness;
use crate::index::NULL_INDEX;
use crate::math::{Aabb, Pose};
use crate::shape::Shape;
use crate::storage::{ColliderId, ColliderSlot, Columns, Filter, flags};
use pairs::PairEntry;
pub(crate) use pairs::PairIndex;
use scratch::Scratch;

// The snapshot codec reads and rebuilds private state (pair entries and their links), so it is a
// child of this module rather than a reason to widen every field's visibility.
pub mod snapshot;

/// The collision world: insert colliders, move them, `step`, read contacts and events, query.
///
/// `step` updates tight AABBs of moved colliders in parallel, moves escaped fat boxes through the
/// broad phase in place, recomputes manifolds in parallel only for pairs in which a collider moved
/// or changed, and reports the events in ascending id order.
///
/// ```
/// use sapwood::{ColliderDesc, EventKind, Pose, Shape, Vec2, World};
///
/// let mut world = World::new();
/// let ground = world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 0.5))?, Pose::IDENTITY).fixed())?;
/// let ball = world.insert(ColliderDesc::new(Shape::circle(0.5)?, Pose::from_translation(Vec2::new(0.0, 0.9))))?;
/// world.step();
/// assert_eq!(world.contacts().len(), 1);
/// assert_eq!(world.events()[0].kind, EventKind::ContactBegan);
///
/// world.set_pose(ball, Pose::from_translation(Vec2::new(0.0, 5.0)))?;
/// world.step();
/// assert!(world.contacts().is_empty());
/// assert_eq!((world.events()[0].a, world.events()[0].kind), (ground, EventKind::ContactEnded));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Results and their normals
/// Every record names colliders by the [`ColliderId`] that [`World::insert`] returned. A field
/// called `normal` points from A to B; one that is a surface's outward normal is called
/// `surface_normal` (see [`query`](crate::query#results-and-their-normals) for the naming):
///
/// | result (field) | from | the normal points |
/// |---|---|---|
/// | [`collide::Manifold`](crate::collide::Manifold) (`normal`) | [`collide::contact`](crate::collide::contact), [`Contact`](crate::Contact) | from A to B (`Contact::a` to `Contact::b`) |
/// | [`query::ClosestPoints`](crate::query::ClosestPoints) (`normal`) | [`query::distance`](crate::query::distance) | from A to B |
/// | [`query::CastHit`](crate::query::CastHit) (`normal`) | [`query::cast_shapes`](crate::query::cast_shapes) | from A to B |
/// | [`query::Toi`](crate::query::Toi) (`normal`) | [`query::time_of_impact`](crate::query::time_of_impact) | from A to B |
/// | [`Impact`](crate::Impact) (`normal`) | [`World::impacts`](crate::World::impacts) | from the bullet to `other` |
/// | [`WorldClosestPoints`](crate::WorldClosestPoints) (`normal`) | [`World::distance_to_nearest`](crate::World::distance_to_nearest) | from the probe to the collider |
/// | [`query::RayHit`](crate::query::RayHit), [`WorldRayHit`](crate::WorldRayHit) (`surface_normal`) | ray casts | out of the surface hit, back towards the ray's origin |
/// | [`WorldCastHit`](crate::WorldCastHit) (`surface_normal`) | [`World::cast_shape`](crate::World::cast_shape) | out of the collider hit, back towards the cast shape |
/// | [`query::PointProjection`](crate::query::PointProjection), [`WorldPointProjection`](crate::WorldPointProjection) (`surface_normal`) | [`query::project_point`](crate::query::project_point), [`World::project_point`] | out of the surface at the projected point (for a chain or a bare segment, towards the queried point) |
/// | [`CharacterHit`](crate::CharacterHit) (`surface_normal`) | [`World::move_character`](crate::World::move_character) | out of the surface, towards the character |
///
/// Bad input is a typed error and leaves the world as it was: [`WorldError`] from the
/// mutating calls, [`QueryError`](crate::query::QueryError) from the queries.
///
/// # Copies
/// `clone` gives an independent world in the same state: changed and stepped the same way, it
/// gives the same contacts, events and [`World::state_hash`] as the original. The
/// [pair hooks](World::set_pair_hooks) are shared with the copy, not copied (the world holds
/// them in an `Arc`), as is the immutable data of compound and chain shapes. `{:?}` prints a
/// summary (counts and the config), not the colliders.
///
/// With the `serde` feature a world serializes as its [snapshot](crate::snapshot), a byte
/// string, and deserializes through [`World::from_bytes`] and all its checks: a serde round
/// trip is a snapshot round trip, and, as there, the pair hooks are not carried.
#[derive(Clone)]
pub struct World {
    config: WorldConfig,
    cols: Columns,
    /// Broad phase for moving colliders that are not very large.
    movers: Movers,
    /// The same movers by fat box, for scene queries and for tree residents' pair searches.
    mover_tree: mover_tree::MoverTree,
    /// Static and very large colliders.
    tree: DynamicTree,

    pairs: Vec<PairEntry>,
    free_pairs: Vec<PairIndex>,
    pair_table: PairTable<PairIndex>,
    contacts: Vec<Contact>,
    /// `contact_pair[i]` is the pair entry that owns `contacts[i]`.
    contact_pair: Vec<PairIndex>,
    /// `contact_witness[i]`: the decisions of `contacts[i]`'s last full kernel run, for
    /// [`WorldConfig::reuse_manifolds`]. Derived state (a cleared one costs a full kernel).
    contact_witness: Vec<Witness>,
    /// Events of the last step (cleared when the next one starts).
    events: Vec<Event>,
    /// Events raised by removals since the last step, reported with the next step's.
    pending_events: Vec<Event>,
    /// Each moved bullet's earliest impact in the last step, in bullet slot order.
    impacts: Vec<Impact>,
    timings: StepTimings,
    counts: StepCounts,
    /// Slots removed since the last step, made reusable once the broad phase has seen the
    /// removal (see `Columns::release`).
    released: Vec<ColliderSlot>,

    /// Colliders whose pose or shape changed since the last step, in the order they were told
    /// (may hold duplicates and dead slots after removals; the MOVED flag decides). State, not
    /// scratch: it decides what the next step does, and the step empties it.
    moved: Vec<ColliderSlot>,
    /// The step's buffers, reused so that a steady-state step allocates nothing.
    scratch: Scratch,
    /// The user's pair filter and contact hook (see `hooks`). Code, not state: never stored.
    hooks: Option<Arc<dyn PairHooks>>,
    /// Some touching pair was refused since the last step: the next narrow phase checks the
    /// contacts it updates in place for it. Derived (a snapshot restore sets it when a refused
    /// pair touches); a refusal only makes the check necessary, never wrong.
    refusals_pending: bool,
    /// Welded static edges (see `weld`); derived from the statics, recomputed on restore.
    welds: weld::Welds,
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

impl World {
    /// An empty world with [`WorldConfig::default`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_config(WorldConfig::default()).unwrap_or_else(|_| unreachable!("the default config is valid"))
    }

    /// An empty world.
    ///
    /// # Errors
    /// [`WorldError::InvalidConfig`] for a negative or non-finite margin, motion factor or large
    /// extent, an `aabb_margin` above [`MAX_COORDINATE`], an `aabb_margin_ratio` or
    /// `aabb_motion_factor` above 1000, or a grid / quadtree broad phase with invalid bounds or
    /// cell size.
    pub fn with_config(config: WorldConfig) -> Result<Self, WorldError> {
        let ok = |x: f32| x.is_finite() && x >= 0.0;
        let bp_ok = match config.broad_phase {
            BroadPhaseKind::UniformGrid { bounds, cell_size } => bounds.is_valid() && cell_size > 0.0 && ok(cell_size),
            BroadPhaseKind::SpatialHash { cell_size } => cell_size > 0.0 && ok(cell_size),
            BroadPhaseKind::Quadtree { bounds } => bounds.is_valid(),
            _ => true,
        };
        // Bounded so that every fat box stays finite (found by the `world_ops` fuzz target: a
        // margin of f32::MAX gave infinite fat boxes, which the broad phases refuse).
        if !ok(config.aabb_margin)
            || !ok(config.aabb_margin_ratio)
            || config.aabb_margin > MAX_COORDINATE
            || config.aabb_margin_ratio > 1.0e3
            || !ok(config.aabb_motion_factor)
            || config.aabb_motion_factor > 1.0e3
            || config.large_extent.is_nan()
            || config.large_extent <= 0.0
            || !bp_ok
        {
            return Err(WorldError::InvalidConfig);
        }
        Ok(Self {
            config,
            cols: Columns::default(),
            movers: Movers::new(config.broad_phase),
            mover_tree: mover_tree::MoverTree::default(),
            tree: DynamicTree::new(0.0),
            pairs: Vec::new(),
            free_pairs: Vec::new(),
            pair_table: PairTable::new(),
            contacts: Vec::new(),
            contact_pair: Vec::new(),
            contact_witness: Vec::new(),
            events: Vec::new(),
            pending_events: Vec::new(),
            impacts: Vec::new(),
            timings: StepTimings::default(),
            counts: StepCounts::default(),
            released: Vec::new(),
            moved: Vec::new(),
            scratch: Scratch::default(),
            hooks: None,
            refusals_pending: false,
            welds: weld::Welds::default(),
        })
    }

    /// The config the world was built with.
    #[must_use]
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Number of live colliders.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cols.alive_count as usize
    }

    /// Whether the world holds no collider.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `id` names a live collider.
    #[must_use]
    pub fn contains(&self, id: ColliderId) -> bool {
        self.cols.slot(id).is_some()
    }

    // ---------------------------------------------------------------------------------------
    // Mutation
    // ---------------------------------------------------------------------------------------

    /// The pose as the world keeps it ([`Pose::valid_unit`]), if it is one the world accepts.
    #[inline]
    fn check_pose(pose: &Pose) -> Result<Pose, WorldError> {
        let pose = pose.valid_unit().ok_or(WorldError::InvalidPose)?;
        if pose.p.abs().max_element() > MAX_COORDINATE {
            return Err(WorldError::OutOfRange);
        }
        Ok(pose)
    }

    fn check_desc(desc: &ColliderDesc) -> Result<(), WorldError> {
        Self::check_pose(&desc.pose)?;
        desc.shape.validate()?;
        Ok(())
    }

    /// Adds a collider. Queries find it at once; it takes part in pairs and contacts from the
    /// next [`World::step`].
    ///
    /// # Errors
    /// [`WorldError::InvalidPose`], [`WorldError::OutOfRange`] or [`WorldError::InvalidShape`]
    /// for bad input, [`WorldError::Full`] when no slot is left.
    pub fn insert(&mut self, desc: ColliderDesc) -> Result<ColliderId, WorldError> {
        Self::check_desc(&desc)?;
        self.insert_checked(desc).inspect(|_| self.validate_if_enabled("insert"))
    }

    /// `insert` of a description that passed `check_desc`.
    fn insert_checked(&mut self, mut desc: ColliderDesc) -> Result<ColliderId, WorldError> {
        desc.pose = desc.pose.valid_unit().unwrap_or(desc.pose);
        let slot = self.cols.allocate().ok_or(WorldError::Full)?;
        let s = slot.index();
        self.cols.pose[s] = desc.pose;
        self.cols.shape[s] = desc.shape;
        self.cols.filter[s] = desc.filter;
        self.cols.user_data[s] = desc.user_data;
        self.cols.pair_head[s] = PairIndex::NULL;
        // Not yet in any structure: an empty fat box marks it as new for the next step.
        self.cols.aabb[s] = Aabb::EMPTY;
        self.cols.fat[s] = Aabb::EMPTY;
        let mut f = flags::MOVED;
        if desc.is_static {
            f |= flags::STATIC;
        }
        if desc.sensor {
            f |= flags::SENSOR;
        }
        if !desc.enabled {
            f |= flags::DISABLED;
        }
        if !desc.contact_events {
            f |= flags::NO_CONTACT_EVENTS;
        }
        if !desc.sensor_events {
            f |= flags::NO_SENSOR_EVENTS;
        }
        if desc.bullet {
            f |= flags::BULLET;
            self.cols.bullet_count += 1;
            self.cols.sweep_start[s] = desc.pose;
        } else {
            self.cols.sweep_start[s] = Pose::IDENTITY;
        }
        self.cols.flags[s] = f;
        self.moved.push(slot);
        self.welds.release(s);
        self.weld_touch(s);
        self.mover_tree.change(slot);
        Ok(self.cols.id(slot))
    }

    /// Adds many colliders; all or none. `out` receives their ids in the order of `descs`.
    /// New movers reach the SAP as one batch at the next step (sorted and merged in one pass),
    /// however they were inserted.
    ///
    /// The batch takes its slots in Z-order (Morton order) of the colliders' positions, so that
    /// colliders near in space are near in memory: the step's per-pair loads (poses, shapes,
    /// boxes, pair lists) then mostly hit lines a neighbour already brought in, where colliders
    /// inserted in random order would make each of them a cache miss. A batch already in such
    /// an order keeps it, and is inserted as fast as a loop of [`World::insert`]: one whose
    /// consecutive descriptions lie on average within four typical spacings of each other (the
    /// spacing of the batch spread evenly over its bounds), as a level given tile by tile, row by
    /// row or block by block does. Ids stay opaque: nothing but `out` says which id belongs to
    /// which description.
    ///
    /// # Errors
    /// The first invalid description's error, with nothing inserted.
    pub fn insert_batch(&mut self, descs: &[ColliderDesc], out: &mut Vec<ColliderId>) -> Result<(), WorldError> {
        descs.iter().try_for_each(Self::check_desc)?;
        if (self.cols.alive_count as usize).saturating_add(descs.len()) >= NULL_INDEX as usize {
            return Err(WorldError::Full);
        }
        let first = out.len();
        out.resize(first + descs.len(), ColliderId::default());
        let order = morton_order(descs);
        for k in 0..descs.len() {
            let i = order.as_ref().map_or(k, |order| order[k]);
            out[first + i] = self.insert_checked(descs[i].clone())?;
        }
        self.validate_if_enabled("insert_batch");
        Ok(())
    }

    /// Removes a collider. Its touching pairs end with [`EventKind::ContactEnded`] or
    /// [`EventKind::SensorExited`], reported with the next step's events. Every other id stays
    /// valid.
    ///
    /// # Errors
    /// [`WorldError::StaleId`] when `id` is not live.
    pub fn remove(&mut self, id: ColliderId) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        let slot = id.slot();
        self.weld_touch(s);
        self.welds.release(s);
        // A collider inserted since the last step is in no structure yet.
        if self.cols.is_placed(s) {
            if self.cols.flags[s] & flags::IN_TREE != 0 {
                self.tree.remove(slot.get());
            } else {
                self.movers.remove(slot.get());
                self.mover_tree.touch(slot);
            }
        }
        self.mover_tree.forget(slot);
        while !self.cols.pair_head[s].is_null() {
            let p = self.cols.pair_head[s];
            self.destroy_pair(p, true);
        }
        self.cols.release(slot);
        self.released.push(slot);
        self.validate_if_enabled("remove");
        Ok(())
    }

    /// Moves a collider. Queries find it at its new pose at once; its pairs are re-evaluated at
    /// the next step. Setting the pose it already has, bit for bit, is not a move (a solver
    /// hands every body's pose back each step, and a body at rest often keeps its bits): its
    /// pairs keep their manifolds, which the kernels would recompute unchanged.
    ///
    /// # Errors
    /// [`WorldError::StaleId`], [`WorldError::InvalidPose`] or [`WorldError::OutOfRange`]; the
    /// world is unchanged then.
    pub fn set_pose(&mut self, id: ColliderId, pose: Pose) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        let pose = Self::check_pose(&pose)?;
        if bytemuck::bytes_of(&self.cols.pose[s]) == bytemuck::bytes_of(&pose) {
            return Ok(());
        }
        self.weld_touch(s);
        self.cols.pose[s] = pose;
        self.mark_moved(s);
        self.validate_if_enabled("set_pose");
        Ok(())
    }

    /// Moves a collider without sweeping the move: for a bullet ([`ColliderDesc::bullet`]), the
    /// next step's sweep starts at `pose` rather than at the pose of the last step, so the jump
    /// reports no impact. This is how a solver places a bullet at its time of impact
    /// ([`Impact::pose`]) after a step, or respawns one. For other colliders it is
    /// [`World::set_pose`].
    ///
    /// # Errors
    /// As [`World::set_pose`]; the world is unchanged then.
    pub fn teleport(&mut self, id: ColliderId, pose: Pose) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        let pose = Self::check_pose(&pose)?;
        self.weld_touch(s);
        self.cols.pose[s] = pose;
        if self.cols.flags[s] & flags::BULLET != 0 {
            self.cols.sweep_start[s] = pose;
        }
        self.mark_moved(s);
        self.validate_if_enabled("teleport");
        Ok(())
    }

    /// Replaces a collider's shape. The pair filter (see [`PairHooks`]) is asked again about
    /// its pairs, and they are re-evaluated at the next step.
    ///
    /// # Errors
    /// [`WorldError::StaleId`] or [`WorldError::InvalidShape`]; the world is unchanged then.
    pub fn set_shape(&mut self, id: ColliderId, shape: Shape) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        shape.validate()?;
        self.weld_touch(s);
        // The records' length is the old shape's edge count.
        self.welds.release(s);
        self.cols.shape[s] = shape;
        self.forget_witnesses(s);
        self.refilter_collider(s);
        self.validate_if_enabled("set_shape");
        Ok(())
    }

    /// Replaces a collider's user data. The pair filter is not asked again: call
    /// [`World::refilter`] when its answers depend on the user data.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_user_data(&mut self, id: ColliderId, user_data: u64) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        self.cols.user_data[s] = user_data;
        self.validate_if_enabled("set_user_data");
        Ok(())
    }

    /// Replaces a collider's [`Filter`]. Takes effect at the next step: pairs the new filter
    /// excludes end then (touching ones with [`EventKind::ContactEnded`] or
    /// [`EventKind::SensorExited`]), pairs it allows begin, and the pair filter (see
    /// [`PairHooks`]) is asked again about the pairs that stay. Queries use the new category at
    /// once. A filter equal to the current one changes nothing.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_filter(&mut self, id: ColliderId, filter: Filter) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        if self.cols.filter[s] != filter {
            self.cols.filter[s] = filter;
            self.refresh_pairs(s);
        }
        self.validate_if_enabled("set_filter");
        Ok(())
    }

    /// Makes a collider a sensor or not (see [`ColliderDesc::sensor`](ColliderDesc#structfield.sensor)).
    /// At the next step each of its touching pairs ends with the event of its old kind and
    /// begins again, if its shapes still touch, with one of the new kind: a collider that
    /// becomes a sensor leaves [`World::contacts`] with `ContactEnded` and `SensorEntered`.
    /// Setting the current value changes nothing.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_sensor(&mut self, id: ColliderId, sensor: bool) -> Result<(), WorldError> {
        self.set_pair_flag(id, flags::SENSOR, sensor)
    }

    /// Switches a collider between static and moving, like Box2D's `b2Body_SetType`. The next
    /// step moves it between the static tree and the movers' broad phase, ends its pairs with
    /// statics when it becomes static (no two statics pair) and begins them when it starts
    /// moving; its other pairs carry on, touching ones without an event. Welded edges (see
    /// [`WorldConfig::weld_static_edges`]) follow. Setting the current value changes nothing.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_static(&mut self, id: ColliderId, is_static: bool) -> Result<(), WorldError> {
        self.set_pair_flag(id, flags::STATIC, is_static)
    }

    /// Switches a collider off or on. A disabled collider keeps its id, pose, shape, filter and
    /// user data, and every setter still works on it, but it is in no pair, contact, event or
    /// impact and no query finds it. Disabling ends its touching pairs at the next step, with
    /// their events; enabling begins, at the next step, the pairs its shape touches then.
    /// Setting the current value changes nothing.
    ///
    /// A disabled collider stays in the broad-phase structures, so switching it back costs no
    /// insertion; a pool of many colliders kept disabled for long is better removed.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_enabled(&mut self, id: ColliderId, enabled: bool) -> Result<(), WorldError> {
        self.set_pair_flag(id, flags::DISABLED, !enabled)
    }

    /// Makes a collider a bullet or not (see [`ColliderDesc::bullet`](ColliderDesc#structfield.bullet)).
    /// A new bullet's first sweep starts at its pose at this call. Its pairs, contacts and
    /// events are unchanged. Setting the current value changes nothing.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_bullet(&mut self, id: ColliderId, bullet: bool) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        if (self.cols.flags[s] & flags::BULLET != 0) == bullet {
            return Ok(());
        }
        self.cols.flags[s] ^= flags::BULLET;
        if bullet {
            self.cols.bullet_count += 1;
            self.cols.sweep_start[s] = self.cols.pose[s];
        } else {
            self.cols.bullet_count -= 1;
            self.cols.sweep_start[s] = Pose::IDENTITY;
        }
        self.validate_if_enabled("set_bullet");
        Ok(())
    }

    /// Switches a collider's contact events on or off (see
    /// [`ColliderDesc::contact_events`](ColliderDesc#structfield.contact_events)). Events are
    /// judged when raised: a pair touching when they are switched off ends without an event.
    /// [`World::contacts`] is unaffected.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_contact_events(&mut self, id: ColliderId, on: bool) -> Result<(), WorldError> {
        self.set_event_flag(id, flags::NO_CONTACT_EVENTS, !on)
    }

    /// Switches a collider's sensor events on or off (see
    /// [`ColliderDesc::sensor_events`](ColliderDesc#structfield.sensor_events)), judged when
    /// raised, as for [`World::set_contact_events`].
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_sensor_events(&mut self, id: ColliderId, on: bool) -> Result<(), WorldError> {
        self.set_event_flag(id, flags::NO_SENSOR_EVENTS, !on)
    }

    /// Applies every switch and the filter of `options` to a collider, as [`World::set_filter`],
    /// [`World::set_static`], [`World::set_sensor`], [`World::set_bullet`],
    /// [`World::set_enabled`], [`World::set_contact_events`] and [`World::set_sensor_events`]
    /// would one by one: what equals the current value changes nothing.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, ColliderOptions, Pose, Shape, World};
    ///
    /// let mut world = World::new();
    /// let door = world.insert(ColliderDesc::new(Shape::circle(0.5)?, Pose::IDENTITY))?;
    /// // The door opens: it stays where it is, and only reports what passes through.
    /// world.set_options(door, ColliderOptions { is_static: true, ..ColliderOptions::sensor() })?;
    /// assert!(world.is_static(door)? && world.is_sensor(door)?);
    /// assert_eq!(world.options(door)?, ColliderOptions { is_static: true, ..ColliderOptions::sensor() });
    /// # Ok::<(), sapwood::WorldError>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::StaleId`]; the world is unchanged then.
    pub fn set_options(&mut self, id: ColliderId, options: ColliderOptions) -> Result<(), WorldError> {
        self.cols.slot(id).ok_or(WorldError::StaleId)?;
        self.set_filter(id, options.filter)?;
        self.set_static(id, options.is_static)?;
        self.set_sensor(id, options.sensor)?;
        self.set_bullet(id, options.bullet)?;
        self.set_enabled(id, options.enabled)?;
        self.set_contact_events(id, options.contact_events)?;
        self.set_sensor_events(id, options.sensor_events)
    }

    /// Sets or clears an event switch of a live collider.
    fn set_event_flag(&mut self, id: ColliderId, bit: u16, set: bool) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        if set {
            self.cols.flags[s] |= bit;
        } else {
            self.cols.flags[s] &= !bit;
        }
        self.validate_if_enabled("set_contact_events or set_sensor_events");
        Ok(())
    }

    /// Sets or clears a flag that decides which pairs a collider may have (static, sensor,
    /// disabled), with its effect on the welds and the pairs.
    fn set_pair_flag(&mut self, id: ColliderId, bit: u16, set: bool) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        if (self.cols.flags[s] & bit != 0) == set {
            return Ok(());
        }
        // Its neighbours' welds change when it starts or stops being a weldable static, and
        // `weld_touch` lists them only while it is static: before and after the change.
        self.weld_touch(s);
        self.cols.flags[s] ^= bit;
        self.weld_touch(s);
        self.refresh_pairs(s);
        self.validate_if_enabled("set_sensor, set_static or set_enabled");
        Ok(())
    }

    /// Has the next step search every pair of live slot `s` again (see `flags::REFRESH`), and
    /// asks the pair filter again about those it has.
    fn refresh_pairs(&mut self, s: usize) {
        self.cols.flags[s] |= flags::REFRESH;
        self.refilter_collider(s);
    }

    /// Inlined: every `set_pose` of a moving collider passes here.
    #[inline(always)]
    fn mark_moved(&mut self, s: usize) {
        let slot = ColliderSlot::from_index(s);
        self.mover_tree.change(slot);
        if self.cols.flags[s] & flags::MOVED == 0 {
            self.cols.flags[s] |= flags::MOVED;
            self.moved.push(slot);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Reading
    // ---------------------------------------------------------------------------------------

    /// The collider's pose.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn pose(&self, id: ColliderId) -> Result<Pose, WorldError> {
        self.cols.slot(id).map(|s| self.cols.pose[s]).ok_or(WorldError::StaleId)
    }

    /// The collider's shape.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn shape(&self, id: ColliderId) -> Result<&Shape, WorldError> {
        self.cols.slot(id).map(|s| &self.cols.shape[s]).ok_or(WorldError::StaleId)
    }

    /// The collider's tight box at its current pose and shape.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn aabb(&self, id: ColliderId) -> Result<Aabb, WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        Ok(if self.cols.flags[s] & flags::MOVED != 0 {
            self.cols.shape[s].aabb(&self.cols.pose[s])
        } else {
            self.cols.aabb[s]
        })
    }

    /// The collider's user data.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn user_data(&self, id: ColliderId) -> Result<u64, WorldError> {
        self.cols.slot(id).map(|s| self.cols.user_data[s]).ok_or(WorldError::StaleId)
    }

    /// The collider's [`Filter`].
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn filter(&self, id: ColliderId) -> Result<Filter, WorldError> {
        self.cols.slot(id).map(|s| self.cols.filter[s]).ok_or(WorldError::StaleId)
    }

    /// Whether the collider is static (see [`World::set_static`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn is_static(&self, id: ColliderId) -> Result<bool, WorldError> {
        self.flag(id, flags::STATIC)
    }

    /// Whether the collider is a sensor (see [`World::set_sensor`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn is_sensor(&self, id: ColliderId) -> Result<bool, WorldError> {
        self.flag(id, flags::SENSOR)
    }

    /// Whether the collider is a bullet (see [`World::set_bullet`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn is_bullet(&self, id: ColliderId) -> Result<bool, WorldError> {
        self.flag(id, flags::BULLET)
    }

    /// Whether the collider is enabled (see [`World::set_enabled`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn is_enabled(&self, id: ColliderId) -> Result<bool, WorldError> {
        self.flag(id, flags::DISABLED).map(|disabled| !disabled)
    }

    /// Whether the collider's contact events are on (see [`World::set_contact_events`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn contact_events(&self, id: ColliderId) -> Result<bool, WorldError> {
        self.flag(id, flags::NO_CONTACT_EVENTS).map(|off| !off)
    }

    /// Whether the collider's sensor events are on (see [`World::set_sensor_events`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn sensor_events(&self, id: ColliderId) -> Result<bool, WorldError> {
        self.flag(id, flags::NO_SENSOR_EVENTS).map(|off| !off)
    }

    /// The collider's switches and filter (see [`World::set_options`]).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn options(&self, id: ColliderId) -> Result<ColliderOptions, WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        let on = |bit: u16| self.cols.flags[s] & bit != 0;
        Ok(ColliderOptions {
            is_static: on(flags::STATIC),
            sensor: on(flags::SENSOR),
            bullet: on(flags::BULLET),
            enabled: !on(flags::DISABLED),
            contact_events: !on(flags::NO_CONTACT_EVENTS),
            sensor_events: !on(flags::NO_SENSOR_EVENTS),
            filter: self.cols.filter[s],
        })
    }

    /// Whether a live collider carries flag `bit`.
    fn flag(&self, id: ColliderId, bit: u16) -> Result<bool, WorldError> {
        self.cols.slot(id).map(|s| self.cols.flags[s] & bit != 0).ok_or(WorldError::StaleId)
    }

    /// All live collider ids, in slot order.
    pub fn ids(&self) -> impl Iterator<Item = ColliderId> + '_ {
        (0..self.cols.alive.len()).filter(|&s| self.cols.alive[s]).map(|s| self.cols.id(ColliderSlot::from_index(s)))
    }

    /// Every touching non-sensor pair with its manifold, as of the last step. The order is
    /// deterministic but otherwise unspecified.
    ///
    /// Each point carries the impulses a solver stored with [`World::store_impulses`] for the
    /// same feature id at the steps before (zero for a point whose features just met).
    ///
    /// An index names the same contact until the next [`World::step`] or [`World::remove`], and
    /// not across them: a step updates contacts in place but moves the last contact into the
    /// place of each that ends and appends those that begin, and once they have drifted far
    /// from collider order in a settled scene it sorts them back (the narrow phase reads the
    /// colliders in the contacts' order); a removal ends its collider's contacts at once. So a
    /// solver reads `contacts()[i]` and stores contact `i`'s impulses between the same two
    /// steps, and needs no order across steps: the world matches the points by feature id
    /// itself.
    #[must_use]
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Stores the solver's accumulated impulses in the contacts, for the next step to carry to
    /// the points with the same feature id (warm starting, as Box2D keeps them in its
    /// `b2ManifoldPoint`). `f(i, &contacts()[i])` is called for each contact in order and
    /// returns `(normal impulse, tangent impulse)` for each of its manifold's points (only the
    /// first [`count`](Manifold::count) are used; the others stay zero). To keep a contact's
    /// impulses as they are, return them from the contact it is given.
    ///
    /// Only the impulses change: the ids, normals, points and depths the solver read stay as
    /// the step made them, so the world's own state cannot be corrupted this way. The values are
    /// stored as given (sapwood never computes with them) and are part of the world's state:
    /// snapshots and [`World::state_hash`] include them, so a restored world warm-starts
    /// exactly like the original.
    ///
    /// The step then treats each recomputed manifold (a pair with a moved or changed collider)
    /// point by point ([`Manifold::carry_impulses`]): a point whose feature id the pair's last
    /// manifold had inherits that point's impulses, any other point gets zero, so a pair that
    /// stops touching and touches again starts from zero. A pair that is not recomputed keeps
    /// its impulses. Allocation-free, O(contacts).
    ///
    /// A solver's frame:
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    ///
    /// let mut world = World::new();
    /// world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(5.0, 0.5))?, Pose::IDENTITY).fixed())?;
    /// let crate_ = world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.5, 0.5))?, Pose::from_translation(Vec2::new(0.0, 0.99))))?;
    /// world.step();
    /// for frame in 0..3 {
    ///     // Build one constraint per contact, warm-started from the carried impulses ...
    ///     let mut solved: Vec<[(f32, f32); 2]> = Vec::new();
    ///     for c in world.contacts() {
    ///         let warm = c.manifold.points.map(|p| (p.normal_impulse, p.tangent_impulse));
    ///         assert_eq!(warm[0].0, frame as f32); // zero at first, then what was stored
    ///         // ... solve; here each point's normal impulse just grows by one.
    ///         solved.push(warm.map(|(n, t)| (n + 1.0, t)));
    ///     }
    ///     // Contact `i` is constraint `i`: stored before the next step moves anything.
    ///     world.store_impulses(|i, _contact| solved[i]);
    ///     // Integrate, move the bodies, step: the same features keep their impulses.
    ///     world.set_pose(crate_, Pose::from_translation(Vec2::new(0.01 * frame as f32, 0.99)))?;
    ///     world.step();
    /// }
    /// assert!(world.contacts()[0].manifold.points().iter().all(|p| p.normal_impulse == 3.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn store_impulses(&mut self, mut f: impl FnMut(usize, &Contact) -> [(f32, f32); 2]) {
        for (i, c) in self.contacts.iter_mut().enumerate() {
            let impulses = f(i, c);
            let m = &mut c.manifold;
            for (p, (normal, tangent)) in m.points[..(m.count as usize).min(2)].iter_mut().zip(impulses) {
                p.normal_impulse = normal;
                p.tangent_impulse = tangent;
            }
        }
        self.validate_if_enabled("store_impulses");
    }

    /// Calls `f` with every contact of one collider (as of the last step).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn contacts_of(&self, id: ColliderId, mut f: impl FnMut(&Contact)) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        let mut p = self.cols.pair_head[s];
        while !p.is_null() {
            let pair = &self.pairs[p.index()];
            if !pair.contact.is_null() {
                f(&self.contacts[pair.contact.index()]);
            }
            p = pair.next[Self::end_of(pair, id.slot())];
        }
        Ok(())
    }

    /// Calls `f(part_a, part_b, manifold)` for every touching part pair of colliders `a` and `b`
    /// (see [`collide::contact_parts`](crate::collide::contact_parts)), computed now from their current poses and shapes:
    /// the world stores one merged manifold per collider pair ([`World::contacts`]), and
    /// per-part manifolds cost one narrow-phase call, so they are made on request only. Being
    /// fresh from the kernels, they carry zero impulses: the solver's impulses belong to the
    /// merged manifold in [`World::contacts`].
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    /// let u: Vec<Vec2> = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (2.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
    ///     .iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    /// let mut world = World::new();
    /// let cup = world.insert(ColliderDesc::new(Shape::concave_polygon(&u, 0.0)?, Pose::IDENTITY).fixed())?;
    /// let lid = world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(2.0, 0.25))?, Pose::from_translation(Vec2::new(1.5, 2.2))))?;
    /// world.step();
    /// assert_eq!(world.contacts().len(), 1); // one merged manifold per collider pair
    /// let mut n = 0;
    /// world.part_contacts(cup, lid, |_, _, _| n += 1)?;
    /// assert_eq!(n, 2); // one per arm of the U
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::StaleId`] when either id is not live.
    pub fn part_contacts(
        &self,
        a: ColliderId,
        b: ColliderId,
        f: impl FnMut(u32, u32, &Manifold),
    ) -> Result<(), WorldError> {
        let sa = self.cols.slot(a).ok_or(WorldError::StaleId)?;
        let sb = self.cols.slot(b).ok_or(WorldError::StaleId)?;
        self.welds.contact_parts(&self.cols, sa, sb, f);
        Ok(())
    }

    /// The earliest impact of every bullet ([`ColliderDesc::bullet`]) that moved before the last
    /// step, at most one per bullet, in ascending bullet id order: what a solver needs to
    /// clamp or sub-step a fast body that would otherwise pass through a thin wall between two
    /// steps. A bullet that hit nothing, or only colliders it already touched at the start of
    /// its sweep (the contacts report those), has none. The time of impact is that of
    /// [`query::time_of_impact`](crate::query::time_of_impact): never later than the true
    /// first contact, and at most its tolerance (1e-4 of the smaller shape's size) short of
    /// touching. A search that runs out of iterations
    /// ([`ToiState::IterationLimit`](crate::query::ToiState::IterationLimit)) has found no
    /// contact: the step resumes it from the fraction it cleared, a few times, and a pair still
    /// undecided then gives no impact rather than a phantom one.
    ///
    /// Each bullet is swept linearly from its pose at the step before to its pose now (the
    /// angle turning the short way); the collider it hits is held still at its current pose,
    /// unless it is a bullet too, which is then swept over the same step. Sensor pairs, and
    /// pairs that the filters or [`PairHooks::filter_pair`] exclude, give no impact.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    ///
    /// let mut world = World::new();
    /// let wall = world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.005, 5.0))?, Pose::IDENTITY).fixed())?;
    /// let start = Pose::from_translation(Vec2::new(-50.0, 0.0));
    /// let bullet = world.insert(ColliderDesc::new(Shape::circle(0.05)?, start).bullet())?;
    /// world.step();
    /// world.set_pose(bullet, Pose::from_translation(Vec2::new(50.0, 0.0)))?; // through the wall
    /// world.step();
    /// assert!(world.contacts().is_empty()); // it does not touch the wall where it is now
    /// let hit = world.impacts()[0];
    /// assert_eq!((hit.bullet, hit.other), (bullet, wall));
    /// assert!((hit.pose.p.x - (-0.055)).abs() < 0.01); // stopped at the wall's face
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn impacts(&self) -> &[Impact] {
        &self.impacts
    }

    /// Events of the last step, plus those raised by removals before it, in ascending
    /// `(a, b)` order.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }
}

/// The indices of `descs` in Z-order of their positions (quantised to 16 bits per axis over the
/// batch's bounds; ties keep their order, so the result depends on the input alone), or `None`
/// when the batch is local already: its consecutive positions lie on average within four
/// spacings of `n` positions spread evenly over the bounds (in one dimension, along a row or a
/// column). A random order's lie a third of the extent apart, about `sqrt(n) / 3` spacings.
fn morton_order(descs: &[ColliderDesc]) -> Option<Vec<usize>> {
    let bounds = descs.iter().fold(Aabb::EMPTY, |b, d| b.union(&Aabb::from_points(d.pose.p, d.pose.p)));
    let path: f64 = descs.windows(2).map(|w| f64::from(w[0].pose.p.distance(w[1].pose.p))).sum();
    let (extent, n) = ((bounds.max - bounds.min).as_dvec2(), descs.len() as f64);
    let spacing = (extent.x * extent.y / n).sqrt().max(extent.max_element() / n);
    if path <= 4.0 * n * spacing {
        return None;
    }
    let scale = 65535.0 / (bounds.max - bounds.min).max_element().max(1e-30);
    // Spreads the low 16 bits of `v` to the even bits of the result.
    let spread = |v: u32| {
        let mut x = v & 0xffff;
        x = (x | x << 8) & 0x00ff_00ff;
        x = (x | x << 4) & 0x0f0f_0f0f;
        x = (x | x << 2) & 0x3333_3333;
        (x | x << 1) & 0x5555_5555
    };
    let mut keyed: Vec<(u32, usize)> = descs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let q = ((d.pose.p - bounds.min) * scale).as_uvec2();
            (spread(q.x) | spread(q.y) << 1, i)
        })
        .collect();
    keyed.sort_unstable();
    Some(keyed.into_iter().map(|(_, i)| i).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn batch_slots_follow_z_order_and_ids_follow_descs() {
        // A 16 x 16 grid in a scattered order (i -> 97 i mod 256).
        let descs: Vec<ColliderDesc> = (0..256)
            .map(|i| (i * 97) % 256)
            .map(|i| {
                let p = Vec2::new((i % 16) as f32, (i / 16) as f32);
                ColliderDesc::new(Shape::circle(0.1).unwrap(), Pose::from_translation(p))
            })
            .collect();
        let mut world = World::new();
        let mut ids = Vec::new();
        world.insert_batch(&descs, &mut ids).unwrap();
        for (id, d) in ids.iter().zip(&descs) {
            assert_eq!(world.pose(*id).unwrap(), d.pose);
        }
        // Slot order is Z-order: (0,0) (1,0) (0,1) (1,1) (2,0) ...
        let mut by_slot: Vec<(u32, Vec2)> = ids.iter().map(|&id| (id.index(), world.pose(id).unwrap().p)).collect();
        by_slot.sort_by_key(|e| e.0);
        let xy: Vec<(f32, f32)> = by_slot.iter().take(6).map(|e| (e.1.x, e.1.y)).collect();
        assert_eq!(xy, [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (2.0, 0.0), (3.0, 0.0)]);
        // Coincident positions and an empty batch are fine.
        let same = vec![ColliderDesc::new(Shape::circle(0.1).unwrap(), Pose::IDENTITY); 3];
        world.insert_batch(&same, &mut ids).unwrap();
        world.insert_batch(&[], &mut ids).unwrap();
        assert_eq!(ids.len(), 259);
    }

    #[test]
    fn a_batch_given_row_by_row_keeps_its_order() {
        // A 40 x 25 tile level, row by row: already local.
        let descs: Vec<ColliderDesc> = (0..1000)
            .map(|i| {
                let p = Vec2::new((i % 40) as f32, (i / 40) as f32);
                ColliderDesc::new(Shape::cuboid(Vec2::splat(0.5)).unwrap(), Pose::from_translation(p)).fixed()
            })
            .collect();
        assert!(morton_order(&descs).is_none());
        let mut world = World::new();
        let mut ids = Vec::new();
        world.insert_batch(&descs, &mut ids).unwrap();
        assert!(ids.windows(2).all(|w| w[0].index() < w[1].index()), "slots in the order given");
        // The same tiles in a random order are put in Z-order.
        let mut rng = crate::internal::SplitMix64::new(5);
        let mut shuffled = descs.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        assert!(morton_order(&shuffled).is_some());
    }
}
