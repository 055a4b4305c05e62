//! The game run headless with its autopilot: invariants a broken collision back-end (or a
//! broken game on top of it) would violate. `cargo test --release --example arena` runs them
//! (the example is built as a test target too, see Cargo.toml).

use crate::components::Enemy;
use crate::game::{Config, Game};
use crate::{autopilot, level, systems};
use sapwood::{Pose, Shape, collide};

const SEED: u64 = 0xa7e4a;

fn run(game: &mut Game, frames: u64) {
    let mut ids = Vec::new();
    for _ in 0..frames {
        let input = autopilot::steer(&game.world, game.player_pose().p, game.time, &mut ids);
        game.frame(input).expect("every pose the game produces is valid");
    }
}

/// The deepest penetration of any enemy into any wall or obstacle, checked with the narrow
/// phase directly (not through the world's contacts, which the game itself consumed).
fn deepest_wall_penetration(game: &Game) -> f32 {
    let mut deepest = 0.0f32;
    for (pose, shape, _) in game.ecs.query::<(&Pose, &Shape, &Enemy)>().iter() {
        for (ws, wp) in &game.walls {
            if let Some(d) = collide::contact(shape, pose, ws, wp).unwrap().max_depth() {
                deepest = deepest.max(d);
            }
        }
    }
    deepest
}

/// Mean and maximum depth over the world's enemy–enemy contacts (as of the last step).
fn crowd_depth(game: &Game) -> (f32, f32) {
    let enemy_slots: std::collections::HashSet<u32> =
        game.ecs.query::<(&sapwood::ecs::ColliderHandle, &Enemy)>().iter().map(|(h, _)| h.0.index()).collect();
    let (mut sum, mut max, mut n) = (0.0f32, 0.0f32, 0u32);
    for c in game.world.contacts() {
        if enemy_slots.contains(&c.a.index()) && enemy_slots.contains(&c.b.index()) {
            let d = c.manifold.max_depth().unwrap_or(0.0);
            sum += d;
            max = max.max(d);
            n += 1;
        }
    }
    (sum / n.max(1) as f32, max)
}

fn config(enemies: usize, separation: bool) -> Config {
    Config { enemies, seed: SEED, separation, ..Config::default() }
}

/// No enemy ends a frame inside a wall by more than one frame's worth of crowd push
/// (`systems::MAX_PUSH`, see `systems::separate`), all stay on the floor, projectiles kill
/// enemies through sensor events and the score keeps growing.
#[test]
fn walls_hold_projectiles_kill_and_the_score_grows() {
    let mut game = Game::new(config(1000, true)).unwrap();
    let tolerance = systems::MAX_PUSH + 0.02;
    let mut scores = Vec::new();
    for _ in 0..8 {
        run(&mut game, 60);
        let deepest = deepest_wall_penetration(&game);
        assert!(deepest <= tolerance, "frame {}: an enemy is {deepest} deep in a wall", game.stats.frame);
        for (pose, _) in game.ecs.query::<(&Pose, &Enemy)>().iter() {
            assert!(pose.p.abs().cmple(level::HALF + 0.5).all(), "enemy left the arena at {:?}", pose.p);
        }
        scores.push(game.stats.score);
    }
    let s = game.stats;
    assert!(s.kills > 0, "no enemy was killed: {s:?}");
    assert!(s.hits >= s.kills, "every kill needs at least one hit: {s:?}");
    assert!(s.score >= 10 * s.kills, "each kill scores at least 10: {s:?}");
    // Growing over the second half too, not only at the start.
    assert!(scores[7] > scores[3] && scores[3] > 0, "score stalled: {scores:?}");
    // Dead enemies respawn: the enemy count never drops.
    assert_eq!(game.ecs.query::<&Enemy>().iter().count(), 1000);
}

/// The separation system is what keeps the crowd apart and out of walls: with it, contacts stay
/// shallow; without it (same seed, same autopilot), chasers pile into one another and into the
/// obstacles between them and the player. The second half makes sure the checks above can fail.
#[test]
fn separation_keeps_the_crowd_apart_and_out_of_walls() {
    let mut on = Game::new(config(1000, true)).unwrap();
    let mut off = Game::new(config(1000, false)).unwrap();
    run(&mut on, 300);
    run(&mut off, 300);
    let (mean_on, max_on) = crowd_depth(&on);
    let (mean_off, _) = crowd_depth(&off);
    assert!(mean_on < 0.25, "separated crowd still overlaps by {mean_on} on average (max {max_on})");
    assert!(mean_off > 2.0 * mean_on, "without separation the crowd should overlap far more: {mean_off} vs {mean_on}");
    assert!(deepest_wall_penetration(&on) <= systems::MAX_PUSH + 0.02);
    assert!(deepest_wall_penetration(&off) > 1.0, "without separation enemies should walk into obstacles");
}

/// Fixed seed and fixed step: two runs agree bit for bit (poses and totals).
#[test]
fn runs_are_deterministic() {
    let fingerprint = |game: &Game| {
        let mut poses: Vec<[u32; 4]> = game
            .ecs
            .query::<(&Pose, &Enemy)>()
            .iter()
            .map(|(p, _)| [p.p.x.to_bits(), p.p.y.to_bits(), p.q.c.to_bits(), p.q.s.to_bits()])
            .collect();
        poses.sort_unstable();
        (poses, game.stats.score, game.stats.kills, game.stats.hits, game.world.contacts().len())
    };
    let mut a = Game::new(config(500, true)).unwrap();
    let mut b = Game::new(config(500, true)).unwrap();
    run(&mut a, 150);
    run(&mut b, 150);
    assert_eq!(fingerprint(&a), fingerprint(&b));
}
