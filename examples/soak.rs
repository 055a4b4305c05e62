//! The full soak: `cargo run --release --example soak -- --ops 10000000 [--seed N] [--quiet]`.
//!
//! Random inserts, removals, pose and shape changes, steps, queries and refused bad input on a
//! world of 100–300 colliders, compared with a naive model as the run goes (see
//! `support/src/soak/mod.rs` for what is checked and how often), with the resident set size and
//! the live heap bytes sampled 100 times. Exits non-zero on any divergence or heap growth.

use sapwood_support::soak;

/// Counts live heap bytes (shared with `tests/soak.rs`).
#[global_allocator]
static GLOBAL: soak::counting::Counting = soak::counting::Counting;

fn main() {
    let mut cfg = soak::SoakConfig::new(10_000_000);
    cfg.verbose = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--ops" => cfg.ops = args.next().and_then(|v| v.parse().ok()).expect("--ops N"),
            "--seed" => cfg.seed = args.next().and_then(|v| v.parse().ok()).expect("--seed N"),
            "--quiet" => cfg.verbose = false,
            _ => panic!("usage: soak [--ops N] [--seed N] [--quiet]"),
        }
    }
    let r = soak::run(&cfg, &soak::counting::live_bytes);
    let (rss_warm, rss_max, rss_end) = r.memory(|s| s.rss_kib);
    let (heap_warm, heap_max, heap_end) = r.memory(|s| s.heap_bytes);
    let (q2, q4) = r.quarters(|s| s.heap_bytes);
    println!(
        "soak seed {:#x}: {} ops in {:.1} s ({:.2} M ops/s)",
        cfg.seed,
        r.ops,
        r.seconds,
        r.ops as f64 / r.seconds / 1e6
    );
    println!(
        "  inserts {}  removes {}  set_pose {}  set_shape {}  bad inputs {}  queries {} ({} checked against a linear scan)",
        r.inserts, r.removes, r.set_poses, r.set_shapes, r.bad_inputs, r.queries, r.queries_checked
    );
    println!(
        "  steps {}  brute-force checks {}  snapshot round trips {}  events {}  max contacts {}",
        r.steps, r.full_checks, r.snapshots, r.events, r.max_contacts
    );
    println!("  divergences {}", r.divergences);
    for d in &r.first_divergences {
        println!("    {d}");
    }
    println!("  RSS KiB:    after warm-up (10%) {rss_warm}, max after warm-up {rss_max}, end {rss_end}");
    println!("  heap bytes: after warm-up (10%) {heap_warm}, max after warm-up {heap_max}, end {heap_end}");
    println!("  heap max 2nd quarter {q2}, last quarter {q4}");
    let grew = q4 > q2 + q2 / 10 + 65536;
    if r.divergences > 0 || grew {
        println!("FAILED ({} divergences, heap grew: {grew})", r.divergences);
        std::process::exit(1);
    }
    println!("OK");
}
