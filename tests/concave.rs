//! Concave shapes: polygon decomposition and compound colliders, against independent oracles.
//!
//! - **Decomposition** is checked without trusting it: the part areas must sum to the polygon's
//!   shoelace area, and random points must be inside the polygon (even-odd rule, written here)
//!   exactly when they are inside exactly one part (points near any boundary are skipped).
//! - **Compound overlap** is checked against parry2d's `Compound` built from the same parts, and
//!   against an exact f64 signed distance (the minimum over part pairs of the convex hull
//!   distance of the Minkowski difference, as in `tests/narrow_oracle.rs`). A 1e-5 × size band
//!   around touching is excluded. parry is approximate on rounded parts (GJK, see the header
//!   of `tests/narrow_oracle.rs`): where it disagrees with sapwood, the exact oracle must side
//!   with sapwood, and such cases are counted and printed.
//! - **Contacts** on compounds: depth equals the deepest part pair found by brute force over
//!   every part pair (no culling), the merged manifold is one of `contact_parts`', swapping the
//!   arguments flips it bit for bit, and feature ids carry the part indices.

use glam::DVec2;
use parry2d::query as pq;
use sapwood::collide::{self, Manifold};
use sapwood::query;
use sapwood::{
    ColliderDesc, Compound, DecompositionError, MAX_COMPOUND_PARTS, Pose, Ray, Shape, ShapeError, SnapshotError, Vec2,
    World,
};
use sapwood_support::f64_rng::F64Rng;
use sapwood_support::parry_shapes::{parry_pose, to_parry};

// ---------------------------------------------------------------------------------------------
// Random numbers and polygon generators

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::new(x as f32, y as f32)
}

fn from_xy(xy: &[(f32, f32)]) -> Vec<Vec2> {
    xy.iter().map(|&(x, y)| Vec2::new(x, y)).collect()
}

/// Star-shaped about the origin: jittered increasing angles (every gap below π, so that the
/// origin sees every edge and the polygon is simple), random radii.
fn star(rng: &mut F64Rng, n: usize) -> Vec<Vec2> {
    let angles: Vec<f64> =
        (0..n).map(|i| (i as f64 + rng.range(0.0, 0.8)) * std::f64::consts::TAU / n as f64).collect();
    angles
        .iter()
        .map(|&a| {
            let r = rng.range(0.2, 2.0);
            v(r * a.cos(), r * a.sin())
        })
        .collect()
}

/// A spiral strip: an outer arm out, an inner arm back, `turns` turns.
fn spiral(rng: &mut F64Rng, turns: f64, steps: usize) -> Vec<Vec2> {
    let width = rng.range(0.15, 0.4);
    let mut out = Vec::new();
    let arm = |k: usize| {
        let t = turns * std::f64::consts::TAU * k as f64 / steps as f64;
        (t, 0.5 + t / std::f64::consts::TAU)
    };
    for k in 0..=steps {
        let (t, r) = arm(k);
        out.push(v((r + width) * t.cos(), (r + width) * t.sin()));
    }
    for k in (0..=steps).rev() {
        let (t, r) = arm(k);
        out.push(v(r * t.cos(), r * t.sin()));
    }
    out
}

/// A comb: a spine of height 1 along the bottom and `teeth` teeth of random heights, with
/// straight-through vertices where the teeth meet the spine's ends.
fn comb(rng: &mut F64Rng, teeth: usize) -> Vec<Vec2> {
    let w = 2.0 * teeth as f64 - 1.0;
    let mut out = vec![v(0.0, 0.0), v(w, 0.0)];
    for k in (0..teeth).rev() {
        let (x, h) = (2.0 * k as f64, rng.range(1.5, 4.0));
        out.extend([v(x + 1.0, 1.0), v(x + 1.0, h), v(x, h), v(x, 1.0)]);
    }
    out
}

/// An L or a U with random arm sizes.
fn l_or_u(rng: &mut F64Rng) -> Vec<Vec2> {
    let (w, h, t) = (rng.range(2.0, 5.0), rng.range(2.0, 5.0), rng.range(0.2, 1.0));
    if rng.chance(0.5) {
        vec![v(0.0, 0.0), v(w, 0.0), v(w, t), v(t, t), v(t, h), v(0.0, h)]
    } else {
        vec![v(0.0, 0.0), v(w, 0.0), v(w, h), v(w - t, h), v(w - t, t), v(t, t), v(t, h), v(0.0, h)]
    }
}

