//! Casts and times of impact of shapes whose geometry sits far from their poses' origins (core
//! offsets 0, 1, 10, 100 and 1,000 in random directions, sizes from 1e-3 to 1e3), against the
//! exact `f64` reference of `sapwood_support::exact_query`, plus the reported reproducers.
//!
//! The queries document a tolerance of `1e-4` times the smaller shape's size plus the rounding
//! of the coordinates involved: the shapes' sizes, the distance between them and their motion,
//! never the distance of a core from its pose's origin. So here
//! `SLACK = 4e-6 · (size_a + size_b + distance between the shapes' centres + motion)`, with a
//! shape's size half the longer side of its bounding box plus its rounding, both measured on
//! the placed geometry, and every check is in distance:
//! - *close*: at the reported fraction the reference's distance is at most
//!   `target + 1e-4 · min(size) + SLACK` (for a sweep at sapwood's own poses `Sweep::at`);
//! - *not late*: the reference finds no earlier fraction where the distance is below
//!   `target - SLACK` (a turning sweep's f32 poses are rounded on the lever from the pose's
//!   origin, so there the slack also covers the poses' magnitude);
//! - *started in contact* / *overlapping*: only when the reference's start distance is within
//!   the tolerance (overlapping: within `SLACK` of touching).

use glam::DVec2;
use sapwood::query::{self, CastOptions, Sweep, ToiState};
use sapwood::{ColliderDesc, Pose, Rot, Shape, Vec2, World};
use sapwood_support::exact_query::{self as exact, Body, Core, ExactCast, ExactToi, PoseD, SweepD, d64};
use sapwood_support::f64_rng::F64Rng;
use sapwood_support::random_shapes::{random_hull, v2};

const OFFSETS: [f64; 5] = [0.0, 1.0, 10.0, 100.0, 1000.0];
const CASES_PER_PAIR: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Circle,
    Capsule,
    Segment,
    Cuboid,
    Rounded,
    Polygon,
    Compound,
}

const KINDS: [Kind; 7] =
    [Kind::Circle, Kind::Capsule, Kind::Segment, Kind::Cuboid, Kind::Rounded, Kind::Polygon, Kind::Compound];

/// A convex shape of about `size` whose geometry sits around `o` in its own frame. A circle and
/// a box only exist about their origins, so they sit at `o` as a compound's one part.
fn convex_at(rng: &mut F64Rng, kind: Kind, size: f64, o: DVec2) -> Shape {
    let s32 = size as f32;
    let part = |shape: Shape, rng: &mut F64Rng| {
        let q = Rot::from_angle(rng.range(-3.2, 3.2) as f32);
        Shape::compound(vec![(Pose { p: v2(o), q }, shape)]).unwrap()
    };
    let d = rng.dir() * size * rng.range(0.1, 1.0);
    match kind {
        Kind::Circle => part(Shape::circle(s32).unwrap(), rng),
        Kind::Cuboid => {
            let h = Vec2::new(s32 * rng.range(0.02, 1.0) as f32, s32 * rng.range(0.05, 1.0) as f32);
            part(Shape::cuboid(h).unwrap(), rng)
        }
        Kind::Capsule => Shape::capsule(v2(o - d), v2(o + d), (size * rng.range(0.02, 0.6)) as f32).unwrap(),
        Kind::Segment => {
            let r = if rng.chance(0.5) { 0.0 } else { size * rng.range(0.01, 0.3) };
            Shape::rounded_segment(v2(o - d), v2(o + d), r as f32).unwrap()
        }
        Kind::Rounded | Kind::Polygon => {
            let r = if kind == Kind::Rounded { (size * rng.log_range(0.005, 0.5)) as f32 } else { 0.0 };
            let Shape::Polygon(p) = random_hull(rng, size, 0.0) else { unreachable!("a hull is a polygon") };
            let moved: Vec<Vec2> = p.vertices().iter().map(|v| v2(d64(*v) + o)).collect();
            Shape::polygon(&moved, r).unwrap()
        }
        Kind::Compound => unreachable!("compounds are built of convex shapes"),
    }
}

