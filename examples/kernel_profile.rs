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
//!
//! ```sh
//! cargo run --release --example kernel_profile -- resting capsule box 400
//! ```
//! `resting A B [steps]` (kinds `circle`, `capsule`, `box`, `polygon`, `rounded`) measures
//! manifold reuse where it matters, resting contact: 2,048 pairs of the two kinds, each B lying
//! on A (on a face, nearly aligned, or at any angle) 1% of its size deep, far from the other
//! pairs, in two worlds, `WorldConfig::reuse_manifolds` on and off. Every step each collider
//! is nudged by 1e-5 of its size and angle (as a solver nudges resting bodies) and both worlds
//! step, alternately and each timed alone; the contacts must be the same bit for bit. Prints
//! the median and mean step and the share of manifolds reused. A fourth argument, `on` or
//! `off`, steps only that world, for instruction counts:
//! `valgrind --tool=callgrind <binary> resting capsule box 100 on`, less the same with 0 steps.
//! The worlds step on one thread, the caller's.

use sapwood::{ColliderDesc, ColliderId, Pose, Shape, Vec2, World, WorldConfig, collide};
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
    if args.first().map(String::as_str) == Some("resting") {
        // One thread, the caller's: no worker waits in a spin loop, so an instruction count of
        // the process is the work's.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread().build().unwrap();
        return pool.install(|| resting(&args[1..]));
    }
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

/// A shape of size about 1 of the kind named.
fn resting_shape(rng: &mut SplitMix64, kind: &str) -> Shape {
    let size = rng.range(0.5, 1.0);
    match kind {
        "circle" => Shape::circle(0.5 * size),
        "capsule" => Shape::capsule(Vec2::new(-0.5 * size, 0.0), Vec2::new(0.5 * size, 0.0), 0.2 * size),
        "box" => Shape::cuboid(Vec2::new(0.5 * size, rng.range(0.2, 0.5) * size)),
        "rounded" => Shape::rounded_box(Vec2::new(0.45 * size, rng.range(0.2, 0.45) * size), 0.05 * size),
        "polygon" => loop {
            let n = 5 + (rng.next_u64() % 4) as usize;
            let pts: Vec<Vec2> = (0..n)
                .map(|k| {
                    Vec2::from_angle(std::f32::consts::TAU * (k as f32 + rng.range(-0.2, 0.2)) / n as f32) * 0.5 * size
                })
                .collect();
            if let Ok(s) = Shape::polygon(&pts, 0.0) {
                break Ok(s);
            }
        },
        other => {
            eprintln!("resting kinds are circle, capsule, box, polygon or rounded, not {other}");
            std::process::exit(2)
        }
    }
    .expect("positive sizes")
}

fn resting(args: &[String]) {
    let (ka, kb) = (args.first().map_or("box", String::as_str), args.get(1).map_or("box", String::as_str));
    let steps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    let only = match args.get(3).map(String::as_str) {
        None => None,
        Some("on") => Some(0),
        Some("off") => Some(1),
        Some(other) => {
            eprintln!("the fourth argument is on or off, not {other}");
            std::process::exit(2)
        }
    };
    let mut rng = SplitMix64::new(11);
    let mut colliders = Vec::new();
    for i in 0..2048 {
        let (a, b) = (resting_shape(&mut rng, ka), resting_shape(&mut rng, kb));
        let cell = Vec2::new((i % 64) as f32, (i / 64) as f32) * 8.0;
        let pa = Pose::new(cell, rng.range(-3.2, 3.2));
        // B on A's top (in A's frame), nearly aligned with it, or anywhere around it at any angle.
        let (u, turn) = match i % 3 {
            0 => (pa.q.rotate(Vec2::Y), pa.q.angle()),
            1 => (pa.q.rotate(Vec2::Y), pa.q.angle() + rng.range(-0.02, 0.02)),
            _ => (Vec2::from_angle(rng.range(-3.2, 3.2)), rng.range(-3.2, 3.2)),
        };
        let shift = pa.q.rotate(Vec2::new(rng.range(-0.2, 0.2), 0.0));
        let at = |t: f32| Pose::new(pa.p + shift + u * t, turn);
        let (mut lo, mut hi) = (0.0f32, 4.0f32);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if collide::overlaps(&a, &pa, &b, &at(mid)).unwrap() { lo = mid } else { hi = mid }
        }
        colliders.push((a, pa));
        colliders.push((b, at(lo - 0.01)));
    }
    let on = WorldConfig::default();
    let mut worlds =
        [World::with_config(on).unwrap(), World::with_config(WorldConfig { reuse_manifolds: false, ..on }).unwrap()];
    let ids: Vec<Vec<ColliderId>> = worlds
        .iter_mut()
        .map(|w| colliders.iter().map(|(s, p)| w.insert(ColliderDesc::new(s.clone(), *p)).unwrap()).collect())
        .collect();
    let mut poses: Vec<Pose> = colliders.iter().map(|c| c.1).collect();
    let mut times = [Vec::new(), Vec::new()];
    let (mut reused, mut pairs) = (0u64, 0u64);
    for step in 0..steps + 20 {
        for p in &mut poses {
            let d = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 1e-5;
            *p = Pose::new(p.p + d, p.q.angle() + rng.range(-1.0, 1.0) * 1e-5);
        }
        for k in [step % 2, 1 - step % 2] {
            if only.is_some_and(|o| o != k) {
                continue;
            }
            let start = std::time::Instant::now();
            for (id, p) in ids[k].iter().zip(&poses) {
                worlds[k].set_pose(*id, *p).unwrap();
            }
            worlds[k].step();
            if step >= 20 {
                times[k].push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        let bytes = |w: &World| bytemuck::cast_slice::<_, u8>(w.contacts()).to_vec();
        assert!(only.is_some() || bytes(&worlds[0]) == bytes(&worlds[1]), "step {step}: reuse changed a contact");
        let c = worlds[0].last_step_counts();
        (reused, pairs) = (reused + u64::from(c.reused), pairs + u64::from(c.pairs));
    }
    for (k, name) in [(0, "reuse on"), (1, "reuse off")] {
        let t = &mut times[k];
        if t.is_empty() {
            continue;
        }
        t.sort_by(f64::total_cmp);
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        println!(
            "{ka}-{kb} {name}: {} touching, median {:.4} ms, mean {:.4} ms, p90 {:.4} ms a step",
            worlds[k].contacts().len(),
            t[t.len() / 2],
            mean,
            t[t.len() * 9 / 10]
        );
    }
    println!("{ka}-{kb}: {:.1}% of the evaluated manifolds reused", 100.0 * reused as f64 / pairs.max(1) as f64);
}