/// A random pose applied to every vertex, and a random winding.
fn placed(rng: &mut F64Rng, mut pts: Vec<Vec2>) -> Vec<Vec2> {
    let pose = Pose::new(v(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)), rng.range(-3.2, 3.2) as f32);
    for p in &mut pts {
        *p = pose.transform_point(*p);
    }
    if rng.chance(0.5) {
        pts.reverse();
    }
    pts
}

fn random_simple_polygon(rng: &mut F64Rng) -> Vec<Vec2> {
    let pts = match rng.below(5) {
        0 | 1 => {
            let n = 3 + rng.below(60) as usize;
            star(rng, n)
        }
        2 => {
            let turns = rng.range(0.5, 2.0);
            let steps = 8 + rng.below(40) as usize;
            spiral(rng, turns, steps)
        }
        3 => {
            let teeth = 1 + rng.below(12) as usize;
            comb(rng, teeth)
        }
        _ => l_or_u(rng),
    };
    placed(rng, pts)
}

// ---------------------------------------------------------------------------------------------
// Independent geometry

fn d(p: Vec2) -> DVec2 {
    DVec2::new(p.x as f64, p.y as f64)
}

fn shoelace(pts: &[Vec2]) -> f64 {
    let n = pts.len();
    (0..n).map(|i| d(pts[i]).perp_dot(d(pts[(i + 1) % n]))).sum::<f64>() * 0.5
}

/// Even-odd rule, by crossings of a horizontal ray.
fn inside_even_odd(pts: &[Vec2], p: DVec2) -> bool {
    let n = pts.len();
    let mut inside = false;
    for i in 0..n {
        let (a, b) = (d(pts[i]), d(pts[(i + 1) % n]));
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if x > p.x {
                inside = !inside;
            }
        }
    }
    inside
}

fn segment_distance(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let e = b - a;
    let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
    (a + e * t - p).length()
}

fn loop_distance(pts: &[DVec2], p: DVec2) -> f64 {
    (0..pts.len()).map(|i| segment_distance(pts[i], pts[(i + 1) % pts.len()], p)).fold(f64::INFINITY, f64::min)
}

/// Strictly inside a CCW convex loop.
fn inside_convex(pts: &[DVec2], p: DVec2) -> bool {
    (0..pts.len()).all(|i| (pts[(i + 1) % pts.len()] - pts[i]).perp_dot(p - pts[i]) > 0.0)
}

fn polygon_parts(c: &Compound) -> Vec<Vec<DVec2>> {
    c.parts()
        .iter()
        .map(|(pose, s)| {
            assert_eq!(*pose, Pose::IDENTITY);
            let Shape::Polygon(p) = s else { panic!("decomposition parts are polygons") };
            p.vertices().iter().map(|x| d(*x)).collect()
        })
        .collect()
}

#[derive(Default)]
struct DecompStats {
    polygons: usize,
    parts: usize,
    lower_bound: usize,
    worst_ratio: f64,
    points: usize,
}

