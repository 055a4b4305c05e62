//! sapwood beside rapier2d and Box2D v3 on the scenes of `docs/SCENES.md`, in the same run: the
//! peer scene (§2, the default), Box2D's many pyramids (§4), the static scene (§5) and Box2D's
//! own benchmark suite (§6).
//!
//! ```text
//! cargo run --release --example peers -- [--scene peer|pyramids|static|suite] [--sizes 1024,8192,65536,262144]
//!                                         [--steps N] [--warmup N] [--threads 1,2] [--seed 42]
//!                                         [--only sapwood|rapier|box2d] [--broad sap|tree|grid|hash|quadtree|sort-sweep|brute]
//!                                         [--insert one|batch] [--box2d-recycle] [--no-reuse]
//!                                         [--only-scene rain,spinner,...] [--chart docs/suite.png] [--advise]
//! ```
//!
//! **Peer scene** (`collision_only.rs`). For every size and thread count: one [`Scene::peer`] is
//! generated; sapwood's `World` (default config), rapier2d's collision-only `CollisionPipeline`
//! and a Box2D v3 world (still colliders as static bodies, its solver kept out by a pre-solve
//! callback: `support/src/peers/box2d.rs`) are built from it, each one collider at a time in scene
//! order (timed: insertion plus the first step); then, after a warm-up, the scene is stepped and
//! each engine is told the new poses and stepped, each timed on its own, the engines interleaved
//! step by step in a rotating order. Printed per engine: median, mean, p90 and p99 ms per step,
//! and Box2D's own profile of its collision phases (pairs + collide) and of `b2World_Step`; the
//! ratios to sapwood; the touching pairs of each after the last step, and how many pairs sapwood
//! and rapier disagreed on over all steps (each one explained on stderr).
//!
//! **Static scene** (`--scene static`, same code): `--sizes` fixed unit tiles in blocks with
//! corridors and 1,000 movers on a random walk over them (default sizes 10,000, 100,000 and
//! 1,000,000), one thread by default. Also printed: sapwood's insertion of the tiles one at a
//! time and with one `insert_batch`, and the first step after each.
//!
//! **Pyramids** (`--scene pyramids`, `pyramids.rs`): `--sizes` counts boxes, a multiple of 210
//! (default 840, 4,200 and 21,000: 4, 20 and 100 pyramids), one thread by default. Box2D
//! simulates them with its own solver (`support/src/peers/box2d_sim.rs`) and each step hands its
//! bodies' poses to sapwood and rapier2d; a second Box2D world simulates the same scene with
//! contact recycling off.
//!
//! **Box2D's suite** (`--scene suite`, `suite.rs`): every scene of Box2D's `benchmarks.c` that
//! has collision (or those `--only-scene` names: compounds, junkyard, large_pyramid,
//! many_pyramids, rain, smash, spinner, tumbler, washer), at its benchmark counts, one thread
//! then all cores by default. Box2D simulates it with its own solver and step function
//! (`support/src/peers/box2d_suite.rs`); each step sapwood and rapier2d are told the shapes it
//! destroyed and created and the poses of those that moved, and step. The scene's own step
//! count, step 0 untimed (`--warmup 1`), as Box2D's benchmark runs it; `--steps` sets the timed
//! steps. Each scene's tables are printed as soon as it has run, a summary at the end, and with
//! `--chart PATH` the summary's chart. `--advise` runs sapwood's advisor on each scene instead:
//! at a quarter, half and three quarters of the scene's run, each on Box2D's next 30 frames
//! (`SapwoodSide::advise`), and prints its rankings and the broad phase they add up to.
//!
//! Threads: each thread count runs inside its own rayon pool
//! (`ThreadPoolBuilder::new().num_threads(n).build()?.install(..)`). sapwood's step uses rayon;
//! rapier2d is built with its default features (no `parallel`) and Box2D without a task system,
//! so both are single-threaded whatever the pool.
//!
//! `--only` steps one engine alone, with no pair checks: the run to put under `perf record` (in
//! the pyramids and the suite Box2D simulates too, untimed unless it is the one). There, sapwood's
//! run also prints its mean phase times and narrow-phase counts. `--broad` swaps sapwood's
//! broad phase for movers and `--insert batch` inserts sapwood's colliders with one
//! `insert_batch` (diagnostics only; the comparison is made with `WorldConfig::default()`, one
//! collider at a time). `--box2d-recycle` leaves the collision-only Box2D's contact recycling on
//! (an approximation that skips the kernel of a pair that barely moved); the pyramids always
//! show Box2D both ways, and sapwood with `WorldConfig::reuse_manifolds` on and off (checking that
//! both give the same contacts, bit for bit); `--no-reuse` turns it off for an `--only` run.
//! `--pair a,b --at-step k` describes one pair of the peer or static
//! scene's first size after `k` steps.
//!
//! Default steps shrink with the size (300 at 1k down to 10 at 256k) so that the default run
//! takes a few minutes on 2 cores; the static scene steps 200 times at every size (its movers
//! are the same 1,000); `--steps` sets one count for every size.

