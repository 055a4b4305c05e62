//! The smallest useful embedding: a hecs world of moving circles and boxes inside static walls,
//! synced into a sapwood world each frame, with contact events printed by entity.
//!
//! `cargo run --release --example embed`

use sapwood::ecs::HecsSync;
use sapwood::{ColliderOptions, EventKind, Pose, Shape, Vec2, World};

/// The game's own component: sapwood only reads `Pose` and `Shape`.
struct Velocity(Vec2);

const HALF: f32 = 10.0; // the arena is [-HALF, HALF]²

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ecs = hecs::World::new();
    let mut world = World::new();
    let mut sync = HecsSync::new();

    // Four static walls around the arena.
    for (p, half) in [
        (Vec2::new(0.0, -HALF), Vec2::new(HALF, 0.5)),
        (Vec2::new(0.0, HALF), Vec2::new(HALF, 0.5)),
        (Vec2::new(-HALF, 0.0), Vec2::new(0.5, HALF)),
        (Vec2::new(HALF, 0.0), Vec2::new(0.5, HALF)),
    ] {
        ecs.spawn((Pose::from_translation(p), Shape::cuboid(half)?, ColliderOptions::fixed()));
    }
    // A few dozen movers on a grid, alternating circles and boxes, with fixed pseudo-random
    // velocities so that every run prints the same thing.
    for i in 0..36 {
        let p = Vec2::new((i % 6) as f32 * 2.5 - 6.25, (i / 6) as f32 * 2.5 - 6.25);
        let shape = if i % 2 == 0 { Shape::circle(0.5)? } else { Shape::cuboid(Vec2::new(0.6, 0.4))? };
        let angle = i as f32 * 2.399; // golden angle: directions spread evenly
        ecs.spawn((Pose::new(p, angle), shape, Velocity(Vec2::from_angle(angle) * 0.08)));
    }

    let (mut began, mut ended) = (0, 0);
    for frame in 0..300 {
        // The game moves its entities; bouncing off the arena keeps them inside.
        for (pose, vel) in ecs.query_mut::<(&mut Pose, &mut Velocity)>() {
            let next = pose.p + vel.0;
            if next.x.abs() > HALF - 0.9 {
                vel.0.x = -vel.0.x;
            }
            if next.y.abs() > HALF - 0.9 {
                vel.0.y = -vel.0.y;
            }
            pose.p += vel.0;
        }
        // Push changes to the collision world, then step it.
        sync.sync(&mut ecs, &mut world)?;
        world.step();

        for (a, b, kind) in sync.events(&world) {
            match kind {
                EventKind::ContactBegan => began += 1,
                EventKind::ContactEnded => ended += 1,
                _ => {}
            }
            if frame % 50 == 0 {
                println!("frame {frame:3}: {a:?} and {b:?}: {kind:?}");
            }
        }
    }
    let deepest =
        sync.contacts(&world).filter_map(|(a, b, m)| Some((a, b, m.max_depth()?))).max_by(|x, y| x.2.total_cmp(&y.2));
    println!("{began} contacts began, {ended} ended; {} touching now", world.contacts().len());
    if let Some((a, b, depth)) = deepest {
        println!("deepest contact: {a:?} and {b:?}, depth {depth:.3}");
    }
    Ok(())
}
