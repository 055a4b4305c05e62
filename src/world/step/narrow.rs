//! Phase (c): the narrow phase, manifolds of the pairs with a moved collider and their application.

use glam::Vec2;

use crate::collide::reuse::Witness;
use crate::collide::{self, Manifold, cuboid_lanes};
use crate::math::{Aabb, Pose};
use crate::par::prelude::*;
use crate::shape::Shape;
use crate::storage::{ColliderSlot, Columns};
use crate::world::Contact;
use crate::world::hooks::{self, PairHooks};
use crate::world::pairs::{PairEntry, PairIndex};
use crate::world::scratch::NarrowChunk;
use crate::world::weld::Welds;
use crate::world::{StepCounts, World};

impl World {
    /// (c) The narrow phase over the pairs of moved colliders, in parallel, then the serial
    /// application of the results: the contacts array, and an event for each pair that started
    /// or stopped touching.
    ///
    /// Every pair with a moved end is evaluated once. The workers only read `pairs`; each writes
    /// its chunk's new manifolds of still-touching pairs (`updates`, by contact index) and its
    /// pairs whose touching state flips (`changes`). The serial apply then writes the updates
    /// first (contact indices are stable until a contact ends) and the changes after, chunk by
    /// chunk. Chunks are fixed by the counts alone, so the contacts array and the events come
    /// out the same for any thread count.
    ///
    /// Which pairs a chunk covers depends on how much moved. When the moved colliders own a good
    /// share of all pairs (a sixteenth or more of the colliders that are not static moved:
    /// statics never pair with one another), one pass over the pair entries testing a bit per
    /// end beats chasing each mover's pair list through memory, and the touching pairs are
    /// updated where they live in `contacts` (Box2D v3's scheme) by a second parallel pass.
    /// When few of them moved (a big world mostly at rest), chunks of the moved list walk their
    /// colliders' lists: O(their pairs), with each pair taken by its lower moved end.
    ///
    /// A pair refused by the pair filter gets the empty manifold; the contact hook sees each
    /// touching manifold as the workers compute it (see `hooks`).
    ///
    /// Warm starting: a recomputed manifold of a pair that touched before takes the solver's
    /// impulses from the manifold it replaces, point by point by feature id
    /// ([`Manifold::carry_impulses`], after the contact hook, as Box2D's `b2UpdateContact`
    /// matches after its pre-solve callback). The old manifold is the one being overwritten, in
    /// the contact's own place: the serial apply reads it from the line it writes anyway, the
    /// in-place pass from the contact its worker owns. A pair that begins touching starts from
    /// the kernels' zero impulses; one not recomputed keeps its own.
    ///
    /// Last, a contacts array that has drifted far from collider order in a settled scene is
    /// sorted back (`contact_order`), which the in-place pass of the steps after reads in.
    ///
    /// Manifold reuse (`WorldConfig::reuse_manifolds`): each contact has a witness beside it
    /// (`contact_witness`, see `collide::reuse`), handed to the kernel of a touching pair and
    /// updated by it in the contact's own place (the in-place pass) or with the pair's update
    /// (the list walk). A pair that begins touching starts with an empty one.
    pub(super) fn narrow_phase(&mut self) {
        // Statics never pair with one another, so the pairs hang off the movers, the colliders
        // outside the tree (which holds the statics and the few larger than `large_extent`), and
        // the moved ones own about `moved × 2 × live_pairs / movers` pair visits, each a
        // dependent load from a random place; a scan reads every entry in order, about 8 entries
        // for the cost of one visit. So scan once the moved colliders are 1/16 of the movers,
        // whatever the pairs per collider: the pair count cancels out of the comparison.
        // (Counted against all the colliders, a thousand movers among a million static tiles
        // would walk their lists, though every pair there has a moved end.)
        let movers = (self.cols.alive_count as usize).saturating_sub(self.tree.len());
        let scan = self.moved.len() * 16 >= movers;
        let mut churn = if scan { self.update_contacts_in_place() } else { 0 };
        // Pair entries per chunk when scanning, moved colliders per chunk when walking lists.
        const CHUNK: usize = 1024;
        const MOVERS: usize = 256;
        let chunks = if scan { self.pairs.len().div_ceil(CHUNK) } else { self.moved.len().div_ceil(MOVERS) };
        if self.scratch.narrow.len() < chunks {
            self.scratch.narrow.resize_with(chunks, NarrowChunk::default);
        }
        let (pairs, cols, bits, welds) = (&self.pairs, &self.cols, &self.scratch.moved_bits, &self.welds);
        let (hooks, witnesses) =
            (self.hooks.as_deref(), self.config.reuse_manifolds.then_some(&self.contact_witness[..]));
        let outs = &mut self.scratch.narrow[..chunks];
        if scan {
            outs.par_iter_mut().zip(pairs.par_chunks(CHUNK)).enumerate().for_each(|(k, (out, chunk))| {
                out.updates.clear();
                out.changes.clear();
                out.counts = StepCounts::default();
                for (i, pair) in chunk.iter().enumerate() {
                    // Free entries hold `[NULL, NULL]`, which is never a moved slot; touching
                    // non-sensor pairs were updated in place.
                    if !pair.contact.is_null() || !(is_set(bits, pair.ids[0]) || is_set(bits, pair.ids[1])) {
                        continue;
                    }
                    // Most of these pairs are apart with their tight boxes apart too: they stay
                    // apart, counted, without the evaluation.
                    if !pair.touching && !boxes_overlap(cols, pair.ids) {
                        out.counts.pairs += 1;
                        continue;
                    }
                    Self::evaluate_into(cols, welds, hooks, None, pair, PairIndex::from_index(k * CHUNK + i), out);
                }
            });
        } else {
            outs.par_iter_mut().zip(self.moved.par_chunks(MOVERS)).for_each(|(out, movers)| {
                out.updates.clear();
                out.changes.clear();
                out.counts = StepCounts::default();
                // First the chunk's pairs are listed, and for those whose tight boxes overlap
                // what the evaluation will read of the other end is read; then they are
                // evaluated. In a big still world the other end (a static among millions) is
                // rarely in cache: listed apart, its loads do not wait for one another, where
                // behind each pair's kernel every miss would wait alone.
                let mut walk = std::mem::take(&mut out.walk);
                walk.clear();
                let mut warmth = 0;
                for &slot in movers {
                    let mut p = cols.pair_head[slot.index()];
                    while !p.is_null() {
                        let pair = &pairs[p.index()];
                        let end = Self::end_of(pair, slot);
                        let other = pair.ids[1 - end];
                        if other > slot || !is_set(bits, other) {
                            if boxes_overlap(cols, pair.ids) {
                                warmth ^= warm(cols, welds, other);
                            }
                            walk.push(p);
                        }
                        p = pair.next[end];
                    }
                }
                // Keeps the loads: nothing else uses what they read.
                std::hint::black_box(warmth);
                for &p in &walk {
                    Self::evaluate_into(cols, welds, hooks, witnesses, &pairs[p.index()], p, out);
                }
                out.walk = walk;
            });
        }
        self.add_counts(chunks);
        for k in 0..chunks {
            for &(c, mut m, w) in &self.scratch.narrow[k].updates {
                let contact = &mut self.contacts[c.index()];
                m.carry_impulses(&contact.manifold);
                contact.manifold = m;
                self.contact_witness[c.index()] = w;
            }
        }
        for k in 0..chunks {
            churn += self.scratch.narrow[k].changes.len();
            for i in 0..self.scratch.narrow[k].changes.len() {
                let (p, m) = self.scratch.narrow[k].changes[i];
                self.flip_touching(p, m);
            }
        }
        for &s in &self.moved {
            self.scratch.moved_bits[s.index() >> 6] = 0;
        }
        // Every refused pair that touched had a moved end, so it was evaluated and ended.
        self.refusals_pending = false;
        self.order_contacts(churn);
    }

