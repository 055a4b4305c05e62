//! Welded static edges: floors, stairs and walls built from separate static boxes and polygons
//! give, through the world, the normals a chain would give (none along the floor at a seam),
//! while the same floors with welding off still catch; real corners still push out of the
//! solid; removing a tile reopens its neighbours' edges; casts, times of impact and the
//! character mover see the welded surface.
//!
//! Run with `--nocapture` for the seam counts.

use sapwood::query::CastOptions;
use sapwood::{CharacterConfig, ColliderDesc, ColliderId, Pose, QueryFilter, Shape, Vec2, World, WorldConfig};
use sapwood_support::SplitMix64;

/// The sliding shapes of the seam test (as in `tests/chain.rs`): `(name, shape, height of the
/// origin above the lowest point)`.
fn sliders() -> Vec<(&'static str, Shape, f32)> {
    vec![
        ("box", Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap(), 0.5),
        ("circle", Shape::circle(0.5).unwrap(), 0.5),
        ("capsule", Shape::capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25).unwrap(), 0.25),
        ("rounded box", Shape::rounded_box(Vec2::new(0.4, 0.2), 0.1).unwrap(), 0.3),
    ]
}

fn world(weld: bool) -> World {
    World::with_config(WorldConfig { weld_static_edges: weld, ..WorldConfig::default() }).unwrap()
}

fn fixed(world: &mut World, shape: Shape, p: Vec2) -> ColliderId {
    world.insert(ColliderDesc::new(shape, Pose::from_translation(p)).fixed()).unwrap()
}

fn unit_box() -> Shape {
    Shape::cuboid(Vec2::splat(0.5)).unwrap()
}

/// A floor's top surface: where the slide happens and how high the floor is there (`None`
/// where the slide skips, near a real corner).
type Surface = Box<dyn Fn(f32) -> Option<f32>>;

/// `n` unit boxes edge to edge, tops at y = 0, from x = 0.
fn unit_floor(world: &mut World, n: usize) -> Surface {
    for i in 0..n {
        fixed(world, unit_box(), Vec2::new(i as f32 + 0.5, -0.5));
    }
    let end = n as f32;
    Box::new(move |x| (x > 1.5 && x < end - 1.5).then_some(0.0))
}

/// Boxes of random widths (0.1 to 3) and depths edge to edge, tops at y = 0.
fn random_floor(world: &mut World, seed: u64) -> Surface {
    let mut rng = SplitMix64::new(seed);
    let mut x = 0.0f32;
    while x < 1000.0 {
        let w = 0.1 + 2.9 * rng.next_f32();
        let h = 0.2 + 1.5 * rng.next_f32();
        fixed(world, Shape::cuboid(Vec2::new(0.5 * w, 0.5 * h)).unwrap(), Vec2::new(x + 0.5 * w, -0.5 * h));
        x += w;
    }
    let end = x;
    Box::new(move |x| (x > 1.5 && x < end - 1.5).then_some(0.0))
}

