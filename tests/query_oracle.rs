//! The distance, linear-cast and time-of-impact queries against an exact `f64` reference and
//! against parry2d 0.31, on at least 100,000 random pairs per kind pair, plus named cases.
//!
//! **The reference** is `sapwood_support::exact_query`: distances from the shapes' convex cores
//! (vertex–edge minimum with a support-gap intersection test; the Minkowski difference for
//! depths), a linear cast by golden section and bisection on that distance (convex in the
//! fraction per part pair), and time of impact by sampling the signed distance along the sweep
//! at steps no longer than the distance-rate bound allows (so no touch hides between samples).
//! Its own hand cases and self-consistency test live beside it.
//!
//! **Kinds**: circle, capsule, box, polygon, rounded polygon and compound (2–4 random convex
//! parts), every unordered pair of them (21 tests, so the test harness spreads them over the
//! cores). Each case draws B around the touching distance from A (found with the reference's
//! cast) along a random direction, then perturbs it by `±size·10^-6` up to `±size` (near
//! touching), pushes it deep, or moves it clear; a fifth of the cases use axis-aligned rotations
//! and directions, which reach parallel edges. The same case then serves one distance query,
//! one cast and one time of impact. `SAPWOOD_ORACLE_CASES` changes the count per kind pair
//! (default 100,000); `SAPWOOD_ORACLE_CASE=<index>` runs one case and prints it.
//!
//! # Tolerances
//! Everything sapwood computes is `f32`: a coordinate of magnitude `m` carries a rounding of
//! `m · 2^-24 ≈ 6e-8 m`, and a distance comes out of a few dozen such operations on the poses
//! and shape coordinates. So distances are compared within
//! `SLACK = 4e-6 · (|p_a| + |p_b| + size_a + size_b)`, about 32 roundings of the largest
//! magnitude involved, where `size` is the bounding radius.
//!
//! The cast and the time of impact document where they stop: the distance at the reported
//! fraction lies between the target and the target plus a tolerance of `1e-4` times the smaller
//! shape's size (plus coordinate rounding), and never past the first contact. The checks are in
//! distance, not in fraction (a fraction is ill-conditioned for a grazing approach):
//! - *close*: the reference's signed distance at the reported fraction (at sapwood's own f32
//!   poses for a sweep) is at most `target + 1e-4 · min(size) + SLACK`;
//! - *not late*: the reference finds no earlier fraction where the signed distance is below
//!   `target - SLACK` (for a sweep: no earlier sample at or below `-SLACK`, searched down to
//!   `-2 SLACK`);
//! - *`None` / `Separated`*: only when the reference's minimum over the range stays above
//!   `target - SLACK` (for a sweep: no sample reaches `-SLACK`); `Some` required when the
//!   reference's minimum is below `target - SLACK`. In between both answers are accepted and
//!   counted as *in band*.
//!
//! Normals are checked by what they promise, not against one direction (a vertex touching a
//! vertex has a cone of valid normals): a distance's normal is `(point_b - point_a) / distance`,
//! which is unique for a convex part pair, so it is compared with the reference's for the part
//! pair reported, within `2 SLACK / min(distance, shortest edge of the two parts) + 1e-5` (an
//! f32 direction carries the rounding of the points it is computed from over their distance);
//! a cast's normal must separate the hit parts at the hit up to a gap deficit of `1e-3 · size`
//! and, where the shapes cross the target (not a graze), oppose the relative motion.
//!
//! # parry2d
//! parry answers the same questions (`distance`, `closest_points`, `cast_shapes`,
//! `cast_shapes_nonlinear`) and is scored against the same reference with a band of
//! `1e-4 · size + SLACK` — never excluded, never failing the test: its misses are counted and
//! printed per kind pair (`--nocapture`). sapwood is also compared with parry where parry
//! agrees with the reference.

use glam::DVec2;
use parry2d::math as pm;
use parry2d::query as pq;
use sapwood::query::{self, CastHit, CastOptions, QueryError, Sweep, Toi, ToiState};
use sapwood::{Pose, Rot, Shape, Vec2};
use sapwood_support::exact_query::{
    self as exact, Body, Core, ExactCast, ExactToi, PoseD, SweepD, d64, point_signed_distance,
};
use sapwood_support::f64_rng::F64Rng;
use sapwood_support::parry_shapes::{parry_pose, to_parry};
use sapwood_support::random_shapes::{random_hull, v2};

// ---------------------------------------------------------------------------------------------
// Shapes

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Circle,
    Capsule,
    Cuboid,
    Polygon,
    Rounded,
    Compound,
    /// A bare segment half the time, else a thinly rounded one, through the local origin.
    Segment,
}

const CONVEX: [Kind; 5] = [Kind::Circle, Kind::Capsule, Kind::Cuboid, Kind::Polygon, Kind::Rounded];

/// A random convex shape of `size` (about its bounding radius) holding its local origin.
fn random_convex(rng: &mut F64Rng, kind: Kind, size: f64) -> Shape {
    let s32 = size as f32;
    match kind {
        Kind::Circle => Shape::circle(s32).unwrap(),
        Kind::Capsule => {
            let half = size * rng.range(0.1, 1.0);
            let radius = size * rng.range(0.02, 0.6);
            let d = if rng.chance(0.3) { DVec2::X } else { rng.dir() };
            let off = rng.dir() * radius * rng.range(0.0, 0.5);
            Shape::capsule(v2(off - d * half), v2(off + d * half), radius as f32).unwrap()
        }
        Kind::Cuboid => {
            Shape::cuboid(Vec2::new(s32 * rng.range(0.02, 1.0) as f32, s32 * rng.range(0.05, 1.0) as f32)).unwrap()
        }
        Kind::Polygon => {
            if rng.chance(0.1) {
                Shape::from(sapwood::Polygon::regular(3 + rng.below(6) as usize, s32, 0.0).unwrap())
            } else {
                random_hull(rng, size, 0.0)
            }
        }
        Kind::Rounded => {
            let r = (size * rng.log_range(0.005, 0.5)) as f32;
            if rng.chance(0.5) {
                let h = Vec2::new(s32 * rng.range(0.05, 1.0) as f32, s32 * rng.range(0.05, 1.0) as f32);
                Shape::rounded_box(h, r).unwrap()
            } else {
                random_hull(rng, size, r)
            }
        }
        Kind::Segment => {
            let half = size * rng.range(0.1, 1.0);
            let radius = if rng.chance(0.5) { 0.0 } else { size * rng.range(0.01, 0.3) };
            let d = if rng.chance(0.3) { DVec2::X } else { rng.dir() };
            Shape::rounded_segment(v2(-d * half), v2(d * half), radius as f32).unwrap()
        }
        Kind::Compound => unreachable!(),
    }
}

fn random_shape(rng: &mut F64Rng, kind: Kind) -> Shape {
    let size = rng.log_range(0.05, 5.0);
    if kind != Kind::Compound {
        return random_convex(rng, kind, size);
    }
    // 2–4 parts; the first at the origin (so the compound holds its local origin), the others
    // around it, overlapping or apart.
    let n = 2 + rng.below(3) as usize;
    let parts = (0..n)
        .map(|i| {
            let k = CONVEX[rng.below(5) as usize];
            let part_size = size * rng.range(0.2, 0.6);
            let p = if i == 0 { DVec2::ZERO } else { rng.dir() * size * rng.range(0.2, 0.8) };
            let q = Rot::from_angle(rng.range(-3.2, 3.2) as f32);
            (Pose { p: v2(p), q }, random_convex(rng, k, part_size))
        })
        .collect();
    Shape::compound(parts).unwrap()
}

