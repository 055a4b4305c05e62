//! `World::state_hash`: one 64-bit value for the state that decides every later step.
//!
//! # What is hashed
//! A step's outcome (ids, contacts and their order, events) is a function of the config, the
//! live colliders' columns (generation, flags, pose, a bullet's sweep start, shape, tight and
//! fat boxes, filter, and user data, which the world hands back), every slot's generation and liveness (they decide
//! the ids later inserts get), the slot free lists in order (reuse is last-in first-out), the
//! pair entries (ids, touching, sensor and refused state, contact index, and the list links, whose order
//! decides the order in which a removal ends pairs), the pair free list in order, the contacts
//! array in order with its owning pairs (the solver's stored impulses included: the next steps
//! carry them), and the events pending from removals. All of that is
//! hashed, and the snapshot stores all of it.
//!
//! Left out, because no later step reads it: the last step's events and timings (the next
//! step clears them), the moved list (the step reads it only through the MOVED flags, in slot
//! order, so its order and duplicates do not matter), dead slots' leftover pose, shape, boxes,
//! filter and user data (overwritten on reuse), the stale links of free pair entries, and every
//! derived structure (broad phases, trees, pair table): a snapshot rebuilds those from the
//! columns, and a restored world steps identically, so they cannot matter either.
//!
//! # Cost model
//! Columns are fed to XXH3 (seed fixed, no addresses, no hash-map order) as whole slices of
//! their `Pod` bytes over each run of live slots, so a world with few holes hashes at memory
//! speed; shapes and pair entries, which are not `Pod`, go through a small buffer. Bytes are the
//! host's: the value is the same on every little-endian host, and differs (consistently) on a
//! big-endian one.

use bytemuck::NoUninit;
use xxhash_rust::xxh3::Xxh3;

use super::{World, WorldConfig};
use crate::broad::BroadPhaseKind;
use crate::index::NULL_INDEX;
use crate::shape::Shape;
use crate::storage::flags;

/// Fixed, so that the value is the same in every run and every process.
const SEED: u64 = 0x5A9_300D_57A7_E000;

/// Small writes gathered before they reach the hasher: one streaming update costs about as
/// much as copying a few dozen bytes, and a pair entry or a circle is only 4 to 32.
struct Sink {
    hasher: Xxh3,
    buf: [u8; 1024],
    len: usize,
}

impl Sink {
    fn new() -> Self {
        Self { hasher: Xxh3::with_seed(SEED), buf: [0; 1024], len: 0 }
    }

    fn flush(&mut self) {
        self.hasher.update(&self.buf[..self.len]);
        self.len = 0;
    }