    /// Evaluates `pair` (entry `p`) and records what the serial apply must do with the result.
    /// A touching pair's witness (when reuse is on) is read from `witnesses` and its successor
    /// handed to the apply with the manifold.
    #[inline]
    fn evaluate_into(
        cols: &Columns,
        welds: &Welds,
        hooks: Option<&dyn PairHooks>,
        witnesses: Option<&[Witness]>,
        pair: &PairEntry,
        p: PairIndex,
        out: &mut NarrowChunk,
    ) {
        let mut w = match witnesses {
            Some(ws) if !pair.contact.is_null() => Some(ws[pair.contact.index()]),
            _ => None,
        };
        let m = if pair.refused || !boxes_overlap(cols, pair.ids) {
            Manifold::EMPTY
        } else {
            Self::evaluate(cols, welds, hooks, w.as_mut(), pair.ids, pair.sensor)
        };
        out.counts.pairs += 1;
        out.counts.reused += u32::from(w.is_some_and(|w| w.reused()));
        let touching = m.count > 0;
        if touching != pair.touching {
            out.changes.push((p, m));
        } else if touching && !pair.contact.is_null() {
            out.updates.push((pair.contact, m, w.unwrap_or_default()));
        }
    }

    /// The manifold of the colliders in slots `ids`, whose tight boxes overlap (for a sensor
    /// pair, one point when they overlap: sensors only need a yes/no), through the contact hook
    /// when there is one, and through the pair's reuse witness when it has one. Always inline,
    /// for the reason on `collide::manifold_reusing`.
    #[inline(always)]
    fn evaluate(
        cols: &Columns,
        welds: &Welds,
        hooks: Option<&dyn PairHooks>,
        witness: Option<&mut Witness>,
        ids: [ColliderSlot; 2],
        sensor: bool,
    ) -> Manifold {
        let [a, b] = ids.map(ColliderSlot::index);
        let (sa, pa, sb, pb) = (&cols.shape[a], &cols.pose[a], &cols.shape[b], &cols.pose[b]);
        if sensor {
            let mut m = Manifold::EMPTY;
            m.count = u32::from(collide::touching(sa, pa, sb, pb));
            m
        } else {
            let m = welds.contact(cols, a, b, witness);
            match hooks {
                Some(h) if m.count > 0 => hooks::modify(h, cols, ids[0], ids[1], m),
                _ => m,
            }
        }
    }

