//! Chains against an exact `f64` reference on curved terrain: shapes of every kind resting on and
//! sliding over sine waves, arcs, bowls, hills and stairs, with small and large turns per vertex,
//! one- and two-sided, near the origin and far from it, tiny and large.
//!
//! Two promises are checked at every pose:
//! - **Existence**: a shape that penetrates the chain (exactly, by more than rounding: 1e-5 of
//!   its size plus a few f32 ulps of its coordinates) gets a contact. For a one-sided chain only segments with the shape's centre in front count.
//! - **Normal**: every manifold's normal lies within the cone the ghost-vertex rule allows at its
//!   segment: the segment's face normal, or between the two face normals at a join that is
//!   convex towards the shape (a free end's cap at a chain's end), on the shape's side.
//!
//! The regression tests for the defects these properties found come first.

use glam::DVec2;
use sapwood::collide;
use sapwood::{Chain, ChainOptions, Pose, Shape, Vec2};
use sapwood_support::exact_query::{Body, PoseD, d64, signed_distance};
use sapwood_support::f64_rng::F64Rng;

/// How far (radians) a normal may lie outside its admissible cone: f32 rounding of unit vectors.
const CONE_TOL: f64 = 1e-4;

fn chain(vs: Vec<Vec2>, one_sided: bool) -> Shape {
    Shape::chain(vs, ChainOptions { closed: false, one_sided }).unwrap()
}

/// The two-segment roof of the nearly-flat-join defect: a turn of `turn` radians at the origin,
/// running right to left so the front faces up.
fn roof(turn: f32, one_sided: bool) -> Shape {
    let t = 0.5 * turn;
    chain(vec![Vec2::new(t.cos(), -t.sin()), Vec2::ZERO, Vec2::new(-t.cos(), -t.sin())], one_sided)
}

#[test]
fn a_circle_meets_a_nearly_flat_convex_join() {
    let ball = Shape::circle(0.5).unwrap();
    for turn_deg in [0.0f32, 0.01, 0.1, 0.3, 0.5, 0.57, 0.6, 1.0, 5.0] {
        for one_sided in [false, true] {
            let floor = roof(turn_deg.to_radians(), one_sided);
            for d in [1e-4f32, 1e-3, 0.01, 0.05, 0.1] {
                let pose = Pose::from_translation(Vec2::new(0.0, 0.5 - d));
                let m = collide::contact(&ball, &pose, &floor, &Pose::IDENTITY).unwrap();
                assert!(m.count > 0, "turn {turn_deg}°, one-sided {one_sided}, sunk {d}: no contact");
                assert!(m.normal.angle_to(Vec2::NEG_Y).abs() <= 0.5 * turn_deg.to_radians() + 1e-5, "{m:?}");
                assert!((m.max_depth().unwrap() - d).abs() < 1e-4, "turn {turn_deg}°, sunk {d}: {m:?}");
            }
        }
    }
}

/// `y = 0.2 sin 2x` from x = 0 to 12, vertices every 0.05, running right to left (front up).
fn wavy_floor(one_sided: bool) -> Shape {
    let vs = (0..=240).rev().map(|i| i as f32 * 0.05).map(|x| Vec2::new(x, 0.2 * (2.0 * x).sin())).collect();
    chain(vs, one_sided)
}

#[test]
fn a_wide_box_on_a_two_sided_curve_is_pushed_out_of_it() {
    let plank = Shape::cuboid(Vec2::new(3.0, 0.4)).unwrap();
    let pose = Pose::new(Vec2::new(5.5, 0.59), 0.05);
    let one = collide::contact(&plank, &pose, &wavy_floor(true), &Pose::IDENTITY).unwrap();
    let two = collide::contact(&plank, &pose, &wavy_floor(false), &Pose::IDENTITY).unwrap();
    assert!(one.count > 0 && two.count > 0, "{one:?} {two:?}");
    for m in [one, two] {
        assert!(m.normal.y < -0.99, "the floor pushes the plank up: {m:?}");
        assert!(m.max_depth().unwrap() < 0.1, "{m:?}");
    }
    // Every segment pushes it up, not only the deepest.
    collide::contact_parts(&plank, &pose, &wavy_floor(false), &Pose::IDENTITY, |_, j, m| {
        assert!(m.normal.y < 0.0, "segment {j} pushes the plank down: {m:?}");
    })
    .unwrap();
}

