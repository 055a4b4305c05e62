//! Broad phases: which pairs of boxes overlap.
//!
//! Every algorithm implements [`BroadPhase`] over caller-chosen `u32` ids (the world uses its
//! collider slots, small and dense, so structures may keep arrays indexed by id) and reports **exactly** the
//! pairs of stored boxes that overlap under the inclusive touching rule of
//! [`Aabb::overlaps`] — the pair set of [`BruteForce`], never a superset or a subset.
//!
//! | algorithm | file | kind |
//! |---|---|---|
//! | [`BruteForce`] | `brute.rs` | every pair; the oracle |
//! | [`SortSweep`] | `sort_sweep.rs` | sort-and-sweep: per-frame sort on min x, active list |
//! | [`UniformGrid`] | `grid.rs` | uniform grid: bounded, border cells clamp |
//! | [`SpatialHash`] | `spatial_hash.rs` | spatial hash: unbounded hashed cells + reverse map |
//! | [`Quadtree`] | `quadtree.rs` | loose quadtree |
//! | [`DynamicTree`] | `tree/` | dynamic AABB tree, SAH branch-and-bound insertion (Bittner et al. / Catto) |
//! | [`IncrementalSap`] | `sap/` | Terdiman-style incremental sweep-and-prune on x and y |
//!
//! Shared by several of them: `dense_boxes.rs` (the packed box store of the per-frame
//! algorithms), `pair_table.rs` (the hash table of id pairs), `movers.rs` (the world's movers'
//! structure, any of the above), and, for their unit tests, `test_kit.rs` (the model, churn and
//! adversarial sets every algorithm is checked with).

mod brute;
mod dense_boxes;
mod grid;
mod movers;
mod pair_table;
mod quadtree;
mod sap;
mod sort_sweep;
mod spatial_hash;
#[cfg(test)]
mod test_kit;
mod tree;

pub use brute::BruteForce;
pub use grid::UniformGrid;
pub(crate) use movers::{CloneableBroadPhase, Movers};
pub(crate) use pair_table::PairTable;
pub use quadtree::Quadtree;
pub use sap::IncrementalSap;
pub use sort_sweep::SortSweep;
pub use spatial_hash::SpatialHash;
pub(crate) use tree::Grow;
pub use tree::{BoxRayHit, DynamicTree, TreeStats};

use crate::math::Aabb;

/// An overlapping pair of ids, always stored with `pair[0] < pair[1]`.
pub type Pair = [u32; 2];

/// For `validate` methods: `Ok` when two ascending pair lists are equal, else a description of
/// how `got` differs from `expected`.
pub(crate) fn same_pairs(got: &[Pair], expected: &[Pair], what: &str) -> Result<(), String> {
    if got == expected {
        return Ok(());
    }
    let extra = got.iter().find(|p| expected.binary_search(p).is_err());
    let missing = expected.iter().find(|p| got.binary_search(p).is_err());
    Err(format!(
        "{what}: {} pairs, {} expected; first extra {extra:?}, first missing {missing:?}",
        got.len(),
        expected.len()
    ))
}

/// For `validate` methods, an oracle independent of any structure: the pairs of `boxes` that
/// overlap and that `keep` allows, ascending, by a plain sort-and-sweep on x (sorts `boxes`).
pub(crate) fn sweep_pairs(boxes: &mut [(Aabb, u32)], keep: impl Fn(u32, u32) -> bool) -> Vec<Pair> {
    boxes.sort_unstable_by(|a, b| a.0.min.x.total_cmp(&b.0.min.x));
    let mut out = Vec::new();
    for (i, (a, ia)) in boxes.iter().enumerate() {
        for (b, ib) in boxes[i + 1..].iter().take_while(|(b, _)| b.min.x <= a.max.x) {
            if a.overlaps(b) && keep(*ia, *ib) {
                out.push(pair(*ia, *ib));
            }
        }
    }
    out.sort_unstable();
    out
}

