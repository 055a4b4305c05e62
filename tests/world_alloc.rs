//! A steady-state step allocates nothing: a counting global allocator watches a full period of
//! a periodic scene (stepped and queried) after three periods of warm-up (which size every scratch buffer).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

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

#[global_allocator]
static GLOBAL: Counting = Counting;

const WARM_UP_PERIODS: usize = 8;

#[test]
fn steady_state_step_allocates_nothing() {
    for config in common::configs() {
        steady_state_step_allocates_nothing_with(config);
    }
}

fn steady_state_step_allocates_nothing_with(config: sapwood::WorldConfig) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        ALLOCS.store(0, Ordering::SeqCst);
        let mut scene = common::build_with(4000, 3, config);
        for t in 0..2 * common::PERIOD {
            common::animate(&mut scene, t);
            scene.world.step();
        }
        assert!(!scene.world.contacts().is_empty());
        let mut hits = Vec::with_capacity(4096);
        let query = |world: &sapwood::World, hits: &mut Vec<sapwood::ColliderId>| {
            // Queries flush the movers' query tree: steady state must not allocate there either.
            let filter = sapwood::QueryFilter::default();
            hits.clear();
            world.query_aabb(&sapwood::Aabb::new(sapwood::Vec2::ZERO, sapwood::Vec2::splat(30.0)), &filter, hits);
            let ray = sapwood::Ray::new(sapwood::Vec2::ZERO, sapwood::Vec2::new(1.0, 0.7).normalize());
            world.ray_cast(&ray, 100.0, &filter).is_some()
        };
        // The scene repeats every period, but the fat boxes (stretched along each collider's
        // motion, and only renewed on escape) wander for a while before they do: the spatial
        // hash still reached new high-water marks (cells in use, ids in a cell) in the 4th and
        // 6th periods, and never from the 9th on. So eight periods of warm-up.
        for t in 2 * common::PERIOD..WARM_UP_PERIODS * common::PERIOD {
            common::animate(&mut scene, t);
            scene.world.step();
            query(&scene.world, &mut hits);
        }
        COUNTING.store(true, Ordering::SeqCst);
        let mut any_hit = false;
        for t in WARM_UP_PERIODS * common::PERIOD..(WARM_UP_PERIODS + 1) * common::PERIOD {
            common::animate(&mut scene, t);
            scene.world.step();
            any_hit |= query(&scene.world, &mut hits);
        }
        COUNTING.store(false, Ordering::SeqCst);
        assert_eq!(ALLOCS.load(Ordering::SeqCst), 0, "allocations during steady-state steps, {:?}", config.broad_phase);
        assert!(any_hit && !hits.is_empty(), "the queries must find something to mean anything");
    });
}
