//! The example game, headless, driven by Bevy's own fixed-step clock: gameplay facts after ten
//! seconds of play.

#[path = "../examples/runner.rs"]
#[allow(dead_code)]
mod runner;

use bevy_ecs::query::With;
use bevy_transform::components::Transform;
use runner::{COINS, Coin, Runner, Score, Shot, WALL_X};
use sapwood_bevy::SapwoodWorld;

#[test]
fn the_runner_collects_every_coin_and_the_thin_wall_stops_runner_and_shots() {
    let mut app = runner::headless(640);
    let world = app.world_mut();
    let score = world.resource::<Score>();
    assert_eq!(score.coins as usize, COINS.len(), "{score:?}");
    assert_eq!((score.shots_fired, score.shots_stopped), (8, 8), "{score:?}");
    assert_eq!(world.query_filtered::<(), With<Coin>>().iter(world).count(), 0);
    assert_eq!(world.query_filtered::<(), With<Shot>>().iter(world).count(), 0);
    let (runner, at) = world.query::<(&Runner, &Transform)>().single(world).unwrap();
    // Stopped a skin (0.01) short of the wall, standing on the floor's top (y = 0) with its
    // capsule's foot: centre at 0.8 plus the skin.
    assert!(runner.grounded);
    assert!((at.translation.x - (WALL_X - 0.41)).abs() < 0.02, "{}", at.translation);
    assert!((at.translation.y - 0.81).abs() < 0.02, "{}", at.translation);
    // Floor, wall and runner are what is left.
    assert_eq!(world.resource::<SapwoodWorld>().world().len(), 22 + 1 + 1);
}
