//! Distances and casts with segments and chains against an exact `f64` brute force: the core
//! distance of two convex point sets (SAT over every edge normal decides overlap, else the least
//! point–edge distance), minus the radii.

use glam::DVec2;
use sapwood::query::{CastOptions, Sweep, ToiState, cast_shapes, distance, time_of_impact};
use sapwood::{ChainOptions, Pose, Rot, Shape, Vec2};
use sapwood_support::SplitMix64;

/// The core points in world space (f64) and the radius.
fn core(shape: &Shape, pose: &Pose) -> (Vec<DVec2>, f64) {
    let (pts, r): (Vec<Vec2>, f32) = match shape {
        Shape::Circle(c) => (vec![Vec2::ZERO], c.radius),
        Shape::Capsule(c) => (vec![c.a, c.b], c.radius),
        Shape::Segment(s) => (vec![s.a, s.b], s.radius),
        Shape::Cuboid(b) => (b.to_polygon().vertices().to_vec(), 0.0),
        Shape::Polygon(p) => (p.vertices().to_vec(), p.radius()),
        Shape::Compound(_) | Shape::Chain(_) => unreachable!("convex cores only"),
    };
    let (c, s) = (pose.q.c as f64, pose.q.s as f64);
    let w = pts
        .iter()
        .map(|v| {
            let (x, y) = (v.x as f64, v.y as f64);
            DVec2::new(c * x - s * y + pose.p.x as f64, s * x + c * y + pose.p.y as f64)
        })
        .collect();
    (w, r as f64)
}

fn seg_dist(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let e = b - a;
    let t = if e.length_squared() > 0.0 { ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (p - a - e * t).length()
}

/// Exact distance of two rounded convex cores, 0 when they overlap.
fn brute_distance(a: &[DVec2], ra: f64, b: &[DVec2], rb: f64) -> f64 {
    let edges = |v: &[DVec2]| -> Vec<(DVec2, DVec2)> {
        if v.len() == 1 { vec![(v[0], v[0])] } else { (0..v.len()).map(|i| (v[i], v[(i + 1) % v.len()])).collect() }
    };
    // Separated along some edge normal of either core (both normals of a segment)?
    let separated = |x: &[DVec2], y: &[DVec2]| {
        edges(x).iter().any(|&(p, q)| {
            let e = q - p;
            if e.length_squared() == 0.0 {
                return false;
            }
            let n = DVec2::new(e.y, -e.x);
            [n, -n].iter().any(|n| {
                let hx = x.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
                let ly = y.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
                ly > hx
            })
        })
    };
    let apart = separated(a, b) || separated(b, a) || (a.len() == 1 && b.len() == 1 && a[0] != b[0]);
    if !apart {
        return 0.0;
    }
    let mut d = f64::INFINITY;
    for p in a {
        for (s, t) in edges(b) {
            d = d.min(seg_dist(*p, s, t));
        }
    }
    for p in b {
        for (s, t) in edges(a) {
            d = d.min(seg_dist(*p, s, t));
        }
    }
    (d - ra - rb).max(0.0)
}

fn random_convex(rng: &mut SplitMix64) -> Shape {
    let s = rng.range(0.1, 1.0);
    match rng.below(5) {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::capsule(Vec2::new(-s, 0.0), Vec2::new(s, 0.1), rng.range(0.05, 0.4)).unwrap(),
        2 => Shape::cuboid(Vec2::new(s, rng.range(0.1, 1.0))).unwrap(),
        3 => Shape::rounded_box(Vec2::new(s, rng.range(0.1, 0.5)), rng.range(0.0, 0.2)).unwrap(),
        _ => random_segment(rng),
    }
}

fn random_segment(rng: &mut SplitMix64) -> Shape {
    let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
    let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.1, 2.0);
    Shape::rounded_segment(a, b, if rng.below(2) == 0 { 0.0 } else { rng.range(0.01, 0.3) }).unwrap()
}

fn random_pose(rng: &mut SplitMix64) -> Pose {
    Pose::new(Vec2::new(rng.range(-2.5, 2.5), rng.range(-2.5, 2.5)), rng.range(-3.2, 3.2))
}

#[test]
fn segment_distances_match_the_exact_oracle() {
    let mut rng = SplitMix64::new(0xD157);
    let mut apart = 0;
    for _ in 0..20_000 {
        let (sa, pa) = (random_segment(&mut rng), random_pose(&mut rng));
        let (sb, pb) = (random_convex(&mut rng), random_pose(&mut rng));
        let d = distance(&sa, &pa, &sb, &pb).unwrap();
        let ((ca, ra), (cb, rb)) = (core(&sa, &pa), core(&sb, &pb));
        let want = brute_distance(&ca, ra, &cb, rb);
        assert!(
            (d.distance as f64 - want).abs() <= 2e-5 * (1.0 + want),
            "distance {} vs exact {want}\n {sa:?} @ {pa:?}\n {sb:?} @ {pb:?}",
            d.distance
        );
        if want > 1e-3 {
            apart += 1;
            // The witness points are that far apart, along the normal.
            assert!(((d.point_b - d.point_a).length() - d.distance).abs() < 1e-4);
            assert!((d.point_b - d.point_a).normalize().dot(d.normal) > 0.999);
        }
    }
    assert!(apart > 5000, "{apart}");
}

