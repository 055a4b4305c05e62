//! Compound shapes: one collider made of several convex parts at local poses.
//!
//! ```text
//!  Compound ──Arc──▶ CompoundData
//!                      parts:      [(Pose, Shape)]  convex parts, no nested compounds
//!                      part_aabbs: [Aabb]           each part's box in the compound's frame
//!                      aabb:       Aabb             their union
//! ```
//! The data is immutable once built, so a clone is one reference-count increment and the world
//! can keep a compound in its shape column like any other shape. The narrow phase culls part
//! pairs by the part boxes with a linear scan: with at most [`MAX_COMPOUND_PARTS`] parts and the
//! other shape's box tested against each part box (a few compares), a tree pays for itself only
//! for compound–compound pairs with many parts on both sides, which the part limit bounds.

use std::sync::Arc;

use super::{MAX_SHAPE_SIZE, Shape, ShapeError};
use crate::math::{Aabb, Pose};

/// The largest number of parts of a [`Compound`] (128). Feature ids keep 16 bits per shape, of
/// which a convex kernel uses 9 (vertex or edge index and the edge flag); the part index goes
/// into the remaining 7 (see [`collide::contact`](crate::collide::contact)).
pub const MAX_COMPOUND_PARTS: usize = 128;

/// Shift of the part index inside a 16-bit feature number: bits 9..16.
pub(crate) const PART_SHIFT: u32 = 9;

/// A part: a convex shape at a pose in the compound's frame.
type Part = (Pose, Shape);

#[derive(Debug, PartialEq)]
struct CompoundData {
    parts: Vec<Part>,
    part_aabbs: Vec<Aabb>,
    aabb: Aabb,
}

/// A shape made of convex parts, each a [`Shape`] of any convex kind at a local [`Pose`].
///
/// Cloning is cheap (a shared, immutable handle). The parts may overlap; the compound is their
/// union. Build one from parts with [`Compound::new`] or from a concave outline with
/// [`Compound::from_concave_polygon`].
///
/// ```
/// use sapwood::{Compound, Pose, Shape, Vec2};
/// // An L: a tall box and a wide one.
/// let l = Compound::new(vec![
///     (Pose::from_translation(Vec2::new(0.0, 1.0)), Shape::cuboid(Vec2::new(0.5, 1.5))?),
///     (Pose::from_translation(Vec2::new(1.5, -0.25)), Shape::cuboid(Vec2::new(1.5, 0.25))?),
/// ])?;
/// assert_eq!(l.parts().len(), 2);
/// assert_eq!(l.aabb().min, Vec2::new(-0.5, -0.5));
/// let shape = Shape::Compound(l);
/// # let _ = shape;
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Compound(Arc<CompoundData>);

impl PartialEq for Compound {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Compound {
    /// A compound of `parts`, each a convex shape at a pose in the compound's frame.
    ///
    /// # Errors
    /// [`ShapeError::EmptyCompound`] for no parts, [`ShapeError::TooManyParts`] beyond
    /// [`MAX_COMPOUND_PARTS`], [`ShapeError::NestedCompound`] when a part is itself a compound
    /// or a chain,
    /// [`ShapeError::InvalidPartPose`] for a non-finite or non-unit part pose (a rotation within
    /// 1e-4 of unit length is accepted and kept rescaled to unit length), the part's own
    /// error when it fails [`Shape::validate`], and [`ShapeError::TooLarge`] when a part reaches
    /// beyond [`MAX_SHAPE_SIZE`] from the compound's origin.
    pub fn new(mut parts: Vec<(Pose, Shape)>) -> Result<Compound, ShapeError> {
        check_parts(&parts)?;
        for (pose, _) in &mut parts {
            *pose = pose.valid_unit().unwrap_or(*pose);
        }
        let part_aabbs: Vec<Aabb> = parts.iter().map(|(p, s)| s.aabb(p)).collect();
        let aabb = part_aabbs.iter().fold(Aabb::EMPTY, |a, b| a.union(b));
        Ok(Compound(Arc::new(CompoundData { parts, part_aabbs, aabb })))
    }

    /// The parts, in the order given.
    #[inline]
    #[must_use]
    pub fn parts(&self) -> &[(Pose, Shape)] {
        &self.0.parts
    }

    /// Each part's tight box in the compound's frame.
    #[inline]
    #[must_use]
    pub fn part_aabbs(&self) -> &[Aabb] {
        &self.0.part_aabbs
    }

    /// The union of the part boxes, in the compound's frame.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        self.0.aabb
    }

    /// The tight box under `pose`: the union of every part's tight box (tighter than the
    /// local box transformed).
    #[must_use]
    pub fn aabb_at(&self, pose: &Pose) -> Aabb {
        self.0.parts.iter().fold(Aabb::EMPTY, |acc, (p, s)| acc.union(&s.aabb(&pose.mul(p))))
    }

    /// Re-checks the parts (the data is immutable, so this only fails for a compound assembled
    /// by a future unchecked path; [`Shape::validate`] calls it for completeness).
    pub(crate) fn validate(&self) -> Result<(), ShapeError> {
        check_parts(&self.0.parts)
    }

    /// The compound scaled about its origin by `factor` (part positions and sizes).
    pub(crate) fn scaled(&self, factor: f32) -> Result<Compound, ShapeError> {
        let parts = self
            .parts()
            .iter()
            .map(|(p, s)| {
                let pos = p.p * factor;
                if !pos.is_finite() {
                    return Err(ShapeError::NonFinite);
                }
                Ok((Pose { p: pos, q: p.q }, s.scaled(factor)?))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Compound::new(parts)
    }

    /// The radius of the smallest origin-centred circle holding every part.
    pub(crate) fn bounding_radius(&self) -> f32 {
        self.parts().iter().map(|(p, s)| p.p.length() + s.bounding_radius()).fold(0.0, f32::max)
    }
}

fn check_parts(parts: &[(Pose, Shape)]) -> Result<(), ShapeError> {
    if parts.is_empty() {
        return Err(ShapeError::EmptyCompound);
    }
    if parts.len() > MAX_COMPOUND_PARTS {
        return Err(ShapeError::TooManyParts);
    }
    for (pose, shape) in parts {
        if matches!(shape, Shape::Compound(_) | Shape::Chain(_)) {
            return Err(ShapeError::NestedCompound);
        }
        if !pose.is_valid() {
            return Err(ShapeError::InvalidPartPose);
        }
        shape.validate()?;
        let b = shape.aabb(pose);
        if b.min.abs().max(b.max.abs()).max_element() > MAX_SHAPE_SIZE {
            return Err(ShapeError::TooLarge);
        }
    }
    Ok(())
}

impl Shape {
    /// The parts as `(local pose, convex shape)`: a compound's parts, or the shape itself at
    /// the identity for a convex shape (part 0). Not for chains, whose parts are segments built
    /// on demand (`Chain::segment_at`); callers handle chains first.
    pub(crate) fn parts_iter(&self) -> impl Iterator<Item = (&Pose, &Shape)> {
        let (single, many): (Option<(&Pose, &Shape)>, &[Part]) = match self {
            Shape::Compound(c) => (None, c.parts()),
            s => (Some((&Pose::IDENTITY, s)), &[]),
        };
        single.into_iter().chain(many.iter().map(|(p, s)| (p, s)))
    }

    /// The number of parts: a compound's part count, a chain's segment count, 1 for a convex
    /// shape.
    #[must_use]
    pub fn part_count(&self) -> usize {
        match self {
            Shape::Compound(c) => c.parts().len(),
            Shape::Chain(c) => c.segment_count(),
            _ => 1,
        }
    }
}
