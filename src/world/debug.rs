//! Debugging aids: the world's `Debug` summary, and read-only views of its internals for debug
//! drawing (the arena example's overlay). Nothing here is needed to use the world; it exists so
//! that a game can show what the broad phase sees without the world exposing its structures.

use std::fmt;

use super::World;
use crate::math::Aabb;
use crate::storage::{ColliderId, ColliderSlot, flags};

/// Counts and the config, not the columns: a world's arrays run to megabytes.
impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World")
            .field("colliders", &self.len())
            .field("bullets", &self.cols.bullet_count)
            .field("pairs", &(self.pairs.len() - self.free_pairs.len()))
            .field("contacts", &self.contacts.len())
            .field("events", &self.events.len())
            .field("impacts", &self.impacts.len())
            .field("pair_hooks", &self.hooks.is_some())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl World {
    /// Calls `f` with every live collider's fat box (the box the broad phase stores, as of the
    /// last [`World::step`]) and whether the collider lives in the static/large-collider tree
    /// (`true`) or in the movers' broad phase (`false`). Colliders inserted since the last step
    /// are not in any structure yet and are skipped. Slot order.
    #[doc(hidden)]
    pub fn debug_fat_aabbs(&self, mut f: impl FnMut(ColliderId, Aabb, bool)) {
        for s in 0..self.cols.alive.len() {
            if self.cols.is_placed(s) {
                let id = self.cols.id(ColliderSlot::from_index(s));
                f(id, self.cols.fat[s], self.cols.flags[s] & flags::IN_TREE != 0);
            }
        }
    }
}