/// The pair `{a, b}` in canonical order.
#[inline]
#[must_use]
pub fn pair(a: u32, b: u32) -> Pair {
    if a < b { [a, b] } else { [b, a] }
}

/// One interface for every broad phase.
///
/// Mutations (`insert*`, `remove*`, `update*`) may be deferred; [`BroadPhase::update_pairs`]
/// brings the structure up to date and reports how the pair set changed since its previous call.
/// Ids must be unique among the stored boxes; inserting a present id or removing or updating an
/// absent one is a caller bug (the world never does it) and may panic in debug builds.
pub trait BroadPhase: Send + Sync {
    /// A short name for tables (`"sap"`, `"tree"`, …).
    #[doc(hidden)]
    fn name(&self) -> &'static str;

    /// Number of stored boxes.
    fn len(&self) -> usize;

    /// Whether nothing is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a box.
    fn insert(&mut self, id: u32, aabb: Aabb);

    /// Adds many boxes; algorithms with a bulk path (SAP merge, tree binned build) override it.
    fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        for &(id, aabb) in items {
            self.insert(id, aabb);
        }
    }

    /// Removes a box.
    fn remove(&mut self, id: u32);

    /// Removes many boxes; algorithms with a one-pass removal override it.
    fn remove_batch(&mut self, ids: &[u32]) {
        for &id in ids {
            self.remove(id);
        }
    }

    /// Replaces the box of a stored id.
    fn update(&mut self, id: u32, aabb: Aabb);

    /// Replaces many boxes.
    fn update_batch(&mut self, items: &[(u32, Aabb)]) {
        for &(id, aabb) in items {
            self.update(id, aabb);
        }
    }

    /// Brings the structure up to date and appends to `began` the pairs that overlap now but did
    /// not at the previous call, and to `ended` those that did and no longer do (including pairs
    /// of removed ids). Neither list is cleared first; each is in unspecified order.
    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>);

    /// Appends every currently overlapping pair, each once, in unspecified order. Reflects all
    /// mutations so far (it brings the structure up to date without consuming the pair changes
    /// that [`BroadPhase::update_pairs`] reports).
    fn pairs(&mut self, out: &mut Vec<Pair>);

    /// Appends the ids whose boxes overlap `aabb`, in unspecified order.
    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>);

    /// [`BroadPhase::query_aabb`] through a shared reference, so that many queries can run in
    /// parallel. Only structures that apply every mutation at once can answer; the others (whose
    /// [`BroadPhaseKind::finds_pairs_by_query`] is `false`) return `false` and append nothing.
    fn query_aabb_shared(&self, aabb: &Aabb, out: &mut Vec<u32>) -> bool {
        let _ = (aabb, out);
        false
    }

    /// Checks every internal invariant; `Err` names the first one broken.
    ///
    /// # Errors
    /// A description of the broken invariant.
    #[doc(hidden)]
    fn validate(&self) -> Result<(), String>;
}

/// Which broad phase to build, for configs and benchmark tables.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BroadPhaseKind {
    /// [`BruteForce`].
    BruteForce,
    /// [`SortSweep`].
    SortSweep,
    /// [`UniformGrid`] over the given bounds and cell size.
    UniformGrid {
        /// The bounded region; boxes outside are clamped into the border cells.
        bounds: Aabb,
        /// Cell edge length.
        cell_size: f32,
    },
    /// [`SpatialHash`] with the given cell size.
    SpatialHash {
        /// Cell edge length (rounded up to a power of two).
        cell_size: f32,
    },
    /// [`Quadtree`] over the given bounds.
    Quadtree {
        /// The root region; boxes outside are kept at the root.
        bounds: Aabb,
    },
    /// [`DynamicTree`] with SAH branch-and-bound insertion and no margin of its own.
    DynamicTree,
    /// [`IncrementalSap`].
    IncrementalSap,
}

