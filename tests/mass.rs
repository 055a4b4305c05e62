//! `Shape::mass_properties` against three oracles:
//!
//! - **Closed forms** for named shapes (circle `πr²ρ`, `I = m r²/2`; box; capsule as a rectangle
//!   and two half discs with their centroids `4r/3π` beyond the ends; rounded box as a core,
//!   four side strips and four quarter discs), hand-derived here.
//! - **An exact f64 reference** by another route: Green's theorem on the boundary (area,
//!   first and second moments as line integrals over the surface's straight pieces and arcs),
//!   where the library sums areas of pieces. Random shapes: convex and rounded polygons,
//!   capsules, circles, boxes, compounds, at sizes from 1e-3 to 1e4 and far from their origin.
//! - **Numerical integration** with [`contains_point`] as the indicator, in f64: an adaptive
//!   grid refining the cells the surface crosses. Every finest cell the surface crosses may be
//!   counted wrongly, so the bound on the error is the sum of those cells' areas (weighted by
//!   their distance from the reference point for the moments): the band follows the sample
//!   resolution, and the test reports how much of it the answers used.
//!
//! parry2d 0.31 is compared where it is exact (circles, boxes, sharp polygons, compounds of
//! them); where it is not, the test pins its known disagreement: it ignores a rounded
//! polygon's radius, and its 2D capsule inertia uses the 3D hemisphere's centroid offset
//! `3r/8` for the half disc's `4r/3π`.

use std::f64::consts::PI;

use glam::DVec2;
use sapwood::query::contains_point;
use sapwood::{ChainOptions, MassProperties, Pose, Shape, ShapeError, Vec2};
use sapwood_support::f64_rng::F64Rng;
use sapwood_support::parry_shapes::to_parry;
use sapwood_support::random_shapes::{random_convex_at, v2};

fn d(v: Vec2) -> DVec2 {
    DVec2::new(f64::from(v.x), f64::from(v.y))
}

// ---- Named shapes, closed forms ----------------------------------------------------------------

fn close(got: f32, want: f64, rel: f64) -> bool {
    (f64::from(got) - want).abs() <= rel * want.abs().max(f64::MIN_POSITIVE)
}

#[track_caller]
fn assert_mass(m: MassProperties, mass: f64, center: DVec2, inertia: f64) {
    assert!(close(m.mass, mass, 1e-6), "mass {} want {mass}", m.mass);
    assert!((d(m.center) - center).length() <= 1e-6 * (center.length() + 1.0), "center {:?} want {center:?}", m.center);
    assert!(close(m.inertia, inertia, 1e-6), "inertia {} want {inertia}", m.inertia);
}

#[test]
fn circle_box_and_capsule_match_their_closed_forms() {
    let (r, rho) = (1.5f64, 2.5f64);
    let m = Shape::circle(r as f32).unwrap().mass_properties(rho as f32).unwrap();
    let mass = PI * r * r * rho;
    assert_mass(m, mass, DVec2::ZERO, mass * r * r / 2.0);

    let (hx, hy) = (3.0f64, 0.25f64);
    let m = Shape::cuboid(Vec2::new(hx as f32, hy as f32)).unwrap().mass_properties(rho as f32).unwrap();
    let mass = 4.0 * hx * hy * rho;
    assert_mass(m, mass, DVec2::ZERO, mass * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0);

    // A capsule along a tilted axis away from the origin: a rectangle L × 2r, and two half
    // discs whose centroids lie 4r/3π beyond the ends.
    let (a, b, r) = (DVec2::new(10.0, -4.0), DVec2::new(13.0, 0.0), 0.75f64);
    let l = (b - a).length();
    let rect = 2.0 * r * l * rho;
    let half = PI * r * r / 2.0 * rho;
    let lc = 4.0 * r / (3.0 * PI);
    let half_own = half * r * r / 2.0 - half * lc * lc; // about its own centroid
    let inertia = rect * (l * l + 4.0 * r * r) / 12.0 + 2.0 * (half_own + half * (l / 2.0 + lc).powi(2));
    let s = Shape::capsule(v2(a), v2(b), r as f32).unwrap();
    assert_mass(s.mass_properties(rho as f32).unwrap(), rect + 2.0 * half, 0.5 * (a + b), inertia);
    // A rounded segment is the same capsule.
    let seg = Shape::rounded_segment(v2(a), v2(b), r as f32).unwrap();
    assert_eq!(seg.mass_properties(rho as f32), s.mass_properties(rho as f32));
}

