//! Chains against their promises: no internal-edge normals on a smooth floor (where a floor of
//! separate tiles or segments gives them), normals out of the solid at convex and concave
//! corners, one-sided chains never pushing from behind, and a closed chain behaving like the
//! convex solid it outlines.
//!
//! Run with `--nocapture` for the seam counts.

use sapwood::collide::{self, Manifold};
use sapwood::{Chain, ChainOptions, Pose, Shape, Vec2};
use sapwood_support::SplitMix64;

/// The sliding shapes of the seam test as `(name, shape, height of the origin above the lowest
/// point)`.
fn sliders() -> Vec<(&'static str, Shape, f32)> {
    vec![
        ("box", Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap(), 0.5),
        ("circle", Shape::circle(0.5).unwrap(), 0.5),
        ("capsule", Shape::capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25).unwrap(), 0.25),
        ("rounded polygon", Shape::rounded_box(Vec2::new(0.4, 0.2), 0.1).unwrap(), 0.3),
    ]
}

/// A flat floor at y = 0 from x = 0 to 1000, solid below, as one chain of 1,000 unit segments
/// (running right to left, so the front faces up).
fn chain_floor(one_sided: bool) -> Shape {
    let vs = (0..=1000).rev().map(|i| Vec2::new(i as f32, 0.0)).collect();
    Shape::chain(vs, ChainOptions { closed: false, one_sided }).unwrap()
}

/// The same floor as 1,000 separate colliders.
fn tiles(kind: &str) -> Vec<(Shape, Pose)> {
    (0..1000)
        .map(|i| match kind {
            "boxes" => {
                (Shape::cuboid(Vec2::splat(0.5)).unwrap(), Pose::from_translation(Vec2::new(i as f32 + 0.5, -0.5)))
            }
            _ => (Shape::segment(Vec2::ZERO, Vec2::X).unwrap(), Pose::from_translation(Vec2::new(i as f32, 0.0))),
        })
        .collect()
}

/// Angle between the manifold normal (shape → floor) and straight down.
fn off_normal(m: &Manifold) -> f32 {
    m.normal.angle_to(Vec2::NEG_Y).abs()
}

/// The poses of a slide: speeds (distance per step) times steps from x = 3.3, each at several
/// small penetrations.
fn slide_poses(half_height: f32) -> Vec<Pose> {
    let speeds: [f32; 10] = [0.003, 0.01, 0.037, 0.1, 0.25, 0.5, 0.999, 1.0, 1.7, 3.3];
    let depths = [0.0, 1e-5, 1e-4, 1e-3, 5e-3, 0.01, 0.02];
    let mut out = Vec::new();
    for &v in &speeds {
        for step in 0..(990.0 / v).min(4000.0) as usize {
            let x = 3.3 + v * step as f32;
            for &d in &depths {
                out.push(Pose::from_translation(Vec2::new(x, half_height - d)));
            }
        }
    }
    out
}

#[test]
fn sliding_across_a_chain_floor_never_meets_a_seam_normal() {
    let floor = chain_floor(false);
    let (boxes, segments) = (tiles("boxes"), tiles("segments"));
    let tol = 1e-3;
    let mut lines = Vec::new();
    for (name, shape, half) in sliders() {
        let poses = slide_poses(half);
        let (mut chain_bad, mut chain_seen, mut box_bad, mut box_seen, mut seg_bad, mut seg_seen) = (0, 0, 0, 0, 0, 0);
        for pose in &poses {
            collide::contact_parts(&shape, pose, &floor, &Pose::IDENTITY, |_, _, m| {
                chain_seen += 1;
                chain_bad += usize::from(off_normal(m) > tol);
            })
            .unwrap();
            // Only the tiles under the shape can touch it.
            let lo = (pose.p.x - 2.0).floor().max(0.0) as usize;
            for (tile_shape, tile_pose) in &boxes[lo..(lo + 5).min(1000)] {
                let m = collide::contact(&shape, pose, tile_shape, tile_pose).unwrap();
                if m.count > 0 {
                    box_seen += 1;
                    box_bad += usize::from(off_normal(&m) > tol);
                }
            }
            for (tile_shape, tile_pose) in &segments[lo..(lo + 5).min(1000)] {
                let m = collide::contact(&shape, pose, tile_shape, tile_pose).unwrap();
                if m.count > 0 {
                    seg_seen += 1;
                    seg_bad += usize::from(off_normal(&m) > tol);
                }
            }
        }
        lines.push(format!(
            "{name:>15}: {} poses; bad normals: chain {chain_bad} of {chain_seen} manifolds, 1000 boxes {box_bad} of \
             {box_seen}, 1000 segments {seg_bad} of {seg_seen}",
            poses.len()
        ));
        assert_eq!(chain_bad, 0, "{name} met an internal-edge normal on the chain");
        assert!(chain_seen > poses.len() / 2, "{name}: the slide must touch the floor");
        // The separate floors must fail the same check (the ghost collisions the chain avoids).
        // Every slider but the circle catches on box seams; every one on segment ends.
        if name != "circle" {
            assert!(box_bad > 0, "{name}: separate boxes gave no seam normal");
        }
        assert!(seg_bad > 0, "{name}: separate segments gave no seam normal");
    }
    println!("seam test (normal more than 1e-3 rad off the floor's):\n{}", lines.join("\n"));
}

