//! `query::project_point` and `World::project_point` against an exact f64 reference written
//! here, per kind: a convex core (a point, a segment or a polygon) grown by a radius. Inside a
//! polygon core the nearest boundary lies on the nearest edge line; outside any core the
//! closest core point is the nearest of the closest points on its edges (each a clamp); the
//! surface is a radius further out. Compounds are the least signed distance over their parts,
//! chains the nearest of their segments.
//!
//! Random shapes of every kind (sizes 1e-3 to 1e4, poses up to 1e5 out, cores away from their
//! origin) and points near them, deep inside, far away, exactly on vertices and edges. Every
//! answer is checked for:
//! - its distance against the reference's, within a band of f32 rounding on the magnitudes
//!   involved (`1e-6` of the point's distance from the pose plus the shape's size);
//! - its point on the surface (the reference's signed distance of the point ≈ 0);
//! - `point + distance · normal` = the queried point, and a unit normal;
//! - its normal being an outward normal of the surface at the point: one step `ε` out along it,
//!   the reference's distance is `ε` (true for any normal in a convex part's normal cone,
//!   false for any other direction).
//!
//! parry2d 0.31's `project_point` (solid = false) is compared within the same band where the
//! two define the same answer; the disagreements are counted and printed (`--nocapture`).
//! The world query is checked against a brute-force scan over every collider, in random
//! worlds between steps (after `set_pose`, `insert`, `remove` without a step).

use glam::DVec2;
use parry2d::math as pm;
use sapwood::query::{PointProjection, QueryError, project_point};
use sapwood::{
    ChainOptions, ColliderDesc, ColliderId, Filter, Pose, QueryFilter, Rot, Shape, Vec2, World, WorldPointProjection,
};
use sapwood_support::f64_rng::F64Rng;
use sapwood_support::parry_shapes::{parry_pose, to_parry};
use sapwood_support::random_shapes::{random_convex_at, v2};

fn d(v: Vec2) -> DVec2 {
    DVec2::new(f64::from(v.x), f64::from(v.y))
}

// ---- The f64 reference ------------------------------------------------------------------------

/// A pose in f64 with the f32 pose's own cosine and sine (the library applies them as they are;
/// its inverse is the transpose, as the library's).
#[derive(Clone, Copy, Debug)]
struct PoseD {
    p: DVec2,
    c: f64,
    s: f64,
}

impl PoseD {
    fn of(pose: &Pose) -> PoseD {
        PoseD { p: d(pose.p), c: f64::from(pose.q.c), s: f64::from(pose.q.s) }
    }
    fn apply(&self, v: DVec2) -> DVec2 {
        self.p + self.rotate(v)
    }
    fn rotate(&self, v: DVec2) -> DVec2 {
        DVec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }
    fn inv_apply(&self, v: DVec2) -> DVec2 {
        let w = v - self.p;
        DVec2::new(self.c * w.x + self.s * w.y, -self.s * w.x + self.c * w.y)
    }
}

/// A convex core grown by `radius`, at `pose` in the shape's frame; `solid` unless a bare
/// segment.
#[derive(Clone, Debug)]
struct Part {
    core: Vec<DVec2>,
    radius: f64,
    solid: bool,
    pose: PoseD,
}

/// The reference's answer in the part's frame: signed distance, surface point, and the normal
/// when it is determined (`None` on the core of a round shape, where every direction is as deep).
#[derive(Clone, Copy, Debug)]
struct Exact {
    distance: f64,
    point: DVec2,
    normal: Option<DVec2>,
}