#[test]
fn rounded_box_is_a_core_four_strips_and_four_quarter_discs() {
    let (hx, hy, r, rho) = (2.0f64, 0.5f64, 0.3f64, 1.25f64);
    let core = 4.0 * hx * hy;
    let mut mass = core;
    let mut inertia = core * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0;
    // Strips above and below (2hx × r), left and right (r × 2hy).
    let (tb, lr) = (2.0 * hx * r, 2.0 * hy * r);
    mass += 2.0 * tb + 2.0 * lr;
    inertia += 2.0 * (tb * (4.0 * hx * hx + r * r) / 12.0 + tb * (hy + r / 2.0).powi(2));
    inertia += 2.0 * (lr * (r * r + 4.0 * hy * hy) / 12.0 + lr * (hx + r / 2.0).powi(2));
    // Quarter discs at the corners: centroid 4r/3π along both axes from the corner; polar
    // moment about the corner π r⁴ / 8.
    let q = PI * r * r / 4.0;
    let lc = 4.0 * r / (3.0 * PI);
    let own = PI * r.powi(4) / 8.0 - q * 2.0 * lc * lc;
    mass += 4.0 * q;
    inertia += 4.0 * (own + q * ((hx + lc).powi(2) + (hy + lc).powi(2)));
    let s = Shape::rounded_box(Vec2::new(hx as f32, hy as f32), r as f32).unwrap();
    assert_mass(s.mass_properties(rho as f32).unwrap(), mass * rho, DVec2::ZERO, inertia * rho);
}

#[test]
fn compound_parts_combine_by_the_parallel_axis_theorem() {
    // Two unit squares side by side at x = 1 and x = 3, the second turned (a square's inertia
    // does not depend on its turn): centre (2, 5), I = 2 (1/6 + 1²) per unit density.
    let sq = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    let c = Shape::compound(vec![
        (Pose::from_translation(Vec2::new(1.0, 5.0)), sq.clone()),
        (Pose::new(Vec2::new(3.0, 5.0), 0.7), sq),
    ])
    .unwrap();
    assert_mass(c.mass_properties(3.0).unwrap(), 6.0, DVec2::new(2.0, 5.0), 3.0 * 2.0 * (1.0 / 6.0 + 1.0));
    // A circle and a bare segment: the segment weighs nothing.
    let c = Shape::compound(vec![
        (Pose::from_translation(Vec2::new(-2.0, 0.0)), Shape::circle(1.0).unwrap()),
        (Pose::IDENTITY, Shape::segment(Vec2::new(5.0, 5.0), Vec2::new(7.0, 5.0)).unwrap()),
    ])
    .unwrap();
    assert_mass(c.mass_properties(1.0).unwrap(), PI, DVec2::new(-2.0, 0.0), PI / 2.0);
}

#[test]
fn segments_and_chains_are_massless_at_the_mean_of_their_vertices() {
    let s = Shape::segment(Vec2::new(1.0, 2.0), Vec2::new(5.0, -2.0)).unwrap();
    assert_eq!(s.mass_properties(7.0), Ok(MassProperties { mass: 0.0, center: Vec2::new(3.0, 0.0), inertia: 0.0 }));
    let vs = vec![Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(4.0, 3.0), Vec2::new(-1.0, 3.0)];
    for closed in [false, true] {
        let c = Shape::chain(vs.clone(), ChainOptions { closed, one_sided: closed }).unwrap();
        let m = c.mass_properties(2.0).unwrap();
        assert_eq!(m, MassProperties { mass: 0.0, center: Vec2::new(1.75, 1.5), inertia: 0.0 });
    }
    // A compound of massless parts: at the mean of their centres.
    let two = Shape::compound(vec![
        (Pose::IDENTITY, Shape::segment(Vec2::ZERO, Vec2::new(2.0, 0.0)).unwrap()),
        (Pose::from_translation(Vec2::new(0.0, 4.0)), Shape::segment(Vec2::ZERO, Vec2::new(2.0, 0.0)).unwrap()),
    ])
    .unwrap();
    assert_eq!(two.mass_properties(1.0), Ok(MassProperties { mass: 0.0, center: Vec2::new(1.0, 2.0), inertia: 0.0 }));
}

