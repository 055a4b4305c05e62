//! Box2D's benchmark suite (`docs/SCENES.md` §6): Box2D v3 simulates each scene with its own
//! solver and step function (`support/src/peers/box2d_suite.rs`); each step the shapes it
//! destroyed are removed from sapwood and rapier2d, the shapes it created inserted one at a
//! time, and every moved shape's pose set, then both step — all of it inside their timed step.
//! A second Box2D world runs the same scene with contact recycling off, on its own trajectory.
//! The engines are interleaved step by step, in a rotating order.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use sapwood::{Shape, WorldConfig};
use sapwood_support::exact_query;
use sapwood_support::peers::{
    RapierSide, SapwoodSide, Stats, SuiteScene, SuiteSim, SuiteSize, disagreements, time, time_cpu,
};
use sapwood_support::scenes::Scene;

use crate::report::{Timing, Timings, print_ratios, print_timings, run_engine_alone};
use crate::{Args, Explained, explain, kind_name, sapwood_config};

/// What the exact signed distance says of a pair sapwood and Box2D disagree on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Verdicts {
    /// Within rounding of touching: either answer is right.
    ties: usize,
    /// The exact distance sides with sapwood: Box2D's kernel is off (it accepts some points
    /// within its linear slop).
    box2d_off: usize,
    /// The exact distance sides with Box2D: sapwood is wrong.
    unexplained: usize,
    /// The largest |exact signed distance| of the pairs Box2D was off on, m.
    farthest: f64,
}

pub struct Row {
    scene: SuiteScene,
    timings: Timings,
    /// Shapes alive at most over the run, and created over it (Box2D's world, a chain once).
    shapes: (usize, usize),
    /// Touching pairs after the last step (sapwood, rapier2d) and at the poses before it, those
    /// Box2D's last contacts were collided at (sapwood, Box2D).
    touching: [usize; 4],
    /// Distinct pairs sapwood and rapier disagreed on, by explanation.
    rapier: Explained,
    /// Distinct pairs sapwood and Box2D disagreed on, by verdict.
    box2d: Verdicts,
    /// Pair-steps the default world (which welds static tiles) did not touch and the unwelded
    /// copy the comparisons use did, and the other way round; `None` in a scene without two
    /// static boxes or polygons.
    welds: Option<[usize; 2]>,
    /// Share of Box2D's updated contacts it recycled over the measured steps: on, off.
    recycled: [f64; 2],
    /// Build wall time: sapwood, rapier2d (each one collider at a time and the first step),
    /// Box2D (the scene's creation).
    builds: [Duration; 3],
}

/// The scenes `--only-scene` names, or every one.
pub fn scenes(args: &Args) -> Result<Vec<SuiteScene>, String> {
    match &args.only_scene {
        None => Ok(SuiteScene::ALL.to_vec()),
        Some(names) => names
            .split(',')
            .map(|n| SuiteScene::from_name(n.trim()).ok_or_else(|| format!("no scene {n} in Box2D's suite")))
            .collect(),
    }
}

/// The steps timed: all of Box2D's but those the warm-up takes (its benchmark times every
/// step but step 0), or `--steps`.
fn measured_steps(scene: SuiteScene, args: &Args) -> usize {
    args.steps.unwrap_or(scene.steps().saturating_sub(args.warmup))
}

/// Whether sapwood welds some of the scene's statics (two fixed boxes or polygons at least),
/// so that the pairs are compared in an unwelded copy.
fn has_welds(scene: &Scene, config: &WorldConfig) -> bool {
    let fixed_polygons =
        scene.colliders().iter().filter(|c| c.fixed && matches!(c.shape, Shape::Cuboid(_) | Shape::Polygon(_)));
    config.weld_static_edges && fixed_polygons.count() >= 2
}

