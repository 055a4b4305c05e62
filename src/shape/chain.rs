//! Chains: open or closed polylines of any length, stored once and shared, whose segments
//! collide using their neighbours (ghost vertices) so that nothing catches on internal seams.
//!
//! ```text
//!  Chain ──Arc──▶ ChainData
//!                   vertices: [Vec2]      v0 v1 … v(n-1); segment i runs v(i) → v(i+1)
//!                   closed:   bool        segment n-1 runs v(n-1) → v0
//!                   one_sided: bool       only the front (right of v(i) → v(i+1)) collides
//!                   bvh:      [ChainNode] static boxes over runs of segments, preorder
//!                   aabb:     Aabb        the vertices' box
//! ```
//!
//! **Winding.** The front of segment `v(i) → v(i+1)` is its right side, the same rule as a
//! polygon's outward normals: walk a closed chain counter-clockwise around the solid and the
//! front faces out. A floor whose solid lies below runs right to left. A two-sided chain
//! collides on both sides; a one-sided chain never pushes a shape whose centre is behind it.
//!
//! **Ghost vertices.** Segment `i` knows `v(i-1)` and `v(i+2)` (none at the ends of an open
//! chain). A contact normal that would point into a neighbour's region (an internal-edge
//! normal, the "ghost collision" of tiles and separate segments) is either left to that
//! neighbour (at a convex corner, which owns the rounded region between the two faces) or
//! replaced by the face normal (at a flat or concave join, where the face itself is the
//! surface); see [`collide`](crate::collide#chains).

use std::sync::Arc;

use glam::Vec2;

use super::{MAX_SHAPE_SIZE, MIN_SHAPE_SIZE, ShapeError};
use crate::math::{Aabb, Pose, Ray};

/// The largest number of vertices of a [`Chain`] (2²⁰). Part indices are segment indices and
/// a snapshot reader allocates per vertex; the limit bounds both.
pub const MAX_CHAIN_VERTICES: usize = 1 << 20;

/// How a [`Chain`] closes and which sides collide. `Default` is open and two-sided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChainOptions {
    /// The last vertex connects back to the first (do not repeat the first vertex).
    pub closed: bool,
    /// Only the front of each segment (its right side, walking from `v(i)` to `v(i+1)`)
    /// collides: a shape whose centre is behind a segment gets no contact from it.
    pub one_sided: bool,
}

/// Segments per BVH leaf. Four segment boxes cost about as much to test as one node descent
/// and halve the node count.
const LEAF_SEGMENTS: u32 = 4;

/// A node of the chain's BVH, stored in preorder: the left child follows its parent, and
/// `skip` names the first node after the subtree, so a traversal needs no stack.
///
/// Segments are never reordered: a polyline's consecutive segments are neighbours in space, so
/// halving the index range is a good spatial split, and a leaf's segments come out in
/// ascending order (the visit order is the index order, deterministic for free).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ChainNode {
    /// Box of the segments below, in the chain's frame (16 bytes).
    aabb: Aabb,
    /// First segment (4 bytes).
    first: u32,
    /// Segment count for a leaf, 0 for an inner node (4 bytes).
    count: u32,
    /// Preorder index of the node after this subtree (4 bytes).
    skip: u32,
}

#[derive(Debug)]
struct ChainData {
    vertices: Vec<Vec2>,
    options: ChainOptions,
    bvh: Vec<ChainNode>,
    aabb: Aabb,
}

impl PartialEq for ChainData {
    fn eq(&self, other: &Self) -> bool {
        // The BVH and box follow from the vertices.
        self.vertices == other.vertices && self.options == other.options
    }
}

/// One segment of a chain with its neighbouring (ghost) vertices, in the chain's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChainSegment {
    /// Start vertex.
    pub a: Vec2,
    /// End vertex.
    pub b: Vec2,
    /// The vertex before `a`, if any (open chains have none before their first segment).
    pub ghost_a: Option<Vec2>,
    /// The vertex after `b`, if any.
    pub ghost_b: Option<Vec2>,
}

