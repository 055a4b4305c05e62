//! Phase (a): tight boxes of the moved colliders, the escape test, and escaped colliders' new fat boxes.

use glam::Vec2;

use crate::math::Aabb;
use crate::par::prelude::*;
use crate::storage::{ColliderSlot, flags};
use crate::world::pairs::{PairEntry, PairIndex};
use crate::world::{World, WorldConfig};

/// Moved colliders per block of the parallel box pass, about.
const BLOCK: usize = 1024;

impl World {
    /// (a) Tight boxes of moved colliders and the escape test, in parallel: a collider whose
    /// tight box left its fat box (or a new one) gets a new fat box and is listed in
    /// `scratch.escaped` with the fat box it had, for the broad phase.
    pub(super) fn update_aabbs(&mut self) {
        let cols = &mut self.cols;
        let scratch = &mut self.scratch;
        scratch.moved_bits.resize(cols.alive.len().div_ceil(64), 0);
        // The blocks below take the moved list as live slots, each once, in slot order. A world
        // told its moves in slot order with no removal since the last step (a game walking its
        // bodies in order, a solver writing its poses back) has it so already: one look at the
        // list. Otherwise dead slots and duplicates (a slot removed and reused between steps is
        // listed twice) are dropped and the list sorted through the bits, one pass over the
        // list and one over the words, cheaper than retain and sort.
        let in_order = self.released.is_empty() && self.moved.windows(2).all(|w| w[0] < w[1]);
        if !in_order {
            let bits = &mut scratch.moved_bits;
            for &slot in &self.moved {
                let s = slot.index();
                if cols.alive[s] && cols.flags[s] & flags::MOVED != 0 {
                    bits[s >> 6] |= 1 << (s & 63);
                }
            }
            self.moved.clear();
            for (w, &word) in bits.iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    self.moved.push(ColliderSlot::new((w << 6) as u32 | rest.trailing_zeros()));
                    rest &= rest - 1;
                }
            }
        }
        // Tight boxes, the escape test and the new fat boxes in parallel, written in place:
        // blocks of slots, each taking its stretch of the moved list, setting the slots' bits
        // (which the narrow phase reads, and clears at its end), clearing their MOVED flags and
        // listing its escaped colliders, which are then gathered in slot order. A block spans
        // about `BLOCK` moved colliders, whole words, and at least `BLOCK` slots: a few movers in
        // a big world are one block, not hundreds of near-empty ones. The blocks depend on the
        // counts alone, and no slot's result on its block.
        let slots = cols.aabb.len();
        let per_mover = slots / self.moved.len().max(1);
        let block = per_mover.saturating_mul(BLOCK).clamp(BLOCK, slots.max(BLOCK)).next_multiple_of(64);
        let chunks = slots.div_ceil(block);
        if scratch.boxes.len() < chunks {
            scratch.boxes.resize_with(chunks, Vec::new);
        }
        let (config, pairs, pair_head, moved) = (&self.config, &self.pairs, &cols.pair_head, &self.moved);
        let (shapes, poses, starts, alive) = (&cols.shape, &cols.pose, &cols.sweep_start, &cols.alive);
        scratch.boxes[..chunks]
            .par_iter_mut()
            .zip(cols.aabb.par_chunks_mut(block).zip(cols.fat.par_chunks_mut(block)))
            .zip(cols.flags.par_chunks_mut(block).zip(scratch.moved_bits.par_chunks_mut(block / 64)))
            .enumerate()
            .for_each(|(k, ((out, (aabbs, fats)), (flag_col, words)))| {
                out.clear();
                let first = k * block;
                let stretch =
                    moved.partition_point(|s| s.index() < first)..moved.partition_point(|s| s.index() < first + block);
                for &slot in &moved[stretch] {
                    let s = slot.index();
                    let i = s - first;
                    // Only live slots still marked moved: a restored snapshot's list may name
                    // others, which the pass through the bits would have dropped.
                    if !alive[s] || flag_col[i] & flags::MOVED == 0 {
                        continue;
                    }
                    words[i >> 6] |= 1 << (i & 63);
                    flag_col[i] &= !flags::MOVED;
                    let tight = shapes[s].aabb(&poses[s]);
                    let last_tight = std::mem::replace(&mut aabbs[i], tight);
                    let f = flag_col[i];
                    // What the fat box must cover: the tight box, or for a bullet its whole
                    // sweep.
                    let reach = if f & flags::BULLET != 0 {
                        super::ccd::sweep_box(&shapes[s], &starts[s], &poses[s], tight)
                    } else {
                        tight
                    };
                    // A collider whose pairs are to be refreshed escapes whatever its box
                    // did, so that the broad phase searches them (and a static switch moves
                    // it across structures).
                    let fat = fats[i];
                    if f & flags::REFRESH == 0 && fat.contains(&reach) {
                        continue;
                    }
                    fats[i] = if f & flags::STATIC != 0 {
                        // Static colliders do not move, so a fat margin would only widen
                        // their candidate pairs: a long wall's margin grows with its length,
                        // and every collider within that margin would keep a live pair
                        // with it.
                        reach
                    } else {
                        // A new collider has no fat box yet, and no last tight box.
                        let last_tight = (fat != Aabb::EMPTY).then_some(last_tight);
                        let open = || in_open_space(pairs, pair_head, slot);
                        fat_box(config, slot, tight, last_tight, reach, open)
                    };
                    out.push((slot, fat));
                }
            });
        scratch.escaped.clear();
        for out in &scratch.boxes[..chunks] {
            scratch.escaped.extend_from_slice(out);
        }
        self.counts.escaped = scratch.escaped.len() as u32;
    }
}

