//! Welded static edges (`WorldConfig::weld_static_edges`): what they cost. A floor of 100,000
//! static unit tiles (500 x 200, one box each, as a tile-map import gives), inserted and placed
//! by the first step, with welding off and on; and a step of 1,000 boxes sliding over that
//! floor, with welding off and on.
//!
//! Run: `cargo bench --bench weld`. With `WELD_STATS=1` the binary instead prints the insert's
//! median of 5 and the step's median, mean, p90 and p99 over 1,000 steps, each off and on.

use criterion::{BatchSize, Criterion, criterion_group};
use sapwood::{ColliderDesc, ColliderId, Pose, Shape, Vec2, World, WorldConfig};
use std::hint::black_box;
use std::time::{Duration, Instant};

const COLUMNS: usize = 500;
const ROWS: usize = 200;
const SLIDERS: usize = 1_000;

fn tiles() -> Vec<ColliderDesc> {
    let tile = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    (0..COLUMNS * ROWS)
        .map(|i| {
            let p = Vec2::new((i % COLUMNS) as f32 + 0.5, -((i / COLUMNS) as f32) - 0.5);
            ColliderDesc::new(tile.clone(), Pose::from_translation(p)).fixed()
        })
        .collect()
}

/// The tiles inserted one by one and placed (and welded) by the first step.
fn build(weld: bool, descs: &[ColliderDesc]) -> World {
    let mut world = World::with_config(WorldConfig { weld_static_edges: weld, ..WorldConfig::default() }).unwrap();
    for d in descs {
        world.insert(d.clone()).unwrap();
    }
    world.step();
    world
}

/// The floor with `SLIDERS` boxes resting a hair into it, each sliding right at its own speed.
struct Slide {
    world: World,
    ids: Vec<ColliderId>,
    frame: u32,
}

impl Slide {
    fn new(weld: bool, descs: &[ColliderDesc]) -> Slide {
        let mut world = build(weld, descs);
        let shape = Shape::cuboid(Vec2::new(0.4, 0.4)).unwrap();
        let ids = (0..SLIDERS)
            .map(|i| {
                let p = Vec2::new(1.0 + (i % 490) as f32 * 0.97, 0.399);
                world.insert(ColliderDesc::new(shape.clone(), Pose::from_translation(p))).unwrap()
            })
            .collect();
        world.step();
        Slide { world, ids, frame: 0 }
    }

    fn step(&mut self) {
        self.frame += 1;
        for (i, &id) in self.ids.iter().enumerate() {
            let v = 0.01 + 0.0003 * (i % 64) as f32;
            let x = 1.0 + ((i % 490) as f32 * 0.97 + v * self.frame as f32) % 490.0;
            self.world.set_pose(id, Pose::from_translation(Vec2::new(x, 0.399))).unwrap();
        }
        self.world.step();
    }
}

fn benches(c: &mut Criterion) {
    let descs = tiles();
    for weld in [false, true] {
        let name = if weld { "on" } else { "off" };
        c.bench_function(&format!("weld/insert_100k_tiles/{name}"), |b| {
            b.iter_batched(|| (), |()| black_box(build(weld, &descs)), BatchSize::PerIteration)
        });
        let mut slide = Slide::new(weld, &descs);
        c.bench_function(&format!("weld/step_1k_sliders_on_100k_tiles/{name}"), |b| {
            b.iter(|| {
                slide.step();
                black_box(slide.world.contacts().len())
            })
        });
    }
}

criterion_group! {
    name = weld_benches;
    config = Criterion::default().sample_size(10);
    targets = benches
}

fn stats() {
    let descs = tiles();
    for weld in [false, true] {
        let mut inserts: Vec<Duration> = (0..5)
            .map(|_| {
                let t = Instant::now();
                black_box(build(weld, &descs));
                t.elapsed()
            })
            .collect();
        inserts.sort();
        let mut slide = Slide::new(weld, &descs);
        for _ in 0..50 {
            slide.step();
        }
        let mut steps: Vec<Duration> = (0..1000)
            .map(|_| {
                let t = Instant::now();
                slide.step();
                t.elapsed()
            })
            .collect();
        let contacts = slide.world.contacts().len();
        steps.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mean = steps.iter().map(|d| ms(*d)).sum::<f64>() / steps.len() as f64;
        println!(
            "weld {weld}: insert 100k + first step {:.1} ms (median of 5); step median {:.3} mean {:.3} p90 {:.3} \
             p99 {:.3} ms ({contacts} contacts)",
            ms(inserts[2]),
            ms(steps[500]),
            mean,
            ms(steps[900]),
            ms(steps[990]),
        );
    }
}

fn main() {
    if std::env::var_os("WELD_STATS").is_some() {
        stats();
        return;
    }
    weld_benches();
    Criterion::default().configure_from_args().final_summary();
}
