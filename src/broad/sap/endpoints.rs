//! Endpoint encoding and the two re-sort paths (per-endpoint sift, full insertion-sort pass).

use super::{Boxes, LIVE, REMOVING};
use crate::broad::pair;
use crate::broad::pair_table::pack;
use crate::math::Aabb;

/// Largest usable id: 31 bits, the 32nd holds the endpoint kind.
pub(super) const MAX_ID: u32 = (1 << 31) - 1;

/// The `f32` bits mapped so that unsigned integer order is float order; `-0.0` becomes `+0.0`.
#[inline]
pub(super) fn key_of(v: f32) -> u32 {
    // `v + 0.0` turns -0.0 into +0.0 (IEEE round-to-nearest) and leaves everything else alone.
    let b = (v + 0.0).to_bits();
    if b & 0x8000_0000 != 0 { !b } else { b | 0x8000_0000 }
}

#[inline]
pub(super) fn endpoint(key: u32, is_max: bool, id: u32) -> u64 {
    (u64::from(key) << 32) | (u64::from(is_max) << 31) | u64::from(id)
}

#[inline]
pub(super) fn ep_id(e: u64) -> u32 {
    (e as u32) & MAX_ID
}

#[inline]
pub(super) fn ep_is_max(e: u64) -> bool {
    (e >> 31) & 1 != 0
}

/// Index into `pos`: `id << 1 | is_max`, which is the low word rotated left by one.
#[inline]
pub(super) fn ep_slot(e: u64) -> usize {
    (e as u32).rotate_left(1) as usize
}

/// A box's interval on `axis`, covering both its stored and its reflected box (see `Axis::span`).
#[inline]
pub(super) fn hull_on(b: &Boxes, axis: usize) -> [f32; 2] {
    [b.cur.min[axis].min(b.prev.min[axis]), b.cur.max[axis].max(b.prev.max[axis])]
}

/// Whether two closed intervals meet (touching counts, as in [`crate::math::Aabb::overlaps`]).
///
/// One compare of the later start with the earlier end, no short-circuit: the swap loops call
/// this for every endpoint passed, and in `a[0] <= b[1] && ..` the first test holds for about
/// half the passed endpoints, a branch the CPU mispredicts every other swap. For the same
/// reason the loops make this test before the endpoint-kind check, also a coin toss.
///
/// Plain compares, not `f32::max` and `min`: those also decide which operand a NaN leaves, a
/// blend of four more instructions in the innermost loop of the re-sort. A NaN bound of a
/// [`hull_on`] interval means both of its boxes have that bound NaN, so neither overlaps
/// anything and whatever this answers changes no pair.
#[inline]
fn meet(a: [f32; 2], b: [f32; 2]) -> bool {
    let lo = if a[0] > b[0] { a[0] } else { b[0] };
    let hi = if a[1] < b[1] { a[1] } else { b[1] };
    lo <= hi
}

/// One axis: sorted endpoints and the axis' own scratch space.
#[derive(Clone)]
pub(super) struct Axis {
    /// 0 for x, 1 for y.
    pub(super) axis: usize,
    /// Every live box's min and max endpoint, ascending (see the module's layout).
    pub(super) ends: Vec<u64>,
    /// Beside each endpoint in `ends`, its box's interval on the *other* axis, widened to cover
    /// both the stored and the reflected box (`cur` ∪ `prev`). A swap tests the two boxes only
    /// when these intervals meet: in a 2D scene, the endpoints an endpoint passes on x mostly
    /// belong to boxes far away in y, and the test would fetch each one's box from a random
    /// place in memory.
    pub(super) span: Vec<[f32; 2]>,
    /// `pos[id << 1 | is_max]`: index of that endpoint in `ends`, filled by a full re-sort
    /// pass for its own use (scratch: stale otherwise; a sift finds its endpoint by search).
    pub(super) pos: Vec<u32>,
    /// Candidate pairs (packed) found by this axis' sort. A field so that the steady state does
    /// not allocate, and per axis so that the two sorts can run concurrently.
    pub(super) events: Vec<u64>,
    /// The new endpoints of a batch insertion, sorted before the merge. A field for reuse.
    pub(super) fresh: Vec<u64>,
}

