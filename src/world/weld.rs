//! Welded static edges: which edges of static boxes and polygons coincide with their static
//! neighbours', kept current as statics come, go and change.
//!
//! Each welded static owns one [`EdgeWeld`] per edge in the flat `edges` array, from
//! `first[slot]` on (`NULL_INDEX`: not welded, the plain kernels apply). A record says whether the edge
//! is buried (inside-or-on a neighbour: interior, never collides) and, at each end, the vertex
//! the surface continues to: a neighbour's where a neighbour's edge runs on (so the join is
//! flat or concave, as inside a chain), the polygon's own at a real corner. See
//! `collide::welded` for how the narrow phase and the queries use them.
//!
//! # Maintenance
//! A change to a static (insert, remove, `set_pose`, `teleport`, `set_shape`) lists it, and
//! the statics around its old box, as dirty. At the next step, once the broad phase has placed
//! the changed statics in the tree, the dirty list grows by the statics around their new boxes
//! and each listed static's welds are recomputed from its neighbours (found through the static
//! tree); a static whose welds changed joins the moved list, so that its pairs are evaluated
//! again. A step in which no static changed does none of this and allocates nothing.
//!
//! A record is a function of the statics' geometry alone (neighbours are taken in slot order),
//! so the welds come out the same for any thread count, and a snapshot restore recomputes them.

use crate::par::prelude::*;
use glam::Vec2;

use super::World;
use crate::broad::DynamicTree;
use crate::collide::reuse::Witness;
use crate::collide::welded::{self, EdgeWeld};
use crate::collide::{self, Manifold};
use crate::index::NULL_INDEX;
use crate::math::Aabb;
use crate::shape::{MAX_POLYGON_VERTICES, Shape};
use crate::storage::{ColliderSlot, Columns, flags};

/// Relative tolerance of a weld: vertices this close (times the smaller shape's size) coincide.
const WELD_TOL: f32 = 1e-4;

/// Cosine below which two edges' directions are not the same (an edge lying on a neighbour's
/// edge of the same facing is surface, not interior).
const SAME_DIR_COS: f32 = 1.0 - 1e-6;

/// The welds of every static collider, by slot.
#[derive(Clone, Default)]
pub(crate) struct Welds {
    /// Per slot: the first of its edges' records in `edges`, `ALL_BURIED`, or `NULL_INDEX`.
    pub first: Vec<u32>,
    /// Edge records, a run of the polygon's edge count per welded static.
    pub edges: Vec<EdgeWeld>,
    /// Records in `edges` no longer owned by any slot.
    garbage: usize,
    /// Statics to recompute at the next step (may hold duplicates and dead slots).
    pub dirty: Vec<ColliderSlot>,
    /// Scratch: the neighbours of the static being welded, their polygons and tolerances (one
    /// per parallel chunk), the welds computed for a block of dirty statics, and compaction's
    /// (first, slot) list.
    scratch: Vec<Scratch>,
    computed: Vec<Computed>,
    order: Vec<(u32, ColliderSlot)>,
    /// Every static's candidate neighbours when a level is welded at once, kept to be reused.
    lists: NeighbourLists,
}

/// `first` of a welded static whose every edge is buried (inside its neighbours: most tiles of a
/// level): no records are stored, and its welds are the empty list, which the welded kernel
/// reads as every edge buried.
const ALL_BURIED: u32 = NULL_INDEX - 1;

/// Whether `new` (as computed) welds a static whose every edge is buried.
fn all_buried(new: &[EdgeWeld]) -> bool {
    !new.is_empty() && new.iter().all(|w| w.buried)
}

/// Whether `record` (as [`Welds::of`] gives it) holds the welds `new` (as computed: none when
/// empty).
fn records_hold(record: Option<&[EdgeWeld]>, new: &[EdgeWeld]) -> bool {
    match record {
        None => new.is_empty(),
        Some([]) => all_buried(new),
        Some(r) => r.len() == new.len() && r.iter().zip(new).all(|(a, b)| a.same(b)),
    }
}

/// One static's freshly computed welds: its edge count (0: none welded) and the records.
type Computed = (usize, [EdgeWeld; MAX_POLYGON_VERTICES]);