/// A staircase: treads 6 columns wide, each tread 1 higher, every column a stack of unit boxes.
fn staircase(world: &mut World) -> Surface {
    for i in 0..600 {
        for j in 0..=(i / 6) {
            fixed(world, unit_box(), Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
        }
    }
    // Slide along each tread's middle, clear of its riser (1 unit either side).
    Box::new(|x| {
        let col = x.floor() as i32;
        let within = x - (col - col.rem_euclid(6)) as f32;
        (x > 1.0 && x < 598.0 && within > 1.6 && within < 4.4).then_some((col / 6 + 1) as f32)
    })
}

/// Boxes, pentagons (a unit square with a point below) and octagonal pillars with flat tops
/// (wider than a tile, overlapping their neighbours) in turn, tops at y = 0.
fn mixed_floor(world: &mut World) -> Surface {
    let pentagon = Shape::polygon(
        &[Vec2::new(-0.5, 0.0), Vec2::new(-0.5, -1.0), Vec2::new(0.0, -1.3), Vec2::new(0.5, -1.0), Vec2::new(0.5, 0.0)],
        0.0,
    )
    .unwrap();
    let pillar = Shape::polygon(
        &[
            Vec2::new(-0.7, 0.0),
            Vec2::new(-0.9, -0.4),
            Vec2::new(-0.9, -1.6),
            Vec2::new(-0.7, -2.0),
            Vec2::new(0.7, -2.0),
            Vec2::new(0.9, -1.6),
            Vec2::new(0.9, -0.4),
            Vec2::new(0.7, 0.0),
        ],
        0.0,
    )
    .unwrap();
    for i in 0..1000 {
        let x = i as f32 + 0.5;
        match i % 3 {
            0 => fixed(world, unit_box(), Vec2::new(x, -0.5)),
            1 => fixed(world, pentagon.clone(), Vec2::new(x, 0.0)),
            _ => fixed(world, pillar.clone(), Vec2::new(x, 0.0)),
        };
    }
    Box::new(|x| (x > 1.5 && x < 998.5).then_some(0.0))
}

/// The poses of a slide over `[0, len]` (as in `tests/chain.rs`): speeds times steps from
/// x = 3.3, each at several small penetrations; `thin` keeps one pose in that many.
fn slide_xs(len: f32, thin: usize) -> Vec<(f32, f32)> {
    let speeds: [f32; 10] = [0.003, 0.01, 0.037, 0.1, 0.25, 0.5, 0.999, 1.0, 1.7, 3.3];
    let depths = [0.0, 1e-5, 1e-4, 1e-3, 5e-3, 0.01, 0.02];
    let mut out = Vec::new();
    for &v in &speeds {
        for step in 0..((len - 10.0) / v).min(4000.0) as usize {
            for &d in &depths {
                out.push((3.3 + v * step as f32, d));
            }
        }
    }
    out.into_iter().step_by(thin).collect()
}

/// Slides `shape` over the floor through the world (one collider moved and stepped, contacts
/// read as a user reads them) and counts `(bad, seen)`: contact normals more than 1e-3 rad off
/// straight up, and contacts.
fn slide(world: &mut World, surface: &Surface, shape: &Shape, half: f32, len: f32, thin: usize) -> (usize, usize) {
    let id = world.insert(ColliderDesc::new(shape.clone(), Pose::from_translation(Vec2::new(-50.0, 50.0)))).unwrap();
    let (mut bad, mut seen) = (0, 0);
    for (x, d) in slide_xs(len, thin) {
        let Some(top) = surface(x) else { continue };
        world.set_pose(id, Pose::from_translation(Vec2::new(x, top + half - d))).unwrap();
        world.step();
        for c in world.contacts() {
            // From the floor to the slider.
            let n = if c.b == id { c.manifold.normal } else { -c.manifold.normal };
            seen += 1;
            bad += usize::from(n.angle_to(Vec2::Y).abs() > 1e-3);
        }
    }
    world.remove(id).unwrap();
    world.step();
    (bad, seen)
}

/// Every slider over the floor `build` makes, welded (0 bad normals) and not (some).
fn seam_case(name: &str, build: impl Fn(&mut World) -> Surface, len: f32, thin: usize, circle_catches: bool) {
    let mut lines = Vec::new();
    for weld in [true, false] {
        let mut w = world(weld);
        let surface = build(&mut w);
        w.step();
        w.validate().unwrap();
        for (slider, shape, half) in sliders() {
            let (bad, seen) = slide(&mut w, &surface, &shape, half, len, thin);
            lines.push(format!("{name:>14} {slider:>12} weld {weld:5}: {bad:6} bad of {seen}"));
            assert!(seen > 1000, "{name} {slider}: the slide must touch the floor");
            if weld {
                assert_eq!(bad, 0, "{name}: {slider} met a seam normal on welded tiles");
            } else if slider != "circle" || circle_catches {
                assert!(bad > 0, "{name}: {slider} met no seam normal without welding");
            }
        }
    }
    println!("{}", lines.join("\n"));
}

#[test]
fn sliding_across_1000_welded_boxes_never_meets_a_seam_normal() {
    seam_case("1000 boxes", |w| unit_floor(w, 1000), 1000.0, 1, false);
}

#[test]
fn sliding_across_10000_welded_boxes_never_meets_a_seam_normal() {
    seam_case("10000 boxes", |w| unit_floor(w, 10_000), 10_000.0, 4, false);
}

#[test]
fn sliding_across_boxes_of_random_widths_never_meets_a_seam_normal() {
    seam_case("random widths", |w| random_floor(w, 7), 1000.0, 2, true);
}

#[test]
fn sliding_along_a_staircase_of_boxes_never_meets_a_seam_normal() {
    seam_case("staircase", staircase, 600.0, 2, false);
}

#[test]
fn sliding_across_a_mixed_floor_never_meets_a_seam_normal() {
    seam_case("mixed floor", mixed_floor, 1000.0, 2, true);
}

/// The normals a shape gets from the statics at `pose` (from the statics towards it).
fn normals_at(world: &mut World, id: ColliderId, pose: Pose) -> Vec<Vec2> {
    world.set_pose(id, pose).unwrap();
    world.step();
    world.contacts().iter().map(|c| if c.b == id { c.manifold.normal } else { -c.manifold.normal }).collect()
}

#[test]
fn real_corners_still_push_out_of_the_solid() {
    let mut w = world(true);
    let _ = unit_floor(&mut w, 20);
    // A step up at x = 10: a box on top of the floor tile there, and a wall at x = 15.
    fixed(&mut w, unit_box(), Vec2::new(10.5, 0.5));
    for j in 0..5 {
        fixed(&mut w, unit_box(), Vec2::new(15.5, j as f32 + 0.5));
    }
    let ball =
        w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(-9.0, 9.0)))).unwrap();
    w.step();
    // Against the step's face, beside the floor seam at its foot: pushed back, not up.
    let n = normals_at(&mut w, ball, Pose::from_translation(Vec2::new(9.51, 0.6)));
    assert!(!n.is_empty() && n.iter().any(|n| n.x < -0.99), "{n:?}");
    // Over the step's top corner: pushed out diagonally (the rounded region of a real corner).
    let n = normals_at(&mut w, ball, Pose::from_translation(Vec2::new(9.8, 1.3)));
    assert!(n.iter().any(|n| n.x < -0.3 && n.y > 0.3), "{n:?}");
    // Against the wall, at every height (its stacked seams do not show).
    for y in [0.6, 1.0, 1.5, 2.0, 2.5, 3.0, 3.99] {
        let n = normals_at(&mut w, ball, Pose::from_translation(Vec2::new(14.51, y)));
        assert!(n.iter().any(|n| n.x < -0.999), "y {y}: {n:?}");
        assert!(n.iter().all(|n| n.x < -0.999 || n.y > 0.999), "y {y}: {n:?}");
    }
    // A ball sunk into a tile's middle still gets pushed out (up).
    let n = normals_at(&mut w, ball, Pose::from_translation(Vec2::new(3.5, -0.2)));
    assert!(n.iter().any(|n| n.y > 0.99), "{n:?}");
    w.validate().unwrap();
}

