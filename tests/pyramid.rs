//! The physics back-end proof: a 20-row box pyramid, stepped by the example's solver on
//! sapwood's contacts, settles and then stands still for 10 simulated seconds.
//!
//! The stepper lives only in the example; this test includes its files.

#[path = "../examples/physics_backend/scenes.rs"]
#[allow(dead_code)]
mod scenes;
#[path = "../examples/physics_backend/solver.rs"]
#[allow(dead_code)]
mod solver;

use solver::{Settings, Stepper};

const DT: f32 = 1.0 / 60.0;
const ROWS: usize = 20;

struct Run {
    /// Largest distance of the top box from where it was once settled.
    top_drift: f32,
    /// Largest |angle| of any box during the standing phase.
    max_tilt: f32,
    /// Fraction of contact points that found a warm-start impulse by feature id.
    warm_hit_rate: f64,
    /// Lowest box centre (a box fallen to the ground would show).
    top_height: f32,
}

fn run(settings: Settings, settle_s: f32, stand_s: f32) -> Run {
    let mut stepper = Stepper::new(settings);
    let ids = scenes::pyramid(&mut stepper, ROWS);
    assert_eq!(ids.len(), ROWS * (ROWS + 1) / 2);
    let top = *ids.last().unwrap();
    for _ in 0..(settle_s / DT).round() as usize {
        stepper.step(DT);
    }
    let settled = stepper.bodies[top].position;
    let (mut top_drift, mut max_tilt) = (0.0f32, 0.0f32);
    let (mut points, mut hits) = (0usize, 0usize);
    for _ in 0..(stand_s / DT).round() as usize {
        stepper.step(DT);
        points += stepper.stats.points;
        hits += stepper.stats.warm_hits;
        top_drift = top_drift.max((stepper.bodies[top].position - settled).length());
        for &i in &ids {
            max_tilt = max_tilt.max(stepper.bodies[i].angle.abs());
        }
    }
    Run {
        top_drift,
        max_tilt,
        warm_hit_rate: hits as f64 / points.max(1) as f64,
        top_height: stepper.bodies[top].position.y,
    }
}

/// After 2 s of settling, 10 s at 60 Hz: the top box moves less than 1% of its size (1 cm of
/// 1 m) and no box turns by more than 0.01 rad (a tipped box turns by ~0.8).
#[test]
fn pyramid_of_20_rows_stands_for_10_seconds() {
    let r = run(Settings::default(), 2.0, 10.0);
    eprintln!(
        "top drift {:.6} m, max tilt {:.6} rad, warm hits {:.4}, top at y = {:.4}",
        r.top_drift, r.max_tilt, r.warm_hit_rate, r.top_height
    );
    let size = 2.0 * scenes::PYRAMID_BOX;
    assert!(r.top_drift < 0.01 * size, "top box moved {} m", r.top_drift);
    assert!(r.max_tilt < 0.01, "a box tilted by {} rad", r.max_tilt);
    // The top box is still on top: ~19.5 box sizes up, less the slop of 20 contacts.
    assert!(r.top_height > (ROWS as f32 - 0.5) * size - 0.2, "top box at y = {}", r.top_height);
    // Feature ids are stable on a resting stack: almost every point finds its impulse again.
    assert!(r.warm_hit_rate > 0.99, "warm-start hit rate {}", r.warm_hit_rate);
}

#[test]
#[ignore]
fn measure_variants() {
    let base = Settings::default();
    let variants = [
        ("default", base),
        ("no warm start", Settings { warm_starting: false, ..base }),
        ("1 substep 10 it", Settings { substeps: 1, velocity_iterations: 10, ..base }),
        ("2 substeps 8 it", Settings { substeps: 2, ..base }),
        ("4 substeps 4 it", Settings { velocity_iterations: 4, ..base }),
        ("1 substep 10 it no warm", Settings { substeps: 1, velocity_iterations: 10, warm_starting: false, ..base }),
    ];
    for (name, s) in variants {
        let r = run(s, 2.0, 10.0);
        eprintln!(
            "{name:28} drift {:.6} tilt {:.6} warm {:.4} top y {:.4}",
            r.top_drift, r.max_tilt, r.warm_hit_rate, r.top_height
        );
    }
}

#[test]
#[ignore]
fn measure_column() {
    for rows in [10usize, 20] {
        for warm in [true, false] {
            let mut stepper = Stepper::new(Settings { warm_starting: warm, ..Settings::default() });
            scenes::ground(&mut stepper, 40.0);
            let shape = sapwood::Shape::cuboid(sapwood::Vec2::splat(0.5)).unwrap();
            let mut ids = vec![];
            for r in 0..rows {
                ids.push(stepper.add(solver::BodyDesc::new(shape, sapwood::Pose::from_translation(sapwood::Vec2::new(0.0, 0.5 + r as f32)))));
            }
            let top = *ids.last().unwrap();
            let (mut points, mut hits, mut tilt) = (0, 0, 0.0f32);
            for f in 0..720 {
                stepper.step(DT);
                if f >= 120 {
                    points += stepper.stats.points;
                    hits += stepper.stats.warm_hits;
                    for &i in &ids { tilt = tilt.max(stepper.bodies[i].angle.abs()); }
                }
            }
            eprintln!("column {rows} warm {warm}: top {:?} tilt {tilt:.6} warm hits {:.4}", stepper.bodies[top].position, hits as f64 / points as f64);
        }
    }
}
