//! Snapshots: the whole world as bytes, and back, validated.
//!
//! A snapshot holds every piece of state that decides what the next [`World::step`] does, so a
//! restored world gives the same ids, and bit-identical contacts (same order) and events, as the
//! original stepped the same way. Derived structures are *not* stored: the broad phases are
//! rebuilt from the fat boxes by batch insertion, and the pair table and the per-collider pair
//! links from the pair slots. Nothing read from the bytes is trusted: every shape, pose, index
//! and cross-reference is checked, so that corrupted input gives a [`SnapshotError`], never a
//! panic, and no length read from the bytes allocates more than the bytes could fill.
//!
//! # Format (version 3, little-endian throughout)
//! ```text
//!  magic    8 bytes  "SAPWOOD\0"
//!  version  u32      3
//!  then seven sections, always in this order, each  tag [u8; 4] | byte length u64 | payload
//!   CONF  broad-phase kind (u8 tag + fields), aabb_margin, aabb_margin_ratio, large_extent,
//!         aabb_motion_factor (f32 bits; the motion factor is new in version 3)
//!   SLOT  n u32, then per slot: generation u32, alive u8, flags u8, pose 4×f32, tight box
//!         4×f32, fat box 4×f32, filter 3×u32, user_data u64, shape (kind u8 + fields; a
//!         polygon is its 144 `Pod` bytes as 36 little-endian words; a compound, kind 4, is
//!         a part count u32 (1..=128) then per part a pose 4×f32 and a convex shape)
//!   LIST  free, released, moved: each n u32 + n×u32 slots (order kept: it decides reuse)
//!   PAIR  n u32, per pair slot: ids 2×u32 (both u32::MAX when free), contact u32,
//!         touching u8, sensor u8; then the pair free list, n u32 + n×u32
//!   LINK  per collider slot: n u32 + its pair slots in list order (the order decides the order
//!         in which a removal ends touching pairs, hence the contacts array's order)
//!   CONT  n u32, per contact: owning pair slot u32, manifold (normal, 2 points, count; the ids
//!         `a`, `b` are derived from the pair)
//!   EVNT  pending events, then last step's events: each n u32 + n×(a, b raw ids, kind u8)
//! ```
//! Floats are stored as their bit patterns, so a round trip is exact, NaN payloads included.

use std::num::NonZeroU32;

use glam::Vec2;

use super::{Contact, Event, EventKind, NONE, PairSlot, World, WorldConfig, WorldError};
use crate::broad::{BroadPhaseKind, Pair};
use crate::collide::{Manifold, ManifoldPoint};
use crate::math::{Aabb, Pose, Rot};
use crate::shape::{Capsule, Circle, Compound, Cuboid, MAX_COMPOUND_PARTS, Polygon, Shape, ShapeError};
use crate::storage::{ColliderId, Filter, flags};

const MAGIC: [u8; 8] = *b"SAPWOOD\0";
/// The format version this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 3;

const CONF: [u8; 4] = *b"CONF";
const SLOT: [u8; 4] = *b"SLOT";
const LIST: [u8; 4] = *b"LIST";
const PAIR: [u8; 4] = *b"PAIR";
const LINK: [u8; 4] = *b"LINK";
const CONT: [u8; 4] = *b"CONT";
const EVNT: [u8; 4] = *b"EVNT";

/// Smallest encoded sizes of repeated records, used to cap counts read from the bytes before
/// anything is allocated: a count can never claim more records than the remaining bytes hold.
const MIN_SLOT_BYTES: usize = 4 + 1 + 1 + 16 + 16 + 16 + 12 + 8 + 1 + 4;
const PAIR_BYTES: usize = 3 * 4 + 2;
const CONTACT_BYTES: usize = 4 + 4 * (2 + 2 * 4 + 1);
const EVENT_BYTES: usize = 4 * 4 + 1;