mod chart;
mod collision_only;
mod pyramids;
mod report;
mod suite;

use std::error::Error;

use sapwood::{BroadPhaseKind, Shape, WorldConfig, collide};
use sapwood_support::exact_query;
use sapwood_support::peers::rapier2d::{self, parry};
use sapwood_support::peers::{self, Insertion, RapierSide};
use sapwood_support::scenes::{DEFAULT_SEED, PYRAMID_BOXES, STATIC_MOVERS, Scene};

/// The scene a run compares the engines on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneName {
    /// `docs/SCENES.md` §2.
    Peer,
    /// §4: Box2D simulates, the others follow its poses.
    Pyramids,
    /// §5: fixed tiles and 1,000 movers.
    Static,
    /// §6: Box2D's benchmark suite, Box2D simulating.
    Suite,
}

pub struct Args {
    pub scene: SceneName,
    pub sizes: Vec<usize>,
    pub steps: Option<usize>,
    pub warmup: usize,
    pub threads: Vec<usize>,
    pub seed: u64,
    /// `--only sapwood` / `--only rapier`: step that engine alone (for `perf record`).
    pub only: Option<String>,
    /// `--pair a,b --at-step k`: describe one pair of the first size after `k` scene steps.
    pub pair: Option<(u32, u32, usize)>,
    /// `--broad sap|tree|grid|hash`: sapwood's broad phase for movers (diagnostics; default:
    /// `WorldConfig::default()`, i.e. the incremental SAP).
    pub broad: Option<String>,
    /// `--insert one|batch`: sapwood's colliders one at a time (default) or by `insert_batch`.
    pub insertion: Insertion,
    /// `--box2d-recycle`: leave the collision-only Box2D's contact recycling on.
    pub box2d_recycle: bool,
    /// `--no-reuse`: sapwood with `WorldConfig::reuse_manifolds` off (A/B of `--only` runs).
    pub no_reuse: bool,
    /// `--only-scene a,b`: the suite's scenes to run (default: all).
    pub only_scene: Option<String>,
    /// `--chart PATH`: the suite's chart, a PNG (`chart.rs`).
    pub chart: Option<String>,
    /// `--advise`: the advisor's ranking on each suite scene instead of the comparison.
    pub advise: bool,
}

fn list(s: &str) -> Result<Vec<usize>, Box<dyn Error>> {
    Ok(s.split(',').map(|x| x.trim().parse()).collect::<Result<_, _>>()?)
}

