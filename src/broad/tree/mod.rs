//! [`DynamicTree`]: a flat-array AABB tree with SAH branch-and-bound insertion, tree rotations and
//! a binned-SAH bulk build.
//!
//! # Layout
//! ```text
//! nodes: Vec<Node>   one array, u32 links, NULL = u32::MAX
//!
//!            root (internal: child1, child2, box = union of children)
//!           /    \
//!      internal   leaf ── child2 holds the user id ──> leaf_of[id] == this node
//!       /   \                                          tight[id]  == exact box
//!    leaf   leaf      free nodes: height == FREE, parent == next free node
//! ```
//! A leaf's node box is its *fat* box (the tight box grown by the margin); `tight[id]` keeps the
//! exact box so that every query and pair result is exact with respect to the tight boxes even
//! with a margin. With margin 0 the two are equal and leaves skip the indirection.
//!
//! # Insertion (Catto, "Dynamic Bounding Volume Hierarchies", GDC 2019; Bittner et al.,
//! "Fast insertion-based optimization of bounding volume hierarchies", 2013)
//! Choosing sibling `S` for a new leaf `L` costs the perimeter of the new parent plus the
//! perimeter growth of every ancestor of `S`:
//! `C(S) = P(S ∪ L) + Σ_{A ancestor of S} [P(A ∪ L) − P(A)]`.
//! The search is a true branch and bound: the sum over ancestors is the cost *inherited* by the
//! subtree, and any node below `S` costs at least `P(L) + inherited(S) + P(S ∪ L) − P(S)`, so a
//! subtree whose bound cannot beat the best candidate so far is pruned. Box2D v3 instead descends
//! one greedy path ([`InsertStrategy::Greedy`], kept for comparison; `BENCHMARKS.md` has
//! the measured difference). Ties are broken towards the smaller subtree height, which keeps
//! degenerate scenes (every box identical) from degrading into a list.
//!
//! # Rotations
//! After an insertion or removal every ancestor on the path considers swapping one of its
//! children with a grandchild under the other child (Kensler 2008; Box2D v3's `b2RotateNodes`),
//! taking the swap that shrinks the perimeter of the rebuilt child the most. When no swap lowers
//! the cost, a swap of exactly zero cost that lowers the node's height is taken: it is the only
//! balancing that happens, and it only matters when many boxes coincide.
//!
//! # Bulk build
//! [`DynamicTree::rebuild`] and large [`DynamicTree::insert_batch`] calls build top-down with a
//! binned SAH (Wald 2007): 16 bins on each axis, split cost `P(left)·n_left + P(right)·n_right`.

mod build;
mod query;
#[cfg(test)]
mod tests;

use query::SmallStack;

use crate::broad::{BroadPhase, Pair, diff_sorted_pairs, pair};
use crate::math::Aabb;

/// The null link.
const NULL: u32 = u32::MAX;
/// The height of a node on the free list.
const FREE: u32 = u32::MAX;

/// One tree node, 32 bytes (Box2D's `b2TreeNode` is 40: it also stores category bits, user data
/// as 64 bits and flags; here the id lives in `child2` and flags are implied by the links).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    /// 16 bytes. Internal: a box containing both children. Leaf: the fat box.
    aabb: Aabb,
    /// 4 bytes. Parent link, `NULL` at the root; on the free list, the next free node.
    parent: u32,
    /// 4 bytes. First child; `NULL` marks a leaf (or a free node).
    child1: u32,
    /// 4 bytes. Second child; for a leaf, the user id.
    child2: u32,
    /// 4 bytes. 0 for a leaf, 1 + max of the children for an internal node, `FREE` when free.
    height: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl Node {
    #[inline]
    fn is_leaf(&self) -> bool {
        self.child1 == NULL
    }
}

/// How [`DynamicTree::insert`] finds the sibling of a new leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InsertStrategy {
    /// Branch and bound over every candidate sibling under the SAH cost of Catto (GDC 2019):
    /// finds the cheapest sibling in the whole tree, pruning subtrees whose lower bound cannot
    /// win.
    #[default]
    BranchAndBound,
    /// Box2D v3-style greedy descent along a single path, stopping when descending cannot be
    /// cheaper. Faster per insertion, worse trees; kept for comparison.
    #[cfg(test)]
    Greedy,
}

