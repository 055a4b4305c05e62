//! Phase (b): escaped colliders through the broad-phase structures, then their candidate pairs searched and applied.
//!
//! Movers (colliders that are neither static nor larger than `WorldConfig::large_extent`) live in
//! the configured movers' structure (the incremental SAP by default), which reports the pairs
//! among them; static and very large colliders live in the tree, whose pairs are found by
//! querying it (and the movers' tree) with each escaped collider's fat box.

use crate::broad::{BroadPhase, Pair};
use crate::math::Aabb;
use crate::par::prelude::*;
use crate::storage::{ColliderSlot, flags};
use crate::world::World;
use crate::world::pairs::{PairIndex, slots_of};
use crate::world::scratch::SearchChunk;

impl World {
    /// (b) The broad phase in place: escaped movers through the movers' structure (as one
    /// batch), escaped tree residents through the tree; then the pairs that began and ended are
    /// found and applied.
    pub(super) fn update_broad_phase(&mut self) {
        self.place_escaped();
        self.movers.insert_batch(&self.scratch.escaped_inserts);
        self.movers.update_batch(&self.scratch.escaped_updates);
        for &(id, _) in self.scratch.escaped_inserts.iter().chain(&self.scratch.escaped_updates) {
            self.mover_tree.touch(ColliderSlot::new(id));
        }
        self.scratch.began.clear();
        self.scratch.ended.clear();
        if !self.config.broad_phase.finds_pairs_by_query() {
            self.movers.update_pairs(&mut self.scratch.began, &mut self.scratch.ended);
        }
        // The broad phase has now seen every removal: their slots may be reused.
        self.cols.free.append(&mut self.released);
        self.search_escaped_pairs();
        self.apply_pair_changes();
    }

    /// Puts each escaped collider where it now belongs: the tree for static colliders and those
    /// larger than `large_extent` on a side, the movers' structure for the rest (batched into
    /// `escaped_inserts` / `escaped_updates`), moving it across when it grew past or shrank below
    /// the limit. Also decides, into `escaped_old`, how its parted pairs will be found.
    ///
    /// Colliders entering the tree go in as one batch after the others moved: a level loaded
    /// between two steps (a million tiles) is then one binned-SAH build rather than a million
    /// branch-and-bound insertions (`DynamicTree::insert_batch` picks).
    fn place_escaped(&mut self) {
        let (cols, scratch) = (&mut self.cols, &mut self.scratch);
        scratch.escaped_old.clear();
        scratch.escaped_updates.clear();
        scratch.escaped_inserts.clear();
        scratch.tree_inserts.clear();
        for &(slot, old_fat) in &scratch.escaped {
            let (s, id) = (slot.index(), slot.get());
            let (tight, new_fat) = (cols.aabb[s], cols.fat[s]);
            let is_new = old_fat == Aabb::EMPTY;
            let wants_tree =
                cols.flags[s] & flags::STATIC != 0 || (tight.max - tight.min).max_element() > self.config.large_extent;
            let in_tree = cols.flags[s] & flags::IN_TREE != 0;
            // A collider that stays in the movers' structure, when that structure reports its own
            // parted pairs, needs only its pairs with tree residents checked (see
            // `search_escaped_pairs`).
            let stays_mover = !is_new && !in_tree && !wants_tree;
            let by_tree = is_new || (stays_mover && !self.config.broad_phase.finds_pairs_by_query());
            scratch.escaped_old.push(by_tree.then_some(old_fat));
            if !is_new && wants_tree != in_tree {
                if in_tree {
                    self.tree.remove(id);
                } else {
                    self.movers.remove(id);
                    self.mover_tree.touch(slot);
                }
            }
            if wants_tree {
                cols.flags[s] |= flags::IN_TREE;
                if is_new || !in_tree {
                    scratch.tree_inserts.push((id, new_fat));
                } else {
                    self.tree.update(id, new_fat);
                }
            } else {
                cols.flags[s] &= !flags::IN_TREE;
                if is_new || in_tree {
                    scratch.escaped_inserts.push((id, new_fat));
                } else {
                    scratch.escaped_updates.push((id, new_fat));
                }
            }
        }
        self.tree.insert_batch(&self.scratch.tree_inserts);
    }

