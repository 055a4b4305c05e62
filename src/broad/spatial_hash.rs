//! Spatial hash: an unbounded grid whose occupied cells live in a hash map from cell
//! coordinates to the ids touching that cell, plus a **reverse map** from id to its cell range, so
//! that an update touches only the cells it enters or leaves (a box moving within its cells
//! touches none).
//!
//! ```text
//! map:   (cx, cy) ──hash──> cell slot        cells: [ {key, ids: [3, 9]}, {key, ids: [9]}, … ]
//! recs:  id -> { aabb, cell range x0..=x1, y0..=y1, dense / oversized position }
//! ```
//!
//! The cell size is rounded up to a power of two, so `x * (1 / size)` is exact and the cell of a
//! coordinate is a monotone function of it (the cast to `i32` saturates far away). Pairs are
//! emitted only from the cell holding the lower-left corner of the two boxes' intersection,
//! `(max(a.x0, b.x0), max(a.y0, b.y0))`, which lies in both boxes' ranges: each pair once, no
//! set, no sort before the diff. Cell slots whose last id left go to a free list and keep their
//! `Vec`'s capacity, so steady-state motion does not allocate.
//!
//! A box covering more than [`MAX_CELLS_PER_BOX`] cells goes to an "oversized" list instead and
//! is tested against every box.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::broad::{BroadPhase, Pair, PairHistory, pair};
use crate::index::NULL_INDEX;
use crate::math::Aabb;

/// Boxes covering more cells than this are tested against every box instead of being hashed
/// into each cell. Larger: a big box costs a hash insertion per cell on every move that changes
/// its range; smaller: more boxes take the O(n) test against every box.
pub const MAX_CELLS_PER_BOX: i64 = 128;

/// Splitmix64's finaliser over the single `u64` cell key: all 64 output bits depend on both
/// coordinates, which hashbrown needs (it takes the bucket from the low bits and a tag from the
/// top 7). SipHash, std's default, is several times slower for an 8-byte key.
#[derive(Default, Clone, Copy)]
pub struct CellHasher(u64);

impl Hasher for CellHasher {
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used for cell keys; arbitrary bytes are folded in for completeness.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    }

    #[inline]
    fn write_u64(&mut self, k: u64) {
        self.0 ^= k;
    }
}

type CellMap = HashMap<u64, u32, BuildHasherDefault<CellHasher>>;

#[inline]
fn key(cx: i32, cy: i32) -> u64 {
    (u64::from(cx as u32) << 32) | u64::from(cy as u32)
}

#[inline]
fn unkey(k: u64) -> (i32, i32) {
    ((k >> 32) as u32 as i32, k as u32 as i32)
}

/// Where an id is: absent, in the cells of its range, or in the oversized list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum State {
    #[default]
    Absent,
    Cells,
    Oversized,
}

/// Reverse-map record of one id (40 bytes).
#[derive(Clone, Copy, Debug, Default)]
struct Rec {
    aabb: Aabb,
    /// Cell range `[x0, x1] × [y0, y1]` (meaningful in state `Cells`).
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
    /// Index in `dense`.
    dense_pos: u32,
    /// Index in `oversized` (state `Oversized`), else [`NULL_INDEX`].
    over_pos: u32,
    state: State,
}

/// Initial room in a new cell slot's id list. Slots are recycled among cells and keep their
/// capacity, so this only sets how soon a slot stops reallocating: larger costs memory per
/// occupied cell, smaller lets a crowded cell reallocate during steps.
const CELL_CAPACITY: usize = 16;

/// One occupied cell.
#[derive(Clone, Debug, Default)]
struct Cell {
    key: u64,
    ids: Vec<u32>,
}

/// Unbounded hashed grid with a reverse map.
#[derive(Clone)]
pub struct SpatialHash {
    /// Cell edge length, a power of two.
    cell_size: f32,
    /// `1 / cell_size`, exact.
    inv_cell: f32,
    /// id → record.
    recs: Vec<Rec>,
    /// Present ids, for the linear scans of oversized boxes and large queries.
    dense: Vec<u32>,
    /// Ids of oversized boxes.
    oversized: Vec<u32>,
    /// Cell key → slot in `cells`.
    map: CellMap,
    /// Cell slots; a free slot has an empty `ids`.
    cells: Vec<Cell>,
    /// Free cell slots, reused (with their `Vec` capacity) before `cells` grows.
    free_cells: Vec<u32>,
    /// Anything changed since the previous `update_pairs`.
    dirty: bool,
    /// The pairs last reported by `update_pairs`, for the next diff.
    history: PairHistory,
}

