//! [`SpatialQuery`]: the world's scene queries and character mover as a system parameter,
//! answering entities, with a filter that leaves entities out.
//!
//! Each query is the world's own (see [`sapwood::World`]'s query methods for what it finds and
//! its errors). One excluded entity is passed to the world as its [`QueryFilter::exclude`];
//! more are left out as the world reports hits: through the clipping callback for the closest
//! ray hit and the mover's predicate for the character, by reading the world's list of all hits
//! for the closest shape cast, and by a search of the candidates within the bound for the
//! nearest collider. The answers are the same as if the excluded colliders were not there.

use std::cell::RefCell;

use bevy_ecs::entity::Entity;
use bevy_ecs::system::{Local, Res, SystemParam};
use sapwood::query::{CastOptions, QueryError};
use sapwood::{
    Aabb, CharacterConfig, CharacterHit, CharacterMove, Circle, ColliderId, Pose, QueryFilter, Ray, Shape, Vec2,
    WorldCastHit, WorldClosestPoints, WorldRayHit,
};

use crate::resource::SapwoodWorld;

/// Which colliders a [`SpatialQuery`] may report: [`QueryFilter`] by entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpatialFilter<'a> {
    /// Only colliders with a category bit in this mask.
    pub mask: u32,
    /// Whether sensors are reported.
    pub include_sensors: bool,
    /// Entities never reported (typically the one asking, and what it carries).
    pub exclude: &'a [Entity],
}

impl Default for SpatialFilter<'_> {
    fn default() -> Self {
        Self { mask: u32::MAX, include_sensors: true, exclude: &[] }
    }
}

impl<'a> SpatialFilter<'a> {
    /// Every collider but `exclude`'s.
    #[must_use]
    pub fn excluding(exclude: &'a [Entity]) -> Self {
        Self { exclude, ..Self::default() }
    }

    /// The same, with a category mask.
    #[must_use]
    pub fn with_mask(mut self, mask: u32) -> Self {
        self.mask = mask;
        self
    }

    /// The same, without sensors.
    #[must_use]
    pub fn without_sensors(mut self) -> Self {
        self.include_sensors = false;
        self
    }
}

/// A ray hit: [`WorldRayHit`] and the entity hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The entity hit.
    pub entity: Entity,
    /// Where, and the surface normal there.
    pub hit: WorldRayHit,
}

/// A shape cast's hit: [`WorldCastHit`] and the entity hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// The entity hit.
    pub entity: Entity,
    /// How far along, where, and the surface normal there.
    pub hit: WorldCastHit,
}

/// The nearest collider: [`WorldClosestPoints`] and its entity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nearest {
    /// The nearest entity.
    pub entity: Entity,
    /// The distance and the closest points.
    pub hit: WorldClosestPoints,
}

/// A surface the character touched: [`CharacterHit`] and its entity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterContact {
    /// The entity.
    pub entity: Entity,
    /// Where, and the surface normal there (towards the character).
    pub hit: CharacterHit,
}

/// Where [`SpatialQuery::move_character`] left the shape: [`CharacterMove`] and the entity it
/// stands on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterOutcome {
    /// The new pose, whether grounded, what was hit.
    pub motion: CharacterMove,
    /// The entity of `motion.ground` (a moving platform to ride, say).
    pub ground: Option<Entity>,
}

/// The buffers of the queries that filter the world's answers.
#[derive(Default)]
pub struct QueryScratch {
    ids: Vec<ColliderId>,
    casts: Vec<WorldCastHit>,
    rays: Vec<WorldRayHit>,
    hits: Vec<CharacterHit>,
}

