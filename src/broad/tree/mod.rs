//! [`DynamicTree`]: a flat-array AABB tree with SAH branch-and-bound insertion, tree rotations and
//! a binned-SAH bulk build.
//!
//! # Layout
//! ```text
//! nodes: Vec<Node>   one array, NodeIndex links (u32), NodeIndex::NULL = NULL_INDEX
//!
//!            root (internal: child1, child2, box = union of children)
//!           /    \
//!      internal   leaf ── child2_or_id holds the user id ──> leaf_of[id] == this node
//!       /   \                                                tight[id]  == exact box
//!    leaf   leaf      free nodes: height == FREE_HEIGHT, parent == next free node
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
//! one greedy path (the tests' baseline, `InsertStrategy::Greedy`): less work per insertion, but
//! it commits to a subtree before seeing the others and builds trees of higher SAH cost (the
//! total internal perimeter, which a query pays for). Ties are broken towards the smaller subtree
//! height, which keeps degenerate scenes (every box identical) from degrading into a list. The
//! code is in `insert.rs`.
//!
//! # Rotations
//! After an insertion or removal every ancestor on the path considers swapping one of its
//! children with a grandchild under the other child (Kensler 2008; Box2D v3's `b2RotateNodes`),
//! taking the swap that shrinks the perimeter of the rebuilt child the most. When no swap lowers
//! the cost, a swap of exactly zero cost that lowers the node's height is taken: it is the only
//! balancing that happens, and it only matters when many boxes coincide.
//!
//! # Pairs
//! As a [`BroadPhase`], the tree keeps the last reported pair set and the ids changed since
//! (`pairs.rs`): pairs of two unchanged ids stand, the changed ids' leaves are queried again.
//!
//! # Bulk build
//! [`DynamicTree::rebuild`] and large [`DynamicTree::insert_batch`] calls build top-down with a
//! binned SAH (Wald 2007): 16 bins on each axis, split cost `P(left)·n_left + P(right)·n_right`.

mod build;
mod insert;
mod pairs;
mod query;
#[cfg(test)]
mod tests;

pub(crate) use query::Grow;
use query::SmallStack;

use crate::broad::{BroadPhase, Pair, pair};
use crate::index::{NULL_INDEX, typed_index};
use crate::math::Aabb;

typed_index!(
    /// A node of a [`DynamicTree`]: its position in `nodes`.
    NodeIndex
);

/// The height of a node on the free list: no node in use is that high, so a free node is told
/// by its height alone (its links are the free list's).
const FREE_HEIGHT: u32 = u32::MAX;

/// One tree node, 32 bytes (Box2D's `b2TreeNode` is 40: it also stores category bits, user data
/// as 64 bits and flags; here the id lives in `child2_or_id` and flags are implied by the links).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    /// 16 bytes. Internal: a box containing both children. Leaf: the fat box.
    aabb: Aabb,
    /// 4 bytes. Parent link, `NULL` at the root; on the free list, the next free node.
    parent: NodeIndex,
    /// 4 bytes. First child; `NULL` marks a leaf (or a free node).
    child1: NodeIndex,
    /// 4 bytes. Internal: the second child ([`Node::child2`]). Leaf: the user id
    /// ([`Node::id`]). Free: [`NULL_INDEX`].
    child2_or_id: u32,
    /// 4 bytes. 0 for a leaf, 1 + max of the children for an internal node, [`FREE_HEIGHT`]
    /// when free.
    height: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl Node {
    /// A node on the free list, linked to `next`.
    const fn free(next: NodeIndex) -> Self {
        Node { aabb: Aabb::EMPTY, parent: next, child1: NodeIndex::NULL, child2_or_id: NULL_INDEX, height: FREE_HEIGHT }
    }

    #[inline]
    fn is_leaf(&self) -> bool {
        self.child1.is_null()
    }

    /// An internal node's second child.
    #[inline]
    fn child2(&self) -> NodeIndex {
        debug_assert!(!self.is_leaf(), "a leaf's child2_or_id is its id");
        NodeIndex::new(self.child2_or_id)
    }

    /// A leaf's user id.
    #[inline]
    fn id(&self) -> u32 {
        debug_assert!(self.is_leaf(), "an internal node's child2_or_id is a child");
        self.child2_or_id
    }
}

/// How [`DynamicTree::insert`] finds the sibling of a new leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum InsertStrategy {
    /// Branch and bound over every candidate sibling under the SAH cost of Catto (GDC 2019):
    /// finds the cheapest sibling in the whole tree, pruning subtrees whose lower bound cannot
    /// win.
    #[default]
    BranchAndBound,
    /// Box2D v3-style greedy descent along a single path, stopping when descending cannot be
    /// cheaper. Faster per insertion, trees of higher SAH cost.
    #[cfg(test)]
    Greedy,
}

/// A ray hit on a stored box: the id and the ray parameter of entry (`0` when the origin is
/// inside the box).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BoxRayHit {
    /// The id of the box hit.
    pub id: u32,
    /// The ray parameter of the hit, in units of the ray direction.
    pub t: f32,
}

