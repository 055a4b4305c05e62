//! Double-precision draws from [`SplitMix64`] for the oracle tests (`narrow_oracle`, `concave`).

use glam::DVec2;

use crate::SplitMix64;

/// [`SplitMix64`] with the double-precision helpers these seeded tests were written with (its own
/// `range` and `below` are single precision and float-mapped, and would give other inputs).
pub struct F64Rng(SplitMix64);

impl F64Rng {
    pub fn new(seed: u64) -> Self {
        Self(SplitMix64::new(seed))
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0.next_f64()
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Log-uniform in `[lo, hi]`.
    pub fn log_range(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    pub fn dir(&mut self) -> DVec2 {
        let a = self.range(-std::f64::consts::PI, std::f64::consts::PI);
        DVec2::new(a.cos(), a.sin())
    }
}
