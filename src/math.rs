//! Plain-old-data geometry: [`Aabb`], [`Rot`], [`Pose`] and [`Ray`].
//!
//! Every type here is `#[repr(C)]` and [`bytemuck::Pod`], so columns of them can be exported or
//! snapshotted as bytes without a copy.
//!
//! # Touching convention
//! sapwood treats **touching as overlapping**, everywhere: two boxes whose edges coincide overlap
//! (`a.min.x <= b.max.x`, inclusive), and two shapes at distance exactly zero are in contact with
//! depth `0.0`. Every broad phase and every narrow-phase kernel follows this rule, so the pair sets
//! of all broad phases are exactly the pair set of brute force.
//!
//! # Precision
//! All arithmetic is `f32`. Results are guaranteed to the tolerances of the tests (depth within
//! 1e-4 of the shapes' size) for coordinates within ±1e5 and shape sizes between 1e-3 and 1e4.
//! Beyond that range f32 spacing (6e-3 at 1e5, 0.06 at 1e6) dominates; colliders still work but
//! contact depths are only as accurate as the coordinates themselves.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

/// An axis-aligned bounding box given by its corners. `min <= max` componentwise for a valid box.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb {
    /// Lower-left corner.
    pub min: Vec2,
    /// Upper-right corner.
    pub max: Vec2,
}

impl Aabb {
    /// An inverted box that is the identity for [`Aabb::union`].
    pub const EMPTY: Aabb = Aabb { min: Vec2::splat(f32::INFINITY), max: Vec2::splat(f32::NEG_INFINITY) };

    /// A box from its corners.
    #[inline]
    #[must_use]
    pub const fn new(min: Vec2, max: Vec2) -> Self {
        Self { min, max }
    }

    /// The box centred on `center` with the given half-extents.
    #[inline]
    #[must_use]
    pub fn from_center_half_extents(center: Vec2, half: Vec2) -> Self {
        Self { min: center - half, max: center + half }
    }

    /// The smallest box holding both points.
    #[inline]
    #[must_use]
    pub fn from_points(a: Vec2, b: Vec2) -> Self {
        Self { min: a.min(b), max: a.max(b) }
    }

