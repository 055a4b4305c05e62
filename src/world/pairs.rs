//! Pair bookkeeping: pair entries, their links into both colliders' lists, touching state and
//! events.
//!
//! ```text
//!  pairs: Vec<PairEntry>     by PairIndex; free entries have ids [NULL, NULL] and are listed
//!                            in free_pairs
//!  pair_table: [slot a, slot b] -> PairIndex
//!  cols.pair_head[slot] -> PairIndex -> next[end] -> ... -> NULL   (one list per collider)
//!  contacts: Vec<Contact>    by ContactIndex, one per touching non-sensor pair;
//!  contact_pair[c]           the PairIndex that owns contacts[c], whose `contact` is c
//! ```

use super::{Contact, Event, EventKind, World, WorldConfig};
use crate::broad::Pair;
use crate::collide::Manifold;
use crate::collide::reuse::Witness;
use crate::index::typed_index;
use crate::storage::{ColliderSlot, Columns, flags};

typed_index!(
    /// A pair entry: its position in `World::pairs`.
    PairIndex
);

typed_index!(
    /// A contact: its position in `World::contacts` (and `World::contact_pair`).
    ContactIndex
);

/// A candidate pair's entry: fat boxes overlap and filters allow it.
#[derive(Clone, Copy, Debug)]
pub(super) struct PairEntry {
    /// Collider slots, `ids[0] < ids[1]`; `[NULL, NULL]` while the entry is free.
    pub ids: [ColliderSlot; 2],
    /// Next and previous pair in the list of `ids[k]` (`NULL` at the ends).
    pub next: [PairIndex; 2],
    pub prev: [PairIndex; 2],
    /// The pair's contact while touching (non-sensor pairs only), else `NULL`.
    pub contact: ContactIndex,
    /// Whether the shapes touch (for sensor pairs: overlap) and the contact hook kept the
    /// contact.
    pub touching: bool,
    pub sensor: bool,
    /// The pair filter refused the pair (see `hooks`): the narrow phase gives it no manifold.
    /// Never touching, except between the call that refused it and the next step, which ends
    /// it (one of its ends is then marked moved).
    pub refused: bool,
}

impl PairEntry {
    /// The `ids` of a free entry.
    pub const FREE: [ColliderSlot; 2] = [ColliderSlot::NULL; 2];

    /// Whether the entry is free (on the free list).
    #[inline]
    pub fn is_free(&self) -> bool {
        self.ids == Self::FREE
    }

    /// The pair's key in the pair table, its colliders' broad-phase ids.
    #[inline]
    pub fn key(&self) -> Pair {
        self.ids.map(ColliderSlot::get)
    }
}

/// The collider slots of a broad-phase pair (the world's broad-phase ids are its slots).
#[inline]
pub(super) fn slots_of(p: Pair) -> [ColliderSlot; 2] {
    p.map(ColliderSlot::new)
}

impl World {
    /// Which end of `pair` is `slot` (0 or 1).
    #[inline]
    pub(super) fn end_of(pair: &PairEntry, slot: ColliderSlot) -> usize {
        usize::from(pair.ids[1] == slot)
    }

    /// Takes a pair entry (the free list's last first, else a new one) and links it into both
    /// colliders' lists, with the pair filter's answer. The caller has put the pair into
    /// `pair_table` under that entry's index.
    pub(super) fn create_pair(&mut self, a: ColliderSlot, b: ColliderSlot, sensor: bool) {
        let entry = PairEntry {
            ids: [a, b],
            next: [self.cols.pair_head[a.index()], self.cols.pair_head[b.index()]],
            prev: [PairIndex::NULL; 2],
            contact: ContactIndex::NULL,
            touching: false,
            sensor,
            refused: !self.filter_allows(a, b),
        };
        let p = match self.free_pairs.pop() {
            Some(p) => {
                self.pairs[p.index()] = entry;
                p
            }
            None => {
                self.pairs.push(entry);
                PairIndex::from_index(self.pairs.len() - 1)
            }
        };
        for (k, &c) in [a, b].iter().enumerate() {
            let head = self.cols.pair_head[c.index()];
            if !head.is_null() {
                let h = &mut self.pairs[head.index()];
                let end = Self::end_of(h, c);
                h.prev[end] = p;
            }
            self.cols.pair_head[c.index()] = p;
            debug_assert_eq!(self.pairs[p.index()].next[k], head);
        }
        debug_assert_eq!(self.pair_table.get(entry.key()), Some(p));
    }

    /// Unlinks and frees a pair entry; a touching pair ends with an event (into the pending list
    /// when called from `remove`, so that it is reported with the next step).
    pub(super) fn destroy_pair(&mut self, p: PairIndex, pending: bool) {
        self.pair_table.remove(self.pairs[p.index()].key());
        self.free_pair(p, pending);
    }

    /// `destroy_pair` for a pair already taken out of `pair_table`.
    pub(super) fn free_pair(&mut self, p: PairIndex, pending: bool) {
        let pair = self.pairs[p.index()];
        if pair.touching {
            self.end_touch(p);
            if self.reports(&pair) {
                let ev = self.make_event(&pair, false);
                if pending { self.pending_events.push(ev) } else { self.events.push(ev) }
            }
        }
        for (k, &c) in pair.ids.iter().enumerate() {
            let (prev, next) = (pair.prev[k], pair.next[k]);
            if prev.is_null() {
                self.cols.pair_head[c.index()] = next;
            } else {
                let pp = &mut self.pairs[prev.index()];
                let end = Self::end_of(pp, c);
                pp.next[end] = next;
            }
            if !next.is_null() {
                let np = &mut self.pairs[next.index()];
                let end = Self::end_of(np, c);
                np.prev[end] = prev;
            }
        }
        self.pairs[p.index()].ids = PairEntry::FREE;
        self.free_pairs.push(p);
    }