#[test]
fn removing_a_tile_reopens_its_neighbours_edges() {
    let mut w = world(true);
    let mut tiles = Vec::new();
    for i in 0..10 {
        tiles.push(fixed(&mut w, unit_box(), Vec2::new(i as f32 + 0.5, -0.5)));
    }
    let probe =
        w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(-9.0, 9.0)))).unwrap();
    w.step();
    // At the seam x = 5 from the side (left of it, low): welded, only the floor's up normals.
    let at = Pose::from_translation(Vec2::new(4.7, 0.45));
    assert!(normals_at(&mut w, probe, at).iter().all(|n| n.y > 0.999));
    w.remove(tiles[5]).unwrap();
    w.step();
    w.validate().unwrap();
    // Tile 4's right end is a real corner again: a ball beside and below its top is pushed
    // out sideways, to the right.
    let n = normals_at(&mut w, probe, Pose::from_translation(Vec2::new(5.4, -0.3)));
    assert!(n.iter().any(|n| n.x > 0.99), "{n:?}");
    let n = normals_at(&mut w, probe, Pose::from_translation(Vec2::new(5.3, 0.3)));
    assert!(n.iter().any(|n| n.x > 0.3 && n.y > 0.3), "{n:?}");
    // Put back (moved there from far away): welded again.
    let back = fixed(&mut w, unit_box(), Vec2::new(50.0, 50.0));
    w.step();
    w.set_pose(back, Pose::from_translation(Vec2::new(5.5, -0.5))).unwrap();
    w.step();
    w.validate().unwrap();
    assert!(normals_at(&mut w, probe, at).iter().all(|n| n.y > 0.999));
    // A tile moved away reopens them too.
    w.set_pose(back, Pose::from_translation(Vec2::new(50.0, 50.0))).unwrap();
    w.step();
    let n = normals_at(&mut w, probe, Pose::from_translation(Vec2::new(5.4, -0.3)));
    assert!(n.iter().any(|n| n.x > 0.99), "{n:?}");
}

