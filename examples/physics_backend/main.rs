//! sapwood as the collision back-end of a small rigid-body stepper (the stepper is in
//! `solver.rs` and uses only the public world API: insert, set_pose, step, contacts).
//!
//! ```text
//! cargo run --release --example physics_backend                       # window if a display is there
//! cargo run --release --example physics_backend -- --scene pile
//! cargo run --release --example physics_backend -- --seconds 20     # window quits after 20 s
//! cargo run --release --example physics_backend -- --headless --scene pyramid --png out.png
//! cargo run --release --example physics_backend -- --headless --scene pyramids --pyramids 20
//! ```
//! Scenes: `pyramid` (20 rows of boxes), `column` (20 boxes on each other), `pile` (circles and capsules), `pour` (convex polygons
//! poured into a container), `bullets` (balls at 600 m/s against a 5 cm wall: sapwood bullets,
//! stopped at their time of impact), `pyramids` (Box2D's many-pyramids layout, `--pyramids N`
//! pyramids of 210 boxes side by side, 4 by default; 4, 20 and 100 are the 840, 4,200 and 21,000
//! boxes of `examples/peers --scene pyramids`). Headless mode steps `--seconds` of simulated
//! time at 60 Hz, prints the collision share of the frame (sapwood's time, `set_pose` and
//! `World::step`, over the whole frame) as median, mean, p90 and p99 over the frames after the
//! first second, and writes the last frame as a PNG; it is the default when `DISPLAY` is unset.
//! The window, paced at 60 Hz, closes itself after `--seconds` of wall-clock time if given, and
//! prints its median and 99th-percentile frame time on exit, split into collision, solver,
//! drawing and presenting.

mod render;
mod scenes;
mod solver;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use sapwood::Vec2;
use sapwood_support::SplitMix64;
use sapwood_support::frame_times::{FrameTimes, Stats, ms_since};
use sapwood_support::pacer::Pacer;
use sapwood_support::pixels::rgba_to_0rgb;
use tiny_skia::Pixmap;

use render::View;
use solver::{Settings, Stepper};

const DT: f32 = 1.0 / 60.0;
const WIDTH: u32 = 640;
const HEIGHT: u32 = 640;

/// A scene being played: the stepper plus whatever the scene does over time.
struct Scene {
    stepper: Stepper,
    view: View,
    /// The pour scene's spout: polygons still to drop and its generator.
    pour: Option<(usize, SplitMix64)>,
    /// The bullets scene's gun: shots still to fire and its generator.
    gun: Option<(usize, SplitMix64)>,
    frame: u64,
}

impl Scene {
    fn new(name: &str, pyramids: usize) -> Option<Scene> {
        let mut stepper = Stepper::new(Settings::default());
        let mut gun = None;
        let (view, pour) = match name {
            "pyramid" => {
                scenes::pyramid(&mut stepper, 20);
                (View { center: Vec2::new(0.0, 9.5), scale: 28.0 }, None)
            }
            "column" => {
                scenes::ground(&mut stepper, 40.0);
                scenes::column(&mut stepper, 20);
                (View { center: Vec2::new(0.0, 9.5), scale: 28.0 }, None)
            }
            "pile" => {
                scenes::pile(&mut stepper);
                (View { center: Vec2::new(0.0, 8.0), scale: 34.0 }, None)
            }
            "pour" => {
                scenes::pour_container(&mut stepper);
                (View { center: Vec2::new(0.0, 6.5), scale: 42.0 }, Some((160, SplitMix64::new(3))))
            }
            "pyramids" => {
                scenes::many_pyramids(&mut stepper, pyramids);
                // The whole row: 21 m per pyramid, across the picture's width.
                let width = 21.0 * pyramids as f32 + 2.0;
                (View { center: Vec2::new(0.0, 10.0), scale: (WIDTH as f32 / width).min(28.0) }, None)
            }
            "bullets" => {
                scenes::bullets(&mut stepper);
                gun = Some((200, SplitMix64::new(5)));
                (View { center: Vec2::new(0.0, 4.0), scale: 40.0 }, None)
            }
            _ => return None,
        };
        Some(Scene { stepper, view, pour, gun, frame: 0 })
    }

    fn step(&mut self) {
        if let Some((left, rng)) = &mut self.pour
            && *left > 0
            && self.frame.is_multiple_of(6)
        {
            scenes::pour_one(&mut self.stepper, rng);
            *left -= 1;
        }
        if let Some((left, rng)) = &mut self.gun
            && *left > 0
            && self.frame.is_multiple_of(2)
        {
            scenes::fire(&mut self.stepper, rng, true);
            *left -= 1;
        }
        self.stepper.step(DT);
        self.frame += 1;
    }
}

