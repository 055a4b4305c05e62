//! Top-down binned-SAH build (Wald, "On fast construction of SAH-based bounding volume
//! hierarchies", 2007), used by [`DynamicTree::rebuild`] and large batch insertions.
//!
//! Each range of leaves is split by binning the leaf centres into [`BINS`] bins along each axis
//! and taking the bin boundary with the smallest `P(left)·n_left + P(right)·n_right`. Ranges
//! whose centres all coincide (or that no boundary splits) are halved by position, which keeps
//! coincident boxes balanced.
//!
//! Two passes. The first finds every split: a range of `n` leaves has `n - 1` internal nodes,
//! whose splits it writes in pre-order to its own part of `splits`, so the two halves of a range
//! partition disjoint parts of the leaves and write disjoint parts of `splits`, in parallel
//! (`par::join`) while they are large. The second allocates and links the nodes serially in
//! that same pre-order, so the tree (node indices included) is the same for any thread count.
//! Explicit task stacks replace recursion below the parallel levels: a badly skewed scene can
//! make the build as deep as the number of leaves.

use super::{DynamicTree, Node, NodeIndex};
use crate::index::NULL_INDEX;
use crate::math::Aabb;
use crate::par;

/// Bins per axis. More bins put the split closer to a full SAH sweep's, at a cost per range that
/// grows with the bins; 16 gives trees within a few percent of the full sweep at a fraction of
/// its cost (Wald 2007 found 16–32 enough).
const BINS: usize = 16;

/// Ranges at least this large split their halves in parallel; below it a task is too short to
/// pay for its hand-off.
const PARALLEL_LEAVES: usize = 8192;

/// Parallel levels at most: past them (a skewed scene) ranges go to the explicit stack.
const PARALLEL_DEPTH: u32 = 48;

/// Reusable buffers of the build.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// Leaf nodes, partitioned in place.
    leaves: Vec<NodeIndex>,
    /// The leaves' boxes, kept parallel to `leaves`: each range is read several times per
    /// level, in order from here rather than scattered over the nodes.
    boxes: Vec<Aabb>,
    /// Every internal node's box and the index splitting its range, in pre-order.
    splits: Vec<(Aabb, u32)>,
    /// Pending ranges of the linking pass: (start, end, its first split, parent, which child of
    /// the parent: 1 or 2).
    tasks: Vec<(u32, u32, u32, NodeIndex, u8)>,
    /// Internal nodes in creation order (parents before children), for the height pass.
    created: Vec<NodeIndex>,
    /// The splitting pass's stack, for a tree too small to split in parallel.
    stack: Vec<(usize, usize, usize)>,
}