fn closest_on_segment(a: DVec2, b: DVec2, q: DVec2) -> DVec2 {
    let e = b - a;
    let t = ((q - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
    a + t * e
}

fn round(q: DVec2, c: DVec2, r: f64, solid: bool) -> Exact {
    let v = q - c;
    let dist = v.length();
    if dist == 0.0 {
        return Exact { distance: if solid { -r } else { 0.0 }, point: c, normal: None };
    }
    let n = v / dist;
    Exact { distance: dist - r, point: c + r * n, normal: Some(n) }
}

impl Part {
    fn project_local(&self, q: DVec2) -> Exact {
        let (core, r) = (&self.core, self.radius);
        let n = core.len();
        if n <= 2 {
            let c = if n == 1 { core[0] } else { closest_on_segment(core[0], core[1], q) };
            return round(q, c, r, self.solid);
        }
        let normal = |i: usize| {
            let e = core[(i + 1) % n] - core[i];
            DVec2::new(e.y, -e.x).normalize()
        };
        let (mut best, mut s) = (0, f64::NEG_INFINITY);
        for (i, v) in core.iter().enumerate() {
            let si = normal(i).dot(q - *v);
            if si > s {
                (best, s) = (i, si);
            }
        }
        if s <= 0.0 {
            let m = normal(best);
            return Exact { distance: s - r, point: q + (r - s) * m, normal: Some(m) };
        }
        let c = (0..n)
            .map(|i| closest_on_segment(core[i], core[(i + 1) % n], q))
            .min_by(|a, b| (*a - q).length_squared().total_cmp(&(*b - q).length_squared()))
            .unwrap();
        round(q, c, r, true)
    }

    /// In the shape's frame.
    fn project(&self, q: DVec2) -> Exact {
        let e = self.project_local(self.pose.inv_apply(q));
        Exact { point: self.pose.apply(e.point), normal: e.normal.map(|n| self.pose.rotate(n)), ..e }
    }

    fn size(&self) -> f64 {
        let c = self.pose.apply(DVec2::ZERO);
        self.core.iter().map(|v| (self.pose.apply(*v) - c).length()).fold(0.0, f64::max) + self.radius
    }
}

fn convex_part(shape: &Shape, pose: PoseD) -> Part {
    let (core, radius, solid) = match shape {
        Shape::Circle(c) => (vec![DVec2::ZERO], c.radius, true),
        Shape::Capsule(c) => (vec![d(c.a), d(c.b)], c.radius, true),
        Shape::Segment(s) => (vec![d(s.a), d(s.b)], s.radius, s.radius > 0.0),
        Shape::Cuboid(b) => {
            let h = d(b.half_extents);
            (vec![-h, DVec2::new(h.x, -h.y), h, DVec2::new(-h.x, h.y)], 0.0, true)
        }
        Shape::Polygon(p) => (p.vertices().iter().map(|v| d(*v)).collect(), p.radius(), true),
        other => panic!("{other:?} is not convex"),
    };
    Part { core, radius: f64::from(radius), solid, pose }
}

/// The shape's parts in its frame, indexed as the library's parts: a compound's parts, a
/// chain's segments (bare), a convex shape itself.
fn parts(shape: &Shape) -> Vec<Part> {
    let id = PoseD { p: DVec2::ZERO, c: 1.0, s: 0.0 };
    match shape {
        Shape::Compound(c) => c.parts().iter().map(|(p, s)| convex_part(s, PoseD::of(p))).collect(),
        Shape::Chain(c) => (0..c.segment_count())
            .map(|i| {
                let s = c.segment(i).unwrap();
                Part { core: vec![d(s.a), d(s.b)], radius: 0.0, solid: false, pose: id }
            })
            .collect(),
        s => vec![convex_part(s, id)],
    }
}

/// The reference for a whole shape at `pose`: the least signed distance over its parts, with
/// that part's index (world frame).
fn reference(parts: &[Part], pose: &PoseD, p: DVec2) -> (Exact, usize) {
    let q = pose.inv_apply(p);
    let (i, e) = parts
        .iter()
        .map(|part| part.project(q))
        .enumerate()
        .min_by(|a, b| a.1.distance.total_cmp(&b.1.distance))
        .unwrap();
    (Exact { point: pose.apply(e.point), normal: e.normal.map(|n| pose.rotate(n)), ..e }, i)
}

// ---- Checking one answer -----------------------------------------------------------------------

#[derive(Default)]
struct Worst {
    distance: f64,
    on_surface: f64,
    consistency: f64,
    normal: f64,
    cases: usize,
}

/// Checks `got` for the point `p` against the reference; returns the errors in units of the
/// band, panicking past 1.
fn check(shape: &Shape, pose: &Pose, p: Vec2, got: &PointProjection, worst: &mut Worst) {
    let parts = parts(shape);
    let pd = PoseD::of(pose);
    let pw = d(p);
    let (exact, _) = reference(&parts, &pd, pw);
    let size = parts.iter().map(|part| part.size() + part.pose.p.length()).fold(0.0, f64::max);
    // f32 rounding on the magnitudes in play: the point's offset from the pose and the shape's
    // reach for the distance; the pose's own coordinates too for a world point.
    let local_scale = (pw - pd.p).length() + size;
    let world_scale = local_scale + pd.p.length();
    let band = 1e-6;
    let ctx = || format!("{shape:?} at {pose:?}, point {p:?}: got {got:?}, reference {exact:?}");

    let e_distance = (f64::from(got.distance) - exact.distance).abs() / (band * local_scale);
    // The reported part's surface holds the point.
    let part = &parts[got.part as usize];
    let on = part.project(pd.inv_apply(d(got.point)));
    let e_surface = on.distance.abs() / (band * world_scale);
    // point + distance · normal = p.
    let n = d(got.surface_normal);
    let back = d(got.point) + f64::from(got.distance) * n;
    let e_consistency = ((back - pw).length() / (band * world_scale)).max((n.length() - 1.0).abs() / band);
    // An outward normal: one step out along it, the part's distance is the step. At a vertex a
    // chain's two segments share, the bisector of their fronts will do too.
    let eps = 1e-2 * size;
    let out = part.project(pd.inv_apply(d(got.point) + eps * n));
    let mut e_normal = (out.distance - eps).abs() / (band * world_scale + 1e-4 * eps);
    if let (Shape::Chain(c), 0.0) = (shape, got.distance) {
        let near = |v: Vec2| (pd.apply(d(v)) - d(got.point)).length() <= band * world_scale;
        let front = |a: Vec2, b: Vec2| {
            let e = d(b) - d(a);
            pd.rotate(DVec2::new(e.y, -e.x).normalize())
        };
        let vs = c.vertices();
        let k = vs.len();
        let shared = (0..k).find(|&i| near(vs[i]) && (c.options().closed || (i > 0 && i + 1 < k)));
        if let Some(i) = shared {
            let (prev, next) = (vs[(i + k - 1) % k], vs[(i + 1) % k]);
            let bisector = (front(prev, vs[i]) + front(vs[i], next)).normalize();
            e_normal = e_normal.min((n - bisector).length() / 1e-5);
        }
    }
    assert!(got.point.is_finite() && got.surface_normal.is_finite() && got.distance.is_finite(), "{}", ctx());
    assert!(e_distance <= 1.0, "distance off by {e_distance:.2} bands: {}", ctx());
    assert!(e_surface <= 1.0, "point off the surface by {e_surface:.2} bands: {}", ctx());
    assert!(e_consistency <= 1.0, "point + distance·normal off by {e_consistency:.2} bands: {}", ctx());
    assert!(e_normal <= 1.0, "not an outward normal ({e_normal:.2} bands): {}", ctx());
    if !parts.iter().any(|p| p.solid) {
        assert!(got.distance >= 0.0, "no inside: {}", ctx());
    }
    worst.distance = worst.distance.max(e_distance);
    worst.on_surface = worst.on_surface.max(e_surface);
    worst.consistency = worst.consistency.max(e_consistency);
    worst.normal = worst.normal.max(e_normal);
    worst.cases += 1;
}

// ---- Random shapes and points -----------------------------------------------------------------

fn random_chain(rng: &mut F64Rng, size: f64, offset: DVec2) -> Shape {
    loop {
        let n = 3 + rng.below(30) as usize;
        let mut at = offset;
        let mut heading = rng.range(-3.2, 3.2);
        let vs = (0..n)
            .map(|_| {
                heading += rng.range(-1.2, 1.2);
                at += DVec2::new(heading.cos(), heading.sin()) * size * rng.range(0.2, 0.8);
                v2(at)
            })
            .collect();
        let options = ChainOptions { closed: rng.chance(0.5), one_sided: rng.chance(0.5) };
        if let Ok(s) = Shape::chain(vs, options)
            && s.validate().is_ok()
        {
            return s;
        }
    }
}

fn random_shape(rng: &mut F64Rng, size: f64, offset: DVec2) -> Shape {
    match rng.below(10) {
        0 => random_chain(rng, size, offset),
        1 | 2 => {
            let parts = (0..2 + rng.below(4))
                .map(|_| {
                    let at = offset + rng.dir() * size * rng.range(0.0, 2.0);
                    let pose = Pose::new(v2(at), rng.range(-3.2, 3.2) as f32);
                    let core = rng.dir() * size * rng.range(0.0, 0.5);
                    (pose, random_convex_at(rng, size, core, true))
                })
                .collect();
            Shape::compound(parts).unwrap()
        }
        _ => random_convex_at(rng, size, offset, true),
    }
}

/// Points to ask about, in the shape's frame: near it, deep inside a part, exactly on a core
/// vertex or edge, on the surface, far away.
fn random_local_point(rng: &mut F64Rng, parts: &[Part], size: f64) -> DVec2 {
    let part = &parts[rng.below(parts.len() as u64) as usize];
    let core: Vec<DVec2> = part.core.iter().map(|v| part.pose.apply(*v)).collect();
    let centre = core.iter().sum::<DVec2>() / core.len() as f64;
    match rng.below(6) {
        0 => centre + rng.dir() * rng.range(0.0, 1.5) * size,
        1 => centre + rng.dir() * rng.range(0.0, 0.05) * size,
        2 => core[rng.below(core.len() as u64) as usize],
        3 => {
            let i = rng.below(core.len() as u64) as usize;
            let t = rng.unit();
            core[i] * (1.0 - t) + core[(i + 1) % core.len()] * t
        }
        4 => part.project(centre + rng.dir() * rng.range(0.0, 2.0) * size).point,
        _ => centre + rng.dir() * size * rng.log_range(2.0, 1e3),
    }
}

fn random_pose(rng: &mut F64Rng, size: f64) -> Pose {
    match rng.below(4) {
        0 => Pose::IDENTITY,
        1 => Pose::new(v2(rng.dir() * size * rng.range(0.0, 10.0)), rng.range(-3.2, 3.2) as f32),
        _ => Pose::new(v2(rng.dir() * rng.log_range(1.0, 1e5)), rng.range(-3.2, 3.2) as f32),
    }
}

#[test]
fn random_shapes_and_points_match_the_f64_reference() {
    let mut rng = F64Rng::new(0x9e0c);
    let mut worst = Worst::default();
    for _ in 0..3000 {
        let size = rng.log_range(1e-3, 1e4);
        let offset = if rng.chance(0.5) { DVec2::ZERO } else { rng.dir() * size * rng.range(0.0, 20.0) };
        let offset = offset.clamp_length_max(5e5);
        let shape = random_shape(&mut rng, size, offset);
        let pose = random_pose(&mut rng, size);
        let ps = parts(&shape);
        for _ in 0..20 {
            let local = random_local_point(&mut rng, &ps, size);
            let p = v2(PoseD::of(&pose).apply(local));
            let got = project_point(&shape, &pose, p).unwrap();
            check(&shape, &pose, p, &got, &mut worst);
        }
    }
    println!(
        "{} projections: worst use of the band (1e-6 of the magnitudes): distance {:.3}, point on the \
         surface {:.3}, point + distance·normal {:.3}, outward normal {:.3}",
        worst.cases, worst.distance, worst.on_surface, worst.consistency, worst.normal
    );
}

// ---- Named cases ---------------------------------------------------------------------------------

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

#[track_caller]
fn assert_projection(got: PointProjection, point: Vec2, normal: Vec2, distance: f32, part: u32) {
    let ok = (got.point - point).length() <= 1e-5 * (1.0 + point.length())
        && (got.surface_normal - normal).length() <= 1e-6
        && (got.distance - distance).abs() <= 1e-5 * (1.0 + distance.abs())
        && got.part == part;
    assert!(ok, "got {got:?}, want point {point:?}, normal {normal:?}, distance {distance}, part {part}");
}

#[test]
fn vertices_and_edges_get_well_defined_normals() {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let b = Shape::cuboid(Vec2::new(2.0, 1.0)).unwrap();
    // On a corner: the bisector; on an edge: its normal; beside a corner: towards the point.
    let corner = project_point(&b, &Pose::IDENTITY, Vec2::new(2.0, 1.0)).unwrap();
    assert_projection(corner, Vec2::new(2.0, 1.0), Vec2::new(h, h), 0.0, 0);
    let edge = project_point(&b, &Pose::IDENTITY, Vec2::new(0.5, -1.0)).unwrap();
    assert_projection(edge, Vec2::new(0.5, -1.0), Vec2::NEG_Y, 0.0, 0);
    let beyond = project_point(&b, &Pose::IDENTITY, Vec2::new(5.0, 5.0)).unwrap();
    assert_projection(beyond, Vec2::new(2.0, 1.0), Vec2::new(0.6, 0.8), 5.0, 0);
    // A rounded box's core corner: a radius deep, out along the bisector.
    let rb = Shape::rounded_box(Vec2::new(2.0, 1.0), 0.5).unwrap();
    let core = project_point(&rb, &Pose::IDENTITY, Vec2::new(-2.0, 1.0)).unwrap();
    assert_projection(core, Vec2::new(-2.0 - 0.5 * h, 1.0 + 0.5 * h), Vec2::new(-h, h), -0.5, 0);
    // A polygon's vertex exactly, a triangle's acute corner.
    let tri = Shape::polygon(&[Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(0.0, 1.0)], 0.0).unwrap();
    let v = project_point(&tri, &Pose::IDENTITY, Vec2::new(4.0, 0.0)).unwrap();
    let want = (Vec2::NEG_Y + Vec2::new(1.0, 4.0).normalize()).normalize();
    assert_projection(v, Vec2::new(4.0, 0.0), want, 0.0, 0);
    // A circle's centre: the local +x axis, turned by the pose.
    let c = Shape::circle(1.5).unwrap();
    let centre = project_point(&c, &Pose::new(Vec2::new(3.0, 4.0), std::f32::consts::FRAC_PI_2), Vec2::new(3.0, 4.0));
    assert_projection(centre.unwrap(), Vec2::new(3.0, 5.5), Vec2::Y, -1.5, 0);
    // A capsule's core: the right side of a → b.
    let k = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap();
    let axis = project_point(&k, &Pose::IDENTITY, Vec2::new(0.5, 0.0)).unwrap();
    assert_projection(axis, Vec2::new(0.5, -0.25), Vec2::NEG_Y, -0.25, 0);
    let end = project_point(&k, &Pose::IDENTITY, Vec2::new(1.0, 0.0)).unwrap();
    assert_projection(end, Vec2::new(1.0, -0.25), Vec2::NEG_Y, -0.25, 0);
}

#[test]
fn segments_and_chains_have_no_inside() {
    let s = Shape::segment(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)).unwrap();
    // On it: distance 0 and its front (the right of a → b: down).
    assert_projection(
        project_point(&s, &Pose::IDENTITY, Vec2::new(0.3, 0.0)).unwrap(),
        Vec2::new(0.3, 0.0),
        Vec2::NEG_Y,
        0.0,
        0,
    );
    // Either side: towards the point.
    assert_projection(
        project_point(&s, &Pose::IDENTITY, Vec2::new(0.3, 2.0)).unwrap(),
        Vec2::new(0.3, 0.0),
        Vec2::Y,
        2.0,
        0,
    );
    assert_projection(
        project_point(&s, &Pose::IDENTITY, Vec2::new(0.3, -2.0)).unwrap(),
        Vec2::new(0.3, 0.0),
        Vec2::NEG_Y,
        2.0,
        0,
    );
    // A one-sided floor (solid below: it runs right to left), the point behind it: still the
    // geometric normal towards the point, at a positive distance.
    let floor = Shape::chain(
        vec![Vec2::new(4.0, 0.0), Vec2::new(2.0, 0.0), Vec2::new(0.0, 1.0), Vec2::new(-2.0, 1.0)],
        ChainOptions { closed: false, one_sided: true },
    )
    .unwrap();
    let below = project_point(&floor, &Pose::IDENTITY, Vec2::new(3.0, -0.5)).unwrap();
    assert_projection(below, Vec2::new(3.0, 0.0), Vec2::NEG_Y, 0.5, 0);
    // On a shared vertex: the bisector of the two fronts (up and up-right of the slope).
    let v = project_point(&floor, &Pose::IDENTITY, Vec2::new(2.0, 0.0)).unwrap();
    let want = (Vec2::Y + Vec2::new(1.0, 2.0).normalize()).normalize();
    assert_projection(v, Vec2::new(2.0, 0.0), want, 0.0, 0);
    // On the slope: its front; the segment index is the part.
    let on = project_point(&floor, &Pose::IDENTITY, Vec2::new(1.0, 0.5)).unwrap();
    assert_projection(on, Vec2::new(1.0, 0.5), Vec2::new(1.0, 2.0).normalize(), 0.0, 1);
}

#[test]
fn compounds_answer_for_the_part_of_least_signed_distance() {
    // Two overlapping boxes: [-2, 1] × [-1, 1] and [0, 4] × [-0.5, 0.5].
    let c = Shape::compound(vec![
        (at(-0.5, 0.0), Shape::cuboid(Vec2::new(1.5, 1.0)).unwrap()),
        (at(2.0, 0.0), Shape::cuboid(Vec2::new(2.0, 0.5)).unwrap()),
    ])
    .unwrap();
    // In both: the part it is deepest in (part 0: 0.7 deep; part 1: 0.2), whose nearest
    // boundary may be inside part 1 (the union's boundary is not computed).
    let both = project_point(&c, &Pose::IDENTITY, Vec2::new(0.2, 0.3)).unwrap();
    assert_projection(both, Vec2::new(0.2, 1.0), Vec2::Y, -0.7, 0);
    // In part 1 only.
    let one = project_point(&c, &Pose::IDENTITY, Vec2::new(3.6, 0.0)).unwrap();
    assert_projection(one, Vec2::new(4.0, 0.0), Vec2::X, -0.4, 1);
    // Outside both: the union's nearest point.
    let out = project_point(&c, &Pose::IDENTITY, Vec2::new(3.0, 2.0)).unwrap();
    assert_projection(out, Vec2::new(3.0, 0.5), Vec2::Y, 1.5, 1);
    // On the boundary of both (distance 0 to each): the lower index.
    let sym = Shape::compound(vec![
        (at(-1.0, 0.0), Shape::cuboid(Vec2::splat(1.0)).unwrap()),
        (at(1.0, 0.0), Shape::cuboid(Vec2::splat(1.0)).unwrap()),
    ])
    .unwrap();
    assert_eq!(project_point(&sym, &Pose::IDENTITY, Vec2::new(0.0, 0.9)).unwrap().part, 0);
}

#[test]
fn bad_points_and_poses_are_non_finite_errors() {
    let b = Shape::cuboid(Vec2::ONE).unwrap();
    for p in [Vec2::new(f32::NAN, 0.0), Vec2::new(0.0, f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)] {
        assert_eq!(project_point(&b, &Pose::IDENTITY, p), Err(QueryError::NonFinite));
    }
    for pose in [at(f32::NAN, 0.0), at(0.0, f32::INFINITY), Pose { p: Vec2::ZERO, q: Rot { c: 2.0, s: 0.0 } }] {
        assert_eq!(project_point(&b, &pose, Vec2::ONE), Err(QueryError::NonFinite));
    }
    // Far but finite: answered.
    let far = project_point(&b, &at(1e7, -1e7), Vec2::new(-1e30, 1e30)).unwrap();
    assert!(far.distance > 1e29 && far.surface_normal.is_finite());
}

// ---- parry2d ---------------------------------------------------------------------------------

/// Per kind: cases away from the surface, how many parry answers differently, the worst
/// difference there; cases on the surface, how many differ; cases on a rounded shape's core
/// (where every direction is as deep and both answers are right), skipped. Wherever parry
/// differs, sapwood matches the f64 reference: parry's round shapes are projected by its
/// support-map (GJK) routine, approximate to about 1e-3 of their size, and its polygons'
/// projection of a point on an edge (inside by a rounding error) can come back as a vertex.
#[derive(Default)]
struct ParryStats {
    away: usize,
    away_differ: usize,
    worst: f64,
    surface: usize,
    surface_differ: usize,
    on_core: usize,
}

#[test]
fn parry_agrees_where_both_define_the_same_answer() {
    let mut rng = F64Rng::new(0x9a2f);
    let mut stats: std::collections::BTreeMap<&str, ParryStats> = Default::default();
    for _ in 0..6000 {
        let size = rng.log_range(1e-2, 1e3);
        let offset = rng.dir() * size * rng.range(0.0, 5.0);
        let shape = random_shape(&mut rng, size, offset);
        let pose = random_pose(&mut rng, size);
        let ps = parts(&shape);
        let local = random_local_point(&mut rng, &ps, size);
        let p = v2(PoseD::of(&pose).apply(local));
        let ours = project_point(&shape, &pose, p).unwrap();
        let theirs = to_parry(&shape).project_point(&parry_pose(&pose), pm::Vector::new(p.x, p.y), false);
        let kind = match &shape {
            Shape::Polygon(q) if q.radius() > 0.0 => "rounded polygon",
            Shape::Polygon(_) => "polygon",
            Shape::Segment(s) if s.radius > 0.0 => "rounded segment",
            Shape::Segment(_) => "segment",
            Shape::Compound(_) => "compound",
            Shape::Chain(_) => "chain",
            s => match s.kind() {
                sapwood::ShapeKind::Circle => "circle",
                sapwood::ShapeKind::Capsule => "capsule",
                _ => "cuboid",
            },
        };
        // parry answers a compound for the part whose boundary is nearest, inside or not: the
        // same answer only outside every part.
        if kind == "compound" && ours.distance < 0.0 {
            continue;
        }
        let (exact, part) = reference(&ps, &PoseD::of(&pose), d(p));
        let size = ps.iter().map(|part| part.size() + part.pose.p.length()).fold(0.0, f64::max);
        let scale = (d(p) - d(pose.p)).length() + size + d(pose.p).length();
        // parry's own f32 rounding near a round core (its normal comes from the difference to
        // a rounded core point) reaches 6e-5 of the magnitudes: a wider band than the
        // reference test's.
        let band = 1e-4 * scale;
        let st = stats.entry(kind).or_default();
        let radius = ps[part].radius;
        if radius > 0.0 && (exact.distance + radius).abs() <= band {
            st.on_core += 1;
            continue;
        }
        let gap = (d(ours.point) - DVec2::new(f64::from(theirs.point.x), f64::from(theirs.point.y))).length();
        let solid = ps.iter().any(|part| part.solid);
        let sides_differ = solid && exact.distance.abs() > band && (exact.distance < 0.0) != theirs.is_inside;
        let differ = gap > band || sides_differ;
        // Where they differ, sapwood is the one on the reference.
        assert!(
            !differ || (d(ours.point) - exact.point).length() <= 1e-6 * scale,
            "{shape:?} at {pose:?}, {p:?}: sapwood {ours:?}, reference {exact:?}"
        );
        if exact.distance.abs() <= band {
            st.surface += 1;
            st.surface_differ += usize::from(differ);
        } else {
            st.away += 1;
            st.away_differ += usize::from(differ);

            st.worst = st.worst.max(gap / scale);
        }
    }
    println!(
        "parry2d project_point (solid = false) against sapwood, band 1e-4 of the magnitudes:\n  kind              \
         away  differ  worst    on surface  differ  on a rounded core (skipped)"
    );
    for (kind, s) in &stats {
        println!(
            "  {kind:16} {:5} {:7} {:8.1e} {:10} {:7} {:8}",
            s.away, s.away_differ, s.worst, s.surface, s.surface_differ, s.on_core
        );
    }
    // Away from the surface, where parry is exact (closed forms, support-map polygons), it
    // agrees everywhere.
    for kind in ["circle", "capsule", "cuboid", "polygon", "segment", "rounded segment", "chain"] {
        let s = &stats[kind];
        assert!(s.away > 100 && s.away_differ == 0, "{kind}: {} of {} differ", s.away_differ, s.away);
    }
}

// ---- The world against brute force --------------------------------------------------------------

fn brute_force(
    world: &World,
    live: &[(ColliderId, Shape, Pose, bool)],
    point: Vec2,
    max_distance: f32,
    filter: &QueryFilter,
) -> Option<WorldPointProjection> {
    live.iter()
        .filter(|(id, _, _, sensor)| filter.exclude != Some(*id) && (filter.include_sensors || !sensor))
        .filter(|(id, ..)| world.filter(*id).unwrap().category & filter.mask != 0)
        .map(|(id, shape, pose, _)| {
            let p = project_point(shape, pose, point).unwrap();
            WorldPointProjection {
                id: *id,
                part: p.part,
                point: p.point,
                surface_normal: p.surface_normal,
                distance: p.distance,
            }
        })
        .filter(|h| h.distance <= max_distance)
        .min_by(|a, b| a.distance.total_cmp(&b.distance).then(a.id.cmp(&b.id)))
}

#[test]
fn the_world_matches_a_brute_force_scan_between_steps() {
    let mut rng = F64Rng::new(0x3011);
    let mut world = World::new();
    let mut live: Vec<(ColliderId, Shape, Pose, bool)> = Vec::new();
    let extent = 40.0;
    let mut inside = 0;
    let mut answered = 0;
    let mut asked = 0;
    for round in 0..60 {
        for _ in 0..8 {
            match rng.below(5) {
                0 | 1 => {
                    let size = rng.log_range(0.1, 3.0);
                    let shape = random_shape(&mut rng, size, DVec2::ZERO);
                    let pose = Pose::new(
                        v2(DVec2::new(rng.range(0.0, extent), rng.range(0.0, extent))),
                        rng.range(-3.0, 3.0) as f32,
                    );
                    let sensor = rng.chance(0.1);
                    let mut desc = ColliderDesc::new(shape.clone(), pose);
                    desc.is_static = rng.chance(0.3);
                    desc.sensor = sensor;
                    if rng.chance(0.2) {
                        desc.filter = Filter { category: 2, ..Filter::default() };
                    }
                    live.push((world.insert(desc).unwrap(), shape, pose, sensor));
                }
                2 if !live.is_empty() => {
                    let i = rng.below(live.len() as u64) as usize;
                    world.remove(live.swap_remove(i).0).unwrap();
                }
                _ if !live.is_empty() => {
                    let i = rng.below(live.len() as u64) as usize;
                    let pose = Pose::new(
                        v2(DVec2::new(rng.range(0.0, extent), rng.range(0.0, extent))),
                        rng.range(-3.0, 3.0) as f32,
                    );
                    world.set_pose(live[i].0, pose).unwrap();
                    live[i].2 = pose;
                }
                _ => {}
            }
        }
        // Half the rounds query before stepping: the world as the calls left it.
        if round % 2 == 0 {
            world.step();
        }
        for _ in 0..40 {
            // Half the points near a collider's origin, where they are often inside it.
            let point = if rng.chance(0.5) && !live.is_empty() {
                let pose = live[rng.below(live.len() as u64) as usize].2;
                v2(d(pose.p) + rng.dir() * rng.range(0.0, 1.5))
            } else {
                v2(DVec2::new(rng.range(-5.0, extent + 5.0), rng.range(-5.0, extent + 5.0)))
            };
            let max_distance = match rng.below(4) {
                0 => f32::INFINITY,
                1 => 0.0,
                _ => rng.range(0.0, 6.0) as f32,
            };
            let filter = match rng.below(4) {
                0 => QueryFilter { mask: 2, ..QueryFilter::default() },
                1 => QueryFilter { include_sensors: false, ..QueryFilter::default() },
                2 if !live.is_empty() => QueryFilter { exclude: Some(live[0].0), ..QueryFilter::default() },
                _ => QueryFilter::default(),
            };
            let got = world.project_point(point, max_distance, &filter).unwrap();
            let want = brute_force(&world, &live, point, max_distance, &filter);
            assert_eq!(got, want, "round {round}, point {point:?}, max_distance {max_distance}, filter {filter:?}");
            asked += 1;
            answered += usize::from(got.is_some());
            inside += usize::from(got.is_some_and(|h| h.distance < 0.0));
        }
    }
    assert!(inside > asked / 20 && answered > asked / 2, "{inside} inside, {answered} of {asked} answered");
}

#[test]
fn a_containing_collider_wins_and_the_deepest_of_several() {
    let mut world = World::new();
    let big =
        world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(5.0, 5.0)).unwrap(), Pose::IDENTITY).fixed()).unwrap();
    let small = world.insert(ColliderDesc::new(Shape::circle(1.0).unwrap(), at(4.5, 0.0))).unwrap();
    let beside = world.insert(ColliderDesc::new(Shape::circle(1.0).unwrap(), at(-4.5, 5.8))).unwrap();
    let f = QueryFilter::default();
    // At (4.4, 0) the box is 0.6 deep, the circle 0.9: the circle wins.
    let p = world.project_point(Vec2::new(4.4, 0.0), 1.0, &f).unwrap().unwrap();
    assert_eq!(p.id, small);
    assert!((p.distance + 0.9).abs() < 1e-6);
    // At (3.6, 0) the box is 1.4 deep, the circle 0.1: the box.
    assert_eq!(world.project_point(Vec2::new(3.6, 0.0), 1.0, &f).unwrap().unwrap().id, big);
    // Inside the box (0.5 deep), 0.4 from the outside circle's surface: the box still wins.
    let p = world.project_point(Vec2::new(-4.5, 4.4), 10.0, &f).unwrap().unwrap();
    assert_eq!((p.id, p.surface_normal), (big, Vec2::NEG_X));
    assert!((p.distance + 0.5).abs() < 1e-6);
    // Moved without a step, the circle now holds the point 0.9 deep: found where it is now.
    world.set_pose(beside, at(-4.5, 4.5)).unwrap();
    let p = world.project_point(Vec2::new(-4.5, 4.4), 10.0, &f).unwrap().unwrap();
    assert_eq!(p.id, beside);
    assert!((p.distance + 0.9).abs() < 1e-5);
    // Errors.
    assert_eq!(world.project_point(Vec2::NAN, 1.0, &f), Err(QueryError::NonFinite));
    assert_eq!(world.project_point(Vec2::ZERO, f32::NAN, &f), Err(QueryError::NonFinite));
    assert_eq!(world.project_point(Vec2::ZERO, -1.0, &f), Err(QueryError::Negative));
}
