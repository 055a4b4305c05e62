//! A fixed workload for one pair of shape kinds, for instruction counts of the narrow phase.
//!
//! ```sh
//! cargo run --release --example kernel_profile -- rounded rounded 200
//! valgrind --tool=callgrind --toggle-collect='sapwood::collide::contact' \
//!     ./target/release/examples/kernel_profile rounded rounded 20
//! ```
//! Builds 2048 near-touching pairs of the two kinds (`polygon`: sharp hulls of 3–8 vertices,
//! `rounded`: rounded boxes and rounded hulls; sizes 0.05–5), placed by bisection on
//! `collide::overlaps` and then moved by up to ±5% of the touching distance, and runs
//! `collide::contact` over them the given number of times. Prints the touching count (a check
//! that a change kept the results) and the wall time per pair. Criterion's `benches/narrow.rs`
//! is the comparison with parry2d; this is the deterministic counterpart for callgrind.

use sapwood::{Pose, Shape, Vec2, collide};
use sapwood_support::SplitMix64;

fn dir(rng: &mut SplitMix64) -> Vec2 {
    let a = rng.range(0.0, std::f32::consts::TAU);
    Vec2::new(a.cos(), a.sin())
}

fn shape(rng: &mut SplitMix64, rounded: bool) -> Shape {
    let size = rng.range(0.05, 5.0);
    let radius = if rounded { size * rng.range(0.005, 0.5) } else { 0.0 };
    if rounded && rng.next_f32() < 0.5 {
        return Shape::rounded_box(Vec2::new(size * rng.range(0.05, 1.0), size * rng.range(0.05, 1.0)), radius)
            .expect("positive sizes");
    }
    loop {
        let n = 3 + (rng.next_u64() % 6) as usize;
        let pts: Vec<Vec2> = (0..n).map(|_| dir(rng) * size * rng.range(0.3, 1.0)).collect();
        if let Ok(s) = Shape::polygon(&pts, radius) {
            return s;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = |i: usize| match args.get(i).map(String::as_str) {
        None | Some("rounded") => true,
        Some("polygon") => false,
        Some(other) => {
            eprintln!("kinds are polygon or rounded, not {other}");
            std::process::exit(2)
        }
    };
    let (ka, kb) = (kind(0), kind(1));
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut rng = SplitMix64::new(7);
    let pairs: Vec<(Shape, Pose, Shape, Pose)> = (0..2048)
        .map(|_| {
            let (a, b) = (shape(&mut rng, ka), shape(&mut rng, kb));
            let pa = Pose::new(Vec2::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)), rng.range(-3.2, 3.2));
            let (angle, u) = (rng.range(-3.2, 3.2), dir(&mut rng));
            let hit = |t: f32| collide::overlaps(&a, &pa, &b, &Pose::new(pa.p + u * t, angle)).unwrap();
            let (mut lo, mut hi) = (0.0f32, 40.0f32);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if hit(mid) { lo = mid } else { hi = mid }
            }
            let t = lo * (1.0 + rng.range(-0.05, 0.05));
            (a, pa, b, Pose::new(pa.p + u * t, angle))
        })
        .collect();
    let start = std::time::Instant::now();
    let mut touching = 0usize;
    for _ in 0..reps {
        for (a, pa, b, pb) in &pairs {
            touching += usize::from(collide::contact(a, pa, b, pb).unwrap().count > 0);
        }
    }
    let per_pair = start.elapsed().as_secs_f64() * 1e9 / (reps * pairs.len()) as f64;
    println!("{touching} touching of {} evaluations, {per_pair:.1} ns a pair", reps * pairs.len());
}
