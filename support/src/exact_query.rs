//! An exact `f64` reference for the distance, linear-cast and time-of-impact queries, the oracle
//! of `tests/query_oracle.rs`.
//!
//! Every sapwood shape is a convex *core* — a point (circle), a segment (capsule) or a convex
//! polygon (box, polygon) — grown by a radius; a compound is a union of such parts. Everything
//! here follows from that, in `f64`, with no iteration that stops on a tolerance:
//!
//! - **Distance** ([`distance`]): the distance between two disjoint convex cores is attained at
//!   a vertex of one and a point of an edge of the other, so it is the minimum of the
//!   vertex–edge distances. Whether the cores are disjoint at all is decided by the witness
//!   direction `w` of that minimum: for disjoint cores the support gap of the two cores along
//!   `w` equals the distance, for intersecting ones it is `<= 0` (a common point lies between
//!   the two supports). The shapes' distance is the cores' distance minus both radii, clamped
//!   at 0; a compound's is the minimum over part pairs.
//! - **Signed distance** ([`signed_distance`]): the origin against the convex hull of the core
//!   differences `b - a` (the Minkowski difference), grown by the radii; inside, minus the depth
//!   to the nearest hull edge. A second, independent route to the distance, used to check the
//!   first one and to measure penetration.
//! - **Linear cast** ([`ExactCast`]): with both shapes translating, each part pair's distance is
//!   the distance from a point moving on a line to a fixed convex set (the Minkowski difference),
//!   hence convex in the fraction. A golden-section search finds its minimum over `[0, max]`;
//!   bisection on the decreasing side then finds the first fraction where it reaches a target,
//!   to `f64` precision. The answer is the earliest over part pairs.
//! - **Time of impact** ([`time_of_impact`]): with rotation the distance is no longer convex, so
//!   it is sampled along the sweep — densely enough that no touch can hide between samples. The
//!   distance changes no faster than the largest relative speed of any two points of the shapes,
//!   `L = |Δp_b - Δp_a| + |Δθ_a| R_a + |Δθ_b| R_b` (`R` the shape's reach from its rotation
//!   centre), so after a sample at distance `d` above the target the next sample may come
//!   `(d - target) / L` later (conservative advancement used as a sampling rule). The samples
//!   stop at the first one within `tol` of the target; before it the distance never dropped
//!   below the target.
//!
//! Poses are taken with the `f32` pose's own cosine and sine, so that a pose that is not exactly
//! unit (f32 rounding) describes the same shape sapwood sees.

use glam::DVec2;
use sapwood::{Pose, Shape, Vec2};

/// The most vertices of a core (a polygon's limit).
pub const MAX_CORE: usize = 8;

/// A convex core grown by a radius: one point (circle), two (capsule) or 3..=8
/// counter-clockwise vertices (box, polygon).
#[derive(Clone, Copy, Debug)]
pub struct Core {
    pts: [DVec2; MAX_CORE],
    n: usize,
    /// The rounding radius (circle and capsule radius, polygon rounding, 0 for a box).
    pub radius: f64,
}

impl Core {
    fn new(pts: &[DVec2], radius: f64) -> Core {
        let mut c = Core { pts: [DVec2::ZERO; MAX_CORE], n: pts.len(), radius };
        c.pts[..pts.len()].copy_from_slice(pts);
        c
    }

    /// The core's vertices.
    pub fn vertices(&self) -> &[DVec2] {
        &self.pts[..self.n]
    }

    /// The number of edges: a point is one degenerate edge, a segment one edge.
    fn edge_count(&self) -> usize {
        if self.n <= 2 { 1 } else { self.n }
    }

    /// Edge `i` (a point's only edge is the point twice).
    fn edge(&self, i: usize) -> (DVec2, DVec2) {
        match self.n {
            1 => (self.pts[0], self.pts[0]),
            2 => (self.pts[0], self.pts[1]),
            n => (self.pts[i], self.pts[(i + 1) % n]),
        }
    }

    /// The core moved by `pose`.
    pub fn transformed(&self, pose: &PoseD) -> Core {
        let mut c = *self;
        for p in &mut c.pts[..c.n] {
            *p = pose.apply(*p);
        }
        c
    }