/// Every property of a decomposition that a wrong one would break.
fn check_decomposition(pts: &[Vec2], rng: &mut F64Rng, stats: &mut DecompStats) {
    let c = Compound::from_concave_polygon(pts, 0.0).unwrap_or_else(|e| panic!("{e}: {pts:?}"));
    let n = pts.len();
    let parts = polygon_parts(&c);
    assert!(!parts.is_empty() && parts.len() <= n - 2, "{} parts for {n} vertices", parts.len());
    for (pose, s) in c.parts() {
        s.validate().unwrap();
        let Shape::Polygon(p) = s else { unreachable!() };
        assert!(p.count() <= 8);
        assert_eq!(*pose, Pose::IDENTITY);
        // Convex and counter-clockwise, checked here rather than trusted to validate().
        let vs: Vec<DVec2> = p.vertices().iter().map(|x| d(*x)).collect();
        for i in 0..vs.len() {
            let (a, b, cc) = (vs[i], vs[(i + 1) % vs.len()], vs[(i + 2) % vs.len()]);
            // Up to f32 rounding of the hull's own turn test.
            let turn = (b - a).perp_dot(cc - b);
            assert!(turn > -1e-6 * (b - a).length() * (cc - b).length(), "part not convex CCW: {vs:?}");
        }
    }
    // Area.
    let area = shoelace(pts).abs();
    let sum: f64 =
        parts.iter().map(|p| shoelace(&p.iter().map(|x| Vec2::new(x.x as f32, x.y as f32)).collect::<Vec<_>>())).sum();
    assert!((sum - area).abs() <= 1e-5 * area, "area {area} vs parts {sum} for {pts:?}");
    // Coverage: inside the polygon ⇔ inside exactly one part, away from every boundary.
    let (lo, hi) =
        pts.iter().fold((DVec2::splat(f64::MAX), DVec2::splat(f64::MIN)), |(lo, hi), p| (lo.min(d(*p)), hi.max(d(*p))));
    let size = (hi - lo).max_element();
    let outline: Vec<DVec2> = pts.iter().map(|p| d(*p)).collect();
    for _ in 0..400 {
        let p = DVec2::new(rng.range(lo.x, hi.x), rng.range(lo.y, hi.y));
        let eps = 1e-6 * size;
        if loop_distance(&outline, p) < eps || parts.iter().any(|q| loop_distance(q, p) < eps) {
            continue;
        }
        let inside = inside_even_odd(pts, p);
        let count = parts.iter().filter(|q| inside_convex(q, p)).count();
        assert_eq!(usize::from(inside), count, "point {p:?} in {count} parts, polygon inside {inside}: {pts:?}");
        // The public point query agrees.
        assert_eq!(
            query::contains_point(&Shape::Compound(c.clone()), &Pose::IDENTITY, Vec2::new(p.x as f32, p.y as f32))
                .unwrap(),
            inside
        );
        stats.points += 1;
    }
    // Lower bound on any convex partition without Steiner points into ≤ 8-gons: every
    // diagonal resolves at most two reflex vertices, and an 8-gon covers at most 6 triangles.
    let reflex = (0..n)
        .filter(|&i| {
            let (a, b, cc) = (d(pts[(i + n - 1) % n]), d(pts[i]), d(pts[(i + 1) % n]));
            let turn = (b - a).perp_dot(cc - b);
            if shoelace(pts) > 0.0 { turn < 0.0 } else { turn > 0.0 }
        })
        .count();
    let lb = (reflex.div_ceil(2) + 1).max((n - 2).div_ceil(6));
    stats.polygons += 1;
    stats.parts += parts.len();
    stats.lower_bound += lb;
    stats.worst_ratio = stats.worst_ratio.max(parts.len() as f64 / lb as f64);
    // Hertel–Mehlhorn's bound is 4× optimal (and so 4× any lower bound of it) without the cap.
    assert!(parts.len() <= 4 * lb, "{} parts vs lower bound {lb}: {pts:?}", parts.len());
}

#[test]
fn decomposition_tiles_random_simple_polygons() {
    let mut rng = F64Rng::new(0xC0FFEE);
    let mut stats = DecompStats::default();
    for _ in 0..1500 {
        let pts = random_simple_polygon(&mut rng);
        check_decomposition(&pts, &mut rng, &mut stats);
    }
    println!(
        "{} polygons: {:.2} parts on average vs lower bound {:.2} (ratio {:.2}, worst {:.2}); {} points checked",
        stats.polygons,
        stats.parts as f64 / stats.polygons as f64,
        stats.lower_bound as f64 / stats.polygons as f64,
        stats.parts as f64 / stats.lower_bound as f64,
        stats.worst_ratio,
        stats.points
    );
}