    /// Recomputes, in parallel and in place, the manifold of every contact with a moved collider
    /// (`moved_bits`), then ends, serially, the contacts that stopped touching, and returns how
    /// many it ended.
    ///
    /// Touching pairs own their contact in `contacts`, so their new manifolds need no serial copy.
    /// Chunks of the contacts array are fixed by its length, and the ended pairs are taken
    /// chunk by chunk in array order, so the array comes out the same for any thread count.
    /// Only after a call that refused touching pairs (`refusals_pending`) does a contact's
    /// pair entry need a look, for its refused flag.
    ///
    /// A contact's cost varies by tens of times with its kinds (a box on a box against a
    /// capsule on welded tiles), and the contacts array groups them by collider or by when they
    /// began. So a few thousand contacts are cut into at least 16 chunks, for the threads'
    /// shares to even out; from 16,384 contacts on, chunks of 1,024 keep the per-chunk costs
    /// small.
    fn update_contacts_in_place(&mut self) -> usize {
        let chunk = (self.contacts.len() / 16).clamp(256, MAX_CHUNK);
        let chunks = self.contacts.len().div_ceil(chunk);
        if self.scratch.narrow.len() < chunks {
            self.scratch.narrow.resize_with(chunks, NarrowChunk::default);
        }
        let (cols, bits, pairs, welds) = (&self.cols, &self.scratch.moved_bits, &self.pairs, &self.welds);
        let (hooks, refusals, reuse) = (self.hooks.as_deref(), self.refusals_pending, self.config.reuse_manifolds);
        // Resting box pairs go four at a time where nothing but the kernel decides their manifold.
        let lanes = reuse && hooks.is_none() && !refusals && self.scratch.lanes_rest == 0;
        // Columns of this many colliders (a few hundred bytes each) outgrow the caches.
        let big = self.cols.alive_count >= 1 << 16;
        self.scratch.narrow[..chunks]
            .par_iter_mut()
            .zip(self.contacts.par_chunks_mut(chunk).zip(self.contact_pair.par_chunks(chunk)))
            .zip(self.contact_witness.par_chunks_mut(chunk))
            .for_each(|((out, (contacts, owners)), witnesses)| {
                out.ended.clear();
                out.counts = StepCounts::default();
                out.lanes = [0; 2];
                let mut done = [0u64; MAX_CHUNK / 64];
                if lanes {
                    box_lanes(LaneColumns::of(cols), welds, bits, contacts, witnesses, &mut done, out);
                }
                // The contacts the lanes left, 64 at a time (a word of `done`). In a big world
                // first what their evaluations will read of an end that did not move (the box
                // phase read the others): there those are rarely in cache, and read here, one
                // after the other with nothing waiting on them, their misses overlap, where
                // behind each contact's kernel every miss would wait alone.
                for (k, &word) in done.iter().enumerate().take(contacts.len().div_ceil(64)) {
                    let len = contacts.len() - k * 64;
                    let mut left = if len < 64 { !word & ((1 << len) - 1) } else { !word };
                    if big {
                        warm_still_ends(cols, welds, bits, contacts, k, left);
                    }
                    while left != 0 {
                        let i = k * 64 + left.trailing_zeros() as usize;
                        left &= left - 1;
                        let (c, p, w) = (&mut contacts[i], owners[i], &mut witnesses[i]);
                        let ids = [c.a.slot(), c.b.slot()];
                        if !ids.iter().any(|&s| is_set(bits, s)) {
                            continue;
                        }
                        let refused = refusals && pairs[p.index()].refused;
                        let mut m = if refused || !boxes_overlap(cols, ids) {
                            Manifold::EMPTY
                        } else {
                            Self::evaluate(cols, welds, hooks, reuse.then_some(&mut *w), ids, false)
                        };
                        out.counts.pairs += 1;
                        out.counts.reused += u32::from(reuse && w.reused());
                        if m.count == 0 {
                            out.ended.push(p);
                        }
                        m.carry_impulses(&c.manifold);
                        c.manifold = m;
                    }
                }
            });
        self.add_counts(chunks);
        self.rest_lanes(lanes, chunks);
        let mut ended = 0;
        for k in 0..chunks {
            ended += self.scratch.narrow[k].ended.len();
            for i in 0..self.scratch.narrow[k].ended.len() {
                let p = self.scratch.narrow[k].ended[i];
                let pair = self.pairs[p.index()];
                self.end_touch(p);
                self.push_event(&pair, false);
            }
        }
        ended
    }

