//! The narrow phase: contact manifolds and boolean overlap tests for every pair of shape kinds.
//!
//! Each pair kernel lives in its own file named for the pair and works in **A's local frame**:
//! it receives B's pose relative to A (`xf = pose_a^-1 * pose_b`) and returns a manifold whose
//! normal and points are in A's frame. [`contact`] and [`overlaps`] choose the kernel from one
//! dispatch table (Box2D's `s_registers`): the table stores one order of each pair of kinds, and
//! the other order is the same call with A and B swapped and the manifold flipped.
//!
//! # Conventions
//! - The normal is a unit vector pointing **from A to B**.
//! - `depth > 0` is penetration; **touching (distance exactly 0) is a contact of depth 0**, the
//!   same inclusive rule as [`Aabb::overlaps`](crate::Aabb::overlaps). A manifold with
//!   `count == 0` means the shapes are separated.
//! - A contact point is the midpoint between the two surfaces along the normal, in world space
//!   for [`contact`] (A's frame inside kernels).
//! - Feature ids ([`feature_id`]) name the features of A (high 16 bits) and B (low 16 bits) that
//!   made a point: vertex `i` is `i`, edge `i` (from vertex `i` to `i + 1`) is `EDGE | i`. A
//!   face contact between polygons, boxes or capsules (the clipped edge pair) names each point
//!   by the two vertices at its end of the contact interval, one of each shape, whether or not
//!   clipping moved the point: that pair does not change when two corners coincide (equal boxes
//!   stacked in a column) or when the reference face passes from one shape to the other. Ids
//!   are stable while the same features touch, so a solver can key warm-start data on them.
//! - Every kernel returns zero impulses ([`ManifoldPoint::normal_impulse`],
//!   [`ManifoldPoint::tangent_impulse`]): they are the solver's, which the world carries from
//!   step to step by feature id ([`Manifold::carry_impulses`]).
//! - Swapping A and B gives the same points and depths, the opposite normal and feature ids with
//!   their halves swapped. Same-kind pairs are put into a canonical order first, so the identity
//!   holds bit for bit (the one exception: A and B bit-identical, where no order exists).
//!
//! # Compounds
//! A [`Compound`](crate::Compound) is tested part by part (a convex shape is a compound of one
//! part, part 0). [`contact_parts`] reports one manifold per touching part pair. [`contact`]
//! returns the **merge rule**: the manifold of the deepest part pair (largest
//! [`Manifold::max_depth`]); on equal depth, the first pair in (part of A, part of B) order,
//! taken in the canonical order of the pair so that swapping A and B picks the same pair. Its
//! feature ids carry the part indices in bits 9..16 of each side's 16-bit half (part `i` adds
//! `i << 9`), which keeps them unique and stable per part pair; that is what limits a compound
//! to [`MAX_COMPOUND_PARTS`](crate::MAX_COMPOUND_PARTS) = 128 parts. [`overlaps`] stops at the
//! first overlapping part pair.
//!
//! # Chains
//! A [`Chain`](crate::Chain)'s parts are its segments (part `i` runs from vertex `i` to
//! `i + 1`); its BVH picks the segments near the other shape (or near each part of a
//! compound). Each segment collides using its neighbouring vertices, so that a shape sliding
//! along a chain never receives a normal from an internal seam: at flat and concave joins a
//! normal leaning towards the vertex is replaced by the segment's face normal, at convex joins
//! the rounded region between the two faces is shared out at the neighbour's face normal.
//! A one-sided chain gives no contact to a shape whose centre is behind a segment; a two-sided
//! one faces each segment towards the side the shape's core is on (by the closest features
//! when they are apart, else by the side of the chain the shape's centre is on). The chain's half of a feature id is the
//! segment index (low 14 bits) shifted left by 2 plus 0 (start vertex), 1 (end vertex) or
//! 2 (face); the other half carries its part tag as with compounds. Two chains never touch.
//! The merge rule and [`contact_parts`] work as for compounds, segment indices in the place of
//! part indices.