/// Adjudicates a pair sapwood (at the poses `before`) and Box2D (its manifolds made at those
/// poses) disagree on, by the exact signed distance there, within 4 f32 ulps of the larger
/// centre coordinate; prints it.
fn adjudicate(
    before: &Scene,
    b2: &SuiteSim,
    (a, b): (u32, u32),
    in_sapwood: Option<f32>,
    b2_separation: Option<f32>,
    v: &mut Verdicts,
) -> String {
    let (ca, cb) = (before.get(a).expect("live"), before.get(b).expect("live"));
    let exact = exact_query::collider_signed_distance(&ca.shape, &ca.pose, &cb.shape, &cb.pose);
    let tol = f64::from(4.0 * f32::EPSILON * ca.pose.p.abs().max_element().max(cb.pose.p.abs().max_element()).max(1.0));
    let verdict = if exact.abs() <= tol {
        v.ties += 1;
        "a tie: exactly touching up to rounding"
    } else if (in_sapwood.is_some() && exact <= tol) || (in_sapwood.is_none() && exact >= -tol) {
        v.box2d_off += 1;
        v.farthest = v.farthest.max(exact.abs());
        "Box2D off: the exact distance sides with sapwood"
    } else {
        v.unexplained += 1;
        "NOT EXPLAINED: the exact distance sides with Box2D"
    };
    let awake = |id: u32| b2.is_awake(id).map_or("static", |w| if w { "awake" } else { "asleep" });
    format!(
        "pair ({a}, {b}) {}–{} ({}, {}): only in {}; sapwood depth {in_sapwood:?}, Box2D separation {b2_separation:?}, exact signed distance {exact:.3e}, tolerance {tol:.1e}: {verdict}",
        kind_name(&ca.shape),
        kind_name(&cb.shape),
        awake(a),
        awake(b),
        if in_sapwood.is_some() { "sapwood" } else { "Box2D" },
    )
}

/// Engines in the order of [`Row::timings`]' first rows: indices of the wall-time columns.
const SAP: usize = 0;
const RAP: usize = 1;
const B2: usize = 2;
const B2_OFF: usize = 3;

