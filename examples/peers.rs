//! sapwood beside rapier2d on the peer scene of `docs/SCENES.md` §2, in the same run.
//!
//! ```text
//! cargo run --release --example peers -- [--sizes 1024,8192,65536,262144] [--steps N]
//!                                         [--warmup N] [--threads 1,2] [--seed 42]
//!                                         [--only sapwood|rapier] [--broad sap|tree|grid|hash]
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
//! `--broad` swaps sapwood's broad phase for movers (diagnostics only; the comparison is made
//! with `WorldConfig::default()`).
//!
//! Default steps shrink with the size (300 at 1k down to 20 at 256k) so that the default run
//! takes a few minutes on 2 cores; `--steps` sets one count for every size.

use std::error::Error;
use std::time::Duration;

use std::collections::BTreeMap;

use sapwood::{BroadPhaseKind, Shape, WorldConfig, collide};
use sapwood_support::peers::rapier2d::parry;
use sapwood_support::peers::{self, RapierSide, SapwoodSide, disagreements, median_ms, time_cpu};
use sapwood_support::scenes::{DEFAULT_SEED, Scene};

struct Args {
    sizes: Vec<usize>,
    steps: Option<usize>,
    warmup: usize,
    threads: Vec<usize>,
    seed: u64,
    /// `--only sapwood` / `--only rapier`: step that engine alone (for `perf record`).
    only: Option<String>,
    /// `--pair a,b --at-step k`: describe one pair of the first size after `k` scene steps.
    pair: Option<(u32, u32, usize)>,
    /// `--broad sap|tree|grid|hash`: sapwood's broad phase for movers (diagnostics; default:
    /// `WorldConfig::default()`, i.e. the incremental SAP).
    broad: Option<String>,
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
        broad: None,
        pair: None,
    };
    let mut at_step = 0;
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
            "--broad" => args.broad = Some(value()?),
            "--pair" => {
                let ids = list(&value()?)?;
                let [a, b] = ids[..] else { return Err("--pair takes two ids".into()) };
                args.pair = Some((a as u32, b as u32, 0));
            }
            "--at-step" => at_step = value()?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    args.pair = args.pair.map(|(a, b, _)| (a, b, at_step));
    if args.threads.contains(&0) || args.sizes.contains(&0) {
        return Err("sizes and thread counts must be positive".into());
    }
    Ok(args)
}

/// 300 steps at 1k, 200 at 8k, 25 at 64k, 10 at 256k.
fn default_steps(n: usize) -> usize {
    if n > 65536 { 10 } else { (200 * 8192 / n).clamp(25, 300) }
}

/// sapwood's config: the default unless `--broad` asks for another broad phase. Grid cells are
/// 2 units (peer shapes are at most about 1.7 across), as in `benches/broad.rs`.
fn sapwood_config(args: &Args, scene: &Scene) -> Result<WorldConfig, String> {
    let mut config = WorldConfig::default();
    config.broad_phase = match args.broad.as_deref() {
        None | Some("sap") => config.broad_phase,
        Some("tree") => BroadPhaseKind::DynamicTree,
        Some("grid") => BroadPhaseKind::UniformGrid { bounds: scene.bounds(), cell_size: 2.0 },
        Some("hash") => BroadPhaseKind::SpatialHash { cell_size: 2.0 },
        Some(other) => return Err(format!("--broad takes sap, tree, grid or hash, not {other}")),
    };
    Ok(config)
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
    /// CPU time of the build on the building thread (1 thread only for sapwood).
    sapwood_build_cpu: Option<Duration>,
    rapier_build_cpu: Option<Duration>,
    sapwood_pairs: usize,
    rapier_pairs: usize,
    /// Distinct pairs the engines disagreed on at some step, and how many of them are within
    /// rounding of touching.
    disagreements: usize,
    explained: usize,
}

fn kind_name(s: &Shape) -> &'static str {
    match s {
        Shape::Circle(_) => "circle",
        Shape::Cuboid(_) => "box",
        Shape::Polygon(_) => "polygon",
        Shape::Capsule(_) => "capsule",
        Shape::Segment(_) => "segment",
        Shape::Compound(_) => "compound",
        Shape::Chain(_) => "chain",
    }
}