/// A polyline shape: terrain, walls, tile-map outlines. Cloning is cheap (a shared, immutable
/// handle). A chain has no interior: a closed chain is a loop of segments, not a solid.
///
/// ```
/// use sapwood::{Chain, ChainOptions, Vec2};
/// // A floor at y = 0 with the solid below: it runs right to left, so its front faces up.
/// let floor = Chain::new((0..=1000).rev().map(|i| Vec2::new(i as f32, 0.0)).collect(), ChainOptions::default())?;
/// assert_eq!(floor.segment_count(), 1000);
/// let s = floor.segment(0).unwrap();
/// assert!(floor.segment(1000).is_none());
/// assert_eq!((s.a, s.b, s.ghost_a), (Vec2::new(1000.0, 0.0), Vec2::new(999.0, 0.0), None));
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Chain(Arc<ChainData>);

impl PartialEq for Chain {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Chain {
    /// A chain through `vertices`, closed or open, one- or two-sided (see [`ChainOptions`]).
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] for a non-finite vertex, [`ShapeError::TooFewPoints`] for fewer
    /// than 2 vertices (3 for a closed chain), [`ShapeError::TooManyVertices`] beyond
    /// [`MAX_CHAIN_VERTICES`], [`ShapeError::DuplicateVertex`] when two consecutive vertices
    /// (the last and first of a closed chain included) are equal or so close that the square of
    /// their distance underflows (below `f32::MIN_POSITIVE`), [`ShapeError::TooLarge`]
    /// for a coordinate beyond [`MAX_SHAPE_SIZE`], [`ShapeError::TooSmall`] when its bounds are
    /// smaller than [`MIN_SHAPE_SIZE`] across.
    pub fn new(vertices: Vec<Vec2>, options: ChainOptions) -> Result<Chain, ShapeError> {
        check_vertices(&vertices, options.closed)?;
        let segments = segment_count(vertices.len(), options.closed);
        let mut bvh = Vec::with_capacity(2 * segments.div_ceil(LEAF_SEGMENTS as usize));
        build(&vertices, 0, segments as u32, &mut bvh);
        let aabb = vertices.iter().fold(Aabb::EMPTY, |b, &v| b.union(&Aabb::from_points(v, v)));
        Ok(Chain(Arc::new(ChainData { vertices, options, bvh, aabb })))
    }

    /// The vertices, as given.
    #[inline]
    #[must_use]
    pub fn vertices(&self) -> &[Vec2] {
        &self.0.vertices
    }

    /// Whether the chain is closed and which sides collide.
    #[inline]
    #[must_use]
    pub fn options(&self) -> ChainOptions {
        self.0.options
    }

    /// The number of segments: vertices − 1 for an open chain, vertices for a closed one.
    #[inline]
    #[must_use]
    pub fn segment_count(&self) -> usize {
        segment_count(self.0.vertices.len(), self.0.options.closed)
    }

    /// Segment `i` with its ghost vertices; `None` when `i >= segment_count()`.
    #[must_use]
    pub fn segment(&self, i: usize) -> Option<ChainSegment> {
        (i < self.segment_count()).then(|| self.segment_at(i))
    }

    /// Segment `i < segment_count()` (the narrow phase's and queries' indices come from the
    /// BVH, so they are in range).
    pub(crate) fn segment_at(&self, i: usize) -> ChainSegment {
        let vs = &self.0.vertices;
        let n = vs.len();
        let closed = self.0.options.closed;
        let at = |k: usize| vs[k % n];
        let ghost_a = if i > 0 { Some(vs[i - 1]) } else { closed.then(|| vs[n - 1]) };
        let ghost_b = if i + 2 < n || closed { Some(at(i + 2)) } else { None };
        ChainSegment { a: vs[i], b: at(i + 1), ghost_a, ghost_b }
    }

