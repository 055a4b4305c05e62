//! CPU time of the whole process, for benchmarks that report work done rather than wall time
//! (the machine is shared).

/// Milliseconds of CPU time used so far by every thread of this process
/// (`/proc/self/task/*/schedstat`, nanosecond resolution); NaN without /proc.
pub fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return f64::NAN };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .sum::<f64>()
        / 1e6
}
