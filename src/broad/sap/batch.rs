//! Batch insertion: the merge of new endpoints, and the sweeps that find the new boxes' pairs
//! (active lists for a small batch, a forward scan over horizontal strips for a large one).

use super::endpoints::{Axis, MAX_ID, endpoint, ep_id, ep_is_max, hull_on, key_of};
use super::{Boxes, FLAG_NEW};
use crate::broad::sort_sweep::Active;
use crate::broad::{Pair, pair};
use crate::math::Aabb;

impl Axis {
    /// Merges the endpoints of the `batch` ids into the sorted array: sort the new ones, then
    /// one backward pass (each old endpoint moves at most once, no per-box insertion sort).
    pub(super) fn merge(&mut self, boxes: &[Boxes], batch: &[u32]) {
        let a = self.axis;
        self.fresh.clear();
        for &id in batch {
            let b = &boxes[id as usize].cur;
            self.fresh.push(endpoint(key_of(b.min[a]), false, id));
            self.fresh.push(endpoint(key_of(b.max[a]), true, id));
        }
        self.fresh.sort_unstable();
        let (mut i, mut j) = (self.ends.len(), self.fresh.len());
        self.ends.resize(i + j, 0);
        self.span.resize(i + j, [0.0; 2]);
        while j > 0 {
            let (e, sp) = if i > 0 && self.ends[i - 1] > self.fresh[j - 1] {
                i -= 1;
                (self.ends[i], self.span[i])
            } else {
                j -= 1;
                let e = self.fresh[j];
                (e, hull_on(&boxes[ep_id(e) as usize], 1 - a))
            };
            let k = i + j;
            self.ends[k] = e;
            self.span[k] = sp;
        }
    }
}

/// Boxes of the insertion forward scan as columns: the scan reads `min_y` and `max_y`
/// sequentially with no bounds checks and finds its x range by binary search in `min_x`.
#[derive(Clone, Default)]
struct ScanColumns {
    min_x: Vec<f32>,
    max_x: Vec<f32>,
    min_y: Vec<f32>,
    max_y: Vec<f32>,
    /// The id, with the top bit set for a new box.
    id_new: Vec<u32>,
    /// The lowest strip the box lies in (see `NewPairs::forward_scan`).
    first: Vec<u32>,
}

impl ScanColumns {
    fn clear(&mut self) {
        for col in [&mut self.min_x, &mut self.max_x, &mut self.min_y, &mut self.max_y] {
            col.clear();
        }
        self.id_new.clear();
        self.first.clear();
    }

    /// `n` rows, to be overwritten.
    fn resize(&mut self, n: usize) {
        for col in [&mut self.min_x, &mut self.max_x, &mut self.min_y, &mut self.max_y] {
            col.resize(n, 0.0);
        }
        self.id_new.resize(n, 0);
        self.first.resize(n, 0);
    }

    /// Row `i` of `src` into row `w`.
    fn copy_row(&mut self, w: usize, src: &ScanColumns, i: usize) {
        self.min_x[w] = src.min_x[i];
        self.max_x[w] = src.max_x[i];
        self.min_y[w] = src.min_y[i];
        self.max_y[w] = src.max_y[i];
        self.id_new[w] = src.id_new[i];
        self.first[w] = src.first[i];
    }

    fn push(&mut self, b: &Aabb, id_new: u32, first: u32) {
        self.min_x.push(b.min.x);
        self.max_x.push(b.max.x);
        self.min_y.push(b.min.y);
        self.max_y.push(b.max.y);
        self.id_new.push(id_new);
        self.first.push(first);
    }
}

/// Horizontal strips of equal height over `[lo, hi]` in y, numbered from 0 upwards.
#[derive(Clone, Copy)]
struct Strips {
    lo: f32,
    height: f32,
    count: usize,
}

impl Strips {
    /// The strip of height `y`: monotone in `y` (float subtraction, division by a positive
    /// number and the saturating cast all preserve order), which is all exactness needs.
    #[inline]
    fn of(&self, y: f32) -> usize {
        (((y - self.lo) / self.height) as usize).min(self.count - 1)
    }

