//! IncrementalSap on the peer scene (SCENES.md section 2, boxes only): per-step update cost with
//! 1%, 50% and 100% of the boxes moving, 1% churn, and mass insertion.
//!
//! Every moving box is updated every step with its tight box (no fattening): the SAP's worst
//! case for a given motion, since the world only updates boxes that escaped their fat box.
//!
//! Run: `cargo build --release --bench sap && target/release/deps/sap-<hash> --bench`
//! (or `cargo bench --bench sap`).
//!
//! With `SAP_CPU=1` the binary instead prints CPU time per step (summed over all threads from
//! `/proc/self/task/*/schedstat`, Linux only) for the same cases: on a shared, overloaded
//! machine wall-clock medians mostly measure the scheduler, CPU time measures the work.

use criterion::{BatchSize, Criterion, criterion_group};
use sapwood::broad::{BroadPhase, IncrementalSap, Pair};
use sapwood::{Aabb, Vec2};
use sapwood_support::SplitMix64;
use sapwood_support::cpu::cpu_ms;
use std::hint::black_box;

/// The peer scene's boxes: centres, half-extents, velocities (zero for still ones).
struct Scene {
    side: f32,
    center: Vec<Vec2>,
    half: Vec<Vec2>,
    vel: Vec<Vec2>,
    moving: Vec<u32>,
}

impl Scene {
    fn new(n: usize, moving_fraction: f64) -> Self {
        let mut rng = SplitMix64::new(42);
        let side = (n as f32 / 0.5).sqrt();
        let mut s = Scene { side, center: vec![], half: vec![], vel: vec![], moving: vec![] };
        let every = if moving_fraction > 0.0 { (1.0 / moving_fraction).round() as usize } else { usize::MAX };
        for i in 0..n {
            s.center.push(Vec2::new(rng.next_f32() * side, rng.next_f32() * side));
            s.half.push(Vec2::new(rng.range(0.2, 0.6), rng.range(0.2, 0.6)));
            let a = rng.range(0.0, std::f32::consts::TAU);
            let v = Vec2::new(a.cos(), a.sin()) * rng.range(0.02, 0.10);
            if i % every == 0 {
                s.vel.push(v);
                s.moving.push(i as u32);
            } else {
                s.vel.push(Vec2::ZERO);
            }
        }
        s
    }
    fn aabb(&self, i: usize) -> Aabb {
        Aabb::from_center_half_extents(self.center[i], self.half[i])
    }
    fn items(&self) -> Vec<(u32, Aabb)> {
        (0..self.center.len()).map(|i| (i as u32, self.aabb(i))).collect()
    }
    /// Moves the moving boxes one step, bouncing off the walls, and updates them in the SAP.
    fn step(&mut self, sap: &mut IncrementalSap) {
        for &id in &self.moving {
            let i = id as usize;
            let mut c = self.center[i] + self.vel[i];
            for k in 0..2 {
                if c[k] < 0.0 || c[k] > self.side {
                    self.vel[i][k] = -self.vel[i][k];
                    c[k] = c[k].clamp(0.0, self.side);
                }
            }
            self.center[i] = c;
            sap.update(id, self.aabb(i));
        }
    }
}

fn update_steps(c: &mut Criterion) {
    let mut g = c.benchmark_group("sap_update");
    g.sample_size(20);
    for n in [8_192usize, 65_536] {
        for (label, frac) in [("1%", 0.01), ("50%", 0.5), ("100%", 1.0)] {
            let mut scene = Scene::new(n, frac);
            let mut sap = IncrementalSap::new();
            sap.insert_batch(&scene.items());
            let (mut began, mut ended): (Vec<Pair>, Vec<Pair>) = (Vec::new(), Vec::new());
            sap.update_pairs(&mut began, &mut ended);
            let pairs = began.len();
            // Warm the structure into its steady state (motion spreads the initial order).
            for _ in 0..30 {
                scene.step(&mut sap);
                sap.update_pairs(&mut began, &mut ended);
            }
            eprintln!("n={n} moving={label}: {pairs} pairs at start");
            g.bench_function(format!("{n}/{label}"), |b| {
                b.iter(|| {
                    scene.step(&mut sap);
                    began.clear();
                    ended.clear();
                    sap.update_pairs(&mut began, &mut ended);
                    black_box((began.len(), ended.len()))
                })
            });
        }
    }
    g.finish();
}