#[test]
fn normals_at_a_convex_join_stay_between_its_face_normals() {
    // A hill of 1° turns: a circle, a box and a capsule over each join, at every offset along
    // it, get normals between the faces' normals, never past the neighbour's.
    let vs: Vec<Vec2> =
        (0..=60).rev().map(|i| (i as f32 - 30.0).to_radians()).map(|a| 20.0 * Vec2::new(a.sin(), a.cos())).collect();
    let hill = Terrain::new("hill", vs, false);
    let shapes = probes();
    let mut rng = F64Rng::new(5);
    for k in 0..4000 {
        let (name, shape) = &shapes[k % shapes.len()];
        let x = rng.range(-8.0, 8.0) as f32;
        let angle = rng.range(-0.3, 0.3) as f32;
        let Some(pose) = hill.rest(shape, x, angle, 1e-3 * size(shape), Side::Front) else { continue };
        hill.check_normals(name, shape, &pose, (half_thickness(shape) > 0.0).then_some(Side::Front));
    }
}

// ---------------------------------------------------------------------------------------------
// The property test

#[derive(Clone, Copy, PartialEq, Debug)]
enum Side {
    Front,
    Back,
}

struct Terrain {
    name: String,
    shape: Shape,
    chain: Chain,
    body: Body,
    one_sided: bool,
}

impl Terrain {
    fn new(name: &str, vs: Vec<Vec2>, one_sided: bool) -> Terrain {
        let shape = chain(vs, one_sided);
        let Shape::Chain(c) = &shape else { unreachable!() };
        let chain = c.clone();
        Terrain { name: name.to_string(), body: Body::new(&shape), shape, chain, one_sided }
    }

    /// The segments' exact signed distances to `shape` at `pose`, minimum over the segments
    /// that count (for a one-sided chain, those with the probe's centre in front).
    fn penetration(&self, shape: &Shape, pose: &Pose) -> f64 {
        let placed = Body::new(shape).placed(&PoseD::from_pose(pose));
        let centre = d64(pose.transform_point(probe_centre(shape)));
        let mut best = f64::INFINITY;
        for (i, core) in self.body.parts.iter().enumerate() {
            if self.one_sided {
                let s = self.chain.segment(i).unwrap();
                let (a, b) = (d64(s.a), d64(s.b));
                let e = b - a;
                if DVec2::new(e.y, -e.x).dot(centre - a) < 0.0 {
                    continue;
                }
            }
            best = best.min(signed_distance(&placed, std::slice::from_ref(core)));
        }
        best
    }

    /// A pose of `shape` at `x` turned by `angle` that touches the chain from `side` and sinks
    /// into it by `sink` (a distance); `None` when the shape cannot come down there (off the
    /// chain's end).
    fn rest(&self, shape: &Shape, x: f32, angle: f32, sink: f64, side: Side) -> Option<Pose> {
        let dir = if side == Side::Front { 1.0 } else { -1.0 };
        let b = self.chain.aabb();
        let reach = shape.bounding_radius();
        let mut y = if side == Side::Front { b.max.y + reach + 0.1 } else { b.min.y - reach - 0.1 } as f64;
        let body_chain = &self.body.parts;
        let shape_body = Body::new(shape);
        let gap = |y: f64| {
            let pose = Pose::new(Vec2::new(x, y as f32), angle);
            signed_distance(&shape_body.placed(&PoseD::from_pose(&pose)), body_chain)
        };
        // Conservative advancement down (or up) to the first touch.
        for _ in 0..400 {
            let g = gap(y);
            if g < 1e-6 * reach as f64 {
                break;
            }
            y -= dir * g;
            if (y - b.center().y as f64).abs() > 4.0 * (reach + b.max.y - b.min.y) as f64 {
                return None;
            }
        }
        if gap(y) > 1e-4 * reach as f64 {
            return None;
        }
        Some(Pose::new(Vec2::new(x, (y - dir * sink) as f32), angle))
    }