#[test]
fn decomposition_named_cases() {
    let mut rng = F64Rng::new(1);
    let mut stats = DecompStats::default();
    // A U: two reflex vertices, three parts (no two-part convex split exists without Steiner
    // points... one diagonal can resolve both: the bottom bar and two arms merge into 3).
    let u = from_xy(&[(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (2.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]);
    check_decomposition(&u, &mut rng, &mut stats);
    assert_eq!(Compound::from_concave_polygon(&u, 0.0).unwrap().parts().len(), 3);
    // An L: one reflex vertex, two parts; clockwise gives the same count.
    let mut l = from_xy(&[(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 3.0), (0.0, 3.0)]);
    check_decomposition(&l, &mut rng, &mut stats);
    assert_eq!(Compound::from_concave_polygon(&l, 0.0).unwrap().parts().len(), 2);
    l.reverse();
    check_decomposition(&l, &mut rng, &mut stats);
    assert_eq!(Compound::from_concave_polygon(&l, 0.0).unwrap().parts().len(), 2);
    // A triangle, a 20-gon (needs 3 parts of ≤ 8), an arrow, a 100-tooth comb.
    check_decomposition(&from_xy(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]), &mut rng, &mut stats);
    let ring: Vec<Vec2> = (0..20).map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / 20.0) * 3.0).collect();
    check_decomposition(&ring, &mut rng, &mut stats);
    assert_eq!(Compound::from_concave_polygon(&ring, 0.0).unwrap().parts().len(), 3);
    let arrow = from_xy(&[(0.0, 0.0), (2.0, 1.0), (4.0, 0.0), (2.0, 4.0)]);
    check_decomposition(&arrow, &mut rng, &mut stats);
    assert_eq!(Compound::from_concave_polygon(&arrow, 0.0).unwrap().parts().len(), 2);
    let big_comb = comb(&mut rng, 40);
    check_decomposition(&big_comb, &mut rng, &mut stats);
    // Collinear runs along every side (a square sampled at 10 points per side).
    let mut sq = Vec::new();
    for side in 0..4 {
        for k in 0..10 {
            let t = k as f32 / 10.0;
            sq.push(match side {
                0 => Vec2::new(t, 0.0),
                1 => Vec2::new(1.0, t),
                2 => Vec2::new(1.0 - t, 1.0),
                _ => Vec2::new(0.0, 1.0 - t),
            });
        }
    }
    check_decomposition(&sq, &mut rng, &mut stats);
    assert_eq!(Compound::from_concave_polygon(&sq, 0.0).unwrap().parts().len(), 1);
    // A rounded decomposition rounds every part.
    let r = Compound::from_concave_polygon(&u, 0.25).unwrap();
    assert!(r.parts().iter().all(|(_, s)| matches!(s, Shape::Polygon(p) if p.radius() == 0.25)));
    assert_eq!(Shape::Compound(r).aabb(&Pose::IDENTITY).min, Vec2::splat(-0.25));
}

#[test]
fn decomposition_rejects_bad_input() {
    use DecompositionError as E;
    let f = |xy: &[(f32, f32)]| Compound::from_concave_polygon(&from_xy(xy), 0.0).err();
    assert_eq!(f(&[(0.0, 0.0), (1.0, 0.0)]), Some(E::TooFewVertices));
    assert_eq!(f(&[]), Some(E::TooFewVertices));
    assert_eq!(f(&[(0.0, 0.0), (1.0, f32::NAN), (0.0, 1.0)]), Some(E::NonFinite));
    assert_eq!(f(&[(0.0, 0.0), (f32::INFINITY, 0.0), (0.0, 1.0)]), Some(E::NonFinite));
    let tri = from_xy(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]);
    assert_eq!(Compound::from_concave_polygon(&tri, -1.0).err(), Some(E::NegativeRadius));
    assert_eq!(Compound::from_concave_polygon(&tri, f32::NAN).err(), Some(E::NonFinite));
    assert_eq!(f(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (1.0, 0.0)]), Some(E::RepeatedVertex { first: 1, second: 3 }));
    assert_eq!(f(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]), Some(E::ZeroArea));
    assert_eq!(f(&[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]), Some(E::ZeroArea));
    // Bow tie: edges 0 and 2 cross (asymmetric, so that the lobes do not cancel to zero area).
    let bowtie = f(&[(0.0, 0.0), (2.0, 2.0), (2.0, 0.0), (0.0, 3.0)]);
    assert_eq!(bowtie, Some(E::SelfIntersecting { edge_a: 0, edge_b: 2 }));
    // A vertex touching a non-adjacent edge (pinched), and a spike folding back on itself.
    assert!(matches!(
        f(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 0.0), (0.0, 4.0)]),
        Some(E::SelfIntersecting { .. })
    ));
    assert!(matches!(
        f(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 4.0), (3.0, 4.0), (0.0, 4.0)]),
        Some(E::SelfIntersecting { .. })
    ));
    // Too many parts: a comb of 130 teeth needs at least 130 parts.
    let mut rng = F64Rng::new(5);
    let big = comb(&mut rng, 130);
    assert!(
        matches!(Compound::from_concave_polygon(&big, 0.0), Err(E::TooManyParts { parts }) if parts > MAX_COMPOUND_PARTS)
    );
    // Every error displays.
    for e in
        [E::TooFewVertices, E::ZeroArea, E::SelfIntersecting { edge_a: 1, edge_b: 3 }, E::Part(ShapeError::TooLarge)]
    {
        assert!(!e.to_string().is_empty());
        let _: &dyn std::error::Error = &e;
    }
}

