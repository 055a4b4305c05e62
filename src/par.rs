//! The step's parallel operations: rayon's with the `parallel` feature, plain serial iteration
//! without it.
//!
//! The step uses a handful of rayon's calls: `par_iter`, `par_iter_mut`, `par_chunks` and
//! `par_chunks_mut` on slices (from `par::prelude`), chained with `zip`, `enumerate`, `map`,
//! `for_each` and `collect_into_vec`, plus `par::join` and `par::on_worker`. Without `parallel`,
//! the `par_*` methods return the standard slice iterators, whose `zip`, `enumerate`, `map` and
//! `for_each` mean the same, so a call site reads the same in both builds and has no `cfg` of
//! its own.
//!
//! Both builds give the same bits: every parallel pass splits its work by counts alone and its
//! results are applied in an order fixed by the input (see `world::step`), so the serial build
//! is the parallel one on a pool of one thread.

#[cfg(feature = "parallel")]
pub(crate) use rayon::join;

/// Runs `f` on one of the pool's worker threads while another worker helps with its parallel
/// passes until it returns.
///
/// On a worker, each pass pushes its halves onto that worker's own deque; a pass started from
/// a thread outside the pool would queue its job there and sleep until it was done. And between
/// the passes the step has serial parts (the pair changes, the welds), long enough for an idle
/// worker to fall asleep, after which the next pass's first half waits for it to wake: 20–100
/// µs a pass where threads are virtual CPUs, against passes of a few hundred. So another worker
/// is given `f`'s lifetime in one job, in which it takes and runs the pool's work as it appears
/// and otherwise yields its core to whatever else the machine runs, without sleeping: one
/// wake-up a step, not one a pass.
///
/// A thread inside a step never helps another: it returns from a helping job at once. The
/// helping job may be taken by `f`'s own thread (a pool of one thread, after `f`), or by a
/// thread inside another world's step, waiting on one of its own passes. Spinning there would
/// block the step beneath it: `f`'s own (for ever), or the other world's, whose helping job
/// could in turn sit on `f`'s thread, each waiting for the other.
#[cfg(feature = "parallel")]
#[inline]
pub fn on_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};
    thread_local! {
        /// How many steps' `f` this thread is inside.
        static IN_STEP: Cell<u32> = const { Cell::new(0) };
    }
    /// Marks `f` done when it returns or unwinds (a panic in `f` must still end the helping),
    /// and its thread as out of it.
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            IN_STEP.set(IN_STEP.get() - 1);
            self.0.store(true, Ordering::Release);
        }
    }
    let done = AtomicBool::new(false);
    rayon::join(
        || {
            IN_STEP.set(IN_STEP.get() + 1);
            let _done = Done(&done);
            f()
        },
        || {
            if IN_STEP.get() > 0 {
                return;
            }
            while !done.load(Ordering::Acquire) {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    std::thread::yield_now();
                }
            }
        },
    )
    .0
}

/// Runs `a`, then `b`.
#[cfg(not(feature = "parallel"))]
#[inline]
pub(crate) fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    (a(), b())
}

/// Runs `f`: without a pool there is no worker to move to.
#[cfg(not(feature = "parallel"))]
#[inline]
pub fn on_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    f()
}

/// The slice and iterator methods.
#[cfg(feature = "parallel")]
pub(crate) mod prelude {
    pub(crate) use rayon::prelude::*;
}

/// rayon's slice and iterator methods as the standard library's serial iterators.
#[cfg(not(feature = "parallel"))]
pub(crate) mod prelude {
    /// `par_iter` and `par_chunks` on a shared slice.
    pub(crate) trait ParallelSlice<T> {
        fn par_iter(&self) -> std::slice::Iter<'_, T>;
        fn par_chunks(&self, size: usize) -> std::slice::Chunks<'_, T>;
    }

