//! Polygon–polygon (and box–polygon): SAT over the face normals of both hulls, then
//! reference/incident clipping (Catto's `b2CollidePolygons` in Box2D v3).
//!
//! Rounded polygons are a core hull plus a radius. When the cores overlap, the minimum
//! translation distance is the core penetration plus both radii, and SAT finds it exactly. When
//! the cores are apart but within the radii, SAT's separation is only a lower bound on the core
//! distance (a vertex–vertex gap is longer than any face gap), so the exact closest features are
//! searched among the few vertices that can be within reach (see [`closest`]).
//!
//! The machinery here works on any convex hull with at least two vertices given as slices;
//! capsule–polygon reuses it with the capsule as a rounded 2-gon (as Box2D does).

use glam::Vec2;

use super::clip::{Edge, clip, clip_sharp, most_anti_parallel};
use super::reuse::{Faces, Witness, features, tag};
use super::{Manifold, feature_id};
use crate::math::Pose;
use crate::shape::{Cuboid, MAX_POLYGON_VERTICES, Polygon};

/// Relative tolerance (times the shapes' sizes) by which B's reference face must beat A's to be
/// chosen. Without it, two nearly parallel faces (a resting stack) swap reference face with
/// every rounding wobble and the feature ids a solver warm-starts from change each frame.
/// It bounds the depth error this introduces: 1e-5 of the size is ten times below the crate's
/// 1e-4 accuracy promise, and ~100 ulps above f32 noise.
pub(crate) const REFERENCE_TOLERANCE: f32 = 1e-5;

/// A convex core hull as the kernels see it: counter-clockwise vertices, unit outward normals
/// (`n[i]` for the edge from `v[i]` to `v[i + 1]`), at least two vertices, and a rounding radius.
#[derive(Clone, Copy)]
pub(crate) struct Hull<'a> {
    pub v: &'a [Vec2],
    pub n: &'a [Vec2],
    pub radius: f32,
}

impl<'a> Hull<'a> {
    #[inline]
    pub fn of(p: &'a Polygon) -> Hull<'a> {
        Hull { v: p.vertices(), n: p.normals(), radius: p.radius }
    }
}

/// A size for [`REFERENCE_TOLERANCE`]: one vertex's distance from the centroid (max-norm), free
/// of a square root and never much below the polygon's half-width.
#[inline]
pub(crate) fn polygon_size(p: &Polygon) -> f32 {
    (p.vertices[0] - p.centroid).abs().max_element()
}

/// B's hull moved into A's frame, in fixed arrays.
struct Moved {
    v: [Vec2; MAX_POLYGON_VERTICES],
    n: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
}

impl Moved {
    #[inline]
    fn new(h: &Hull, xf: &Pose) -> Moved {
        let mut m = Moved { v: [Vec2::ZERO; MAX_POLYGON_VERTICES], n: [Vec2::ZERO; MAX_POLYGON_VERTICES], count: 0 };
        let count = h.v.len().min(MAX_POLYGON_VERTICES);
        for k in 0..count {
            m.v[k] = xf.transform_point(h.v[k]);
            m.n[k] = xf.q.rotate(h.n[k]);
        }
        m.count = count;
        m
    }

    #[inline]
    fn hull(&self, radius: f32) -> Hull<'_> {
        Hull { v: &self.v[..self.count], n: &self.n[..self.count], radius }
    }
}

/// The face of `n1`/`v1` along which `v2` is most separated, that separation
/// (`min_j n1[i]·(v2[j] - v1[i])`, maximised over `i`) and the runner-up's. Returns as soon as a
/// face separates by more than `limit`: the shapes are then apart and the exact maximum does
/// not matter.
#[inline]
fn max_separation(n1: &[Vec2], v1: &[Vec2], v2: &[Vec2], limit: f32) -> (usize, f32, f32) {
    let mut best = (0, f32::NEG_INFINITY, f32::NEG_INFINITY);
    for (i, (n, v)) in n1.iter().zip(v1).enumerate() {
        let s = face_separation(*n, *v, v2);
        if s > best.1 {
            best = (i, s, best.1);
            if s > limit {
                break;
            }
        } else if s > best.2 {
            best.2 = s;
        }
    }
    best
}

