//! The collision world: colliders in struct-of-arrays columns, stepped in place.
//!
//! # The step
//! ```text
//!  moved list ──(a) tight AABBs, parallel──▶ escaped lists (tight box left the fat box)
//!             ──(b) broad phase in place───▶ pairs began / ended (SAP for movers, trees for
//!                                              static and very large colliders)
//!             ──(c) narrow phase, parallel─▶ one manifold per pair with a moved end
//!             ──(d) events, serial─────────▶ contacts array and events, ascending id order
//! ```
//! Only pairs in which a collider moved or changed are re-evaluated: a pair of two unmoved
//! colliders keeps its manifold, so a still scene costs almost nothing.
//!
//! # Pair bookkeeping
//! Every candidate pair (fat boxes overlap, filters allow it) owns a `PairSlot`, found by its
//! ordered slot pair in a [`PairTable`] and linked into both colliders' doubly linked pair lists
//! (Box2D's contact edges), so that removing or moving a collider reaches its pairs directly.
//! Touching pairs additionally own an entry in the dense, `Pod` contacts array that
//! [`World::contacts`] exposes.

mod debug;
mod mover_tree;
mod query;
mod rebuild;
mod validate;

pub use query::{QueryFilter, RayCastHit};

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::broad::{BroadPhase, BroadPhaseKind, DynamicTree, Movers, Pair, PairTable};
use crate::collide::{self, Manifold};
use crate::math::{Aabb, Pose};
use crate::shape::{Shape, ShapeError};
use crate::storage::{ColliderId, Columns, Filter, RawColliderId, flags};
use glam::Vec2;

const NONE: u32 = u32::MAX;

// The snapshot codec reads and rebuilds private state (pair slots and their links), so it is a
// child of this module rather than a reason to widen every field's visibility.
pub mod snapshot;

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
    /// step before) ahead in the direction it moved, at most its own size: a collider moving
    /// steadily escapes less often, for a few more candidate pairs ahead of it. 0 turns it off.
    pub aabb_motion_factor: f32,
    /// A moving collider whose tight box is larger than this on either side is kept out of the
    /// SAP (it would overlap everything on an axis) and lives in the tree instead.
    pub large_extent: f32,
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            broad_phase: BroadPhaseKind::IncrementalSap,
            aabb_margin: 0.0,
            // Measured together (BENCHMARKS.md): with the motion reach, 0.1 made the peer
            // scene's and the 1M world's steps 14-47% faster than 0.25 without it, and 0.05 then
            // gained another 0-20% (seed 1024 random-half level).
            aabb_margin_ratio: 0.05,
            aabb_motion_factor: 8.0,
            large_extent: 256.0,
        }
    }
}

/// Everything needed to insert a collider.
#[derive(Clone, Debug, PartialEq)]
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
    /// Which colliders this one pairs with.
    pub filter: Filter,
    /// Free for the user (the hecs integration stores the entity here).
    pub user_data: u64,
}

impl ColliderDesc {
    /// A moving, non-sensor collider with the default filter.
    #[must_use]
    pub fn new(shape: Shape, pose: Pose) -> Self {
        Self { shape, pose, is_static: false, sensor: false, filter: Filter::default(), user_data: 0 }
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
pub struct Contact {
    /// The collider with the lower slot index.
    pub a: RawColliderId,
    /// The other collider.
    pub b: RawColliderId,
    /// The manifold.
    pub manifold: Manifold,
}

/// What happened to a pair.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
pub struct Event {
    /// The collider with the lower slot index.
    pub a: ColliderId,
    /// The other collider.
    pub b: ColliderId,
    /// What happened.
    pub kind: EventKind,
}

/// Wall-clock time of each phase of one [`World::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepTimings {
    /// (a) Tight boxes of moved colliders and the escape test.
    pub aabbs: Duration,
    /// (b) Broad-phase update and candidate pairs begun/ended.
    pub broad_phase: Duration,
    /// (c) Manifolds of the pairs of moved colliders and their application.
    pub narrow_phase: Duration,
    /// (d) Sorting the events.
    pub events: Duration,
}

impl StepTimings {
    /// The whole step.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.aabbs + self.broad_phase + self.narrow_phase + self.events
    }
}

/// A candidate pair: fat boxes overlap and filters allow it.
#[derive(Clone, Copy, Debug)]
struct PairSlot {
    /// Collider slots, `ids[0] < ids[1]`.
    ids: [u32; 2],
    /// Next and previous pair in the list of `ids[k]` (`NONE` at the ends).
    next: [u32; 2],
    prev: [u32; 2],
    /// Index into `contacts` while touching (non-sensor pairs only), else `NONE`.
    contact: u32,
    /// Whether the shapes touch (for sensor pairs: overlap).
    touching: bool,
    sensor: bool,
}

/// One chunk's share of the parallel narrow phase (`World::narrow_phase`), kept between steps so
/// that a steady step does not allocate. The workers only read the pairs; the serial apply
/// writes these back in chunk order, so the outcome does not depend on the thread count.
#[derive(Default)]
struct NarrowChunk {
    /// New manifolds of touching non-sensor pairs that still touch: `(contact index, manifold)`.
    updates: Vec<(u32, Manifold)>,
    /// Pairs whose touching state flips: `(pair slot, manifold)`.
    changes: Vec<(u32, Manifold)>,
    /// Touching pairs, updated in place, that stopped touching.
    ended: Vec<u32>,
}

