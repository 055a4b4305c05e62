//! The criterion benches' per-item timing loop: one batch of inputs answered `iters` times.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Runs `f` on every item of `items`, `iters` times over, and returns the time per item (the
/// batch time divided by its length): criterion's `iter_custom` body for benchmarks whose
/// inputs vary within a batch, so that no single case's branch pattern is learnt. The results
/// are summed into a black box so that no call is optimised away.
pub fn per_item<T>(iters: u64, items: &[T], mut f: impl FnMut(&T) -> f32) -> Duration {
    let start = Instant::now();
    let mut acc = 0.0f32;
    for _ in 0..iters {
        for x in items {
            acc += f(black_box(x));
        }
    }
    black_box(acc);
    start.elapsed() / items.len().max(1) as u32
}