    /// Every manifold's normal (out of the chain) lies within the admissible set of its
    /// segment on `side`, the side the shape came from (`None`: either side, for a shape with
    /// no thickness on a two-sided chain, whose side is ambiguous once it crosses); returns how
    /// many manifolds there were.
    fn check_normals(&self, name: &str, shape: &Shape, pose: &Pose, side: Option<Side>) -> usize {
        let mut seen = 0;
        collide::contact_parts(shape, pose, &self.shape, &Pose::IDENTITY, |_, j, m| {
            seen += 1;
            let n = -DVec2::new(m.normal.x as f64, m.normal.y as f64);
            let off = match side {
                Some(side) => self.off_cone(j as usize, n, side),
                None => self.off_cone(j as usize, n, Side::Front).min(self.off_cone(j as usize, n, Side::Back)),
            };
            assert!(
                off <= CONE_TOL,
                "{}: {name} at {pose:?}: segment {j} normal {n:?} is {off} rad outside its cone on the {side:?} ({m:?})",
                self.name
            );
        }).unwrap();
        seen
    }

    /// How far (radians) unit `n` lies outside the normals segment `i` may report on `side`.
    fn off_cone(&self, i: usize, n: DVec2, side: Side) -> f64 {
        let s = self.chain.segment(i).unwrap();
        let (a, b) = (d64(s.a), d64(s.b));
        let e = (b - a).normalize();
        let sign = if side == Side::Front { 1.0 } else { -1.0 };
        let normal = |d: DVec2| sign * DVec2::new(d.y, -d.x);
        let f1 = normal(e);
        let mut off = angle(f1, n);
        for (at_end, ghost) in [(false, s.ghost_a), (true, s.ghost_b)] {
            let turn_dir = if at_end { sign } else { -sign };
            match ghost {
                // A free end's cap: a one-sided chain's stops at the tangent, a two-sided one's
                // is a bare segment's half-turn, both turning from the face normal past the end.
                None => {
                    let span = if self.one_sided { std::f64::consts::FRAC_PI_2 } else { std::f64::consts::PI };
                    off = off.min(arc_off(f1, turn_dir * span, n));
                }
                Some(g) => {
                    let (before, after) =
                        if at_end { (e, (d64(g) - b).normalize()) } else { ((a - d64(g)).normalize(), e) };
                    // Convex towards the shape's side: the rounded region between the faces.
                    if sign * before.perp_dot(after) > 0.0 {
                        let f0 = normal(before);
                        off = off.min(arc_off(f0, f0.perp_dot(normal(after)).atan2(f0.dot(normal(after))), n));
                    }
                }
            }
        }
        off
    }
}

fn angle(a: DVec2, b: DVec2) -> f64 {
    a.perp_dot(b).atan2(a.dot(b)).abs()
}

fn rotated(v: DVec2, a: f64) -> DVec2 {
    DVec2::from_angle(a).rotate(v)
}

/// How far `n` lies outside the arc that turns from `from` by `span` radians (signed).
fn arc_off(from: DVec2, span: f64, n: DVec2) -> f64 {
    let at = from.perp_dot(n).atan2(from.dot(n));
    let (lo, hi) = if span >= 0.0 { (0.0, span) } else { (span, 0.0) };
    if (lo..=hi).contains(&at)
        || (span.abs() >= std::f64::consts::PI - 1e-12 && at.abs() >= std::f64::consts::PI - 1e-12)
    {
        0.0
    } else {
        angle(n, rotated(from, lo)).min(angle(n, rotated(from, hi)))
    }
}

/// The point the kernels take as a shape's centre (a polygon's centroid, a capsule's middle).
fn probe_centre(shape: &Shape) -> Vec2 {
    match shape {
        Shape::Capsule(c) => 0.5 * (c.a + c.b),
        Shape::Segment(s) => 0.5 * (s.a + s.b),
        Shape::Polygon(p) => p.centroid(),
        _ => Vec2::ZERO,
    }
}

