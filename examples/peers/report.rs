//! The tables every scene prints (per engine, median, mean, p90 and p99 ms per step, and each
//! peer's ratio to sapwood), and the one-engine run every scene offers for profiling.

use std::time::Duration;

use sapwood_support::peers::{RapierSide, SapwoodSide, Stats, time_cpu};
use sapwood_support::scenes::Scene;

use crate::{Args, sapwood_config};

/// One engine's timings at one size and thread count.
pub struct Timing {
    pub name: &'static str,
    pub wall: Stats,
    /// Mean CPU ms per step of the thread that ran the step (`None` without /proc, for sapwood
    /// above 1 thread, whose rayon helpers run on other threads, and for Box2D's own profile).
    pub cpu_ms: Option<f64>,
}

/// Every engine's timings at one size and thread count; sapwood's first.
pub struct Timings {
    /// The first column: the size, or the scene's name.
    pub label: String,
    pub n: usize,
    pub threads: usize,
    pub steps: usize,
    pub engines: Vec<Timing>,
}

/// Milliseconds with three decimals, or a dash.
pub fn ms(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |x| format!("{x:.3}"))
}

/// The per-engine table: one line per engine, size and thread count.
pub fn print_timings<'a>(rows: impl IntoIterator<Item = &'a Timings>, size: &str) {
    println!(
        "| {size} | threads | steps | engine | median ms | mean ms | p90 ms | p99 ms | p99 / median | CPU ms/step |"
    );
    println!("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        for t in &r.engines {
            let w = t.wall;
            println!(
                "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} | {} |",
                r.label,
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
}

/// Each engine in `columns` (indices into [`Timings::engines`]) over sapwood, by median and by
/// mean.
pub fn print_ratios<'a>(rows: impl IntoIterator<Item = &'a Timings> + Clone, size: &str, columns: &[usize]) {
    let Some(first) = rows.clone().into_iter().next() else { return };
    let names: Vec<&str> = columns.iter().map(|&c| first.engines[c].name).collect();
    println!("| {size} | threads | peer / sapwood, median and mean: {} |", names.join(" | "));
    println!("|---:|---:|{}", "---|".repeat(columns.len()));
    for r in rows {
        let s = r.engines[0].wall;
        let ratio = |t: &Timing| format!("{:.1}x, {:.1}x", t.wall.median / s.median, t.wall.mean / s.mean);
        let cells: Vec<String> = columns.iter().map(|&c| ratio(&r.engines[c])).collect();
        println!("| {} | {} | {} |", r.label, r.threads, cells.join(" | "));
    }
}

/// One engine alone beside a Box2D simulation (which the others need for their poses), for
/// profiling: `advance` steps Box2D and hands its poses to `scene` (its time is the `box2d`
/// row), then `engine` steps on them. Prints the engine's step times as `what` describes the run.
pub fn run_engine_alone(
    engine: &str,
    what: &str,
    scene: &mut Scene,
    args: &Args,
    steps: usize,
    mut advance: impl FnMut(&mut Scene) -> (Duration, Option<Duration>),
) -> Result<(), String> {
    let (mut sap, mut rap) = (None, None);
    match engine {
        "sapwood" => sap = Some(SapwoodSide::build_with(scene, sapwood_config(args, scene)?, args.insertion)),
        "rapier" => rap = Some(RapierSide::build(scene)),
        "box2d" => {}
        other => return Err(format!("--only takes sapwood, rapier or box2d, not {other}")),
    }
    let mut times = Vec::with_capacity(steps);
    let mut cpu = Some(Duration::ZERO);
    let mut tally = PhaseTally::default();
    for step in 0..args.warmup + steps {
        let own = advance(scene);
        let (wall, c) = if let Some(sap) = &mut sap {
            time_cpu(|| sap.step(scene))
        } else if let Some(rap) = &mut rap {
            time_cpu(|| rap.step(scene))
        } else {
            own
        };
        if step >= args.warmup {
            times.push(wall.as_secs_f64() * 1e3);
            cpu = cpu.zip(c).map(|(a, b)| a + b);
            if let Some(sap) = &sap {
                tally.add(sap);
            }
        }
    }
    let cpu = cpu.map_or("–".to_string(), |c| format!("{:.3}", c.as_secs_f64() * 1e3 / steps as f64));
    let w = Stats::of(&mut times);
    println!(
        "{engine} alone on {what}: wall ms/step median {:.3}, mean {:.3}, p90 {:.3}, p99 {:.3}; {cpu} CPU ms/step of the stepping thread, {steps} steps",
        w.median, w.mean, w.p90, w.p99
    );
    if sap.is_some() {
        tally.print(w.mean, steps);
    }
    Ok(())
}

/// sapwood's phases and narrow-phase work summed over the timed steps of an alone run.
#[derive(Default)]
pub struct PhaseTally {
    /// AABBs, broad, narrow, continuous, events.
    phases: [Duration; 5],
    /// Colliders escaped, pairs made, pairs freed, pairs evaluated, manifolds reused, contacts
    /// after the step.
    work: [u64; 6],
}

impl PhaseTally {
    pub fn add(&mut self, sap: &SapwoodSide) {
        let t = sap.world.last_step_timings();
        for (sum, d) in self.phases.iter_mut().zip([t.aabbs, t.broad_phase, t.narrow_phase, t.continuous, t.events]) {
            *sum += d;
        }
        let c = sap.world.last_step_counts();
        for (sum, k) in self.work.iter_mut().zip([
            c.escaped,
            c.pairs_began,
            c.pairs_ended,
            c.pairs,
            c.reused,
            sap.world.contacts().len() as u32,
        ]) {
            *sum += u64::from(k);
        }
    }

    /// Prints the means over `steps`; what the step's mean wall time `wall_mean` has beyond the
    /// phases is the time spent telling the world the changes.
    pub fn print(&self, wall_mean: f64, steps: usize) {
        let mean = |d: Duration| d.as_secs_f64() * 1e3 / steps as f64;
        let stepped: f64 = self.phases.iter().map(|&d| mean(d)).sum();
        let [a, b, n, c, e] = self.phases.map(mean);
        println!(
            "sapwood's phases, mean ms: AABBs {a:.3}, broad {b:.3}, narrow {n:.3}, continuous {c:.3}, events {e:.3}; telling the world the changes {:.3}",
            wall_mean - stepped
        );
        let [escaped, began, ended, pairs, reused, contacts] = self.work.map(|k| k as f64 / steps as f64);
        println!(
            "sapwood's work, mean per step: {escaped:.0} colliders escaped, {began:.0} pairs made, {ended:.0} freed; {pairs:.0} pairs evaluated, {reused:.0} manifolds reused, {contacts:.0} contacts"
        );
    }
}
