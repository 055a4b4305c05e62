//! Exact manifold reuse: a kernel's discrete decisions, with a proof of how far the pair may
//! move before any of them could change.
//!
//! A face kernel (SAT, then clipping) first *decides*: whether the shapes touch, which of them
//! holds the reference face, which face that is, which face of the other is incident. Then it
//! *computes* the points from those features. Each decision compares two numbers (separations
//! along axes, components of a rotated normal), and each of those numbers moves by at most
//!
//! ```text
//!   d = |Δp|₁ + reach · |Δq|₁
//! ```
//!
//! when B's pose relative to A moves by `Δp` and its rotation's `(cos, sin)` by `Δq`, `reach`
//! bounding the lever arms (the offset between the shapes' origins plus their radii about them).
//! A kernel that records, beside its decisions, a budget smaller than every decision's winning
//! gap (halved where both sides of a comparison move) proves that any relative pose within
//! `d <= budget` of the recorded one makes the same decisions. The second half alone, run on the
//! recorded features at the new pose, is then the full kernel's computation: the manifold is
//! the same bit for bit, feature ids included.
//!
//! Two decisions hang on a hair in a resting stack: whether the shapes touch (a resting depth is
//! small) and which shape holds the reference face (two nearly parallel faces tie within the
//! kernels' reference tolerance). No useful budget covers them, so they are not recorded but
//! decided again at every reuse, from the two separations of the recorded faces, by the very
//! comparisons the full kernel makes; a different outcome runs the full kernel. What the witness
//! certifies is the rest: each shape's axis or face, and the incident face.
//!
//! Box2D v3 keeps a contact's manifold while the bodies moved less than fixed thresholds and
//! estimates the new separations from the old points; that is an approximation with a tolerance
//! chosen for its solver. Here the threshold is each pair's own proof and the points are
//! recomputed, so reuse changes the cost of a resting pair and nothing else.
//!
//! Each kernel that supports reuse packs its decisions into [`Witness::features`] with its own
//! tag; a witness written by another kernel, by the other call order of the pair, or cleared by
//! a shape change never passes [`Witness::reusable`].
//!
//! # Where it pays
//! Reuse costs a witness check (a few flops and the witness's load and store) and saves the
//! decisions a kernel would skip, so only kernels whose decision is a search reuse:
//! - box–box (the oriented SAT) and the polygon kernel's SAT, a pass over the other hull per
//!   face: polygons, boxes against polygons, and capsules and segments (2-gons) against both.
//!   With the cores apart (rounded shapes and capsules resting through their radii) the SAT's
//!   faces are reused and the exact closest-feature search that follows runs in full;
//! - circle–polygon: the edge of maximum separation, a pass over the edges.
//!
//! In a resting pile nearly every pair is a box pair whose witness holds, and what is left of
//! its evaluation is a fixed sequence of arithmetic: the world's in-place pass hands such pairs
//! to [`super::cuboid_lanes`] four at a time, which computes the same bits in SIMD lanes.
//!
//! The others run in full. Circle–circle has no decision; circle–box's clamp and
//! circle–capsule's projection on the core are the decision and the computation at once;
//! capsule–capsule's closest points of the two cores decide the case and also give the
//! distance that decides touching, so no part of them can be skipped. Welded statics, chains
//! and compounds go through their own kernels.

use crate::math::Pose;

/// The decisions of a pair's last full kernel run and the relative motion they survive.
/// Derived state: dropping it (a cleared witness) only costs the next evaluation a full kernel.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Witness {
    /// B's pose in A's frame (the kernel's call order) at the recorded evaluation.
    pub(super) xf: Pose,
    /// The motion `d` (module doc) that every recorded decision survives; 0 when nothing is
    /// recorded.
    pub(super) budget: f32,
    /// The lever arm of the rotation part of `d`.
    pub(super) reach: f32,
    /// The kernel's tag (high byte) and decisions (its own packing).
    pub(super) features: u32,
    /// The pair was evaluated with its two shapes swapped into canonical order.
    pub(super) swapped: bool,
    /// The last evaluation took its decisions from here.
    reused: bool,
}

/// The share of `reach` kept from every budget against the rounding of the decisions' f32
/// arithmetic: a few hundred ulps of the largest magnitude a decision compares, far above the
/// handful of roundings in any separation and far below any gap a resting pair wins by.
const ROUNDING: f32 = 2e-5;

impl Witness {
    /// Forgets the recorded decisions.
    #[inline]
    pub fn clear(&mut self) {
        self.budget = 0.0;
        self.reused = false;
    }

    /// Records decisions made at `xf`: each won by at least `gap` in a quantity that moves by at
    /// most `d` (module doc) with lever arm `reach`. A gap that rounding could have decided
    /// records nothing.
    #[inline]
    pub fn record(&mut self, xf: &Pose, gap: f32, reach: f32, features: u32) {
        let budget = gap - ROUNDING * reach;
        *self = Witness { xf: *xf, budget: budget.max(0.0), reach, features, swapped: self.swapped, reused: false };
    }

    /// The recorded decisions, when they were made by the kernel tagged `tag` and provably
    /// hold at `xf`.
    #[inline]
    pub fn reusable(&self, xf: &Pose, tag: u8) -> Option<u32> {
        let dp = (xf.p - self.xf.p).abs();
        let dq = (xf.q.c - self.xf.q.c).abs() + (xf.q.s - self.xf.q.s).abs();
        let d = dp.x + dp.y + self.reach * dq;
        (self.features >> 24 == u32::from(tag) && d < self.budget).then_some(self.features & 0x00ff_ffff)
    }

    /// Notes that the kernel took its decisions from here.
    #[inline]
    pub fn mark_reused(&mut self) {
        self.reused = true;
    }

    /// Whether the last evaluation took its decisions from here.
    #[inline]
    pub fn reused(&self) -> bool {
        self.reused
    }

    /// Keeps the witness only when it was written for the pair in the same call order.
    #[inline]
    pub fn set_order(&mut self, swapped: bool) {
        if self.swapped != swapped {
            *self = Witness { swapped, ..Witness::default() };
        }
    }
}

/// A face kernel's choices: A's face toward B (`a`), B's face toward A (`b`), whether B's
/// holds the reference face (`flip`), and the other shape's incident face. Faces are numbered
/// as the shapes number their edges (below 16).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Faces {
    pub a: usize,
    pub b: usize,
    pub flip: bool,
    pub incident: usize,
}

impl Faces {
    /// The choices in 13 bits (a kernel may use the bits above for its own marks).
    pub const fn pack(self) -> u32 {
        (self.a as u32) << 9 | (self.b as u32) << 5 | (self.flip as u32) << 4 | self.incident as u32
    }

    /// What [`Faces::pack`] packed.
    pub fn unpack(bits: u32) -> Faces {
        Faces {
            a: (bits >> 9 & 15) as usize,
            b: (bits >> 5 & 15) as usize,
            flip: bits >> 4 & 1 != 0,
            incident: (bits & 15) as usize,
        }
    }
}

/// Packs a kernel's tag and up to 24 bits of its decisions.
#[inline]
pub(crate) const fn features(tag: u8, decisions: u32) -> u32 {
    ((tag as u32) << 24) | (decisions & 0x00ff_ffff)
}

/// The kernels' tags.
pub(crate) mod tag {
    /// `cuboid_cuboid`'s oriented path.
    pub const CUBOIDS: u8 = 1;
    /// `polygon_polygon` (polygons, boxes against polygons, capsules and segments against both).
    pub const POLYGONS: u8 = 2;
    /// `circle_polygon`.
    pub const CIRCLE_POLYGON: u8 = 3;
}