fn shape_at(rng: &mut F64Rng, kind: Kind, size: f64, o: DVec2) -> Shape {
    if kind != Kind::Compound {
        return convex_at(rng, kind, size, o);
    }
    let parts = (0..2 + rng.below(2))
        .map(|i| {
            let k = KINDS[rng.below(6) as usize];
            let at = if i == 0 { o } else { o + rng.dir() * size * rng.range(0.2, 0.8) };
            let q = Rot::from_angle(rng.range(-3.2, 3.2) as f32);
            // Each part about its own origin, placed by its pose.
            let part_size = size * rng.range(0.2, 0.6);
            let part = convex_at(rng, k, part_size, DVec2::ZERO);
            let part = match part {
                Shape::Compound(c) => c.parts()[0].1.clone(),
                s => s,
            };
            (Pose { p: v2(at), q }, part)
        })
        .collect();
    Shape::compound(parts).unwrap()
}

/// The placed geometry's box: its centre and its size (half the longer side plus the largest
/// rounding), in f64.
fn extent(cores: &[Core]) -> (DVec2, f64) {
    let (mut lo, mut hi, mut r) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY), 0.0f64);
    for c in cores {
        for v in c.vertices() {
            (lo, hi) = (lo.min(*v), hi.max(*v));
        }
        r = r.max(c.radius);
    }
    (0.5 * (lo + hi), 0.5 * (hi - lo).max_element() + r)
}

/// A pose putting the geometry that sits around `o` in the shape's frame around `centre`.
fn pose_for(rng: &mut F64Rng, o: DVec2, centre: DVec2) -> Pose {
    let q = Rot::from_angle(rng.range(-3.2, 3.2) as f32);
    let turned = DVec2::new(q.c as f64 * o.x - q.s as f64 * o.y, q.s as f64 * o.x + q.c as f64 * o.y);
    Pose { p: v2(centre - turned), q }
}

struct Case {
    sa: Shape,
    pa: Pose,
    sb: Shape,
    pb: Pose,
    ba: Body,
    bb: Body,
    small: f64,
    /// Sizes plus the distance between the centres.
    scale: f64,
}

fn random_case(rng: &mut F64Rng, ka: Kind, kb: Kind) -> Case {
    let (za, zb) = (rng.log_range(1e-3, 1e3), rng.log_range(1e-3, 1e3));
    let (za, zb) = if rng.chance(0.5) { (za, za * rng.log_range(0.1, 10.0)) } else { (za, zb) };
    let oa = rng.dir() * OFFSETS[rng.below(5) as usize];
    let ob = rng.dir() * OFFSETS[rng.below(5) as usize];
    let (sa, sb) = (shape_at(rng, ka, za, oa), shape_at(rng, kb, zb, ob));
    let (ba, bb) = (Body::new(&sa), Body::new(&sb));
    let centre_a = DVec2::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)) * za.max(1.0);
    let pa = pose_for(rng, oa, centre_a);
    // B's centre beyond the sum of both shapes' reaches about their centres, along a random
    // direction: apart at the start, most of the time.
    let reach = |b: &Body, o: DVec2| {
        b.parts.iter().flat_map(|c| c.vertices().iter().map(move |v| (*v - o).length() + c.radius)).fold(0.0, f64::max)
    };
    let gap = (reach(&ba, oa) + reach(&bb, ob)) * rng.range(0.8, 2.0);
    let centre_b = centre_a + rng.dir() * gap;
    let pb = pose_for(rng, ob, centre_b);
    let (_, size_a) = extent(&ba.placed(&PoseD::from_pose(&pa)));
    let (_, size_b) = extent(&bb.placed(&PoseD::from_pose(&pb)));
    Case { sa, pa, sb, pb, ba, bb, small: size_a.min(size_b), scale: size_a + size_b + gap }
}

/// Translations that bring B towards A (missing sideways up to its size, or stopping short)
/// and A a little.
fn translations(rng: &mut F64Rng, c: &Case) -> (DVec2, DVec2) {
    let (ca, _) = extent(&c.ba.placed(&PoseD::from_pose(&c.pa)));
    let (cb, _) = extent(&c.bb.placed(&PoseD::from_pose(&c.pb)));
    let towards = ca - cb;
    let side = towards.perp().normalize_or_zero() * c.small * rng.range(-2.0, 2.0);
    let tb = (towards + side) * rng.range(0.3, 2.0);
    let ta = rng.dir() * towards.length() * rng.range(0.0, 0.3);
    (ta, tb)
}

#[derive(Default)]
struct Tally {
    hits: usize,
    checked: usize,
    worst_over_tolerance: f64,
    failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, what: &str, idx: usize, c: &Case, more: String) {
        if self.failures.len() < 10 {
            self.failures.push(format!(
                "case {idx}: {what}: {more}\n  A {:?} at {:?}\n  B {:?} at {:?}",
                c.sa, c.pa, c.sb, c.pb
            ));
        }
    }
}