/// Shape and quality of a tree, from [`DynamicTree::stats`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    root: NodeIndex,
    /// Head of the free list threaded through `Node::parent`.
    free: NodeIndex,
    /// Nodes in use (reachable from the root).
    node_count: u32,
    leaf_count: u32,
    margin: f32,
    /// Set once a caller chose a leaf's fat box itself ([`DynamicTree::update_with_fat`]):
    /// from then on node boxes and tight boxes may differ even with margin 0.
    caller_fat: bool,
    strategy: InsertStrategy,
    /// Whether inserts and removals rotate; only the tests turn it off, to measure what the
    /// rotations buy under churn (without them, a greedily built tree degrades as its boxes
    /// move).
    rotations: bool,
    /// id → leaf node, `NULL` when the id is absent.
    leaf_of: Vec<NodeIndex>,
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
    insert_stack: Vec<(NodeIndex, f32)>,
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
            root: NodeIndex::NULL,
            free: NodeIndex::NULL,
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
    #[cfg(test)]
    #[must_use]
    pub(crate) fn with_strategy(mut self, strategy: InsertStrategy) -> Self {
        self.strategy = strategy;
        self
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
        self.leaf(id).map(|n| self.nodes[n.index()].aabb)
    }

    /// The box of the root (containing every stored box), or `None` when empty.
    #[must_use]
    pub fn root_aabb(&self) -> Option<Aabb> {
        (!self.root.is_null()).then(|| self.nodes[self.root.index()].aabb)
    }

    /// Removes everything, keeping the allocations.
    pub fn clear(&mut self) {
        for id in 0..self.leaf_of.len() {
            if !self.leaf_of[id].is_null() {
                self.leaf_of[id] = NodeIndex::NULL;
                self.mark_dirty(id as u32);
            }
        }
        self.nodes.clear();
        self.root = NodeIndex::NULL;
        self.free = NodeIndex::NULL;
        self.node_count = 0;
        self.leaf_count = 0;
    }

    #[inline]
    fn leaf(&self, id: u32) -> Option<NodeIndex> {
        self.leaf_of.get(id as usize).copied().filter(|n| !n.is_null())
    }

    /// Whether leaves can be tested by their node box alone (fat == tight).
    #[inline]
    fn exact_leaves(&self) -> bool {
        self.margin == 0.0 && !self.caller_fat
    }

    fn ensure_id(&mut self, id: u32) {
        let need = id as usize + 1;
        if self.leaf_of.len() < need {
            self.leaf_of.resize(need, NodeIndex::NULL);
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

    fn alloc(&mut self) -> NodeIndex {
        self.node_count += 1;
        if !self.free.is_null() {
            let n = self.free;
            self.free = self.nodes[n.index()].parent;
            n
        } else {
            self.nodes.push(Node::free(NodeIndex::NULL));
            NodeIndex::from_index(self.nodes.len() - 1)
        }
    }

    fn release(&mut self, n: NodeIndex) {
        self.nodes[n.index()] = Node::free(self.free);
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
    fn new_leaf(&mut self, id: u32, aabb: Aabb) -> NodeIndex {
        self.ensure_id(id);
        let leaf = self.alloc();
        self.nodes[leaf.index()] = Node {
            aabb: aabb.fattened(self.margin),
            parent: NodeIndex::NULL,
            child1: NodeIndex::NULL,
            child2_or_id: id,
            height: 0,
        };
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
        self.leaf_of[id as usize] = NodeIndex::NULL;
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
            self.nodes[leaf.index()].aabb = fat;
            self.insert_leaf(leaf);
            return true;
        };
        self.tight[id as usize] = aabb;
        self.mark_dirty(id);
        if self.nodes[leaf.index()].aabb.contains(&aabb) {
            return false;
        }
        self.unlink_leaf(leaf);
        self.nodes[leaf.index()].aabb = fat;
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
        let fat = self.nodes[leaf.index()].aabb;
        if fat.contains(&aabb) {
            if self.exact_leaves() {
                // Shrinking in place keeps fat == tight; the ancestors still contain it.
                self.nodes[leaf.index()].aabb = aabb;
            }
            return false;
        }
        self.unlink_leaf(leaf);
        self.nodes[leaf.index()].aabb = aabb.fattened(self.margin);
        self.insert_leaf(leaf);
        true
    }

    /// Inserts many boxes. On an empty tree, or when the batch is at least half the size of the
    /// tree, everything is rebuilt by binned SAH; otherwise the boxes are inserted one by one. A
    /// rebuild re-bins every leaf, so for a batch small against the tree the branch-and-bound
    /// insertions touch far less of it.
    pub fn insert_batch(&mut self, items: &[(u32, Aabb)]) {
        if !self.root.is_null() && items.len() * 2 < self.leaf_count as usize {
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
                self.nodes[leaf.index()].aabb = aabb.fattened(self.margin);
                self.mark_dirty(id);
            } else {
                self.new_leaf(id, aabb);
            }
        }
        self.rebuild();
    }

    /// Rebuilds the whole tree from its leaves by binned SAH (their fat boxes are kept; every
    /// node is laid out anew, siblings side by side).
    pub fn rebuild(&mut self) {
        build::rebuild(self);
    }

    /// Moves every stored box by `-offset` in place, for the world's origin shift. Subtracting
    /// one value is monotone in f32 (`x <= y` gives `x - o <= y - o` after rounding), so every
    /// node box still holds its children and every fat box its tight box: the hierarchy stays
    /// valid without a rebuild. Two coordinates that differed may round to one, so boxes that
    /// were apart by less than the new spacing may touch afterwards; the caller finds those.
    /// The pair set kept for [`BroadPhase::update_pairs`] is not revisited.
    pub(crate) fn shift_origin(&mut self, offset: glam::Vec2) {
        let shift = |b: &mut Aabb| {
            b.min -= offset;
            b.max -= offset;
        };
        for node in self.nodes.iter_mut().filter(|n| n.height != FREE_HEIGHT) {
            shift(&mut node.aabb);
        }
        for (tight, &leaf) in self.tight.iter_mut().zip(&self.leaf_of) {
            if !leaf.is_null() {
                shift(tight);
            }
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
        if !self.root.is_null() {
            if self.root.index() >= len {
                return Err(format!("root {} out of range", self.root));
            }
            if !self.nodes[self.root.index()].parent.is_null() {
                return Err("root has a parent".into());
            }
            let mut stack = vec![self.root];
            while let Some(n) = stack.pop() {
                if reachable[n.index()] {
                    return Err(format!("node {n} reached twice"));
                }
                reachable[n.index()] = true;
                let node = &self.nodes[n.index()];
                if node.height == FREE_HEIGHT {
                    return Err(format!("free node {n} is in the tree"));
                }
                if node.is_leaf() {
                    leaves += 1;
                    if node.height != 0 {
                        return Err(format!("leaf {n} has height {}", node.height));
                    }
                    let id = node.id();
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
                for c in [node.child1, node.child2()] {
                    if c.index() >= len {
                        return Err(format!("node {n}: child {c} out of range"));
                    }
                    let cn = &self.nodes[c.index()];
                    if cn.parent != n {
                        return Err(format!("node {n}: child {c} has parent {}", cn.parent));
                    }
                    if !node.aabb.contains(&cn.aabb) {
                        return Err(format!("node {n} does not contain child {c}"));
                    }
                    stack.push(c);
                }
                let (h1, h2) = (self.nodes[node.child1.index()].height, self.nodes[node.child2().index()].height);
                if h1 == FREE_HEIGHT || h2 == FREE_HEIGHT || node.height != 1 + h1.max(h2) {
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
        while !f.is_null() {
            if f.index() >= len {
                return Err(format!("free node {f} out of range"));
            }
            if reachable[f.index()] {
                return Err(format!("node {f} is both in the tree and on the free list"));
            }
            if on_free[f.index()] {
                return Err(format!("free list cycles at {f}"));
            }
            on_free[f.index()] = true;
            if self.nodes[f.index()].height != FREE_HEIGHT {
                return Err(format!("free node {f} not marked free"));
            }
            free_count += 1;
            f = self.nodes[f.index()].parent;
        }
        if free_count + self.node_count as usize != len {
            return Err(format!("{free_count} free + {} used != {len} nodes", self.node_count));
        }
        let mapped = self.leaf_of.iter().filter(|&&n| !n.is_null()).count();
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

    /// Calls `f` with every node's box, its depth (the root's is 0) and whether it is a leaf,
    /// parents before their children: what a debug drawing of the tree shows. A leaf's box is
    /// its fat box.
    pub fn for_each_node(&self, mut f: impl FnMut(Aabb, u32, bool)) {
        if self.root.is_null() {
            return;
        }
        let mut stack = SmallStack::<(NodeIndex, u32), 64>::new((NodeIndex::NULL, 0));
        stack.push((self.root, 0));
        while let Some((n, d)) = stack.pop() {
            let node = &self.nodes[n.index()];
            f(node.aabb, d, node.is_leaf());
            if !node.is_leaf() {
                stack.push((node.child2(), d + 1));
                stack.push((node.child1, d + 1));
            }
        }
    }

    /// Height, counts, total internal perimeter and leaf depths.
    #[must_use]
    pub fn stats(&self) -> TreeStats {
        let mut s = TreeStats { node_count: self.node_count, leaf_count: self.leaf_count, ..TreeStats::default() };
        if self.root.is_null() {
            return s;
        }
        s.height = self.nodes[self.root.index()].height;
        let mut depth_sum = 0u64;
        let mut stack = SmallStack::<(NodeIndex, u32), 64>::new((NodeIndex::NULL, 0));
        stack.push((self.root, 0));
        while let Some((n, d)) = stack.pop() {
            let node = &self.nodes[n.index()];
            if node.is_leaf() {
                depth_sum += u64::from(d);
                s.max_leaf_depth = s.max_leaf_depth.max(d);
            } else {
                s.internal_perimeter += f64::from(node.aabb.perimeter());
                stack.push((node.child1, d + 1));
                stack.push((node.child2(), d + 1));
            }
        }
        s.mean_leaf_depth = depth_sum as f64 / f64::from(self.leaf_count.max(1));
        s
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
        self.report_pair_changes(began, ended);
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
