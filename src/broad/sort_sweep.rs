//! Sort and sweep: every call sorts the boxes by `min.x` and sweeps them left to right with an
//! active list, dropping entries whose `max.x` is left of the current `min.x` and testing y too
//! before emitting a pair: the x overlap alone is only a candidate, and boxes sharing an x range
//! but spread in y (a column, a wall) would otherwise all pair up.
//!
//! The sorted array persists between calls, so each call starts from the previous order: with
//! coherent motion it is nearly sorted and an insertion sort finishes in close to O(n). An
//! insertion sort that meets too many inversions (teleports, mass insertion) stops and hands the
//! array to `sort_unstable_by`, so the worst case stays O(n log n).

use crate::broad::{BroadPhase, Pair, PairHistory, pair};
use crate::math::Aabb;

/// One box in the sweep array, with its id (20 bytes: the sweep reads it sequentially).
#[derive(Clone, Copy, Debug)]
struct Entry {
    aabb: Aabb,
    id: u32,
}

/// A box in an active list (here and in the SAP's insertion sweeps): only what the x-drop and
/// the y test read, so that scanning the list reads 16 contiguous bytes per entry instead of a
/// random box.
#[derive(Clone, Copy)]
pub(super) struct Active {
    pub max_x: f32,
    pub min_y: f32,
    pub max_y: f32,
    pub id: u32,
}

/// Insertion sort gives up after this many element moves per stored box and falls back to
/// `sort_unstable_by` (an insertion sort of shuffled input is O(n²)).
///
/// The value trades the frames the insertion sort keeps against the work it wastes: on a nearly
/// sorted array it beats `sort_unstable_by` up to a crossover around 40 moves per box (boxes
/// jittering along x); a larger budget keeps more frames on that fast path but lets a shuffle
/// waste more moves before the fallback. At 16 the wasted work stays well under one sort.
const SHIFTS_PER_BOX: usize = 16;

/// Per-frame sort on `min.x` plus an active-list sweep.
#[derive(Clone, Default)]
pub struct SortSweep {
    /// id → current box (valid where `present`).
    boxes: Vec<Aabb>,
    /// id → stored.
    present: Vec<bool>,
    /// id → has an entry in `sorted` (may outlive `present` until the next sync drops it).
    in_sorted: Vec<bool>,
    /// Number of present ids.
    count: usize,
    /// Boxes in `min.x` order as of the last sync; the starting order of the next sort.
    sorted: Vec<Entry>,
    /// Whether some id was removed since the last sync (so `sorted` holds stale entries).
    removed_any: bool,
    /// Whether anything changed since the previous `update_pairs`.
    dirty: bool,
    /// Whether `sorted` reflects every mutation (boxes refreshed and sorted).
    synced: bool,
    /// Sweep scratch, reused every call so the sweep never allocates.
    active: Vec<Active>,
    /// The pairs last reported by `update_pairs`, for the next diff.
    history: PairHistory,
    /// How the last sync sorted: `true` if insertion sort finished within its budget (tests and
    /// benchmarks read it).
    last_sort_was_insertion: bool,
}

impl SortSweep {
    /// An empty structure.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn grow(&mut self, id: u32) {
        let n = id as usize + 1;
        if self.present.len() < n {
            self.boxes.resize(n, Aabb::default());
            self.present.resize(n, false);
            self.in_sorted.resize(n, false);
        }
    }

    /// Brings `sorted` up to date: drops removed ids, refreshes boxes, sorts by `min.x`.
    fn sync(&mut self) {
        if self.synced {
            return;
        }
        self.synced = true;
        if self.removed_any {
            self.removed_any = false;
            let (present, in_sorted) = (&self.present, &mut self.in_sorted);
            self.sorted.retain(|e| {
                let keep = present[e.id as usize];
                in_sorted[e.id as usize] = keep;
                keep
            });
        }
        for e in &mut self.sorted {
            e.aabb = self.boxes[e.id as usize];
        }
        self.last_sort_was_insertion = insertion_sort_bounded(&mut self.sorted, SHIFTS_PER_BOX);
        if !self.last_sort_was_insertion {
            self.sorted.sort_unstable_by(|a, b| a.aabb.min.x.total_cmp(&b.aabb.min.x));
        }
    }

    /// The sweep over the synced array: each box meets the active boxes whose x range still
    /// reaches its `min.x` (inclusive: `max.x == min.x` touches and stays).
    fn sweep(&mut self, out: &mut Vec<Pair>) {
        let active = &mut self.active;
        active.clear();
        for e in &self.sorted {
            let b = e.aabb;
            let mut k = 0;
            // One pass drops expired entries (compacting in place) and tests the survivors.
            for r in 0..active.len() {
                let a = active[r];
                if a.max_x < b.min.x {
                    continue;
                }
                active[k] = a;
                k += 1;
                if (a.min_y <= b.max.y) & (b.min.y <= a.max_y) {
                    out.push(pair(a.id, e.id));
                }
            }
            active.truncate(k);
            active.push(Active { max_x: b.max.x, min_y: b.min.y, max_y: b.max.y, id: e.id });
        }
    }
}

