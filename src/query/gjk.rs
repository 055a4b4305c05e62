//! GJK: the distance between two convex cores, each the hull of a few points grown by a radius.
//!
//! The cores are handled as point sets ([`Proxy`]); the radius (a circle's, a capsule's, a
//! rounded polygon's) is added by the caller afterwards, which keeps GJK on polytopes where it
//! terminates exactly. The iteration follows Gilbert, Johnson and Keerthi (1988) with the
//! Voronoi-region simplex solver of Ericson, *Real-Time Collision Detection* §9.5, and runs in
//! A's frame with B's pose relative to A, like the narrow-phase kernels.
//!
//! A [`SimplexCache`] keeps the support indices of the last simplex: started from them, a pair
//! that moved a little since the last call usually converges in one or two iterations (Box2D's
//! `b2SimplexCache`).

use glam::Vec2;

use crate::math::Pose;
use crate::shape::{MAX_POLYGON_VERTICES, Shape};

/// A convex core as GJK sees it: the convex hull of `count` points, grown by `radius`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proxy {
    pub points: [Vec2; MAX_POLYGON_VERTICES],
    pub count: usize,
    pub radius: f32,
}

impl Proxy {
    /// The core of a convex shape in its own frame; `None` for a compound or a chain (use its
    /// parts).
    #[inline]
    pub fn of(shape: &Shape) -> Option<Proxy> {
        let mut p = Proxy { points: [Vec2::ZERO; MAX_POLYGON_VERTICES], count: 1, radius: 0.0 };
        match shape {
            Shape::Circle(c) => p.radius = c.radius,
            Shape::Capsule(c) => {
                p.points[..2].copy_from_slice(&[c.a, c.b]);
                (p.count, p.radius) = (2, c.radius);
            }
            Shape::Segment(s) => {
                p.points[..2].copy_from_slice(&[s.a, s.b]);
                (p.count, p.radius) = (2, s.radius);
            }
            Shape::Cuboid(b) => {
                let h = b.half_extents;
                p.points[..4].copy_from_slice(&[-h, Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)]);
                p.count = 4;
            }
            Shape::Polygon(poly) => {
                // A polygon assembled from bytes may claim no vertices or more than the arrays
                // hold: never index past them, never build an empty proxy (the answer for such
                // a shape is unspecified, but it is an answer).
                let n = poly.count().clamp(1, MAX_POLYGON_VERTICES);
                p.points[..n].copy_from_slice(&poly.vertices[..n]);
                (p.count, p.radius) = (n, poly.radius);
            }
            Shape::Compound(_) | Shape::Chain(_) => return None,
        }
        Some(p)
    }

    /// The proxy with its points mapped by `pose` (a compound part into the compound's frame).
    #[inline]
    pub fn transformed(mut self, pose: &Pose) -> Proxy {
        for v in &mut self.points[..self.count] {
            *v = pose.transform_point(*v);
        }
        self
    }

    #[inline]
    pub fn points(&self) -> &[Vec2] {
        &self.points[..self.count]
    }

    /// The index of the point farthest along `d` (the first on ties, for determinism).
    #[inline]
    pub fn support(&self, d: Vec2) -> usize {
        let pts = self.points();
        let mut best = (0, pts[0].dot(d));
        for (i, v) in pts.iter().enumerate().skip(1) {
            let s = v.dot(d);
            if s > best.1 {
                best = (i, s);
            }
        }
        best.0
    }

    /// The shape's size, for tolerances: half the longer side of its core's bounding box plus
    /// its radius. It does not depend on where the core sits in its frame.
    #[inline]
    pub fn size(&self) -> f32 {
        let (lo, hi) = self.bounds();
        0.5 * (hi - lo).max_element() + self.radius
    }

    /// The proxy moved so that its core's bounding box is centred on the frame's origin, and
    /// the centre it was moved from. GJK's rounding follows its coordinates' magnitude: centred,
    /// that is the shape's size and the distance between the shapes, however far the core sits
    /// from its pose's origin.
    #[inline]
    pub fn centred(mut self) -> (Proxy, Vec2) {
        let (lo, hi) = self.bounds();
        let c = 0.5 * (lo + hi);
        for v in &mut self.points[..self.count] {
            *v -= c;
        }
        (self, c)
    }

    #[inline]
    fn bounds(&self) -> (Vec2, Vec2) {
        self.points().iter().fold((self.points[0], self.points[0]), |(lo, hi), v| (lo.min(*v), hi.max(*v)))
    }

    /// The largest distance from `centre` to a point of the shape: the radius of a bounding
    /// circle about it (safe for shapes assembled from bytes, unlike `Shape::bounding_radius`).
    #[inline]
    pub fn reach_from(&self, centre: Vec2) -> f32 {
        self.points().iter().map(|v| (*v - centre).length()).fold(0.0, f32::max) + self.radius
    }

    /// The largest distance from the frame's origin to a point of the shape: how far a point
    /// of it can move per radian turned about that origin.
    #[inline]
    pub fn reach(&self) -> f32 {
        self.points().iter().map(|v| v.length()).fold(0.0, f32::max) + self.radius
    }
}