#[test]
fn bad_densities_are_typed_errors_and_zero_density_keeps_the_centroid() {
    let tri = Shape::polygon(&[Vec2::new(10.0, 0.0), Vec2::new(13.0, 0.0), Vec2::new(10.0, 3.0)], 0.0).unwrap();
    assert_eq!(tri.mass_properties(f32::NAN), Err(ShapeError::NonFinite));
    assert_eq!(tri.mass_properties(f32::INFINITY), Err(ShapeError::NonFinite));
    assert_eq!(tri.mass_properties(f32::NEG_INFINITY), Err(ShapeError::NonFinite));
    assert_eq!(tri.mass_properties(-1.0), Err(ShapeError::NegativeDensity));
    assert_eq!(ShapeError::NegativeDensity.to_string(), "density must not be negative");
    for zero in [0.0, -0.0] {
        let m = tri.mass_properties(zero).unwrap();
        assert_eq!((m.mass.to_bits(), m.inertia.to_bits()), (0, 0), "+0, not -0");
        assert!((m.center - Vec2::new(11.0, 1.0)).length() < 1e-5);
    }
    // Beyond f32: a typed error, not an infinite mass.
    let big = Shape::cuboid(Vec2::splat(1e6)).unwrap();
    assert_eq!(big.mass_properties(f32::MAX), Err(ShapeError::TooLarge));
    // A shape assembled from fields is validated.
    let bad = Shape::Circle(sapwood::Circle { radius: -1.0 });
    assert_eq!(bad.mass_properties(1.0), Err(ShapeError::NonPositiveSize));
}

// ---- The f64 reference: Green's theorem on the boundary ----------------------------------------

/// A piece of a counter-clockwise boundary.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Line(DVec2, DVec2),
    /// Centre, radius, start angle, sweep (> 0).
    Arc(DVec2, f64, f64, f64),
}

/// A pose in f64 with the f32 pose's own cosine and sine (the library applies them as they are).
fn place(pose: &Pose, p: DVec2) -> DVec2 {
    let (c, s) = (f64::from(pose.q.c), f64::from(pose.q.s));
    d(pose.p) + DVec2::new(c * p.x - s * p.y, s * p.x + c * p.y)
}

fn angle(v: DVec2) -> f64 {
    v.y.atan2(v.x)
}

/// The boundary of a solid convex shape: a convex core's offset edges and the arcs between
/// them. `None` for a shape with no area.
fn boundary(shape: &Shape) -> Option<Vec<Piece>> {
    let rounded = |core: &[DVec2], r: f64| -> Vec<Piece> {
        let n = core.len();
        let mut out = Vec::new();
        if n == 1 {
            out.push(Piece::Arc(core[0], r, 0.0, 2.0 * PI));
            return out;
        }
        let normal = |i: usize| {
            let e = core[(i + 1) % n] - core[i];
            DVec2::new(e.y, -e.x).normalize()
        };
        let edges = if n == 2 { 2 } else { n };
        for i in 0..edges {
            let (a, b, m) = (core[i], core[(i + 1) % n], normal(i));
            out.push(Piece::Line(a + r * m, b + r * m));
            if r > 0.0 {
                let m2 = normal((i + 1) % edges);
                let sweep = m.perp_dot(m2).atan2(m.dot(m2));
                let sweep = if n == 2 { PI } else { sweep };
                out.push(Piece::Arc(b, r, angle(m), sweep));
            }
        }
        out
    };
    Some(match shape {
        Shape::Circle(c) => rounded(&[DVec2::ZERO], f64::from(c.radius)),
        Shape::Capsule(c) => rounded(&[d(c.a), d(c.b)], f64::from(c.radius)),
        Shape::Segment(s) if s.radius > 0.0 => rounded(&[d(s.a), d(s.b)], f64::from(s.radius)),
        Shape::Cuboid(b) => {
            let h = d(b.half_extents);
            rounded(&[-h, DVec2::new(h.x, -h.y), h, DVec2::new(-h.x, h.y)], 0.0)
        }
        Shape::Polygon(p) => {
            let vs: Vec<DVec2> = p.vertices().iter().map(|v| d(*v)).collect();
            rounded(&vs, f64::from(p.radius()))
        }
        _ => return None,
    })
}

