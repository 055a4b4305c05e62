//! Box2D's many pyramids (`docs/SCENES.md` §4): Box2D simulates them with its own solver, and
//! each step its bodies' poses are handed to sapwood and rapier2d, which collide them.
//!
//! A step: Box2D (contact recycling on, its default) steps, timed whole; its transforms are
//! copied into the scene (untimed, as the peer scene's motion is); then, in a rotating order,
//! sapwood (`set_pose` of every box, then `World::step`), rapier2d (`set_position`, then its
//! collision pipeline) and a second Box2D world simulating the same scene with recycling off,
//! each timed on its own. The second world follows its own trajectory (recycling changes what
//! its solver sees), so it is a cost to set beside the first, not a fourth view of the same poses.
//!
//! Touching pairs are checked every step: sapwood against rapier on the same poses, as in the
//! peer scene (each disagreement explained on stderr); and sapwood against Box2D's own contacts,
//! which after step `k` describe the poses after step `k - 1` (Box2D makes its manifolds before
//! its solver moves the bodies), so they are compared with sapwood's touching pairs of the step
//! before. Box2D counts a pair as touching when a manifold point has a separation of at most 0
//! (touching counts, as in sapwood).

use std::collections::BTreeMap;
use std::time::Duration;

use sapwood::{WorldConfig, collide, query};
use sapwood_support::peers::{Box2dSim, RapierSide, SapwoodSide, Stats, disagreements, time_cpu};
use sapwood_support::scenes::{Collider, PYRAMID_BOXES, Scene};

use crate::report::{Timing, Timings, print_ratios, print_timings, run_engine_alone};
use crate::{Args, Explained, SceneName, default_steps, explain, sapwood_config};

/// How far from touching (in metres, either way) a pair may be in both sapwood and Box2D and
/// still count as touching up to the engines' differences: a tenth of Box2D's linear slop. Box2D
/// recycles manifolds with estimated separations and clips with its own f32 arithmetic; a pair
/// this close to touching is one the two may call either way.
const BOX2D_NEAR: f32 = 5e-4;

pub struct Row {
    /// sapwood, sapwood with manifold reuse off, rapier2d, Box2D (`b2World_Step`, solver
    /// included), its pairs + collide, and the same two with recycling off.
    timings: Timings,
    /// Build wall time and building-thread CPU time: sapwood, rapier2d, Box2D.
    builds: [(Duration, Option<Duration>); 3],
    /// Touching pairs at the poses of the last comparison: sapwood, rapier2d, Box2D.
    touching: [usize; 3],
    /// Distinct pairs sapwood and rapier disagreed on, by explanation.
    rapier_disagreed: Explained,
    /// Distinct pairs sapwood and Box2D disagreed on, of those within [`BOX2D_NEAR`] of
    /// touching in both, and the farthest from touching any of them was (in either engine).
    box2d_disagreed: (usize, usize, f32),
    /// Share of Box2D's updated contacts it recycled over the measured steps: recycling on, off.
    recycled: [f64; 2],
}

/// sapwood's signed separation of two colliders: minus the deepest point's depth when its
/// kernel finds contact, otherwise their distance.
fn sapwood_separation(a: &Collider, b: &Collider) -> f32 {
    let m = collide::contact(&a.shape, &a.pose, &b.shape, &b.pose).expect("valid scene shapes");
    match m.points().iter().map(|p| p.depth).reduce(f32::max) {
        Some(depth) => -depth,
        None => query::distance(&a.shape, &a.pose, &b.shape, &b.pose).expect("valid scene shapes").distance,
    }
}