/// Warm-start data for [`distance_cached`](super::distance_cached): the support points of the
/// last GJK simplex. Keep one per pair of shapes between frames and pass it back; start with
/// `SimplexCache::default()`. A cache that does not fit the shapes (another pair's, or after a
/// shape changed) is ignored, never trusted blindly: the answer is the same with or without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SimplexCache {
    count: u8,
    index_a: [u8; 3],
    index_b: [u8; 3],
}

impl SimplexCache {
    /// The number of simplex vertices stored (0 for a fresh cache). Diagnostic only.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether the cache holds nothing (a fresh cache).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The result of [`gjk`], in A's frame. Radii are not applied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GjkOutput {
    /// The closest point of A's core.
    pub point_a: Vec2,
    /// The closest point of B's core.
    pub point_b: Vec2,
    /// The distance between the cores; 0 when they touch or overlap, and then
    /// `point_a == point_b` is a point of both.
    pub distance: f32,
    /// Unit, from A's core to B's, when the distance is positive or the cores touch along a
    /// simplex edge (the edge's normal); zero otherwise. Taken from
    /// the final simplex (the vertex difference, or the edge normal), not from the difference
    /// of the closest points, which is mostly rounding when the cores nearly touch.
    pub normal: Vec2,
}

#[derive(Clone, Copy, Debug, Default)]
struct Vertex {
    wa: Vec2, // support point of A
    wb: Vec2, // support point of B (in A's frame)
    w: Vec2,  // wb - wa, a point of the Minkowski difference B - A
    a: f32,   // barycentric coordinate of the closest point
    ia: u8,
    ib: u8,
}

/// Enough for polytopes of 8 + 8 vertices: GJK adds a new support point per iteration, and on
/// polytopes it cannot revisit a simplex; the cap only stops an f32 cycle between two
/// near-equal simplices, where either answer is as good as f32 allows.
const MAX_ITERATIONS: usize = 24;

/// The distance between the cores of `a` (in A's frame) and `b` (in B's frame) with B at `xf`
/// relative to A, warm-started from `cache` and leaving the final simplex in it.
pub(crate) fn gjk(a: &Proxy, b: &Proxy, xf: &Pose, cache: &mut SimplexCache) -> GjkOutput {
    let make = |ia: usize, ib: usize| {
        let (wa, wb) = (a.points[ia], xf.transform_point(b.points[ib]));
        Vertex { wa, wb, w: wb - wa, a: 1.0, ia: ia as u8, ib: ib as u8 }
    };
    let mut s = [Vertex::default(); 3];
    let mut n = cache.count as usize;
    let fits = (1..=3).contains(&n)
        && (0..n).all(|k| (cache.index_a[k] as usize) < a.count && (cache.index_b[k] as usize) < b.count);
    if fits {
        for (k, v) in s[..n].iter_mut().enumerate() {
            *v = make(cache.index_a[k] as usize, cache.index_b[k] as usize);
        }
    } else {
        n = 1;
        s[0] = make(0, 0);
    }

    // The simplex is solved at the top of every pass, the last one included, so that the loop
    // never ends on a vertex added but not solved.
    for pass in 0..=MAX_ITERATIONS {
        n = match n {
            2 => solve2(&mut s),
            3 => solve3(&mut s),
            _ => 1,
        };
        if n == 3 || pass == MAX_ITERATIONS {
            break; // n == 3: the origin is inside the triangle, the cores overlap
        }
        let d = search_direction(&s[..n]);
        if d == Vec2::ZERO || n == 2 && origin_on_segment(&s[..2]) {
            break; // the origin is on the simplex
        }
        // The support point of B - A along d: B's farthest along d, A's farthest against it.
        let v = make(a.support(-d), b.support(xf.q.inv_rotate(d)));
        if s[..n].iter().any(|u| u.ia == v.ia && u.ib == v.ib) {
            break; // no new support point: the simplex is the closest feature
        }
        // No progress towards the origin: another support point on the closest feature (two
        // parallel edges give several), which would only make a flat triangle.
        if v.w.dot(d) <= s[0].w.dot(d) {
            break;
        }
        s[n] = v;
        n += 1;
    }

    let (mut pa, mut pb) = (Vec2::ZERO, Vec2::ZERO);
    for v in &s[..n] {
        pa += v.a * v.wa;
        pb += v.a * v.wb;
    }
    cache.count = n as u8;
    for (k, v) in s[..n].iter().enumerate() {
        (cache.index_a[k], cache.index_b[k]) = (v.ia, v.ib);
    }
    // The closest point of B - A is `pb - pa`; its distance from the origin is measured along
    // the simplex's own normal.
    let normal = match n {
        1 => s[0].w.normalize_or_zero(),
        2 => (-search_direction(&s[..2])).normalize_or_zero(),
        _ => Vec2::ZERO,
    };
    // Touching on a segment keeps the segment's normal: the cores touch along it (or, in the
    // degenerate case of the origin on an inner edge, overlap), and a cast stopping there needs
    // a direction.
    let touching_edge = n == 2 && origin_on_segment(&s[..2]);
    let distance = if n < 3 && !touching_edge { s[0].w.dot(normal).max(0.0) } else { 0.0 };
    if distance == 0.0 {
        let normal = if touching_edge { normal } else { Vec2::ZERO };
        return GjkOutput { point_a: pa, point_b: pa, distance, normal };
    }
    GjkOutput { point_a: pa, point_b: pb, distance, normal }
}

