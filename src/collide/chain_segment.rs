//! One chain segment against a convex shape, using the segment's ghost vertices: the kernel
//! that keeps shapes from catching on a chain's internal seams.
//!
//! The segment `p1 → p2` is tested as the visible piece of a larger surface: its neighbours
//! decide which contact normals it may report. With `e1` its direction and `n1` its front
//! normal (right of `e1`), each end is either
//! - **convex** (the chain turns left there, however little, or the end is free): the segment
//!   owns the rounded region around the vertex up to the neighbour's face normal. A normal
//!   leaning past that face normal belongs to the neighbour and is **skipped**; and when the
//!   shape lies deeper behind our line than behind the neighbour's, the neighbour reports it.
//!   The region is shared out with a small overlap (both segments report a normal within
//!   [`LEAN_SIN`] of the boundary, so rounding never leaves a vertex to neither), and a normal
//!   in the overlap is reported as the neighbour's face normal: every normal lies in the cone.
//!   However flat the turn, the vertex has this region: over a nearly flat convex join the
//!   segments' slabs leave a wedge above the vertex that belongs to no face.
//! - **flat or concave**: the surface continues (or folds up) beyond the vertex, so the vertex
//!   is not a feature of the surface at all: a normal pointing that way is **snapped** to `n1`
//!   and only the part of the shape over the segment counts.
//!
//! ```text
//!     skip │ admit    n1 ↑    admit │ skip         (convex ends)
//!        ╲ │    ╲       │       ╱   │ ╱
//!    ghost ●─────p1━━━━━━━━━━━━━p2─────● ghost
//!     n0 (neighbour's face normal)         n2
//! ```
//!
//! The case analysis follows Catto's chain-segment collision in Box2D v3 (`manifold.c`,
//! `b2CollideChainSegmentAndPolygon`: closest features when the cores are apart, classified
//! against the neighbours; SAT over the admissible axes when they overlap), written here for
//! sapwood's hull, clipping and feature-id conventions.
//!
//! A one-sided segment ignores a shape whose centre is behind it (a one-way platform). A
//! two-sided segment is the one-sided test of the segment facing the shape: the side the
//! shape's core is on when the cores are apart (the closest features' direction), and when they
//! cross, the side of the whole chain the shape's centre is on ([`Probe::chain_side`], by the
//! chain's nearest point to it). Not the side of this segment's line: a shape wider than the
//! terrain's curvature has its centre behind the lines of segments it rests on.

use glam::Vec2;

use super::capsule_capsule::{closest_params, cores_cross};
use super::clip::{Edge, clip, most_anti_parallel};
use super::{EDGE, Manifold, feature_id};
use crate::math::Pose;
use crate::shape::{ChainSegment, MAX_POLYGON_VERTICES, Shape};

/// How far (sine) a normal at a convex end may lean past the neighbour's face normal before
/// it is left to the neighbour. Both segments report the normals within this band (as the
/// neighbour's face normal): a normal found from nearly touching cores, far from the origin,
/// carries rounding of this order.
const LEAN_SIN: f32 = 0.01;

/// Local feature numbers of the chain side (the caller adds the segment index).
pub(crate) const START: u16 = 0;
/// The segment's end vertex.
pub(crate) const END: u16 = 1;
/// The segment's face.
pub(crate) const FACE: u16 = 2;

/// A convex shape's core in the chain's frame: one vertex (circle), two (capsule, segment:
/// the 2-gon with both edge normals), or a polygon; its radius and a point inside.
pub(crate) struct Probe {
    v: [Vec2; MAX_POLYGON_VERTICES],
    n: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
    pub radius: f32,
    pub centre: Vec2,
    /// For a two-sided chain, whether [`Probe::centre`] is in front of the chain as a whole
    /// (the side of its nearest point); `None` where that is not known.
    pub chain_side: Option<bool>,
}

impl Probe {
    /// `shape` (convex) at `xf` in the chain's frame.
    pub fn new(shape: &Shape, xf: &Pose) -> Probe {
        let mut p = Probe {
            v: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            n: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            count: 0,
            radius: 0.0,
            centre: xf.p,
            chain_side: None,
        };
        let mut two = |a: Vec2, b: Vec2, r: f32| {
            let (a, b) = (xf.transform_point(a), xf.transform_point(b));
            let e = b - a;
            let n = Vec2::new(e.y, -e.x).try_normalize().unwrap_or(Vec2::X);
            p.v[..2].copy_from_slice(&[a, b]);
            p.n[..2].copy_from_slice(&[n, -n]);
            (p.count, p.radius, p.centre) = (2, r, 0.5 * (a + b));
        };
        match shape {
            Shape::Circle(c) => (p.v[0], p.count, p.radius) = (xf.p, 1, c.radius),
            Shape::Capsule(c) => two(c.a, c.b, c.radius),
            Shape::Segment(s) => two(s.a, s.b, s.radius),
            Shape::Cuboid(b) => p.polygon(&b.to_polygon(), xf),
            Shape::Polygon(q) => p.polygon(q, xf),
            Shape::Compound(_) | Shape::Chain(_) => unreachable!("probes are convex: callers split compounds"),
        }
        p
    }

