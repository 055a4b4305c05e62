//! Tile maps against independent checks: the winding number of the traced loops is 1 at every
//! solid point and 0 at every free one (cell centres, and both halves of every slope cell),
//! the outline's length equals a per-cell-edge count from a coverage table, merged outlines
//! keep no straight-through vertex, and hand-made maps give known edge counts.

use sapwood::collide;
use sapwood::{Chain, Pose, Shape, Tile, TileMap, Vec2};
use sapwood_support::SplitMix64;

const TILES: [Tile; 6] =
    [Tile::Empty, Tile::Solid, Tile::SlopeBottomRight, Tile::SlopeBottomLeft, Tile::SlopeTopLeft, Tile::SlopeTopRight];

fn random_map(rng: &mut SplitMix64, w: usize, h: usize, p_solid: f32) -> TileMap {
    let rows: Vec<Vec<Tile>> = (0..h)
        .map(|_| {
            (0..w)
                .map(|_| {
                    let x = rng.next_f32();
                    if x < p_solid {
                        Tile::Solid
                    } else if x < p_solid + 0.15 {
                        TILES[2 + rng.below(4)]
                    } else {
                        Tile::Empty
                    }
                })
                .collect()
        })
        .collect();
    TileMap::new(&rows).unwrap()
}

/// Winding number of all loops around `p` (in f64, so the test adds no rounding of its own).
fn winding(chains: &[Chain], p: Vec2) -> i32 {
    let (px, py) = (p.x as f64, p.y as f64);
    let mut w = 0;
    for c in chains {
        let vs = c.vertices();
        for i in 0..vs.len() {
            let (a, b) = (vs[i], vs[(i + 1) % vs.len()]);
            let (ax, ay, bx, by) = (a.x as f64, a.y as f64, b.x as f64, b.y as f64);
            let cross = (bx - ax) * (py - ay) - (px - ax) * (by - ay);
            if ay <= py && by > py && cross > 0.0 {
                w += 1;
            } else if ay > py && by <= py && cross < 0.0 {
                w -= 1;
            }
        }
    }
    w
}

/// Points well inside the solid part and the free part of a cell, in unit-cell coordinates.
fn probes(t: Tile) -> (Vec<Vec2>, Vec<Vec2>) {
    let (lo, hi) = (0.25, 0.75);
    // A point well inside each corner triangle of the cell.
    let (bl, br, tl, tr) = (Vec2::new(lo, lo), Vec2::new(hi, lo), Vec2::new(lo, hi), Vec2::new(hi, hi));
    let c = Vec2::splat(0.5);
    match t {
        Tile::Empty => (vec![], vec![c, bl, br, tl, tr]),
        Tile::Solid => (vec![c, bl, br, tl, tr], vec![]),
        Tile::SlopeBottomRight => (vec![br], vec![tl]),
        Tile::SlopeBottomLeft => (vec![bl], vec![tr]),
        Tile::SlopeTopLeft => (vec![tl], vec![br]),
        Tile::SlopeTopRight => (vec![tr], vec![bl]),
    }
}

/// Which sides of a cell its solid part covers entirely: (bottom, right, top, left).
fn covers(t: Tile) -> [bool; 4] {
    match t {
        Tile::Empty => [false; 4],
        Tile::Solid => [true; 4],
        Tile::SlopeBottomRight => [true, true, false, false],
        Tile::SlopeBottomLeft => [true, false, false, true],
        Tile::SlopeTopLeft => [false, false, true, true],
        Tile::SlopeTopRight => [false, true, true, false],
    }
}

/// The outline's length from the coverage table: a unit edge between two cells is outline when
/// exactly one side covers it; every slope adds its diagonal.
fn expected_length(map: &TileMap) -> f64 {
    let get = |c: isize, r: isize| {
        if c < 0 || r < 0 { Tile::Empty } else { map.get(c as usize, r as usize).unwrap_or(Tile::Empty) }
    };
    let mut len = 0.0;
    for r in -1..=map.height() as isize {
        for c in -1..=map.width() as isize {
            let t = get(c, r);
            // Right neighbour, and the one below (rows count down).
            len += f64::from(u8::from(covers(t)[1] != covers(get(c + 1, r))[3]));
            len += f64::from(u8::from(covers(t)[0] != covers(get(c, r + 1))[2]));
            if !matches!(t, Tile::Empty | Tile::Solid) {
                len += std::f64::consts::SQRT_2;
            }
        }
    }
    len
}