    /// Whether the boxes overlap or touch (inclusive, see the module's touching convention).
    #[inline]
    #[must_use]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        // `&`, not `&&`: four compares and one branch instead of four branches, each of them
        // unpredictable in the broad phases' candidate tests.
        (self.min.x <= other.max.x)
            & (other.min.x <= self.max.x)
            & (self.min.y <= other.max.y)
            & (other.min.y <= self.max.y)
    }

    /// Whether `other` lies entirely inside `self` (boundaries included).
    #[inline]
    #[must_use]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.x <= other.min.x && self.min.y <= other.min.y && other.max.x <= self.max.x && other.max.y <= self.max.y
    }

    /// Whether the point lies inside or on the boundary.
    #[inline]
    #[must_use]
    pub fn contains_point(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// The smallest box holding both boxes.
    #[inline]
    #[must_use]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The box grown by `margin` on every side.
    #[inline]
    #[must_use]
    pub fn fattened(&self, margin: f32) -> Aabb {
        Aabb { min: self.min - Vec2::splat(margin), max: self.max + Vec2::splat(margin) }
    }

    /// The box grown by the rounding error of tests on the shape inside it: a relative 1e-5 of
    /// its size plus 1e-6 of its largest coordinate magnitude. An exact shape test computed in
    /// the shape's own frame (a ray cast, a point test) rounds differently from a test against
    /// the box in world coordinates, and can accept a query that misses the box by that much.
    /// The distance between two boxes (0 when they overlap or touch): a lower bound on the
    /// distance between any shapes inside them.
    #[inline]
    #[must_use]
    pub(crate) fn distance(&self, other: &Aabb) -> f32 {
        (self.min - other.max).max(other.min - self.max).max(Vec2::ZERO).length()
    }

    #[inline]
    #[must_use]
    pub(crate) fn with_rounding_slack(&self) -> Aabb {
        let magnitude = self.min.abs().max(self.max.abs()).max_element();
        self.fattened(1e-5 * (self.max - self.min).max_element() + 1e-6 * magnitude)
    }

    /// Perimeter, the 2D surface-area-heuristic cost of a box.
    #[inline]
    #[must_use]
    pub fn perimeter(&self) -> f32 {
        let d = self.max - self.min;
        2.0 * (d.x + d.y)
    }

    /// Area (zero for degenerate boxes).
    #[inline]
    #[must_use]
    pub fn area(&self) -> f32 {
        let d = (self.max - self.min).max(Vec2::ZERO);
        d.x * d.y
    }

    /// Centre point.
    #[inline]
    #[must_use]
    pub fn center(&self) -> Vec2 {
        0.5 * (self.min + self.max)
    }

    /// Half-extents.
    #[inline]
    #[must_use]
    pub fn half_extents(&self) -> Vec2 {
        0.5 * (self.max - self.min)
    }

    /// Whether both corners are finite and `min <= max`.
    #[inline]
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min.x <= self.max.x && self.min.y <= self.max.y
    }

    /// Slab test: the entry distance along `ray` in `[0, max_t]`, or `None` when the ray misses.
    /// A ray starting inside the box hits at `0`.
    #[inline]
    #[must_use]
    pub fn ray_cast(&self, ray: &Ray, max_t: f32) -> Option<f32> {
        self.slab_cast(ray.origin, ray.dir, Vec2::new(1.0 / ray.dir.x, 1.0 / ray.dir.y), max_t)
    }

    /// [`Aabb::ray_cast`] with the reciprocal direction `inv = 1 / dir` (per axis) given, so that
    /// a traversal computes it once per ray. One arithmetic for both keeps a tree's pruning by
    /// node boxes consistent with a brute-force `ray_cast` over the leaves: a box containing
    /// another is entered no later.
    #[inline]
    pub(crate) fn slab_cast(&self, origin: Vec2, dir: Vec2, inv: Vec2, max_t: f32) -> Option<f32> {
        let mut t0 = 0.0f32;
        let mut t1 = max_t;
        for axis in 0..2 {
            let o = origin[axis];
            let (lo, hi) = (self.min[axis], self.max[axis]);
            if dir[axis] == 0.0 {
                if o < lo || o > hi {
                    return None;
                }
            } else {
                let inv = inv[axis];
                let (mut a, mut b) = ((lo - o) * inv, (hi - o) * inv);
                if a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                t0 = t0.max(a);
                t1 = t1.min(b);
                if t0 > t1 {
                    return None;
                }
            }
        }
        Some(t0)
    }
}

/// A rotation stored as its cosine and sine, so that rotating a vector costs four multiplies.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rot {
    /// Cosine of the angle.
    pub c: f32,
    /// Sine of the angle.
    pub s: f32,
}

impl Default for Rot {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Rot {
    /// No rotation.
    pub const IDENTITY: Rot = Rot { c: 1.0, s: 0.0 };

    /// The rotation by `angle` radians, counter-clockwise.
    #[inline]
    #[must_use]
    pub fn from_angle(angle: f32) -> Self {
        // sapwood's own sine and cosine: the same bits on every platform.
        let (s, c) = crate::trig::sin_cos(angle);
        Self { c, s }
    }

    /// The angle in radians, in `(-pi, pi]`.
    #[inline]
    #[must_use]
    pub fn angle(&self) -> f32 {
        crate::trig::atan2(self.s, self.c)
    }

    /// Whether this is exactly the identity (the shape's axes are the world's axes).
    #[inline]
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.c == 1.0 && self.s == 0.0
    }