fn check_cast(rng: &mut F64Rng, c: &Case, idx: usize, t: &mut Tally) {
    let (ta, tb) = translations(rng, c);
    let target = if rng.chance(0.7) { 0.0 } else { c.small * rng.log_range(1e-4, 0.3) };
    let opts = CastOptions { max_fraction: 1.0, target_distance: target as f32 };
    let target = opts.target_distance as f64;
    let (ta32, tb32) = (v2(ta), v2(tb));
    let slack = 4e-6 * (c.scale + d64(ta32).length() + d64(tb32).length());
    let close = target + 1e-4 * c.small + slack;
    let (a, b) = (c.ba.placed(&PoseD::from_pose(&c.pa)), c.bb.placed(&PoseD::from_pose(&c.pb)));
    let ex = ExactCast::new(&a, d64(ta32), &b, d64(tb32), 1.0);
    let (min_sd, _) = ex.min_signed_distance();
    let hit = query::cast_shapes(&c.sa, &c.pa, ta32, &c.sb, &c.pb, tb32, &opts).unwrap();
    t.checked += 1;
    let what = || format!("ta {ta32:?} tb {tb32:?} target {target:e}: exact min {min_sd:e}; {hit:?}");
    let Some(h) = hit else {
        if min_sd < target - slack {
            t.fail("cast missed", idx, c, what());
        }
        return;
    };
    t.hits += 1;
    let f = h.fraction as f64;
    let sd = ex.signed_distance_at(f);
    t.worst_over_tolerance = t.worst_over_tolerance.max((sd - target) / (close - target));
    if sd > close {
        t.fail("cast stopped short", idx, c, format!("distance there {sd:e} > {close:e}; {}", what()));
    }
    if ex.first_within(target - slack).is_some_and(|l| f > l.fraction + 1e-7) {
        t.fail("cast late", idx, c, what());
    }
    if h.started_in_contact && ex.signed_distance_at(0.0) > close {
        t.fail("cast started in contact while apart", idx, c, what());
    }
}

fn check_toi(rng: &mut F64Rng, c: &Case, idx: usize, t: &mut Tally) {
    let (ta, tb) = translations(rng, c);
    let turn = |rng: &mut F64Rng| if rng.chance(0.5) { 0.0 } else { rng.range(-3.0, 3.0) as f32 };
    let end = |p: &Pose, d: DVec2, a: f32| {
        let q = if a == 0.0 { p.q } else { p.q.mul(&Rot::from_angle(a)).normalized() };
        Pose { p: v2(d64(p.p) + d), q }
    };
    let (sw_a, sw_b) = (Sweep::new(c.pa, end(&c.pa, ta, turn(rng))), Sweep::new(c.pb, end(&c.pb, tb, turn(rng))));
    let turning = sw_a.angle() != 0.0 || sw_b.angle() != 0.0;
    let motion = d64(sw_a.end.p - sw_a.start.p).length() + d64(sw_b.end.p - sw_b.start.p).length();
    let slack = 4e-6 * (c.scale + motion);
    let close = 1e-4 * c.small + slack;
    // The reference's sweeps turn as sapwood's do: not at all when `Sweep::angle` is 0.
    let exact_sweep = |sw: &Sweep| {
        let turned = SweepD::from_poses(&sw.start, &sw.end);
        if sw.angle() == 0.0 { SweepD::new(turned.start, turned.p1, 0.0) } else { turned }
    };
    let (xa, xb) = (exact_sweep(&sw_a), exact_sweep(&sw_b));
    // The distance at a fraction: on the exact sweep when nothing turns (the query translates
    // exactly), else at sapwood's own f32 poses, which the query evaluates.
    let sd_at = |f: f32| {
        let (pa, pb) = if turning {
            (PoseD::from_pose(&sw_a.at(f)), PoseD::from_pose(&sw_b.at(f)))
        } else {
            (xa.at(f as f64), xb.at(f as f64))
        };
        exact::signed_distance(&c.ba.placed(&pa), &c.bb.placed(&pb))
    };
    let late_slack = if turning { slack + 4e-6 * (d64(c.pa.p).length() + d64(c.pb.p).length()) } else { slack };
    let deep = exact::time_of_impact(&c.ba, &xa, &c.bb, &xb, 1.0, -2.0 * late_slack, late_slack, 20_000);
    let toi = query::time_of_impact(&c.sa, &sw_a, &c.sb, &sw_b, 1.0).unwrap();
    t.checked += 1;
    let what = || format!("{toi:?}; sweeps {sw_a:?} {sw_b:?}");
    let sd0 = sd_at(0.0);
    match toi.state {
        ToiState::Overlapping if sd0 > slack => {
            t.fail("overlapping while apart", idx, c, format!("{sd0:e}; {}", what()))
        }
        ToiState::Hit => {
            t.hits += 1;
            let sd = sd_at(toi.fraction);
            t.worst_over_tolerance = t.worst_over_tolerance.max(sd / close);
            if sd > close {
                t.fail("toi stopped short", idx, c, format!("distance there {sd:e} > {close:e}; {}", what()));
            }
        }
        ToiState::IterationLimit => t.fail("toi undecided", idx, c, what()),
        _ => {}
    }
    match deep {
        ExactToi::Within { fraction, .. } if toi.state == ToiState::Separated || toi.fraction as f64 > fraction => {
            t.fail("toi late or missed", idx, c, format!("exact contact by {fraction}; {}", what()))
        }
        _ => {}
    }
}

