//! The game played by its autopilot, checked from outside: the course is finished, the
//! pickups collected, steps and slopes walked without leaving the ground, the player never
//! ends a frame inside solid geometry (by a distance query against every solid collider, and by
//! the tile grid itself), it lands on the one-way platform after rising through it, the moving
//! platform carries it, and two runs agree bit for bit. `cargo test --release --example
//! platformer` runs them (the example is built as a test target too, see Cargo.toml).

use sapwood::{Pose, Shape, Vec2, query};

use crate::autopilot;
use crate::components::{MovingPlatform, OneWay, Player, Terrain};
use crate::game::{DT, Game, Input, PLAYER_HALF_CORE, PLAYER_HALF_HEIGHT, PLAYER_RADIUS};
use crate::systems;

/// Enough for the course with the longest wait for the moving platform (its period is 7 s).
const FRAMES: u64 = 2400;

/// The player's surface distance to the nearest solid collider (terrain and moving platforms;
/// not the one-way platform, which the player may stand inside while passing up through it),
/// by `query::distance` on each collider's shape and pose as the ECS holds them.
fn clearance(game: &Game) -> f32 {
    let pose = game.player_pose();
    let mut nearest = f32::INFINITY;
    let mut check = |shape: &Shape, other: &Pose| {
        let d = query::distance(&game.player_shape, &pose, shape, other).expect("finite poses");
        nearest = nearest.min(d.distance);
    };
    for (p, s, _) in game.ecs.query::<(&Pose, &Shape, &Terrain)>().iter() {
        check(s, p);
    }
    for (p, s, _) in game.ecs.query::<(&Pose, &Shape, &MovingPlatform)>().iter() {
        check(s, p);
    }
    nearest
}

/// Points of the player's capsule (its core and a ring just inside its rim at each end) that
/// lie in a solid tile: a player entirely inside a wall touches no chain, so the distance check
/// alone would not see it.
fn points_in_solid(game: &Game) -> usize {
    let p = game.player_pose().p;
    let mut n = 0;
    for end in [-PLAYER_HALF_CORE, 0.0, PLAYER_HALF_CORE] {
        let c = p + Vec2::new(0.0, end);
        n += usize::from(game.level.solid_at(c));
        for k in 0..8 {
            let a = k as f32 * std::f32::consts::FRAC_PI_4;
            n += usize::from(game.level.solid_at(c + 0.95 * PLAYER_RADIUS * Vec2::from_angle(a)));
        }
    }
    n
}

/// From just before the first one-cell step (column 20 of the map) to just before the
/// two-cell step (column 58): one-cell steps up, 45° slopes down, up and down. The mover should
/// walk all of it (step-ups, slopes, ground snapping) without leaving the ground.
const WALKED_STRETCH: std::ops::Range<f32> = 9.0..28.4;

/// The run to the goal over separate tile colliders (`t` in the map, one box each): from four
/// cells past the tiled bump (columns 152 to 164; the drop from it lands by then) to a cell
/// before the goal. Welded by the
/// world, the seams between the tiles never slow the player.
const TILED_STRETCH: std::ops::Range<f32> = 84.0..92.0;

/// What a run showed, frame by frame.
#[derive(Default, Debug)]
struct Observed {
    min_clearance: f32,
    /// Frames in `WALKED_STRETCH` that ended in the air, and frames there in all.
    airborne_on_stretch: u32,
    frames_on_stretch: u32,
    /// Frames that ended with the player in a solid tile.
    frames_in_solid: u32,
    /// The player's feet were below the one-way platform's top, within its span.
    under_one_way: bool,
    /// Then it stood on the one-way platform.
    landed_on_one_way: bool,
    /// Frames on the moving platform without input, with the player's displacement equal to
    /// the platform's (to 1e-4), and the largest mismatch in such frames.
    carried_frames: u32,
    carry_error: f32,
    /// How far the platform carried the player in all.
    carried_distance: f32,
    /// Frames in `TILED_STRETCH`, and those among them not grounded or not moving right at
    /// the full run speed.
    frames_on_tiles: u32,
    slowed_on_tiles: u32,
}

