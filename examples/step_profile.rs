//! Per-phase timing of `World::step` on the peer scene or the big world, for profiling.
//!
//! ```sh
//! cargo run --release --example step_profile -- 8192          # peer scene, 8192 colliders
//! cargo run --release --example step_profile -- 1000000 1     # big world, 1% moving
//! BP=hash STEPS=100 cargo run --release --example step_profile -- 65536
//! ```
//! `BP` picks the movers' broad phase (`sap` default, `hash` with `HASH_CELL`-unit cells, 2 by
//! default, `tree`); `STEPS` the timed steps, after `WARMUP` untimed ones (0 by default; the
//! first steps after a build renew every fat box, so the tail wants a few);
//! `MARGIN_RATIO` and `MOTION_FACTOR` override `WorldConfig::aabb_margin_ratio` and
//! `aabb_motion_factor`; `SEED_SCENE=random-half` (any
//! scenario without insertions or removals) runs a seed-table scene instead of the peer scene;
//! `INSERT=one` fills the world one collider at a time in scene order instead of by
//! `insert_batch`; `ESCAPES=1` also counts, per step, the colliders whose fat box was renewed
//! (the broad phase's work: each one is moved through the SAP and has its pairs searched) and the
//! touching pairs, and prints their distribution over the steps: a deterministic view of the
//! step-to-step spread that the timings show.
//! Prints CPU time per step (from /proc/self/task/*/schedstat, so other processes' load does not
//! count), the median, mean, p90 and p99 wall-clock time of `World::step`, and the wall-clock
//! time of each phase from `World::last_step_timings`; then the median time of `World::state_hash` (per collider:
//! what a rollback game pays to compare peers every frame), and of one `World::shift_origin`
//! and the step after it (which re-derives every box and manifold).

use std::time::Instant;

use sapwood::{BroadPhaseKind, ColliderDesc, World, WorldConfig};
use sapwood_support::cpu;
use sapwood_support::scenes::{Scene, SeedScenario};

/// How many colliders' fat boxes differ from `fat` (the boxes after the previous call, by slot),
/// which is updated.
fn renewed_fat_boxes(world: &World, fat: &mut Vec<Option<sapwood::Aabb>>) -> usize {
    let mut renewed = 0;
    world.debug_fat_aabbs(|id, b, _| {
        let s = id.index() as usize;
        if fat.len() <= s {
            fat.resize(s + 1, None);
        }
        renewed += usize::from(fat[s] != Some(b));
        fat[s] = Some(b);
    });
    renewed
}