    fn polygon(&mut self, q: &crate::Polygon, xf: &Pose) {
        for (k, (v, n)) in q.vertices().iter().zip(q.normals()).enumerate() {
            self.v[k] = xf.transform_point(*v);
            self.n[k] = xf.transform_vector(*n);
        }
        (self.count, self.radius, self.centre) = (q.count(), q.radius(), xf.transform_point(q.centroid()));
    }

    fn verts(&self) -> &[Vec2] {
        &self.v[..self.count]
    }

    /// Half the core's extent (max-norm), for tolerances.
    fn size(&self) -> f32 {
        self.verts().iter().map(|v| (*v - self.centre).abs().max_element()).fold(0.0, f32::max)
    }
}

/// What a segment end does with normals leaning its way (see the module docs).
#[derive(Clone, Copy)]
enum End {
    /// Admits normals up to this face normal of the neighbour (the free end's: the tangent);
    /// `ghost`: the neighbour's far vertex (none at a free end).
    Convex { neighbour: Vec2, ghost: Option<Vec2> },
    /// Snaps them to the face normal.
    Flat,
}

/// The segment as the shape sees it: front towards the shape's side for a two-sided chain.
struct Face {
    p1: Vec2,
    p2: Vec2,
    e1: Vec2,
    n1: Vec2,
    len: f32,
    ends: [End; 2],
    /// Local feature numbers of `p1` and `p2` (swapped on a mirrored segment).
    ids: [u16; 2],
}

#[inline]
fn right(d: Vec2) -> Vec2 {
    Vec2::new(d.y, -d.x)
}

impl Face {
    fn new(s: &ChainSegment, mirrored: bool, one_sided: bool) -> Face {
        let (p1, p2, g1, g2, ids) = if mirrored {
            (s.b, s.a, s.ghost_b, s.ghost_a, [END, START])
        } else {
            (s.a, s.b, s.ghost_a, s.ghost_b, [START, END])
        };
        let d = p2 - p1;
        let len = d.length();
        // Chains refuse segments whose squared length underflows, so this never falls back.
        let e1 = d.try_normalize().unwrap_or(Vec2::X);
        // A left turn from `a` to `b` (counter-clockwise around the solid) is convex, however
        // small; a hairpin (a turn of π, zero sine) is convex too.
        let join = |a: Vec2, b: Vec2| {
            let (s, c) = (a.perp_dot(b), a.dot(b));
            if s > 0.0 || (s == 0.0 && c < 0.0) { End::Convex { neighbour: right(a), ghost: None } } else { End::Flat }
        };
        // A free end of a two-sided chain is a bare segment's end: its cap spans the half-turn
        // from the front normal round to the back one. A one-sided chain's stops at the
        // tangent, so that nothing is pushed towards the back.
        let n1 = right(e1);
        let start = match g1 {
            None => End::Convex { neighbour: if one_sided { -e1 } else { -n1 }, ghost: None },
            Some(g) => {
                let e0 = (p1 - g).try_normalize().unwrap_or(e1);
                match join(e0, e1) {
                    End::Convex { .. } => End::Convex { neighbour: right(e0), ghost: Some(g) },
                    flat => flat,
                }
            }
        };
        let end = match g2 {
            None => End::Convex { neighbour: if one_sided { e1 } else { -n1 }, ghost: None },
            Some(g) => {
                let e2 = (g - p2).try_normalize().unwrap_or(e1);
                match join(e1, e2) {
                    End::Convex { .. } => End::Convex { neighbour: right(e2), ghost: Some(g) },
                    flat => flat,
                }
            }
        };
        Face { p1, p2, e1, n1, len, ends: [start, end], ids }
    }

    /// Whether the segment may report unit normal `m` (from the segment to the shape) as a
    /// vertex or shape-face normal: `Some(true)` admit, `Some(false)` skip (a neighbour owns
    /// it), `None` snap to `n1`.
    fn classify(&self, m: Vec2) -> Option<bool> {
        let at_start = m.dot(self.e1) <= 0.0;
        match self.ends[usize::from(!at_start)] {
            // The sine of the lean from the neighbour's normal towards the neighbour.
            End::Convex { neighbour, .. } => {
                let past = if at_start { m.perp_dot(neighbour) } else { neighbour.perp_dot(m) };
                Some(past <= LEAN_SIN)
            }
            End::Flat => None,
        }
    }