#[test]
fn chain_distance_is_the_nearest_segment() {
    let mut rng = SplitMix64::new(0xC4A1);
    for _ in 0..2000 {
        let n = 2 + rng.below(30);
        let vs: Vec<Vec2> = (0..n).map(|i| Vec2::new(i as f32 * 0.4 - 6.0, rng.range(-0.5, 0.5))).collect();
        let chain = Shape::chain(vs.clone(), ChainOptions::default()).unwrap();
        let (probe, pose) = (random_convex(&mut rng), random_pose(&mut rng));
        let d = distance(&chain, &Pose::IDENTITY, &probe, &pose).unwrap();
        let (cb, rb) = core(&probe, &pose);
        let per_segment: Vec<f64> = vs
            .windows(2)
            .map(|w| {
                let seg = [DVec2::new(w[0].x as f64, w[0].y as f64), DVec2::new(w[1].x as f64, w[1].y as f64)];
                brute_distance(&seg, 0.0, &cb, rb)
            })
            .collect();
        let want = per_segment.iter().copied().fold(f64::INFINITY, f64::min);
        assert!((d.distance as f64 - want).abs() <= 2e-5 * (1.0 + want), "{} vs {want}", d.distance);
        // The part named is a nearest segment.
        assert!((per_segment[d.part_a as usize] - want).abs() <= 2e-5 * (1.0 + want));
    }
}

#[test]
fn shapes_cast_onto_a_chain_floor_land_on_it() {
    // A floor at y = 0, solid below, 200 unit segments.
    let floor =
        Shape::chain((0..=200).rev().map(|i| Vec2::new(i as f32, 0.0)).collect(), ChainOptions::default()).unwrap();
    let mut rng = SplitMix64::new(0xCA57);
    let mut off_face = 0;
    for _ in 0..2000 {
        let probe = random_convex(&mut rng);
        let pose = Pose::new(Vec2::new(rng.range(5.0, 195.0), rng.range(3.0, 6.0)), rng.range(-3.2, 3.2));
        let lowest = probe.aabb(&pose).min.y;
        let drop = Vec2::new(rng.range(-2.0, 2.0), -8.0);
        let hit = cast_shapes(&probe, &pose, drop, &floor, &Pose::IDENTITY, Vec2::ZERO, &CastOptions::default())
            .unwrap()
            .expect("a shape dropped 8 onto the floor from below 6 lands");
        // It lands when its lowest point reaches y = 0 (the aabb's floor is exact for every kind).
        let want = lowest / -drop.y;
        assert!((hit.fraction - want).abs() <= 1e-4, "fraction {} vs {want}: {probe:?} at {pose:?}", hit.fraction);
        // A corner landing on a vertex between two collinear segments gets the floor's normal:
        // the vertex has none of its own (ghost vertices, as in the narrow phase).
        off_face += usize::from(hit.normal.angle_to(Vec2::NEG_Y).abs() > 1e-3);
        let seg = hit.part_b as f32;
        let x = hit.point.x;
        // Segment i runs from x = 200 - i to 199 - i.
        assert!((199.0 - seg - 1e-3..=200.0 - seg + 1e-3).contains(&x), "part {seg} at x = {x}");
    }
    assert_eq!(off_face, 0, "landings with a normal more than 1e-3 rad off the floor's");
}

#[test]
fn casts_at_chain_corners_take_normals_the_faces_allow() {
    // A step: floor y = 0 for x < 0, a riser at x = 0, a landing y = 1 for x > 0; solid below
    // and right (the chain runs so that its left side faces up and out).
    let step = Shape::chain(
        vec![Vec2::new(6.0, 1.0), Vec2::new(0.0, 1.0), Vec2::new(0.0, 0.0), Vec2::new(-6.0, 0.0)],
        ChainOptions::default(),
    )
    .unwrap();
    let (up, left) = (Vec2::Y, Vec2::NEG_X);
    let ball = Shape::circle(0.25).unwrap();
    let mut rng = SplitMix64::new(0x57E9);
    for _ in 0..2000 {
        // Aimed at the convex corner (0, 1) from up and left: any normal between the faces'.
        let from = Vec2::new(rng.range(-3.0, -0.3), rng.range(1.3, 4.0));
        let aim = Vec2::new(rng.range(-0.2, 0.2), 1.0 + rng.range(-0.2, 0.2));
        let hit = cast_shapes(
            &ball,
            &Pose::from_translation(from),
            2.0 * (aim - from),
            &step,
            &Pose::IDENTITY,
            Vec2::ZERO,
            &CastOptions::default(),
        )
        .unwrap()
        .expect("aimed at the step");
        let out = -hit.normal;
        assert!(out.dot(up) >= -1e-6 && out.dot(left) >= -1e-6, "{out:?} points into the step");
        // Into the concave corner (0, 0): the normal is one of the two faces'.
        let from = Vec2::new(rng.range(-3.0, -0.3), rng.range(0.3, 0.9));
        let hit = cast_shapes(
            &Shape::cuboid(Vec2::new(0.25, 0.25)).unwrap(),
            &Pose::from_translation(from),
            Vec2::new(4.0, -1.0),
            &step,
            &Pose::IDENTITY,
            Vec2::ZERO,
            &CastOptions::default(),
        )
        .unwrap()
        .expect("aimed at the corner");
        let out = -hit.normal;
        assert!((out - up).length() < 1e-3 || (out - left).length() < 1e-3, "{out:?} at the concave corner");
    }
}