/// A unit square of solid, counter-clockwise (front out), as a closed chain.
fn square(one_sided: bool) -> Shape {
    let vs = vec![Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
    Shape::chain(vs, ChainOptions { closed: true, one_sided }).unwrap()
}

fn random_probe(rng: &mut SplitMix64) -> Shape {
    let s = rng.range(0.05, 0.4);
    match rng.below(4) {
        0 => Shape::circle(s).unwrap(),
        1 => Shape::cuboid(Vec2::new(s, rng.range(0.05, 0.4))).unwrap(),
        2 => {
            let d = Vec2::from_angle(rng.range(0.0, 6.3)) * s;
            Shape::capsule(-d, d, rng.range(0.02, 0.2)).unwrap()
        }
        _ => Shape::rounded_box(Vec2::new(s, rng.range(0.05, 0.3)), rng.range(0.01, 0.1)).unwrap(),
    }
}

/// A closed chain around a convex solid must answer like the solid itself wherever the probe's
/// centre is outside: same touching verdict, same depth, same normal. At convex corners this is
/// the rounded region the two segments share out; the solid (a box, through the box kernels)
/// is the independent oracle.
#[test]
fn closed_chain_around_a_box_answers_like_the_box() {
    let chain = square(true);
    let solid = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    let solid_pose = Pose::from_translation(Vec2::splat(0.5));
    let mut rng = SplitMix64::new(0x00C0_4E45);
    let (mut touching, mut corners, mut cases, mut ambiguous, mut centre_behind) = (0, 0, 0, 0, 0);
    for _ in 0..100_000 {
        let probe = random_probe(&mut rng);
        // Centre outside the square, within reach of it; corners favoured.
        let corner = Vec2::new(rng.below(2) as f32, rng.below(2) as f32);
        let p = if rng.below(2) == 0 {
            corner + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.0, 0.5)
        } else {
            Vec2::new(rng.range(-0.5, 1.5), rng.range(-0.5, 1.5))
        };
        if (0.0..=1.0).contains(&p.x) && (0.0..=1.0).contains(&p.y) {
            continue;
        }
        let pose = Pose::new(p, rng.range(-3.2, 3.2));
        let want = collide::contact(&probe, &pose, &solid, &solid_pose).unwrap();
        let got = collide::contact(&probe, &pose, &chain, &Pose::IDENTITY).unwrap();
        cases += 1;
        // A one-sided face ignores a probe whose centre is behind it. Where the box's push goes
        // through such a face (a thin probe straddling the face's line, centre a hair behind
        // it, next to the corner) the chain's answer comes from the face the centre is in front
        // of and differs by design; those are counted, not compared.
        let (dw, dg) = (want.max_depth(), got.max_depth());
        // Only shallow contacts: deep in a box a chain has no interior to measure depth by.
        if dw.is_some_and(|d| d > 0.05) {
            continue;
        }
        let faces = [(Vec2::NEG_Y, 0.0), (Vec2::X, 1.0), (Vec2::Y, 1.0), (Vec2::NEG_X, 0.0)];
        let n_box = -want.normal;
        if want.count > 0 && faces.iter().any(|&(u, off)| u.dot(n_box) > 1e-3 && u.dot(p) < off) {
            centre_behind += 1;
            continue;
        }
        match (dw, dg) {
            (None, None) => {}
            (Some(d), None) | (None, Some(d)) => {
                assert!(
                    d <= 1e-5,
                    "touching disagrees (depth {d}): {probe:?} at {pose:?}\n box {want:?}\n chain {got:?}"
                )
            }
            (Some(a), Some(b)) => {
                touching += 1;
                corners += usize::from(p.x.clamp(0.0, 1.0) != p.x && p.y.clamp(0.0, 1.0) != p.y);
                assert!((a - b).abs() <= 1e-4, "depth {b} vs the box's {a}: {probe:?} at {pose:?}\n {got:?}");
                // The same normal, or (two axes within rounding of the same depth) another
                // push that frees the probe from the box by the same depth.
                if got.normal.angle_to(want.normal).abs() > 1e-3 && a > 1e-5 {
                    ambiguous += 1;
                    let pushed = Pose { p: pose.p - got.normal * b, q: pose.q };
                    let left =
                        collide::contact(&probe, &pushed, &solid, &solid_pose).unwrap().max_depth().unwrap_or(0.0);
                    assert!(
                        left <= 1e-4,
                        "normal {:?} vs the box's {:?} leaves {left} of overlap: {probe:?} at {pose:?}\n {got:?}",
                        got.normal,
                        want.normal
                    );
                }
            }
        }
    }
    println!(
        "{cases} probes outside the square, {touching} touching, {corners} of them diagonal to a corner, {ambiguous} \
         with another normal of the same depth; {centre_behind} pushed by the box through a face their centre is \
         behind (not compared)"
    );
    assert!(touching > 5000 && corners > 2000, "the probes must reach the faces and the corners");
}