/// Insertion sort by `min.x` that stops after `shifts_per_box * len` element moves; returns
/// whether it finished. Whatever it did stays a permutation, so the caller can finish with
/// another sort.
fn insertion_sort_bounded(v: &mut [Entry], shifts_per_box: usize) -> bool {
    let budget = shifts_per_box * v.len();
    let mut moves = 0usize;
    for i in 1..v.len() {
        let e = v[i];
        let x = e.aabb.min.x;
        let mut j = i;
        while j > 0 && v[j - 1].aabb.min.x.total_cmp(&x).is_gt() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
        moves += i - j;
        if moves > budget {
            return false;
        }
    }
    true
}

impl BroadPhase for SortSweep {
    fn name(&self) -> &'static str {
        "sort-sweep"
    }

    fn len(&self) -> usize {
        self.count
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        self.grow(id);
        let i = id as usize;
        debug_assert!(!self.present[i], "broad phase: id {id} inserted twice");
        if !self.present[i] {
            self.count += 1;
            self.present[i] = true;
        }
        self.boxes[i] = aabb;
        if !self.in_sorted[i] {
            self.in_sorted[i] = true;
            self.sorted.push(Entry { aabb, id });
        }
        self.dirty = true;
        self.synced = false;
    }

    fn remove(&mut self, id: u32) {
        let i = id as usize;
        debug_assert!(self.present.get(i) == Some(&true), "broad phase: removing absent id {id}");
        if self.present.get(i) == Some(&true) {
            self.present[i] = false;
            self.count -= 1;
            self.removed_any = true;
            self.dirty = true;
            self.synced = false;
        }
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        let i = id as usize;
        debug_assert!(self.present.get(i) == Some(&true), "broad phase: updating absent id {id}");
        if self.present.get(i) == Some(&true) {
            self.boxes[i] = aabb;
            self.dirty = true;
            self.synced = false;
        }
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.sync();
        let mut history = std::mem::take(&mut self.history);
        history.report(|out| self.sweep(out), began, ended);
        self.history = history;
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.sync();
        self.sweep(out);
    }

    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.sync();
        // Only the prefix with `min.x <= aabb.max.x` can overlap.
        let end = self.sorted.partition_point(|e| e.aabb.min.x <= aabb.max.x);
        for e in &self.sorted[..end] {
            if e.aabb.overlaps(aabb) {
                out.push(e.id);
            }
        }
    }

    fn validate(&self) -> Result<(), String> {
        let present = self.present.iter().filter(|&&p| p).count();
        if present != self.count {
            return Err(format!("sort-sweep: count {} but {present} present ids", self.count));
        }
        let mut seen = vec![false; self.present.len()];
        for e in &self.sorted {
            let i = e.id as usize;
            if i >= seen.len() || seen[i] {
                return Err(format!("sort-sweep: id {} twice in the sweep array or unknown", e.id));
            }
            seen[i] = true;
            if !self.in_sorted[i] {
                return Err(format!("sort-sweep: id {} in the sweep array but not flagged", e.id));
            }
            if self.synced && (!self.present[i] || e.aabb != self.boxes[i]) {
                return Err(format!("sort-sweep: synced but entry {} is stale", e.id));
            }
        }
        for (i, (&p, &s)) in self.present.iter().zip(&self.in_sorted).enumerate() {
            if (p && !seen[i]) || (s != seen[i]) {
                return Err(format!("sort-sweep: id {i} missing from the sweep array"));
            }
        }
        if self.synced && self.sorted.windows(2).any(|w| w[0].aabb.min.x > w[1].aabb.min.x) {
            return Err("sort-sweep: synced but not sorted by min.x".into());
        }
        if !self.history.is_sorted() {
            return Err("sort-sweep: previous pair list not sorted and unique".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad::test_kit::*;
    use glam::Vec2;

    fn make() -> Box<dyn BroadPhase> {
        Box::new(SortSweep::new())
    }

    #[test]
    fn churn_matches_model() {
        for seed in 0..8 {
            churn(&make, seed, 500, 80);
        }
    }

    #[test]
    fn adversarial_sets_match_model() {
        adversarial(&make);
    }

    #[test]
    fn small_moves_stay_on_the_insertion_sort_path_and_shuffles_fall_back() {
        let mut rng = SplitMix64::new(3);
        let mut s = SortSweep::new();
        let boxes: Vec<Aabb> = (0..2000).map(|_| random_box(&mut rng)).collect();
        for (i, b) in boxes.iter().enumerate() {
            s.insert(i as u32, *b);
        }
        let (mut b, mut e) = (Vec::new(), Vec::new());
        s.update_pairs(&mut b, &mut e);
        assert!(!s.last_sort_was_insertion, "2000 unsorted inserts must exceed the shift budget");
        for (i, bx) in boxes.iter().enumerate() {
            let d = Vec2::new(rng.range(-1.0, 1.0), 0.0);
            s.update(i as u32, Aabb::new(bx.min + d, bx.max + d));
        }
        s.update_pairs(&mut b, &mut e);
        assert!(s.last_sort_was_insertion, "small moves should be nearly sorted");
        s.validate().unwrap();
    }

    #[test]
    fn remove_then_reinsert_before_sync_keeps_one_entry() {
        let mut s = SortSweep::new();
        let b = Aabb::new(Vec2::ZERO, Vec2::ONE);
        s.insert(4, b);
        s.insert(2, b);
        s.remove(4);
        s.insert(4, b);
        s.validate().unwrap();
        let mut out = Vec::new();
        s.pairs(&mut out);
        assert_eq!(out, vec![[2, 4]]);
        s.validate().unwrap();
    }
}