/// Area, first moment and polar second moment about a reference point `o`.
#[derive(Clone, Copy, Debug, Default)]
struct Raw {
    area: f64,
    first: DVec2,
    second: f64,
}

impl std::ops::AddAssign for Raw {
    fn add_assign(&mut self, o: Raw) {
        self.area += o.area;
        self.first += o.first;
        self.second += o.second;
    }
}

/// Green's theorem, P = x - o on a counter-clockwise boundary: A = ∮ X dY,
/// ∫X dA = ∮ X²/2 dY, ∫Y dA = -∮ Y²/2 dX, ∫(X² + Y²) dA = ∮ X³/3 dY - ∮ Y³/3 dX.
/// Three-point Gauss–Legendre per piece (exact for a line's cubic integrand), arcs cut into
/// pieces of at most 1/64 turn (error below 1e-15 relative).
fn green(pieces: &[Piece], o: DVec2) -> Raw {
    let gauss = [(-(0.6f64).sqrt(), 5.0 / 9.0), (0.0, 8.0 / 9.0), ((0.6f64).sqrt(), 5.0 / 9.0)];
    let mut raw = Raw::default();
    let mut add = |p: DVec2, dp: DVec2, w: f64| {
        let q = p - o;
        raw.area += w * q.x * dp.y;
        raw.first += w * DVec2::new(q.x * q.x / 2.0 * dp.y, -q.y * q.y / 2.0 * dp.x);
        raw.second += w * (q.x.powi(3) / 3.0 * dp.y - q.y.powi(3) / 3.0 * dp.x);
    };
    for piece in pieces {
        match *piece {
            Piece::Line(a, b) => {
                for (x, w) in gauss {
                    let t = 0.5 * (x + 1.0);
                    add(a + t * (b - a), b - a, 0.5 * w);
                }
            }
            Piece::Arc(c, r, from, sweep) => {
                let cuts = ((sweep / (2.0 * PI / 64.0)).ceil() as usize).max(1);
                let h = sweep / cuts as f64;
                for k in 0..cuts {
                    for (x, w) in gauss {
                        let th = from + h * (k as f64 + 0.5 * (x + 1.0));
                        let (s, co) = th.sin_cos();
                        add(c + r * DVec2::new(co, s), r * DVec2::new(-s, co), 0.5 * w * h);
                    }
                }
            }
        }
    }
    raw
}

/// Unit-density mass properties in f64.
#[derive(Clone, Copy, Debug)]
struct Exact {
    area: f64,
    center: DVec2,
    inertia: f64,
}

/// The solid parts of a shape at their local poses, with their boundaries; the massless
/// vertices' mean when there are none.
fn solid_parts(shape: &Shape) -> Vec<(Pose, Shape)> {
    match shape {
        Shape::Compound(c) => c.parts().to_vec(),
        s => vec![(Pose::IDENTITY, s.clone())],
    }
}