    /// Rests the box lanes after a step (`ran` them) whose lanes declined more than a quarter of
    /// their pairs, for a few steps: a declined lane's pair is evaluated twice. After a step that
    /// found no pair for them, they rest one step: a scene without resting box pairs then pays
    /// for the lanes' pass over its contacts every other step, and the contacts of a pile that
    /// has just come together
    /// (their witnesses written by the step before) go to the lanes at the next step but one.
    /// The lanes change no result, so when they run does not matter to the outcome.
    fn rest_lanes(&mut self, ran: bool, chunks: usize) {
        const REST: u32 = 8;
        let scratch = &mut self.scratch;
        let [tried, taken] = scratch.narrow[..chunks].iter().fold([0, 0], |[a, b], c| [a + c.lanes[0], b + c.lanes[1]]);
        scratch.lanes_rest = if !ran {
            scratch.lanes_rest.saturating_sub(1)
        } else if tried == 0 {
            1
        } else if 4 * taken < 3 * tried {
            REST
        } else {
            0
        };
    }

    /// Adds the first `chunks` narrow chunks' counts to the step's.
    fn add_counts(&mut self, chunks: usize) {
        for out in &self.scratch.narrow[..chunks] {
            self.counts.pairs += out.counts.pairs;
            self.counts.reused += out.counts.reused;
        }
    }
}

/// The most contacts in a chunk of the in-place pass.
const MAX_CHUNK: usize = 1024;

/// The first pass over a chunk of the contacts array: its resting box pairs four at a time
/// (`collide::cuboid_lanes`), each marked in `done` when its lane wrote its manifold. The
/// contacts go in consecutive fours, each lane enabled when its pair qualifies: a pair whose
/// manifold is the box kernel's alone (no welds; the caller has checked for hooks and refusals),
/// with a moved end, overlapping boxes and a witness that may serve it. Whatever a lane leaves,
/// the second pass evaluates one at a time in array order, so the ended contacts come out in the
/// order they would without lanes: a lane never ends a contact. Which pairs go through lanes
/// changes no result, only the cost.
fn box_lanes(
    cols: LaneColumns<'_>,
    welds: &Welds,
    bits: &[u64],
    contacts: &mut [Contact],
    witnesses: &mut [Witness],
    done: &mut [u64; MAX_CHUNK / 64],
    out: &mut NarrowChunk,
) {
    let fours = contacts.as_chunks_mut::<4>().0.iter_mut().zip(witnesses.as_chunks_mut::<4>().0);
    for (g, (cs, ws)) in fours.enumerate() {
        let ([c0, c1, c2, c3], [w0, w1, w2, w3]) = (cs.each_mut(), ws.each_mut());
        let ((l0, e0), (l1, e1)) = (lane(&cols, welds, bits, c0, w0), lane(&cols, welds, bits, c1, w1));
        let ((l2, e2), (l3, e3)) = (lane(&cols, welds, bits, c2, w2), lane(&cols, welds, bits, c3, w3));
        let enabled = u32::from(e0) | u32::from(e1) << 1 | u32::from(e2) << 2 | u32::from(e3) << 3;
        if enabled == 0 {
            continue;
        }
        let reused = cuboid_lanes::reuse4([l0, l1, l2, l3], enabled);
        let i = g * 4;
        done[i >> 6] |= u64::from(reused) << (i & 63);
        out.counts.pairs += reused.count_ones();
        out.counts.reused += reused.count_ones();
        // Where pairs move too much for their witnesses (a scene in motion), a declined lane is
        // work done twice: once a quarter of the lanes decline, the rest of the chunk goes one
        // pair at a time.
        out.lanes = [out.lanes[0] + enabled.count_ones(), out.lanes[1] + reused.count_ones()];
        if out.lanes[0] >= 16 && 4 * out.lanes[1] < 3 * out.lanes[0] {
            return;
        }
    }
}