/// Inside an L (floor and wall meeting at a concave corner) every normal is one of the two
/// face normals: a concave vertex is no feature of the surface.
#[test]
fn concave_corners_give_face_normals_only() {
    // Solid below y = 0 and right of x = 0: the chain runs up the wall then left along the
    // floor (solid on its left).
    let vs = vec![Vec2::new(0.0, 3.0), Vec2::ZERO, Vec2::new(-3.0, 0.0)];
    for one_sided in [false, true] {
        let l = Shape::chain(vs.clone(), ChainOptions { closed: false, one_sided }).unwrap();
        let mut rng = SplitMix64::new(0x0001_0000 + u64::from(one_sided));
        let mut seen = 0;
        for _ in 0..20_000 {
            let probe = random_probe(&mut rng);
            // Centres in the free quadrant.
            let p = Vec2::new(rng.range(-0.6, -1e-3), rng.range(1e-3, 0.6));
            let pose = Pose::new(p, rng.range(-3.2, 3.2));
            collide::contact_parts(&probe, &pose, &l, &Pose::IDENTITY, |_, _, m| {
                seen += 1;
                // From the chain towards the probe: up (floor) or left (wall).
                let n = -m.normal;
                let face = n.angle_to(Vec2::Y).abs().min(n.angle_to(Vec2::NEG_X).abs());
                assert!(face <= 1e-3, "normal {n:?} at a concave corner: {probe:?} at {pose:?}\n {m:?}");
            })
            .unwrap();
        }
        assert!(seen > 5000, "{seen}");
    }
}

/// Around convex corners every normal points out of the solid: into the free side of at least
/// one of the two faces, never into the solid's quadrant.
#[test]
fn convex_corners_push_out_of_the_solid() {
    for one_sided in [false, true] {
        let sq = square(one_sided);
        let mut rng = SplitMix64::new(0xC04E + u64::from(one_sided));
        let mut seen = 0;
        for _ in 0..20_000 {
            let probe = random_probe(&mut rng);
            let corner = Vec2::new(rng.below(2) as f32, rng.below(2) as f32);
            let out = (corner - Vec2::splat(0.5)) * 2.0; // the diagonal away from the square
            let p = corner + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.0, 0.5);
            // Centres strictly outside the square.
            if (-1e-3..=1.0 + 1e-3).contains(&p.x) && (-1e-3..=1.0 + 1e-3).contains(&p.y) {
                continue;
            }
            let pose = Pose::new(p, rng.range(-3.2, 3.2));
            collide::contact_parts(&probe, &pose, &sq, &Pose::IDENTITY, |_, _, m| {
                seen += 1;
                let n = -m.normal;
                // Out of the solid near this corner: along one of the corner's two outward
                // faces at least (x or y component pointing away from the square).
                assert!(
                    n.x * out.x >= -1e-3 || n.y * out.y >= -1e-3,
                    "normal {n:?} into the solid at corner {corner:?}: {probe:?} at {pose:?}\n {m:?}"
                );
            })
            .unwrap();
        }
        assert!(seen > 5000, "{seen}");
    }
}

