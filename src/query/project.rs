//! The closest point on a shape's surface to a point, inside or outside, with the surface's
//! normal there.
//!
//! Per kind, in the shape's frame, with `p` the point:
//!
//! - **A core grown by a radius** (circle, capsule, segment): the core's closest point `q`;
//!   the surface point is `q + r n` with `n = (p - q) / |p - q|`, the signed distance
//!   `|p - q| - r`. On the core itself (`p = q`) every direction is as deep; the answer takes a
//!   fixed one (see [`project_point`]).
//! - **A polygon** (box, rounded or sharp polygon), `s` the largest separation of `p` from an
//!   edge line (Box2D's `b2CollidePolygonAndCircle` test): outside the core (`s > 0`) the
//!   closest core point is on that edge, or at one of its ends (the edge's Voronoi regions),
//!   and the surface is a radius further out. Inside or on the core (`s <= 0`), the nearest
//!   boundary of a convex polygon lies on the nearest edge line, which is the one of largest
//!   separation, at depth `-s`: the surface point is `p` moved out along that edge's normal by
//!   `r - s`. Every step is one of a handful of products per edge: no iteration.
//! - **A compound**: the part of least signed distance (see [`project_point`]).
//! - **A chain**: the nearest of its segments as bare segments, those near the point found in
//!   its BVH as `query::distance` finds them.

use glam::Vec2;

use super::distance::near_segments;
use super::{QueryError, check_pose, check_vector};
use crate::math::{Aabb, Pose};
use crate::shape::{Chain, ChainSegment, Compound, MAX_POLYGON_VERTICES, Polygon, Shape};

/// The closest point on a shape's surface to a point: see [`project_point`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PointProjection {
    /// The closest point on the surface, world space.
    pub point: Vec2,
    /// The surface's outward unit normal at `point`, world space. For a chain or a bare
    /// segment, which have no outside, the unit direction from `point` towards the queried
    /// point (the segment's front normal when the point is on it).
    pub surface_normal: Vec2,
    /// Signed distance from the queried point to the surface: negative inside, 0 on the
    /// surface, positive outside. Never negative for a chain or a bare segment.
    pub distance: f32,
    /// The part holding `point`: the index in a [`Compound`](crate::Compound), the segment
    /// index in a [`Chain`](crate::Chain), 0 for a convex shape.
    pub part: u32,
}

/// The closest point on the surface of `shape` at `pose` to `point`, whether `point` is outside
/// the shape or inside it, with the surface's outward normal there and the signed distance
/// (negative inside). Box2D's and parry2d's point projection with `solid = false`.
///
/// - **Inside a solid shape** the answer is the nearest boundary point: the way out that is
///   shortest, at `distance = -depth`.
/// - **A chain or a bare segment** (radius 0) has no inside: `distance >= 0` and the normal
///   points from the surface towards `point`, on either side of a one-sided chain too (the
///   geometry's normal, not the collision rule's). On the line itself, `distance` is 0 and the
///   normal is the segment's front (its right side, walking from `a` to `b`).
/// - **A compound** answers for the part of least signed distance (the lowest index on equal
///   distance). Outside every part that is the exact nearest point of the union. A point
///   inside some part is inside (negative distance) with the nearest boundary of the part it
///   is deepest in: that depth is a lower bound on its depth in the union, and the point
///   reported may lie inside another part (the union's own boundary is not computed; parry2d
///   answers for the part whose boundary is nearest, inside or not).
/// - **Degenerate places** get a unit normal, never NaN: exactly on a polygon's vertex, the
///   bisector of its two edge normals; on an edge, the edge's normal; exactly at a circle's
///   centre, the local +x axis; on a capsule's core segment, the segment's right side; at a
///   vertex shared by two chain segments, the bisector of their front normals.
///
/// ```
/// use sapwood::query::project_point;
/// use sapwood::{Pose, Shape, Vec2};
/// let crate_ = Shape::cuboid(Vec2::new(2.0, 1.0))?;
/// let pose = Pose::from_translation(Vec2::new(10.0, 0.0));
/// // Outside: the nearest surface point, the face's normal, the distance.
/// let out = project_point(&crate_, &pose, Vec2::new(10.5, 3.0))?;
/// assert_eq!((out.point, out.surface_normal, out.distance), (Vec2::new(10.5, 1.0), Vec2::Y, 2.0));
/// // Inside: the nearest way out, at a negative distance.
/// let inside = project_point(&crate_, &pose, Vec2::new(11.5, 0.25))?;
/// assert_eq!((inside.point, inside.surface_normal, inside.distance), (Vec2::new(12.0, 0.25), Vec2::X, -0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`QueryError::NonFinite`] for a NaN or infinite `point`, or a pose with a NaN or infinite
/// component or a non-unit rotation. Shapes are taken as they are, as in
/// [`distance`](super::distance): those from the checked constructors (or passing
/// [`Shape::validate`]) give exact answers, others an unspecified answer, in finite time.
pub fn project_point(shape: &Shape, pose: &Pose, point: Vec2) -> Result<PointProjection, QueryError> {
    let pose = &check_pose(pose)?;
    check_vector(point)?;
    let (local, part) = project_local(shape, pose.inv_transform_point(point));
    Ok(PointProjection {
        point: pose.transform_point(local.point),
        surface_normal: pose.q.rotate(local.normal),
        distance: local.distance,
        part,
    })
}