pub fn run(n: usize, threads: usize, args: &Args) -> Result<Row, String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(SceneName::Pyramids, n));
    let mut scene = Scene::pyramids(n / PYRAMID_BOXES);
    let config = sapwood_config(args, &scene)?;
    let mut sap = None;
    let sap_build = time_cpu(|| sap = Some(SapwoodSide::build_with(&scene, config, args.insertion)));
    let mut sap = sap.expect("built");
    // The same world with manifold reuse off: its A/B row, and a check that reuse changes no bit.
    let off = WorldConfig { reuse_manifolds: false, ..config };
    let mut sap_off = SapwoodSide::build_with(&scene, off, args.insertion);
    let mut rap = None;
    let rap_build = time_cpu(|| rap = Some(RapierSide::build(&scene)));
    let mut rap = rap.expect("built");
    let mut b2 = None;
    let b2_build = time_cpu(|| b2 = Some(Box2dSim::build(&scene, true)));
    let mut b2 = b2.expect("built");
    let mut b2_off = Box2dSim::build(&scene, false);
    // Wall ms per measured step and CPU summed: Box2D, sapwood, rapier2d, Box2D recycling off,
    // sapwood with reuse off.
    let mut wall: [Vec<f64>; 5] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let mut cpu = [Some(Duration::ZERO); 5];
    let (mut b2_collision, mut b2_off_collision) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let mut recycled = [(0usize, 0usize); 2];
    let mut rapier_disagreeing: BTreeMap<(u32, u32), bool> = BTreeMap::new();
    let mut explained = Explained::default();
    let mut box2d_disagreeing: BTreeMap<(u32, u32), f32> = BTreeMap::new();
    // The poses and touching pairs sapwood and rapier had one step ago: Box2D's contacts after
    // this step describe them.
    let (mut before, mut sap_before, mut rap_before) = (scene.clone(), sap.touching(), rap.touching());
    let (mut b2_contacts, mut b2_touching) = (Vec::new(), Vec::new());
    let mut touching = [0; 3];
    for step in 0..args.warmup + steps {
        let measured = step >= args.warmup;
        let mut record = |engine: usize, (d, c): (Duration, Option<Duration>)| {
            if measured {
                wall[engine].push(d.as_secs_f64() * 1e3);
                cpu[engine] = cpu[engine].zip(c).map(|(a, b)| a + b);
            }
        };
        record(0, time_cpu(|| b2.step()));
        b2.copy_poses(&mut scene);
        // Rotate which engine goes first, so none always runs on a cache another warmed.
        for k in 0..4 {
            match (step + k) % 4 {
                0 => record(1, time_cpu(|| sap.step(&scene))),
                1 => record(2, time_cpu(|| rap.step(&scene))),
                2 => record(4, time_cpu(|| sap_off.step(&scene))),
                _ => record(3, time_cpu(|| b2_off.step())),
            }
        }
        if bytemuck::cast_slice::<_, u8>(sap.world.contacts())
            != bytemuck::cast_slice::<_, u8>(sap_off.world.contacts())
        {
            return Err(format!("step {step}: manifold reuse changed a contact"));
        }
        if measured {
            b2_collision.push(b2.profile().collision());
            b2_off_collision.push(b2_off.profile().collision());
            for (sum, world) in recycled.iter_mut().zip([&b2, &b2_off]) {
                let (r, of) = world.recycled();
                *sum = (sum.0 + r, sum.1 + of);
            }
        }
        let (sap_now, rap_now) = (sap.touching(), rap.touching());
        for (pair, in_sapwood) in disagreements(&sap_now, &rap_now) {
            if rapier_disagreeing.insert(pair, in_sapwood).is_none() {
                eprintln!("{n} boxes, step {}, sapwood and rapier:", step + 1);
                explained.add(explain(&scene, &rap, pair, in_sapwood));
            }
        }
        b2.contacts(&mut b2_contacts);
        b2_touching.clear();
        b2_touching.extend(b2_contacts.iter().copied().filter(|&(_, _, s)| s <= 0.0));
        for (pair, in_sapwood) in disagreements(&sap_before, &b2_touching) {
            let (ca, cb) = (before.get(pair.0).expect("live"), before.get(pair.1).expect("live"));
            let sap_separation = sapwood_separation(ca, cb);
            // Box2D's smallest separation; none: no manifold points (more than its speculative
            // distance apart) or no contact.
            let found = b2_contacts.binary_search_by_key(&pair, |&(a, b, _)| (a, b));
            let b2_separation = found.ok().map(|i| b2_contacts[i].2);
            let near = sap_separation.abs().max(b2_separation.map_or(f32::INFINITY, f32::abs));
            let first = !box2d_disagreeing.contains_key(&pair);
            let worst = box2d_disagreeing.entry(pair).or_insert(near);
            *worst = worst.max(near);
            if first {
                eprintln!(
                    "{n} boxes, step {}, sapwood and Box2D: pair {pair:?} only in {}; sapwood separation {sap_separation:?}, Box2D separation {b2_separation:?}: {}",
                    step + 1,
                    if in_sapwood { "sapwood" } else { "Box2D" },
                    if near <= BOX2D_NEAR { "near touching in both" } else { "NOT NEAR TOUCHING" },
                );
            }
        }
        touching = [sap_before.len(), rap_before.len(), b2_touching.len()];
        (sap_before, rap_before) = (sap_now, rap_now);
        before.clone_from(&scene);
    }
    let cpu_ms = |c: Option<Duration>| c.map(|d| d.as_secs_f64() * 1e3 / steps as f64);
    let [wb, ws, wr, wo, wf] = &mut wall;
    let engines = vec![
        Timing { name: "sapwood", wall: Stats::of(ws), cpu_ms: cpu_ms(cpu[1]).filter(|_| threads == 1) },
        Timing {
            name: "sapwood, manifold reuse off",
            wall: Stats::of(wf),
            cpu_ms: cpu_ms(cpu[4]).filter(|_| threads == 1),
        },
        Timing { name: "rapier2d", wall: Stats::of(wr), cpu_ms: cpu_ms(cpu[2]) },
        Timing { name: "Box2D v3 b2World_Step (its solver included)", wall: Stats::of(wb), cpu_ms: cpu_ms(cpu[0]) },
        Timing { name: "Box2D v3 pairs + collide", wall: Stats::of(&mut b2_collision), cpu_ms: None },
        Timing { name: "Box2D v3 recycling off: b2World_Step", wall: Stats::of(wo), cpu_ms: cpu_ms(cpu[3]) },
        Timing {
            name: "Box2D v3 recycling off: pairs + collide",
            wall: Stats::of(&mut b2_off_collision),
            cpu_ms: None,
        },
    ];
    let far = box2d_disagreeing.values().copied().fold(0.0, f32::max);
    Ok(Row {
        timings: Timings { label: n.to_string(), n, threads, steps, engines },
        builds: [sap_build, rap_build, b2_build],
        touching,
        rapier_disagreed: explained,
        box2d_disagreed: (
            box2d_disagreeing.len(),
            box2d_disagreeing.values().filter(|&&d| d <= BOX2D_NEAR).count(),
            far,
        ),
        recycled: recycled.map(|(r, of)| r as f64 / of.max(1) as f64),
    })
}