fn parse_args() -> Result<Args, Box<dyn Error>> {
    let (mut scene, mut sizes, mut threads, mut warmup) = (SceneName::Peer, None, None, None);
    let mut args = Args {
        scene,
        sizes: Vec::new(),
        steps: None,
        warmup: 0,
        threads: Vec::new(),
        seed: DEFAULT_SEED,
        only: None,
        broad: None,
        pair: None,
        insertion: Insertion::OneByOne,
        box2d_recycle: false,
        no_reuse: false,
        only_scene: None,
        chart: None,
        advise: false,
    };
    let mut at_step = 0;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--scene" => {
                scene = match value()?.as_str() {
                    "peer" => SceneName::Peer,
                    "pyramids" => SceneName::Pyramids,
                    "static" => SceneName::Static,
                    "suite" => SceneName::Suite,
                    other => return Err(format!("--scene takes peer, pyramids, static or suite, not {other}").into()),
                }
            }
            "--sizes" => sizes = Some(list(&value()?)?),
            "--steps" => args.steps = Some(value()?.parse()?),
            "--warmup" => warmup = Some(value()?.parse()?),
            "--threads" => threads = Some(list(&value()?)?),
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
            "--no-reuse" => args.no_reuse = true,
            "--only-scene" => args.only_scene = Some(value()?),
            "--chart" => args.chart = Some(value()?),
            "--advise" => args.advise = true,
            "--pair" => {
                let ids = list(&value()?)?;
                let [a, b] = ids[..] else { return Err("--pair takes two ids".into()) };
                args.pair = Some((a as u32, b as u32, 0));
            }
            "--at-step" => at_step = value()?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    args.scene = scene;
    args.pair = args.pair.map(|(a, b, _)| (a, b, at_step));
    (args.sizes, args.threads, args.warmup) = match scene {
        SceneName::Peer => (vec![1024, 8192, 65536, 262_144], if all > 1 { vec![1, all] } else { vec![1] }, 10),
        // A second of simulated time, in which the pyramids settle.
        SceneName::Pyramids => (vec![840, 4200, 21_000], vec![1], 60),
        SceneName::Static => (vec![10_000, 100_000, 1_000_000], vec![1], 10),
        // The suite's scenes have their own sizes; Box2D's benchmark does not time step 0.
        SceneName::Suite => (Vec::new(), if all > 1 { vec![1, all] } else { vec![1] }, 1),
    };
    args.sizes = sizes.unwrap_or(args.sizes);
    args.threads = threads.unwrap_or(args.threads);
    args.warmup = warmup.unwrap_or(args.warmup);
    if args.threads.contains(&0) || args.sizes.contains(&0) {
        return Err("sizes and thread counts must be positive".into());
    }
    if scene == SceneName::Pyramids && args.sizes.iter().any(|n| !n.is_multiple_of(PYRAMID_BOXES)) {
        return Err(format!("pyramid sizes count boxes, a multiple of {PYRAMID_BOXES}").into());
    }
    if matches!(scene, SceneName::Pyramids | SceneName::Suite) && args.pair.is_some() {
        return Err("--pair describes a pair of the peer or static scene".into());
    }
    if scene != SceneName::Suite && (args.only_scene.is_some() || args.chart.is_some() || args.advise) {
        return Err("--only-scene, --chart and --advise are the suite's".into());
    }
    Ok(args)
}

/// 300 steps at 1k, 200 at 8k, 25 at 64k, 10 at 256k; the static scene's 1,000 movers 200.
pub fn default_steps(scene: SceneName, n: usize) -> usize {
    match scene {
        SceneName::Static => 200,
        _ if n > 65536 => 10,
        _ => (200 * 8192 / n).clamp(25, 300),
    }
}

/// The scene a peer or static run steps, at size `n`.
pub fn make_scene(args: &Args, n: usize) -> Scene {
    match args.scene {
        SceneName::Static => Scene::static_tiles(n, STATIC_MOVERS, args.seed),
        SceneName::Peer | SceneName::Pyramids | SceneName::Suite => Scene::peer(n, args.seed),
    }
}

/// sapwood's config: the default unless `--broad` asks for another broad phase. Grid and hash
/// cells are 2 units (peer shapes are at most about 1.7 across), as in `benches/broad.rs`; grids
/// and quadtrees cover the scene's bounds.
pub fn sapwood_config(args: &Args, scene: &Scene) -> Result<WorldConfig, String> {
    let mut config = WorldConfig::default();
    if let Some(name) = args.broad.as_deref() {
        config.broad_phase = BroadPhaseKind::all(scene.bounds(), 2.0)
            .into_iter()
            .find(|k| k.build().name() == name)
            .ok_or_else(|| format!("--broad takes {}, not {name}", BROAD_NAMES.join(", ")))?;
    }
    config.reuse_manifolds = !args.no_reuse;
    Ok(config)
}