impl Welds {
    /// The welds of slot `s`, if it is welded: one per edge, or none when every edge is buried.
    #[inline]
    pub fn of(&self, s: usize) -> Option<&[EdgeWeld]> {
        let f = *self.first.get(s)?;
        if f == NULL_INDEX {
            return None;
        }
        if f == ALL_BURIED {
            return Some(&[]);
        }
        let n = self.len_at(f);
        Some(&self.edges[f as usize..f as usize + n])
    }

    /// Whether slot `s` is a welded static (`of(s).is_some()`, without reading the records).
    #[inline]
    pub fn has(&self, s: usize) -> bool {
        self.first.get(s).is_some_and(|&f| f != NULL_INDEX)
    }

    /// The length of the run starting at `f` (its polygon's edge count).
    #[inline]
    fn len_at(&self, f: u32) -> usize {
        usize::from(self.edges[f as usize].count)
    }

    /// The manifold of the colliders in slots `a` and `b` (world space, normal from `a` to
    /// `b`): through the welded kernel when one of them is a welded static.
    ///
    /// With a witness, a pair of unwelded colliders goes through [`collide::manifold_reusing`]
    /// (the same result, less work for a pair at rest); a welded pair does not use it.
    /// Always inline, for the reason on [`collide::manifold_reusing`].
    #[inline(always)]
    pub fn contact(&self, cols: &Columns, a: usize, b: usize, witness: Option<&mut Witness>) -> Manifold {
        let (sa, pa, sb, pb) = (&cols.shape[a], &cols.pose[a], &cols.shape[b], &cols.pose[b]);
        if let Some(w) = self.of(a)
            && welded::applies(sb)
        {
            return welded::manifold(sa, pa, w, sb, pb);
        }
        if let Some(w) = self.of(b)
            && welded::applies(sa)
        {
            return welded::manifold(sb, pb, w, sa, pa).flipped();
        }
        match witness {
            Some(w) => collide::manifold_reusing(sa, pa, sb, pb, w),
            None => collide::manifold(sa, pa, sb, pb),
        }
    }

    /// [`collide::contact_parts`] for slots `a` and `b`, through the welded kernel when one of
    /// them is a welded static (whose part index is then 0).
    pub fn contact_parts(&self, cols: &Columns, a: usize, b: usize, mut f: impl FnMut(u32, u32, &Manifold)) {
        let (sa, pa, sb, pb) = (&cols.shape[a], &cols.pose[a], &cols.shape[b], &cols.pose[b]);
        if let Some(w) = self.of(a)
            && welded::applies(sb)
        {
            return welded::visit(sa, pa, w, sb, pb, |i, m| f(0, i, m));
        }
        if let Some(w) = self.of(b)
            && welded::applies(sa)
        {
            return welded::visit(sb, pb, w, sa, pa, |i, m| f(i, 0, &m.flipped()));
        }
        collide::part_manifolds(sa, pa, sb, pb, f);
    }

    /// A query's hit normal (world, out of collider `s`, at surface point `point`) as the
    /// welded surface shows it: along a flat or concave join, the face's normal rather than
    /// the one a tile's corner gives (see `collide::welded::surface_normal`). Unchanged for a
    /// collider that is not welded.
    #[inline]
    pub fn hit_normal(&self, cols: &Columns, s: usize, point: Vec2, normal: Vec2) -> Vec2 {
        self.of(s)
            .and_then(|w| welded::surface_normal(&cols.shape[s], &cols.pose[s], w, point, normal))
            .unwrap_or(normal)
    }

    /// Drops slot `s`'s records.
    pub fn release(&mut self, s: usize) {
        if let Some(f) = self.first.get_mut(s)
            && *f != NULL_INDEX
        {
            let f = std::mem::replace(f, NULL_INDEX);
            if f != ALL_BURIED {
                self.garbage += usize::from(self.edges[f as usize].count);
            }
        }
    }
}

/// The neighbours of the static being welded, and their polygons and tolerances.
type Scratch = (Vec<u32>, Vec<Neighbour>);

/// A neighbour of the static being welded: its polygon, the tolerance between the two, and
/// where it can matter (see [`WorldPoly::reach`]): the box of its core grown by the tolerance
/// along its normals, which bounds what `clip` can cut from an edge, and its box grown by the
/// tolerance, which bounds the points within the tolerance of its edges.
#[derive(Clone, Default)]
struct Neighbour {
    y: WorldPoly,
    tol: f32,
    clips: Aabb,
    near: Aabb,
    /// Which of its vertices lie inside-or-within the tolerance of the static being welded.
    held: [bool; MAX_POLYGON_VERTICES],
}