/// Prints one disagreement with an independent look at it: sapwood's kernel on the current poses,
/// rapier's stored manifold distance, and parry's `query::contact` distance on rapier's shapes.
/// Returns whether it is explained as an exactly-touching pair: every distance seen is within
/// rounding of zero, i.e. within 4 f32 ulps of the larger centre coordinate (the positions carry
/// that much error already; 6e-5 at 256k, where the square is 724 wide).
fn explain(scene: &Scene, rap: &RapierSide, (a, b): (u32, u32), in_sapwood: bool) -> bool {
    let (ca, cb) = (scene.get(a).expect("live"), scene.get(b).expect("live"));
    let m = collide::contact(&ca.shape, &ca.pose, &cb.shape, &cb.pose);
    let sap_depth = m.points().iter().map(|p| p.depth).reduce(f32::max);
    let rap_dist = rap.pair_distance(a, b);
    let (ra, rb) = (rap.collider(a), rap.collider(b));
    let parry_dist =
        parry::query::contact(ra.position(), ra.shape(), rb.position(), rb.shape(), 0.0).ok().flatten().map(|c| c.dist);
    let scale = ca.pose.p.abs().max_element().max(cb.pose.p.abs().max_element()).max(1.0);
    let tolerance = 4.0 * f32::EPSILON * scale;
    let near = |d: Option<f32>| d.is_none_or(|d| d.abs() <= tolerance);
    let explained = near(sap_depth) && near(rap_dist) && near(parry_dist);
    eprintln!(
        "  pair ({a}, {b}) {}–{}: only in {}; sapwood depth {sap_depth:?}, rapier manifold dist {rap_dist:?}, parry contact dist {parry_dist:?}; tolerance {tolerance:.1e}: {}",
        kind_name(&ca.shape),
        kind_name(&cb.shape),
        if in_sapwood { "sapwood" } else { "rapier" },
        if explained { "exactly touching up to rounding" } else { "NOT EXPLAINED" },
    );
    explained
}

fn run(n: usize, threads: usize, args: &Args) -> Result<Row, String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(n));
    let mut scene = Scene::peer(n, args.seed);
    let config = sapwood_config(args, &scene)?;
    let mut sap = None;
    let (sapwood_build, sapwood_build_cpu) = time_cpu(|| sap = Some(SapwoodSide::build_with(&scene, config)));
    let mut sap = sap.expect("built");
    let mut rap = None;
    let (rapier_build, rapier_build_cpu) = time_cpu(|| rap = Some(RapierSide::build(&scene)));
    let mut rap = rap.expect("built");
    let (mut ts, mut tr) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let (mut cs, mut cr) = (Some(Duration::ZERO), Some(Duration::ZERO));
    // Distinct disagreeing pairs → whether sapwood had it, and the first step it was seen.
    let mut disagreeing: BTreeMap<(u32, u32), bool> = BTreeMap::new();
    let mut explained = 0;
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
            if disagreeing.insert(pair, in_sapwood).is_none() {
                eprintln!("n={n} threads={threads} step {}:", step + 1);
                explained += usize::from(explain(&scene, &rap, pair, in_sapwood));
            }
        }
    }
    Ok(Row {
        n,
        threads,
        steps,
        sapwood_ms: median_ms(&mut ts),
        rapier_ms: median_ms(&mut tr),
        sapwood_cpu_ms: cs.filter(|_| threads == 1).map(|d| d.as_secs_f64() * 1e3 / steps as f64),
        rapier_cpu_ms: cr.map(|d| d.as_secs_f64() * 1e3 / steps as f64),
        sapwood_build,
        rapier_build,
        sapwood_build_cpu: sapwood_build_cpu.filter(|_| threads == 1),
        rapier_build_cpu,
        sapwood_pairs: sap.touching().len(),
        rapier_pairs: rap.touching().len(),
        disagreements: disagreeing.len(),
        explained,
    })
}

