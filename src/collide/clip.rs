//! Reference/incident edge clipping, shared by the polygon, capsule–polygon and box–box kernels.
//!
//! The kernels decide *whether* two shapes touch and along which face (SAT, or the exact closest
//! features for rounded shapes); [`clip`] only turns that decision into contact points
//! (Catto's reference/incident clipping, as in Box2D's `b2ClipPolygons`; seed 002).
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
    // The incident side's surface is its core edge pushed out by `r_inc` along the edge's own
    // outward normal (hulls are counter-clockwise), plus an arc around each vertex. Clipping
    // that flat part, not the core edge moved along the reference normal, keeps every point on
    // the incident surface: with a tilt θ between the two faces the core-edge shortcut put the
    // shallow end r_inc·(1 - cos θ) inside the incident shape (0.018 for a capsule of radius
    // 0.13 tilted 30°) and over-reported its depth by as much.
    let e = inc.v2 - inc.v1;
    // The incident face's outward normal, the perpendicular facing the reference face.
    let perp = Vec2::new(e.y, -e.x).normalize_or_zero();
    let ns = if perp.dot(n) <= 0.0 { perp } else { -perp };
    let (w1, w2) = (inc.v1 + r_inc * ns, inc.v2 + r_inc * ns);
    let t = n.perp(); // the reference edge's direction, r.v1 → r.v2
    let lat = |x: Vec2| (x - r.v1).dot(t);
    let upper1 = (r.v2 - r.v1).dot(t);
    // The deeper end vertex along -n is the one whose arc holds the direction -n (the incident
    // face is the most anti-parallel one): its surface point along -n is the incident shape's
    // support point, deeper than the flat part's end by r_inc·(1 - cos θ).
    let lean = -n.dot(e); // > 0: v2 is deeper
    let (deep1, deep2) = (r_inc > 0.0 && lean < 0.0, r_inc > 0.0 && lean > 0.0);
    let end2 = if deep2 { inc.v2 - r_inc * n } else { w2 };
    let end1 = if deep1 { inc.v1 - r_inc * n } else { w1 };
    // The incident surface point at lateral coordinate `l`: on the arc of a deep end (between
    // its support point and its flat end), else on the flat part.
    let arc = |v: Vec2, l: f32| {
        let a = ((l - lat(v)) / r_inc).clamp(-1.0, 1.0);
        v + r_inc * (a * t - (1.0 - a * a).max(0.0).sqrt() * n)
    };
    let within = |l: f32, x: f32, y: f32| x.min(y) <= l && l <= x.max(y);
    let (lw1, lw2) = (lat(w1), lat(w2));
    let at = |l: f32| {
        if deep2 && within(l, lat(end2), lw2) {
            arc(inc.v2, l)
        } else if deep1 && within(l, lat(end1), lw1) {
            arc(inc.v1, l)
        } else if lw1 > lw2 {
            w2.lerp(w1, ((l - lw2) / (lw1 - lw2)).clamp(0.0, 1.0))
        } else {
            w2
        }
    };
    let (upper2, lower2) = (lat(end1), lat(end2));
    let span = upper2 - lower2;

    // (incident surface point, its separation from the reference core face along n, (vertex of
    // the reference edge, vertex of the incident edge)) for each end of the contact interval.
    // The id names the two vertices at that end whether or not clipping moved the point (Box2D
    // v3's `b2ClipPolygons`). Naming a clipped point (reference vertex, incident edge) and an
    // unclipped one (reference edge, incident vertex) instead made the id depend on which of two
    // coinciding corners lies a hair inside the other's side plane: equal boxes stacked in a
    // column swapped ids with the sign of a 1e-6 tilt, and a 20-box column drifted 0.38 m in
    // 10 s instead of 0.014 m (examples/physics_backend, `measure_column` in tests/pyramid.rs).
    // The vertex pair is also the same pair when the reference face moves from one shape to
    // the other.
    let (s1, s2) = ((end1 - r.v1).dot(n), (end2 - r.v1).dot(n));
    let mut lo = (end2, s2, (r.i1, inc.i2));
    let mut lo_clipped = false;
    if lower2 < 0.0 && span > 0.0 {
        let v = at(0.0);
        lo = (v, (v - r.v1).dot(n), (r.i1, inc.i2));
        lo_clipped = true;
    }
    let mut hi = (end1, s1, (r.i2, inc.i1));
    let mut hi_clipped = false;
    if upper2 > upper1 && span > 0.0 {
        let v = at(upper1);
        hi = (v, (v - r.v1).dot(n), (r.i2, inc.i1));
        hi_clipped = true;
    }
    // The deepest incident vertex defines the SAT penetration. When the cores overlap, the
    // reference face is the minimum-translation axis (up to the reference tolerance), so that
    // vertex lies within the side planes up to rounding; a clip that cuts it off only loses
    // rounding-level depth. Carry the vertex's depth at the clipped point so that the deepest
    // point still reports the SAT depth, but keep the clipped position: moving the point back
    // to the vertex put it beyond the reference face's end (0.135 off a 0.28 box on two
    // parallel faces, where the clip lost 1 ulp of depth).
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
        m.points[m.count as usize] = ManifoldPoint { point, depth, id };
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