impl SpatialHash {
    /// A hash with cells of `cell_size` rounded up to a power of two (clamped to
    /// `[2^-40, 2^60]`; a non-finite or non-positive size becomes 1).
    #[must_use]
    pub fn new(cell_size: f32) -> Self {
        let c = if cell_size.is_finite() && cell_size > 0.0 { cell_size } else { 1.0 };
        // 2^-40 and 2^60, from their exponent bits.
        let c = c.clamp(f32::from_bits((127 - 40) << 23), f32::from_bits((127 + 60) << 23));
        // Clearing the mantissa gives the power of two at or below a normal float.
        let mut p = f32::from_bits(c.to_bits() & 0xFF80_0000);
        if p < c {
            p *= 2.0;
        }
        Self {
            cell_size: p,
            inv_cell: 1.0 / p,
            recs: Vec::new(),
            dense: Vec::new(),
            oversized: Vec::new(),
            map: CellMap::default(),
            cells: Vec::new(),
            free_cells: Vec::new(),
            dirty: false,
            history: PairHistory::default(),
        }
    }

    /// The cell edge length in use (a power of two).
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Number of occupied cells.
    #[must_use]
    pub fn occupied_cells(&self) -> usize {
        self.map.len()
    }

    /// Cell coordinate of `v`: exact scaling, floor, saturating cast (monotone).
    ///
    /// The floor is the truncating cast stepped down for negative non-integers: `f32::floor`
    /// is a libm call without SSE4.1, and this runs four times per update or query. Beyond 2^24
    /// every `f32` is an integer, so the cast back is exact wherever it matters, and the
    /// saturating ends stay monotone.
    #[inline]
    fn cell_of(&self, v: f32) -> i32 {
        let x = v * self.inv_cell;
        let t = x as i32;
        t.saturating_sub(i32::from(t as f32 > x))
    }

    #[inline]
    fn range(&self, b: &Aabb) -> (i32, i32, i32, i32) {
        (self.cell_of(b.min.x), self.cell_of(b.min.y), self.cell_of(b.max.x), self.cell_of(b.max.y))
    }

    /// Cells in a range; saturating, since a full `i32 × i32` range has 2^64 cells.
    #[inline]
    fn cell_count(x0: i32, y0: i32, x1: i32, y1: i32) -> i64 {
        (i64::from(x1) - i64::from(x0) + 1).saturating_mul(i64::from(y1) - i64::from(y0) + 1)
    }

    fn add_to_cell(&mut self, cx: i32, cy: i32, id: u32) {
        let k = key(cx, cy);
        let slot = match self.map.get(&k) {
            Some(&s) => s,
            None => {
                if self.free_cells.is_empty() {
                    // Room for a typical cell from the start: cell slots are recycled among
                    // cells, and a slot whose list must grow allocates in a steady step. Slots
                    // come an eighth of the count at a time, so that the occupied-cell count
                    // wandering a little above its past high (as fat boxes renewed at varying
                    // times make it) does not allocate a list each time.
                    let extra = (self.cells.len() / 8).max(1);
                    let first = self.cells.len() as u32;
                    self.cells.resize_with(self.cells.len() + extra, || Cell {
                        key: 0,
                        ids: Vec::with_capacity(CELL_CAPACITY),
                    });
                    self.free_cells.extend((first..self.cells.len() as u32).rev());
                }
                let s = self.free_cells.pop().expect("a free cell slot was just made");
                self.cells[s as usize].key = k;
                self.map.insert(k, s);
                s
            }
        };
        self.cells[slot as usize].ids.push(id);
    }

    fn remove_from_cell(&mut self, cx: i32, cy: i32, id: u32) {
        let k = key(cx, cy);
        let Some(&slot) = self.map.get(&k) else {
            debug_assert!(false, "spatial hash: cell of id {id} missing");
            return;
        };
        let ids = &mut self.cells[slot as usize].ids;
        if let Some(p) = ids.iter().position(|&i| i == id) {
            ids.swap_remove(p);
        }
        if ids.is_empty() {
            self.map.remove(&k);
            self.free_cells.push(slot);
        }
    }

