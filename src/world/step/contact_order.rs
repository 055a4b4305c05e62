//! The tail of phase (c): the contacts array put back in collider order once it has drifted.
//!
//! The narrow phase walks the contacts array in order and reads both colliders' columns (pose,
//! shape, box, flags) for each. In collider order those reads move forward through the columns
//! a few slots at a time and hit the lines the last contacts loaded; in the order contacts
//! began they jump across the whole world, and a pile of a few thousand boxes no longer runs
//! from the core's own cache. Contacts begin and end in any order (an ended contact's place is
//! taken by the last one, and new ones are appended), so the array drifts; once a settled scene
//! has drifted far enough, one sort pays for itself within a few dozen steps.

use crate::world::pairs::ContactIndex;
use crate::world::{Contact, World};

/// Neighbouring contacts sampled to judge the order.
const SAMPLES: usize = 128;

impl World {
    /// Sorts the contacts by their colliders' slots (`a`, then `b`) when at least an eighth of
    /// a sample of neighbours stand in the wrong order, and when this step's `churn` (contacts
    /// begun or ended in the narrow phase) was below 1/64 of them. A scene where contacts come
    /// and go by the hundred would lose its order again within steps, and pay for a sort each
    /// time; a settled one keeps it. Both tests read only the world's own state, so when the
    /// sort happens depends on the input alone, and a restored snapshot sorts when the original
    /// does.
    ///
    /// The permutation is applied in place, cycle by cycle, to the three parallel arrays, and
    /// each moved contact's pair entry learns its new index.
    pub(super) fn order_contacts(&mut self, churn: usize) {
        let key = |c: &Contact| u64::from(c.a.index()) << 32 | u64::from(c.b.index());
        let n = self.contacts.len();
        if n < 2 * SAMPLES || churn * 64 > n {
            return;
        }
        let (stride, c) = ((n - 1) / SAMPLES, &self.contacts);
        let descents = (0..SAMPLES).filter(|k| key(&c[k * stride + 1]) < key(&c[k * stride])).count();
        if descents * 8 < SAMPLES {
            return;
        }
        let order = &mut self.scratch.contact_order;
        order.clear();
        order.extend(self.contacts.iter().enumerate().map(|(i, c)| (key(c), i as u32)));
        order.sort_unstable();
        // `order[i].1` is the old place of the contact that belongs at `i`; a visited place is
        // marked with `u32::MAX`.
        for start in 0..n {
            if order[start].1 == u32::MAX {
                continue;
            }
            let held = (self.contacts[start], self.contact_pair[start], self.contact_witness[start]);
            let mut to = start;
            loop {
                let from = std::mem::replace(&mut order[to].1, u32::MAX) as usize;
                if from == start {
                    (self.contacts[to], self.contact_pair[to], self.contact_witness[to]) = held;
                } else {
                    self.contacts[to] = self.contacts[from];
                    self.contact_pair[to] = self.contact_pair[from];
                    self.contact_witness[to] = self.contact_witness[from];
                }
                self.pairs[self.contact_pair[to].index()].contact = ContactIndex::from_index(to);
                if from == start {
                    break;
                }
                to = from;
            }
        }
    }
}