#[test]
fn casts_and_the_mover_cross_welded_tiles_as_a_chain() {
    for weld in [true, false] {
        let mut w = world(weld);
        let _ = unit_floor(&mut w, 200);
        w.step();
        let f = QueryFilter::default();
        let (mut bad_casts, mut casts) = (0, 0);
        for shape in sliders().into_iter().map(|s| (s.1, s.2)) {
            for i in 0..400 {
                // Dropped onto the floor, at every place along it, and slid along it a hair low.
                let x = 2.0 + i as f32 * 0.4321;
                let drop = Pose::from_translation(Vec2::new(x, shape.1 + 1.0));
                let hit = w.cast_shape(&shape.0, &drop, Vec2::new(0.0, -2.0), &CastOptions::default(), &f).unwrap();
                let hit = hit.expect("the floor is below");
                casts += 1;
                bad_casts += usize::from(hit.surface_normal.angle_to(Vec2::Y).abs() > 1e-3);
                // Slid along it a hair low: every tile ahead is met at its corner.
                let low = Pose::from_translation(Vec2::new(x, shape.1 - 1e-3));
                let mut all = Vec::new();
                w.cast_shape_all(&shape.0, &low, Vec2::new(3.0, 0.0), &CastOptions::default(), &f, &mut all).unwrap();
                for h in all.iter().filter(|h| !h.started_in_contact) {
                    casts += 1;
                    bad_casts += usize::from(h.surface_normal.angle_to(Vec2::Y).abs() > 1e-3);
                }
            }
        }
        // Times of impact: a bullet sweeping along the floor a hair low.
        let (mut bad_impacts, mut impacts) = (0, 0);
        for (_, shape, half) in sliders() {
            let start = Pose::from_translation(Vec2::new(2.2, half - 1e-3));
            let bullet = w.insert(ColliderDesc::new(shape, start).bullet()).unwrap();
            w.step();
            for i in 1..300 {
                w.set_pose(bullet, Pose::from_translation(Vec2::new(2.2 + 0.37 * i as f32, half - 1e-3))).unwrap();
                w.step();
                for hit in w.impacts() {
                    impacts += 1;
                    bad_impacts += usize::from(hit.normal.angle_to(Vec2::NEG_Y).abs() > 1e-3);
                }
            }
            w.remove(bullet).unwrap();
            w.step();
        }
        // The mover: a box running right along the floor at full speed, a hair into it.
        let runner = Shape::cuboid(Vec2::new(0.3, 0.45)).unwrap();
        let mut p = Vec2::new(2.0, 0.45);
        let config = CharacterConfig::default();
        let (mut walls, mut hits, mut bad_hits) = (0, Vec::new(), 0);
        for _ in 0..600 {
            hits.clear();
            let m = w
                .move_character(&runner, &Pose::from_translation(p), Vec2::new(0.25, -0.01), &config, &mut hits)
                .unwrap();
            walls += usize::from(m.hit_wall);
            bad_hits += hits.iter().filter(|h| h.surface_normal.angle_to(Vec2::Y).abs() > 1e-3).count();
            p = m.pose.p;
        }
        println!(
            "weld {weld}: {bad_casts} bad cast normals of {casts}, {bad_impacts} bad impact normals of {impacts}; \
             runner at x = {}, {walls} wall hits, {bad_hits} bad hit normals",
            p.x
        );
        if weld {
            assert_eq!(bad_casts, 0);
            assert_eq!(bad_impacts, 0);
            assert_eq!((walls, bad_hits), (0, 0));
            assert!(p.x > 151.0, "the runner must not be slowed: {p}");
        } else {
            assert!(bad_casts > 0 && bad_impacts > 0 && bad_hits > 0, "without welding the corners show");
        }
    }
}