/// A projection in the shape's frame.
#[derive(Clone, Copy, Debug)]
struct Local {
    point: Vec2,
    normal: Vec2,
    distance: f32,
}

impl Local {
    fn placed(self, pose: &Pose) -> Local {
        Local { point: pose.transform_point(self.point), normal: pose.q.rotate(self.normal), ..self }
    }
}

fn project_local(shape: &Shape, p: Vec2) -> (Local, u32) {
    match shape {
        Shape::Compound(c) => compound(c, p),
        Shape::Chain(c) => chain(c, p),
        s => (convex(s, p), 0),
    }
}

fn convex(shape: &Shape, p: Vec2) -> Local {
    match shape {
        Shape::Circle(c) => rounded_core(p, Vec2::ZERO, Vec2::X, c.radius, None),
        Shape::Capsule(c) => segment(p, c.a, c.b, c.radius),
        Shape::Segment(s) => segment(p, s.a, s.b, s.radius),
        Shape::Cuboid(b) => polygon(&b.to_polygon(), p),
        Shape::Polygon(poly) => polygon(poly, p),
        // Compounds and chains are not parts; a nested one (from bytes) answers as its parts.
        s => project_local(s, p).0,
    }
}

/// The unit direction of `v` and its length, `None` for a zero vector. Scaled first, so that
/// neither a tiny nor a huge vector's squared length leaves f32 (a point 1e-25 from a core
/// still gets its true direction).
fn direction(v: Vec2) -> Option<(Vec2, f32)> {
    let m = v.abs().max_element();
    if m == 0.0 || !v.is_finite() {
        return None;
    }
    let w = v / m;
    let len = w.length();
    Some((w / len, m * len))
}

/// A shape made of the core point `q` (the core's closest point to `p`) grown by `r`; `fallback`
/// is the normal when `p` is on the core. `cone` bounds the normals of the core at `q` (from
/// the first counter-clockwise to the second, at most half a turn): a point within rounding
/// error of a vertex gets a direction made of that error, which may leave the cone, and a
/// surface point a radius out along it would be inside the shape; the nearer side of the cone
/// takes its place.
fn rounded_core(p: Vec2, q: Vec2, fallback: Vec2, r: f32, cone: Option<(Vec2, Vec2)>) -> Local {
    let (mut n, d) = direction(p - q).unwrap_or((fallback, 0.0));
    if let Some((lo, hi)) = cone
        && (lo.perp_dot(n) < 0.0 || n.perp_dot(hi) < 0.0)
    {
        n = if n.dot(lo) >= n.dot(hi) { lo } else { hi };
    }
    Local { point: q + r * n, normal: n, distance: d - r }
}

/// The right side of `a → b` (a polygon's outward normal, a chain segment's front).
fn front(a: Vec2, b: Vec2) -> Vec2 {
    let e = b - a;
    direction(Vec2::new(e.y, -e.x)).map_or(Vec2::Y, |(n, _)| n)
}

/// The segment `a`–`b` grown by `r`. Beside the segment the distance is the offset from its
/// line, along its front or back normal: a point on the line gets the front exactly, where the
/// difference to a rounded foot point would give a direction made of rounding errors.
fn segment(p: Vec2, a: Vec2, b: Vec2, r: f32) -> Local {
    let e = b - a;
    let along = (p - a).dot(e);
    let normal = front(a, b);
    // An end's normals: the half turn beyond it, between the two sides. A NaN (from a shape
    // assembled from bytes) takes the first end too.
    if along <= 0.0 || along.is_nan() {
        return rounded_core(p, a, normal, r, Some((-normal, normal)));
    }
    if along >= e.length_squared() {
        return rounded_core(p, b, normal, r, Some((normal, -normal)));
    }
    let h = normal.dot(p - a);
    let n = if h < 0.0 { -normal } else { normal };
    Local { point: p - h * normal + r * n, normal: n, distance: h.abs() - r }
}

