//! Open-addressing pair table (stub).

/// Open-addressing pair table (stub).
#[derive(Default)]
pub struct PairTable {}
