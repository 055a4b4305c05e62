//! `World::validate`: the world's pair bookkeeping checked against a recomputation, for tests;
//! with the `validate` feature, the world runs it itself after every step and mutation.

use super::World;
use super::pairs::{PairIndex, slots_of};
use crate::broad::{Pair, same_pairs, sweep_pairs};
use crate::math::{Aabb, Pose};
use crate::storage::{ColliderSlot, flags};

impl World {
    /// Checks the world's internal bookkeeping against an independent recomputation; tests that
    /// mutate worlds at random call it after every step.
    ///
    /// - The candidate pairs are exactly the allowed pairs of colliders whose fat boxes overlap,
    ///   recomputed by a sort-and-sweep over the fat boxes (a pair the broad-phase update failed
    ///   to end changes no contact, so only this check sees it).
    /// - Every live pair entry is in the pair table under its ids and in both colliders' pair
    ///   lists, which are well linked; free entries are in the free list.
    /// - The contacts array holds exactly the touching non-sensor pairs, each under its ids; a
    ///   pair refused by the pair filter touches only until the next step (an end is moved).
    /// - The movers' broad phase and the static tree pass their own `validate`.
    /// - Every static's welded edges are what a recomputation from the statics gives (when no
    ///   static changed since the last step), and the weld records add up.
    ///
    /// O(n log n + pairs). Holds between calls of the public API, steps included. Built with the
    /// `validate` cargo feature, the world checks it itself at the end of every step and of
    /// every call that changes it, and panics with the message of the first broken invariant.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    #[doc(hidden)]
    pub fn validate(&self) -> Result<(), String> {
        let cols = &self.cols;
        let mut live = Vec::new();
        let mut free = 0;
        for (p, entry) in self.pairs.iter().enumerate() {
            let p = PairIndex::from_index(p);
            if entry.is_free() {
                free += 1;
                continue;
            }
            let [a, b] = entry.ids;
            let alive = |s: ColliderSlot| cols.alive.get(s.index()).copied().unwrap_or(false);
            if a >= b || !alive(a) || !alive(b) {
                return Err(format!("pair entry {p}: ids {a}, {b} not two live slots in order"));
            }
            if self.pair_table.get(entry.key()) != Some(p) {
                return Err(format!("pair entry {p} ({a}, {b}) is not in the pair table under its index"));
            }
            let owns_contact = entry.touching && !entry.sensor;
            if owns_contact == entry.contact.is_null() {
                return Err(format!(
                    "pair entry {p}: touching {} sensor {} but contact {}",
                    entry.touching, entry.sensor, entry.contact
                ));
            }
            let moved = |s: ColliderSlot| cols.flags[s.index()] & flags::MOVED != 0;
            let refresh = |s: ColliderSlot| cols.flags[s.index()] & flags::REFRESH != 0;
            if !refresh(a) && !refresh(b) && !Self::pair_fits(cols, &self.config, a, b, entry.sensor) {
                return Err(format!("pair entry {p}: excluded by its colliders' flags, or of the wrong kind"));
            }
            if (refresh(a) && !moved(a)) || (refresh(b) && !moved(b)) {
                return Err(format!("pair entry {p}: an end to refresh is not marked moved"));
            }
            if entry.refused && entry.touching && !moved(a) && !moved(b) {
                return Err(format!("pair entry {p}: refused and touching, and no end is marked moved"));
            }
            if !entry.contact.is_null() {
                let c = entry.contact.index();
                let ids_match = self
                    .contacts
                    .get(c)
                    .is_some_and(|k| k.a == cols.id(a) && k.b == cols.id(b) && self.contact_pair[c] == p);
                if !ids_match {
                    return Err(format!("pair entry {p}: contact {c} belongs to another pair"));
                }
            }
            live.push(entry.key());
        }
        if free != self.free_pairs.len() || self.pair_table.len() != live.len() {
            return Err(format!(
                "{free} free pair entries, {} in the free list; {} live pairs, {} in the table",
                self.free_pairs.len(),
                live.len(),
                self.pair_table.len()
            ));
        }
        if self.contacts.len() != self.contact_pair.len()
            || self.contacts.len() != self.contact_witness.len()
            || self
                .contact_pair
                .iter()
                .enumerate()
                .any(|(c, &p)| self.pairs.get(p.index()).is_none_or(|entry| entry.contact.index() != c))
        {
            return Err("contacts and their owning pairs disagree".into());
        }
        self.validate_lists(live.len())?;
        self.validate_bullets()?;
        self.validate_welds()?;

        // A collider whose flags or filter changed since the last step keeps its old pairs
        // until the step refreshes them.
        let settled = |ids: &Pair| slots_of(*ids).iter().all(|&s| cols.flags[s.index()] & flags::REFRESH == 0);
        live.retain(settled);
        live.sort_unstable();
        let mut expected = self.fat_box_pairs();
        expected.retain(settled);
        same_pairs(&live, &expected, "candidate pairs against the allowed fat-box overlaps")?;
        self.movers.validate().map_err(|e| format!("movers' broad phase: {e}"))?;
        self.tree.validate().map_err(|e| format!("static tree: {e}"))
    }