/// The distribution of per-step fat-box renewals: quantiles, the largest over the median, and a
/// histogram in ten bins from 0 to the largest.
fn print_escapes(per_step: &[usize]) {
    let mut v = per_step.to_vec();
    v.sort_unstable();
    let at = |q: f64| v.get(((v.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied().unwrap_or(0);
    let (median, max) = (v.get(v.len() / 2).copied().unwrap_or(0), v.last().copied().unwrap_or(0));
    let mean = v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
    println!(
        "fat-box renewals per step over {} steps: median {median}, mean {mean:.1}, p90 {}, p99 {}, max {max} ({:.2}x the median)",
        v.len(),
        at(0.9),
        at(0.99),
        max as f64 / median.max(1) as f64
    );
    let mut bins = [0usize; 10];
    for &x in &v {
        bins[(x * 10 / (max + 1)).min(9)] += 1;
    }
    let edges: Vec<String> =
        (0..10).map(|i| format!("{}-{}: {}", i * (max + 1) / 10, (i + 1) * (max + 1) / 10, bins[i])).collect();
    println!("  histogram (renewals: steps): {}", edges.join(", "));
    let first: Vec<String> = per_step.iter().take(40).map(usize::to_string).collect();
    println!("  first steps: {}", first.join(" "));
}

fn main() {
    let arg = |i: usize| std::env::args().nth(i).and_then(|s| s.parse::<usize>().ok());
    let n = arg(1).unwrap_or(8192);
    let percent = arg(2);
    let steps = std::env::var("STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let broad_phase = match std::env::var("BP").as_deref() {
        Ok("hash") => BroadPhaseKind::SpatialHash {
            cell_size: std::env::var("HASH_CELL").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0),
        },
        Ok("tree") => BroadPhaseKind::DynamicTree,
        Ok("brute") => BroadPhaseKind::BruteForce,
        _ => BroadPhaseKind::IncrementalSap,
    };
    let seed_scenario = std::env::var("SEED_SCENE").ok().and_then(|s| SeedScenario::from_name(&s));
    let mut scene = match (seed_scenario, percent) {
        (Some(sc), _) => Scene::seed(sc, n, 42),
        (None, Some(p)) => Scene::big_world(p, 42),
        (None, None) => Scene::peer(n, 42),
    };
    let mut config = WorldConfig { broad_phase, ..WorldConfig::default() };
    if let Some(r) = std::env::var("MARGIN_RATIO").ok().and_then(|s| s.parse().ok()) {
        config.aabb_margin_ratio = r;
    }
    if let Some(k) = std::env::var("MOTION_FACTOR").ok().and_then(|s| s.parse().ok()) {
        config.aabb_motion_factor = k;
    }
    let mut world = World::with_config(config).expect("valid config");
    let t = Instant::now();
    let descs: Vec<ColliderDesc> =
        scene.colliders().iter().map(|c| ColliderDesc::new(c.shape.clone(), c.pose)).collect();
    let mut ids = Vec::new();
    if std::env::var("INSERT").as_deref() == Ok("one") {
        ids.extend(descs.into_iter().map(|d| world.insert(d).expect("valid scene")));
    } else {
        world.insert_batch(&descs, &mut ids).expect("valid scene");
    }
    world.step();
    println!(
        "{} colliders, {broad_phase:?}: build {:.1} ms, {} contacts",
        scene.len(),
        t.elapsed().as_secs_f64() * 1e3,
        world.contacts().len()
    );
    // The scenes never change which colliders move: list them once, so that the timed loop
    // does not walk a million still ones.
    let movers: Vec<usize> = (0..scene.len()).filter(|&i| scene.colliders()[i].moving).collect();
    let warmup = std::env::var("WARMUP").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    for _ in 0..warmup {
        scene.step();
        for &i in &movers {
            let c = &scene.colliders()[i];
            world.set_pose(ids[c.id as usize], c.pose).expect("valid pose");
        }
        world.step();
    }
    let (mut cpu, mut phases) = (0.0, [0.0f64; 4]);
    // The whole call as well as its phases: handing work to rayon's pool and back happens
    // between and around the phase timers.
    let mut walls = Vec::with_capacity(steps);
    let count_escapes = std::env::var("ESCAPES").as_deref() == Ok("1");
    let (mut fat, mut escapes) = (Vec::new(), Vec::with_capacity(steps));
    for _ in 0..steps {
        scene.step();
        let c0 = cpu::cpu_ms() / 1e3;
        for &i in &movers {
            let c = &scene.colliders()[i];
            world.set_pose(ids[c.id as usize], c.pose).expect("valid pose");
        }
        let w = Instant::now();
        world.step();
        walls.push(w.elapsed().as_secs_f64() * 1e3);
        cpu += cpu::cpu_ms() / 1e3 - c0;
        let tm = world.last_step_timings();
        for (acc, d) in phases.iter_mut().zip([tm.aabbs, tm.broad_phase, tm.narrow_phase, tm.events]) {
            *acc += d.as_secs_f64() * 1e3;
        }
        if count_escapes {
            escapes.push(renewed_fat_boxes(&world, &mut fat));
        }
    }
    if count_escapes {
        print_escapes(&escapes[1..]);
    }
    let k = steps.max(1) as f64;
    println!("CPU per step (set_pose + step): {:.3} ms", cpu / k * 1e3);
    walls.sort_by(f64::total_cmp);
    // A game feels its worst frames: the tail beside the median (nearest-rank percentiles).
    let pct = |q: f64| walls.get(((walls.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied().unwrap_or(0.0);
    let mean = walls.iter().sum::<f64>() / walls.len().max(1) as f64;
    println!(
        "wall of World::step: median {:.3} ms, mean {mean:.3} ms, p90 {:.3} ms, p99 {:.3} ms",
        walls.get(walls.len() / 2).copied().unwrap_or(0.0),
        pct(0.9),
        pct(0.99)
    );
    println!(
        "wall per phase: aabbs {:.3} ms, broad {:.3} ms, narrow {:.3} ms, events {:.3} ms; {} contacts",
        phases[0] / k,
        phases[1] / k,
        phases[2] / k,
        phases[3] / k,
        world.contacts().len()
    );

    let mut hashes: Vec<f64> = (0..51)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(world.state_hash());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    hashes.sort_by(f64::total_cmp);
    let ms = hashes[hashes.len() / 2];
    println!("state_hash: median {ms:.3} ms, {:.2} ns per collider", ms * 1e6 / world.len() as f64);
    let t = Instant::now();
    world.shift_origin(sapwood::Vec2::new(1000.0, -1000.0)).expect("a shift in range");
    let shift = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    world.step();
    println!("shift_origin: {shift:.3} ms, the step after it {:.3} ms", t.elapsed().as_secs_f64() * 1e3);
}