/// The direction from the simplex (a point or a segment) towards the origin. For a segment it
/// is the edge normal on the origin's side, not `-closest point`: the normal stays accurate when
/// the origin is nearly on the segment's line, where the closest point is mostly rounding.
#[inline]
fn search_direction(s: &[Vertex]) -> Vec2 {
    if let [v] = s {
        return -v.w;
    }
    let e = s[1].w - s[0].w;
    if e.perp_dot(-s[0].w) > 0.0 { e.perp() } else { -e.perp() }
}

/// Whether the origin lies on the segment `s[0]`–`s[1]` (its closest point, after `solve2`) up
/// to the rounding of the end points: a few ulps of their magnitude, times the edge length the
/// cross product carries. The cores then touch. Without this, deeply overlapping cores whose
/// Minkowski difference has the origin on a simplex edge (coincident centres) come out a
/// rounding error apart, not overlapping.
#[inline]
fn origin_on_segment(s: &[Vertex]) -> bool {
    let e = s[1].w - s[0].w;
    e.perp_dot(-s[0].w).abs() <= 8.0 * f32::EPSILON * e.length() * s[0].w.abs().max(s[1].w.abs()).max_element()
}

/// The closest point of segment `s[0]`–`s[1]` to the origin: keeps the vertices of its Voronoi
/// region (moved to the front) with their barycentric coordinates; returns their count.
fn solve2(s: &mut [Vertex; 3]) -> usize {
    let (w1, w2) = (s[0].w, s[1].w);
    let e = w2 - w1;
    let d2 = -w1.dot(e); // the origin lies beyond w1 towards w2
    if d2 <= 0.0 {
        s[0].a = 1.0;
        return 1;
    }
    let d1 = w2.dot(e); // the origin lies before w2 coming from w1
    if d1 <= 0.0 {
        s[0] = s[1];
        s[0].a = 1.0;
        return 1;
    }
    let inv = 1.0 / (d1 + d2);
    (s[0].a, s[1].a) = (d1 * inv, d2 * inv);
    2
}

/// The closest point of triangle `s[0..3]` to the origin, by Voronoi regions (vertices, then
/// edges by their barycentric signs and the triangle's signed sub-areas, then the interior).
fn solve3(s: &mut [Vertex; 3]) -> usize {
    let (w1, w2, w3) = (s[0].w, s[1].w, s[2].w);
    let (e12, e13, e23) = (w2 - w1, w3 - w1, w3 - w2);
    let (d12_1, d12_2) = (w2.dot(e12), -w1.dot(e12));
    let (d13_1, d13_2) = (w3.dot(e13), -w1.dot(e13));
    let (d23_1, d23_2) = (w3.dot(e23), -w2.dot(e23));
    let n123 = e12.perp_dot(e13);
    let d123_1 = n123 * w2.perp_dot(w3);
    let d123_2 = n123 * w3.perp_dot(w1);
    let d123_3 = n123 * w1.perp_dot(w2);

    let keep = |s: &mut [Vertex; 3], i: usize, j: Option<(usize, f32, f32)>| {
        let vi = s[i];
        match j {
            None => {
                s[0] = vi;
                s[0].a = 1.0;
                1
            }
            Some((j, ai, aj)) => {
                let vj = s[j];
                let inv = 1.0 / (ai + aj);
                (s[0], s[1]) = (vi, vj);
                (s[0].a, s[1].a) = (ai * inv, aj * inv);
                2
            }
        }
    };
    if d12_2 <= 0.0 && d13_2 <= 0.0 {
        return keep(s, 0, None);
    }
    if d12_1 > 0.0 && d12_2 > 0.0 && d123_3 <= 0.0 {
        return keep(s, 0, Some((1, d12_1, d12_2)));
    }
    if d13_1 > 0.0 && d13_2 > 0.0 && d123_2 <= 0.0 {
        return keep(s, 0, Some((2, d13_1, d13_2)));
    }
    if d12_1 <= 0.0 && d23_2 <= 0.0 {
        return keep(s, 1, None);
    }
    if d13_1 <= 0.0 && d23_1 <= 0.0 {
        return keep(s, 2, None);
    }
    if d23_1 > 0.0 && d23_2 > 0.0 && d123_1 <= 0.0 {
        return keep(s, 1, Some((2, d23_1, d23_2)));
    }
    let sum = d123_1 + d123_2 + d123_3;
    if sum.is_nan() || sum <= 0.0 {
        // A degenerate (flat) triangle that no region claimed: the origin lies on it.
        (s[0].a, s[1].a, s[2].a) = (1.0, 0.0, 0.0);
        return 3;
    }
    let inv = 1.0 / sum;
    (s[0].a, s[1].a, s[2].a) = (d123_1 * inv, d123_2 * inv, d123_3 * inv);
    3
}
