//! The bad-input matrix: every public entry point tried with NaN, ±infinity, 1e30, zero and
//! negative sizes, degenerate and self-intersecting polygons, stale, removed, forged and doubly
//! removed ids, and operations between steps in either order. Each row asserts its exact result
//! (a typed error, or a documented non-error such as an empty query) and, for world calls, that
//! the world is byte-for-byte unchanged (`to_bytes()` before and after). A panic fails the row.
//!
//! `cargo test --release --test bad_input -- --ignored --nocapture print_matrix` prints the
//! matrix; with `SAPWOOD_WRITE_DOCS=1` it also writes it into `docs/RELIABILITY.md`, between the
//! `<!-- matrix:begin -->` and `<!-- matrix:end -->` lines. A normal test run only reads that
//! file, to check that the published matrix is the one these rows produce.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use sapwood::broad::BroadPhaseKind;
use sapwood::collide;
use sapwood::ecs::{ColliderHandle, HecsSync};
use sapwood::query::{self, CastOptions, SimplexCache, Sweep};
use sapwood::{
    Aabb, Capsule, Chain, ChainOptions, CharacterConfig, CharacterHit, Circle, ColliderDesc, ColliderId, Cuboid,
    Filter, Polygon, Pose, QueryFilter, Ray, Rot, Segment, Shape, Tile, TileMap, Vec2, World, WorldConfig,
};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

/// The ids of the fixture world.
#[derive(Clone, Copy)]
struct Ids {
    /// A live moving collider touching `fixed`.
    a: ColliderId,
    /// A live static collider.
    fixed: ColliderId,
    /// Removed two steps ago (its slot is free again).
    removed: ColliderId,
    /// Inserted since the last step (in no broad phase yet).
    fresh: ColliderId,
    /// Never issued by this world.
    forged: ColliderId,
}

/// A world between steps, with pending work of every kind: a collider inserted, one moved and
/// one removed since the last step, so that a refused call must also leave those untouched.
fn fixture() -> (World, Ids) {
    let mut w = World::new();
    let ground = Shape::cuboid(Vec2::new(10.0, 0.5)).unwrap();
    let fixed = w.insert(ColliderDesc::new(ground, Pose::IDENTITY).fixed()).unwrap();
    let ball = Shape::circle(0.5).unwrap();
    let a = w.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(0.0, 0.9)))).unwrap();
    let removed = w.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(2.0, 0.9)))).unwrap();
    let other = w.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(-2.0, 0.9)))).unwrap();
    let gone = w.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(4.0, 0.9)))).unwrap();
    w.step();
    w.remove(removed).unwrap();
    w.step();
    w.step();
    let fresh = w.insert(ColliderDesc::new(ball.clone(), Pose::from_translation(Vec2::new(6.0, 0.9)))).unwrap();
    w.set_pose(other, Pose::from_translation(Vec2::new(-2.5, 0.9))).unwrap();
    w.remove(gone).unwrap();
    assert_eq!(w.contacts().len(), 2);
    let forged = ColliderId::from_raw_parts(1000, 1);
    (w, Ids { a, fixed, removed, fresh, forged })
}

struct Matrix {
    rows: Vec<[String; 3]>,
    failures: Vec<String>,
}

impl Matrix {
    fn record(&mut self, entry: &str, input: &str, expected: &str, got: Result<String, String>) {
        let got = got.unwrap_or_else(|e| e);
        if got != expected {
            self.failures.push(format!("{entry} × {input}: expected `{expected}`, got `{got}`"));
        }
        self.rows.push([entry.to_owned(), input.to_owned(), got]);
    }

    /// A call on the fixture world that must leave it unchanged.
    fn world(&mut self, entry: &str, input: &str, expected: &str, f: impl FnOnce(&mut World, Ids) -> String) {
        let (mut w, ids) = fixture();
        let before = w.to_bytes();
        let got = catch_unwind(AssertUnwindSafe(|| f(&mut w, ids))).map_err(|_| "PANIC".to_owned());
        let got = got.and_then(|s| if w.to_bytes() == before { Ok(s) } else { Err(format!("{s}, WORLD CHANGED")) });
        self.record(entry, input, expected, got);
    }

    /// A call that needs no world.
    fn pure(&mut self, entry: &str, input: &str, expected: &str, f: impl FnOnce() -> String) {
        let got = catch_unwind(AssertUnwindSafe(f)).map_err(|_| "PANIC".to_owned());
        self.record(entry, input, expected, got);
    }
}

fn r<T, E: std::fmt::Debug>(x: Result<T, E>) -> String {
    match x {
        Ok(_) => "Ok".to_owned(),
        Err(e) => format!("Err({e:?})"),
    }
}

fn v(x: Result<Shape, sapwood::ShapeError>) -> String {
    match x {
        Ok(s) => match s.validate() {
            Ok(()) => "Ok".to_owned(),
            Err(e) => format!("Ok, validate: Err({e:?})"),
        },
        Err(e) => format!("Err({e:?})"),
    }
}

fn hits(out: &[ColliderId]) -> String {
    format!("{} hits", out.len())
}

/// A polygon assembled from raw words (bypassing the constructors): vertices, normals, centroid,
/// radius, count.
fn raw_polygon(vs: &[Vec2], normals: &[Vec2], radius: f32) -> Shape {
    let mut p: Polygon = bytemuck::Zeroable::zeroed();
    let words: &mut [u32] = bytemuck::cast_slice_mut(std::slice::from_mut(&mut p));
    for (i, v) in vs.iter().enumerate() {
        words[2 * i] = v.x.to_bits();
        words[2 * i + 1] = v.y.to_bits();
    }
    for (i, n) in normals.iter().enumerate() {
        words[16 + 2 * i] = n.x.to_bits();
        words[16 + 2 * i + 1] = n.y.to_bits();
    }
    words[34] = radius.to_bits();
    words[35] = vs.len() as u32;
    Shape::from(p)
}

/// A "bow-tie": four vertices whose edges cross, with unit normals.
fn bow_tie() -> Shape {
    let vs = [Vec2::new(0.0, 0.0), Vec2::new(1.0, 1.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)];
    let ns: Vec<Vec2> = (0..4).map(|i| (vs[(i + 1) % 4] - vs[i]).perp().normalize() * -1.0).collect();
    raw_polygon(&vs, &ns, 0.0)
}

fn circle() -> Shape {
    Shape::circle(0.5).unwrap()
}

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

fn bad_poses() -> Vec<(&'static str, Pose, &'static str)> {
    vec![
        ("NaN position", at(NAN, 0.0), "Err(InvalidPose)"),
        ("+inf position", at(INF, 0.0), "Err(InvalidPose)"),
        ("-inf position", at(0.0, -INF), "Err(InvalidPose)"),
        ("1e30 position", at(1e30, 0.0), "Err(OutOfRange)"),
        ("position just past MAX_COORDINATE", at(0.0, -1.000_001e7), "Err(OutOfRange)"),
        ("NaN rotation", Pose { p: Vec2::ZERO, q: Rot { c: NAN, s: 0.0 } }, "Err(InvalidPose)"),
        ("non-unit rotation (2, 0)", Pose { p: Vec2::ZERO, q: Rot { c: 2.0, s: 0.0 } }, "Err(InvalidPose)"),
        ("zero rotation (0, 0)", Pose { p: Vec2::ZERO, q: Rot { c: 0.0, s: 0.0 } }, "Err(InvalidPose)"),
        ("angle +inf (Pose::new)", Pose::new(Vec2::ZERO, INF), "Err(InvalidPose)"),
    ]
}

fn bad_shapes() -> Vec<(&'static str, Shape, &'static str)> {
    vec![
        ("circle radius NaN", Shape::Circle(Circle { radius: NAN }), "Err(InvalidShape(NonFinite))"),
        ("circle radius +inf", Shape::Circle(Circle { radius: INF }), "Err(InvalidShape(NonFinite))"),
        ("circle radius 0", Shape::Circle(Circle { radius: 0.0 }), "Err(InvalidShape(NonPositiveSize))"),
        ("circle radius -1", Shape::Circle(Circle { radius: -1.0 }), "Err(InvalidShape(NonPositiveSize))"),
        ("circle radius 1e30", Shape::Circle(Circle { radius: 1e30 }), "Err(InvalidShape(TooLarge))"),
        (
            "circle radius 1e-10 (below MIN_SHAPE_SIZE)",
            Shape::Circle(Circle { radius: 1e-10 }),
            "Err(InvalidShape(TooSmall))",
        ),
        (
            "cuboid half-extents 1e-10 (below MIN_SHAPE_SIZE)",
            Shape::Cuboid(Cuboid { half_extents: Vec2::splat(1e-10) }),
            "Err(InvalidShape(TooSmall))",
        ),
        (
            "capsule 1e-10 long, radius 1e-10",
            Shape::Capsule(Capsule { a: Vec2::ZERO, b: Vec2::new(1e-10, 0.0), radius: 1e-10 }),
            "Err(InvalidShape(TooSmall))",
        ),
        (
            "cuboid half-extent 0",
            Shape::Cuboid(Cuboid { half_extents: Vec2::new(0.0, 1.0) }),
            "Err(InvalidShape(NonPositiveSize))",
        ),
        (
            "cuboid half-extent -inf",
            Shape::Cuboid(Cuboid { half_extents: Vec2::new(1.0, -INF) }),
            "Err(InvalidShape(NonFinite))",
        ),
        (
            "capsule a == b",
            Shape::Capsule(Capsule { a: Vec2::ONE, b: Vec2::ONE, radius: 1.0 }),
            "Err(InvalidShape(TooFewPoints))",
        ),
        (
            "capsule end 1e30",
            Shape::Capsule(Capsule { a: Vec2::ZERO, b: Vec2::splat(1e30), radius: 1.0 }),
            "Err(InvalidShape(TooLarge))",
        ),
        (
            "segment radius NaN",
            Shape::Segment(Segment { a: Vec2::ZERO, b: Vec2::X, radius: NAN }),
            "Err(InvalidShape(NonFinite))",
        ),
        (
            "segment radius -1",
            Shape::Segment(Segment { a: Vec2::ZERO, b: Vec2::X, radius: -1.0 }),
            "Err(InvalidShape(NegativeRadius))",
        ),
        (
            "segment a == b",
            Shape::Segment(Segment { a: Vec2::ONE, b: Vec2::ONE, radius: 0.0 }),
            "Err(InvalidShape(TooFewPoints))",
        ),
        ("polygon of zero bytes (count 0)", raw_polygon(&[], &[], 0.0), "Err(InvalidShape(TooFewPoints))"),
        ("self-intersecting polygon (bow-tie)", bow_tie(), "Err(InvalidShape(Collinear))"),
        (
            "polygon with NaN vertex",
            raw_polygon(&[Vec2::ZERO, Vec2::X, Vec2::new(NAN, 1.0)], &[Vec2::NEG_Y, Vec2::X, Vec2::NEG_X], 0.0),
            "Err(InvalidShape(NonFinite))",
        ),
        (
            "clockwise triangle",
            raw_polygon(&[Vec2::ZERO, Vec2::Y, Vec2::X], &[Vec2::NEG_X, Vec2::ONE.normalize(), Vec2::NEG_Y], 0.0),
            "Err(InvalidShape(Collinear))",
        ),
        (
            "polygon radius -1",
            Shape::from(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::Y], 0.0).map(|p| p.scaled_radius(-1.0)).unwrap()),
            "Err(InvalidShape(NegativeRadius))",
        ),
    ]
}