    /// Puts a present id (whose record has its new box) into cells or the oversized list.
    fn place(&mut self, id: u32) {
        let aabb = self.recs[id as usize].aabb;
        let (x0, y0, x1, y1) = self.range(&aabb);
        let r = &mut self.recs[id as usize];
        (r.x0, r.y0, r.x1, r.y1) = (x0, y0, x1, y1);
        if Self::cell_count(x0, y0, x1, y1) > MAX_CELLS_PER_BOX {
            r.state = State::Oversized;
            r.over_pos = self.oversized.len() as u32;
            self.oversized.push(id);
            return;
        }
        r.state = State::Cells;
        r.over_pos = NULL_INDEX;
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                self.add_to_cell(cx, cy, id);
            }
        }
    }

    /// Takes a present id out of its cells or the oversized list (its record keeps its range).
    fn unplace(&mut self, id: u32) {
        let r = self.recs[id as usize];
        match r.state {
            State::Cells => {
                for cy in r.y0..=r.y1 {
                    for cx in r.x0..=r.x1 {
                        self.remove_from_cell(cx, cy, id);
                    }
                }
            }
            State::Oversized => {
                let p = r.over_pos as usize;
                self.oversized.swap_remove(p);
                if let Some(&moved) = self.oversized.get(p) {
                    self.recs[moved as usize].over_pos = p as u32;
                }
            }
            State::Absent => {}
        }
    }

    /// Every overlapping pair, each once.
    fn collect_pairs(&self, out: &mut Vec<Pair>) {
        for cell in &self.cells {
            let ids = &cell.ids;
            if ids.len() < 2 {
                continue;
            }
            let (cx, cy) = unkey(cell.key);
            for (i, &a) in ids.iter().enumerate() {
                let ra = &self.recs[a as usize];
                for &b in &ids[i + 1..] {
                    let rb = &self.recs[b as usize];
                    if (ra.x0.max(rb.x0) == cx) & (ra.y0.max(rb.y0) == cy) & ra.aabb.overlaps(&rb.aabb) {
                        out.push(pair(a, b));
                    }
                }
            }
        }
        // Oversized boxes meet every box; two oversized ones pair from the earlier list position.
        for (p, &a) in self.oversized.iter().enumerate() {
            let ra = &self.recs[a as usize];
            for &b in &self.dense {
                let rb = &self.recs[b as usize];
                if rb.state == State::Oversized && rb.over_pos as usize <= p {
                    continue;
                }
                if ra.aabb.overlaps(&rb.aabb) {
                    out.push(pair(a, b));
                }
            }
        }
    }
}