pub fn run(scene: SuiteScene, threads: usize, args: &Args) -> Result<Row, String> {
    let steps = measured_steps(scene, args);
    let name = scene.name();
    let (mut b2, b2_build) = time(|| SuiteSim::build(scene, SuiteSize::Benchmark, true));
    let mut b2_off = SuiteSim::build(scene, SuiteSize::Benchmark, false);
    let (mut world, mut off_world) = (Scene::simulated(), Scene::simulated());
    b2.sync(&mut world);
    b2_off.sync(&mut off_world);
    let config = sapwood_config(args, &world)?;
    let (mut sap, sap_build) = time(|| SapwoodSide::build_with(&world, config, args.insertion));
    // The comparisons need every touching pair, which welding removes where tiles meet: they
    // use a copy of sapwood's world with welding off, stepped untimed beside it.
    let mut unwelded = has_welds(&world, &config)
        .then(|| SapwoodSide::build_with(&world, WorldConfig { weld_static_edges: false, ..config }, args.insertion));
    let (mut rap, rap_build) = time(|| RapierSide::build(&world));
    // Wall ms per measured step and CPU summed: sapwood, rapier2d, Box2D, Box2D recycling off.
    let mut wall: [Vec<f64>; 4] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let mut cpu = [Some(Duration::ZERO); 4];
    // sapwood's phases (AABBs, broad, narrow) and Box2D's profile (pairs + collide, pairs; off:
    // pairs + collide), ms per measured step.
    let mut phases: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let mut profile: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let mut recycled = [(0usize, 0usize); 2];
    let (mut rapier_seen, mut rapier) = (BTreeMap::new(), Explained::default());
    let (mut box2d_seen, mut box2d) = (BTreeSet::new(), Verdicts::default());
    // Pair-steps only the unwelded copy touched (welding took them away), and only the welded
    // world touched.
    let mut welds = [0usize; 2];
    let mut most_alive = world.len();
    // The poses and sapwood's touching pairs one step ago: Box2D's contacts after this step
    // describe them.
    let (mut before, mut sap_before) = (world.clone(), unwelded.as_ref().unwrap_or(&sap).touching());
    let (mut b2_contacts, mut b2_touching, mut churned) = (Vec::new(), Vec::new(), Vec::new());
    let mut touching = [0; 4];
    for step in 0..args.warmup + steps {
        let measured = step >= args.warmup;
        let mut record = |engine: usize, (d, c): (Duration, Option<Duration>)| {
            if measured {
                wall[engine].push(d.as_secs_f64() * 1e3);
                cpu[engine] = cpu[engine].zip(c).map(|(a, b)| a + b);
            }
        };
        record(B2, time_cpu(|| b2.step()));
        // Box2D's touching contacts collided afresh by its own kernels at the poses before this
        // step, sapwood's poses then (recycled and sleeping manifolds are estimates or stale).
        b2.recollided_contacts(&mut b2_contacts);
        b2.sync(&mut world);
        most_alive = most_alive.max(world.len());
        // Rotate which engine goes first, so none always runs on a cache another warmed.
        for k in 0..3 {
            match (step + k) % 3 {
                0 => record(SAP, time_cpu(|| sap.step(&world))),
                1 => record(RAP, time_cpu(|| rap.step(&world))),
                _ => record(B2_OFF, time_cpu(|| b2_off.step())),
            }
        }
        b2_off.sync(&mut off_world);
        if measured {
            let t = sap.world.last_step_timings();
            for (samples, d) in phases.iter_mut().zip([t.aabbs, t.broad_phase, t.narrow_phase]) {
                samples.push(d.as_secs_f64() * 1e3);
            }
            let (on, off) = (b2.profile(), b2_off.profile());
            for (samples, ms) in profile.iter_mut().zip([on.collision(), on.pairs, off.collision()]) {
                samples.push(ms);
            }
            for (sum, sim) in recycled.iter_mut().zip([&b2, &b2_off]) {
                let (r, of) = sim.recycled();
                *sum = (sum.0 + r, sum.1 + of);
            }
        }
        let sap_now = match &mut unwelded {
            Some(copy) => {
                copy.step(&world);
                let all = copy.touching();
                for ((a, b), in_welded) in disagreements(&sap.touching(), &all) {
                    if in_welded {
                        // Welding should only take pairs away: say what this one is.
                        let (ca, cb) = (world.get(a).expect("live"), world.get(b).expect("live"));
                        let exact = exact_query::collider_signed_distance(&ca.shape, &ca.pose, &cb.shape, &cb.pose);
                        eprintln!(
                            "{name}, threads={threads}, step {step}: pair ({a}, {b}) {}–{} touches in the welded world only; exact signed distance {exact:.3e}",
                            kind_name(&ca.shape),
                            kind_name(&cb.shape)
                        );
                        welds[1] += 1;
                    } else {
                        welds[0] += 1;
                    }
                }
                all
            }
            None => sap.touching(),
        };
        let rap_now = rap.touching();
        for (pair, in_sapwood) in disagreements(&sap_now, &rap_now) {
            if rapier_seen.insert(pair, in_sapwood).is_none() {
                eprintln!("{name}, threads={threads}, step {step}, sapwood and rapier:");
                rapier.add(explain(&world, &rap, pair, in_sapwood));
            }
        }
        // Pairs with a shape created in this step (not in sapwood's world before it) or
        // destroyed in it (gone from Box2D's) are left out.
        churned.clear();
        churned.resize(world.id_bound(), false);
        for &id in world.inserted().iter().chain(world.removed()) {
            churned[id as usize] = true;
        }
        b2_touching.clear();
        b2_touching.extend(b2_contacts.iter().copied().filter(|&(_, _, s)| s <= 0.0));
        for (pair, _) in disagreements(&sap_before, &b2_touching) {
            if churned[pair.0 as usize] || churned[pair.1 as usize] || !box2d_seen.insert(pair) {
                continue;
            }
            let find = |list: &[(u32, u32, f32)]| {
                list.binary_search_by_key(&pair, |&(a, b, _)| (a, b)).ok().map(|i| list[i].2)
            };
            let line = adjudicate(&before, &b2, pair, find(&sap_before), find(&b2_contacts), &mut box2d);
            eprintln!("{name}, threads={threads}, step {step}, sapwood and Box2D: {line}");
        }
        touching = [sap_now.len(), rap_now.len(), sap_before.len(), b2_touching.len()];
        (before, sap_before) = (world.clone(), sap_now);
    }
    let cpu_ms = |c: Option<Duration>| c.map(|d| d.as_secs_f64() * 1e3 / steps as f64);
    let [ws, wr, wb, wo] = &mut wall;
    let [pa, pb, pn] = &mut phases;
    let [on, pairs, off] = &mut profile;
    let phase = |name, samples: &mut Vec<f64>| Timing { name, wall: Stats::of(samples), cpu_ms: None };
    let engines = vec![
        Timing { name: "sapwood", wall: Stats::of(ws), cpu_ms: cpu_ms(cpu[SAP]).filter(|_| threads == 1) },
        phase("sapwood: AABBs", pa),
        phase("sapwood: broad phase", pb),
        phase("sapwood: narrow phase", pn),
        Timing { name: "rapier2d", wall: Stats::of(wr), cpu_ms: cpu_ms(cpu[RAP]) },
        Timing {
            name: "Box2D v3 step (its step function, b2World_Step)",
            wall: Stats::of(wb),
            cpu_ms: cpu_ms(cpu[B2]),
        },
        phase("Box2D v3 pairs + collide", on),
        phase("Box2D v3 pairs", pairs),
        Timing { name: "Box2D v3 recycling off: step", wall: Stats::of(wo), cpu_ms: cpu_ms(cpu[B2_OFF]) },
        phase("Box2D v3 recycling off: pairs + collide", off),
    ];
    Ok(Row {
        scene,
        timings: Timings { label: name.to_string(), n: 0, threads, steps, engines },
        shapes: (most_alive, b2.shape_counts().1),
        touching,
        rapier,
        box2d,
        welds: unwelded.is_some().then_some(welds),
        recycled: recycled.map(|(r, of)| r as f64 / of.max(1) as f64),
        builds: [sap_build, rap_build, b2_build],
    })
}

