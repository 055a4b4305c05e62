//! Ray casts against one shape at a pose, in the shape's local frame.

use glam::Vec2;

use super::point::contains_local;
use super::{QueryError, check_pose, check_ray};
use crate::math::{Pose, Ray};
use crate::shape::{Capsule, Chain, Polygon, Shape};

/// Where a ray first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayHit {
    /// Ray parameter of the hit: the point is `ray.origin + t * ray.dir`.
    pub t: f32,
    /// The hit point, world space.
    pub point: Vec2,
    /// Unit outward surface normal at the hit, world space (`-dir` normalized for a ray that
    /// starts inside, see the [module docs](crate::query)).
    pub surface_normal: Vec2,
}

/// The first point where `ray` meets `shape` at `pose`, with `0 <= t <= max_t`, or `None`.
///
/// A ray starting inside or on the boundary hits at `t = 0` with normal `-dir` normalized.
/// `dir` may have any finite length (1e-30 or 1e30 alike); `max_t` may be infinite.
///
/// # Errors
/// [`QueryError::NonFinite`] for a NaN or infinite origin or direction, a NaN `max_t` or an
/// invalid pose; [`QueryError::Negative`] for a negative `max_t`.
pub fn ray_cast(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Result<Option<RayHit>, QueryError> {
    Ok(ray_cast_part(shape, pose, ray, max_t)?.map(|(_, h)| h))
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
/// let (part, hit) = ray_cast_part(&two, &Pose::IDENTITY, &Ray::new(Vec2::new(5.0, 0.0), Vec2::NEG_X), 10.0)?.unwrap();
/// assert_eq!((part, hit.t), (1, 2.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`ray_cast`].
pub fn ray_cast_part(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Result<Option<(u32, RayHit)>, QueryError> {
    let pose = &check_pose(pose)?;
    check_ray(ray, max_t)?;
    Ok(cast_ray(shape, pose, ray, max_t))
}

/// [`ray_cast_part`] on checked input. A direction whose squared length would overflow or
/// underflow is first scaled by a power of two (exactly), and `t` scaled back.
pub(crate) fn cast_ray(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Option<(u32, RayHit)> {
    let size = ray.dir.abs().max_element();
    if size > 0.0 && !(2.328_306_4e-10..=4.294_967_3e9).contains(&size) {
        // 2^exponent of `size`, built from the bits (`log2` rounds f32::MAX up to 128).
        let exponent = ((size.to_bits() >> 23) & 0xff).max(1);
        let scale = f32::from_bits(exponent << 23);
        let scaled = Ray::new(ray.origin, ray.dir / scale);
        return cast_ray_parts(shape, pose, &scaled, max_t * scale).map(|(i, h)| (i, RayHit { t: h.t / scale, ..h }));
    }
    cast_ray_parts(shape, pose, ray, max_t)
}

fn cast_ray_parts(shape: &Shape, pose: &Pose, ray: &Ray, max_t: f32) -> Option<(u32, RayHit)> {
    if let Shape::Chain(c) = shape {
        return chain_cast(c, pose, ray, max_t);
    }
    let Shape::Compound(c) = shape else {
        return ray_cast_convex(shape, pose, ray, max_t).map(|h| (0, h));
    };
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
    let o = pose.inv_transform_point(ray.origin);
    if contains_local(shape, o) {
        return Some(RayHit { t: 0.0, point: ray.origin, surface_normal: (-ray.dir).normalize_or_zero() });
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
    (t <= max_t).then(|| RayHit { t, point: ray.at(t), surface_normal: pose.transform_vector(n) })
}

/// The closest segment of a chain that the ray hits (the lowest index on equal `t`); the
/// chain's BVH offers the segments whose boxes the ray enters before the best hit so far. A
/// one-sided chain's segment is invisible to a ray starting behind it.
fn chain_cast(c: &Chain, pose: &Pose, ray: &Ray, max_t: f32) -> Option<(u32, RayHit)> {
    let (o, d) = (pose.inv_transform_point(ray.origin), pose.inv_transform_vector(ray.dir));
    let bound = std::cell::Cell::new(max_t);
    let mut best: Option<(u32, f32, Vec2)> = None;
    let one_sided = c.options().one_sided;
    c.segments_on_ray(
        &Ray::new(o, d),
        || bound.get(),
        |i| {
            let s = c.segment_at(i as usize);
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
        },
    );
    best.map(|(i, t, n)| (i, RayHit { t, point: ray.at(t), surface_normal: pose.transform_vector(n) }))
}

/// Ray from `o` (outside) against the circle of radius `r` at the origin: `(t, unit normal)`.
fn circle_cast(o: Vec2, d: Vec2, r: f32) -> Option<(f32, Vec2)> {
    // In f64: squares and products of f32 lengths neither underflow nor overflow there (in f32,
    // lengths below about 1e-19 square to zero, and a ray missing a tiny circle passed for a
    // tangent).
    let (o64, d64, r64) = (o.as_dvec2(), d.as_dvec2(), f64::from(r));
    let b = o64.dot(d64);
    if b >= 0.0 {
        // Moving away from (or tangent past) a circle it starts outside of; also a zero `d`.
        return None;
    }
    let a = d64.length_squared();
    let c = o64.length_squared() - r64 * r64;
    // b² - a·c, computed as a·(r² - |l|²) with l the circle centre's offset from the ray's line:
    // the textbook form cancels catastrophically when the ray starts far from a small circle
    // (|o| = 3.3, r = 0.0056 puts t 2.7e-4 late; tests/narrow_oracle.rs casts such rays).
    let l = o64 - (b / a) * d64;
    let disc = a * (r64 * r64 - l.length_squared());
    if disc < 0.0 {
        return None;
    }
    // The near root in the cancellation-free form c / (-b + sqrt(disc)) (both terms positive).
    let t = (c / (-b + disc.sqrt())) as f32;
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

#[inline]
fn min_hit(a: Option<(f32, Vec2)>, b: Option<(f32, Vec2)>) -> Option<(f32, Vec2)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}