/// Why bytes could not be turned into a [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The bytes do not start with the snapshot magic.
    BadMagic,
    /// A snapshot format version this build cannot read.
    UnsupportedVersion(u32),
    /// The bytes end early, or a length or count claims more than the bytes hold.
    Truncated,
    /// A section tag is not the one expected at this place.
    UnexpectedSection {
        /// The tag expected.
        expected: [u8; 4],
        /// The tag found.
        found: [u8; 4],
    },
    /// A section's payload is longer than its content.
    SectionLength([u8; 4]),
    /// Bytes follow the last section.
    TrailingBytes,
    /// The stored [`WorldConfig`] is refused by [`World::with_config`], or names an unknown
    /// broad phase.
    InvalidConfig,
    /// A slot's shape fails [`Shape::validate`] (or has an unknown kind tag).
    InvalidShape {
        /// The slot index.
        slot: u32,
        /// What is wrong with it.
        error: ShapeError,
    },
    /// A slot's pose fails the checks of [`World::set_pose`].
    InvalidPose {
        /// The slot index.
        slot: u32,
        /// [`WorldError::InvalidPose`] or [`WorldError::OutOfRange`].
        error: WorldError,
    },
    /// Values that are each well-formed contradict one another; names the broken invariant.
    Inconsistent(&'static str),
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tag = |t: &[u8; 4]| String::from_utf8_lossy(t).into_owned();
        match self {
            SnapshotError::BadMagic => f.write_str("not a sapwood snapshot (bad magic)"),
            SnapshotError::UnsupportedVersion(v) => {
                write!(f, "snapshot version {v} is not supported (expected {SNAPSHOT_VERSION})")
            }
            SnapshotError::Truncated => f.write_str("snapshot is truncated or a length is out of range"),
            SnapshotError::UnexpectedSection { expected, found } => {
                write!(f, "expected section {:?}, found {:?}", tag(expected), tag(found))
            }
            SnapshotError::SectionLength(t) => write!(f, "section {:?} has unread bytes", tag(t)),
            SnapshotError::TrailingBytes => f.write_str("bytes follow the last snapshot section"),
            SnapshotError::InvalidConfig => f.write_str("snapshot holds an invalid world config"),
            SnapshotError::InvalidShape { slot, error } => write!(f, "slot {slot}: invalid shape: {error}"),
            SnapshotError::InvalidPose { slot, error } => write!(f, "slot {slot}: {error}"),
            SnapshotError::Inconsistent(what) => write!(f, "inconsistent snapshot: {what}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

type Result<T, E = SnapshotError> = std::result::Result<T, E>;

fn bad(what: &'static str) -> SnapshotError {
    SnapshotError::Inconsistent(what)
}

// -------------------------------------------------------------------------------------------
// Writing
// -------------------------------------------------------------------------------------------

/// Appends little-endian values to a byte vector.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }
    fn aabb(&mut self, a: &Aabb) {
        self.vec2(a.min);
        self.vec2(a.max);
    }
    fn len(&mut self, n: usize) {
        // Every list is indexed by u32 inside the world, so its length fits.
        self.u32(n as u32);
    }
    fn u32s(&mut self, vs: &[u32]) {
        self.len(vs.len());
        for &v in vs {
            self.u32(v);
        }
    }
    /// Writes a section: tag, a length placeholder patched once the payload is written.
    fn section(&mut self, tag: [u8; 4], body: impl FnOnce(&mut Self)) {
        self.out.extend_from_slice(&tag);
        let at = self.out.len();
        self.u64(0);
        body(self);
        let len = (self.out.len() - at - 8) as u64;
        self.out[at..at + 8].copy_from_slice(&len.to_le_bytes());
    }
    fn shape(&mut self, s: &Shape) {
        match s {
            Shape::Compound(c) => {
                self.u8(4);
                self.len(c.parts().len());
                for (pose, part) in c.parts() {
                    self.vec2(pose.p);
                    self.f32(pose.q.c);
                    self.f32(pose.q.s);
                    self.shape(part);
                }
            }
            Shape::Circle(c) => {
                self.u8(0);
                self.f32(c.radius);
            }
            Shape::Capsule(c) => {
                self.u8(1);
                self.vec2(c.a);
                self.vec2(c.b);
                self.f32(c.radius);
            }
            Shape::Cuboid(b) => {
                self.u8(2);
                self.vec2(b.half_extents);
            }
            Shape::Polygon(p) => {
                self.u8(3);
                // Pod: the polygon is exactly 36 four-byte words; writing them one by one keeps
                // the format little-endian on any host.
                for &w in bytemuck::cast_slice::<Polygon, u32>(std::slice::from_ref(p)) {
                    self.u32(w);
                }
            }
        }
    }
    fn event(&mut self, e: &Event) {
        self.u32(e.a.index());
        self.u32(e.a.generation());
        self.u32(e.b.index());
        self.u32(e.b.generation());
        self.u8(e.kind as u8);
    }
}

impl World {
    /// The whole world as bytes (see the [format](crate::snapshot)). [`World::from_bytes`]
    /// restores it: same ids, and the same contacts and events from every following step.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    ///
    /// let mut world = World::new();
    /// let id = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(Vec2::X)))?;
    /// let copy = World::from_bytes(&world.to_bytes())?;
    /// assert_eq!(copy.pose(id)?, world.pose(id)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_snapshot(&mut out);
        out
    }

    /// Appends the snapshot to `out`, so that a caller saving every frame reuses one buffer.
    pub fn write_snapshot(&self, out: &mut Vec<u8>) {
        let mut w = Writer { out };
        w.out.extend_from_slice(&MAGIC);
        w.u32(SNAPSHOT_VERSION);
        let c = &self.config;
        w.section(CONF, |w| {
            match c.broad_phase {
                BroadPhaseKind::BruteForce => w.u8(0),
                BroadPhaseKind::SortSweep => w.u8(1),
                BroadPhaseKind::UniformGrid { bounds, cell_size } => {
                    w.u8(2);
                    w.aabb(&bounds);
                    w.f32(cell_size);
                }
                BroadPhaseKind::SpatialHash { cell_size } => {
                    w.u8(3);
                    w.f32(cell_size);
                }
                BroadPhaseKind::Quadtree { bounds } => {
                    w.u8(4);
                    w.aabb(&bounds);
                }
                BroadPhaseKind::DynamicTree => w.u8(5),
                BroadPhaseKind::IncrementalSap => w.u8(6),
            }
            w.f32(c.aabb_margin);
            w.f32(c.aabb_margin_ratio);
            w.f32(c.large_extent);
            w.f32(c.aabb_motion_factor);
        });
        let cols = &self.cols;
        w.section(SLOT, |w| {
            w.len(cols.generation.len());
            for s in 0..cols.generation.len() {
                w.u32(cols.generation[s]);
                w.u8(u8::from(cols.alive[s]));
                w.u8(cols.flags[s]);
                let pose = &cols.pose[s];
                w.vec2(pose.p);
                w.f32(pose.q.c);
                w.f32(pose.q.s);
                w.aabb(&cols.aabb[s]);
                w.aabb(&cols.fat[s]);
                let f = &cols.filter[s];
                w.u32(f.category);
                w.u32(f.mask);
                w.u32(f.group as u32);
                w.u64(cols.user_data[s]);
                w.shape(&cols.shape[s]);
            }
        });
        w.section(LIST, |w| {
            w.u32s(&cols.free);
            w.u32s(&self.released);
            w.u32s(&self.moved);
        });
        w.section(PAIR, |w| {
            w.len(self.pairs.len());
            for p in &self.pairs {
                w.u32(p.ids[0]);
                w.u32(p.ids[1]);
                w.u32(p.contact);
                w.u8(u8::from(p.touching));
                w.u8(u8::from(p.sensor));
            }
            w.u32s(&self.free_pairs);
        });
        w.section(LINK, |w| {
            for (s, &head) in cols.pair_head.iter().enumerate() {
                let at = w.out.len();
                w.u32(0);
                let mut n = 0u32;
                let mut p = head;
                while p != NONE {
                    w.u32(p);
                    n += 1;
                    let pair = &self.pairs[p as usize];
                    p = pair.next[World::end_of(pair, s as u32)];
                }
                w.out[at..at + 4].copy_from_slice(&n.to_le_bytes());
            }
        });
        w.section(CONT, |w| {
            w.len(self.contacts.len());
            for (c, &p) in self.contacts.iter().zip(&self.contact_pair) {
                w.u32(p);
                let m = &c.manifold;
                w.vec2(m.normal);
                for pt in &m.points {
                    w.vec2(pt.point);
                    w.f32(pt.depth);
                    w.u32(pt.id);
                }
                w.u32(m.count);
            }
        });
        w.section(EVNT, |w| {
            for list in [&self.pending_events, &self.events] {
                w.len(list.len());
                for e in list.iter() {
                    w.event(e);
                }
            }
        });
    }
}

// -------------------------------------------------------------------------------------------
// Reading
// -------------------------------------------------------------------------------------------

/// Reads little-endian values; every read is bounds-checked and fails with `Truncated`.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.bytes.len() {
            return Err(SnapshotError::Truncated);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad("a boolean byte is neither 0 nor 1")),
        }
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.u32()?))
    }
    fn vec2(&mut self) -> Result<Vec2> {
        Ok(Vec2::new(self.f32()?, self.f32()?))
    }
    fn aabb(&mut self) -> Result<Aabb> {
        Ok(Aabb::new(self.vec2()?, self.vec2()?))
    }
    /// A record count, refused when `count * min_record_bytes` exceeds what is left, so that a
    /// corrupted count never drives a large allocation.
    fn count(&mut self, min_record_bytes: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_record_bytes) > self.bytes.len() {
            return Err(SnapshotError::Truncated);
        }
        Ok(n)
    }
    fn u32s(&mut self) -> Result<Vec<u32>> {
        let n = self.count(4)?;
        (0..n).map(|_| self.u32()).collect()
    }
    /// The payload of the next section, which must carry `tag`.
    fn section(&mut self, tag: [u8; 4]) -> Result<Reader<'a>> {
        let found = self.array::<4>()?;
        if found != tag {
            return Err(SnapshotError::UnexpectedSection { expected: tag, found });
        }
        let len = usize::try_from(self.u64()?).map_err(|_| SnapshotError::Truncated)?;
        Ok(Reader { bytes: self.take(len)? })
    }
    /// Ends a section: every payload byte must have been read.
    fn finish(&self, tag: [u8; 4]) -> Result<()> {
        if self.bytes.is_empty() { Ok(()) } else { Err(SnapshotError::SectionLength(tag)) }
    }
    fn shape(&mut self, slot: u32) -> Result<Shape> {
        let shape = self.shape_unchecked(slot, true)?;
        shape.validate().map_err(|error| SnapshotError::InvalidShape { slot, error })?;
        Ok(shape)
    }
    /// A shape as written; a compound's parts are read with `allow_compound` false, so that
    /// nesting (which [`Compound::new`](crate::Compound::new) refuses anyway) cannot recurse.
    fn shape_unchecked(&mut self, slot: u32, allow_compound: bool) -> Result<Shape> {
        let shape = match self.u8()? {
            4 if allow_compound => {
                // Smallest part record: pose 16 bytes + kind 1 + a circle's 4.
                let n = self.count(16 + 1 + 4)?;
                if n > MAX_COMPOUND_PARTS {
                    return Err(SnapshotError::InvalidShape { slot, error: ShapeError::TooManyParts });
                }
                let mut parts = Vec::with_capacity(n);
                for _ in 0..n {
                    let pose = Pose { p: self.vec2()?, q: Rot { c: self.f32()?, s: self.f32()? } };
                    parts.push((pose, self.shape_unchecked(slot, false)?));
                }
                Shape::Compound(Compound::new(parts).map_err(|error| SnapshotError::InvalidShape { slot, error })?)
            }
            4 => return Err(SnapshotError::InvalidShape { slot, error: ShapeError::NestedCompound }),
            0 => Shape::Circle(Circle { radius: self.f32()? }),
            1 => Shape::Capsule(Capsule { a: self.vec2()?, b: self.vec2()?, radius: self.f32()? }),
            2 => Shape::Cuboid(Cuboid { half_extents: self.vec2()? }),
            3 => {
                let mut poly = <Polygon as bytemuck::Zeroable>::zeroed();
                for w in bytemuck::cast_slice_mut::<Polygon, u32>(std::slice::from_mut(&mut poly)) {
                    *w = self.u32()?;
                }
                Shape::Polygon(poly)
            }
            _ => return Err(bad("unknown shape kind")),
        };
        Ok(shape)
    }
    fn event(&mut self, slots: usize) -> Result<Event> {
        let mut id = || -> Result<ColliderId> {
            let index = self.u32()?;
            let generation = NonZeroU32::new(self.u32()?).ok_or(bad("an event id has generation 0"))?;
            if index as usize >= slots {
                return Err(bad("an event id's slot is out of range"));
            }
            Ok(ColliderId::new(index, generation))
        };
        let (a, b) = (id()?, id()?);
        let kind = match self.u8()? {
            0 => EventKind::ContactBegan,
            1 => EventKind::ContactEnded,
            2 => EventKind::SensorEntered,
            3 => EventKind::SensorExited,
            _ => return Err(bad("unknown event kind")),
        };
        if a.index() >= b.index() {
            return Err(bad("an event's ids are not in ascending slot order"));
        }
        Ok(Event { a, b, kind })
    }
}

