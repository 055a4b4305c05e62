//! Scene queries, served by the two dynamic trees (movers and tree residents), never by a scan.
//!
//! Queries see the world as the calls so far left it, not as the last [`World::step`] did: a
//! collider inserted, moved ([`World::set_pose`], [`World::teleport`]) or reshaped
//! ([`World::set_shape`]) since the step is found where it is now, one removed is never found.
//! Contacts and events still change only in `step`.
//!
//! How: the movers' query tree is maintained lazily (see `mover_tree`), and a collider changed
//! since the step is placed there at its current tight box by the first query after the change,
//! whether it is a mover or a tree resident; the tree residents' tree keeps its stale entry until
//! the step, and queries skip it. Box2D instead moves a proxy at once when its tight box leaves
//! its fat box; here that would put a tree update in every `set_pose` of a physics loop that
//! never queries, where the lazy placement costs nothing until a query asks, and then one tree
//! update per changed collider: O(k log n) for a burst of k changes, however many queries
//! follow.

mod cast;
mod character;
mod distance;
mod project;
mod ray;

pub use cast::WorldCastHit;
pub use character::{CharacterConfig, CharacterHit, CharacterMove};
pub use distance::WorldClosestPoints;
pub use project::WorldPointProjection;
pub use ray::WorldRayHit;

use glam::Vec2;

use super::World;
use super::mover_tree::MoverTreeGuard;
use crate::broad::DynamicTree;
use crate::collide;
use crate::math::{Aabb, Pose};
use crate::query::{self, QueryError};
use crate::shape::{Segment, Shape};
use crate::storage::{ColliderId, ColliderSlot, flags};

/// Which colliders a query may report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QueryFilter {
    /// Only colliders with a category bit in this mask.
    pub mask: u32,
    /// Whether sensors are reported.
    pub include_sensors: bool,
    /// A collider never reported (typically the one asking).
    pub exclude: Option<ColliderId>,
}

impl Default for QueryFilter {
    fn default() -> Self {
        Self { mask: u32::MAX, include_sensors: true, exclude: None }
    }
}

impl World {
    /// Whether a query reports `slot`, found in the tree residents' tree when `resident` (where a
    /// collider changed since the step has a stale entry: the movers' tree holds its present one).
    fn accepts(&self, slot: ColliderSlot, filter: &QueryFilter, resident: bool) -> bool {
        let s = slot.index();
        self.cols.alive[s]
            && self.cols.flags[s] & flags::DISABLED == 0
            && !(resident && self.cols.flags[s] & flags::MOVED != 0)
            && self.cols.filter[s].category & filter.mask != 0
            && (filter.include_sensors || self.cols.flags[s] & flags::SENSOR == 0)
            // The whole id, not just the slot: a stale id must not hide the collider that
            // reuses its slot (found by the `world_ops` fuzz target).
            && filter.exclude.is_none_or(|x| x != self.cols.id(slot))
    }

