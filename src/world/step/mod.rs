//! `World::step`: the phase sequence, each phase in a file of its own.
//!
//! ```text
//!  (a) aabbs         tight boxes of the moved colliders (parallel); each collider whose tight
//!                    box left its fat box gets a new fat box
//!  (b) broad phase   the escaped colliders moved through the structures; the candidate pairs
//!                    they began and ended searched (parallel) and applied: pair entries made and
//!                    freed, and a touching pair whose fat boxes parted ends with its event;
//!                    then the welds of changed statics and their neighbours (`weld`)
//!  (c) narrow phase  manifolds of the pairs with a moved end (parallel), written to the
//!                    contacts array, with an event for each pair that started or stopped
//!                    touching; a drifted contacts array sorted back into collider order
//!  (d) continuous    each moved bullet's earliest time of impact along its sweep (parallel
//!                    over the bullets), then its sweep start moved to its pose
//!  (e) events        the removals' pending events merged in, all sorted by (a, b)
//! ```
//! Every serial part applies the parallel parts' results in an order fixed by the input alone,
//! so the step's outcome does not depend on the thread count.

mod aabbs;
mod broad;
mod ccd;
mod contact_order;
mod narrow;

use super::{StepCounts, StepTimings, World};
use crate::clock::Stamp;
use crate::par;

impl World {
    /// Advances the world: (a) boxes of moved colliders → (b) broad phase and candidate pairs →
    /// (c) narrow phase and contacts → (d) bullets' impacts → (e) events in ascending `(a, b)`
    /// order.
    ///
    /// With the `parallel` feature the passes run on the rayon pool the caller is in (else the
    /// global pool). While a step with moved colliders runs, one other worker of that pool
    /// stays with it, yielding its core between the passes rather than sleeping.
    pub fn step(&mut self) {
        let t0 = Stamp::now();
        self.events.clear();
        self.counts = StepCounts::default();
        self.mover_tree.settle();
        // The phases run on one of the pool's workers, so that the half a dozen parallel passes
        // of a step do not each pay a wake-up and a sleep (see `par::on_worker`). With nothing
        // moved there is no parallel work, and the hand-off would then cost a still step a
        // worker's wake-up for nothing.
        let [t1, t2, t3, t4] =
            if self.moved.is_empty() { self.run_phases() } else { par::on_worker(|| self.run_phases()) };
        // Every move is applied: the list starts over, holding only what moves before the next
        // step (in the order a game tells it, which the box phase takes as it is when sorted).
        self.moved.clear();
        // (e) Removals raised their events before the step; every event is reported in order.
        self.events.append(&mut self.pending_events);
        self.events.sort_unstable();
        self.timings = StepTimings {
            aabbs: t1 - t0,
            broad_phase: t2 - t1,
            narrow_phase: t3 - t2,
            continuous: t4 - t3,
            events: t4.elapsed(),
        };
        // Outside the timings: the `validate` feature's check is not the step's cost.
        self.validate_if_enabled("step");
    }

    /// (a) to (d), returning the time at the end of each.
    fn run_phases(&mut self) -> [Stamp; 4] {
        self.update_aabbs();
        let t1 = Stamp::now();
        self.update_broad_phase();
        self.update_welds();
        let t2 = Stamp::now();
        self.narrow_phase();
        let t3 = Stamp::now();
        self.continuous_collision();
        [t1, t2, t3, Stamp::now()]
    }

    /// Wall-clock time of each phase of the last [`World::step`], for profiling and HUDs. All
    /// zero on `wasm32-unknown-unknown`, which has no clock.
    #[must_use]
    pub fn last_step_timings(&self) -> StepTimings {
        self.timings
    }

    /// What the last [`World::step`] did: colliders escaped, candidate pairs made and freed,
    /// pairs evaluated, manifolds reused.
    #[must_use]
    pub fn last_step_counts(&self) -> StepCounts {
        self.counts
    }
}
