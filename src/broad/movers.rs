//! The world's broad phase for moving colliders: the SAP without a pair set, or any other.

use super::sap::SapWithoutPairSet;
use super::{BroadPhase, BroadPhaseKind, Pair};
use crate::math::Aabb;

/// The structure a world finds its movers' pairs with, owned by the world.
///
/// The world keeps the pair set itself, so with the SAP it takes the variant that keeps none
/// (a second set in the SAP would cost a hash table of every pair and two probes per pair
/// change). That variant does not report the pairs of removed boxes, which the world drops
/// itself, so it does not keep [`BroadPhase`]'s contract and is not one: this type offers just
/// the calls the world makes.
#[derive(Clone)]
pub(crate) enum Movers {
    /// The SAP without a pair set, for [`BroadPhaseKind::IncrementalSap`]; boxed, since it is
    /// far larger than the other variant.
    Sap(Box<SapWithoutPairSet>),
    /// Any other kind, built by [`BroadPhaseKind::build_cloneable`].
    Other(Box<dyn CloneableBroadPhase>),
}

/// A [`BroadPhase`] that can be copied behind a `Box<dyn …>`, so that a world (and with it its
/// movers' structure) is `Clone`. Every broad phase of this crate is one.
pub(crate) trait CloneableBroadPhase: BroadPhase {
    fn boxed_clone(&self) -> Box<dyn CloneableBroadPhase>;
}

impl<T: BroadPhase + Clone + 'static> CloneableBroadPhase for T {
    fn boxed_clone(&self) -> Box<dyn CloneableBroadPhase> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn CloneableBroadPhase> {
    fn clone(&self) -> Self {
        (**self).boxed_clone()
    }
}

impl Movers {
    /// An empty structure of the configured kind.
    pub(crate) fn new(kind: BroadPhaseKind) -> Self {
        match kind {
            BroadPhaseKind::IncrementalSap => Self::Sap(Box::new(SapWithoutPairSet::new())),
            kind => Self::Other(kind.build_cloneable()),
        }
    }

    /// [`BroadPhase::insert_batch`].
    pub(crate) fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        match self {
            Self::Sap(sap) => sap.insert_batch(items),
            Self::Other(bp) => bp.insert_batch(items),
        }
    }

    /// [`BroadPhase::update_batch`].
    pub(crate) fn update_batch(&mut self, items: &[(u32, Aabb)]) {
        match self {
            Self::Sap(sap) => {
                for &(id, aabb) in items {
                    sap.update(id, aabb);
                }
            }
            Self::Other(bp) => bp.update_batch(items),
        }
    }

    /// [`BroadPhase::remove`].
    pub(crate) fn remove(&mut self, id: u32) {
        match self {
            Self::Sap(sap) => sap.remove(id),
            Self::Other(bp) => bp.remove(id),
        }
    }

    /// [`BroadPhase::update_pairs`], except that the SAP does not report the pairs of removed
    /// boxes.
    pub(crate) fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        match self {
            Self::Sap(sap) => sap.update_pairs(began, ended),
            Self::Other(bp) => bp.update_pairs(began, ended),
        }
    }

    /// [`BroadPhase::query_aabb_shared`]: the SAP defers its mutations, so it cannot answer.
    pub(crate) fn query_aabb_shared(&self, aabb: &Aabb, out: &mut Vec<u32>) -> bool {
        match self {
            Self::Sap(_) => false,
            Self::Other(bp) => bp.query_aabb_shared(aabb, out),
        }
    }

    /// Moves the structure to `items`, every stored id with its box shifted by one offset (the
    /// world's origin shift), and appends the pairs that now touch but did not to `began` (the
    /// shift is monotone, so boxes that overlapped still do and only touching ties are new; a
    /// caller drops candidates it already holds). The SAP rewrites its endpoints in place and
    /// restores the order of tied ones by its insertion-sort pass, O(n). Every other kind is
    /// rebuilt for `kind` (which carries a bounded grid's or quadtree's shifted bounds; the
    /// spatial hash re-hashes every box, its cells being fixed in world space) and reports its
    /// pairs in full, by its own pair update or, for the kinds that find pairs by query, by a
    /// query per box.
    pub(crate) fn shift_origin(
        &mut self,
        kind: BroadPhaseKind,
        items: &[(u32, Aabb)],
        began: &mut Vec<Pair>,
        ended: &mut Vec<Pair>,
    ) {
        if let Self::Sap(sap) = self {
            for &(id, aabb) in items {
                sap.update(id, aabb);
            }
            sap.update_pairs(began, ended);
            return;
        }
        *self = Self::new(kind);
        self.insert_batch(items);
        if !kind.finds_pairs_by_query() {
            self.update_pairs(began, ended);
            return;
        }
        let mut hits = Vec::new();
        for &(id, aabb) in items {
            hits.clear();
            self.query_aabb_shared(&aabb, &mut hits);
            began.extend(hits.iter().filter(|&&o| o != id).map(|&o| super::pair(id, o)));
        }
    }

    /// [`BroadPhase::validate`].
    pub(crate) fn validate(&self) -> Result<(), String> {
        match self {
            Self::Sap(sap) => sap.validate(),
            Self::Other(bp) => bp.validate(),
        }
    }
}
