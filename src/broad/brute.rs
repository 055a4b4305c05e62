//! Brute force: every pair of stored boxes is tested. O(n²), and the oracle the other broad
//! phases are checked against, so it stays obviously correct: one tight double loop over a packed
//! array of boxes.

use crate::broad::dense_boxes::DenseBoxes;
use crate::broad::{BroadPhase, Pair, PairHistory, pair};
use crate::math::Aabb;

/// Tests every pair of stored boxes. The oracle.
#[derive(Clone, Default)]
pub struct BruteForce {
    store: DenseBoxes,
    /// The pairs last reported by `update_pairs`, for the next diff.
    history: PairHistory,
    /// Whether anything changed since the previous `update_pairs` (a still scene costs nothing).
    dirty: bool,
}

impl BruteForce {
    /// An empty structure.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Every overlapping pair, by a double loop over the packed boxes.
    fn all_pairs(&self, out: &mut Vec<Pair>) {
        let (ids, boxes) = (&self.store.ids, &self.store.boxes);
        for i in 0..boxes.len() {
            let a = boxes[i];
            let ia = ids[i];
            for j in i + 1..boxes.len() {
                if a.overlaps(&boxes[j]) {
                    out.push(pair(ia, ids[j]));
                }
            }
        }
    }
}

impl BroadPhase for BruteForce {
    fn name(&self) -> &'static str {
        "brute"
    }

    fn len(&self) -> usize {
        self.store.len()
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        self.store.insert(id, aabb);
        self.dirty = true;
    }

    fn remove(&mut self, id: u32) {
        let was = self.store.remove(id);
        debug_assert!(was, "broad phase: removing absent id {id}");
        self.dirty = true;
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        let was = self.store.update(id, aabb);
        debug_assert!(was, "broad phase: updating absent id {id}");
        self.dirty = true;
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let mut history = std::mem::take(&mut self.history);
        history.report(|out| self.all_pairs(out), began, ended);
        self.history = history;
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.all_pairs(out);
    }

    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.store.query(aabb, out);
    }

    fn validate(&self) -> Result<(), String> {
        self.store.validate()?;
        if !self.history.is_sorted() {
            return Err("brute: previous pair list not sorted and unique".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad::test_kit::*;

    fn make() -> Box<dyn BroadPhase> {
        Box::new(BruteForce::new())
    }

    #[test]
    fn churn_matches_model() {
        for seed in 0..6 {
            churn(&make, seed, 400, 60);
        }
    }

    #[test]
    fn adversarial_sets_match_model() {
        adversarial(&make);
    }
}
