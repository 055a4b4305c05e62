//! Top-down binned-SAH build (Wald, "On fast construction of SAH-based bounding volume
//! hierarchies", 2007), used by [`DynamicTree::rebuild`] and large batch insertions.
//!
//! Each range of leaves is split by binning the leaf centres into [`BINS`] bins along each axis
//! and taking the bin boundary with the smallest `P(left)·n_left + P(right)·n_right`. Ranges
//! whose centres all coincide (or that no boundary splits) are halved by position, which keeps
//! coincident boxes balanced.
//!
//! A range's bounds (of its boxes, and of their centres, which the binning spans) come from its
//! parent's split: the union of the bins on its side, and the centres met while partitioning.
//! Each level then reads its leaves twice, to bin them and to partition them.
//!
//! Two passes. The first finds every split: a range of `n` leaves has `n - 1` internal nodes,
//! whose splits it writes in pre-order to its own part of `splits`, so the two halves of a range
//! partition disjoint parts of the leaves and write disjoint parts of `splits`, in parallel
//! (`par::join`) while they are large. The second lays out and links the nodes serially in
//! that same pre-order, so the tree (node indices included) is the same for any thread count.
//! Explicit task stacks replace recursion below the parallel levels: a badly skewed scene can
//! make the build as deep as the number of leaves.

use super::{DynamicTree, Node, NodeIndex};
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
    /// The leaves' ids, partitioned in place.
    leaves: Vec<u32>,
    /// The leaves' boxes, kept parallel to `leaves`: each range is read several times per
    /// level, in order from here rather than scattered over the nodes.
    boxes: Vec<Aabb>,
    /// Every internal node's box and the index splitting its range, in pre-order.
    splits: Vec<(Aabb, u32)>,
    /// Pending ranges of the linking pass: (start, end, its first split, its node, the parent).
    tasks: Vec<(u32, u32, u32, NodeIndex, NodeIndex)>,
    /// Internal nodes in creation order (parents before children), for the height pass.
    created: Vec<NodeIndex>,
    /// The splitting pass's stack, for a tree too small to split in parallel.
    stack: Vec<SerialTask>,
}

/// A range of the splitting pass on one thread: start, end, first split, and its bounds.
pub(super) type SerialTask = (usize, usize, usize, Bounds);

/// The bounds of a range of leaves: of their boxes (the node's box) and of the boxes' centres
/// (what the bins span).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Bounds {
    boxes: Aabb,
    centres: Aabb,
}

impl Bounds {
    const EMPTY: Bounds = Bounds { boxes: Aabb::EMPTY, centres: Aabb::EMPTY };

    fn add(&mut self, b: &Aabb) {
        let c = b.center();
        self.boxes = self.boxes.union(b);
        self.centres = self.centres.union(&Aabb::new(c, c));
    }

    /// The bounds of `boxes`, read once.
    pub(super) fn of(boxes: &[Aabb]) -> Bounds {
        let mut r = Bounds::EMPTY;
        boxes.iter().for_each(|b| r.add(b));
        r
    }
}

pub(super) fn rebuild(tree: &mut DynamicTree) {
    let mut s = std::mem::take(&mut tree.build);
    s.leaves.clear();
    s.boxes.clear();
    let mut bounds = Bounds::EMPTY;
    // Leaves in id order, so the result depends only on the stored boxes.
    for (id, &n) in tree.leaf_of.iter().enumerate() {
        if !n.is_null() {
            let b = tree.nodes[n.index()].aabb;
            s.leaves.push(id as u32);
            s.boxes.push(b);
            bounds.add(&b);
        }
    }
    // Every node is laid out anew (see `link`).
    tree.nodes.clear();
    tree.free = NodeIndex::NULL;
    tree.node_count = 0;
    tree.root = NodeIndex::NULL;
    if s.leaves.is_empty() {
        tree.build = s;
        return;
    }
    let n = s.leaves.len();
    s.splits.clear();
    s.splits.resize(n - 1, (Aabb::EMPTY, 0));
    if n < PARALLEL_LEAVES {
        split_serial(&mut s.leaves, &mut s.boxes, &mut s.splits, 0, bounds, &mut s.stack);
    } else {
        split_all(&mut s.leaves, &mut s.boxes, &mut s.splits, 0, bounds, 0);
    }
    link(tree, &mut s);
    tree.build = s;
}