fn size(shape: &Shape) -> f64 {
    shape.bounding_radius() as f64
}

/// Half the shape's least width: how deep it may sink into a two-sided chain and still be on
/// the side it came from (0 for a segment).
fn half_thickness(shape: &Shape) -> f64 {
    (match shape {
        Shape::Circle(c) => c.radius,
        Shape::Capsule(c) => c.radius,
        Shape::Segment(s) => s.radius,
        Shape::Cuboid(b) => b.half_extents.min_element(),
        Shape::Polygon(p) => {
            let c = p.centroid();
            p.vertices().iter().zip(p.normals()).map(|(v, n)| n.dot(*v - c)).fold(f32::INFINITY, f32::min) + p.radius()
        }
        _ => unreachable!("probes are convex"),
    }) as f64
}

/// Shapes of every convex kind: wide and square boxes, rounded ones, capsules, circles of many
/// radii, polygons, a segment.
fn probes() -> Vec<(String, Shape)> {
    let mut v: Vec<(String, Shape)> = vec![
        ("wide box".into(), Shape::cuboid(Vec2::new(3.0, 0.4)).unwrap()),
        ("box".into(), Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap()),
        ("rounded box".into(), Shape::rounded_box(Vec2::new(0.4, 0.2), 0.1).unwrap()),
        ("wide rounded box".into(), Shape::rounded_box(Vec2::new(2.0, 0.1), 0.05).unwrap()),
        ("capsule".into(), Shape::capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25).unwrap()),
        ("long capsule".into(), Shape::capsule(Vec2::new(-2.5, 0.0), Vec2::new(2.5, 0.0), 0.1).unwrap()),
        (
            "pentagon".into(),
            Shape::polygon(&(0..5).map(|k| 0.6 * Vec2::from_angle(k as f32 * 1.2566371)).collect::<Vec<_>>(), 0.0)
                .unwrap(),
        ),
        ("segment".into(), Shape::segment(Vec2::new(-0.7, 0.0), Vec2::new(0.7, 0.0)).unwrap()),
    ];
    for r in [0.02f32, 0.1, 0.5, 1.0, 3.0] {
        v.push((format!("circle {r}"), Shape::circle(r).unwrap()));
    }
    v
}

/// The terrains, each as a polyline from right to left (front up) with f32-rounded vertices.
fn terrains(one_sided: bool, offset: Vec2, scale: f32) -> Vec<Terrain> {
    let place = |v: Vec2| offset + scale * v;
    let sample = |n: usize, x0: f32, x1: f32, f: &dyn Fn(f32) -> f32| -> Vec<Vec2> {
        (0..=n).rev().map(|i| x0 + (x1 - x0) * i as f32 / n as f32).map(|x| place(Vec2::new(x, f(x)))).collect()
    };
    let arc = |n: usize, r: f32, span: f32, bowl: bool| -> Vec<Vec2> {
        (0..=n)
            .rev()
            .map(|i| -0.5 * span + span * i as f32 / n as f32)
            .map(|a| {
                let v = if bowl {
                    Vec2::new(r * a.sin(), r * (1.0 - a.cos()))
                } else {
                    Vec2::new(r * a.sin(), r * a.cos() - r)
                };
                place(v)
            })
            .collect()
    };
    let stairs: Vec<Vec2> = (0..=24)
        .rev()
        .flat_map(|i| {
            let (x, y) = (i as f32 * 0.5 - 6.0, (i as f32 * 0.5 - 6.0).abs().floor() * 0.3);
            [place(Vec2::new(x + 0.5, y)), place(Vec2::new(x, y))]
        })
        .collect::<Vec<_>>();
    let mut stairs_dedup = stairs;
    stairs_dedup.dedup();
    vec![
        Terrain::new("fine sine", sample(480, -12.0, 12.0, &|x| 0.2 * (2.0 * x).sin()), one_sided),
        Terrain::new("coarse sine", sample(48, -12.0, 12.0, &|x| 0.8 * (0.7 * x).sin()), one_sided),
        Terrain::new("hill of 0.2° turns", arc(200, 50.0, 0.7, false), one_sided),
        Terrain::new("hill of 5° turns", arc(24, 8.0, 2.1, false), one_sided),
        Terrain::new("bowl", arc(60, 6.0, 2.4, true), one_sided),
        Terrain::new("stairs", stairs_dedup, one_sided),
    ]
}

