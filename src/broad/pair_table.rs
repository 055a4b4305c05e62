//! An open-addressing hash table from an id pair to a small `Copy` value (a `u32`, a typed
//! index), built for churn.
//!
//! The persistent broad phase adds and removes pairs every step, so the table must not decay
//! under millions of insert/remove cycles. It uses linear probing over a power-of-two array and
//! deletes by *backward shift* (Knuth 6.4 algorithm R): after a removal the following entries of
//! the probe run are moved back into the hole, so there are no tombstones and a probe sequence
//! never gets longer than the live keys make it.
//!
//! ```text
//!   keys: [ k0 | EMPTY | k2 | k3 | EMPTY | ... ]   u64 per bucket: pair[0] << 32 | pair[1]
//!   vals: [ v0 |   -   | v2 | v3 |   -   | ... ]   a V per bucket
//! ```
//! Keys and values live in separate arrays so that a probe walks 8-byte keys only.
//!
//! * Load factor at most 5/8: a miss under linear probing inspects `(1 + 1 / (1 - load)²) / 2`
//!   buckets on average (Knuth 6.4), so a higher limit saves memory at the price of longer
//!   probes; at 5/8 a miss costs about 4 buckets.
//! * No allocation once the capacity suffices ([`PairTable::reserve`]); [`PairTable::clear`]
//!   keeps the capacity.
//! * Iteration is in bucket order and the hash has no random seed, so the same sequence of
//!   operations yields the same iteration order on every run and every machine.
//!
//! The key `[u32::MAX, u32::MAX]` is reserved as the empty marker; it is never a canonical pair
//! (`pair[0] < pair[1]`), which is what the broad phases store.

use bytemuck::Zeroable;

use crate::broad::Pair;

/// The empty-bucket marker, `[u32::MAX, u32::MAX]` packed.
const EMPTY: u64 = u64::MAX;

/// Smallest non-zero bucket count: 16 keys, two cache lines. Smaller only adds rehashes while a
/// table is young; larger wastes memory in tables that stay small.
const MIN_CAPACITY: usize = 16;

#[inline]
pub(crate) fn pack(p: Pair) -> u64 {
    (u64::from(p[0]) << 32) | u64::from(p[1])
}

#[inline]
pub(crate) fn unpack(k: u64) -> Pair {
    [(k >> 32) as u32, k as u32]
}

/// The SplitMix64 finaliser: every input bit affects every output bit, so the ids' low bits
/// (small dense integers, such as the world's collider slots) still spread over the whole table.
/// The top bits are used.
#[inline]
fn mix(k: u64) -> u64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Open-addressing hash table keyed by an id pair, values of type `V`. See the module
/// documentation.
#[derive(Clone, Debug)]
pub struct PairTable<V = u32> {
    /// Packed keys, `EMPTY` for a free bucket. Length is zero or a power of two.
    keys: Vec<u64>,
    /// Values, meaningful where `keys` is not `EMPTY`.
    vals: Vec<V>,
    /// Number of occupied buckets.
    len: usize,
    /// `64 - log2(capacity)`: the home bucket is the top bits of the mixed key.
    shift: u32,
}

impl<V> Default for PairTable<V> {
    fn default() -> Self {
        Self { keys: Vec::new(), vals: Vec::new(), len: 0, shift: 0 }
    }
}

impl<V: Copy + Zeroable> PairTable<V> {
    /// An empty table; allocates nothing until the first insertion.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table that can hold `n` pairs without reallocating.
    #[must_use]
    #[cfg(test)]
    pub fn with_capacity(n: usize) -> Self {
        let mut t = Self::new();
        t.reserve(n);
        t
    }

    /// Number of stored pairs.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no pair is stored.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of pairs the table holds before it must grow.
    #[inline]
    #[must_use]
    pub fn capacity(&self) -> usize {
        Self::max_load(self.keys.len())
    }

    /// The most entries a bucket array of `buckets` may hold (load factor 5/8).
    #[inline]
    fn max_load(buckets: usize) -> usize {
        buckets / 8 * 5
    }