/// One chunk's share of the parallel pair search (`World::search_escaped_pairs`), kept between
/// steps so that a steady step does not allocate.
#[derive(Default)]
struct SearchChunk {
    hits: Vec<u32>,
    began: Vec<Pair>,
    ended: Vec<Pair>,
}

/// The collision world: insert colliders, move them, `step`, read contacts and events, query.
///
/// `step` updates tight AABBs of moved colliders in parallel, moves escaped fat boxes through the
/// broad phase in place, recomputes manifolds in parallel only for pairs in which a collider moved
/// or changed, and applies events serially in ascending id order.
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
pub struct World {
    config: WorldConfig,
    cols: Columns,
    /// Broad phase for moving colliders that are not very large.
    movers: Movers,
    /// The same movers by fat box, for scene queries and for tree residents' pair searches.
    mover_tree: mover_tree::MoverTree,
    /// Static and very large colliders.
    tree: DynamicTree,

    pairs: Vec<PairSlot>,
    free_pairs: Vec<u32>,
    pair_table: PairTable,
    contacts: Vec<Contact>,
    /// `contact_pair[i]` is the pair slot that owns `contacts[i]`.
    contact_pair: Vec<u32>,
    /// Events of the last step (cleared when the next one starts).
    events: Vec<Event>,
    /// Events raised by removals since the last step, reported with the next step's.
    pending_events: Vec<Event>,
    timings: StepTimings,
    /// Slots removed since the last step, made reusable once the broad phase has seen the
    /// removal (see `Columns::release`).
    released: Vec<u32>,

    // Scratch buffers, reused every step so that a steady-state step allocates nothing.
    /// Colliders whose pose or shape changed since the last step (may hold duplicates and dead
    /// slots; the MOVED flag decides).
    moved: Vec<u32>,
    /// Tight boxes of `moved`, computed in parallel.
    moved_aabbs: Vec<Aabb>,
    /// SAP movers that escaped their fat box (updates) or are new (inserts).
    escaped_updates: Vec<(u32, Aabb)>,
    escaped_inserts: Vec<(u32, Aabb)>,
    /// Colliders that escaped or are new this step, for tree pair searches and list checks.
    escaped: Vec<u32>,
    /// Beside each of `escaped`, the fat box it had before (`EMPTY` for a new one) when its
    /// parted pairs with tree residents can be found by querying the tree with that box, or
    /// `None` when its whole pair list must be checked (see `search_escaped_pairs`).
    escaped_old: Vec<Option<Aabb>>,
    began: Vec<Pair>,
    ended: Vec<Pair>,
    query_hits: Vec<u32>,
    /// Per-chunk outputs of the parallel pair search of escaped colliders.
    search: Vec<SearchChunk>,
    /// Per-chunk outputs of the parallel narrow phase.
    narrow: Vec<NarrowChunk>,
    /// One bit per slot, set for the slots in `moved` from the AABB pass to the end of the
    /// narrow phase.
    moved_bits: Vec<u64>,
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
            events: Vec::new(),
            pending_events: Vec::new(),
            timings: StepTimings::default(),
            released: Vec::new(),
            moved: Vec::new(),
            moved_aabbs: Vec::new(),
            escaped_updates: Vec::new(),
            escaped_inserts: Vec::new(),
            escaped: Vec::new(),
            escaped_old: Vec::new(),
            began: Vec::new(),
            ended: Vec::new(),
            query_hits: Vec::new(),
            search: Vec::new(),
            narrow: Vec::new(),
            moved_bits: Vec::new(),
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

    fn check_pose(pose: &Pose) -> Result<(), WorldError> {
        if !pose.is_valid() {
            return Err(WorldError::InvalidPose);
        }
        if pose.p.abs().max_element() > MAX_COORDINATE {
            return Err(WorldError::OutOfRange);
        }
        Ok(())
    }

    fn check_desc(desc: &ColliderDesc) -> Result<(), WorldError> {
        Self::check_pose(&desc.pose)?;
        desc.shape.validate()?;
        Ok(())
    }

    /// Adds a collider. It takes part in pairs, contacts and queries from the next [`World::step`].
    ///
    /// # Errors
    /// [`WorldError::InvalidPose`], [`WorldError::OutOfRange`] or [`WorldError::InvalidShape`]
    /// for bad input, [`WorldError::Full`] when no slot is left.
    pub fn insert(&mut self, desc: ColliderDesc) -> Result<ColliderId, WorldError> {
        Self::check_desc(&desc)?;
        let slot = self.cols.allocate().ok_or(WorldError::Full)?;
        let s = slot as usize;
        self.cols.pose[s] = desc.pose;
        self.cols.shape[s] = desc.shape;
        self.cols.filter[s] = desc.filter;
        self.cols.user_data[s] = desc.user_data;
        self.cols.pair_head[s] = NONE;
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
        self.cols.flags[s] = f;
        self.moved.push(slot);
        Ok(self.cols.id(slot))
    }