    /// Strips for `NewPairs::forward_scan`, about twice the boxes' mean height `m`: taller
    /// strips leave more boxes in each scanned x range that miss in y, shorter ones copy each
    /// box into more strips (a box of height `h` lies in at most `h / 2m + 2` of them, so
    /// there are at most 2.5 copies per box on average). At most one strip per four boxes, so
    /// that the per-strip bookkeeping stays small against the boxes; one strip when fewer than
    /// two would do or the y range is empty or not finite.
    fn fit(c: &ScanColumns) -> Strips {
        let n = c.min_x.len();
        let one = Strips { lo: 0.0, height: 1.0, count: 1 };
        if n == 0 {
            return one;
        }
        let lo = c.min_y.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = c.max_y.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mean = c.min_y.iter().zip(&c.max_y).map(|(&a, &b)| f64::from(b - a)).sum::<f64>() / n as f64;
        let range = f64::from(hi) - f64::from(lo);
        // Zero-height boxes give an infinite ratio, capped by the box count; a zero range then
        // fails the height test below.
        let want = (range / (2.0 * mean)).min((n / 4) as f64);
        if want < 2.0 || !range.is_finite() {
            return one;
        }
        let count = want as usize;
        let strips = Strips { lo, height: (range / count as f64) as f32, count };
        if strips.height > 0.0 { strips } else { one }
    }
}

/// Finds the pairs of a batch of new boxes once their endpoints are merged. Its fields are
/// scratch space kept between flushes so that the steady state does not allocate.
#[derive(Clone, Default)]
pub(super) struct NewPairs {
    /// The pairs found by the last sweep, each once.
    pub(super) found: Vec<Pair>,
    /// Old boxes whose x interval may still cover the sweep position.
    active_old: Vec<Active>,
    /// The same for new boxes.
    active_new: Vec<Active>,
    /// The forward scan's boxes in x order, then their copies strip by strip, and where each
    /// strip's copies start.
    scan: ScanColumns,
    by_strip: ScanColumns,
    strip_start: Vec<u32>,
    strip_cursor: Vec<u32>,
}

impl NewPairs {
    /// Fills `found` with every pair involving a box flagged `FLAG_NEW` (new–old and new–new),
    /// `batch` of them, by one sweep over the merged x axis `x`.
    pub(super) fn sweep(&mut self, x: &Axis, boxes: &[Boxes], flags: &[u8], batch: usize) {
        self.found.clear();
        // A large batch is cheaper by Terdiman's forward scan over every box (each x-overlapping
        // pair tested once, sequential reads, no list maintenance); a small one by the active
        // lists, which test only pairs involving a new box. The cut-over, 1 new box in 8 stored,
        // weighs the scan's cost, which grows with all the boxes whatever the batch, against
        // the lists', which grows with the batch and the lists' length.
        if batch * 8 >= x.ends.len() / 2 {
            self.forward_scan(x, boxes, flags);
            return;
        }
        self.active_lists(x, boxes, flags, batch);
    }

    /// The sweep with two active lists, testing full boxes. An active entry is dropped lazily
    /// when a later min finds its max below the sweep position (Terdiman's "box pruning").
    fn active_lists(&mut self, x: &Axis, boxes: &[Boxes], flags: &[u8], batch: usize) {
        self.active_old.clear();
        self.active_new.clear();
        let mut remaining = batch;
        // Drops the entries of `active` that end left of `b` and pairs `b`'s id with the others
        // whose y interval meets `b`'s. Every entry began at or before `b.min.x` (sweep order),
        // so x overlap is `max_x >= b.min.x`: together with the y test, exactly `overlaps`.
        let scan = |active: &mut Vec<Active>, b: &Aabb, id: u32, found: &mut Vec<Pair>| {
            active.retain(|o| {
                if o.max_x < b.min.x {
                    return false;
                }
                if (o.min_y <= b.max.y) & (b.min.y <= o.max_y) {
                    found.push(pair(o.id, id));
                }
                true
            });
        };
        for &e in &x.ends {
            if ep_is_max(e) {
                continue;
            }
            let id = ep_id(e);
            let b = &boxes[id as usize].cur;
            let entry = Active { max_x: b.max.x, min_y: b.min.y, max_y: b.max.y, id };
            if flags[id as usize] & FLAG_NEW != 0 {
                scan(&mut self.active_old, b, id, &mut self.found);
                scan(&mut self.active_new, b, id, &mut self.found);
                self.active_new.push(entry);
                remaining -= 1;
            } else {
                if remaining == 0 && self.active_new.is_empty() {
                    break;
                }
                if !self.active_new.is_empty() {
                    scan(&mut self.active_new, b, id, &mut self.found);
                }
                self.active_old.push(entry);
            }
        }
    }