    /// Signed distance from `q` to the core (negative inside a polygon core), without the radius.
    fn core_signed_distance(&self, q: DVec2) -> f64 {
        if self.n >= 3 {
            let mut inside = f64::NEG_INFINITY;
            for i in 0..self.n {
                let (a, b) = self.edge(i);
                let e = b - a;
                inside = inside.max(DVec2::new(e.y, -e.x).normalize().dot(q - a));
            }
            if inside <= 0.0 {
                return inside;
            }
        }
        (0..self.edge_count())
            .map(|i| {
                let (a, b) = self.edge(i);
                (closest_on_segment(a, b, q) - q).length()
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// Signed distance from `q` to the shape (negative inside).
    pub fn signed_distance_to_point(&self, q: DVec2) -> f64 {
        self.core_signed_distance(q) - self.radius
    }
}

/// A rigid pose in `f64`: position and the cosine and sine of the angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseD {
    /// Position.
    pub p: DVec2,
    /// Cosine of the angle.
    pub c: f64,
    /// Sine of the angle.
    pub s: f64,
}

impl PoseD {
    /// The identity.
    pub const IDENTITY: PoseD = PoseD { p: DVec2::ZERO, c: 1.0, s: 0.0 };

    /// The same pose: the `f32` pose's own cosine and sine, or, for a rotation further than
    /// 1e-6 from unit length (by sapwood's own `f32` test), the same rescaled in `f64` to unit
    /// length: sapwood accepts a rotation within 1e-4 of unit length and means the unit one.
    pub fn from_pose(p: &Pose) -> PoseD {
        let (c, s) = (p.q.c as f64, p.q.s as f64);
        let len = if ((p.q.c * p.q.c + p.q.s * p.q.s) - 1.0).abs() <= 1e-6 { 1.0 } else { c.hypot(s) };
        PoseD { p: d64(p.p), c: c / len, s: s / len }
    }

    /// A point from the local frame to the world.
    pub fn apply(&self, v: DVec2) -> DVec2 {
        DVec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y) + self.p
    }

    /// `self * other`: first `other`, then `self`.
    pub fn mul(&self, o: &PoseD) -> PoseD {
        PoseD { p: self.apply(o.p), c: self.c * o.c - self.s * o.s, s: self.s * o.c + self.c * o.s }
    }
}

/// An `f32` vector in `f64`.
pub fn d64(v: Vec2) -> DVec2 {
    DVec2::new(v.x as f64, v.y as f64)
}

fn closest_on_segment(a: DVec2, b: DVec2, q: DVec2) -> DVec2 {
    let e = b - a;
    let l2 = e.length_squared();
    if l2 == 0.0 {
        return a;
    }
    a + e * ((q - a).dot(e) / l2).clamp(0.0, 1.0)
}

/// A shape as the cores of its convex parts in the shape's own frame (a compound's part poses
/// applied, a chain's segments), with its reach from the local origin.
#[derive(Clone, Debug)]
pub struct Body {
    /// One core per part (one for a convex shape).
    pub parts: Vec<Core>,
    /// The largest distance of any point of the shape from its local origin, the centre its
    /// sweeps rotate about.
    pub reach: f64,
}

fn convex_core(shape: &Shape) -> Core {
    match shape {
        Shape::Circle(c) => Core::new(&[DVec2::ZERO], c.radius as f64),
        Shape::Capsule(c) => Core::new(&[d64(c.a), d64(c.b)], c.radius as f64),
        Shape::Segment(s) => Core::new(&[d64(s.a), d64(s.b)], s.radius as f64),
        Shape::Cuboid(b) => {
            let h = d64(b.half_extents);
            Core::new(&[DVec2::new(-h.x, -h.y), DVec2::new(h.x, -h.y), h, DVec2::new(-h.x, h.y)], 0.0)
        }
        Shape::Polygon(p) => {
            let vs: Vec<DVec2> = p.vertices().iter().map(|v| d64(*v)).collect();
            Core::new(&vs, p.radius() as f64)
        }
        Shape::Compound(_) | Shape::Chain(_) => unreachable!("compound parts are convex"),
    }
}

impl Body {
    /// The cores of `shape`.
    pub fn new(shape: &Shape) -> Body {
        let parts: Vec<Core> = match shape {
            Shape::Compound(c) => {
                c.parts().iter().map(|(pose, part)| convex_core(part).transformed(&PoseD::from_pose(pose))).collect()
            }
            // A chain as its segments, both sides (as the queries see it).
            Shape::Chain(c) => (0..c.segment_count())
                .filter_map(|i| c.segment(i))
                .map(|s| Core::new(&[d64(s.a), d64(s.b)], 0.0))
                .collect(),
            convex => vec![convex_core(convex)],
        };
        let reach = parts
            .iter()
            .map(|c| c.vertices().iter().map(|v| v.length()).fold(0.0, f64::max) + c.radius)
            .fold(0.0, f64::max);
        Body { parts, reach }
    }

    /// The part cores placed at `pose`, into `out` (cleared first).
    pub fn place_into(&self, pose: &PoseD, out: &mut Vec<Core>) {
        out.clear();
        out.extend(self.parts.iter().map(|c| c.transformed(pose)));
    }

