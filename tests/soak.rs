//! The bounded soak for CI: random operations against a naive model with zero divergences, and
//! heap use flat after warm-up. The full 10M-operation run is `examples/soak.rs`; both share
//! `sapwood_support::soak`. About 20 s in release on a quiet machine (the op count is chosen for
//! that); debug builds run a tenth of it.

use sapwood_support::soak;

/// Counts live heap bytes, to show that churn does not grow the heap.
#[global_allocator]
static GLOBAL: soak::counting::Counting = soak::counting::Counting;

#[test]
fn soak_matches_naive_model_and_heap_stays_flat() {
    let ops = if cfg!(debug_assertions) { 100_000 } else { 1_000_000 };
    let cfg = soak::SoakConfig::new(ops);
    let r = soak::run(&cfg, &soak::counting::live_bytes);
    eprintln!(
        "soak: {} ops, {} steps, {} full checks, {} queries checked, {} events, max {} contacts, {:.1} s",
        r.ops, r.steps, r.full_checks, r.queries_checked, r.events, r.max_contacts, r.seconds
    );
    assert_eq!(r.divergences, 0, "divergences: {:#?}", r.first_divergences);
    // The run must have meant something.
    assert!(r.steps > ops / 20 && r.full_checks > r.steps / 10 && r.queries_checked > ops / 20);
    assert!(r.max_contacts > 20 && r.events > 1000 && r.removes > ops / 20 && r.bad_inputs > ops / 50);
    // Heap: the largest live size over the last quarter may not exceed the second quarter's by
    // more than 10% + 64 KiB (the population random-walks, so a little noise is expected; a leak
    // per operation would grow with the op count).
    let (q2, q4) = r.quarters(|s| s.heap_bytes);
    eprintln!("heap max, 2nd quarter {q2} B, last quarter {q4} B");
    assert!(q4 <= q2 + q2 / 10 + 65536, "heap grew: {q2} -> {q4}");
}