/// Writes the nodes of the splits in a layout made for descents: the two children of a node
/// are neighbours (one or two adjacent cache lines hold both boxes a descent compares), and the
/// pairs follow in pre-order, so a subtree's nodes lie together and the lower levels of a
/// search fall in a few nearby lines. Pairs fill indices from 0 and the root takes the last.
/// Leaves are renumbered too (no index outside the tree refers to a node).
fn link(tree: &mut DynamicTree, s: &mut Scratch) {
    let n = s.leaves.len();
    let total = 2 * n - 1;
    tree.nodes.resize(total, Node::free(NodeIndex::NULL));
    tree.node_count = total as u32;
    tree.root = NodeIndex::from_index(total - 1);
    s.tasks.clear();
    s.created.clear();
    s.tasks.push((0, n as u32, 0, tree.root, NodeIndex::NULL));
    let mut next = 0;
    while let Some((start, end, first, at, parent)) = s.tasks.pop() {
        tree.nodes[at.index()] = if end - start == 1 {
            let id = s.leaves[start as usize];
            tree.leaf_of[id as usize] = at;
            Node { aabb: s.boxes[start as usize], parent, child1: NodeIndex::NULL, child2_or_id: id, height: 0 }
        } else {
            let (aabb, mid) = s.splits[first as usize];
            let (child1, child2) = (NodeIndex::from_index(next), NodeIndex::from_index(next + 1));
            next += 2;
            s.created.push(at);
            s.tasks.push((mid, end, first + (mid - start), child2, at));
            s.tasks.push((start, mid, first + 1, child1, at));
            Node { aabb, parent, child1, child2_or_id: child2.get(), height: 0 }
        };
    }
    debug_assert_eq!(next, total - 1);
    // Children were created after their parents: a reverse pass sees children first.
    for &n in s.created.iter().rev() {
        let node = tree.nodes[n.index()];
        let h = tree.nodes[node.child1.index()].height.max(tree.nodes[node.child2().index()].height);
        tree.nodes[n.index()].height = 1 + h;
    }
}

/// Splits the range of `leaves` (with their `boxes` and `bounds`) all the way down, writing its
/// internal nodes' splits (mid as an index into the whole range, whose part this starts at
/// `offset`) in pre-order to `splits`, which holds exactly one entry per internal node of the
/// range.
pub(super) fn split_all(
    leaves: &mut [u32],
    boxes: &mut [Aabb],
    splits: &mut [(Aabb, u32)],
    offset: usize,
    bounds: Bounds,
    depth: u32,
) {
    let n = leaves.len();
    if n < PARALLEL_LEAVES || depth >= PARALLEL_DEPTH {
        split_serial(leaves, boxes, splits, offset, bounds, &mut Vec::new());
        return;
    }
    let (mid, [left, right]) = split(leaves, boxes, &bounds);
    splits[0] = (bounds.boxes, (offset + mid) as u32);
    let (left_leaves, right_leaves) = leaves.split_at_mut(mid);
    let (left_boxes, right_boxes) = boxes.split_at_mut(mid);
    let (left_splits, right_splits) = splits[1..].split_at_mut(mid - 1);
    par::join(
        || split_all(left_leaves, left_boxes, left_splits, offset, left, depth + 1),
        || split_all(right_leaves, right_boxes, right_splits, offset + mid, right, depth + 1),
    );
}

/// [`split_all`] on one thread, with an explicit stack of tasks relative to the slices.
pub(super) fn split_serial(
    leaves: &mut [u32],
    boxes: &mut [Aabb],
    splits: &mut [(Aabb, u32)],
    offset: usize,
    bounds: Bounds,
    tasks: &mut Vec<SerialTask>,
) {
    tasks.clear();
    tasks.push((0, leaves.len(), 0, bounds));
    while let Some((start, end, first, bounds)) = tasks.pop() {
        if end - start < 2 {
            continue;
        }
        let (mid, [left, right]) = split(&mut leaves[start..end], &mut boxes[start..end], &bounds);
        let mid = start + mid;
        splits[first] = (bounds.boxes, (offset + mid) as u32);
        tasks.push((mid, end, first + (mid - start), right));
        tasks.push((start, mid, first + 1, left));
    }
}

/// The index splitting the leaves of `bounds`, and the bounds of either side; partitions
/// `leaves` and `boxes` in place. A side of one leaf is not split again, and gets no bounds.
fn split(leaves: &mut [u32], boxes: &mut [Aabb], bounds: &Bounds) -> (usize, [Bounds; 2]) {
    let cbounds = bounds.centres;
    let n = leaves.len();
    if n == 2 {
        return (1, [Bounds::EMPTY; 2]);
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
        let mid = n / 2;
        return (mid, [Bounds::of(&boxes[..mid]), Bounds::of(&boxes[mid..])]);
    };
    let lo = cbounds.min[axis];
    let scale = BINS as f32 / (cbounds.max[axis] - lo);
    let (mut left, mut right) = (Bounds::EMPTY, Bounds::EMPTY);
    let (mut i, mut j) = (0, n);
    while i < j {
        let c = boxes[i].center();
        if bin(c[axis], lo, scale) < k {
            left.centres = left.centres.union(&Aabb::new(c, c));
            i += 1;
        } else {
            right.centres = right.centres.union(&Aabb::new(c, c));
            j -= 1;
            leaves.swap(i, j);
            boxes.swap(i, j);
        }
    }
    let bins = &bin_boxes[axis];
    left.boxes = bins[..k].iter().fold(Aabb::EMPTY, |a, b| a.union(b));
    right.boxes = bins[k..].iter().fold(Aabb::EMPTY, |a, b| a.union(b));
    (i, [left, right])
}

/// The bin of a centre coordinate; the same float expression during binning and partitioning,
/// so both agree on every leaf. Through `i32`, whose conversion is one instruction where
/// `usize`'s is several.
#[inline]
fn bin(c: f32, lo: f32, scale: f32) -> usize {
    (((c - lo) * scale) as i32).clamp(0, BINS as i32 - 1) as usize
}