/// One engine alone, for profiling: no comparison, no pair checks, just build and step.
fn run_alone(engine: &str, n: usize, threads: usize, args: &Args) -> Result<(), String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(n));
    let mut scene = Scene::peer(n, args.seed);
    let mut times = Vec::with_capacity(steps);
    let mut cpu = Some(Duration::ZERO);
    let mut record = |step: usize, (wall, c): (Duration, Option<Duration>)| {
        if step >= args.warmup {
            times.push(wall);
            cpu = cpu.zip(c).map(|(a, b)| a + b);
        }
    };
    match engine {
        "sapwood" => {
            let mut sap = SapwoodSide::build_with(&scene, sapwood_config(args, &scene)?);
            for step in 0..args.warmup + steps {
                scene.step();
                record(step, time_cpu(|| sap.step(&scene)));
            }
        }
        "rapier" => {
            let mut rap = RapierSide::build(&scene);
            for step in 0..args.warmup + steps {
                scene.step();
                record(step, time_cpu(|| rap.step(&scene)));
            }
        }
        other => return Err(format!("--only takes sapwood or rapier, not {other}")),
    }
    let cpu = cpu.map_or("–".to_string(), |c| format!("{:.3}", c.as_secs_f64() * 1e3 / steps as f64));
    println!(
        "{engine} alone (broad {}), n={n} threads={threads}: {:.3} ms/step wall median, {cpu} CPU ms/step of the stepping thread, {steps} steps",
        args.broad.as_deref().unwrap_or("default"),
        median_ms(&mut times)
    );
    Ok(())
}

/// `--pair`: one pair after `k` scene steps, through every kernel at hand.
fn describe_pair(n: usize, (a, b, k): (u32, u32, usize), seed: u64) {
    let mut scene = Scene::peer(n, seed);
    scene.step_n(k);
    let (ca, cb) = (scene.get(a).expect("id"), scene.get(b).expect("id"));
    println!(
        "n={n}, after {k} steps:\n  {a}: {:?} at {:?} (angle {})\n  {b}: {:?} at {:?} (angle {})",
        ca.shape, ca.pose, ca.angle, cb.shape, cb.pose, cb.angle
    );
    println!("  sapwood contact: {:?}", collide::contact(&ca.shape, &ca.pose, &cb.shape, &cb.pose));
    println!("  sapwood contact, swapped: {:?}", collide::contact(&cb.shape, &cb.pose, &ca.shape, &ca.pose));
    println!("  sapwood overlaps: {}", collide::overlaps(&ca.shape, &ca.pose, &cb.shape, &cb.pose));
    let (ra, rb) = (peers::rapier_collider(ca).build(), peers::rapier_collider(cb).build());
    println!(
        "  parry contact (prediction 0): {:?}",
        parry::query::contact(ra.position(), ra.shape(), rb.position(), rb.shape(), 0.0)
    );
    println!(
        "  parry contact (prediction 0.01): {:?}",
        parry::query::contact(ra.position(), ra.shape(), rb.position(), rb.shape(), 0.01)
    );
    println!("  parry distance: {:?}", parry::query::distance(ra.position(), ra.shape(), rb.position(), rb.shape()));
    println!(
        "  parry intersection_test: {:?}",
        parry::query::intersection_test(ra.position(), ra.shape(), rb.position(), rb.shape())
    );
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    if let Some(pair) = args.pair {
        describe_pair(args.sizes[0], pair, args.seed);
        return Ok(());
    }
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
            let row = pool.install(|| run(n, threads, &args))?;
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
        "| N | threads | steps | sapwood ms/step | rapier ms/step | rapier / sapwood | sapwood CPU ms/step | rapier CPU ms/step | rapier / sapwood (CPU) | sapwood pairs | rapier pairs | pairs disagreed on (explained) | sapwood build ms | rapier build ms | sapwood build CPU ms | rapier build CPU ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let ms = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.3}"));
    for r in &rows {
        let cpu_ratio =
            r.rapier_cpu_ms.zip(r.sapwood_cpu_ms).map_or("–".to_string(), |(a, b)| format!("{:.1}x", a / b));
        let disagreements = format!("{} ({})", r.disagreements, r.explained);
        let build_cpu = |d: Option<Duration>| ms(d.map(|d| d.as_secs_f64() * 1e3));
        println!(
            "| {} | {} | {} | {:.3} | {:.3} | {:.1}x | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} | {} | {} |",
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
            build_cpu(r.sapwood_build_cpu),
            build_cpu(r.rapier_build_cpu),
        );
    }
    println!();
    println!(
        "sapwood config: {}",
        args.broad.as_deref().map_or("WorldConfig::default()".to_string(), |b| format!("default but --broad {b}"))
    );
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
