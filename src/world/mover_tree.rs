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

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard};

use crate::broad::DynamicTree;
use crate::math::Aabb;
use crate::storage::{Columns, flags};

#[derive(Default)]
pub(super) struct Lazy {
    tree: DynamicTree,
    /// Slots whose fat box changed (or that were inserted) since the last flush.
    pending: Vec<u32>,
    /// `queued[slot]`: the slot is in `pending`.
    queued: Vec<bool>,
}

impl Lazy {
    /// Applies the pending escapes: live movers get their current fat box, anything else is
    /// taken out.
    fn flush(&mut self, cols: &Columns) {
        if self.tree.is_empty() && self.pending.len() > 64 {
            // A mass insertion: one binned-SAH build beats as many incremental inserts.
            let items: Vec<(u32, Aabb)> =
                self.pending.iter().filter(|&&s| is_mover(cols, s)).map(|&s| (s, cols.fat[s as usize])).collect();
            self.tree.insert_batch(&items);
        } else {
            for &s in &self.pending {
                if is_mover(cols, s) {
                    let (fat, tight) = (cols.fat[s as usize], cols.aabb[s as usize]);
                    // The tree's leaf box is looser than the world's fat box (three margins
                    // around the tight box instead of one), so a leaf moves about once for every
                    // two escapes.
                    let margin = (fat.max - tight.max).max(tight.min - fat.min).max_element().max(0.0);
                    self.tree.update_with_fat(s, fat, fat.fattened(2.0 * margin));
                } else {
                    self.tree.remove(s);
                }
            }
        }
        for &s in &self.pending {
            self.queued[s as usize] = false;
        }
        self.pending.clear();
    }
}

fn is_mover(cols: &Columns, s: u32) -> bool {
    cols.is_placed(s as usize) && cols.flags[s as usize] & flags::IN_TREE == 0
}

/// The lazily flushed tree of movers by fat box.
#[derive(Default)]
pub(super) struct MoverTree {
    inner: RwLock<Lazy>,
    dirty: AtomicBool,
}

impl MoverTree {
    fn lazy(&mut self) -> &mut Lazy {
        self.inner.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records that `slot`'s fat box changed, it was inserted, or it left the movers.
    pub fn touch(&mut self, slot: u32) {
        let lazy = self.lazy();
        let s = slot as usize;
        if lazy.queued.len() <= s {
            lazy.queued.resize(s + 1, false);
        }
        if !lazy.queued[s] {
            lazy.queued[s] = true;
            lazy.pending.push(slot);
        }
        *self.dirty.get_mut() = true;
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