fn churn(c: &mut Criterion) {
    // 1% of the boxes removed and as many inserted per step, the rest still.
    let mut g = c.benchmark_group("sap_churn");
    g.sample_size(20);
    for n in [8_192usize, 65_536] {
        let scene = Scene::new(n, 0.0);
        let mut sap = IncrementalSap::new();
        sap.insert_batch(&scene.items());
        let (mut began, mut ended) = (Vec::new(), Vec::new());
        sap.update_pairs(&mut began, &mut ended);
        let k = n / 100;
        let mut next = 0usize;
        let mut rng = SplitMix64::new(7);
        let mut ids: Vec<u32> = Vec::new();
        let mut items: Vec<(u32, Aabb)> = Vec::new();
        g.bench_function(format!("{n}/1%"), |b| {
            b.iter(|| {
                ids.clear();
                items.clear();
                for j in 0..k {
                    let id = ((next + j * 97) % n) as u32;
                    ids.push(id);
                    let c = Vec2::new(rng.next_f32() * scene.side, rng.next_f32() * scene.side);
                    items.push((id, Aabb::from_center_half_extents(c, scene.half[id as usize])));
                }
                next += 1;
                sap.remove_batch(&ids);
                sap.update_pairs(&mut began, &mut ended);
                sap.insert_batch(&items);
                began.clear();
                ended.clear();
                sap.update_pairs(&mut began, &mut ended);
                black_box(began.len())
            })
        });
    }
    g.finish();
}

fn mass_insert(c: &mut Criterion) {
    let mut g = c.benchmark_group("sap_mass_insert");
    g.sample_size(10);
    let n = 65_536;
    let items = Scene::new(n, 0.0).items();
    g.bench_function(format!("{n}"), |b| {
        b.iter_batched(
            || (IncrementalSap::new(), Vec::<Pair>::with_capacity(4 * n), Vec::<Pair>::new()),
            |(mut sap, mut began, mut ended)| {
                sap.insert_batch(&items);
                sap.update_pairs(&mut began, &mut ended);
                black_box(began.len());
                sap
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, update_steps, churn, mass_insert);

/// The CPU-time report (see the module documentation).
fn cpu_report() {
    // SAP_N / SAP_FRAC (0 = mass insertion only) restrict the cases and SAP_STEPS sets the step count, for profilers and
    // instruction counters (e.g. `valgrind --tool=cachegrind`) that are too slow for all cases.
    let env = |k: &str| std::env::var(k).ok();
    let steps: usize = env("SAP_STEPS").and_then(|s| s.parse().ok()).unwrap_or(100);
    let only_n: Option<usize> = env("SAP_N").and_then(|s| s.parse().ok());
    let only_frac: Option<f64> = env("SAP_FRAC").and_then(|s| s.parse().ok());
    println!("case | cpu ms/step (mean over {steps} steps) | wall ms/step (median) | pairs");
    for n in [8_192usize, 65_536] {
        for (label, frac) in [("1%", 0.01), ("10%", 0.1), ("50%", 0.5), ("100%", 1.0)] {
            if only_n.is_some_and(|m| m != n) || only_frac.is_some_and(|f| f != frac) {
                continue;
            }
            let mut scene = Scene::new(n, frac);
            let mut sap = IncrementalSap::new();
            sap.insert_batch(&scene.items());
            let (mut began, mut ended) = (Vec::new(), Vec::new());
            sap.update_pairs(&mut began, &mut ended);
            for _ in 0..10 {
                scene.step(&mut sap);
                sap.update_pairs(&mut began, &mut ended);
            }
            let mut wall = Vec::new();
            let c0 = cpu_ms();
            for _ in 0..steps {
                let t = std::time::Instant::now();
                scene.step(&mut sap);
                began.clear();
                ended.clear();
                sap.update_pairs(&mut began, &mut ended);
                wall.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let cpu = (cpu_ms() - c0) / steps as f64;
            wall.sort_by(f64::total_cmp);
            let mut all = Vec::new();
            sap.pairs(&mut all);
            println!("update {n} {label} | {cpu:.3} | {:.3} | {}", wall[steps / 2], all.len());
        }
    }
    for n in [8_192usize, 65_536] {
        // SAP_FRAC=0 selects the mass insertion alone.
        if only_n.is_some_and(|m| m != n) || only_frac.is_some_and(|f| f != 0.0) {
            continue;
        }
        let items = Scene::new(n, 0.0).items();
        let mut cpu = Vec::new();
        for _ in 0..5 {
            let mut sap = IncrementalSap::new();
            let (mut began, mut ended) = (Vec::new(), Vec::new());
            let c0 = cpu_ms();
            sap.insert_batch(&items);
            sap.update_pairs(&mut began, &mut ended);
            cpu.push(cpu_ms() - c0);
            black_box(began.len());
        }
        cpu.sort_by(f64::total_cmp);
        println!("mass insert {n} | {:.3} (median of 5) | - | -", cpu[2]);
    }
}

fn main() {
    if std::env::var_os("SAP_CPU").is_some() {
        cpu_report();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