/// See the module documentation. `count` is clamped to the storage, so that a polygon assembled
/// from bytes cannot index past it.
fn polygon(poly: &Polygon, p: Vec2) -> Local {
    let n = (poly.count as usize).min(MAX_POLYGON_VERTICES);
    if n == 0 {
        return rounded_core(p, Vec2::ZERO, Vec2::X, poly.radius, None);
    }
    let (vs, ns, r) = (&poly.vertices[..n], &poly.normals[..n], poly.radius);
    let next = |i: usize| if i + 1 == n { 0 } else { i + 1 };
    let prev = |i: usize| if i == 0 { n - 1 } else { i - 1 };
    // Exactly on a vertex: the bisector of its edges' normals, which the separations alone
    // would not give (both edges are at separation 0, or one of them at a rounding error).
    if let Some(k) = vs.iter().position(|v| *v == p) {
        let bisector = direction(ns[prev(k)] + ns[k]).map_or(ns[k], |(m, _)| m);
        return Local { point: p + r * bisector, normal: bisector, distance: -r };
    }
    let (mut i, mut s) = (0, ns[0].dot(p - vs[0]));
    for k in 1..n {
        let sk = ns[k].dot(p - vs[k]);
        if sk > s {
            (i, s) = (k, sk);
        }
    }
    if s > 0.0 {
        // Outside the core, beyond an end of the edge: the vertex is the closest core point,
        // its normals those between its edges'. `p` is off it (checked above), but a direction
        // that comes out zero still gets the bisector.
        let (v1, v2) = (vs[i], vs[next(i)]);
        let e = v2 - v1;
        let corner = if (p - v1).dot(e) < 0.0 {
            Some((v1, prev(i)))
        } else if (p - v2).dot(e) > 0.0 {
            Some((v2, i))
        } else {
            None
        };
        if let Some((v, k)) = corner {
            let cone = (ns[k], ns[next(k)]);
            let bisector = direction(cone.0 + cone.1).map_or(ns[i], |(m, _)| m);
            return rounded_core(p, v, bisector, r, Some(cone));
        }
    }
    // Inside or on the core, or beside the edge outside it: `s` is the signed distance to the
    // core, along the edge's normal.
    Local { point: p + (r - s) * ns[i], normal: ns[i], distance: s - r }
}

/// The part of least signed distance, the first on ties. A part whose box (grown by its
/// rounding slack) is farther than the best distance so far, or than 0 once the point is
/// inside a part, cannot beat it.
fn compound(c: &Compound, p: Vec2) -> (Local, u32) {
    let mut best: Option<(Local, u32)> = None;
    for (i, ((pose, part), bounds)) in c.parts().iter().zip(c.part_aabbs()).enumerate() {
        if best.is_some_and(|(b, _)| bounds.with_rounding_slack().distance(&Aabb::new(p, p)) > b.distance.max(0.0)) {
            continue;
        }
        let local = convex(part, pose.inv_transform_point(p)).placed(pose);
        if best.is_none_or(|(b, _)| local.distance < b.distance) {
            best = Some((local, i as u32));
        }
    }
    // A compound has at least one part; a compound assembled otherwise answers as empty space.
    best.unwrap_or((Local { point: p, normal: Vec2::X, distance: f32::INFINITY }, 0))
}

/// The nearest segment, the first on ties; a vertex shared by two segments has the bisector of
/// their fronts as its normal.
fn chain(c: &Chain, p: Vec2) -> (Local, u32) {
    let everything = Aabb::new(Vec2::splat(f32::NEG_INFINITY), Vec2::splat(f32::INFINITY));
    let near = near_segments(c, p, 0.0).unwrap_or(everything);
    let mut best: Option<(Local, u32)> = None;
    for i in c.segments_overlapping(near) {
        let s = c.segment_at(i as usize);
        let local = segment(p, s.a, s.b, 0.0);
        if best.is_none_or(|(b, _)| local.distance < b.distance) {
            best = Some((local, i));
        }
    }
    let Some((mut local, i)) = best else {
        return (Local { point: p, normal: Vec2::X, distance: f32::INFINITY }, 0);
    };
    if local.distance == 0.0 {
        let ChainSegment { a, b, ghost_a, ghost_b } = c.segment_at(i as usize);
        let other = match (p == a, p == b) {
            (true, _) => ghost_a.map(|g| front(g, a)),
            (_, true) => ghost_b.map(|g| front(b, g)),
            _ => None,
        };
        if let Some(m) = other.and_then(|m| direction(front(a, b) + m)) {
            local.normal = m.0;
        }
    }
    (local, i)
}
