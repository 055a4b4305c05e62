//! Items public only for this workspace's tests, benches and examples (see the crate root).

/// The step's hand-off to a pool worker with a helper kept awake (`examples/handoff.rs` times it
/// against plain rayon).
pub use crate::par::on_worker;

/// Sebastiano Vigna's SplitMix64: a tiny, fast, statistically sound generator whose whole state is
/// one `u64`, so any engine can reproduce a seeded scene bit for bit. The one random source of
/// the workspace: the library's unit tests use it from here, everything else through
/// `sapwood-support`, which builds the standard scenes from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    #[inline]
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in `[0, 1)`: the top 24 bits over `2^24`, so every value is exact in `f32`.
    #[inline]
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// A float in `[0, 1)`: the top 53 bits over `2^53`, so every value is exact in `f64`. Not
    /// used by the scenes; for callers (tests, oracles) that want double-precision inputs.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `U(lo, hi)`: `lo + (hi - lo) * next_f32()`, in `[lo, hi]` (the upper end only by
    /// rounding).
    #[inline]
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// An integer in `[0, n)` for `n > 0`, as `floor(next_f32() * n)` clamped to `n - 1` (the
    /// clamp guards against rounding for `n` above 2^24).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "below(0)");
        ((self.next_f32() as f64 * n as f64) as usize).min(n.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn splitmix_matches_reference_values() {
        // Reference outputs of Vigna's splitmix64.c for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
        let mut a = SplitMix64::new(42);
        let mut b = a;
        for _ in 0..100 {
            let (x, y) = (a.next_f32(), b.next_f32());
            assert_eq!(x, y);
            assert!((0.0..1.0).contains(&x));
        }
        let mut d = SplitMix64::new(0);
        assert_eq!(d.next_f64(), (0xE220_A839_7B1D_CDAF_u64 >> 11) as f64 / (1u64 << 53) as f64);
        for _ in 0..100 {
            assert!((0.0..1.0).contains(&d.next_f64()));
        }
        let mut c = SplitMix64::new(7);
        for n in [1usize, 2, 3, 10, 1000] {
            for _ in 0..200 {
                assert!(c.below(n) < n);
            }
        }
    }
}
