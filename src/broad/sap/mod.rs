//! Persistent incremental sweep-and-prune on x and y (Terdiman, "Sweep-and-prune", 2007; the
//! Jitter and PhysX broad phases).
//!
//! # Layout
//! Each axis keeps every stored box's two endpoints in one flat array, sorted between calls:
//!
//! ```text
//!   endpoint (u64):  | key: u32 (order-preserving f32 bits) | is_max: 1 bit | id: 31 bits |
//!   ends[axis]:      [ min 3 | min 0 | max 3 | min 7 | max 0 | max 7 | ... ]   ascending u64
//!   span[axis]:      beside each endpoint, its box's interval on the other axis
//!   (a moved endpoint is found by binary search: the endpoints are unique)
//! ```
//! Sorting the packed `u64` orders endpoints by coordinate, then **min before max** at equal
//! coordinates, then by id. So "A's min lies before B's max" is exactly `a.min <= b.max`, the
//! inclusive touching rule of [`Aabb::overlaps`], and the order is total: the sorted array is a
//! function of the stored boxes alone, never of history or thread count. `-0.0` is stored as
//! `+0.0` so that the integer order agrees with `f32` comparison.
//!
//! # Pairs from swaps
//! Two boxes overlap iff, on both axes, each one's min lies before the other's max. Those four
//! "min before max" relations are the only ones that matter, and each is changed only by a swap
//! of that min and that max. So a pair that starts overlapping must have had a swap that put a
//! min before a max ("min passes max") on some axis, and a pair that stops overlapping must have
//! had a swap that put a max before a min ("max passes min") on some axis. The sort records
//! those swaps as candidate pairs, and each candidate is re-decided from the final boxes: add if
//! they overlap, remove if not. Pairs without a candidate did not change.
//!
//! The x and y sorts run concurrently (`par::join`, with the `parallel` feature); each writes
//! only its own axis and its own candidate buffer and reads the boxes. The candidates are then
//! applied serially, x's then y's, each in the order its sort found them. Both lists are the
//! output of a sequential sort of a history-independent array, so the application order, and
//! with it the pair table's layout and every output order, is the same for any thread count.
//!
//! # Deferred work
//! `insert`, `remove` and `update` only record; [`BroadPhase::update_pairs`], [`BroadPhase::pairs`]
//! and [`BroadPhase::query_aabb`] bring the axes up to date in three batched passes: removals
//! (one compaction per axis, pairs dropped in one pass over the table), moves (one insertion
//! sort pass per axis, or, when few boxes moved, each moved endpoint found by binary search and
//! sifted), insertions (sort the new endpoints, merge them in one backward pass, find their
//! pairs by one sweep over x: active lists for a small batch, a forward scan for a large one).
//!
//! Each id keeps the box the caller stored and the box the axes reflect (`prev`); the current
//! pairs are always exactly the overlaps of the `prev` boxes, which lets the sort test a
//! candidate's old membership from two boxes instead of a hash probe.
//!
//! # Pair tracking
//! [`IncrementalSap`] keeps the current pairs in a table and reports every change, the pairs of
//! removed boxes included, as [`BroadPhase`] promises. The world keeps its own pair set; it
//! uses the crate-private `SapWithoutPairSet`, the same structure with only a log of changes,
//! which leaves the pairs of removed boxes to its caller and so is no [`BroadPhase`].
//!
//! # Known weaknesses
//! A box spanning most of an axis overlaps everything on it and is swapped with every endpoint
//! it crosses: keep such colliders (ground planes) in a tree. Region queries are a linear scan
//! of half an axis: queries belong to trees ([`super::DynamicTree`]).
//!
//! Ids must be below 2^31 and should be dense (arrays are indexed by id).
//!
//! # Files
//! `endpoints.rs`: the endpoint encoding and the re-sort of moved boxes. `batch.rs`: batch
//! insertion (merge, sweeps, strips). `pairs.rs`: the two ways of tracking pairs.
//! `validate.rs`: the invariants. `tests.rs`: churn and adversarial tests against brute force.

mod batch;
mod endpoints;
mod pairs;
#[cfg(test)]
mod tests;
mod validate;

use crate::broad::{BroadPhase, Pair};
use crate::math::Aabb;
use crate::par;
use batch::NewPairs;
use bytemuck::Zeroable;
use endpoints::{Axis, MAX_ID, ep_id, ep_is_max, key_of};
use pairs::{ChangeLog, PairSet, Tracking};

