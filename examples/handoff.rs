//! What a parallel pass pays on this machine for handing work to another thread, and whether its
//! two CPUs share a core: the measurements behind `par::on_worker` (BENCHMARKS.md, "The step's
//! helper kept awake").
//!
//! ```text
//! cargo run --release --example handoff            # all three
//! cargo run --release --example handoff -- join    # rayon's join of two 200 µs halves
//! cargo run --release --example handoff -- passes  # four joins after serial work, with and without the helper
//! cargo run --release --example handoff -- share   # two threads side by side against one alone
//! ```
//!
//! Work is a spin on the clock, so it takes the same time on either thread whatever the other
//! does; what the timings show beyond it is the hand-off.

use std::hint::black_box;
use std::time::{Duration, Instant};

use sapwood::internal::on_worker;

/// Spins for `d`.
fn work(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Median, 90th percentile and maximum of `v`, in µs.
fn summary(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!("median {:.0}, p90 {:.0}, max {:.0} µs", at(0.5), at(0.9), at(1.0))
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool of two threads")
}

/// A join of two 200 µs halves: its wall time and how late the other thread starts its half,
/// back to back and after the other thread has been idle a while.
fn join() {
    let pool = pool();
    let half = Duration::from_micros(200);
    for idle in [Duration::ZERO, Duration::from_micros(50), Duration::from_millis(3)] {
        let (mut walls, mut lates) = (Vec::new(), Vec::new());
        pool.install(|| {
            for _ in 0..300 {
                work(idle);
                let t = Instant::now();
                let ((), started) = rayon::join(|| work(half), || (Instant::now(), work(half)).0);
                walls.push(t.elapsed().as_secs_f64() * 1e6);
                lates.push((started - t).as_secs_f64() * 1e6);
            }
        });
        println!(
            "join of two 200 µs halves after {idle:?} idle: {}; the other half starts {}",
            summary(walls),
            summary(lates)
        );
    }
}

/// Four joins of two `half`-long halves, each after `serial` of work on one thread (a step's
/// passes and the serial parts between them), as rayon runs them and inside `on_worker`.
fn passes() {
    let pool = pool();
    let half = Duration::from_micros(200);
    for serial in [Duration::from_micros(100), Duration::from_micros(300)] {
        let run = || {
            for _ in 0..4 {
                work(serial);
                rayon::join(|| work(half), || work(half));
            }
        };
        let ideal = 4.0 * (serial + half).as_secs_f64() * 1e6;
        for helped in [false, true] {
            let mut walls = Vec::new();
            pool.install(|| {
                for _ in 0..200 {
                    let t = Instant::now();
                    if helped {
                        on_worker(run)
                    } else {
                        run()
                    }
                    walls.push(t.elapsed().as_secs_f64() * 1e6);
                    work(Duration::from_millis(1));
                }
            });
            let how = if helped { "inside on_worker" } else { "plain" };
            println!("four joins after {serial:?} serial each, {how}: {} (ideal {ideal:.0})", summary(walls));
        }
    }
}

/// Runs `f` on one thread, then on two side by side, and prints its seconds or rate.
fn alone_and_together(name: &str, f: fn() -> f64) {
    let alone = f();
    let together: Vec<f64> = std::thread::scope(|s| {
        let handles = [s.spawn(f), s.spawn(f)];
        handles.map(|h| h.join().expect("a measuring thread")).to_vec()
    });
    println!("{name}: {alone:.3} alone, {:.3} and {:.3} side by side", together[0], together[1]);
}

/// Seconds for 16 independent multiply-add chains: one core's arithmetic.
fn chains() -> f64 {
    let t = Instant::now();
    let mut x = [1.0f64; 16];
    for _ in 0..20_000_000 {
        for v in &mut x {
            *v = *v * 0.999_999_9 + 1e-9;
        }
        black_box(&mut x);
    }
    t.elapsed().as_secs_f64()
}

/// GB/s reading 3 MiB 200 times: the caches' bandwidth.
fn bandwidth() -> f64 {
    let data = vec![1u64; 3 << 17];
    let t = Instant::now();
    let mut sum = 0u64;
    for _ in 0..200 {
        sum = sum.wrapping_add(black_box(&data).iter().fold(0, |a: u64, &b| a.wrapping_add(b)));
    }
    black_box(sum);
    (200 * data.len() * 8) as f64 / t.elapsed().as_secs_f64() / 1e9
}

/// ns a step of a pointer chase through 3 MiB in a random cycle: the caches' latency.
fn chase() -> f64 {
    let lines = (3 << 20) / 64;
    let mut order: Vec<usize> = (0..lines).collect();
    let mut rng = sapwood::internal::SplitMix64::new(7);
    for i in (1..lines).rev() {
        order.swap(i, rng.below(i + 1));
    }
    // One word a 64-byte line, each pointing at the next line of the cycle.
    let mut next = vec![0usize; lines * 8];
    for w in order.windows(2) {
        next[w[0] * 8] = w[1] * 8;
    }
    next[order[lines - 1] * 8] = order[0] * 8;
    let steps = 20_000_000;
    let t = Instant::now();
    let mut at = order[0] * 8;
    for _ in 0..steps {
        at = next[at];
    }
    black_box(at);
    t.elapsed().as_secs_f64() * 1e9 / steps as f64
}

fn main() {
    let only = std::env::args().nth(1);
    let wants = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if wants("join") {
        join();
    }
    if wants("passes") {
        passes();
    }
    if wants("share") {
        alone_and_together("16 multiply-add chains, s", chains);
        alone_and_together("reading 3 MiB 200 times, GB/s", bandwidth);
        alone_and_together("a pointer chase through 3 MiB, ns a line", chase);
    }
}