/// A one-sided chain never pushes a shape whose centre is behind the segment it reports, and
/// gives nothing at all to a shape behind every segment it overlaps; a two-sided one pushes
/// from both sides.
#[test]
fn one_sided_chains_never_push_from_behind() {
    let mut rng = SplitMix64::new(0x000E_51DE);
    // A wavy open polyline, left to right (front facing down).
    let vs: Vec<Vec2> = (0..200).map(|i| Vec2::new(i as f32 * 0.25, (i as f32 * 0.7).sin() * 0.3)).collect();
    let chain = Chain::new(vs.clone(), ChainOptions { closed: false, one_sided: true }).unwrap();
    let one = Shape::Chain(chain.clone());
    let two = Shape::chain(vs, ChainOptions::default()).unwrap();
    let (mut front, mut behind, mut two_sided_behind) = (0, 0, 0);
    for _ in 0..30_000 {
        let probe = random_probe(&mut rng);
        let pose = Pose::new(Vec2::new(rng.range(1.0, 48.0), rng.range(-0.8, 0.8)), rng.range(-3.2, 3.2));
        let centre = pose.p;
        collide::contact_parts(&probe, &pose, &one, &Pose::IDENTITY, |_, seg, m| {
            let s = chain.segment(seg as usize).unwrap();
            let e = s.b - s.a;
            let side = Vec2::new(e.y, -e.x).dot(centre - s.a);
            assert!(side >= 0.0, "segment {seg} pushes {probe:?} at {pose:?} from behind: {m:?}");
            // The push is towards the front.
            assert!((-m.normal).dot(Vec2::new(e.y, -e.x)) > 0.0, "push into the back: {m:?}");
            front += 1;
        })
        .unwrap();
        // Two-sided: the same probe is pushed away from the line whichever side it is on.
        collide::contact_parts(&probe, &pose, &two, &Pose::IDENTITY, |_, seg, _| {
            let s = chain.segment(seg as usize).unwrap();
            let e = s.b - s.a;
            if Vec2::new(e.y, -e.x).dot(centre - s.a) < 0.0 {
                two_sided_behind += 1;
            }
        })
        .unwrap();
        behind += usize::from(!collide::overlaps(&probe, &pose, &one, &Pose::IDENTITY).unwrap());
    }
    println!(
        "one-sided: {front} front manifolds; two-sided: {two_sided_behind} from behind; {behind} probes untouched"
    );
    assert!(front > 1000 && two_sided_behind > 1000);
}

/// A chain of one segment with free ends is a bare segment seen from the front: same depth and
/// normal as the segment kernel for shallow contacts.
#[test]
fn a_one_segment_chain_is_a_segment() {
    let mut rng = SplitMix64::new(0x5E6);
    let (mut agree, mut touching) = (0, 0);
    for _ in 0..50_000 {
        let a = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        let b = a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.2, 2.0);
        let chain = Shape::chain(vec![a, b], ChainOptions::default()).unwrap();
        let seg = Shape::segment(a, b).unwrap();
        let probe = random_probe(&mut rng);
        let near = a.lerp(b, rng.range(-0.3, 1.3)) + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.0, 0.5);
        let pose = Pose::new(near, rng.range(-3.2, 3.2));
        let (want, got) = (
            collide::contact(&probe, &pose, &seg, &Pose::IDENTITY).unwrap(),
            collide::contact(&probe, &pose, &chain, &Pose::IDENTITY).unwrap(),
        );
        if want.max_depth().is_some_and(|d| d > 0.05) || want.count == 0 && got.count == 0 {
            continue;
        }
        touching += 1;
        let (dw, dg) = (want.max_depth().unwrap_or(0.0), got.max_depth().unwrap_or(0.0));
        // Nearly parallel faces give two valid reference faces a hair apart in angle, and the
        // clipped depths then differ by that angle times the contact's length.
        let same_normal = want.count == 0 || got.count == 0 || got.normal.angle_to(want.normal).abs() <= 1e-3;
        let tol = if same_normal { 1e-4 } else { 5e-4 };
        assert!(
            (dw - dg).abs() <= tol,
            "depth {dg} vs segment's {dw}: {probe:?} at {pose:?} on {a:?}-{b:?}\n {want:?}\n {got:?}"
        );
        if dw > 1e-5 {
            // The same normal, or another push of nearly the same depth that frees the probe.
            if !same_normal {
                let pushed = Pose { p: pose.p - got.normal * dg, q: pose.q };
                let left = collide::contact(&probe, &pushed, &seg, &Pose::IDENTITY).unwrap().max_depth().unwrap_or(0.0);
                assert!(
                    left <= 1e-4,
                    "normal leaves {left}: {probe:?} at {pose:?} on {a:?}-{b:?}\n {want:?}\n {got:?}"
                );
            }
            agree += 1;
        }
    }
    println!("{touching} shallow contacts, {agree} compared");
    assert!(agree > 4000, "{agree}");
}