/// The chain's segment `i` as a shape of its own.
fn segment_shape(vs: &[Vec2], i: usize) -> Shape {
    Shape::segment(vs[i], vs[(i + 1) % vs.len()]).unwrap()
}

#[test]
fn chain_queries_match_the_segment_by_segment_minimum() {
    // Distances, casts and times of impact against a long chain walk only the segments its BVH
    // offers; the answer must be the minimum over all its segments, each queried as a shape of
    // its own, for probes near it, far from it, on either side, with the chain moving (casts)
    // and turning (times of impact).
    let mut rng = SplitMix64::new(0xB7A1);
    let mut y = 0.0;
    let vs: Vec<Vec2> = (0..400)
        .map(|i| {
            y += rng.range(-0.3, 0.3);
            Vec2::new(i as f32 * 0.25, y)
        })
        .collect();
    let n = vs.len() - 1;
    let chain = Shape::chain(vs.clone(), ChainOptions::default()).unwrap();
    let (mut hits, mut borderline) = (0, 0);
    for k in 0..1500 {
        let probe = random_convex(&mut rng);
        let far = if k % 5 == 0 { rng.range(5.0, 60.0) } else { 0.0 };
        let at = Vec2::new(rng.range(-5.0, 105.0), y * 0.5 + rng.range(-4.0, 4.0) + far);
        let pose = Pose::new(at, rng.range(-3.2, 3.2));
        let chain_pose = Pose::new(Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)), rng.range(-0.3, 0.3));
        let seg = |i: usize| segment_shape(&vs, i);

        let d = distance(&probe, &pose, &chain, &chain_pose).unwrap();
        let want =
            (0..n).map(|i| distance(&probe, &pose, &seg(i), &chain_pose).unwrap().distance).fold(f32::MAX, f32::min);
        assert!((d.distance - want).abs() <= 1e-5 * (1.0 + want), "distance {} vs {want}", d.distance);
        let named = distance(&probe, &pose, &seg(d.part_b as usize), &chain_pose).unwrap().distance;
        assert!((named - want).abs() <= 1e-5 * (1.0 + want), "part {} at {named} vs {want}", d.part_b);

        let (ta, tb) =
            (Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.0, 20.0), Vec2::new(0.0, rng.range(-1.0, 1.0)));
        let options = CastOptions { max_fraction: rng.range(0.2, 1.5), target_distance: rng.range(0.0, 0.05) };
        let got = cast_shapes(&probe, &pose, ta, &chain, &chain_pose, tb, &options).unwrap();
        let want = (0..n)
            .filter_map(|i| cast_shapes(&probe, &pose, ta, &seg(i), &chain_pose, tb, &options).unwrap())
            .map(|h| h.fraction)
            .fold(None, |m: Option<f32>, f| Some(m.map_or(f, |m| m.min(f))));
        match (got, want) {
            (Some(g), Some(w)) => {
                hits += 1;
                assert!((g.fraction - w).abs() <= 1e-3 * (1.0 + w), "cast {} vs {w}", g.fraction);
            }
            (None, None) => {}
            // A graze at the end of the span: both within the tolerance of not hitting at all.
            (g, w) => {
                borderline += 1;
                let f = g.map_or_else(|| w.unwrap(), |g| g.fraction);
                assert!(f >= options.max_fraction * 0.99, "one hit at {f}, the other missed");
            }
        }

        let sweep_a = Sweep::new(pose, Pose::new(at + ta, rng.range(-3.2, 3.2)));
        let turn = if k % 3 == 0 { rng.range(-0.5, 0.5) } else { 0.0 };
        let sweep_b =
            Sweep::new(chain_pose, Pose { p: chain_pose.p + tb, q: chain_pose.q.mul(&Rot::from_angle(turn)) });
        let toi = time_of_impact(&probe, &sweep_a, &chain, &sweep_b, 1.0).unwrap();
        let per: Vec<_> = (0..n).map(|i| time_of_impact(&probe, &sweep_a, &seg(i), &sweep_b, 1.0).unwrap()).collect();
        let first = per.iter().filter(|t| t.state != ToiState::Separated).map(|t| t.fraction).fold(f32::MAX, f32::min);
        if toi.state == ToiState::Separated {
            assert!(first >= 0.99, "chain separated, a segment hit at {first}");
        } else {
            assert!((toi.fraction - first).abs() <= 1e-3 * (1.0 + first), "toi {} vs {first}", toi.fraction);
        }
    }
    assert!(hits > 200, "{hits} casts hit");
    assert!(borderline <= 5, "{borderline} borderline casts");
}