    /// Whether the start (or the end) is a free end of the chain.
    fn is_free(&self, at_start: bool) -> bool {
        matches!(self.ends[usize::from(!at_start)], End::Convex { ghost: None, .. })
    }

    /// `m` (an admitted normal) turned back into the cone of the vertex region at the start
    /// or the end: from `n1` round to the end's limit (the neighbour's face normal at a convex
    /// end; `n1` itself at a flat one). Rounding, and the band the ends share, put normals a
    /// hair outside; they are reported as the nearer edge of the cone.
    fn clamp(&self, m: Vec2, at_start: bool) -> Vec2 {
        let limit = match self.ends[usize::from(!at_start)] {
            End::Convex { neighbour, .. } => neighbour,
            End::Flat => self.n1,
        };
        // The start's region turns clockwise from `n1`, the end's counter-clockwise; a cone
        // spans at most a half-turn, where the two tests below bound it exactly.
        let inside = if at_start {
            m.perp_dot(self.n1) >= 0.0 && limit.perp_dot(m) >= 0.0
        } else {
            self.n1.perp_dot(m) >= 0.0 && m.perp_dot(limit) >= 0.0
        };
        if inside {
            m
        } else if m.dot(self.n1) >= m.dot(limit) {
            self.n1
        } else {
            limit
        }
    }
}

/// The closest features of a segment (`p1 + s·d1`) and a probe's core: the closest pair's
/// squared distance, the segment's parameter, the probe's edge `k` and its parameter, and
/// whether the cores overlap at all.
struct Cores {
    d2: f32,
    s: f32,
    t: f32,
    k: usize,
    overlapping: bool,
}

impl Cores {
    fn between(p1: Vec2, d1: Vec2, probe: &Probe) -> Cores {
        let mut c = Cores { d2: f32::INFINITY, s: 0.0, t: 0.0, k: 0, overlapping: false };
        let vs = probe.verts();
        // A point, one edge (a 2-gon's two edges are the same segment), or every polygon edge.
        let edges = if vs.len() <= 2 { 1 } else { vs.len() };
        for k in 0..edges {
            let (q, dq) = if vs.len() == 1 { (vs[0], Vec2::ZERO) } else { (vs[k], vs[(k + 1) % vs.len()] - vs[k]) };
            let (sp, tp, d2) = closest_params(p1, d1, q, dq);
            if d2 < c.d2 {
                (c.d2, c.s, c.t, c.k) = (d2, sp, tp, k);
            }
        }
        // Whether the cores overlap, by signs (straddle tests, a point-in-polygon test), not by
        // the closest-point distance: crossing cores have closest points apart by rounding.
        c.overlapping = match vs.len() {
            1 => c.d2 == 0.0,
            2 => cores_cross(p1, d1, vs[0], vs[1] - vs[0]),
            n => {
                let inside = |p: Vec2| vs.iter().zip(&probe.n[..n]).all(|(v, m)| m.dot(p - *v) <= 0.0);
                inside(p1) || (0..n).any(|k| cores_cross(p1, d1, vs[k], vs[(k + 1) % n] - vs[k]))
            }
        };
        c
    }

    fn dist(&self) -> f32 {
        if self.overlapping { 0.0 } else { self.d2.sqrt() }
    }

    /// The closest points on the segment and on the probe's core.
    fn points(&self, p1: Vec2, d1: Vec2, probe: &Probe) -> (Vec2, Vec2) {
        let vs = probe.verts();
        let qb = if vs.len() == 1 { vs[0] } else { vs[self.k] + self.t * (vs[(self.k + 1) % vs.len()] - vs[self.k]) };
        (p1 + self.s * d1, qb)
    }
}

/// Cores closer than this are too close for their closest-point direction to mean anything: a
/// ten-thousandth of the pair's size, and rounding of the coordinates' magnitude.
fn core_eps(p1: Vec2, len: f32, probe: &Probe) -> f32 {
    let magnitude = p1.abs().max(probe.centre.abs()).max_element();
    1e-4 * (probe.size() + len) + 8.0 * f32::EPSILON * magnitude
}

