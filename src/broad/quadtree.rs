//! Loose quadtree (Ulrich, "Loose Octrees", Game Programming Gems 2000) over `bounds`, with loose
//! factor 2: a node's loose bounds are its cell grown by half the cell's size on every side, so
//! an item whose size is at most its cell's always fits the node holding its centre and items do
//! not pile up at the ancestors of cell boundaries as in a strict quadtree.
//!
//! ```text
//! nodes: Vec<Node>   node 0 = root; children are 4 consecutive nodes (SW, SE, NW, NE)
//!                    [root][c0 c1 c2 c3][c0.0 c0.1 c0.2 c0.3]...   links are u32 indices
//! items: Vec<Vec<Entry>>  parallel to nodes; each node's boxes (copied, with their ids)
//! recs:  id -> (node, position in that node's items)
//! ```
//!
//! * **Placement.** An item descends from the root into the child holding its centre while that
//!   child's loose bounds contain it. Boxes outside the root region stay at the root, the only
//!   node without a containment requirement.
//! * **Adaptivity.** A leaf splits when it holds more than [`CAPACITY`] items (down to
//!   [`MAX_DEPTH`], or until f32 cannot halve the cell); a subtree holding at most [`COLLAPSE`]
//!   items after a removal folds back into its root (the gap to `CAPACITY` stops split/collapse
//!   thrash).
//! * **Exactness.** A child's loose bounds are clipped to its parent's, so containment nests by
//!   construction, not up to float rounding: an item that overlaps a query box lies in a node
//!   whose loose bounds, and all of whose ancestors' loose bounds, overlap the query. Pruning by
//!   loose bounds therefore never loses an item.
//! * **Pairs.** Loose bounds of siblings overlap, so items of neighbouring subtrees can overlap:
//!   "own node and descendants" alone would miss them. Each item `a` in node `A` instead runs a
//!   query with its box and tests the items of every visited node `N` with `N > A` (node index
//!   order), plus those after it in `A` itself: every pair is tested exactly once, by the item in
//!   the lower-indexed node.

use glam::Vec2;

use crate::broad::{BroadPhase, Pair, PairHistory, pair};
use crate::index::NULL_INDEX;
use crate::math::Aabb;

/// A leaf holding more items than this splits. Larger: fewer nodes to descend, more item pairs
/// tested within each node; smaller: the reverse, plus more splits and collapses under churn.
pub const CAPACITY: usize = 8;
/// A subtree holding at most this many items after a removal collapses into its root. The gap
/// to [`CAPACITY`] is the hysteresis: closer values make a node near the threshold split and
/// collapse again as items come and go.
pub const COLLAPSE: u32 = 4;
/// Depth of the deepest nodes (the root has depth 0): cells down to 1/4096 of the root's side.
/// Deeper helps only dense clusters of tiny boxes and costs a longer descent for each; items
/// that still crowd a deepest leaf are tested pairwise there.
pub const MAX_DEPTH: u8 = 12;

/// One node (48 bytes).
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The node's cell: a quadrant of its parent's (16 bytes).
    cell: Aabb,
    /// The cell grown by half its size per side, clipped to the parent's loose bounds (16 bytes).
    loose: Aabb,
    /// First of four consecutive children, or [`NULL_INDEX`] for a leaf (4 bytes).
    children: u32,
    /// Parent index, [`NULL_INDEX`] at the root (4 bytes).
    parent: u32,
    /// Items in this subtree (4 bytes).
    count: u32,
    /// Root = 0 (1 byte).
    depth: u8,
    /// False while the node's block is on the free list (1 byte).
    alive: bool,
}

/// A stored box with its id (20 bytes).
#[derive(Clone, Copy, Debug)]
struct Entry {
    aabb: Aabb,
    id: u32,
}

/// Where an id lives.
#[derive(Clone, Copy, Debug)]
struct Rec {
    /// Node index, or [`NULL_INDEX`] when absent.
    node: u32,
    /// Position in that node's items.
    pos: u32,
}

const ABSENT: Rec = Rec { node: NULL_INDEX, pos: NULL_INDEX };

