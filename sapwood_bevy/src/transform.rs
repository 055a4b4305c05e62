//! From Bevy's 3D transforms to sapwood's 2D poses, and why a collider can be refused.

use std::fmt;

use bevy_ecs::entity::Entity;
use bevy_ecs::message::Message;
use bevy_transform::components::GlobalTransform;
use sapwood::{Pose, Rot, ShapeError, Vec2, WorldError};

/// Relative tolerance of the similarity checks: how far the two scale factors may differ, the
/// axes may be from perpendicular and out of the plane, relative to the scale (1e-4 is some
/// thousand times f32's rounding of a composed rotation, and far below a visible skew).
const SIMILARITY_TOLERANCE: f32 = 1e-4;

/// A scale this close to 1 is 1: a rotation matrix's columns are unit long only to rounding, and
/// an entity that merely turns must not have its shape rebuilt every frame.
const UNIT_SCALE_TOLERANCE: f32 = 1e-5;

/// Why an entity with a [`Collider`](crate::Collider) has no collider in the world, or keeps its
/// previous collider state. Logged as a warning once per entity and reason, and written as a
/// [`ColliderRefused`] message at the same time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColliderError {
    /// The global transform has a NaN or infinite component.
    NonFinite,
    /// The global transform scales x and y differently (`scale` is the two factors in the xy
    /// plane). sapwood scales shapes uniformly only: give the entity a uniform scale and put
    /// the stretched shape in the `Collider`.
    NonUniformScale {
        /// The scale along the entity's x and y axes.
        scale: Vec2,
    },
    /// The global transform mirrors the plane (a negative scale on one axis).
    Mirrored,
    /// The global transform turns the entity out of the xy plane (a rotation about x or y).
    OutOfPlane,
    /// The shape could not be scaled by the transform's uniform scale.
    Scale(ShapeError),
    /// The world refused the pose or the shape (out of range, invalid shape, full).
    World(WorldError),
}

impl fmt::Display for ColliderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColliderError::NonFinite => f.write_str("the global transform is NaN or infinite"),
            ColliderError::NonUniformScale { scale } => write!(
                f,
                "the global transform's scale ({}, {}) is not uniform: sapwood scales shapes uniformly only; \
                 use a uniform scale and a stretched shape",
                scale.x, scale.y
            ),
            ColliderError::Mirrored => f.write_str("the global transform mirrors the plane (negative scale)"),
            ColliderError::OutOfPlane => f.write_str("the global transform rotates out of the xy plane"),
            ColliderError::Scale(e) => write!(f, "the shape cannot take the transform's scale: {e}"),
            ColliderError::World(e) => write!(f, "the collision world refused the collider: {e}"),
        }
    }
}

impl std::error::Error for ColliderError {}

/// Written when an entity's collider is refused (see [`ColliderError`]), once per entity and
/// reason: again only after the entity was accepted in between or its reason changed.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct ColliderRefused {
    /// The entity.
    pub entity: Entity,
    /// Why.
    pub error: ColliderError,
}

/// The 2D pose and uniform scale of a global transform: the translation's x and y, the rotation
/// about z, and the scale in the xy plane (exactly 1 when within 1e-5 of it).
///
/// # Errors
/// [`ColliderError::NonFinite`], [`ColliderError::NonUniformScale`], [`ColliderError::Mirrored`]
/// or [`ColliderError::OutOfPlane`] when the transform is not a 2D similarity.
pub fn pose_from_transform(transform: &GlobalTransform) -> Result<(Pose, f32), ColliderError> {
    let affine = transform.affine();
    let (x, y, t) = (affine.matrix3.x_axis, affine.matrix3.y_axis, affine.translation);
    if !(x.is_finite() && y.is_finite() && t.is_finite()) {
        return Err(ColliderError::NonFinite);
    }
    let (sx, sy) = (x.truncate().length(), y.truncate().length());
    let scale = sx.max(sy);
    let tol = SIMILARITY_TOLERANCE * scale;
    if x.z.abs() > tol || y.z.abs() > tol {
        return Err(ColliderError::OutOfPlane);
    }
    if x.x * y.y - x.y * y.x < 0.0 {
        return Err(ColliderError::Mirrored);
    }
    if (sx - sy).abs() > tol || x.truncate().dot(y.truncate()).abs() > tol * scale {
        return Err(ColliderError::NonUniformScale { scale: Vec2::new(sx, sy) });
    }
    let q = Rot { c: x.x / sx, s: x.y / sx }.normalized();
    let scale = if (scale - 1.0).abs() <= UNIT_SCALE_TOLERANCE { 1.0 } else { sx };
    Ok((Pose { p: Vec2::new(t.x, t.y), q }, scale))
}

/// A Bevy vector as a sapwood one (Bevy and sapwood use different versions of glam).
#[must_use]
pub fn to_sapwood(v: bevy_math::Vec2) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// A sapwood vector as a Bevy one.
#[must_use]
pub fn to_bevy(v: Vec2) -> bevy_math::Vec2 {
    bevy_math::Vec2::new(v.x, v.y)
}