/// Scene queries on the [`SapwoodWorld`], answering entities:
///
/// ```
/// use bevy_ecs::prelude::*;
/// use sapwood::{Ray, Vec2};
/// use sapwood_bevy::{SpatialFilter, SpatialQuery};
///
/// #[derive(Component)]
/// struct Turret;
///
/// fn aim(turrets: Query<(Entity, &Transform), With<Turret>>, spatial: SpatialQuery) {
///     for (turret, at) in &turrets {
///         let ray = Ray::new(Vec2::new(at.translation.x, at.translation.y), Vec2::X);
///         let itself = [turret];
///         let filter = SpatialFilter::excluding(&itself);
///         if let Ok(Some(hit)) = spatial.ray_cast(&ray, 50.0, &filter) {
///             println!("{turret} sees {} at {}", hit.entity, hit.hit.t);
///         }
///     }
/// }
/// # use bevy_transform::components::Transform;
/// # bevy_ecs::system::assert_is_system(aim);
/// ```
///
/// Queries see the world as the last sync left it: entities moved since (in `Update`, before
/// the next fixed step) are found where they were then.
#[derive(SystemParam)]
pub struct SpatialQuery<'w, 's> {
    sapwood: Res<'w, SapwoodWorld>,
    scratch: Local<'s, RefCell<QueryScratch>>,
}

impl SpatialQuery<'_, '_> {
    /// The resource behind the queries, for contacts and ids.
    #[must_use]
    pub fn sapwood(&self) -> &SapwoodWorld {
        &self.sapwood
    }

    /// The world's filter for `filter`: one excluded entity becomes the world's own exclusion.
    fn base(&self, filter: &SpatialFilter) -> QueryFilter {
        let exclude = match filter.exclude {
            [one] => self.sapwood.collider(*one),
            _ => None,
        };
        QueryFilter { mask: filter.mask, include_sensors: filter.include_sensors, exclude }
    }

    /// The entity of `id`, unless it is excluded or belongs to no entity.
    fn admit(&self, id: ColliderId, filter: &SpatialFilter) -> Option<Entity> {
        let t = self.sapwood.tracked(id).filter(|t| t.live)?;
        (!filter.exclude.contains(&t.entity)).then_some(t.entity)
    }

    /// The closest entity hit by `ray` within `t <= max_t` (see [`sapwood::World::ray_cast`]).
    ///
    /// # Errors
    /// As [`sapwood::World::ray_cast`].
    pub fn ray_cast(&self, ray: &Ray, max_t: f32, filter: &SpatialFilter) -> Result<Option<RayHit>, QueryError> {
        let world = &self.sapwood.world;
        let base = self.base(filter);
        if filter.exclude.len() <= 1 {
            let hit = world.ray_cast(ray, max_t, &base)?;
            return Ok(hit.and_then(|hit| Some(RayHit { entity: self.admit(hit.id, filter)?, hit })));
        }
        let mut best: Option<RayHit> = None;
        world.ray_cast_with(ray, max_t, &base, |hit| {
            let Some(entity) = self.admit(hit.id, filter) else { return -1.0 };
            if best.is_none_or(|b| hit.t < b.hit.t || (hit.t == b.hit.t && hit.id < b.hit.id)) {
                best = Some(RayHit { entity, hit: *hit });
            }
            hit.t
        })?;
        Ok(best)
    }

    /// Appends every entity hit by `ray` within `t <= max_t`, sorted by `t` then collider id
    /// (see [`sapwood::World::ray_cast_all`]).
    ///
    /// # Errors
    /// As [`sapwood::World::ray_cast_all`]; `out` is unchanged then.
    pub fn ray_cast_all(
        &self,
        ray: &Ray,
        max_t: f32,
        filter: &SpatialFilter,
        out: &mut Vec<RayHit>,
    ) -> Result<(), QueryError> {
        let mut scratch = self.scratch.borrow_mut();
        scratch.rays.clear();
        self.sapwood.world.ray_cast_all(ray, max_t, &self.base(filter), &mut scratch.rays)?;
        out.extend(scratch.rays.iter().filter_map(|&hit| Some(RayHit { entity: self.admit(hit.id, filter)?, hit })));
        Ok(())
    }

    /// The first entity `shape` touches when moved from `pose` by `fraction * translation`
    /// (see [`sapwood::World::cast_shape`]).
    ///
    /// # Errors
    /// As [`sapwood::World::cast_shape`].
    pub fn cast_shape(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        options: &CastOptions,
        filter: &SpatialFilter,
    ) -> Result<Option<ShapeHit>, QueryError> {
        let world = &self.sapwood.world;
        let base = self.base(filter);
        if filter.exclude.len() <= 1 {
            let hit = world.cast_shape(shape, pose, translation, options, &base)?;
            return Ok(hit.and_then(|hit| Some(ShapeHit { entity: self.admit(hit.id, filter)?, hit })));
        }
        // Sorted by fraction then id, as `cast_shape` breaks its ties.
        let mut scratch = self.scratch.borrow_mut();
        scratch.casts.clear();
        world.cast_shape_all(shape, pose, translation, options, &base, &mut scratch.casts)?;
        Ok(scratch.casts.iter().find_map(|&hit| Some(ShapeHit { entity: self.admit(hit.id, filter)?, hit })))
    }