/// Loose quadtree with flat node storage.
#[derive(Clone)]
pub struct Quadtree {
    nodes: Vec<Node>,
    /// Items per node, parallel to `nodes`; a freed node keeps its `Vec`'s capacity for reuse.
    items: Vec<Vec<Entry>>,
    /// First indices of freed four-node blocks.
    free_blocks: Vec<u32>,
    /// id → location.
    recs: Vec<Rec>,
    /// Number of stored boxes.
    len: usize,
    /// Anything changed since the previous `update_pairs`.
    dirty: bool,
    /// Traversal stack, reused by pairs, queries and collapses so they never allocate.
    stack: Vec<u32>,
    /// The pairs last reported by `update_pairs`, for the next diff.
    history: PairHistory,
}

/// The cell grown by half its size on every side (infinite extents stay infinite, no NaN).
fn loosen(cell: &Aabb) -> Aabb {
    let half = (cell.max * 0.5 - cell.min * 0.5).max(Vec2::ZERO);
    Aabb::new(cell.min - half, cell.max + half)
}

/// Midpoint of a box (a cell or a stored box), computed without overflowing at `±f32::MAX`.
fn mid(b: &Aabb) -> Vec2 {
    b.min * 0.5 + b.max * 0.5
}

/// Whether f32 can still halve the cell in both axes.
fn splittable(cell: &Aabb) -> bool {
    let m = mid(cell);
    cell.min.x < m.x && m.x < cell.max.x && cell.min.y < m.y && m.y < cell.max.y
}

/// Quadrant 0..4 of `p` in `cell` (bit 0: east, bit 1: north).
fn quadrant(cell: &Aabb, p: Vec2) -> u32 {
    let m = mid(cell);
    u32::from(p.x >= m.x) | (u32::from(p.y >= m.y) << 1)
}

impl Quadtree {
    /// An empty tree whose root cell is `bounds` (a degenerate or non-finite `bounds` is replaced
    /// by the unit box; boxes anywhere are still accepted).
    #[must_use]
    pub fn new(bounds: Aabb) -> Self {
        let bounds = if bounds.is_valid() { bounds } else { Aabb::new(Vec2::ZERO, Vec2::ONE) };
        let root = Node {
            cell: bounds,
            loose: loosen(&bounds),
            children: NULL_INDEX,
            parent: NULL_INDEX,
            count: 0,
            depth: 0,
            alive: true,
        };
        Self {
            nodes: vec![root],
            items: vec![Vec::new()],
            free_blocks: Vec::new(),
            recs: Vec::new(),
            len: 0,
            dirty: false,
            stack: Vec::new(),
            history: PairHistory::default(),
        }
    }

