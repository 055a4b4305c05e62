//! sapwood beside rapier2d on the peer scene of `shared/SCENES.md` §2, in the same run.
//!
//! ```text
//! cargo run --release --example peers -- [--sizes 1024,8192,65536,262144] [--steps N]
//!                                         [--warmup N] [--threads 1,2] [--seed 42]
//!                                         [--only sapwood|rapier]
//! ```
//!
//! For every size and thread count: one [`Scene::peer`] is generated; sapwood's `World` (default
//! config) and rapier2d's collision-only `CollisionPipeline` are built from it (timed: insertion
//! plus the first step); then, after a warm-up, the scene is stepped and both engines are told the
//! new poses and stepped, each timed on its own, in alternating order. Printed: the median ms per
//! step of each, their ratio, the touching-pair count of each after the last step, and how many
//! pairs the two disagreed on over all steps (each one explained on stderr).
//!
//! Threads: each thread count runs inside its own rayon pool
//! (`ThreadPoolBuilder::new().num_threads(n).build()?.install(..)`). sapwood's step uses rayon;
//! rapier2d is built with its default features (no `parallel`), so its pipeline is
//! single-threaded whatever the pool.
//!
//! `--only` steps one engine alone, with no pair checks: the run to put under `perf record`.
//!
//! Default steps shrink with the size (300 at 1k down to 20 at 256k) so that the default run
//! takes a few minutes on 2 cores; `--steps` sets one count for every size.

#[path = "../benches/common/peer_engines.rs"]
mod peer_engines;

use std::error::Error;
use std::time::Duration;

use peer_engines::{RapierSide, SapwoodSide, disagreements, median_ms, time, time_cpu};
use rapier2d::parry;
use sapwood::scenes::{DEFAULT_SEED, Scene};
use sapwood::{Shape, collide};

struct Args {
    sizes: Vec<usize>,
    steps: Option<usize>,
    warmup: usize,
    threads: Vec<usize>,
    seed: u64,
    /// `--only sapwood` / `--only rapier`: step that engine alone (for `perf record`).
    only: Option<String>,
}

fn list(s: &str) -> Result<Vec<usize>, Box<dyn Error>> {
    Ok(s.split(',').map(|x| x.trim().parse()).collect::<Result<_, _>>()?)
}

fn parse_args() -> Result<Args, Box<dyn Error>> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = Args {
        sizes: vec![1024, 8192, 65536, 262_144],
        steps: None,
        warmup: 10,
        threads: if all > 1 { vec![1, all] } else { vec![1] },
        seed: DEFAULT_SEED,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--sizes" => args.sizes = list(&value()?)?,
            "--steps" => args.steps = Some(value()?.parse()?),
            "--warmup" => args.warmup = value()?.parse()?,
            "--threads" => args.threads = list(&value()?)?,
            "--seed" => args.seed = value()?.parse()?,
            "--only" => args.only = Some(value()?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if args.threads.contains(&0) || args.sizes.contains(&0) {
        return Err("sizes and thread counts must be positive".into());
    }
    Ok(args)
}

/// 300 steps at 1k, 200 at 8k, 25 at 64k, 20 at 256k.
fn default_steps(n: usize) -> usize {
    (200 * 8192 / n).clamp(20, 300)
}

struct Row {
    n: usize,
    threads: usize,
    steps: usize,
    sapwood_ms: f64,
    rapier_ms: f64,
    /// Mean CPU ms per step of the thread that ran the step (`None` without /proc); for
    /// sapwood meaningful only at 1 thread, since its rayon helpers run on other threads.
    sapwood_cpu_ms: Option<f64>,
    rapier_cpu_ms: Option<f64>,
    sapwood_build: Duration,
    rapier_build: Duration,
    sapwood_pairs: usize,
    rapier_pairs: usize,
    disagreements: usize,
    explained: usize,
}

fn kind_name(s: &Shape) -> &'static str {
    match s {
        Shape::Circle(_) => "circle",
        Shape::Cuboid(_) => "box",
        Shape::Polygon(_) => "polygon",
        Shape::Capsule(_) => "capsule",
    }
}