/// Per-id state.
const ABSENT: u8 = 0;
/// In the axes and the pair set.
const LIVE: u8 = 1;
/// Inserted, waiting for the next flush to enter the axes.
const PENDING_INSERT: u8 = 2;
/// Removed by the caller, still in the axes until the next flush.
const PENDING_REMOVE: u8 = 3;
/// Being removed by the current flush.
const REMOVING: u8 = 4;

/// Per-id flag: in the moved list since the last flush.
const FLAG_MOVED: u8 = 1;
/// Per-id flag: being inserted by the current flush.
const FLAG_NEW: u8 = 2;

/// The box the caller stored (`cur`) and the box the axes and the pairs reflect (`prev`;
/// equal to `cur` except for boxes moved since the last flush). Invariant: the current pairs
/// are exactly the overlapping pairs of the `prev` boxes of the ids in the axes.
///
/// Side by side in one aligned 32-byte record, so that a swap's candidate test (which needs
/// both) fetches one cache line per box. Keeping `prev` lets the sort know a candidate's old
/// membership from the two boxes, without a lookup in the pair table per candidate.
#[repr(C, align(32))]
#[derive(Clone, Copy, Zeroable)]
pub(crate) struct Boxes {
    cur: Aabb,
    prev: Aabb,
}

/// Lengthens `v` to `n` entries, the new ones zero (`ABSENT`, no flags, no position). Past its
/// capacity it moves to fresh zeroed memory for twice `n`, which the system maps only where it
/// is written: the movers of a world whose slots start past a million statics then cost the
/// pages of their own entries, not a write of every id below theirs.
fn grow_zeroed<T: bytemuck::Zeroable + Copy>(v: &mut Vec<T>, n: usize) {
    if n > v.capacity() {
        let mut fresh = bytemuck::zeroed_vec(2 * n);
        fresh.truncate(n);
        fresh[..v.len()].copy_from_slice(v);
        *v = fresh;
    } else {
        v.resize(n, T::zeroed());
    }
}

/// The sweep-and-prune, generic over how it tracks its pairs (see `pairs.rs`).
#[derive(Clone)]
pub(crate) struct Sap<T> {
    /// The stored boxes of each id (meaningful where `state` is not `ABSENT`).
    boxes: Vec<Boxes>,
    /// `ABSENT`, `LIVE`, `PENDING_INSERT`, `PENDING_REMOVE` or `REMOVING`, per id.
    state: Vec<u8>,
    /// `FLAG_MOVED` / `FLAG_NEW` bits per id.
    flags: Vec<u8>,
    /// x and y.
    axes: [Axis; 2],
    /// The pair set, or the log of pair changes.
    tracking: T,
    /// Number of ids the caller sees as present.
    count: usize,
    /// Ids updated since the last flush (each once, thanks to `FLAG_MOVED`).
    moved: Vec<u32>,
    /// Ids inserted since the last flush (may repeat or be stale; the state decides).
    to_insert: Vec<u32>,
    /// Ids removed since the last flush (may repeat or be stale; the state decides).
    to_remove: Vec<u32>,
    /// Scratch: the ids removed or inserted by the current flush. A field for reuse.
    batch: Vec<u32>,
    /// The insertion sweeps and their scratch space.
    new_pairs: NewPairs,
}

/// The SAP without a pair set, for the world, which keeps its own: it saves a hash table of
/// every overlapping pair and two probes per pair change. `update_pairs` reports every pair
/// that began or ended through inserts and moves, but **not** the pairs of removed boxes, which
/// the caller drops itself; `pairs` recomputes the pairs by a sweep.
pub(crate) type SapWithoutPairSet = Sap<ChangeLog>;

impl<T: Tracking> Sap<T> {
    /// An empty structure.
    pub(crate) fn new() -> Self {
        Self {
            boxes: Vec::new(),
            state: Vec::new(),
            flags: Vec::new(),
            axes: [Axis::new(0), Axis::new(1)],
            tracking: T::default(),
            count: 0,
            moved: Vec::new(),
            to_insert: Vec::new(),
            to_remove: Vec::new(),
            batch: Vec::new(),
            new_pairs: NewPairs::default(),
        }
    }

    /// Number of ids the caller sees as present.
    fn len(&self) -> usize {
        self.count
    }

    /// Makes the id-indexed arrays long enough for `id`.
    fn ensure_id(&mut self, id: u32) {
        assert!(id <= MAX_ID, "IncrementalSap: id {id} does not fit in 31 bits");
        let n = id as usize + 1;
        if n > self.boxes.len() {
            // (`Boxes`, aligned past what the system's zeroed allocation serves, is written.)
            self.boxes.resize(n, Boxes::zeroed());
            grow_zeroed(&mut self.state, n);
            grow_zeroed(&mut self.flags, n);
            for ax in &mut self.axes {
                grow_zeroed(&mut ax.pos, 2 * n);
            }
        }
    }

