//! Uniform grid: a bounded grid of square cells over `bounds`; every box is registered
//! in each cell it touches, and boxes outside the bounds are clamped into the border cells, so a
//! collider far outside still meets everything it overlaps (only less efficiently).
//!
//! The cells are flat arrays rebuilt by a counting sort on every call that follows a mutation:
//!
//! ```text
//! cell_end: [ 2, 2, 5, 6, ...]      cell c holds items[cell_end[c-1] .. cell_end[c]]
//! items:    [a b | c d e | f | ...]  each item: the box, its id and its first cell (cx0, cy0)
//! ```
//!
//! A rebuild is O(n + registrations + cells), needs no per-cell `Vec`s and allocates nothing once
//! the arrays have grown, whereas persistent cells with incremental moves need a `Vec` per cell
//! (or a free-list allocator) and a find-and-remove per moved registration.
//!
//! **Duplicates without a set.** Two boxes sharing several cells are tested in each of them, but
//! the pair is emitted only from the cell holding the lower-left corner of their intersection.
//! The cell index of a coordinate is a monotone function of it (subtract, scale, floor, clamp), so
//! that cell is `(max(a.cx0, b.cx0), max(a.cy0, b.cy0))`, and it lies in both boxes' cell ranges:
//! exactly one cell emits each overlapping pair, clamping included.
//!
//! **Guards.** Bounds and cell size that would make more than [`MAX_GRID_CELLS`] cells get a larger
//! cell size. A box covering more than [`MAX_CELLS_PER_BOX`] cells (a ground plane, a box far
//! larger than the cells) is kept out of the cells in an "oversized" list tested against every box.

use glam::Vec2;

use crate::broad::dense_boxes::DenseBoxes;
use crate::broad::{BroadPhase, Pair, PairHistory, pair};
use crate::index::NULL_INDEX;
use crate::math::Aabb;

/// Upper bound on the number of cells; larger requests get a coarser grid. More cells mean fewer
/// boxes per cell but a larger offset array, cleared on every rebuild (4 MB at 2^20 cells).
pub const MAX_GRID_CELLS: usize = 1 << 20;

/// Boxes covering more cells than this go to the oversized list, where each is tested against
/// every box (n tests). Larger: big boxes are registered in, and re-tested from, more cells;
/// smaller: more boxes take the O(n) path. Registering a box in hundreds of cells costs more than
/// n tests once n is in the thousands.
pub const MAX_CELLS_PER_BOX: usize = 128;

/// One registration of a box in a cell (28 bytes; a cell's items are read sequentially).
#[derive(Clone, Copy, Debug, Default)]
struct CellItem {
    aabb: Aabb,
    id: u32,
    /// First cell column of the box (the column of its clamped `min.x`).
    cx0: u32,
    /// First cell row of the box.
    cy0: u32,
}

/// The cell range `[x0, x1] × [y0, y1]` of a box, clamped into the grid.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct CellRange {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl CellRange {
    fn cells(&self) -> usize {
        (self.x1 - self.x0 + 1) as usize * (self.y1 - self.y0 + 1) as usize
    }
}

/// Bounded uniform grid, rebuilt per call by counting sort.
#[derive(Clone)]
pub struct UniformGrid {
    /// Lower-left corner of cell (0, 0).
    origin: Vec2,
    /// Cell edge length (after the cell-count guard).
    cell_size: f32,
    /// `1 / cell_size`.
    inv_cell: f32,
    /// Columns.
    nx: u32,
    /// Rows.
    ny: u32,
    store: DenseBoxes,
    /// Anything changed since the previous `update_pairs` (a still scene skips everything).
    dirty: bool,
    /// The cells reflect every mutation.
    built: bool,
    /// Per packed position of `store`: its cell range, or `x0 == NULL_INDEX` (no first column)
    /// for oversized. Rebuild scratch, kept to avoid reallocating.
    ranges: Vec<CellRange>,
    /// Per cell: end offset of its items in `items` (counting sort output). Reused per rebuild.
    cell_end: Vec<u32>,
    /// Registrations grouped by cell. Reused per rebuild.
    items: Vec<CellItem>,
    /// Packed positions of oversized boxes. Reused per rebuild.
    oversized: Vec<u32>,
    /// The pairs last reported by `update_pairs`, for the next diff.
    history: PairHistory,
}