/// A ray hit on a stored box: the id and the ray parameter of entry (`0` when the origin is
/// inside the box).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The id of the box hit.
    pub id: u32,
    /// The ray parameter of the hit, in units of the ray direction.
    pub t: f32,
}

/// Shape and quality of a tree, from [`DynamicTree::stats`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TreeStats {
    /// Height of the root (0 for a single leaf or an empty tree).
    pub height: u32,
    /// Nodes in use, leaves and internal.
    pub node_count: u32,
    /// Leaves (stored ids).
    pub leaf_count: u32,
    /// Sum of the perimeters of the internal nodes: the SAH cost of the tree, lower is better.
    pub internal_perimeter: f64,
    /// Depth of the deepest leaf (root at depth 0).
    pub max_leaf_depth: u32,
    /// Mean depth of the leaves.
    pub mean_leaf_depth: f64,
}

/// A dynamic AABB tree over `u32` ids (see the module documentation for the algorithms).
///
/// Ids are meant to be small dense integers (the world's slot indices): the tree keeps arrays
/// indexed by id, so memory grows with the largest id stored.
#[derive(Clone, Debug)]
pub struct DynamicTree {
    nodes: Vec<Node>,
    root: u32,
    /// Head of the free list threaded through `Node::parent`.
    free: u32,
    /// Nodes in use (reachable from the root).
    node_count: u32,
    leaf_count: u32,
    margin: f32,
    /// Set once a caller chose a leaf's fat box itself ([`DynamicTree::update_with_fat`]):
    /// from then on node boxes and tight boxes may differ even with margin 0.
    caller_fat: bool,
    strategy: InsertStrategy,
    /// Whether inserts and removals rotate; only the tests turn it off, to measure what the
    /// rotations buy under churn (DESIGN.md's trap: trees degrade without them).
    rotations: bool,
    /// id → leaf node, `NULL` when the id is absent.
    leaf_of: Vec<u32>,
    /// id → tight box; every result is exact with respect to these.
    tight: Vec<Aabb>,

    /// The pair set reported by the previous [`BroadPhase::update_pairs`], sorted.
    prev_pairs: Vec<Pair>,
    /// id → whether the id was inserted, removed or updated since the previous `update_pairs`.
    dirty: Vec<bool>,
    /// The ids flagged in `dirty`, each once.
    dirty_ids: Vec<u32>,

    /// Scratch: the branch-and-bound stack of (node, inherited cost), reused by every insert.
    /// Sized up front (2 KiB) so that a rare deeper search in steady state does not allocate.
    insert_stack: Vec<(u32, f32)>,
    /// Scratch: pairs found by re-querying dirty leaves in `update_pairs`.
    new_pairs: Vec<Pair>,
    /// Scratch: the next pair set being assembled in `update_pairs`, swapped with `prev_pairs`.
    merged: Vec<Pair>,
    /// Scratch for the binned build.
    build: build::Scratch,
}

impl Default for DynamicTree {
    fn default() -> Self {
        Self::new(0.0)
    }
}

impl DynamicTree {
    /// An empty tree whose leaves store their boxes grown by `margin` on every side (a negative
    /// or non-finite margin is taken as 0). Results stay exact for any margin; the margin only
    /// trades looser nodes for fewer re-insertions in [`DynamicTree::update`].
    #[must_use]
    pub fn new(margin: f32) -> Self {
        let margin = if margin.is_finite() && margin > 0.0 { margin } else { 0.0 };
        Self {
            nodes: Vec::new(),
            root: NULL,
            free: NULL,
            node_count: 0,
            leaf_count: 0,
            margin,
            caller_fat: false,
            strategy: InsertStrategy::BranchAndBound,
            rotations: true,
            leaf_of: Vec::new(),
            tight: Vec::new(),
            prev_pairs: Vec::new(),
            dirty: Vec::new(),
            dirty_ids: Vec::new(),
            insert_stack: Vec::with_capacity(256),
            new_pairs: Vec::new(),
            merged: Vec::new(),
            build: build::Scratch::default(),
        }
    }