    impl<T> ParallelSlice<T> for [T] {
        #[inline]
        fn par_iter(&self) -> std::slice::Iter<'_, T> {
            self.iter()
        }
        #[inline]
        fn par_chunks(&self, size: usize) -> std::slice::Chunks<'_, T> {
            self.chunks(size)
        }
    }

    /// `par_iter_mut` and `par_chunks_mut` on a mutable slice.
    pub(crate) trait ParallelSliceMut<T> {
        fn par_iter_mut(&mut self) -> std::slice::IterMut<'_, T>;
        fn par_chunks_mut(&mut self, size: usize) -> std::slice::ChunksMut<'_, T>;
    }

    impl<T> ParallelSliceMut<T> for [T] {
        #[inline]
        fn par_iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
            self.iter_mut()
        }
        #[inline]
        fn par_chunks_mut(&mut self, size: usize) -> std::slice::ChunksMut<'_, T> {
            self.chunks_mut(size)
        }
    }

    /// rayon's `collect_into_vec`: the items in order into `out`, cleared first, its capacity
    /// kept.
    pub(crate) trait CollectIntoVec: Iterator + Sized {
        #[inline]
        fn collect_into_vec(self, out: &mut Vec<Self::Item>) {
            out.clear();
            out.extend(self);
        }
    }

    impl<I: Iterator> CollectIntoVec for I {}
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::on_worker;
    use rayon::prelude::*;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    use std::sync::mpsc::{RecvTimeoutError, channel};
    use std::time::Duration;

    /// A parallel sum over `0..n`, spread over the pool it runs in, and its value.
    fn workload(n: u64) -> (impl Fn() -> u64 + Copy + Send + Sync, u64) {
        (move || (0..n).into_par_iter().map(|x| x % 7).sum::<u64>(), (0..n).map(|x| x % 7).sum())
    }

    /// A pool of `threads` threads.
    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
    }

    /// Runs `test` on a thread of its own, outside any pool, and fails if it has not ended
    /// within two minutes: a helper that never stops helping would otherwise hang the test run
    /// rather than fail it.
    fn in_time(test: impl FnOnce() + Send + 'static) {
        let (done, finished) = channel();
        let run = std::thread::spawn(move || {
            test();
            done.send(()).unwrap();
        });
        match finished.recv_timeout(Duration::from_secs(120)) {
            Ok(()) => run.join().unwrap(),
            Err(RecvTimeoutError::Disconnected) => resume_unwind(run.join().unwrap_err()),
            Err(RecvTimeoutError::Timeout) => panic!("not ended after two minutes: a helper kept helping"),
        }
    }

    /// `on_worker` finishes its parallel work and ends its helping on pools of every size, from
    /// inside the pool and from outside it, and a panic in `f` reaches the caller instead of
    /// leaving a helper spinning.
    #[test]
    fn on_worker_ends_its_helping_on_every_pool_and_through_a_panic() {
        let (sum, expected) = workload(100_000);
        in_time(move || {
            for threads in 1..=4 {
                pool(threads).install(|| {
                    for _ in 0..50 {
                        assert_eq!(on_worker(|| on_worker(sum)), expected, "{threads} threads");
                    }
                    let caught = catch_unwind(AssertUnwindSafe(|| on_worker(|| -> u64 { panic!("in the step") })));
                    assert!(caught.is_err(), "{threads} threads");
                    assert_eq!(on_worker(sum), expected, "the pool still works after the panic");
                });
            }
            assert_eq!(on_worker(sum), expected, "from outside any pool");
        });
    }

    /// Steps of several worlds at once on one pool (a server's rooms, say): each step's helping
    /// job can be taken by a thread that is itself inside another step, waiting on its own
    /// passes. Were it to stay there until that other step ends, two such threads could each
    /// wait for the other's step for ever.
    #[test]
    fn steps_run_side_by_side_on_one_pool_end() {
        let (sum, expected) = workload(20_000);
        in_time(move || {
            for threads in 2..=4 {
                pool(threads).install(|| {
                    for _ in 0..2_000 {
                        let r: Vec<u64> =
                            (0..6).into_par_iter().map(|_| on_worker(|| sum() + on_worker(sum))).collect();
                        assert!(r.iter().all(|&x| x == 2 * expected), "{threads} threads");
                    }
                });
            }
        });
    }
}