/// Whether slot `s` can be welded: a live, enabled, non-sensor static box or polygon.
#[inline]
fn weldable(cols: &Columns, s: usize) -> bool {
    cols.alive[s]
        && cols.flags[s] & (flags::STATIC | flags::SENSOR | flags::DISABLED) == flags::STATIC
        && matches!(cols.shape[s], Shape::Cuboid(_) | Shape::Polygon(_))
}

/// A static's core polygon in world space, with its size (larger side of its tight box).
#[derive(Clone, Default)]
struct WorldPoly {
    aabb: Aabb,
    v: [Vec2; MAX_POLYGON_VERTICES],
    n: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
    radius: f32,
    size: f32,
}

impl WorldPoly {
    fn of(cols: &Columns, s: usize) -> Option<WorldPoly> {
        let mut w = WorldPoly::default();
        w.set(cols, s).then_some(w)
    }

    /// Makes this the polygon of slot `s`, if it has one (else `false`, and this is left as
    /// it was).
    fn set(&mut self, cols: &Columns, s: usize) -> bool {
        // A box's corners and normals as `Cuboid::to_polygon` numbers them, without building
        // the 144-byte polygon: welding a level reads each tile about nine times.
        let (h, polygon);
        let (vs, ns, radius): (&[Vec2], &[Vec2], f32) = match &cols.shape[s] {
            Shape::Cuboid(b) => {
                h = b.half_extents;
                let corners = [Vec2::new(-h.x, -h.y), Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)];
                polygon = (corners, [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X]);
                (&polygon.0, &polygon.1, 0.0)
            }
            Shape::Polygon(p) => (p.vertices(), p.normals(), p.radius),
            _ => return false,
        };
        let pose = cols.pose[s];
        let mut b = Aabb::EMPTY;
        for (k, (v, n)) in vs.iter().zip(ns).enumerate() {
            self.v[k] = pose.transform_point(*v);
            self.n[k] = pose.transform_vector(*n);
            b = b.union(&Aabb::from_points(self.v[k], self.v[k]));
        }
        (self.count, self.radius) = (vs.len(), radius);
        (self.aabb, self.size) = (b, (b.max - b.min).max_element());
        true
    }

    fn edge(&self, k: usize) -> (Vec2, Vec2) {
        (self.v[k], self.v[after(k, self.count)])
    }

    /// A box holding the core grown by `tol` along its face normals (the region `clip` and
    /// `holds` accept): each vertex moves to where its two faces' offset lines meet, `tol·m`
    /// with `m` the corner's miter, of length `sqrt(2 / (1 + n0·n1))`, so the core's box grown
    /// by `tol` times the longest miter holds them all (a prefilter: one square root in place
    /// of two divisions per vertex, welding a level asks this about nine times per tile). Grown
    /// by a few ulps of the coordinates, so that f32 rounding in those tests never reaches past
    /// it; everything for a corner so sharp its miter blows up.
    fn reach(&self, tol: f32) -> Aabb {
        let mut sharpest = f32::INFINITY;
        for k in 0..self.count {
            sharpest = sharpest.min(1.0 + self.n[before(k, self.count)].dot(self.n[k]));
        }
        if sharpest < 1e-3 {
            return Aabb::new(Vec2::splat(f32::NEG_INFINITY), Vec2::splat(f32::INFINITY));
        }
        let b = self.aabb.fattened(tol * (2.0 / sharpest).sqrt());
        b.fattened(slack(&b))
    }

    /// Inside or within `tol` of the core.
    fn holds(&self, p: Vec2, tol: f32) -> bool {
        (0..self.count).all(|k| self.n[k].dot(p - self.v[k]) <= tol)
    }

    /// The part `[t0, t1]` of segment `a → b` inside-or-within-`tol` of the core (Cyrus–Beck),
    /// if any.
    fn clip(&self, a: Vec2, b: Vec2, tol: f32) -> Option<(f32, f32)> {
        let e = b - a;
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for k in 0..self.count {
            // n · (a + t e - v) <= tol
            let (num, den) = (tol - self.n[k].dot(a - self.v[k]), self.n[k].dot(e));
            if den.abs() <= f32::EPSILON * e.length() {
                if num < 0.0 {
                    return None;
                }
            } else if den > 0.0 {
                t1 = t1.min(num / den);
            } else {
                t0 = t0.max(num / den);
            }
        }
        (t0 <= t1).then_some((t0, t1))
    }

    /// Edge `(a, b)` with outward normal `m` lies on an edge of ours that faces the same way.
    fn has_face_along(&self, a: Vec2, b: Vec2, m: Vec2, tol: f32) -> bool {
        (0..self.count).any(|k| {
            let n = self.n[k];
            n.dot(m) >= SAME_DIR_COS && n.dot(a - self.v[k]).abs() <= tol && n.dot(b - self.v[k]).abs() <= tol
        })
    }
}