    /// Clears the reuse witnesses of slot `s`'s contacts: their decisions were about its old shape.
    pub(super) fn forget_witnesses(&mut self, s: usize) {
        let slot = ColliderSlot::from_index(s);
        let mut p = self.cols.pair_head[s];
        while !p.is_null() {
            let pair = &self.pairs[p.index()];
            if !pair.contact.is_null() {
                self.contact_witness[pair.contact.index()].clear();
            }
            p = pair.next[Self::end_of(pair, slot)];
        }
    }

    /// Drops a pair's contact (swap-remove, fixing the moved contact's back-reference).
    pub(super) fn end_touch(&mut self, p: PairIndex) {
        let pair = &mut self.pairs[p.index()];
        pair.touching = false;
        let c = std::mem::replace(&mut pair.contact, ContactIndex::NULL);
        if !c.is_null() {
            self.contacts.swap_remove(c.index());
            self.contact_pair.swap_remove(c.index());
            self.contact_witness.swap_remove(c.index());
            if let Some(&moved) = self.contact_pair.get(c.index()) {
                self.pairs[moved.index()].contact = c;
            }
        }
    }

    /// The event of `pair` starting (`began`) or stopping to touch.
    pub(super) fn make_event(&self, pair: &PairEntry, began: bool) -> Event {
        let kind = match (pair.sensor, began) {
            (false, true) => EventKind::ContactBegan,
            (false, false) => EventKind::ContactEnded,
            (true, true) => EventKind::SensorEntered,
            (true, false) => EventKind::SensorExited,
        };
        Event { a: self.cols.id(pair.ids[0]), b: self.cols.id(pair.ids[1]), kind }
    }

    /// Whether `pair`'s events are reported: both its colliders have that kind of event on.
    /// Judged when the event is raised, so a switch flipped while a pair touches decides its
    /// end event alone.
    pub(super) fn reports(&self, pair: &PairEntry) -> bool {
        let off = if pair.sensor { flags::NO_SENSOR_EVENTS } else { flags::NO_CONTACT_EVENTS };
        (self.cols.flags[pair.ids[0].index()] | self.cols.flags[pair.ids[1].index()]) & off == 0
    }

    /// `make_event` into this step's events, unless the colliders' switches silence it.
    pub(super) fn push_event(&mut self, pair: &PairEntry, began: bool) {
        if self.reports(pair) {
            let ev = self.make_event(pair, began);
            self.events.push(ev);
        }
    }

    /// A pair started or stopped touching: add or drop its contact, raise its event.
    pub(super) fn flip_touching(&mut self, p: PairIndex, m: Manifold) {
        let pair = self.pairs[p.index()];
        if pair.touching {
            self.end_touch(p);
            self.push_event(&pair, false);
            return;
        }
        self.pairs[p.index()].touching = true;
        if !pair.sensor {
            self.pairs[p.index()].contact = ContactIndex::from_index(self.contacts.len());
            self.contacts.push(Contact { a: self.cols.id(pair.ids[0]), b: self.cols.id(pair.ids[1]), manifold: m });
            self.contact_pair.push(p);
            self.contact_witness.push(Witness::default());
            // The sort that restores the contacts' order (`step::contact_order`) allocates
            // nothing then.
            let order = &mut self.scratch.contact_order;
            order.reserve(self.contacts.len().saturating_sub(order.len()));
        }
        self.push_event(&pair, true);
    }

    /// Whether two colliders may form a pair: both enabled, not both static, the config's
    /// sensor rules allow it, and their filters agree. The one statement of the rule, for the
    /// step's pair search, `validate` and the snapshot reader.
    pub(super) fn may_pair(cols: &Columns, config: &WorldConfig, a: ColliderSlot, b: ColliderSlot) -> bool {
        let (a, b) = (a.index(), b.index());
        let (fa, fb) = (cols.flags[a], cols.flags[b]);
        let senses_static = |sensor: u16, other: u16| {
            sensor & flags::SENSOR != 0 && other & (flags::STATIC | flags::SENSOR) == flags::STATIC
        };
        (fa | fb) & flags::DISABLED == 0
            && fa & fb & flags::STATIC == 0
            && (config.sensors_detect_sensors || fa & fb & flags::SENSOR == 0)
            && (config.sensors_detect_static || !(senses_static(fa, fb) || senses_static(fb, fa)))
            && cols.filter[a].pairs_with(&cols.filter[b])
    }

    /// Whether a pair whose kind is `sensor` may stay as it is between colliders `a`, `b`: they
    /// may pair and the pair's kind is theirs. Only a flag or filter change since the last step
    /// (a REFRESH end) makes it fail while their fat boxes overlap.
    pub(super) fn pair_fits(
        cols: &Columns,
        config: &WorldConfig,
        a: ColliderSlot,
        b: ColliderSlot,
        sensor: bool,
    ) -> bool {
        Self::may_pair(cols, config, a, b)
            && sensor == ((cols.flags[a.index()] | cols.flags[b.index()]) & flags::SENSOR != 0)
    }
}