/// `a` is either `Aabb::EMPTY` or an ordered box (no NaN) within `bound` of the origin.
fn box_ok(a: &Aabb, bound: f64) -> bool {
    let within = |v: Vec2| f64::from(v.x).abs() <= bound && f64::from(v.y).abs() <= bound;
    *a == Aabb::EMPTY || (a.min.x <= a.max.x && a.min.y <= a.max.y && within(a.min) && within(a.max))
}

/// Bounds on the boxes a world with `config` can hold, so that a corrupted but finite box
/// (1e38, say) never reaches a broad phase. A tight box lies within `TIGHT_BOUND`: a pose is
/// within `MAX_COORDINATE` and a shape point within `sqrt(2) * MAX_SHAPE_SIZE` of it. A fat box
/// is a tight box grown by at most `margin + ratio * size`, and on one side by the motion reach,
/// at most `size`, with `size <= 2 * TIGHT_BOUND`.
/// Computed in f64 with a factor of two to spare; an extreme config makes it infinite, which
/// then accepts whatever such a world can really hold.
const TIGHT_BOUND: f64 = 1.0e7 + 1.5e6;
fn fat_bound(config: &WorldConfig) -> f64 {
    let size = 2.0 * TIGHT_BOUND;
    2.0 * (TIGHT_BOUND + f64::from(config.aabb_margin) + f64::from(config.aabb_margin_ratio) * size + size)
}