    /// The same tree with another insertion strategy.
    #[must_use]
    pub fn with_strategy(mut self, strategy: InsertStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Sets the insertion strategy for later insertions.
    pub fn set_strategy(&mut self, strategy: InsertStrategy) {
        self.strategy = strategy;
    }

    /// The insertion strategy.
    #[must_use]
    pub fn strategy(&self) -> InsertStrategy {
        self.strategy
    }

    /// The fat margin.
    #[must_use]
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// Number of stored ids.
    #[must_use]
    pub fn len(&self) -> usize {
        self.leaf_count as usize
    }

    /// Whether nothing is stored.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.leaf_count == 0
    }

    /// Whether `id` is stored.
    #[must_use]
    pub fn contains(&self, id: u32) -> bool {
        self.leaf(id).is_some()
    }

    /// The tight box of a stored id.
    #[must_use]
    pub fn tight_aabb(&self, id: u32) -> Option<Aabb> {
        self.leaf(id).map(|_| self.tight[id as usize])
    }

    /// The fat box of a stored id (the box the tree itself uses).
    #[must_use]
    pub fn fat_aabb(&self, id: u32) -> Option<Aabb> {
        self.leaf(id).map(|n| self.nodes[n as usize].aabb)
    }

    /// The box of the root (containing every stored box), or `None` when empty.
    #[must_use]
    pub fn root_aabb(&self) -> Option<Aabb> {
        (self.root != NULL).then(|| self.nodes[self.root as usize].aabb)
    }

    /// Removes everything, keeping the allocations.
    pub fn clear(&mut self) {
        for id in 0..self.leaf_of.len() {
            if self.leaf_of[id] != NULL {
                self.leaf_of[id] = NULL;
                self.mark_dirty(id as u32);
            }
        }
        self.nodes.clear();
        self.root = NULL;
        self.free = NULL;
        self.node_count = 0;
        self.leaf_count = 0;
    }

    #[inline]
    fn leaf(&self, id: u32) -> Option<u32> {
        match self.leaf_of.get(id as usize) {
            Some(&n) if n != NULL => Some(n),
            _ => None,
        }
    }

    /// Whether leaves can be tested by their node box alone (fat == tight).
    #[inline]
    fn exact_leaves(&self) -> bool {
        self.margin == 0.0 && !self.caller_fat
    }

    fn ensure_id(&mut self, id: u32) {
        let need = id as usize + 1;
        if self.leaf_of.len() < need {
            self.leaf_of.resize(need, NULL);
            self.tight.resize(need, Aabb::EMPTY);
            self.dirty.resize(need, false);
        }
    }

    fn mark_dirty(&mut self, id: u32) {
        let d = &mut self.dirty[id as usize];
        if !*d {
            *d = true;
            self.dirty_ids.push(id);
        }
    }