    /// Records a new box.
    fn insert(&mut self, id: u32, aabb: Aabb) {
        debug_assert!(aabb.is_valid(), "IncrementalSap::insert: invalid box {aabb:?}");
        self.ensure_id(id);
        let i = id as usize;
        self.boxes[i].cur = aabb;
        match self.state[i] {
            ABSENT => {
                self.state[i] = PENDING_INSERT;
                self.to_insert.push(id);
                self.count += 1;
            }
            PENDING_REMOVE if !T::REPORTS_REMOVED => {
                // The caller has dropped the removed box's pairs, so the new box must report all
                // of its pairs as begun, which only an insertion does: finish the removal now.
                // (The world never re-inserts an id before the flush.)
                self.flush_removals();
                self.state[i] = PENDING_INSERT;
                self.to_insert.push(id);
                self.count += 1;
            }
            PENDING_REMOVE => {
                // Removed and re-inserted before a flush: for the pair set this is a move.
                self.state[i] = LIVE;
                self.count += 1;
                if self.flags[i] & FLAG_MOVED == 0 {
                    self.flags[i] |= FLAG_MOVED;
                    self.moved.push(id);
                }
            }
            _ => {
                debug_assert!(false, "IncrementalSap::insert: id {id} already present");
                self.update(id, aabb);
            }
        }
    }