/// Prints one disagreement with an independent look at it: sapwood's kernel on the current poses,
/// rapier's stored manifold distance, and parry's `query::contact` distance on rapier's shapes.
/// Returns whether it is explained as an exactly-touching (|distance| ≤ 1e-5) pair.
fn explain(scene: &Scene, rap: &RapierSide, (a, b): (u32, u32), in_sapwood: bool) -> bool {
    let (ca, cb) = (scene.get(a).expect("live"), scene.get(b).expect("live"));
    let m = collide::contact(&ca.shape, &ca.pose, &cb.shape, &cb.pose);
    let sap_depth = m.points().iter().map(|p| p.depth).fold(f32::NEG_INFINITY, f32::max);
    let rap_dist = rap.pair_distance(a, b);
    let (ra, rb) = (rap.collider(a), rap.collider(b));
    let parry_dist =
        parry::query::contact(ra.position(), ra.shape(), rb.position(), rb.shape(), 0.0).ok().flatten().map(|c| c.dist);
    eprintln!(
        "  pair ({a}, {b}) {}–{}: only in {}; sapwood depth {sap_depth:e} ({} points), rapier manifold dist {rap_dist:?}, parry contact dist {parry_dist:?}",
        kind_name(&ca.shape),
        kind_name(&cb.shape),
        if in_sapwood { "sapwood" } else { "rapier" },
        m.count,
    );
    let d = parry_dist.unwrap_or(f32::INFINITY);
    d.abs() <= 1e-5 || (in_sapwood && sap_depth.abs() <= 1e-5)
}

fn run(n: usize, threads: usize, args: &Args) -> Row {
    let steps = args.steps.unwrap_or_else(|| default_steps(n));
    let mut scene = Scene::peer(n, args.seed);
    let (mut sap, sapwood_build) = time(|| SapwoodSide::build(&scene));
    let (mut rap, rapier_build) = time(|| RapierSide::build(&scene));
    let (mut ts, mut tr) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let (mut cs, mut cr) = (Some(Duration::ZERO), Some(Duration::ZERO));
    let (mut disagreeing, mut explained, mut printed) = (0, 0, 0);
    for step in 0..args.warmup + steps {
        scene.step();
        // Alternate which engine goes first, so neither always runs on a cache the other warmed.
        let ((ds, dcs), (dr, dcr)) = if step % 2 == 0 {
            let s = time_cpu(|| sap.step(&scene));
            (s, time_cpu(|| rap.step(&scene)))
        } else {
            let r = time_cpu(|| rap.step(&scene));
            (time_cpu(|| sap.step(&scene)), r)
        };
        if step >= args.warmup {
            ts.push(ds);
            tr.push(dr);
            cs = cs.zip(dcs).map(|(a, b)| a + b);
            cr = cr.zip(dcr).map(|(a, b)| a + b);
        }
        let diff = disagreements(&sap.touching(), &rap.touching());
        for &(pair, in_sapwood) in &diff {
            disagreeing += 1;
            if printed < 5 {
                printed += 1;
                eprintln!("n={n} threads={threads} step {}:", step + 1);
                explained += usize::from(explain(&scene, &rap, pair, in_sapwood));
            }
        }
    }
    Row {
        n,
        threads,
        steps,
        sapwood_ms: median_ms(&mut ts),
        rapier_ms: median_ms(&mut tr),
        sapwood_cpu_ms: cs.filter(|_| threads == 1).map(|d| d.as_secs_f64() * 1e3 / steps as f64),
        rapier_cpu_ms: cr.map(|d| d.as_secs_f64() * 1e3 / steps as f64),
        sapwood_build,
        rapier_build,
        sapwood_pairs: sap.touching().len(),
        rapier_pairs: rap.touching().len(),
        disagreements: disagreeing,
        explained,
    }
}