impl Axis {
    /// An empty axis: 0 for x, 1 for y.
    pub(super) fn new(axis: usize) -> Self {
        Self { axis, ends: Vec::new(), span: Vec::new(), pos: Vec::new(), events: Vec::new(), fresh: Vec::new() }
    }

    /// Drops the endpoints of ids in state `REMOVING`, in one pass.
    pub(super) fn compact(&mut self, state: &[u8]) {
        let mut w = 0;
        for r in 0..self.ends.len() {
            let e = self.ends[r];
            if state[ep_id(e) as usize] == REMOVING {
                continue;
            }
            if w != r {
                self.ends[w] = e;
                self.span[w] = self.span[r];
            }
            w += 1;
        }
        self.ends.truncate(w);
        self.span.truncate(w);
    }

    /// Writes the moved boxes' new coordinates into their endpoints, then restores the order by
    /// insertion sort, recording candidate pairs (see the module's "pairs from swaps").
    pub(super) fn resort(&mut self, boxes: &[Boxes], state: &[u8], moved: &[u32]) {
        let a = self.axis;
        self.events.clear();
        // Few moved boxes: sift each moved endpoint from where it is found and never touch
        // the rest of the array. Many: one insertion-sort pass over the whole array. The
        // endpoint order is total, so both give the same array and the same pair set. The
        // cut-over, 1 box in 8 moved (`moved × 16 <= endpoints`), weighs the sifts' work, which
        // grows with the moved boxes and reaches each of their endpoints at a scattered place,
        // against the pass's sequential read of every endpoint: below it the sifts do less
        // work; above it their cache misses cost more than the pass's extra reads.
        if moved.len() * 16 <= self.ends.len() {
            for &id in moved {
                if state[id as usize] != LIVE {
                    continue;
                }
                let (b, old) = (&boxes[id as usize].cur, &boxes[id as usize].prev);
                let new_min = endpoint(key_of(b.min[a]), false, id);
                let new_max = endpoint(key_of(b.max[a]), true, id);
                let (i_min, i_max) = (self.index_of(old, false, id), self.index_of(old, true, id));
                let hull = hull_on(&boxes[id as usize], 1 - a);
                self.span[i_min] = hull;
                self.span[i_max] = hull;
                // When the min moves right, the max goes first (and vice versa) so that a box's
                // own two endpoints never pass each other; the endpoint that goes second is
                // then still where it was found, for the first moved only beyond it.
                if new_min > self.ends[i_min] {
                    self.sift(i_max, new_max, boxes);
                    self.sift(i_min, new_min, boxes);
                } else {
                    self.sift(i_min, new_min, boxes);
                    self.sift(i_max, new_max, boxes);
                }
            }
            return;
        }
        // Every endpoint's position, for the moved boxes' writes: one sequential pass here
        // instead of a position kept current through every swap of every sift.
        for (i, &e) in self.ends.iter().enumerate() {
            self.pos[ep_slot(e)] = i as u32;
        }
        for &id in moved {
            if state[id as usize] != LIVE {
                continue;
            }
            let b = &boxes[id as usize].cur;
            let s = (id as usize) << 1;
            let hull = hull_on(&boxes[id as usize], 1 - a);
            for (k, e) in [(s, endpoint(key_of(b.min[a]), false, id)), (s + 1, endpoint(key_of(b.max[a]), true, id))] {
                let i = self.pos[k] as usize;
                self.ends[i] = e;
                self.span[i] = hull;
            }
        }
        // Slices, not the vectors: through `&mut Vec` each store could change the vector's own
        // length, so every swap would reload it.
        let ends = &mut self.ends[..];
        let span = &mut self.span[..];
        for i in 1..ends.len() {
            let e = ends[i];
            if ends[i - 1] < e {
                continue;
            }
            let e_max = ep_is_max(e);
            let e_id = ep_id(e);
            let eb = &boxes[e_id as usize];
            let es = span[i];
            let mut j = i;
            while j > 0 {
                let p = ends[j - 1];
                if p < e {
                    break;
                }
                let ps = span[j - 1];
                ends[j] = p;
                span[j] = ps;
                if meet(es, ps) && ep_is_max(p) != e_max {
                    let pb = &boxes[ep_id(p) as usize];
                    // The current pairs are the overlaps of the `prev` boxes, so these tests
                    // are exact membership tests without a lookup. The filters only drop
                    // candidates that need no change; the serial pass re-decides every kept one.
                    let keep = if e_max {
                        // A max passed a min: the pair may have stopped overlapping.
                        eb.prev.overlaps(&pb.prev)
                    } else {
                        // A min passed a max: the pair may have started overlapping.
                        eb.cur.overlaps(&pb.cur) && !eb.prev.overlaps(&pb.prev)
                    };
                    if keep {
                        self.events.push(pack(pair(e_id, ep_id(p))));
                    }
                }
                j -= 1;
            }
            ends[j] = e;
            span[j] = es;
        }
    }