    /// The vertices' box, in the chain's frame.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        self.0.aabb
    }

    /// The tight box under `pose`. A translation moves the stored box; a rotation costs one
    /// pass over the vertices (chains are usually static, so this is rarely paid).
    #[must_use]
    pub fn aabb_at(&self, pose: &Pose) -> Aabb {
        if pose.q.is_identity() {
            let b = self.0.aabb;
            return Aabb::new(b.min + pose.p, b.max + pose.p);
        }
        self.0.vertices.iter().fold(Aabb::EMPTY, |b, &v| {
            let w = pose.transform_point(v);
            b.union(&Aabb::from_points(w, w))
        })
    }

    /// Calls `f(i)` for every segment `i` whose box overlaps `b` (chain frame), in ascending
    /// order, until `f` returns `false`. Logarithmic in the segment count for a box that
    /// meets few segments; allocates nothing.
    pub fn segments_in(&self, b: &Aabb, f: impl FnMut(u32) -> bool) {
        self.traverse(b, f);
    }

    /// [`Chain::segments_in`], returning how many nodes it tested (the cost the tests bound).
    fn traverse(&self, b: &Aabb, mut f: impl FnMut(u32) -> bool) -> usize {
        let mut it = self.segments_overlapping(*b);
        for i in it.by_ref() {
            if !f(i) {
                break;
            }
        }
        it.tested
    }

    /// The segments whose boxes overlap `b` (chain frame), in ascending order: the iterator
    /// form of [`Chain::segments_in`], for callers that walk a chain's segments as parts.
    pub(crate) fn segments_overlapping(&self, b: Aabb) -> SegmentsOverlapping<'_> {
        SegmentsOverlapping { data: &self.0, b, k: 0, i: 0, end: 0, tested: 0 }
    }

    /// Calls `f(i)` for every segment `i` whose box the local `ray` enters within `max_t(i)`,
    /// `max_t` re-read before each node so that a closest-hit search can shrink it.
    pub(crate) fn segments_on_ray(&self, ray: &Ray, mut max_t: impl FnMut() -> f32, mut f: impl FnMut(u32)) {
        let (vs, n) = (&self.0.vertices, self.0.vertices.len());
        let bvh = &self.0.bvh;
        let inv = Vec2::new(1.0 / ray.dir.x, 1.0 / ray.dir.y);
        let mut k = 0;
        while k < bvh.len() {
            let node = &bvh[k];
            if node.aabb.with_rounding_slack().slab_cast(ray.origin, ray.dir, inv, max_t()).is_none() {
                k = node.skip as usize;
                continue;
            }
            for i in node.first..node.first + node.count {
                let (p, q) = (vs[i as usize], vs[(i as usize + 1) % n]);
                let b = Aabb::from_points(p, q).with_rounding_slack();
                if b.slab_cast(ray.origin, ray.dir, inv, max_t()).is_some() {
                    f(i);
                }
            }
            k += 1;
        }
    }

    /// Re-checks the vertices ([`Shape::validate`](super::Shape::validate) calls it).
    pub(crate) fn validate(&self) -> Result<(), ShapeError> {
        check_vertices(&self.0.vertices, self.0.options.closed)
    }

    /// The chain scaled about its origin by `factor`.
    pub(crate) fn scaled(&self, factor: f32) -> Result<Chain, ShapeError> {
        Chain::new(self.0.vertices.iter().map(|v| *v * factor).collect(), self.0.options)
    }

    /// The radius of the smallest origin-centred circle holding every vertex.
    pub(crate) fn bounding_radius(&self) -> f32 {
        self.0.vertices.iter().map(|v| v.length()).fold(0.0, f32::max)
    }

    /// A few numbers that tell two chains apart cheaply (for the narrow phase's pair order).
    pub(crate) fn key(&self) -> [f32; 4] {
        let b = self.0.aabb;
        [b.min.x, b.min.y, b.max.x, b.max.y + self.0.vertices.len() as f32]
    }
}

/// See [`Chain::segments_overlapping`]: a stackless walk of the preorder BVH, holding the node
/// to test next (`k`) and the rest of the current leaf (`i..end`).
pub(crate) struct SegmentsOverlapping<'a> {
    data: &'a ChainData,
    b: Aabb,
    k: usize,
    i: u32,
    end: u32,
    tested: usize,
}

