//! Pair tracking: what a flush does with its candidate pairs and how pair changes are reported,
//! with a pair set ([`PairSet`]) or with only a log of changes ([`ChangeLog`]).

use super::{Boxes, Sap};
use crate::broad::pair_table::{pack, unpack};
use crate::broad::{Pair, PairTable};
use crate::math::Aabb;

/// How a [`Sap`] keeps track of its pairs. Every candidate a flush hands over is decided from
/// the final boxes; the `prev` boxes tell its membership before the flush (see
/// [`super::Boxes`]).
pub(crate) trait Tracking: Default {
    /// Whether `update_pairs` reports the pairs of removed boxes as ended. Without that, the
    /// caller drops a removed box's pairs itself.
    const REPORTS_REMOVED: bool;

    /// The boxes of the pairs for which `gone` holds are leaving the axes.
    fn drop_removed(&mut self, gone: impl Fn(Pair) -> bool);

    /// Decides a candidate of the re-sort, `a` and `b` being its boxes.
    fn candidate(&mut self, p: Pair, a: &Boxes, b: &Boxes);

    /// Records the pairs of newly inserted boxes, all of them begun.
    fn inserted(&mut self, found: &[Pair]);

    /// Appends the pairs that began and ended since the last report, unsorted.
    fn report(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>);

    /// The current pairs, when kept.
    fn pair_set(&self) -> Option<&PairTable>;

    /// Checks the tracker's own tables.
    fn validate(&self) -> Result<(), String>;
}

/// The current pairs in a table, and the changes since the last report in a second one.
#[derive(Clone, Default)]
pub(crate) struct PairSet {
    /// The current overlapping pairs (value unused, 0).
    table: PairTable,
    /// Pairs whose membership changed since the last report: value 0 = absent then (a began
    /// candidate), 1 = present then (an ended candidate). A pair that changes back is dropped,
    /// so a pair that began and ended within one interval is never reported.
    delta: PairTable,
    /// The keys put into `delta`, in order, so that reporting drains it in O(changes) instead of
    /// clearing (and scanning) its whole capacity after a big batch.
    delta_log: Vec<Pair>,
}

impl PairSet {
    /// Records that `p` joined the pair table.
    fn note_added(&mut self, p: Pair) {
        // If `p` is in `delta` it was removed earlier in this interval after being present at
        // the last report (value 1): the two changes cancel.
        if self.delta.remove(p).is_none() {
            self.delta.insert(p, 0);
            self.delta_log.push(p);
        }
    }

    /// Records that `p` left the pair table.
    fn note_removed(delta: &mut PairTable, log: &mut Vec<Pair>, p: Pair) {
        // If `p` is in `delta` it was added earlier in this interval (value 0): cancel.
        if delta.remove(p).is_none() {
            delta.insert(p, 1);
            log.push(p);
        }
    }
}

impl Tracking for PairSet {
    const REPORTS_REMOVED: bool = true;

    fn drop_removed(&mut self, gone: impl Fn(Pair) -> bool) {
        let (delta, log) = (&mut self.delta, &mut self.delta_log);
        self.table.retain(|p, _| {
            let gone = gone(p);
            if gone {
                Self::note_removed(delta, log, p);
            }
            !gone
        });
    }

    fn candidate(&mut self, p: Pair, a: &Boxes, b: &Boxes) {
        if a.cur.overlaps(&b.cur) {
            if self.table.insert(p, 0).is_none() {
                self.note_added(p);
            }
        } else if self.table.remove(p).is_some() {
            Self::note_removed(&mut self.delta, &mut self.delta_log, p);
        }
    }

    fn inserted(&mut self, found: &[Pair]) {
        self.table.reserve(found.len());
        for &p in found {
            let fresh = self.table.insert(p, 0).is_none();
            debug_assert!(fresh, "new box's pair {p:?} already stored");
            self.note_added(p);
        }
    }

