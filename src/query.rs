//! Ray casts and point tests against one shape at a pose.
//!
//! Both work in the shape's local frame: the ray or point is moved in by the inverse pose, the
//! shape is tested where its description is simplest (a circle at the origin, an axis-aligned
//! box), and a hit is moved back out.
//!
//! # Conventions
//! - **The boundary is inside**, as everywhere in sapwood: [`contains_point`] is true for a point
//!   exactly on the surface, and a ray starting on the surface hits at `t = 0`.
//! - A ray starting inside a shape (or on its boundary) hits at `t = 0`, at its origin, with the
//!   normal `-dir / |dir|`: a solid shape has no entry point, and this normal points back along
//!   the ray like a surface the ray has just entered. A zero `dir` gives a zero normal.
//! - `t` is in units of `dir` (see [`Ray`]); hits are reported for `0 <= t <= max_t`.
//! - Rounded polygons are exact: the surface is the core polygon's edges pushed out by the
//!   radius, joined by circular arcs around the vertices.
//! - A [`Compound`](crate::Compound) is the union of its parts: a ray hits the closest part
//!   (on equal `t`, the lowest part index; [`ray_cast_part`] tells which), a point is inside
//!   when it is inside any part ([`containing_part`] tells the first).
//! - A bare [`Segment`](crate::Segment) (radius 0) and a [`Chain`] have no interior: a point is
//!   inside only exactly on the line, and a ray hits the line from either side. A chain's
//!   parts are its segments; a one-sided chain is invisible to a ray starting behind a
//!   segment (that segment only).
//!
//! ```
//! use sapwood::query::{contains_point, ray_cast};
//! use sapwood::{Pose, Ray, Shape, Vec2};
//!
//! let crate_ = Shape::cuboid(Vec2::new(1.0, 0.5))?;
//! let pose = Pose::from_translation(Vec2::new(5.0, 0.0));
//! let hit = ray_cast(&crate_, &pose, &Ray::new(Vec2::ZERO, Vec2::X), 100.0).unwrap();
//! assert_eq!((hit.t, hit.point, hit.normal), (4.0, Vec2::new(4.0, 0.0), Vec2::NEG_X));
//! assert!(contains_point(&crate_, &pose, Vec2::new(6.0, 0.5))); // a corner counts
//! # Ok::<(), sapwood::ShapeError>(())
//! ```

use glam::Vec2;

use crate::math::{Pose, Ray};
use crate::shape::{Capsule, Chain, Polygon, Shape};

/// Where a ray first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Ray parameter of the hit: the point is `ray.origin + t * ray.dir`.
    pub t: f32,
    /// The hit point, world space.
    pub point: Vec2,
    /// Unit outward surface normal at the hit, world space (`-dir` normalized for a ray that
    /// starts inside, see the [module docs](self)).
    pub normal: Vec2,
}