    /// Appends every entity `shape` touches when moved from `pose` by `fraction * translation`,
    /// each at its first fraction of contact, sorted by fraction then collider id (see
    /// [`sapwood::World::cast_shape_all`]).
    ///
    /// # Errors
    /// As [`sapwood::World::cast_shape_all`]; `out` is unchanged then.
    pub fn cast_shape_all(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        options: &CastOptions,
        filter: &SpatialFilter,
        out: &mut Vec<ShapeHit>,
    ) -> Result<(), QueryError> {
        let mut scratch = self.scratch.borrow_mut();
        scratch.casts.clear();
        self.sapwood.world.cast_shape_all(shape, pose, translation, options, &self.base(filter), &mut scratch.casts)?;
        out.extend(scratch.casts.iter().filter_map(|&hit| Some(ShapeHit { entity: self.admit(hit.id, filter)?, hit })));
        Ok(())
    }

    /// Appends the entities whose colliders overlap `shape` at `pose` (touching counts), in
    /// collider id order (see [`sapwood::World::query_shape`]).
    ///
    /// # Errors
    /// As [`sapwood::World::query_shape`]; `out` is unchanged then.
    pub fn shape_overlaps(
        &self,
        shape: &Shape,
        pose: &Pose,
        filter: &SpatialFilter,
        out: &mut Vec<Entity>,
    ) -> Result<(), QueryError> {
        self.collect(out, filter, |world, base, ids| world.query_shape(shape, pose, base, ids))
    }

    /// Appends the entities whose colliders contain `point`, in collider id order (see
    /// [`sapwood::World::query_point`]).
    ///
    /// # Errors
    /// As [`sapwood::World::query_point`]; `out` is unchanged then.
    pub fn point_overlaps(&self, point: Vec2, filter: &SpatialFilter, out: &mut Vec<Entity>) -> Result<(), QueryError> {
        self.collect(out, filter, |world, base, ids| world.query_point(point, base, ids))
    }

    /// Appends the entities whose colliders' tight boxes overlap `aabb`, in collider id order
    /// (see [`sapwood::World::query_aabb`]).
    ///
    /// # Errors
    /// As [`sapwood::World::query_aabb`]; `out` is unchanged then.
    pub fn aabb_overlaps(&self, aabb: &Aabb, filter: &SpatialFilter, out: &mut Vec<Entity>) -> Result<(), QueryError> {
        self.collect(out, filter, |world, base, ids| world.query_aabb(aabb, base, ids))
    }

    /// Runs an id-listing query into the scratch and appends the admitted entities to `out`.
    fn collect(
        &self,
        out: &mut Vec<Entity>,
        filter: &SpatialFilter,
        query: impl FnOnce(&sapwood::World, &QueryFilter, &mut Vec<ColliderId>) -> Result<(), QueryError>,
    ) -> Result<(), QueryError> {
        let mut scratch = self.scratch.borrow_mut();
        scratch.ids.clear();
        query(&self.sapwood.world, &self.base(filter), &mut scratch.ids)?;
        out.extend(scratch.ids.iter().filter_map(|&id| self.admit(id, filter)));
        Ok(())
    }

    /// The entity nearest to `shape` at `pose` within `max_distance` (ties to the smaller
    /// collider id), with the closest points (see [`sapwood::World::distance_to_nearest`]).
    ///
    /// # Errors
    /// As [`sapwood::World::distance_to_nearest`].
    pub fn nearest(
        &self,
        shape: &Shape,
        pose: &Pose,
        max_distance: f32,
        filter: &SpatialFilter,
    ) -> Result<Option<Nearest>, QueryError> {
        let world = &self.sapwood.world;
        let base = self.base(filter);
        let found = world.distance_to_nearest(shape, pose, max_distance, &base)?;
        self.nearest_admitted(found, filter, shape.aabb(pose), max_distance, |id| {
            let d = sapwood::query::distance(shape, pose, world.shape(id).ok()?, &world.pose(id).ok()?).ok()?;
            Some(WorldClosestPoints {
                id,
                part: d.part_b,
                distance: d.distance,
                point: d.point_b,
                probe_point: d.point_a,
                normal: d.normal,
            })
        })
    }