    /// Number of live nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len() - 4 * self.free_blocks.len()
    }

    /// The child of internal node `n` that `aabb` would descend into, if its loose bounds hold it.
    fn fitting_child(&self, n: u32, aabb: &Aabb) -> Option<u32> {
        let node = &self.nodes[n as usize];
        if node.children == NULL_INDEX {
            return None;
        }
        let c = node.children + quadrant(&node.cell, mid(aabb));
        self.nodes[c as usize].loose.contains(aabb).then_some(c)
    }

    fn push_item(&mut self, n: u32, e: Entry) {
        let list = &mut self.items[n as usize];
        self.recs[e.id as usize] = Rec { node: n, pos: list.len() as u32 };
        list.push(e);
    }

    /// Takes item `pos` out of node `n` (swap-remove, fixing the moved item's record).
    fn take_item(&mut self, n: u32, pos: u32) -> Entry {
        let list = &mut self.items[n as usize];
        let e = list.swap_remove(pos as usize);
        if let Some(moved) = list.get(pos as usize) {
            self.recs[moved.id as usize].pos = pos;
        }
        e
    }

    /// Places an entry by descending from the root, then splits the leaf if it overflowed.
    fn place(&mut self, e: Entry) {
        let mut n = 0u32;
        loop {
            self.nodes[n as usize].count += 1;
            match self.fitting_child(n, &e.aabb) {
                Some(c) => n = c,
                None => break,
            }
        }
        self.push_item(n, e);
        self.maybe_split(n);
    }

    fn maybe_split(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        if node.children != NULL_INDEX
            || self.items[n as usize].len() <= CAPACITY
            || node.depth >= MAX_DEPTH
            || !splittable(&node.cell)
        {
            return;
        }
        let first = match self.free_blocks.pop() {
            Some(f) => f,
            None => {
                let f = self.nodes.len() as u32;
                self.nodes.extend_from_slice(&[node; 4]);
                self.items.extend((0..4).map(|_| Vec::new()));
                f
            }
        };
        let m = mid(&node.cell);
        for q in 0..4u32 {
            let (lo_x, hi_x) = if q & 1 == 0 { (node.cell.min.x, m.x) } else { (m.x, node.cell.max.x) };
            let (lo_y, hi_y) = if q & 2 == 0 { (node.cell.min.y, m.y) } else { (m.y, node.cell.max.y) };
            let cell = Aabb::new(Vec2::new(lo_x, lo_y), Vec2::new(hi_x, hi_y));
            let l = loosen(&cell);
            let loose = Aabb::new(l.min.max(node.loose.min), l.max.min(node.loose.max));
            self.nodes[(first + q) as usize] =
                Node { cell, loose, children: NULL_INDEX, parent: n, count: 0, depth: node.depth + 1, alive: true };
            debug_assert!(self.items[(first + q) as usize].is_empty());
        }
        self.nodes[n as usize].children = first;
        // Push down every item that fits its centre's child; iterate backwards so swap-remove
        // only moves already-visited items.
        let mut i = self.items[n as usize].len();
        while i > 0 {
            i -= 1;
            let e = self.items[n as usize][i];
            if let Some(c) = self.fitting_child(n, &e.aabb) {
                self.take_item(n, i as u32);
                self.nodes[c as usize].count += 1;
                self.push_item(c, e);
            }
        }
        for q in 0..4 {
            self.maybe_split(first + q);
        }
    }

    /// After a removal below `n`: folds the highest ancestor-or-self subtree that holds at most
    /// [`COLLAPSE`] items into its root.
    fn maybe_collapse(&mut self, mut n: u32) {
        let mut target = NULL_INDEX;
        while n != NULL_INDEX {
            let node = &self.nodes[n as usize];
            if node.children != NULL_INDEX && node.count <= COLLAPSE {
                target = n;
            }
            n = node.parent;
        }
        if target == NULL_INDEX {
            return;
        }
        // Every internal node keeps more than COLLAPSE items, so below `target` only the nodes on
        // the removal path can be internal: this walk is short.
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(self.nodes[target as usize].children);
        while let Some(first) = stack.pop() {
            for c in first..first + 4 {
                while let Some(e) = self.items[c as usize].pop() {
                    self.push_item(target, e);
                }
                let child = &mut self.nodes[c as usize];
                if child.children != NULL_INDEX {
                    stack.push(child.children);
                }
                child.alive = false;
                child.children = NULL_INDEX;
                child.count = 0;
            }
            self.free_blocks.push(first);
        }
        self.stack = stack;
        self.nodes[target as usize].children = NULL_INDEX;
    }

    /// Every overlapping pair, each once (see the module docs for the node-order rule).
    fn collect_pairs(&mut self, out: &mut Vec<Pair>) {
        let mut stack = std::mem::take(&mut self.stack);
        for a_node in 0..self.nodes.len() as u32 {
            if !self.nodes[a_node as usize].alive {
                continue;
            }
            let own = &self.items[a_node as usize];
            for (i, a) in own.iter().enumerate() {
                for b in &own[i + 1..] {
                    if a.aabb.overlaps(&b.aabb) {
                        out.push(pair(a.id, b.id));
                    }
                }
                stack.clear();
                stack.push(0);
                while let Some(n) = stack.pop() {
                    let node = &self.nodes[n as usize];
                    if n > a_node {
                        for b in &self.items[n as usize] {
                            if a.aabb.overlaps(&b.aabb) {
                                out.push(pair(a.id, b.id));
                            }
                        }
                    }
                    if node.children != NULL_INDEX {
                        for c in node.children..node.children + 4 {
                            let child = &self.nodes[c as usize];
                            if child.count > 0 && child.loose.overlaps(&a.aabb) {
                                stack.push(c);
                            }
                        }
                    }
                }
            }
        }
        self.stack = stack;
    }
}