/// The first point where `ray` meets `shape` at `pose`, with `0 <= t <= max_t`, or `None`.
///
/// A ray starting inside or on the boundary hits at `t = 0` with normal `-dir` normalized.
/// Returns `None` for a negative or NaN `max_t`.
#[must_use]
pub fn ray_cast(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Option<RayHit> {
    ray_cast_part(shape, pose, ray, max_t).map(|(_, h)| h)
}

/// [`ray_cast`], with the index of the part hit (0 for a convex shape): the closest part, the
/// lowest index on equal `t`.
///
/// ```
/// use sapwood::query::ray_cast_part;
/// use sapwood::{Pose, Ray, Shape, Vec2};
/// let two = Shape::compound(vec![
///     (Pose::from_translation(Vec2::new(-2.0, 0.0)), Shape::circle(0.5)?),
///     (Pose::from_translation(Vec2::new(2.0, 0.0)), Shape::circle(0.5)?),
/// ])?;
/// let (part, hit) = ray_cast_part(&two, &Pose::IDENTITY, &Ray::new(Vec2::new(5.0, 0.0), Vec2::NEG_X), 10.0).unwrap();
/// assert_eq!((part, hit.t), (1, 2.5));
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[must_use]
pub fn ray_cast_part(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Option<(u32, RayHit)> {
    if let Shape::Chain(c) = shape {
        return chain_cast(c, pose, ray, max_t);
    }
    let Shape::Compound(c) = shape else {
        return ray_cast_convex(shape, pose, ray, max_t).map(|h| (0, h));
    };
    if max_t.is_nan() || max_t < 0.0 {
        return None;
    }
    // Cull parts by their boxes in the compound's frame, grown a little: the local ray is
    // rounded differently from the one each part's exact cast uses.
    let local = Ray::new(pose.inv_transform_point(ray.origin), pose.inv_transform_vector(ray.dir));
    let mut best: Option<(u32, RayHit)> = None;
    for (i, ((lp, part), b)) in c.parts().iter().zip(c.part_aabbs()).enumerate() {
        if b.with_rounding_slack().ray_cast(&local, max_t).is_none() {
            continue;
        }
        if let Some(h) = ray_cast_convex(part, &pose.mul(lp), ray, max_t)
            && best.is_none_or(|(_, b)| h.t < b.t)
        {
            best = Some((i as u32, h));
        }
    }
    best
}

fn ray_cast_convex(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Option<RayHit> {
    if max_t.is_nan() || max_t < 0.0 {
        return None;
    }
    let o = pose.inv_transform_point(ray.origin);
    if contains_local(shape, o) {
        return Some(RayHit { t: 0.0, point: ray.origin, normal: (-ray.dir).normalize_or_zero() });
    }
    let d = pose.inv_transform_vector(ray.dir);
    let (t, n) = match shape {
        Shape::Circle(c) => circle_cast(o, d, c.radius),
        Shape::Capsule(c) => capsule_cast(c, o, d),
        Shape::Segment(s) => capsule_cast(&s.as_capsule(), o, d),
        Shape::Cuboid(b) => box_cast(b.half_extents, o, d),
        Shape::Polygon(p) if p.radius > 0.0 => rounded_polygon_cast(p, o, d),
        Shape::Polygon(p) => polygon_cast(p, o, d, max_t),
        Shape::Compound(_) | Shape::Chain(_) => unreachable!("split into parts by ray_cast_part"),
    }?;
    (t <= max_t).then(|| RayHit { t, point: ray.at(t), normal: pose.transform_vector(n) })
}

/// Whether `point` lies inside `shape` at `pose` or on its boundary.
#[must_use]
pub fn contains_point(shape: &Shape, pose: &Pose, point: Vec2) -> bool {
    containing_part(shape, pose, point).is_some()
}

/// The first part (lowest index; 0 for a convex shape) of `shape` at `pose` that contains
/// `point`, boundary included.
///
/// ```
/// use sapwood::query::containing_part;
/// use sapwood::{Pose, Shape, Vec2};
/// let l = Shape::compound(vec![
///     (Pose::IDENTITY, Shape::cuboid(Vec2::new(0.5, 2.0))?),
///     (Pose::from_translation(Vec2::new(1.5, -1.5)), Shape::cuboid(Vec2::new(1.0, 0.5))?),
/// ])?;
/// assert_eq!(containing_part(&l, &Pose::IDENTITY, Vec2::new(2.0, -1.5)), Some(1));
/// assert_eq!(containing_part(&l, &Pose::IDENTITY, Vec2::new(0.5, -1.5)), Some(0)); // on both: the first
/// assert_eq!(containing_part(&l, &Pose::IDENTITY, Vec2::new(2.0, 1.0)), None);
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[must_use]
pub fn containing_part(shape: &Shape, pose: &Pose, point: Vec2) -> Option<u32> {
    let p = pose.inv_transform_point(point);
    match shape {
        Shape::Compound(c) => {
            c.parts().iter().position(|(lp, part)| contains_local(part, lp.inv_transform_point(p))).map(|i| i as u32)
        }
        Shape::Chain(c) => chain_point(c, p),
        s => contains_local(s, p).then_some(0),
    }
}

/// The closest segment of a chain that the ray hits (the lowest index on equal `t`); the
/// chain's BVH offers the segments whose boxes the ray enters before the best hit so far.
fn chain_cast(c: &Chain, pose: &Pose, ray: &Ray, max_t: f32) -> Option<(u32, RayHit)> {
    if max_t.is_nan() || max_t < 0.0 {
        return None;
    }
    let (o, d) = (pose.inv_transform_point(ray.origin), pose.inv_transform_vector(ray.dir));
    let bound = std::cell::Cell::new(max_t);
    let mut best: Option<(u32, f32, Vec2)> = None;
    let one_sided = c.options().one_sided;
    c.segments_on_ray(&Ray::new(o, d), || bound.get(), |i| {
        let s = c.segment(i as usize);
        let e = s.b - s.a;
        if one_sided && Vec2::new(e.y, -e.x).dot(o - s.a) < 0.0 {
            return;
        }
        let line = Capsule { a: s.a, b: s.b, radius: 0.0 };
        let hit = if contains_local(&Shape::Capsule(line), o) {
            Some((0.0, (-d).normalize_or_zero()))
        } else {
            capsule_cast(&line, o, d)
        };
        if let Some((t, n)) = hit
            && (t < bound.get() || (t == bound.get() && best.is_none()))
        {
            bound.set(t);
            best = Some((i, t, n));
        }
    });
    best.map(|(i, t, n)| (i, RayHit { t, point: ray.at(t), normal: pose.transform_vector(n) }))
}

/// The first chain segment through the local point `p` (exactly on it).
fn chain_point(c: &Chain, p: Vec2) -> Option<u32> {
    let mut found = None;
    c.segments_in(&crate::Aabb::new(p, p), |i| {
        let s = c.segment(i as usize);
        let line = Shape::Capsule(Capsule { a: s.a, b: s.b, radius: 0.0 });
        if contains_local(&line, p) {
            found = Some(i);
        }
        found.is_none()
    });
    found
}

fn contains_local(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Circle(c) => p.length_squared() <= c.radius * c.radius,
        Shape::Capsule(c) => {
            let d = c.b - c.a;
            let dd = d.length_squared();
            let t = if dd > 0.0 { ((p - c.a).dot(d) / dd).clamp(0.0, 1.0) } else { 0.0 };
            (p - c.a - t * d).length_squared() <= c.radius * c.radius
        }
        Shape::Segment(s) => contains_local(&Shape::Capsule(s.as_capsule()), p),
        Shape::Chain(c) => chain_point(c, p).is_some(),
        Shape::Cuboid(b) => p.x.abs() <= b.half_extents.x && p.y.abs() <= b.half_extents.y,
        Shape::Polygon(poly) => within(poly, p, poly.radius),
        Shape::Compound(c) => c.parts().iter().any(|(lp, part)| contains_local(part, lp.inv_transform_point(p))),
    }
}

/// Ray from `o` (outside) against the circle of radius `r` at the origin: `(t, unit normal)`.
fn circle_cast(o: Vec2, d: Vec2, r: f32) -> Option<(f32, Vec2)> {
    let b = o.dot(d);
    if b >= 0.0 {
        // Moving away from (or tangent past) a circle it starts outside of; also a zero `d`.
        return None;
    }
    let a = d.length_squared();
    let c = o.length_squared() - r * r;
    // b² - a·c, computed as a·(r² - |l|²) with l the circle centre's offset from the ray's line:
    // the textbook form cancels catastrophically when the ray starts far from a small circle
    // (|o| = 3.3, r = 0.0056 puts t 2.7e-4 late; tests/narrow_oracle.rs casts such rays).
    let l = o - (b / a) * d;
    let disc = a * (r * r - l.length_squared());
    if disc < 0.0 {
        return None;
    }
    // The near root in the cancellation-free form c / (-b + sqrt(disc)) (both terms positive).
    let t = c / (-b + disc.sqrt());
    let n = (o + t * d).normalize_or(o.normalize_or(Vec2::Y));
    Some((t, n))
}

/// Ray against a capsule: a flat side first, else the two end circles.
///
/// A side hit within the segment's extent is a boundary point where the ray crosses into the
/// capsule, and a convex shape is entered once, so it is the answer. Taking it before (not in a
/// `min` with) the end circles matters near the junction of side and cap: there the circle and
/// the side line agree to second order, so their `t` tie in f32 while their normals do not.
/// Entries through the rectangle's short ends lie inside an end circle, which is hit first.
fn capsule_cast(c: &Capsule, o: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let r = c.radius;
    let e = c.b - c.a;
    let len = e.length();
    if len > 0.0 {
        let u = e / len;
        let n = Vec2::new(u.y, -u.x);
        let rel = o - c.a;
        let (oy, dy) = (n.dot(rel), n.dot(d));
        let side = if oy > r && dy < 0.0 {
            Some(((r - oy) / dy, n))
        } else if oy < -r && dy > 0.0 {
            Some(((-r - oy) / dy, -n))
        } else {
            None
        };
        if let Some((t, n)) = side {
            let x = u.dot(rel) + t * u.dot(d);
            if (0.0..=len).contains(&x) {
                return Some((t, n));
            }
        }
    }
    min_hit(circle_cast(o - c.a, d, r), circle_cast(o - c.b, d, r))
}

/// The box `[-h, h]` by slabs, remembering which slab set the entry.
fn box_cast(h: Vec2, o: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let mut t0 = f32::NEG_INFINITY;
    let mut t1 = f32::INFINITY;
    let mut normal = Vec2::ZERO;
    for axis in 0..2 {
        if d[axis] == 0.0 {
            if o[axis].abs() > h[axis] {
                return None;
            }
            continue;
        }
        let inv = 1.0 / d[axis];
        let (a, b) = ((-h[axis] - o[axis]) * inv, (h[axis] - o[axis]) * inv);
        let (near, far) = if a < b { (a, b) } else { (b, a) };
        if near > t0 {
            t0 = near;
            normal = Vec2::ZERO;
            normal[axis] = if d[axis] > 0.0 { -1.0 } else { 1.0 };
        }
        t1 = t1.min(far);
    }
    // The origin is outside, so a hit enters at t0 >= 0 through a slab that set `normal`.
    (t0 <= t1 && t0 >= 0.0 && normal != Vec2::ZERO).then_some((t0, normal))
}

/// Cyrus–Beck clipping of the ray against the sharp polygon's half-planes.
fn polygon_cast(p: &Polygon, o: Vec2, d: Vec2, max_t: f32) -> Option<(f32, Vec2)> {
    let (mut lower, mut upper) = (0.0f32, max_t);
    let mut entry = None;
    for (v, n) in p.vertices().iter().zip(p.normals()) {
        let num = n.dot(*v - o); // >= 0 when `o` is inside this half-plane
        let den = n.dot(d);
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else if den < 0.0 {
            let t = num / den;
            if t > lower {
                lower = t;
                entry = Some(*n);
            }
        } else {
            upper = upper.min(num / den);
        }
        if lower > upper {
            return None;
        }
    }
    entry.map(|n| (lower, n))
}

/// The rounded polygon: its surface is each edge pushed out by the radius plus an arc of radius
/// `radius` around each vertex. A hit on a pushed-out edge within its extent is a boundary point
/// where the ray crosses in, hence the entry (see [`capsule_cast`] for why it is taken before
/// the arcs); otherwise the entry is the first hit over the full vertex circles, each of which
/// lies inside the shape.
fn rounded_polygon_cast(p: &Polygon, o: Vec2, d: Vec2) -> Option<(f32, Vec2)> {
    let r = p.radius;
    let vs = p.vertices();
    for (i, (v, n)) in vs.iter().zip(p.normals()).enumerate() {
        let (s0, den) = (n.dot(o - *v), n.dot(d));
        if s0 > r && den < 0.0 {
            let t = (r - s0) / den;
            let e = vs[if i + 1 == vs.len() { 0 } else { i + 1 }] - *v;
            let w = (o + t * d - *v).dot(e);
            if w >= 0.0 && w <= e.length_squared() {
                return Some((t, *n));
            }
        }
    }
    vs.iter().fold(None, |best, v| min_hit(best, circle_cast(o - *v, d, r)))
}

/// The edge whose line `p` is farthest outside of, and that signed distance. Ties keep the first
/// edge, so the result is deterministic.
#[inline]
pub(crate) fn max_separation(poly: &Polygon, p: Vec2) -> (usize, f32) {
    let (vs, ns) = (poly.vertices(), poly.normals());
    let mut best = (0, ns[0].dot(p - vs[0]));
    for i in 1..vs.len() {
        let s = ns[i].dot(p - vs[i]);
        if s > best.1 {
            best = (i, s);
        }
    }
    best
}

/// Where a point outside the core polygon lies relative to edge `i` (the edge of maximum
/// separation): before its first vertex, after its second, or beside it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum EdgeRegion {
    /// Closest to vertex `i`.
    Start,
    /// Closest to vertex `i + 1`.
    End,
    /// Closest to the edge's interior: the distance is the separation itself.
    Face,
}

/// See [`EdgeRegion`].
#[inline]
pub(crate) fn edge_region(v1: Vec2, v2: Vec2, p: Vec2) -> EdgeRegion {
    let e = v2 - v1;
    if (p - v1).dot(e) < 0.0 {
        EdgeRegion::Start
    } else if (p - v2).dot(e) > 0.0 {
        EdgeRegion::End
    } else {
        EdgeRegion::Face
    }
}

/// Whether `p` (in the polygon's frame) lies within `r` of the core polygon, boundary included.
/// Shared with the circle–polygon kernel so that its overlap test and this point test make the
/// same decisions.
#[inline]
pub(crate) fn within(poly: &Polygon, p: Vec2, r: f32) -> bool {
    let (i, s) = max_separation(poly, p);
    if s > r {
        return false;
    }
    if s <= 0.0 {
        return true;
    }
    let n = poly.count();
    let (v1, v2) = (poly.vertices[i], poly.vertices[if i + 1 == n { 0 } else { i + 1 }]);
    match edge_region(v1, v2, p) {
        EdgeRegion::Start => (v1 - p).length_squared() <= r * r,
        EdgeRegion::End => (v2 - p).length_squared() <= r * r,
        EdgeRegion::Face => true,
    }
}

#[inline]
fn min_hit(a: Option<(f32, Vec2)>, b: Option<(f32, Vec2)>) -> Option<(f32, Vec2)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parry2d::math::{Pose as PPose, Vector as PVec};
    use parry2d::query::{PointQuery, Ray as PRay, RayCast};
    use parry2d::shape::{Ball, Capsule as PCapsule, ConvexPolygon, Cuboid as PCuboid, RoundShape};

    fn hit(shape: &Shape, pose: &Pose, o: (f32, f32), d: (f32, f32)) -> Option<RayHit> {
        ray_cast(shape, pose, &Ray::new(Vec2::new(o.0, o.1), Vec2::new(d.0, d.1)), 100.0)
    }

    #[test]
    fn circle_known_answers() {
        let s = Shape::circle(1.0).unwrap();
        let pose = Pose::from_translation(Vec2::new(3.0, 0.0));
        let h = hit(&s, &pose, (0.0, 0.0), (1.0, 0.0)).unwrap();
        assert_eq!((h.t, h.point, h.normal), (2.0, Vec2::new(2.0, 0.0), Vec2::NEG_X));
        // Non-unit direction: t in units of dir.
        assert_eq!(hit(&s, &pose, (0.0, 0.0), (4.0, 0.0)).unwrap().t, 0.5);
        // Tangent ray grazes at (3, 1): counts (boundary is inside).
        let h = hit(&s, &pose, (0.0, 1.0), (1.0, 0.0)).unwrap();
        assert_eq!((h.t, h.normal), (3.0, Vec2::Y));
        assert!(hit(&s, &pose, (0.0, 1.001), (1.0, 0.0)).is_none());
        assert!(hit(&s, &pose, (0.0, 0.0), (-1.0, 0.0)).is_none());
        assert!(ray_cast(&s, &pose, &Ray::new(Vec2::ZERO, Vec2::X), 1.999).is_none());
        assert!(ray_cast(&s, &pose, &Ray::new(Vec2::ZERO, Vec2::X), 2.0).is_some());
        assert!(ray_cast(&s, &pose, &Ray::new(Vec2::ZERO, Vec2::X), -1.0).is_none());
        assert!(ray_cast(&s, &pose, &Ray::new(Vec2::ZERO, Vec2::X), f32::NAN).is_none());
        // Starting inside: t = 0, normal against the ray.
        let h = hit(&s, &pose, (3.5, 0.0), (0.0, 2.0)).unwrap();
        assert_eq!((h.t, h.point, h.normal), (0.0, Vec2::new(3.5, 0.0), Vec2::NEG_Y));
        // On the boundary, pointing out: still inside.
        assert_eq!(hit(&s, &pose, (4.0, 0.0), (1.0, 0.0)).unwrap().t, 0.0);
        // Zero direction: a point test; the normal is zero, never NaN.
        assert_eq!(hit(&s, &pose, (3.0, 0.0), (0.0, 0.0)).unwrap().normal, Vec2::ZERO);
        assert!(hit(&s, &pose, (0.0, 0.0), (0.0, 0.0)).is_none());
        assert!(contains_point(&s, &pose, Vec2::new(3.0, 1.0)));
        assert!(!contains_point(&s, &pose, Vec2::new(3.0, 1.0001)));
    }

    #[test]
    fn capsule_known_answers() {
        let s = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap();
        let pose = Pose::IDENTITY;
        let h = hit(&s, &pose, (0.5, 3.0), (0.0, -1.0)).unwrap();
        assert_eq!((h.t, h.point, h.normal), (2.5, Vec2::new(0.5, 0.5), Vec2::Y));
        let h = hit(&s, &pose, (-5.0, 0.0), (1.0, 0.0)).unwrap();
        assert_eq!((h.t, h.normal), (3.5, Vec2::NEG_X));
        let h = hit(&s, &pose, (0.5, -3.0), (0.0, 1.0)).unwrap();
        assert_eq!((h.t, h.normal), (2.5, Vec2::NEG_Y));
        // Past the end's round cap.
        assert!(hit(&s, &pose, (1.45, 3.0), (0.0, -1.0)).unwrap().t > 2.5);
        assert!(hit(&s, &pose, (1.51, 3.0), (0.0, -1.0)).is_none());
        // Rotated a quarter turn and moved.
        let pose = Pose::new(Vec2::new(10.0, 0.0), std::f32::consts::FRAC_PI_2);
        let h = hit(&s, &pose, (0.0, 0.0), (1.0, 0.0)).unwrap();
        assert!((h.t - 9.5).abs() < 1e-5 && (h.normal - Vec2::NEG_X).length() < 1e-6);
        assert!(contains_point(&s, &pose, Vec2::new(10.0, 1.5)));
        assert!(!contains_point(&s, &pose, Vec2::new(10.0, 1.51)));
    }

    #[test]
    fn box_known_answers() {
        let s = Shape::cuboid(Vec2::new(1.0, 0.5)).unwrap();
        let pose = Pose::IDENTITY;
        let h = hit(&s, &pose, (-3.0, 0.25), (1.0, 0.0)).unwrap();
        assert_eq!((h.t, h.point, h.normal), (2.0, Vec2::new(-1.0, 0.25), Vec2::NEG_X));
        let h = hit(&s, &pose, (0.0, 2.0), (0.0, -1.0)).unwrap();
        assert_eq!((h.t, h.normal), (1.5, Vec2::Y));
        // Diagonal into the corner region: enters through the top face at (0.5, 0.5).
        let h = hit(&s, &pose, (2.0, 2.0), (-1.0, -1.0)).unwrap();
        assert_eq!((h.t, h.normal), (1.5, Vec2::Y));
        // Sliding along the top face: touching counts.
        assert_eq!(hit(&s, &pose, (-3.0, 0.5), (1.0, 0.0)).unwrap().t, 2.0);
        assert!(hit(&s, &pose, (-3.0, 0.5001), (1.0, 0.0)).is_none());
        assert!(contains_point(&s, &pose, Vec2::new(1.0, -0.5)));
        assert!(!contains_point(&s, &pose, Vec2::new(1.0001, 0.0)));
    }

    #[test]
    fn polygon_and_rounded_polygon_known_answers() {
        let tri = Shape::polygon(&[Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(0.0, 3.0)], 0.0).unwrap();
        let pose = Pose::IDENTITY;
        // Onto the hypotenuse from (4, 3) straight down-left along -(0.6, 0.8): distance 2.4.
        let h = hit(&tri, &pose, (4.0, 3.0), (-0.6, -0.8)).unwrap();
        assert!((h.t - 2.4).abs() < 1e-5 && (h.normal - Vec2::new(0.6, 0.8)).length() < 1e-6);
        let h = hit(&tri, &pose, (1.0, -2.0), (0.0, 1.0)).unwrap();
        assert_eq!((h.t, h.normal), (2.0, Vec2::NEG_Y));
        assert!(hit(&tri, &pose, (5.0, -2.0), (0.0, 1.0)).is_none());
        assert!(contains_point(&tri, &pose, Vec2::new(2.0, 1.5))); // on the hypotenuse
        assert!(!contains_point(&tri, &pose, Vec2::new(2.0, 1.51)));

        let rb = Shape::rounded_box(Vec2::ONE, 0.5).unwrap();
        let h = hit(&rb, &pose, (-5.0, 0.5), (1.0, 0.0)).unwrap();
        assert_eq!((h.t, h.normal), (3.5, Vec2::NEG_X));
        // Through the rounded corner: a ray along the diagonal meets the arc at distance
        // sqrt(2) + 0.5 from the centre.
        let h = hit(&rb, &pose, (-4.0, -4.0), (1.0, 1.0)).unwrap();
        let expect = (4.0 * std::f32::consts::SQRT_2 - std::f32::consts::SQRT_2 - 0.5) / std::f32::consts::SQRT_2;
        assert!((h.t - expect).abs() < 1e-5, "{h:?} vs {expect}");
        assert!((h.normal - Vec2::new(-1.0, -1.0).normalize()).length() < 1e-5);
        // Just outside the arc, inside the sharp corner of the pushed-out box.
        assert!(!contains_point(&rb, &pose, Vec2::new(1.4, 1.4)));
        assert!(contains_point(&rb, &pose, Vec2::new(1.3, 1.4)));
        assert!(contains_point(&rb, &pose, Vec2::new(1.5, -1.0)));
        assert!(hit(&rb, &pose, (1.4, 3.0), (1.0, -1.0)).is_none()); // passes the corner outside
        assert_eq!(hit(&rb, &pose, (0.0, 0.0), (1.0, 0.0)).unwrap().t, 0.0);
    }

    /// parry2d's answer for the same shape: the ray hit `(t, normal)` and whether `point` is
    /// inside.
    fn parry_query(shape: &Shape, pose: &PPose, ray: &PRay, max_t: f32, point: Vec2) -> (Option<(f32, Vec2)>, bool) {
        let pv = |v: Vec2| PVec::new(v.x, v.y);
        fn answer(
            s: &(impl RayCast + PointQuery),
            pose: &PPose,
            ray: &PRay,
            max_t: f32,
            point: PVec,
        ) -> (Option<(f32, Vec2)>, bool) {
            let h = s.cast_ray_and_get_normal(pose, ray, max_t, true);
            (h.map(|h| (h.time_of_impact, Vec2::new(h.normal.x, h.normal.y))), s.contains_point(pose, point))
        }
        match shape {
            Shape::Circle(c) => answer(&Ball::new(c.radius), pose, ray, max_t, pv(point)),
            Shape::Capsule(c) => answer(&PCapsule::new(pv(c.a), pv(c.b), c.radius), pose, ray, max_t, pv(point)),
            Shape::Cuboid(b) => answer(&PCuboid::new(pv(b.half_extents)), pose, ray, max_t, pv(point)),
            Shape::Polygon(poly) => {
                let inner =
                    ConvexPolygon::from_convex_polyline(poly.vertices().iter().map(|v| pv(*v)).collect()).unwrap();
                if poly.radius > 0.0 {
                    answer(&RoundShape { inner_shape: inner, border_radius: poly.radius }, pose, ray, max_t, pv(point))
                } else {
                    answer(&inner, pose, ray, max_t, pv(point))
                }
            }
            Shape::Segment(_) | Shape::Compound(_) | Shape::Chain(_) => unreachable!("drawn from the other kinds"),
        }
    }

    /// Distance from `p` to the boundary of the core polygon, by brute force over its edges.
    fn brute_distance_to_core(poly: &Polygon, p: Vec2) -> f32 {
        let vs = poly.vertices();
        (0..vs.len())
            .map(|i| {
                let (a, b) = (vs[i], vs[(i + 1) % vs.len()]);
                let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                (p - a - t * (b - a)).length()
            })
            .fold(f32::INFINITY, f32::min)
    }

    /// Unsigned distance from a local point to the shape's surface, by brute force.
    fn distance_to_surface(shape: &Shape, p: Vec2) -> f32 {
        match shape {
            Shape::Circle(c) => (p.length() - c.radius).abs(),
            Shape::Capsule(c) => {
                let e = c.b - c.a;
                let t = ((p - c.a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
                ((p - c.a - t * e).length() - c.radius).abs()
            }
            Shape::Cuboid(b) => {
                let q = p.abs() - b.half_extents;
                if q.x <= 0.0 && q.y <= 0.0 { -q.max_element() } else { q.max(Vec2::ZERO).length() }
            }
            Shape::Polygon(poly) => {
                let local_inside = poly.vertices().iter().zip(poly.normals()).all(|(v, n)| n.dot(p - *v) <= 0.0);
                let d = brute_distance_to_core(poly, p);
                if local_inside { d + poly.radius } else { (d - poly.radius).abs() }
            }
            Shape::Segment(_) | Shape::Compound(_) | Shape::Chain(_) => unreachable!("drawn from the other kinds"),
        }
    }

    #[test]
    fn random_rays_and_points_match_parry() {
        let mut rng = crate::internal::SplitMix64::new(0x51ed_270b);
        let mut rnd = move || rng.next_f32();
        let mut shapes = vec![
            Shape::circle(0.8).unwrap(),
            Shape::capsule(Vec2::new(-1.0, 0.3), Vec2::new(1.2, -0.4), 0.45).unwrap(),
            Shape::cuboid(Vec2::new(1.3, 0.6)).unwrap(),
            Shape::rounded_box(Vec2::new(0.9, 0.5), 0.3).unwrap(),
        ];
        for k in 0..6 {
            let pts: Vec<Vec2> = (0..7).map(|_| Vec2::new(rnd() * 3.0 - 1.5, rnd() * 3.0 - 1.5)).collect();
            if let Ok(p) = Shape::polygon(&pts, if k % 2 == 0 { 0.0 } else { 0.1 + 0.4 * rnd() }) {
                shapes.push(p);
            }
        }
        let (mut hits, mut inside, mut n) = (0, 0, 0);
        for shape in &shapes {
            let is_rounded = matches!(shape, Shape::Polygon(p) if p.radius > 0.0);
            for _ in 0..1500 {
                let (px, py, angle) = (rnd() * 2.0 - 1.0, rnd() * 2.0 - 1.0, rnd() * 6.3);
                let pose = Pose::new(Vec2::new(px, py), angle);
                let ppose = PPose::new(PVec::new(px, py), angle);
                let o = Vec2::new(rnd() * 8.0 - 4.0, rnd() * 8.0 - 4.0);
                // Aim near the shape most of the time so that many rays hit.
                let target = Vec2::new(px, py) + Vec2::new(rnd() * 3.0 - 1.5, rnd() * 3.0 - 1.5);
                let dir = (target - o) * (0.5 + rnd());
                let max_t = if rnd() < 0.2 { rnd() } else { 10.0 };
                let ray = Ray::new(o, dir);
                let mine = ray_cast(shape, &pose, &ray, max_t);
                // The point test probes the ray's aim point.
                let probe = target;
                let pray = PRay::new(PVec::new(o.x, o.y), PVec::new(dir.x, dir.y));
                let (theirs, parry_contains) = parry_query(shape, &ppose, &pray, max_t, probe);
                n += 1;
                // Skip points within 1e-4 of the surface, where f32 rounding of the two poses
                // may legitimately disagree.
                let sure_in = contains_point(shape, &pose, probe);
                let near_surface = (0..8).any(|i| {
                    let off = 1e-4 * Vec2::from_angle(i as f32 * 0.785);
                    contains_point(shape, &pose, probe + off) != sure_in
                });
                if !near_surface {
                    // parry's point query on rounded shapes is GJK-approximate as well (it
                    // called a point 8e-3 inside the surface outside); brute force covers them.
                    if !is_rounded {
                        assert_eq!(sure_in, parry_contains, "{shape:?} {pose:?} {probe:?}");
                    }
                    if let Shape::Polygon(poly) = shape {
                        let local = pose.inv_transform_point(probe);
                        let inside_core =
                            poly.vertices().iter().zip(poly.normals()).all(|(v, n)| n.dot(local - *v) <= 0.0);
                        let brute = inside_core || brute_distance_to_core(poly, local) <= poly.radius;
                        assert_eq!(sure_in, brute);
                    }
                    inside += sure_in as u32;
                }
                match (mine, theirs) {
                    (Some(h), Some((t, nrm))) => {
                        hits += 1;
                        let scale = dir.length();
                        // parry casts rays on (rounded) convex polygons by GJK, which stops short
                        // of the surface or past it (checked by hand: our hits lay on the
                        // surface to 1e-7 where parry's were up to 1e-3 off on sharp polygons and
                        // up to 1e-2 inside a rounded hexagon). Its ball, capsule and box are
                        // analytic. Rounded polygons are checked by brute force below instead.
                        let tol = match shape {
                            Shape::Polygon(_) => 1e-2,
                            _ => 1e-4,
                        };
                        if !is_rounded {
                            assert!((h.t - t).abs() * scale < tol, "{shape:?} {pose:?} {ray:?}: {h:?} vs {t}");
                        }
                        assert!((h.normal.length() - 1.0).abs() < 1e-5 || h.t == 0.0);
                        if h.t > 0.0 {
                            // Exactness without parry: the hit is on the surface and just before it
                            // the ray is outside. (Just past it need not be inside: a ray may clip
                            // a corner.)
                            let eps = 1e-4 / scale;
                            assert!(!contains_point(shape, &pose, ray.at(h.t - eps)), "{shape:?} {ray:?} {h:?}");
                            let gap = distance_to_surface(shape, pose.inv_transform_point(h.point));
                            assert!(gap < 2e-5, "{shape:?} {pose:?} {ray:?} {h:?}: {gap} off the surface");
                            // The normal faces the incoming ray; on smooth shapes it is unique, so
                            // parry's must agree (polygon and box corners have a normal cone).
                            assert!(h.normal.dot(dir) <= 0.0, "{h:?}");
                            // Grazing hits are skipped: there a 1e-7 shift of the pose moves the hit, and
                            // so the normal, a long way.
                            let grazing = h.normal.dot(dir).abs() < 0.1 * scale;
                            if matches!(shape, Shape::Circle(_) | Shape::Capsule(_)) && !grazing {
                                assert!(
                                    (h.normal - nrm).length() < 1e-3,
                                    "{shape:?} {pose:?} {ray:?} {h:?} vs {nrm:?} {t}"
                                );
                            }
                        }
                    }
                    (None, None) => {}
                    (mine, theirs) => {
                        // Disagreement only for grazing rays or hits at max_t.
                        let t = mine.map(|h| h.t).or(theirs.map(|x| x.0)).unwrap();
                        let grazing = (t - max_t).abs() * dir.length() < 1e-3 || {
                            let nudge = |dy: f32| {
                                let d2 = dir + dy * dir.perp();
                                ray_cast(shape, &pose, &Ray::new(o, d2), max_t).is_some()
                            };
                            nudge(1e-3) != nudge(-1e-3)
                        };
                        // On rounded polygons parry's GJK is the less exact side: accept our hit
                        // if brute force puts it on the surface with the ray outside just
                        // before, and our miss if parry's hit point is off our surface.
                        let brute_ok = is_rounded
                            && match (mine, theirs) {
                                (Some(h), _) if h.t == 0.0 => {
                                    let Shape::Polygon(poly) = shape else { unreachable!() };
                                    let local = pose.inv_transform_point(o);
                                    let in_core = poly
                                        .vertices()
                                        .iter()
                                        .zip(poly.normals())
                                        .all(|(v, n)| n.dot(local - *v) <= 0.0);
                                    in_core || brute_distance_to_core(poly, local) <= poly.radius + 1e-6
                                }
                                (Some(h), _) => {
                                    distance_to_surface(shape, pose.inv_transform_point(h.point)) < 2e-5
                                        && !contains_point(shape, &pose, ray.at(h.t - 1e-4 / dir.length()))
                                }
                                (None, Some((t, _))) => !contains_point(shape, &pose, ray.at(t)),
                                (None, None) => true,
                            };
                        assert!(
                            grazing || brute_ok,
                            "{shape:?} {pose:?} {ray:?} max_t {max_t}: {mine:?} vs {theirs:?}"
                        );
                    }
                }
            }
        }
        assert!(hits > n / 4 && inside > n / 20, "{hits} hits {inside} inside of {n}");
    }

    /// Regression (oracle, narrow_oracle ray casts): a ray starting 3.3 away from a rounded
    /// 6-gon of radius 0.0056 entered through a vertex arc; the discriminant b² - a·c cancelled
    /// and the hit came 2.7e-4 late (exact entry 3.3239907).
    #[test]
    fn regression_far_ray_small_arc_discriminant() {
        let pts = [
            Vec2::new(-0.34408504, -0.48812544),
            Vec2::new(0.38410696, -0.68366295),
            Vec2::new(0.4907075, -0.4939244),
            Vec2::new(0.57192713, 0.05918152),
            Vec2::new(0.40029004, 0.66136616),
            Vec2::new(0.26332593, 0.5359383),
        ];
        let s = Shape::polygon(&pts, 0.005565057).unwrap();
        let pose = Pose { p: Vec2::new(2.6648464, 2.3183832), q: crate::math::Rot { c: -0.6622372, s: 0.7492943 } };
        let ray = Ray::new(Vec2::new(4.6737876, 0.06615733), Vec2::new(-0.7778212, 0.6284856));
        let hit = ray_cast(&s, &pose, &ray, 1000.0).unwrap();
        assert!((hit.t - 3.3239907).abs() < 2e-5, "{hit:?}");
    }
}
