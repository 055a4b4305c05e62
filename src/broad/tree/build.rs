//! Top-down binned-SAH build (Wald, "On fast construction of SAH-based bounding volume
//! hierarchies", 2007), used by [`DynamicTree::rebuild`] and large batch insertions.
//!
//! Each range of leaves is split by binning the leaf centres into [`BINS`] bins along each axis
//! and taking the bin boundary with the smallest `P(left)·n_left + P(right)·n_right`. Ranges
//! whose centres all coincide (or that no boundary splits) are halved by position, which keeps
//! coincident boxes balanced. An explicit task stack replaces recursion: a badly skewed scene
//! can make the build as deep as the number of leaves.

use super::{DynamicTree, Node, NodeIndex};
use crate::index::NULL_INDEX;
use crate::math::Aabb;
use glam::Vec2;

/// Bins per axis. More bins put the split closer to a full SAH sweep's, at a cost per range that
/// grows with the bins; 16 gives trees within a few percent of the full sweep at a fraction of
/// its cost (Wald 2007 found 16–32 enough).
const BINS: usize = 16;

/// Reusable buffers of the build.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// Leaf nodes, partitioned in place.
    leaves: Vec<NodeIndex>,
    /// Centres of the leaves' boxes, kept parallel to `leaves`.
    centers: Vec<Vec2>,
    /// Pending ranges: (start, end, parent, which child of the parent: 1 or 2).
    tasks: Vec<(u32, u32, NodeIndex, u8)>,
    /// Internal nodes in creation order (parents before children), for the height pass.
    created: Vec<NodeIndex>,
}

pub(super) fn rebuild(tree: &mut DynamicTree) {
    let mut s = std::mem::take(&mut tree.build);
    s.leaves.clear();
    s.centers.clear();
    // Leaves in id order, so the result depends only on the stored boxes.
    for &n in &tree.leaf_of {
        if !n.is_null() {
            s.leaves.push(n);
            s.centers.push(tree.nodes[n.index()].aabb.center());
        }
    }
    // Every non-leaf node goes back on the free list, highest index last so that the build
    // allocates low indices first.
    tree.free = NodeIndex::NULL;
    tree.node_count = 0;
    for i in (0..tree.nodes.len()).rev() {
        let node = tree.nodes[i];
        if node.height == 0 && node.is_leaf() && tree.leaf_of.get(node.id() as usize) == Some(&NodeIndex::from_index(i))
        {
            tree.node_count += 1;
        } else {
            tree.nodes[i] = Node::free(tree.free);
            tree.free = NodeIndex::from_index(i);
        }
    }
    tree.root = NodeIndex::NULL;
    if s.leaves.is_empty() {
        tree.build = s;
        return;
    }
    s.tasks.clear();
    s.created.clear();
    s.tasks.push((0, s.leaves.len() as u32, NodeIndex::NULL, 1));
    while let Some((start, end, parent, which)) = s.tasks.pop() {
        let node = if end - start == 1 {
            s.leaves[start as usize]
        } else {
            let (aabb, mid) = split(tree, &mut s, start as usize, end as usize);
            let n = tree.alloc();
            tree.nodes[n.index()] =
                Node { aabb, parent: NodeIndex::NULL, child1: NodeIndex::NULL, child2_or_id: NULL_INDEX, height: 0 };
            s.created.push(n);
            s.tasks.push((mid as u32, end, n, 2));
            s.tasks.push((start, mid as u32, n, 1));
            n
        };
        tree.nodes[node.index()].parent = parent;
        if parent.is_null() {
            tree.root = node;
        } else if which == 1 {
            tree.nodes[parent.index()].child1 = node;
        } else {
            tree.nodes[parent.index()].child2_or_id = node.get();
        }
    }
    // Children were created after their parents: a reverse pass sees children first.
    for &n in s.created.iter().rev() {
        let node = tree.nodes[n.index()];
        let h = tree.nodes[node.child1.index()].height.max(tree.nodes[node.child2().index()].height);
        tree.nodes[n.index()].height = 1 + h;
    }
    tree.build = s;
}

/// The box of the range and the index splitting it; partitions `leaves` and `centers` in place.
fn split(tree: &DynamicTree, s: &mut Scratch, start: usize, end: usize) -> (Aabb, usize) {
    let mut bounds = Aabb::EMPTY;
    let mut cbounds = Aabb::EMPTY;
    for i in start..end {
        bounds = bounds.union(&tree.nodes[s.leaves[i].index()].aabb);
        let c = s.centers[i];
        cbounds = cbounds.union(&Aabb::new(c, c));
    }
    let n = end - start;
    if n == 2 {
        return (bounds, start + 1);
    }
    // (cost, axis, first bin of the right side)
    let mut best: Option<(f32, usize, usize)> = None;
    for axis in 0..2 {
        let lo = cbounds.min[axis];
        let extent = cbounds.max[axis] - lo;
        if extent.is_nan() || extent <= 0.0 {
            continue;
        }
        let scale = BINS as f32 / extent;
        let mut counts = [0u32; BINS];
        let mut boxes = [Aabb::EMPTY; BINS];
        for i in start..end {
            let b = bin(s.centers[i][axis], lo, scale);
            counts[b] += 1;
            boxes[b] = boxes[b].union(&tree.nodes[s.leaves[i].index()].aabb);
        }
        // Right-to-left suffix costs, then a left-to-right sweep.
        let mut right_cost = [0.0f32; BINS];
        let (mut rb, mut rc) = (Aabb::EMPTY, 0u32);
        for k in (1..BINS).rev() {
            rb = rb.union(&boxes[k]);
            rc += counts[k];
            right_cost[k] = if rc > 0 { rb.perimeter() * rc as f32 } else { f32::INFINITY };
        }
        let (mut lb, mut lc) = (Aabb::EMPTY, 0u32);
        for k in 1..BINS {
            lb = lb.union(&boxes[k - 1]);
            lc += counts[k - 1];
            if lc == 0 || lc as usize == n {
                continue;
            }
            let cost = lb.perimeter() * lc as f32 + right_cost[k];
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, axis, k));
            }
        }
    }
    let Some((_, axis, k)) = best else {
        // All centres coincide: halve by position.
        return (bounds, start + n / 2);
    };
    let lo = cbounds.min[axis];
    let scale = BINS as f32 / (cbounds.max[axis] - lo);
    let (mut i, mut j) = (start, end);
    while i < j {
        if bin(s.centers[i][axis], lo, scale) < k {
            i += 1;
        } else {
            j -= 1;
            s.leaves.swap(i, j);
            s.centers.swap(i, j);
        }
    }
    (bounds, i)
}

/// The bin of a centre coordinate; the same float expression during binning and partitioning,
/// so both agree on every leaf.
#[inline]
fn bin(c: f32, lo: f32, scale: f32) -> usize {
    (((c - lo) * scale) as usize).min(BINS - 1)
}