    /// Adds many colliders; all or none. `out` receives their ids in the order of `descs`.
    /// New movers reach the SAP as one batch at the next step (sorted and merged in one pass),
    /// however they were inserted.
    ///
    /// The batch takes its slots in Z-order (Morton order) of the colliders' positions, so that
    /// colliders near in space are near in memory: the step's per-pair loads (poses, shapes,
    /// boxes, pair lists) then mostly hit lines a neighbour already brought in. Peer scene,
    /// 64k colliders inserted in random order: narrow phase 33.6 → 24.7 ms per step; 1M
    /// colliders, 1% moving: 25.0 → 15.2 ms (BENCHMARKS.md). Ids stay opaque: nothing but
    /// `out` says which id belongs to which description.
    ///
    /// # Errors
    /// The first invalid description's error, with nothing inserted.
    pub fn insert_batch(&mut self, descs: &[ColliderDesc], out: &mut Vec<ColliderId>) -> Result<(), WorldError> {
        descs.iter().try_for_each(Self::check_desc)?;
        if (self.cols.alive_count as usize).saturating_add(descs.len()) >= u32::MAX as usize {
            return Err(WorldError::Full);
        }
        let first = out.len();
        out.resize(first + descs.len(), ColliderId::new(0, std::num::NonZeroU32::MIN));
        for i in morton_order(descs) {
            out[first + i] = self.insert(descs[i].clone())?;
        }
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
        let slot = s as u32;
        // A collider inserted since the last step is in no structure yet.
        if self.cols.fat[s] != Aabb::EMPTY {
            if self.cols.flags[s] & flags::IN_TREE != 0 {
                self.tree.remove(slot);
            } else {
                self.movers.remove(slot);
                self.mover_tree.touch(slot);
            }
        }
        while self.cols.pair_head[s] != NONE {
            let p = self.cols.pair_head[s];
            self.destroy_pair(p, true);
        }
        self.cols.release(slot);
        self.released.push(slot);
        Ok(())
    }

