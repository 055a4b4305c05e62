//! Distance queries through the world: the nearest collider to a shape or a point, within a bound.

use glam::Vec2;

use super::QueryFilter;
use crate::math::{Aabb, Pose};
use crate::query::{self, QueryError};
use crate::shape::{Circle, Shape};
use crate::storage::{ColliderId, ColliderSlot};
use crate::world::World;

/// The nearest collider to a probe and the closest points between them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldClosestPoints {
    /// The nearest collider.
    pub id: ColliderId,
    /// Its nearest part: the index in a [`Compound`](crate::Compound) collider, 0 for a convex
    /// one.
    pub part: u32,
    /// The distance between the probe and the collider; 0 when they overlap.
    pub distance: f32,
    /// The closest point on the collider (world space). When they overlap, the point
    /// [`query::distance`] reports (for a point probe, the point itself).
    pub point: Vec2,
    /// The closest point on the probe (the point itself for a point probe).
    pub probe_point: Vec2,
    /// Unit normal from the probe towards the collider; zero when they overlap.
    pub normal: Vec2,
}

/// An answer of the nearest-collider search: its signed distance and its collider.
pub(super) trait Ranked {
    fn rank(&self) -> (f32, ColliderId);
}

impl Ranked for WorldClosestPoints {
    fn rank(&self) -> (f32, ColliderId) {
        (self.distance, self.id)
    }
}

impl World {
    /// The nearest-collider search the distance and projection queries share: each tree walked
    /// nearest subtree first, with the bound lowered to the best distance found (so the cost
    /// follows the answer, not `max_distance`); `exact(slot)` gives a candidate's exact answer.
    /// The least [`Ranked`] distance wins, ties to the smaller id. A negative distance (a point
    /// inside a collider, for a projection) bounds the walk at 0: only boxes holding the probe
    /// can hold a deeper answer.
    pub(super) fn nearest<H: Ranked>(
        &self,
        probe_box: Aabb,
        max_distance: f32,
        filter: &QueryFilter,
        mut exact: impl FnMut(ColliderSlot) -> Option<H>,
    ) -> Option<H> {
        // The exact distance, computed in the shapes' frames, can come out below the boxes'
        // distance by a rounding error: grow both by their slack.
        let probe_box = probe_box.with_rounding_slack();
        let mut best: Option<H> = None;
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            let bound = best.as_ref().map_or(max_distance, |b| b.rank().0.max(0.0));
            tree.nearest_with(&probe_box, bound, true, |raw, _, bound| {
                let slot = ColliderSlot::new(raw);
                if !self.accepts(slot, filter, resident) {
                    return;
                }
                let Some(hit) = exact(slot) else { return };
                let (distance, id) = hit.rank();
                let better = best.as_ref().is_none_or(|b| (distance, id) < b.rank());
                if distance <= *bound && better {
                    *bound = distance.max(0.0);
                    best = Some(hit);
                }
            });
        }
        best
    }

    /// The collider nearest to `shape` at `pose` within `max_distance` (ties to the smaller
    /// id), with the closest points: Box2D's `b2ShapeDistance` against the whole world, served
    /// by a nearest-first walk of both trees whose bound shrinks as nearer colliders are found,
    /// and an exact [`query::distance`] per candidate. A collider overlapping the probe is at
    /// distance 0; `None` when nothing is within `max_distance`.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, QueryFilter, Shape, Vec2, World};
    /// let mut world = World::new();
    /// let near = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(Vec2::new(4.0, 0.0))))?;
    /// world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(Vec2::new(-9.0, 0.0))))?;
    /// world.step();
    /// let probe = Shape::cuboid(Vec2::splat(0.5))?;
    /// let hit = world.distance_to_nearest(&probe, &Pose::IDENTITY, 10.0, &QueryFilter::default())?.unwrap();
    /// assert_eq!(hit.id, near);
    /// assert!((hit.distance - 2.5).abs() < 1e-4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A probe shape the world would refuse as a collider (failing [`Shape::validate`]) finds
    /// nothing.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite pose, a pose whose rotation is not a
    /// unit rotation, or a NaN `max_distance` ([`f32::INFINITY`] is allowed: no bound);
    /// [`QueryError::Negative`] for a negative `max_distance`; [`QueryError::InvalidShape`]
    /// for a shape failing [`Shape::validate`].
    pub fn distance_to_nearest(
        &self,
        shape: &Shape,
        pose: &Pose,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Result<Option<WorldClosestPoints>, QueryError> {
        let pose = &query::check_probe(shape, pose)?;
        query::check_bound(max_distance)?;
        Ok(self.nearest(shape.aabb(pose), max_distance, filter, |slot| {
            let s = slot.index();
            let d = query::distance(shape, pose, &self.cols.shape[s], &self.cols.pose[s]).ok()?;
            Some(WorldClosestPoints {
                id: self.cols.id(slot),
                part: d.part_b,
                distance: d.distance,
                point: d.point_b,
                probe_point: d.point_a,
                normal: d.normal,
            })
        }))
    }

    /// The collider nearest to `point` within `max_distance` (ties to the smaller id), and its
    /// closest point: [`World::distance_to_nearest`] for a point. A collider containing the
    /// point is at distance 0.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite point or a NaN `max_distance`;
    /// [`QueryError::Negative`] for a negative `max_distance`.
    pub fn distance_to_nearest_point(
        &self,
        point: Vec2,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Result<Option<WorldClosestPoints>, QueryError> {
        query::check_vector(point)?;
        query::check_bound(max_distance)?;
        // A point is a circle of radius 0 to GJK (a one-vertex core): exact, and the same code
        // path as a shape probe. Built directly, since the checked constructor refuses size 0.
        let probe = Shape::Circle(Circle { radius: 0.0 });
        let pose = Pose::from_translation(point);
        Ok(self.nearest(Aabb::new(point, point), max_distance, filter, |slot| {
            let s = slot.index();
            let d = query::distance(&probe, &pose, &self.cols.shape[s], &self.cols.pose[s]).ok()?;
            Some(WorldClosestPoints {
                id: self.cols.id(slot),
                part: d.part_b,
                distance: d.distance,
                // At distance 0 the point is in the collider: the closest point is itself.
                point: if d.distance == 0.0 { point } else { d.point_b },
                probe_point: point,
                normal: d.normal,
            })
        }))
    }
}