impl World {
    /// Restores a world written by [`World::to_bytes`] or [`World::write_snapshot`].
    ///
    /// ```
    /// use sapwood::{SnapshotError, World};
    /// assert_eq!(World::from_bytes(b"not a snapshot").err(), Some(SnapshotError::BadMagic));
    /// let bytes = World::new().to_bytes();
    /// assert_eq!(World::from_bytes(&bytes[..bytes.len() - 1]).err(), Some(SnapshotError::Truncated));
    /// ```
    ///
    /// # Errors
    /// A [`SnapshotError`] for bytes that are truncated, of another version, or that do not
    /// describe a valid world (bad shape or pose, out-of-range index, zero generation,
    /// inconsistent free lists, pairs or contacts). Never panics, whatever the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<World, SnapshotError> {
        let mut r = Reader { bytes };
        if r.take(MAGIC.len()).map_err(|_| SnapshotError::BadMagic)? != MAGIC {
            return Err(SnapshotError::BadMagic);
        }
        let version = r.u32()?;
        if version != SNAPSHOT_VERSION {
            return Err(SnapshotError::UnsupportedVersion(version));
        }

        // CONF
        let mut s = r.section(CONF)?;
        let broad_phase = match s.u8()? {
            0 => BroadPhaseKind::BruteForce,
            1 => BroadPhaseKind::SortSweep,
            2 => BroadPhaseKind::UniformGrid { bounds: s.aabb()?, cell_size: s.f32()? },
            3 => BroadPhaseKind::SpatialHash { cell_size: s.f32()? },
            4 => BroadPhaseKind::Quadtree { bounds: s.aabb()? },
            5 => BroadPhaseKind::DynamicTree,
            6 => BroadPhaseKind::IncrementalSap,
            _ => return Err(SnapshotError::InvalidConfig),
        };
        let (aabb_margin, aabb_margin_ratio, large_extent) = (s.f32()?, s.f32()?, s.f32()?);
        let config =
            WorldConfig { broad_phase, aabb_margin, aabb_margin_ratio, large_extent, aabb_motion_factor: s.f32()? };
        s.finish(CONF)?;
        let mut world = World::with_config(config).map_err(|_| SnapshotError::InvalidConfig)?;
        let fat_bound = fat_bound(&config);