    /// Rotates a vector.
    #[inline]
    #[must_use]
    pub fn rotate(&self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    /// Rotates a vector by the inverse rotation.
    #[inline]
    #[must_use]
    pub fn inv_rotate(&self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }

    /// `self * other`: first `other`, then `self`.
    #[inline]
    #[must_use]
    pub fn mul(&self, other: &Rot) -> Rot {
        Rot { c: self.c * other.c - self.s * other.s, s: self.s * other.c + self.c * other.s }
    }

    /// `self^-1 * other`: `other` expressed relative to `self`.
    #[inline]
    #[must_use]
    pub fn inv_mul(&self, other: &Rot) -> Rot {
        Rot { c: self.c * other.c + self.s * other.s, s: self.c * other.s - self.s * other.c }
    }

    /// The inverse rotation.
    #[inline]
    #[must_use]
    pub fn inverse(&self) -> Rot {
        Rot { c: self.c, s: -self.s }
    }

    /// The same rotation with `(c, s)` rescaled to unit length, undoing drift from composition.
    #[inline]
    #[must_use]
    pub fn normalized(&self) -> Rot {
        let len = (self.c * self.c + self.s * self.s).sqrt();
        if len > 0.0 { Rot { c: self.c / len, s: self.s / len } } else { Rot::IDENTITY }
    }

    /// Whether both components are finite and `(c, s)` has unit length within 1e-4: what the
    /// world and the queries accept. They compute with it rescaled to unit length (the world's
    /// [`pose`](crate::World::pose) gives it back so), so the drift of composed rotations is
    /// harmless.
    #[inline]
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.valid_unit().is_some()
    }

    /// The rotation the world keeps and the queries compute with, if it is valid
    /// ([`Rot::is_valid`], in one test of the length): one more than 1e-6 from unit length (in
    /// `c² + s²`) rescaled to it, any other left bit for bit as it is. A rotation 1e-4 off
    /// would otherwise scale every offset it rotates by up to 5e-5, far above the answers'
    /// tolerance at large distances. `None` for an invalid rotation.
    ///
    /// ```
    /// use sapwood::Rot;
    /// let drifted = Rot { c: 0.99998, s: 0.0 };
    /// assert_eq!(drifted.valid_unit(), Some(Rot::IDENTITY));
    /// assert_eq!(Rot::from_angle(0.3).valid_unit(), Some(Rot::from_angle(0.3)));
    /// assert_eq!(Rot { c: 2.0, s: 0.0 }.valid_unit(), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn valid_unit(&self) -> Option<Rot> {
        let off = ((self.c * self.c + self.s * self.s) - 1.0).abs();
        if off <= 1e-6 {
            Some(*self)
        } else if off < 1e-4 {
            Some(self.normalized())
        } else {
            None
        }
    }

    /// The rotated x axis (first column of the matrix).
    #[inline]
    #[must_use]
    pub fn x_axis(&self) -> Vec2 {
        Vec2::new(self.c, self.s)
    }

    /// The rotated y axis (second column of the matrix).
    #[inline]
    #[must_use]
    pub fn y_axis(&self) -> Vec2 {
        Vec2::new(-self.s, self.c)
    }
}

/// A rigid transform: rotate by `q`, then translate by `p`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pose {
    /// Translation.
    pub p: Vec2,
    /// Rotation.
    pub q: Rot,
}

impl Pose {
    /// No translation, no rotation.
    pub const IDENTITY: Pose = Pose { p: Vec2::ZERO, q: Rot::IDENTITY };

    /// A pose from a translation and an angle in radians.
    #[inline]
    #[must_use]
    pub fn new(p: Vec2, angle: f32) -> Self {
        Self { p, q: Rot::from_angle(angle) }
    }

    /// A pure translation.
    #[inline]
    #[must_use]
    pub fn from_translation(p: Vec2) -> Self {
        Self { p, q: Rot::IDENTITY }
    }

    /// Maps a local point to the parent frame.
    #[inline]
    #[must_use]
    pub fn transform_point(&self, v: Vec2) -> Vec2 {
        self.q.rotate(v) + self.p
    }

    /// Maps a local direction to the parent frame (rotation only).
    #[inline]
    #[must_use]
    pub fn transform_vector(&self, v: Vec2) -> Vec2 {
        self.q.rotate(v)
    }

    /// Maps a parent-frame point into this pose's local frame.
    #[inline]
    #[must_use]
    pub fn inv_transform_point(&self, v: Vec2) -> Vec2 {
        self.q.inv_rotate(v - self.p)
    }

