//! sapwood beside rapier2d and Box2D v3 on the peer scene of `docs/SCENES.md` §2, in the same run.
//!
//! ```text
//! cargo run --release --example peers -- [--sizes 1024,8192,65536,262144] [--steps N]
//!                                         [--warmup N] [--threads 1,2] [--seed 42]
//!                                         [--only sapwood|rapier|box2d] [--broad sap|tree|grid|hash]
//!                                         [--insert one|batch] [--box2d-recycle]
//! ```
//!
//! For every size and thread count: one [`Scene::peer`] is generated; sapwood's `World` (default
//! config), rapier2d's collision-only `CollisionPipeline` and a Box2D v3 world (still colliders as
//! static bodies, its solver kept out by a pre-solve callback: `support/src/peers/box2d.rs`) are
//! built from it, each one collider at a time in scene order (timed: insertion plus the first
//! step); then, after a warm-up, the scene is stepped and each engine is told the new poses and
//! stepped, each timed on its own, the engines interleaved step by step in a rotating order.
//! Printed per engine: median, mean, p90 and p99 ms per step, and Box2D's own profile of its
//! collision phases (pairs + collide) and of `b2World_Step`; the ratios to sapwood; the touching
//! pairs of each after the last step, and how many pairs sapwood and rapier disagreed on over all
//! steps (each one explained on stderr).
//!
//! Threads: each thread count runs inside its own rayon pool
//! (`ThreadPoolBuilder::new().num_threads(n).build()?.install(..)`). sapwood's step uses rayon;
//! rapier2d is built with its default features (no `parallel`) and Box2D without a task system,
//! so both are single-threaded whatever the pool.
//!
//! `--only` steps one engine alone, with no pair checks: the run to put under `perf record`.
//! `--broad` swaps sapwood's broad phase for movers and `--insert batch` inserts sapwood's
//! colliders with one `insert_batch` (diagnostics only; the comparison is made with
//! `WorldConfig::default()`, one collider at a time). `--box2d-recycle` leaves Box2D's contact
//! recycling on (an approximation that skips the kernel of a pair that barely moved).
//!
//! Default steps shrink with the size (300 at 1k down to 10 at 256k) so that the default run
//! takes a few minutes on 2 cores; `--steps` sets one count for every size.

use std::error::Error;
use std::time::Duration;

use std::collections::BTreeMap;

use sapwood::{BroadPhaseKind, Shape, WorldConfig, collide};
use sapwood_support::peers::rapier2d::parry;
use sapwood_support::peers::{self, Box2dSide, Insertion, RapierSide, SapwoodSide, Stats, disagreements, time_cpu};
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
    /// `--insert one|batch`: sapwood's colliders one at a time (default) or by `insert_batch`.
    insertion: Insertion,
    /// `--box2d-recycle`: leave Box2D's contact recycling on.
    box2d_recycle: bool,
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
        insertion: Insertion::OneByOne,
        box2d_recycle: false,
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
            "--insert" => {
                args.insertion = match value()?.as_str() {
                    "one" => Insertion::OneByOne,
                    "batch" => Insertion::Batch,
                    other => return Err(format!("--insert takes one or batch, not {other}").into()),
                }
            }
            "--box2d-recycle" => args.box2d_recycle = true,
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

/// One engine's timings at one size and thread count.
struct Timing {
    name: &'static str,
    wall: Stats,
    /// Mean CPU ms per step of the thread that ran the step (`None` without /proc, and for
    /// sapwood above 1 thread, whose rayon helpers run on other threads).
    cpu_ms: Option<f64>,
}

