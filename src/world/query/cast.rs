//! Shape casts through the world: the closest hit, and every hit, of a shape moved along a line.

use glam::Vec2;

use super::QueryFilter;
use crate::broad::Grow;
use crate::math::{Pose, Ray};
use crate::query::{self, CastOptions, QueryError};
use crate::shape::Shape;
use crate::storage::{ColliderId, ColliderSlot};
use crate::world::World;

/// Where a cast shape first touches a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldCastHit {
    /// The collider hit.
    pub id: ColliderId,
    /// The part hit: its index in a [`Compound`](crate::Compound) collider, 0 for a convex one.
    pub part: u32,
    /// How far along the translation the shape touches it (its pose is then `pose` moved by
    /// `fraction * translation`), in `[0, max_fraction]`.
    pub fraction: f32,
    /// The contact point at that fraction (world space).
    pub point: Vec2,
    /// The collider's outward unit normal at the contact, pointing back towards the cast
    /// shape (the opposite of [`query::CastHit::normal`]). On a welded static (see
    /// [`WorldConfig::weld_static_edges`](crate::WorldConfig::weld_static_edges)) a hit at a
    /// join with a neighbour has the normal the joined surface has there, as on a chain. For a cast that starts in contact,
    /// whatever the narrow query reports for overlapping shapes.
    pub surface_normal: Vec2,
    /// The shapes already overlap (closer than the target distance) at the start: `fraction`
    /// is 0.
    pub started_in_contact: bool,
}

impl World {
    fn check_cast(shape: &Shape, pose: &Pose, translation: Vec2, options: &CastOptions) -> Result<Pose, QueryError> {
        let pose = query::check_probe(shape, pose)?;
        query::check_vector(translation)?;
        query::check_amount(options.max_fraction)?;
        query::check_amount(options.target_distance)?;
        Ok(pose)
    }

    /// The tree traversal of a shape cast: a ray from the probe's box centre along the
    /// translation, against boxes grown by the probe box's half extents plus the target
    /// distance (and rounding slack): a collider's box is reached exactly when the swept
    /// probe box comes within the target distance of it. [`query::cast_shapes`] stops within a
    /// tolerance of the target distance (1e-4 of the smaller shape's reach, plus f32 rounding
    /// of the coordinates), so the boxes are grown by that too.
    pub(super) fn cast_traversal(shape: &Shape, pose: &Pose, translation: Vec2, options: &CastOptions) -> (Ray, Grow) {
        let b = shape.aabb(pose);
        let ray = Ray { origin: b.center(), dir: translation };
        let reach = shape.bounding_radius();
        let magnitude = pose.p.abs().max_element() + translation.abs().max_element() + reach;
        let tolerance = 2e-4 * reach + 4e-6 * magnitude;
        (ray, Grow { half: b.half_extents() + Vec2::splat(options.target_distance + tolerance), slack: true })
    }

    /// The exact cast against slot `slot`.
    fn shape_cast(
        &self,
        slot: ColliderSlot,
        probe: (&Shape, &Pose, Vec2),
        options: &CastOptions,
    ) -> Option<WorldCastHit> {
        let (shape, pose, translation) = probe;
        let s = slot.index();
        let hit =
            query::cast_shapes(shape, pose, translation, &self.cols.shape[s], &self.cols.pose[s], Vec2::ZERO, options)
                .ok()??;
        Some(WorldCastHit {
            id: self.cols.id(slot),
            part: hit.part_b,
            fraction: hit.fraction,
            point: hit.point,
            surface_normal: if hit.started_in_contact {
                -hit.normal
            } else {
                self.welds.hit_normal(&self.cols, s, hit.point, -hit.normal)
            },
            started_in_contact: hit.started_in_contact,
        })
    }