fn reference(shape: &Shape) -> Exact {
    let mut pieces = Vec::new();
    let mut centres = Vec::new();
    for (pose, part) in solid_parts(shape) {
        match boundary(&part) {
            Some(ps) => pieces.extend(ps.into_iter().map(|p| match p {
                Piece::Line(a, b) => Piece::Line(place(&pose, a), place(&pose, b)),
                Piece::Arc(c, r, from, sweep) => {
                    Piece::Arc(place(&pose, c), r, from + f64::from(pose.q.s).atan2(f64::from(pose.q.c)), sweep)
                }
            })),
            None => centres.push(match &part {
                Shape::Segment(s) => place(&pose, 0.5 * (d(s.a) + d(s.b))),
                Shape::Chain(c) => {
                    place(&pose, c.vertices().iter().map(|v| d(*v)).sum::<DVec2>() / c.vertices().len() as f64)
                }
                other => panic!("{other:?} has an area"),
            }),
        }
    }
    if pieces.is_empty() {
        return Exact { area: 0.0, center: centres.iter().sum::<DVec2>() / centres.len() as f64, inertia: 0.0 };
    }
    // Twice: about a first estimate of the centroid, then about the centroid itself, so that
    // the second moment never cancels against a large |c - o|² term.
    let first_point = match pieces[0] {
        Piece::Line(a, _) => a,
        Piece::Arc(c, ..) => c,
    };
    let raw = green(&pieces, first_point);
    let c = first_point + raw.first / raw.area;
    let raw = green(&pieces, c);
    let center = c + raw.first / raw.area;
    Exact { area: raw.area, center, inertia: raw.second - raw.area * (center - c).length_squared() }
}

// ---- Random shapes ---------------------------------------------------------------------------

fn random_shape(rng: &mut F64Rng, size: f64, offset: DVec2) -> Shape {
    if rng.chance(0.8) {
        return random_convex_at(rng, size, offset, false);
    }
    let parts = (0..2 + rng.below(3))
        .map(|_| {
            let at = offset + rng.dir() * size * rng.range(0.0, 3.0);
            let pose = Pose::new(v2(at), rng.range(-3.2, 3.2) as f32);
            let core = rng.dir() * size * rng.range(0.0, 1.0);
            (pose, random_convex_at(rng, size, core, false))
        })
        .collect();
    Shape::compound(parts).unwrap()
}

/// A size from 1e-3 to 1e4, and an offset up to `far` times it, every coordinate well within
/// `MAX_SHAPE_SIZE`.
fn random_placement(rng: &mut F64Rng, far: f64) -> (f64, DVec2) {
    let size = rng.log_range(1e-3, 1e4);
    let reach = (size * far * rng.unit()).min(5e5 - 8.0 * size).max(0.0);
    (size, rng.dir() * reach)
}

// ---- f32 answers against the f64 reference -------------------------------------------------

#[test]
fn random_shapes_match_the_green_reference() {
    let mut rng = F64Rng::new(0x3a55);
    let (mut worst_mass, mut worst_center, mut worst_inertia) = (0.0f64, 0.0f64, 0.0f64);
    for case in 0..4000 {
        let (size, offset) = random_placement(&mut rng, if case % 2 == 0 { 1e5 } else { 3.0 });
        let shape = random_shape(&mut rng, size, offset);
        let density = rng.log_range(1e-2, 1e3) as f32;
        let m = shape.mass_properties(density).unwrap();
        let ex = reference(&shape);
        let rho = f64::from(density);
        let scale = shape.bounding_radius() as f64;
        let e_mass = (f64::from(m.mass) - rho * ex.area).abs() / (rho * ex.area);
        // The centre is an f32: half an ulp of its magnitude, relative to the shape's reach.
        let e_center = (d(m.center) - ex.center).length() / (ex.center.length() * 1.2e-7 + 1e-6 * size);
        let e_inertia = (f64::from(m.inertia) - rho * ex.inertia).abs() / (rho * ex.inertia);
        worst_mass = worst_mass.max(e_mass);
        worst_center = worst_center.max(e_center);
        worst_inertia = worst_inertia.max(e_inertia);
        assert!(
            e_mass <= 2e-6 && e_center <= 1.0 && e_inertia <= 2e-6,
            "case {case}: {shape:?} density {density}: got {m:?}, want mass {}, center {:?}, inertia {} \
             (reach {scale}; errors {e_mass:e}, {e_center:e} of the band, {e_inertia:e})",
            rho * ex.area,
            ex.center,
            rho * ex.inertia
        );
    }
    println!(
        "f32 against the f64 Green reference, 4000 shapes: mass {worst_mass:.2e}, inertia {worst_inertia:.2e} \
         relative; centre {worst_center:.2} of its band (1.2e-7 |c| + 1e-6 size)"
    );
}