mod capsule_capsule;
mod capsule_polygon;
mod capsule_segment;
mod chain;
mod chain_segment;
mod circle_capsule;
mod circle_circle;
mod circle_cuboid;
mod circle_polygon;
mod circle_segment;
mod clip;
mod compound;
mod cuboid_cuboid;
pub(crate) mod cuboid_lanes;
mod polygon_polygon;
pub(crate) mod reuse;
mod segment_cuboid;
mod segment_polygon;
mod segment_segment;
#[cfg(test)]
pub(crate) mod test_util;
pub(crate) mod welded;

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use crate::math::Pose;
use crate::query::{QueryError, check_pose};
use crate::shape::{Shape, ShapeKind};
use reuse::Witness;

/// Marks an edge in a feature number (vertex `i` is plain `i`).
pub const EDGE: u16 = 0x100;

/// Packs the features of A and B that produced a contact point into one id.
#[inline]
#[must_use]
pub const fn feature_id(feature_a: u16, feature_b: u16) -> u32 {
    ((feature_a as u32) << 16) | feature_b as u32
}

/// One contact point.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPoint {
    /// Midpoint between the two surfaces.
    pub point: Vec2,
    /// Penetration depth along the normal; `0.0` when exactly touching.
    pub depth: f32,
    /// Which features touch, see [`feature_id`].
    pub id: u32,
    /// The solver's accumulated impulse along the normal at this point, kept for warm starting
    /// (Box2D's `b2ManifoldPoint::normalImpulse`). Sapwood never computes with it: the kernels
    /// give 0, a solver stores its value ([`World::store_impulses`](crate::World::store_impulses)),
    /// and the world's step hands it to the next manifold's point with the same [`id`](Self::id).
    pub normal_impulse: f32,
    /// The same for the friction impulse along the tangent (`normal.perp()` is the usual choice;
    /// which one is the solver's convention).
    pub tangent_impulse: f32,
}

/// A contact manifold: up to two points sharing one normal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Manifold {
    /// Unit normal from A to B.
    pub normal: Vec2,
    /// The contact points; only the first `count` are meaningful.
    pub points: [ManifoldPoint; 2],
    /// Number of points, 0 (separated), 1 or 2.
    pub count: u32,
}

impl Manifold {
    /// The empty manifold: no contact.
    pub const EMPTY: Manifold = Manifold {
        normal: Vec2::ZERO,
        points: [ManifoldPoint { point: Vec2::ZERO, depth: 0.0, id: 0, normal_impulse: 0.0, tangent_impulse: 0.0 }; 2],
        count: 0,
    };

    /// A one-point manifold. A negative depth, which rounding can give for shapes that exactly
    /// touch, is reported as 0.
    #[inline]
    pub(crate) fn one_point(normal: Vec2, point: Vec2, depth: f32, id: u32) -> Manifold {
        let first = ManifoldPoint { point, depth: depth.max(0.0), id, ..ManifoldPoint::default() };
        Manifold { normal, points: [first, ManifoldPoint::default()], count: 1 }
    }

