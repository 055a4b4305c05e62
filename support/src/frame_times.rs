//! Per-frame timings of the windowed examples, split by phase (collision, game logic, drawing,
//! presenting), so that a run with `--seconds N` ends with a line that says whether the window
//! kept up, and where the time went, without anyone watching it.
//!
//! ```text
//! 1203 frames in 20.00 s (60.1 frames/s); median / p99 ms: frame 16.64 / 17.90, collision 3.21 / 4.02, ...
//! ```

use std::time::Instant;

/// Milliseconds since `t`.
pub fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The value at quantile `q` (0..=1) of `v`, by nearest rank; sorts `v`. 0 for an empty slice.
pub fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable_by(f64::total_cmp);
    let rank = (q * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Frame times (start of one frame to the start of the next) and the milliseconds of each named
/// phase within them.
pub struct FrameTimes {
    names: &'static [&'static str],
    /// Per phase, one sample a frame.
    phases: Vec<Vec<f64>>,
    frames: Vec<f64>,
    started: Instant,
    last: Option<Instant>,
}

impl FrameTimes {
    /// Empty, with room for `capacity` frames so that recording does not allocate on the way.
    pub fn new(names: &'static [&'static str], capacity: usize) -> FrameTimes {
        FrameTimes {
            names,
            phases: names.iter().map(|_| Vec::with_capacity(capacity)).collect(),
            frames: Vec::with_capacity(capacity),
            started: Instant::now(),
            last: None,
        }
    }

    /// Records one frame's phases (in the order of the names), called once a frame at the same
    /// point of the loop: the frame time is the interval since the previous call, so it holds
    /// whatever the phases leave out (the window's pacing, the event polling).
    pub fn record(&mut self, phase_ms: &[f64]) {
        debug_assert_eq!(phase_ms.len(), self.names.len());
        let now = Instant::now();
        match self.last {
            Some(last) => self.frames.push((now - last).as_secs_f64() * 1e3),
            None => self.started = now,
        }
        self.last = Some(now);
        for (samples, &ms) in self.phases.iter_mut().zip(phase_ms) {
            samples.push(ms);
        }
    }

    /// Seconds since the first recorded frame.
    pub fn seconds(&self) -> f64 {
        self.last.map_or(0.0, |last| (last - self.started).as_secs_f64())
    }

    /// One line: frame count, rate, and the median and 99th percentile of the frame time and of
    /// each phase.
    pub fn report(&self) -> String {
        let intervals = self.frames.len();
        let seconds = self.seconds();
        let mut line = format!(
            "{} frames in {seconds:.2} s ({:.1} frames/s); median / p99 ms: frame {}",
            intervals,
            intervals as f64 / seconds.max(1e-9),
            spread(&self.frames)
        );
        for (name, samples) in self.names.iter().zip(&self.phases) {
            line.push_str(&format!(", {name} {}", spread(samples)));
        }
        line
    }
}

fn spread(samples: &[f64]) -> String {
    let mut v = samples.to_vec();
    let median = quantile(&mut v, 0.5);
    format!("{median:.2} / {:.2}", quantile(&mut v, 0.99))
}

/// Median, mean and tail of a set of step (or frame) times, in milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// The middle value (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The mean: what a run of many steps costs per step.
    pub mean: f64,
    /// The 90th percentile, by nearest rank.
    pub p90: f64,
    /// The 99th percentile, by nearest rank: the frames a player feels.
    pub p99: f64,
}

impl Stats {
    /// The statistics of `ms` (sorted in place); all zero for an empty slice.
    pub fn of(ms: &mut [f64]) -> Stats {
        if ms.is_empty() {
            return Stats::default();
        }
        let p90 = quantile(ms, 0.9);
        let p99 = quantile(ms, 0.99);
        let n = ms.len();
        let median = if n % 2 == 1 { ms[n / 2] } else { (ms[n / 2 - 1] + ms[n / 2]) / 2.0 };
        Stats { median, mean: ms.iter().sum::<f64>() / n as f64, p90, p99 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(quantile(&mut v, 0.5), 50.0);
        assert_eq!(quantile(&mut v, 0.99), 99.0);
        assert_eq!(quantile(&mut v, 1.0), 100.0);
        assert_eq!(quantile(&mut v, 0.0), 1.0);
        assert_eq!(quantile(&mut [], 0.5), 0.0);
    }

    #[test]
    fn report_names_every_phase() {
        let mut t = FrameTimes::new(&["collision", "drawing"], 4);
        for _ in 0..3 {
            t.record(&[1.0, 2.0]);
        }
        let line = t.report();
        assert!(line.starts_with("2 frames"), "{line}");
        assert!(line.contains("collision 1.00 / 1.00") && line.contains("drawing 2.00 / 2.00"), "{line}");
    }
}
