//! Linking a leaf into the tree and out of it: the SAH sibling search (branch and bound, or the
//! greedy descent), the refit of the ancestors and the rotations on the way up.

use super::{DynamicTree, InsertStrategy, Node, NodeIndex};
use crate::math::Aabb;

impl DynamicTree {
    /// Links an allocated leaf (box set, parent unset) into the tree.
    pub(super) fn insert_leaf(&mut self, leaf: NodeIndex) {
        if self.root.is_null() {
            self.root = leaf;
            self.nodes[leaf.index()].parent = NodeIndex::NULL;
            return;
        }
        let l = self.nodes[leaf.index()].aabb;
        let sibling = match self.strategy {
            InsertStrategy::BranchAndBound => self.best_sibling_bnb(&l),
            #[cfg(test)]
            InsertStrategy::Greedy => self.best_sibling_greedy(&l),
        };
        let s = self.nodes[sibling.index()];
        let old_parent = s.parent;
        let p = self.alloc();
        self.nodes[p.index()] = Node {
            aabb: s.aabb.union(&l),
            parent: old_parent,
            child1: sibling,
            child2_or_id: leaf.get(),
            height: s.height + 1,
        };
        self.nodes[sibling.index()].parent = p;
        self.nodes[leaf.index()].parent = p;
        if old_parent.is_null() {
            self.root = p;
        } else {
            self.replace_child(old_parent, sibling, p);
        }
        self.refit_upwards(p);
    }

    /// Unlinks a leaf from the tree (its node is kept) and frees its parent.
    pub(super) fn unlink_leaf(&mut self, leaf: NodeIndex) {
        if leaf == self.root {
            self.root = NodeIndex::NULL;
            return;
        }
        let p = self.nodes[leaf.index()].parent;
        let pn = self.nodes[p.index()];
        let sibling = if pn.child1 == leaf { pn.child2() } else { pn.child1 };
        let g = pn.parent;
        if g.is_null() {
            self.root = sibling;
            self.nodes[sibling.index()].parent = NodeIndex::NULL;
        } else {
            self.replace_child(g, p, sibling);
            self.nodes[sibling.index()].parent = g;
            self.refit_upwards(g);
        }
        self.release(p);
    }

    fn replace_child(&mut self, parent: NodeIndex, old: NodeIndex, new: NodeIndex) {
        let pn = &mut self.nodes[parent.index()];
        if pn.child1 == old {
            pn.child1 = new;
        } else {
            pn.child2_or_id = new.get();
        }
    }

    /// Recomputes boxes and heights from `n` to the root, rotating at each node on the way.
    fn refit_upwards(&mut self, mut n: NodeIndex) {
        while !n.is_null() {
            let node = self.nodes[n.index()];
            let (a, b) = (self.nodes[node.child1.index()], self.nodes[node.child2().index()]);
            let nm = &mut self.nodes[n.index()];
            nm.aabb = a.aabb.union(&b.aabb);
            nm.height = 1 + a.height.max(b.height);
            if self.rotations {
                self.rotate(n);
            }
            n = self.nodes[n.index()].parent;
        }
    }

    /// Tries the (up to four) swaps of a child of `a` with a grandchild under its other child and
    /// applies the best one. `a`'s box is unchanged by any swap (same leaves); only the rebuilt
    /// child's box and the heights change.
    fn rotate(&mut self, a: NodeIndex) {
        let na = self.nodes[a.index()];
        if na.is_leaf() {
            return;
        }
        let (b, c) = (na.child1, na.child2());
        let (nb, nc) = (self.nodes[b.index()], self.nodes[c.index()]);
        if nb.is_leaf() && nc.is_leaf() {
            return;
        }
        // Best swap so far: (x = child of a, y = grandchild under o, o, z = o's other child).
        let mut best: Option<(NodeIndex, NodeIndex, NodeIndex, NodeIndex)> = None;
        let mut best_delta = 0.0f32;
        let mut best_height = na.height;
        let mut consider = |x: NodeIndex, nx: &Node, o: NodeIndex, no: &Node, nodes: &[Node]| {
            if no.is_leaf() {
                return;
            }
            for (y, z) in [(no.child1, no.child2()), (no.child2(), no.child1)] {
                let (ny, nz) = (&nodes[y.index()], &nodes[z.index()]);
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
        self.nodes[y.index()].parent = a;
        self.replace_child(o, y, x);
        self.nodes[x.index()].parent = o;
        let (nx, nz) = (self.nodes[x.index()], self.nodes[z.index()]);
        let no = &mut self.nodes[o.index()];
        no.aabb = nx.aabb.union(&nz.aabb);
        no.height = 1 + nx.height.max(nz.height);
        let h_o = no.height;
        let h_y = self.nodes[y.index()].height;
        self.nodes[a.index()].height = 1 + h_y.max(h_o);
    }

    /// The cheapest sibling under Catto's SAH insertion cost, by branch and bound. Ties go to the
    /// smaller subtree height (a lexicographic cost `(perimeter cost, height)`, whose lower bound
    /// for a subtree is `(P(L) + inherited, 0)`).
    pub(super) fn best_sibling_bnb(&mut self, l: &Aabb) -> NodeIndex {
        let pl = l.perimeter();
        let root = self.root;
        let mut best = root;
        let mut best_cost = self.nodes[root.index()].aabb.union(l).perimeter();
        let mut best_h = self.nodes[root.index()].height;
        let mut stack = std::mem::take(&mut self.insert_stack);
        stack.clear();
        stack.push((root, 0.0));
        while let Some((n, inherited)) = stack.pop() {
            // The bound may have tightened since this entry was pushed.
            let lower = pl + inherited;
            if lower > best_cost || (lower == best_cost && best_h == 0) {
                continue;
            }
            let node = self.nodes[n.index()];
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
            let (n1, n2) = (&self.nodes[node.child1.index()], &self.nodes[node.child2().index()]);
            let d1 = n1.aabb.union(l).perimeter() - n1.aabb.perimeter();
            let d2 = n2.aabb.union(l).perimeter() - n2.aabb.perimeter();
            let first_is_better = d1 < d2 || (d1 == d2 && n1.height <= n2.height);
            if first_is_better {
                stack.push((node.child2(), child_inherited));
                stack.push((node.child1, child_inherited));
            } else {
                stack.push((node.child1, child_inherited));
                stack.push((node.child2(), child_inherited));
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
    fn best_sibling_greedy(&self, l: &Aabb) -> NodeIndex {
        let pl = l.perimeter();
        let mut n = self.root;
        let mut inherited = 0.0f32;
        loop {
            let node = &self.nodes[n.index()];
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
            let (n1, n2) = (&self.nodes[node.child1.index()], &self.nodes[node.child2().index()]);
            let (c1, c2) = (child_cost(n1), child_cost(n2));
            if here < c1 && here < c2 {
                return n;
            }
            n = if c1 < c2 || (c1 == c2 && n1.height <= n2.height) { node.child1 } else { node.child2() };
            inherited = child_inherited;
        }
    }
}