    /// Where the endpoint of box `id` (its min, or its max when `is_max`) stands in `ends`,
    /// from the box it holds (`old`, the `prev` box): the endpoints are sorted and unique, so a
    /// binary search finds it. A sift passes hundreds of endpoints in a big world; keeping a
    /// position per endpoint current would cost a write to a scattered place for each of them.
    fn index_of(&self, old: &Aabb, is_max: bool, id: u32) -> usize {
        let v = if is_max { old.max[self.axis] } else { old.min[self.axis] };
        let e = endpoint(key_of(v), is_max, id);
        self.ends.binary_search(&e).expect("a live box's endpoint holds its prev coordinate")
    }

    /// Replaces the endpoint at index `i` by `e` and moves it left or right to its place,
    /// recording candidate pairs like the full pass.
    fn sift(&mut self, mut i: usize, e: u64, boxes: &[Boxes]) {
        let e_max = ep_is_max(e);
        let e_id = ep_id(e);
        let eb = &boxes[e_id as usize];
        let es = self.span[i];
        // A swap that leaves a min before a max may begin a pair, one that leaves a max before a
        // min may end it; the filters are the full pass's.
        let record = |p: u64, min_now_first: bool, events: &mut Vec<u64>| {
            let pb = &boxes[ep_id(p) as usize];
            let keep = if min_now_first {
                eb.cur.overlaps(&pb.cur) && !eb.prev.overlaps(&pb.prev)
            } else {
                eb.prev.overlaps(&pb.prev)
            };
            if keep {
                events.push(pack(pair(e_id, ep_id(p))));
            }
        };
        // Slices, as in the full pass.
        let (ends, span, events) = (&mut self.ends[..], &mut self.span[..], &mut self.events);
        while i > 0 && ends[i - 1] > e {
            let p = ends[i - 1];
            let ps = span[i - 1];
            ends[i] = p;
            span[i] = ps;
            if meet(es, ps) && ep_is_max(p) != e_max {
                // `e` is now left of `p`.
                record(p, !e_max, events);
            }
            i -= 1;
        }
        while i + 1 < ends.len() && ends[i + 1] < e {
            let p = ends[i + 1];
            let ps = span[i + 1];
            ends[i] = p;
            span[i] = ps;
            if meet(es, ps) && ep_is_max(p) != e_max {
                // `e` is now right of `p`.
                record(p, e_max, events);
            }
            i += 1;
        }
        ends[i] = e;
        span[i] = es;
    }
}