/// The contact of chain segment `s` (A, chain frame) and the convex `probe` (B, chain frame):
/// normal from the segment to the shape, A-side feature numbers [`START`], [`END`], [`FACE`].
pub(crate) fn manifold(s: &ChainSegment, one_sided: bool, probe: &Probe) -> Manifold {
    let centre_front = right(s.b - s.a).dot(probe.centre - s.a) >= 0.0;
    let front = if one_sided {
        if !centre_front {
            return Manifold::EMPTY;
        }
        true
    } else {
        side(s, probe).or(probe.chain_side).unwrap_or(centre_front)
    };
    facing(&Face::new(s, !front, one_sided), probe)
}

/// Which side of a two-sided segment the probe's core is on (`true`: in front) when the cores
/// are apart, by the closest features' direction; `None` when they cross or all but touch.
/// Closest at a joined end, the closest point must be in front of both faces' lines, or behind
/// both: in the wedge between them it says nothing about the shape, which may stand over a
/// step's edge (in front, behind the riser's line) or have crossed the neighbour with its core.
fn side(s: &ChainSegment, probe: &Probe) -> Option<bool> {
    let d1 = s.b - s.a;
    let cores = Cores::between(s.a, d1, probe);
    let dist = cores.dist();
    if dist > probe.radius || dist <= core_eps(s.a, d1.length(), probe) {
        return None;
    }
    let (qa, qb) = cores.points(s.a, d1, probe);
    let w = qb - qa;
    let h = right(d1).dot(w);
    let joined = |before: Vec2, after: Vec2| {
        let (h0, h1) = (right(before).dot(w), right(after).dot(w));
        (h0 > 0.0 && h1 > 0.0) != (h0 < 0.0 && h1 < 0.0)
    };
    let both = |before: Vec2, after: Vec2| joined(before, after).then_some(right(before).dot(w) > 0.0);
    match (cores.s, s.ghost_a, s.ghost_b) {
        (t, Some(g), _) if t <= 0.0 => both(s.a - g, d1),
        (t, _, Some(g)) if t >= 1.0 => both(d1, g - s.b),
        _ => (h != 0.0).then_some(h > 0.0),
    }
}

/// The contact of the probe with face `f` (the segment facing the probe's side).
fn facing(f: &Face, probe: &Probe) -> Manifold {
    let r = probe.radius;
    let size = probe.size() + f.len;
    let d1 = f.p2 - f.p1;
    let cores = Cores::between(f.p1, d1, probe);
    let dist = cores.dist();
    if dist > r {
        return Manifold::EMPTY;
    }

    if dist > core_eps(f.p1, f.len, probe) {
        // Cores apart, rounded surfaces touching: the closest features decide.
        let (qa, qb) = cores.points(f.p1, d1, probe);
        let (s_at, t_at, k_at) = (cores.s, cores.t, cores.k);
        let vs = probe.verts();
        let m = (qb - qa) / dist;
        // The closest features' own contact: one point midway between the segment's point and
        // the shape's surface point, its normal kept within the cone of the end it leans to.
        let closest = || {
            let fa = if s_at <= 0.0 {
                f.ids[0]
            } else if s_at >= 1.0 {
                f.ids[1]
            } else {
                FACE
            };
            let fb = if vs.len() == 1 || t_at == 0.0 {
                k_at as u16
            } else if t_at == 1.0 {
                ((k_at + 1) % vs.len()) as u16
            } else {
                EDGE | k_at as u16
            };
            let at_start = s_at <= 0.0 || (s_at < 1.0 && m.dot(f.e1) <= 0.0);
            Manifold::one_point(f.clamp(m, at_start), 0.5 * (qa + qb - r * m), r - dist, feature_id(fa, fb))
        };
        // Along the face normal the clipped face contact holds both points of a shape lying on
        // the segment; should rounding put the shape a hair past the slab's end, the closest
        // features' contact stands.
        let face_or_closest = || {
            let m = face_manifold(f, probe, false);
            if m.count > 0 { m } else { closest() }
        };
        if s_at > 0.0 && s_at < 1.0 {
            return face_or_closest();
        }
        match f.classify(m) {
            None => return face_manifold(f, probe, false),
            Some(true) if m.dot(f.n1) >= 1.0 - 1e-6 => return face_or_closest(),
            Some(true) => return closest(),
            // Past a free end's cap the vertex is still the one the shape touches: it has no
            // neighbour to leave the contact to, so it reports it at the cap's limit.
            Some(false) if f.is_free(m.dot(f.e1) <= 0.0) => return closest(),
            // Leaning into the neighbour's region: usually the neighbour's contact, which the
            // SAT below confirms by the neighbour's line. But the closest features can also
            // lean that way because the shape reaches over the corner into the solid (a thin
            // shape crossing the neighbour's line just past the vertex); SAT then finds this
            // face the shallower way out, where skipping outright would leave the shape to a
            // neighbour that, by the same line test, leaves it to us.
            Some(false) => {}
        }
    }
    sat_manifold(f, probe, cores.overlapping, size)
}