impl BroadPhaseKind {
    /// Every kind, in declaration order: the grid and the quadtree over `bounds`, the grid and
    /// the hash with `cell_size` cells. For tests and benchmarks that run a scene in each.
    #[must_use]
    pub fn all(bounds: Aabb, cell_size: f32) -> [BroadPhaseKind; 7] {
        [
            BroadPhaseKind::BruteForce,
            BroadPhaseKind::SortSweep,
            BroadPhaseKind::UniformGrid { bounds, cell_size },
            BroadPhaseKind::SpatialHash { cell_size },
            BroadPhaseKind::Quadtree { bounds },
            BroadPhaseKind::DynamicTree,
            BroadPhaseKind::IncrementalSap,
        ]
    }

    /// Whether a world finds its movers' pairs by querying this structure with each escaped
    /// collider (O(escaped), the way Box2D uses its tree) rather than through
    /// [`BroadPhase::update_pairs`]. True for the structures with cheap local queries and no
    /// swap-driven pair tracking: the spatial hash and the dynamic tree. The persistent SAP
    /// tracks pairs from its swaps, and the per-frame algorithms recompute every pair each step
    /// by design: their cost does not depend on how much moved, which is what they are for.
    #[must_use]
    pub fn finds_pairs_by_query(&self) -> bool {
        matches!(self, BroadPhaseKind::SpatialHash { .. } | BroadPhaseKind::DynamicTree)
    }

    /// Builds an empty broad phase of this kind.
    #[must_use]
    pub fn build(&self) -> Box<dyn BroadPhase> {
        self.build_cloneable()
    }

    /// [`BroadPhaseKind::build`], as a structure a world can copy.
    pub(crate) fn build_cloneable(&self) -> Box<dyn CloneableBroadPhase> {
        match *self {
            BroadPhaseKind::BruteForce => Box::new(BruteForce::new()),
            BroadPhaseKind::SortSweep => Box::new(SortSweep::new()),
            BroadPhaseKind::UniformGrid { bounds, cell_size } => Box::new(UniformGrid::new(bounds, cell_size)),
            BroadPhaseKind::SpatialHash { cell_size } => Box::new(SpatialHash::new(cell_size)),
            BroadPhaseKind::Quadtree { bounds } => Box::new(Quadtree::new(bounds)),
            BroadPhaseKind::DynamicTree => Box::new(DynamicTree::new(0.0)),
            BroadPhaseKind::IncrementalSap => Box::new(IncrementalSap::new()),
        }
    }
}

/// The pair set a per-frame broad phase last reported, and a scratch list for the next one, so
/// that reporting pair changes allocates nothing in steady state.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairHistory {
    prev: Vec<Pair>,
    cur: Vec<Pair>,
}

impl PairHistory {
    /// Collects the current pairs with `collect`, sorts them, and appends the changes since the
    /// last report to `began` / `ended`.
    pub(crate) fn report(
        &mut self,
        collect: impl FnOnce(&mut Vec<Pair>),
        began: &mut Vec<Pair>,
        ended: &mut Vec<Pair>,
    ) {
        self.cur.clear();
        collect(&mut self.cur);
        self.cur.sort_unstable();
        diff_sorted_pairs(&self.prev, &self.cur, began, ended);
        std::mem::swap(&mut self.prev, &mut self.cur);
    }

    /// Whether the last report is strictly sorted (an invariant for `validate`).
    pub(crate) fn is_sorted(&self) -> bool {
        self.prev.windows(2).all(|w| w[0] < w[1])
    }
}

/// Diffs two sorted, deduplicated pair lists: appends to `began` what is only in `cur` and to
/// `ended` what is only in `prev`. The per-frame algorithms report pair changes with it.
pub(crate) fn diff_sorted_pairs(prev: &[Pair], cur: &[Pair], began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
    let (mut i, mut j) = (0, 0);
    while i < prev.len() && j < cur.len() {
        match prev[i].cmp(&cur[j]) {
            std::cmp::Ordering::Less => {
                ended.push(prev[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                began.push(cur[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    ended.extend_from_slice(&prev[i..]);
    began.extend_from_slice(&cur[j..]);
}
