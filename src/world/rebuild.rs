//! Rebuilding a world into another configuration (another broad phase), keeping every id.
//!
//! The collider columns are copied as they are (generations, free list, poses, shapes, filters,
//! user data), so every [`ColliderId`](crate::ColliderId) stays valid and later insertions get
//! the same ids as they would in the original. Only the structures are rebuilt: every live
//! collider is marked new and one internal step puts it into the new broad phase and the trees
//! and recomputes pairs and contacts from the current poses.

use super::{Event, PairIndex, World, WorldConfig, WorldError};
use crate::broad::{Pair, diff_sorted_pairs};
use crate::math::Aabb;
use crate::storage::{ColliderSlot, flags};

impl World {
    /// A copy of this world built with `config` (typically another
    /// [`WorldConfig::broad_phase`]), with the same colliders under the same ids.
    ///
    /// The copy shares the [pair hooks](crate::PairHooks), whose filter it asks afresh about every
    /// pair. The copy is stepped once internally, so its [`World::contacts`] are ready at once,
    /// with the impulses of the original's contacts carried as a step carries them (see
    /// [`World::store_impulses`]); its [`World::events`] are the original's last-step events. Changes made to the original since
    /// its last step (moves, insertions, removals) are already applied in the copy; the contact
    /// events they cause are reported by the copy's next step, as the original would report them.
    /// For a seamless switch, rebuild right after a step. Cost: one full insertion of every
    /// collider into the new structures.
    ///
    /// ```
    /// use sapwood::{BroadPhaseKind, ColliderDesc, Pose, Shape, Vec2, World, WorldConfig};
    ///
    /// let mut world = World::new();
    /// let a = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::IDENTITY))?;
    /// world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(Vec2::new(1.5, 0.0))))?;
    /// world.step();
    /// let config = WorldConfig { broad_phase: BroadPhaseKind::SortSweep, ..*world.config() };
    /// let mut swept = world.rebuilt_with(config)?;
    /// assert_eq!(swept.contacts().len(), 1);
    /// swept.set_pose(a, Pose::from_translation(Vec2::new(-5.0, 0.0)))?; // ids carry over
    /// swept.step();
    /// assert!(swept.contacts().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::InvalidConfig`] when `config` is invalid (see [`World::with_config`]); this
    /// world is never changed.
    pub fn rebuilt_with(&self, config: WorldConfig) -> Result<World, WorldError> {
        let mut w = World::with_config(config)?;
        // The copy shares the pair hooks; its internal step asks the filter about every pair.
        w.hooks.clone_from(&self.hooks);
        let mut cols = self.cols.clone();
        for s in 0..cols.alive.len() {
            cols.pair_head[s] = PairIndex::NULL;
            if cols.alive[s] {
                // An empty fat box marks the collider as new: the step inserts it everywhere.
                cols.aabb[s] = Aabb::EMPTY;
                cols.fat[s] = Aabb::EMPTY;
                // Placement and pending refreshes are the step's to redo; the collider's own
                // switches carry over.
                cols.flags[s] = (cols.flags[s] & !(flags::IN_TREE | flags::REFRESH)) | flags::MOVED;
                w.moved.push(ColliderSlot::from_index(s));
                // Every static is new to the copy: its welds are made by the internal step.
                if config.weld_static_edges && cols.flags[s] & flags::STATIC != 0 {
                    w.welds.dirty.push(ColliderSlot::from_index(s));
                }
            }
        }
        w.cols = cols;
        w.step();
        // The solver's impulses go over as a step would carry them: by pair, then feature id.
        for (c, &p) in w.contacts.iter_mut().zip(&w.contact_pair) {
            let key = w.pairs[p.index()].key();
            let old = self.pair_table.get(key).map(|q| self.pairs[q.index()].contact);
            if let Some(old) = old.filter(|o| !o.is_null()) {
                c.manifold.carry_impulses(&self.contacts[old.index()].manifold);
            }
        }
        // The internal step must not hand out slots the original has not freed yet, and the
        // original's pending removals were never in the new structures: restore both lists so
        // that the next step frees the same slots the original's would.
        w.cols.free.clone_from(&self.cols.free);
        w.released.clone_from(&self.released);

        // Events: the original's last ones now; the touching changes caused by edits since that
        // step (if any) with the next step, as the original would report them.
        w.events.clone_from(&self.events);
        w.pending_events.clone_from(&self.pending_events);
        let (mut began, mut ended) = (Vec::new(), Vec::new());
        diff_sorted_pairs(&touching(self), &touching(&w), &mut began, &mut ended);
        let start = w.pending_events.len();
        for ids in ended {
            w.pending_events.extend(pair_event(self, ids, false));
        }
        for ids in began {
            w.pending_events.extend(pair_event(&w, ids, true));
        }
        // In pair order: the step sorts events anyway, but a snapshot of the copy stores this
        // list as it is.
        w.pending_events[start..].sort_unstable();
        Ok(w)
    }
}

/// The pairs of `world` whose shapes touch, as sorted `(slot a, slot b)` pairs.
fn touching(world: &World) -> Vec<Pair> {
    let mut out: Vec<Pair> =
        world.pairs.iter().filter(|p| !p.ids[0].is_null() && p.touching).map(|p| p.key()).collect();
    out.sort_unstable();
    out
}

fn pair_event(world: &World, ids: Pair, began: bool) -> Option<Event> {
    let p = world.pair_table.get(ids).expect("a touching pair is in the table");
    let pair = &world.pairs[p.index()];
    world.reports(pair).then(|| world.make_event(pair, began))
}