/// One engine alone beside Box2D's simulation (which the others need for their poses), for
/// profiling: no other engine, no pair checks. `box2d` times Box2D's own step.
pub fn run_alone(engine: &str, n: usize, threads: usize, args: &Args) -> Result<(), String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(SceneName::Pyramids, n));
    let mut scene = Scene::pyramids(n / PYRAMID_BOXES);
    let mut b2 = Box2dSim::build(&scene, true);
    let what = format!("the pyramids ({n} boxes, Box2D simulating), threads={threads}");
    run_engine_alone(engine, &what, &mut scene, args, steps, |scene| {
        let own = time_cpu(|| b2.step());
        b2.copy_poses(scene);
        own
    })
}

pub fn print_tables(rows: &[Row], args: &Args) {
    println!(
        "Box2D's many pyramids (SCENES.md §4): pyramids of {PYRAMID_BOXES} boxes, Box2D v3 simulating (its solver, default settings, sleep off), {} warm-up steps, engines interleaved step by step; sapwood: {}, colliders inserted one at a time",
        args.warmup,
        args.broad.as_deref().map_or("WorldConfig::default()".to_string(), |b| format!("default but --broad {b}")),
    );
    println!();
    print_timings(rows.iter().map(|r| &r.timings), "boxes");
    println!();
    print_ratios(rows.iter().map(|r| &r.timings), "boxes", &[1, 2, 4, 6]);
    println!();
    println!(
        "| boxes | threads | sapwood touching | rapier touching | Box2D touching | sapwood / rapier disagreed on (explained: rounding, rapier off) | sapwood / Box2D disagreed on (near touching in both) | farthest from touching of those, m | Box2D contacts recycled: on / off | build ms sapwood / rapier / Box2D |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for r in rows {
        let [s, ra, b] = r.builds;
        let (bd, bn, far) = r.box2d_disagreed;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} ({}) | {} | {:.1}% / {:.1}% | {:.1} / {:.1} / {:.1} |",
            r.timings.n,
            r.timings.threads,
            r.touching[0],
            r.touching[1],
            r.touching[2],
            r.rapier_disagreed,
            bd,
            bn,
            if bd > 0 { format!("{far:.1e}") } else { "–".to_string() },
            100.0 * r.recycled[0],
            100.0 * r.recycled[1],
            s.0.as_secs_f64() * 1e3,
            ra.0.as_secs_f64() * 1e3,
            b.0.as_secs_f64() * 1e3,
        );
    }
    println!();
    println!("ms: sapwood and rapier2d: wall time of telling every box's pose and stepping; Box2D: wall time");
    println!("of b2World_Step (its solver, which moves the boxes, included), and its profile's pairs + collide");
    println!("(its collision phases). The recycling-off world simulates the same scene on its own trajectory.");
    println!("Recycling off is b2World_SetContactRecycleDistance(0): this Box2D version has no other switch.");
    println!("Touching (at the poses of the last comparison): sapwood depth >= 0, rapier a manifold point at");
    println!("distance < 0, Box2D a manifold point at separation <= 0. Disagreements are counted over all");
    println!("steps, each pair once, and explained on stderr: with rapier as exactly touching up to rounding,");
    println!("or as rapier off (the exact f64 signed distance at those poses sides with sapwood); with Box2D as");
    println!("near touching: within {BOX2D_NEAR} m of touching in sapwood's kernel and in Box2D's manifold.");
}