    #[inline]
    fn mask(&self) -> usize {
        self.keys.len() - 1
    }

    #[inline]
    fn home(&self, k: u64) -> usize {
        (mix(k) >> self.shift) as usize
    }

    /// Makes room for `additional` more pairs without reallocating.
    pub fn reserve(&mut self, additional: usize) {
        let need = self.len.saturating_add(additional);
        if need <= self.capacity() {
            return;
        }
        let mut buckets = self.keys.len().max(MIN_CAPACITY);
        while Self::max_load(buckets) < need {
            buckets *= 2;
        }
        self.rehash(buckets);
    }

    /// Moves every entry into a fresh bucket array of `buckets` entries (a power of two).
    fn rehash(&mut self, buckets: usize) {
        debug_assert!(buckets.is_power_of_two() && Self::max_load(buckets) >= self.len);
        let old_keys = std::mem::replace(&mut self.keys, vec![EMPTY; buckets]);
        let old_vals = std::mem::replace(&mut self.vals, vec![V::zeroed(); buckets]);
        self.shift = 64 - buckets.trailing_zeros();
        let mask = self.mask();
        for (k, v) in old_keys.into_iter().zip(old_vals) {
            if k != EMPTY {
                let mut i = self.home(k);
                while self.keys[i] != EMPTY {
                    i = (i + 1) & mask;
                }
                self.keys[i] = k;
                self.vals[i] = v;
            }
        }
    }