#[test]
fn compound_construction_rejects_bad_parts() {
    let c = Shape::circle(1.0).unwrap();
    assert_eq!(Compound::new(vec![]), Err(ShapeError::EmptyCompound));
    let inner = Shape::compound(vec![(Pose::IDENTITY, c.clone())]).unwrap();
    assert_eq!(Compound::new(vec![(Pose::IDENTITY, inner)]), Err(ShapeError::NestedCompound));
    let bad_pose = Pose { p: Vec2::ZERO, q: sapwood::Rot { c: 2.0, s: 0.0 } };
    assert_eq!(Compound::new(vec![(bad_pose, c.clone())]), Err(ShapeError::InvalidPartPose));
    assert_eq!(
        Compound::new(vec![(Pose::from_translation(Vec2::new(2e6, 0.0)), c.clone())]),
        Err(ShapeError::TooLarge)
    );
    assert_eq!(
        Compound::new(vec![(Pose::IDENTITY, Shape::Circle(sapwood::Circle { radius: -1.0 }))]),
        Err(ShapeError::NonPositiveSize)
    );
    let many = vec![(Pose::IDENTITY, c.clone()); MAX_COMPOUND_PARTS + 1];
    assert_eq!(Compound::new(many), Err(ShapeError::TooManyParts));
    assert!(Compound::new(vec![(Pose::IDENTITY, c); MAX_COMPOUND_PARTS]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Compounds against parry and an exact oracle

fn random_convex(rng: &mut F64Rng) -> Shape {
    let s = rng.range(0.1, 1.5) as f32;
    match rng.below(6) {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::capsule(v(-rng.range(0.1, 1.0), 0.0), v(rng.range(0.1, 1.0), 0.0), s * 0.4).unwrap(),
        2 | 3 => Shape::cuboid(Vec2::new(s, rng.range(0.1, 1.5) as f32)).unwrap(),
        4 => Shape::rounded_box(Vec2::new(s, rng.range(0.1, 1.0) as f32), rng.range(0.02, 0.3) as f32).unwrap(),
        _ => loop {
            let pts: Vec<Vec2> = (0..6).map(|_| v(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5))).collect();
            if let Ok(p) = Shape::polygon(&pts, 0.0) {
                break p;
            }
        },
    }
}

fn random_compound(rng: &mut F64Rng) -> Shape {
    if rng.chance(0.5) {
        let n = 5 + rng.below(8) as usize;
        let pts = star(rng, n);
        let r = if rng.chance(0.3) { rng.range(0.01, 0.2) as f32 } else { 0.0 };
        Shape::concave_polygon(&pts, r).unwrap()
    } else {
        let parts = (0..1 + rng.below(4))
            .map(|_| {
                (
                    Pose::new(v(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)), rng.range(-3.2, 3.2) as f32),
                    random_convex(rng),
                )
            })
            .collect();
        Shape::compound(parts).unwrap()
    }
}

fn rounded(shape: &Shape) -> bool {
    match shape {
        Shape::Capsule(_) => true,
        Shape::Polygon(p) => p.radius() > 0.0,
        Shape::Compound(c) => c.parts().iter().any(|(_, s)| rounded(s)),
        _ => false,
    }
}

/// A convex part's core in world space (f64) and radius.
fn world_core(shape: &Shape, pose: &Pose) -> (Vec<DVec2>, f64) {
    let (pts, r): (Vec<Vec2>, f32) = match shape {
        Shape::Circle(c) => (vec![Vec2::ZERO], c.radius),
        Shape::Capsule(c) => (vec![c.a, c.b], c.radius),
        Shape::Segment(c) => (vec![c.a, c.b], c.radius),
        Shape::Cuboid(b) => {
            let h = b.half_extents;
            (vec![-h, Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)], 0.0)
        }
        Shape::Polygon(p) => (p.vertices().to_vec(), p.radius()),
        Shape::Compound(_) | Shape::Chain(_) => unreachable!(),
    };
    let (c, s) = (pose.q.c as f64, pose.q.s as f64);
    let w = pts.iter().map(|p| {
        DVec2::new(c * p.x as f64 - s * p.y as f64 + pose.p.x as f64, s * p.x as f64 + c * p.y as f64 + pose.p.y as f64)
    });
    (w.collect(), r as f64)
}

fn hull(mut pts: Vec<DVec2>) -> Vec<DVec2> {
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut h: Vec<DVec2> = Vec::new();
    for pass in 0..2 {
        let start = h.len();
        let it: Vec<DVec2> = if pass == 0 { pts.clone() } else { pts.iter().rev().copied().collect() };
        for p in it {
            while h.len() >= start + 2 && (h[h.len() - 1] - h[h.len() - 2]).perp_dot(p - h[h.len() - 2]) <= 0.0 {
                h.pop();
            }
            h.push(p);
        }
        h.pop();
    }
    if h.len() < 2 { vec![pts[0], pts[pts.len() - 1]] } else { h }
}