impl Iterator for SegmentsOverlapping<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let (vs, bvh) = (&self.data.vertices, &self.data.bvh);
        loop {
            while self.i < self.end {
                let i = self.i;
                self.i += 1;
                let next = if i as usize + 1 == vs.len() { 0 } else { i as usize + 1 };
                let (p, q) = (vs[i as usize], vs[next]);
                if Aabb::from_points(p, q).overlaps(&self.b) {
                    return Some(i);
                }
            }
            let node = bvh.get(self.k)?;
            self.tested += 1;
            if node.aabb.overlaps(&self.b) {
                (self.i, self.end) = (node.first, node.first + node.count);
                self.k += 1;
            } else {
                self.k = node.skip as usize;
            }
        }
    }
}

fn segment_count(vertices: usize, closed: bool) -> usize {
    if closed { vertices } else { vertices.saturating_sub(1) }
}

fn check_vertices(vs: &[Vec2], closed: bool) -> Result<(), ShapeError> {
    if vs.iter().any(|v| !v.is_finite()) {
        return Err(ShapeError::NonFinite);
    }
    if vs.len() < if closed { 3 } else { 2 } {
        return Err(ShapeError::TooFewPoints);
    }
    if vs.len() > MAX_CHAIN_VERTICES {
        return Err(ShapeError::TooManyVertices);
    }
    // A segment needs a direction: its squared length must be a normal f32 (vertices 1e-20
    // apart are distinct, but the square of their difference underflows to zero).
    let degenerate = |a: Vec2, b: Vec2| (b - a).length_squared() < f32::MIN_POSITIVE;
    if vs.windows(2).any(|w| degenerate(w[0], w[1])) || (closed && degenerate(vs[vs.len() - 1], vs[0])) {
        return Err(ShapeError::DuplicateVertex);
    }
    if vs.iter().any(|v| v.abs().max_element() > MAX_SHAPE_SIZE) {
        return Err(ShapeError::TooLarge);
    }
    if super::extent_of(vs) < MIN_SHAPE_SIZE {
        return Err(ShapeError::TooSmall);
    }
    Ok(())
}