#[cfg(test)]
pub(crate) mod test_util {
    //! Shared helpers for the kernels' tests: random shapes and poses, and conversions to parry.

    use glam::Vec2;

    pub use crate::internal::SplitMix64;
    use crate::math::Pose;
    use crate::shape::Shape;

    /// A random polygon (3–8 vertices, sometimes a rounded box), rounded with probability `p_round`.
    pub fn random_polygon(rng: &mut SplitMix64, p_round: f32) -> Shape {
        let radius = if rng.range(0.0, 1.0) < p_round { rng.range(0.01, 0.5) } else { 0.0 };
        loop {
            let n = 3 + rng.below(6);
            let mut pts = [Vec2::ZERO; 8];
            let scale = rng.range(0.3, 2.0);
            let stretch = rng.range(0.3, 1.0);
            for p in pts.iter_mut().take(n) {
                let a = rng.range(0.0, std::f32::consts::TAU);
                let r = scale * rng.range(0.5, 1.0);
                *p = Vec2::new(r * a.cos(), stretch * r * a.sin());
            }
            if let Ok(s) = Shape::polygon(&pts[..n], radius) {
                return s;
            }
        }
    }

    /// A pose with position in `[-span, span]²` and any angle.
    pub fn random_pose(rng: &mut SplitMix64, span: f32) -> Pose {
        Pose::new(Vec2::new(rng.range(-span, span), rng.range(-span, span)), rng.range(-3.2, 3.2))
    }

    fn pv(v: Vec2) -> parry2d::math::Vec2 {
        parry2d::math::Vec2::new(v.x, v.y)
    }

    fn ppose(p: &Pose) -> parry2d::math::Pose {
        parry2d::math::Pose::from_parts(pv(p.p), parry2d::math::Rotation::from_cos_sin_unchecked(p.q.c, p.q.s))
    }