fn run(ka: Kind) {
    let mut t = Tally::default();
    for (k, &kb) in KINDS.iter().enumerate() {
        for i in 0..CASES_PER_PAIR {
            let idx = k * CASES_PER_PAIR + i;
            let mut rng =
                F64Rng::new(0x0FF5_E700 ^ (ka as u64) << 8 ^ (idx as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let c = random_case(&mut rng, ka, kb);
            check_cast(&mut rng, &c, idx, &mut t);
            check_toi(&mut rng, &c, idx, &mut t);
        }
    }
    println!(
        "{ka:?}: {} queries, {} hits, worst distance at a hit {:.2} of the tolerance",
        t.checked, t.hits, t.worst_over_tolerance
    );
    assert!(t.hits > t.checked / 10, "{ka:?}: too few hits ({} of {}) to mean anything", t.hits, t.checked);
    assert!(t.failures.is_empty(), "{ka:?}: {} failures, first:\n{}", t.failures.len(), t.failures.join("\n"));
}

#[test]
fn offset_circles() {
    run(Kind::Circle);
}
#[test]
fn offset_capsules() {
    run(Kind::Capsule);
}
#[test]
fn offset_segments() {
    run(Kind::Segment);
}
#[test]
fn offset_boxes() {
    run(Kind::Cuboid);
}
#[test]
fn offset_rounded_polygons() {
    run(Kind::Rounded);
}
#[test]
fn offset_polygons() {
    run(Kind::Polygon);
}
#[test]
fn offset_compounds() {
    run(Kind::Compound);
}

/// The reported case: a capsule whose core sits `off` from its pose's origin, cast at a box
/// (half-extents 0.5 × 5, and the 0.25 × 2.5 reading of "a 0.5 × 5 box"), stopped up to 1.7e-3
/// short; the tolerance is 1e-4 of the capsule's size.
#[test]
fn cast_from_an_offset_core_stops_within_the_size_tolerance() {
    for half in [Vec2::new(0.5, 5.0), Vec2::new(0.25, 2.5)] {
        let wall = Shape::cuboid(half).unwrap();
        let pb = Pose::from_translation(Vec2::new(3.0, 0.0));
        for off in OFFSETS {
            let off = off as f32;
            let capsule = Shape::capsule(Vec2::new(off, 0.0), Vec2::new(off, 0.1), 0.01).unwrap();
            let pa = Pose::from_translation(Vec2::new(-off, 0.0));
            let t = Vec2::new(5.0, 0.0);
            // Half the longer side of the capsule's box plus its radius, and the coordinates'
            // rounding (sizes, distance, motion).
            let tol = 1e-4 * 0.06 + 4e-6 * (0.06 + 5.0 + 3.0 + 5.0);
            let gap_at = |f: f32| {
                let at = PoseD { p: d64(pa.p) + d64(t) * f as f64, ..PoseD::from_pose(&pa) };
                let (a, b) = (Body::new(&capsule).placed(&at), Body::new(&wall).placed(&PoseD::from_pose(&pb)));
                exact::signed_distance(&a, &b)
            };
            let hit = query::cast_shapes(&capsule, &pa, t, &wall, &pb, Vec2::ZERO, &CastOptions::default())
                .unwrap()
                .expect("the capsule reaches the wall");
            let gap = gap_at(hit.fraction);
            assert!(!hit.started_in_contact, "{half} offset {off}: {hit:?}");
            assert!((0.0..=tol).contains(&gap), "{half} offset {off}: cast stopped {gap:e} short (tolerance {tol:e})");
            let sweep = Sweep::new(pa, Pose::from_translation(pa.p + t));
            let toi = query::time_of_impact(&capsule, &sweep, &wall, &Sweep::fixed(pb), 1.0).unwrap();
            let gap = gap_at(toi.fraction);
            assert_eq!(toi.state, ToiState::Hit, "{half} offset {off}");
            assert!((0.0..=tol).contains(&gap), "{half} offset {off}: toi stopped {gap:e} short (tolerance {tol:e})");
        }
    }
}

/// The reported phantom bullet: a thin box turning fast past a thin wall, never closer than
/// 3.1e-4, ran out of iterations at fraction 0.2077, which the step took for a hit.
fn phantom_sweep() -> (Pose, Pose, Pose) {
    let start = Pose { p: Vec2::new(43.115086, -25.401752), q: Rot { c: 0.7208603, s: 0.69308037 } };
    let end = Pose { p: Vec2::new(45.115055, -26.853825), q: Rot { c: 0.1750709, s: -0.98455584 } };
    let wall = Pose { p: Vec2::new(41.81417, -25.734352), q: Rot { c: -0.9901609, s: 0.13993384 } };
    (start, end, wall)
}

#[test]
fn an_iteration_limit_is_never_an_impact() {
    let (start, end, wall_pose) = phantom_sweep();
    // Half-extents as reported, and the full-size reading.
    for scale in [1.0, 0.5] {
        let bullet = Shape::cuboid(Vec2::new(0.5988, 0.00403) * scale).unwrap();
        let wall = Shape::cuboid(Vec2::new(1.7076526, 0.0025) * scale).unwrap();
        let sweep = Sweep::new(start, end);
        let toi = query::time_of_impact(&bullet, &sweep, &wall, &Sweep::fixed(wall_pose), 1.0).unwrap();
        assert_eq!(toi.state, ToiState::Separated, "scale {scale}: {toi:?}");

        let mut world = World::new();
        world.insert(ColliderDesc::new(wall.clone(), wall_pose).fixed()).unwrap();
        let id = world.insert(ColliderDesc::new(bullet.clone(), start).bullet()).unwrap();
        world.step();
        world.set_pose(id, end).unwrap();
        world.step();
        assert!(world.impacts().is_empty(), "scale {scale}: a phantom impact {:?}", world.impacts());
    }
}

/// The same sweep with the wall moved 1e-3 towards the bullet's path: now it does touch, and the
/// step reports the impact no later than the first contact (no tunnelling).
#[test]
fn the_phantom_sweep_hits_a_wall_in_its_way() {
    let (start, end, wall_pose) = phantom_sweep();
    let bullet = Shape::cuboid(Vec2::new(0.5988, 0.00403)).unwrap();
    let wall = Shape::cuboid(Vec2::new(1.7076526, 0.0025)).unwrap();
    let sweep = Sweep::new(start, end);
    let near = query::distance(&bullet, &sweep.at(0.2085), &wall, &wall_pose).unwrap();
    let moved = Pose { p: wall_pose.p - 1e-3 * near.normal, q: wall_pose.q };
    let (xa, xb) = (SweepD::from_poses(&start, &end), SweepD::new(PoseD::from_pose(&moved), d64(moved.p), 0.0));
    let (ba, bb) = (Body::new(&bullet), Body::new(&wall));
    let first = match exact::time_of_impact(&ba, &xa, &bb, &xb, 1.0, 0.0, 1e-6, 100_000) {
        ExactToi::Within { fraction, .. } => fraction,
        other => panic!("the moved wall is in the way: {other:?}"),
    };
    let mut world = World::new();
    let wall_id = world.insert(ColliderDesc::new(wall, moved).fixed()).unwrap();
    let id = world.insert(ColliderDesc::new(bullet, start).bullet()).unwrap();
    world.step();
    world.set_pose(id, end).unwrap();
    world.step();
    let hit = world.impacts().first().expect("the bullet hits the wall");
    assert_eq!(hit.other, wall_id);
    assert!(hit.fraction as f64 <= first + 1e-6 && hit.fraction as f64 > first - 0.01, "{hit:?} vs {first}");
}