/// The tolerance between two statics: relative to the smaller, plus f32 rounding of the
/// coordinates.
fn tolerance(x: &WorldPoly, y: &WorldPoly) -> f32 {
    let mag = x.v[0].abs().max_element().max(y.v[0].abs().max_element());
    WELD_TOL * x.size.min(y.size) + 8.0 * f32::EPSILON * mag
}

/// The index after `k` around a polygon of `n` vertices (a compare, not an integer division:
/// welding a level asks this tens of millions of times).
#[inline]
fn after(k: usize, n: usize) -> usize {
    if k + 1 == n { 0 } else { k + 1 }
}

/// The index before `k` around a polygon of `n` vertices.
#[inline]
fn before(k: usize, n: usize) -> usize {
    if k == 0 { n - 1 } else { k - 1 }
}

/// A few ulps of a box's coordinates.
fn slack(b: &Aabb) -> f32 {
    8.0 * f32::EPSILON * b.max.abs().max(b.min.abs()).max_element()
}

/// A static's box grown by the weld tolerance: where its neighbours are.
fn weld_region(b: &Aabb) -> Aabb {
    b.fattened(weld_margin(b))
}

/// The weld tolerance of a box: relative to its size, plus f32 rounding of its coordinates.
/// Grows with the box (a box inside another has the smaller margin).
fn weld_margin(b: &Aabb) -> f32 {
    let mag = b.max.abs().max(b.min.abs()).max_element();
    WELD_TOL * (b.max - b.min).max_element() + 8.0 * f32::EPSILON * mag
}

/// Every static's candidate neighbours at once, for a level loaded or rebuilt (most statics to
/// weld): one descent of the tree against itself visits each overlapping node pair once, where
/// a query per static pays a descent from the root. Slot `s`'s candidates are
/// `list[start[s]..start[s + 1]]`: every collider whose tight box overlaps `s`'s, both grown by
/// twice their weld margin, which holds each static's weld region (its core's box grown by its
/// radius and its margin; the tight box differs from that by rounding, far under the margin).
/// The buffers are kept from one use to the next.
#[derive(Clone, Default)]
struct NeighbourLists {
    margins: Vec<f32>,
    pairs: Vec<(u32, u32)>,
    start: Vec<u32>,
    next: Vec<u32>,
    list: Vec<u32>,
}