impl BroadPhase for Quadtree {
    fn name(&self) -> &'static str {
        "quadtree"
    }

    fn len(&self) -> usize {
        self.len
    }

    fn insert(&mut self, id: u32, aabb: Aabb) {
        let i = id as usize;
        if i >= self.recs.len() {
            self.recs.resize(i + 1, ABSENT);
        }
        debug_assert!(self.recs[i].node == NULL_INDEX, "broad phase: id {id} inserted twice");
        if self.recs[i].node != NULL_INDEX {
            self.update(id, aabb);
            return;
        }
        self.len += 1;
        self.dirty = true;
        self.place(Entry { aabb, id });
    }

    fn remove(&mut self, id: u32) {
        let rec = self.recs.get(id as usize).copied().unwrap_or(ABSENT);
        debug_assert!(rec.node != NULL_INDEX, "broad phase: removing absent id {id}");
        if rec.node == NULL_INDEX {
            return;
        }
        self.take_item(rec.node, rec.pos);
        self.recs[id as usize] = ABSENT;
        let mut n = rec.node;
        while n != NULL_INDEX {
            self.nodes[n as usize].count -= 1;
            n = self.nodes[n as usize].parent;
        }
        self.len -= 1;
        self.dirty = true;
        self.maybe_collapse(rec.node);
    }

    fn update(&mut self, id: u32, aabb: Aabb) {
        let rec = self.recs.get(id as usize).copied().unwrap_or(ABSENT);
        debug_assert!(rec.node != NULL_INDEX, "broad phase: updating absent id {id}");
        if rec.node == NULL_INDEX {
            return;
        }
        self.dirty = true;
        let n = rec.node;
        // Still placed correctly (inside this node's loose bounds, not fitting deeper): rewrite
        // the copy in place; otherwise re-insert from the root.
        let inside = n == 0 || self.nodes[n as usize].loose.contains(&aabb);
        if inside && self.fitting_child(n, &aabb).is_none() {
            self.items[n as usize][rec.pos as usize].aabb = aabb;
            return;
        }
        self.remove(id);
        self.insert(id, aabb);
    }

    fn update_pairs(&mut self, began: &mut Vec<Pair>, ended: &mut Vec<Pair>) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let mut history = std::mem::take(&mut self.history);
        history.report(|out| self.collect_pairs(out), began, ended);
        self.history = history;
    }

    fn pairs(&mut self, out: &mut Vec<Pair>) {
        self.collect_pairs(out);
    }

    fn query_aabb(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(0);
        while let Some(n) = stack.pop() {
            for e in &self.items[n as usize] {
                if e.aabb.overlaps(aabb) {
                    out.push(e.id);
                }
            }
            let node = &self.nodes[n as usize];
            if node.children != NULL_INDEX {
                for c in node.children..node.children + 4 {
                    let child = &self.nodes[c as usize];
                    if child.count > 0 && child.loose.overlaps(aabb) {
                        stack.push(c);
                    }
                }
            }
        }
        self.stack = stack;
    }

    fn validate(&self) -> Result<(), String> {
        if self.nodes.len() != self.items.len() || self.nodes.is_empty() || self.nodes.len() % 4 != 1 {
            return Err("quadtree: node arrays have inconsistent lengths".into());
        }
        // Walk from the root: structure, containment, placement, counts.
        let mut reached = 0usize;
        let mut stored = 0usize;
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            reached += 1;
            let node = &self.nodes[n as usize];
            let items = &self.items[n as usize];
            if !node.alive {
                return Err(format!("quadtree: dead node {n} reachable"));
            }
            for (p, e) in items.iter().enumerate() {
                let r = self.recs.get(e.id as usize).ok_or("quadtree: item id without record")?;
                if r.node != n || r.pos as usize != p {
                    return Err(format!("quadtree: record of id {} points elsewhere", e.id));
                }
                if n != 0 && !node.loose.contains(&e.aabb) {
                    return Err(format!("quadtree: id {} outside its node's loose bounds", e.id));
                }
                if self.fitting_child(n, &e.aabb).is_some() {
                    return Err(format!("quadtree: id {} should sit deeper than node {n}", e.id));
                }
            }
            stored += items.len();
            let mut sum = items.len() as u32;
            if node.children == NULL_INDEX {
                if items.len() > CAPACITY && node.depth < MAX_DEPTH && splittable(&node.cell) {
                    return Err(format!("quadtree: leaf {n} holds {} items but could split", items.len()));
                }
            } else {
                if node.count <= COLLAPSE {
                    return Err(format!("quadtree: internal node {n} holds only {} items", node.count));
                }
                let m = mid(&node.cell);
                for q in 0..4u32 {
                    let c = node.children + q;
                    let child = self.nodes.get(c as usize).ok_or("quadtree: child index out of range")?;
                    if child.parent != n || child.depth != node.depth + 1 {
                        return Err(format!("quadtree: child {c} of {n} has a wrong parent or depth"));
                    }
                    let corner = Vec2::new(
                        if q & 1 == 0 { node.cell.min.x } else { m.x },
                        if q & 2 == 0 { node.cell.min.y } else { m.y },
                    );
                    if child.cell.min != corner || !node.loose.contains(&child.loose) {
                        return Err(format!("quadtree: child {c} cell or loose bounds not nested in {n}"));
                    }
                    sum += child.count;
                    stack.push(c);
                }
            }
            if sum != node.count {
                return Err(format!("quadtree: node {n} count {} but subtree holds {sum}", node.count));
            }
        }
        if reached + 4 * self.free_blocks.len() != self.nodes.len() {
            return Err("quadtree: nodes neither reachable nor free".into());
        }
        for &f in &self.free_blocks {
            for c in f..f + 4 {
                if self.nodes[c as usize].alive || !self.items[c as usize].is_empty() {
                    return Err(format!("quadtree: free node {c} alive or holding items"));
                }
            }
        }
        let present = self.recs.iter().filter(|r| r.node != NULL_INDEX).count();
        if stored != self.len || present != self.len {
            return Err(format!("quadtree: len {} but {stored} stored and {present} records", self.len));
        }
        if !self.history.is_sorted() {
            return Err("quadtree: previous pair list not sorted and unique".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad::test_kit::*;

    #[test]
    fn churn_matches_model() {
        for seed in 0..8 {
            churn(&|| Box::new(Quadtree::new(bounds())), seed, 500, 80);
        }
        churn(&|| Box::new(Quadtree::new(Aabb::new(Vec2::splat(400.0), Vec2::splat(410.0)))), 9, 500, 80);
    }

    #[test]
    fn adversarial_sets_match_model() {
        adversarial(&|| Box::new(Quadtree::new(bounds())));
        adversarial(&|| Box::new(Quadtree::new(Aabb::new(Vec2::splat(-20.0), Vec2::splat(-10.0)))));
        adversarial(&|| Box::new(Quadtree::new(Aabb::new(Vec2::splat(-f32::MAX), Vec2::splat(f32::MAX)))));
    }

    #[test]
    fn grows_and_collapses() {
        let mut rng = SplitMix64::new(11);
        let mut t = Quadtree::new(bounds());
        for id in 0..500 {
            let c = Vec2::new(rng.range(0.0, 1000.0), rng.range(0.0, 1000.0));
            t.insert(id, Aabb::from_center_half_extents(c, Vec2::splat(2.0)));
        }
        t.validate().unwrap();
        assert!(t.node_count() > 50, "500 small boxes should split the root repeatedly");
        for id in 0..498 {
            t.remove(id);
        }
        t.validate().unwrap();
        assert_eq!(t.node_count(), 1, "two boxes left: everything folds back into the root");
    }

    #[test]
    fn all_at_one_point_stops_at_max_depth() {
        let mut t = Quadtree::new(bounds());
        let p = Vec2::new(123.0, 456.0);
        for id in 0..40 {
            t.insert(id, Aabb::new(p, p));
        }
        t.validate().unwrap();
        let deepest = t.nodes.iter().filter(|n| n.alive).map(|n| n.depth).max().unwrap();
        assert_eq!(deepest, MAX_DEPTH);
        let mut out = Vec::new();
        t.pairs(&mut out);
        assert_eq!(out.len(), 40 * 39 / 2);
    }

    #[test]
    fn neighbouring_subtrees_pair() {
        // Regression guard for the "own node and descendants" shortcut: with loose bounds two
        // boxes in sibling subtrees can overlap across the cell boundary.
        let mut t = Quadtree::new(bounds());
        for id in 0..20 {
            let y = id as f32 * 40.0;
            t.insert(id, Aabb::new(Vec2::new(495.0, y), Vec2::new(499.0, y + 4.0)));
            t.insert(100 + id, Aabb::new(Vec2::new(499.0, y), Vec2::new(503.0, y + 4.0)));
        }
        t.validate().unwrap();
        let mut out = Vec::new();
        t.pairs(&mut out);
        out.sort_unstable();
        let want: Vec<Pair> = (0..20).map(|i| [i, 100 + i]).collect();
        assert_eq!(out, want);
    }
}
