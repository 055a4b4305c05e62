//! The step's scratch buffers: emptied and refilled every step, kept so a steady step allocates nothing.

use crate::broad::Pair;
use crate::collide::Manifold;
use crate::collide::reuse::Witness;
use crate::math::Aabb;
use crate::storage::ColliderSlot;
use crate::world::StepCounts;
use crate::world::pairs::{ContactIndex, PairIndex};

/// Buffers the step's phases hand to each other. None of them carries state from one step to
/// the next (the snapshot stores none of them); each is kept only for its capacity.
#[derive(Default)]
pub(super) struct Scratch {
    /// Per block of slots, the box pass's escaped colliders with the fat boxes they had, in
    /// slot order: gathered into `escaped`.
    pub boxes: Vec<Vec<(ColliderSlot, Aabb)>>,
    /// One bit per slot, set for the moved colliders from the box phase to the end of the
    /// narrow phase: the narrow phase's test for "this pair has a moved end".
    pub moved_bits: Vec<u64>,
    /// Colliders whose tight box left their fat box (or that are new), each with the fat box it
    /// had before (`EMPTY` for a new one): the box phase's output to the broad phase.
    pub escaped: Vec<(ColliderSlot, Aabb)>,
    /// Beside each of `escaped`, its fat box before when its parted pairs with tree residents
    /// can be found by querying the tree with that box, or `None` when its whole pair list must
    /// be checked (see `search_escaped_pairs`).
    pub escaped_old: Vec<Option<Aabb>>,
    /// Escaped movers that stay in the movers' structure, with their new fat box: one batch
    /// update (by broad-phase id, the slot's raw value, as the structures take them).
    pub escaped_updates: Vec<(u32, Aabb)>,
    /// New movers and colliders joining the movers from the tree: one batch insert.
    pub escaped_inserts: Vec<(u32, Aabb)>,
    /// New tree residents and colliders joining the tree from the movers: one batch insert.
    pub tree_inserts: Vec<(u32, Aabb)>,
    /// Candidate pairs that began this step (may hold duplicates until sorted).
    pub began: Vec<Pair>,
    /// Candidate pairs whose fat boxes may have parted this step (duplicates, and pairs that
    /// still overlap, are dropped when applied).
    pub ended: Vec<Pair>,
    /// The entries of `ended` whose pairs are freed, with their keys.
    pub doomed: Vec<(Pair, PairIndex)>,
    /// Hits of one serial query of both trees (`query_both_trees`), by broad-phase id.
    pub query_hits: Vec<u32>,
    /// Per-chunk outputs of the parallel pair search of escaped colliders.
    pub search: Vec<SearchChunk>,
    /// Per-chunk outputs of the parallel narrow phase and of the in-place contact update.
    pub narrow: Vec<NarrowChunk>,
    /// Steps the in-place pass goes on without box lanes, after a step whose lanes declined
    /// most of their pairs (see `step::narrow`).
    pub lanes_rest: u32,
    /// The bullets that moved, in slot order: the continuous phase's work list.
    pub bullets: Vec<ColliderSlot>,
    /// Beside each of `bullets`, its earliest impact, computed in parallel.
    pub bullet_impacts: Vec<Option<crate::world::Impact>>,
    /// The contacts' keys and places, for `World::order_contacts`.
    pub contact_order: Vec<(u64, u32)>,
}

/// A copied world starts with empty buffers: they carry nothing, and copying their contents
/// would only copy the last step's leftovers.
impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

/// One chunk's share of the parallel pair search (`World::search_escaped_pairs`).
#[derive(Default)]
pub(super) struct SearchChunk {
    /// The chunk's query hits for one collider at a time.
    pub hits: Vec<u32>,
    /// The chunk's escaped movers with their fat and old fat boxes (empty when not wanted), and
    /// beside them the box their tree walk searches.
    pub probes: Vec<(ColliderSlot, Aabb, Aabb)>,
    pub probe_boxes: Vec<Aabb>,
    pub began: Vec<Pair>,
    pub ended: Vec<Pair>,
}

/// One chunk's share of the parallel narrow phase (`World::narrow_phase`). The workers only
/// read the pairs; the serial apply writes these back in chunk order, so the outcome does not
/// depend on the thread count.
#[derive(Default)]
pub(super) struct NarrowChunk {
    /// New manifolds of touching non-sensor pairs that still touch: `(their contact, manifold,
    /// its reuse witness)`.
    pub updates: Vec<(ContactIndex, Manifold, Witness)>,
    /// Pairs whose touching state flips: `(pair entry, manifold)`.
    pub changes: Vec<(PairIndex, Manifold)>,
    /// Touching pairs, updated in place, that stopped touching.
    pub ended: Vec<PairIndex>,
    /// The pairs a chunk of movers evaluates.
    pub walk: Vec<PairIndex>,
    /// Pairs the chunk evaluated, and manifolds it computed from reused decisions.
    pub counts: StepCounts,
    /// Box lanes the chunk ran, and those that took their pair.
    pub lanes: [u32; 2],
}
