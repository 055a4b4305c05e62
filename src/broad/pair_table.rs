//! Open-addressing pair table (stub).

/// Open-addressing pair table (stub).
#[derive(Default)]
pub struct PairTable {}

impl PairTable {
    /// Stub.
    #[must_use]
    pub fn new() -> Self {
        Self {}
    }
    /// Stub.
    pub fn get(&self, _k: [u32; 2]) -> Option<u32> {
        todo!()
    }
    /// Stub.
    pub fn contains(&self, _k: [u32; 2]) -> bool {
        todo!()
    }
    /// Stub.
    pub fn insert(&mut self, _k: [u32; 2], _v: u32) -> Option<u32> {
        todo!()
    }
    /// Stub.
    pub fn remove(&mut self, _k: [u32; 2]) -> Option<u32> {
        todo!()
    }
}
