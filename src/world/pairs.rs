//! Pair bookkeeping: pair slots, their links into both colliders' lists, touching state and events.

use super::{Contact, Event, EventKind, NONE, World, WorldConfig};
use crate::collide::Manifold;
use crate::storage::{Columns, flags};

/// A candidate pair: fat boxes overlap and filters allow it.
#[derive(Clone, Copy, Debug)]
pub(super) struct PairSlot {
    /// Collider slots, `ids[0] < ids[1]`; `[NONE, NONE]` while the slot is free.
    pub ids: [u32; 2],
    /// Next and previous pair in the list of `ids[k]` (`NONE` at the ends).
    pub next: [u32; 2],
    pub prev: [u32; 2],
    /// Index into `contacts` while touching (non-sensor pairs only), else `NONE`.
    pub contact: u32,
    /// Whether the shapes touch (for sensor pairs: overlap) and the contact hook kept the
    /// contact.
    pub touching: bool,
    pub sensor: bool,
    /// The pair filter refused the pair (see `hooks`): the narrow phase gives it no manifold.
    /// Never touching, except between the call that refused it and the next step, which ends
    /// it (one of its ends is then marked moved).
    pub refused: bool,
}

impl World {
    /// Which end of `pair` is `slot` (0 or 1).
    #[inline]
    pub(super) fn end_of(pair: &PairSlot, slot: u32) -> usize {
        usize::from(pair.ids[1] == slot)
    }

    /// Takes a pair slot (the free list's last first, else a new one) and links it into both
    /// colliders' lists, with the pair filter's answer. The caller has put the pair into
    /// `pair_table` under that slot.
    pub(super) fn create_pair(&mut self, a: u32, b: u32, sensor: bool) {
        let slot = PairSlot {
            ids: [a, b],
            next: [self.cols.pair_head[a as usize], self.cols.pair_head[b as usize]],
            prev: [NONE, NONE],
            contact: NONE,
            touching: false,
            sensor,
            refused: !self.filter_allows(a, b),
        };
        let p = match self.free_pairs.pop() {
            Some(p) => {
                self.pairs[p as usize] = slot;
                p
            }
            None => {
                self.pairs.push(slot);
                (self.pairs.len() - 1) as u32
            }
        };
        for (k, &c) in [a, b].iter().enumerate() {
            let head = self.cols.pair_head[c as usize];
            if head != NONE {
                let h = &mut self.pairs[head as usize];
                let end = Self::end_of(h, c);
                h.prev[end] = p;
            }
            self.cols.pair_head[c as usize] = p;
            debug_assert_eq!(self.pairs[p as usize].next[k], head);
        }
        debug_assert_eq!(self.pair_table.get([a, b]), Some(p));
    }

    /// Unlinks and frees a pair slot; a touching pair ends with an event (into the pending list
    /// when called from `remove`, so that it is reported with the next step).
    pub(super) fn destroy_pair(&mut self, p: u32, pending: bool) {
        self.pair_table.remove(self.pairs[p as usize].ids);
        self.free_pair(p, pending);
    }

    /// `destroy_pair` for a pair already taken out of `pair_table`.
    pub(super) fn free_pair(&mut self, p: u32, pending: bool) {
        let pair = self.pairs[p as usize];
        if pair.touching {
            self.end_touch(p);
            if self.reports(&pair) {
                let ev = self.make_event(&pair, false);
                if pending { self.pending_events.push(ev) } else { self.events.push(ev) }
            }
        }
        for (k, &c) in pair.ids.iter().enumerate() {
            let (prev, next) = (pair.prev[k], pair.next[k]);
            if prev == NONE {
                self.cols.pair_head[c as usize] = next;
            } else {
                let pp = &mut self.pairs[prev as usize];
                let end = Self::end_of(pp, c);
                pp.next[end] = next;
            }
            if next != NONE {
                let np = &mut self.pairs[next as usize];
                let end = Self::end_of(np, c);
                np.prev[end] = prev;
            }
        }
        self.pairs[p as usize].ids = [NONE, NONE];
        self.free_pairs.push(p);
    }

    /// Drops a pair's contact entry (swap-remove, fixing the moved entry's back-reference).
    pub(super) fn end_touch(&mut self, p: u32) {
        let pair = &mut self.pairs[p as usize];
        pair.touching = false;
        let c = std::mem::replace(&mut pair.contact, NONE);
        if c != NONE {
            self.contacts.swap_remove(c as usize);
            self.contact_pair.swap_remove(c as usize);
            if let Some(&moved) = self.contact_pair.get(c as usize) {
                self.pairs[moved as usize].contact = c;
            }
        }
    }

    /// The event of `pair` starting (`began`) or stopping to touch.
    pub(super) fn make_event(&self, pair: &PairSlot, began: bool) -> Event {
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
    pub(super) fn reports(&self, pair: &PairSlot) -> bool {
        let off = if pair.sensor { flags::NO_SENSOR_EVENTS } else { flags::NO_CONTACT_EVENTS };
        (self.cols.flags[pair.ids[0] as usize] | self.cols.flags[pair.ids[1] as usize]) & off == 0
    }

    /// `make_event` into this step's events, unless the colliders' switches silence it.
    pub(super) fn push_event(&mut self, pair: &PairSlot, began: bool) {
        if self.reports(pair) {
            let ev = self.make_event(pair, began);
            self.events.push(ev);
        }
    }

    /// A pair started or stopped touching: add or drop its contact, raise its event.
    pub(super) fn flip_touching(&mut self, p: u32, m: Manifold) {
        let pair = self.pairs[p as usize];
        if pair.touching {
            self.end_touch(p);
            self.push_event(&pair, false);
            return;
        }
        self.pairs[p as usize].touching = true;
        if !pair.sensor {
            self.pairs[p as usize].contact = self.contacts.len() as u32;
            self.contacts.push(Contact { a: self.cols.id(pair.ids[0]), b: self.cols.id(pair.ids[1]), manifold: m });
            self.contact_pair.push(p);
        }
        self.push_event(&pair, true);
    }

    /// Whether two colliders may form a pair: both enabled, not both static, the config's
    /// sensor rules allow it, and their filters agree. The one statement of the rule, for the
    /// step's pair search, `validate` and the snapshot reader.
    pub(super) fn may_pair(cols: &Columns, config: &WorldConfig, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
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
    pub(super) fn pair_fits(cols: &Columns, config: &WorldConfig, a: u32, b: u32, sensor: bool) -> bool {
        Self::may_pair(cols, config, a, b)
            && sensor == ((cols.flags[a as usize] | cols.flags[b as usize]) & flags::SENSOR != 0)
    }
}
