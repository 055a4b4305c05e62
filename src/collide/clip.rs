//! Reference/incident edge clipping, shared by the polygon, capsule–polygon, capsule–capsule and
//! box–box kernels.
//!
//! The kernels decide *whether* two shapes touch and along which face (SAT, or the exact closest
//! features for rounded shapes); [`clip`] only turns that decision into contact points
//! (Catto's reference/incident clipping, as in Box2D's `b2ClipPolygons`).
//!
//! ```text
//!          r.v1 ─────────── r.v2        reference edge, outward normal n (↑)
//!            ┆ side plane     ┆ side plane
//!   inc.v2 ──┼───────────────┼── inc.v1  incident edge, runs the opposite way
//!            ↑ clipped here    ↑ clipped here
//! ```

use glam::Vec2;

use crate::collide::{Manifold, ManifoldPoint, feature_id};

/// An edge of a convex hull, with the ids of its end vertices and of itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    /// Start vertex (counter-clockwise order of its hull).
    pub v1: Vec2,
    /// End vertex.
    pub v2: Vec2,
    /// Vertex index of `v1`.
    pub i1: u16,
    /// Vertex index of `v2`.
    pub i2: u16,
}

impl Edge {
    /// Edge `i` of the hull `vs` (from vertex `i` to vertex `i + 1 mod len`).
    #[inline]
    pub fn of(vs: &[Vec2], i: usize) -> Edge {
        let j = if i + 1 == vs.len() { 0 } else { i + 1 };
        Edge { v1: vs[i], v2: vs[j], i1: i as u16, i2: j as u16 }
    }
}

/// The index of the normal most anti-parallel to `n`: the incident face for reference normal `n`.
/// Ties go to the lower index, so the choice is deterministic.
#[inline]
pub(crate) fn most_anti_parallel(n: Vec2, normals: &[Vec2]) -> usize {
    let mut best = 0;
    let mut min = f32::INFINITY;
    for (k, m) in normals.iter().enumerate() {
        let d = n.dot(*m);
        if d < min {
            min = d;
            best = k;
        }
    }
    best
}

/// Contact points of the incident edge `inc` against the reference edge `r` with outward unit
/// normal `n` (all in one frame). `r_ref`/`r_inc` are the rounding radii of the reference and
/// incident shapes. `flip` says the reference edge belongs to B: the manifold normal is then
/// `-n` and feature ids put the incident vertices in the high (A) half.
///
/// Each point's id pairs the reference and incident vertices at its end of the contact
/// interval, so it survives clipping ambiguities and reference-face flips (see the body).
///
/// `restore` is for cores that overlap: the deepest incident vertex then carries the SAT depth
/// and must survive clipping (see below). When rounded cores are apart it must be off: a vertex
/// beyond a side plane is farther from the reference face than its separation along `n` says.
///
/// The caller has already decided the shapes touch: at least one point is always returned.
/// A point is kept when its surfaces touch or overlap (separation `<= r_ref + r_inc`, inclusive);
/// if clipping leaves none (only possible within rounding error of touching), the deeper one is
/// kept with depth 0.
pub(crate) fn clip(r: &Edge, n: Vec2, inc: &Edge, r_ref: f32, r_inc: f32, flip: bool, restore: bool) -> Manifold {
    clip_inline(r, n, inc, r_ref, r_inc, flip, restore)
}

/// [`clip`] of two sharp shapes whose cores overlap (`r_ref = r_inc = 0`, `restore`): the
/// same arithmetic with the rounded surface's branches folded away by the constants.
pub(crate) fn clip_sharp(r: &Edge, n: Vec2, inc: &Edge, flip: bool) -> Manifold {
    clip_inline(r, n, inc, 0.0, 0.0, flip, true)
}