    /// Candidate pairs of the escaped colliders, into `began` and `ended`.
    ///
    /// Each escaped mover asks the static tree, and in query mode the movers' structure
    /// (O(escaped), Box2D's scheme), for the fat boxes it now overlaps, keeping only pairs that
    /// are new and allowed; and it checks its own pairs for fat boxes that parted, which the
    /// movers' structure does not report for pairs with a tree resident. These searches only
    /// read, so they run in parallel over fixed chunks of `escaped` (the split depends on the
    /// count alone, and the lists are sorted before use, so the outcome does not depend on the
    /// thread count). Escaped tree residents search the movers' tree too, which is flushed on
    /// first use, so they go serially after.
    fn search_escaped_pairs(&mut self) {
        const CHUNK: usize = 256;
        let chunks = self.scratch.escaped.len().div_ceil(CHUNK);
        if self.scratch.search.len() < chunks {
            self.scratch.search.resize_with(chunks, SearchChunk::default);
        }
        let query_movers = self.config.broad_phase.finds_pairs_by_query();
        let config = &self.config;
        let (cols, pairs, table, tree, movers) = (&self.cols, &self.pairs, &self.pair_table, &self.tree, &self.movers);
        let escaped = self.scratch.escaped.par_chunks(CHUNK).zip(self.scratch.escaped_old.par_chunks(CHUNK));
        self.scratch.search[..chunks].par_iter_mut().zip(escaped).for_each(|(out, (escaped, olds))| {
            out.began.clear();
            out.ended.clear();
            // At most one probe per collider of the chunk: sized once, for good. The hits of
            // one query rarely number more than a dozen; a floor of as many spares each chunk
            // the slow climb to the most it will ever see.
            out.probes.clear();
            out.probes.reserve(CHUNK);
            out.probe_boxes.clear();
            out.probe_boxes.reserve(CHUNK);
            out.hits.reserve(CHUNK);
            let offer = |began: &mut Vec<Pair>, slot: ColliderSlot, other: u32| {
                let p = crate::broad::pair(slot.get(), other);
                // The table first: most hits are pairs the collider already has, and the table
                // is small where the other's flags may be anywhere in memory.
                if other != slot.get()
                    && !table.contains(p)
                    && Self::may_pair(cols, config, slot, ColliderSlot::new(other))
                {
                    began.push(p);
                }
            };
            for (&(slot, _), old) in escaped.iter().zip(olds) {
                let s = slot.index();
                let fat = cols.fat[s];
                if cols.flags[s] & flags::IN_TREE == 0 {
                    if query_movers {
                        out.hits.clear();
                        let answered = movers.query_aabb_shared(&fat, &mut out.hits);
                        debug_assert!(answered, "finds_pairs_by_query kinds answer shared queries");
                        for &other in &out.hits {
                            offer(&mut out.began, slot, other);
                        }
                    }
                    // Its parted pairs with other movers come from the movers' structure. A tree
                    // resident it was paired with overlapped its old fat box (the resident did
                    // not escape, or its own list check covers the pair): the tree finds those
                    // too, instead of a walk of the pair list through memory. One walk with both
                    // boxes, which overlap almost entirely, serves both searches (a new
                    // collider's old box is empty). Non-pairs among the parted are dropped by
                    // the apply's pair-table lookup. The walks are taken below, all at once.
                    let old = old.unwrap_or(Aabb::EMPTY);
                    out.probes.push((slot, fat, old));
                    out.probe_boxes.push(fat.union(&old));
                }
                if old.is_some() {
                    // Parted pairs found by the tree walk (a new tree resident has none).
                    continue;
                }
                let mut p = cols.pair_head[s];
                while !p.is_null() {
                    let pair = &pairs[p.index()];
                    let [a, b] = pair.ids;
                    if !cols.fat[a.index()].overlaps(&cols.fat[b.index()]) {
                        out.ended.push(pair.key());
                    }
                    p = pair.next[Self::end_of(pair, slot)];
                }
            }
            // Each hit is sorted by the box it overlaps; a resident's leaf holds its fat box (the
            // tree's margin is 0).
            let SearchChunk { probes, probe_boxes, began, ended, .. } = out;
            tree.query_boxes_each(probe_boxes, |k, other, f| {
                let (slot, fat, old) = probes[k];
                if f.overlaps(&fat) {
                    offer(began, slot, other);
                } else if f.overlaps(&old) {
                    ended.push(crate::broad::pair(slot.get(), other));
                }
            });
        });
        for out in &self.scratch.search[..chunks] {
            self.scratch.began.extend_from_slice(&out.began);
            self.scratch.ended.extend_from_slice(&out.ended);
        }
        // Escaped tree residents, and colliders whose pairs are to be refreshed (a flag or filter
        // changed): every allowed pair is offered, the apply keeps the ones it has. A refreshed
        // collider's pairs that no longer fit end, and those whose kind changed end and begin
        // again (ended pairs are applied first).
        //
        // A static pairs with no tree resident but a large mover. When a level arrives (many
        // statics escaped at once) and the tree holds no mover, one scan of the flags spares
        // each static its walk of the tree. If every mover escaped too (the first step), each
        // found its pairs with the tree's statics in its own search above, and the statics'
        // walks of the movers' tree would find them all again.
        let statics =
            self.scratch.escaped.iter().filter(|(s, _)| self.cols.flags[s.index()] & flags::STATIC != 0).count();
        let static_tree =
            statics >= 4096 && !self.cols.flags.iter().any(|&f| f & (flags::IN_TREE | flags::STATIC) == flags::IN_TREE);
        let every_mover_escaped = static_tree && {
            let escaped_movers =
                self.scratch.escaped.iter().filter(|(s, _)| self.cols.flags[s.index()] & flags::IN_TREE == 0).count();
            escaped_movers == self.mover_tree.get_mut(&self.cols).len()
        };
        for i in 0..self.scratch.escaped.len() {
            let slot = self.scratch.escaped[i].0;
            let (s, id) = (slot.index(), slot.get());
            let refresh = self.cols.flags[s] & flags::REFRESH != 0;
            if self.cols.flags[s] & flags::IN_TREE == 0 && !refresh {
                continue;
            }
            if refresh {
                self.cols.flags[s] &= !flags::REFRESH;
                let mut p = self.cols.pair_head[s];
                while !p.is_null() {
                    let pair = &self.pairs[p.index()];
                    let [a, b] = pair.ids;
                    if !Self::pair_fits(&self.cols, &self.config, a, b, pair.sensor) {
                        self.scratch.ended.push(pair.key());
                    }
                    p = pair.next[Self::end_of(pair, slot)];
                }
            }
            let fat = self.cols.fat[s];
            if static_tree && self.cols.flags[s] & flags::STATIC != 0 {
                // (A refreshed static's pairs are still in the table, which the movers' searches
                // skip: it offers them again itself.)
                if every_mover_escaped && !refresh {
                    continue;
                }
                self.query_movers_tree(&fat);
            } else {
                self.query_both_trees(&fat);
            }
            for &other in &self.scratch.query_hits {
                if other != id && Self::may_pair(&self.cols, &self.config, slot, ColliderSlot::new(other)) {
                    self.scratch.began.push(crate::broad::pair(id, other));
                }
            }
        }
    }