/// Appends the subtree over segments `first..end` in preorder.
fn build(vs: &[Vec2], first: u32, end: u32, out: &mut Vec<ChainNode>) {
    let n = vs.len();
    let aabb =
        (first..end).fold(Aabb::EMPTY, |b, i| b.union(&Aabb::from_points(vs[i as usize], vs[(i as usize + 1) % n])));
    let at = out.len();
    let leaf = end - first <= LEAF_SEGMENTS;
    out.push(ChainNode { aabb, first, count: if leaf { end - first } else { 0 }, skip: 0 });
    if !leaf {
        let mid = first + (end - first) / 2;
        build(vs, first, mid, out);
        build(vs, mid, end, out);
    }
    out[at].skip = out.len() as u32;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::SplitMix64;

    fn zigzag(n: usize, rng: &mut SplitMix64) -> Chain {
        let vs = (0..n).map(|i| Vec2::new(i as f32 * 0.5, rng.next_f32() * 3.0)).collect();
        Chain::new(vs, ChainOptions::default()).unwrap()
    }

    #[test]
    fn bvh_finds_exactly_the_segments_whose_boxes_overlap() {
        let mut rng = SplitMix64::new(7);
        for n in [2, 3, 5, 9, 17, 1000] {
            let c = zigzag(n, &mut rng);
            for _ in 0..200 {
                let lo = Vec2::new(rng.next_f32() * n as f32 * 0.5, rng.next_f32() * 3.0);
                let b = Aabb::new(lo, lo + Vec2::new(rng.next_f32() * 4.0, rng.next_f32()));
                let mut got = Vec::new();
                c.segments_in(&b, |i| {
                    got.push(i);
                    true
                });
                let want: Vec<u32> = (0..c.segment_count() as u32)
                    .filter(|&i| {
                        let s = c.segment_at(i as usize);
                        Aabb::from_points(s.a, s.b).overlaps(&b)
                    })
                    .collect();
                assert_eq!(got, want, "n = {n}, box {b:?}");
            }
        }
    }

    #[test]
    fn a_small_box_tests_logarithmically_many_nodes() {
        // A gently rolling floor of 100,000 segments: a body-sized box meets a handful, and the
        // traversal tests a few nodes per tree level, never a scan.
        let vs = (0..=100_000).map(|i| Vec2::new(i as f32 * 0.5, (i as f32 * 0.01).sin())).collect();
        let c = Chain::new(vs, ChainOptions::default()).unwrap();
        let mut worst = 0;
        for k in 0..1000 {
            let x = k as f32 * 49.9;
            let b = Aabb::new(Vec2::new(x, -1.5), Vec2::new(x + 1.0, 1.5));
            let mut found = 0;
            worst = worst.max(c.traverse(&b, |_| {
                found += 1;
                true
            }));
            assert!(found >= 2);
        }
        // 25,000 leaves: depth 15; two root-to-leaf paths and their siblings.
        assert!(worst <= 4 * 16, "{worst} nodes tested");
    }

    #[test]
    fn ghosts_of_open_and_closed_chains() {
        let sq = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let open = Chain::new(sq.to_vec(), ChainOptions::default()).unwrap();
        assert_eq!(open.segment_count(), 3);
        assert_eq!(open.segment_at(0).ghost_a, None);
        assert_eq!(open.segment_at(0).ghost_b, Some(Vec2::ONE));
        assert_eq!(open.segment_at(2).ghost_b, None);
        let closed = Chain::new(sq.to_vec(), ChainOptions { closed: true, one_sided: false }).unwrap();
        assert_eq!(closed.segment_count(), 4);
        let last = closed.segment_at(3);
        assert_eq!((last.a, last.b, last.ghost_a, last.ghost_b), (Vec2::Y, Vec2::ZERO, Some(Vec2::ONE), Some(Vec2::X)));
        assert_eq!(closed.segment_at(0).ghost_a, Some(Vec2::Y));
    }

    #[test]
    fn bad_vertices_are_refused() {
        let open = ChainOptions::default();
        let closed = ChainOptions { closed: true, one_sided: false };
        assert_eq!(Chain::new(vec![Vec2::ZERO], open), Err(ShapeError::TooFewPoints));
        assert_eq!(Chain::new(vec![Vec2::ZERO, Vec2::X], closed), Err(ShapeError::TooFewPoints));
        assert_eq!(Chain::new(vec![Vec2::ZERO, Vec2::NAN], open), Err(ShapeError::NonFinite));
        assert_eq!(Chain::new(vec![Vec2::ZERO, Vec2::ZERO], open), Err(ShapeError::DuplicateVertex));
        // Distinct, but the segment's squared length underflows (the fuzz decoder's find).
        let tiny = vec![Vec2::new(3.97e-37, 0.0), Vec2::new(0.0, 2.63e-32), Vec2::X];
        assert_eq!(Chain::new(tiny, open), Err(ShapeError::DuplicateVertex));
        assert_eq!(Chain::new(vec![Vec2::ZERO, Vec2::X, Vec2::ZERO], closed), Err(ShapeError::DuplicateVertex));
        assert_eq!(Chain::new(vec![Vec2::ZERO, Vec2::splat(2e6)], open), Err(ShapeError::TooLarge));
        assert_eq!(Chain::new(vec![Vec2::ZERO; MAX_CHAIN_VERTICES + 1], open), Err(ShapeError::TooManyVertices));
    }

    #[test]
    fn rotated_box_is_tight() {
        let c = Chain::new(vec![Vec2::ZERO, Vec2::new(2.0, 0.0)], ChainOptions::default()).unwrap();
        let b = c.aabb_at(&Pose::new(Vec2::new(1.0, 1.0), std::f32::consts::FRAC_PI_2));
        assert!((b.min - Vec2::new(1.0, 1.0)).length() < 1e-6 && (b.max - Vec2::new(1.0, 3.0)).length() < 1e-6);
    }
}
