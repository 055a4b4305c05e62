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
pub(crate) enum Movers {
    /// The SAP without a pair set, for [`BroadPhaseKind::IncrementalSap`]; boxed, since it is
    /// far larger than the other variant.
    Sap(Box<SapWithoutPairSet>),
    /// Any other kind, built by [`BroadPhaseKind::build`].
    Other(Box<dyn BroadPhase>),
}

impl Movers {
    /// An empty structure of the configured kind.
    pub(crate) fn new(kind: BroadPhaseKind) -> Self {
        match kind {
            BroadPhaseKind::IncrementalSap => Self::Sap(Box::new(SapWithoutPairSet::new())),
            kind => Self::Other(kind.build()),
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

    /// [`BroadPhase::validate`].
    pub(crate) fn validate(&self) -> Result<(), String> {
        match self {
            Self::Sap(sap) => sap.validate(),
            Self::Other(bp) => bp.validate(),
        }
    }
}