    /// The same result as the active lists, for large batches: gathers every box in x order
    /// into compact columns, then for each box scans forward while the next boxes start within
    /// its x extent, keeping pairs with at least one new box.
    ///
    /// A scan over the whole world is quadratic in its height: a box's x extent holds every box
    /// of that column of the world, nearly all of them miss it in y, and that one compare comes
    /// to dominate the scan. So the boxes are first cut into horizontal strips (see
    /// [`Strips::fit`]), each box copied into every strip it lies in (x order kept), and each
    /// strip is scanned alone. Two overlapping boxes both lie in the strip of
    /// `max(a.min.y, b.min.y)`, which is the higher of their first strips (strips are monotone
    /// in y): the pair is reported there and nowhere else.
    fn forward_scan(&mut self, x: &Axis, boxes: &[Boxes], flags: &[u8]) {
        let c = &mut self.scan;
        c.clear();
        for &e in &x.ends {
            if !ep_is_max(e) {
                let id = ep_id(e);
                let new = u32::from(flags[id as usize] & FLAG_NEW != 0) << 31;
                c.push(&boxes[id as usize].cur, id | new, 0);
            }
        }
        let strips = Strips::fit(c);
        // Counting sort of the copies by strip; walking the boxes in x order keeps each strip in
        // x order.
        let starts = &mut self.strip_start;
        starts.clear();
        starts.resize(strips.count + 1, 0);
        for i in 0..c.min_x.len() {
            let (first, last) = (strips.of(c.min_y[i]), strips.of(c.max_y[i]));
            c.first[i] = first as u32;
            for count in &mut starts[first + 1..=last + 1] {
                *count += 1;
            }
        }
        for k in 0..strips.count {
            starts[k + 1] += starts[k];
        }
        let out = &mut self.by_strip;
        out.resize(starts[strips.count] as usize);
        let cursor = &mut self.strip_cursor;
        cursor.clear();
        cursor.extend_from_slice(&starts[..strips.count]);
        for i in 0..c.min_x.len() {
            let last = strips.of(c.max_y[i]);
            for next in &mut cursor[c.first[i] as usize..=last] {
                out.copy_row(*next as usize, c, i);
                *next += 1;
            }
        }
        for k in 0..strips.count {
            let strip = k as u32;
            let (start, end) = (starts[k] as usize, starts[k + 1] as usize);
            for i in start..end {
                let (a_max_x, a_min_y, a_max_y, a_id, a_first) =
                    (out.max_x[i], out.min_y[i], out.max_y[i], out.id_new[i], out.first[i]);
                // The boxes after `i` start at or after it (x order); those starting at or
                // before its max overlap it on x. `min_x` is sorted, so the range ends by binary
                // search.
                let stop = i + 1 + out.min_x[i + 1..end].partition_point(|&m| m <= a_max_x);
                let ys = out.min_y[i + 1..stop].iter().zip(&out.max_y[i + 1..stop]);
                for (((&lo, &hi), &b_id), &b_first) in ys.zip(&out.id_new[i + 1..stop]).zip(&out.first[i + 1..stop]) {
                    if (lo <= a_max_y) & (a_min_y <= hi) & ((a_id | b_id) >> 31 != 0) & (a_first.max(b_first) == strip)
                    {
                        self.found.push(pair(a_id & MAX_ID, b_id & MAX_ID));
                    }
                }
            }
        }
    }
}