    /// The bucket holding `k`, if any.
    #[inline]
    fn find(&self, k: u64) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let mask = self.mask();
        let mut i = self.home(k);
        loop {
            let s = self.keys[i];
            if s == k {
                return Some(i);
            }
            if s == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `value` under `key`; returns the previous value, or `None` when the key is new.
    ///
    /// # Panics
    /// If `key` is the reserved `[u32::MAX, u32::MAX]` (a caller bug: never a canonical pair).
    #[inline]
    pub fn insert(&mut self, key: Pair, value: V) -> Option<V> {
        let k = pack(key);
        assert!(k != EMPTY, "PairTable: the key [u32::MAX, u32::MAX] is reserved");
        if self.len + 1 > self.capacity() {
            self.reserve(1);
        }
        let mask = self.mask();
        let mut i = self.home(k);
        loop {
            let s = self.keys[i];
            if s == k {
                return Some(std::mem::replace(&mut self.vals[i], value));
            }
            if s == EMPTY {
                self.keys[i] = k;
                self.vals[i] = value;
                self.len += 1;
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Removes `key`; returns its value if it was present.
    #[inline]
    pub fn remove(&mut self, key: Pair) -> Option<V> {
        let i = self.find(pack(key))?;
        let value = self.vals[i];
        self.vacate(i);
        Some(value)
    }

    /// Empties bucket `i` by backward shift: each later entry of the probe run moves into the hole
    /// when the hole lies between its home bucket and its current bucket (cyclically), so every key
    /// stays reachable from its home without tombstones.
    fn vacate(&mut self, i: usize) {
        let mask = self.mask();
        let mut hole = i;
        let mut j = (i + 1) & mask;
        loop {
            let k = self.keys[j];
            if k == EMPTY {
                break;
            }
            let home = self.home(k);
            // Distance from home to j versus from the hole to j: the entry may move back to the
            // hole only if that does not put it before its home.
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.keys[hole] = k;
                self.vals[hole] = self.vals[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.keys[hole] = EMPTY;
        self.len -= 1;
    }

    /// The value stored under `key`.
    #[inline]
    #[must_use]
    pub fn get(&self, key: Pair) -> Option<V> {
        self.find(pack(key)).map(|i| self.vals[i])
    }

    /// A mutable reference to the value stored under `key`.
    #[inline]
    #[cfg(test)]
    pub fn get_mut(&mut self, key: Pair) -> Option<&mut V> {
        self.find(pack(key)).map(|i| &mut self.vals[i])
    }

    /// Whether `key` is stored.
    #[inline]
    #[must_use]
    pub fn contains(&self, key: Pair) -> bool {
        self.find(pack(key)).is_some()
    }

    /// Every `(pair, value)`, in bucket order (deterministic for a given operation sequence).
    pub fn iter(&self) -> impl Iterator<Item = (Pair, V)> + '_ {
        self.keys.iter().zip(&self.vals).filter(|(k, _)| **k != EMPTY).map(|(&k, &v)| (unpack(k), v))
    }

    /// Keeps only the entries for which `keep` returns `true`, in one pass over the buckets.
    ///
    /// `keep` sees every entry at least once; an entry may be shown twice when a removal shifts
    /// an already-kept entry of a wrapped-around probe run, so `keep` must give the same answer
    /// for the same entry. Each removed entry is removed (and was last shown) exactly once.
    pub fn retain(&mut self, mut keep: impl FnMut(Pair, V) -> bool) {
        let mut i = 0;
        while i < self.keys.len() {
            let k = self.keys[i];
            // A removal shifts a later entry into bucket i, which must be examined too; entries
            // that are shifted never come from buckets not yet visited into visited ones, except
            // kept entries of a run wrapping past the end, which are simply shown again.
            if k != EMPTY && !keep(unpack(k), self.vals[i]) {
                self.vacate(i);
            } else {
                i += 1;
            }
        }
    }

    /// Removes every entry, keeping the capacity.
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.keys.fill(EMPTY);
        self.len = 0;
    }

    /// Checks the table's invariants: `len` matches the occupied buckets, the load factor holds,
    /// and every key is reachable from its home bucket (no empty bucket between home and the key)
    /// and stored once.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn validate(&self) -> Result<(), String> {
        if self.keys.len() != self.vals.len() {
            return Err("keys and values differ in length".into());
        }
        if self.keys.is_empty() {
            return if self.len == 0 { Ok(()) } else { Err(format!("len {} without buckets", self.len)) };
        }
        if !self.keys.len().is_power_of_two() || self.shift != 64 - self.keys.len().trailing_zeros() {
            return Err("capacity is not a power of two matching the shift".into());
        }
        let occupied = self.keys.iter().filter(|&&k| k != EMPTY).count();
        if occupied != self.len {
            return Err(format!("len {} but {} occupied buckets", self.len, occupied));
        }
        if self.len > self.capacity() {
            return Err(format!("len {} above the load limit {}", self.len, self.capacity()));
        }
        let mask = self.mask();
        for (i, &k) in self.keys.iter().enumerate() {
            if k == EMPTY {
                continue;
            }
            let mut j = self.home(k);
            while j != i {
                if self.keys[j] == EMPTY {
                    return Err(format!("key {:?} at bucket {i} unreachable: bucket {j} is empty", unpack(k)));
                }
                if self.keys[j] == k {
                    return Err(format!("key {:?} stored twice (buckets {j} and {i})", unpack(k)));
                }
                j = (j + 1) & mask;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::SplitMix64;
    use std::collections::HashMap;

    /// `next_u64() % n`: the draw these seeded tests were written with (not [`SplitMix64::below`],
    /// which maps a float and so gives other sequences).
    fn below_mod(rng: &mut SplitMix64, n: u64) -> u64 {
        rng.next_u64() % n
    }

    fn check_same(t: &PairTable, m: &HashMap<Pair, u32>) {
        t.validate().unwrap();
        assert_eq!(t.len(), m.len());
        let mut a: Vec<(Pair, u32)> = t.iter().collect();
        let mut b: Vec<(Pair, u32)> = m.iter().map(|(&k, &v)| (k, v)).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn pair_table_random_ops_match_hashmap() {
        for seed in 0..6u64 {
            let mut rng = SplitMix64::new(seed);
            let mut t = PairTable::new();
            let mut m: HashMap<Pair, u32> = HashMap::new();
            // A small id range forces hits, updates and long runs of collisions; a big one
            // spreads keys. Both phases of growth and shrinking by removal are crossed.
            let ids = if seed % 2 == 0 { 40 } else { 5000 };
            for step in 0..6000 {
                let a = below_mod(&mut rng, ids) as u32;
                let b = below_mod(&mut rng, ids) as u32;
                let key = [a, b];
                let bias = if (step / 1500) % 2 == 0 { 6 } else { 3 };
                match below_mod(&mut rng, 10) {
                    r if r < bias => {
                        let v = rng.next_u64() as u32;
                        assert_eq!(t.insert(key, v), m.insert(key, v));
                    }
                    r if r < 9 => assert_eq!(t.remove(key), m.remove(&key)),
                    _ => {
                        assert_eq!(t.get(key), m.get(&key).copied());
                        assert_eq!(t.contains(key), m.contains_key(&key));
                        if let Some(v) = t.get_mut(key) {
                            *v = v.wrapping_add(1);
                            *m.get_mut(&key).unwrap() = *v;
                        }
                    }
                }
                t.validate().unwrap();
                if step % 97 == 0 {
                    check_same(&t, &m);
                }
            }
            check_same(&t, &m);
        }
    }

    #[test]
    fn pair_table_churn_keeps_probe_runs_short() {
        // Regression guard for tombstone-style decay: a million insert/remove cycles at a steady
        // population must leave the table exactly as valid and as large as at the start.
        let mut t = PairTable::with_capacity(1000);
        let cap = t.capacity();
        let mut rng = SplitMix64::new(7);
        let mut live: Vec<Pair> = Vec::new();
        for _ in 0..1000 {
            let k = [rng.next_u64() as u32 >> 1, rng.next_u64() as u32 >> 1];
            if t.insert(k, 1).is_none() {
                live.push(k);
            }
        }
        for _ in 0..200_000 {
            let i = below_mod(&mut rng, live.len() as u64) as usize;
            assert_eq!(t.remove(live[i]), Some(1));
            let k = [rng.next_u64() as u32 >> 1, rng.next_u64() as u32 >> 1];
            if t.insert(k, 1).is_none() {
                live[i] = k;
            } else {
                live.swap_remove(i);
            }
        }
        t.validate().unwrap();
        assert_eq!(t.capacity(), cap);
        assert_eq!(t.len(), live.len());
        assert!(live.iter().all(|&k| t.contains(k)));
    }

    #[test]
    fn pair_table_retain_removes_exactly_the_rejected() {
        for seed in 0..20u64 {
            let mut rng = SplitMix64::new(seed);
            let mut t = PairTable::new();
            let mut m: HashMap<Pair, u32> = HashMap::new();
            for _ in 0..below_mod(&mut rng, 300) {
                let k = [below_mod(&mut rng, 60) as u32, below_mod(&mut rng, 60) as u32];
                t.insert(k, k[0]);
                m.insert(k, k[0]);
            }
            let drop_id = below_mod(&mut rng, 60) as u32;
            let mut removed = Vec::new();
            t.retain(|p, v| {
                assert_eq!(v, p[0]);
                let keep = p[0] != drop_id && p[1] != drop_id;
                if !keep {
                    removed.push(p);
                }
                keep
            });
            m.retain(|p, _| p[0] != drop_id && p[1] != drop_id);
            check_same(&t, &m);
            let before = removed.len();
            removed.sort_unstable();
            removed.dedup();
            assert_eq!(before, removed.len(), "an entry was removed twice");
        }
    }

    #[test]
    fn pair_table_clear_keeps_capacity_and_order_is_deterministic() {
        let build = || {
            let mut t = PairTable::new();
            let mut rng = SplitMix64::new(3);
            for _ in 0..500 {
                t.insert([below_mod(&mut rng, 100) as u32, below_mod(&mut rng, 100) as u32], 0);
                t.remove([below_mod(&mut rng, 100) as u32, below_mod(&mut rng, 100) as u32]);
            }
            t
        };
        let a: Vec<_> = build().iter().collect();
        let b: Vec<_> = build().iter().collect();
        assert_eq!(a, b);
        let mut t = build();
        let cap = t.capacity();
        t.clear();
        assert!(t.is_empty() && t.iter().next().is_none());
        assert_eq!(t.capacity(), cap);
        t.validate().unwrap();
        assert_eq!(t.get([1, 2]), None);
        assert_eq!(PairTable::<u32>::new().get([0, 1]), None);
    }
}