// ---- Numerical integration with contains_point -------------------------------------------------

/// An integral over a region and bounds on its error, about the reference point `o`.
#[derive(Clone, Copy, Debug, Default)]
struct Numeric {
    raw: Raw,
    /// Bounds on |error| of `raw`'s fields: `first.x` bounds the first moment's length.
    band: Raw,
    samples: usize,
}

const COARSE: usize = 64;
const DEPTH: u32 = 7;

struct Grid<'a> {
    inside: &'a dyn Fn(DVec2) -> bool,
    o: DVec2,
    out: Numeric,
}

impl Grid<'_> {
    fn sample(&mut self, p: DVec2) -> bool {
        self.out.samples += 1;
        (self.inside)(p)
    }

    /// Whether the corners and the centre agree, and the centre's value.
    fn uniform(&mut self, lo: DVec2, size: DVec2) -> (bool, bool) {
        let c = self.sample(lo + 0.5 * size);
        let corners = [lo, lo + DVec2::new(size.x, 0.0), lo + DVec2::new(0.0, size.y), lo + size];
        (corners.into_iter().all(|p| self.sample(p) == c), c)
    }

    fn leaf(&mut self, lo: DVec2, size: DVec2, inside: bool) {
        if inside {
            let a = size.x * size.y;
            let q = lo + 0.5 * size - self.o;
            self.out.raw +=
                Raw { area: a, first: a * q, second: a * (q.length_squared() + size.length_squared() / 12.0) };
        }
    }

    fn cell(&mut self, lo: DVec2, size: DVec2, depth: u32, forced: bool) {
        let (uniform, c) = self.uniform(lo, size);
        if uniform && !forced {
            return self.leaf(lo, size, c);
        }
        if depth == 0 {
            // The surface crosses this cell: any part of it may be counted wrongly.
            let a = size.x * size.y;
            let reach = (lo + 0.5 * size - self.o).length() + 0.5 * size.length();
            self.out.band += Raw { area: a, first: DVec2::new(a * reach, 0.0), second: a * reach * reach };
            return self.leaf(lo, size, c);
        }
        let h = 0.5 * size;
        for (i, j) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            self.cell(lo + DVec2::new(i * h.x, j * h.y), h, depth - 1, false);
        }
    }
}

/// The integral of the indicator over the box `lo..hi` (which must hold the region): a
/// `COARSE`² grid whose cells the surface crosses (or that touch such a cell) are refined
/// `DEPTH` times.
fn integrate(inside: &dyn Fn(DVec2) -> bool, lo: DVec2, hi: DVec2, o: DVec2) -> Numeric {
    let mut g = Grid { inside, o, out: Numeric::default() };
    let size = (hi - lo) / COARSE as f64;
    let at = |i: usize, j: usize| lo + DVec2::new(i as f64 * size.x, j as f64 * size.y);
    let mut crossed = vec![false; COARSE * COARSE];
    for j in 0..COARSE {
        for i in 0..COARSE {
            crossed[j * COARSE + i] = !g.uniform(at(i, j), size).0;
        }
    }
    for j in 0..COARSE {
        for i in 0..COARSE {
            // Refine the neighbours of crossed cells too: a sharp corner can poke into a cell
            // between its five samples.
            let near = (j.saturating_sub(1)..(j + 2).min(COARSE))
                .any(|jj| (i.saturating_sub(1)..(i + 2).min(COARSE)).any(|ii| crossed[jj * COARSE + ii]));
            g.cell(at(i, j), size, DEPTH, near);
        }
    }
    g.out
}

/// The numerical integral of `shape`'s parts (each with `contains_point` at its local pose,
/// summed: the documented mass of a compound), about `o`.
fn integrate_parts(shape: &Shape, o: DVec2) -> Numeric {
    let mut total = Numeric::default();
    for (pose, part) in solid_parts(shape) {
        let b = part.aabb(&pose);
        let pad = DVec2::splat(1e-3 * f64::from((b.max - b.min).max_element()));
        let n = integrate(&|p: DVec2| contains_point(&part, &pose, v2(p)).unwrap(), d(b.min) - pad, d(b.max) + pad, o);
        total.raw += n.raw;
        total.band += n.band;
        total.samples += n.samples;
    }
    total
}