    /// Visits the slots whose tight box overlaps `aabb` and pass `filter`, in both trees. With
    /// `slack` (candidates for an exact shape test), both boxes are grown by their rounding
    /// slack: a shape test in the shape's own frame can accept a probe that misses the boxes by
    /// a rounding error, and the query must offer it all the same.
    fn for_each_in_aabb(&self, aabb: &Aabb, filter: &QueryFilter, slack: bool, mut f: impl FnMut(ColliderSlot)) {
        let grow = |b: &Aabb| if slack { b.with_rounding_slack() } else { *b };
        let aabb = grow(aabb);
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            tree.query_with(&aabb, slack, |raw| {
                let slot = ColliderSlot::new(raw);
                if self.accepts(slot, filter, resident) && grow(&movers.aabb_of(&self.cols, slot)).overlaps(&aabb) {
                    f(slot);
                }
                true
            });
        }
    }

    /// The trees a query searches, each with whether it is the tree residents' (see
    /// [`World::accepts`]).
    fn query_trees<'a>(&'a self, movers: &'a MoverTreeGuard<'a>) -> [(&'a DynamicTree, bool); 2] {
        [(&***movers, false), (&self.tree, true)]
    }

    fn sorted_ids(&self, start: usize, out: &mut [ColliderId]) {
        out[start..].sort_unstable();
    }

    /// Appends the colliders whose tight boxes overlap `aabb`, sorted by id. An inverted box
    /// (`min > max` on an axis) is empty and finds nothing.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a box with a NaN corner (infinite corners are fine); `out`
    /// is unchanged then.
    pub fn query_aabb(&self, aabb: &Aabb, filter: &QueryFilter, out: &mut Vec<ColliderId>) -> Result<(), QueryError> {
        if aabb.min.is_nan() || aabb.max.is_nan() {
            return Err(QueryError::NonFinite);
        }
        let start = out.len();
        self.for_each_in_aabb(aabb, filter, false, |s| out.push(self.cols.id(s)));
        self.sorted_ids(start, out);
        Ok(())
    }

    /// Appends the colliders whose shapes contain `point` (boundary included), sorted by id.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite point; `out` is unchanged then.
    pub fn query_point(&self, point: Vec2, filter: &QueryFilter, out: &mut Vec<ColliderId>) -> Result<(), QueryError> {
        query::check_vector(point)?;
        let start = out.len();
        self.for_each_in_aabb(&Aabb::new(point, point), filter, true, |slot| {
            let s = slot.index();
            if query::part_containing(&self.cols.shape[s], &self.cols.pose[s], point).is_some() {
                out.push(self.cols.id(slot));
            }
        });
        self.sorted_ids(start, out);
        Ok(())
    }

    /// Appends `(collider, part)` for every part (0 for a convex collider, the segment index for
    /// a chain) that contains `point`, boundary included, sorted by collider then part.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, QueryFilter, Shape, Vec2, World};
    /// let mut world = World::new();
    /// let l = Shape::compound(vec![
    ///     (Pose::IDENTITY, Shape::cuboid(Vec2::new(0.5, 2.0))?),
    ///     (Pose::from_translation(Vec2::new(1.5, -1.5)), Shape::cuboid(Vec2::new(1.0, 0.5))?),
    /// ])?;
    /// let id = world.insert(ColliderDesc::new(l, Pose::IDENTITY))?;
    /// world.step();
    /// let mut out = Vec::new();
    /// world.query_point_parts(Vec2::new(0.5, -1.5), &QueryFilter::default(), &mut out)?; // on both
    /// assert_eq!(out, [(id, 0), (id, 1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`World::query_point`].
    pub fn query_point_parts(
        &self,
        point: Vec2,
        filter: &QueryFilter,
        out: &mut Vec<(ColliderId, u32)>,
    ) -> Result<(), QueryError> {
        query::check_vector(point)?;
        let start = out.len();
        self.for_each_in_aabb(&Aabb::new(point, point), filter, true, |s| {
            let (shape, pose) = (&self.cols.shape[s.index()], &self.cols.pose[s.index()]);
            if let Shape::Chain(c) = shape {
                // Every segment through the point (a vertex lies on two).
                let p = pose.inv_transform_point(point);
                c.segments_in(&Aabb::new(p, p).with_rounding_slack(), |i| {
                    let seg = c.segment_at(i as usize);
                    let line = Shape::Segment(Segment { a: seg.a, b: seg.b, radius: 0.0 });
                    if query::part_containing(&line, &Pose::IDENTITY, p).is_some() {
                        out.push((self.cols.id(s), i));
                    }
                    true
                });
                return;
            }
            for (i, (lp, part)) in shape.parts_iter().enumerate() {
                if query::part_containing(part, &pose.mul(lp), point).is_some() {
                    out.push((self.cols.id(s), i as u32));
                }
            }
        });
        out[start..].sort_unstable();
        Ok(())
    }

    /// Appends `(collider, part)` for every collider part (0 for a convex collider, the segment
    /// index for a chain) that overlaps `shape` at `pose` (touching counts; `shape` may itself
    /// be a compound), sorted by collider then part. Chain segments answer as in the narrow
    /// phase: a one-sided chain does not find a probe whose centre is behind it.
    ///
    /// # Errors
    /// As [`World::query_shape`].
    pub fn query_shape_parts(
        &self,
        shape: &Shape,
        pose: &Pose,
        filter: &QueryFilter,
        out: &mut Vec<(ColliderId, u32)>,
    ) -> Result<(), QueryError> {
        let pose = &query::check_probe(shape, pose)?;
        let start = out.len();
        let bounds = shape.aabb(pose);
        self.for_each_in_aabb(&bounds, filter, true, |s| {
            let (cs, cp) = (&self.cols.shape[s.index()], &self.cols.pose[s.index()]);
            if let Shape::Chain(_) = cs {
                // The chain's segments that touch the probe, by the narrow phase's own rule
                // (ghost vertices, one-sidedness); a compound probe may list one several times.
                let at = out.len();
                collide::part_manifolds(cs, cp, shape, pose, |i, _, _| out.push((self.cols.id(s), i)));
                out[at..].sort_unstable();
                let mut k = at;
                for j in at..out.len() {
                    if k == at || out[k - 1] != out[j] {
                        out[k] = out[j];
                        k += 1;
                    }
                }
                out.truncate(k);
                return;
            }
            for (i, (lp, part)) in cs.parts_iter().enumerate() {
                let part_pose = cp.mul(lp);
                if part.aabb(&part_pose).with_rounding_slack().overlaps(&bounds.with_rounding_slack())
                    && collide::touching(part, &part_pose, shape, pose)
                {
                    out.push((self.cols.id(s), i as u32));
                }
            }
        });
        out[start..].sort_unstable();
        Ok(())
    }

    /// Appends the colliders whose shapes overlap `shape` at `pose` (touching counts), sorted by
    /// id.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a pose with a NaN or infinite component or a non-unit
    /// rotation; [`QueryError::InvalidShape`] for a shape failing [`Shape::validate`] (the
    /// kernels assume valid shapes: a self-intersecting polygon gives arbitrary answers). `out`
    /// is unchanged then.
    pub fn query_shape(
        &self,
        shape: &Shape,
        pose: &Pose,
        filter: &QueryFilter,
        out: &mut Vec<ColliderId>,
    ) -> Result<(), QueryError> {
        let pose = &query::check_probe(shape, pose)?;
        let start = out.len();
        self.for_each_in_aabb(&shape.aabb(pose), filter, true, |slot| {
            let s = slot.index();
            if collide::touching(&self.cols.shape[s], &self.cols.pose[s], shape, pose) {
                out.push(self.cols.id(slot));
            }
        });
        self.sorted_ids(start, out);
        Ok(())
    }
}