impl UniformGrid {
    /// A grid over `bounds` with square cells of `cell_size`. A degenerate or non-finite `bounds`
    /// or `cell_size` is replaced by a usable one (a 1×1 box, one cell) rather than panicking,
    /// and more than 2^20 cells are avoided by enlarging the cells (see [`UniformGrid::cell_size`]).
    #[must_use]
    pub fn new(bounds: Aabb, cell_size: f32) -> Self {
        let bounds = if bounds.is_valid() { bounds } else { Aabb::new(Vec2::ZERO, Vec2::ONE) };
        // Clamped so that bounds spanning most of the f32 range do not give an infinite extent.
        let ext = (bounds.max - bounds.min).clamp(Vec2::splat(f32::MIN_POSITIVE), Vec2::splat(f32::MAX));
        let mut cell = if cell_size.is_finite() && cell_size > 0.0 { cell_size } else { ext.max_element() };
        // f64 so that absurd ratios (1e30 / 1e-30) neither overflow nor round to zero.
        let (ex, ey) = (f64::from(ext.x), f64::from(ext.y));
        let dims = |c: f32| ((ex / f64::from(c)).ceil().max(1.0), (ey / f64::from(c)).ceil().max(1.0));
        let (mut nx, mut ny) = dims(cell);
        if nx * ny > MAX_GRID_CELLS as f64 {
            // The smallest cell that could fit, then grow by 1% until the ceilings fit too.
            let max = MAX_GRID_CELLS as f64;
            cell = cell.max(((ex * ey / max).sqrt().max(ex.max(ey) / max)) as f32);
            (nx, ny) = dims(cell);
            while nx * ny > max {
                cell *= 1.01;
                (nx, ny) = dims(cell);
            }
        }
        Self {
            origin: bounds.min,
            cell_size: cell,
            inv_cell: 1.0 / cell,
            nx: nx as u32,
            ny: ny as u32,
            store: DenseBoxes::default(),
            dirty: false,
            built: false,
            ranges: Vec::new(),
            cell_end: Vec::new(),
            items: Vec::new(),
            oversized: Vec::new(),
            history: PairHistory::default(),
        }
    }

    /// The cell edge length in use (larger than requested when the cell-count guard applied).
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Columns and rows.
    #[must_use]
    pub fn dims(&self) -> (u32, u32) {
        (self.nx, self.ny)
    }

    /// Column of `x`, clamped. Monotone in `x`, which the duplicate rule relies on.
    #[inline]
    fn col(&self, x: f32) -> u32 {
        ((x - self.origin.x) * self.inv_cell).floor().max(0.0).min((self.nx - 1) as f32) as u32
    }

    /// Row of `y`, clamped.
    #[inline]
    fn row(&self, y: f32) -> u32 {
        ((y - self.origin.y) * self.inv_cell).floor().max(0.0).min((self.ny - 1) as f32) as u32
    }

    #[inline]
    fn range(&self, b: &Aabb) -> CellRange {
        CellRange { x0: self.col(b.min.x), y0: self.row(b.min.y), x1: self.col(b.max.x), y1: self.row(b.max.y) }
    }

    fn mark(&mut self) {
        self.dirty = true;
        self.built = false;
    }

    /// Counting-sort rebuild of the cells from the stored boxes.
    fn build(&mut self) {
        if self.built {
            return;
        }
        self.built = true;
        let ncells = (self.nx * self.ny) as usize;
        self.cell_end.clear();
        self.cell_end.resize(ncells, 0);
        self.oversized.clear();
        self.ranges.clear();
        let nx = self.nx as usize;
        // Pass 1: ranges and per-cell counts.
        let mut total = 0usize;
        for (k, b) in self.store.boxes.iter().enumerate() {
            let r = self.range(b);
            if r.cells() > MAX_CELLS_PER_BOX {
                self.oversized.push(k as u32);
                self.ranges.push(CellRange { x0: NULL_INDEX, ..r });
                continue;
            }
            self.ranges.push(r);
            total += r.cells();
            for y in r.y0..=r.y1 {
                let row = y as usize * nx;
                for c in &mut self.cell_end[row + r.x0 as usize..=row + r.x1 as usize] {
                    *c += 1;
                }
            }
        }
        // Exclusive prefix sum: cell_end[c] becomes the start of cell c, the fill cursor.
        let mut acc = 0u32;
        for c in &mut self.cell_end {
            let n = *c;
            *c = acc;
            acc += n;
        }
        // Pass 2: fill. Each cursor ends at its cell's end.
        self.items.clear();
        self.items.resize(total, CellItem::default());
        for (k, r) in self.ranges.iter().enumerate() {
            if r.x0 == NULL_INDEX {
                continue;
            }
            let item = CellItem { aabb: self.store.boxes[k], id: self.store.ids[k], cx0: r.x0, cy0: r.y0 };
            for y in r.y0..=r.y1 {
                let row = y as usize * nx;
                for c in row + r.x0 as usize..=row + r.x1 as usize {
                    let at = self.cell_end[c] as usize;
                    self.items[at] = item;
                    self.cell_end[c] += 1;
                }
            }
        }
    }

