//! The arena: boundary walls, obstacles, and where enemies may (re)appear.
//!
//! ```text
//!  +--------------------------------------------------------------+  boundary walls (boxes)
//!  |  spawn band (enemies respawn along the inner edge)            |
//!  |        [rotated box]                 (triangle)     ......   |
//!  |                                                     : C  :   |  C: the concave site
//!  |   (hexagon)            player starts here           :....:   |
//!  |                              o                               |
//!  |                 [rotated box]            [rotated box]       |
//!  |      (pentagon)                                 (hexagon)    |
//!  +--------------------------------------------------------------+
//! ```

use sapwood::{Polygon, Pose, Shape, ShapeError, Vec2};

/// The arena's inner half-size: the floor is `[-HALF.x, HALF.x] x [-HALF.y, HALF.y]`.
pub const HALF: Vec2 = Vec2::new(200.0, 140.0);
/// Half-thickness of the boundary walls (they stand just outside the floor).
pub const WALL_HALF_THICKNESS: f32 = 4.0;

/// Where the concave obstacle stands: a U whose pocket traps chasers (a test of the compound
/// narrow phase's manifolds), in a disc of radius 28 kept free of other obstacles.
pub const CONCAVE_SITE: Vec2 = Vec2::new(135.0, 70.0);

/// The four boundary walls, as (shape, pose).
pub fn boundary() -> Result<Vec<(Shape, Pose)>, ShapeError> {
    let t = WALL_HALF_THICKNESS;
    let (hx, hy) = (HALF.x + 2.0 * t, HALF.y);
    Ok(vec![
        (Shape::cuboid(Vec2::new(hx, t))?, Pose::from_translation(Vec2::new(0.0, -HALF.y - t))),
        (Shape::cuboid(Vec2::new(hx, t))?, Pose::from_translation(Vec2::new(0.0, HALF.y + t))),
        (Shape::cuboid(Vec2::new(t, hy))?, Pose::from_translation(Vec2::new(-HALF.x - t, 0.0))),
        (Shape::cuboid(Vec2::new(t, hy))?, Pose::from_translation(Vec2::new(HALF.x + t, 0.0))),
    ])
}

/// The obstacles inside the arena: oriented boxes and convex polygons, none within 40 units of
/// the centre (the player's start) or 30 of the boundary (the spawn band).
pub fn obstacles() -> Result<Vec<(Shape, Pose)>, Box<dyn std::error::Error>> {
    let hexagon = Shape::from(Polygon::regular(6, 14.0, 0.0)?);
    let pentagon = Shape::from(Polygon::regular(5, 12.0, 0.0)?);
    let triangle = Shape::polygon(&[Vec2::new(-13.0, -9.0), Vec2::new(14.0, -7.0), Vec2::new(-2.0, 14.0)], 0.0)?;
    let rounded = Shape::rounded_box(Vec2::new(10.0, 5.0), 2.0)?;
    // The concave obstacle: a U open to the north-west, decomposed into convex parts by
    // `Shape::concave_polygon`; enemies that chase the player into its pocket are pushed out
    // by the per-part manifolds like by any other wall.
    let u = [
        (-19.0, -19.0),
        (19.0, -19.0),
        (19.0, 19.0),
        (9.0, 19.0),
        (9.0, -6.0),
        (-9.0, -6.0),
        (-9.0, 19.0),
        (-19.0, 19.0),
    ];
    let pocket = Shape::concave_polygon(&u.map(|(x, y)| Vec2::new(x, y)), 0.0)?;
    Ok(vec![
        (Shape::cuboid(Vec2::new(22.0, 5.0))?, Pose::new(Vec2::new(-95.0, 62.0), 0.45)),
        (Shape::cuboid(Vec2::new(5.0, 24.0))?, Pose::new(Vec2::new(100.0, -55.0), -0.3)),
        (Shape::cuboid(Vec2::new(30.0, 4.0))?, Pose::new(Vec2::new(-10.0, -78.0), 0.0)),
        (hexagon.clone(), Pose::new(Vec2::new(-130.0, -20.0), 0.2)),
        (hexagon, Pose::new(Vec2::new(150.0, -85.0), 0.0)),
        (pentagon, Pose::new(Vec2::new(-120.0, -85.0), 0.3)),
        (triangle, Pose::new(Vec2::new(40.0, 85.0), 0.0)),
        (rounded, Pose::new(Vec2::new(60.0, 10.0), 1.1)),
        (pocket, Pose::new(CONCAVE_SITE, 0.6)),
    ])
}

/// A point on the spawn band (the inner edge of the floor, `inset` from the wall), from two
/// uniform numbers in [0, 1).
pub fn edge_point(u: f32, v: f32, inset: f32) -> Vec2 {
    let (w, h) = (HALF.x - inset, HALF.y - inset);
    let perimeter = 4.0 * (w + h);
    let s = u * perimeter;
    // Walk the rectangle's perimeter counter-clockwise from the bottom-left corner, with a
    // little depth into the floor so that respawns do not all line up.
    let depth = v * 6.0;
    if s < 2.0 * w {
        Vec2::new(-w + s, -h + depth)
    } else if s < 2.0 * w + 2.0 * h {
        Vec2::new(w - depth, -h + (s - 2.0 * w))
    } else if s < 4.0 * w + 2.0 * h {
        Vec2::new(w - (s - 2.0 * w - 2.0 * h), h - depth)
    } else {
        Vec2::new(-w + depth, h - (s - 4.0 * w - 2.0 * h))
    }
}