    fn alloc(&mut self) -> u32 {
        self.node_count += 1;
        if self.free != NULL {
            let n = self.free;
            self.free = self.nodes[n as usize].parent;
            n
        } else {
            self.nodes.push(Node { aabb: Aabb::EMPTY, parent: NULL, child1: NULL, child2: NULL, height: FREE });
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, n: u32) {
        self.nodes[n as usize] =
            Node { aabb: Aabb::EMPTY, parent: self.free, child1: NULL, child2: NULL, height: FREE };
        self.free = n;
        self.node_count -= 1;
    }

    /// Stores `id` with box `aabb`. Inserting an id that is already stored updates its box.
    pub fn insert(&mut self, id: u32, aabb: Aabb) {
        if self.contains(id) {
            self.update(id, aabb);
            return;
        }
        let leaf = self.new_leaf(id, aabb);
        self.insert_leaf(leaf);
    }

    /// Allocates a leaf for an absent id without linking it into the tree.
    fn new_leaf(&mut self, id: u32, aabb: Aabb) -> u32 {
        self.ensure_id(id);
        let leaf = self.alloc();
        self.nodes[leaf as usize] =
            Node { aabb: aabb.fattened(self.margin), parent: NULL, child1: NULL, child2: id, height: 0 };
        self.leaf_of[id as usize] = leaf;
        self.tight[id as usize] = aabb;
        self.leaf_count += 1;
        self.mark_dirty(id);
        leaf
    }

    /// Removes `id`; returns whether it was stored.
    pub fn remove(&mut self, id: u32) -> bool {
        let Some(leaf) = self.leaf(id) else { return false };
        self.unlink_leaf(leaf);
        self.release(leaf);
        self.leaf_of[id as usize] = NULL;
        self.leaf_count -= 1;
        self.mark_dirty(id);
        true
    }

    /// Like [`DynamicTree::update`] (or an insert for an absent id), but a leaf that must move is
    /// re-inserted with the caller's `fat` box (which must contain `aabb`) rather than `aabb`
    /// grown by the tree's margin: for callers that size fat boxes per object. The world keeps
    /// its movers' query tree this way, with fat boxes twice as loose as the SAP's, so that the
    /// tree is re-inserted into less often than the SAP's endpoints move.
    pub fn update_with_fat(&mut self, id: u32, aabb: Aabb, fat: Aabb) -> bool {
        debug_assert!(fat.contains(&aabb));
        self.caller_fat = true;
        let Some(leaf) = self.leaf(id) else {
            let leaf = self.new_leaf(id, aabb);
            self.nodes[leaf as usize].aabb = fat;
            self.insert_leaf(leaf);
            return true;
        };
        self.tight[id as usize] = aabb;
        self.mark_dirty(id);
        if self.nodes[leaf as usize].aabb.contains(&aabb) {
            return false;
        }
        self.unlink_leaf(leaf);
        self.nodes[leaf as usize].aabb = fat;
        self.insert_leaf(leaf);
        true
    }

    /// Replaces the box of `id` (inserting it when absent). The leaf moves only when the new box
    /// leaves its fat box: then it is unlinked and re-inserted, reusing its node. Returns whether
    /// the tree changed shape.
    pub fn update(&mut self, id: u32, aabb: Aabb) -> bool {
        let Some(leaf) = self.leaf(id) else {
            self.insert(id, aabb);
            return true;
        };
        self.tight[id as usize] = aabb;
        self.mark_dirty(id);
        let fat = self.nodes[leaf as usize].aabb;
        if fat.contains(&aabb) {
            if self.exact_leaves() {
                // Shrinking in place keeps fat == tight; the ancestors still contain it.
                self.nodes[leaf as usize].aabb = aabb;
            }
            return false;
        }
        self.unlink_leaf(leaf);
        self.nodes[leaf as usize].aabb = aabb.fattened(self.margin);
        self.insert_leaf(leaf);
        true
    }

    /// Inserts many boxes. On an empty tree, or when the batch is at least half the size of the
    /// tree, everything is rebuilt by binned SAH; otherwise the boxes are inserted one by one.
    pub fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        if self.root != NULL && items.len() * 2 < self.leaf_count as usize {
            for &(id, aabb) in items {
                self.insert(id, aabb);
            }
            return;
        }
        for &(id, aabb) in items {
            if self.contains(id) {
                // A duplicate id: the last box wins, as with repeated `insert` calls.
                let leaf = self.leaf_of[id as usize];
                self.tight[id as usize] = aabb;
                self.nodes[leaf as usize].aabb = aabb.fattened(self.margin);
                self.mark_dirty(id);
            } else {
                self.new_leaf(id, aabb);
            }
        }
        self.rebuild();
    }

    /// Rebuilds the whole tree from its leaves by binned SAH (leaf nodes and their fat boxes are
    /// kept; internal nodes are rebuilt).
    pub fn rebuild(&mut self) {
        build::rebuild(self);
    }

    // ---------------------------------------------------------------------------------------
    // Linking
    // ---------------------------------------------------------------------------------------