    /// parry's penetration depth and unit normal from A to B, or `None` when separated.
    ///
    /// Rounded shapes go to parry as their core plus a radius: parry's own `RoundShape` contact
    /// is off by up to ~0.07 when the cores are apart (its EPA on margins; seen with a rounded
    /// 7-gon, depth 0.144 against an exact 0.215), while its core distance is exact. So the
    /// oracle is `rsum - dist(core_a, core_b)` with parry's signed core distance.
    pub fn parry_contact(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Option<(f32, Vec2)> {
        let (ga, ra) = to_parry(sa);
        let (gb, rb) = to_parry(sb);
        let rsum = ra + rb;
        let (qa, qb) = (ppose(pa), ppose(pb));
        // parry's `contact` with a prediction margin was also seen off by 2e-4 on separated
        // polygons where its `distance` is exact, so separated cores go through `distance`.
        let dist = parry2d::query::distance(&qa, &*ga, &qb, &*gb).expect("supported pair").distance;
        if dist > 0.0 {
            return (dist <= rsum).then_some((rsum - dist, Vec2::NAN));
        }
        let c = parry2d::query::contact(&qa, &*ga, &qb, &*gb, 0.0).expect("supported pair")?;
        Some((rsum - c.dist, Vec2::new(c.normal1.x, c.normal1.y)))
    }

    /// The shape's core vertices in world space (f64) and its radius; a capsule is a 2-gon.
    fn core64(s: &Shape, p: &Pose) -> (Vec<[f64; 2]>, f64) {
        let w = |vs: &[Vec2]| -> Vec<[f64; 2]> {
            // Rotate and translate in f64 so that the oracle adds no f32 rounding of its own.
            let (c, sn, tx, ty) = (p.q.c as f64, p.q.s as f64, p.p.x as f64, p.p.y as f64);
            vs.iter().map(|v| [c * v.x as f64 - sn * v.y as f64 + tx, sn * v.x as f64 + c * v.y as f64 + ty]).collect()
        };
        match s {
            Shape::Circle(c) => (w(&[Vec2::ZERO]), c.radius as f64),
            Shape::Capsule(c) => (w(&[c.a, c.b]), c.radius as f64),
            Shape::Cuboid(b) => (w(b.to_polygon().vertices()), 0.0),
            Shape::Polygon(q) => (w(q.vertices()), q.radius() as f64),
            Shape::Compound(_) => unreachable!("convex kernels only"),
        }
    }

    /// Brute-force penetration depth in f64 (`None` when apart): SAT over every edge normal
    /// when the cores overlap, else the radii minus the least vertex–segment distance.
    pub fn brute_depth(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> Option<f64> {
        let ((va, ra), (vb, rb)) = (core64(sa, pa), core64(sb, pb));
        let sep = |v1: &[[f64; 2]], v2: &[[f64; 2]]| {
            let mut best = f64::NEG_INFINITY;
            for i in 0..v1.len() {
                let (a, b) = (v1[i], v1[(i + 1) % v1.len()]);
                let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
                let l = (ex * ex + ey * ey).sqrt();
                let (nx, ny) = (ey / l, -ex / l);
                let s = v2.iter().map(|w| nx * (w[0] - a[0]) + ny * (w[1] - a[1])).fold(f64::INFINITY, f64::min);
                best = best.max(s);
            }
            best
        };
        let seg = |p: [f64; 2], a: [f64; 2], b: [f64; 2]| {
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let t = (((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
            (p[0] - a[0] - t * ex).hypot(p[1] - a[1] - t * ey)
        };
        let dist = |v1: &[[f64; 2]], v2: &[[f64; 2]]| {
            let mut d = f64::INFINITY;
            for p in v1 {
                for k in 0..v2.len() {
                    d = d.min(seg(*p, v2[k], v2[(k + 1) % v2.len()]));
                }
            }
            d
        };
        let s = sep(&va, &vb).max(sep(&vb, &va));
        let gap = if s > 0.0 { dist(&va, &vb).min(dist(&vb, &va)) } else { s };
        let depth = ra + rb - gap;
        (depth >= 0.0).then_some(depth)
    }

    /// How far A and B overlap along the unit direction `n` (A to B): support of A along `n`
    /// minus support of B along `-n`, radii included.
    pub fn overlap_along(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose, n: Vec2) -> f32 {
        fn support(s: &Shape, p: &Pose, n: Vec2) -> f32 {
            let core = |vs: &[Vec2]| vs.iter().map(|v| n.dot(p.transform_point(*v))).fold(f32::NEG_INFINITY, f32::max);
            match s {
                Shape::Circle(c) => n.dot(p.p) + c.radius,
                Shape::Capsule(c) => core(&[c.a, c.b]) + c.radius,
                Shape::Cuboid(b) => core(b.to_polygon().vertices()),
                Shape::Polygon(q) => core(q.vertices()) + q.radius(),
                Shape::Compound(_) => unreachable!("convex kernels only"),
            }
        }
        support(sa, pa, n) + support(sb, pb, -n)
    }

    /// The shape's core for parry and its rounding radius.
    fn to_parry(s: &Shape) -> (Box<dyn parry2d::shape::Shape>, f32) {
        use parry2d::shape::{Ball, ConvexPolygon, Cuboid, Segment};
        match s {
            Shape::Circle(c) => (Box::new(Ball::new(c.radius)), 0.0),
            Shape::Capsule(c) => (Box::new(Segment::new(pv(c.a), pv(c.b))), c.radius),
            Shape::Cuboid(b) => (Box::new(Cuboid::new(pv(b.half_extents))), 0.0),
            Shape::Polygon(p) => {
                let poly =
                    ConvexPolygon::from_convex_polyline_unmodified(p.vertices().iter().map(|v| pv(*v)).collect())
                        .expect("convex polygon");
                (Box::new(poly), p.radius())
            }
            Shape::Compound(_) => unreachable!("convex kernels only"),
        }
    }

    /// Checks one pair through the public API against the invariants every kernel owes:
    /// unit normal, `overlaps == count > 0`, swap symmetry, distinct ids, max depth equal to an
    /// f64 brute-force penetration depth within `tol`, overlap along the normal equal to the
    /// depth (the normal is a true minimum-translation direction), and depth close to parry's.
    /// Returns a description of the first violation, or whether parry agreed.
    pub fn check_pair(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose, tol: f32) -> Result<bool, String> {
        use crate::collide::{contact, overlaps};
        let m = contact(sa, pa, sb, pb);
        let ctx = || format!("\n  A={sa:?} @ {pa:?}\n  B={sb:?} @ {pb:?}\n  m={m:?}");
        if overlaps(sa, pa, sb, pb) != (m.count > 0) {
            return Err(format!("overlaps disagrees with count{}", ctx()));
        }
        let s = contact(sb, pb, sa, pa);
        if s.count != m.count || (s.normal + m.normal).length() > 1e-5 {
            return Err(format!("swap changed count or normal: {s:?}{}", ctx()));
        }
        for (p, q) in m.points().iter().zip(s.points()) {
            if (p.point - q.point).length() > 1e-4 || (p.depth - q.depth).abs() > 1e-5 || p.id != q.id.rotate_left(16) {
                return Err(format!("swap changed a point: {s:?}{}", ctx()));
            }
        }
        if m.count > 0 {
            if !m.normal.is_finite() || (m.normal.length() - 1.0).abs() > 1e-5 {
                return Err(format!("normal not unit{}", ctx()));
            }
            if m.points().iter().any(|p| !p.point.is_finite() || p.depth.is_nan() || p.depth < 0.0) {
                return Err(format!("bad point{}", ctx()));
            }
            if m.count == 2 && m.points[0].id == m.points[1].id {
                return Err(format!("duplicate ids{}", ctx()));
            }
        }
        let depth = m.max_depth();
        let brute = brute_depth(sa, pa, sb, pb);
        match (brute, depth) {
            (None, None) => {}
            (None, Some(d)) if d <= tol => {}
            (Some(b), None) if b <= tol as f64 => {}
            (Some(b), Some(d)) if (b - d as f64).abs() <= tol as f64 => {}
            (b, d) => return Err(format!("brute force says {b:?}, we say depth {d:?}{}", ctx())),
        }
        if let Some(d) = depth {
            // Where several axes give nearly the same depth, parry's normal and ours may differ;
            // what must hold is that the shapes overlap by `d` along ours. One licensed
            // exception: rounded cores apart with two nearly parallel faces within the
            // reference tolerance keep A's face, whose normal is then a hair off the exact one,
            // and the overlap along it grows with how far the other face reaches past it
            // (3.4e-4 seen), while the depth stays exact.
            let along = overlap_along(sa, pa, sb, pb, m.normal);
            if along < d - tol || along > d + tol.max(1e-3) {
                return Err(format!("overlap along our normal is {along}, depth {d}{}", ctx()));
            }
        }
        // parry's GJK/EPA works to ~2e-4 on thin polygons and has rare larger outliers (1.5e-3
        // seen where the f64 brute force agrees with us), so parry gets a looser band and its
        // disagreements are counted by the callers rather than fatal.
        let tol = tol.max(1e-3);
        let agrees = match (parry_contact(sa, pa, sb, pb), depth) {
            (None, None) => true,
            (None, Some(d)) => d <= tol,
            (Some((pd, _)), None) => pd <= tol,
            (Some((pd, _)), Some(d)) => (pd - d).abs() <= tol,
        };
        if !agrees {
            eprintln!("parry disagrees: {:?}{}", parry_contact(sa, pa, sb, pb), ctx());
        }
        Ok(agrees)
    }

    /// Runs `n` random pairs from `make` through [`check_pair`]; panics on the first violation
    /// or when parry disagrees on more than 1 in 1000. Returns how many pairs touched.
    pub fn check_many(
        seed: u64,
        n: usize,
        mut make: impl FnMut(&mut SplitMix64) -> (Shape, Pose, Shape, Pose),
    ) -> usize {
        let mut rng = SplitMix64::new(seed);
        let (mut touching, mut parry_off) = (0, 0);
        for _ in 0..n {
            let (sa, pa, sb, pb) = make(&mut rng);
            match check_pair(&sa, &pa, &sb, &pb, 1e-4) {
                Ok(agrees) => parry_off += !agrees as usize,
                Err(e) => panic!("{e}"),
            }
            touching += crate::collide::overlaps(&sa, &pa, &sb, &pb) as usize;
        }
        assert!(parry_off * 1000 <= n, "parry disagrees on {parry_off} of {n} pairs");
        touching
    }
}
