//! A top-down arena shooter on hecs, with sapwood as its collision back-end.
//!
//! ```text
//! cargo run --release --example arena                     # play (needs an X11 display)
//! cargo run --release --example arena -- --seconds 20     # play 20 s, then print frame times
//! cargo run --release --example arena -- --headless --frames 600 --png arena.png
//! ```
//! Thousands of chasers (circles, capsules, convex polygons) push one another apart with the
//! contact manifolds; the player's spinning oriented-box projectiles are sensors that hurt
//! enemies through sensor events. Controls: WASD or arrows move, F1 or B toggles the broad-phase
//! overlay, Z toggles the whole-arena view, P pauses, Esc quits.
//!
//! Options: `--enemies N` (default 5000), `--seed S`, `--margin M` (fat-box margin), `--frames N` and `--png PATH` (headless),
//! `--seconds N` (the window quits by itself after N seconds), `--view follow|whole`, `--size WxH`, `--debug` (overlay on).
//! The window prints its median and 99th-percentile frame time on exit, split into collision,
//! game logic, drawing and presenting.

mod autopilot;
mod backdrop;
mod components;
mod font;
mod game;
mod level;
mod render;
mod sprites;
mod systems;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use sapwood_support::frame_times::{FrameTimes, ms_since, quantile};
use sapwood_support::pacer::Pacer;
use sapwood_support::pixels::rgba_to_0rgb;
use tiny_skia::Pixmap;

use game::{Config, Game, Input};
use render::{Hud, Renderer, View};

/// Pixels per world unit when following the player.
const FOLLOW_SCALE: f32 = 5.0;