    /// With the `validate` feature (Box2D's `B2_VALIDATE`), runs [`World::validate`] and panics
    /// with its message when it fails; without it, nothing (compiled out). Called at the end of
    /// every step and of every public call that changes the world (inserts, removals, setters,
    /// hooks, origin shifts, stored impulses, restores), so that a test run with the feature
    /// stops at the first call that breaks an invariant; `after` names that call.
    #[inline]
    pub(super) fn validate_if_enabled(&self, after: &str) {
        #[cfg(feature = "validate")]
        if let Err(e) = self.validate() {
            panic!("World::validate failed after {after}: {e}");
        }
        let _ = after;
    }

    /// The bullet count matches the flags, and only bullets have a sweep start.
    fn validate_bullets(&self) -> Result<(), String> {
        let cols = &self.cols;
        let mut bullets = 0;
        for s in (0..cols.alive.len()).filter(|&s| cols.alive[s]) {
            if cols.flags[s] & flags::BULLET != 0 {
                bullets += 1;
                if !cols.sweep_start[s].is_valid() {
                    return Err(format!("slot {s}: a bullet's sweep start is not a valid pose"));
                }
            } else if cols.sweep_start[s] != Pose::IDENTITY {
                return Err(format!("slot {s}: a collider that is not a bullet has a sweep start"));
            }
        }
        if bullets != cols.bullet_count {
            return Err(format!("{bullets} live bullets, counted {}", cols.bullet_count));
        }
        Ok(())
    }

    /// Every collider's pair list holds only its own pairs, with `prev` links mirroring `next`,
    /// and the lists together hold every live pair twice.
    fn validate_lists(&self, live_pairs: usize) -> Result<(), String> {
        let cols = &self.cols;
        let mut entries = 0;
        for s in (0..cols.alive.len()).map(ColliderSlot::from_index) {
            if !cols.alive[s.index()] {
                continue;
            }
            let (mut p, mut prev) = (cols.pair_head[s.index()], PairIndex::NULL);
            while !p.is_null() {
                let Some(entry) = self.pairs.get(p.index()).filter(|entry| entry.ids.contains(&s)) else {
                    return Err(format!("collider {s}'s pair list reaches entry {p}, not one of its pairs"));
                };
                let end = Self::end_of(entry, s);
                if entry.prev[end] != prev {
                    return Err(format!("collider {s}'s pair list: entry {p} links back to {}", entry.prev[end]));
                }
                entries += 1;
                if entries > 2 * live_pairs {
                    return Err(format!("collider {s}'s pair list is longer than all pairs"));
                }
                (prev, p) = (p, entry.next[end]);
            }
        }
        if entries != 2 * live_pairs {
            return Err(format!("the pair lists hold {entries} entries for {live_pairs} pairs"));
        }
        Ok(())
    }

    /// The allowed pairs of colliders in the structures (stepped at least once) whose fat boxes
    /// overlap, ascending, by a sort-and-sweep on x.
    fn fat_box_pairs(&self) -> Vec<Pair> {
        let cols = &self.cols;
        let mut boxes: Vec<(Aabb, u32)> = (0..cols.alive.len() as u32)
            .filter(|&s| cols.is_placed(s as usize))
            .map(|s| (cols.fat[s as usize], s))
            .collect();
        sweep_pairs(&mut boxes, |a, b| Self::may_pair(cols, &self.config, ColliderSlot::new(a), ColliderSlot::new(b)))
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    use glam::Vec2;

    use crate::math::Pose;
    use crate::shape::Shape;
    use crate::world::{ColliderDesc, PairIndex, World};

    #[test]
    fn the_validate_feature_decides_whether_a_broken_world_panics() {
        let mut w = World::new();
        for x in [0.0, 0.9] {
            w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(x, 0.0))))
                .unwrap();
        }
        w.step();
        assert_eq!(w.contacts().len(), 1);
        w.validate_if_enabled("a sound world");
        // A live pair entry on the free list: the next pair made would overwrite it.
        w.free_pairs.push(PairIndex::new(0));
        assert!(w.validate().is_err());
        let panicked = catch_unwind(AssertUnwindSafe(|| w.validate_if_enabled("the test's corruption"))).is_err();
        assert_eq!(panicked, cfg!(feature = "validate"));
    }
}