    /// Fills `query_hits` with every collider whose fat box overlaps `fat`: the tree residents,
    /// and the movers through their (lazily flushed) tree.
    pub(in crate::world) fn query_both_trees(&mut self, fat: &Aabb) {
        self.scratch.query_hits.clear();
        self.tree.query_aabb(fat, &mut self.scratch.query_hits);
        self.push_movers_hits(fat);
    }

    /// Fills `query_hits` with the movers whose fat box overlaps `fat`.
    fn query_movers_tree(&mut self, fat: &Aabb) {
        self.scratch.query_hits.clear();
        self.push_movers_hits(fat);
    }

    /// Appends to `query_hits` the movers whose fat box overlaps `fat`.
    fn push_movers_hits(&mut self, fat: &Aabb) {
        let hits = &mut self.scratch.query_hits;
        self.mover_tree.get_mut(&self.cols).query(fat, |id| {
            hits.push(id);
            true
        });
    }

    /// Applies `began` and `ended`: ended first (so a pair that ended and began again is a fresh
    /// pair), each list sorted so that pair entry allocation and events do not depend on
    /// discovery order. A touching pair freed here raises its ended event.
    pub(in crate::world) fn apply_pair_changes(&mut self) {
        self.scratch.ended.sort_unstable();
        self.scratch.ended.dedup();
        // Three passes, so that each one's cache misses (the pair table, the colliders, the
        // entries next to a freed one in its colliders' lists: all scattered) overlap one
        // another instead of waiting in turn behind the unlinking of the pair before.
        // First which pairs end: freeing one changes nothing another's fate depends on.
        let mut doomed = std::mem::take(&mut self.scratch.doomed);
        doomed.clear();
        for &key in &self.scratch.ended {
            let [a, b] = slots_of(key);
            // A collider moving between the movers' structure and the tree makes the former
            // report its pairs as ended although the fat boxes still overlap: those pairs live on,
            // unless a flag or filter change excludes them or changed their kind.
            let Some(p) = self.pair_table.get(key) else { continue };
            if !self.cols.fat[a.index()].overlaps(&self.cols.fat[b.index()])
                || !Self::pair_fits(&self.cols, &self.config, a, b, self.pairs[p.index()].sensor)
            {
                doomed.push((key, p));
            }
        }
        // Then what the unlinking will read: each end's list head and the entries on either
        // side in its list, folded into a number nothing uses, so that the loads stay.
        let mut warmth = 0;
        for &(_, p) in &doomed {
            let pair = &self.pairs[p.index()];
            for k in 0..2 {
                warmth ^= self.cols.pair_head[pair.ids[k].index()].get();
                for q in [pair.prev[k], pair.next[k]] {
                    if !q.is_null() {
                        warmth ^= self.pairs[q.index()].ids[0].get();
                    }
                }
            }
        }
        std::hint::black_box(warmth);
        for &(key, p) in &doomed {
            self.pair_table.remove(key);
            self.free_pair(p, false);
        }
        self.counts.pairs_ended += doomed.len() as u32;
        self.scratch.doomed = doomed;
        self.scratch.began.sort_unstable();
        self.scratch.began.dedup();
        for i in 0..self.scratch.began.len() {
            let key = self.scratch.began[i];
            let [a, b] = slots_of(key);
            if !Self::may_pair(&self.cols, &self.config, a, b) {
                continue;
            }
            // One probe that claims the key for the entry `create_pair` will take, instead of a
            // lookup and then an insert; a pair already present (rare) gets its entry back.
            let p = self.free_pairs.last().copied().unwrap_or(PairIndex::from_index(self.pairs.len()));
            if let Some(old) = self.pair_table.insert(key, p) {
                self.pair_table.insert(key, old);
                continue;
            }
            let sensor = (self.cols.flags[a.index()] | self.cols.flags[b.index()]) & flags::SENSOR != 0;
            self.create_pair(a, b, sensor);
            self.counts.pairs_began += 1;
        }
    }
}