    /// The part cores placed at `pose`.
    pub fn placed(&self, pose: &PoseD) -> Vec<Core> {
        let mut v = Vec::with_capacity(self.parts.len());
        self.place_into(pose, &mut v);
        v
    }
}

/// Signed distance from a world point to a placed shape (negative inside; a compound's is the
/// minimum over parts, exact outside and the deepest part's depth inside).
pub fn point_signed_distance(parts: &[Core], q: DVec2) -> f64 {
    parts.iter().map(|c| c.signed_distance_to_point(q)).fold(f64::INFINITY, f64::min)
}

// ---------------------------------------------------------------------------------------------
// Distance

/// The distance between two cores (0 when they intersect) and a closest pair of points.
#[derive(Clone, Copy, Debug)]
pub struct CoreDistance {
    /// Distance between the cores, without the radii; 0 when they intersect.
    pub distance: f64,
    /// Closest point on A's core (when disjoint).
    pub point_a: DVec2,
    /// Closest point on B's core (when disjoint).
    pub point_b: DVec2,
}

/// The exact distance between two convex cores: the minimum vertex–edge distance, or 0 when
/// the support gap along its direction shows the cores intersect (see the module docs).
pub fn core_distance(a: &Core, b: &Core) -> CoreDistance {
    // Each edge as origin, direction and inverse squared length (0 for a point's edge), so that
    // the vertex-edge loops divide nothing.
    let edges = |c: &Core| {
        let mut out = [(DVec2::ZERO, DVec2::ZERO, 0.0f64); MAX_CORE];
        for (i, o) in out.iter_mut().enumerate().take(c.edge_count()) {
            let (p, q) = c.edge(i);
            let e = q - p;
            let l2 = e.length_squared();
            *o = (p, e, if l2 > 0.0 { 1.0 / l2 } else { 0.0 });
        }
        out
    };
    let nearest = |v: DVec2, es: &[(DVec2, DVec2, f64)], best: &mut (f64, DVec2, DVec2), flip: bool| {
        for &(p, e, inv) in es {
            let c = p + e * ((v - p).dot(e) * inv).clamp(0.0, 1.0);
            let d2 = (c - v).length_squared();
            if d2 < best.0 {
                *best = if flip { (d2, c, v) } else { (d2, v, c) };
            }
        }
    };
    let (ea, eb) = (edges(a), edges(b));
    let mut best = (f64::INFINITY, DVec2::ZERO, DVec2::ZERO);
    for &v in a.vertices() {
        nearest(v, &eb[..b.edge_count()], &mut best, false);
    }
    for &v in b.vertices() {
        nearest(v, &ea[..a.edge_count()], &mut best, true);
    }
    let (d2, pa, pb) = best;
    let d = d2.sqrt();
    if d == 0.0 {
        return CoreDistance { distance: 0.0, point_a: pa, point_b: pb };
    }
    let w = (pb - pa) / d;
    let max_a = a.vertices().iter().map(|v| v.dot(w)).fold(f64::NEG_INFINITY, f64::max);
    let min_b = b.vertices().iter().map(|v| v.dot(w)).fold(f64::INFINITY, f64::min);
    // Disjoint: the gap is `d` (to rounding). Intersecting: the gap is <= 0.
    if min_b - max_a < 0.5 * d {
        return CoreDistance { distance: 0.0, point_a: pa, point_b: pb };
    }
    CoreDistance { distance: d, point_a: pa, point_b: pb }
}

/// The exact distance between two shapes and where it is attained.
#[derive(Clone, Copy, Debug)]
pub struct ExactDistance {
    /// The distance, 0 when the shapes overlap or touch.
    pub distance: f64,
    /// The distance between the cores of the closest part pair minus both radii: equal to
    /// `distance` when separated, `<= 0` when the cores are apart but the radii overlap, and
    /// 0 when the cores themselves intersect (a lower bound on the depth is then
    /// [`signed_distance`]).
    pub core_gap: f64,
    /// The closest point on A's surface (separated shapes only; on A's core otherwise).
    pub point_a: DVec2,
    /// The closest point on B's surface (separated shapes only; on B's core otherwise).
    pub point_b: DVec2,
    /// Unit normal from A to B: `(point_b - point_a) / distance` when separated, zero otherwise.
    /// For convex shapes this direction is unique even where the closest points are not
    /// (parallel edges).
    pub normal: DVec2,
    /// The part of A attaining the distance (lowest index on ties).
    pub part_a: usize,
    /// The part of B attaining the distance (lowest index on ties).
    pub part_b: usize,
}

/// The distance between one part pair.
pub fn pair_distance(a: &Core, b: &Core) -> ExactDistance {
    let cd = core_distance(a, b);
    let r = a.radius + b.radius;
    let gap = if cd.distance > 0.0 { cd.distance - r } else { 0.0 };
    if gap > 0.0 {
        let n = (cd.point_b - cd.point_a) / cd.distance;
        ExactDistance {
            distance: gap,
            core_gap: gap,
            point_a: cd.point_a + n * a.radius,
            point_b: cd.point_b - n * b.radius,
            normal: n,
            part_a: 0,
            part_b: 0,
        }
    } else {
        ExactDistance {
            distance: 0.0,
            core_gap: gap.min(0.0),
            point_a: cd.point_a,
            point_b: cd.point_b,
            normal: DVec2::ZERO,
            part_a: 0,
            part_b: 0,
        }
    }
}

/// The distance between two placed shapes: the minimum over part pairs (the lowest part
/// indices on equal distances).
pub fn distance_placed(a: &[Core], b: &[Core]) -> ExactDistance {
    let mut best: Option<ExactDistance> = None;
    for (i, ca) in a.iter().enumerate() {
        for (j, cb) in b.iter().enumerate() {
            let mut d = pair_distance(ca, cb);
            d.part_a = i;
            d.part_b = j;
            let better = match &best {
                None => true,
                Some(b) => (d.distance, d.core_gap) < (b.distance, b.core_gap),
            };
            if better {
                best = Some(d);
            }
        }
    }
    best.expect("a shape has at least one part")
}

/// The distance between two shapes at their poses.
pub fn distance(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> ExactDistance {
    distance_placed(&Body::new(sa).placed(&PoseD::from_pose(pa)), &Body::new(sb).placed(&PoseD::from_pose(pb)))
}

// ---------------------------------------------------------------------------------------------
// Signed distance through the Minkowski difference

/// Convex hull, counter-clockwise, collinear points dropped (Andrew's monotone chain); one or two
/// points for degenerate input.
fn hull(mut pts: Vec<DVec2>) -> Vec<DVec2> {
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut h: Vec<DVec2> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = h.len();
        let mut push = |p: DVec2| {
            while h.len() >= start + 2 && (h[h.len() - 1] - h[h.len() - 2]).perp_dot(p - h[h.len() - 2]) <= 0.0 {
                h.pop();
            }
            h.push(p);
        };
        if pass == 0 {
            pts.iter().for_each(|p| push(*p));
        } else {
            pts.iter().rev().for_each(|p| push(*p));
        }
        h.pop();
    }
    if h.len() < 2 {
        return vec![pts[0], pts[pts.len() - 1]];
    }
    h
}

/// The Minkowski difference `B ⊖ A` of two cores: the hull of every `b - a` with its unit edge
/// normals, and the radii sum.
#[derive(Clone, Debug)]
pub struct MinkowskiDifference {
    hull: Vec<DVec2>,
    normals: Vec<DVec2>,
    radius: f64,
    /// The hull's centre and the radius of a circle about it holding the grown hull, for
    /// culling far pairs.
    centre: DVec2,
    reach: f64,
}

impl MinkowskiDifference {
    /// `B ⊖ A` for cores placed in the world.
    pub fn new(a: &Core, b: &Core) -> MinkowskiDifference {
        let mut d = Vec::with_capacity(a.n * b.n);
        for &vb in b.vertices() {
            for &va in a.vertices() {
                d.push(vb - va);
            }
        }
        let hull = hull(d);
        let n = hull.len();
        let normals = if n >= 3 {
            (0..n)
                .map(|i| {
                    let e = hull[(i + 1) % n] - hull[i];
                    DVec2::new(e.y, -e.x).normalize()
                })
                .collect()
        } else {
            Vec::new()
        };
        let centre = hull.iter().copied().sum::<DVec2>() / n as f64;
        let radius = a.radius + b.radius;
        let reach = hull.iter().map(|v| (*v - centre).length()).fold(0.0, f64::max) + radius;
        MinkowskiDifference { hull, normals, radius, centre, reach }
    }