/// How far the points `v2` are outside the face with normal `n` through `v`: the least n·w,
/// then minus n·v, one subtraction per face rather than two per vertex pair, and a plain
/// compare rather than `f32::min`'s NaN handling (inputs are finite). This is most of a polygon
/// pair's instructions.
#[inline]
fn face_separation(n: Vec2, v: Vec2, v2: &[Vec2]) -> f32 {
    let mut s = f32::INFINITY;
    for w in v2 {
        let d = n.dot(*w);
        if d < s {
            s = d;
        }
    }
    s - n.dot(v)
}

/// Which feature of a hull is closest to an outside point.
#[derive(Clone, Copy, Debug)]
enum Feature {
    Vertex(usize),
    Edge(usize),
}

/// Relative margin (on squared distances) by which an edge beats a vertex. A point abreast of an
/// edge is never farther from it than from its ends, but when it is nearly abreast of the end
/// the two f32 distances tie to within rounding and either may come out smaller. The edge's
/// normal is exact there while the vertex-to-vertex direction is ill-conditioned (a 3e-9 gap
/// can tilt it enough to misstate the overlap along it by 2e-4), so near-ties go to the edge.
/// Larger: an edge may win while up to this much (relative, squared) farther than the vertex,
/// so the reported distance can be off by half of it; smaller: ties decided by rounding again.
const EDGE_PREFERENCE: f32 = 1e-5;

/// Whether candidate `c` (squared distance, feature) should replace `best`.
#[inline]
fn better(c: (f32, Feature), best: (f32, Feature)) -> bool {
    match (c.1, best.1) {
        (Feature::Edge(_), Feature::Vertex(_)) => c.0 <= best.0 * (1.0 + EDGE_PREFERENCE),
        (Feature::Vertex(_), Feature::Edge(_)) => c.0 < best.0 * (1.0 - EDGE_PREFERENCE),
        _ => c.0 < best.0,
    }
}

/// Squared distance from `p` (outside the hull) to the hull boundary, and the closest feature.
/// Only edges facing `p` can hold the closest point; the distance to an edge's line bounds the
/// distance to the edge, which prunes most of them.
#[inline]
fn point_hull(p: Vec2, h: &Hull) -> (f32, Feature) {
    let count = h.v.len();
    let mut best = (f32::INFINITY, Feature::Vertex(0));
    for k in 0..count {
        let d = p - h.v[k];
        let s = h.n[k].dot(d);
        if s < 0.0 || s * s > best.0 * (1.0 + EDGE_PREFERENCE) {
            continue;
        }
        let next = if k + 1 == count { 0 } else { k + 1 };
        let e = h.v[next] - h.v[k];
        let t = d.dot(e);
        // A point exactly abreast of an edge end is as far from the vertex as from the edge;
        // calling it the edge keeps parallel faces a 2-point face contact.
        let cand = if t < 0.0 {
            (d.length_squared(), Feature::Vertex(k))
        } else if t > e.length_squared() {
            ((p - h.v[next]).length_squared(), Feature::Vertex(next))
        } else {
            (s * s, Feature::Edge(k))
        };
        if better(cand, best) {
            best = cand;
        }
    }
    best
}

/// The exact closest features of two separated cores.
#[derive(Clone, Copy, Debug)]
enum Closest {
    /// A vertex of B is closest to the inside of A's edge `k`.
    EdgeA(usize),
    /// A vertex of A is closest to the inside of B's edge `k`.
    EdgeB(usize),
    /// A's vertex `i` and B's vertex `j`, at squared distance `d2`.
    Vertices(usize, usize, f32),
}

/// The SAT's result: each hull's face of maximum separation, that separation, and the
/// runner-up's (what the face won by; unknown, and never read, on the reuse path).
#[derive(Clone, Copy)]
struct Sat {
    ia: usize,
    sa: f32,
    next_a: f32,
    ib: usize,
    sb: f32,
    next_b: f32,
}

impl Sat {
    /// The smallest gap by which a face won its hull's SAT, in the motion measure of
    /// [`super::reuse`]: both sides of each comparison move.
    #[inline]
    fn gap(&self) -> f32 {
        (0.5 * (self.sa - self.next_a)).min(0.5 * (self.sb - self.next_b))
    }
}

