//! The benchmark job: the eight scenarios of the seed table (`docs/SCENES.md` §1) with every
//! broad phase, as full world steps, beside the seed's published numbers; and the big world
//! (§3) with `--big`.
//!
//! ```text
//! cargo run --release --example scenarios                 # full run (~10 min on 2 cores)
//! cargo run --release --example scenarios -- --quick      # ~1 min: 5 steps, no 65536, skips
//!                                                          # scenes with > 1M overlapping boxes
//! cargo run --release --example scenarios -- --docs       # also copy the chart to docs/
//! cargo run --release --example scenarios -- --big        # 1,000,000 colliders, 1% / 10% moving
//! cargo run --release --example scenarios -- --big --percent 1 --static-still  # still = static
//! options: --sizes 1024,8192  --steps 30  --algos sap,tree  --scenarios point,row
//!          --max-pairs 12000000  --no-advisor  --out out
//! ```
//!
//! A step = the scene moves its colliders ([`Scene::step`], untimed), then the timed part: the
//! world is told ([`World::remove`] / [`World::set_pose`] / [`World::insert`]) and steps (AABBs,
//! broad phase, narrow phase with manifolds, events). Each cell also reports its first step from
//! scratch (the world built with `insert_batch`, then its first step), the work the seed's
//! per-frame numbers measure. Every algorithm sees the same motion, so
//! its touching-pair count after every step must equal brute force's (at 65536, where brute
//! force is skipped, every algorithm's must agree): the job exits with status 1 when one
//! differs or an algorithm panics.

mod big;
mod chart;

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use sapwood::advisor;
use sapwood::{Aabb, BroadPhaseKind, ColliderDesc, ColliderId, World, WorldConfig};
use sapwood_support::cpu::cpu_ms;
use sapwood_support::scenes::{DEFAULT_SEED, Scene, SeedScenario, seed_world};

/// The broad phases of the table, in column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Algo {
    Brute,
    SortSweep,
    Grid,
    Hash,
    Quadtree,
    Tree,
    Sap,
}

impl Algo {
    const ALL: [Algo; 7] =
        [Algo::Brute, Algo::SortSweep, Algo::Grid, Algo::Hash, Algo::Quadtree, Algo::Tree, Algo::Sap];

    fn name(self) -> &'static str {
        match self {
            Algo::Brute => "brute",
            Algo::SortSweep => "sort-sweep",
            Algo::Grid => "grid",
            Algo::Hash => "hash",
            Algo::Quadtree => "quadtree",
            Algo::Tree => "tree",
            Algo::Sap => "sap",
        }
    }

    /// The seed's 40-unit cells; grid and quadtree over the scene's world.
    fn kind(self, world: Aabb) -> BroadPhaseKind {
        match self {
            Algo::Brute => BroadPhaseKind::BruteForce,
            Algo::SortSweep => BroadPhaseKind::SortSweep,
            Algo::Grid => BroadPhaseKind::UniformGrid { bounds: world, cell_size: 40.0 },
            Algo::Hash => BroadPhaseKind::SpatialHash { cell_size: 40.0 },
            Algo::Quadtree => BroadPhaseKind::Quadtree { bounds: world },
            Algo::Tree => BroadPhaseKind::DynamicTree,
            Algo::Sap => BroadPhaseKind::IncrementalSap,
        }
    }
}

fn kind_name(kind: &BroadPhaseKind) -> &'static str {
    match kind {
        BroadPhaseKind::BruteForce => "brute",
        BroadPhaseKind::SortSweep => "sort-sweep",
        BroadPhaseKind::UniformGrid { .. } => "grid",
        BroadPhaseKind::SpatialHash { .. } => "hash",
        BroadPhaseKind::Quadtree { .. } => "quadtree",
        BroadPhaseKind::DynamicTree => "tree",
        BroadPhaseKind::IncrementalSap => "sap",
    }
}

/// The seed table's published reference numbers (`docs/SCENES.md` §1; 1024 colliders, C++), in
/// ms, in `SeedScenario::ALL` order: SAP, grid, tree.
const SEED_MS: [(&str, [f64; 8]); 3] = [
    ("SAP", [1.38, 1.42, 1.38, 6.4, 11.8, 63.2, 1.73, 30.7]),
    ("grid", [1.92, 1.85, 1.87, 8.75, 12.7, 66.4, 1.88, 44.5]),
    ("tree", [1.84, 1.88, 1.78, 7.44, 10.7, 54.4, 2.04, 28.5]),
];
/// The same source's brute force at 1024, 50% moving.
const SEED_BRUTE_HALF_MS: f64 = 13.7;

