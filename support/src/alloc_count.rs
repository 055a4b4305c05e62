//! A counting global allocator for the tests that prove a path allocates nothing. A test binary
//! installs it with `#[global_allocator] static GLOBAL: Counting = Counting;`, then counts
//! between [`set_counting`]`(true)` and `(false)`.
//!
//! The count covers every thread (the step's rayon workers included), so the tests of one
//! binary take turns through [`serial`]: another test allocating during a counted period would
//! be counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The system allocator, counting allocations and reallocations while counting is on.
pub struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static SERIAL: Mutex<()> = Mutex::new(());

// SAFETY: every call forwards to the system allocator unchanged; the wrapper only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
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
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Turns counting on or off.
pub fn set_counting(on: bool) {
    COUNTING.store(on, Ordering::SeqCst);
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