/// How far unit-density properties (area, centre, inertia) are from the integral `n` about `o`,
/// in units of its band, widened by `rel` of each value for the candidate's own rounding.
fn band_use(n: &Numeric, o: DVec2, area: f64, center: DVec2, inertia: f64, rel: f64) -> [f64; 3] {
    let (raw, band) = (n.raw, n.band);
    let gyration = (raw.second / raw.area).sqrt();
    let c = o + raw.first / raw.area;
    let i = raw.second - raw.area * (c - o).length_squared();
    let center_band = band.first.x / raw.area + rel * (center.length() + gyration);
    [
        (area - raw.area).abs() / (band.area + rel * raw.area),
        (center - c).length() / center_band,
        (inertia - i).abs() / (band.second + raw.area * center_band * center_band + rel * i),
    ]
}

#[test]
fn random_shapes_match_numerical_integration_within_the_sample_band() {
    let mut rng = F64Rng::new(0x1a7e);
    let (mut worst, mut worst_reference) = ([0.0f64; 3], [0.0f64; 3]);
    let mut widest = 0.0f64;
    let mut samples = 0;
    let cases = 80;
    for case in 0..cases {
        // Offsets up to 50 sizes: farther, f32 sample points round by more than the finest
        // cells (the Green test covers far shapes).
        let (size, offset) = random_placement(&mut rng, 50.0);
        let shape = random_shape(&mut rng, size, offset);
        let density = rng.log_range(1e-2, 1e3) as f32;
        let m = shape.mass_properties(density).unwrap();
        let ex = reference(&shape);
        let n = integrate_parts(&shape, ex.center);
        samples += n.samples;
        widest = widest.max(n.band.area / n.raw.area);
        let rho = f64::from(density);
        let got = band_use(&n, ex.center, f64::from(m.mass) / rho, d(m.center), f64::from(m.inertia) / rho, 1e-6);
        let reference = band_use(&n, ex.center, ex.area, ex.center, ex.inertia, 0.0);
        for (w, e) in worst.iter_mut().zip(got) {
            *w = w.max(e);
        }
        for (w, e) in worst_reference.iter_mut().zip(reference) {
            *w = w.max(e);
        }
        assert!(
            got.iter().chain(&reference).all(|e| *e <= 1.0),
            "case {case}: {shape:?}: {m:?} uses {got:.2?} of the integral's band, the reference {ex:?} {reference:.2?}"
        );
    }
    println!(
        "numerical integration, {cases} shapes, {samples} contains_point samples, bands up to {widest:.1e} of the \
         area: worst use of the band (mass, centre, inertia): sapwood {worst:.3?}, the f64 reference \
         {worst_reference:.3?}"
    );
}

#[test]
fn a_compound_of_disjoint_parts_integrates_as_one_region() {
    // With no overlap the sum of the parts is the union, so the whole compound's
    // `contains_point` is the indicator.
    let shape = Shape::compound(vec![
        (Pose::new(Vec2::new(100.0, 40.0), 0.3), Shape::rounded_box(Vec2::new(1.0, 0.4), 0.2).unwrap()),
        (Pose::new(Vec2::new(104.0, 41.0), -1.0), Shape::capsule(Vec2::ZERO, Vec2::new(1.5, 0.0), 0.5).unwrap()),
        (Pose::from_translation(Vec2::new(100.0, 45.0)), Shape::circle(1.2).unwrap()),
    ])
    .unwrap();
    let m = shape.mass_properties(1.0).unwrap();
    let ex = reference(&shape);
    let b = shape.aabb(&Pose::IDENTITY);
    let n = integrate(
        &|p: DVec2| contains_point(&shape, &Pose::IDENTITY, v2(p)).unwrap(),
        d(b.min) - DVec2::splat(0.01),
        d(b.max) + DVec2::splat(0.01),
        ex.center,
    );
    assert!((f64::from(m.mass) - n.raw.area).abs() <= n.band.area, "{m:?} vs {n:?}");
    let c = ex.center + n.raw.first / n.raw.area;
    assert!((d(m.center) - c).length() <= n.band.first.x / n.raw.area + 1e-5, "{m:?} vs {c:?}");
    let i = n.raw.second - n.raw.area * (c - ex.center).length_squared();
    assert!((f64::from(m.inertia) - i).abs() <= n.band.second + 1e-5 * i, "{m:?} vs {i}");
}