/// `Polygon` keeps its fields private; a negative radius can only come from raw bytes.
trait ScaledRadius {
    fn scaled_radius(self, r: f32) -> Polygon;
}

impl ScaledRadius for Polygon {
    fn scaled_radius(mut self, r: f32) -> Polygon {
        let words: &mut [u32] = bytemuck::cast_slice_mut(std::slice::from_mut(&mut self));
        words[34] = r.to_bits();
        self
    }
}

fn build() -> Matrix {
    let mut m = Matrix { rows: Vec::new(), failures: Vec::new() };
    let tri = [Vec2::ZERO, Vec2::X, Vec2::Y];

    // ---- Shape constructors ----------------------------------------------------------------
    for (input, x, want) in [
        ("NaN", NAN, "Err(NonFinite)"),
        ("+inf", INF, "Err(NonFinite)"),
        ("-inf", -INF, "Err(NonFinite)"),
        ("0", 0.0, "Err(NonPositiveSize)"),
        ("-1", -1.0, "Err(NonPositiveSize)"),
        ("1e30", 1e30, "Err(TooLarge)"),
    ] {
        m.pure("Shape::circle(r)", input, want, || v(Shape::circle(x)));
        m.pure("Shape::cuboid(h)", input, want, || v(Shape::cuboid(Vec2::new(1.0, x))));
        m.pure("Shape::capsule(a, b, r)", &format!("radius {input}"), want, || {
            v(Shape::capsule(Vec2::ZERO, Vec2::X, x))
        });
    }
    m.pure("Shape::capsule(a, b, r)", "a == b", "Err(TooFewPoints)", || v(Shape::capsule(Vec2::X, Vec2::X, 1.0)));
    m.pure("Shape::capsule(a, b, r)", "NaN end", "Err(NonFinite)", || v(Shape::capsule(Vec2::NAN, Vec2::X, 1.0)));
    m.pure("Shape::capsule(a, b, r)", "-inf end", "Err(NonFinite)", || {
        v(Shape::capsule(Vec2::ZERO, Vec2::new(-INF, 0.0), 1.0))
    });
    m.pure("Shape::capsule(a, b, r)", "1e30 end", "Err(TooLarge)", || {
        v(Shape::capsule(Vec2::ZERO, Vec2::splat(1e30), 1.0))
    });
    m.pure("Shape::capsule(a, b, r)", "ends at ±1e20", "Err(TooLarge)", || {
        v(Shape::capsule(Vec2::new(-1e20, 0.0), Vec2::new(1e20, 0.0), 1.0))
    });
    m.pure("Shape::cuboid(h)", "half-extent 2e6", "Err(TooLarge)", || v(Shape::cuboid(Vec2::new(2e6, 1.0))));
    for (input, a, b, radius, want) in [
        ("a == b", Vec2::X, Vec2::X, 0.0, "Err(TooFewPoints)"),
        ("NaN end", Vec2::NAN, Vec2::X, 0.0, "Err(NonFinite)"),
        ("+inf end", Vec2::ZERO, Vec2::new(INF, 0.0), 0.0, "Err(NonFinite)"),
        ("1e30 end", Vec2::ZERO, Vec2::splat(1e30), 0.0, "Err(TooLarge)"),
        ("radius NaN", Vec2::ZERO, Vec2::X, NAN, "Err(NonFinite)"),
        ("radius -1", Vec2::ZERO, Vec2::X, -1.0, "Err(NegativeRadius)"),
        ("radius 1e30", Vec2::ZERO, Vec2::X, 1e30, "Err(TooLarge)"),
    ] {
        m.pure("Shape::rounded_segment(a, b, r) / Shape::segment", input, want, || {
            if radius == 0.0 {
                assert_eq!(Shape::segment(a, b), Shape::rounded_segment(a, b, 0.0));
            }
            v(Shape::rounded_segment(a, b, radius))
        });
    }
    let open = ChainOptions::default();
    let closed = ChainOptions { closed: true, one_sided: true };
    for (input, vs, options, want) in [
        ("no vertices", vec![], open, "Err(TooFewPoints)"),
        ("one vertex", vec![Vec2::ZERO], open, "Err(TooFewPoints)"),
        ("two vertices, closed", vec![Vec2::ZERO, Vec2::X], closed, "Err(TooFewPoints)"),
        ("NaN vertex", vec![Vec2::ZERO, Vec2::new(NAN, 0.0)], open, "Err(NonFinite)"),
        ("-inf vertex", vec![Vec2::ZERO, Vec2::new(0.0, -INF)], open, "Err(NonFinite)"),
        ("repeated vertex", vec![Vec2::ZERO, Vec2::X, Vec2::X, Vec2::Y], open, "Err(DuplicateVertex)"),
        ("closed, last == first", vec![Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::ZERO], closed, "Err(DuplicateVertex)"),
        (
            "vertices 1e-32 apart (squared length underflows)",
            vec![Vec2::ZERO, Vec2::new(1e-32, 0.0), Vec2::X],
            open,
            "Err(DuplicateVertex)",
        ),
        ("1e30 vertex", vec![Vec2::ZERO, Vec2::splat(1e30)], open, "Err(TooLarge)"),
        ("2^20 + 1 vertices", vec![Vec2::ZERO; sapwood::MAX_CHAIN_VERTICES + 1], open, "Err(TooManyVertices)"),
    ] {
        m.pure("Chain::new(vertices, options) / Shape::chain", input, want, || {
            assert_eq!(Shape::chain(vs.clone(), options), Chain::new(vs.clone(), options).map(Shape::Chain));
            v(Shape::chain(vs, options))
        });
    }
    for (input, text, want) in [
        ("empty text", "", "Err(Empty)"),
        ("blank lines only", "\n   \n", "Err(Empty)"),
        ("ragged rows", "###\n##", "Err(RaggedRow { row: 1, expected: 3, found: 2 })"),
        ("unknown character", "#?#", "Err(UnknownTile { row: 0, column: 1, found: '?' })"),
        ("2^22 + 1 cells", "", "Err(TooLarge)"),
    ] {
        m.pure("TileMap::parse(text) / TileMap::new", input, want, || {
            if input.starts_with("2^22") {
                let row = vec![Tile::Solid; 4097];
                return r(TileMap::new(&vec![row; 1024]));
            }
            r(TileMap::parse(text))
        });
    }
    for (input, size, origin, want) in [
        ("cell size 0", 0.0, Vec2::ZERO, "Err(InvalidLayout)"),
        ("cell size -1", -1.0, Vec2::ZERO, "Err(InvalidLayout)"),
        ("cell size NaN", NAN, Vec2::ZERO, "Err(InvalidLayout)"),
        ("origin +inf", 1.0, Vec2::new(INF, 0.0), "Err(InvalidLayout)"),
        ("cell size 1e6 (outline beyond MAX_SHAPE_SIZE)", 1e6, Vec2::ZERO, "Err(Shape(TooLarge))"),
    ] {
        m.pure("TileMap::chains(cell_size, origin, one_sided)", input, want, || {
            r(TileMap::parse("##\n#.").unwrap().chains(size, origin, true))
        });
    }
    let poly_cases: Vec<(&str, Vec<Vec2>, f32, &str)> = vec![
        ("NaN point", vec![Vec2::ZERO, Vec2::X, Vec2::new(NAN, 1.0)], 0.0, "Err(NonFinite)"),
        ("+inf point", vec![Vec2::ZERO, Vec2::X, Vec2::new(INF, 1.0)], 0.0, "Err(NonFinite)"),
        ("radius NaN", tri.to_vec(), NAN, "Err(NonFinite)"),
        ("radius -1", tri.to_vec(), -1.0, "Err(NegativeRadius)"),
        ("no points", vec![], 0.0, "Err(TooFewPoints)"),
        ("two points", vec![Vec2::ZERO, Vec2::X], 0.0, "Err(TooFewPoints)"),
        ("three equal points", vec![Vec2::ONE; 3], 0.0, "Err(TooFewPoints)"),
        ("collinear points", vec![Vec2::ZERO, Vec2::X, Vec2::new(2.0, 0.0)], 0.0, "Err(Collinear)"),
        ("self-intersecting order (bow-tie): hull taken", vec![Vec2::ZERO, Vec2::ONE, Vec2::X, Vec2::Y], 0.0, "Ok"),
        (
            "12 points on a circle",
            (0..12).map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / 12.0)).collect(),
            0.0,
            "Err(TooManyVertices)",
        ),
        ("1e30 coordinates", vec![Vec2::ZERO, Vec2::new(1e30, 0.0), Vec2::new(0.0, 1e30)], 0.0, "Err(Collinear)"),
        ("1e15 coordinates", vec![Vec2::ZERO, Vec2::new(1e15, 0.0), Vec2::new(0.0, 1e15)], 0.0, "Err(TooLarge)"),
        ("1e8 coordinates", vec![Vec2::ZERO, Vec2::new(1e8, 0.0), Vec2::new(0.0, 1e8)], 0.0, "Err(TooLarge)"),
    ];
    for (input, pts, radius, want) in poly_cases {
        m.pure("Shape::polygon / Polygon::hull", input, want, || {
            let a = Shape::polygon(&pts, radius);
            assert_eq!(a, Polygon::hull(&pts, radius).map(Shape::from));
            v(a)
        });
    }
    for (input, n, cr, radius, want) in [
        ("n = 2", 2, 1.0, 0.0, "Err(TooFewPoints)"),
        ("n = 9", 9, 1.0, 0.0, "Err(TooManyVertices)"),
        ("circumradius NaN", 5, NAN, 0.0, "Err(NonFinite)"),
        ("circumradius 0", 5, 0.0, 0.0, "Err(NonPositiveSize)"),
        ("circumradius -1", 5, -1.0, 0.0, "Err(NonPositiveSize)"),
        ("circumradius +inf", 5, INF, 0.0, "Err(NonFinite)"),
        ("radius NaN", 5, 1.0, NAN, "Err(NonFinite)"),
        ("radius -1", 5, 1.0, -1.0, "Err(NegativeRadius)"),
    ] {
        m.pure("Polygon::regular(n, cr, r)", input, want, || v(Polygon::regular(n, cr, radius).map(Shape::from)));
    }
    for (input, h, radius, want) in [
        ("half-extent NaN", Vec2::new(NAN, 1.0), 0.0, "Err(NonFinite)"),
        ("half-extent 0", Vec2::new(0.0, 1.0), 0.0, "Err(NonPositiveSize)"),
        ("half-extent -1", Vec2::new(1.0, -1.0), 0.0, "Err(NonPositiveSize)"),
        ("half-extent +inf", Vec2::new(INF, 1.0), 0.0, "Err(NonFinite)"),
        ("half-extent 1e30", Vec2::new(1e30, 1e30), 0.0, "Err(TooFewPoints)"),
        ("radius NaN", Vec2::ONE, NAN, "Err(NonFinite)"),
        ("radius -1", Vec2::ONE, -1.0, "Err(NegativeRadius)"),
    ] {
        m.pure("Polygon::rounded_box / Shape::rounded_box", input, want, || {
            let a = Shape::rounded_box(h, radius);
            assert_eq!(a, Polygon::rounded_box(h, radius).map(Shape::from));
            v(a)
        });
    }
    let square = Shape::rounded_box(Vec2::ONE, 0.1).unwrap();
    for (input, f, want_c, want_p) in [
        ("factor NaN", NAN, "Err(NonFinite)", "Err(NonFinite)"),
        ("factor +inf", INF, "Err(NonFinite)", "Err(NonFinite)"),
        ("factor 0", 0.0, "Err(NonPositiveSize)", "Err(NonPositiveSize)"),
        ("factor -1", -1.0, "Err(NonPositiveSize)", "Err(NonPositiveSize)"),
        ("factor 1e30", 1e30, "Err(TooLarge)", "Err(TooLarge)"),
        ("factor f32::MAX", f32::MAX, "Err(NonFinite)", "Err(TooLarge)"),
        ("factor 1e-9 (to the size floor)", 1e-9, "Ok", "Ok"),
        ("factor 1e-12 (below MIN_SHAPE_SIZE)", 1e-12, "Err(TooSmall)", "Err(TooSmall)"),
        ("factor 1e-45 (subnormal result)", 1e-45, "Err(TooSmall)", "Err(TooSmall)"),
    ] {
        m.pure("Shape::scaled (circle r=2)", input, want_c, || r(Shape::circle(2.0).unwrap().scaled(f)));
        m.pure("Shape::scaled (rounded box)", input, want_p, || r(square.scaled(f)));
    }
    for (input, s, want) in bad_shapes() {
        m.pure("Shape::validate", input, &want.replace("InvalidShape(", "").replacen("))", ")", 1), || r(s.validate()));
    }
    let unit = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    for (input, shape, density, want) in [
        ("density NaN", unit.clone(), NAN, "Err(NonFinite)"),
        ("density +inf", unit.clone(), INF, "Err(NonFinite)"),
        ("density -inf", unit.clone(), -INF, "Err(NonFinite)"),
        ("density -1", unit.clone(), -1.0, "Err(NegativeDensity)"),
        ("density -0 (zero)", unit.clone(), -0.0, "Ok(mass 0)"),
        (
            "density f32::MAX, 2e6 box (mass overflows)",
            Shape::cuboid(Vec2::splat(1e6)).unwrap(),
            f32::MAX,
            "Err(TooLarge)",
        ),
        ("circle radius NaN (from fields)", Shape::Circle(Circle { radius: NAN }), 1.0, "Err(NonFinite)"),
        ("bow-tie polygon (from bytes)", bow_tie(), 1.0, "Err(Collinear)"),
        ("bare segment (no area)", Shape::segment(Vec2::ZERO, Vec2::X).unwrap(), 1.0, "Ok(mass 0)"),
    ] {
        m.pure("Shape::mass_properties(density)", input, want, || match shape.mass_properties(density) {
            Ok(mp) => format!("Ok(mass {})", mp.mass),
            Err(e) => format!("Err({e:?})"),
        });
    }

    // ---- World::with_config ----------------------------------------------------------------
    let d = WorldConfig::default();
    let bounds = Aabb::new(Vec2::ZERO, Vec2::splat(10.0));
    for (input, c) in [
        ("aabb_margin NaN", WorldConfig { aabb_margin: NAN, ..d }),
        ("aabb_margin +inf", WorldConfig { aabb_margin: INF, ..d }),
        ("aabb_margin -1", WorldConfig { aabb_margin: -1.0, ..d }),
        ("aabb_margin 1e30", WorldConfig { aabb_margin: 1e30, ..d }),
        ("aabb_margin_ratio NaN", WorldConfig { aabb_margin_ratio: NAN, ..d }),
        ("aabb_margin_ratio -1", WorldConfig { aabb_margin_ratio: -1.0, ..d }),
        ("aabb_margin_ratio 1e30", WorldConfig { aabb_margin_ratio: 1e30, ..d }),
        ("aabb_motion_factor NaN", WorldConfig { aabb_motion_factor: NAN, ..d }),
        ("aabb_motion_factor -1", WorldConfig { aabb_motion_factor: -1.0, ..d }),
        ("aabb_motion_factor 1e30", WorldConfig { aabb_motion_factor: 1e30, ..d }),
        ("large_extent 0", WorldConfig { large_extent: 0.0, ..d }),
        ("large_extent NaN", WorldConfig { large_extent: NAN, ..d }),
        ("large_extent -1", WorldConfig { large_extent: -1.0, ..d }),
        ("grid cell_size 0", WorldConfig { broad_phase: BroadPhaseKind::UniformGrid { bounds, cell_size: 0.0 }, ..d }),
        (
            "grid cell_size NaN",
            WorldConfig { broad_phase: BroadPhaseKind::UniformGrid { bounds, cell_size: NAN }, ..d },
        ),
        (
            "grid bounds inverted",
            WorldConfig {
                broad_phase: BroadPhaseKind::UniformGrid { bounds: Aabb::new(Vec2::ONE, Vec2::ZERO), cell_size: 1.0 },
                ..d
            },
        ),
        (
            "grid bounds infinite",
            WorldConfig {
                broad_phase: BroadPhaseKind::UniformGrid {
                    bounds: Aabb::new(Vec2::ZERO, Vec2::splat(INF)),
                    cell_size: 1.0,
                },
                ..d
            },
        ),
        (
            "spatial hash cell_size -1",
            WorldConfig { broad_phase: BroadPhaseKind::SpatialHash { cell_size: -1.0 }, ..d },
        ),
        (
            "spatial hash cell_size +inf",
            WorldConfig { broad_phase: BroadPhaseKind::SpatialHash { cell_size: INF }, ..d },
        ),
        (
            "quadtree bounds NaN",
            WorldConfig { broad_phase: BroadPhaseKind::Quadtree { bounds: Aabb::new(Vec2::NAN, Vec2::ONE) }, ..d },
        ),
    ] {
        m.pure("World::with_config", input, "Err(InvalidConfig)", || r(World::with_config(c)));
    }
    m.pure("World::with_config", "large_extent +inf (never large)", "Ok", || {
        r(World::with_config(WorldConfig { large_extent: INF, ..d }))
    });

    // ---- Mutations -------------------------------------------------------------------------
    for (input, pose, want) in bad_poses() {
        m.world("World::insert", input, want, |w, _| r(w.insert(ColliderDesc::new(circle(), pose))));
        m.world("World::set_pose", input, want, |w, ids| r(w.set_pose(ids.a, pose)));
        m.world("World::teleport", input, want, |w, ids| r(w.teleport(ids.a, pose)));
    }
    for (input, shape, want) in bad_shapes() {
        m.world("World::insert", input, want, |w, _| r(w.insert(ColliderDesc::new(shape.clone(), Pose::IDENTITY))));
        m.world("World::set_shape", input, want, |w, ids| r(w.set_shape(ids.a, shape.clone())));
    }
    m.world("World::insert_batch", "3 good + 1 NaN pose (all or none)", "Err(InvalidPose), out unchanged", |w, _| {
        let mut descs = vec![ColliderDesc::new(circle(), at(1.0, 5.0)); 3];
        descs.push(ColliderDesc::new(circle(), at(NAN, 0.0)));
        let mut out = vec![];
        let e = r(w.insert_batch(&descs, &mut out));
        format!("{e}, out {}", if out.is_empty() { "unchanged" } else { "CHANGED" })
    });
    m.world("World::insert_batch", "good + self-intersecting polygon", "Err(InvalidShape(Collinear))", |w, _| {
        let descs = [ColliderDesc::new(circle(), at(1.0, 5.0)), ColliderDesc::new(bow_tie(), at(1.0, 5.0))];
        r(w.insert_batch(&descs, &mut vec![]))
    });
    for (input, which) in
        [("removed id", 0), ("forged id (never issued)", 1), ("id with generation 7 of a live slot", 2)]
    {
        let id = |ids: Ids| match which {
            0 => ids.removed,
            1 => ids.forged,
            _ => ColliderId::from_raw_parts(ids.a.index(), 7),
        };
        m.world("World::remove", input, "Err(StaleId)", |w, ids| r(w.remove(id(ids))));
        m.world("World::set_pose", input, "Err(StaleId)", |w, ids| r(w.set_pose(id(ids), Pose::IDENTITY)));
        m.world("World::teleport", input, "Err(StaleId)", |w, ids| r(w.teleport(id(ids), Pose::IDENTITY)));
        m.world("World::set_shape", input, "Err(StaleId)", |w, ids| r(w.set_shape(id(ids), circle())));
        m.world("World::set_user_data", input, "Err(StaleId)", |w, ids| r(w.set_user_data(id(ids), 9)));
        m.world("World::refilter", input, "Err(StaleId)", |w, ids| r(w.refilter(id(ids))));
        m.world("World::set_filter", input, "Err(StaleId)", |w, ids| r(w.set_filter(id(ids), Filter::default())));
        m.world("World::set_sensor", input, "Err(StaleId)", |w, ids| r(w.set_sensor(id(ids), true)));
        m.world("World::set_static", input, "Err(StaleId)", |w, ids| r(w.set_static(id(ids), true)));
        m.world("World::set_bullet", input, "Err(StaleId)", |w, ids| r(w.set_bullet(id(ids), true)));
        m.world("World::set_enabled", input, "Err(StaleId)", |w, ids| r(w.set_enabled(id(ids), false)));
        m.world("World::set_contact_events", input, "Err(StaleId)", |w, ids| r(w.set_contact_events(id(ids), false)));
        m.world("World::set_sensor_events", input, "Err(StaleId)", |w, ids| r(w.set_sensor_events(id(ids), false)));
        m.world("World::set_options", input, "Err(StaleId)", |w, ids| {
            r(w.set_options(id(ids), sapwood::ColliderOptions::fixed()))
        });
        m.world("World::options", input, "Err(StaleId)", |w, ids| r(w.options(id(ids))));
        m.world(
            "World::filter / is_static / is_sensor / is_bullet / is_enabled / contact_events / sensor_events",
            input,
            "Err(StaleId) ×7",
            |w, ids| {
                let id = id(ids);
                let flags = [
                    w.is_static(id),
                    w.is_sensor(id),
                    w.is_bullet(id),
                    w.is_enabled(id),
                    w.contact_events(id),
                    w.sensor_events(id),
                ];
                let all: Vec<_> = std::iter::once(w.filter(id).err()).chain(flags.iter().map(|f| f.err())).collect();
                if all.iter().all(|e| *e == Some(sapwood::WorldError::StaleId)) {
                    "Err(StaleId) ×7".into()
                } else {
                    format!("{all:?}")
                }
            },
        );
        m.world("World::pose / shape / aabb / user_data", input, "Err(StaleId) ×4", |w, ids| {
            let id = id(ids);
            let all = [w.pose(id).err(), w.shape(id).err(), w.aabb(id).err(), w.user_data(id).err()];
            if all.iter().all(|e| *e == Some(sapwood::WorldError::StaleId)) {
                "Err(StaleId) ×4".into()
            } else {
                format!("{all:?}")
            }
        });
        m.world("World::contacts_of", input, "Err(StaleId), no callback", |w, ids| {
            let mut called = false;
            let e = r(w.contacts_of(id(ids), |_| called = true));
            format!("{e}{}", if called { ", CALLED" } else { ", no callback" })
        });
        m.world("World::contains", input, "false", |w, ids| w.contains(id(ids)).to_string());
    }

    // ---- Orders between steps --------------------------------------------------------------
    // These change the world on purpose (the first call); the row checks the second call.
    let mut order =
        |entry: &str, input: &str, want: &str, first: fn(&mut World, Ids), then: fn(&mut World, Ids) -> String| {
            m.world(entry, input, want, |w, ids| {
                let mut w2 = World::from_bytes(&w.to_bytes()).unwrap();
                first(&mut w2, ids);
                let before = w2.to_bytes();
                let s = then(&mut w2, ids);
                if w2.to_bytes() == before { s } else { format!("{s}, WORLD CHANGED") }
            });
        };
    order(
        "World::remove",
        "double removal (second call)",
        "Err(StaleId)",
        |w, ids| w.remove(ids.a).unwrap(),
        |w, ids| r(w.remove(ids.a)),
    );
    order(
        "World::remove",
        "removal of a collider inserted since the last step, twice",
        "Err(StaleId)",
        |w, ids| w.remove(ids.fresh).unwrap(),
        |w, ids| r(w.remove(ids.fresh)),
    );
    order(
        "World::set_pose",
        "after remove, before step",
        "Err(StaleId)",
        |w, ids| w.remove(ids.a).unwrap(),
        |w, ids| r(w.set_pose(ids.a, Pose::IDENTITY)),
    );
    order(
        "World::set_shape",
        "after remove, after step",
        "Err(StaleId)",
        |w, ids| {
            w.remove(ids.a).unwrap();
            w.step();
        },
        |w, ids| r(w.set_shape(ids.a, circle())),
    );
    order(
        "World::remove",
        "old id after its slot was reused",
        "Err(StaleId)",
        |w, ids| {
            w.remove(ids.a).unwrap();
            w.step();
            w.insert(ColliderDesc::new(circle(), Pose::IDENTITY)).unwrap();
        },
        |w, ids| r(w.remove(ids.a)),
    );
    order(
        "World::query_point",
        "removed since the last step",
        "0 hits",
        |w, ids| w.remove(ids.a).unwrap(),
        |w, _| {
            let mut out = vec![];
            w.query_point(
                Vec2::new(0.0, 0.9),
                &QueryFilter { include_sensors: true, mask: u32::MAX, exclude: None },
                &mut out,
            )
            .unwrap();
            hits(&out)
        },
    );
    m.world("World::step", "insert then remove before a step: no events", "0 events", |w, _| {
        let mut w2 = World::from_bytes(&w.to_bytes()).unwrap();
        w2.step();
        let id = w2.insert(ColliderDesc::new(circle(), Pose::IDENTITY)).unwrap();
        w2.remove(id).unwrap();
        w2.step();
        format!("{} events", w2.events().len())
    });
    m.world("World::contacts_of", "static collider (live)", "Ok, 2 contacts", |w, ids| {
        let mut n = 0;
        let e = r(w.contacts_of(ids.fixed, |_| n += 1));
        format!("{e}, {n} contacts")
    });
    m.world(
        "World::store_impulses",
        "NaN and ±inf impulses (on a copy), then a step",
        "2 kept, 1 new at zero, round trip true",
        |w, _| {
            let mut w2 = World::from_bytes(&w.to_bytes()).unwrap();
            w2.store_impulses(|_, _| [(NAN, INF), (-INF, 1e30)]);
            w2.step();
            // The fixture's contacts are balls on the ground, one point each; the fresh ball
            // begins touching at this step.
            let first = |c: &sapwood::Contact| c.manifold.points[0];
            let kept =
                w2.contacts().iter().filter(|c| first(c).normal_impulse.is_nan() && first(c).tangent_impulse == INF);
            let new =
                w2.contacts().iter().filter(|c| (first(c).normal_impulse, first(c).tangent_impulse) == (0.0, 0.0));
            let copy = World::from_bytes(&w2.to_bytes());
            let round_trip = copy.is_ok_and(|c| c.state_hash() == w2.state_hash());
            format!("{} kept, {} new at zero, round trip {round_trip}", kept.count(), new.count())
        },
    );

    // ---- Queries ---------------------------------------------------------------------------
    let f = QueryFilter::default();
    let q = |x: Result<String, query::QueryError>| match x {
        Ok(s) => s,
        Err(e) => format!("Err({e:?})"),
    };
    for (input, bx, want) in [
        ("NaN box", Aabb::new(Vec2::NAN, Vec2::ONE), "Err(NonFinite)"),
        ("inverted box", Aabb::new(Vec2::splat(5.0), Vec2::splat(-5.0)), "0 hits"),
        ("empty box (Aabb::EMPTY)", Aabb::EMPTY, "0 hits"),
        ("infinite box (everything)", Aabb::new(Vec2::splat(-INF), Vec2::splat(INF)), "4 hits"),
        ("1e30 box", Aabb::new(Vec2::splat(-1e30), Vec2::splat(1e30)), "4 hits"),
    ] {
        m.world("World::query_aabb", input, want, |w, _| {
            let mut out = vec![];
            q(w.query_aabb(&bx, &f, &mut out).map(|()| hits(&out)))
        });
    }
    for (input, p, want) in [
        ("NaN point", Vec2::NAN, "Err(NonFinite)"),
        ("+inf point", Vec2::new(INF, 0.0), "Err(NonFinite)"),
        ("1e30 point", Vec2::splat(1e30), "0 hits"),
    ] {
        m.world("World::query_point", input, want, |w, _| {
            let mut out = vec![];
            q(w.query_point(p, &f, &mut out).map(|()| hits(&out)))
        });
        m.world("World::query_point_parts", input, want, |w, _| {
            let mut out = vec![];
            q(w.query_point_parts(p, &f, &mut out).map(|()| format!("{} hits", out.len())))
        });
    }
    for (input, shape, pose, want) in [
        ("NaN circle probe", Shape::Circle(Circle { radius: NAN }), Pose::IDENTITY, "Err(InvalidShape)"),
        (
            "zero-size cuboid probe",
            Shape::Cuboid(Cuboid { half_extents: Vec2::ZERO }),
            Pose::IDENTITY,
            "Err(InvalidShape)",
        ),
        ("bow-tie probe", bow_tie(), Pose::IDENTITY, "Err(InvalidShape)"),
        ("probe at NaN pose", circle(), at(NAN, 0.0), "Err(NonFinite)"),
        ("probe at +inf pose", circle(), at(INF, 0.0), "Err(NonFinite)"),
        ("probe with non-unit rotation", circle(), Pose { p: Vec2::ZERO, q: Rot { c: 3.0, s: 0.0 } }, "Err(NonFinite)"),
        (
            "box probe scaled ×3 by a (3, 0) rotation",
            Shape::cuboid(Vec2::splat(0.5)).unwrap(),
            Pose { p: Vec2::new(0.0, 2.0), q: Rot { c: 3.0, s: 0.0 } },
            "Err(NonFinite)",
        ),
    ] {
        m.world("World::query_shape", input, want, |w, _| {
            let mut out = vec![];
            q(w.query_shape(&shape, &pose, &f, &mut out).map(|()| hits(&out)))
        });
        m.world("World::query_shape_parts", input, want, |w, _| {
            let mut out = vec![];
            q(w.query_shape_parts(&shape, &pose, &f, &mut out).map(|()| format!("{} hits", out.len())))
        });
    }
    let ok_ray = Ray::new(Vec2::new(-20.0, 0.9), Vec2::X);
    let bad = "Err(NonFinite) / Err(NonFinite)";
    for (input, ray, max_t, want) in [
        ("NaN origin", Ray::new(Vec2::new(NAN, 0.0), Vec2::X), 100.0, bad),
        ("+inf origin", Ray::new(Vec2::new(INF, 0.0), Vec2::X), 100.0, bad),
        ("NaN dir", Ray::new(Vec2::ZERO, Vec2::NAN), 100.0, bad),
        ("-inf dir", Ray::new(Vec2::ZERO, Vec2::new(-INF, 0.0)), 100.0, bad),
        ("zero dir, origin outside", Ray::new(Vec2::new(-20.0, 0.9), Vec2::ZERO), 100.0, "None / 0 hits"),
        ("NaN max_t", ok_ray, NAN, bad),
        ("max_t -1", ok_ray, -1.0, "Err(Negative) / Err(Negative)"),
        ("max_t 0, origin outside", ok_ray, 0.0, "None / 0 hits"),
        ("max_t +inf (allowed)", ok_ray, INF, "Some / 3 hits"),
        ("dir of length 1e20", Ray::new(Vec2::new(-20.0, 0.9), Vec2::X * 1e20), 1.0, "Some / 3 hits"),
        ("dir of length 1e-30", Ray::new(Vec2::new(-20.0, 0.9), Vec2::X * 1e-30), 1e32, "Some / 3 hits"),
        ("1e30 origin", Ray::new(Vec2::splat(1e30), Vec2::NEG_ONE), 100.0, "None / 0 hits"),
    ] {
        m.world("World::ray_cast / ray_cast_all", input, want, |w, _| {
            let one = q(w.ray_cast(&ray, max_t, &f).map(|h| if h.is_some() { "Some" } else { "None" }.to_string()));
            let mut all = vec![];
            let all = q(w.ray_cast_all(&ray, max_t, &f, &mut all).map(|()| format!("{} hits", all.len())));
            format!("{one} / {all}")
        });
    }

    // ---- Shape queries (no world): contact, overlap, points, rays, planes, distance, casts --
    let ball = circle();
    let far = at(5.0, 0.0);
    let near = at(0.0, 0.9);
    for (input, pa, want) in [
        ("A at NaN position", at(NAN, 0.0), "Err(NonFinite)"),
        ("A at +inf position", at(INF, 0.0), "Err(NonFinite)"),
        ("A with non-unit rotation", Pose { p: Vec2::ZERO, q: Rot { c: 3.0, s: 0.0 } }, "Err(NonFinite)"),
        ("touching (valid)", Pose::IDENTITY, "Ok(1 point / true / 1 part pair)"),
    ] {
        m.pure("collide::contact / overlaps / contact_parts", input, want, || {
            let m = collide::contact(&ball, &pa, &ball, &near);
            let o = collide::overlaps(&ball, &pa, &ball, &near);
            let mut n = 0;
            let p = collide::contact_parts(&ball, &pa, &ball, &near, |_, _, _| n += 1);
            q(m.and_then(|m| {
                p?;
                Ok(format!("Ok({} point / {} / {n} part pair)", m.count, o?))
            }))
        });
    }
    for (input, point, want) in [
        ("NaN point", Vec2::NAN, "Err(NonFinite)"),
        ("-inf point", Vec2::new(-INF, 0.0), "Err(NonFinite)"),
        ("centre (valid)", Vec2::ZERO, "Ok(true, Some(0))"),
    ] {
        m.pure("query::contains_point / containing_part", input, want, || {
            let inside = query::contains_point(&ball, &Pose::IDENTITY, point);
            let part = query::containing_part(&ball, &Pose::IDENTITY, point);
            q(inside.and_then(|i| Ok(format!("Ok({i}, {:?})", part?))))
        });
    }
    let unit = Ray::new(Vec2::new(-5.0, 0.0), Vec2::X);
    for (input, ray, max_t, want) in [
        ("NaN origin", Ray::new(Vec2::NAN, Vec2::X), 10.0, "Err(NonFinite)"),
        ("+inf dir", Ray::new(Vec2::ZERO, Vec2::new(INF, 0.0)), 10.0, "Err(NonFinite)"),
        ("NaN max_t", unit, NAN, "Err(NonFinite)"),
        ("max_t -1", unit, -1.0, "Err(Negative)"),
        ("dir of length 1e20", Ray::new(Vec2::new(-5.0, 0.0), Vec2::X * 1e20), 1.0, "Ok(hit at x = -0.5000)"),
        ("dir of length 1e-30", Ray::new(Vec2::new(-5.0, 0.0), Vec2::X * 1e-30), INF, "Ok(hit at x = -0.5000)"),
        ("zero dir, origin outside", Ray::new(Vec2::new(-5.0, 0.0), Vec2::ZERO), 10.0, "Ok(miss)"),
    ] {
        m.pure("query::ray_cast / ray_cast_part", input, want, || {
            let one = query::ray_cast(&ball, &Pose::IDENTITY, &ray, max_t);
            let part = query::ray_cast_part(&ball, &Pose::IDENTITY, &ray, max_t);
            assert_eq!(one.map(|h| h.map(|h| h.point)), part.map(|h| h.map(|(_, h)| h.point)));
            q(one.map(|h| h.map_or("Ok(miss)".into(), |h| format!("Ok(hit at x = {:.4})", h.point.x))))
        });
    }
    let floor = query::Plane { normal: Vec2::Y, offset: 0.0 };
    for (input, target, plane, want) in [
        ("NaN target", Vec2::NAN, floor, "Err(NonFinite)"),
        ("NaN normal", Vec2::X, query::Plane { normal: Vec2::NAN, offset: 0.0 }, "Err(NonFinite)"),
        ("+inf offset", Vec2::X, query::Plane { normal: Vec2::Y, offset: INF }, "Err(NonFinite)"),
        ("normal of length 2", Vec2::X, query::Plane { normal: Vec2::Y * 2.0, offset: 0.0 }, "Err(OutOfRange)"),
        ("into the floor (valid)", Vec2::new(1.0, -1.0), floor, "Ok((1.0, 0.0))"),
    ] {
        m.pure("query::solve_planes", input, want, || {
            q(query::solve_planes(target, &[plane]).map(|s| format!("Ok(({:?}, {:?}))", s.delta.x, s.delta.y)))
        });
    }
    for (input, pa, pb) in [
        ("A at NaN position", at(NAN, 0.0), far),
        ("B at +inf position", Pose::IDENTITY, at(INF, 0.0)),
        ("A with NaN rotation", Pose { p: Vec2::ZERO, q: Rot { c: NAN, s: 0.0 } }, far),
        ("B with non-unit rotation (2, 0)", Pose::IDENTITY, Pose { p: Vec2::X, q: Rot { c: 2.0, s: 0.0 } }),
    ] {
        m.pure("query::distance", input, "Err(NonFinite)", || {
            q(query::distance(&ball, &pa, &ball, &pb).map(|_| "Ok".into()))
        });
        m.pure("query::distance_cached", input, "Err(NonFinite)", || {
            let mut cache = SimplexCache::default();
            q(query::distance_cached(&ball, &pa, &ball, &pb, &mut cache).map(|_| "Ok".into()))
        });
        m.pure("query::cast_shapes", input, "Err(NonFinite)", || {
            q(query::cast_shapes(&ball, &pa, Vec2::X, &ball, &pb, Vec2::ZERO, &CastOptions::default())
                .map(|_| "Ok".into()))
        });
        m.pure("query::time_of_impact", &format!("sweep start: {input}"), "Err(NonFinite)", || {
            q(query::time_of_impact(&ball, &Sweep::new(pa, Pose::IDENTITY), &ball, &Sweep::new(pb, far), 1.0)
                .map(|_| "Ok".into()))
        });
        m.pure("query::time_of_impact", &format!("sweep end: {input}"), "Err(NonFinite)", || {
            q(query::time_of_impact(&ball, &Sweep::new(Pose::IDENTITY, pa), &ball, &Sweep::new(far, pb), 1.0)
                .map(|_| "Ok".into()))
        });
    }
    m.pure(
        "query::distance_cached",
        "a cache from a polygon pair, used on circles",
        "Ok, same as a fresh cache",
        || {
            let poly = Shape::polygon(&[Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y, Vec2::new(0.5, 1.5)], 0.0).unwrap();
            let mut cache = SimplexCache::default();
            query::distance_cached(&poly, &Pose::IDENTITY, &poly, &at(3.0, 0.2), &mut cache).unwrap();
            let warm = query::distance_cached(&ball, &Pose::IDENTITY, &ball, &far, &mut cache);
            let fresh = query::distance(&ball, &Pose::IDENTITY, &ball, &far);
            if warm == fresh { "Ok, same as a fresh cache".into() } else { format!("{warm:?} vs {fresh:?}") }
        },
    );
    let cast = |ta: Vec2, tb: Vec2, max_fraction: f32, target_distance: f32| {
        let o = CastOptions { max_fraction, target_distance };
        q(query::cast_shapes(&ball, &Pose::IDENTITY, ta, &ball, &far, tb, &o)
            .map(|h| h.map_or("Ok(None)".into(), |h| format!("Ok(Some), fraction {}", h.fraction))))
    };
    for (input, ta, tb, max, target, want) in [
        ("translation_a NaN", Vec2::new(NAN, 0.0), Vec2::ZERO, 1.0, 0.0, "Err(NonFinite)"),
        ("translation_b -inf", Vec2::ZERO, Vec2::new(0.0, -INF), 1.0, 0.0, "Err(NonFinite)"),
        ("max_fraction NaN", Vec2::X, Vec2::ZERO, NAN, 0.0, "Err(NonFinite)"),
        ("max_fraction +inf", Vec2::X, Vec2::ZERO, INF, 0.0, "Err(NonFinite)"),
        ("max_fraction -1", Vec2::X, Vec2::ZERO, -1.0, 0.0, "Err(Negative)"),
        ("max_fraction -0 (zero)", Vec2::X, Vec2::ZERO, -0.0, 0.0, "Ok(None)"),
        ("target_distance NaN", Vec2::X, Vec2::ZERO, 1.0, NAN, "Err(NonFinite)"),
        ("target_distance +inf", Vec2::X, Vec2::ZERO, 1.0, INF, "Err(NonFinite)"),
        ("target_distance -1", Vec2::X, Vec2::ZERO, 1.0, -1.0, "Err(Negative)"),
        ("zero translations, apart", Vec2::ZERO, Vec2::ZERO, 1.0, 0.0, "Ok(None)"),
    ] {
        m.pure("query::cast_shapes", input, want, || cast(ta, tb, max, target));
    }
    let toi = |sa: Sweep, max: f32| {
        q(query::time_of_impact(&ball, &sa, &ball, &Sweep::fixed(far), max).map(|t| format!("Ok({:?})", t.state)))
    };
    let through = Sweep::new(Pose::IDENTITY, at(10.0, 0.0));
    for (input, sweep, max, want) in [
        ("max_fraction NaN", through, NAN, "Err(NonFinite)"),
        ("max_fraction -inf", through, -INF, "Err(NonFinite)"),
        ("max_fraction -1", through, -1.0, "Err(Negative)"),
        ("max_fraction 0, apart", through, 0.0, "Ok(Separated)"),
        (
            "half a turn and more per sweep (end = start turned by pi)",
            Sweep::new(Pose::IDENTITY, Pose::new(Vec2::ZERO, std::f32::consts::PI)),
            1.0,
            "Ok(Separated)",
        ),
    ] {
        m.pure("query::time_of_impact", input, want, || toi(sweep, max));
    }
    // Shapes assembled from public fields or bytes: queries take shapes as they are (no
    // validation per call); the documented answer is unspecified but finite in time and never
    // a panic.
    let mut shapes: Vec<(&str, Shape)> = bad_shapes().into_iter().map(|(i, s, _)| (i, s)).collect();
    let mut many =
        raw_polygon(&[Vec2::ZERO, Vec2::X, Vec2::Y], &[Vec2::NEG_Y, Vec2::ONE.normalize(), Vec2::NEG_X], 0.0);
    if let Shape::Polygon(p) = &mut many {
        bytemuck::cast_slice_mut::<Polygon, u32>(std::slice::from_mut(Arc::make_mut(p)))[35] = 200;
    }
    shapes.push(("polygon claiming 200 vertices (raw bytes)", many));
    for (input, shape) in shapes {
        m.pure("query::distance / cast_shapes / time_of_impact", input, "answered", || {
            let _ = query::distance(&shape, &Pose::IDENTITY, &ball, &far);
            let _ = query::distance(&ball, &far, &shape, &Pose::IDENTITY);
            let _ =
                query::cast_shapes(&shape, &Pose::IDENTITY, Vec2::X, &ball, &far, Vec2::ZERO, &CastOptions::default());
            // Against a compound (its part culling measures each part).
            let pair = Shape::compound(vec![(Pose::IDENTITY, circle()), (at(1.0, 0.0), circle())]).unwrap();
            let _ = query::distance(&shape, &Pose::IDENTITY, &pair, &far);
            let _ = query::cast_shapes(
                &pair,
                &far,
                Vec2::NEG_X,
                &shape,
                &Pose::IDENTITY,
                Vec2::ZERO,
                &CastOptions::default(),
            );
            // Against a chain (its segment culls measure the other shape).
            let floor = Shape::chain(
                vec![Vec2::new(9.0, -1.0), Vec2::new(5.0, -1.0), Vec2::new(1.0, -1.0)],
                ChainOptions::default(),
            )
            .unwrap();
            let _ = query::distance(&shape, &Pose::IDENTITY, &floor, &Pose::IDENTITY);
            let _ = query::distance(&floor, &Pose::IDENTITY, &shape, &Pose::IDENTITY);
            let _ = query::cast_shapes(
                &shape,
                &Pose::IDENTITY,
                Vec2::NEG_Y,
                &floor,
                &Pose::IDENTITY,
                Vec2::ZERO,
                &CastOptions::default(),
            );
            let _ = query::time_of_impact(
                &floor,
                &query::Sweep::fixed(Pose::IDENTITY),
                &shape,
                &query::Sweep::new(Pose::IDENTITY, at(0.0, -2.0)),
                1.0,
            );
            // Starting in contact: a cast then asks the narrow phase for the contact normal.
            let _ = query::cast_shapes(
                &shape,
                &Pose::IDENTITY,
                Vec2::X,
                &ball,
                &Pose::IDENTITY,
                Vec2::ZERO,
                &CastOptions::default(),
            );
            let _ = query::cast_shapes(
                &ball,
                &Pose::IDENTITY,
                Vec2::X,
                &shape,
                &Pose::IDENTITY,
                Vec2::ZERO,
                &CastOptions::default(),
            );
            let _ = query::time_of_impact(&shape, &Sweep::new(Pose::IDENTITY, far), &ball, &Sweep::fixed(far), 1.0);
            "answered".into()
        });
    }

    // ---- Swept and distance queries --------------------------------------------------------
    let ok_cast = CastOptions::default();
    let stale_exclude = |ids: Ids| QueryFilter { exclude: Some(ids.removed), ..QueryFilter::default() };
    for (input, shape, pose, translation, options, want) in [
        ("NaN probe pose", circle(), at(NAN, 0.0), Vec2::X, ok_cast, "Err(NonFinite) / Err(NonFinite)"),
        ("+inf probe pose", circle(), at(INF, 0.0), Vec2::X, ok_cast, "Err(NonFinite) / Err(NonFinite)"),
        (
            "non-unit probe rotation",
            circle(),
            Pose { p: Vec2::ZERO, q: Rot { c: 3.0, s: 0.0 } },
            Vec2::X,
            ok_cast,
            "Err(NonFinite) / Err(NonFinite)",
        ),
        (
            "NaN-radius probe",
            Shape::Circle(Circle { radius: NAN }),
            at(-20.0, 0.9),
            Vec2::new(40.0, 0.0),
            ok_cast,
            "Err(InvalidShape) / Err(InvalidShape)",
        ),
        (
            "bow-tie probe",
            bow_tie(),
            at(-20.0, 0.9),
            Vec2::new(40.0, 0.0),
            ok_cast,
            "Err(InvalidShape) / Err(InvalidShape)",
        ),
        ("NaN translation", circle(), at(-20.0, 0.9), Vec2::new(NAN, 0.0), ok_cast, "Err(NonFinite) / Err(NonFinite)"),
        ("+inf translation", circle(), at(-20.0, 0.9), Vec2::new(INF, 0.0), ok_cast, "Err(NonFinite) / Err(NonFinite)"),
        (
            "NaN max_fraction",
            circle(),
            at(-20.0, 0.9),
            Vec2::X,
            CastOptions { max_fraction: NAN, ..ok_cast },
            "Err(NonFinite) / Err(NonFinite)",
        ),
        (
            "max_fraction -1",
            circle(),
            at(-20.0, 0.9),
            Vec2::X,
            CastOptions { max_fraction: -1.0, ..ok_cast },
            "Err(Negative) / Err(Negative)",
        ),
        (
            "target_distance -1",
            circle(),
            at(-20.0, 0.9),
            Vec2::X,
            CastOptions { target_distance: -1.0, ..ok_cast },
            "Err(Negative) / Err(Negative)",
        ),
        ("zero translation, clear of everything", circle(), at(-20.0, 0.9), Vec2::ZERO, ok_cast, "None / 0 hits"),
        ("1e30 probe pose (allowed, far from all)", circle(), at(1e30, 0.0), Vec2::X, ok_cast, "None / 0 hits"),
        ("translation 1e30 (allowed)", circle(), at(-20.0, 0.9), Vec2::new(1e30, 0.0), ok_cast, "Some / 4 hits"),
    ] {
        m.world("World::cast_shape / cast_shape_all", input, want, |w, _| {
            let one = w.cast_shape(&shape, &pose, translation, &options, &f);
            let mut all = vec![];
            let res = w.cast_shape_all(&shape, &pose, translation, &options, &f, &mut all);
            match (one, res) {
                (Ok(one), Ok(())) => format!("{} / {} hits", if one.is_some() { "Some" } else { "None" }, all.len()),
                (one, res) => format!("{} / {}", r(one), r(res)),
            }
        });
    }
    m.world("World::cast_shape", "stale id in QueryFilter::exclude", "Some (excludes nothing)", |w, ids| {
        let hit = w.cast_shape(&circle(), &at(-20.0, 0.9), Vec2::new(40.0, 0.0), &ok_cast, &stale_exclude(ids));
        if hit.is_ok_and(|h| h.is_some()) { "Some (excludes nothing)".into() } else { "None".into() }
    });
    for (input, shape, pose, max_distance, want) in [
        ("NaN probe pose", circle(), at(NAN, 0.0), 1.0, "Err(NonFinite)"),
        ("bow-tie probe", bow_tie(), at(0.0, 1.0), 1.0, "Err(InvalidShape)"),
        (
            "zero-size cuboid probe",
            Shape::Cuboid(Cuboid { half_extents: Vec2::ZERO }),
            at(0.0, 1.0),
            1.0,
            "Err(InvalidShape)",
        ),
        ("NaN max_distance", circle(), at(0.0, 5.0), NAN, "Err(NonFinite)"),
        ("max_distance -1", circle(), at(0.0, 5.0), -1.0, "Err(Negative)"),
        ("max_distance 0, clear of everything", circle(), at(0.0, 5.0), 0.0, "Ok(None)"),
        ("max_distance +inf (allowed)", circle(), at(0.0, 5.0), INF, "Ok(Some)"),
    ] {
        m.world("World::distance_to_nearest", input, want, |w, _| {
            match w.distance_to_nearest(&shape, &pose, max_distance, &f) {
                Ok(h) => format!("Ok({})", if h.is_some() { "Some" } else { "None" }),
                Err(e) => format!("Err({e:?})"),
            }
        });
    }
    for (input, point, max_distance, want) in [
        ("NaN point", Vec2::new(NAN, 0.0), 1.0, "Err(NonFinite)"),
        ("-inf point", Vec2::new(0.0, -INF), 1.0, "Err(NonFinite)"),
        ("NaN max_distance", Vec2::ZERO, NAN, "Err(NonFinite)"),
        ("max_distance -1", Vec2::ZERO, -1.0, "Err(Negative)"),
        ("1e30 point, max_distance +inf (allowed)", Vec2::splat(1e30), INF, "Ok(Some)"),
    ] {
        m.world("World::distance_to_nearest_point", input, want, |w, _| {
            match w.distance_to_nearest_point(point, max_distance, &f) {
                Ok(h) => format!("Ok({})", if h.is_some() { "Some" } else { "None" }),
                Err(e) => format!("Err({e:?})"),
            }
        });
    }
    for (input, point, max_distance, want) in [
        ("NaN point", Vec2::new(NAN, 0.0), 1.0, "Err(NonFinite)"),
        ("+inf point", Vec2::new(INF, 0.0), 1.0, "Err(NonFinite)"),
        ("NaN max_distance", Vec2::ZERO, NAN, "Err(NonFinite)"),
        ("max_distance -1", Vec2::ZERO, -1.0, "Err(Negative)"),
        ("max_distance 0, clear of everything", Vec2::new(0.0, 5.0), 0.0, "Ok(None)"),
        ("max_distance 0, inside the ground (allowed)", Vec2::ZERO, 0.0, "Ok(Some, inside)"),
        ("1e30 point, max_distance +inf (allowed)", Vec2::splat(1e30), INF, "Ok(Some)"),
    ] {
        m.world("World::project_point", input, want, |w, _| match w.project_point(point, max_distance, &f) {
            Ok(Some(h)) if h.distance < 0.0 => "Ok(Some, inside)".into(),
            Ok(h) => format!("Ok({})", if h.is_some() { "Some" } else { "None" }),
            Err(e) => format!("Err({e:?})"),
        });
    }
    for (input, pose, point, want) in [
        ("NaN point", Pose::IDENTITY, Vec2::new(NAN, 0.0), "Err(NonFinite)"),
        ("-inf point", Pose::IDENTITY, Vec2::new(0.0, -INF), "Err(NonFinite)"),
        ("1e30 point (allowed)", Pose::IDENTITY, Vec2::splat(1e30), "Ok"),
    ]
    .into_iter()
    .chain(bad_poses().into_iter().map(|(input, pose, want)| {
        // The world's pose errors are its own; a query's are NonFinite, and a far pose is
        // answered.
        (input, pose, Vec2::ONE, if want == "Err(OutOfRange)" { "Ok" } else { "Err(NonFinite)" })
    })) {
        m.pure("query::project_point", input, want, || {
            q(query::project_point(&ball, &pose, point).map(|p| {
                if p.point.is_finite() && p.surface_normal.is_finite() { "Ok".into() } else { format!("{p:?}") }
            }))
        });
    }
    let mut odd: Vec<(&str, Shape)> = bad_shapes().into_iter().map(|(i, s, _)| (i, s)).collect();
    let mut many =
        raw_polygon(&[Vec2::ZERO, Vec2::X, Vec2::Y], &[Vec2::NEG_Y, Vec2::ONE.normalize(), Vec2::NEG_X], 0.0);
    if let Shape::Polygon(p) = &mut many {
        bytemuck::cast_slice_mut::<Polygon, u32>(std::slice::from_mut(Arc::make_mut(p)))[35] = 200;
    }
    odd.push(("polygon claiming 200 vertices (raw bytes)", many));
    for (input, shape) in odd {
        m.pure("query::project_point", &format!("shape: {input}"), "answered", || {
            let _ = query::project_point(&shape, &Pose::IDENTITY, Vec2::new(0.3, 0.2));
            let _ = query::project_point(&shape, &at(2.0, 1.0), Vec2::new(5.0, -3.0));
            "answered".into()
        });
    }
    let player = || Shape::capsule(Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5), 0.4).unwrap();
    let standing = at(-5.0, 1.415);
    let ok_mover = CharacterConfig::default();
    let compound = || Shape::compound(vec![(Pose::IDENTITY, circle())]).unwrap();
    let chain = || Shape::chain(vec![Vec2::ZERO, Vec2::X], ChainOptions::default()).unwrap();
    for (input, shape, pose, translation, config, want) in [
        ("NaN pose", player(), at(NAN, 0.0), Vec2::X, ok_mover, "Err(NonFinite)"),
        (
            "non-unit rotation",
            player(),
            Pose { p: standing.p, q: Rot { c: 3.0, s: 0.0 } },
            Vec2::X,
            ok_mover,
            "Err(NonFinite)",
        ),
        ("pose 1e8", player(), at(1e8, 0.0), Vec2::X, ok_mover, "Err(OutOfRange)"),
        ("NaN translation", player(), standing, Vec2::new(NAN, 0.0), ok_mover, "Err(NonFinite)"),
        ("+inf translation", player(), standing, Vec2::new(INF, 0.0), ok_mover, "Err(NonFinite)"),
        ("translation 1e30", player(), standing, Vec2::new(1e30, 0.0), ok_mover, "Err(OutOfRange)"),
        ("NaN-radius circle", Shape::Circle(Circle { radius: NAN }), standing, Vec2::X, ok_mover, "Err(InvalidShape)"),
        ("bow-tie polygon", bow_tie(), standing, Vec2::X, ok_mover, "Err(InvalidShape)"),
        ("compound (refused)", compound(), standing, Vec2::X, ok_mover, "Err(InvalidShape)"),
        ("chain (refused)", chain(), standing, Vec2::X, ok_mover, "Err(InvalidShape)"),
        (
            "bare segment (refused)",
            Shape::segment(Vec2::ZERO, Vec2::X).unwrap(),
            standing,
            Vec2::X,
            ok_mover,
            "Err(InvalidShape)",
        ),
        ("NaN skin", player(), standing, Vec2::X, CharacterConfig { skin: NAN, ..ok_mover }, "Err(NonFinite)"),
        ("skin -1", player(), standing, Vec2::X, CharacterConfig { skin: -1.0, ..ok_mover }, "Err(Negative)"),
        (
            "max_slope -0.1",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { max_slope: -0.1, ..ok_mover },
            "Err(Negative)",
        ),
        (
            "max_slope 2 (> π/2)",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { max_slope: 2.0, ..ok_mover },
            "Err(OutOfRange)",
        ),
        (
            "+inf step_height",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { step_height: INF, ..ok_mover },
            "Err(NonFinite)",
        ),
        (
            "snap_to_ground -1",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { snap_to_ground: -1.0, ..ok_mover },
            "Err(Negative)",
        ),
        (
            "up (0, 2)",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { up: Vec2::new(0.0, 2.0), ..ok_mover },
            "Err(OutOfRange)",
        ),
        (
            "NaN up",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { up: Vec2::new(NAN, 1.0), ..ok_mover },
            "Err(NonFinite)",
        ),
        ("zero up", player(), standing, Vec2::X, CharacterConfig { up: Vec2::ZERO, ..ok_mover }, "Err(OutOfRange)"),
        ("zero translation, standing", player(), standing, Vec2::ZERO, ok_mover, "Ok(grounded, moved 0)"),
        (
            "max_iterations 0 (allowed: no slide)",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { max_iterations: 0, ..ok_mover },
            "Ok(grounded, moved 0)",
        ),
        (
            "skin 0 (allowed: 1e-4 of the size)",
            player(),
            standing,
            Vec2::X,
            CharacterConfig { skin: 0.0, ..ok_mover },
            "Ok(airborne, moved 1)",
        ),
        (
            "translation 1e6 (allowed: the ball in its way stops it)",
            player(),
            standing,
            Vec2::new(1e6, 0.0),
            ok_mover,
            "Ok(grounded, moved 2)",
        ),
        (
            "starts inside the ground (pushed out)",
            player(),
            at(-5.0, 0.9),
            Vec2::ZERO,
            ok_mover,
            "Ok(grounded, moved 1)",
        ),
        (
            "starts inside a ball and the ground (pushed out)",
            player(),
            at(0.0, 0.9),
            Vec2::ZERO,
            ok_mover,
            "Ok(grounded, moved 1)",
        ),
    ] {
        m.world("World::move_character", input, want, |w, ids| {
            let sentinel = CharacterHit { id: ids.fixed, part: 7, point: Vec2::ZERO, surface_normal: Vec2::ZERO };
            let mut hits = vec![sentinel];
            match w.move_character(&shape, &pose, translation, &config, &mut hits) {
                Ok(mv) => format!(
                    "Ok({}, moved {}{})",
                    if mv.grounded { "grounded" } else { "airborne" },
                    mv.translation.length().round(),
                    if mv.stuck { ", stuck" } else { "" }
                ),
                Err(e) => format!("Err({e:?}){}", if hits == [sentinel] { "" } else { ", hits CHANGED" }),
            }
        });
    }
    for (input, ray, max_t, want) in [
        ("NaN origin", Ray::new(Vec2::new(NAN, 0.0), Vec2::X), 100.0, "Err(NonFinite), 0 calls"),
        ("-inf dir", Ray::new(Vec2::ZERO, Vec2::new(-INF, 0.0)), 100.0, "Err(NonFinite), 0 calls"),
        ("NaN max_t", ok_ray, NAN, "Err(NonFinite), 0 calls"),
        ("max_t -1", ok_ray, -1.0, "Err(Negative), 0 calls"),
        ("max_t +inf (allowed)", ok_ray, INF, "Ok, 3 calls"),
    ] {
        m.world("World::ray_cast_with", input, want, |w, _| {
            let mut calls = 0;
            let res = w.ray_cast_with(&ray, max_t, &f, |_| {
                calls += 1;
                f32::NAN // a NaN answer continues unclipped
            });
            format!("{}, {calls} calls", r(res))
        });
    }

    // ---- Snapshots -------------------------------------------------------------------------
    let good = fixture().0.to_bytes();
    // Rows marked "resealed" recompute the checksum after the edit, as a deliberate edit would,
    // to reach the structural check behind it.
    let mut corrupt = |input: &str, want: &str, edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        edit(&mut b);
        if input.ends_with("(resealed)") {
            sapwood::snapshot::reseal(&mut b).unwrap();
        }
        m.pure("World::from_bytes", input, want, || r(World::from_bytes(&b)));
    };
    corrupt("empty", "Err(BadMagic)", &|b| b.clear());
    corrupt("wrong magic", "Err(BadMagic)", &|b| b[0] = b'X');
    corrupt(
        "version 5 (older, before segments and chains)",
        "Err(UnsupportedVersion { found: 5, supported: 10 })",
        &|b| b[8] = 5,
    );
    corrupt("version 4 (older, before bullets)", "Err(UnsupportedVersion { found: 4, supported: 10 })", &|b| b[8] = 4);
    corrupt("truncated by one byte", "Err(ChecksumMismatch)", &|b| {
        b.pop();
    });
    corrupt("one payload bit flipped", "Err(ChecksumMismatch)", &|b| *b.last_mut().unwrap() ^= 1);
    corrupt("checksum bit flipped", "Err(ChecksumMismatch)", &|b| b[12] ^= 1);
    corrupt("trailing byte (resealed)", "Err(TrailingBytes)", &|b| b.push(0));
    corrupt("section length u64::MAX (resealed)", "Err(Truncated)", &|b| {
        b[24..32].copy_from_slice(&u64::MAX.to_le_bytes())
    });
    corrupt(
        "wrong section tag (resealed)",
        "Err(UnexpectedSection { expected: [67, 79, 78, 70], found: [88, 79, 78, 70] })",
        &|b| b[20] = b'X',
    );
    let slot0 = good.windows(4).position(|w| w == b"SLOT").unwrap() + 4 + 8 + 4;
    corrupt("slot generation 0 (resealed)", "Err(Inconsistent(\"a slot has generation 0\"))", &|b| {
        b[slot0..slot0 + 4].copy_from_slice(&0u32.to_le_bytes())
    });
    corrupt("pose x = NaN (resealed)", "Err(InvalidPose { slot: 0, error: InvalidPose })", &|b| {
        b[slot0 + 7..slot0 + 11].copy_from_slice(&NAN.to_bits().to_le_bytes())
    });
    corrupt("pose x = 1e30 (resealed)", "Err(InvalidPose { slot: 0, error: OutOfRange })", &|b| {
        b[slot0 + 7..slot0 + 11].copy_from_slice(&1e30f32.to_bits().to_le_bytes())
    });
    m.pure("World::from_bytes", "every truncation; every byte inverted", "no panic; every truncation Err", || {
        let mut accepted = 0;
        for i in 0..good.len() {
            accepted += usize::from(World::from_bytes(&good[..i]).is_ok());
            let mut b = good.clone();
            b[i] = !b[i];
            // A flipped float bit can be a valid value (a pose moved, a user datum changed).
            let _ = World::from_bytes(&b);
        }
        if accepted == 0 { "no panic; every truncation Err".into() } else { format!("{accepted} truncations accepted") }
    });

    // ---- hecs sync -------------------------------------------------------------------------
    for (input, pose, shape, want) in [
        ("new entity with NaN Pose", at(NAN, 0.0), circle(), "Err(InvalidPose), no handle"),
        ("new entity with 1e30 Pose", at(1e30, 0.0), circle(), "Err(OutOfRange), no handle"),
        (
            "new entity with NaN-radius Shape",
            at(0.0, 5.0),
            Shape::Circle(Circle { radius: NAN }),
            "Err(InvalidShape(NonFinite)), no handle",
        ),
        ("new entity with bow-tie Shape", at(0.0, 5.0), bow_tie(), "Err(InvalidShape(Collinear)), no handle"),
    ] {
        m.world("HecsSync::sync", input, want, |w, _| {
            let mut ecs = hecs::World::new();
            let mut sync = HecsSync::new();
            let e = ecs.spawn((pose, shape));
            let res = r(sync.sync(&mut ecs, w));
            let handle = ecs.get::<&ColliderHandle>(e).is_ok();
            format!("{res}, {}", if handle { "HANDLE ADDED" } else { "no handle" })
        });
    }
    for (input, pose, shape, want) in [
        ("synced entity's Pose set to NaN", at(NAN, 0.0), circle(), "Err(InvalidPose), collider kept"),
        ("synced entity's Pose set to +inf", at(0.0, INF), circle(), "Err(InvalidPose), collider kept"),
        (
            "synced entity's Shape set to zero size",
            at(3.0, 5.0),
            Shape::Cuboid(Cuboid { half_extents: Vec2::ZERO }),
            "Err(InvalidShape(NonPositiveSize)), collider kept",
        ),
    ] {
        m.pure("HecsSync::sync", input, want, || {
            let mut w = World::new();
            let mut ecs = hecs::World::new();
            let mut sync = HecsSync::new();
            let e = ecs.spawn((at(3.0, 5.0), circle()));
            sync.sync(&mut ecs, &mut w).unwrap();
            w.step();
            let before = w.to_bytes();
            *ecs.get::<&mut Pose>(e).unwrap() = pose;
            *ecs.get::<&mut Shape>(e).unwrap() = shape;
            let res = r(sync.sync(&mut ecs, &mut w));
            let id = ecs.get::<&ColliderHandle>(e).unwrap().0;
            let kept = w.to_bytes() == before && w.pose(id) == Ok(at(3.0, 5.0));
            format!("{res}, {}", if kept { "collider kept" } else { "WORLD CHANGED" })
        });
    }
    m
}