    /// Signed distance between the shapes with B shifted by `shift` relative to A: negative is
    /// the depth of the minimum translation out of contact.
    pub fn signed_distance(&self, shift: DVec2) -> f64 {
        let q = -shift;
        let h = &self.hull;
        let sd = match h.len() {
            1 => (h[0] - q).length(),
            2 => (closest_on_segment(h[0], h[1], q) - q).length(),
            n => {
                let inside =
                    self.normals.iter().zip(h).map(|(nrm, v)| nrm.dot(q - *v)).fold(f64::NEG_INFINITY, f64::max);
                if inside <= 0.0 {
                    inside
                } else {
                    // Outside: the nearest point is on an edge that faces q.
                    let mut best = f64::INFINITY;
                    for i in 0..n {
                        if self.normals[i].dot(q - h[i]) >= 0.0 {
                            best = best.min((closest_on_segment(h[i], h[(i + 1) % n], q) - q).length_squared());
                        }
                    }
                    best.sqrt()
                }
            }
        };
        sd - self.radius
    }

    /// A lower bound on the signed distance over shifts `shift0 + s * dir` for `s` in `[0, 1]`.
    fn lower_bound_along(&self, shift0: DVec2, dir: DVec2) -> f64 {
        // The distance from the hull's centre to the moving point -shift, less the reach.
        let (p, q) = (-shift0, -shift0 - dir);
        (closest_on_segment(p, q, self.centre) - self.centre).length() - self.reach
    }
}

/// Signed distance between one part pair: the distance when apart, minus the depth of the
/// minimum translation out of contact when overlapping.
pub fn pair_signed_distance(a: &Core, b: &Core) -> f64 {
    let d = pair_distance(a, b);
    if d.distance > 0.0 { d.distance } else { MinkowskiDifference::new(a, b).signed_distance(DVec2::ZERO) }
}

/// Signed distance between two placed shapes (negative: penetration depth), the minimum over
/// part pairs. For convex shapes this is exact; for a compound it is the deepest part pair's
/// depth. It changes no faster than the shapes' points move relative to each other.
pub fn signed_distance(a: &[Core], b: &[Core]) -> f64 {
    let mut best = f64::INFINITY;
    for ca in a {
        for cb in b {
            best = best.min(pair_signed_distance(ca, cb));
        }
    }
    best
}

/// One convex part of a placed collider, as a world pairs it.
#[derive(Clone, Copy, Debug)]
pub struct PlacedPart {
    /// The part's core, placed.
    pub core: Core,
    /// The point a one-sided chain judges the part's side by, as sapwood and Box2D do: a
    /// polygon's centroid, a capsule's or segment's middle, a circle's centre (a chain
    /// segment's own middle, unused: two chains never touch).
    pub centre: DVec2,
    /// A segment of a one-sided chain: it touches only parts whose centre is in front of it
    /// (on the right of its direction, or on its line).
    pub one_sided: bool,
}

impl PlacedPart {
    /// Whether this part may touch `other`: always, but for a one-sided chain's segment, which
    /// gives nothing to a part whose centre is behind it.
    #[must_use]
    pub fn faces(&self, other: &PlacedPart) -> bool {
        if !self.one_sided {
            return true;
        }
        let (a, b) = (self.core.pts[0], self.core.pts[1]);
        let e = b - a;
        DVec2::new(e.y, -e.x).dot(other.centre - a) >= 0.0
    }
}

/// The parts of `shape` placed at `pose` (a compound's parts, a chain's segments).
#[must_use]
pub fn placed_parts(shape: &Shape, pose: &Pose) -> Vec<PlacedPart> {
    let at = PoseD::from_pose(pose);
    let centre = |s: &Shape| match s {
        Shape::Polygon(p) => d64(p.centroid()),
        Shape::Capsule(c) => 0.5 * (d64(c.a) + d64(c.b)),
        Shape::Segment(seg) => 0.5 * (d64(seg.a) + d64(seg.b)),
        _ => DVec2::ZERO,
    };
    match shape {
        Shape::Chain(c) => {
            let one_sided = c.options().one_sided;
            Body::new(shape)
                .placed(&at)
                .into_iter()
                .map(|core| PlacedPart { core, centre: 0.5 * (core.pts[0] + core.pts[1]), one_sided })
                .collect()
        }
        Shape::Compound(c) => c
            .parts()
            .iter()
            .map(|(local, part)| {
                let to = at.mul(&PoseD::from_pose(local));
                PlacedPart {
                    core: convex_core(part).transformed(&to),
                    centre: to.apply(centre(part)),
                    one_sided: false,
                }
            })
            .collect(),
        convex => vec![PlacedPart {
            core: convex_core(convex).transformed(&at),
            centre: at.apply(centre(convex)),
            one_sided: false,
        }],
    }
}

/// The exact signed distance of two colliders as a world pairs them: the minimum of
/// [`pair_signed_distance`] over their part pairs that face each other ([`PlacedPart::faces`]:
/// one-sided chains as sapwood and Box2D collide them); infinite when none do.
#[must_use]
pub fn collider_signed_distance(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> f64 {
    let (a, b) = (placed_parts(sa, pa), placed_parts(sb, pb));
    let mut best = f64::INFINITY;
    for x in &a {
        for y in b.iter().filter(|y| x.faces(y) && y.faces(x)) {
            best = best.min(pair_signed_distance(&x.core, &y.core));
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// Linear cast

/// Golden-section iterations: the bracket shrinks by 0.618 per step, so 48 steps take `[0, 1]`
/// to `1e-10`, far below the `f32` resolution of the fractions it is compared with.
const GOLDEN_STEPS: usize = 48;
/// Bisection steps: 48 halvings take `[0, 1]` to `4e-15`.
const BISECT_STEPS: usize = 48;

/// One part pair of a cast: its Minkowski difference, a lower bound of its signed distance over
/// the cast, and (once asked) its minimum.
#[derive(Clone, Debug)]
struct CastPair {
    md: MinkowskiDifference,
    part_a: usize,
    part_b: usize,
    lower_bound: f64,
    min: std::cell::Cell<Option<(f64, f64)>>,
}

/// A linear cast set up for repeated questions: the part pairs' Minkowski differences and the
/// motion of B relative to A.
#[derive(Clone, Debug)]
pub struct ExactCast {
    pairs: Vec<CastPair>,
    /// B's velocity relative to A per unit fraction.
    relative: DVec2,
    max_fraction: f64,
}

/// One answer of [`ExactCast::first_within`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastAnswer {
    /// The first fraction in `[0, max_fraction]` where the distance is `<= target`.
    pub fraction: f64,
    /// The part of A (lowest index on equal fractions).
    pub part_a: usize,
    /// The part of B.
    pub part_b: usize,
}

impl ExactCast {
    /// A moving by `ta` and B by `tb` per unit fraction, over `[0, max_fraction]`.
    pub fn new(a: &[Core], ta: DVec2, b: &[Core], tb: DVec2, max_fraction: f64) -> ExactCast {
        let relative = tb - ta;
        let mut pairs = Vec::with_capacity(a.len() * b.len());
        for (i, ca) in a.iter().enumerate() {
            for (j, cb) in b.iter().enumerate() {
                let md = MinkowskiDifference::new(ca, cb);
                let lower_bound = md.lower_bound_along(DVec2::ZERO, relative * max_fraction);
                pairs.push(CastPair { md, part_a: i, part_b: j, lower_bound, min: std::cell::Cell::new(None) });
            }
        }
        ExactCast { pairs, relative, max_fraction }
    }

    fn pair_at(&self, p: &CastPair, t: f64) -> f64 {
        p.md.signed_distance(self.relative * t)
    }

    /// The pair's minimum over `[0, max_fraction]`: `(argmin, min)`, by golden section (each
    /// pair's signed distance is convex in the fraction: the signed distance to a convex set is
    /// convex, and the point moves on a line).
    fn pair_min(&self, p: &CastPair) -> (f64, f64) {
        if let Some(m) = p.min.get() {
            return m;
        }
        let f = |t: f64| self.pair_at(p, t);
        let m = golden_min(&f, 0.0, self.max_fraction);
        p.min.set(Some(m));
        m
    }

    /// The shapes' distance at fraction `t` (clamped at 0), the minimum over part pairs.
    pub fn distance_at(&self, t: f64) -> f64 {
        self.signed_distance_at(t).max(0.0)
    }

    /// The signed distance at fraction `t` (negative: the deepest part pair's depth).
    pub fn signed_distance_at(&self, t: f64) -> f64 {
        self.pairs.iter().map(|p| self.pair_at(p, t)).fold(f64::INFINITY, f64::min)
    }

    /// The minimum signed distance over `[0, max_fraction]` and a fraction attaining it.
    pub fn min_signed_distance(&self) -> (f64, f64) {
        let mut best = (f64::INFINITY, 0.0);
        for p in &self.pairs {
            if p.lower_bound >= best.0 {
                continue;
            }
            let (t, d) = self.pair_min(p);
            if d < best.0 {
                best = (d, t);
            }
        }
        best
    }

    /// The first fraction where the signed distance is `<= target` (a negative target asks for
    /// that much penetration), or `None` when it stays above it over `[0, max_fraction]`.
    pub fn first_within(&self, target: f64) -> Option<CastAnswer> {
        let mut best: Option<CastAnswer> = None;
        for p in &self.pairs {
            if p.lower_bound > target {
                continue;
            }
            let f = |t: f64| self.pair_at(p, t);
            let hit = if f(0.0) <= target {
                Some(0.0)
            } else {
                let (tmin, dmin) = self.pair_min(p);
                // f is non-increasing on [0, tmin]: f(lo) > target >= f(hi). A pair still above
                // the target at the best fraction so far crosses later, if at all.
                let hi = best.map_or(tmin, |b| b.fraction.min(tmin));
                (dmin <= target && f(hi) <= target).then(|| {
                    let (mut lo, mut hi) = (0.0, hi);
                    for _ in 0..BISECT_STEPS {
                        let mid = 0.5 * (lo + hi);
                        if f(mid) <= target {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    hi
                })
            };
            if let Some(t) = hit
                && best.is_none_or(|b| t < b.fraction)
            {
                best = Some(CastAnswer { fraction: t, part_a: p.part_a, part_b: p.part_b });
            }
        }
        best
    }
}

/// The minimum of a convex function on `[lo, hi]`: `(argmin, min)`.
fn golden_min(f: &impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> (f64, f64) {
    const G: f64 = 0.618_033_988_749_894_8;
    let mut x1 = hi - G * (hi - lo);
    let mut x2 = lo + G * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..GOLDEN_STEPS {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - G * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + G * (hi - lo);
            f2 = f(x2);
        }
    }
    let candidates = [(lo, f(lo)), (x1, f1), (x2, f2), (hi, f(hi))];
    candidates.into_iter().fold((lo, f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b })
}

// ---------------------------------------------------------------------------------------------
// Time of impact

/// A sweep in `f64`: the position moves linearly from `p0` to `p1`, the angle turns by `da`
/// (radians, the shorter way from the start rotation to the end one) at a constant rate, about
/// the pose origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepD {
    /// Start pose (the `f32` pose's own cosine and sine).
    pub start: PoseD,
    /// End position.
    pub p1: DVec2,
    /// Angle turned over the sweep, in `[-pi, pi]`.
    pub da: f64,
}

impl SweepD {
    /// The sweep from `start` to `end`, turning the shorter way.
    pub fn from_poses(start: &Pose, end: &Pose) -> SweepD {
        let s = PoseD::from_pose(start);
        let e = PoseD::from_pose(end);
        let da = (s.c * e.s - s.s * e.c).atan2(s.c * e.c + s.s * e.s);
        SweepD { start: s, p1: e.p, da }
    }

    /// A sweep with an explicit turn (may exceed half a turn).
    pub fn new(start: PoseD, p1: DVec2, da: f64) -> SweepD {
        SweepD { start, p1, da }
    }

    /// The pose at fraction `t`.
    pub fn at(&self, t: f64) -> PoseD {
        let (s, c) = (self.da * t).sin_cos();
        let q = self.start;
        PoseD { p: q.p + (self.p1 - q.p) * t, c: q.c * c - q.s * s, s: q.s * c + q.c * s }
    }
}

/// The reference's time-of-impact answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExactToi {
    /// At `fraction` the signed distance is within `tol` of the target, and before it the
    /// signed distance never dropped to the target.
    Within {
        /// The first sample within `target + tol`.
        fraction: f64,
        /// The signed distance there.
        distance: f64,
        /// Samples taken.
        samples: usize,
    },
    /// The signed distance stays above the target over the whole sweep.
    Separated {
        /// The smallest sampled signed distance (an upper bound on the true minimum).
        min_sampled: f64,
        /// Samples taken.
        samples: usize,
    },
    /// The sample budget ran out at `fraction` (before it, no touch).
    Undecided {
        /// How far the sweep was cleared.
        fraction: f64,
    },
}

/// The largest rate of change of the distance along the two sweeps (per unit fraction).
pub fn distance_rate_bound(a: &Body, sa: &SweepD, b: &Body, sb: &SweepD) -> f64 {
    ((sb.p1 - sb.start.p) - (sa.p1 - sa.start.p)).length() + sa.da.abs() * a.reach + sb.da.abs() * b.reach
}

/// The first fraction in `[0, max_fraction]` at which the signed distance comes within
/// `target + tol`, having stayed above `target` before (see the module docs), sampling at most
/// `max_samples` times. A negative target asks for that much penetration: the signed distance
/// changes no faster than the distance does.
#[allow(clippy::too_many_arguments)] // the two bodies, their sweeps, and the question's four numbers
pub fn time_of_impact(
    a: &Body,
    sa: &SweepD,
    b: &Body,
    sb: &SweepD,
    max_fraction: f64,
    target: f64,
    tol: f64,
    max_samples: usize,
) -> ExactToi {
    let rate = distance_rate_bound(a, sa, b, sb);
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    let mut t = 0.0f64;
    let mut min_sampled = f64::INFINITY;
    for samples in 1..=max_samples {
        a.place_into(&sa.at(t), &mut ca);
        b.place_into(&sb.at(t), &mut cb);
        let d = signed_distance(&ca, &cb);
        min_sampled = min_sampled.min(d);
        if d <= target + tol {
            return ExactToi::Within { fraction: t, distance: d, samples };
        }
        if t >= max_fraction {
            return ExactToi::Separated { min_sampled, samples };
        }
        // No touch of the target within (d - target) / rate of t.
        let step = if rate > 0.0 { (d - target) / rate } else { f64::INFINITY };
        t = (t + step).min(max_fraction);
    }
    ExactToi::Undecided { fraction: t }
}

/// The signed distance between two swept shapes at fraction `t`.
pub fn signed_distance_on_sweeps(a: &Body, sa: &SweepD, b: &Body, sb: &SweepD, t: f64) -> f64 {
    signed_distance(&a.placed(&sa.at(t)), &b.placed(&sb.at(t)))
}

/// The distance between two swept shapes at fraction `t`.
pub fn distance_on_sweeps(a: &Body, sa: &SweepD, b: &Body, sb: &SweepD, t: f64) -> ExactDistance {
    distance_placed(&a.placed(&sa.at(t)), &b.placed(&sb.at(t)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64;
    use sapwood::Rot;

    fn at(x: f32, y: f32) -> Pose {
        Pose::from_translation(Vec2::new(x, y))
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn circles_by_hand() {
        let c = Shape::circle(1.0).unwrap();
        let d = distance(&c, &at(0.0, 0.0), &c, &at(5.0, 0.0));
        assert!(close(d.distance, 3.0, 1e-15));
        assert!(d.point_a.abs_diff_eq(DVec2::new(1.0, 0.0), 1e-15));
        assert!(d.point_b.abs_diff_eq(DVec2::new(4.0, 0.0), 1e-15));
        assert_eq!(d.normal, DVec2::X);
        let touching = distance(&c, &at(0.0, 0.0), &c, &at(0.0, 2.0));
        assert_eq!((touching.distance, touching.normal), (0.0, DVec2::ZERO));
        let deep = distance(&c, &at(0.0, 0.0), &c, &at(0.0, 0.0));
        assert_eq!(deep.distance, 0.0);
    }

    #[test]
    fn parallel_box_edges() {
        let b = Shape::cuboid(Vec2::new(1.0, 0.5)).unwrap();
        // B 0.25 above A's top edge, shifted so that the edges overlap over [0.5, 1].
        let d = distance(&b, &at(0.0, 0.0), &b, &at(1.5, 1.25));
        assert!(close(d.distance, 0.25, 1e-15));
        assert!(d.normal.abs_diff_eq(DVec2::Y, 1e-15));
        assert!(close(d.point_a.y, 0.5, 1e-15) && close(d.point_b.y, 0.75, 1e-15));
        assert!(d.point_a.x >= 0.5 && d.point_a.x <= 1.0 && close(d.point_a.x, d.point_b.x, 1e-15));
    }

    #[test]
    fn crossing_cores_with_every_vertex_outside_intersect() {
        // Two thin capsules in an X: each core's vertices lie outside the other core, and the
        // vertex-edge minimum alone would say 1/sqrt(2); the gap test sees the crossing.
        let x = Shape::capsule(Vec2::new(-1.0, -1.0), Vec2::new(1.0, 1.0), 0.01).unwrap();
        let y = Shape::capsule(Vec2::new(-1.0, 1.0), Vec2::new(1.0, -1.0), 0.01).unwrap();
        assert_eq!(distance(&x, &Pose::IDENTITY, &y, &Pose::IDENTITY).distance, 0.0);
        // A plus of two boxes.
        let h = Shape::cuboid(Vec2::new(2.0, 0.1)).unwrap();
        let v = Shape::cuboid(Vec2::new(0.1, 2.0)).unwrap();
        assert_eq!(distance(&h, &Pose::IDENTITY, &v, &Pose::IDENTITY).distance, 0.0);
        // One box inside another.
        let small = Shape::cuboid(Vec2::new(0.1, 0.1)).unwrap();
        assert_eq!(distance(&v, &Pose::IDENTITY, &small, &at(0.0, 1.0)).distance, 0.0);
    }

    #[test]
    fn collinear_capsules_end_to_end() {
        let c = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap();
        let d = distance(&c, &at(0.0, 0.0), &c, &at(3.0, 0.0));
        assert!(close(d.distance, 0.5, 1e-15));
        assert!(d.normal.abs_diff_eq(DVec2::X, 1e-15));
        assert!(d.point_a.abs_diff_eq(DVec2::new(1.25, 0.0), 1e-15));
    }

    #[test]
    fn rotated_box_corner_to_circle() {
        // A unit box turned 45 degrees: its corner at (sqrt 2, 0) faces a circle at (3, 0).
        let b = Shape::cuboid(Vec2::ONE).unwrap();
        let c = Shape::circle(0.5).unwrap();
        let d = distance(&b, &Pose::new(Vec2::ZERO, std::f32::consts::FRAC_PI_4), &c, &at(3.0, 0.0));
        let q = Rot::from_angle(std::f32::consts::FRAC_PI_4);
        let corner = (q.c as f64 - q.s as f64).hypot(q.s as f64 + q.c as f64);
        assert!(close(d.distance, 3.0 - corner - 0.5, 1e-12), "{d:?}");
    }

    #[test]
    fn compound_is_the_closest_part() {
        let l = Shape::compound(vec![
            (at(0.0, 1.0), Shape::cuboid(Vec2::new(0.5, 1.5)).unwrap()),
            (at(1.5, -0.25), Shape::cuboid(Vec2::new(1.5, 0.25)).unwrap()),
        ])
        .unwrap();
        let c = Shape::circle(0.5).unwrap();
        // Above the foot of the L, inside its concave corner region: the foot (part 1) is closer.
        let d = distance(&l, &Pose::IDENTITY, &c, &at(2.5, 1.0));
        assert_eq!((d.part_a, d.part_b), (1, 0));
        assert!(close(d.distance, 1.0 - 0.5, 1e-15), "{d:?}");
    }

    /// The two routes to the distance (vertex-edge with the gap test, and the Minkowski
    /// difference hull) agree on random pairs of every kind, to 1e-12 of the size.
    #[test]
    fn vertex_edge_distance_matches_minkowski_difference() {
        let mut rng = SplitMix64::new(7);
        let mut overlapping = 0;
        for _ in 0..20_000 {
            let cores: Vec<Core> = (0..2)
                .map(|_| {
                    let n = [1, 2, 3, 4, 5, 8][rng.next_u64() as usize % 6];
                    let centre = DVec2::new(rng.next_f64() * 4.0 - 2.0, rng.next_f64() * 4.0 - 2.0);
                    let mut pts: Vec<DVec2> = (0..n.max(3))
                        .map(|_| centre + DVec2::new(rng.next_f64() * 2.0 - 1.0, rng.next_f64() * 2.0 - 1.0))
                        .collect();
                    if n >= 3 {
                        pts = hull(pts);
                    } else {
                        pts.truncate(n);
                    }
                    Core::new(&pts, rng.next_f64() * 0.3)
                })
                .collect();
            let (a, b) = (&cores[0], &cores[1]);
            let d = pair_distance(a, b);
            let sd = MinkowskiDifference::new(a, b).signed_distance(DVec2::ZERO);
            assert!(close(d.distance, sd.max(0.0), 1e-12), "{a:?} {b:?}: {} vs {sd}", d.distance);
            if d.distance > 0.0 {
                // The witnesses are on the surfaces, `distance` apart.
                assert!(close((d.point_b - d.point_a).length(), d.distance, 1e-12));
                assert!(close(a.signed_distance_to_point(d.point_a), 0.0, 1e-12));
                assert!(close(b.signed_distance_to_point(d.point_b), 0.0, 1e-12));
            } else {
                overlapping += 1;
            }
        }
        assert!(overlapping > 2_000 && overlapping < 18_000, "{overlapping} overlapping: the test would prove little");
    }

    #[test]
    fn cast_circle_into_box_by_hand() {
        let b = Body::new(&Shape::cuboid(Vec2::new(1.0, 1.0)).unwrap());
        let c = Body::new(&Shape::circle(0.5).unwrap());
        let pa = b.placed(&PoseD::IDENTITY);
        let pb = c.placed(&PoseD { p: DVec2::new(5.0, 0.0), c: 1.0, s: 0.0 });
        // The circle moves -8 in x: it touches the face x = 1 after 3.5 units.
        let cast = ExactCast::new(&pa, DVec2::ZERO, &pb, DVec2::new(-8.0, 0.0), 1.0);
        let hit = cast.first_within(0.0).unwrap();
        assert!(close(hit.fraction, 3.5 / 8.0, 1e-14), "{hit:?}");
        // A target distance of 0.5 stops half a unit earlier.
        assert!(close(cast.first_within(0.5).unwrap().fraction, 3.0 / 8.0, 1e-14));
        // A negative target asks for that much penetration.
        assert!(close(cast.first_within(-0.25).unwrap().fraction, 3.75 / 8.0, 1e-14));
        assert!(close(cast.signed_distance_at(3.75 / 8.0), -0.25, 1e-14));
        // max_fraction short of it: no hit, and the minimum is at the end.
        let short = ExactCast::new(&pa, DVec2::ZERO, &pb, DVec2::new(-8.0, 0.0), 0.25);
        assert_eq!(short.first_within(0.0), None);
        assert!(close(short.min_signed_distance().0, 3.5 - 2.0, 1e-9));
        // Moving A instead of B is the same cast.
        let mirrored = ExactCast::new(&pa, DVec2::new(8.0, 0.0), &pb, DVec2::ZERO, 1.0);
        assert!(close(mirrored.first_within(0.0).unwrap().fraction, 3.5 / 8.0, 1e-14));
    }

    #[test]
    fn cast_grazing_a_corner() {
        // A unit box at the origin; a circle of radius 0.5 passes it along y = 1.5 + e: it
        // grazes the corner (1, 1) at exactly e = 0.5 - 0.5 = 0 and misses above.
        let b = Body::new(&Shape::cuboid(Vec2::ONE).unwrap()).placed(&PoseD::IDENTITY);
        let c = Body::new(&Shape::circle(0.5).unwrap());
        for (e, hits) in [(-1e-9, true), (0.0, true), (1e-9, false)] {
            let pb = c.placed(&PoseD { p: DVec2::new(5.0, 1.5 + e), c: 1.0, s: 0.0 });
            let cast = ExactCast::new(&b, DVec2::ZERO, &pb, DVec2::new(-10.0, 0.0), 1.0);
            assert_eq!(cast.first_within(0.0).is_some(), hits, "e = {e}");
            if hits {
                // It touches the corner when its centre is right above it, at x = 1.
                assert!(close(cast.first_within(0.0).unwrap().fraction, 0.4, 1e-4), "e = {e}");
            } else {
                assert!(close(cast.min_signed_distance().0, 1e-9, 1e-12));
            }
        }
    }

    /// A bar of half-length 2 turning about its centre towards a circle at angle 45 degrees and
    /// radius 1 from that centre: it touches when the distance from the circle's centre to the
    /// bar's line, `sin(45° - θ)`, equals the radii sum.
    #[test]
    fn rotating_bar_time_of_impact_by_hand() {
        let (r_bar, r_ball) = (0.01, 0.05);
        let bar = Body::new(&Shape::capsule(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0), r_bar).unwrap());
        let ball = Body::new(&Shape::circle(r_ball).unwrap());
        let centre = DVec2::new(1.0, 1.0).normalize();
        let sweep_bar = SweepD::new(PoseD::IDENTITY, DVec2::ZERO, std::f64::consts::FRAC_PI_2);
        let still = SweepD::new(PoseD { p: centre, c: 1.0, s: 0.0 }, centre, 0.0);
        let r_sum = r_bar as f64 + r_ball as f64;
        let theta = std::f64::consts::FRAC_PI_4 - r_sum.asin();
        let exact = theta / std::f64::consts::FRAC_PI_2;
        let tol = 1e-9;
        match time_of_impact(&bar, &sweep_bar, &ball, &still, 1.0, 0.0, tol, 100_000) {
            ExactToi::Within { fraction, distance, .. } => {
                assert!(distance <= tol);
                // Within tol of touching means within tol / rate of the touch, earlier.
                let rate = distance_rate_bound(&bar, &sweep_bar, &ball, &still);
                assert!(fraction <= exact && fraction >= exact - tol / (2.0 * 0.7) - 1e-12, "{fraction} vs {exact}");
                assert!(rate > 0.0);
            }
            other => panic!("{other:?}"),
        }
        // Turning the other way the bar's line goes from 45° to 135° off the ball's direction:
        // the closest it comes is at the start and the end.
        let away = SweepD::new(PoseD::IDENTITY, DVec2::ZERO, -std::f64::consts::FRAC_PI_2);
        match time_of_impact(&bar, &away, &ball, &still, 1.0, 0.0, tol, 100_000) {
            ExactToi::Separated { min_sampled, .. } => {
                let start = std::f64::consts::FRAC_PI_4.sin() - r_sum;
                assert!(close(min_sampled, start, 1e-12), "{min_sampled} vs {start}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// Sampling with the rate bound cannot step over a touch that lasts a moment: a fast thin
    /// bar crossing a small circle between two far-apart poses.
    #[test]
    fn time_of_impact_sees_a_brief_touch() {
        let bar = Body::new(&Shape::cuboid(Vec2::new(0.005, 1.0)).unwrap());
        let ball = Body::new(&Shape::circle(0.01).unwrap());
        let sweep_bar = SweepD::new(PoseD { p: DVec2::new(-50.0, 0.0), c: 1.0, s: 0.0 }, DVec2::new(50.0, 0.0), 0.0);
        let still = SweepD::new(PoseD::IDENTITY, DVec2::ZERO, 0.0);
        match time_of_impact(&bar, &sweep_bar, &ball, &still, 1.0, 0.0, 1e-9, 1_000) {
            ExactToi::Within { fraction, .. } => assert!(close(fraction, (50.0 - 0.015) / 100.0, 1e-9), "{fraction}"),
            other => panic!("{other:?}"),
        }
        // 5e-3 deep: the signed distance of the box and the circle is their x gap minus 0.015.
        match time_of_impact(&bar, &sweep_bar, &ball, &still, 1.0, -0.005, 1e-9, 1_000) {
            ExactToi::Within { fraction, distance, .. } => {
                assert!(close(fraction, (50.0 - 0.01) / 100.0, 1e-9) && close(distance, -0.005, 1e-9), "{fraction}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sweep_turns_the_shorter_way() {
        let s = SweepD::from_poses(&Pose::new(Vec2::ZERO, 3.0), &Pose::new(Vec2::X, -3.0));
        assert!(close(s.da, 2.0 * std::f64::consts::PI - 6.0, 1e-6), "{}", s.da);
        let end = s.at(1.0);
        let want = Rot::from_angle(-3.0);
        assert!(close(end.c, want.c as f64, 1e-7) && close(end.s, want.s as f64, 1e-7));
        assert_eq!(end.p, DVec2::X);
    }
}