#[test]
fn welds_survive_snapshots_and_hash_alike() {
    let mut w = world(true);
    let _ = unit_floor(&mut w, 50);
    let ball =
        w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(5.0, 0.49)))).unwrap();
    w.step();
    let mut copy = World::from_bytes(&w.to_bytes()).unwrap();
    assert_eq!(copy.state_hash(), w.state_hash());
    copy.validate().unwrap();
    for x in [5.0, 5.5, 7.999, 8.0, 8.001] {
        let pose = Pose::from_translation(Vec2::new(x, 0.49));
        let a = normals_at(&mut w, ball, pose);
        let b = normals_at(&mut copy, ball, pose);
        assert_eq!(a, b);
        assert_eq!(copy.state_hash(), w.state_hash());
    }
    // Welding on or off is part of the state.
    let mut off = world(false);
    let _ = unit_floor(&mut off, 50);
    off.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(8.0, 0.49)))).unwrap();
    off.step();
    let mut on = world(true);
    let _ = unit_floor(&mut on, 50);
    on.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(8.0, 0.49)))).unwrap();
    on.step();
    assert_ne!(on.state_hash(), off.state_hash());
    assert!(!World::from_bytes(&off.to_bytes()).unwrap().config().weld_static_edges);
    // A copy with another broad phase welds its statics too.
    let copy =
        on.rebuilt_with(WorldConfig { broad_phase: sapwood::BroadPhaseKind::SortSweep, ..*on.config() }).unwrap();
    copy.validate().unwrap();
    assert_eq!(copy.contacts(), on.contacts());
}

/// A level arriving in one step (thousands of tiles, the bulk paths: one tree build, welds
/// without neighbour searches, statics that skip the tree when it holds no mover) ends in the
/// same contacts, events and welds as the same level built in small pieces with steps between,
/// with and without a large mover living in the tree.
#[test]
fn a_level_loaded_at_once_equals_one_built_piece_by_piece() {
    for large in [false, true] {
        let tiles: Vec<Vec2> =
            (0..90).flat_map(|i| (0..60).map(move |j| Vec2::new(i as f32, j as f32 * 1.5))).collect();
        let movers: Vec<(Shape, Pose)> = (0..200)
            .map(|k| {
                let p = Vec2::new((k * 37 % 90) as f32 + 0.3, (k * 53 % 60) as f32 * 1.5 + 0.95);
                let shape =
                    if k % 2 == 0 { Shape::circle(0.3).unwrap() } else { Shape::cuboid(Vec2::splat(0.25)).unwrap() };
                (shape, Pose::new(p, 0.1 * k as f32))
            })
            .collect();
        let build = |pieces: usize| {
            let mut w = world(true);
            for (shape, pose) in &movers {
                w.insert(ColliderDesc::new(shape.clone(), *pose)).unwrap();
            }
            if large {
                // Wider than `large_extent`: a mover kept in the tree.
                let plank = Shape::cuboid(Vec2::new(200.0, 0.2)).unwrap();
                w.insert(ColliderDesc::new(plank, Pose::from_translation(Vec2::new(45.0, 30.6)))).unwrap();
            }
            w.step();
            for chunk in tiles.chunks(tiles.len().div_ceil(pieces)) {
                for &p in chunk {
                    fixed(&mut w, unit_box(), p);
                }
                w.step();
            }
            w.step();
            w
        };
        let (at_once, in_pieces) = (build(1), build(8));
        at_once.validate().unwrap();
        in_pieces.validate().unwrap();
        assert!(!at_once.contacts().is_empty());
        // The same contacts, bit for bit (the array's order is the order pairs began in).
        let sorted = |w: &World| {
            let mut c = w.contacts().to_vec();
            c.sort_by_key(|c| (c.a, c.b));
            bytemuck::cast_slice::<_, u8>(&c).to_vec()
        };
        assert!(sorted(&at_once) == sorted(&in_pieces), "large mover {large}");
    }
}