fn size_of(s: &Shape) -> f64 {
    s.bounding_radius() as f64
}

fn random_rot(rng: &mut F64Rng, aligned: bool) -> Rot {
    if aligned {
        [Rot::IDENTITY, Rot { c: 0.0, s: 1.0 }, Rot { c: -1.0, s: 0.0 }, Rot { c: 0.0, s: -1.0 }][rng.below(4) as usize]
    } else {
        Rot::from_angle(rng.range(-std::f64::consts::PI, std::f64::consts::PI) as f32)
    }
}

// ---------------------------------------------------------------------------------------------
// Cases

/// One random pair, with the reference's view of both shapes.
struct Case {
    sa: Shape,
    pa: Pose,
    sb: Shape,
    pb: Pose,
    body_a: Body,
    body_b: Body,
    /// Larger and smaller bounding radius.
    size: f64,
    small: f64,
    aligned: bool,
}

impl Case {
    fn new(sa: Shape, pa: Pose, sb: Shape, pb: Pose, aligned: bool) -> Case {
        let (body_a, body_b) = (Body::new(&sa), Body::new(&sb));
        let (za, zb) = (size_of(&sa), size_of(&sb));
        Case { sa, pa, sb, pb, body_a, body_b, size: za.max(zb), small: za.min(zb), aligned }
    }

    /// The distance tolerance for coordinates up to `extra` beyond the poses (see the module
    /// docs).
    fn slack(&self, extra: f64) -> f64 {
        let m = d64(self.pa.p).abs().max_element() + d64(self.pb.p).abs().max_element();
        4e-6 * (m + extra + size_of(&self.sa) + size_of(&self.sb))
    }

    fn placed(&self) -> (Vec<Core>, Vec<Core>) {
        (self.body_a.placed(&PoseD::from_pose(&self.pa)), self.body_b.placed(&PoseD::from_pose(&self.pb)))
    }

    fn describe(&self) -> String {
        format!("A = {:?} at {:?}\n  B = {:?} at {:?}", self.sa, self.pa, self.sb, self.pb)
    }
}

/// A random pair of kinds `ka`, `kb`, B around the touching distance from A.
fn random_case(rng: &mut F64Rng, ka: Kind, kb: Kind) -> Case {
    let sa = random_shape(rng, ka);
    let sb = random_shape(rng, kb);
    let aligned = rng.chance(0.2);
    let pa = Pose {
        p: v2(DVec2::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0))),
        q: if aligned && rng.chance(0.5) { Rot::IDENTITY } else { random_rot(rng, aligned) },
    };
    let qb = random_rot(rng, aligned);
    let u = if aligned && rng.chance(0.5) {
        [DVec2::X, DVec2::Y, -DVec2::X, -DVec2::Y][rng.below(4) as usize]
    } else {
        rng.dir()
    };
    // The touching distance along u: B cast from far out back onto A's position (both hold
    // their local origins, so the cast hits).
    let (ba, bb) = (Body::new(&sa), Body::new(&sb));
    let far = 2.0 * (size_of(&sa) + size_of(&sb)) + 1.0;
    let pa64 = d64(pa.p);
    let a_cores = ba.placed(&PoseD::from_pose(&pa));
    let b_cores = bb.placed(&PoseD { p: pa64 + u * far, c: qb.c as f64, s: qb.s as f64 });
    let hit = ExactCast::new(&a_cores, DVec2::ZERO, &b_cores, -u * far, 1.0).first_within(0.0);
    let t_touch = far * (1.0 - hit.map_or(1.0, |h| h.fraction));
    let size = size_of(&sa).max(size_of(&sb));
    let roll = rng.unit();
    let t = if roll < 0.05 {
        t_touch
    } else if roll < 0.70 {
        let sign = if rng.chance(0.5) { 1.0 } else { -1.0 };
        t_touch + sign * size * rng.log_range(1e-6, 1.0)
    } else if roll < 0.85 {
        t_touch * rng.unit()
    } else {
        t_touch + size * rng.range(0.01, 3.0)
    };
    Case::new(sa, pa, sb, Pose { p: v2(pa64 + u * t.max(0.0)), q: qb }, aligned)
}

// ---------------------------------------------------------------------------------------------
// Statistics

#[derive(Default)]
struct Stats {
    cases: usize,
    separated: usize,
    overlapping: usize,
    in_band: usize,
    max_dist_err: f64,
    max_normal_err: f64,
    swap_bit_exact: usize,
    casts_hit: usize,
    casts_started_in_contact: usize,
    casts_in_band: usize,
    cast_close_over_tol: f64,
    tois: [usize; 4],
    tois_in_band: usize,
    toi_undecided: usize,
    toi_samples: usize,
    toi_close_over_tol: f64,
    parry: ParryStats,
    failures: Vec<String>,
    failure_kinds: std::collections::BTreeMap<&'static str, usize>,
}

#[derive(Default)]
struct ParryStats {
    distance: usize,
    closest_points: usize,
    cast_missed: usize,
    cast_spurious: usize,
    cast_far: usize,
    cast_late: usize,
    toi_missed: usize,
    toi_far: usize,
    toi_late: usize,
    sapwood_beyond_band: usize,
}