/// What the lanes' qualification reads of the colliders, every column cut to the slot count:
/// one comparison per contact then bounds all of its reads.
#[derive(Clone, Copy)]
struct LaneColumns<'a> {
    shape: &'a [Shape],
    pose: &'a [Pose],
    aabb: &'a [Aabb],
}

impl<'a> LaneColumns<'a> {
    fn of(cols: &'a Columns) -> Self {
        let n = cols.pose.len();
        LaneColumns { shape: &cols.shape[..n], pose: &cols.pose[..n], aabb: &cols.aabb[..n] }
    }
}

/// The lane of contact `c`'s box pair, and whether it qualifies for one (see [`box_lanes`]).
/// The witness and the contact first: they lie in order in memory, the colliders' columns do
/// not. The other tests are all evaluated: they hold for nearly every contact of a resting pile.
#[inline(always)]
fn lane<'a>(
    cols: &LaneColumns<'a>,
    welds: &Welds,
    bits: &[u64],
    c: &'a mut Contact,
    witness: &'a mut Witness,
) -> (cuboid_lanes::Lane<'a>, bool) {
    let ids = [c.a.slot(), c.b.slot()];
    let [a, b] = ids.map(ColliderSlot::index);
    if !cuboid_lanes::may_serve(witness) || a.max(b) >= cols.pose.len() {
        let (pa, pb, ha, hb) = (&Pose::IDENTITY, &Pose::IDENTITY, Vec2::ZERO, Vec2::ZERO);
        return (cuboid_lanes::Lane { pa, pb, ha, hb, witness, manifold: &mut c.manifold }, false);
    }
    let half = |s: usize| match &cols.shape[s] {
        Shape::Cuboid(x) => (x.half_extents, true),
        _ => (Vec2::ZERO, false),
    };
    let ((ha, box_a), (hb, box_b)) = (half(a), half(b));
    let on = box_a
        & box_b
        & (is_set(bits, ids[0]) | is_set(bits, ids[1]))
        & !welds.has(a)
        & !welds.has(b)
        & cols.aabb[a].overlaps(&cols.aabb[b]);
    let lane = cuboid_lanes::Lane { pa: &cols.pose[a], pb: &cols.pose[b], ha, hb, witness, manifold: &mut c.manifold };
    (lane, on)
}

/// Whether the tight boxes of the colliders in slots `ids` overlap: a pair whose boxes do not
/// has the empty manifold.
#[inline]
fn boxes_overlap(cols: &Columns, ids: [ColliderSlot; 2]) -> bool {
    cols.aabb[ids[0].index()].overlaps(&cols.aabb[ids[1].index()])
}

/// Reads what an evaluation reads of the collider in slot `s` (its box, its pose, its shape,
/// its welds) and folds it into a number, so that the caller's loads are not optimised away.
#[inline]
fn warm(cols: &Columns, welds: &Welds, s: ColliderSlot) -> usize {
    let s = s.index();
    let (aabb, pose) = (cols.aabb[s].min.x.to_bits(), cols.pose[s].p.x.to_bits());
    welds.of(s).map_or(0, <[_]>::len) ^ (aabb ^ pose) as usize ^ cols.shape[s].kind() as usize
}

/// Reads, for each contact `k * 64 + i` of `contacts` with bit `i` set in `left` and one end
/// moved, what the evaluation will read of its other end (see `warm`).
fn warm_still_ends(cols: &Columns, welds: &Welds, bits: &[u64], contacts: &[Contact], k: usize, mut left: u64) {
    let mut warmth = 0;
    while left != 0 {
        let c = &contacts[k * 64 + left.trailing_zeros() as usize];
        left &= left - 1;
        let [a, b] = [c.a.slot(), c.b.slot()];
        match (is_set(bits, a), is_set(bits, b)) {
            (true, false) => warmth ^= warm(cols, welds, b),
            (false, true) => warmth ^= warm(cols, welds, a),
            _ => {}
        }
    }
    // Keeps the loads: nothing else uses what they read.
    std::hint::black_box(warmth);
}

/// Whether slot `s`'s bit is set (`false` past the end, which covers `NULL`).
#[inline]
fn is_set(bits: &[u64], s: ColliderSlot) -> bool {
    let s = s.get();
    bits.get(s as usize >> 6).is_some_and(|w| w >> (s & 63) & 1 != 0)
}