/// How two cores relate, decided once and shared by `manifold` and `overlap` so that both agree
/// bit for bit.
enum Touch {
    /// Apart by more than the radii.
    Apart,
    /// Cores overlap or touch.
    Cores(Sat),
    /// Cores apart, surfaces touching (within the radii): the closest features, the SAT axis,
    /// and the SAT that chose it.
    Near(Closest, Vec2, Sat),
}

/// The exact closest features of two separated cores, or `None` when farther than `rsum`.
///
/// Two disjoint convex polygons are closest at a vertex of one of them, so the distance is the
/// least vertex-to-hull distance in both directions. Only vertices within `rsum` of the other
/// core along the SAT axis `n` can qualify; usually that is one or two per side. (Box2D measures
/// only the segment distance between the reference and incident edges; that is cheaper, but the
/// closest vertex pair need not lie on those edges when both polygons have many short edges.)
fn closest(a: &Hull, b: &Hull, n: Vec2, rsum: f32, tol: f32) -> Option<Closest> {
    let top_a = a.v.iter().fold(f32::NEG_INFINITY, |m, v| m.max(n.dot(*v)));
    let bottom_b = b.v.iter().fold(f32::INFINITY, |m, v| m.min(n.dot(*v)));
    // `tol` is slack so that rounding never drops a vertex that touches exactly.
    let reach_b = top_a + rsum + tol;
    let reach_a = bottom_b - rsum - tol;

    let mut best_a = (f32::INFINITY, Feature::Vertex(0), 0); // B's vertices against A's hull
    for (j, w) in b.v.iter().enumerate() {
        if n.dot(*w) <= reach_b {
            let c = point_hull(*w, a);
            if better(c, (best_a.0, best_a.1)) {
                best_a = (c.0, c.1, j);
            }
        }
    }
    let mut best_b = (f32::INFINITY, Feature::Vertex(0), 0); // A's vertices against B's hull
    for (i, v) in a.v.iter().enumerate() {
        if n.dot(*v) >= reach_a {
            let c = point_hull(*v, b);
            if better(c, (best_b.0, best_b.1)) {
                best_b = (c.0, c.1, i);
            }
        }
    }
    let r2 = rsum * rsum;
    if best_a.0.min(best_b.0) > r2 {
        return None;
    }
    // The strictly closer side wins, except between two faces: nearly parallel faces keep A's
    // as the reference unless B's is closer by the tolerance (stable ids, depth error <= tol).
    // A vertex pair must never win on tolerance: a vertex pair that is not the exact minimum
    // points off the true normal by far more than its distance error.
    let use_b = match (best_a.1, best_b.1) {
        (Feature::Edge(_), Feature::Edge(_)) => {
            best_b.0 < best_a.0 && (best_a.0 > r2 || best_b.0.sqrt() + tol < best_a.0.sqrt())
        }
        _ => better((best_b.0, best_b.1), (best_a.0, best_a.1)),
    };
    Some(if use_b {
        match best_b.1 {
            Feature::Edge(k) => Closest::EdgeB(k),
            Feature::Vertex(j) => Closest::Vertices(best_b.2, j, best_b.0),
        }
    } else {
        match best_a.1 {
            Feature::Edge(k) => Closest::EdgeA(k),
            Feature::Vertex(i) => Closest::Vertices(i, best_a.2, best_a.0),
        }
    })
}

/// SAT with early outs, then the exact distance test when only the rounding can bridge the gap.
#[inline]
fn touch(a: &Hull, b: &Hull, tol: f32) -> Touch {
    let rsum = a.radius + b.radius;
    let (ia, sa, next_a) = max_separation(a.n, a.v, b.v, rsum);
    if sa > rsum {
        return Touch::Apart;
    }
    let (ib, sb, next_b) = max_separation(b.n, b.v, a.v, rsum);
    if sb > rsum {
        return Touch::Apart;
    }
    let sat = Sat { ia, sa, next_a, ib, sb, next_b };
    if sa <= 0.0 && sb <= 0.0 {
        return Touch::Cores(sat);
    }
    near(a, b, sat, tol)
}

/// What [`touch`] makes of a SAT whose separations are both within the radii and not both
/// within the cores.
fn near(a: &Hull, b: &Hull, sat: Sat, tol: f32) -> Touch {
    let n = if sat.sa >= sat.sb { a.n[sat.ia] } else { -b.n[sat.ib] };
    match closest(a, b, n, a.radius + b.radius, tol) {
        Some(c) => Touch::Near(c, n, sat),
        None => Touch::Apart,
    }
}