/// One engine alone, for profiling: no comparison, no pair checks, just build and step.
fn run_alone(engine: &str, n: usize, threads: usize, args: &Args) -> Result<(), String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(n));
    let mut scene = Scene::peer(n, args.seed);
    let mut times = Vec::with_capacity(steps);
    match engine {
        "sapwood" => {
            let mut sap = SapwoodSide::build(&scene);
            for step in 0..args.warmup + steps {
                scene.step();
                let d = time(|| sap.step(&scene)).1;
                if step >= args.warmup {
                    times.push(d);
                }
            }
        }
        "rapier" => {
            let mut rap = RapierSide::build(&scene);
            for step in 0..args.warmup + steps {
                scene.step();
                let d = time(|| rap.step(&scene)).1;
                if step >= args.warmup {
                    times.push(d);
                }
            }
        }
        other => return Err(format!("--only takes sapwood or rapier, not {other}")),
    }
    println!("{engine} alone, n={n} threads={threads}: {:.3} ms/step (median of {steps})", median_ms(&mut times));
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    if let Some(engine) = &args.only {
        for &n in &args.sizes {
            for &threads in &args.threads {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
                pool.install(|| run_alone(engine, n, threads, &args))?;
            }
        }
        return Ok(());
    }
    let mut rows = Vec::new();
    for &n in &args.sizes {
        for &threads in &args.threads {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            eprintln!("running n={n} threads={threads} …");
            let row = pool.install(|| run(n, threads, &args));
            eprintln!(
                "  sapwood {:.3} ms/step, rapier {:.3} ms/step, pairs {} / {}",
                row.sapwood_ms, row.rapier_ms, row.sapwood_pairs, row.rapier_pairs
            );
            rows.push(row);
        }
    }
    println!(
        "peer scene (SCENES.md §2), seed {}, {} warm-up steps; median over the measured steps",
        args.seed, args.warmup
    );
    println!();
    println!(
        "| N | threads | steps | sapwood ms/step | rapier ms/step | rapier / sapwood | sapwood CPU ms/step | rapier CPU ms/step | rapier / sapwood (CPU) | sapwood pairs | rapier pairs | disagreements (all steps) | sapwood build ms | rapier build ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let ms = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.3}"));
    for r in &rows {
        let cpu_ratio =
            r.rapier_cpu_ms.zip(r.sapwood_cpu_ms).map_or("–".to_string(), |(a, b)| format!("{:.1}x", a / b));
        let disagreements = if r.disagreements == 0 {
            "0".to_string()
        } else {
            format!("{} ({} of the first {} explained)", r.disagreements, r.explained, r.disagreements.min(5))
        };
        println!(
            "| {} | {} | {} | {:.3} | {:.3} | {:.1}x | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
            r.n,
            r.threads,
            r.steps,
            r.sapwood_ms,
            r.rapier_ms,
            r.rapier_ms / r.sapwood_ms,
            ms(r.sapwood_cpu_ms),
            ms(r.rapier_cpu_ms),
            cpu_ratio,
            r.sapwood_pairs,
            r.rapier_pairs,
            disagreements,
            r.sapwood_build.as_secs_f64() * 1e3,
            r.rapier_build.as_secs_f64() * 1e3,
        );
    }
    println!();
    println!("ms/step: median wall time of telling the engine the new poses and stepping it.");
    println!(
        "CPU ms/step: mean CPU time of the stepping thread (/proc/thread-self/schedstat) over the measured steps;"
    );
    println!(
        "sapwood's only at 1 thread (its rayon helpers run elsewhere); rapier2d runs single-threaded (no `parallel` feature)."
    );
    // Parallel speed-up of sapwood: 1 thread over each larger thread count, per size.
    for &n in &args.sizes {
        let one = rows.iter().find(|r| r.n == n && r.threads == 1);
        for r in rows.iter().filter(|r| r.n == n && r.threads > 1) {
            if let Some(one) = one {
                println!(
                    "N = {n}: sapwood at {} threads is {:.2}x faster (wall median) than at 1 thread",
                    r.threads,
                    one.sapwood_ms / r.sapwood_ms
                );
            }
        }
    }
    Ok(())
}