struct Args {
    headless: bool,
    frames: u64,
    /// Wall-clock seconds after which the window closes itself.
    seconds: Option<f64>,
    png: String,
    config: Config,
    whole_view: bool,
    /// Start with the debug overlay on (and draw it in the headless picture).
    debug: bool,
    width: u32,
    height: u32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        headless: false,
        frames: 600,
        seconds: None,
        png: "arena.png".into(),
        config: Config::default(),
        whole_view: false,
        debug: false,
        width: 1024,
        height: 720,
    };
    let mut it = std::env::args().skip(1);
    let number = |v: Option<String>, name: &str| -> Result<u64, String> {
        v.and_then(|s| s.parse().ok()).ok_or(format!("{name} needs a number"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--headless" => args.headless = true,
            "--debug" => args.debug = true,
            "--frames" => args.frames = number(it.next(), "--frames")?,
            "--seconds" => {
                args.seconds = Some(it.next().and_then(|s| s.parse().ok()).ok_or("--seconds needs a number")?)
            }
            "--enemies" => args.config.enemies = number(it.next(), "--enemies")? as usize,
            "--seed" => args.config.seed = number(it.next(), "--seed")?,
            "--broad" => {
                let bounds = sapwood::Aabb::from_center_half_extents(sapwood::Vec2::ZERO, level::HALF + 10.0);
                args.config.broad_phase = match it.next().as_deref() {
                    Some("sap") => sapwood::BroadPhaseKind::IncrementalSap,
                    Some("sort") => sapwood::BroadPhaseKind::SortSweep,
                    Some("grid") => sapwood::BroadPhaseKind::UniformGrid { bounds, cell_size: 4.0 },
                    Some("hash") => sapwood::BroadPhaseKind::SpatialHash { cell_size: 4.0 },
                    Some("quadtree") => sapwood::BroadPhaseKind::Quadtree { bounds },
                    Some("tree") => sapwood::BroadPhaseKind::DynamicTree,
                    _ => return Err("--broad needs sap, sort, grid, hash, quadtree or tree".into()),
                }
            }
            "--margin" => {
                args.config.aabb_margin = it.next().and_then(|s| s.parse().ok()).ok_or("--margin needs a number")?
            }
            "--png" => args.png = it.next().ok_or("--png needs a path")?,
            "--view" => {
                args.whole_view = match it.next().as_deref() {
                    Some("whole") => true,
                    Some("follow") => false,
                    _ => return Err("--view needs follow or whole".into()),
                }
            }
            "--size" => (args.width, args.height) = sapwood_support::window::parse_size(it.next())?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = sapwood_support::window::args_or_exit(
        parse_args(),
        "arena [--headless] [--frames N] [--png PATH] [--seconds N] [--enemies N] [--seed S] [--margin M] [--broad sap|sort|grid|hash|quadtree|tree] [--view follow|whole] [--size WxH] [--debug]",
    );
    let mut game = match Game::new(args.config) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("could not build the arena: {e}");
            std::process::exit(1);
        }
    };
    let result = if args.headless { headless(&mut game, &args) } else { window(&mut game, &args) };
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn median(v: &mut [f64]) -> f64 {
    quantile(v, 0.5)
}

fn view_for(game: &Game, args: &Args, whole: bool) -> View {
    if whole {
        View::whole(args.width, args.height)
    } else {
        View::follow(game.player_pose().p, FOLLOW_SCALE, args.width, args.height)
    }
}

/// Runs `--frames` frames with the autopilot, prints the timings, writes the last frame.
fn headless(game: &mut Game, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let (mut frame_ms, mut step_ms, mut sync_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut ids = Vec::new();
    let start = Instant::now();
    for _ in 0..args.frames {
        let t = Instant::now();
        let input = autopilot::steer(&game.world, game.player_pose().p, game.time, &mut ids);
        game.frame(input)?;
        frame_ms.push(t.elapsed().as_secs_f64() * 1e3);
        step_ms.push(game.stats.step_ms);
        sync_ms.push(game.stats.sync_ms);
    }
    let wall = start.elapsed().as_secs_f64();
    let s = game.stats;
    let (frame_med, step_med, sync_med) = (median(&mut frame_ms), median(&mut step_ms), median(&mut sync_ms));
    println!(
        "{} enemies, {} colliders, {} frames in {:.2} s: {:.0} frames/s; median frame {:.2} ms, collision step {:.2} ms, sync {:.2} ms",
        args.config.enemies,
        game.world.len(),
        args.frames,
        wall,
        args.frames as f64 / wall.max(1e-9),
        frame_med,
        step_med,
        sync_med,
    );
    println!(
        "contact pairs {}, score {}, kills {}, hits {}, shots {}, lives lost {}",
        game.world.contacts().len(),
        s.score,
        s.kills,
        s.hits,
        s.shots_fired,
        s.deaths
    );
    let mut pixmap = Pixmap::new(args.width, args.height).ok_or("bad picture size")?;
    let hud = Hud {
        fps: args.frames as f64 / wall.max(1e-9),
        step_ms: step_med,
        sync_ms: sync_med,
        debug: args.debug,
        ..Hud::default()
    };
    let view = view_for(game, args, args.whole_view);
    // Drawn twice: the picture's HUD shows what the second drawing took (the first one draws
    // the backdrop and the sprites).
    let mut renderer = Renderer::default();
    renderer.draw(game, &view, &hud, &mut pixmap);
    let t = Instant::now();
    renderer.draw(game, &view, &hud, &mut pixmap);
    let hud = Hud { draw_ms: ms_since(t), ..hud };
    renderer.draw(game, &view, &hud, &mut pixmap);
    pixmap.save_png(&args.png).map_err(|e| format!("could not write {}: {e}", args.png))?;
    println!("wrote {}", args.png);
    Ok(())
}

fn headless_hint(args: &Args) -> String {
    format!(
        "Run headless instead:\n  cargo run --release --example arena -- --headless --frames 600 --png {}",
        args.png
    )
}

/// The phases a windowed frame is split into, in the order `FrameTimes::record` gets them.
const PHASES: &[&str] = &["collision", "game logic", "drawing", "present"];

/// The interactive game: a minifb window (X11) showing a tiny-skia picture, paced at 60 Hz.
fn window(game: &mut Game, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    use minifb::{Key, KeyRepeat, ScaleMode, Window, WindowOptions};
    if std::env::var_os("DISPLAY").is_none() {
        return Err(format!("No display: DISPLAY is not set, so no window can open.\n{}", headless_hint(args)).into());
    }
    let title = "sapwood arena (WASD/arrows move, F1/B debug, Z zoom, P pause, Esc quits)";
    let mut window = Window::new(
        title,
        args.width as usize,
        args.height as usize,
        WindowOptions { scale_mode: ScaleMode::UpperLeft, ..WindowOptions::default() },
    )
    .map_err(|e| format!("Could not open a window ({e}).\n{}", headless_hint(args)))?;
    // The pacer below keeps the rate; minifb's own limiter would sleep a second time. The
    // picture is the window's size: UpperLeft copies it, the default Stretch would resample it.
    window.set_target_fps(0);
    let mut pacer = Pacer::new(60.0);
    let mut pixmap = Pixmap::new(args.width, args.height).ok_or("bad window size")?;
    let mut renderer = Renderer::default();
    let mut buffer = Vec::new();
    let mut hud = Hud { debug: args.debug, ..Hud::default() };
    let mut whole = args.whole_view;
    let end = args.seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));
    let mut times = FrameTimes::new(PHASES, (60.0 * args.seconds.unwrap_or(60.0)) as usize + 60);
    let (mut frames, mut since) = (0u32, Instant::now());
    while window.is_open() && !window.is_key_down(Key::Escape) && end.is_none_or(|end| Instant::now() < end) {
        for key in window.get_keys_pressed(KeyRepeat::No) {
            match key {
                Key::F1 | Key::B => hud.debug = !hud.debug,
                Key::Z => whole = !whole,
                Key::P => hud.paused = !hud.paused,
                _ => {}
            }
        }
        let down = |keys: [Key; 2]| keys.iter().any(|&k| window.is_key_down(k));
        let mut dir = sapwood::Vec2::ZERO;
        dir.x += f32::from(u8::from(down([Key::D, Key::Right]))) - f32::from(u8::from(down([Key::A, Key::Left])));
        dir.y += f32::from(u8::from(down([Key::W, Key::Up]))) - f32::from(u8::from(down([Key::S, Key::Down])));
        let (mut collision_ms, mut logic_ms) = (0.0, 0.0);
        if !hud.paused {
            let t = Instant::now();
            game.frame(Input { dir })?;
            collision_ms = game.stats.step_ms + game.stats.sync_ms;
            logic_ms = ms_since(t) - collision_ms;
            // Smoothed so that the numbers can be read.
            hud.step_ms = 0.9 * hud.step_ms + 0.1 * game.stats.step_ms;
            hud.sync_ms = 0.9 * hud.sync_ms + 0.1 * game.stats.sync_ms;
        }
        let t = Instant::now();
        renderer.draw(game, &view_for(game, args, whole), &hud, &mut pixmap);
        rgba_to_0rgb(pixmap.data(), &mut buffer);
        let drawing_ms = ms_since(t);
        hud.draw_ms = 0.9 * hud.draw_ms + 0.1 * drawing_ms;
        let t = Instant::now();
        window.update_with_buffer(&buffer, args.width as usize, args.height as usize)?;
        times.record(&[collision_ms, logic_ms, drawing_ms, ms_since(t)]);
        pacer.wait();
        frames += 1;
        let elapsed = since.elapsed().as_secs_f64();
        if elapsed >= 0.5 {
            hud.fps = f64::from(frames) / elapsed;
            (frames, since) = (0, Instant::now());
        }
    }
    println!("arena window {}x{}, {} enemies: {}", args.width, args.height, args.config.enemies, times.report());
    Ok(())
}
