//! A platformer on hecs, with sapwood as its collision back-end and its character mover.
//!
//! ```text
//! cargo run --release --example platformer                  # play (needs an X11 display)
//! cargo run --release --example platformer -- --seconds 10  # play 10 s, then print frame times
//! cargo run --release --example platformer -- --headless    # the autopilot plays; writes docs/platformer.png
//! ```
//! The level is a tile map (`level.rs`) traced into chains, with 45° slopes, steps, a one-way
//! platform (a one-sided chain), a moving platform (a moving collider posed every frame, which
//! carries the player), pickups and spikes (sensors). The player is a capsule moved by
//! `World::move_character`. Controls: A/D or arrows run, Space/W/Up jump, S/Down drops through
//! the one-way platform, Esc quits.
//!
//! Options: `--headless` (also chosen when `CI=true` or no `DISPLAY` is set), `--frames N`
//! (headless, default 1500), `--png PATH` (headless, default `docs/platformer.png`),
//! `--seconds N` (the window closes itself after N seconds), `--autopilot` (it plays in the
//! window too), `--size WxH`.
//! Both modes print the median and 99th-percentile frame time and collision time (the world's
//! step with the ECS sync, plus the mover) when they end.

mod autopilot;
mod components;
mod game;
mod level;
mod render;
mod systems;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use sapwood_support::frame_times::{FrameTimes, ms_since};
use sapwood_support::pacer::Pacer;
use sapwood_support::pixels::rgba_to_0rgb;
use tiny_skia::Pixmap;

use game::{Game, Input};
use render::{Camera, Renderer};

/// Pixels per world unit in the window.
const WINDOW_SCALE: f32 = 48.0;

struct Args {
    headless: bool,
    /// The autopilot plays in the window too (the keyboard is ignored).
    autopilot: bool,
    frames: u64,
    seconds: Option<f64>,
    png: String,
    /// The window's size (the picture's is chosen to fit the whole level).
    width: u32,
    height: u32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        headless: sapwood_support::window::no_display(),
        autopilot: false,
        frames: 1500,
        seconds: None,
        png: "docs/platformer.png".into(),
        width: 960,
        height: 540,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--headless" => args.headless = true,
            "--autopilot" => args.autopilot = true,
            "--frames" => args.frames = it.next().and_then(|s| s.parse().ok()).ok_or("--frames needs a number")?,
            "--seconds" => {
                args.seconds = Some(it.next().and_then(|s| s.parse().ok()).ok_or("--seconds needs a number")?)
            }
            "--png" => args.png = it.next().ok_or("--png needs a path")?,
            "--size" => (args.width, args.height) = sapwood_support::window::parse_size(it.next())?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = sapwood_support::window::args_or_exit(
        parse_args(),
        "platformer [--headless] [--autopilot] [--frames N] [--png PATH] [--seconds N] [--size WxH]",
    );
    let result = Game::new()
        .map_err(Into::into)
        .and_then(|mut game| if args.headless { headless(&mut game, &args) } else { window(&mut game, &args) });
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// The phases of a frame, in the order `FrameTimes::record` gets them. Collision is the step
/// (with the ECS sync) plus the mover, which are also given apart.
const PHASES: &[&str] = &["collision", "step", "mover", "game logic", "drawing", "present"];

/// Runs `--frames` frames with the autopilot, prints the timings, writes the whole level with
/// the player's path.
fn headless(game: &mut Game, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let mut times = FrameTimes::new(&PHASES[..4], args.frames as usize + 1);
    let mut ids = Vec::new();
    for _ in 0..args.frames {
        let t = Instant::now();
        let input = autopilot::steer(game, &mut ids);
        game.frame(input)?;
        let s = game.stats;
        times.record(&[s.step_ms + s.mover_ms, s.step_ms, s.mover_ms, ms_since(t) - s.step_ms - s.mover_ms]);
    }
    println!("platformer headless, {} colliders: {}", game.world.len(), times.report());
    report(game);
    let width = 1800;
    let height = (width as f32 * game.level.size.y / game.level.size.x).ceil() as u32;
    let mut pixmap = Pixmap::new(width, height).ok_or("bad picture size")?;
    Renderer::new(game).draw(game, &Camera::whole(&game.level, width, height), true, &mut pixmap);
    pixmap.save_png(&args.png).map_err(|e| format!("could not write {}: {e}", args.png))?;
    println!("wrote {}", args.png);
    Ok(())
}

fn report(game: &Game) {
    let s = game.stats;
    let finished = s.finished.map_or("not reached".to_string(), |f| format!("reached at frame {f}"));
    println!(
        "pickups {} of {}, spikes {}, goal {finished}, player at {:.2?}",
        s.collected,
        game.level.pickups.len(),
        s.deaths,
        game.player_pose().p
    );
}

fn headless_hint() -> &'static str {
    "Run headless instead:\n  cargo run --release --example platformer -- --headless"
}