    /// The meaningful points.
    #[inline]
    #[must_use]
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.count as usize]
    }

    /// Whether the shapes touch or overlap.
    #[inline]
    #[must_use]
    pub fn is_touching(&self) -> bool {
        self.count > 0
    }

    /// The deepest penetration among the points (`None` when separated).
    #[must_use]
    pub fn max_depth(&self) -> Option<f32> {
        self.points().iter().map(|p| p.depth).reduce(f32::max)
    }

    /// Gives each point the impulses of the point of `old` with the same feature id, and zero
    /// impulses to the points that have none there (and to the unused ones): what the world's
    /// step does when it recomputes a touching pair's manifold, for a caller that keeps its own
    /// manifolds from [`contact`]. Box2D's `b2UpdateContact` matches points the same way.
    ///
    /// At most four id compares: a feature pair that touched in the last manifold and still
    /// touches keeps its impulse, whatever the order of the points; a new one starts at rest.
    ///
    /// ```
    /// use sapwood::collide::{self, Manifold};
    /// use sapwood::{Pose, Shape, Vec2};
    /// let (ground, crate_) = (Shape::cuboid(Vec2::new(5.0, 0.5))?, Shape::cuboid(Vec2::new(0.5, 0.5))?);
    /// let mut old = collide::contact(&ground, &Pose::IDENTITY, &crate_, &Pose::from_translation(Vec2::new(0.0, 0.99)))?;
    /// old.points[0].normal_impulse = 2.5; // what a solver found
    /// let mut new = collide::contact(&ground, &Pose::IDENTITY, &crate_, &Pose::from_translation(Vec2::new(0.01, 0.99)))?;
    /// assert_eq!(new.points[0].normal_impulse, 0.0); // kernels give zero impulses
    /// new.carry_impulses(&old);
    /// let carried = new.points().iter().find(|p| p.id == old.points[0].id).unwrap();
    /// assert_eq!(carried.normal_impulse, 2.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn carry_impulses(&mut self, old: &Manifold) {
        let (count, old) = (self.count as usize, &old.points[..(old.count as usize).min(2)]);
        for (k, p) in self.points.iter_mut().enumerate() {
            let found = if k < count { old.iter().find(|q| q.id == p.id) } else { None };
            (p.normal_impulse, p.tangent_impulse) = found.map_or((0.0, 0.0), |q| (q.normal_impulse, q.tangent_impulse));
        }
    }

    /// The same manifold seen from B: normal reversed, feature-id halves swapped.
    #[inline]
    #[must_use]
    pub fn flipped(&self) -> Manifold {
        let mut m = *self;
        m.flip();
        m
    }

    /// The manifold moved from a local frame to its parent by `pose`.
    #[inline]
    #[must_use]
    pub fn transformed(&self, pose: &Pose) -> Manifold {
        let mut m = *self;
        m.transform(pose);
        m
    }

    /// [`Manifold::flipped`] in place.
    #[inline]
    pub(crate) fn flip(&mut self) {
        self.normal = -self.normal;
        for p in &mut self.points {
            p.id = p.id.rotate_left(16);
        }
    }

    /// [`Manifold::transformed`] in place.
    #[inline]
    pub(crate) fn transform(&mut self, pose: &Pose) {
        self.normal = pose.transform_vector(self.normal);
        for p in &mut self.points[..self.count as usize] {
            p.point = pose.transform_point(p.point);
        }
    }
}

type ManifoldKernel = fn(&Shape, &Shape, &Pose) -> Manifold;
type OverlapKernel = fn(&Shape, &Shape, &Pose) -> bool;

/// One entry per ordered pair of kinds with `kind(a) <= kind(b)`; the lower triangle is reached
/// by swapping. Each adapter unwraps the two variants it was registered for.
struct Register {
    manifold: ManifoldKernel,
    overlap: OverlapKernel,
}

macro_rules! register {
    ($va:ident, $vb:ident, $manifold:path, $overlap:path) => {
        Register {
            manifold: |a, b, xf| match (a, b) {
                (Shape::$va(a), Shape::$vb(b)) => $manifold(a, b, xf),
                _ => unreachable!("dispatch table entry registered for another pair of kinds"),
            },
            overlap: |a, b, xf| match (a, b) {
                (Shape::$va(a), Shape::$vb(b)) => $overlap(a, b, xf),
                _ => unreachable!("dispatch table entry registered for another pair of kinds"),
            },
        }
    };
}