#[inline(always)]
fn clip_inline(r: &Edge, n: Vec2, inc: &Edge, r_ref: f32, r_inc: f32, flip: bool, restore: bool) -> Manifold {
    // The incident side's surface is its core edge pushed out by `r_inc` along the edge's own
    // outward normal (hulls are counter-clockwise), plus an arc around each vertex. Clipping
    // that flat part, not the core edge moved along the reference normal, keeps every point on
    // the incident surface: with a tilt θ between the two faces the core-edge shortcut would
    // put the shallow end r_inc·(1 - cos θ) inside the incident shape and over-report its depth
    // by as much.
    let e = inc.v2 - inc.v1;
    let (w1, w2) = if r_inc > 0.0 {
        // The incident face's outward normal, the perpendicular facing the reference face.
        let perp = Vec2::new(e.y, -e.x).normalize_or_zero();
        let ns = if perp.dot(n) <= 0.0 { perp } else { -perp };
        (inc.v1 + r_inc * ns, inc.v2 + r_inc * ns)
    } else {
        (inc.v1, inc.v2) // a sharp incident shape (most boxes and polygons): no square root
    };
    let t = n.perp(); // the reference edge's direction, r.v1 → r.v2
    let lat = |x: Vec2| lateral(r.v1, t, x);
    let upper1 = lat(r.v2);
    // The deeper end vertex along -n is the one whose arc holds the direction -n (the incident
    // face is the most anti-parallel one): its surface point along -n is the incident shape's
    // support point, deeper than the flat part's end by r_inc·(1 - cos θ).
    let lean = -n.dot(e); // > 0: v2 is deeper
    let (deep1, deep2) = (r_inc > 0.0 && lean < 0.0, r_inc > 0.0 && lean > 0.0);
    let end2 = if deep2 { inc.v2 - r_inc * n } else { w2 };
    let end1 = if deep1 { inc.v1 - r_inc * n } else { w1 };
    let surface = Surface {
        v1: inc.v1,
        v2: inc.v2,
        w1,
        w2,
        end1,
        end2,
        lw1: lat(w1),
        lw2: lat(w2),
        deep1,
        deep2,
        r_inc,
        t,
        n,
        o: r.v1,
    };
    let (upper2, lower2) = (lat(end1), lat(end2));
    let span = upper2 - lower2;

    // (incident surface point, its separation from the reference core face along n, (vertex of
    // the reference edge, vertex of the incident edge)) for each end of the contact interval.
    // The id names the two vertices at that end whether or not clipping moved the point (Box2D
    // v3's `b2ClipPolygons`). Naming a clipped point (reference vertex, incident edge) and an
    // unclipped one (reference edge, incident vertex) instead would make the id depend on which
    // of two coinciding corners lies a hair inside the other's side plane: equal boxes stacked
    // in a column would swap ids with the sign of a 1e-6 tilt, and a solver keyed on the ids
    // would lose its warm start every step (the physics back-end example's pyramid test stands
    // such a column). The vertex pair is also the same pair when the reference face moves from
    // one shape to the other.
    let (s1, s2) = ((end1 - r.v1).dot(n), (end2 - r.v1).dot(n));
    let mut lo = (end2, s2, (r.i1, inc.i2));
    let mut lo_clipped = false;
    if lower2 < 0.0 && span > 0.0 {
        let v = surface.at(0.0);
        lo = (v, (v - r.v1).dot(n), (r.i1, inc.i2));
        lo_clipped = true;
    }
    let mut hi = (end1, s1, (r.i2, inc.i1));
    let mut hi_clipped = false;
    if upper2 > upper1 && span > 0.0 {
        let v = surface.at(upper1);
        hi = (v, (v - r.v1).dot(n), (r.i2, inc.i1));
        hi_clipped = true;
    }
    // The deepest incident vertex defines the SAT penetration. When the cores overlap, the
    // reference face is the minimum-translation axis (up to the reference tolerance), so that
    // vertex lies within the side planes up to rounding; a clip that cuts it off only loses
    // rounding-level depth. Carry the vertex's depth at the clipped point so that the deepest
    // point still reports the SAT depth, but keep the clipped position: the vertex itself can
    // lie far beyond the reference face's end (two parallel faces, where the clip lost one ulp
    // of depth).
    if !restore {
    } else if s2 <= s1 {
        if lo_clipped && lo.1 > s2 {
            lo.1 = s2;
        }
    } else if hi_clipped && hi.1 > s1 {
        hi.1 = s1;
    }

    let mut m = Manifold { normal: if flip { -n } else { n }, ..Manifold::EMPTY };
    let mut push = |(q, sep, (fr, fi)): (Vec2, f32, (u16, u16)), depth: f32| {
        let id = if flip { feature_id(fi, fr) } else { feature_id(fr, fi) };
        // Midpoint between the incident surface point q and the reference surface along n
        // (q - sep·n + r_ref·n).
        let point = q + (0.5 * (r_ref - sep)) * n;
        m.points[m.count as usize] = ManifoldPoint { point, depth, id, ..ManifoldPoint::default() };
        m.count += 1;
    };
    let (keep_lo, keep_hi) = (lo.1 <= r_ref, hi.1 <= r_ref);
    if keep_lo {
        push(lo, r_ref - lo.1);
    }
    if keep_hi {
        push(hi, r_ref - hi.1);
    }
    if !keep_lo && !keep_hi {
        push(if lo.1 <= hi.1 { lo } else { hi }, 0.0);
    }
    m
}

/// The coordinate of `x` along the reference edge, which starts at `o` and runs along `t`.
#[inline(always)]
fn lateral(o: Vec2, t: Vec2, x: Vec2) -> f32 {
    (x - o).dot(t)
}

/// The incident shape's surface near the reference face, for [`clip_inline`]: its flat part
/// from `w1` to `w2` and, at a deep end (`deep1`, `deep2`), the arc around that vertex (`v1`,
/// `v2`) from its support point (`end1`, `end2`) to the flat part.
struct Surface {
    v1: Vec2,
    v2: Vec2,
    w1: Vec2,
    w2: Vec2,
    end1: Vec2,
    end2: Vec2,
    /// Lateral coordinates of `w1` and `w2`.
    lw1: f32,
    lw2: f32,
    deep1: bool,
    deep2: bool,
    r_inc: f32,
    /// The reference edge's direction, its normal, and its start (the lateral origin).
    t: Vec2,
    n: Vec2,
    o: Vec2,
}

impl Surface {
    #[inline(always)]
    fn lat(&self, x: Vec2) -> f32 {
        lateral(self.o, self.t, x)
    }

    /// The surface point at lateral coordinate `l`: on the arc of a deep end, else on the flat
    /// part. A method, not a closure: called twice, a closure over a dozen locals is outlined
    /// and handed all their addresses, on the path of every resting pair.
    #[inline(always)]
    fn at(&self, l: f32) -> Vec2 {
        let within = |l: f32, x: f32, y: f32| x.min(y) <= l && l <= x.max(y);
        if self.deep2 && within(l, self.lat(self.end2), self.lw2) {
            self.arc(self.v2, l)
        } else if self.deep1 && within(l, self.lat(self.end1), self.lw1) {
            self.arc(self.v1, l)
        } else if self.lw1 > self.lw2 {
            self.w2.lerp(self.w1, ((l - self.lw2) / (self.lw1 - self.lw2)).clamp(0.0, 1.0))
        } else {
            self.w2
        }
    }

    #[inline(always)]
    fn arc(&self, v: Vec2, l: f32) -> Vec2 {
        let a = ((l - self.lat(v)) / self.r_inc).clamp(-1.0, 1.0);
        v + self.r_inc * (a * self.t - (1.0 - a * a).max(0.0).sqrt() * self.n)
    }
}