pub(super) fn rebuild(tree: &mut DynamicTree) {
    let mut s = std::mem::take(&mut tree.build);
    s.leaves.clear();
    s.boxes.clear();
    // Leaves in id order, so the result depends only on the stored boxes.
    for &n in &tree.leaf_of {
        if !n.is_null() {
            s.leaves.push(n);
            s.boxes.push(tree.nodes[n.index()].aabb);
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
    let n = s.leaves.len();
    s.splits.clear();
    s.splits.resize(n - 1, (Aabb::EMPTY, 0));
    if n < PARALLEL_LEAVES {
        split_serial(&mut s.leaves, &mut s.boxes, &mut s.splits, 0, &mut s.stack);
    } else {
        split_all(&mut s.leaves, &mut s.boxes, &mut s.splits, 0, 0);
    }
    s.tasks.clear();
    s.created.clear();
    s.tasks.push((0, n as u32, 0, NodeIndex::NULL, 1));
    while let Some((start, end, first, parent, which)) = s.tasks.pop() {
        let node = if end - start == 1 {
            s.leaves[start as usize]
        } else {
            let (aabb, mid) = s.splits[first as usize];
            let n = tree.alloc();
            tree.nodes[n.index()] =
                Node { aabb, parent: NodeIndex::NULL, child1: NodeIndex::NULL, child2_or_id: NULL_INDEX, height: 0 };
            s.created.push(n);
            s.tasks.push((mid, end, first + (mid - start), n, 2));
            s.tasks.push((start, mid, first + 1, n, 1));
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

/// Splits the range of `leaves` (with their `boxes`) all the way down, writing its internal
/// nodes' splits (mid as an index into the whole range, whose part this starts at `offset`) in
/// pre-order to `splits`, which holds exactly one entry per internal node of the range.
pub(super) fn split_all(
    leaves: &mut [NodeIndex],
    boxes: &mut [Aabb],
    splits: &mut [(Aabb, u32)],
    offset: usize,
    depth: u32,
) {
    let n = leaves.len();
    if n < PARALLEL_LEAVES || depth >= PARALLEL_DEPTH {
        split_serial(leaves, boxes, splits, offset, &mut Vec::new());
        return;
    }
    let (aabb, mid) = split(leaves, boxes);
    splits[0] = (aabb, (offset + mid) as u32);
    let (left_leaves, right_leaves) = leaves.split_at_mut(mid);
    let (left_boxes, right_boxes) = boxes.split_at_mut(mid);
    let (left_splits, right_splits) = splits[1..].split_at_mut(mid - 1);
    par::join(
        || split_all(left_leaves, left_boxes, left_splits, offset, depth + 1),
        || split_all(right_leaves, right_boxes, right_splits, offset + mid, depth + 1),
    );
}

/// [`split_all`] on one thread, with an explicit stack of (start, end, first split) relative to
/// the slices.
pub(super) fn split_serial(
    leaves: &mut [NodeIndex],
    boxes: &mut [Aabb],
    splits: &mut [(Aabb, u32)],
    offset: usize,
    tasks: &mut Vec<(usize, usize, usize)>,
) {
    tasks.clear();
    tasks.push((0, leaves.len(), 0));
    while let Some((start, end, first)) = tasks.pop() {
        if end - start < 2 {
            continue;
        }
        let (aabb, mid) = split(&mut leaves[start..end], &mut boxes[start..end]);
        let mid = start + mid;
        splits[first] = (aabb, (offset + mid) as u32);
        tasks.push((mid, end, first + (mid - start)));
        tasks.push((start, mid, first + 1));
    }
}

/// The box of the leaves and the index splitting them; partitions `leaves` and `boxes` in place.
fn split(leaves: &mut [NodeIndex], boxes: &mut [Aabb]) -> (Aabb, usize) {
    let mut bounds = Aabb::EMPTY;
    let mut cbounds = Aabb::EMPTY;
    for b in boxes.iter() {
        bounds = bounds.union(b);
        let c = b.center();
        cbounds = cbounds.union(&Aabb::new(c, c));
    }
    let n = leaves.len();
    if n == 2 {
        return (bounds, 1);
    }
    // Both axes binned in one pass: one read of each box, and two independent chains of bin
    // updates for the processor to overlap.
    let lo = cbounds.min;
    let extent = cbounds.max - lo;
    let scale = BINS as f32 / extent;
    let mut counts = [[0u32; BINS]; 2];
    let mut bin_boxes = [[Aabb::EMPTY; BINS]; 2];
    for leaf in boxes.iter() {
        let c = leaf.center();
        let (bx, by) = (bin(c.x, lo.x, scale.x), bin(c.y, lo.y, scale.y));
        counts[0][bx] += 1;
        bin_boxes[0][bx] = bin_boxes[0][bx].union(leaf);
        counts[1][by] += 1;
        bin_boxes[1][by] = bin_boxes[1][by].union(leaf);
    }
    // (cost, axis, first bin of the right side)
    let mut best: Option<(f32, usize, usize)> = None;
    for axis in 0..2 {
        if extent[axis].is_nan() || extent[axis] <= 0.0 {
            continue;
        }
        let (counts, bin_boxes) = (&counts[axis], &bin_boxes[axis]);
        // Right-to-left suffix costs, then a left-to-right sweep.
        let mut right_cost = [0.0f32; BINS];
        let (mut rb, mut rc) = (Aabb::EMPTY, 0u32);
        for k in (1..BINS).rev() {
            rb = rb.union(&bin_boxes[k]);
            rc += counts[k];
            right_cost[k] = if rc > 0 { rb.perimeter() * rc as f32 } else { f32::INFINITY };
        }
        let (mut lb, mut lc) = (Aabb::EMPTY, 0u32);
        for k in 1..BINS {
            lb = lb.union(&bin_boxes[k - 1]);
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
        return (bounds, n / 2);
    };
    let lo = cbounds.min[axis];
    let scale = BINS as f32 / (cbounds.max[axis] - lo);
    let (mut i, mut j) = (0, n);
    while i < j {
        if bin(boxes[i].center()[axis], lo, scale) < k {
            i += 1;
        } else {
            j -= 1;
            leaves.swap(i, j);
            boxes.swap(i, j);
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