        // SLOT
        let mut s = r.section(SLOT)?;
        let n = s.count(MIN_SLOT_BYTES)?;
        let cols = &mut world.cols;
        for v in [&mut cols.generation, &mut cols.pair_head] {
            v.reserve_exact(n);
        }
        for slot in 0..n as u32 {
            let generation = s.u32()?;
            if generation == 0 {
                return Err(bad("a slot has generation 0"));
            }
            let alive = s.bool()?;
            let f = s.u8()?;
            let pose = Pose { p: s.vec2()?, q: Rot { c: s.f32()?, s: s.f32()? } };
            // Dead slots keep the pose they had, which was checked when it was set.
            World::check_pose(&pose).map_err(|error| SnapshotError::InvalidPose { slot, error })?;
            let (aabb, fat) = (s.aabb()?, s.aabb()?);
            let filter = Filter { category: s.u32()?, mask: s.u32()?, group: s.u32()? as i32 };
            let user_data = s.u64()?;
            let shape = s.shape(slot)?;

            if !box_ok(&aabb, 2.0 * TIGHT_BOUND) || !box_ok(&fat, fat_bound) {
                return Err(bad("a box is unordered, NaN or out of range"));
            }
            if !alive {
                // `Columns::release` clears the flags.
                if f != 0 {
                    return Err(bad("a dead slot has flags"));
                }
            } else {
                if f & !(flags::STATIC | flags::SENSOR | flags::IN_TREE | flags::MOVED) != 0 {
                    return Err(bad("unknown flag bits"));
                }
                if fat == Aabb::EMPTY {
                    // Inserted since the last step: in no structure yet, waiting in `moved`.
                    if aabb != Aabb::EMPTY || f & flags::MOVED == 0 || f & flags::IN_TREE != 0 {
                        return Err(bad("a collider inserted since the last step is not marked new"));
                    }
                } else {
                    if aabb == Aabb::EMPTY || !fat.contains(&aabb) {
                        return Err(bad("a tight box is outside its fat box"));
                    }
                    // Unmoved since the last step: the tight box is exactly what the step
                    // computed from this pose and shape.
                    if f & flags::MOVED == 0 && aabb != shape.aabb(&pose) {
                        return Err(bad("a tight box disagrees with its pose and shape"));
                    }
                    if f & flags::STATIC != 0 && f & flags::IN_TREE == 0 {
                        return Err(bad("a static collider is not in the tree"));
                    }
                }
                cols.alive_count += 1;
            }
            cols.generation.push(generation);
            cols.alive.push(alive);
            cols.flags.push(f);
            cols.pose.push(pose);
            cols.aabb.push(aabb);
            cols.fat.push(fat);
            cols.filter.push(filter);
            cols.user_data.push(user_data);
            cols.shape.push(shape);
            cols.pair_head.push(NONE);
        }
        s.finish(SLOT)?;
        let placed = |cols: &crate::storage::Columns, i: usize| cols.alive[i] && cols.fat[i] != Aabb::EMPTY;

        // LIST
        let mut s = r.section(LIST)?;
        cols.free = s.u32s()?;
        world.released = s.u32s()?;
        world.moved = s.u32s()?;
        s.finish(LIST)?;
        let cols = &world.cols;
        // Every dead slot is in exactly one of `free` (reusable) and `released` (removed since
        // the last step, reusable after it); no live slot is in either.
        let mut seen = vec![false; n];
        for &slot in cols.free.iter().chain(&world.released) {
            let i = slot as usize;
            if i >= n || cols.alive[i] || std::mem::replace(&mut seen[i], true) {
                return Err(bad("free and released lists do not partition the dead slots"));
            }
        }
        if seen.iter().filter(|&&x| x).count() != n - cols.alive_count as usize {
            return Err(bad("a dead slot is in neither the free nor the released list"));
        }
        // `moved` may list dead slots (removed after moving): the step skips them.
        seen.fill(false);
        for &slot in &world.moved {
            let i = slot as usize;
            if i >= n {
                return Err(bad("a moved slot is out of range"));
            }
            seen[i] = true;
        }
        if (0..n).any(|i| cols.alive[i] && cols.flags[i] & flags::MOVED != 0 && !seen[i]) {
            return Err(bad("a collider marked moved is missing from the moved list"));
        }