#[test]
fn random_maps_trace_exactly_their_solid_cells() {
    let mut rng = SplitMix64::new(0x711E);
    let (origin, size) = (Vec2::new(-3.5, 2.0), 0.5);
    let mut loops = 0;
    for case in 0..300 {
        let (w, h) = (1 + rng.below(24), 1 + rng.below(16));
        let map = random_map(&mut rng, w, h, [0.2, 0.45, 0.7][case % 3]);
        let chains = map.chains(size, origin, case % 2 == 0).unwrap();
        loops += chains.len();
        for row in 0..h {
            for col in 0..w {
                let corner = map.cell_center(size, origin, col, row) - Vec2::splat(0.5 * size);
                let (solid, free) = probes(map.get(col, row).unwrap());
                for p in solid {
                    assert_eq!(winding(&chains, corner + p * size), 1, "solid point of ({col}, {row}) in\n{map:?}");
                }
                for p in free {
                    assert_eq!(winding(&chains, corner + p * size), 0, "free point of ({col}, {row}) in\n{map:?}");
                }
            }
        }
        let traced: f64 = chains
            .iter()
            .map(|c| {
                let vs = c.vertices();
                (0..vs.len()).map(|i| (vs[(i + 1) % vs.len()] - vs[i]).length() as f64).sum::<f64>()
            })
            .sum();
        let want = expected_length(&map) * size as f64;
        assert!((traced - want).abs() < 1e-3, "outline length {traced} vs {want} in\n{map:?}");
        for c in &chains {
            assert!(c.options().closed);
            let vs = c.vertices();
            for i in 0..vs.len() {
                let (p, q, r) = (vs[(i + vs.len() - 1) % vs.len()], vs[i], vs[(i + 1) % vs.len()]);
                assert!((q - p).perp_dot(r - q).abs() > 1e-6, "straight-through vertex {q:?} left unmerged");
                // Grid points only.
                let g = (q - origin) / size;
                assert!((g - g.round()).abs().max_element() < 1e-4, "{q:?} is not a grid point");
            }
        }
    }
    assert!(loops > 1000, "{loops}");
}

#[test]
fn known_maps_give_known_edge_counts() {
    let count = |text: &str| -> (usize, usize) {
        let chains = TileMap::parse(text).unwrap().chains(1.0, Vec2::ZERO, true).unwrap();
        (chains.len(), chains.iter().map(|c| c.segment_count()).sum())
    };
    // A row of five cells: one rectangle.
    assert_eq!(count("#####"), (1, 4));
    // A ramp of four slopes on a floor: the four diagonals merge into one edge.
    assert_eq!(count("...../\n..../#\n.../##\n../###\n######"), (1, 5));
    // A ring: an outer loop and a hole.
    assert_eq!(count("###\n#.#\n###"), (2, 8));
    // An L.
    assert_eq!(count("#..\n#..\n###"), (1, 6));
    // Two cells touching at a corner stay two squares; ceilings slope too (a V under a slab).
    assert_eq!(count("#.\n.#"), (2, 8));
    assert_eq!(count("##\nF7"), (1, 5));
}

/// The traced loops collide like any chain: a box sliding over a tiled floor of slopes and
/// flats meets no seam normal, where the same cells as separate boxes catch it.
#[test]
fn a_box_slides_over_a_traced_floor_without_seams() {
    let map = TileMap::parse(&format!("{}\n{}", ".".repeat(200), "#".repeat(200))).unwrap();
    let chains = map.chains(1.0, Vec2::ZERO, true).unwrap();
    assert_eq!(chains.len(), 1);
    let floor = Shape::Chain(chains[0].clone());
    let probe = Shape::cuboid(Vec2::splat(0.4)).unwrap();
    let mut seen = 0;
    for step in 0..4000 {
        let pose = Pose::from_translation(Vec2::new(2.0 + step as f32 * 0.049, 1.4 - 0.003));
        collide::contact_parts(&probe, &pose, &floor, &Pose::IDENTITY, |_, _, m| {
            seen += 1;
            assert!(m.normal.angle_to(Vec2::NEG_Y).abs() <= 1e-3, "seam normal {m:?}");
        })
        .unwrap();
    }
    assert!(seen >= 4000);
}