/// Index `kind(a) * 5 + kind(b)`, only `kind(a) <= kind(b)` filled. Convex kinds only:
/// compounds and chains are split into convex part pairs before the table is consulted.
static REGISTERS: [Option<Register>; ShapeKind::CONVEX_COUNT * ShapeKind::CONVEX_COUNT] = [
    // Circle × …
    Some(register!(Circle, Circle, circle_circle::manifold, circle_circle::overlap)),
    Some(register!(Circle, Capsule, circle_capsule::manifold, circle_capsule::overlap)),
    Some(register!(Circle, Segment, circle_segment::manifold, circle_segment::overlap)),
    Some(register!(Circle, Cuboid, circle_cuboid::manifold, circle_cuboid::overlap)),
    Some(register!(Circle, Polygon, circle_polygon::manifold, circle_polygon::overlap)),
    // Capsule × …
    None,
    Some(register!(Capsule, Capsule, capsule_capsule::manifold, capsule_capsule::overlap)),
    Some(register!(Capsule, Segment, capsule_segment::manifold, capsule_segment::overlap)),
    Some(register!(Capsule, Cuboid, capsule_polygon::manifold_cuboid, capsule_polygon::overlap_cuboid)),
    Some(register!(Capsule, Polygon, capsule_polygon::manifold, capsule_polygon::overlap)),
    // Segment × …
    None,
    None,
    Some(register!(Segment, Segment, segment_segment::manifold, segment_segment::overlap)),
    Some(register!(Segment, Cuboid, segment_cuboid::manifold, segment_cuboid::overlap)),
    Some(register!(Segment, Polygon, segment_polygon::manifold, segment_polygon::overlap)),
    // Cuboid × …
    None,
    None,
    None,
    Some(register!(Cuboid, Cuboid, cuboid_cuboid::manifold, cuboid_cuboid::overlap)),
    Some(register!(Cuboid, Polygon, polygon_polygon::manifold_cuboid, polygon_polygon::overlap_cuboid)),
    // Polygon × …
    None,
    None,
    None,
    None,
    Some(register!(Polygon, Polygon, polygon_polygon::manifold, polygon_polygon::overlap)),
];

/// The kernels of two convex shapes in canonical order (`kind(a) <= kind(b)`).
#[inline]
fn register(sa: &Shape, sb: &Shape) -> &'static Register {
    REGISTERS[sa.kind() as usize * ShapeKind::CONVEX_COUNT + sb.kind() as usize]
        .as_ref()
        .expect("ordered pairs are always registered")
}