        // PAIR
        let mut s = r.section(PAIR)?;
        let np = s.count(PAIR_BYTES)?;
        world.pairs.reserve_exact(np);
        for _ in 0..np {
            let ids = [s.u32()?, s.u32()?];
            let contact = s.u32()?;
            let (touching, sensor) = (s.bool()?, s.bool()?);
            let pair = PairSlot { ids, next: [NONE; 2], prev: [NONE; 2], contact, touching, sensor };
            if ids != [NONE, NONE] {
                let [a, b] = ids.map(|x| x as usize);
                if a >= b || b >= n {
                    return Err(bad("a pair's slots are out of range or out of order"));
                }
                if !placed(cols, a) || !placed(cols, b) {
                    return Err(bad("a pair names a dead or unplaced collider"));
                }
                let (fa, fb) = (cols.flags[a], cols.flags[b]);
                if fa & fb & flags::STATIC != 0 || !cols.filter[a].pairs_with(&cols.filter[b]) {
                    return Err(bad("a pair the filters or static flags exclude"));
                }
                if sensor != ((fa | fb) & flags::SENSOR != 0) {
                    return Err(bad("a pair's sensor flag disagrees with its colliders"));
                }
                if !cols.fat[a].overlaps(&cols.fat[b]) {
                    return Err(bad("a pair whose fat boxes do not overlap"));
                }
                if (sensor || !touching) != (contact == NONE) {
                    return Err(bad("a pair's contact index disagrees with its touching state"));
                }
            }
            world.pairs.push(pair);
        }
        world.free_pairs = s.u32s()?;
        s.finish(PAIR)?;
        let mut free = vec![false; np];
        for &p in &world.free_pairs {
            let i = p as usize;
            if i >= np || world.pairs[i].ids != [NONE, NONE] || std::mem::replace(&mut free[i], true) {
                return Err(bad("the pair free list names a live or repeated pair slot"));
            }
        }
        if world.pairs.iter().zip(&free).any(|(p, &f)| !f && p.ids == [NONE, NONE]) {
            return Err(bad("a free pair slot is missing from the pair free list"));
        }
        let mut keys: Vec<Pair> = world.pairs.iter().map(|p| p.ids).filter(|&ids| ids != [NONE, NONE]).collect();
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(bad("two pair slots hold the same pair"));
        }

        // LINK: rebuild every collider's doubly linked pair list from its stored order.
        let mut s = r.section(LINK)?;
        // Bit k of `ends[p]`: pair p has been listed by its collider ids[k].
        let mut ends = vec![0u8; np];
        for slot in 0..n as u32 {
            let len = s.count(4)?;
            let mut prev = NONE;
            for _ in 0..len {
                let p = s.u32()?;
                let pair = world.pairs.get_mut(p as usize).ok_or(bad("a linked pair slot is out of range"))?;
                if pair.ids[0] != slot && pair.ids[1] != slot {
                    return Err(bad("a collider lists a pair it is not part of"));
                }
                let end = World::end_of(pair, slot);
                if ends[p as usize] & (1 << end) != 0 {
                    return Err(bad("a collider lists a pair twice"));
                }
                ends[p as usize] |= 1 << end;
                pair.prev[end] = prev;
                if prev == NONE {
                    world.cols.pair_head[slot as usize] = p;
                } else {
                    let pp = &mut world.pairs[prev as usize];
                    let pend = World::end_of(pp, slot);
                    pp.next[pend] = p;
                }
                prev = p;
            }
        }
        s.finish(LINK)?;
        if world.pairs.iter().zip(&ends).any(|(p, &e)| p.ids != [NONE, NONE] && e != 3) {
            return Err(bad("a pair is missing from a collider's list"));
        }

        // CONT
        let mut s = r.section(CONT)?;
        let nc = s.count(CONTACT_BYTES)?;
        world.contacts.reserve_exact(nc);
        world.contact_pair.reserve_exact(nc);
        for i in 0..nc as u32 {
            let p = s.u32()?;
            let normal = s.vec2()?;
            let mut points = [ManifoldPoint::default(); 2];
            for pt in &mut points {
                *pt = ManifoldPoint { point: s.vec2()?, depth: s.f32()?, id: s.u32()? };
            }
            let manifold = Manifold { normal, points, count: s.u32()? };
            // `Manifold::points` slices by `count`: more than two would panic there.
            if !(1..=2).contains(&manifold.count) {
                return Err(bad("a contact's point count is not 1 or 2"));
            }
            if !normal.is_finite() || points.iter().any(|p| !p.point.is_finite() || !p.depth.is_finite()) {
                return Err(bad("a contact's manifold is not finite"));
            }
            let pair = world.pairs.get(p as usize).ok_or(bad("a contact's pair slot is out of range"))?;
            if pair.ids == [NONE, NONE] || pair.contact != i {
                return Err(bad("a contact and its pair do not point at each other"));
            }
            let [a, b] = pair.ids;
            world.contacts.push(Contact { a: world.cols.id(a).to_raw(), b: world.cols.id(b).to_raw(), manifold });
            world.contact_pair.push(p);
        }
        s.finish(CONT)?;
        for (p, pair) in world.pairs.iter().enumerate() {
            if pair.ids != [NONE, NONE]
                && pair.contact != NONE
                && world.contact_pair.get(pair.contact as usize) != Some(&(p as u32))
            {
                return Err(bad("a touching pair's contact is missing or owned by another pair"));
            }
        }

        // EVNT
        let mut s = r.section(EVNT)?;
        for list in [&mut world.pending_events, &mut world.events] {
            let ne = s.count(EVENT_BYTES)?;
            list.reserve_exact(ne);
            for _ in 0..ne {
                list.push(s.event(n)?);
            }
        }
        s.finish(EVNT)?;
        if !r.bytes.is_empty() {
            return Err(SnapshotError::TrailingBytes);
        }

        world.rebuild_structures(&keys)?;
        Ok(world)
    }

    /// Rebuilds everything derived from the columns and pair slots: the pair table, the
    /// movers' broad phase, the movers' tree and the static tree, each by one batch insert in
    /// slot order. The movers' broad phase then reports every overlapping pair as begun; the
    /// pair slots already hold that state, so the report is only used as a check and dropped.
    ///
    /// The check: the live pair slots (`keys`, sorted) must be exactly the candidate pairs the
    /// structures find (fat boxes overlap, filters allow, not both static), as in a world that
    /// got there by stepping. A snapshot with a pair slot missing would otherwise restore into a
    /// world that silently never reports that pair.
    fn rebuild_structures(&mut self, keys: &[Pair]) -> Result<()> {
        self.pair_table.reserve(keys.len());
        for (p, pair) in self.pairs.iter().enumerate() {
            if pair.ids != [NONE, NONE] {
                self.pair_table.insert(pair.ids, p as u32);
            }
        }
        let (mut in_tree, mut movers) = (Vec::new(), Vec::new());
        for s in 0..self.cols.generation.len() {
            let fat = self.cols.fat[s];
            // Colliders inserted since the last step (empty fat box) join at the next step.
            if self.cols.alive[s] && fat != Aabb::EMPTY {
                let list = if self.cols.flags[s] & flags::IN_TREE != 0 { &mut in_tree } else { &mut movers };
                list.push((s as u32, fat));
            }
        }
        self.tree.insert_batch(&in_tree);
        self.movers.insert_batch(&movers);
        for &(slot, _) in &movers {
            self.mover_tree.touch(slot);
        }
        let mut found = std::mem::take(&mut self.scratch.began);
        found.clear();
        if !movers.is_empty() {
            // An empty broad phase has no pairs to report.
            self.movers.update_pairs(&mut found, &mut self.scratch.ended);
            self.scratch.ended.clear();
        }
        // Pairs with a tree resident, found the way the step finds them.
        for &(slot, fat) in &in_tree {
            self.query_both_trees(&fat);
            found.extend(self.scratch.query_hits.iter().filter(|&&o| o != slot).map(|&o| crate::broad::pair(slot, o)));
        }
        let cols = &self.cols;
        found.retain(|&[a, b]| {
            let (a, b) = (a as usize, b as usize);
            cols.flags[a] & cols.flags[b] & flags::STATIC == 0 && cols.filter[a].pairs_with(&cols.filter[b])
        });
        found.sort_unstable();
        found.dedup();
        let same = found == keys;
        found.clear();
        self.scratch.began = found;
        self.scratch.query_hits.clear();
        if same { Ok(()) } else { Err(bad("the pair slots are not the pairs whose fat boxes overlap")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ColliderDesc;

    fn sample() -> World {
        // Brute force keeps these codec tests independent of the SAP and tree implementations.
        let config = WorldConfig { broad_phase: BroadPhaseKind::BruteForce, ..WorldConfig::default() };
        let mut w = World::with_config(config).unwrap();
        let shapes = [
            Shape::circle(0.5).unwrap(),
            Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.5), 0.25).unwrap(),
            Shape::cuboid(Vec2::new(1.0, 2.0)).unwrap(),
            Shape::polygon(&[Vec2::ZERO, Vec2::X, Vec2::new(0.3, 1.0), Vec2::new(-0.5, 0.4)], 0.1).unwrap(),
        ];
        let mut ids = Vec::new();
        for i in 0..12 {
            let mut d =
                ColliderDesc::new(shapes[i % 4].clone(), Pose::new(Vec2::new(i as f32, -(i as f32)), 0.1 * i as f32));
            d.is_static = i % 5 == 0;
            d.sensor = i % 7 == 3;
            d.user_data = 1000 + i as u64;
            d.filter.group = i as i32 - 6;
            ids.push(w.insert(d).unwrap());
        }
        w.remove(ids[4]).unwrap();
        w.remove(ids[9]).unwrap();
        w
    }

    /// Every field the codec stores, compared field by field (links included).
    fn assert_same(a: &World, b: &World) {
        let (ca, cb) = (&a.cols, &b.cols);
        assert_eq!(a.config, b.config);
        assert_eq!(ca.generation, cb.generation);
        assert_eq!(ca.alive, cb.alive);
        assert_eq!(ca.flags, cb.flags);
        assert_eq!(ca.pose, cb.pose);
        assert_eq!(ca.shape, cb.shape);
        assert_eq!(ca.aabb, cb.aabb);
        assert_eq!(ca.fat, cb.fat);
        assert_eq!(ca.filter, cb.filter);
        assert_eq!(ca.user_data, cb.user_data);
        assert_eq!(ca.pair_head, cb.pair_head);
        assert_eq!(ca.free, cb.free);
        assert_eq!(ca.alive_count, cb.alive_count);
        assert_eq!(a.released, b.released);
        assert_eq!(a.moved, b.moved);
        assert_eq!(a.free_pairs, b.free_pairs);
        assert_eq!(a.pairs.len(), b.pairs.len());
        assert_eq!(a.contacts, b.contacts);
        assert_eq!(a.contact_pair, b.contact_pair);
        assert_eq!(a.events, b.events);
        assert_eq!(a.pending_events, b.pending_events);
    }

    #[test]
    fn unstepped_world_round_trips_field_by_field() {
        let w = sample();
        let bytes = w.to_bytes();
        let r = World::from_bytes(&bytes).unwrap();
        assert_same(&w, &r);
        assert_eq!(r.to_bytes(), bytes);
        // write_snapshot appends.
        let mut buf = vec![7u8];
        w.write_snapshot(&mut buf);
        assert_eq!(&buf[1..], &bytes[..]);
    }

    #[test]
    fn every_config_round_trips() {
        let kinds = [
            BroadPhaseKind::BruteForce,
            BroadPhaseKind::SortSweep,
            BroadPhaseKind::UniformGrid { bounds: Aabb::new(Vec2::splat(-5.0), Vec2::splat(5.0)), cell_size: 0.5 },
            BroadPhaseKind::SpatialHash { cell_size: 2.0 },
            BroadPhaseKind::Quadtree { bounds: Aabb::new(Vec2::splat(-5.0), Vec2::splat(7.0)) },
            BroadPhaseKind::DynamicTree,
            BroadPhaseKind::IncrementalSap,
        ];
        for broad_phase in kinds {
            let config = WorldConfig {
                broad_phase,
                aabb_margin: 0.125,
                aabb_margin_ratio: 0.5,
                large_extent: 99.0,
                aabb_motion_factor: 3.0,
            };
            let w = World::with_config(config).unwrap();
            assert_eq!(World::from_bytes(&w.to_bytes()).unwrap().config, config);
        }
    }

    #[test]
    fn every_truncation_fails() {
        let bytes = sample().to_bytes();
        for len in 0..bytes.len() {
            assert!(World::from_bytes(&bytes[..len]).is_err(), "prefix of {len} bytes accepted");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(World::from_bytes(&long).err(), Some(SnapshotError::TrailingBytes));
    }

    #[test]
    fn named_corruptions_are_caught() {
        let w = sample();
        let bytes = w.to_bytes();
        let mut v = bytes.clone();
        v[8] = 1; // version 1 stored a per-pair queue stamp, which version 2 dropped
        assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::UnsupportedVersion(1)));
        // A count far beyond the bytes: refused before allocating.
        let slot_count_at = bytes.windows(4).position(|t| t == SLOT).unwrap() + 12;
        let mut v = bytes.clone();
        v[slot_count_at..slot_count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(World::from_bytes(&v).err(), Some(SnapshotError::Truncated));
        // The first slot's generation set to zero.
        let mut v = bytes.clone();
        v[slot_count_at + 4..slot_count_at + 8].fill(0);
        assert_eq!(World::from_bytes(&v).err(), Some(bad("a slot has generation 0")));
        // The first slot's circle radius made negative (the shape is last in the record).
        let mut v = bytes.clone();
        let radius_at = slot_count_at + 4 + MIN_SLOT_BYTES - 4;
        assert_eq!(v[radius_at - 1], 0, "the first slot is a circle");
        v[radius_at..radius_at + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
        assert_eq!(
            World::from_bytes(&v).err(),
            Some(SnapshotError::InvalidShape { slot: 0, error: ShapeError::NonPositiveSize })
        );
    }

    #[test]
    fn a_missing_pair_slot_is_refused() {
        // Regression guard: a snapshot whose pair slots miss a candidate pair would restore
        // into a world that never reports that pair (the broad phase believes it known).
        let config = WorldConfig { broad_phase: BroadPhaseKind::BruteForce, ..WorldConfig::default() };
        let mut w = World::with_config(config).unwrap();
        for x in [0.0, 0.9, 5.0] {
            w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(x, 0.0))))
                .unwrap();
        }
        w.step();
        assert_eq!(w.contacts().len(), 1);
        assert!(World::from_bytes(&w.to_bytes()).is_ok());
        let p = w.pair_table.get([0, 1]).unwrap();
        w.destroy_pair(p, false);
        assert_eq!(
            World::from_bytes(&w.to_bytes()).err(),
            Some(bad("the pair slots are not the pairs whose fat boxes overlap"))
        );
    }

    #[test]
    fn errors_display() {
        let e = SnapshotError::UnexpectedSection { expected: SLOT, found: *b"XXXX" };
        assert_eq!(e.to_string(), "expected section \"SLOT\", found \"XXXX\"");
        let e: Box<dyn std::error::Error> = Box::new(SnapshotError::Truncated);
        assert!(e.to_string().contains("truncated"));
    }
}