struct Row {
    n: usize,
    threads: usize,
    steps: usize,
    /// sapwood, rapier2d, Box2D (telling + `b2World_Step`), Box2D's collision phases, Box2D's
    /// `b2World_Step` (its profile).
    timings: Vec<Timing>,
    /// Build (insertion plus the first step) wall time and building-thread CPU time per engine,
    /// in the order sapwood, rapier2d, Box2D.
    builds: [(Duration, Option<Duration>); 3],
    sapwood_pairs: usize,
    rapier_pairs: usize,
    /// sapwood's touching pairs with a moving end, and Box2D's contacts with manifold points
    /// (touching or within its speculative distance) and fat-box contacts, after the last step.
    sapwood_mover_pairs: usize,
    box2d_touching: u64,
    box2d_contacts: usize,
    /// Distinct pairs sapwood and rapier disagreed on at some step, and how many of them are
    /// within rounding of touching.
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
    let m = collide::contact(&ca.shape, &ca.pose, &cb.shape, &cb.pose).unwrap();
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
    let sap_build = time_cpu(|| sap = Some(SapwoodSide::build_with(&scene, config, args.insertion)));
    let mut sap = sap.expect("built");
    let mut rap = None;
    let rap_build = time_cpu(|| rap = Some(RapierSide::build(&scene)));
    let mut rap = rap.expect("built");
    let mut b2 = None;
    let b2_build = time_cpu(|| b2 = Some(Box2dSide::build(&scene, args.box2d_recycle)));
    let mut b2 = b2.expect("built");
    // Per engine: wall ms per measured step, and the CPU time summed over them.
    let mut wall: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let mut cpu = [Some(Duration::ZERO); 3];
    let (mut b2_collision, mut b2_step) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    // Distinct disagreeing pairs → whether sapwood had it.
    let mut disagreeing: BTreeMap<(u32, u32), bool> = BTreeMap::new();
    let mut explained = 0;
    for step in 0..args.warmup + steps {
        scene.step();
        // Rotate which engine goes first, so none always runs on a cache another warmed.
        for k in 0..3 {
            let engine = (step + k) % 3;
            let (d, c) = match engine {
                0 => time_cpu(|| sap.step(&scene)),
                1 => time_cpu(|| rap.step(&scene)),
                _ => time_cpu(|| b2.step(&scene)),
            };
            if step >= args.warmup {
                wall[engine].push(d.as_secs_f64() * 1e3);
                cpu[engine] = cpu[engine].zip(c).map(|(a, b)| a + b);
            }
        }
        if step >= args.warmup {
            let profile = b2.profile();
            b2_collision.push(profile.collision());
            b2_step.push(profile.step);
        }
        let diff = disagreements(&sap.touching(), &rap.touching());
        for &(pair, in_sapwood) in &diff {
            if disagreeing.insert(pair, in_sapwood).is_none() {
                eprintln!("n={n} threads={threads} step {}:", step + 1);
                explained += usize::from(explain(&scene, &rap, pair, in_sapwood));
            }
        }
    }
    let cpu_ms = |c: Option<Duration>| c.map(|d| d.as_secs_f64() * 1e3 / steps as f64);
    let [ws, wr, wb] = &mut wall;
    let timings = vec![
        Timing { name: "sapwood", wall: Stats::of(ws), cpu_ms: cpu_ms(cpu[0]).filter(|_| threads == 1) },
        Timing { name: "rapier2d", wall: Stats::of(wr), cpu_ms: cpu_ms(cpu[1]) },
        Timing { name: "Box2D v3", wall: Stats::of(wb), cpu_ms: cpu_ms(cpu[2]) },
        Timing { name: "Box2D v3 collision phases", wall: Stats::of(&mut b2_collision), cpu_ms: None },
        Timing { name: "Box2D v3 b2World_Step", wall: Stats::of(&mut b2_step), cpu_ms: None },
    ];
    Ok(Row {
        n,
        threads,
        steps,
        timings,
        builds: [sap_build, rap_build, b2_build],
        sapwood_pairs: sap.touching().len(),
        rapier_pairs: rap.touching().len(),
        sapwood_mover_pairs: sap.touching_with_mover(&scene),
        box2d_touching: b2.touching(),
        box2d_contacts: b2.contact_count(),
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
            times.push(wall.as_secs_f64() * 1e3);
            cpu = cpu.zip(c).map(|(a, b)| a + b);
        }
    };
    match engine {
        "sapwood" => {
            let mut sap = SapwoodSide::build_with(&scene, sapwood_config(args, &scene)?, args.insertion);
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
        "box2d" => {
            let mut b2 = Box2dSide::build(&scene, args.box2d_recycle);
            for step in 0..args.warmup + steps {
                scene.step();
                record(step, time_cpu(|| b2.step(&scene)));
            }
        }
        other => return Err(format!("--only takes sapwood, rapier or box2d, not {other}")),
    }
    let cpu = cpu.map_or("–".to_string(), |c| format!("{:.3}", c.as_secs_f64() * 1e3 / steps as f64));
    let w = Stats::of(&mut times);
    println!(
        "{engine} alone (broad {}), n={n} threads={threads}: wall ms/step median {:.3}, mean {:.3}, p90 {:.3}, p99 {:.3}; {cpu} CPU ms/step of the stepping thread, {steps} steps",
        args.broad.as_deref().unwrap_or("default"),
        w.median,
        w.mean,
        w.p90,
        w.p99
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
    println!("  sapwood contact: {:?}", collide::contact(&ca.shape, &ca.pose, &cb.shape, &cb.pose).unwrap());
    println!("  sapwood contact, swapped: {:?}", collide::contact(&cb.shape, &cb.pose, &ca.shape, &ca.pose).unwrap());
    println!("  sapwood overlaps: {}", collide::overlaps(&ca.shape, &ca.pose, &cb.shape, &cb.pose).unwrap());
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
            for t in &row.timings {
                eprintln!("  {}: median {:.3} ms/step, mean {:.3}", t.name, t.wall.median, t.wall.mean);
            }
            rows.push(row);
        }
    }
    print_tables(&rows, &args);
    Ok(())
}

