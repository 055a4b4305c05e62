//! What sapwood's tests, benches and examples share, as one unpublished crate: the standard
//! scenes every benchmark and example builds its colliders from, the soak, the periodic world of
//! the determinism and allocation tests, oracle helpers, the peer engines' harness, and the
//! windowed examples' frame timings, pacing, pixel conversion and window options.
//!
//! Features keep the heavy peers out of builds that do not need them: `parry` (parry2d's shapes
//! for the oracle tests), `peers` (rapier2d) and `charts` (plotters, for the examples' charts).

pub mod alloc_count;
#[cfg(feature = "charts")]
pub mod chart;
pub mod cpu;
pub mod exact_query;
pub mod f64_rng;
pub mod frame_times;
pub mod pacer;
#[cfg(feature = "parry")]
pub mod parry_shapes;
#[cfg(feature = "peers")]
pub mod peers;
pub mod periodic;
pub mod pixels;
pub mod random_shapes;
pub mod scenes;
pub mod soak;
pub mod stacks;
pub mod timing;
pub mod window;

/// The workspace's one random generator (it lives in the library, whose own unit tests need it).
pub use sapwood::internal::SplitMix64;