    /// Moves a collider. Its pairs are re-evaluated at the next step.
    ///
    /// # Errors
    /// [`WorldError::StaleId`], [`WorldError::InvalidPose`] or [`WorldError::OutOfRange`]; the
    /// world is unchanged then.
    pub fn set_pose(&mut self, id: ColliderId, pose: Pose) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        Self::check_pose(&pose)?;
        self.cols.pose[s] = pose;
        self.mark_moved(s);
        Ok(())
    }

    /// Replaces a collider's shape. Its pairs are re-evaluated at the next step.
    ///
    /// # Errors
    /// [`WorldError::StaleId`] or [`WorldError::InvalidShape`]; the world is unchanged then.
    pub fn set_shape(&mut self, id: ColliderId, shape: Shape) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        shape.validate()?;
        self.cols.shape[s] = shape;
        self.mark_moved(s);
        Ok(())
    }

    /// Replaces a collider's user data.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn set_user_data(&mut self, id: ColliderId, user_data: u64) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        self.cols.user_data[s] = user_data;
        Ok(())
    }

    fn mark_moved(&mut self, s: usize) {
        if self.cols.flags[s] & flags::MOVED == 0 {
            self.cols.flags[s] |= flags::MOVED;
            self.moved.push(s as u32);
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

    /// The collider's tight box as of the last step.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn aabb(&self, id: ColliderId) -> Result<Aabb, WorldError> {
        self.cols.slot(id).map(|s| self.cols.aabb[s]).ok_or(WorldError::StaleId)
    }

    /// The collider's user data.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn user_data(&self, id: ColliderId) -> Result<u64, WorldError> {
        self.cols.slot(id).map(|s| self.cols.user_data[s]).ok_or(WorldError::StaleId)
    }

    /// All live collider ids, in slot order.
    pub fn ids(&self) -> impl Iterator<Item = ColliderId> + '_ {
        (0..self.cols.alive.len() as u32).filter(|&s| self.cols.alive[s as usize]).map(|s| self.cols.id(s))
    }

    /// Every touching non-sensor pair with its manifold, as of the last step. The order is
    /// deterministic but otherwise unspecified.
    #[must_use]
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Calls `f` with every contact of one collider (as of the last step).
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn contacts_of(&self, id: ColliderId, mut f: impl FnMut(&Contact)) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        let mut p = self.cols.pair_head[s];
        while p != NONE {
            let pair = &self.pairs[p as usize];
            if pair.contact != NONE {
                f(&self.contacts[pair.contact as usize]);
            }
            p = pair.next[Self::end_of(pair, s as u32)];
        }
        Ok(())
    }

    /// Calls `f(part_a, part_b, manifold)` for every touching part pair of colliders `a` and `b`
    /// (see [`collide::contact_parts`]), computed now from their current poses and shapes:
    /// the world stores one merged manifold per collider pair ([`World::contacts`]), and
    /// per-part manifolds cost one narrow-phase call, so they are made on request only.
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
        collide::contact_parts(&self.cols.shape[sa], &self.cols.pose[sa], &self.cols.shape[sb], &self.cols.pose[sb], f);
        Ok(())
    }

    /// Events of the last step, plus those raised by removals before it, in ascending
    /// `(a, b)` order.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    // ---------------------------------------------------------------------------------------
    // The step
    // ---------------------------------------------------------------------------------------

    /// Advances the world: update AABBs → update the broad phase → narrow phase → events.
    pub fn step(&mut self) {
        let t0 = Instant::now();
        self.events.clear();
        self.events.append(&mut self.pending_events);
        // The phases run on one of rayon's workers. A parallel pass started from a thread
        // outside the pool queues its job there and sleeps until it is done, a wake-up and a
        // sleep per pass (half a dozen a step); from a worker, a pass pushes its halves onto the
        // worker's own deque. Peer scene, median step, fastest of four interleaved runs: 8192
        // SAP 2 threads 1.79 -> 1.40 ms, 1024 SAP 2 threads 0.224 -> 0.189 ms (BENCHMARKS.md).
        // With nothing moved there is no parallel work, and the hand-off alone would cost a
        // still step a worker's wake-up (1024 random-still: 0.002 -> 0.047 ms).
        let [t1, t2, t3] = if self.moved.is_empty() { self.run_phases() } else { rayon::scope(|_| self.run_phases()) };
        self.events.sort_unstable();
        self.timings =
            StepTimings { aabbs: t1 - t0, broad_phase: t2 - t1, narrow_phase: t3 - t2, events: t3.elapsed() };
    }

    /// (a) to (c), returning the time at the end of each.
    fn run_phases(&mut self) -> [Instant; 3] {
        self.update_aabbs();
        let t1 = Instant::now();
        self.update_broad_phase();
        let t2 = Instant::now();
        self.narrow_phase();
        [t1, t2, Instant::now()]
    }

    /// Wall-clock time of each phase of the last [`World::step`], for profiling and HUDs.
    #[must_use]
    pub fn last_step_timings(&self) -> StepTimings {
        self.timings
    }

    /// (a) Tight boxes of moved colliders in parallel, then the serial escape test.
    fn update_aabbs(&mut self) {
        let cols = &mut self.cols;
        // Drop dead slots and duplicates (a slot removed and reused between steps is listed
        // twice) and sort, through one bit per slot: the MOVED flag is cleared as each live
        // slot's bit is set, and the list is read back in slot order. Cheaper than retain and
        // sort (8k peer scene: 70k fewer main-thread instructions a step, callgrind), and the
        // narrow phase reads the bits; it clears them at its end.
        let bits = &mut self.moved_bits;
        bits.resize(cols.alive.len().div_ceil(64), 0);
        for &s in &self.moved {
            let f = &mut cols.flags[s as usize];
            if cols.alive[s as usize] && *f & flags::MOVED != 0 {
                *f &= !flags::MOVED;
                bits[s as usize >> 6] |= 1 << (s & 63);
            }
        }
        self.moved.clear();
        for (w, &word) in bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                self.moved.push((w << 6) as u32 | rest.trailing_zeros());
                rest &= rest - 1;
            }
        }
        let (shapes, poses) = (&cols.shape, &cols.pose);
        self.moved
            .par_iter()
            .map(|&s| shapes[s as usize].aabb(&poses[s as usize]))
            .collect_into_vec(&mut self.moved_aabbs);

        self.escaped.clear();
        self.escaped_old.clear();
        self.escaped_updates.clear();
        self.escaped_inserts.clear();
        for (&slot, &tight) in self.moved.iter().zip(&self.moved_aabbs) {
            let s = slot as usize;
            let last_tight = std::mem::replace(&mut cols.aabb[s], tight);
            let fat = cols.fat[s];
            if fat.contains(&tight) {
                continue;
            }
            let is_new = fat == Aabb::EMPTY;
            let size = tight.max - tight.min;
            // Static colliders do not move, so a fat margin would only widen their candidate
            // pairs: a 416-unit arena wall with a ratio of 0.25 got a 104-unit fat box, and
            // every enemy in half the arena kept a live pair with it (arena example: 57 ms of
            // CPU per frame, 14 ms with a zero margin on statics).
            let new_fat = if cols.flags[s] & flags::STATIC != 0 {
                tight
            } else {
                let margin = self.config.aabb_margin + self.config.aabb_margin_ratio * size.max_element();
                // Reach ahead along the last displacement (Box2D v2's displacement multiplier),
                // capped by the collider's size so that a teleport does not leave a huge box
                // behind. A new collider has no last box.
                let cap = Vec2::splat(size.max_element());
                let shift = (tight.min + tight.max - last_tight.min - last_tight.max) * 0.5;
                let ahead = (shift * self.config.aabb_motion_factor).clamp(-cap, cap);
                let ahead = if is_new || !ahead.is_finite() { Vec2::ZERO } else { ahead };
                let f = tight.fattened(margin);
                Aabb { min: f.min + ahead.min(Vec2::ZERO), max: f.max + ahead.max(Vec2::ZERO) }
            };
            cols.fat[s] = new_fat;
            let wants_tree = cols.flags[s] & flags::STATIC != 0 || size.max_element() > self.config.large_extent;
            let in_tree = cols.flags[s] & flags::IN_TREE != 0;
            // A collider that stays in the movers' structure, when that structure reports its own
            // parted pairs, needs only its pairs with tree residents checked (see
            // `search_escaped_pairs`).
            let stays_mover = !is_new && !in_tree && !wants_tree;
            let by_tree = is_new || (stays_mover && !self.config.broad_phase.finds_pairs_by_query());
            self.escaped.push(slot);
            self.escaped_old.push(by_tree.then_some(fat));
            if !is_new && wants_tree != in_tree {
                // Grew past (or shrank below) the large-collider limit: change structures.
                if in_tree {
                    self.tree.remove(slot);
                } else {
                    self.movers.remove(slot);
                    self.mover_tree.touch(slot);
                }
            }
            if wants_tree {
                cols.flags[s] |= flags::IN_TREE;
                if is_new || !in_tree {
                    self.tree.insert(slot, new_fat);
                } else {
                    self.tree.update(slot, new_fat);
                }
            } else {
                cols.flags[s] &= !flags::IN_TREE;
                if is_new || in_tree {
                    self.escaped_inserts.push((slot, new_fat));
                } else {
                    self.escaped_updates.push((slot, new_fat));
                }
            }
        }
    }

    /// (b) The broad phase in place: movers through the SAP (or the configured broad phase),
    /// tree residents by tree queries; then begin/end candidate pairs.
    fn update_broad_phase(&mut self) {
        self.movers.insert_batch(&self.escaped_inserts);
        self.movers.update_batch(&self.escaped_updates);
        for &(slot, _) in self.escaped_inserts.iter().chain(&self.escaped_updates) {
            self.mover_tree.touch(slot);
        }
        self.began.clear();
        self.ended.clear();
        if !self.config.broad_phase.finds_pairs_by_query() {
            self.movers.update_pairs(&mut self.began, &mut self.ended);
        }
        // The broad phase has now seen every removal: their slots may be reused.
        self.cols.free.append(&mut self.released);
        self.search_escaped_pairs();

        // Apply: ended first (so a pair that ended and began again is a fresh pair), each list
        // sorted so that slot allocation and events do not depend on discovery order.
        self.ended.sort_unstable();
        self.ended.dedup();
        for i in 0..self.ended.len() {
            let [a, b] = self.ended[i];
            // A collider moving between the SAP and the tree makes the SAP report its pairs as
            // ended although the fat boxes still overlap: those pairs live on.
            if !self.cols.fat[a as usize].overlaps(&self.cols.fat[b as usize])
                && let Some(p) = self.pair_table.remove(self.ended[i])
            {
                self.free_pair(p, false);
            }
        }
        self.began.sort_unstable();
        self.began.dedup();
        for i in 0..self.began.len() {
            let [a, b] = self.began[i];
            if !Self::may_pair(&self.cols, a, b) {
                continue;
            }
            // One probe that claims the key for the slot `create_pair` will take, instead of a
            // lookup and then an insert; a pair already present (rare) gets its slot back.
            let p = self.free_pairs.last().copied().unwrap_or(self.pairs.len() as u32);
            if let Some(old) = self.pair_table.insert(self.began[i], p) {
                self.pair_table.insert(self.began[i], old);
                continue;
            }
            let sensor = (self.cols.flags[a as usize] | self.cols.flags[b as usize]) & flags::SENSOR != 0;
            self.create_pair(a, b, sensor);
        }
    }

    /// Candidate pairs of the escaped colliders, into `began` and `ended`.
    ///
    /// Each escaped mover asks the static tree, and in query mode the movers' structure
    /// (O(escaped), Box2D's scheme), for the fat boxes it now overlaps, keeping only pairs that
    /// are new and allowed; and it checks its own pairs for fat boxes that parted, which the
    /// movers' structure does not report for pairs with a tree resident. These searches only
    /// read, so they run in parallel over fixed chunks of `escaped` (the split depends on the
    /// count alone, and the lists are sorted before use, so the outcome does not depend on the
    /// thread count). Escaped tree residents search the movers' tree too, which is flushed on
    /// first use, so they go serially after.
    fn search_escaped_pairs(&mut self) {
        const CHUNK: usize = 256;
        let chunks = self.escaped.len().div_ceil(CHUNK);
        if self.search.len() < chunks {
            self.search.resize_with(chunks, SearchChunk::default);
        }
        let query_movers = self.config.broad_phase.finds_pairs_by_query();
        let (cols, pairs, table, tree, movers) = (&self.cols, &self.pairs, &self.pair_table, &self.tree, &self.movers);
        let escaped = self.escaped.par_chunks(CHUNK).zip(self.escaped_old.par_chunks(CHUNK));
        self.search[..chunks].par_iter_mut().zip(escaped).for_each(|(out, (slots, olds))| {
            out.began.clear();
            out.ended.clear();
            for (&slot, old) in slots.iter().zip(olds) {
                let s = slot as usize;
                let fat = cols.fat[s];
                if cols.flags[s] & flags::IN_TREE == 0 {
                    out.hits.clear();
                    if query_movers {
                        let answered = movers.query_aabb_shared(&fat, &mut out.hits);
                        debug_assert!(answered, "finds_pairs_by_query kinds answer shared queries");
                    }
                    tree.query(&fat, |id| {
                        out.hits.push(id);
                        true
                    });
                    for &other in &out.hits {
                        let p = crate::broad::pair(slot, other);
                        if other != slot && Self::may_pair(cols, slot, other) && !table.contains(p) {
                            out.began.push(p);
                        }
                    }
                }
                if let Some(old) = old {
                    // Its parted pairs with other movers come from the movers' structure. A tree
                    // resident it was paired with overlapped its old fat box (the resident did
                    // not escape, or its own list check covers the pair): ask the tree, instead
                    // of walking the pair list through memory. Non-pairs among the hits are
                    // dropped by the apply's pair-table lookup.
                    tree.query(old, |other| {
                        if !cols.fat[other as usize].overlaps(&fat) {
                            out.ended.push(crate::broad::pair(slot, other));
                        }
                        true
                    });
                    continue;
                }
                let mut p = cols.pair_head[s];
                while p != NONE {
                    let pair = &pairs[p as usize];
                    let [a, b] = pair.ids;
                    if !cols.fat[a as usize].overlaps(&cols.fat[b as usize]) {
                        out.ended.push(pair.ids);
                    }
                    p = pair.next[Self::end_of(pair, slot)];
                }
            }
        });
        for out in &self.search[..chunks] {
            self.began.extend_from_slice(&out.began);
            self.ended.extend_from_slice(&out.ended);
        }
        for i in 0..self.escaped.len() {
            let slot = self.escaped[i];
            let s = slot as usize;
            if self.cols.flags[s] & flags::IN_TREE == 0 {
                continue;
            }
            let fat = self.cols.fat[s];
            self.query_both_trees(&fat);
            for &other in &self.query_hits {
                if other != slot && Self::may_pair(&self.cols, slot, other) {
                    self.began.push(crate::broad::pair(slot, other));
                }
            }
        }
    }

    /// Fills `query_hits` with every collider whose fat box overlaps `fat`: the tree residents,
    /// and the movers through their (lazily flushed) tree.
    fn query_both_trees(&mut self, fat: &Aabb) {
        self.query_hits.clear();
        self.tree.query_aabb(fat, &mut self.query_hits);
        let hits = &mut self.query_hits;
        self.mover_tree.get_mut(&self.cols).query(fat, |id| {
            hits.push(id);
            true
        });
    }

    /// Whether two colliders may form a pair: not both static, and their filters agree.
    fn may_pair(cols: &Columns, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        cols.flags[a] & cols.flags[b] & flags::STATIC == 0 && cols.filter[a].pairs_with(&cols.filter[b])
    }

    /// (c) The narrow phase over the pairs of moved colliders, in parallel, then (d) the serial
    /// application of results: contacts array and events.
    ///
    /// Every pair with a moved end is evaluated once. The workers only read `pairs`; each writes
    /// its chunk's new manifolds of still-touching pairs (`updates`, by contact index) and its
    /// pairs whose touching state flips (`changes`). The serial apply then writes the updates
    /// first (contact indices are stable until a contact ends) and the changes after, chunk by
    /// chunk. Chunks are fixed by the counts alone, so the contacts array and the events come
    /// out the same for any thread count.
    ///
    /// Which pairs a chunk covers depends on how much moved. When the movers own a good share
    /// of all pairs (the peer scene moves half of them), one pass over the pair slots testing a
    /// bit per end beats chasing each mover's pair list through memory, and the touching pairs
    /// are updated where they live in `contacts` (Box2D v3's scheme) by a second parallel pass.
    /// When few colliders moved (a big still world), chunks of the moved list walk their
    /// colliders' lists: O(their pairs), with each pair taken by its lower moved end.
    fn narrow_phase(&mut self) {
        // The movers own about `moved × 2 × live_pairs / colliders` pair visits, each a dependent
        // load from a random place; a scan reads every slot in order, about 8 slots for the cost
        // of one visit. So scan once the movers are 1/16 of the colliders, whatever the pairs
        // per collider (seed table, 8192 random-half, 60 pairs a collider: the old test against
        // the pair count walked; narrow phase 23.1 -> 11.2 ms a step, 1 thread).
        let scan = self.moved.len() * 16 >= self.cols.alive_count as usize;
        if scan {
            self.update_contacts_in_place();
        }
        // Pair slots per chunk when scanning, moved colliders per chunk when walking lists.
        const CHUNK: usize = 1024;
        const MOVERS: usize = 256;
        let chunks = if scan { self.pairs.len().div_ceil(CHUNK) } else { self.moved.len().div_ceil(MOVERS) };
        if self.narrow.len() < chunks {
            self.narrow.resize_with(chunks, NarrowChunk::default);
        }
        let (pairs, cols, bits) = (&self.pairs, &self.cols, &self.moved_bits);
        let outs = &mut self.narrow[..chunks];
        if scan {
            outs.par_iter_mut().zip(pairs.par_chunks(CHUNK)).enumerate().for_each(|(k, (out, chunk))| {
                out.updates.clear();
                out.changes.clear();
                for (i, pair) in chunk.iter().enumerate() {
                    // Free slots hold `[NONE, NONE]`, which is never a moved slot; touching
                    // non-sensor pairs were updated in place.
                    if pair.contact == NONE && (is_set(bits, pair.ids[0]) || is_set(bits, pair.ids[1])) {
                        Self::evaluate_into(cols, pair, (k * CHUNK + i) as u32, out);
                    }
                }
            });
        } else {
            outs.par_iter_mut().zip(self.moved.par_chunks(MOVERS)).for_each(|(out, movers)| {
                out.updates.clear();
                out.changes.clear();
                for &slot in movers {
                    let mut p = cols.pair_head[slot as usize];
                    while p != NONE {
                        let pair = &pairs[p as usize];
                        let end = Self::end_of(pair, slot);
                        let other = pair.ids[1 - end];
                        if other > slot || !is_set(bits, other) {
                            Self::evaluate_into(cols, pair, p, out);
                        }
                        p = pair.next[end];
                    }
                }
            });
        }
        for k in 0..chunks {
            for &(c, m) in &self.narrow[k].updates {
                self.contacts[c as usize].manifold = m;
            }
        }
        for k in 0..chunks {
            for i in 0..self.narrow[k].changes.len() {
                let (p, m) = self.narrow[k].changes[i];
                self.flip_touching(p, m);
            }
        }
        for &s in &self.moved {
            self.moved_bits[s as usize >> 6] = 0;
        }
    }

    /// Evaluates `pair` (slot `p`) and records what the serial apply must do with the result.
    #[inline]
    fn evaluate_into(cols: &Columns, pair: &PairSlot, p: u32, out: &mut NarrowChunk) {
        let m = Self::evaluate(cols, pair.ids, pair.sensor);
        let touching = m.count > 0;
        if touching != pair.touching {
            out.changes.push((p, m));
        } else if touching && pair.contact != NONE {
            out.updates.push((pair.contact, m));
        }
    }

    /// A pair started or stopped touching: add or drop its contact, raise its event.
    fn flip_touching(&mut self, p: u32, m: Manifold) {
        let pair = self.pairs[p as usize];
        if pair.touching {
            self.end_touch(p);
            self.push_event(&pair, false);
            return;
        }
        self.pairs[p as usize].touching = true;
        if !pair.sensor {
            self.pairs[p as usize].contact = self.contacts.len() as u32;
            self.contacts.push(Contact {
                a: self.cols.id(pair.ids[0]).to_raw(),
                b: self.cols.id(pair.ids[1]).to_raw(),
                manifold: m,
            });
            self.contact_pair.push(p);
        }
        self.push_event(&pair, true);
    }

    /// The manifold of the colliders in slots `ids` (for a sensor pair, one point when they
    /// overlap: sensors only need a yes/no).
    #[inline]
    fn evaluate(cols: &Columns, ids: [u32; 2], sensor: bool) -> Manifold {
        let [a, b] = ids.map(|s| s as usize);
        if !cols.aabb[a].overlaps(&cols.aabb[b]) {
            return Manifold::EMPTY;
        }
        let (sa, pa, sb, pb) = (&cols.shape[a], &cols.pose[a], &cols.shape[b], &cols.pose[b]);
        if sensor {
            let mut m = Manifold::EMPTY;
            m.count = u32::from(collide::overlaps(sa, pa, sb, pb));
            m
        } else {
            collide::contact(sa, pa, sb, pb)
        }
    }

    /// Recomputes, in parallel and in place, the manifold of every contact with a moved collider
    /// (`moved_bits`), then ends, serially, the contacts that stopped touching.
    ///
    /// Touching pairs own their slot in `contacts`, so their new manifolds need no serial copy.
    /// Chunks of the contacts array are fixed by its length, and the ended pairs are taken
    /// chunk by chunk in array order, so the array comes out the same for any thread count.
    fn update_contacts_in_place(&mut self) {
        const CHUNK: usize = 1024;
        let chunks = self.contacts.len().div_ceil(CHUNK);
        if self.narrow.len() < chunks {
            self.narrow.resize_with(chunks, NarrowChunk::default);
        }
        let (cols, bits) = (&self.cols, &self.moved_bits);
        self.narrow[..chunks]
            .par_iter_mut()
            .zip(self.contacts.par_chunks_mut(CHUNK).zip(self.contact_pair.par_chunks(CHUNK)))
            .for_each(|(out, (contacts, owners))| {
                out.ended.clear();
                for (c, &p) in contacts.iter_mut().zip(owners) {
                    let ids = [c.a.index, c.b.index];
                    if !ids.iter().any(|&s| is_set(bits, s)) {
                        continue;
                    }
                    c.manifold = Self::evaluate(cols, ids, false);
                    if c.manifold.count == 0 {
                        out.ended.push(p);
                    }
                }
            });
        for k in 0..chunks {
            for i in 0..self.narrow[k].ended.len() {
                let p = self.narrow[k].ended[i];
                let pair = self.pairs[p as usize];
                self.end_touch(p);
                self.push_event(&pair, false);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Pair slots
    // ---------------------------------------------------------------------------------------

    /// Which end of `pair` is `slot` (0 or 1).
    #[inline]
    fn end_of(pair: &PairSlot, slot: u32) -> usize {
        usize::from(pair.ids[1] == slot)
    }

    /// Takes a pair slot (the free list's last first, else a new one) and links it into both
    /// colliders' lists. The caller has put the pair into `pair_table` under that slot.
    fn create_pair(&mut self, a: u32, b: u32, sensor: bool) {
        let slot = PairSlot {
            ids: [a, b],
            next: [self.cols.pair_head[a as usize], self.cols.pair_head[b as usize]],
            prev: [NONE, NONE],
            contact: NONE,
            touching: false,
            sensor,
        };
        let p = match self.free_pairs.pop() {
            Some(p) => {
                self.pairs[p as usize] = slot;
                p
            }
            None => {
                self.pairs.push(slot);
                (self.pairs.len() - 1) as u32
            }
        };
        for (k, &c) in [a, b].iter().enumerate() {
            let head = self.cols.pair_head[c as usize];
            if head != NONE {
                let h = &mut self.pairs[head as usize];
                let end = Self::end_of(h, c);
                h.prev[end] = p;
            }
            self.cols.pair_head[c as usize] = p;
            debug_assert_eq!(self.pairs[p as usize].next[k], head);
        }
        debug_assert_eq!(self.pair_table.get([a, b]), Some(p));
    }

    /// Unlinks and frees a pair slot; a touching pair ends with an event (into the pending list
    /// when called from `remove`, so that it is reported with the next step).
    fn destroy_pair(&mut self, p: u32, pending: bool) {
        self.pair_table.remove(self.pairs[p as usize].ids);
        self.free_pair(p, pending);
    }

    /// `destroy_pair` for a pair already taken out of `pair_table`.
    fn free_pair(&mut self, p: u32, pending: bool) {
        let pair = self.pairs[p as usize];
        if pair.touching {
            self.end_touch(p);
            let ev = self.make_event(&pair, false);
            if pending { self.pending_events.push(ev) } else { self.events.push(ev) }
        }
        for (k, &c) in pair.ids.iter().enumerate() {
            let (prev, next) = (pair.prev[k], pair.next[k]);
            if prev == NONE {
                self.cols.pair_head[c as usize] = next;
            } else {
                let pp = &mut self.pairs[prev as usize];
                let end = Self::end_of(pp, c);
                pp.next[end] = next;
            }
            if next != NONE {
                let np = &mut self.pairs[next as usize];
                let end = Self::end_of(np, c);
                np.prev[end] = prev;
            }
        }
        self.pairs[p as usize].ids = [NONE, NONE];
        self.free_pairs.push(p);
    }

    /// Drops a pair's contact entry (swap-remove, fixing the moved entry's back-reference).
    fn end_touch(&mut self, p: u32) {
        let pair = &mut self.pairs[p as usize];
        pair.touching = false;
        let c = std::mem::replace(&mut pair.contact, NONE);
        if c != NONE {
            self.contacts.swap_remove(c as usize);
            self.contact_pair.swap_remove(c as usize);
            if let Some(&moved) = self.contact_pair.get(c as usize) {
                self.pairs[moved as usize].contact = c;
            }
        }
    }

    fn make_event(&self, pair: &PairSlot, began: bool) -> Event {
        let kind = match (pair.sensor, began) {
            (false, true) => EventKind::ContactBegan,
            (false, false) => EventKind::ContactEnded,
            (true, true) => EventKind::SensorEntered,
            (true, false) => EventKind::SensorExited,
        };
        Event { a: self.cols.id(pair.ids[0]), b: self.cols.id(pair.ids[1]), kind }
    }

    fn push_event(&mut self, pair: &PairSlot, began: bool) {
        let ev = self.make_event(pair, began);
        self.events.push(ev);
    }
}

/// Whether bit `s` is set (`false` past the end, which covers `NONE`).
#[inline]
fn is_set(bits: &[u64], s: u32) -> bool {
    bits.get(s as usize >> 6).is_some_and(|w| w >> (s & 63) & 1 != 0)
}

/// The indices of `descs` in Z-order of their positions (quantised to 16 bits per axis over the
/// batch's bounds; ties keep their order, so the result depends on the input alone).
fn morton_order(descs: &[ColliderDesc]) -> Vec<usize> {
    let bounds = descs.iter().fold(Aabb::EMPTY, |b, d| b.union(&Aabb::from_points(d.pose.p, d.pose.p)));
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
    keyed.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn batch_slots_follow_z_order_and_ids_follow_descs() {
        // A 4 x 4 grid given in reverse row-major order.
        let descs: Vec<ColliderDesc> = (0..16)
            .rev()
            .map(|i| {
                let p = Vec2::new((i % 4) as f32, (i / 4) as f32);
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
        assert_eq!(ids.len(), 19);
    }
}
