//! DynamicTree (stub: to be implemented).

use crate::broad::{BroadPhase, Pair};
use crate::math::Aabb;

/// DynamicTree (stub).
#[derive(Default)]
pub struct DynamicTree {}

impl DynamicTree {
    /// An empty structure.
    #[must_use]
    pub fn new(_margin: f32) -> Self {
        Self {}
    }
}

impl BroadPhase for DynamicTree {
    fn name(&self) -> &'static str {
        "tree"
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

/// How a leaf finds its sibling on insertion (stub).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InsertStrategy {
    /// Branch and bound over all candidates (stub).
    #[default]
    BranchAndBound,
    /// Greedy descent (stub).
    Greedy,
}

/// A ray hit (stub).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Id.
    pub id: u32,
    /// Distance.
    pub t: f32,
}

/// Tree statistics (stub).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TreeStats {
    /// Sum of internal perimeters.
    pub internal_perimeter: f32,
}