impl NeighbourLists {
    fn fill(&mut self, tree: &DynamicTree, slots: usize) {
        let Self { margins, pairs, start, next, list } = self;
        pairs.clear();
        tree.for_each_pair_grown(|b| 2.0 * weld_margin(b), margins, |a, b| pairs.push((a, b)));
        start.clear();
        start.resize(slots + 1, 0);
        for &(a, b) in pairs.iter() {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for i in 0..slots {
            start[i + 1] += start[i];
        }
        list.clear();
        list.resize(2 * pairs.len(), 0);
        next.clear();
        next.extend_from_slice(&start[..slots]);
        for &(a, b) in pairs.iter() {
            list[next[a as usize] as usize] = b;
            next[a as usize] += 1;
            list[next[b as usize] as usize] = a;
            next[b as usize] += 1;
        }
    }

    fn of(&self, s: usize) -> &[u32] {
        &self.list[self.start[s] as usize..self.start[s + 1] as usize]
    }
}

/// Whether `p` lies on segment `c → d` strictly between its ends (within `tol`).
fn strictly_on(p: Vec2, c: Vec2, d: Vec2, tol: f32) -> bool {
    let e = d - c;
    let len = e.length();
    if len <= 2.0 * tol {
        return false;
    }
    let u = e / len;
    let along = (p - c).dot(u);
    along > tol && along < len - tol && u.perp_dot(p - c).abs() <= tol
}

/// The signed turn from direction `from` to direction `to` (left positive) as a pseudo-angle:
/// a value that grows with the angle θ in (-π, π] — sin θ within a right angle, ±(2 - sin θ)
/// beyond — which is all the welds need, since they only compare turns; a level's million
/// tiles make millions of them, and an arctangent costs several times the rest of the test.
/// `None` for a hairpin (the surface doubling back on itself, an edge's coincident opposite):
/// a turn within a thousandth of a radian of π.
fn turn(from: Vec2, to: Vec2) -> Option<f32> {
    let (from, to) = (from.try_normalize()?, to.try_normalize()?);
    let (sin, cos) = (from.perp_dot(to), from.dot(to));
    let t = if cos >= 0.0 {
        sin
    } else if sin >= 0.0 {
        2.0 - sin
    } else {
        -2.0 - sin
    };
    // sin(1e-3), to f32 precision.
    (t < 2.0 - 1e-3).then_some(t)
}

impl World {
    /// Whether welding applies to slot `s` in this world.
    fn welds_apply(&self, s: usize) -> bool {
        self.config.weld_static_edges && weldable(&self.cols, s)
    }

    /// Lists a changed static, and the statics around its box as of the last step, for the
    /// next step's weld maintenance. Call before the change is applied to the columns.
    #[inline(always)]
    pub(super) fn weld_touch(&mut self, s: usize) {
        // The test inline: every `set_pose` of a moving collider passes it.
        if self.config.weld_static_edges && self.cols.flags[s] & flags::STATIC != 0 {
            self.weld_touch_static(s);
        }
    }

    fn weld_touch_static(&mut self, s: usize) {
        self.welds.dirty.push(ColliderSlot::from_index(s));
        if self.cols.is_placed(s) {
            let region = weld_region(&self.cols.aabb[s]);
            let (tree, dirty) = (&self.tree, &mut self.welds.dirty);
            tree.query(&region, |o| {
                if o as usize != s {
                    dirty.push(ColliderSlot::new(o));
                }
                true
            });
        }
    }