fn play(game: &mut Game, frames: u64) -> Observed {
    let mut seen = Observed { min_clearance: f32::INFINITY, ..Observed::default() };
    let mut ids = Vec::new();
    let (edge_left, edge_right) = game.level.one_way[0];
    for _ in 0..frames {
        let before = game.player_pose().p;
        let riding_before = game.player_state().riding;
        let input = autopilot::steer(game, &mut ids);
        game.frame(input).expect("the game never fails on its own level");
        let after = game.player_pose().p;
        let state: Player = game.player_state();

        seen.min_clearance = seen.min_clearance.min(clearance(game));
        seen.frames_in_solid += u32::from(points_in_solid(game) > 0);

        if WALKED_STRETCH.contains(&after.x) {
            seen.frames_on_stretch += 1;
            seen.airborne_on_stretch += u32::from(!state.grounded);
        }
        if TILED_STRETCH.contains(&before.x) && TILED_STRETCH.contains(&after.x) {
            seen.frames_on_tiles += 1;
            let full = (after.x - before.x - systems::RUN_SPEED * DT).abs() < 1e-4 && after.y == before.y;
            seen.slowed_on_tiles += u32::from(!state.grounded || !full);
        }
        let feet = after - Vec2::new(0.0, PLAYER_HALF_HEIGHT);
        if (edge_left.x..edge_right.x).contains(&after.x) && feet.y < edge_left.y - 0.1 {
            seen.under_one_way = true;
        }
        let on_one_way = state.ground.is_some_and(|e| game.ecs.get::<&OneWay>(e).is_ok());
        if seen.under_one_way && on_one_way && state.grounded {
            seen.landed_on_one_way = true;
        }
        if let (Some(platform), Some(_)) = (riding_before, state.riding)
            && input == Input::default()
            && state.velocity.x == 0.0
        {
            let delta = game.ecs.get::<&MovingPlatform>(platform).map(|m| m.delta).unwrap_or(Vec2::NAN);
            let error = ((after - before) - delta).length();
            seen.carry_error = seen.carry_error.max(error);
            seen.carried_frames += u32::from(error < 1e-4);
            seen.carried_distance += delta.length();
        }
    }
    seen
}

#[test]
fn the_autopilot_finishes_the_course_without_entering_solid_geometry() {
    let mut game = Game::new().unwrap();
    let seen = play(&mut game, FRAMES);
    let s = game.stats;
    println!("{s:?}\n{seen:?}");
    assert!(
        s.finished.is_some(),
        "the goal at x = {} was not reached: player at {:?}",
        game.level.goal_x,
        game.player_pose().p
    );
    assert_eq!(s.collected as usize, game.level.pickups.len(), "pickups missed");
    assert_eq!(s.deaths, 0, "the autopilot fell on the spikes");
    assert!(seen.min_clearance > 0.0, "the player ended a frame touching or inside solid geometry: {seen:?}");
    assert_eq!(seen.frames_in_solid, 0, "frames ending with the player in a solid tile");
    assert!(seen.frames_on_stretch > 150, "{seen:?}");
    assert_eq!(seen.airborne_on_stretch, 0, "left the ground on the steps and slopes: {seen:?}");
    assert!(seen.frames_on_tiles > 60, "{seen:?}");
    assert_eq!(seen.slowed_on_tiles, 0, "the tile seams slowed the player: {seen:?}");
}