    /// Every overlapping pair, each once (the cells must be built).
    fn collect_pairs(&self, out: &mut Vec<Pair>) {
        let nx = self.nx as usize;
        let mut lo = 0usize;
        for (c, &end) in self.cell_end.iter().enumerate() {
            let cell = &self.items[lo..end as usize];
            lo = end as usize;
            if cell.len() < 2 {
                continue;
            }
            let (cx, cy) = ((c % nx) as u32, (c / nx) as u32);
            for (i, a) in cell.iter().enumerate() {
                for b in &cell[i + 1..] {
                    // Emit only from the cell of the intersection's lower-left corner.
                    if (a.cx0.max(b.cx0) == cx) & (a.cy0.max(b.cy0) == cy) & a.aabb.overlaps(&b.aabb) {
                        out.push(pair(a.id, b.id));
                    }
                }
            }
        }
        // Oversized boxes meet every box; a pair of two oversized ones is emitted by the lower
        // position.
        for &k in &self.oversized {
            let a = self.store.boxes[k as usize];
            let ia = self.store.ids[k as usize];
            for (j, (b, r)) in self.store.boxes.iter().zip(&self.ranges).enumerate() {
                if r.x0 == NULL_INDEX && j as u32 <= k {
                    continue;
                }
                if a.overlaps(b) {
                    out.push(pair(ia, self.store.ids[j]));
                }
            }
        }
    }
}

impl BroadPhase for UniformGrid {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn len(&self) -> usize {
        self.store.len()
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        self.store.insert(id, aabb);
        self.mark();
    }

