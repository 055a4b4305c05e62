//! Pair tracking for the broad-phase interface: the next pair set from the previous one and the
//! ids changed since.

use super::DynamicTree;
use crate::broad::{Pair, diff_sorted_pairs, pair};

impl DynamicTree {
    /// [`BroadPhase::update_pairs`](crate::broad::BroadPhase::update_pairs): the current pair
    /// set, diffed against the previous one; then every id is clean again.
    pub(super) fn report_pair_changes(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        self.current_pairs_into_merged();
        diff_sorted_pairs(&self.prev_pairs, &self.merged, began, ended);
        std::mem::swap(&mut self.prev_pairs, &mut self.merged);
        for &id in &self.dirty_ids {
            self.dirty[id as usize] = false;
        }
        self.dirty_ids.clear();
    }

    /// Computes the current pair set into `merged` (sorted) from `prev_pairs` and the dirty ids:
    /// pairs of two clean ids cannot have changed; every pair with a dirty id is found again by
    /// querying the dirty leaves. When a quarter of the leaves or more is dirty, one
    /// self-descent ([`DynamicTree::for_each_pair`]) is cheaper: it visits each overlapping node
    /// pair once, where every dirty query pays a descent from the root.
    fn current_pairs_into_merged(&mut self) {
        let mut merged = std::mem::take(&mut self.merged);
        merged.clear();
        if self.dirty_ids.is_empty() {
            merged.extend_from_slice(&self.prev_pairs);
        } else if self.dirty_ids.len() * 4 >= self.leaf_count as usize {
            self.for_each_pair(|a, b| merged.push(pair(a, b)));
            merged.sort_unstable();
        } else {
            let mut new = std::mem::take(&mut self.new_pairs);
            new.clear();
            for &m in &self.dirty_ids {
                if !self.contains(m) {
                    continue;
                }
                let q = self.tight[m as usize];
                let dirty = &self.dirty;
                self.query(&q, |o| {
                    // A pair of two dirty ids is found from both ends; keep it once.
                    if o != m && (!dirty[o as usize] || m < o) {
                        new.push(pair(m, o));
                    }
                    true
                });
            }
            new.sort_unstable();
            // Merge the clean part of the previous set with the new pairs (disjoint, both sorted).
            let dirty = &self.dirty;
            let mut j = 0;
            for &p in &self.prev_pairs {
                if dirty[p[0] as usize] || dirty[p[1] as usize] {
                    continue;
                }
                while j < new.len() && new[j] < p {
                    merged.push(new[j]);
                    j += 1;
                }
                merged.push(p);
            }
            merged.extend_from_slice(&new[j..]);
            self.new_pairs = new;
        }
        self.merged = merged;
    }
}