#[test]
fn the_player_lands_on_the_one_way_platform_from_below_and_rides_the_moving_one() {
    let mut game = Game::new().unwrap();
    let seen = play(&mut game, FRAMES);
    assert!(seen.under_one_way, "the player never went under the one-way platform");
    assert!(seen.landed_on_one_way, "the player never stood on the one-way platform after rising through it");
    // The autopilot waits on the platform for most of the crossing (the pit is 12 units wide).
    assert!(seen.carried_frames >= 60, "carried for only {} frames: {seen:?}", seen.carried_frames);
    assert!(seen.carried_distance > 5.0, "carried only {} units", seen.carried_distance);
    assert!(seen.carry_error < 1e-4, "the player slid on the platform by {}", seen.carry_error);
}

#[test]
fn runs_are_deterministic() {
    let fingerprint = |game: &Game| {
        let p = game.player_pose();
        (game.world.state_hash(), [p.p.x.to_bits(), p.p.y.to_bits()], game.stats.collected, game.stats.frame)
    };
    let mut a = Game::new().unwrap();
    let mut b = Game::new().unwrap();
    play(&mut a, 900);
    play(&mut b, 900);
    assert_eq!(fingerprint(&a), fingerprint(&b));
}

/// The tile-grid oracle the checks above use agrees with the chains sapwood traced from the
/// same grid (winding numbers of the closed outlines), away from the outlines themselves.
#[test]
fn the_grid_oracle_agrees_with_the_traced_terrain() {
    let level = crate::level::Level::course().unwrap();
    let winding = |p: Vec2| {
        let mut w = 0i32;
        for chain in &level.terrain {
            let vs = chain.vertices();
            for (i, &a) in vs.iter().enumerate() {
                let b = vs[(i + 1) % vs.len()];
                let side = (b - a).perp_dot(p - a);
                if a.y <= p.y && b.y > p.y && side > 0.0 {
                    w += 1;
                } else if a.y > p.y && b.y <= p.y && side < 0.0 {
                    w -= 1;
                }
            }
        }
        w
    };
    let near_outline = |p: Vec2| {
        level.terrain.iter().any(|chain| {
            let vs = chain.vertices();
            (0..vs.len()).any(|i| {
                let (a, b) = (vs[i], vs[(i + 1) % vs.len()]);
                let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                (a + t * (b - a)).distance(p) < 1e-3
            })
        })
    };
    let mut rng = sapwood_support::SplitMix64::new(0x9a7f);
    let (mut solid, mut checked) = (0, 0);
    for _ in 0..20_000 {
        let p = Vec2::new(rng.range(0.0, level.size.x), rng.range(0.0, level.size.y));
        if near_outline(p) {
            continue;
        }
        let inside = winding(p) != 0;
        assert_eq!(level.solid_at(p), inside, "at {p:?}");
        solid += usize::from(inside);
        checked += 1;
    }
    assert!(solid > 3000 && checked - solid > 3000, "{solid} solid of {checked}");
}

/// Standing on the one-way platform holds the player; holding "drop" lets it fall through
/// (the mover's predicate ignores the platform), and it lands on the floor below.
#[test]
fn the_one_way_platform_holds_until_the_player_drops_through() {
    let mut game = Game::new().unwrap();
    let (left, right) = game.level.one_way[0];
    let on_top = crate::game::standing_at(0.5 * (left + right));
    let id = game.ecs.get::<&sapwood::ecs::ColliderHandle>(game.player).unwrap().0;
    game.world.set_pose(id, on_top).unwrap();
    *game.ecs.get::<&mut Pose>(game.player).unwrap() = on_top;
    for _ in 0..60 {
        game.frame(Input::default()).unwrap();
    }
    let held = game.player_pose().p.y;
    assert!(game.player_state().grounded && (held - on_top.p.y).abs() < 0.05, "not held: {held} vs {}", on_top.p.y);
    for _ in 0..60 {
        game.frame(Input { drop: true, ..Input::default() }).unwrap();
    }
    let below = game.player_pose().p.y;
    assert!(below < left.y - PLAYER_HALF_HEIGHT, "did not drop through: {below}");
    assert!(game.player_state().grounded, "did not land below the platform");
}