    /// The step's weld maintenance (between the broad and the narrow phase): the dirty statics
    /// and those around their new boxes get their welds recomputed; those whose welds changed
    /// are marked moved, so that the narrow phase evaluates their pairs again.
    pub(super) fn update_welds(&mut self) {
        if self.welds.dirty.is_empty() {
            return;
        }
        let mut dirty = std::mem::take(&mut self.welds.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        let cols = &self.cols;
        dirty.retain(|&s| s.index() < cols.alive.len() && cols.alive[s.index()]);
        let changed = dirty.len();
        let mut lists = std::mem::take(&mut self.welds.lists);
        let mut listed = false;
        if changed * 2 >= self.tree.len() {
            // A level loaded or rebuilt since the last step: with most statics dirty, the search
            // for their neighbours would mostly find dirty ones again, a tree query each for
            // nothing. Every placed collider instead (welding skips the movers at once), with
            // their neighbours listed by one self-descent of the tree.
            dirty.clear();
            dirty.extend((0..cols.alive.len()).filter(|&s| cols.is_placed(s)).map(ColliderSlot::from_index));
            lists.fill(&self.tree, cols.alive.len());
            listed = true;
        } else {
            for i in 0..changed {
                let s = dirty[i].index();
                if self.cols.flags[s] & flags::STATIC == 0 {
                    continue;
                }
                self.tree.query(&weld_region(&self.cols.aabb[s]), |o| {
                    if o as usize != s {
                        dirty.push(ColliderSlot::new(o));
                    }
                    true
                });
            }
        }
        dirty.sort_unstable();
        dirty.dedup();
        let mut rewelded = false;
        // Each static's welds depend on the columns and the tree alone, so blocks of them are
        // computed in parallel (fixed chunks) and applied serially in slot order.
        const BLOCK: usize = 8192;
        const CHUNK: usize = 256;
        let (mut computed, mut scratch) =
            (std::mem::take(&mut self.welds.computed), std::mem::take(&mut self.welds.scratch));
        for block in dirty.chunks(BLOCK) {
            computed.resize(block.len(), (0, [EdgeWeld::default(); MAX_POLYGON_VERTICES]));
            scratch.resize_with(block.len().div_ceil(CHUNK), Scratch::default);
            let (world, listed) = (&*self, listed.then_some(&lists));
            computed.par_chunks_mut(CHUNK).zip(block.par_chunks(CHUNK)).zip(scratch.par_iter_mut()).for_each(
                |((out, slots), scratch)| {
                    for ((count, edges), s) in out.iter_mut().zip(slots) {
                        *count = world.compute_welds(s.index(), edges, scratch, listed);
                    }
                },
            );
            for (&s, (count, edges)) in block.iter().zip(&computed) {
                if self.apply_welds(s.index(), &edges[..*count]) {
                    let bits = &mut self.scratch.moved_bits;
                    let (w, bit) = (s.index() >> 6, 1u64 << (s.get() & 63));
                    if bits[w] & bit == 0 {
                        bits[w] |= bit;
                        self.moved.push(s);
                        rewelded = true;
                    }
                }
            }
        }
        (self.welds.computed, self.welds.scratch) = (computed, scratch);
        if rewelded {
            self.moved.sort_unstable();
        }
        dirty.clear();
        self.welds.dirty = dirty;
        self.welds.lists = lists;
        self.compact_welds();
    }

    /// Recomputes every placed static's welds from the statics as they are (a snapshot
    /// restore), and lists those changed since the last step for the next step, as the world
    /// saved had them listed.
    pub(crate) fn reweld_all(&mut self) {
        if !self.config.weld_static_edges {
            return;
        }
        for s in 0..self.cols.alive.len() {
            if !self.cols.alive[s] || self.cols.flags[s] & flags::STATIC == 0 {
                continue;
            }
            if self.cols.is_placed(s) {
                self.reweld(s);
            }
            if !self.cols.is_placed(s) || self.cols.flags[s] & flags::MOVED != 0 {
                self.welds.dirty.push(ColliderSlot::from_index(s));
            }
        }
        self.compact_welds();
    }

    /// Recomputes slot `s`'s welds; returns whether they changed.
    fn reweld(&mut self, s: usize) -> bool {
        let mut edges = [EdgeWeld::default(); MAX_POLYGON_VERTICES];
        let mut scratch = Scratch::default();
        let count = self.compute_welds(s, &mut edges, &mut scratch, None);
        self.apply_welds(s, &edges[..count])
    }

    /// Stores `new` as slot `s`'s welds (none when empty); returns whether they changed.
    fn apply_welds(&mut self, s: usize, new: &[EdgeWeld]) -> bool {
        if self.welds.first.len() < self.cols.alive.len() {
            self.welds.first.resize(self.cols.alive.len(), NULL_INDEX);
        }
        if records_hold(self.welds.of(s), new) {
            return false;
        }
        self.welds.release(s);
        if all_buried(new) {
            self.welds.first[s] = ALL_BURIED;
        } else if !new.is_empty() {
            self.welds.first[s] = self.welds.edges.len() as u32;
            self.welds.edges.extend_from_slice(new);
        }
        true
    }

    /// Fills `out` with slot `s`'s welds, returns the edge count, or 0 when no edge is welded
    /// (or welding does not apply to it). `scratch`: the neighbours' slots and polygons, reused.
    /// The neighbours are those the tree holds in the static's weld region, found by a query or
    /// among the `listed` candidates.
    fn compute_welds(
        &self,
        s: usize,
        out: &mut [EdgeWeld; MAX_POLYGON_VERTICES],
        scratch: &mut Scratch,
        listed: Option<&NeighbourLists>,
    ) -> usize {
        if !self.welds_apply(s) {
            return 0;
        }
        let cols = &self.cols;
        let Some(x) = WorldPoly::of(cols, s) else { return 0 };
        let Some(q) = welded::core(&cols.shape[s]) else { return 0 };
        let pose = cols.pose[s];
        let (near, ys) = (&mut scratch.0, &mut scratch.1);
        near.clear();
        let region = weld_region(&x.aabb).fattened(x.radius);
        let mut keep = |o: u32| {
            if o as usize != s && weldable(cols, o as usize) {
                near.push(o);
            }
        };
        match listed {
            Some(l) => l
                .of(s)
                .iter()
                .filter(|&&o| self.tree.tight_aabb(o).is_some_and(|b| b.overlaps(&region)))
                .for_each(|&o| keep(o)),
            None => {
                self.tree.query(&region, |o| {
                    keep(o);
                    true
                });
            }
        }
        // In slot order, so that ties between candidates go the same way whatever the tree.
        near.sort_unstable();
        // Neighbours of the same rounding only: the union of their cores grown by the radius is
        // the union of the shapes, so the cores' boundary is the one to follow.
        // Written in place in `ys`, whose entries are kept between calls: a neighbour is a
        // couple of hundred bytes, and each static reads about eight of them.
        let mut count = 0;
        for &o in near.iter() {
            if ys.len() == count {
                ys.push(Neighbour::default());
            }
            let nb = &mut ys[count];
            if !nb.y.set(cols, o as usize) {
                continue;
            }
            let tol = tolerance(&x, &nb.y);
            if (nb.y.radius - x.radius).abs() > tol {
                continue;
            }
            let near = nb.y.aabb.fattened(tol);
            (nb.clips, nb.near, nb.tol) = (nb.y.reach(tol), near.fattened(slack(&near)), tol);
            count += 1;
        }
        let ys = &mut ys[..count];
        let n = x.count;
        // The part of each edge not covered from its ends by a neighbour: `[ta, tb]` of the edge.
        // A neighbour with a face along the edge, facing the same way, shares the surface rather
        // than covering it (collinear overlapping tops, duplicates).
        let mut span = [(0.0f32, 1.0f32); MAX_POLYGON_VERTICES];
        for (k, sp) in span.iter_mut().enumerate().take(n) {
            let (a, b) = x.edge(k);
            let eps = WELD_TOL;
            // A neighbour whose reach misses the edge clips nothing from it.
            let edge_box = Aabb::from_points(a.min(b), a.max(b));
            let snapped =
                |sp: (f32, f32)| (if sp.0 <= eps { 0.0 } else { sp.0 }, if sp.1 >= 1.0 - eps { 1.0 } else { sp.1 });
            for Neighbour { y, tol, .. } in ys.iter().filter(|y| y.clips.overlaps(&edge_box)) {
                if y.has_face_along(a, b, x.n[k], *tol) {
                    continue;
                }
                let Some((t0, t1)) = y.clip(a, b, *tol) else { continue };
                if t0 <= eps && t1 > sp.0 {
                    sp.0 = t1;
                }
                if t1 >= 1.0 - eps && t0 < sp.1 {
                    sp.1 = t0;
                }
                // The span only shrinks: once buried, the edge stays buried, and a buried edge's
                // ends are never read (an interior tile's edges stop at their first cover).
                let s = snapped(*sp);
                if s.0 >= s.1 - WELD_TOL {
                    break;
                }
            }
            *sp = snapped(*sp);
        }
        let buried = |k: usize| span[k].0 >= span[k].1 - WELD_TOL;
        // Which neighbour vertices lie on this static, for the ghost search of the edges that
        // are not buried (none of an interior tile's).
        if (0..n).any(|k| !buried(k)) {
            for nb in ys.iter_mut() {
                nb.held = std::array::from_fn(|j| j < nb.y.count && x.holds(nb.y.v[j], nb.tol));
            }
        }
        let ys = &*ys;
        let mut welded = false;
        for k in 0..n {
            let (a0, b0) = x.edge(k);
            let e1 = b0 - a0;
            let (a, b) = (a0 + span[k].0 * e1, a0 + span[k].1 * e1);
            let (prev, next) = (before(k, n), after(after(k, n), n));
            // Candidates at each end: the polygon's own neighbouring edge when both reach the
            // vertex, and every neighbour edge running into `a` (or out of `b`), by sharing the
            // point or passing through it. The least convex join wins: the union's boundary is
            // the one turning least to the left there. `None` turn: no candidate yet; a trimmed
            // end without one continues flat (the surface goes on inside the neighbour).
            let own_a = span[k].0 == 0.0 && span[prev].1 == 1.0 && !buried(prev);
            let own_b = span[k].1 == 1.0 && span[after(k, n)].0 == 0.0 && !buried(after(k, n));
            let mut ga = if own_a || span[k].0 == 0.0 {
                (q.vertices()[prev], if own_a { turn(a - x.v[prev], e1) } else { None }, false)
            } else {
                (pose.inv_transform_point(a - e1), None, true)
            };
            let mut gb = if own_b || span[k].1 == 1.0 {
                (q.vertices()[next], if own_b { turn(e1, x.v[next] - b) } else { None }, false)
            } else {
                (pose.inv_transform_point(b + e1), None, true)
            };
            // Only a neighbour with an end within the tolerance of its edges offers a candidate.
            // A buried edge never collides, so its ghosts are never read: the search is skipped.
            for Neighbour { y, tol, held, .. } in
                ys.iter().filter(|y| !buried(k) && (y.near.contains_point(a) || y.near.contains_point(b)))
            {
                for j in 0..y.count {
                    let (c, d) = y.edge(j);
                    // Edges lying on ours are our opposite faces, interior with them.
                    if held[j] && held[after(j, y.count)] {
                        continue;
                    }
                    if d.distance(a) <= *tol || strictly_on(a, c, d, *tol) {
                        let t = turn(a - c, e1);
                        if t.is_some_and(|t| ga.1.is_none_or(|u| t < u)) {
                            ga = (pose.inv_transform_point(c), t, true);
                        }
                    }
                    if c.distance(b) <= *tol || strictly_on(b, c, d, *tol) {
                        let t = turn(e1, d - b);
                        if t.is_some_and(|t| gb.1.is_none_or(|u| t < u)) {
                            gb = (pose.inv_transform_point(d), t, true);
                        }
                    }
                }
            }
            let trimmed = span[k] != (0.0, 1.0);
            welded |= ga.2 || gb.2 || trimmed;
            let (qa, qb) = (q.vertices()[k], q.vertices()[after(k, n)]);
            let (la, lb) = if trimmed { (qa + span[k].0 * (qb - qa), qa + span[k].1 * (qb - qa)) } else { (qa, qb) };
            out[k] = EdgeWeld { a: la, b: lb, ghost_a: ga.0, ghost_b: gb.0, buried: buried(k), count: n as u8 };
        }
        if welded { n } else { 0 }
    }

    /// Checks that every static's welds are what a recomputation gives (for `validate`): the
    /// step left none stale. Only meaningful when no static changed since the last step.
    pub(super) fn validate_welds(&self) -> Result<(), String> {
        let cols = &self.cols;
        let mut scratch = Scratch::default();
        let mut owned = 0;
        for s in 0..cols.alive.len() {
            let record = self.welds.of(s);
            if !cols.alive[s] {
                if record.is_some() {
                    return Err(format!("slot {s}: dead, with welds"));
                }
                continue;
            }
            owned += record.map_or(0, <[EdgeWeld]>::len);
            if !self.welds.dirty.is_empty() || !cols.is_placed(s) {
                continue;
            }
            let mut edges = [EdgeWeld::default(); MAX_POLYGON_VERTICES];
            let count = if self.welds_apply(s) { self.compute_welds(s, &mut edges, &mut scratch, None) } else { 0 };
            if !records_hold(record, &edges[..count]) {
                return Err(format!("slot {s}: stale welds {record:?}, a recomputation gives {:?}", &edges[..count]));
            }
        }
        if owned + self.welds.garbage != self.welds.edges.len() {
            return Err(format!(
                "weld records: {owned} owned + {} dead != {} stored",
                self.welds.garbage,
                self.welds.edges.len()
            ));
        }
        Ok(())
    }

    /// Rewrites `edges` without its dead records once they are the larger part (in place, in
    /// the order the runs are stored, so the result depends on the history alone).
    fn compact_welds(&mut self) {
        let w = &mut self.welds;
        if w.garbage < 1024 || w.garbage * 2 < w.edges.len() {
            return;
        }
        w.order.clear();
        w.order.extend(
            w.first
                .iter()
                .enumerate()
                .filter(|(_, f)| **f != NULL_INDEX && **f != ALL_BURIED)
                .map(|(s, &f)| (f, ColliderSlot::from_index(s))),
        );
        w.order.sort_unstable();
        let mut to = 0;
        for &(f, s) in &w.order {
            let n = usize::from(w.edges[f as usize].count);
            w.edges.copy_within(f as usize..f as usize + n, to);
            w.first[s.index()] = to as u32;
            to += n;
        }
        w.edges.truncate(to);
        w.garbage = 0;
    }
}