struct Options {
    sizes: Vec<usize>,
    steps: usize,
    warmup: usize,
    algos: Vec<Algo>,
    scenarios: Vec<SeedScenario>,
    max_pairs: u64,
    /// Wall-clock budget of one cell's timed steps; `min_steps` are always timed.
    cell_budget: Duration,
    cpu_overhead_ms: f64,
    /// Steps always timed, whatever the budget.
    min_steps: usize,
    /// The advisor runs for sizes up to this.
    advisor_max_size: usize,
    advisor: bool,
    docs: bool,
    big: bool,
    /// `--big`: which percentages move (each in its own process).
    percents: Vec<usize>,
    /// `--big`: insert the still colliders as static.
    static_still: bool,
    out: String,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        sizes: vec![1024, 8192, 65536],
        steps: 30,
        warmup: 3,
        algos: Algo::ALL.to_vec(),
        scenarios: SeedScenario::ALL.to_vec(),
        max_pairs: 12_000_000,
        cell_budget: Duration::from_secs(4),
        cpu_overhead_ms: 0.0,
        min_steps: 3,
        advisor_max_size: 8192,
        advisor: true,
        docs: false,
        big: false,
        percents: vec![1, 10],
        static_still: false,
        out: "out".into(),
    };
    let mut steps_given = false;
    let mut max_pairs_given = false;
    let mut sizes_given = false;
    let mut quick = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--quick" => quick = true,
            "--docs" => o.docs = true,
            "--big" => o.big = true,
            "--no-advisor" => o.advisor = false,
            "--static-still" => o.static_still = true,
            "--percent" => {
                o.percents = value()?
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().map_err(|e| format!("--percent: {s}: {e}")))
                    .collect::<Result<_, _>>()?;
                if o.percents.iter().any(|&p| p == 0 || p > 100 || 100 % p != 0) {
                    return Err("--percent: each value must divide 100".into());
                }
            }
            "--out" => o.out = value()?,
            "--steps" => {
                o.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?;
                steps_given = true;
            }
            "--max-pairs" => {
                let v: f64 = value()?.parse().map_err(|e| format!("--max-pairs: {e}"))?;
                o.max_pairs = v as u64;
                max_pairs_given = true;
            }
            "--sizes" => {
                o.sizes = value()?
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().map_err(|e| format!("--sizes: {s}: {e}")))
                    .collect::<Result<_, _>>()?;
                sizes_given = true;
            }
            "--algos" => {
                o.algos = value()?
                    .split(',')
                    .map(|s| Algo::ALL.into_iter().find(|a| a.name() == s.trim()).ok_or(format!("unknown algo {s}")))
                    .collect::<Result<_, _>>()?;
            }
            "--scenarios" => {
                o.scenarios = value()?
                    .split(',')
                    .map(|s| SeedScenario::from_name(s.trim()).ok_or(format!("unknown scenario {s}")))
                    .collect::<Result<_, _>>()?;
            }
            "-h" | "--help" => {
                return Err("usage: scenarios [--quick] [--docs] [--big] [--sizes 1024,8192,65536] [--steps N] \
                     [--algos brute,sort-sweep,grid,hash,quadtree,tree,sap] [--scenarios random-still,...] \
                     [--max-pairs N] [--no-advisor] [--out DIR] [--big [--percent 1,10] [--static-still]]"
                    .into());
            }
            other => return Err(format!("unknown option {other} (try --help)")),
        }
    }
    if quick {
        if !steps_given {
            o.steps = 5;
        }
        o.warmup = 1;
        o.cell_budget = Duration::from_millis(300);
        o.min_steps = 1;
        o.advisor_max_size = 1024;
        if !max_pairs_given {
            // Building a world with millions of pairs takes seconds (8192 row / column).
            o.max_pairs = 1_000_000;
        }
        if !sizes_given {
            o.sizes = vec![1024, 8192];
        }
    }
    if o.steps == 0 {
        return Err("--steps must be positive".into());
    }
    Ok(o)
}