    /// Records many new boxes; they enter the axes as one batch at the next flush.
    pub(crate) fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        self.to_insert.reserve(items.len());
        for &(id, aabb) in items {
            self.insert(id, aabb);
        }
    }

    /// Records a removal.
    pub(crate) fn remove(&mut self, id: u32) {
        let i = id as usize;
        match self.state.get(i).copied().unwrap_or(ABSENT) {
            LIVE => {
                self.state[i] = PENDING_REMOVE;
                self.to_remove.push(id);
                self.count -= 1;
            }
            PENDING_INSERT => {
                // Never reached the axes: forget it (the stale `to_insert` entry is skipped).
                self.state[i] = ABSENT;
                self.count -= 1;
            }
            _ => debug_assert!(false, "IncrementalSap::remove: id {id} not present"),
        }
    }

    /// Records many removals; they leave the axes in one pass at the next flush.
    fn remove_batch(&mut self, ids: &[u32]) {
        self.to_remove.reserve(ids.len());
        for &id in ids {
            self.remove(id);
        }
    }

    /// Records a move.
    pub(crate) fn update(&mut self, id: u32, aabb: Aabb) {
        debug_assert!(aabb.is_valid(), "IncrementalSap::update: invalid box {aabb:?}");
        let i = id as usize;
        match self.state.get(i).copied().unwrap_or(ABSENT) {
            LIVE => {
                self.boxes[i].cur = aabb;
                if self.flags[i] & FLAG_MOVED == 0 {
                    self.flags[i] |= FLAG_MOVED;
                    self.moved.push(id);
                }
            }
            PENDING_INSERT => self.boxes[i].cur = aabb,
            _ => debug_assert!(false, "IncrementalSap::update: id {id} not present"),
        }
    }

    /// Flushes, then appends the pairs that began and ended since the last call, each list in
    /// ascending pair order (deterministic and convenient for the world's event lists).
    pub(crate) fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        self.flush();
        let (b0, e0) = (began.len(), ended.len());
        self.tracking.report(began, ended);
        began[b0..].sort_unstable();
        ended[e0..].sort_unstable();
    }

    /// Flushes, then appends every current pair, without consuming the changes to report.
    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.flush();
        match self.tracking.pair_set() {
            Some(table) => out.extend(table.iter().map(|(p, _)| p)),
            None => out.extend(self.recompute_pairs()),
        }
    }

    /// Flushes, then appends the ids whose boxes overlap `aabb`: a binary search on the x axis
    /// and a linear scan of the shorter side, O(n) in the worst case. This is the SAP's known
    /// weakness; scene queries belong to a tree.
    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.flush();
        let ends = &self.axes[0].ends;
        // Boxes overlapping on x have min.x <= q.max.x (their min lies before the first
        // endpoint above `hi`) and max.x >= q.min.x (their max lies at or after `lo`).
        let hi = ends.partition_point(|&e| e >> 32 <= u64::from(key_of(aabb.max.x)));
        let lo = ends.partition_point(|&e| e >> 32 < u64::from(key_of(aabb.min.x)));
        let (range, want_max) = if hi <= ends.len() - lo { (&ends[..hi], false) } else { (&ends[lo..], true) };
        for &e in range {
            if ep_is_max(e) == want_max {
                let id = ep_id(e);
                if self.boxes[id as usize].cur.overlaps(aabb) {
                    out.push(id);
                }
            }
        }
    }

    /// Brings the axes and the pairs up to date with every recorded mutation.
    fn flush(&mut self) {
        self.flush_removals();
        self.flush_moves();
        self.flush_inserts();
    }

    fn flush_removals(&mut self) {
        if self.to_remove.is_empty() {
            return;
        }
        self.batch.clear();
        for &id in &self.to_remove {
            if self.state[id as usize] == PENDING_REMOVE {
                self.state[id as usize] = REMOVING;
                self.batch.push(id);
            }
        }
        self.to_remove.clear();
        if self.batch.is_empty() {
            return;
        }
        let state = &self.state;
        let [ax, ay] = &mut self.axes;
        par::join(|| ax.compact(state), || ay.compact(state));
        self.tracking.drop_removed(|p| state[p[0] as usize] == REMOVING || state[p[1] as usize] == REMOVING);
        for &id in &self.batch {
            self.state[id as usize] = ABSENT;
        }
    }

    fn flush_moves(&mut self) {
        if self.moved.is_empty() {
            return;
        }
        let (boxes, state, moved) = (&self.boxes, &self.state, &self.moved);
        let [ax, ay] = &mut self.axes;
        par::join(|| ax.resort(boxes, state, moved), || ay.resort(boxes, state, moved));
        for ax in &self.axes {
            for &k in &ax.events {
                let p = crate::broad::pair_table::unpack(k);
                self.tracking.candidate(p, &self.boxes[p[0] as usize], &self.boxes[p[1] as usize]);
            }
        }
        for &id in &self.moved {
            let i = id as usize;
            self.flags[i] &= !FLAG_MOVED;
            self.boxes[i].prev = self.boxes[i].cur;
        }
        self.moved.clear();
    }

    fn flush_inserts(&mut self) {
        if self.to_insert.is_empty() {
            return;
        }
        self.batch.clear();
        for &id in &self.to_insert {
            let i = id as usize;
            if self.state[i] == PENDING_INSERT {
                self.state[i] = LIVE;
                self.flags[i] |= FLAG_NEW;
                self.boxes[i].prev = self.boxes[i].cur;
                self.batch.push(id);
            }
        }
        self.to_insert.clear();
        if self.batch.is_empty() {
            return;
        }
        let (boxes, batch) = (&self.boxes, &self.batch);
        let [ax, ay] = &mut self.axes;
        par::join(|| ax.merge(boxes, batch), || ay.merge(boxes, batch));
        self.new_pairs.sweep(&self.axes[0], &self.boxes, &self.flags, self.batch.len());
        for &id in &self.batch {
            self.flags[id as usize] &= !FLAG_NEW;
        }
        self.tracking.inserted(&self.new_pairs.found);
    }
}

/// Persistent incremental sweep-and-prune on x and y, keeping the set of current pairs. See the
/// module documentation.
#[derive(Clone)]
pub struct IncrementalSap(Sap<PairSet>);

impl IncrementalSap {
    /// An empty structure.
    #[must_use]
    pub fn new() -> Self {
        Self(Sap::new())
    }
}

impl Default for IncrementalSap {
    fn default() -> Self {
        Self::new()
    }
}

impl BroadPhase for IncrementalSap {
    fn name(&self) -> &'static str {
        "sap"
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        self.0.insert(id, aabb);
    }

    fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        self.0.insert_batch(items);
    }

    fn remove(&mut self, id: u32) {
        self.0.remove(id);
    }

    fn remove_batch(&mut self, ids: &[u32]) {
        self.0.remove_batch(ids);
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        self.0.update(id, aabb);
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        self.0.update_pairs(began, ended);
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.0.pairs(out);
    }

    /// A binary search on the x axis and a linear scan of the shorter side: O(n) in the worst
    /// case. SAP's known weakness; scene queries belong to a tree.
    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.0.query_aabb(aabb, out);
    }

    /// Checks the axes and the per-id state against each other, and the
    /// pair table against a brute-force recomputation.
    fn validate(&self) -> Result<(), String> {
        self.0.validate()
    }
}