/// Signed distance from the origin to a convex hull (negative inside).
fn sd_origin(h: &[DVec2]) -> f64 {
    match h.len() {
        1 => h[0].length(),
        2 => segment_distance(h[0], h[1], DVec2::ZERO),
        n => {
            let mut best = f64::NEG_INFINITY;
            for i in 0..n {
                let e = h[(i + 1) % n] - h[i];
                best = best.max(DVec2::new(e.y, -e.x).normalize().dot(-h[i]));
            }
            if best <= 0.0 { best } else { loop_distance(h, DVec2::ZERO) }
        }
    }
}

fn parts_of(shape: &Shape) -> Vec<(Pose, Shape)> {
    match shape {
        Shape::Compound(c) => c.parts().to_vec(),
        s => vec![(Pose::IDENTITY, s.clone())],
    }
}

/// Exact signed distance between two (compound) shapes: the minimum over part pairs.
fn exact_distance(sa: &Shape, pa: &Pose, sb: &Shape, pb: &Pose) -> f64 {
    let mut best = f64::INFINITY;
    for (la, a) in parts_of(sa) {
        let (ca, ra) = world_core(&a, &pa.mul(&la));
        for (lb, b) in parts_of(sb) {
            let (cb, rb) = world_core(&b, &pb.mul(&lb));
            let md: Vec<DVec2> = cb.iter().flat_map(|q| ca.iter().map(move |p| *q - *p)).collect();
            best = best.min(sd_origin(&hull(md)) - ra - rb);
        }
    }
    best
}

/// B placed around touching A along a random direction, then perturbed.
fn random_pair(rng: &mut F64Rng) -> (Shape, Pose, Shape, Pose) {
    let sa = random_compound(rng);
    let sb = if rng.chance(0.5) { random_compound(rng) } else { random_convex(rng) };
    let pa = Pose::new(v(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)), rng.range(-3.2, 3.2) as f32);
    let angle = rng.range(-3.2, 3.2) as f32;
    let u = DVec2::from_angle(rng.range(0.0, std::f64::consts::TAU));
    let at = |t: f64| Pose::new(v(pa.p.x as f64 + u.x * t, pa.p.y as f64 + u.y * t), angle);
    // The first touching distance coming in from far along -u. The signed distance of a union
    // is not convex along a line, but it is 1-Lipschitz in B's translation: stepping by the
    // distance itself (sphere tracing) never passes the first contact; then bisection.
    let mut t = 20.0;
    let mut dist = exact_distance(&sa, &pa, &sb, &at(t));
    for _ in 0..20 {
        if dist <= 1e-3 || t <= 0.0 {
            break;
        }
        t -= dist;
        dist = exact_distance(&sa, &pa, &sb, &at(t));
    }
    let (mut lo, mut hi) = (t - 0.01, t);
    if t <= 0.0 || exact_distance(&sa, &pa, &sb, &at(lo)) > 0.0 {
        // No contact along u (or a grazing approach): any distance will do.
        return (sa, pa, sb, at(rng.range(0.0, 4.0)));
    }
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if exact_distance(&sa, &pa, &sb, &at(mid)) > 0.0 { hi = mid } else { lo = mid }
    }
    let touch = 0.5 * (lo + hi);
    let roll = rng.unit();
    let t = if roll < 0.6 {
        touch + if rng.chance(0.5) { 1.0 } else { -1.0 } * (rng.range(-6.0, 0.0) * std::f64::consts::LN_10).exp()
    } else if roll < 0.8 {
        touch * rng.unit()
    } else {
        touch + rng.range(0.0, 2.0)
    };
    (sa, pa, sb, at(t))
}

fn depth_of(m: &Manifold) -> f32 {
    m.max_depth().unwrap_or(f32::NEG_INFINITY)
}