    /// Maps a parent-frame direction into this pose's local frame.
    #[inline]
    #[must_use]
    pub fn inv_transform_vector(&self, v: Vec2) -> Vec2 {
        self.q.inv_rotate(v)
    }

    /// `self * other`: apply `other`, then `self`.
    #[inline]
    #[must_use]
    pub fn mul(&self, other: &Pose) -> Pose {
        Pose { p: self.transform_point(other.p), q: self.q.mul(&other.q) }
    }

    /// `self^-1 * other`: `other` expressed in this pose's frame. Narrow-phase kernels receive B's
    /// pose this way, relative to A.
    #[inline]
    #[must_use]
    pub fn inv_mul(&self, other: &Pose) -> Pose {
        Pose { p: self.q.inv_rotate(other.p - self.p), q: self.q.inv_mul(&other.q) }
    }

    /// The inverse transform.
    #[inline]
    #[must_use]
    pub fn inverse(&self) -> Pose {
        let q = self.q.inverse();
        Pose { p: -q.rotate(self.p), q }
    }

    /// Whether the translation is finite and the rotation is a finite unit rotation.
    #[inline]
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.valid_unit().is_some()
    }

    /// The pose the world keeps (and [`World::pose`](crate::World::pose) gives back) and the
    /// queries compute with, if it is valid: its rotation as [`Rot::valid_unit`] leaves it.
    #[inline]
    #[must_use]
    pub fn valid_unit(&self) -> Option<Pose> {
        let q = self.q.valid_unit()?;
        self.p.is_finite().then_some(Pose { p: self.p, q })
    }
}

/// A ray: `origin + t * dir` for `t >= 0`. `dir` need not be unit length; distances reported by
/// ray casts are in units of `t`, so with a unit `dir` they are true distances.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ray {
    /// Start point.
    pub origin: Vec2,
    /// Direction.
    pub dir: Vec2,
}

impl Ray {
    /// A ray from its origin and direction.
    #[inline]
    #[must_use]
    pub const fn new(origin: Vec2, dir: Vec2) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`.
    #[inline]
    #[must_use]
    pub fn at(&self, t: f32) -> Vec2 {
        self.origin + t * self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_inverse_and_composition_round_trip() {
        let a = Pose::new(Vec2::new(3.0, -2.0), 0.7);
        let b = Pose::new(Vec2::new(-1.0, 5.0), -2.1);
        let p = Vec2::new(0.25, 1.5);
        let ab = a.mul(&b);
        assert!((ab.transform_point(p) - a.transform_point(b.transform_point(p))).length() < 1e-5);
        let rel = a.inv_mul(&b);
        assert!((a.mul(&rel).transform_point(p) - b.transform_point(p)).length() < 1e-5);
        let inv = a.inverse();
        assert!((inv.transform_point(a.transform_point(p)) - p).length() < 1e-5);
        assert!((a.inv_transform_point(a.transform_point(p)) - p).length() < 1e-5);
        assert!((Rot::from_angle(0.7).angle() - 0.7).abs() < 1e-6);
    }

    #[test]
    fn aabb_touching_counts_as_overlap() {
        let a = Aabb::new(Vec2::ZERO, Vec2::ONE);
        let b = Aabb::new(Vec2::new(1.0, 0.5), Vec2::new(2.0, 2.0));
        let c = Aabb::new(Vec2::new(1.0 + 1e-6, 0.5), Vec2::new(2.0, 2.0));
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c) && !c.overlaps(&a));
    }

    #[test]
    fn aabb_ray_cast_hits_and_misses() {
        let b = Aabb::new(Vec2::new(1.0, -1.0), Vec2::new(2.0, 1.0));
        let r = Ray::new(Vec2::ZERO, Vec2::X);
        assert_eq!(b.ray_cast(&r, 10.0), Some(1.0));
        assert_eq!(b.ray_cast(&r, 0.5), None);
        assert_eq!(b.ray_cast(&Ray::new(Vec2::ZERO, -Vec2::X), 10.0), None);
        assert_eq!(b.ray_cast(&Ray::new(Vec2::new(1.5, 0.0), Vec2::Y), 10.0), Some(0.0));
    }
}