/// The interactive game: a minifb window (X11) showing a tiny-skia picture, paced at 60 Hz.
fn window(game: &mut Game, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    use minifb::{Key, ScaleMode, Window, WindowOptions};
    let title = "sapwood platformer (A/D or arrows run, Space/W/Up jump, S/Down drop, Esc quits)";
    let mut window = Window::new(
        title,
        args.width as usize,
        args.height as usize,
        WindowOptions { scale_mode: ScaleMode::UpperLeft, ..WindowOptions::default() },
    )
    .map_err(|e| format!("Could not open a window ({e}).\n{}", headless_hint()))?;
    // The pacer keeps the rate; minifb's own limiter would sleep a second time.
    window.set_target_fps(0);
    let mut pacer = Pacer::new(60.0);
    let mut pixmap = Pixmap::new(args.width, args.height).ok_or("bad window size")?;
    let renderer = Renderer::new(game);
    let mut buffer = Vec::new();
    let end = args.seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));
    let mut times = FrameTimes::new(PHASES, (60.0 * args.seconds.unwrap_or(60.0)) as usize + 60);
    let (mut frames, mut since) = (0u32, Instant::now());
    let mut ids = Vec::new();
    while window.is_open() && !window.is_key_down(Key::Escape) && end.is_none_or(|end| Instant::now() < end) {
        let down = |keys: &[Key]| keys.iter().any(|&k| window.is_key_down(k));
        let run = f32::from(u8::from(down(&[Key::D, Key::Right]))) - f32::from(u8::from(down(&[Key::A, Key::Left])));
        let t = Instant::now();
        let input = if args.autopilot {
            autopilot::steer(game, &mut ids)
        } else {
            Input { run, jump: down(&[Key::Space, Key::W, Key::Up]), drop: down(&[Key::S, Key::Down]) }
        };
        game.frame(input)?;
        let s = game.stats;
        let collision_ms = s.step_ms + s.mover_ms;
        let logic_ms = ms_since(t) - collision_ms;
        let t = Instant::now();
        let camera = Camera::follow(game.player_pose().p, &game.level, WINDOW_SCALE, args.width, args.height);
        renderer.draw(game, &camera, false, &mut pixmap);
        rgba_to_0rgb(pixmap.data(), &mut buffer);
        let drawing_ms = ms_since(t);
        let t = Instant::now();
        window.update_with_buffer(&buffer, args.width as usize, args.height as usize)?;
        times.record(&[collision_ms, s.step_ms, s.mover_ms, logic_ms, drawing_ms, ms_since(t)]);
        pacer.wait();
        frames += 1;
        let elapsed = since.elapsed().as_secs_f64();
        if elapsed >= 0.5 {
            window.set_title(&format!(
                "sapwood platformer: {:.0} frames/s, pickups {} of {}",
                f64::from(frames) / elapsed,
                s.collected,
                game.level.pickups.len()
            ));
            (frames, since) = (0, Instant::now());
        }
    }
    println!("platformer window {}x{}: {}", args.width, args.height, times.report());
    report(game);
    Ok(())
}