impl BroadPhase for SpatialHash {
    fn name(&self) -> &'static str {
        "hash"
    }

    fn len(&self) -> usize {
        self.dense.len()
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        let i = id as usize;
        if i >= self.recs.len() {
            self.recs.resize(i + 1, Rec::default());
        }
        debug_assert!(self.recs[i].state == State::Absent, "broad phase: id {id} inserted twice");
        if self.recs[i].state != State::Absent {
            self.update(id, aabb);
            return;
        }
        self.recs[i].aabb = aabb;
        self.recs[i].dense_pos = self.dense.len() as u32;
        self.dense.push(id);
        self.place(id);
        self.dirty = true;
    }

    fn remove(&mut self, id: u32) {
        let i = id as usize;
        let present = self.recs.get(i).is_some_and(|r| r.state != State::Absent);
        debug_assert!(present, "broad phase: removing absent id {id}");
        if !present {
            return;
        }
        self.unplace(id);
        let p = self.recs[i].dense_pos as usize;
        self.dense.swap_remove(p);
        if let Some(&moved) = self.dense.get(p) {
            self.recs[moved as usize].dense_pos = p as u32;
        }
        self.recs[i] = Rec::default();
        self.dirty = true;
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        let i = id as usize;
        let present = self.recs.get(i).is_some_and(|r| r.state != State::Absent);
        debug_assert!(present, "broad phase: updating absent id {id}");
        if !present {
            return;
        }
        self.dirty = true;
        let (x0, y0, x1, y1) = self.range(&aabb);
        let old = self.recs[i];
        self.recs[i].aabb = aabb;
        let big = Self::cell_count(x0, y0, x1, y1) > MAX_CELLS_PER_BOX;
        if old.state == State::Oversized || big {
            if old.state == State::Oversized && big {
                (self.recs[i].x0, self.recs[i].y0, self.recs[i].x1, self.recs[i].y1) = (x0, y0, x1, y1);
            } else {
                self.unplace(id);
                self.place(id);
            }
            return;
        }
        if (x0, y0, x1, y1) == (old.x0, old.y0, old.x1, old.y1) {
            return;
        }
        // Only the cells in the symmetric difference of the two ranges change.
        let inside = |cx: i32, cy: i32, a: i32, b: i32, c: i32, d: i32| (a..=c).contains(&cx) && (b..=d).contains(&cy);
        for cy in old.y0..=old.y1 {
            for cx in old.x0..=old.x1 {
                if !inside(cx, cy, x0, y0, x1, y1) {
                    self.remove_from_cell(cx, cy, id);
                }
            }
        }
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                if !inside(cx, cy, old.x0, old.y0, old.x1, old.y1) {
                    self.add_to_cell(cx, cy, id);
                }
            }
        }
        let r = &mut self.recs[i];
        (r.x0, r.y0, r.x1, r.y1) = (x0, y0, x1, y1);
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let mut history = std::mem::take(&mut self.history);
        history.report(|out| self.collect_pairs(out), began, ended);
        self.history = history;
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.collect_pairs(out);
    }

    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.query_aabb_shared(aabb, out);
    }

    fn query_aabb_shared(&self, aabb: &Aabb, out: &mut Vec<u32>) -> bool {
        let (qx0, qy0, qx1, qy1) = self.range(aabb);
        if Self::cell_count(qx0, qy0, qx1, qy1) > self.dense.len() as i64 {
            // More cells than boxes: a scan is cheaper than the lookups.
            for &id in &self.dense {
                if self.recs[id as usize].aabb.overlaps(aabb) {
                    out.push(id);
                }
            }
            return true;
        }
        for cy in qy0..=qy1 {
            for cx in qx0..=qx1 {
                let Some(&slot) = self.map.get(&key(cx, cy)) else { continue };
                for &id in &self.cells[slot as usize].ids {
                    let r = &self.recs[id as usize];
                    // Report from the intersection's first cell only, as for pairs. `&`: one
                    // branch, not three coin tosses.
                    if (r.x0.max(qx0) == cx) & (r.y0.max(qy0) == cy) & r.aabb.overlaps(aabb) {
                        out.push(id);
                    }
                }
            }
        }
        for &id in &self.oversized {
            if self.recs[id as usize].aabb.overlaps(aabb) {
                out.push(id);
            }
        }
        true
    }

    fn validate(&self) -> Result<(), String> {
        if self.cell_size.to_bits() & 0x007F_FFFF != 0
            || self.cell_size.is_nan()
            || self.cell_size <= 0.0
            || self.inv_cell * self.cell_size != 1.0
        {
            return Err(format!("hash: cell size {} is not a power of two", self.cell_size));
        }
        let mut expected_regs = 0i64;
        for (p, &id) in self.dense.iter().enumerate() {
            let r = self.recs.get(id as usize).ok_or("hash: dense id out of range")?;
            if r.state == State::Absent || r.dense_pos as usize != p {
                return Err(format!("hash: dense position of id {id} wrong"));
            }
            let (x0, y0, x1, y1) = self.range(&r.aabb);
            if (x0, y0, x1, y1) != (r.x0, r.y0, r.x1, r.y1) {
                return Err(format!("hash: stale cell range for id {id}"));
            }
            let big = Self::cell_count(x0, y0, x1, y1) > MAX_CELLS_PER_BOX;
            match r.state {
                State::Oversized if big => {
                    if self.oversized.get(r.over_pos as usize) != Some(&id) {
                        return Err(format!("hash: oversized position of id {id} wrong"));
                    }
                }
                State::Cells if !big => {
                    expected_regs += Self::cell_count(x0, y0, x1, y1);
                    for cy in y0..=y1 {
                        for cx in x0..=x1 {
                            let slot = self.map.get(&key(cx, cy)).ok_or(format!("hash: id {id} cell missing"))?;
                            let n = self.cells[*slot as usize].ids.iter().filter(|&&i| i == id).count();
                            if n != 1 {
                                return Err(format!("hash: id {id} in its cell ({cx},{cy}) {n} times"));
                            }
                        }
                    }
                }
                _ => return Err(format!("hash: id {id} in the wrong list for its size")),
            }
        }
        let present = self.recs.iter().filter(|r| r.state != State::Absent).count();
        if present != self.dense.len() {
            return Err(format!("hash: {present} present records but {} dense ids", self.dense.len()));
        }
        if self.oversized.len() != self.recs.iter().filter(|r| r.state == State::Oversized).count() {
            return Err("hash: oversized list length wrong".into());
        }
        let mut regs = 0i64;
        for (&k, &slot) in &self.map {
            let cell = self.cells.get(slot as usize).ok_or("hash: map points past the cells")?;
            if cell.key != k || cell.ids.is_empty() {
                return Err(format!("hash: cell slot {slot} has the wrong key or is empty"));
            }
            regs += cell.ids.len() as i64;
        }
        if regs != expected_regs {
            return Err(format!("hash: {regs} registrations, ranges need {expected_regs}"));
        }
        if self.free_cells.len() + self.map.len() != self.cells.len()
            || self.free_cells.iter().any(|&s| !self.cells[s as usize].ids.is_empty())
        {
            return Err("hash: free cell list inconsistent".into());
        }
        if !self.history.is_sorted() {
            return Err("hash: previous pair list not sorted and unique".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad::test_kit::*;
    use glam::Vec2;

    #[test]
    fn cell_of_is_floor() {
        let h = SpatialHash::new(2.0);
        for v in [0.0, -0.0, 1.9, 2.0, -0.1, -2.0, -2.1, 3.5e7, -3.5e7, 1e20, -1e20, f32::MAX, f32::MIN] {
            let expected = (v * h.inv_cell).floor() as i32;
            assert_eq!(h.cell_of(v), expected, "{v}");
        }
    }

    #[test]
    fn churn_matches_model() {
        for (seed, cell) in [(0, 40.0), (1, 40.0), (2, 5.0), (3, 100.0), (4, 33.0), (5, 1024.0), (6, 2.0)] {
            churn(&|| Box::new(SpatialHash::new(cell)), seed, 500, 80);
        }
    }

    #[test]
    fn adversarial_sets_match_model() {
        adversarial(&|| Box::new(SpatialHash::new(40.0)));
        adversarial(&|| Box::new(SpatialHash::new(0.25)));
        adversarial(&|| Box::new(SpatialHash::new(1e-9)));
    }

    #[test]
    fn cell_size_rounds_up_to_a_power_of_two() {
        assert_eq!(SpatialHash::new(40.0).cell_size(), 64.0);
        assert_eq!(SpatialHash::new(32.0).cell_size(), 32.0);
        assert_eq!(SpatialHash::new(0.3).cell_size(), 0.5);
        assert_eq!(SpatialHash::new(0.0).cell_size(), 1.0);
        assert_eq!(SpatialHash::new(f32::NAN).cell_size(), 1.0);
        assert_eq!(SpatialHash::new(1e30).cell_size(), 2f32.powi(60));
    }

    #[test]
    fn moving_within_its_cells_touches_no_cell_and_leaving_frees_them() {
        let mut h = SpatialHash::new(16.0);
        h.insert(1, Aabb::new(Vec2::new(1.0, 1.0), Vec2::new(2.0, 2.0)));
        h.insert(2, Aabb::new(Vec2::new(20.0, 1.0), Vec2::new(40.0, 2.0)));
        assert_eq!(h.occupied_cells(), 3);
        h.update(1, Aabb::new(Vec2::new(3.0, 3.0), Vec2::new(4.0, 4.0)));
        assert_eq!(h.occupied_cells(), 3);
        h.update(1, Aabb::new(Vec2::new(1e5, 1e5), Vec2::new(1e5 + 1.0, 1e5 + 1.0)));
        assert_eq!(h.occupied_cells(), 3);
        h.remove(2);
        assert_eq!(h.occupied_cells(), 1);
        h.validate().unwrap();
        assert_eq!(h.free_cells.len(), 2, "vacated cell slots are kept for reuse");
    }

    #[test]
    fn saturated_cell_coordinates_stay_exact() {
        // With tiny cells, coordinates beyond i32 cells saturate; the dedup rule still holds.
        let mut h = SpatialHash::new(1e-6);
        // Regression guard: the cell count of a full i32 × i32 range must saturate, not overflow
        // i64 to 0, which would make this box "small" and a query over it loop over 2^64 cells.
        h.insert(3, Aabb::new(Vec2::splat(-1e5), Vec2::splat(1e5)));
        let a = Aabb::new(Vec2::splat(1e6), Vec2::splat(1e6 + 1.0));
        let b = Aabb::new(Vec2::splat(1e6 + 1.0), Vec2::splat(1e6 + 2.0));
        h.insert(0, a);
        h.insert(1, b);
        h.insert(2, Aabb::new(Vec2::splat(-1e6), Vec2::splat(-1e6)));
        let mut out = Vec::new();
        h.pairs(&mut out);
        out.sort_unstable();
        assert_eq!(out, vec![[0, 1]]);
        let mut ids = Vec::new();
        h.query_aabb(&Aabb::new(Vec2::splat(-2e5), Vec2::splat(2e5)), &mut ids);
        assert_eq!(ids, vec![3]);
        h.validate().unwrap();
    }
}
