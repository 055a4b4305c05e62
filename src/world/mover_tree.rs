//! The movers' query tree, maintained lazily.
//!
//! Moving colliders find their pairs through the movers' broad phase (the SAP by default); a tree
//! of them is needed only for scene queries and for the rare pair search of an escaped tree
//! resident. Re-inserting every escaped mover into it each step would be most of the step's serial
//! work (a tree update per escape, against a batched SAP update), so escapes are only recorded
//! here and applied when the tree is next read. A world that is never queried never pays for it;
//! one queried every step pays for one flush per step.
//!
//! Queries take `&World`, so the pending escapes are applied behind an `RwLock`: the first reader
//! after a step takes the write lock once, later readers share the read lock.
//!
//! The tree also makes queries see the present. A collider inserted, moved or reshaped since the
//! last step (`changed`) is placed at its current tight box when the tree is next read, mover or
//! tree resident alike, and queries take that box for it (a tree resident's entry in the static
//! tree is stale then, and queries skip it). Each change costs one tree update, at the first
//! query after it: a burst of k changes costs O(k log n) in all, however many queries follow, and
//! a query when nothing changed costs what it did. The step (and an origin shift, which also
//! finds pairs through the tree) hands the placed slots back to the escape list first, so that
//! the next flush gives movers their fat boxes and takes tree residents out again: pairs are
//! only ever found between fat boxes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard};

use crate::broad::DynamicTree;
use crate::math::Aabb;
use crate::storage::{ColliderSlot, Columns, flags};

#[derive(Clone, Default)]
pub(super) struct Lazy {
    tree: DynamicTree,
    /// Slots whose fat box changed (or that were inserted) since the last flush.
    pending: Vec<ColliderSlot>,
    /// Slots inserted, moved or reshaped since the last step and not yet at their present box.
    changed: Vec<ColliderSlot>,
    /// Slots placed at their present box since the last step.
    present: Vec<ColliderSlot>,
    /// Per slot, which of the three lists hold it ([`QUEUED`], [`CHANGED`], [`PRESENT`]).
    state: Vec<u8>,
}

/// In `pending`.
const QUEUED: u8 = 1;
/// In `changed`.
const CHANGED: u8 = 2;
/// In `present`.
const PRESENT: u8 = 4;

impl Lazy {
    /// Applies the pending escapes: live movers get their current fat box, anything else is
    /// taken out.
    fn flush(&mut self, cols: &Columns) {
        if self.tree.is_empty() && self.pending.len() > 64 {
            // A mass insertion: one binned-SAH build beats as many incremental inserts.
            let items: Vec<(u32, Aabb)> =
                self.pending.iter().filter(|&&s| is_mover(cols, s)).map(|&s| (s.get(), cols.fat[s.index()])).collect();
            self.tree.insert_batch(&items);
        } else {
            for &s in &self.pending {
                if is_mover(cols, s) {
                    let (fat, tight) = (cols.fat[s.index()], cols.aabb[s.index()]);
                    // The tree's leaf box is looser than the world's fat box (three margins
                    // around the tight box instead of one), so a leaf moves about once for every
                    // two escapes.
                    let margin = (fat.max - tight.max).max(tight.min - fat.min).max_element().max(0.0);
                    self.tree.update_with_fat(s.get(), fat, fat.fattened(2.0 * margin));
                } else {
                    self.tree.remove(s.get());
                }
            }
        }
        for &s in &self.pending {
            self.state[s.index()] &= !QUEUED;
        }
        self.pending.clear();
        for i in 0..self.changed.len() {
            let s = self.changed[i];
            let u = s.index();
            self.state[u] &= !CHANGED;
            if !cols.alive[u] {
                continue;
            }
            let tight = cols.shape[u].aabb(&cols.pose[u]);
            let fat = if cols.fat[u].contains(&tight) { cols.fat[u] } else { tight };
            self.tree.update_with_fat(s.get(), tight, fat);
            if self.state[u] & PRESENT == 0 {
                self.state[u] |= PRESENT;
                self.present.push(s);
            }
        }
        self.changed.clear();
    }

    /// The box queries test slot `s` by: its present box if it changed since the last step (it
    /// is then in this tree at that box), else the step's tight box.
    pub fn aabb_of(&self, cols: &Columns, s: ColliderSlot) -> Aabb {
        if cols.flags[s.index()] & flags::MOVED != 0 {
            self.tree.tight_aabb(s.get()).unwrap_or(Aabb::EMPTY)
        } else {
            cols.aabb[s.index()]
        }
    }