    fn remove(&mut self, id: u32) {
        let was = self.store.remove(id);
        debug_assert!(was, "broad phase: removing absent id {id}");
        self.mark();
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        let was = self.store.update(id, aabb);
        debug_assert!(was, "broad phase: updating absent id {id}");
        self.mark();
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.build();
        let mut history = std::mem::take(&mut self.history);
        history.report(|out| self.collect_pairs(out), began, ended);
        self.history = history;
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.build();
        self.collect_pairs(out);
    }

    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.build();
        let q = self.range(aabb);
        if q.cells() > self.items.len() {
            // Visiting the cells would cost more than scanning every box.
            self.store.query(aabb, out);
            return;
        }
        let nx = self.nx as usize;
        for cy in q.y0..=q.y1 {
            for cx in q.x0..=q.x1 {
                let c = cy as usize * nx + cx as usize;
                let lo = if c == 0 { 0 } else { self.cell_end[c - 1] as usize };
                for it in &self.items[lo..self.cell_end[c] as usize] {
                    // Same duplicate rule as pairs: report from the intersection's first cell.
                    if (it.cx0.max(q.x0) == cx) & (it.cy0.max(q.y0) == cy) & it.aabb.overlaps(aabb) {
                        out.push(it.id);
                    }
                }
            }
        }
        for &k in &self.oversized {
            if self.store.boxes[k as usize].overlaps(aabb) {
                out.push(self.store.ids[k as usize]);
            }
        }
    }

    fn validate(&self) -> Result<(), String> {
        self.store.validate()?;
        if self.nx == 0 || self.ny == 0 || (self.nx as usize * self.ny as usize) > MAX_GRID_CELLS {
            return Err(format!("grid: bad dimensions {}x{}", self.nx, self.ny));
        }
        if !(self.cell_size.is_finite() && self.cell_size > 0.0) {
            return Err(format!("grid: bad cell size {}", self.cell_size));
        }
        if !self.history.is_sorted() {
            return Err("grid: previous pair list not sorted and unique".into());
        }
        if !self.built {
            return Ok(());
        }
        // Built: every box is in exactly the cells of its range (or oversized), with a fresh copy.
        let n = self.store.len();
        if self.ranges.len() != n || self.cell_end.len() != (self.nx * self.ny) as usize {
            return Err("grid: built arrays have the wrong length".into());
        }
        let mut expected = vec![0usize; n];
        let mut pos_of = std::collections::HashMap::new();
        for (k, &id) in self.store.ids.iter().enumerate() {
            pos_of.insert(id, k);
            let r = self.range(&self.store.boxes[k]);
            let big = r.cells() > MAX_CELLS_PER_BOX;
            if big != (self.ranges[k].x0 == NULL_INDEX) || (!big && self.ranges[k] != r) {
                return Err(format!("grid: stale cell range for id {id}"));
            }
            expected[k] = if big { 0 } else { r.cells() };
        }
        let nx = self.nx;
        let mut lo = 0usize;
        let mut found = vec![0usize; n];
        for (c, &end) in self.cell_end.iter().enumerate() {
            if (end as usize) < lo || end as usize > self.items.len() {
                return Err(format!("grid: cell {c} offsets not monotone"));
            }
            let (cx, cy) = (c as u32 % nx, c as u32 / nx);
            for it in &self.items[lo..end as usize] {
                let Some(&k) = pos_of.get(&it.id) else { return Err(format!("grid: unknown id {} in cell", it.id)) };
                let r = self.ranges[k];
                if it.aabb != self.store.boxes[k] || it.cx0 != r.x0 || it.cy0 != r.y0 {
                    return Err(format!("grid: stale copy of id {} in cell {c}", it.id));
                }
                if !(r.x0..=r.x1).contains(&cx) || !(r.y0..=r.y1).contains(&cy) {
                    return Err(format!("grid: id {} registered outside its range", it.id));
                }
                found[k] += 1;
            }
            lo = end as usize;
        }
        if lo != self.items.len() {
            return Err("grid: items past the last cell".into());
        }
        if found != expected {
            return Err("grid: registrations do not match cell ranges".into());
        }
        if self.oversized.len() != expected.iter().filter(|&&e| e == 0).count() {
            return Err("grid: oversized list does not match".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad::test_kit::*;

    #[test]
    fn churn_matches_model() {
        for (seed, cell) in [(0, 40.0), (1, 40.0), (2, 7.0), (3, 130.0), (4, 40.0), (5, 1000.0), (6, 3.0)] {
            churn(&|| Box::new(UniformGrid::new(bounds(), cell)), seed, 500, 80);
        }
    }

    #[test]
    fn adversarial_sets_match_model() {
        adversarial(&|| Box::new(UniformGrid::new(bounds(), 40.0)));
        // Bounds that cover none of the boxes: everything clamps into border cells.
        adversarial(&|| Box::new(UniformGrid::new(Aabb::new(Vec2::splat(-20.0), Vec2::splat(-10.0)), 1.0)));
        // Tiny cells: many boxes are oversized.
        adversarial(&|| Box::new(UniformGrid::new(bounds(), 0.5)));
    }

    #[test]
    fn absurd_parameters_are_guarded() {
        let g = UniformGrid::new(Aabb::new(Vec2::splat(-1e30), Vec2::splat(1e30)), 1e-30);
        assert!((g.nx as usize * g.ny as usize) <= MAX_GRID_CELLS && g.nx > 0 && g.ny > 0);
        g.validate().unwrap();
        for cell in [0.0, -3.0, f32::NAN, f32::INFINITY] {
            let mut g = UniformGrid::new(bounds(), cell);
            g.validate().unwrap();
            g.insert(1, Aabb::new(Vec2::ZERO, Vec2::ONE));
            g.insert(2, Aabb::new(Vec2::ONE, Vec2::splat(2.0)));
            let mut out = Vec::new();
            g.pairs(&mut out);
            assert_eq!(out, vec![[1, 2]]);
        }
        let g = UniformGrid::new(Aabb::new(Vec2::ONE, Vec2::ZERO), 1.0);
        g.validate().unwrap();
        let mut g = UniformGrid::new(Aabb::new(Vec2::splat(-f32::MAX), Vec2::splat(f32::MAX)), 1.0);
        g.validate().unwrap();
        g.insert(1, Aabb::new(Vec2::splat(-3e38), Vec2::splat(-3e38)));
        g.insert(2, Aabb::new(Vec2::splat(-3e38), Vec2::splat(3e38)));
        g.insert(3, Aabb::new(Vec2::splat(3e38), Vec2::splat(3e38)));
        let mut out = Vec::new();
        g.pairs(&mut out);
        out.sort_unstable();
        assert_eq!(out, vec![[1, 2], [2, 3]]);
        g.validate().unwrap();
    }

    #[test]
    fn far_outside_box_pairs_via_clamped_border_cell() {
        let mut g = UniformGrid::new(bounds(), 40.0);
        g.insert(0, Aabb::new(Vec2::new(5e5, 5e5), Vec2::new(5e5 + 1.0, 5e5 + 1.0)));
        g.insert(1, Aabb::new(Vec2::new(5e5 + 1.0, 5e5 + 1.0), Vec2::new(5e5 + 2.0, 5e5 + 2.0)));
        g.insert(2, Aabb::new(Vec2::new(990.0, 990.0), Vec2::new(999.0, 999.0)));
        let mut out = Vec::new();
        g.pairs(&mut out);
        assert_eq!(out, vec![[0, 1]]);
        g.validate().unwrap();
    }
}