/// Feeds a scene's changes into a world: the scene's ids map to world ids.
#[derive(Clone)]
struct Driver {
    scene: Scene,
    ids: Vec<Option<ColliderId>>,
}

impl Driver {
    /// Builds the world's colliders (all moving bodies: still ones simply never move; static
    /// colliders would skip still–still pairs and the scenes count those).
    fn build(scene: Scene, world: &mut World) -> Driver {
        let descs: Vec<ColliderDesc> =
            scene.colliders().iter().map(|c| ColliderDesc::new(c.shape.clone(), c.pose)).collect();
        let mut out = Vec::with_capacity(descs.len());
        world.insert_batch(&descs, &mut out).expect("scene colliders are valid");
        let mut ids = vec![None; scene.id_bound()];
        for (c, id) in scene.colliders().iter().zip(out) {
            ids[c.id as usize] = Some(id);
        }
        Driver { scene, ids }
    }

    /// Untimed: the scene's own motion.
    fn advance(&mut self) {
        self.scene.step();
    }

    /// Timed: tells the world what the last scene step changed.
    fn apply(&mut self, world: &mut World) {
        for &gone in self.scene.removed() {
            let id = self.ids[gone as usize].take().expect("removed id was live");
            world.remove(id).expect("live id");
        }
        let fresh = self.scene.inserted().len();
        let cs = self.scene.colliders();
        for c in cs[..cs.len() - fresh].iter().filter(|c| c.moving) {
            world.set_pose(self.ids[c.id as usize].expect("live id"), c.pose).expect("valid pose");
        }
        if self.ids.len() < self.scene.id_bound() {
            self.ids.resize(self.scene.id_bound(), None);
        }
        for &new in self.scene.inserted() {
            let c = self.scene.get(new).expect("inserted id is live");
            self.ids[new as usize] =
                Some(world.insert(ColliderDesc::new(c.shape.clone(), c.pose)).expect("valid collider"));
        }
    }
}

/// One (scenario, size, algorithm) run.
#[derive(Clone, Debug)]
struct Cell {
    size: usize,
    scenario: SeedScenario,
    algo: Algo,
    outcome: Outcome,
}

#[derive(Clone, Debug)]
enum Outcome {
    Ran {
        median_ms: f64,
        /// Median CPU time per step summed over all threads (rayon workers' spinning included),
        /// ms: the work done, which this shared machine's wall clock hides under scheduling.
        cpu_ms: f64,
        min_ms: f64,
        max_ms: f64,
        /// From scratch: the world built (`insert_batch`) and its first step, ms.
        build_ms: f64,
        /// The first step alone, ms.
        first_step_ms: f64,
        /// Steps timed (the rest of `counts` is warm-up).
        timed: usize,
        /// Touching pairs after each step (warm-up and timed).
        counts: Vec<usize>,
        /// Whether the counts agree with the reference (brute force, or at 65536 the first
        /// algorithm that ran).
        matches: Option<bool>,
    },
    Skipped(String),
    Panicked(String),
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

/// Runs one cell and returns it with the default world's final state (for the advisor).
fn run_cell(o: &Options, scenario: SeedScenario, n: usize, algo: Algo) -> (Outcome, Option<(World, Driver)>) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let scene = Scene::seed(scenario, n, DEFAULT_SEED);
        let config = WorldConfig { broad_phase: algo.kind(seed_world(n)), ..WorldConfig::default() };
        let mut world = World::with_config(config).expect("valid config");
        let t = Instant::now();
        let mut driver = Driver::build(scene, &mut world);
        let t1 = Instant::now();
        world.step();
        let first_step_ms = t1.elapsed().as_secs_f64() * 1e3;
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut counts = Vec::with_capacity(o.warmup + o.steps);
        for _ in 0..o.warmup {
            driver.advance();
            driver.apply(&mut world);
            world.step();
            counts.push(world.contacts().len());
        }
        let mut times = Vec::with_capacity(o.steps);
        let mut cpu = Vec::with_capacity(o.steps);
        let started = Instant::now();
        for k in 0..o.steps {
            if k >= o.min_steps && started.elapsed() > o.cell_budget {
                break;
            }
            driver.advance();
            let c0 = cpu_ms();
            let t = Instant::now();
            driver.apply(&mut world);
            world.step();
            times.push(t.elapsed().as_secs_f64() * 1e3);
            cpu.push((cpu_ms() - c0 - o.cpu_overhead_ms).max(0.0));
            counts.push(world.contacts().len());
        }
        let (min_ms, max_ms) = times.iter().fold((f64::MAX, 0.0f64), |(a, b), &t| (a.min(t), b.max(t)));
        let timed = times.len();
        let median_ms = median(&mut times);
        let cpu_ms = median(&mut cpu);
        (
            Outcome::Ran { median_ms, cpu_ms, min_ms, max_ms, build_ms, first_step_ms, timed, counts, matches: None },
            (world, driver),
        )
    }));
    match result {
        Ok((outcome, state)) => (outcome, (algo == Algo::Sap).then_some(state)),
        Err(e) => {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            (Outcome::Panicked(msg), None)
        }
    }
}