/// The broad phases `--broad` names (`BroadPhase::name`).
const BROAD_NAMES: [&str; 7] = ["brute", "sort-sweep", "grid", "hash", "quadtree", "tree", "sap"];

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

/// Why sapwood and rapier disagreed on a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// Every distance seen is within rounding of zero: an exactly touching pair.
    Rounding,
    /// The exact `f64` signed distance of the two shapes at these poses says what sapwood says,
    /// beyond rounding: rapier's manifold is off (its kernel's approximation, or its precision
    /// far from the origin).
    RapierOff,
    /// Neither: sapwood contradicts the exact distance.
    Unexplained,
}

/// Disagreements by [`Explanation`]: rounding, rapier off, unexplained.
#[derive(Clone, Copy, Debug, Default)]
pub struct Explained(pub [usize; 3]);

impl Explained {
    pub fn add(&mut self, e: Explanation) {
        self.0[e as usize] += 1;
    }
}

impl std::fmt::Display for Explained {
    /// "total (rounding, rapier off)"; the unexplained are the rest.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [rounding, rapier, rest] = self.0;
        write!(f, "{} ({rounding}, {rapier})", rounding + rapier + rest)
    }
}

/// Prints one disagreement with an independent look at it: sapwood's kernel on the current poses,
/// rapier's stored manifold distance, parry's `query::contact` distance on rapier's shapes,
/// parry's manifold computed afresh, and the exact `f64` signed distance of the shapes at the
/// poses as given (`sapwood_support::exact_query`, one-sided chains as sapwood collides them). It is explained as an exactly-touching pair
/// when every distance seen is within rounding of zero, i.e. within 4 f32 ulps of the larger
/// centre coordinate (the positions carry that much error already; 6e-5 at 256k, where the
/// square is 724 wide); as rapier's error when the exact distance sides with sapwood.
pub fn explain(scene: &Scene, rap: &RapierSide, (a, b): (u32, u32), in_sapwood: bool) -> Explanation {
    let (ca, cb) = (scene.get(a).expect("live"), scene.get(b).expect("live"));
    let m = collide::contact(&ca.shape, &ca.pose, &cb.shape, &cb.pose).unwrap();
    let sap_depth = m.points().iter().map(|p| p.depth).reduce(f32::max);
    let rap_dist = rap.pair_distance(a, b);
    let (ra, rb) = (rap.collider(a), rap.collider(b));
    let parry_dist =
        parry::query::contact(ra.position(), ra.shape(), rb.position(), rb.shape(), 0.0).ok().flatten().map(|c| c.dist);
    let fresh = fresh_manifold_distance(ra, rb);
    let exact = exact_query::collider_signed_distance(&ca.shape, &ca.pose, &cb.shape, &cb.pose);
    let scale = ca.pose.p.abs().max_element().max(cb.pose.p.abs().max_element()).max(1.0);
    let tolerance = 4.0 * f32::EPSILON * scale;
    let near = |d: Option<f32>| d.is_none_or(|d| d.abs() <= tolerance);
    let tol = f64::from(tolerance);
    let explanation = if near(sap_depth) && near(rap_dist) && near(parry_dist) {
        Explanation::Rounding
    } else if (in_sapwood && exact <= tol) || (!in_sapwood && exact >= -tol) {
        Explanation::RapierOff
    } else {
        Explanation::Unexplained
    };
    eprintln!(
        "  pair ({a}, {b}) {}–{}: only in {}; sapwood depth {sap_depth:?}, rapier manifold dist {rap_dist:?}, parry contact dist {parry_dist:?}, fresh parry manifold dist {fresh:?}, exact signed distance {exact:.3e}; tolerance {tolerance:.1e}: {}",
        kind_name(&ca.shape),
        kind_name(&cb.shape),
        if in_sapwood { "sapwood" } else { "rapier" },
        match explanation {
            Explanation::Rounding => "exactly touching up to rounding",
            Explanation::RapierOff => "rapier off: the exact distance agrees with sapwood",
            Explanation::Unexplained => "NOT EXPLAINED",
        },
    );
    explanation
}