// ---- parry2d ---------------------------------------------------------------------------------

#[test]
fn parry_agrees_where_it_is_exact_and_its_known_disagreements_hold() {
    let mut rng = F64Rng::new(0x9a77);
    let mut worst = 0.0f64;
    let (mut rounded_seen, mut capsules_seen) = (0, 0);
    for _ in 0..2000 {
        let size = rng.log_range(1e-2, 1e3);
        let offset = rng.dir() * size * rng.range(0.0, 20.0);
        let shape = random_shape(&mut rng, size, offset);
        let density = rng.log_range(0.1, 10.0) as f32;
        let m = shape.mass_properties(density).unwrap();
        let p = to_parry(&shape).mass_properties(density);
        let (pm, pc, pi) = (
            f64::from(p.mass()),
            DVec2::new(f64::from(p.local_com.x), f64::from(p.local_com.y)),
            f64::from(p.principal_inertia()),
        );
        let rho = f64::from(density);
        let parts = solid_parts(&shape);
        let rounded = parts.iter().any(|(_, s)| match s {
            Shape::Polygon(p) => p.radius() > 0.0,
            Shape::Capsule(_) | Shape::Segment(_) => true,
            _ => false,
        });
        if !rounded {
            let e = ((pm - f64::from(m.mass)).abs() / pm)
                .max((pc - d(m.center)).length() / (pc.length() + size))
                .max((pi - f64::from(m.inertia)).abs() / pi);
            worst = worst.max(e);
            assert!(e < 2e-4, "{shape:?}: sapwood {m:?}, parry mass {pm} com {pc:?} inertia {pi}");
            continue;
        }
        let [(_, part)] = parts.as_slice() else { continue };
        match part {
            Shape::Polygon(poly) => {
                // parry fills the core polygon only.
                rounded_seen += 1;
                let core = Shape::from(sapwood::Polygon::hull(poly.vertices(), 0.0).unwrap());
                let core_mass = f64::from(core.mass_properties(density).unwrap().mass);
                assert!((pm - core_mass).abs() <= 1e-4 * core_mass, "{shape:?}: parry {pm}, core {core_mass}");
                assert!(f64::from(m.mass) > core_mass, "{shape:?}: the rounding adds mass");
            }
            Shape::Capsule(_) | Shape::Segment(_) => {
                // parry's half disc sits 3r/8 beyond the end, not 4r/3π: its inertia is short by
                // m_disc L r (4/3π - 3/8).
                capsules_seen += 1;
                let (a, b, r) = match part {
                    Shape::Capsule(c) => (d(c.a), d(c.b), f64::from(c.radius)),
                    Shape::Segment(s) => (d(s.a), d(s.b), f64::from(s.radius)),
                    _ => unreachable!(),
                };
                let l = (b - a).length();
                let short = rho * PI * r * r * l * r * (4.0 / (3.0 * PI) - 3.0 / 8.0);
                assert!((pm - f64::from(m.mass)).abs() <= 1e-4 * pm, "{shape:?}");
                assert!(
                    (pi + short - f64::from(m.inertia)).abs() <= 1e-4 * pi,
                    "{shape:?}: parry {pi}, sapwood {}",
                    m.inertia
                );
            }
            _ => {}
        }
    }
    assert!(rounded_seen > 50 && capsules_seen > 50, "{rounded_seen} rounded polygons, {capsules_seen} capsules");
    println!("parry2d on sharp shapes and compounds of them: worst relative difference {worst:.2e}");
}