/// A renewed fat box of a moving collider whose tight box is `tight` (its last one
/// `last_tight`, none for a new collider) and whose fat box must cover `reach`: the margin,
/// and a reach ahead along the last displacement (Box2D v2's displacement multiplier) capped at
/// the collider's size. A collider moving faster for its size gets its margin alone, unless it
/// is in open space (see `WorldConfig::aabb_motion_factor`).
///
/// Such a collider, when it moved further than its margin, escapes again at the next step
/// whatever share of the margin it gets, so it gets the whole margin, not a drawn share (see
/// `renewal_jitter`): a stream of colliders falling or pushed together then keeps its fat
/// boxes' order on both axes and their overlaps from step to step. Drawn afresh at each of its
/// every-step renewals, its neighbours' boxes would pass each other's ends in the SAP and
/// begin and end pairs with it at random, for nothing.
///
/// Out of line: inlined, it made the box pass's loop slower for the common collider, one still
/// inside its fat box.
#[inline(never)]
fn fat_box(
    config: &WorldConfig,
    slot: ColliderSlot,
    tight: Aabb,
    last_tight: Option<Aabb>,
    reach: Aabb,
    open_space: impl FnOnce() -> bool,
) -> Aabb {
    let size = (tight.max - tight.min).max_element();
    let margin = config.aabb_margin + config.aabb_margin_ratio * size;
    let moved = last_tight.map_or(Vec2::ZERO, |last| (tight.min + tight.max - last.min - last.max) * 0.5);
    let ahead = moved * config.aabb_motion_factor;
    let over = ahead.abs().max_element() / size;
    let reaches = over <= 1.0 || over <= 2.0 && open_space();
    let jitter = if !reaches && moved.abs().max_element() > margin { 1.0 } else { renewal_jitter(slot, &tight) };
    let ahead = if reaches { ahead.clamp(Vec2::splat(-size), Vec2::splat(size)) * jitter } else { Vec2::ZERO };
    let f = reach.fattened(margin * jitter);
    Aabb { min: f.min + ahead.min(Vec2::ZERO), max: f.max + ahead.max(Vec2::ZERO) }
}

/// Whether a collider is in at most two candidate pairs (as of the last step): a walk of at
/// most three entries of its list.
///
/// A collider moving further per step than its size over the motion factor gets a reach ahead
/// only then. Such a reach, capped at the size, pays for a collider moving steadily through
/// open space: it holds the collider for a few steps, for few new pairs. In a crowd it would
/// double the collider's candidate pairs, and a collider jostled by its neighbours leaves it
/// about as soon.
fn in_open_space(pairs: &[PairEntry], pair_head: &[PairIndex], slot: ColliderSlot) -> bool {
    let mut p = pair_head[slot.index()];
    for _ in 0..2 {
        if p.is_null() {
            return true;
        }
        let pair = &pairs[p.index()];
        p = pair.next[World::end_of(pair, slot)];
    }
    p.is_null()
}

/// The share of its margin and motion reach a renewed fat box gets: between 0.5 and 1.5, drawn
/// afresh at each renewal from the slot and the tight box (so it depends on the world's state
/// alone, whatever the thread count), with a mean of 1.
///
/// Why not 1: colliders moving steadily at similar speeds, inserted together, would all outrun
/// their boxes in the same step, every ~`aabb_motion_factor` steps, and that one step would do a
/// whole period's broad-phase work while the others do almost none. A fixed share per collider
/// would not help for long: each collider would keep a fixed whole period, and the periods' common
/// multiples would line them up again. Drawn afresh, the time to the next escape varies by about
/// a period at each renewal, so after one renewal the escapes are spread over the period and each
/// step does close to the mean work.
fn renewal_jitter(slot: ColliderSlot, tight: &Aabb) -> f32 {
    // SplitMix64's finaliser (Steele, Lea, Flood 2014) over the slot and the box's corner.
    let mut z = (u64::from(slot.get()) << 32
        | u64::from(tight.min.x.to_bits() ^ tight.max.y.to_bits().rotate_left(16)))
    .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    0.5 + (z >> 40) as f32 * (1.0 / 16_777_216.0)
}