#[test]
fn every_entry_point_refuses_bad_input_with_a_typed_error_and_an_unchanged_world() {
    let m = build();
    assert!(m.rows.len() > 200, "only {} rows", m.rows.len());
    assert!(m.failures.is_empty(), "{} of {} rows failed:\n{}", m.failures.len(), m.rows.len(), m.failures.join("\n"));
}

/// The lines around the generated matrix in `docs/RELIABILITY.md`.
const MATRIX_BEGIN: &str = "<!-- matrix:begin -->";
const MATRIX_END: &str = "<!-- matrix:end -->";

fn reliability_doc() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/RELIABILITY.md")
}

/// The matrix as markdown: one row per case, then the row count.
fn markdown(m: &Matrix) -> String {
    let mut out = String::from("| entry point | bad input | result |\n|---|---|---|\n");
    for [entry, input, result] in &m.rows {
        out.push_str(&format!("| `{entry}` | {input} | `{result}` |\n"));
    }
    out.push_str(&format!("\n{} rows, {} failing.\n", m.rows.len(), m.failures.len()));
    out
}

/// The part of `doc` between the matrix markers: a blank line, the matrix, a blank line.
fn matrix_range(doc: &str) -> Option<std::ops::Range<usize>> {
    let start = doc.find(MATRIX_BEGIN)? + MATRIX_BEGIN.len();
    let end = start + doc[start..].find(MATRIX_END)?;
    Some(start..end)
}

