//! Contacts and events are bit-identical for 1, 2 and 8 rayon threads and across runs, with
//! and without pair hooks, and with live collider state switched between steps.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use sapwood_support::periodic;

fn run_hashes(threads: usize, config: sapwood::WorldConfig) -> Vec<u64> {
    run_hashes_with(threads, config, false)
}

fn run_hashes_with(threads: usize, config: sapwood::WorldConfig, hooks: bool) -> Vec<u64> {
    run_hashes_switching(threads, config, hooks, false)
}

/// `switch`: live collider state switched too (`periodic::switch_state`).
fn run_hashes_switching(threads: usize, config: sapwood::WorldConfig, hooks: bool, switch: bool) -> Vec<u64> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut scene = periodic::build_with(3000, 9, config);
        if hooks {
            scene.world.set_pair_hooks(Some(Arc::new(periodic::Hooks)));
        }
        let mut hashes = Vec::new();
        for t in 0..80 {
            periodic::animate(&mut scene, t);
            if switch {
                periodic::switch_state(&mut scene, t);
            }
            if t == 40 {
                // Churn in the middle: removals and re-insertions reuse slots.
                for k in (0..scene.ids.len()).step_by(13) {
                    scene.world.remove(scene.ids[k]).unwrap();
                    scene.moving[k] = false;
                }
            }
            scene.world.step();
            let mut h = DefaultHasher::new();
            bytemuck::cast_slice::<_, u8>(scene.world.contacts()).hash(&mut h);
            scene.world.events().hash(&mut h);
            scene.world.state_hash().hash(&mut h);
            hashes.push(h.finish());
        }
        assert!(!scene.world.contacts().is_empty(), "the scene must have contacts to mean anything");
        hashes
    })
}

#[test]
fn contacts_and_events_identical_for_any_thread_count() {
    for config in periodic::configs() {
        let one = run_hashes(1, config);
        assert_eq!(one, run_hashes(2, config), "1 vs 2 threads, {:?}", config.broad_phase);
        assert_eq!(one, run_hashes(8, config), "1 vs 8 threads, {:?}", config.broad_phase);
        assert_eq!(one, run_hashes(1, config), "two runs with 1 thread, {:?}", config.broad_phase);
    }
}

#[test]
fn contacts_and_events_identical_for_any_thread_count_with_hooks() {
    for config in periodic::configs() {
        let one = run_hashes_with(1, config, true);
        assert_eq!(one, run_hashes_with(2, config, true), "1 vs 2 threads, {:?}", config.broad_phase);
        assert_eq!(one, run_hashes_with(8, config, true), "1 vs 8 threads, {:?}", config.broad_phase);
        assert_ne!(one, run_hashes(1, config), "the hooks must change the outcome to mean anything");
    }
}

#[test]
fn live_state_switches_are_identical_for_any_thread_count() {
    for config in periodic::configs() {
        let one = run_hashes_switching(1, config, false, true);
        assert_eq!(one, run_hashes_switching(2, config, false, true), "1 vs 2 threads, {:?}", config.broad_phase);
        assert_eq!(one, run_hashes_switching(8, config, false, true), "1 vs 8 threads, {:?}", config.broad_phase);
        assert_ne!(one, run_hashes(1, config), "the switches must change the outcome to mean anything");
    }
}
