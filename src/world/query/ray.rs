//! Ray casts through the world: the closest hit, every hit, and Box2D's clipping callback.

use glam::Vec2;

use super::QueryFilter;
use crate::broad::Grow;
use crate::math::Ray;
use crate::query::{self, QueryError};
use crate::storage::{ColliderId, ColliderSlot};
use crate::world::World;

/// A ray hit on a collider's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldRayHit {
    /// The collider hit.
    pub id: ColliderId,
    /// Ray parameter of the hit (`origin + t * dir`).
    pub t: f32,
    /// The hit point.
    pub point: Vec2,
    /// The shape's outward unit normal at the hit (`-dir` normalised for a ray starting inside).
    pub surface_normal: Vec2,
    /// The part hit: its index in a [`Compound`](crate::Compound) collider, the segment index in a
    /// [`Chain`](crate::Chain), 0 for a convex one (see [`query::ray_cast_part`]).
    pub part: u32,
}

impl World {
    fn shape_ray_cast(&self, slot: ColliderSlot, ray: &Ray, max_t: f32) -> Option<WorldRayHit> {
        let s = slot.index();
        query::cast_ray(&self.cols.shape[s], &self.cols.pose[s], ray, max_t).map(|(part, h)| WorldRayHit {
            id: self.cols.id(slot),
            t: h.t,
            point: h.point,
            surface_normal: h.surface_normal,
            part,
        })
    }

    /// The closest collider hit by `ray` within `t <= max_t` (ties go to the smaller id).
    /// `dir` may have any finite length and `max_t` may be infinite.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite origin or direction or a NaN `max_t`,
    /// [`QueryError::Negative`] for a negative `max_t`.
    pub fn ray_cast(&self, ray: &Ray, max_t: f32, filter: &QueryFilter) -> Result<Option<WorldRayHit>, QueryError> {
        query::check_ray(ray, max_t)?;
        let mut best: Option<WorldRayHit> = None;
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            let hit = tree.ray_cast_closest_with(ray, max_t, Grow::SLACK, |raw, _| {
                let slot = ColliderSlot::new(raw);
                if !self.accepts(slot, filter, resident) {
                    return None;
                }
                self.shape_ray_cast(slot, ray, max_t).map(|h| h.t)
            });
            if let Some(h) = hit {
                let closer = best.is_none_or(|b| h.t < b.t || (h.t == b.t && h.id < b.id.index()));
                if closer {
                    best = self.shape_ray_cast(ColliderSlot::new(h.id), ray, max_t);
                }
            }
        }
        Ok(best)
    }

    /// Appends every collider hit by `ray` within `t <= max_t`, nearest first (ties by id).
    ///
    /// # Errors
    /// As [`World::ray_cast`]; `out` is unchanged then.
    pub fn ray_cast_all(
        &self,
        ray: &Ray,
        max_t: f32,
        filter: &QueryFilter,
        out: &mut Vec<WorldRayHit>,
    ) -> Result<(), QueryError> {
        query::check_ray(ray, max_t)?;
        let start = out.len();
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            tree.ray_cast_all_with(ray, max_t, Grow::SLACK, |raw, _| {
                let slot = ColliderSlot::new(raw);
                if self.accepts(slot, filter, resident)
                    && let Some(h) = self.shape_ray_cast(slot, ray, max_t)
                {
                    out.push(h);
                }
                -1.0 // keep going, never clip: every hit is wanted
            });
        }
        out[start..].sort_unstable_by(|a, b| a.t.total_cmp(&b.t).then(a.id.cmp(&b.id)));
        Ok(())
    }

    /// Casts `ray` through the world and hands every collider it hits within the current
    /// maximum to `callback`, which steers the cast by what it returns, as the callback of Box2D's
    /// `b2World_CastRay` does:
    ///
    /// | return                          | effect                                            |
    /// |---------------------------------|---------------------------------------------------|
    /// | negative (`-1.0`)               | ignore this hit (a custom filter); go on unchanged |
    /// | `0.0`                           | stop the cast now                                 |
    /// | `t` in `(0, max)`, e.g. `hit.t` | clip the ray at `t`: nothing farther is reported  |
    /// | the current max or more, NaN    | go on unclipped (to see every hit)                |
    ///
    /// Returning `hit.t` every time finds the closest hit; returning `max_t` sees them all.
    /// Hits come roughly near to far, but in no guaranteed order, so clip rather than stop to
    /// find the closest. Each collider is reported at most once, with its nearest part within
    /// the maximum current when it is reached. A ray starting inside a shape hits it at `t = 0`,
    /// and clipping there returns `0`, which stops: nothing can be nearer.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, QueryFilter, Ray, Shape, Vec2, World};
    /// let mut world = World::new();
    /// for x in [2.0, 4.0, 6.0] {
    ///     world.insert(ColliderDesc::new(Shape::circle(0.5)?, Pose::from_translation(Vec2::new(x, 0.0))))?;
    /// }
    /// world.step();
    /// let mut closest = f32::INFINITY;
    /// world.ray_cast_with(&Ray::new(Vec2::ZERO, Vec2::X), 100.0, &QueryFilter::default(), |hit| {
    ///     closest = closest.min(hit.t);
    ///     hit.t // clip: farther colliders are skipped from now on
    /// })?;
    /// assert_eq!(closest, 1.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite origin or direction or a NaN `max_t`,
    /// [`QueryError::Negative`] for a negative `max_t`; `callback` is not called then.
    /// (`max_t` may be infinite.)
    pub fn ray_cast_with(
        &self,
        ray: &Ray,
        max_t: f32,
        filter: &QueryFilter,
        mut callback: impl FnMut(&WorldRayHit) -> f32,
    ) -> Result<(), QueryError> {
        query::check_ray(ray, max_t)?;
        let (mut clip, mut stopped) = (max_t, false);
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            if stopped {
                break;
            }
            // The tree applies the same contract to its own bound, so `clip` mirrors it, and the
            // second tree starts where the first left the ray.
            tree.ray_cast_all_with(ray, clip, Grow::SLACK, |raw, _| {
                let slot = ColliderSlot::new(raw);
                if !self.accepts(slot, filter, resident) {
                    return -1.0;
                }
                let Some(hit) = self.shape_ray_cast(slot, ray, clip) else { return -1.0 };
                let r = callback(&hit);
                if r == 0.0 {
                    stopped = true;
                } else if r > 0.0 && r < clip {
                    clip = r;
                }
                r
            });
        }
        Ok(())
    }
}