/// The columns of [`Row::timings`]' engines that the tables compare.
const MEAN_SAPWOOD: usize = 0;
const PHASES: [usize; 3] = [1, 2, 3];
const RAPIER: usize = 4;
const BOX2D_ON: usize = 6;
const BOX2D_PAIRS: usize = 7;
const BOX2D_OFF: usize = 9;

/// One scene's tables, printed as soon as it has run at every thread count.
pub fn print_scene(rows: &[Row]) {
    let Some(first) = rows.first() else { return };
    let (alive, created) = first.shapes;
    println!("### {} ({alive} shapes at most, {created} created)", first.scene.name());
    println!();
    print_timings(rows.iter().map(|r| &r.timings), "scene");
    println!();
    print_ratios(rows.iter().map(|r| &r.timings), "scene", &[RAPIER, BOX2D_ON, BOX2D_OFF]);
    println!();
    println!(
        "| scene | threads | touching after the last step: sapwood / rapier | the step before: sapwood / Box2D | sapwood / rapier disagreed on (rounding, rapier off) | sapwood / Box2D disagreed on (ties, Box2D off, unexplained) | farthest from touching of the Box2D-off pairs, m | pair-steps welds removed / added | Box2D contacts recycled: on / off | build ms sapwood / rapier / Box2D |"
    );
    println!("|---|---:|---|---|---:|---|---:|---:|---|---|");
    for r in rows {
        let b = r.box2d;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "| {} | {} | {} / {} | {} / {} | {} | {} ({}, {}, {}) | {} | {} | {:.1}% / {:.1}% | {:.1} / {:.1} / {:.1} |",
            r.scene.name(),
            r.timings.threads,
            r.touching[0],
            r.touching[1],
            r.touching[2],
            r.touching[3],
            r.rapier,
            b.ties + b.box2d_off + b.unexplained,
            b.ties,
            b.box2d_off,
            b.unexplained,
            if b.box2d_off > 0 { format!("{:.1e}", b.farthest) } else { "–".to_string() },
            r.welds.map_or("–".to_string(), |[away, added]| format!("{away} / {added}")),
            100.0 * r.recycled[0],
            100.0 * r.recycled[1],
            ms(r.builds[0]),
            ms(r.builds[1]),
            ms(r.builds[2]),
        );
    }
    println!();
}

/// The suite at a glance: one line per scene and thread count, mean ms per step.
pub fn print_summary(rows: &[Row], args: &Args) {
    println!("## Box2D's benchmark suite: mean ms per step");
    println!();
    println!(
        "sapwood: {}, shapes inserted one at a time; step 0{} untimed; engines interleaved step by step.",
        args.broad.as_deref().map_or("WorldConfig::default()".to_string(), |b| format!("default but --broad {b}")),
        if args.warmup > 1 { format!(" to {}", args.warmup - 1) } else { String::new() },
    );
    println!();
    println!(
        "| scene (shapes at most; created) | threads | steps | sapwood | sapwood AABBs / broad / narrow phase | rapier2d | Box2D pairs + collide, recycling on (pairs alone, median) | Box2D, recycling off | Box2D-on / sapwood | rapier2d / sapwood |"
    );
    println!("|---|---:|---:|---:|---|---:|---|---:|---:|---:|");
    for r in rows {
        let e = &r.timings.engines;
        let mean = |i: usize| e[i].wall.mean;
        let [a, b, n] = PHASES.map(mean);
        println!(
            "| {} ({}; {}) | {} | {} | {:.2} | {a:.2} / {b:.2} / {n:.2} | {:.2} | {:.2} ({:.2}) | {:.2} | {:.2} | {:.2} |",
            r.scene.name(),
            r.shapes.0,
            r.shapes.1,
            r.timings.threads,
            r.timings.steps,
            mean(MEAN_SAPWOOD),
            mean(RAPIER),
            mean(BOX2D_ON),
            e[BOX2D_PAIRS].wall.median,
            mean(BOX2D_OFF),
            mean(BOX2D_ON) / mean(MEAN_SAPWOOD),
            mean(RAPIER) / mean(MEAN_SAPWOOD),
        );
    }
    println!();
    println!("sapwood and rapier2d: wall time of telling the removals, insertions and poses and stepping.");
    println!("sapwood's phases: World::last_step_timings. Box2D: wall time of its step function and");
    println!("b2World_Step (solver included), and its profile's pairs + collide (its collision phases),");
    println!("recycling on (its default) and off (b2World_SetContactRecycleDistance(0), a second world on");
    println!("its own trajectory). Touching: sapwood depth >= 0 (welding off, in an untimed copy, where the");
    println!("scene has tiles), rapier a manifold point at distance < 0, Box2D a manifold point at");
    println!("separation <= 0 in its touching contacts collided afresh by its own kernels at the poses");
    println!("of the step before (sapwood's then). Disagreements, each pair once, are");
    println!("printed on stderr with the exact f64 signed distance that decides them.");
}