    #[inline]
    fn mark(&mut self, slot: ColliderSlot, bit: u8) -> bool {
        let s = slot.index();
        if self.state.len() <= s {
            self.grow_state(s + 1);
        }
        let fresh = self.state[s] & bit == 0;
        self.state[s] |= bit;
        fresh
    }

    /// Room for `len` slots' states: once per new high slot, out of the marking's way.
    #[cold]
    #[inline(never)]
    fn grow_state(&mut self, len: usize) {
        self.state.resize(len, 0);
    }
}

fn is_mover(cols: &Columns, s: ColliderSlot) -> bool {
    cols.is_placed(s.index()) && cols.flags[s.index()] & flags::IN_TREE == 0
}

/// A read lock on the flushed tree, as queries hold it.
pub(super) type MoverTreeGuard<'a> = RwLockReadGuard<'a, Lazy>;

/// The lazily flushed tree of movers by fat box.
#[derive(Default)]
pub(super) struct MoverTree {
    inner: RwLock<Lazy>,
    dirty: AtomicBool,
}

/// A copy of the tree as it stands, flushed or not. The flag is read before the lock: a reader
/// flushing meanwhile leaves the copy marked dirty with nothing pending, which the next flush
/// passes over; a clean flag cannot turn dirty behind `&self`.
impl Clone for MoverTree {
    fn clone(&self) -> Self {
        let dirty = self.dirty.load(Ordering::Acquire);
        let lazy = self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        MoverTree { inner: RwLock::new(lazy), dirty: AtomicBool::new(dirty) }
    }
}

impl MoverTree {
    fn lazy(&mut self) -> &mut Lazy {
        self.inner.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records that `slot`'s fat box changed, it was inserted, or it left the movers.
    pub fn touch(&mut self, slot: ColliderSlot) {
        let lazy = self.lazy();
        if lazy.mark(slot, QUEUED) {
            lazy.pending.push(slot);
        }
        *self.dirty.get_mut() = true;
    }

    /// Records that `slot` was inserted, moved or reshaped since the last step: queries find it
    /// at its present box from now on.
    #[inline]
    pub fn change(&mut self, slot: ColliderSlot) {
        let lazy = self.lazy();
        if lazy.mark(slot, CHANGED) {
            lazy.changed.push(slot);
        }
        *self.dirty.get_mut() = true;
    }

    /// Records that `slot` was removed: a present entry of a tree resident leaves with it.
    pub fn forget(&mut self, slot: ColliderSlot) {
        if self.lazy().state.get(slot.index()).is_some_and(|st| st & PRESENT != 0) {
            self.touch(slot);
        }
    }

    /// Back to the step's view, for the step and for anything else that finds pairs through
    /// the tree: changes not yet placed are dropped (the step takes them, or the caller records
    /// them again), and present entries go back through the escape list (movers to their fat
    /// boxes, tree residents and unplaced colliders out).
    pub fn settle(&mut self) {
        let lazy = self.lazy();
        for &s in &lazy.changed {
            lazy.state[s.index()] &= !CHANGED;
        }
        lazy.changed.clear();
        let present = std::mem::take(&mut lazy.present);
        for &s in &present {
            self.lazy().state[s.index()] &= !PRESENT;
            self.touch(s);
        }
        let mut present = present;
        present.clear();
        self.lazy().present = present;
    }

    /// Moves the tree's boxes by `-offset` (see `DynamicTree::shift_origin`). Pending escapes
    /// need nothing: their flush reads the fat boxes as they are then.
    pub fn shift_origin(&mut self, offset: glam::Vec2) {
        self.lazy().tree.shift_origin(offset);
    }

    /// The up-to-date tree, for the step's own use.
    pub fn get_mut(&mut self, cols: &Columns) -> &DynamicTree {
        let dirty = std::mem::replace(self.dirty.get_mut(), false);
        let lazy = self.lazy();
        if dirty {
            lazy.flush(cols);
        }
        &lazy.tree
    }

    /// The up-to-date tree, for queries through `&World`.
    pub fn read(&self, cols: &Columns) -> RwLockReadGuard<'_, Lazy> {
        if self.dirty.load(Ordering::Acquire) {
            let mut lazy = self.inner.write().unwrap_or_else(|poisoned| poisoned.into_inner());
            // Another reader may have flushed while this one waited for the lock.
            if self.dirty.swap(false, Ordering::AcqRel) {
                lazy.flush(cols);
            }
        }
        self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl std::ops::Deref for Lazy {
    type Target = DynamicTree;
    fn deref(&self) -> &DynamicTree {
        &self.tree
    }
}
