//! The tables every scene prints: per engine, median, mean, p90 and p99 ms per step, and each
//! peer's ratio to sapwood.

use sapwood_support::peers::Stats;

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