/// Whether A should be evaluated as B: a total order on (kind, pose, shape) so that both call
/// orders of a pair reach the kernel with the same arguments.
#[inline]
pub(crate) fn swap_order(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> bool {
    let (ka, kb) = (sa.kind(), sb.kind());
    if ka != kb {
        return ka > kb;
    }
    let pose_a: [f32; 4] = bytemuck::cast(*pa);
    let pose_b: [f32; 4] = bytemuck::cast(*pb);
    for (x, y) in pose_a.iter().zip(&pose_b) {
        match x.total_cmp(y) {
            std::cmp::Ordering::Equal => continue,
            o => return o == std::cmp::Ordering::Greater,
        }
    }
    shape_key(sa) > shape_key(sb)
}

/// A few numbers that tell two shapes of one kind apart, for [`swap_order`].
fn shape_key(s: &Shape) -> [u32; 4] {
    let k = match s {
        Shape::Circle(c) => [c.radius, 0.0, 0.0, 0.0],
        Shape::Capsule(c) => [c.a.x, c.a.y, c.b.x, c.radius + c.b.y],
        Shape::Segment(c) => [c.a.x, c.a.y, c.b.x, c.radius + c.b.y],
        Shape::Cuboid(b) => [b.half_extents.x, b.half_extents.y, 0.0, 0.0],
        Shape::Polygon(p) => [p.vertices[0].x, p.vertices[1].y, p.centroid.x, p.radius + p.count as f32],
        Shape::Compound(c) => {
            let b = c.aabb();
            [b.min.x, b.min.y, b.max.x, b.max.y + c.parts().len() as f32]
        }
        Shape::Chain(c) => c.key(),
    };
    k.map(f32::to_bits)
}

/// The contact manifold between `sa` at `pa` and `sb` at `pb`, in world space, normal from A to B.
///
/// ```
/// use sapwood::{collide, Pose, Shape, Vec2};
/// let a = Shape::circle(1.0)?;
/// let b = Shape::cuboid(Vec2::new(1.0, 1.0))?;
/// let m = collide::contact(&a, &Pose::IDENTITY, &b, &Pose::from_translation(Vec2::new(1.5, 0.0)))?;
/// assert_eq!(m.count, 1);
/// assert!((m.normal - Vec2::X).length() < 1e-6);
/// assert!((m.points[0].depth - 0.5).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`QueryError::NonFinite`] for a pose with a NaN or infinite component or a non-unit
/// rotation. Shapes are not checked again: every constructor validates, and a shape assembled
/// from its public fields is the caller's promise ([`Shape::validate`] checks it).
pub fn contact(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Result<Manifold, QueryError> {
    let (pa, pb) = (&check_pose(pa)?, &check_pose(pb)?);
    Ok(manifold(sa, pa, sb, pb))
}

/// [`contact`] on checked poses. Always inline, for the reason on [`manifold_reusing`]: the
/// narrow phase's pairs without a contact come this way.
#[inline(always)]
pub(crate) fn manifold(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Manifold {
    if swap_order(sa, pa, sb, pb) {
        return contact_ordered(sb, pb, sa, pa).flipped();
    }
    contact_ordered(sa, pa, sb, pb)
}

/// [`manifold`] for the world's narrow phase: a kernel that supports reuse takes its decisions
/// from `w` when they provably still hold and records them otherwise (see [`reuse`]). The result
/// is [`manifold`]'s, bit for bit; only the cost differs.
///
/// Always inline, as the narrow phase's `Welds::contact` and `evaluate` around it: returned
/// out of line, the 60-byte manifold is stored at each level and loaded back in wider pieces
/// than it was stored in, which the store buffer cannot forward, and every resting pair waits
/// for it.
#[inline(always)]
pub(crate) fn manifold_reusing(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose, w: &mut Witness) -> Manifold {
    let swapped = swap_order(sa, pa, sb, pb);
    w.set_order(swapped);
    let (sa, pa, sb, pb) = if swapped { (sb, pb, sa, pa) } else { (sa, pa, sb, pb) };
    let mut m = match (sa, sb) {
        (Shape::Cuboid(a), Shape::Cuboid(b)) => cuboid_cuboid::manifold_reusing(a, b, &pa.inv_mul(pb), w),
        (Shape::Cuboid(a), Shape::Polygon(b)) => polygon_polygon::manifold_cuboid_reusing(a, b, &pa.inv_mul(pb), w),
        (Shape::Polygon(a), Shape::Polygon(b)) => polygon_polygon::manifold_reusing(a, b, &pa.inv_mul(pb), w),
        (Shape::Circle(a), Shape::Polygon(b)) => circle_polygon::manifold_reusing(a, b, &pa.inv_mul(pb), w),
        (Shape::Capsule(a), Shape::Cuboid(b)) => capsule_polygon::manifold_cuboid_reusing(a, b, &pa.inv_mul(pb), w),
        (Shape::Capsule(a), Shape::Polygon(b)) => capsule_polygon::manifold_reusing(a, b, &pa.inv_mul(pb), w),
        (Shape::Segment(a), Shape::Cuboid(b)) => {
            capsule_polygon::manifold_cuboid_reusing(&a.as_capsule(), b, &pa.inv_mul(pb), w)
        }
        (Shape::Segment(a), Shape::Polygon(b)) => {
            capsule_polygon::manifold_reusing(&a.as_capsule(), b, &pa.inv_mul(pb), w)
        }
        _ => {
            w.clear();
            let m = contact_ordered(sa, pa, sb, pb);
            return if swapped { m.flipped() } else { m };
        }
    };
    if m.count == 0 {
        return Manifold::EMPTY;
    }
    // In place: each copy of the 60-byte manifold through a return value is a store and a load
    // that waits for it, on the path of every resting pair.
    m.transform(pa);
    if swapped {
        m.flip();
    }
    m
}

// Always inline: the reuse dispatch calls it too, and out of line the manifold comes back
// through memory on the path of every public `contact` call.
#[inline(always)]
fn contact_ordered(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Manifold {
    if let Shape::Chain(c) = sb {
        return chain::manifold(sa, pa, c, pb);
    }
    if is_compound(sa) || is_compound(sb) {
        return compound::manifold(sa, pa, sb, pb);
    }
    let xf = pa.inv_mul(pb);
    let m = (register(sa, sb).manifold)(sa, sb, &xf);
    if m.count == 0 { Manifold::EMPTY } else { m.transformed(pa) }
}

/// Whether `sa` at `pa` and `sb` at `pb` touch or overlap. Agrees with
/// `contact(..).is_touching()` but is cheaper where a kernel has an early-out test.
///
/// # Errors
/// As [`contact`].
pub fn overlaps(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Result<bool, QueryError> {
    let (pa, pb) = (&check_pose(pa)?, &check_pose(pb)?);
    Ok(touching(sa, pa, sb, pb))
}

/// [`overlaps`] on checked poses.
pub(crate) fn touching(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> bool {
    let (sa, pa, sb, pb) = if swap_order(sa, pa, sb, pb) { (sb, pb, sa, pa) } else { (sa, pa, sb, pb) };
    if let Shape::Chain(c) = sb {
        return chain::overlap(sa, pa, c, pb);
    }
    if is_compound(sa) || is_compound(sb) {
        return compound::overlap(sa, pa, sb, pb);
    }
    (register(sa, sb).overlap)(sa, sb, &pa.inv_mul(pb))
}

#[inline]
fn is_compound(s: &Shape) -> bool {
    matches!(s, Shape::Compound(_))
}

/// Whether the shape has parts of its own (a compound's parts, a chain's segments).
#[inline]
fn has_parts(s: &Shape) -> bool {
    matches!(s, Shape::Compound(_) | Shape::Chain(_))
}

/// [`contact_parts`] for a pair in canonical order.
fn for_each_part_contact(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose, mut f: impl FnMut(u32, u32, &Manifold)) {
    if let Shape::Chain(c) = sb {
        chain::visit(sa, pa, c, pb, |i, j, m| {
            f(i, j, m);
            true
        });
    } else {
        compound::for_each_contact(sa, pa, sb, pb, f);
    }
}

/// Calls `f(part_a, part_b, manifold)` for every touching pair of parts, a convex shape being
/// part 0 of itself and a chain's parts being its segments. Each manifold is in world space with the normal from A to B and carries
/// the part-tagged feature ids of the [module docs](self#compounds): the one [`contact`]
/// returns is one of them, the deepest. The call order is deterministic, otherwise unspecified.
///
/// ```
/// use sapwood::{collide, Pose, Shape, Vec2};
/// // A U opening upwards, and a plank lying across both arms.
/// let u: Vec<Vec2> = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (2.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
///     .iter().map(|&(x, y)| Vec2::new(x, y)).collect();
/// let cup = Shape::concave_polygon(&u, 0.0)?;
/// let plank = Shape::cuboid(Vec2::new(2.0, 0.25))?;
/// let at = Pose::from_translation(Vec2::new(1.5, 2.2));
/// let mut touching = 0;
/// collide::contact_parts(&cup, &Pose::IDENTITY, &plank, &at, |_, part_b, m| {
///     assert_eq!(part_b, 0);
///     assert!((m.max_depth().unwrap() - 0.05).abs() < 1e-5);
///     touching += 1;
/// })?;
/// assert_eq!(touching, 2); // one manifold per arm
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`contact`]; `f` is not called then.
pub fn contact_parts(
    sa: &Shape,
    pa: &Pose,
    sb: &Shape,
    pb: &Pose,
    f: impl FnMut(u32, u32, &Manifold),
) -> Result<(), QueryError> {
    let (pa, pb) = (&check_pose(pa)?, &check_pose(pb)?);
    part_manifolds(sa, pa, sb, pb, f);
    Ok(())
}

/// [`contact_parts`] on checked poses.
pub(crate) fn part_manifolds(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose, mut f: impl FnMut(u32, u32, &Manifold)) {
    if !has_parts(sa) && !has_parts(sb) {
        let m = manifold(sa, pa, sb, pb);
        if m.count > 0 {
            f(0, 0, &m);
        }
    } else if swap_order(sa, pa, sb, pb) {
        for_each_part_contact(sb, pb, sa, pa, |j, i, m| f(i, j, &m.flipped()));
    } else {
        for_each_part_contact(sa, pa, sb, pb, f);
    }
}