fn print_tables(rows: &[Row], args: &Args) {
    println!(
        "peer scene (SCENES.md §2), seed {}, {} warm-up steps, engines interleaved step by step; sapwood: {}, colliders inserted {}",
        args.seed,
        args.warmup,
        args.broad.as_deref().map_or("WorldConfig::default()".to_string(), |b| format!("default but --broad {b}")),
        match args.insertion {
            Insertion::OneByOne => "one at a time in scene order (World::insert)",
            Insertion::Batch => "by one World::insert_batch",
        },
    );
    println!();
    println!("| N | threads | steps | engine | median ms | mean ms | p90 ms | p99 ms | p99 / median | CPU ms/step |");
    println!("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    let ms = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.3}"));
    for r in rows {
        for t in &r.timings {
            let w = t.wall;
            println!(
                "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} | {} |",
                r.n,
                r.threads,
                r.steps,
                t.name,
                w.median,
                w.mean,
                w.p90,
                w.p99,
                w.p99 / w.median,
                ms(t.cpu_ms)
            );
        }
    }
    println!();
    println!("| N | threads | peer / sapwood, median and mean: rapier2d | Box2D v3 | Box2D v3 collision phases |");
    println!("|---:|---:|---|---|---|");
    for r in rows {
        let s = r.timings[0].wall;
        let ratio = |t: &Timing| format!("{:.1}x, {:.1}x", t.wall.median / s.median, t.wall.mean / s.mean);
        println!(
            "| {} | {} | {} | {} | {} |",
            r.n,
            r.threads,
            ratio(&r.timings[1]),
            ratio(&r.timings[2]),
            ratio(&r.timings[3])
        );
    }
    println!();
    println!(
        "| N | threads | sapwood touching | rapier touching | disagreed on (explained) | sapwood touching with a mover | Box2D manifolds | Box2D contacts | build ms sapwood / rapier / Box2D | build CPU ms sapwood / rapier / Box2D |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for r in rows {
        let [s, ra, b] = r.builds;
        let cpu = |d: Option<Duration>| ms(d.map(|d| d.as_secs_f64() * 1e3));
        println!(
            "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {:.1} / {:.1} / {:.1} | {} / {} / {} |",
            r.n,
            r.threads,
            r.sapwood_pairs,
            r.rapier_pairs,
            r.disagreements,
            r.explained,
            r.sapwood_mover_pairs,
            r.box2d_touching,
            r.box2d_contacts,
            s.0.as_secs_f64() * 1e3,
            ra.0.as_secs_f64() * 1e3,
            b.0.as_secs_f64() * 1e3,
            cpu(s.1.filter(|_| r.threads == 1)),
            cpu(ra.1),
            cpu(b.1),
        );
    }
    println!();
    println!("ms: wall time of telling the engine the new poses and stepping it; the Box2D collision phases are");
    println!("its profile's pairs + collide, and its b2World_Step line its profile's step (the telling excluded).");
    println!("CPU ms/step: mean CPU time of the stepping thread (/proc/thread-self/schedstat) over the measured");
    println!("steps; sapwood's only at 1 thread (its rayon helpers run elsewhere). rapier2d (no `parallel`");
    println!("feature) and Box2D (no task system) run single-threaded at any thread count.");
    println!("Touching: sapwood depth >= 0, rapier a manifold point at distance < 0, after the last step;");
    println!("Box2D manifolds: its contacts with manifold points (touching, or within its speculative distance");
    println!("0.02), all with a mover since its still colliders are static bodies, so they compare with sapwood's");
    println!(
        "touching pairs with a mover; Box2D contacts: its fat-box pairs. Box2D's contact recycling is {}.",
        if args.box2d_recycle { "on (its default)" } else { "off (--box2d-recycle turns it on)" }
    );
    // Parallel speed-up of sapwood: 1 thread over each larger thread count, per size.
    for &n in &args.sizes {
        let one = rows.iter().find(|r| r.n == n && r.threads == 1);
        for r in rows.iter().filter(|r| r.n == n && r.threads > 1) {
            if let Some(one) = one {
                println!(
                    "N = {n}: sapwood at {} threads is {:.2}x faster (wall median) than at 1 thread",
                    r.threads,
                    one.timings[0].wall.median / r.timings[0].wall.median
                );
            }
        }
    }
}
