//! The clock behind [`StepTimings`](crate::StepTimings) and the [`advisor`](crate::advisor):
//! `std::time::Instant`, except on `wasm32-unknown-unknown`, whose standard library has no
//! clock (`Instant::now` panics there). On that target every stamp is the same and every span
//! reads zero, so timing never stops a step.

use std::ops::Sub;
use std::time::Duration;

/// A point in time, or nothing on a target without a clock.
#[derive(Clone, Copy)]
pub(crate) struct Stamp {
    #[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
    at: std::time::Instant,
}

impl Stamp {
    /// Now.
    #[inline]
    pub(crate) fn now() -> Stamp {
        Stamp {
            #[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
            at: std::time::Instant::now(),
        }
    }

    /// The time since this stamp.
    #[inline]
    pub(crate) fn elapsed(self) -> Duration {
        Stamp::now() - self
    }
}

#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
impl Sub for Stamp {
    type Output = Duration;

    /// The time from `earlier` to `self`, zero if `earlier` is later.
    #[inline]
    fn sub(self, earlier: Stamp) -> Duration {
        self.at.saturating_duration_since(earlier.at)
    }
}

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
impl Sub for Stamp {
    type Output = Duration;

    #[inline]
    fn sub(self, _earlier: Stamp) -> Duration {
        Duration::ZERO
    }
}