/// Cores overlap, or nearly touch (closest features too close for their direction to mean
/// anything), or a closest-feature normal leaned into a neighbour's region: SAT over the
/// segment's face normal and the shape's admissible face normals, minding the convex
/// neighbours' lines. `overlapping`: the cores overlap, so the clipping may restore SAT depth;
/// otherwise each clipped point's own separation decides, and none within reach means none.
fn sat_manifold(f: &Face, probe: &Probe, overlapping: bool, size: f32) -> Manifold {
    let (vs, r) = (probe.verts(), probe.radius);
    let lowest = |n: Vec2, o: Vec2| vs.iter().map(|v| n.dot(*v - o)).fold(f32::INFINITY, f32::min);
    let sep_face = lowest(f.n1, f.p1);
    let (mut sep_b, mut ref_b) = (f32::NEG_INFINITY, usize::MAX);
    if vs.len() >= 2 {
        for (k, (&v, &nk)) in vs.iter().zip(&probe.n).enumerate() {
            if f.classify(-nk) != Some(true) {
                continue;
            }
            let sep = nk.dot(f.p1 - v).min(nk.dot(f.p2 - v));
            if sep > sep_b {
                (sep_b, ref_b) = (sep, k);
            }
        }
    }
    let own = sep_face.max(sep_b);
    if own > r {
        return Manifold::EMPTY;
    }
    // A shape deeper behind our line than behind a convex neighbour's is the neighbour's to
    // push out, the shallower way, if it touches the neighbour at all: a thin shape that
    // crossed this segment may pass behind the neighbour without meeting it.
    let tol = 1e-4 * size;
    for (end, at) in f.ends.iter().zip([f.p1, f.p2]) {
        if let End::Convex { neighbour, ghost: Some(g) } = *end
            && lowest(neighbour, at) > own + tol
            && Cores::between(at, g - at, probe).dist() <= r
        {
            return Manifold::EMPTY;
        }
    }
    if sep_b > sep_face + tol {
        let reference = Edge::of(vs, ref_b);
        let incident = Edge { v1: f.p1, v2: f.p2, i1: f.ids[0], i2: f.ids[1] };
        let mut m = clip(&reference, probe.n[ref_b], &incident, r, 0.0, true, overlapping);
        m.normal = f.clamp(m.normal, m.normal.dot(f.e1) <= 0.0);
        return m;
    }
    face_manifold(f, probe, overlapping)
}

/// The contact along the segment's face normal: the shape's incident edge clipped to the
/// segment's slab. `overlapping` says the cores overlap (SAT decided the contact); otherwise
/// the shape may lie beyond the slab, where it touches nothing of this segment.
fn face_manifold(f: &Face, probe: &Probe, overlapping: bool) -> Manifold {
    let (n1, r) = (f.n1, probe.radius);
    let lat = |x: Vec2| (x - f.p1).dot(f.e1);
    let vs = probe.verts();
    if vs.len() == 1 {
        let c = vs[0];
        let l = lat(c);
        if !(0.0..=f.len).contains(&l) && !overlapping {
            return Manifold::EMPTY;
        }
        let h = n1.dot(c - f.p1);
        if h > r {
            return Manifold::EMPTY;
        }
        // Midpoint between the foot on the segment and the circle's deepest point.
        let foot = f.p1 + l.clamp(0.0, f.len) * f.e1;
        let point = 0.5 * (foot + c - r * n1);
        return Manifold::one_point(n1, point, r - h, feature_id(FACE, 0));
    }
    let k = most_anti_parallel(n1, &probe.n[..vs.len()]);
    let incident = Edge::of(vs, k);
    if !overlapping {
        // The incident core edge within the slab must come within `r` of the line.
        let (l1, l2) = (lat(incident.v1), lat(incident.v2));
        let (lo, hi) = (l1.min(l2).max(0.0), l1.max(l2).min(f.len));
        if lo > hi {
            return Manifold::EMPTY;
        }
        let at = |l: f32| {
            let t = if l2 != l1 { ((l - l1) / (l2 - l1)).clamp(0.0, 1.0) } else { 0.0 };
            n1.dot(incident.v1.lerp(incident.v2, t) - f.p1)
        };
        if at(lo).min(at(hi)) > r {
            return Manifold::EMPTY;
        }
    }
    let reference = Edge { v1: f.p1, v2: f.p2, i1: f.ids[0], i2: f.ids[1] };
    clip(&reference, n1, &incident, 0.0, r, false, overlapping)
}
