//! A counting global allocator for the tests that prove a path allocates nothing. A test binary
//! installs it with `#[global_allocator] static GLOBAL: Counting = Counting;`, then counts
//! between [`set_counting`]`(true)` and `(false)`.
//!
//! The count covers the threads doing the work: the one that turns counting on, and the workers
//! of the rayon pools a test builds with [`enroll`] as their start handler (the step's helpers).
//! The test harness's own threads are left out: libtest's main thread allocates its bookkeeping
//! just after it starts a test, and a test whose warm-up takes under a millisecond (the character
//! mover's, without the `parallel` feature) can reach its counted part before that is done. The
//! tests of one binary still take turns through [`serial`], for their enrolled threads.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The system allocator, counting allocations and reallocations while counting is on.
pub struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static SERIAL: Mutex<()> = Mutex::new(());

thread_local! {
    /// Whether this thread's allocations are counted. Constant-initialized and without a
    /// destructor, so the allocator can read it without allocating, even as the thread exits.
    static ENROLLED: Cell<bool> = const { Cell::new(false) };
}

fn counted() -> bool {
    COUNTING.load(Ordering::Relaxed) && ENROLLED.get()
}

// SAFETY: every call forwards to the system allocator unchanged; the wrapper only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counted() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counted() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Turns counting on or off, and enrolls the calling thread.
pub fn set_counting(on: bool) {
    enroll();
    COUNTING.store(on, Ordering::SeqCst);
}

/// Counts the calling thread's allocations from now on (while counting is on). [`pool`]'s
/// workers are enrolled.
pub fn enroll() {
    ENROLLED.set(true);
}

/// A rayon pool of `threads` enrolled workers, each with its one-time set-up done. A worker
/// registers with crossbeam's epoch collector (an allocation) the first time it steals a job
/// from another's deque; when that is depends on the scheduling, and a small scene's warm-up
/// may not include it. That allocation belongs to the pool, not to the work it runs, so every
/// worker registers here, before any counting.
///
/// A worker leaves the count as it leaves its loop: a dropped pool's threads exit on their own
/// time, and what they free and hand back to the epoch collector on the way out (which can
/// allocate) may fall in the next test's counted window.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| enroll())
        .exit_handler(|_| ENROLLED.set(false))
        .build()
        .unwrap();
    pool.broadcast(|_| drop(crossbeam_epoch::pin()));
    pool
}

/// The allocations counted since the last [`take`].
pub fn allocations() -> usize {
    ALLOCS.load(Ordering::SeqCst)
}

/// The allocations counted since the last call, and the count back to zero.
pub fn take() -> usize {
    ALLOCS.swap(0, Ordering::SeqCst)
}

/// This binary's turn at the counter, held until the guard drops.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}