#[test]
fn compound_overlap_matches_parry_and_exact_oracle() {
    let mut rng = F64Rng::new(0x5EED);
    let (mut cases, mut band, mut touching, mut parry_wrong, mut parry_hard_cases) = (0, 0, 0, 0, 0);
    while cases < 20_000 {
        let (sa, pa, sb, pb) = random_pair(&mut rng);
        cases += 1;
        let size = (sa.bounding_radius().max(sb.bounding_radius())) as f64;
        let exact = exact_distance(&sa, &pa, &sb, &pb);
        let mine = collide::overlaps(&sa, &pa, &sb, &pb).unwrap();
        let mine_ba = collide::overlaps(&sb, &pb, &sa, &pa).unwrap();
        assert_eq!(mine, mine_ba, "overlaps not symmetric");
        let m = collide::contact(&sa, &pa, &sb, &pb).unwrap();
        assert_eq!(m.is_touching(), mine, "contact and overlaps disagree: {sa:?} {pa:?} {sb:?} {pb:?}");
        if exact.abs() <= 1e-5 * size {
            band += 1;
            continue;
        }
        touching += usize::from(mine);
        assert_eq!(mine, exact < 0.0, "exact distance {exact}: {sa:?} {pa:?} {sb:?} {pb:?}");
        let (ppa, ppb) = (parry_pose(&pa), parry_pose(&pb));
        let (a, b) = (to_parry(&sa), to_parry(&sb));
        for (theirs, order) in [
            (pq::intersection_test(&ppa, &*a.0, &ppb, &*b.0).unwrap().intersecting, "ab"),
            (pq::intersection_test(&ppb, &*b.0, &ppa, &*a.0).unwrap().intersecting, "ba"),
        ] {
            if theirs != mine {
                // Only where parry is the approximate side (GJK on rounded parts anywhere, and
                // on sharp polygons within 1e-3 × size of touching: a sharp 4-gon pair at exact
                // gap 7.6e-5 was called overlapping), proved by the exact oracle, which sapwood
                // agreed with above.
                assert!(
                    rounded(&sa) || rounded(&sb) || exact.abs() < 1e-3 * size,
                    "parry {order} says {theirs}, exact {exact}: {sa:?} {pa:?} {sb:?} {pb:?}"
                );
                parry_wrong += 1;
            }
        }
        parry_hard_cases += usize::from(rounded(&sa) || rounded(&sb) || exact.abs() < 1e-3 * size);
    }
    println!(
        "{cases} compound cases: {band} in the touching band, {touching} touching; parry wrong (proved by the \
         exact oracle) in {parry_wrong} answers of {parry_hard_cases} rounded or near-touching cases × 2 orders"
    );
    assert!(touching > cases / 5 && touching < cases * 4 / 5, "{touching} of {cases}");
}

#[test]
fn compound_contact_is_the_deepest_part_pair_and_symmetric() {
    let mut rng = F64Rng::new(77);
    let mut multi = 0;
    for _ in 0..5000 {
        let (sa, pa, sb, pb) = random_pair(&mut rng);
        let m = collide::contact(&sa, &pa, &sb, &pb).unwrap();
        // Brute force over every part pair, no culling.
        let mut deepest = f32::NEG_INFINITY;
        let mut touching_pairs = 0;
        for (la, a) in &parts_of(&sa) {
            for (lb, b) in &parts_of(&sb) {
                let pm = collide::contact(a, &pa.mul(la), b, &pb.mul(lb)).unwrap();
                if pm.is_touching() {
                    touching_pairs += 1;
                    deepest = deepest.max(depth_of(&pm));
                }
            }
        }
        assert_eq!(m.is_touching(), touching_pairs > 0);
        if !m.is_touching() {
            continue;
        }
        assert_eq!(depth_of(&m), deepest, "merged depth is not the deepest part pair's");
        // contact_parts reports every touching pair once, with part-tagged ids, and the merge
        // is one of them.
        let mut reported = Vec::new();
        collide::contact_parts(&sa, &pa, &sb, &pb, |i, j, pm| {
            for p in pm.points() {
                assert_eq!((p.id >> 25, (p.id & 0xffff) >> 9), (i, j), "ids carry the parts");
            }
            reported.push((i, j, *pm));
        })
        .unwrap();
        assert_eq!(reported.len(), touching_pairs);
        assert!(reported.iter().any(|r| r.2 == m));
        multi += usize::from(touching_pairs > 1);
        // Swapping flips the merged manifold bit for bit, and contact_parts too.
        let n = collide::contact(&sb, &pb, &sa, &pa).unwrap();
        assert_eq!(n, m.flipped(), "swap symmetry");
        let mut swapped = Vec::new();
        collide::contact_parts(&sb, &pb, &sa, &pa, |j, i, pm| swapped.push((i, j, pm.flipped()))).unwrap();
        swapped.sort_by_key(|r| (r.0, r.1));
        reported.sort_by_key(|r| (r.0, r.1));
        assert_eq!(swapped, reported);
        // Ids are distinct within the manifold.
        if m.count == 2 {
            assert_ne!(m.points[0].id, m.points[1].id);
        }
    }
    assert!(multi > 200, "only {multi} cases with several touching part pairs");
}