/// Pairs of overlapping tight boxes in the scene's first frame, counted by a sweep on x: how
/// crowded a scene is, to skip cells that would not fit in memory.
fn overlapping_boxes(scene: &Scene) -> u64 {
    let mut boxes: Vec<Aabb> = scene.colliders().iter().map(|c| c.aabb()).collect();
    boxes.sort_by(|a, b| a.min.x.total_cmp(&b.min.x));
    let mut count = 0u64;
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            if b.min.x > a.max.x {
                break;
            }
            count += u64::from(a.min.y <= b.max.y && b.min.y <= a.max.y);
        }
    }
    count
}

/// The CPU time that reading [`cpu_ms`] twice costs by itself (median of 21), subtracted from
/// every reading.
fn cpu_overhead_ms() -> f64 {
    let mut v: Vec<f64> = (0..21)
        .map(|_| {
            let a = cpu_ms();
            cpu_ms() - a
        })
        .collect();
    median(&mut v)
}

/// Peak resident memory of this process so far, in MiB (`VmHWM`).
fn peak_rss_mib() -> f64 {
    big::status_kib("VmHWM:").map_or(f64::NAN, |k| k as f64 / 1024.0)
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if o.big {
        return big::run(&o.out, &o.percents, o.static_still);
    }
    let mut o = o;
    o.cpu_overhead_ms = cpu_overhead_ms();
    if let Err(e) = std::fs::create_dir_all(&o.out) {
        eprintln!("cannot create {}: {e}", o.out);
        return ExitCode::from(2);
    }

    let planned = o.sizes.len() * o.scenarios.len() * o.algos.len();
    let bar = ProgressBar::new(planned as u64).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let mut cells: Vec<Cell> = Vec::with_capacity(planned);
    // (size, scenario) → the advisor's ranking, when it ran.
    let mut advice: Vec<(usize, SeedScenario, Result<advisor::Advice, String>)> = Vec::new();
    for &n in &o.sizes {
        for &scenario in &o.scenarios {
            let crowd = overlapping_boxes(&Scene::seed(scenario, n, DEFAULT_SEED));
            let mut sap_state = None;
            for &algo in &o.algos {
                bar.set_message(format!("{n} {} {}", scenario.name(), algo.name()));
                let outcome = if crowd > o.max_pairs {
                    Outcome::Skipped(format!("{crowd} overlapping boxes > --max-pairs {}", o.max_pairs))
                } else if algo == Algo::Brute && n > 8192 {
                    Outcome::Skipped("brute force skipped above 8192".into())
                } else {
                    let (outcome, state) = run_cell(&o, scenario, n, algo);
                    if state.is_some() {
                        sap_state = state;
                    }
                    outcome
                };
                cells.push(Cell { size: n, scenario, algo, outcome });
                bar.inc(1);
            }
            if o.advisor
                && n <= o.advisor_max_size
                && let Some((world, driver)) = sap_state
            {
                bar.set_message(format!("{n} {} advisor", scenario.name()));
                advice.push((n, scenario, run_advisor(&world, &driver)));
            }
        }
    }
    bar.finish_and_clear();
    let elapsed = started.elapsed();

    let mismatches = check_counts(&mut cells);
    let report = render(&o, &cells, &advice, elapsed);
    println!("{report}");
    let csv_path = format!("{}/scenarios.csv", o.out);
    if let Err(e) = std::fs::write(&csv_path, csv(&cells)) {
        eprintln!("cannot write {csv_path}: {e}");
    }
    let png_path = format!("{}/scenarios.png", o.out);
    let seed_sap = |n: usize, s: SeedScenario| {
        let k = SeedScenario::ALL.iter().position(|&x| x == s)?;
        (n == 1024).then_some(SEED_MS[0].1[k])
    };
    match chart::draw(&png_path, &o.sizes, &o.scenarios, &o.algos, &cells, seed_sap) {
        Ok(()) => {
            println!("wrote {csv_path} and {png_path}");
            if o.docs {
                let copied =
                    std::fs::create_dir_all("docs").and_then(|()| std::fs::copy(&png_path, "docs/scenarios.png"));
                match copied {
                    Ok(_) => println!("copied the chart to docs/scenarios.png"),
                    Err(e) => eprintln!("cannot copy the chart to docs/: {e}"),
                }
            }
        }
        Err(e) => eprintln!("wrote {csv_path}; no chart: {e}"),
    }
    let panics = cells.iter().filter(|c| matches!(c.outcome, Outcome::Panicked(_))).count();
    if mismatches > 0 || panics > 0 {
        eprintln!("FAILED: {mismatches} touching-pair mismatch(es), {panics} panic(s)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The advisor on the default world as the SAP run left it, replaying the scene from there.
fn run_advisor(world: &World, driver: &Driver) -> Result<advisor::Advice, String> {
    let start = driver.clone();
    let mut d = driver.clone();
    catch_unwind(AssertUnwindSafe(|| {
        advisor::advise(world, 5, |w: &mut World, step| {
            if step == 0 {
                d = start.clone();
            }
            d.advance();
            d.apply(w);
        })
        .map_err(|e| e.to_string())
    }))
    .unwrap_or_else(|_| Err("a candidate panicked".into()))
}

/// Marks every ran cell against its reference; returns the number of mismatches.
fn check_counts(cells: &mut [Cell]) -> usize {
    let mut mismatches = 0;
    let keys: Vec<(usize, SeedScenario)> = cells.iter().map(|c| (c.size, c.scenario)).collect();
    for (n, s) in keys {
        let group: Vec<usize> = (0..cells.len()).filter(|&i| cells[i].size == n && cells[i].scenario == s).collect();
        let counts_of = |c: &Cell| match &c.outcome {
            Outcome::Ran { counts, .. } => Some(counts.clone()),
            _ => None,
        };
        // Brute force when it ran, else the first algorithm that ran.
        let reference = group
            .iter()
            .find(|&&i| cells[i].algo == Algo::Brute && counts_of(&cells[i]).is_some())
            .or_else(|| group.iter().find(|&&i| counts_of(&cells[i]).is_some()))
            .and_then(|&i| counts_of(&cells[i]));
        let Some(reference) = reference else { continue };
        for &i in &group {
            if let Outcome::Ran { counts, matches, .. } = &mut cells[i].outcome {
                if matches.is_some() {
                    continue;
                }
                let k = counts.len().min(reference.len());
                let ok = counts[..k] == reference[..k];
                *matches = Some(ok);
                if !ok {
                    mismatches += 1;
                }
            }
        }
    }
    mismatches
}

fn cell(cells: &[Cell], n: usize, s: SeedScenario, a: Algo) -> Option<&Cell> {
    cells.iter().find(|c| c.size == n && c.scenario == s && c.algo == a)
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else if ms >= 0.1 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

/// The tables printed per size.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Table {
    /// Steady step, wall clock.
    Wall,
    /// The world built and its first step, wall clock.
    First,
    /// Steady step, CPU time over all threads.
    Cpu,
}

fn render(
    o: &Options,
    cells: &[Cell],
    advice: &[(usize, SeedScenario, Result<advisor::Advice, String>)],
    elapsed: Duration,
) -> String {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "# sapwood scenarios — median ms per full world step (set_pose/insert/remove + step), seed {DEFAULT_SEED}"
    );
    let _ = writeln!(
        r,
        "\n{} timed steps per cell after {} warm-up (fewer when a cell exceeds its {:.1} s budget; see the CSV), \
         run took {:.0} s. Peak RSS {:.0} MiB. `sap` is the default world. Touching pairs = `world.contacts().len()` \
         after the last step; `!` marks a count that differs from brute force (or, without brute force, from the \
         other algorithms). Seed columns: the seed table's published numbers at 1024 (C++ on unknown hardware; grid at 8192 where \
         published), in ms.",
        o.steps,
        o.warmup,
        o.cell_budget.as_secs_f64(),
        elapsed.as_secs_f64(),
        peak_rss_mib()
    );
    for (&n, table) in o.sizes.iter().flat_map(|n| [(n, Table::Wall), (n, Table::First), (n, Table::Cpu)]) {
        let w = seed_world(n);
        let cpu = table == Table::Cpu;
        match table {
            Table::Wall => {
                let _ = writeln!(
                    r,
                    "\n## {n} colliders, world {} x {}, wall-clock ms per step (steady: median after warm-up)\n",
                    w.max.x, w.max.y
                );
            }
            Table::First => {
                let _ = writeln!(
                    r,
                    "\n{n} colliders, **first step from scratch**, wall-clock ms: the world built (`insert_batch`) and \
                     its first step, the work a world rebuilt every frame does each frame (a persistent world steps \
                     a still scene for almost nothing):\n"
                );
            }
            Table::Cpu => {
                let _ = writeln!(r, "\n{n} colliders, **CPU** ms per step (summed over threads, median; same runs):\n");
            }
        }
        let mut head = String::from("| scenario |");
        let mut rule = String::from("|---|");
        for a in &o.algos {
            let _ = write!(head, " {} |", if *a == Algo::Sap { "sap (default)" } else { a.name() });
            rule.push_str("---:|");
        }
        head.push_str(" touching pairs |");
        rule.push_str("---:|");
        let seed_cols = !cpu && (n == 1024 || n == 8192);
        if seed_cols {
            head.push_str(" seed SAP | seed grid | seed tree | seed brute |");
            rule.push_str("---:|---:|---:|---:|");
        }
        head.push_str(" advisor |");
        rule.push_str("---|");
        let _ = writeln!(r, "{head}\n{rule}");
        for (si, &s) in o.scenarios.iter().enumerate() {
            let _ = si;
            let mut line = format!("| {} |", s.name());
            let mut pairs: Option<usize> = None;
            let mut skipped_note = None;
            for &a in &o.algos {
                match cell(cells, n, s, a).map(|c| &c.outcome) {
                    Some(Outcome::Ran { median_ms, cpu_ms, build_ms, counts, matches, .. }) => {
                        let bad = *matches == Some(false);
                        let v = match table {
                            Table::Wall => *median_ms,
                            Table::First => *build_ms,
                            Table::Cpu => *cpu_ms,
                        };
                        let _ = write!(line, " {}{} |", fmt_ms(v), if bad { " !" } else { "" });
                        if !bad {
                            pairs = pairs.or(counts.last().copied());
                        }
                    }
                    Some(Outcome::Skipped(why)) => {
                        line.push_str(" skipped |");
                        if a != Algo::Brute || n <= 8192 {
                            skipped_note = Some(why.clone());
                        }
                    }
                    Some(Outcome::Panicked(_)) => line.push_str(" panic |"),
                    None => line.push_str(" – |"),
                }
            }
            match (pairs, skipped_note) {
                (Some(p), _) => {
                    let _ = write!(line, " {p} |");
                }
                (None, Some(why)) => {
                    let _ = write!(line, " ({why}) |");
                }
                (None, None) => line.push_str(" – |"),
            }
            if seed_cols {
                let k = SeedScenario::ALL.iter().position(|&x| x == s).unwrap_or(0);
                if n == 1024 {
                    for (_, row) in SEED_MS {
                        let _ = write!(line, " {} |", fmt_ms(row[k]));
                    }
                    if s == SeedScenario::RandomHalf {
                        let _ = write!(line, " {} |", fmt_ms(SEED_BRUTE_HALF_MS));
                    } else {
                        line.push_str(" |");
                    }
                } else {
                    let grid8k = match s {
                        SeedScenario::RandomHalf => "42.8",
                        SeedScenario::Point => "1700",
                        _ => "",
                    };
                    let _ = write!(line, " | {grid8k} | | |");
                }
            }
            match advice.iter().find(|(an, asc, _)| *an == n && *asc == s && table == Table::Wall) {
                Some((_, _, Ok(adv))) => {
                    let _ = write!(line, " {} |", kind_name(&adv.best));
                }
                Some((_, _, Err(e))) => {
                    let _ = write!(line, " ({e}) |");
                }
                None => line.push_str(" – |"),
            }
            let _ = writeln!(r, "{line}");
        }
    }
    // Two ratios a user asks about: against doing nothing clever, and a still world against a
    // moving one (the project's targets for them are in BENCHMARKS.md).
    if let (Some(sap), Some(brute)) = (
        cell(cells, 1024, SeedScenario::RandomHalf, Algo::Sap),
        cell(cells, 1024, SeedScenario::RandomHalf, Algo::Brute),
    ) && let (Outcome::Ran { median_ms: a, cpu_ms: ac, .. }, Outcome::Ran { median_ms: b, cpu_ms: bc, .. }) =
        (&sap.outcome, &brute.outcome)
    {
        let (ratio, cpu_ratio) = (b / a, bc / ac);
        let _ = writeln!(
            r,
            "\n1024 random-half: the default world steps {ratio:.1}x faster than the brute-force world (CPU time: \
             {cpu_ratio:.1}x)."
        );
    }
    for &n in &o.sizes {
        if let (Some(still), Some(all)) =
            (cell(cells, n, SeedScenario::RandomStill, Algo::Sap), cell(cells, n, SeedScenario::RandomAll, Algo::Sap))
            && let (Outcome::Ran { median_ms: a, cpu_ms: ac, .. }, Outcome::Ran { median_ms: b, cpu_ms: bc, .. }) =
                (&still.outcome, &all.outcome)
        {
            let (pct, cpu_pct) = (100.0 * a / b, 100.0 * ac / bc);
            let _ = writeln!(
                r,
                "{n} random-still: a step where nothing moved costs {pct:.2}% of a random-all step (CPU time: {cpu_pct:.2}%)."
            );
        }
    }
    if !advice.is_empty() {
        let _ = writeln!(r, "\nAdvisor rankings (median of 5 steps on a copy of the default world, fastest first):");
        for (n, s, a) in advice {
            match a {
                Ok(adv) => {
                    let list: Vec<String> = adv
                        .ranking
                        .iter()
                        .map(|(k, t)| format!("{} {}", kind_name(k), fmt_ms(t.as_secs_f64() * 1e3)))
                        .collect();
                    let _ = writeln!(r, "- {n} {}: {}", s.name(), list.join(", "));
                }
                Err(e) => {
                    let _ = writeln!(r, "- {n} {}: {e}", s.name());
                }
            }
        }
    }
    for c in cells {
        if let Outcome::Panicked(msg) = &c.outcome {
            let _ = writeln!(r, "PANIC {} {} {}: {msg}", c.size, c.scenario.name(), c.algo.name());
        }
    }
    r
}

fn csv(cells: &[Cell]) -> String {
    let mut s = String::from(
        "size,scenario,algo,status,median_ms,cpu_median_ms,min_ms,max_ms,timed_steps,build_ms,first_step_ms,touching_pairs,matches\n",
    );
    for c in cells {
        let _ = match &c.outcome {
            Outcome::Ran { median_ms, cpu_ms, min_ms, max_ms, build_ms, first_step_ms, timed, counts, matches } => {
                writeln!(
                    s,
                    "{},{},{},ran,{median_ms:.4},{cpu_ms:.4},{min_ms:.4},{max_ms:.4},{},{build_ms:.2},{first_step_ms:.3},{},{}",
                    c.size,
                    c.scenario.name(),
                    c.algo.name(),
                    timed,
                    counts.last().copied().unwrap_or(0),
                    matches.map_or("", |m| if m { "yes" } else { "NO" })
                )
            }
            Outcome::Skipped(why) => {
                writeln!(
                    s,
                    "{},{},{},skipped: {},,,,,,,,,",
                    c.size,
                    c.scenario.name(),
                    c.algo.name(),
                    why.replace(',', ";")
                )
            }
            Outcome::Panicked(msg) => writeln!(
                s,
                "{},{},{},panic: {},,,,,,,,,",
                c.size,
                c.scenario.name(),
                c.algo.name(),
                msg.replace([',', '\n'], ";")
            ),
        };
    }
    s
}
