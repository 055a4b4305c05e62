//! BruteForce (stub: to be implemented).

use crate::broad::{BroadPhase, Pair};
use crate::math::Aabb;

/// BruteForce (stub).
#[derive(Default)]
pub struct BruteForce {}

impl BruteForce {
    /// An empty structure.
    #[must_use]
    pub fn new() -> Self {
        Self {}
    }
}

impl BroadPhase for BruteForce {
    fn name(&self) -> &'static str {
        "brute"
    }
    fn len(&self) -> usize {
        todo!()
    }
    fn insert(&mut self, _id: u32, _aabb: Aabb) {
        todo!()
    }
    fn remove(&mut self, _id: u32) {
        todo!()
    }
    fn update(&mut self, _id: u32, _aabb: Aabb) {
        todo!()
    }
    fn update_pairs(&mut self, _began: &mut Vec<Pair>, _ended: &mut Vec<Pair>) {
        todo!()
    }
    fn pairs(&mut self, _out: &mut Vec<Pair>) {
        todo!()
    }
    fn query_aabb(&mut self, _aabb: &Aabb, _out: &mut Vec<u32>) {
        todo!()
    }
    fn validate(&self) -> Result<(), String> {
        todo!()
    }
}