#[test]
fn compound_queries_match_their_parts() {
    let mut rng = F64Rng::new(9);
    let (mut hits, mut inside) = (0, 0);
    for _ in 0..3000 {
        let s = random_compound(&mut rng);
        let pose = Pose::new(v(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)), rng.range(-3.2, 3.2) as f32);
        let o = v(rng.range(-6.0, 6.0), rng.range(-6.0, 6.0));
        // Aim near the shape most of the time, so that many rays hit.
        let dir = pose.p + v(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)) - o;
        let ray = Ray::new(o, dir * 0.2);
        let parts = parts_of(&s);
        let brute = parts
            .iter()
            .enumerate()
            .filter_map(|(i, (lp, p))| {
                query::ray_cast(p, &pose.mul(lp), &ray, 10.0).unwrap().map(|h| (h.t, i as u32, h))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mine = query::ray_cast_part(&s, &pose, &ray, 10.0).unwrap();
        assert_eq!(mine, brute.map(|(_, i, h)| (i, h)));
        assert_eq!(query::ray_cast(&s, &pose, &ray, 10.0).unwrap(), mine.map(|x| x.1));
        hits += usize::from(mine.is_some());
        let p = o * 0.5;
        let first =
            parts.iter().position(|(lp, q)| query::contains_point(q, &pose.mul(lp), p).unwrap()).map(|i| i as u32);
        let got = query::containing_part(&s, &pose, p).unwrap();
        // The point is moved into the part frame in two steps here and one there: skip points
        // within rounding of a part boundary.
        let wobble = (0..8).any(|k| {
            let q = p + 1e-4 * Vec2::from_angle(k as f32 * 0.785);
            query::containing_part(&s, &pose, q).unwrap().is_some() != got.is_some()
        });
        if !wobble {
            assert_eq!(got, first);
            assert_eq!(query::contains_point(&s, &pose, p).unwrap(), first.is_some());
            inside += usize::from(got.is_some());
        }
    }
    assert!(hits > 500 && inside > 100, "{hits} hits, {inside} inside");
}

#[test]
fn compounds_in_a_world_snapshot_round_trip_and_corruptions_are_refused() {
    let mut rng = F64Rng::new(3);
    let mut world = World::new();
    for k in 0..20 {
        let s = if k % 2 == 0 { random_compound(&mut rng) } else { random_convex(&mut rng) };
        world.insert(ColliderDesc::new(s, Pose::new(v(k as f64 * 1.5, 0.0), 0.3 * k as f32))).unwrap();
    }
    world.step();
    let bytes = world.to_bytes();
    let mut copy = World::from_bytes(&bytes).unwrap();
    for id in world.ids() {
        assert_eq!(world.shape(id).unwrap(), copy.shape(id).unwrap());
    }
    world.step();
    copy.step();
    assert_eq!(world.contacts(), copy.contacts());
    assert!(!world.contacts().is_empty());

    // One compound collider, then its part count patched to 129 and to a nested kind.
    let mut w = World::new();
    let parts = vec![
        (Pose::IDENTITY, Shape::circle(1.0).unwrap()),
        (Pose::from_translation(Vec2::X), Shape::circle(0.5).unwrap()),
    ];
    w.insert(ColliderDesc::new(Shape::compound(parts).unwrap(), Pose::IDENTITY)).unwrap();
    let bytes = w.to_bytes();
    // The compound record: kind 4, count 2, then the first part's pose (0, 0, 1, 0), kind 0.
    let mut pattern = vec![4u8];
    pattern.extend_from_slice(&2u32.to_le_bytes());
    let at = bytes.windows(pattern.len()).position(|x| x == pattern).expect("compound record");
    let mut too_many = bytes.clone();
    too_many[at + 1..at + 5].copy_from_slice(&129u32.to_le_bytes());
    sapwood::snapshot::reseal(&mut too_many).unwrap();
    let refused = World::from_bytes(&too_many).err();
    assert!(refused.is_some() && refused != Some(SnapshotError::ChecksumMismatch), "{refused:?}");
    let mut nested = bytes.clone();
    let first_kind = at + 5 + 16;
    assert_eq!(nested[first_kind], 0);
    nested[first_kind] = 4;
    sapwood::snapshot::reseal(&mut nested).unwrap();
    let refused = World::from_bytes(&nested).err();
    assert!(refused.is_some() && refused != Some(SnapshotError::ChecksumMismatch), "{refused:?}");
    // Every truncation fails cleanly.
    for n in 0..bytes.len() {
        assert!(World::from_bytes(&bytes[..n]).is_err());
    }
}