    fn report(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        for &p in &self.delta_log {
            match self.delta.remove(p) {
                Some(0) => began.push(p),
                Some(_) => ended.push(p),
                None => {}
            }
        }
        self.delta_log.clear();
        debug_assert!(self.delta.is_empty());
    }

    fn pair_set(&self) -> Option<&PairTable> {
        Some(&self.table)
    }

    fn validate(&self) -> Result<(), String> {
        self.table.validate().map_err(|e| format!("pair table: {e}"))?;
        self.delta.validate().map_err(|e| format!("delta table: {e}"))
    }
}

/// No pair set, for a caller that keeps its own (the world): it saves a hash table of every
/// overlapping pair and two probes per pair change. A candidate's old membership is the
/// reflected (`prev`) boxes' overlap, so each real change goes into a plain log without a
/// lookup; the report sorts the log and nets out pairs that changed more than once since the
/// last report. Removed boxes' pairs are the caller's to drop.
#[derive(Clone, Default)]
pub(crate) struct ChangeLog {
    /// The pair changes since the last report, in order, as (packed pair, sequence number << 1 |
    /// began). A pair may appear several times (both axes report it, or several flushes changed
    /// it); the report nets them out.
    changes: Vec<(u64, u64)>,
}

impl ChangeLog {
    /// Logs that `p` began (or ended).
    fn log(&mut self, p: Pair, began: bool) {
        // A u64 sequence number costs nothing (the entry is 16 bytes either way) and never wraps.
        let seq = self.changes.len() as u64;
        self.changes.push((pack(p), seq << 1 | u64::from(began)));
    }
}

impl Tracking for ChangeLog {
    const REPORTS_REMOVED: bool = false;

    fn drop_removed(&mut self, gone: impl Fn(Pair) -> bool) {
        // The caller drops the removed boxes' pairs; changes logged for them since the last
        // report are forgotten (a re-inserted id starts afresh).
        self.changes.retain(|&(k, _)| !gone(unpack(k)));
    }

    fn candidate(&mut self, p: Pair, a: &Boxes, b: &Boxes) {
        // A kept candidate need not change membership: when both boxes moved, an endpoint of
        // one can pass the other's endpoint at its old place and the other then pass back, in
        // the same re-sort. The report infers a pair's state before the interval from its first
        // logged change, so only real changes are logged: membership is exactly the overlap of
        // the `prev` boxes.
        let now = a.cur.overlaps(&b.cur);
        if now != a.prev.overlaps(&b.prev) {
            self.log(p, now);
        }
    }

    fn inserted(&mut self, found: &[Pair]) {
        for &p in found {
            self.log(p, true);
        }
    }

    fn report(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        // Per pair, in log order: the first change tells the state at the last report (a pair
        // that began was absent), the last one the state now.
        self.changes.sort_unstable();
        let mut rest = &self.changes[..];
        while let Some(&(k, first)) = rest.first() {
            let n = rest.iter().take_while(|c| c.0 == k).count();
            let (was, is) = (first & 1 == 0, rest[n - 1].1 & 1 == 1);
            if was != is {
                if is { began.push(unpack(k)) } else { ended.push(unpack(k)) }
            }
            rest = &rest[n..];
        }
        self.changes.clear();
    }

    fn pair_set(&self) -> Option<&PairTable> {
        None
    }

    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

impl<T: Tracking> Sap<T> {
    /// The pairs of the `prev` boxes of the ids in the axes, ascending, by a plain
    /// sort-and-sweep independent of the axes and any pair set: the answer to `pairs` without
    /// a pair set, and the oracle of `validate`.
    pub(super) fn recompute_pairs(&self) -> Vec<Pair> {
        let in_axes = |s: u8| s == super::LIVE || s == super::PENDING_REMOVE;
        let mut boxes: Vec<(Aabb, u32)> = (0..self.state.len() as u32)
            .filter(|&i| in_axes(self.state[i as usize]))
            .map(|i| (self.boxes[i as usize].prev, i))
            .collect();
        crate::broad::sweep_pairs(&mut boxes, |_, _| true)
    }
}