/// Clips with edge `k` of `r` as the reference face against the most anti-parallel face of
/// `inc`; `flip` says the reference hull is B.
#[inline]
fn clip_on(r: &Hull, inc: &Hull, k: usize, flip: bool, restore: bool) -> Manifold {
    let i = most_anti_parallel(r.n[k], inc.n);
    clip_faces(r, inc, k, i, flip, restore)
}

/// Clips edge `i` of `inc` against edge `k` of `r` as the reference face.
#[inline]
fn clip_faces(r: &Hull, inc: &Hull, k: usize, i: usize, flip: bool, restore: bool) -> Manifold {
    let (reference, incident) = (Edge::of(r.v, k), Edge::of(inc.v, i));
    if restore && r.radius == 0.0 && inc.radius == 0.0 {
        clip_sharp(&reference, r.n[k], &incident, flip)
    } else {
        clip(&reference, r.n[k], &incident, r.radius, inc.radius, flip, restore)
    }
}

/// The manifold of hull `a` and hull `b` placed at `xf` in A's frame. `size` scales the
/// reference-face tolerance (sum of the two shapes' sizes).
pub(crate) fn collide(a: &Hull, b: &Hull, xf: &Pose, size: f32) -> Manifold {
    let moved = Moved::new(b, xf);
    let b = moved.hull(b.radius);
    let tol = REFERENCE_TOLERANCE * size;
    from_touch(a, &b, touch(a, &b, tol), tol)
}

/// The manifold of hulls `a` and `b` (both in A's frame) from what [`touch`] found.
#[inline]
fn from_touch(a: &Hull, b: &Hull, t: Touch, tol: f32) -> Manifold {
    match t {
        Touch::Apart => Manifold::EMPTY,
        Touch::Cores(Sat { ia, sa, ib, sb, .. }) => {
            if sb > sa + tol {
                clip_on(b, a, ib, true, true)
            } else {
                clip_on(a, b, ia, false, true)
            }
        }
        Touch::Near(Closest::EdgeA(k), ..) => clip_on(a, b, k, false, false),
        Touch::Near(Closest::EdgeB(k), ..) => clip_on(b, a, k, true, false),
        Touch::Near(Closest::Vertices(i, j, d2), axis, _) => {
            let (va, vb) = (a.v[i], b.v[j]);
            let d = d2.sqrt();
            let u = (vb - va) / d;
            // A zero or subnormal gap cannot give a direction; the SAT axis is then exact enough.
            let normal = if d > 0.0 && u.is_finite() { u } else { axis };
            let point = 0.5 * (va + vb) + (0.5 * (a.radius - b.radius)) * normal;
            Manifold::one_point(normal, point, a.radius + b.radius - d, feature_id(i as u16, j as u16))
        }
    }
}

/// Marks a witness's faces as recorded with the cores apart (beside [`Faces::pack`]'s bits).
const CORES_APART: u32 = 1 << 13;