    /// Links an allocated leaf (box set, parent unset) into the tree.
    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let l = self.nodes[leaf as usize].aabb;
        let sibling = match self.strategy {
            InsertStrategy::BranchAndBound => self.best_sibling_bnb(&l),
            #[cfg(test)]
            InsertStrategy::Greedy => self.best_sibling_greedy(&l),
        };
        let s = self.nodes[sibling as usize];
        let old_parent = s.parent;
        let p = self.alloc();
        self.nodes[p as usize] =
            Node { aabb: s.aabb.union(&l), parent: old_parent, child1: sibling, child2: leaf, height: s.height + 1 };
        self.nodes[sibling as usize].parent = p;
        self.nodes[leaf as usize].parent = p;
        if old_parent == NULL {
            self.root = p;
        } else {
            self.replace_child(old_parent, sibling, p);
        }
        self.refit_upwards(p);
    }

    /// Unlinks a leaf from the tree (its node is kept) and frees its parent.
    fn unlink_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let p = self.nodes[leaf as usize].parent;
        let pn = self.nodes[p as usize];
        let sibling = if pn.child1 == leaf { pn.child2 } else { pn.child1 };
        let g = pn.parent;
        if g == NULL {
            self.root = sibling;
            self.nodes[sibling as usize].parent = NULL;
        } else {
            self.replace_child(g, p, sibling);
            self.nodes[sibling as usize].parent = g;
            self.refit_upwards(g);
        }
        self.release(p);
    }

    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        let pn = &mut self.nodes[parent as usize];
        if pn.child1 == old {
            pn.child1 = new;
        } else {
            pn.child2 = new;
        }
    }

    /// Recomputes boxes and heights from `n` to the root, rotating at each node on the way.
    fn refit_upwards(&mut self, mut n: u32) {
        while n != NULL {
            let node = self.nodes[n as usize];
            let (a, b) = (self.nodes[node.child1 as usize], self.nodes[node.child2 as usize]);
            let nm = &mut self.nodes[n as usize];
            nm.aabb = a.aabb.union(&b.aabb);
            nm.height = 1 + a.height.max(b.height);
            if self.rotations {
                self.rotate(n);
            }
            n = self.nodes[n as usize].parent;
        }
    }

    /// Tries the (up to four) swaps of a child of `a` with a grandchild under its other child and
    /// applies the best one. `a`'s box is unchanged by any swap (same leaves); only the rebuilt
    /// child's box and the heights change.
    fn rotate(&mut self, a: u32) {
        let na = self.nodes[a as usize];
        if na.is_leaf() {
            return;
        }
        let (b, c) = (na.child1, na.child2);
        let (nb, nc) = (self.nodes[b as usize], self.nodes[c as usize]);
        if nb.is_leaf() && nc.is_leaf() {
            return;
        }
        // Best swap so far: (x = child of a, y = grandchild under o, o, z = o's other child).
        let mut best: Option<(u32, u32, u32, u32)> = None;
        let mut best_delta = 0.0f32;
        let mut best_height = na.height;
        let mut consider = |x: u32, nx: &Node, o: u32, no: &Node, nodes: &[Node]| {
            if no.is_leaf() {
                return;
            }
            for (y, z) in [(no.child1, no.child2), (no.child2, no.child1)] {
                let (ny, nz) = (&nodes[y as usize], &nodes[z as usize]);
                let delta = nx.aabb.union(&nz.aabb).perimeter() - no.aabb.perimeter();
                let h_o = 1 + nx.height.max(nz.height);
                let h_a = 1 + ny.height.max(h_o);
                // Strictly cheaper wins by cost; an exactly free swap wins only by lowering height.
                let better = if delta < best_delta {
                    true
                } else {
                    delta == best_delta && best_delta == 0.0 && h_a < best_height
                };
                if better {
                    best = Some((x, y, o, z));
                    best_delta = delta;
                    best_height = h_a;
                }
            }
        };
        consider(b, &nb, c, &nc, &self.nodes);
        consider(c, &nc, b, &nb, &self.nodes);
        let Some((x, y, o, z)) = best else { return };
        // a: x → y;   o: y → x.
        self.replace_child(a, x, y);
        self.nodes[y as usize].parent = a;
        self.replace_child(o, y, x);
        self.nodes[x as usize].parent = o;
        let (nx, nz) = (self.nodes[x as usize], self.nodes[z as usize]);
        let no = &mut self.nodes[o as usize];
        no.aabb = nx.aabb.union(&nz.aabb);
        no.height = 1 + nx.height.max(nz.height);
        let h_o = no.height;
        let h_y = self.nodes[y as usize].height;
        self.nodes[a as usize].height = 1 + h_y.max(h_o);
    }

    /// The cheapest sibling under Catto's SAH insertion cost, by branch and bound. Ties go to the
    /// smaller subtree height (a lexicographic cost `(perimeter cost, height)`, whose lower bound
    /// for a subtree is `(P(L) + inherited, 0)`).
    fn best_sibling_bnb(&mut self, l: &Aabb) -> u32 {
        let pl = l.perimeter();
        let root = self.root;
        let mut best = root;
        let mut best_cost = self.nodes[root as usize].aabb.union(l).perimeter();
        let mut best_h = self.nodes[root as usize].height;
        let mut stack = std::mem::take(&mut self.insert_stack);
        stack.clear();
        stack.push((root, 0.0));
        while let Some((n, inherited)) = stack.pop() {
            // The bound may have tightened since this entry was pushed.
            let lower = pl + inherited;
            if lower > best_cost || (lower == best_cost && best_h == 0) {
                continue;
            }
            let node = self.nodes[n as usize];
            let direct = node.aabb.union(l).perimeter();
            let cost = direct + inherited;
            if cost < best_cost || (cost == best_cost && node.height < best_h) {
                best = n;
                best_cost = cost;
                best_h = node.height;
            }
            if node.is_leaf() {
                continue;
            }
            let child_inherited = inherited + (direct - node.aabb.perimeter());
            let lower = pl + child_inherited;
            if lower > best_cost || (lower == best_cost && best_h == 0) {
                continue;
            }
            // Explore the more promising child first (pushed last) so the bound tightens early.
            let (n1, n2) = (&self.nodes[node.child1 as usize], &self.nodes[node.child2 as usize]);
            let d1 = n1.aabb.union(l).perimeter() - n1.aabb.perimeter();
            let d2 = n2.aabb.union(l).perimeter() - n2.aabb.perimeter();
            let first_is_better = d1 < d2 || (d1 == d2 && n1.height <= n2.height);
            if first_is_better {
                stack.push((node.child2, child_inherited));
                stack.push((node.child1, child_inherited));
            } else {
                stack.push((node.child1, child_inherited));
                stack.push((node.child2, child_inherited));
            }
        }
        self.insert_stack = stack;
        best
    }

    /// Greedy single-path descent (Box2D v3 style): at each node compare the cost of taking it as
    /// the sibling with a lower bound for descending into each child, and stop when staying is
    /// strictly cheaper. Equal costs descend, towards the lower child, to keep coincident boxes
    /// balanced.
    #[cfg(test)]
    fn best_sibling_greedy(&self, l: &Aabb) -> u32 {
        let pl = l.perimeter();
        let mut n = self.root;
        let mut inherited = 0.0f32;
        loop {
            let node = &self.nodes[n as usize];
            if node.is_leaf() {
                return n;
            }
            let direct = node.aabb.union(l).perimeter();
            let here = direct + inherited;
            let child_inherited = inherited + (direct - node.aabb.perimeter());
            let child_cost = |c: &Node| {
                let u = c.aabb.union(l).perimeter();
                if c.is_leaf() { u + child_inherited } else { u - c.aabb.perimeter() + pl + child_inherited }
            };
            let (n1, n2) = (&self.nodes[node.child1 as usize], &self.nodes[node.child2 as usize]);
            let (c1, c2) = (child_cost(n1), child_cost(n2));
            if here < c1 && here < c2 {
                return n;
            }
            n = if c1 < c2 || (c1 == c2 && n1.height <= n2.height) { node.child1 } else { node.child2 };
            inherited = child_inherited;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Checks and statistics
    // ---------------------------------------------------------------------------------------

    /// Checks parent and child links, heights, containment of children in parents and of tight
    /// boxes in fat boxes, the id → leaf map, the free list and the node counts.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let len = self.nodes.len();
        let mut reachable = vec![false; len];
        let mut leaves = 0u32;
        let mut internal = 0u32;
        if self.root != NULL {
            if self.root as usize >= len {
                return Err(format!("root {} out of range", self.root));
            }
            if self.nodes[self.root as usize].parent != NULL {
                return Err("root has a parent".into());
            }
            let mut stack = vec![self.root];
            while let Some(n) = stack.pop() {
                if reachable[n as usize] {
                    return Err(format!("node {n} reached twice"));
                }
                reachable[n as usize] = true;
                let node = &self.nodes[n as usize];
                if node.height == FREE {
                    return Err(format!("free node {n} is in the tree"));
                }
                if node.is_leaf() {
                    leaves += 1;
                    if node.height != 0 {
                        return Err(format!("leaf {n} has height {}", node.height));
                    }
                    let id = node.child2;
                    if self.leaf(id) != Some(n) {
                        return Err(format!("leaf {n} holds id {id} but the map says {:?}", self.leaf(id)));
                    }
                    let t = self.tight[id as usize];
                    if !node.aabb.contains(&t) {
                        return Err(format!("leaf {n}: fat box {:?} does not contain tight {:?}", node.aabb, t));
                    }
                    if self.exact_leaves() && node.aabb != t {
                        return Err(format!("leaf {n}: margin 0 but fat box differs from tight box"));
                    }
                    continue;
                }
                internal += 1;
                for c in [node.child1, node.child2] {
                    if c as usize >= len {
                        return Err(format!("node {n}: child {c} out of range"));
                    }
                    let cn = &self.nodes[c as usize];
                    if cn.parent != n {
                        return Err(format!("node {n}: child {c} has parent {}", cn.parent));
                    }
                    if !node.aabb.contains(&cn.aabb) {
                        return Err(format!("node {n} does not contain child {c}"));
                    }
                    stack.push(c);
                }
                let (h1, h2) = (self.nodes[node.child1 as usize].height, self.nodes[node.child2 as usize].height);
                if h1 == FREE || h2 == FREE || node.height != 1 + h1.max(h2) {
                    return Err(format!("node {n}: height {} but children {h1}, {h2}", node.height));
                }
            }
        }
        if leaves != self.leaf_count {
            return Err(format!("{leaves} leaves reachable, leaf_count {}", self.leaf_count));
        }
        if leaves + internal != self.node_count {
            return Err(format!("{} nodes reachable, node_count {}", leaves + internal, self.node_count));
        }
        if leaves > 0 && internal != leaves - 1 {
            return Err(format!("{leaves} leaves but {internal} internal nodes"));
        }
        let mut on_free = vec![false; len];
        let mut free_count = 0usize;
        let mut f = self.free;
        while f != NULL {
            if f as usize >= len {
                return Err(format!("free node {f} out of range"));
            }
            if reachable[f as usize] {
                return Err(format!("node {f} is both in the tree and on the free list"));
            }
            if on_free[f as usize] {
                return Err(format!("free list cycles at {f}"));
            }
            on_free[f as usize] = true;
            if self.nodes[f as usize].height != FREE {
                return Err(format!("free node {f} not marked free"));
            }
            free_count += 1;
            f = self.nodes[f as usize].parent;
        }
        if free_count + self.node_count as usize != len {
            return Err(format!("{free_count} free + {} used != {len} nodes", self.node_count));
        }
        let mapped = self.leaf_of.iter().filter(|&&n| n != NULL).count();
        if mapped != leaves as usize {
            return Err(format!("id map holds {mapped} ids, tree {leaves} leaves"));
        }
        if self.dirty_ids.len() != self.dirty.iter().filter(|&&d| d).count() {
            return Err("dirty list and dirty flags disagree".into());
        }
        if !self.prev_pairs.windows(2).all(|w| w[0] < w[1]) {
            return Err("previous pair set not sorted".into());
        }
        Ok(())
    }

    /// Height, counts, total internal perimeter and leaf depths.
    #[must_use]
    pub fn stats(&self) -> TreeStats {
        let mut s = TreeStats { node_count: self.node_count, leaf_count: self.leaf_count, ..TreeStats::default() };
        if self.root == NULL {
            return s;
        }
        s.height = self.nodes[self.root as usize].height;
        let mut depth_sum = 0u64;
        let mut stack = SmallStack::<(u32, u32), 64>::new((NULL, 0));
        stack.push((self.root, 0));
        while let Some((n, d)) = stack.pop() {
            let node = &self.nodes[n as usize];
            if node.is_leaf() {
                depth_sum += u64::from(d);
                s.max_leaf_depth = s.max_leaf_depth.max(d);
            } else {
                s.internal_perimeter += f64::from(node.aabb.perimeter());
                stack.push((node.child1, d + 1));
                stack.push((node.child2, d + 1));
            }
        }
        s.mean_leaf_depth = depth_sum as f64 / f64::from(self.leaf_count.max(1));
        s
    }

    // ---------------------------------------------------------------------------------------
    // Pair tracking for the broad-phase interface
    // ---------------------------------------------------------------------------------------

    /// Computes the current pair set into `merged` (sorted) from `prev_pairs` and the dirty ids:
    /// pairs of two clean ids cannot have changed; every pair with a dirty id is found again by
    /// querying the dirty leaves. When a large share of the ids is dirty, one self-descent is
    /// cheaper.
    fn current_pairs_into_merged(&mut self) {
        let mut merged = std::mem::take(&mut self.merged);
        merged.clear();
        if self.dirty_ids.is_empty() {
            merged.extend_from_slice(&self.prev_pairs);
        } else if self.dirty_ids.len() * 4 >= self.leaf_count as usize {
            self.for_each_pair(|a, b| merged.push(pair(a, b)));
            merged.sort_unstable();
        } else {
            let mut new = std::mem::take(&mut self.new_pairs);
            new.clear();
            for &m in &self.dirty_ids {
                if !self.contains(m) {
                    continue;
                }
                let q = self.tight[m as usize];
                let dirty = &self.dirty;
                self.query(&q, |o| {
                    // A pair of two dirty ids is found from both ends; keep it once.
                    if o != m && (!dirty[o as usize] || m < o) {
                        new.push(pair(m, o));
                    }
                    true
                });
            }
            new.sort_unstable();
            // Merge the clean part of the previous set with the new pairs (disjoint, both sorted).
            let dirty = &self.dirty;
            let mut j = 0;
            for &p in &self.prev_pairs {
                if dirty[p[0] as usize] || dirty[p[1] as usize] {
                    continue;
                }
                while j < new.len() && new[j] < p {
                    merged.push(new[j]);
                    j += 1;
                }
                merged.push(p);
            }
            merged.extend_from_slice(&new[j..]);
            self.new_pairs = new;
        }
        self.merged = merged;
    }
}

impl BroadPhase for DynamicTree {
    fn name(&self) -> &'static str {
        "tree"
    }

    fn len(&self) -> usize {
        self.leaf_count as usize
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        DynamicTree::insert(self, id, aabb);
    }

    fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        DynamicTree::insert_batch(self, items);
    }

    fn remove(&mut self, id: u32) {
        DynamicTree::remove(self, id);
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        DynamicTree::update(self, id, aabb);
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        self.current_pairs_into_merged();
        diff_sorted_pairs(&self.prev_pairs, &self.merged, began, ended);
        std::mem::swap(&mut self.prev_pairs, &mut self.merged);
        for &id in &self.dirty_ids {
            self.dirty[id as usize] = false;
        }
        self.dirty_ids.clear();
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.for_each_pair(|a, b| out.push(pair(a, b)));
    }

    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        self.query_aabb_shared(aabb, out);
    }

    fn query_aabb_shared(&self, aabb: &Aabb, out: &mut Vec<u32>) -> bool {
        self.query(aabb, |id| {
            out.push(id);
            true
        });
        true
    }

    fn validate(&self) -> Result<(), String> {
        DynamicTree::validate(self)
    }
}
