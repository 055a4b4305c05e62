//! Queries: boxes, points, rays (Box2D's ray-cast callback contract), self pairs by
//! simultaneous descent, and pairs between two trees. All exact with respect to the tight boxes.

use super::{BoxRayHit, DynamicTree, NodeIndex};
use crate::math::{Aabb, Ray};
use glam::Vec2;

/// A LIFO stack on the call stack for `&self` traversals, so that queries allocate nothing unless
/// the tree is deeper than `N` (then the overflow goes to a heap `Vec`).
pub(super) struct SmallStack<T: Copy, const N: usize> {
    buf: [T; N],
    len: usize,
    spill: Vec<T>,
}

impl<T: Copy, const N: usize> SmallStack<T, N> {
    #[inline]
    pub(super) fn new(fill: T) -> Self {
        Self { buf: [fill; N], len: 0, spill: Vec::new() }
    }

    #[inline]
    pub(super) fn push(&mut self, v: T) {
        if self.len < N {
            self.buf[self.len] = v;
            self.len += 1;
        } else {
            self.spill.push(v);
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        // While the spill holds anything the buffer is full, so the spill holds the newest items.
        if let Some(v) = self.spill.pop() {
            Some(v)
        } else if self.len > 0 {
            self.len -= 1;
            Some(self.buf[self.len])
        } else {
            None
        }
    }
}

/// How node and leaf boxes are grown before a ray test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Grow {
    /// Half extents added on every side: a box of these half extents swept along the ray (a
    /// shape cast) touches a box exactly when the ray's point enters the box grown by them
    /// (Minkowski sum), so a shape cast walks the tree as a ray cast does.
    pub half: Vec2,
    /// Then grow by [`Aabb::with_rounding_slack`] (scene queries whose candidates get an exact
    /// shape test, which can accept a probe that misses the box by a rounding error).
    pub slack: bool,
}

impl Grow {
    /// The stored boxes as they are.
    pub const NONE: Grow = Grow { half: Vec2::ZERO, slack: false };
    /// The stored boxes with their rounding slack.
    pub const SLACK: Grow = Grow { half: Vec2::ZERO, slack: true };

    #[inline]
    fn apply(&self, b: &Aabb) -> Aabb {
        let b = if self.half == Vec2::ZERO { *b } else { Aabb { min: b.min - self.half, max: b.max + self.half } };
        if self.slack { b.with_rounding_slack() } else { b }
    }
}

/// A ray with its reciprocal direction, tested against node boxes by [`Aabb::slab_cast`], the
/// arithmetic of [`Aabb::ray_cast`] (same `inv = 1/d`, same products). That makes the test
/// monotone under containment: if a leaf's box is hit then every ancestor's box is hit no later,
/// so pruning by the ancestors never loses a hit that the brute-force slab test would report.
/// Growing keeps containment: a parent's grown box contains its children's (the same half
/// extents, added with monotone rounding, and a larger box has at least the slack of a smaller
/// one inside it).
struct RaySlab {
    origin: Vec2,
    dir: Vec2,
    inv: Vec2,
    grow: Grow,
}

impl RaySlab {
    fn new(ray: &Ray, grow: Grow) -> Self {
        Self { origin: ray.origin, dir: ray.dir, inv: Vec2::new(1.0 / ray.dir.x, 1.0 / ray.dir.y), grow }
    }

    #[inline]
    fn cast(&self, b: &Aabb, max_t: f32) -> Option<f32> {
        if self.grow == Grow::NONE {
            b.slab_cast(self.origin, self.dir, self.inv, max_t)
        } else {
            self.grow.apply(b).slab_cast(self.origin, self.dir, self.inv, max_t)
        }
    }
}

impl DynamicTree {
    /// Calls `f` with every id whose tight box overlaps `aabb` (touching counts), in unspecified
    /// order, until `f` returns `false`. Returns `false` when stopped early.
    pub fn query(&self, aabb: &Aabb, f: impl FnMut(u32) -> bool) -> bool {
        self.query_with(aabb, false, f)
    }