/// [`collide`] through a [`Witness`] (see [`super::reuse`]). The SAT's choice of face on each
/// hull is taken from the witness while it provably holds at `xf`: the two chosen faces'
/// separations are computed as the SAT computes them, a pass over each hull's vertices instead
/// of the SAT's pass per face, and every decision that follows from them is made again as
/// [`touch`] makes it. When the cores overlap, the witness also holds the incident face, and
/// the decisions that hang on a hair in a resting stack are made again (the cores overlap, and
/// which hull holds the reference face). When only the radii bridge the gap (rounded shapes,
/// capsules), the exact closest-feature search runs in full on the same separations: it is
/// the SAT, not that search, that costs a pass per face.
pub(crate) fn collide_reusing(a: &Hull, b: &Hull, xf: &Pose, size: f32, w: &mut Witness) -> Manifold {
    let moved = Moved::new(b, xf);
    let b = moved.hull(b.radius);
    let tol = REFERENCE_TOLERANCE * size;
    if let Some(bits) = w.reusable(xf, tag::POLYGONS) {
        let (apart, f) = (bits & CORES_APART != 0, Faces::unpack(bits & !CORES_APART));
        let sa = face_separation(a.n[f.a], a.v[f.a], b.v);
        let sb = face_separation(b.n[f.b], b.v[f.b], a.v);
        let rsum = a.radius + b.radius;
        if sa > rsum || sb > rsum {
            w.mark_reused();
            return Manifold::EMPTY;
        }
        let cores = sa <= 0.0 && sb <= 0.0;
        if apart && !cores {
            w.mark_reused();
            let sat = Sat { ia: f.a, sa, next_a: f32::NAN, ib: f.b, sb, next_b: f32::NAN };
            return from_touch(a, &b, near(a, &b, sat, tol), tol);
        }
        if !apart && cores && (sb > sa + tol) == f.flip {
            w.mark_reused();
            return if f.flip {
                clip_faces(&b, a, f.b, f.incident, true, true)
            } else {
                clip_faces(a, &b, f.a, f.incident, false, true)
            };
        }
    }
    // A's faces' separations move by the motion measure with lever arm B's radius about its
    // origin, B's by it with the offset plus A's radius; a unit normal by |Δq|₁ (see
    // `super::reuse`). Any bound at least those lever arms will do: 1-norms, free of square
    // roots.
    let reach = || {
        let l1 = |v: Vec2| v.x.abs() + v.y.abs();
        let radius = |h: &Hull, frame: Vec2| h.v.iter().map(|v| l1(*v - frame)).fold(0.0, f32::max);
        l1(xf.p) + radius(a, Vec2::ZERO) + radius(&b, xf.p)
    };
    match touch(a, &b, tol) {
        Touch::Cores(sat) => {
            let flip = sat.sb > sat.sa + tol;
            let (r, inc, k) = if flip { (&b, a, sat.ib) } else { (a, &b, sat.ia) };
            let (incident, margin) = anti_parallel_margin(r.n[k], inc.n);
            let reach = reach();
            let faces = Faces { a: sat.ia, b: sat.ib, flip, incident };
            w.record(xf, sat.gap().min(0.5 * margin * reach), reach, features(tag::POLYGONS, faces.pack()));
            clip_faces(r, inc, k, incident, flip, true)
        }
        t @ Touch::Near(_, _, sat) => {
            let faces = Faces { a: sat.ia, b: sat.ib, flip: false, incident: 0 };
            w.record(xf, sat.gap(), reach(), features(tag::POLYGONS, CORES_APART | faces.pack()));
            from_touch(a, &b, t, tol)
        }
        Touch::Apart => {
            w.clear();
            Manifold::EMPTY
        }
    }
}

/// [`most_anti_parallel`] and the margin by which the runner-up lost.
#[inline]
fn anti_parallel_margin(n: Vec2, normals: &[Vec2]) -> (usize, f32) {
    let i = most_anti_parallel(n, normals);
    let min = n.dot(normals[i]);
    let runner_up =
        normals.iter().enumerate().filter(|&(k, _)| k != i).map(|(_, m)| n.dot(*m)).fold(f32::INFINITY, f32::min);
    (i, runner_up - min)
}

/// Whether hull `a` and hull `b` placed at `xf` touch: exactly `collide(..).count > 0`, without
/// clipping.
pub(crate) fn collide_test(a: &Hull, b: &Hull, xf: &Pose, size: f32) -> bool {
    let moved = Moved::new(b, xf);
    !matches!(touch(a, &moved.hull(b.radius), REFERENCE_TOLERANCE * size), Touch::Apart)
}

/// The contact manifold of two (possibly rounded) polygons; `xf` is B's pose in A's frame.
pub fn manifold(a: &Polygon, b: &Polygon, xf: &Pose) -> Manifold {
    collide(&Hull::of(a), &Hull::of(b), xf, polygon_size(a) + polygon_size(b))
}

/// Whether two polygons touch or overlap; agrees exactly with `manifold(..).count > 0`.
pub fn overlap(a: &Polygon, b: &Polygon, xf: &Pose) -> bool {
    collide_test(&Hull::of(a), &Hull::of(b), xf, polygon_size(a) + polygon_size(b))
}

/// [`manifold`] through a witness ([`collide_reusing`]).
pub(crate) fn manifold_reusing(a: &Polygon, b: &Polygon, xf: &Pose, w: &mut Witness) -> Manifold {
    collide_reusing(&Hull::of(a), &Hull::of(b), xf, polygon_size(a) + polygon_size(b), w)
}