    fn bytes(&mut self, b: &[u8]) {
        if self.len + b.len() > self.buf.len() {
            self.flush();
        }
        if b.len() >= self.buf.len() {
            self.hasher.update(b);
        } else {
            self.buf[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        }
    }

    fn slice<T: NoUninit>(&mut self, v: &[T]) {
        self.bytes(bytemuck::cast_slice(v));
    }

    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    /// A list's length, then its items: keeps `[a] [b, c]` apart from `[a, b] [c]`.
    fn list<T: NoUninit>(&mut self, v: &[T]) {
        self.u32(v.len() as u32);
        self.slice(v);
    }

    fn finish(mut self) -> u64 {
        self.flush();
        self.hasher.digest()
    }

    fn config(&mut self, c: &WorldConfig) {
        let (tag, rest): (u32, [f32; 5]) = match c.broad_phase {
            BroadPhaseKind::BruteForce => (0, [0.0; 5]),
            BroadPhaseKind::SortSweep => (1, [0.0; 5]),
            BroadPhaseKind::UniformGrid { bounds: b, cell_size } => {
                (2, [b.min.x, b.min.y, b.max.x, b.max.y, cell_size])
            }
            BroadPhaseKind::SpatialHash { cell_size } => (3, [cell_size, 0.0, 0.0, 0.0, 0.0]),
            BroadPhaseKind::Quadtree { bounds: b } => (4, [b.min.x, b.min.y, b.max.x, b.max.y, 0.0]),
            BroadPhaseKind::DynamicTree => (5, [0.0; 5]),
            BroadPhaseKind::IncrementalSap => (6, [0.0; 5]),
        };
        self.u32(tag);
        self.slice(&rest);
        self.slice(&[c.aabb_margin, c.aabb_margin_ratio, c.aabb_motion_factor, c.large_extent]);
        self.u32(u32::from(c.weld_static_edges));
        self.u32(u32::from(c.sensors_detect_sensors) | u32::from(c.sensors_detect_static) << 1);
    }

    fn shape(&mut self, s: &Shape) {
        match s {
            Shape::Circle(c) => {
                self.u32(0);
                self.f32(c.radius);
            }
            Shape::Capsule(c) => {
                self.u32(1);
                self.slice(&[c.a.x, c.a.y, c.b.x, c.b.y, c.radius]);
            }
            Shape::Segment(c) => {
                self.u32(5);
                self.slice(&[c.a.x, c.a.y, c.b.x, c.b.y, c.radius]);
            }
            Shape::Chain(c) => {
                self.u32(6);
                let o = c.options();
                self.u32(u32::from(o.closed) | u32::from(o.one_sided) << 1);
                self.u32(c.vertices().len() as u32);
                self.slice(c.vertices());
            }
            Shape::Cuboid(b) => {
                self.u32(2);
                self.slice(&[b.half_extents.x, b.half_extents.y]);
            }
            Shape::Polygon(p) => {
                self.u32(3);
                self.slice(std::slice::from_ref(&**p));
            }
            Shape::Compound(c) => {
                self.u32(4);
                self.u32(c.parts().len() as u32);
                for (pose, part) in c.parts() {
                    self.slice(std::slice::from_ref(pose));
                    self.shape(part);
                }
            }
        }
    }
}

impl World {
    /// A 64-bit hash of everything that decides what the following steps do (see below), for
    /// rollback and lockstep games: peers that exchange it every frame find the first frame at
    /// which their worlds diverged. Two worlds that got to the same state the same way (any
    /// thread count, any run, or through a snapshot round trip) give the same value; any
    /// difference in a collider's pose, shape, filter, static, sensor or bullet flag, a
    /// bullet's sweep start, user data,
    /// membership (an insert or a removal) or id, in the pairs, the contacts or the pending
    /// events gives another value, except with the 2^-64 chance of a collision.
    ///
    /// Hashed: the config (welding on or off included), the live colliders' columns, every slot's generation, the slot and
    /// pair free lists in order, the pair entries with their list order, the contacts in order
    /// (with the impulses stored by [`World::store_impulses`]), and the events pending from
    /// removals. Not hashed, because no later step reads them: the
    /// last step's [`World::events`] and timings, leftovers of removed colliders and freed pair
    /// slots, and the broad-phase structures and welded static edges, which are derived from
    /// the hashed statics (a snapshot rebuilds them).
    ///
    /// Cost: one pass over the columns, pairs and contacts at memory speed (XXH3), linear in
    /// their count. The value is the same on every little-endian host.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    ///
    /// let mut world = World::new();
    /// let id = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::IDENTITY))?;
    /// world.step();
    /// let copy = World::from_bytes(&world.to_bytes())?;
    /// assert_eq!(copy.state_hash(), world.state_hash());
    /// let before = world.state_hash();
    /// world.set_pose(id, Pose::from_translation(Vec2::new(0.0, 1e-3)))?;
    /// assert_ne!(world.state_hash(), before);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = Sink::new();
        h.config(&self.config);
        let cols = &self.cols;
        h.list(&cols.generation);
        h.list(&cols.alive);
        // Runs of live slots, each column as one slice.
        let n = cols.alive.len();
        let mut start = 0;
        while start < n {
            if !cols.alive[start] {
                start += 1;
                continue;
            }
            let end = (start..n).find(|&s| !cols.alive[s]).unwrap_or(n);
            let run = start..end;
            h.slice(&cols.flags[run.clone()]);
            h.slice(&cols.pose[run.clone()]);
            h.slice(&cols.aabb[run.clone()]);
            h.slice(&cols.fat[run.clone()]);
            h.slice(&cols.filter[run.clone()]);
            h.slice(&cols.user_data[run.clone()]);
            h.slice(&cols.pair_head[run.clone()]);
            // Only bullets have a sweep start (the others hold the identity), so only theirs
            // can differ between two worlds.
            for s in run.clone() {
                if cols.flags[s] & flags::BULLET != 0 {
                    h.slice(std::slice::from_ref(&cols.sweep_start[s]));
                }
            }
            for shape in &cols.shape[run] {
                h.shape(shape);
            }
            start = end;
        }
        h.list(&cols.free);
        h.list(&self.released);
        h.u32(self.pairs.len() as u32);
        for p in &self.pairs {
            if p.is_free() {
                h.u32(NULL_INDEX);
                continue;
            }
            let state = u32::from(p.touching) | u32::from(p.sensor) << 1 | u32::from(p.refused) << 2;
            let [a, b] = p.key();
            let links = [p.next[0], p.next[1], p.prev[0], p.prev[1]].map(|q| q.get());
            h.slice(&[a, b, links[0], links[1], links[2], links[3], p.contact.get(), state]);
        }
        h.list(&self.free_pairs);
        h.list(&self.contacts);
        h.slice(&self.contact_pair);
        h.u32(self.pending_events.len() as u32);
        for e in &self.pending_events {
            h.slice(&[e.a.index(), e.a.generation(), e.b.index(), e.b.generation(), e.kind as u32]);
        }
        h.finish()
    }
}