    /// [`DynamicTree::query`], with every stored box grown by its rounding slack when `slack` is
    /// set (the world's scene queries; see [`DynamicTree::ray_cast_all_with`]).
    pub(crate) fn query_with(&self, aabb: &Aabb, slack: bool, mut f: impl FnMut(u32) -> bool) -> bool {
        if self.root.is_null() {
            return true;
        }
        let overlaps = |b: &Aabb| if slack { b.with_rounding_slack().overlaps(aabb) } else { b.overlaps(aabb) };
        let exact = self.exact_leaves();
        if !overlaps(&self.nodes[self.root.index()].aabb) {
            return true;
        }
        // Every node on the stack overlaps: a node tests its two children before pushing them.
        // A built tree keeps siblings side by side, so both boxes come in one cache line, and a
        // child that misses the query costs no load of its own.
        let mut stack = SmallStack::<NodeIndex, 64>::new(NodeIndex::NULL);
        stack.push(self.root);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n.index()];
            if node.is_leaf() {
                let id = node.id();
                if (exact || overlaps(&self.tight[id as usize])) && !f(id) {
                    return false;
                }
            } else {
                let (c1, c2) = (node.child1, node.child2());
                if overlaps(&self.nodes[c1.index()].aabb) {
                    stack.push(c1);
                }
                if overlaps(&self.nodes[c2.index()].aabb) {
                    stack.push(c2);
                }
            }
        }
        true
    }

    /// [`DynamicTree::query`] for each of `boxes`: `f(k, id, tight)` for every id whose tight
    /// box overlaps `boxes[k]`, the walks interleaved (so in no particular order). The tight box
    /// comes from the leaf the walk has just read, where a lookup by id would be a load from
    /// anywhere in memory.
    ///
    /// In a tree much larger than the caches every step down a walk is a miss, and it cannot
    /// start before the step above has loaded the node's children. Walks advanced in turn have
    /// their misses outstanding together, where one walk after another would wait for each.
    pub(crate) fn query_boxes_each(&self, boxes: &[Aabb], mut f: impl FnMut(usize, u32, &Aabb)) {
        const LANES: usize = 8;
        if self.root.is_null() {
            return;
        }
        let exact = self.exact_leaves();
        let root = self.root;
        let root_box = self.nodes[root.index()].aabb;
        let mut stacks: [SmallStack<NodeIndex, 64>; LANES] = std::array::from_fn(|_| SmallStack::new(NodeIndex::NULL));
        // The query each lane walks for; `next` is the first query not yet given a lane.
        let mut walking = [0; LANES];
        let mut next = 0;
        loop {
            let mut busy = false;
            for (lane, stack) in stacks.iter_mut().enumerate() {
                let mut node = stack.pop();
                while node.is_none() && next < boxes.len() {
                    if root_box.overlaps(&boxes[next]) {
                        walking[lane] = next;
                        node = Some(root);
                    }
                    next += 1;
                }
                let Some(n) = node else { continue };
                busy = true;
                let (k, q) = (walking[lane], &boxes[walking[lane]]);
                let node = &self.nodes[n.index()];
                if node.is_leaf() {
                    let id = node.id();
                    let tight = if exact { &node.aabb } else { &self.tight[id as usize] };
                    if exact || tight.overlaps(q) {
                        f(k, id, tight);
                    }
                } else {
                    let (c1, c2) = (node.child1, node.child2());
                    if self.nodes[c1.index()].aabb.overlaps(q) {
                        stack.push(c1);
                    }
                    if self.nodes[c2.index()].aabb.overlaps(q) {
                        stack.push(c2);
                    }
                }
            }
            if !busy {
                return;
            }
        }
    }

    /// Appends the ids whose tight boxes contain `p` (boundary included).
    pub fn query_point(&self, p: Vec2, out: &mut Vec<u32>) {
        self.query(&Aabb::new(p, p), |id| {
            out.push(id);
            true
        });
    }

    /// The core ray traversal: visits the leaves whose tight boxes the ray enters within the
    /// current `max_t`, children nearer first, pruning nodes entered beyond `max_t`, which `visit`
    /// may lower. `visit(id, t_box, &mut max_t)` returns `false` to stop. Every box is grown by
    /// `grow` first (see [`RaySlab`] for why pruning stays consistent).
    fn ray_traverse(&self, ray: &Ray, max_t: f32, grow: Grow, mut visit: impl FnMut(u32, f32, &mut f32) -> bool) {
        if self.root.is_null() || max_t.is_nan() || max_t < 0.0 {
            return;
        }
        let slab = RaySlab::new(ray, grow);
        let mut max_t = max_t;
        let Some(t_root) = slab.cast(&self.nodes[self.root.index()].aabb, max_t) else { return };
        let exact = self.exact_leaves();
        let mut stack = SmallStack::<(NodeIndex, f32), 64>::new((NodeIndex::NULL, 0.0));
        stack.push((self.root, t_root));
        while let Some((n, t)) = stack.pop() {
            if t > max_t {
                continue;
            }
            let node = &self.nodes[n.index()];
            if node.is_leaf() {
                let id = node.id();
                let t_box = if exact {
                    t
                } else {
                    match slab.cast(&self.tight[id as usize], max_t) {
                        Some(tb) => tb,
                        None => continue,
                    }
                };
                if !visit(id, t_box, &mut max_t) {
                    return;
                }
                continue;
            }
            let t1 = slab.cast(&self.nodes[node.child1.index()].aabb, max_t);
            let t2 = slab.cast(&self.nodes[node.child2().index()].aabb, max_t);
            match (t1, t2) {
                (Some(a), Some(b)) => {
                    if a <= b {
                        stack.push((node.child2(), b));
                        stack.push((node.child1, a));
                    } else {
                        stack.push((node.child1, a));
                        stack.push((node.child2(), b));
                    }
                }
                (Some(a), None) => stack.push((node.child1, a)),
                (None, Some(b)) => stack.push((node.child2(), b)),
                (None, None) => {}
            }
        }
    }

    /// Casts a ray against the stored boxes, Box2D's ray-cast callback contract: `callback(id,
    /// t_box)` receives each id whose tight box the ray enters at `t_box <= max_t` (the current
    /// one), roughly near to far, and returns the new `max_t`: `0` stops the cast, a value in
    /// `(0, max_t)` clips the ray (farther nodes are skipped), anything else (`max_t`, a larger
    /// value, a negative value to ignore the candidate) continues unchanged. The world runs its
    /// exact shape casts in the callback.
    pub fn ray_cast_all(&self, ray: &Ray, max_t: f32, callback: impl FnMut(u32, f32) -> f32) {
        self.ray_cast_all_with(ray, max_t, Grow::NONE, callback);
    }

    /// [`DynamicTree::ray_cast_all`], with every box grown by `grow`: the world's scene
    /// queries, whose exact shape casts may hit a shape whose box the ray misses by a rounding
    /// error, and its shape casts, which cast the probe's box (a ray against boxes grown by its
    /// half extents).
    pub(crate) fn ray_cast_all_with(
        &self,
        ray: &Ray,
        max_t: f32,
        grow: Grow,
        mut callback: impl FnMut(u32, f32) -> f32,
    ) {
        self.ray_traverse(ray, max_t, grow, |id, t_box, max_t| {
            let r = callback(id, t_box);
            if r == 0.0 {
                return false;
            }
            if r > 0.0 && r < *max_t {
                *max_t = r;
            }
            true
        });
    }

    /// The closest hit among the candidates: `hit_fn(id, t_box)` returns the exact hit parameter
    /// of the shape behind `id` (or `None`); hits beyond `max_t` are ignored. Equal parameters go
    /// to the smaller id, so the result does not depend on the tree's shape.
    pub fn ray_cast_closest(
        &self,
        ray: &Ray,
        max_t: f32,
        hit_fn: impl FnMut(u32, f32) -> Option<f32>,
    ) -> Option<BoxRayHit> {
        self.ray_cast_closest_with(ray, max_t, Grow::NONE, hit_fn)
    }

    /// [`DynamicTree::ray_cast_closest`], with the boxes grown by `grow` (see
    /// [`DynamicTree::ray_cast_all_with`]).
    pub(crate) fn ray_cast_closest_with(
        &self,
        ray: &Ray,
        max_t: f32,
        grow: Grow,
        mut hit_fn: impl FnMut(u32, f32) -> Option<f32>,
    ) -> Option<BoxRayHit> {
        let mut best: Option<BoxRayHit> = None;
        self.ray_traverse(ray, max_t, grow, |id, t_box, max_t| {
            if let Some(t) = hit_fn(id, t_box)
                && t >= 0.0
                && t <= *max_t
                && best.is_none_or(|b| t < b.t || (t == b.t && id < b.id))
            {
                best = Some(BoxRayHit { id, t });
                // Boxes entered at exactly `t` are still visited (pruning is `t_node > max_t`),
                // so an equal hit with a smaller id is not lost.
                *max_t = t;
            }
            true
        });
        best
    }

    /// The closest tight box hit by the ray within `max_t` (ties to the smaller id).
    #[must_use]
    pub fn ray_cast(&self, ray: &Ray, max_t: f32) -> Option<BoxRayHit> {
        self.ray_cast_closest(ray, max_t, |_, t| Some(t))
    }

    /// Visits the leaves whose tight boxes lie within the current bound of `aabb` (box
    /// distance, 0 when they overlap), nearer subtrees first, pruning every node farther than the
    /// bound, which `visit(id, distance, &mut bound)` may lower as it finds closer shapes:
    /// a nearest-neighbour search whose cost shrinks with the answer, not with `max_distance`.
    /// Nodes exactly at the bound are still visited, so an equally near candidate with a
    /// smaller id can still win. With `slack`, stored boxes are grown by their rounding slack.
    pub(crate) fn nearest_with(
        &self,
        aabb: &Aabb,
        max_distance: f32,
        slack: bool,
        mut visit: impl FnMut(u32, f32, &mut f32),
    ) {
        if self.root.is_null() || max_distance.is_nan() || max_distance < 0.0 {
            return;
        }
        let grow = if slack { Grow::SLACK } else { Grow::NONE };
        let dist = |b: &Aabb| aabb.distance(&grow.apply(b));
        let mut bound = max_distance;
        let exact = self.exact_leaves();
        let mut stack = SmallStack::<(NodeIndex, f32), 64>::new((NodeIndex::NULL, 0.0));
        stack.push((self.root, dist(&self.nodes[self.root.index()].aabb)));
        while let Some((n, d)) = stack.pop() {
            if d > bound {
                continue;
            }
            let node = &self.nodes[n.index()];
            if node.is_leaf() {
                let id = node.id();
                let d_box = if exact { d } else { dist(&self.tight[id as usize]) };
                if d_box <= bound {
                    visit(id, d_box, &mut bound);
                }
                continue;
            }
            let (c1, c2) = (node.child1, node.child2());
            let (d1, d2) = (dist(&self.nodes[c1.index()].aabb), dist(&self.nodes[c2.index()].aabb));
            // The nearer child on top, so it is searched first and lowers the bound for the other.
            if d1 <= d2 {
                stack.push((c2, d2));
                stack.push((c1, d1));
            } else {
                stack.push((c1, d1));
                stack.push((c2, d2));
            }
        }
    }

    /// Calls `f(a, b)` once for every pair of stored ids whose tight boxes overlap (in the order
    /// of the descent, `a != b`, not sorted). A simultaneous descent of the tree against itself,
    /// pruned by the node boxes.
    pub fn for_each_pair(&self, f: impl FnMut(u32, u32)) {
        self.pairs_within(|_| 0.0, f);
    }

    /// [`DynamicTree::for_each_pair`] of the boxes grown by `margin` of each (the tight boxes
    /// at the leaves, the node boxes above them). `margin` must not shrink from a box to one
    /// holding it, so that a node pair whose grown boxes are apart holds no pair of leaves whose
    /// grown boxes overlap. Each node's margin is computed once, before the descent, into
    /// `margins` (a buffer kept by the caller).
    pub(crate) fn for_each_pair_grown(
        &self,
        margin: impl Fn(&Aabb) -> f32,
        margins: &mut Vec<f32>,
        f: impl FnMut(u32, u32),
    ) {
        margins.clear();
        margins.extend(self.nodes.iter().map(|n| margin(&n.aabb)));
        self.pairs_within(|n| margins[n], f);
    }

    /// The descent of [`DynamicTree::for_each_pair_grown`], with `margin` by node index (a
    /// leaf's node margin serves its tight box too: the node box holds it).
    fn pairs_within(&self, margin: impl Fn(usize) -> f32, mut f: impl FnMut(u32, u32)) {
        if self.root.is_null() {
            return;
        }
        let exact = self.exact_leaves();
        let nodes = &self.nodes;
        let mut stack = SmallStack::<(NodeIndex, NodeIndex), 128>::new((NodeIndex::NULL, NodeIndex::NULL));
        stack.push((self.root, self.root));
        while let Some((a, b)) = stack.pop() {
            let na = &nodes[a.index()];
            if a == b {
                // All pairs within the subtree: within each child, then across the children.
                if !na.is_leaf() {
                    stack.push((na.child1, na.child2()));
                    stack.push((na.child1, na.child1));
                    stack.push((na.child2(), na.child2()));
                }
                continue;
            }
            let nb = &nodes[b.index()];
            let grow = margin(a.index()) + margin(b.index());
            if !na.aabb.fattened(grow).overlaps(&nb.aabb) {
                continue;
            }
            match (na.is_leaf(), nb.is_leaf()) {
                (true, true) => {
                    let (ia, ib) = (na.id(), nb.id());
                    if exact || self.tight[ia as usize].fattened(grow).overlaps(&self.tight[ib as usize]) {
                        f(ia, ib);
                    }
                }
                // Descend the larger box, so both sides shrink at a similar rate.
                (false, true) => {
                    stack.push((na.child1, b));
                    stack.push((na.child2(), b));
                }
                (false, false) if na.aabb.perimeter() >= nb.aabb.perimeter() => {
                    stack.push((na.child1, b));
                    stack.push((na.child2(), b));
                }
                _ => {
                    stack.push((a, nb.child1));
                    stack.push((a, nb.child2()));
                }
            }
        }
    }

    /// Calls `f(id_in_self, id_in_other)` for every pair of a box of `self` and a box of `other`
    /// whose tight boxes overlap, by simultaneous descent.
    pub fn tree_vs_tree_pairs(&self, other: &DynamicTree, mut f: impl FnMut(u32, u32)) {
        if self.root.is_null() || other.root.is_null() {
            return;
        }
        let (ea, eb) = (self.exact_leaves(), other.exact_leaves());
        let mut stack = SmallStack::<(NodeIndex, NodeIndex), 128>::new((NodeIndex::NULL, NodeIndex::NULL));
        stack.push((self.root, other.root));
        while let Some((a, b)) = stack.pop() {
            let na = &self.nodes[a.index()];
            let nb = &other.nodes[b.index()];
            if !na.aabb.overlaps(&nb.aabb) {
                continue;
            }
            let descend_a = match (na.is_leaf(), nb.is_leaf()) {
                (true, true) => {
                    let (ia, ib) = (na.id(), nb.id());
                    let ta = if ea { na.aabb } else { self.tight[ia as usize] };
                    let tb = if eb { nb.aabb } else { other.tight[ib as usize] };
                    if ta.overlaps(&tb) {
                        f(ia, ib);
                    }
                    continue;
                }
                (false, true) => true,
                (true, false) => false,
                (false, false) => na.aabb.perimeter() >= nb.aabb.perimeter(),
            };
            if descend_a {
                stack.push((na.child1, b));
                stack.push((na.child2(), b));
            } else {
                stack.push((a, nb.child1));
                stack.push((a, nb.child2()));
            }
        }
    }
}