impl Stats {
    fn fail(&mut self, kind: &'static str, case: usize, msg: String) {
        *self.failure_kinds.entry(kind).or_default() += 1;
        if self.failures.len() < 12 {
            self.failures.push(format!("case {case}: {kind}: {msg}"));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Distance

fn check_distance(c: &Case, idx: usize, st: &mut Stats) {
    let (a, b) = c.placed();
    let ex = exact::distance_placed(&a, &b);
    let sd = exact::signed_distance(&a, &b);
    let slack = c.slack(0.0);
    let out = match query::distance(&c.sa, &c.pa, &c.sb, &c.pb) {
        Ok(o) => o,
        Err(e) => return st.fail("distance error", idx, format!("{e:?}")),
    };
    let rev = query::distance(&c.sb, &c.pb, &c.sa, &c.pa).unwrap();
    let d = out.distance as f64;
    let err = (d - ex.distance).abs();
    st.max_dist_err = st.max_dist_err.max(err / slack);
    if err > slack || !d.is_finite() {
        st.fail("distance value", idx, format!("{d:e} vs exact {:e} (slack {slack:e})", ex.distance));
    }
    if (rev.distance as f64 - d).abs() > slack {
        st.fail("distance swap", idx, format!("{} reversed vs {}", rev.distance, out.distance));
    }
    st.swap_bit_exact += (rev.distance.to_bits() == out.distance.to_bits()) as usize;
    let (pa, pb, n) = (d64(out.point_a), d64(out.point_b), d64(out.normal));
    if ex.distance > slack {
        st.separated += 1;
        if (n.length() - 1.0).abs() > 1e-5 {
            st.fail("distance normal not unit", idx, format!("{n:?}"));
        }
        // The reported parts must attain the distance; their normal is the one to match (a
        // compound may have several part pairs at the same distance, each with its own normal;
        // for convex shapes it is the unique minimum direction).
        let pair = |i: u32, j: u32, a: &[Core], b: &[Core]| match (a.get(i as usize), b.get(j as usize)) {
            (Some(ca), Some(cb)) => Some(exact::pair_distance(ca, cb)),
            _ => None,
        };
        let Some(p) = pair(out.part_a, out.part_b, &a, &b).filter(|p| (p.distance - d).abs() <= slack) else {
            return st.fail("distance parts", idx, format!("parts ({}, {}) do not attain {d}", out.part_a, out.part_b));
        };
        // The normal carries the rounding of the points it comes from over their distance: of
        // the closest points over the distance, or of an edge's end points over its length.
        let (ca, cb) = (&a[out.part_a as usize], &b[out.part_b as usize]);
        let nerr = (n - p.normal).length();
        let ntol = 2.0 * slack / ex.distance.min(shortest_edge(ca)).min(shortest_edge(cb)) + 1e-5;
        st.max_normal_err = st.max_normal_err.max(nerr / ntol);
        if nerr > ntol {
            st.fail("distance normal", idx, format!("{n:?} vs exact {:?} at distance {:e}", p.normal, ex.distance));
        }
        let (ea, eb) = (point_signed_distance(&a, pa), point_signed_distance(&b, pb));
        if ea.abs() > slack || eb.abs() > slack {
            st.fail("distance points off the surfaces", idx, format!("A's point by {ea:e}, B's by {eb:e}"));
        }
        if ((pb - pa) - n * d).length() > slack {
            st.fail("distance points not distance·normal apart", idx, format!("{pa:?} {pb:?} {n:?} {d}"));
        }
        let rev_tol = |i: u32, j: u32| {
            let (ca, cb) = (&a[i as usize], &b[j as usize]);
            2.0 * slack / ex.distance.min(shortest_edge(ca)).min(shortest_edge(cb)) + 1e-5
        };
        match pair(rev.part_b, rev.part_a, &a, &b) {
            Some(p) if (d64(rev.normal) + p.normal).length() <= rev_tol(rev.part_b, rev.part_a) => {}
            _ => st.fail("distance swap normal", idx, format!("{:?} reversed vs {n:?}", rev.normal)),
        }
    } else if sd < -slack {
        st.overlapping += 1;
        if out.distance != 0.0 {
            st.fail("distance of overlapping shapes not 0", idx, format!("{} (depth {:e})", out.distance, -sd));
        }
        // A point both shapes hold.
        let (ea, eb) = (point_signed_distance(&a, pa), point_signed_distance(&b, pa));
        if out.point_a != out.point_b || ea > slack || eb > slack {
            st.fail("distance overlap point", idx, format!("{pa:?}/{pb:?}: outside A by {ea:e}, B by {eb:e}"));
        }
        if n != DVec2::ZERO && (n.length() - 1.0).abs() > 1e-5 {
            st.fail("distance overlap normal neither zero nor unit", idx, format!("{n:?}"));
        }
    } else {
        st.in_band += 1;
    }

    // parry, scored against the reference.
    let (qa, qb) = (to_parry(&c.sa), to_parry(&c.sb));
    let (ppa, ppb) = (parry_pose(&c.pa), parry_pose(&c.pb));
    let band = 1e-4 * c.size + slack;
    let dp = pq::distance(&ppa, &*qa, &ppb, &*qb).expect("parry supports every pair").distance as f64;
    let parry_ok = (dp - ex.distance).abs() <= band;
    st.parry.distance += !parry_ok as usize;
    if parry_ok && (dp - d).abs() > 2.0 * band {
        st.parry.sapwood_beyond_band += 1;
        st.fail("distance vs parry", idx, format!("sapwood {d:e}, parry {dp:e}, exact {:e}", ex.distance));
    }
    if ex.distance > band {
        match pq::closest_points(&ppa, &*qa, &ppb, &*qb, f32::MAX).expect("supported") {
            pq::ClosestPoints::WithinMargin(p1, p2) => {
                let e1 = point_signed_distance(&a, DVec2::new(p1.x as f64, p1.y as f64)).abs();
                let e2 = point_signed_distance(&b, DVec2::new(p2.x as f64, p2.y as f64)).abs();
                st.parry.closest_points += (e1 > band || e2 > band) as usize;
            }
            _ => st.parry.closest_points += 1,
        }
    }
}

/// The length of a core's shortest edge (infinite for a point).
fn shortest_edge(c: &Core) -> f64 {
    let v = c.vertices();
    if v.len() < 2 {
        return f64::INFINITY;
    }
    (0..v.len()).map(|i| (v[(i + 1) % v.len()] - v[i]).length()).fold(f64::INFINITY, f64::min)
}

// ---------------------------------------------------------------------------------------------
// Linear casts

/// The smallest support gap of two cores along `n` (B's lowest point minus A's highest, less
/// both radii): the signed distance along that normal.
fn gap_along(a: &Core, b: &Core, n: DVec2) -> f64 {
    let max_a = a.vertices().iter().map(|v| v.dot(n)).fold(f64::NEG_INFINITY, f64::max);
    let min_b = b.vertices().iter().map(|v| v.dot(n)).fold(f64::INFINITY, f64::min);
    min_b - max_a - a.radius - b.radius
}

/// The case with B moved away from A along the line of their positions, with probability `p`.
fn pushed(rng: &mut F64Rng, c: &Case, p: f64) -> Case {
    if !rng.chance(p) {
        return Case::new(c.sa.clone(), c.pa, c.sb.clone(), c.pb, c.aligned);
    }
    let away = (d64(c.pb.p) - d64(c.pa.p)).try_normalize().unwrap_or_else(|| rng.dir());
    let pb = Pose { p: v2(d64(c.pb.p) + away * c.size * rng.log_range(0.01, 2.0)), q: c.pb.q };
    Case::new(c.sa.clone(), c.pa, c.sb.clone(), pb, c.aligned)
}

fn random_translations(rng: &mut F64Rng, c: &Case) -> (Vec2, Vec2) {
    let towards = d64(c.pa.p) - d64(c.pb.p);
    let reach = c.size * rng.range(0.5, 4.0);
    let roll = rng.unit();
    let (ta, tb) = if roll < 0.05 {
        (DVec2::ZERO, DVec2::ZERO)
    } else if roll < 0.55 {
        // B aimed at A, with a sideways miss up to its size.
        let side = towards.perp().normalize_or_zero() * c.size * rng.range(-1.5, 1.5);
        (DVec2::ZERO, towards * rng.range(0.5, 2.5) + side)
    } else if roll < 0.75 {
        // A aimed at B.
        (-towards * rng.range(0.5, 2.5), DVec2::ZERO)
    } else {
        (rng.dir() * reach, rng.dir() * reach * rng.unit())
    };
    let (ta, tb) = if c.aligned { (axis_snap(ta), axis_snap(tb)) } else { (ta, tb) };
    (v2(ta), v2(tb))
}

/// The vector along its major axis (parallel-edge approaches).
fn axis_snap(v: DVec2) -> DVec2 {
    if v.x.abs() >= v.y.abs() { DVec2::new(v.x, 0.0) } else { DVec2::new(0.0, v.y) }
}

fn random_cast_options(rng: &mut F64Rng, size: f64) -> CastOptions {
    let target_distance = if rng.chance(0.6) { 0.0 } else { (size * rng.log_range(1e-4, 0.3)) as f32 };
    let roll = rng.unit();
    let max_fraction = if roll < 0.6 {
        1.0
    } else if roll < 0.9 {
        rng.range(0.0, 1.0) as f32
    } else {
        rng.range(1.0, 3.0) as f32
    };
    CastOptions { max_fraction, target_distance }
}

fn check_cast(c: &Case, ta: Vec2, tb: Vec2, opts: &CastOptions, idx: usize, st: &mut Stats) {
    let (a, b) = c.placed();
    let max = opts.max_fraction as f64;
    let target = opts.target_distance as f64;
    let motion = (d64(ta).length() + d64(tb).length()) * max;
    let slack = c.slack(motion);
    let close = target + 1e-4 * c.small + slack;
    let ex = ExactCast::new(&a, d64(ta), &b, d64(tb), max);
    let (min_sd, _) = ex.min_signed_distance();
    let sd0 = ex.signed_distance_at(0.0);
    let late_limit = ex.first_within(target - slack).map(|h| h.fraction);
    let hit = match query::cast_shapes(&c.sa, &c.pa, ta, &c.sb, &c.pb, tb, opts) {
        Ok(h) => h,
        Err(e) => return st.fail("cast error", idx, format!("{e:?}")),
    };
    let must_hit = min_sd < target - slack;
    let must_miss = min_sd > close;
    st.casts_in_band += (!must_hit && !must_miss) as usize;
    let what = || format!("ta {ta:?} tb {tb:?} {opts:?}: exact min {min_sd:e} at start {sd0:e}");
    match hit {
        None if must_hit => st.fail("cast missed", idx, what()),
        None => {}
        Some(_) if must_miss => st.fail("cast hit nothing", idx, format!("{hit:?}; {}", what())),
        Some(h) => {
            st.casts_hit += 1;
            st.casts_started_in_contact += h.started_in_contact as usize;
            check_cast_hit(&a, &b, &ex, &h, (ta, tb), opts, (slack, close, c.size), late_limit, must_hit, idx, st);
        }
    }
    if sd0 < target - slack && hit.is_some_and(|h| !h.started_in_contact) {
        st.fail("cast started in contact but not flagged", idx, format!("{hit:?}; {}", what()));
    }

    // parry on the same cast.
    let (qa, qb) = (to_parry(&c.sa), to_parry(&c.sb));
    let options = pq::ShapeCastOptions {
        max_time_of_impact: opts.max_fraction,
        target_distance: opts.target_distance,
        stop_at_penetration: true,
        compute_impact_geometry_on_penetration: true,
    };
    let pv = |v: Vec2| pm::Vector::new(v.x, v.y);
    let band = 1e-4 * c.size + slack;
    let ph = pq::cast_shapes(&parry_pose(&c.pa), pv(ta), &*qa, &parry_pose(&c.pb), pv(tb), &*qb, options)
        .expect("parry supports every pair");
    match ph {
        None => st.parry.cast_missed += (min_sd < target - band) as usize,
        Some(p) => {
            let f = p.time_of_impact as f64;
            if min_sd > target + band {
                st.parry.cast_spurious += 1;
            } else if ex.signed_distance_at(f) > target + band {
                st.parry.cast_far += 1;
            } else if ex.first_within(target - band).is_some_and(|h| h.fraction < f) {
                st.parry.cast_late += 1;
            }
        }
    }
}

/// A cast hit: in range, close to the target, not late, a normal that separates the hit parts
/// (and opposes the motion unless the approach only grazes), the point midway.
#[allow(clippy::too_many_arguments)]
fn check_cast_hit(
    a: &[Core],
    b: &[Core],
    ex: &ExactCast,
    h: &CastHit,
    (ta, tb): (Vec2, Vec2),
    opts: &CastOptions,
    (slack, close, size): (f64, f64, f64),
    late_limit: Option<f64>,
    crossing: bool,
    idx: usize,
    st: &mut Stats,
) {
    let f = h.fraction as f64;
    let target = opts.target_distance as f64;
    let what = || format!("hit {h:?}; ta {ta:?} tb {tb:?} {opts:?}");
    if !(0.0..=opts.max_fraction as f64).contains(&f) {
        return st.fail("cast fraction out of range", idx, what());
    }
    if h.started_in_contact && h.fraction != 0.0 {
        st.fail("cast started in contact at a fraction > 0", idx, what());
    }
    let sd = ex.signed_distance_at(f);
    st.cast_close_over_tol = st.cast_close_over_tol.max((sd - target) / (close - target));
    if sd > close {
        st.fail("cast stopped short", idx, format!("exact distance there {sd:e} > {close:e}; {}", what()));
    }
    if let Some(limit) = late_limit
        && f > limit + 1e-7 * f.max(1.0)
    {
        st.fail("cast late", idx, format!("exact distance falls to target - slack at {limit}; {}", what()));
    }
    let n = d64(h.normal);
    if h.started_in_contact {
        if n != DVec2::ZERO && (n.length() - 1.0).abs() > 1e-4 {
            st.fail("cast normal neither zero nor unit", idx, what());
        }
        return;
    }
    if (n.length() - 1.0).abs() > 1e-4 {
        return st.fail("cast normal not unit", idx, what());
    }
    // Where the shapes cross the target the distance is falling at the first fraction within
    // the tolerance; a graze may stop just past its closest approach.
    let relative = d64(tb) - d64(ta);
    if crossing && relative.dot(n) > 1e-3 * relative.length() {
        st.fail("cast normal along the motion", idx, what());
    }
    // At the hit the normal separates the hit parts (up to a small gap deficit).
    let moved = |cores: &[Core], t: Vec2| -> Vec<Core> {
        let shift = d64(t) * f;
        let body_pose = PoseD { p: shift, c: 1.0, s: 0.0 };
        cores.iter().map(|k| k.transformed(&body_pose)).collect()
    };
    let (ah, bh) = (moved(a, ta), moved(b, tb));
    let (i, j) = (h.part_a as usize, h.part_b as usize);
    let (Some(pa), Some(pb)) = (ah.get(i), bh.get(j)) else {
        return st.fail("cast parts out of range", idx, what());
    };
    let gap = gap_along(pa, pb, n);
    let pair_sd = exact::pair_signed_distance(pa, pb);
    if pair_sd > close {
        st.fail("cast parts do not touch", idx, format!("pair distance {pair_sd:e}; {}", what()));
    }
    if gap < pair_sd - 1e-3 * size - slack {
        st.fail("cast normal does not separate", idx, format!("gap {gap:e} vs distance {pair_sd:e}; {}", what()));
    }
    // The point is midway between the closest points.
    let p = d64(h.point);
    let half = 0.5 * sd.max(0.0);
    let (ea, eb) = (point_signed_distance(&ah, p), point_signed_distance(&bh, p));
    let small_tol = close - target - slack;
    if (ea - half).abs() > 2.0 * slack + small_tol || (eb - half).abs() > 2.0 * slack + small_tol {
        st.fail("cast point not midway", idx, format!("{ea:e} from A, {eb:e} from B, half gap {half:e}; {}", what()));
    }
}

// ---------------------------------------------------------------------------------------------
// Time of impact

/// Sample budget of the reference per sweep: a grazing approach needs many short steps.
const TOI_SAMPLES: usize = 20_000;

fn random_sweeps(rng: &mut F64Rng, c: &Case) -> (Sweep, Sweep, f32) {
    let (ta, tb) = random_translations(rng, c);
    let turn = |rng: &mut F64Rng| {
        let roll = rng.unit();
        if roll < 0.3 {
            0.0
        } else if roll < 0.8 {
            rng.range(-1.0, 1.0)
        } else {
            rng.range(-3.1, 3.1)
        }
    };
    let end = |p: &Pose, t: Vec2, da: f64| Pose { p: p.p + t, q: p.q.mul(&Rot::from_angle(da as f32)).normalized() };
    let (da, db) = (turn(rng), turn(rng));
    let max = if rng.chance(0.8) { 1.0 } else { rng.range(0.0, 1.0) as f32 };
    (Sweep::new(c.pa, end(&c.pa, ta, da)), Sweep::new(c.pb, end(&c.pb, tb, db)), max)
}

fn check_toi(c: &Case, sw_a: &Sweep, sw_b: &Sweep, max: f32, idx: usize, st: &mut Stats) {
    let (xa, xb) = (SweepD::from_poses(&sw_a.start, &sw_a.end), SweepD::from_poses(&sw_b.start, &sw_b.end));
    let motion = d64(sw_a.end.p - sw_a.start.p).length() + d64(sw_b.end.p - sw_b.start.p).length();
    let slack = c.slack(motion);
    let close = 1e-4 * c.small + slack;
    let toi = match query::time_of_impact(&c.sa, sw_a, &c.sb, sw_b, max) {
        Ok(t) => t,
        Err(e) => return st.fail("toi error", idx, format!("{e:?}")),
    };
    st.tois[toi.state as usize] += 1;
    let what = |toi: &Toi| format!("{toi:?}; sweeps {sw_a:?} {sw_b:?} max {max}");
    let sd_at = |t: f32| {
        let (pa, pb) = (PoseD::from_pose(&sw_a.at(t)), PoseD::from_pose(&sw_b.at(t)));
        exact::signed_distance(&c.body_a.placed(&pa), &c.body_b.placed(&pb))
    };
    let sd0 = sd_at(0.0);
    // The first sample at or below -slack, the shapes having stayed above -2 slack before.
    let deep = exact::time_of_impact(&c.body_a, &xa, &c.body_b, &xb, max as f64, -2.0 * slack, slack, TOI_SAMPLES);
    let first_deep = match deep {
        ExactToi::Within { fraction, samples, .. } => {
            st.toi_samples += samples;
            Some(fraction)
        }
        ExactToi::Separated { samples, .. } => {
            st.toi_samples += samples;
            None
        }
        ExactToi::Undecided { fraction } => {
            st.toi_undecided += 1;
            // Cleared up to `fraction`: judge only what lies before it.
            if toi.state == ToiState::Separated || toi.fraction as f64 > fraction {
                return;
            }
            None
        }
    };
    if sd0 < -slack && toi.state != ToiState::Overlapping {
        st.fail("toi overlapping at start not reported", idx, format!("start distance {sd0:e}; {}", what(&toi)));
    }
    if sd0 > slack && toi.state == ToiState::Overlapping {
        st.fail("toi overlapping reported for apart shapes", idx, format!("start distance {sd0:e}; {}", what(&toi)));
    }
    match toi.state {
        ToiState::Overlapping => {
            if toi.fraction != 0.0 {
                st.fail("toi overlapping at a fraction > 0", idx, what(&toi));
            }
        }
        ToiState::Separated => {
            if let Some(t) = first_deep {
                st.fail(
                    "toi separated but the shapes touch",
                    idx,
                    format!("exact depth {slack:e} at {t}; {}", what(&toi)),
                );
            }
            if let ExactToi::Separated { min_sampled, .. } = deep {
                st.tois_in_band += (min_sampled <= close) as usize;
            }
        }
        ToiState::Hit | ToiState::IterationLimit => {
            let f = toi.fraction;
            if !(0.0..=max).contains(&f) {
                return st.fail("toi fraction out of range", idx, what(&toi));
            }
            if let Some(t) = first_deep
                && f as f64 > t
            {
                st.fail("toi late", idx, format!("exact depth {slack:e} already at {t}; {}", what(&toi)));
            }
            if toi.state == ToiState::Hit {
                let sd = sd_at(f);
                st.toi_close_over_tol = st.toi_close_over_tol.max(sd / close);
                if sd > close {
                    st.fail(
                        "toi hit while apart",
                        idx,
                        format!("exact distance there {sd:e} > {close:e}; {}", what(&toi)),
                    );
                }
                let n = d64(toi.normal);
                if n != DVec2::ZERO && (n.length() - 1.0).abs() > 1e-4 {
                    st.fail("toi normal neither zero nor unit", idx, what(&toi));
                }
            }
        }
    }

    // parry's nonlinear cast on the same sweeps (rotation about the pose origin).
    let (qa, qb) = (to_parry(&c.sa), to_parry(&c.sb));
    let motion = |sw: &Sweep, x: &SweepD| {
        let lin = sw.end.p - sw.start.p;
        pq::NonlinearRigidMotion::new(
            parry_pose(&sw.start),
            pm::Vector::ZERO,
            pm::Vector::new(lin.x, lin.y),
            x.da as f32,
        )
    };
    let band = 1e-4 * c.size + slack;
    let ph = pq::cast_shapes_nonlinear(&motion(sw_a, &xa), &*qa, &motion(sw_b, &xb), &*qb, 0.0, max, true)
        .expect("parry supports every pair");
    match ph {
        None => st.parry.toi_missed += first_deep.is_some() as usize,
        Some(p) => {
            let f = p.time_of_impact;
            if sd_at(f) > band + 1e-4 * c.small {
                st.parry.toi_far += 1;
            } else if first_deep.is_some_and(|t| f as f64 > t) {
                st.parry.toi_late += 1;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Driver

fn case_count() -> usize {
    std::env::var("SAPWOOD_ORACLE_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000)
}

fn run_pair(ka: Kind, kb: Kind) {
    let only: Option<usize> = std::env::var("SAPWOOD_ORACLE_CASE").ok().and_then(|s| s.parse().ok());
    let mut st = Stats::default();
    let seed = 0x5EED_0000 + (ka as u64) * 16 + kb as u64;
    let n = case_count();
    let start = std::time::Instant::now();
    for idx in only.map_or(0..n, |i| i..i + 1) {
        // One generator per case, so that a case reruns on its own.
        let mut rng = F64Rng::new(seed ^ (idx as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let c = random_case(&mut rng, ka, kb);
        // The cast and the sweep mostly start apart: B is pushed away from A first.
        let cc = pushed(&mut rng, &c, 0.6);
        let (ta, tb) = random_translations(&mut rng, &cc);
        let opts = random_cast_options(&mut rng, c.size);
        let ct = pushed(&mut rng, &c, 0.7);
        let (sw_a, sw_b, max) = random_sweeps(&mut rng, &ct);
        if only.is_some() {
            println!("distance: {}", c.describe());
            println!("cast: {}\n  ta {ta:?} tb {tb:?} {opts:?}", cc.describe());
            println!("sweeps: {sw_a:?} {sw_b:?} max {max}");
        }
        st.cases += 1;
        check_distance(&c, idx, &mut st);
        check_cast(&cc, ta, tb, &opts, idx, &mut st);
        check_toi(&ct, &sw_a, &sw_b, max, idx, &mut st);
    }
    let p = &st.parry;
    println!(
        "{ka:?}-{kb:?}: {} cases in {:.1} s (seed {seed:#x})\n  distance: {} separated, {} overlapping, {} in band; \
         max error {:.3} of the slack, max normal error {:.3} of its tolerance; swap bit-exact {}\n  \
         cast: {} hits ({} started in contact), {} in band; worst distance at hit {:.2} of the tolerance\n  \
         toi: hit {}, separated {}, overlapping {}, iteration limit {}; {} separated within the band, \
         reference undecided {}, {:.1} samples per sweep; worst distance at hit {:.2} of the tolerance\n  \
         parry misses: distance {}, closest points {}, cast missed {} / spurious {} / stopped short {} / late {}, \
         toi missed {} / stopped short {} / late {}; sapwood beyond the band where parry is right {}",
        st.cases,
        start.elapsed().as_secs_f64(),
        st.separated,
        st.overlapping,
        st.in_band,
        st.max_dist_err,
        st.max_normal_err,
        st.swap_bit_exact,
        st.casts_hit,
        st.casts_started_in_contact,
        st.casts_in_band,
        st.cast_close_over_tol,
        st.tois[ToiState::Hit as usize],
        st.tois[ToiState::Separated as usize],
        st.tois[ToiState::Overlapping as usize],
        st.tois[ToiState::IterationLimit as usize],
        st.tois_in_band,
        st.toi_undecided,
        st.toi_samples as f64 / st.cases as f64,
        st.toi_close_over_tol,
        p.distance,
        p.closest_points,
        p.cast_missed,
        p.cast_spurious,
        p.cast_far,
        p.cast_late,
        p.toi_missed,
        p.toi_far,
        p.toi_late,
        p.sapwood_beyond_band,
    );
    for (k, n) in &st.failure_kinds {
        println!("  FAIL {k}: {n}");
    }
    assert!(
        st.failures.is_empty(),
        "{ka:?}-{kb:?}: {} failures (rerun one with SAPWOOD_ORACLE_CASE=<index> --nocapture):\n{}",
        st.failure_kinds.values().sum::<usize>(),
        st.failures.join("\n")
    );
}

macro_rules! kind_pairs {
    ($($name:ident: $a:ident $b:ident;)*) => {$(
        #[test]
        fn $name() {
            run_pair(Kind::$a, Kind::$b);
        }
    )*};
}

kind_pairs! {
    circle_circle: Circle Circle;
    circle_capsule: Circle Capsule;
    circle_box: Circle Cuboid;
    circle_polygon: Circle Polygon;
    circle_rounded: Circle Rounded;
    circle_compound: Circle Compound;
    capsule_capsule: Capsule Capsule;
    capsule_box: Capsule Cuboid;
    capsule_polygon: Capsule Polygon;
    capsule_rounded: Capsule Rounded;
    capsule_compound: Capsule Compound;
    box_box: Cuboid Cuboid;
    box_polygon: Cuboid Polygon;
    box_rounded: Cuboid Rounded;
    box_compound: Cuboid Compound;
    polygon_polygon: Polygon Polygon;
    polygon_rounded: Polygon Rounded;
    polygon_compound: Polygon Compound;
    rounded_rounded: Rounded Rounded;
    rounded_compound: Rounded Compound;
    compound_compound: Compound Compound;
    circle_segment: Circle Segment;
    capsule_segment: Capsule Segment;
    box_segment: Cuboid Segment;
    polygon_segment: Polygon Segment;
    rounded_segment: Rounded Segment;
    segment_segment: Segment Segment;
    segment_compound: Segment Compound;
}

// ---------------------------------------------------------------------------------------------
// Named cases

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

fn named(sa: Shape, pa: Pose, sb: Shape, pb: Pose) -> Case {
    Case::new(sa, pa, sb, pb, false)
}

fn assert_clean(st: Stats, name: &str) {
    assert!(st.failures.is_empty(), "{name}:\n{}", st.failures.join("\n"));
}

#[test]
fn parallel_edges() {
    let wide = Shape::cuboid(Vec2::new(2.0, 0.5)).unwrap();
    let narrow = Shape::cuboid(Vec2::new(0.5, 0.25)).unwrap();
    let mut st = Stats::default();
    for (k, gap) in [0.0f32, 1e-6, 1e-3, 0.3, 2.0].into_iter().enumerate() {
        // Face to face, B's face entirely over A's: every point of B's bottom face is closest.
        let c = named(wide.clone(), at(1.0, 2.0), narrow.clone(), at(1.3, 2.0 + 0.75 + gap));
        check_distance(&c, k, &mut st);
        let d = query::distance(&c.sa, &c.pa, &c.sb, &c.pb).unwrap();
        if gap >= 1e-3 {
            assert!((d.normal - Vec2::Y).length() < 1e-6, "{d:?}");
            assert!((d.distance - gap).abs() < 1e-5, "{d:?}");
        }
        // Cast B straight down onto A: the faces meet after `gap`.
        let opts = CastOptions { max_fraction: 1.0, target_distance: 0.0 };
        check_cast(&c, Vec2::ZERO, Vec2::new(0.0, -4.0), &opts, k, &mut st);
        let h =
            query::cast_shapes(&c.sa, &c.pa, Vec2::ZERO, &c.sb, &c.pb, Vec2::new(0.0, -4.0), &opts).unwrap().unwrap();
        assert!((h.fraction * 4.0 - gap).abs() <= 1e-4 * 0.56 + 1e-5, "{h:?}");
        assert!((h.normal - Vec2::Y).length() < 1e-5, "{h:?}");
    }
    // Rotated a quarter turn together: the same faces, along x.
    let q = Rot::from_angle(std::f32::consts::FRAC_PI_2);
    let c = named(wide, Pose { p: Vec2::ZERO, q }, narrow, Pose { p: Vec2::new(-0.75 - 0.1, 0.5), q });
    check_distance(&c, 9, &mut st);
    assert_clean(st, "parallel edges");
}

#[test]
fn cast_grazing_a_corner() {
    // A unit box; a circle of radius 0.5 passing along y = 1.5 + e grazes its corner (1, 1).
    let bx = Shape::cuboid(Vec2::ONE).unwrap();
    let ball = Shape::circle(0.5).unwrap();
    let opts = CastOptions::default();
    let mut st = Stats::default();
    for (k, e) in [-1e-3f32, -1e-5, 0.0, 1e-5, 1e-3].into_iter().enumerate() {
        let c = named(bx.clone(), Pose::IDENTITY, ball.clone(), at(5.0, 1.5 + e));
        check_cast(&c, Vec2::ZERO, Vec2::new(-10.0, 0.0), &opts, k, &mut st);
        let h = query::cast_shapes(&c.sa, &c.pa, Vec2::ZERO, &c.sb, &c.pb, Vec2::new(-10.0, 0.0), &opts).unwrap();
        match e {
            e if e <= -1e-5 => {
                let h = h.expect("a cast under the corner hits");
                // It touches the corner with its centre at x = 1 + sqrt(0.25 - (0.5 + e)^2), and
                // may stop up to the tolerance (1e-4 of the ball's size 0.5, plus rounding) before.
                let y = 0.5 + e as f64;
                let x_touch = 1.0 + (0.25 - y * y).sqrt();
                let x_early = 1.0 + ((0.5 + 5e-5 + c.slack(10.0)).powi(2) - y * y).sqrt();
                let x = 5.0 - 10.0 * h.fraction as f64;
                assert!(x >= x_touch - 1e-5 && x <= x_early, "{h:?}: x {x} not in [{x_touch}, {x_early}]");
                assert!(h.normal.x > 0.0 && h.normal.y > 0.0, "the corner pushes up and right: {h:?}");
            }
            e if e >= 1e-3 => assert!(h.is_none(), "{h:?}"),
            _ => {}
        }
    }
    // A box sliding along the top face of another, corner to corner (touching throughout).
    let c = named(bx.clone(), Pose::IDENTITY, bx, at(3.0, 2.0));
    check_cast(&c, Vec2::ZERO, Vec2::new(-6.0, 0.0), &opts, 9, &mut st);
    assert_clean(st, "grazing");
}

#[test]
fn zero_translation() {
    let a = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap();
    let b = Shape::rounded_box(Vec2::new(0.5, 0.5), 0.1).unwrap();
    let opts = CastOptions::default();
    let mut st = Stats::default();
    // Apart: nothing. Touching or overlapping: a hit at 0, started in contact.
    for (k, (y, hits)) in [(2.0f32, false), (0.85 + 1e-3, false), (0.8, true), (0.0, true)].into_iter().enumerate() {
        let c = named(a.clone(), Pose::IDENTITY, b.clone(), at(0.3, y));
        check_cast(&c, Vec2::ZERO, Vec2::ZERO, &opts, k, &mut st);
        let h = query::cast_shapes(&c.sa, &c.pa, Vec2::ZERO, &c.sb, &c.pb, Vec2::ZERO, &opts).unwrap();
        assert_eq!(h.is_some(), hits, "y = {y}: {h:?}");
        if let Some(h) = h {
            assert!(h.started_in_contact && h.fraction == 0.0, "{h:?}");
        }
        // A sweep that does not move answers like the static query.
        let toi = query::time_of_impact(&c.sa, &Sweep::fixed(c.pa), &c.sb, &Sweep::fixed(c.pb), 1.0).unwrap();
        check_toi(&c, &Sweep::fixed(c.pa), &Sweep::fixed(c.pb), 1.0, k, &mut st);
        assert_eq!(toi.state == ToiState::Separated, !hits, "{toi:?}");
    }
    assert_clean(st, "zero translation");
}

#[test]
fn start_in_contact() {
    let a = Shape::cuboid(Vec2::new(1.0, 1.0)).unwrap();
    let b = Shape::circle(0.5).unwrap();
    let mut st = Stats::default();
    for (k, x) in [1.2f32, 1.5, 0.0].into_iter().enumerate() {
        let c = named(a.clone(), Pose::IDENTITY, b.clone(), at(x, 0.3));
        // Moving apart or further in, the cast starts in contact either way.
        for (j, tb) in [Vec2::new(3.0, 0.0), Vec2::new(-3.0, 0.0)].into_iter().enumerate() {
            let opts = CastOptions::default();
            check_cast(&c, Vec2::ZERO, tb, &opts, 10 * k + j, &mut st);
            let h = query::cast_shapes(&c.sa, &c.pa, Vec2::ZERO, &c.sb, &c.pb, tb, &opts).unwrap().unwrap();
            assert!(h.started_in_contact && h.fraction == 0.0, "{h:?}");
            if x > 1.0 {
                assert!((h.normal - Vec2::X).length() < 1e-5, "{h:?}");
            }
        }
        let sweep_b = Sweep::new(c.pb, at(x + 3.0, 0.3));
        check_toi(&c, &Sweep::fixed(c.pa), &sweep_b, 1.0, 100 + k, &mut st);
        let toi = query::time_of_impact(&c.sa, &Sweep::fixed(c.pa), &c.sb, &sweep_b, 1.0).unwrap();
        assert_eq!((toi.state, toi.fraction), (ToiState::Overlapping, 0.0), "{toi:?}");
    }
    // Within the target distance at the start counts as in contact.
    let c = named(a, Pose::IDENTITY, b, at(1.55, 0.0));
    let opts = CastOptions { max_fraction: 1.0, target_distance: 0.1 };
    check_cast(&c, Vec2::ZERO, Vec2::new(1.0, 0.0), &opts, 200, &mut st);
    let h = query::cast_shapes(&c.sa, &c.pa, Vec2::ZERO, &c.sb, &c.pb, Vec2::new(1.0, 0.0), &opts).unwrap().unwrap();
    assert!(h.started_in_contact, "{h:?}");
    assert_clean(st, "start in contact");
}

#[test]
fn thin_rotating_bar() {
    // A bar 10 long and 0.01 thick turning half a turn about its centre, a small ball at 3
    // from the centre on the far side: both end poses are clear of the ball, the sweep is not.
    let bar = Shape::cuboid(Vec2::new(5.0, 0.005)).unwrap();
    let ball = Shape::circle(0.05).unwrap();
    let mut st = Stats::default();
    for (k, turn) in [3.0f32, -3.0, 1.0, 0.2].into_iter().enumerate() {
        let c = named(bar.clone(), Pose::IDENTITY, ball.clone(), at(0.0, 3.0));
        let sweep = Sweep::new(Pose::IDENTITY, Pose::new(Vec2::ZERO, turn));
        let still = Sweep::fixed(c.pb);
        check_toi(&c, &sweep, &still, 1.0, k, &mut st);
        let toi = query::time_of_impact(&c.sa, &sweep, &c.sb, &still, 1.0).unwrap();
        if turn.abs() > 1.6 {
            assert_eq!(toi.state, ToiState::Hit, "turn {turn}: {toi:?}");
            // It meets the ball near a quarter turn: the line through the centre comes within
            // 0.055 of the ball's centre at angle pi/2 - asin(0.055 / 3).
            let angle = std::f64::consts::FRAC_PI_2 - (0.055f64 / 3.0).asin();
            let want = angle / turn.abs() as f64;
            assert!((toi.fraction as f64 - want).abs() < 2e-3, "turn {turn}: {toi:?}, want {want}");
        } else {
            assert_eq!(toi.state, ToiState::Separated, "turn {turn}: {toi:?}");
        }
        // And moving while turning: a bar thrown past the ball, spinning.
        let thrown = Sweep::new(at(-20.0, 3.0), Pose::new(Vec2::new(20.0, 3.2), turn));
        check_toi(&c, &thrown, &still, 1.0, 10 + k, &mut st);
    }
    assert_clean(st, "thin rotating bar");
}

#[test]
fn bad_arguments_are_errors() {
    let c = Shape::circle(1.0).unwrap();
    let nan = Vec2::new(f32::NAN, 0.0);
    let opts = |m: f32, t: f32| CastOptions { max_fraction: m, target_distance: t };
    let cast =
        |ta: Vec2, o: CastOptions| query::cast_shapes(&c, &Pose::IDENTITY, ta, &c, &at(5.0, 0.0), Vec2::ZERO, &o);
    assert_eq!(cast(nan, opts(1.0, 0.0)), Err(QueryError::NonFinite));
    assert_eq!(cast(Vec2::X, opts(-1.0, 0.0)), Err(QueryError::Negative));
    assert_eq!(cast(Vec2::X, opts(1.0, f32::INFINITY)), Err(QueryError::NonFinite));
    assert_eq!(query::distance(&c, &at(f32::NAN, 0.0), &c, &Pose::IDENTITY).err(), Some(QueryError::NonFinite));
}

/// Regression: on two parallel box faces GJK took a support point collinear with the closest
/// edge of the Minkowski difference (no progress towards the origin), cycled to its iteration
/// cap and read the unsolved flat triangle as an overlap: distance 0 for boxes 7.3e-5 apart.
#[test]
fn gjk_collinear_support_on_parallel_faces_is_not_an_overlap() {
    let a = Shape::cuboid(Vec2::new(0.405_261_6, 0.271_615_2)).unwrap();
    let b = Shape::cuboid(Vec2::new(0.203_342_44, 0.141_891_94)).unwrap();
    let (pa, pb) = (at(-3.732_974_5, 1.278_593_8), at(-3.124_297_1, 1.278_593_8));
    let want = exact::distance(&a, &pa, &b, &pb).distance;
    let d = query::distance(&a, &pa, &b, &pb).unwrap();
    assert!((d.distance as f64 - want).abs() < 1e-6 && d.normal == Vec2::X, "{d:?}, exact {want:e}");
    let mut st = Stats::default();
    check_distance(&named(a, pa, b, pb), 0, &mut st);
    assert_clean(st, "parallel faces");
}

/// Regression: the point reported for overlapping shapes (documented as a point both hold) was
/// the midpoint of `[d - rb, ra]` along the normal, outside a small shape deep inside a large
/// one (here at x = 1.2 for a ball of radius 0.1 at x = 0.5).
#[test]
fn overlap_point_lies_in_both_shapes() {
    let big = Shape::circle(2.0).unwrap();
    let cases = [
        (big.clone(), Pose::IDENTITY, Shape::circle(0.1).unwrap(), at(0.5, 0.0)),
        (Shape::circle(0.1).unwrap(), at(0.5, 0.0), big, Pose::IDENTITY),
        (
            Shape::rounded_box(Vec2::new(3.0, 1.0), 0.5).unwrap(),
            Pose::IDENTITY,
            Shape::capsule(Vec2::new(-0.2, 0.0), Vec2::new(0.2, 0.0), 0.1).unwrap(),
            at(1.0, 1.2),
        ),
    ];
    for (sa, pa, sb, pb) in cases {
        let d = query::distance(&sa, &pa, &sb, &pb).unwrap();
        let (a, b) = (Body::new(&sa).placed(&PoseD::from_pose(&pa)), Body::new(&sb).placed(&PoseD::from_pose(&pb)));
        let p = d64(d.point_a);
        assert!(d.distance == 0.0 && d.point_a == d.point_b, "{d:?}");
        assert!(point_signed_distance(&a, p) <= 0.0 && point_signed_distance(&b, p) <= 0.0, "{d:?}");
    }
}

/// Regression: two boxes with the same centre (a Minkowski difference symmetric about the
/// origin, which lands on a simplex edge) came out a rounding error apart (7e-9) instead of
/// overlapping; a sweep starting there reported a hit at 0, not an overlap.
#[test]
fn gjk_origin_on_a_simplex_edge_is_an_overlap() {
    let a = Shape::cuboid(Vec2::new(0.181_078_58, 1.918_189_6)).unwrap();
    let b = Shape::cuboid(Vec2::new(0.078_847_334, 0.092_041_574)).unwrap();
    let p = Vec2::new(-1.045_420_9, 4.972_788);
    let pa = Pose { p, q: Rot { c: 0.364_718_7, s: -0.931_117_8 } };
    let pb = Pose { p, q: Rot { c: -0.998_877_94, s: -0.047_359_06 } };
    let d = query::distance(&a, &pa, &b, &pb).unwrap();
    assert_eq!(d.distance, 0.0, "{d:?}");
    let toi = query::time_of_impact(&a, &Sweep::fixed(pa), &b, &Sweep::new(pb, Pose { p: p + Vec2::X, q: pb.q }), 1.0);
    assert_eq!(toi.unwrap().state, ToiState::Overlapping);
}

/// Regression: a sweep starting with one part of a compound overlapping the other shape and
/// another part merely within the tolerance reported `Hit` at 0 (the first part pair found
/// within the tolerance decided), not `Overlapping`.
#[test]
fn toi_overlap_of_any_compound_part_at_the_start_is_an_overlap() {
    let capsule =
        |a: (f32, f32), b: (f32, f32), r: f32| Shape::capsule(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1), r).unwrap();
    let a = capsule((1.001_455_1, 1.376_892_1), (-1.000_451, -1.373_921_6), 2.179_880_9);
    let rot = |c: f32, s: f32| Rot { c, s };
    let b = Shape::compound(vec![
        (
            Pose { p: Vec2::ZERO, q: rot(0.578_040_24, -0.816_008_27) },
            capsule((-0.009_684_904, 0.004_282_556), (0.008_966_258, -0.004_101_582), 0.001_744_260_5),
        ),
        (
            Pose { p: Vec2::new(0.021_004_666, 0.048_987_13), q: rot(-0.559_899_03, -0.828_560_8) },
            capsule((-0.006_267_519_5, -0.004_962_110_4), (0.004_799_970_4, 0.003_117_019_3), 0.002_742_647_4),
        ),
        (
            Pose { p: Vec2::new(-0.043_413_296, -0.013_332_071), q: rot(0.544_881_3, 0.838_513_2) },
            capsule((-0.009_142_945_5, 0.008_214_522), (0.005_282_679_6, -0.007_018_831_6), 0.019_214_991),
        ),
    ])
    .unwrap();
    let sweep_a = Sweep::new(
        Pose { p: Vec2::new(-4.893_737_3, 4.131_370_5), q: rot(-0.462_372_42, -0.886_685_85) },
        Pose { p: Vec2::new(2.510_672_6, 4.793_513_3), q: rot(-0.697_827_94, -0.716_265_5) },
    );
    let qb = rot(0.288_496_1, 0.957_481_1);
    let sweep_b = Sweep::new(
        Pose { p: Vec2::new(-5.449_057, 0.858_271_5), q: qb },
        Pose { p: Vec2::new(-3.476_003_2, -2.306_814_7), q: qb },
    );
    let start = exact::distance(&a, &sweep_a.start, &b, &sweep_b.start);
    assert_eq!(start.distance, 0.0, "the fixture overlaps at the start");
    let toi = query::time_of_impact(&a, &sweep_a, &b, &sweep_b, 1.0).unwrap();
    assert_eq!((toi.state, toi.fraction), (ToiState::Overlapping, 0.0), "{toi:?}");
}

/// A cast's tolerance follows the motion it can make within `max_fraction`: a ball 0.5 from a
/// wall, cast by 1e6 with a maximum fraction of 2.5e-7 (0.25 of motion), never touches it. A
/// tolerance counting the whole translation (8 f32 epsilons of 1e6, about 0.95) reported a
/// contact at the start. Found by the `queries` fuzz target.
#[test]
fn cast_tolerance_follows_the_reachable_motion() {
    let ball = Shape::circle(0.5).unwrap();
    let wall = Shape::cuboid(Vec2::new(0.5, 5.0)).unwrap();
    let opts = CastOptions { max_fraction: 0.25e-6, target_distance: 0.0 };
    let h = query::cast_shapes(&ball, &Pose::IDENTITY, Vec2::new(1e6, 0.0), &wall, &at(1.5, 0.0), Vec2::ZERO, &opts);
    assert_eq!(h, Ok(None));
}