fn matrix_section(m: &Matrix) -> String {
    format!("\n\n{}\n", markdown(m))
}

#[test]
#[ignore = "prints the markdown matrix; SAPWOOD_WRITE_DOCS=1 also writes it into docs/RELIABILITY.md"]
fn print_matrix() {
    let m = build();
    print!("{}", markdown(&m));
    if std::env::var_os("SAPWOOD_WRITE_DOCS").is_some() {
        assert!(m.failures.is_empty(), "not writing a matrix with failing rows:\n{}", m.failures.join("\n"));
        let path = reliability_doc();
        let doc = std::fs::read_to_string(&path).expect("docs/RELIABILITY.md is readable");
        let range = matrix_range(&doc).expect("docs/RELIABILITY.md has the matrix markers");
        let mut new = doc.clone();
        new.replace_range(range, &matrix_section(&m));
        std::fs::write(&path, new).expect("docs/RELIABILITY.md is writable");
        println!("wrote {}", path.display());
    }
}

#[test]
fn reliability_doc_holds_the_current_matrix() {
    let doc = std::fs::read_to_string(reliability_doc()).expect("docs/RELIABILITY.md is readable");
    let range = matrix_range(&doc).expect("docs/RELIABILITY.md has the matrix markers");
    assert!(
        doc[range] == matrix_section(&build()),
        "docs/RELIABILITY.md's bad-input matrix is stale; regenerate it with\n\
         SAPWOOD_WRITE_DOCS=1 cargo test --release --test bad_input -- --ignored print_matrix"
    );
}
