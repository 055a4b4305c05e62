//! Point projection through the world: the nearest collider surface to a point, inside or out.

use glam::Vec2;

use super::QueryFilter;
use super::distance::Ranked;
use crate::math::Aabb;
use crate::query::{self, QueryError};
use crate::storage::ColliderId;
use crate::world::World;

/// The nearest collider surface to a point: see [`World::project_point`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldPointProjection {
    /// The collider.
    pub id: ColliderId,
    /// The part holding `point`: the index in a [`Compound`](crate::Compound) collider, the
    /// segment index in a chain, 0 for a convex one.
    pub part: u32,
    /// The closest point on the collider's surface, world space.
    pub point: Vec2,
    /// The surface's outward unit normal at `point` (for a chain or a bare segment, the
    /// direction from `point` towards the queried point), as in
    /// [`query::PointProjection`].
    pub surface_normal: Vec2,
    /// Signed distance from the queried point to the surface: negative inside the collider.
    pub distance: f32,
}

impl Ranked for WorldPointProjection {
    fn rank(&self) -> (f32, ColliderId) {
        (self.distance, self.id)
    }
}

impl World {
    /// The nearest collider surface to `point` among the colliders within `max_distance` of
    /// it, by [`query::project_point`] on each candidate: the point's projection onto that
    /// collider, inside or out, with the surface normal and the signed distance.
    ///
    /// A point inside a collider is at a negative distance, so a collider holding the point
    /// wins over any it is outside of; of several holding it, the one it is deepest in (most
    /// negative distance). Ties go to the smaller id. `None` when no collider is within
    /// `max_distance`. Served by the nearest-first walk of both trees that
    /// [`World::distance_to_nearest_point`] uses, and like it sees the world as the calls so
    /// far left it: a collider moved since the last step is found where it is now.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, QueryFilter, Shape, Vec2, World};
    /// let mut world = World::new();
    /// let floor = world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 1.0))?, Pose::IDENTITY).fixed())?;
    /// let ball = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(Vec2::new(0.0, 2.5))))?;
    /// let filter = QueryFilter::default();
    /// // Between the two, nearer the ball.
    /// let p = world.project_point(Vec2::new(0.0, 1.2), 5.0, &filter)?.unwrap();
    /// assert_eq!((p.id, p.point, p.surface_normal), (floor, Vec2::new(0.0, 1.0), Vec2::Y));
    /// assert!((p.distance - 0.2).abs() < 1e-6);
    /// // Inside the ball: the ball wins, at a negative distance.
    /// let p = world.project_point(Vec2::new(0.0, 2.0), 5.0, &filter)?.unwrap();
    /// assert_eq!((p.id, p.surface_normal), (ball, Vec2::NEG_Y));
    /// assert!((p.distance + 0.5).abs() < 1e-6);
    /// assert!(world.project_point(Vec2::new(0.0, 20.0), 5.0, &filter)?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite point or a NaN `max_distance`
    /// ([`f32::INFINITY`] is allowed: no bound); [`QueryError::Negative`] for a negative
    /// `max_distance`.
    pub fn project_point(
        &self,
        point: Vec2,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Result<Option<WorldPointProjection>, QueryError> {
        query::check_vector(point)?;
        query::check_bound(max_distance)?;
        Ok(self.nearest(Aabb::new(point, point), max_distance, filter, |slot| {
            let s = slot.index();
            let p = query::project_point(&self.cols.shape[s], &self.cols.pose[s], point).ok()?;
            Some(WorldPointProjection {
                id: self.cols.id(slot),
                part: p.part,
                point: p.point,
                surface_normal: p.surface_normal,
                distance: p.distance,
            })
        }))
    }
}