#[test]
fn shapes_resting_on_curved_chains_get_contacts_with_admissible_normals() {
    let shapes = probes();
    let mut rng = F64Rng::new(26);
    let (mut poses, mut manifolds) = (0usize, 0usize);
    // (offset of the whole scene, scale of terrain and shapes)
    let places = [
        (Vec2::ZERO, 1.0f32),
        (Vec2::new(1000.0, -700.0), 1.0),
        (Vec2::new(-3.0, 2.0), 0.01),
        (Vec2::new(40.0, 0.0), 25.0),
    ];
    for one_sided in [false, true] {
        for &(offset, scale) in &places {
            for terrain in terrains(one_sided, offset, scale) {
                let sides: &[Side] = if one_sided { &[Side::Front] } else { &[Side::Front, Side::Back] };
                for (name, shape) in &shapes {
                    let shape = shape.scaled(scale).unwrap();
                    for &side in sides {
                        for _ in 0..30 {
                            let x = offset.x + scale * rng.range(-5.0, 5.0) as f32;
                            let angle = rng.range(-0.6, 0.6) as f32;
                            // Sunk by up to half its thickness (a segment: a fraction of its
                            // length, crossing the chain).
                            let sink = [0.0, 1e-4, 1e-3, 0.01, 0.1, 0.45][rng.below(6) as usize];
                            let thick = half_thickness(&shape);
                            let depth = sink * if thick > 0.0 { thick } else { 0.1 * size(&shape) };
                            let Some(pose) = terrain.rest(&shape, x, angle, depth, side) else { continue };
                            poses += 1;
                            let pen = terrain.penetration(&shape, &pose);
                            let seen = terrain.check_normals(name, &shape, &pose, (thick > 0.0).then_some(side));
                            manifolds += seen;
                            // Beyond rounding: of the size, and of the coordinates' magnitude.
                            let must = pen
                                < -(1e-5 * size(&shape)
                                    + 4.0 * f32::EPSILON as f64 * pose.p.abs().max_element() as f64);
                            assert!(
                                !must || seen > 0,
                                "{} ({}sided, at {offset} x{scale}): {name} at {pose:?} penetrates by {} and gets no contact",
                                terrain.name,
                                if one_sided { "one-" } else { "two-" },
                                -pen
                            );
                        }
                    }
                }
            }
        }
    }
    println!("{poses} poses, {manifolds} manifolds checked");
    assert!(poses > 20_000 && manifolds > poses, "{poses} poses, {manifolds} manifolds");
}

#[test]
fn shapes_sliding_over_a_finely_sampled_curve_never_lose_it() {
    // Circles and boxes sliding along a sine of short segments at a small sink: every pose gets
    // a contact (a ball never falls through smooth ground).
    let shapes =
        [Shape::circle(0.5).unwrap(), Shape::circle(0.05).unwrap(), Shape::cuboid(Vec2::new(0.3, 0.2)).unwrap()];
    for one_sided in [false, true] {
        let terrain = &terrains(one_sided, Vec2::ZERO, 1.0)[0];
        for shape in &shapes {
            let mut misses = 0;
            let mut n = 0;
            for k in 0..2000 {
                let x = -5.0 + k as f32 * 0.005;
                let Some(pose) = terrain.rest(shape, x, 0.0, 1e-3 * size(shape), Side::Front) else { continue };
                n += 1;
                let m = collide::contact(shape, &pose, &terrain.shape, &Pose::IDENTITY).unwrap();
                misses += usize::from(m.count == 0);
            }
            assert!(n > 1500);
            assert_eq!(misses, 0, "{shape:?}: {misses} of {n} poses without a contact");
        }
    }
}
