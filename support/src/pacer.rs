//! Frame pacing for the windowed examples: sleep until the next tick of a fixed rate. Ticks are
//! counted from a fixed origin rather than from the end of the last sleep, so that the
//! oversleep of each `thread::sleep` does not add up and 60 Hz stays 60 frames a second rather
//! than 59.
//!
//! ```text
//!  tick:   0        1        2        3
//!          |--work--|~sleep~|--work--|~~|--work-----------|--work--|
//!                                        behind: no sleep, the schedule restarts from now
//! ```

use std::time::{Duration, Instant};

pub struct Pacer {
    period: Duration,
    next: Instant,
}

impl Pacer {
    pub fn new(hz: f64) -> Pacer {
        let period = Duration::from_secs_f64(1.0 / hz);
        Pacer { period, next: Instant::now() + period }
    }

    /// Sleeps until the next tick. A frame that ran past its tick by a whole period or more
    /// restarts the schedule, so one slow frame is not followed by a burst of unpaced ones
    /// catching up.
    pub fn wait(&mut self) {
        let now = Instant::now();
        if now < self.next {
            std::thread::sleep(self.next - now);
        }
        self.next += self.period;
        if self.next + self.period <= now {
            self.next = now + self.period;
        }
    }
}