/// The smallest point distance of a manifold computed afresh by parry's dispatcher (what rapier's
/// narrow phase calls), with no persistent workspace.
fn fresh_manifold_distance(a: &rapier2d::prelude::Collider, b: &rapier2d::prelude::Collider) -> Option<f32> {
    use parry::query::{DefaultQueryDispatcher, PersistentQueryDispatcher};
    let pos12 = a.position().inv_mul(b.position());
    let mut manifolds: Vec<parry::query::ContactManifold<(), ()>> = Vec::new();
    DefaultQueryDispatcher.contact_manifolds(&pos12, a.shape(), b.shape(), 0.0, &mut manifolds, &mut None).ok()?;
    manifolds.iter().flat_map(|m| m.points.iter()).map(|p| p.dist).reduce(f32::min)
}

/// `--pair`: one pair after `k` scene steps, through every kernel at hand.
fn describe_pair(args: &Args, (a, b, k): (u32, u32, usize)) {
    let n = args.sizes[0];
    let mut scene = make_scene(args, n);
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
        describe_pair(&args, pair);
        return Ok(());
    }
    if args.scene == SceneName::Suite {
        return run_suite(&args);
    }
    if let Some(engine) = &args.only {
        for &n in &args.sizes {
            for &threads in &args.threads {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
                match args.scene {
                    SceneName::Pyramids => pool.install(|| pyramids::run_alone(engine, n, threads, &args))?,
                    _ => pool.install(|| collision_only::run_alone(engine, n, threads, &args))?,
                }
            }
        }
        return Ok(());
    }
    match args.scene {
        SceneName::Pyramids => {
            let rows = each_size_and_thread_count(&args, |n, threads| pyramids::run(n, threads, &args))?;
            pyramids::print_tables(&rows, &args);
        }
        SceneName::Peer | SceneName::Static => {
            let rows = each_size_and_thread_count(&args, |n, threads| collision_only::run(n, threads, &args))?;
            collision_only::print_tables(&rows, &args);
        }
        SceneName::Suite => unreachable!("run_suite"),
    }
    Ok(())
}

/// Box2D's suite: each scene at each thread count, its tables printed as it finishes, then the
/// summary.
fn run_suite(args: &Args) -> Result<(), Box<dyn Error>> {
    if args.advise {
        return Ok(suite::advise_all(args)?);
    }
    let mut all = Vec::new();
    for scene in suite::scenes(args)? {
        let mut rows = Vec::new();
        for &threads in &args.threads {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            eprintln!("running {} threads={threads} …", scene.name());
            match &args.only {
                Some(engine) => pool.install(|| suite::run_alone(engine, scene, threads, args))?,
                None => rows.push(pool.install(|| suite::run(scene, threads, args))?),
            }
        }
        suite::print_scene(&rows);
        all.append(&mut rows);
    }
    if args.only.is_none() {
        suite::print_summary(&all, args);
        if let Some(path) = &args.chart {
            chart::draw(path, &suite::chart_bars(&all)).map_err(|e| format!("the chart: {e}"))?;
            println!("chart: {path}");
        }
    }
    Ok(())
}

/// One row per size and thread count of `args`, each run in a pool of that many threads.
fn each_size_and_thread_count<R: Send>(
    args: &Args,
    run: impl Fn(usize, usize) -> Result<R, String> + Sync,
) -> Result<Vec<R>, Box<dyn Error>> {
    let mut rows = Vec::new();
    for &n in &args.sizes {
        for &threads in &args.threads {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            eprintln!("running n={n} threads={threads} …");
            rows.push(pool.install(|| run(n, threads))?);
        }
    }
    Ok(rows)
}