    /// The entity nearest to `point` within `max_distance` (see
    /// [`sapwood::World::distance_to_nearest_point`]).
    ///
    /// # Errors
    /// As [`sapwood::World::distance_to_nearest_point`].
    pub fn nearest_to_point(
        &self,
        point: Vec2,
        max_distance: f32,
        filter: &SpatialFilter,
    ) -> Result<Option<Nearest>, QueryError> {
        let world = &self.sapwood.world;
        let found = world.distance_to_nearest_point(point, max_distance, &self.base(filter))?;
        // The world measures a point as a circle of radius 0 (exact to GJK); the same here.
        let probe = Shape::Circle(Circle { radius: 0.0 });
        let at = Pose::from_translation(point);
        self.nearest_admitted(found, filter, Aabb::new(point, point), max_distance, |id| {
            let d = sapwood::query::distance(&probe, &at, world.shape(id).ok()?, &world.pose(id).ok()?).ok()?;
            Some(WorldClosestPoints {
                id,
                part: d.part_b,
                distance: d.distance,
                point: if d.distance == 0.0 { point } else { d.point_b },
                probe_point: point,
                normal: d.normal,
            })
        })
    }

    /// The world's nearest answer when its entity is admitted; otherwise the nearest admitted
    /// candidate within `max_distance` of `bounds`, each measured by `measure`.
    fn nearest_admitted(
        &self,
        found: Option<WorldClosestPoints>,
        filter: &SpatialFilter,
        bounds: Aabb,
        max_distance: f32,
        measure: impl Fn(ColliderId) -> Option<WorldClosestPoints>,
    ) -> Result<Option<Nearest>, QueryError> {
        let Some(found) = found else { return Ok(None) };
        if let Some(entity) = self.admit(found.id, filter) {
            return Ok(Some(Nearest { entity, hit: found }));
        }
        // The nearest is excluded: the answer lies between its distance and the bound.
        let mut scratch = self.scratch.borrow_mut();
        scratch.ids.clear();
        let reach = Vec2::splat(max_distance);
        let area = Aabb { min: bounds.min - reach, max: bounds.max + reach };
        self.sapwood.world.query_aabb(&area, &self.base(filter), &mut scratch.ids)?;
        let mut best: Option<Nearest> = None;
        for &id in &scratch.ids {
            let Some(entity) = self.admit(id, filter) else { continue };
            let Some(hit) = measure(id).filter(|h| h.distance <= max_distance) else { continue };
            if best.is_none_or(|b| (hit.distance, hit.id) < (b.hit.distance, b.hit.id)) {
                best = Some(Nearest { entity, hit });
            }
        }
        Ok(best)
    }

    /// Moves `shape` from `pose` by `translation`, sliding along what it meets (see
    /// [`sapwood::World::move_character`]); `config.filter` is replaced by `filter`. `hits` is
    /// cleared, then receives every surface touched, by entity.
    ///
    /// # Errors
    /// As [`sapwood::World::move_character`]; `hits` is unchanged then.
    pub fn move_character(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        config: &CharacterConfig,
        filter: &SpatialFilter,
        hits: &mut Vec<CharacterContact>,
    ) -> Result<CharacterOutcome, QueryError> {
        let config = CharacterConfig { filter: self.base(filter), ..*config };
        let mut scratch = self.scratch.borrow_mut();
        let motion =
            self.sapwood.world.move_character_with(shape, pose, translation, &config, &mut scratch.hits, |id, _| {
                self.admit(id, filter).is_some()
            })?;
        hits.clear();
        hits.extend(
            scratch.hits.iter().filter_map(|&hit| Some(CharacterContact { entity: self.admit(hit.id, filter)?, hit })),
        );
        let ground = motion.ground.and_then(|g| self.admit(g.id, filter));
        Ok(CharacterOutcome { motion, ground })
    }
}