    /// The first collider that `shape`, moved from `pose` by `fraction * translation` for
    /// `fraction` in `[0, options.max_fraction]`, touches (comes within
    /// `options.target_distance` of): Box2D's `b2World_CastShape` and rapier's
    /// `cast_shape`, answered by both trees with the probe's box swept along the translation
    /// (clipped as closer hits are found), and an exact [`query::cast_shapes`] per candidate.
    /// Ties go to the smaller id. A collider the shape already touches at the start is hit at
    /// fraction 0 with `started_in_contact`. The hit is exactly what [`query::cast_shapes`]
    /// answers for that collider: never past the true first contact, and short of it by at
    /// most that query's tolerance.
    ///
    /// ```
    /// use sapwood::query::CastOptions;
    /// use sapwood::{ColliderDesc, Pose, QueryFilter, Shape, Vec2, World};
    /// let mut world = World::new();
    /// let wall = world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.5, 5.0))?, Pose::from_translation(Vec2::new(5.0, 0.0))).fixed())?;
    /// world.step();
    /// let ball = Shape::circle(0.5)?;
    /// let hit = world
    ///     .cast_shape(&ball, &Pose::IDENTITY, Vec2::new(10.0, 0.0), &CastOptions::default(), &QueryFilter::default())?
    ///     .expect("the wall is in the way");
    /// assert_eq!(hit.id, wall);
    /// assert!((hit.fraction - 0.4).abs() < 1e-3); // the ball's edge meets the wall at x = 4.5
    /// assert!((hit.surface_normal - Vec2::NEG_X).length() < 1e-3); // the wall's face, towards the ball
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite pose, translation, `max_fraction` or
    /// `target_distance`, or a pose whose rotation is not a unit rotation;
    /// [`QueryError::Negative`] for a negative `max_fraction` or `target_distance`;
    /// [`QueryError::InvalidShape`] for a shape failing [`Shape::validate`].
    pub fn cast_shape(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        options: &CastOptions,
        filter: &QueryFilter,
    ) -> Result<Option<WorldCastHit>, QueryError> {
        let pose = &Self::check_cast(shape, pose, translation, options)?;
        let (ray, grow) = Self::cast_traversal(shape, pose, translation, options);
        let mut best: Option<WorldCastHit> = None;
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            // The second tree starts with the ray clipped at the first tree's best hit.
            let max = best.map_or(options.max_fraction, |b| b.fraction);
            tree.ray_cast_closest_with(&ray, max, grow, |raw, _| {
                let slot = ColliderSlot::new(raw);
                if !self.accepts(slot, filter, resident) {
                    return None;
                }
                // The candidate's cast runs over the caller's whole range, not clipped at the
                // best hit so far: the query's tolerance depends on the range searched, so a
                // clipped cast could stop elsewhere, and the answer would then depend on the
                // order the trees offer candidates in. This way it is exactly
                // `query::cast_shapes` for the collider hit; the clipping still prunes the trees.
                let hit = self.shape_cast(slot, (shape, pose, translation), options)?;
                if best.is_none_or(|b| hit.fraction < b.fraction || (hit.fraction == b.fraction && hit.id < b.id)) {
                    best = Some(hit);
                }
                Some(hit.fraction)
            });
        }
        Ok(best)
    }

    /// Appends every collider that `shape` touches when moved from `pose` by `fraction *
    /// translation`, `fraction` in `[0, options.max_fraction]`, each once at its first
    /// fraction of contact, sorted by fraction then id (see [`World::cast_shape`]). Allocates
    /// nothing beyond `out`'s growth.
    ///
    /// # Errors
    /// As [`World::cast_shape`]; `out` is unchanged then.
    pub fn cast_shape_all(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        options: &CastOptions,
        filter: &QueryFilter,
        out: &mut Vec<WorldCastHit>,
    ) -> Result<(), QueryError> {
        let pose = &Self::check_cast(shape, pose, translation, options)?;
        let (ray, grow) = Self::cast_traversal(shape, pose, translation, options);
        let start = out.len();
        let movers = self.mover_tree.read(&self.cols);
        for (tree, resident) in self.query_trees(&movers) {
            tree.ray_cast_all_with(&ray, options.max_fraction, grow, |raw, _| {
                let slot = ColliderSlot::new(raw);
                if self.accepts(slot, filter, resident)
                    && let Some(hit) = self.shape_cast(slot, (shape, pose, translation), options)
                {
                    out.push(hit);
                }
                -1.0 // never clip: every hit is wanted
            });
        }
        out[start..].sort_unstable_by(|a, b| a.fraction.total_cmp(&b.fraction).then(a.id.cmp(&b.id)));
        Ok(())
    }
}
