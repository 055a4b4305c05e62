//! Read-only views of the world's internals for debug drawing (the arena example's overlay).
//! Nothing here is needed to use the world; it exists so that a game can show what the broad
//! phase sees without the world exposing its structures.

use super::World;
use crate::math::Aabb;
use crate::storage::{ColliderId, ColliderSlot, flags};

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
