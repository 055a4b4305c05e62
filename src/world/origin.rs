//! `World::shift_origin`: every collider, contact and structure moved by one offset, pairs kept.
//!
//! f32 spacing grows with distance from the origin (0.06 at 1e6, 1 at 1e7), so a game whose
//! player travels far keeps precision by moving the origin to the player now and then (PhysX's
//! `shiftOrigin`, Unity's floating origin). The shift subtracts the offset from every stored
//! coordinate in place. Subtraction is monotone in f32, which is what lets the structures stay:
//! every box still contains what it contained and every overlap survives, so no pair ends; but
//! two coordinates that differed can round to one value, so boxes less than one spacing apart
//! can come to touch, and the shift searches for those new pairs (the structures are exact
//! about touching, see the crate's touching convention).

use glam::Vec2;

use super::{MAX_COORDINATE, World, WorldError};
use crate::broad::{BroadPhaseKind, pair};
use crate::math::Aabb;
use crate::storage::{ColliderSlot, flags};

impl World {
    /// Moves the world's origin to `offset`: every collider's position `p` becomes
    /// `p - offset`, and with it every box, contact point and broad-phase structure, in place.
    /// Ids, pairs, contacts and pending events stay; for a bounded
    /// [`UniformGrid`](crate::BroadPhaseKind::UniformGrid) or
    /// [`Quadtree`](crate::BroadPhaseKind::Quadtree) the config's bounds move too.
    ///
    /// A zero offset (either sign) changes nothing at all.
    ///
    /// Call it between steps, with the offset of (say) the player's position, to keep the
    /// colliders that matter near the origin, where f32 is precise. The next [`World::step`]
    /// treats every collider as moved: it recomputes every box and every manifold from the
    /// shifted poses, so contacts computed far out, with the spacing of far coordinates, are
    /// replaced by ones as precise as in a world built at the new coordinates. That step costs
    /// a full narrow phase (like a first step); steps after it are ordinary.
    ///
    /// Cost of the call: O(n) to move the columns, trees and SAP endpoints (an insertion-sort
    /// pass restores the order of endpoints that rounding made equal), plus one tree query per
    /// static or large collider for the pairs that rounding made touch. The other broad phases
    /// are rebuilt (the spatial hash's cells are fixed in world space, so it must re-hash
    /// anyway). It allocates temporary lists of O(n).
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    ///
    /// let mut world = World::new();
    /// let far = Vec2::new(3.0e6, -2.0e6);
    /// let a = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(far)))?;
    /// world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(far + Vec2::new(1.5, 0.0))))?;
    /// world.step();
    /// world.shift_origin(far)?;
    /// assert_eq!(world.pose(a)?.p, Vec2::ZERO);
    /// assert_eq!(world.contacts().len(), 1); // the pair and its contact stay
    /// world.step();
    /// assert!(world.events().is_empty()); // nothing began or ended
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::InvalidOffset`] for a NaN or infinite offset; [`WorldError::OutOfRange`]
    /// when a live collider's shifted position would exceed [`MAX_COORDINATE`], or when a
    /// component of the offset exceeds twice that (no collider could stay in range). The world
    /// is unchanged then.
    pub fn shift_origin(&mut self, offset: Vec2) -> Result<(), WorldError> {
        if !offset.is_finite() {
            return Err(WorldError::InvalidOffset);
        }
        let cols = &self.cols;
        let out_of_range = |p: Vec2| (p - offset).abs().max_element() > MAX_COORDINATE;
        if offset.abs().max_element() > 2.0 * MAX_COORDINATE
            || (0..cols.alive.len()).any(|s| cols.alive[s] && out_of_range(cols.pose[s].p))
        {
            return Err(WorldError::OutOfRange);
        }
        if offset == Vec2::ZERO {
            return Ok(());
        }
        // The movers' tree applies its pending escapes later from the fat boxes then current,
        // so they need no shift of their own.
        self.shift_columns(offset);
        self.tree.shift_origin(offset);
        self.mover_tree.shift_origin(offset);
        self.config.broad_phase = match self.config.broad_phase {
            BroadPhaseKind::UniformGrid { bounds, cell_size } => {
                BroadPhaseKind::UniformGrid { bounds: shifted(bounds, offset), cell_size }
            }
            BroadPhaseKind::Quadtree { bounds } => BroadPhaseKind::Quadtree { bounds: shifted(bounds, offset) },
            kind => kind,
        };
        self.mover_tree.settle();
        self.pair_ties();
        // Every collider counts as moved, so that the next step recomputes boxes and manifolds
        // at the new coordinates (see the doc). New colliders already are; queries are told
        // about them again.
        for s in 0..self.cols.alive.len() {
            if self.cols.is_placed(s) {
                self.mark_moved(s);
            } else if self.cols.alive[s] {
                self.mover_tree.change(ColliderSlot::from_index(s));
            }
        }
        self.validate_if_enabled("shift_origin");
        Ok(())
    }

    /// Shifts the live colliders' poses, tight and fat boxes, and the contact points. Dead slots
    /// keep their leftovers (nothing reads them again), and empty boxes stay empty.
    fn shift_columns(&mut self, offset: Vec2) {
        let cols = &mut self.cols;
        for s in 0..cols.alive.len() {
            if !cols.alive[s] {
                continue;
            }
            cols.pose[s].p -= offset;
            // The welds are in each static's own frame and stay valid, but which vertices
            // coincide within f32 rounding can change with the coordinates: the next step
            // recomputes them, as a world built at the new coordinates would have them.
            if self.config.weld_static_edges && cols.flags[s] & flags::STATIC != 0 {
                self.welds.dirty.push(ColliderSlot::from_index(s));
            }
            if cols.flags[s] & flags::BULLET != 0 {
                // A sweep start is a pose, held to the same range; one that the shift would
                // take out of it (a bullet that crossed most of the world in one step) starts
                // its next sweep where it is, as after a teleport, rather than refusing a
                // shift that every current pose allows.
                cols.sweep_start[s].p -= offset;
                if cols.sweep_start[s].p.abs().max_element() > MAX_COORDINATE {
                    cols.sweep_start[s] = cols.pose[s];
                }
            }
            if cols.fat[s] != Aabb::EMPTY {
                cols.aabb[s] = shifted(cols.aabb[s], offset);
                cols.fat[s] = shifted(cols.fat[s], offset);
            }
        }
        for c in &mut self.contacts {
            let m = &mut c.manifold;
            for pt in &mut m.points[..m.count.min(2) as usize] {
                pt.point -= offset;
            }
        }
    }

    /// Moves the movers' structure to the shifted fat boxes and creates the pairs whose fat
    /// boxes came to touch: among movers, reported by the structure; with a static or large
    /// collider, found by querying both trees with each tree resident's box.
    fn pair_ties(&mut self) {
        let (mut movers, mut residents) = (Vec::new(), Vec::new());
        for s in 0..self.cols.alive.len() {
            if self.cols.is_placed(s) {
                let list = if self.cols.flags[s] & flags::IN_TREE != 0 { &mut residents } else { &mut movers };
                list.push((s as u32, self.cols.fat[s]));
            }
        }
        let (mut began, mut ended) = (std::mem::take(&mut self.scratch.began), std::mem::take(&mut self.scratch.ended));
        began.clear();
        ended.clear();
        self.movers.shift_origin(self.config.broad_phase, &movers, &mut began, &mut ended);
        // The shift is monotone: no fat boxes parted. The structure may still list the pairs of
        // removed colliders, which the world dropped when they were removed.
        ended.clear();
        began.retain(|&p| !self.pair_table.contains(p));
        for &(id, fat) in &residents {
            self.query_both_trees(&fat);
            let table = &self.pair_table;
            began.extend(
                self.scratch
                    .query_hits
                    .iter()
                    .filter(|&&o| o != id)
                    .map(|&o| pair(id, o))
                    .filter(|&p| !table.contains(p)),
            );
        }
        self.scratch.began = began;
        self.scratch.ended = ended;
        // Sorted there, filtered by the filters and static flags, one pair entry each.
        self.apply_pair_changes();
    }
}

/// `b` moved by `-offset`.
fn shifted(b: Aabb, offset: Vec2) -> Aabb {
    Aabb { min: b.min - offset, max: b.max - offset }
}
