//! The example's scenes. Sizes are in metres, gravity 10 m/s².

use sapwood::{Pose, Shape, Vec2};
use sapwood_support::SplitMix64;

use crate::solver::{BodyDesc, Stepper};

/// Half-size of the pyramid's boxes.
pub const PYRAMID_BOX: f32 = 0.5;

/// A static floor whose top is at y = 0.
pub fn ground(stepper: &mut Stepper, half_width: f32) -> usize {
    let shape = Shape::cuboid(Vec2::new(half_width, 1.0)).expect("valid box");
    stepper.add(BodyDesc::new(shape, Pose::from_translation(Vec2::new(0.0, -1.0))).fixed())
}

/// A pyramid of `rows` rows of unit boxes on the ground, each box initially exactly touching
/// its neighbours. Returns the body indices row by row, bottom first; the last is the top box.
pub fn pyramid(stepper: &mut Stepper, rows: usize) -> Vec<usize> {
    ground(stepper, 40.0);
    let shape = Shape::cuboid(Vec2::splat(PYRAMID_BOX)).expect("valid box");
    let size = 2.0 * PYRAMID_BOX;
    let mut ids = Vec::new();
    for row in 0..rows {
        let n = rows - row;
        for k in 0..n {
            let x = (k as f32 - 0.5 * (n - 1) as f32) * size;
            let y = PYRAMID_BOX + row as f32 * size;
            ids.push(stepper.add(BodyDesc::new(shape.clone(), Pose::from_translation(Vec2::new(x, y)))));
        }
    }
    ids
}

/// Box2D's many-pyramids layout, as `examples/peers --scene pyramids` runs it
/// (`sapwood_support::scenes::Scene::pyramids`, `docs/SCENES.md` §4): `count` pyramids of 20
/// rows of unit boxes side by side, 1 m apart, on one static ground box whose top is at y = 0.
/// Returns the boxes' body indices, pyramid by pyramid, each bottom row first.
pub fn many_pyramids(stepper: &mut Stepper, count: usize) -> Vec<usize> {
    let layout = sapwood_support::scenes::Scene::pyramids(count);
    let mut boxes = Vec::with_capacity(layout.len());
    for c in layout.colliders() {
        let desc = BodyDesc::new(c.shape.clone(), c.pose);
        if c.fixed {
            stepper.add(desc.fixed());
        } else {
            boxes.push(stepper.add(desc));
        }
    }
    boxes
}

/// A column of `rows` unit boxes standing on each other at x = 0 (place a ground first).
pub fn column(stepper: &mut Stepper, rows: usize) -> Vec<usize> {
    let shape = Shape::cuboid(Vec2::splat(PYRAMID_BOX)).expect("valid box");
    (0..rows)
        .map(|row| {
            let y = PYRAMID_BOX + row as f32 * 2.0 * PYRAMID_BOX;
            stepper.add(BodyDesc::new(shape.clone(), Pose::from_translation(Vec2::new(0.0, y))))
        })
        .collect()
}

/// Static walls and floor of a container `2 * half_width` wide and `height` high.
fn container(stepper: &mut Stepper, half_width: f32, height: f32) {
    ground(stepper, half_width + 1.0);
    let wall = Shape::cuboid(Vec2::new(0.5, 0.5 * height)).expect("valid box");
    for x in [-half_width - 0.5, half_width + 0.5] {
        stepper.add(BodyDesc::new(wall.clone(), Pose::from_translation(Vec2::new(x, 0.5 * height))).fixed());
    }
}

