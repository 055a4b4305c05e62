//! Which broad phase suits *your* world: time each one on a copy of it.
//!
//! No broad phase wins everywhere. The persistent SAP (the default) is best when few colliders
//! move far per step; per-frame algorithms (sort-and-sweep, grids) do not care how much moved;
//! crowded or degenerate layouts (everything on one line or one point) reorder the field. Rather
//! than guess, [`advise`] rebuilds the caller's world into every candidate broad phase
//! ([`World::rebuilt_with`], ids kept), drives each copy with the caller's own motion for a few
//! steps and ranks them by median step time. The caller's world is never touched.
//!
//! ```
//! use sapwood::{advisor, ColliderDesc, Pose, Shape, Vec2, World};
//!
//! // 256 balls on a 16 x 16 grid, drifting right at their own speeds.
//! let mut world = World::new();
//! let mut ids = Vec::new();
//! let ball = Shape::circle(0.4)?;
//! let start = |i: usize| Vec2::new((i % 16) as f32, (i / 16) as f32);
//! let descs: Vec<_> =
//!     (0..256).map(|i| ColliderDesc::new(ball.clone(), Pose::from_translation(start(i)))).collect();
//! world.insert_batch(&descs, &mut ids)?;
//! world.step();
//!
//! // The same motion for every candidate, step by step from where the caller's world is.
//! let advice = advisor::advise(&world, 5, |w: &mut World, step: usize| {
//!     for (i, &id) in ids.iter().enumerate() {
//!         let drift = Vec2::new(0.01 * (i % 7) as f32 * (step + 1) as f32, 0.0);
//!         w.set_pose(id, Pose::from_translation(start(i) + drift)).unwrap();
//!     }
//! })?;
//! assert_eq!(advice.ranking.len(), advisor::candidates(&world).len());
//! let faster = advice.apply(&world)?; // same colliders, same ids, the winning broad phase
//! assert_eq!(faster.contacts().len(), world.contacts().len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Duration;

use glam::Vec2;

use crate::clock::Stamp;
use crate::math::Aabb;
use crate::{BroadPhaseKind, World, WorldConfig, WorldError};

/// Above this many colliders [`candidates`] leaves brute force out: its O(n²) steps would
/// dominate the advisor's own running time and it cannot win there.
pub const BRUTE_FORCE_LIMIT: usize = 4096;

/// What [`advise`] found.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Advice {
    /// Every candidate with its median step time, fastest first.
    pub ranking: Vec<(BroadPhaseKind, Duration)>,
    /// The fastest candidate (`ranking[0].0`).
    pub best: BroadPhaseKind,
}

impl Advice {
    /// `world` rebuilt with the winning broad phase and otherwise the same config; ids, contacts
    /// and events carry over as described at [`World::rebuilt_with`].
    ///
    /// # Errors
    /// [`WorldError::InvalidConfig`] if the winner's config is invalid for `world` (it is not
    /// when the advice was computed on the same world).
    pub fn apply(&self, world: &World) -> Result<World, WorldError> {
        world.rebuilt_with(WorldConfig { broad_phase: self.best, ..*world.config() })
    }
}

/// The region that holds every live collider's box at its current pose, or `None` for an empty
/// world. Grids and quadtrees built by [`candidates`] cover it.
#[must_use]
pub fn extent(world: &World) -> Option<Aabb> {
    let mut out: Option<Aabb> = None;
    for id in world.ids() {
        let (Ok(shape), Ok(pose)) = (world.shape(id), world.pose(id)) else { continue };
        let b = shape.aabb(&pose);
        out = Some(match out {
            Some(o) => Aabb::new(o.min.min(b.min), o.max.max(b.max)),
            None => b,
        });
    }
    out
}

/// Every broad phase worth timing on `world`: brute force (only up to [`BRUTE_FORCE_LIMIT`]
/// colliders), sort-and-sweep, a uniform grid and a quadtree over [`extent`], a spatial hash,
/// the dynamic tree and the incremental SAP. Grid and hash cells are twice the mean collider
/// size, so a typical box covers one to four cells: smaller cells register each box in more
/// cells, larger ones put more boxes that do not overlap into each cell's candidate pairs.
#[must_use]
pub fn candidates(world: &World) -> Vec<BroadPhaseKind> {
    let mut sum = 0.0f64;
    let mut n = 0usize;
    for id in world.ids() {
        if let (Ok(shape), Ok(pose)) = (world.shape(id), world.pose(id)) {
            let b = shape.aabb(&pose);
            sum += f64::from((b.max - b.min).max_element());
            n += 1;
        }
    }
    let cell_size = if n == 0 { 1.0 } else { (2.0 * sum / n as f64).max(1e-3) as f32 };
    // A degenerate (zero-area) extent still needs a valid region.
    let bounds = extent(world)
        .map(|b| Aabb::new(b.min, b.max.max(b.min + Vec2::splat(cell_size))))
        .unwrap_or_else(|| Aabb::new(Vec2::ZERO, Vec2::splat(cell_size)));
    let brute_force = world.len() <= BRUTE_FORCE_LIMIT;
    BroadPhaseKind::all(bounds, cell_size)
        .into_iter()
        .filter(|k| brute_force || *k != BroadPhaseKind::BruteForce)
        .collect()
}

/// Times every broad phase of [`candidates`] on a copy of `world`; see [`advise_among`].
///
/// # Errors
/// As [`advise_among`].
pub fn advise(world: &World, steps: usize, moves: impl FnMut(&mut World, usize)) -> Result<Advice, WorldError> {
    advise_among(world, &candidates(world), steps, moves)
}

/// Times each of `kinds` on a copy of `world` ([`World::rebuilt_with`], config otherwise
/// unchanged): for `step` in `0..steps`, `moves(&mut copy, step)` applies the caller's changes
/// (untimed), then [`World::step`] is timed. Candidates are ranked by their median step time.
///
/// `moves` is called with `step == 0` once per candidate, in the order of `kinds`, and must
/// apply the same changes to every copy for the comparison to be fair (restart any motion
/// source when it sees step 0). `world` itself is not changed.
///
/// On `wasm32-unknown-unknown`, which has no clock, every time reads zero and the ranking
/// keeps the order of `kinds`.
///
/// # Errors
/// [`WorldError::InvalidConfig`] when `kinds` is empty or one of them is invalid (a grid with
/// empty bounds, a zero cell size).
pub fn advise_among(
    world: &World,
    kinds: &[BroadPhaseKind],
    steps: usize,
    mut moves: impl FnMut(&mut World, usize),
) -> Result<Advice, WorldError> {
    let steps = steps.max(1);
    let mut ranking = Vec::with_capacity(kinds.len());
    let mut times = Vec::with_capacity(steps);
    for &kind in kinds {
        let mut copy = world.rebuilt_with(WorldConfig { broad_phase: kind, ..*world.config() })?;
        times.clear();
        for step in 0..steps {
            moves(&mut copy, step);
            let t = Stamp::now();
            copy.step();
            times.push(t.elapsed());
        }
        times.sort_unstable();
        ranking.push((kind, times[times.len() / 2]));
    }
    // Stable: ties keep the order of `kinds`.
    ranking.sort_by_key(|&(_, t)| t);
    let best = ranking.first().map(|&(k, _)| k).ok_or(WorldError::InvalidConfig)?;
    Ok(Advice { ranking, best })
}