struct Args {
    headless: bool,
    scene: String,
    png: String,
    seconds: Option<f32>,
    /// Pyramids in the `pyramids` scene.
    pyramids: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        headless: std::env::var_os("DISPLAY").is_none(),
        scene: "pyramid".into(),
        png: String::new(),
        seconds: None,
        pyramids: 4,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--headless" => args.headless = true,
            "--scene" => args.scene = it.next().ok_or("--scene needs a name")?,
            "--png" => args.png = it.next().ok_or("--png needs a path")?,
            "--pyramids" => {
                args.pyramids = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--pyramids needs a positive count")?
            }
            "--seconds" => {
                args.seconds = Some(it.next().and_then(|s| s.parse().ok()).ok_or("--seconds needs a number")?)
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.png.is_empty() {
        args.png = format!("{}.png", args.scene);
    }
    Ok(args)
}

fn main() {
    let args = sapwood_support::window::args_or_exit(
        parse_args(),
        "physics_backend [--headless] [--scene pyramid|column|pile|pour|bullets|pyramids] [--pyramids N] [--png PATH] [--seconds S]",
    );
    let Some(mut scene) = Scene::new(&args.scene, args.pyramids) else {
        eprintln!("unknown scene {:?}: use pyramid, column, pile, pour, bullets or pyramids", args.scene);
        std::process::exit(2);
    };
    if args.headless {
        headless(&mut scene, &args);
    } else {
        window(&mut scene, &args);
    }
}

fn headless(scene: &mut Scene, args: &Args) {
    let seconds = args.seconds.unwrap_or(match args.scene.as_str() {
        "pour" => 20.0,
        _ => 6.0,
    });
    let frames = (seconds / DT).round() as u64;
    let (mut points, mut hits) = (0usize, 0usize);
    // Per frame after the first second (the scenes settle, the first frame finds every pair):
    // the whole frame's ms, sapwood's ms and sapwood's share.
    let (mut frame_ms, mut collision_ms, mut share) = (Vec::new(), Vec::new(), Vec::new());
    let start = Instant::now();
    for frame in 0..frames {
        let t = Instant::now();
        scene.step();
        let ms = ms_since(t);
        points += scene.stepper.stats.points;
        hits += scene.stepper.stats.warm_hits;
        if frame as f32 * DT >= 1.0 {
            let collision = scene.stepper.stats.collision_ms;
            frame_ms.push(ms);
            collision_ms.push(collision);
            share.push(collision / ms);
        }
    }
    let wall = start.elapsed();
    println!(
        "{}: {} bodies, {} contacts, {frames} frames in {:.2} s ({:.2} ms/frame), warm-start hits {:.2}%",
        args.scene,
        scene.stepper.bodies.len(),
        scene.stepper.world.contacts().len(),
        wall.as_secs_f64(),
        1e3 * wall.as_secs_f64() / frames.max(1) as f64,
        100.0 * hits as f64 / points.max(1) as f64,
    );
    if !frame_ms.is_empty() {
        let line = |name: &str, v: &mut [f64], scale: f64, unit: &str| {
            let s = Stats::of(v);
            println!(
                "  {name}, median / mean / p90 / p99: {:.2} / {:.2} / {:.2} / {:.2}{unit}",
                scale * s.median,
                scale * s.mean,
                scale * s.p90,
                scale * s.p99
            );
        };
        println!("  {} frames after the first second:", frame_ms.len());
        line("frame", &mut frame_ms, 1.0, " ms");
        line("collision (sapwood: set_pose and World::step)", &mut collision_ms, 1.0, " ms");
        line("collision share of the frame", &mut share, 100.0, "%");
    }
    let mut pixmap = Pixmap::new(WIDTH, HEIGHT).expect("non-zero size");
    render::draw(&scene.stepper, scene.view, &mut pixmap);
    match pixmap.save_png(&args.png) {
        Ok(()) => println!("wrote {}", args.png),
        Err(e) => {
            eprintln!("could not write {}: {e}", args.png);
            std::process::exit(1);
        }
    }
}

/// The phases a windowed frame is split into, in the order `FrameTimes::record` gets them.
const PHASES: &[&str] = &["collision", "solver", "drawing", "present"];

fn window(scene: &mut Scene, args: &Args) {
    use minifb::{Key, ScaleMode, Window, WindowOptions};
    let title = format!("sapwood physics back-end: {} (Esc quits)", args.scene);
    let mut window = match Window::new(
        &title,
        WIDTH as usize,
        HEIGHT as usize,
        WindowOptions { scale_mode: ScaleMode::UpperLeft, ..WindowOptions::default() },
    ) {
        Ok(w) => w,
        Err(e) => {
            eprintln!(
                "could not open a window ({e}).\nRun headless instead:\n  cargo run --release --example physics_backend -- --headless --scene {} --png {}",
                args.scene, args.png
            );
            std::process::exit(1);
        }
    };
    // The pacer below keeps the rate; minifb's own limiter would sleep a second time. The
    // picture is the window's size: UpperLeft copies it, the default Stretch would resample it.
    window.set_target_fps(0);
    let mut pacer = Pacer::new(60.0);
    let mut pixmap = Pixmap::new(WIDTH, HEIGHT).expect("non-zero size");
    let mut buffer = Vec::new();
    let end = args.seconds.map(|s| Instant::now() + Duration::from_secs_f64(f64::from(s)));
    let mut times = FrameTimes::new(PHASES, (60.0 * args.seconds.unwrap_or(60.0)) as usize + 60);
    while window.is_open() && !window.is_key_down(Key::Escape) && end.is_none_or(|end| Instant::now() < end) {
        let t = Instant::now();
        scene.step();
        let collision_ms = scene.stepper.stats.collision_ms;
        let solver_ms = ms_since(t) - collision_ms;
        let t = Instant::now();
        render::draw(&scene.stepper, scene.view, &mut pixmap);
        rgba_to_0rgb(pixmap.data(), &mut buffer);
        let drawing_ms = ms_since(t);
        let t = Instant::now();
        if window.update_with_buffer(&buffer, WIDTH as usize, HEIGHT as usize).is_err() {
            break;
        }
        times.record(&[collision_ms, solver_ms, drawing_ms, ms_since(t)]);
        pacer.wait();
    }
    println!("{} window, {} bodies: {}", args.scene, scene.stepper.bodies.len(), times.report());
}