/// The summary's means, for the chart.
pub fn chart_bars(rows: &[Row]) -> Vec<crate::chart::Bars> {
    rows.iter()
        .map(|r| {
            let mean = |i: usize| r.timings.engines[i].wall.mean;
            crate::chart::Bars {
                scene: r.scene.name(),
                threads: r.timings.threads,
                ms: [mean(MEAN_SAPWOOD), mean(RAPIER), mean(BOX2D_ON), mean(BOX2D_OFF)],
            }
        })
        .collect()
}

/// Frames of Box2D's simulation the advisor times each broad phase on, per window.
const ADVISE_STEPS: usize = 30;

/// `--advise`: sapwood's advisor on each scene (default config, one thread) at a quarter, half
/// and three quarters of the scene's run, each time on Box2D's next [`ADVISE_STEPS`] frames; the
/// pick is the broad phase with the least summed median over the three windows (a scene
/// changes over its run: rain fills up, spinner's pile spreads). Prints each window's ranking.
pub fn advise_all(args: &Args) -> Result<(), String> {
    println!("## sapwood's advisor on Box2D's suite");
    println!();
    println!(
        "| scene | pick over the three windows | its ranking at 1/4, 1/2 and 3/4 of the run (median ms per step of {ADVISE_STEPS} steps) |"
    );
    println!("|---|---|---|");
    for scene in scenes(args)? {
        let run = args.warmup + measured_steps(scene, args);
        let mut b2 = SuiteSim::build(scene, SuiteSize::Benchmark, true);
        let mut world = Scene::simulated();
        b2.sync(&mut world);
        let mut sap = SapwoodSide::build_with(&world, WorldConfig::default(), args.insertion);
        let mut step = 0;
        let mut total: Vec<(&'static str, f64)> = Vec::new();
        let mut rankings = Vec::new();
        for at in [run / 4, run / 2, 3 * run / 4] {
            while step < at {
                b2.step();
                b2.sync(&mut world);
                sap.step(&world);
                step += 1;
            }
            // The frames are Box2D's next ones; sapwood then catches up on them too.
            let frames: Vec<Scene> = (0..ADVISE_STEPS)
                .map(|_| {
                    b2.step();
                    b2.sync(&mut world);
                    world.clone()
                })
                .collect();
            let advice = sap.advise(&frames).map_err(|e| format!("{}: {e}", scene.name()))?;
            for frame in &frames {
                sap.step(frame);
            }
            step += ADVISE_STEPS;
            let mut ranking = Vec::new();
            for (k, t) in &advice.ranking {
                let (name, ms) = (k.build().name(), t.as_secs_f64() * 1e3);
                ranking.push(format!("{name} {ms:.2}"));
                match total.iter_mut().find(|(n, _)| *n == name) {
                    Some(entry) => entry.1 += ms,
                    None => total.push((name, ms)),
                }
            }
            rankings.push(format!("step {at}: {}", ranking.join(", ")));
        }
        total.sort_by(|a, b| a.1.total_cmp(&b.1));
        println!("| {} | {} | {} |", scene.name(), total[0].0, rankings.join("; "));
    }
    Ok(())
}

/// One engine alone beside Box2D's simulation (which the others follow), for profiling: no
/// other engine, no pair checks. `box2d` times Box2D's own step.
pub fn run_alone(engine: &str, scene: SuiteScene, threads: usize, args: &Args) -> Result<(), String> {
    let steps = measured_steps(scene, args);
    let mut b2 = SuiteSim::build(scene, SuiteSize::Benchmark, true);
    let mut world = Scene::simulated();
    b2.sync(&mut world);
    let what = format!("{} (Box2D simulating), threads={threads}", scene.name());
    run_engine_alone(engine, &what, &mut world, args, steps, |world| {
        let own = time_cpu(|| b2.step());
        b2.sync(world);
        own
    })
}