/// Circles and capsules dropped in a heap into a container.
pub fn pile(stepper: &mut Stepper) {
    container(stepper, 8.0, 12.0);
    let mut rng = SplitMix64::new(7);
    for row in 0..14 {
        for k in 0..12 {
            let pos = Vec2::new(-6.6 + k as f32 * 1.2 + rng.range(-0.1, 0.1), 1.0 + row as f32 * 1.3);
            let shape = if (row + k) % 2 == 0 {
                Shape::circle(rng.range(0.3, 0.55)).expect("valid circle")
            } else {
                let half = rng.range(0.2, 0.5);
                Shape::capsule(Vec2::new(-half, 0.0), Vec2::new(half, 0.0), rng.range(0.15, 0.3))
                    .expect("valid capsule")
            };
            let mut desc = BodyDesc::new(shape, Pose::new(pos, rng.range(-3.0, 3.0)));
            desc.restitution = 0.1;
            stepper.add(desc);
        }
    }
}

/// The pour scene's container, empty; call [`pour_one`] to add polygons.
pub fn pour_container(stepper: &mut Stepper) {
    container(stepper, 6.0, 10.0);
}

/// Drops one random convex polygon (3–8 vertices) from the spout above the container.
pub fn pour_one(stepper: &mut Stepper, rng: &mut SplitMix64) {
    let n = 3 + (rng.range(0.0, 6.0) as usize).min(5);
    let scale = rng.range(0.3, 0.55);
    let points: Vec<Vec2> = (0..n)
        .map(|i| {
            let a = (i as f32 + rng.range(-0.3, 0.3)) * std::f32::consts::TAU / n as f32;
            scale * rng.range(0.75, 1.0) * Vec2::new(a.cos(), a.sin())
        })
        .collect();
    let shape = Shape::polygon(&points, 0.0).expect("points on a circle make a convex polygon");
    let pos = Vec2::new(rng.range(-1.0, 1.0), 13.0);
    let mut desc = BodyDesc::new(shape, Pose::new(pos, rng.range(-3.0, 3.0)));
    desc.restitution = 0.05;
    let i = stepper.add(desc);
    stepper.bodies[i].velocity = Vec2::new(rng.range(-2.0, 2.0), -4.0);
}

/// Where the bullets scene's thin wall stands (its centre line) and its half thickness.
pub const WALL_X: f32 = 6.0;
pub const WALL_HALF: f32 = 0.025;
/// The height of the wall's top.
pub const WALL_TOP: f32 = 8.0;
/// Speed of a bullet (m/s): 2.5 m per substep at 60 Hz and 4 substeps, fifty times the wall's
/// thickness.
pub const BULLET_SPEED: f32 = 600.0;

/// The bullets scene: a 5 cm thick wall on the ground, a few boxes resting against it, and
/// nothing else; call [`fire`] to shoot.
pub fn bullets(stepper: &mut Stepper) {
    ground(stepper, 20.0);
    let wall = Shape::cuboid(Vec2::new(WALL_HALF, 0.5 * WALL_TOP)).expect("valid box");
    stepper.add(BodyDesc::new(wall, Pose::from_translation(Vec2::new(WALL_X, 0.5 * WALL_TOP))).fixed());
    let crate_ = Shape::cuboid(Vec2::splat(0.3)).expect("valid box");
    for k in 0..4 {
        let p = Vec2::new(WALL_X - WALL_HALF - 0.3, 0.3 + 0.6 * k as f32);
        stepper.add(BodyDesc::new(crate_.clone(), Pose::from_translation(p)));
    }
}

/// Fires one small ball from the left at the wall, at a random height and slight angle;
/// `bullet` marks it for continuous collision. Returns its body index.
pub fn fire(stepper: &mut Stepper, rng: &mut SplitMix64, bullet: bool) -> usize {
    let shape = Shape::circle(0.05).expect("valid circle");
    let pos = Vec2::new(-6.0, rng.range(0.3, 7.5));
    let mut desc = BodyDesc::new(shape, Pose::from_translation(pos));
    desc.density = 20.0;
    desc.restitution = 0.3;
    let i = stepper.add(if bullet { desc.bullet() } else { desc });
    stepper.bodies[i].velocity = BULLET_SPEED * Vec2::from_angle(rng.range(-0.05, 0.05));
    i
}