/// [`manifold_cuboid`] through a witness ([`collide_reusing`]).
pub(crate) fn manifold_cuboid_reusing(a: &Cuboid, b: &Polygon, xf: &Pose, w: &mut Witness) -> Manifold {
    manifold_reusing(&a.to_polygon(), b, xf, w)
}

/// Box–polygon: the box as a 4-gon.
pub fn manifold_cuboid(a: &Cuboid, b: &Polygon, xf: &Pose) -> Manifold {
    manifold(&a.to_polygon(), b, xf)
}

/// Box–polygon overlap: the box as a 4-gon.
pub fn overlap_cuboid(a: &Cuboid, b: &Polygon, xf: &Pose) -> bool {
    overlap(&a.to_polygon(), b, xf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::test_util::{check_many, random_polygon, random_pose};
    use crate::collide::{contact, overlaps};
    use crate::shape::Shape;

    fn square(h: f32, r: f32) -> Shape {
        Shape::rounded_box(Vec2::splat(h), r).unwrap()
    }

    fn at(x: f32, y: f32) -> Pose {
        Pose::from_translation(Vec2::new(x, y))
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn boxes_overlap_on_axis_of_least_overlap_with_two_points() {
        let (a, b) = (square(1.0, 0.0), square(1.0, 0.0));
        let m = contact(&a, &Pose::IDENTITY, &b, &at(1.5, 0.5)).unwrap();
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::X);
        let mut ys = [m.points[0].point.y, m.points[1].point.y];
        ys.sort_by(f32::total_cmp);
        assert_eq!(ys, [-0.5, 1.0]);
        for p in m.points() {
            assert_eq!(p.depth, 0.5);
            assert_eq!(p.point.x, 0.75); // midway between A's face (x = 1) and B's (x = 0.5)
        }
        assert_ne!(m.points[0].id, m.points[1].id);
        // Reference edge 1 of A (vertices 1, 2), incident edge 3 of B (vertices 3, 0): B's
        // bottom-left corner on A's face is (A's vertex 1, B's vertex 0); B's top edge clipped by
        // A's vertex 2 is (A's vertex 2, B's vertex 3).
        let ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
        assert!(ids.contains(&feature_id(1, 0)) && ids.contains(&feature_id(2, 3)), "{ids:x?}");
        assert!(overlaps(&a, &Pose::IDENTITY, &b, &at(1.5, 0.5)).unwrap());
    }

    #[test]
    fn separated_boxes_have_no_contact() {
        let (a, b) = (square(1.0, 0.0), square(1.0, 0.0));
        for p in [at(2.5, 0.0), at(0.0, -2.001), at(2.01, 2.01)] {
            assert_eq!(contact(&a, &Pose::IDENTITY, &b, &p).unwrap().count, 0);
            assert!(!overlaps(&a, &Pose::IDENTITY, &b, &p).unwrap());
        }
    }

    #[test]
    fn exactly_touching_is_a_contact_of_depth_zero() {
        let (a, b) = (square(1.0, 0.0), square(0.5, 0.0));
        // Face against face.
        let m = contact(&a, &Pose::IDENTITY, &b, &at(1.5, 0.25)).unwrap();
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::X);
        assert!(m.points().iter().all(|p| p.depth == 0.0 && p.point.x == 1.0));
        // Corner on corner.
        let m = contact(&a, &Pose::IDENTITY, &b, &at(1.5, 1.5)).unwrap();
        assert!(m.count > 0 && m.max_depth() == Some(0.0));
        assert!(overlaps(&a, &Pose::IDENTITY, &b, &at(1.5, 1.5)).unwrap());
        // Rounded: cores 1.5 apart, radii 0.5 + 1.0.
        let (ra, rb) = (square(1.0, 0.5), square(0.5, 1.0));
        let m = contact(&ra, &Pose::IDENTITY, &rb, &at(3.0, 0.0)).unwrap();
        assert_eq!(m.count, 2);
        assert!(m.points().iter().all(|p| p.depth == 0.0 && p.point.x == 1.5));
        assert!(!overlaps(&ra, &Pose::IDENTITY, &rb, &at(3.0 + 1e-6, 0.0)).unwrap());
    }

    #[test]
    fn deep_containment_uses_the_shortest_way_out() {
        let (a, b) = (square(5.0, 0.0), square(0.5, 0.0));
        let m = contact(&a, &Pose::IDENTITY, &b, &at(3.5, 1.0)).unwrap();
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::X);
        assert!(m.points().iter().all(|p| p.depth == 2.0));
        // Concentric: any face works, the depth is the sum of half-widths.
        let m = contact(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY).unwrap();
        assert_eq!(m.max_depth(), Some(5.5));
    }

    #[test]
    fn rotated_corner_into_face_gives_one_point() {
        let (a, b) = (square(1.0, 0.0), square(1.0, 0.0));
        let pb = Pose::new(Vec2::new(1.0 + std::f32::consts::SQRT_2 - 0.2, 0.0), std::f32::consts::FRAC_PI_4);
        let m = contact(&a, &Pose::IDENTITY, &b, &pb).unwrap();
        assert_eq!(m.count, 1);
        assert!(close(m.normal, Vec2::X));
        assert!((m.points[0].depth - 0.2).abs() < 1e-5);
        assert!(close(m.points[0].point, Vec2::new(0.9, 0.0)), "{m:?}");
    }

    #[test]
    fn rounded_faces_apart_but_within_radii() {
        let (a, b) = (square(1.0, 0.25), square(1.0, 0.25));
        let m = contact(&a, &Pose::IDENTITY, &b, &at(2.4, 0.0)).unwrap();
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::X);
        for p in m.points() {
            assert!((p.depth - 0.1).abs() < 1e-6);
            assert!((p.point.x - 1.2).abs() < 1e-6);
        }
        // Cores overlapping: core penetration plus both radii.
        let m = contact(&a, &Pose::IDENTITY, &b, &at(1.8, 0.0)).unwrap();
        assert!((m.max_depth().unwrap() - 0.7).abs() < 1e-6);
    }

    #[test]
    fn rounded_corners_meet_vertex_to_vertex() {
        let (a, b) = (square(1.0, 0.25), square(1.0, 0.25));
        let m = contact(&a, &Pose::IDENTITY, &b, &at(2.3, 2.3)).unwrap();
        assert_eq!(m.count, 1);
        assert!(close(m.normal, Vec2::ONE.normalize()));
        let gap = 0.3 * std::f32::consts::SQRT_2;
        assert!((m.points[0].depth - (0.5 - gap)).abs() < 1e-5);
        assert!(close(m.points[0].point, Vec2::splat(1.15)));
        assert_eq!(m.points[0].id, feature_id(2, 0));
        // SAT alone would call this touching (face gap 0.3 < 0.5); the corners are 0.42 apart.
        assert!(!overlaps(&a, &Pose::IDENTITY, &b, &at(2.36, 2.36)).unwrap());
        assert_eq!(contact(&a, &Pose::IDENTITY, &b, &at(2.36, 2.36)).unwrap().count, 0);
    }

    #[test]
    fn ids_stay_stable_while_a_box_slides_on_a_face() {
        let (a, b) = (square(2.0, 0.0), square(0.5, 0.0));
        let ids = |x: f32| {
            let m = contact(&a, &Pose::IDENTITY, &b, &Pose::new(Vec2::new(x, 2.45), 0.01)).unwrap();
            let mut v: Vec<u32> = m.points().iter().map(|p| p.id).collect();
            v.sort();
            v
        };
        let first = ids(-1.0);
        assert_eq!(first.len(), 2);
        for k in 0..20 {
            assert_eq!(ids(-1.0 + k as f32 * 0.1), first);
        }
    }

    /// Reuse is exact: along random walks of the relative pose from a resting overlap (random
    /// polygons, rounded or not, some with their vertices far from their own origin, sizes from
    /// 1e-2 to 1e2, steps from 1e-7 to 1e-2 of the size), every manifold through a witness equals
    /// the full kernel's bit for bit, and small motions reuse most of the time.
    #[test]
    fn reuse_gives_the_full_kernels_manifold_bit_for_bit() {
        use crate::collide::reuse::{Witness, tag};
        let mut rng = crate::collide::test_util::SplitMix64::new(0x5eed_00a2);
        let scaled = |rng: &mut crate::collide::test_util::SplitMix64, scale: f32, offset: Vec2| {
            let Shape::Polygon(p) = random_polygon(rng, 0.3) else { unreachable!() };
            let vs: Vec<Vec2> = p.vertices().iter().map(|v| *v * scale + offset).collect();
            let Shape::Polygon(p) = Shape::polygon(&vs, p.radius * scale).unwrap() else { unreachable!() };
            p
        };
        let (mut reused, mut small) = (0, 0);
        for walk in 0..300 {
            let scale = 10f32.powf(rng.range(-2.0, 2.0));
            let offset = if walk % 3 == 0 {
                Vec2::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0)) * scale
            } else {
                Vec2::ZERO
            };
            let (a, b) = (scaled(&mut rng, scale, Vec2::ZERO), scaled(&mut rng, scale, offset));
            // B along a random direction, moved in from far away until it overlaps by 1% of the size.
            let (angle, dir) = (rng.range(-3.2, 3.2), rng.range(-3.2, 3.2));
            let u = Vec2::new(dir.cos(), dir.sin());
            let at = |t: f32| Pose::new(u * t, angle).mul(&Pose::from_translation(-offset));
            let (mut lo, mut hi) = (0.0, 20.0 * scale);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if manifold(&a, &b, &at(mid)).count > 0 { lo = mid } else { hi = mid }
            }
            let mut xf = at(lo - 0.01 * scale);
            let step = scale * 10f32.powf(rng.range(-7.0, -2.0));
            let mut w = Witness::default();
            for _ in 0..100 {
                let turn = xf.q.s.atan2(xf.q.c) + rng.range(-1.0, 1.0) * step / scale;
                xf = Pose::new(xf.p + Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * step, turn);
                let could = w.reusable(&xf, tag::POLYGONS).is_some();
                let m = manifold_reusing(&a, &b, &xf, &mut w);
                let full = manifold(&a, &b, &xf);
                assert_eq!(bytemuck::bytes_of(&m), bytemuck::bytes_of(&full), "{a:?} {b:?} {xf:?}\n{m:?}\n{full:?}");
                if step < 1e-4 * scale && a.radius == 0.0 && b.radius == 0.0 {
                    reused += usize::from(could);
                    small += 1;
                }
            }
        }
        assert!(reused * 10 > small * 7, "{reused} of {small}");
    }

    /// Reuse is exact (see `test_util::reuse_walks`) for rounded polygons and boxes, which rest
    /// with their cores apart, against sharp and rounded polygons.
    #[test]
    fn reuse_with_the_cores_apart_gives_the_full_kernels_manifold_bit_for_bit() {
        use crate::collide::test_util::{reuse_walks, scaled};
        let (reused, evaluated) = reuse_walks(0x5eed_00a5, 300, |rng, scale| {
            let a = match rng.below(2) {
                0 => Shape::rounded_box(Vec2::new(rng.range(0.2, 2.0), rng.range(0.2, 2.0)), rng.range(0.01, 0.5))
                    .unwrap(),
                _ => random_polygon(rng, 1.0),
            };
            let offset = if rng.below(3) == 0 { Vec2::new(rng.range(-50.0, 50.0), 30.0) } else { Vec2::ZERO };
            (scaled(&a, scale, Vec2::ZERO), scaled(&random_polygon(rng, 0.5), scale, offset))
        });
        assert!(reused * 10 > evaluated * 7, "{reused} of {evaluated}");
    }

    #[test]
    fn random_pairs_agree_with_brute_force_and_parry() {
        let touching = check_many(0x5eed_0001, 5000, |rng| {
            let (sa, sb) = (random_polygon(rng, 0.4), random_polygon(rng, 0.4));
            (sa, random_pose(rng, 1.5), sb, random_pose(rng, 1.5))
        });
        assert!(touching > 1000, "the random scene should mostly touch: {touching}");
    }

    #[test]
    fn box_polygon_agrees_with_brute_force_and_parry() {
        check_many(0x5eed_0002, 3000, |rng| {
            let sa = Shape::cuboid(Vec2::new(rng.range(0.2, 2.0), rng.range(0.2, 2.0))).unwrap();
            let sb = random_polygon(rng, 0.4);
            (sa, random_pose(rng, 1.5), sb, random_pose(rng, 1.5))
        });
    }
}
