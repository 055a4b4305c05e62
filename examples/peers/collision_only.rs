//! The scenes that move their own colliders (the peer scene and the static scene): each step the
//! scene moves, then every engine is told the new poses and collides, nothing more.

use std::collections::BTreeMap;
use std::time::Duration;

use sapwood::WorldConfig;
use sapwood_support::peers::{
    Box2dSide, BuildTimes, Insertion, RapierSide, SapwoodSide, Stats, disagreements, time_cpu,
};

use crate::report::{PhaseTally, Timing, Timings, ms, print_ratios, print_timings};
use crate::{Args, Explained, SceneName, default_steps, explain, make_scene, sapwood_config};

pub struct Row {
    /// sapwood, rapier2d, Box2D (telling + `b2World_Step`), Box2D's collision phases, Box2D's
    /// `b2World_Step` (its profile).
    timings: Timings,
    /// Build (insertion plus the first step) wall time and building-thread CPU time per engine,
    /// in the order sapwood, rapier2d, Box2D.
    builds: [(Duration, Option<Duration>); 3],
    /// The static scene's sapwood builds in phases: one collider at a time (the world that is
    /// stepped) and by `insert_batch`.
    phases: Option<[BuildTimes; 2]>,
    /// Touching pairs after the last step (the static scene: of the unwelded copy).
    sapwood_pairs: usize,
    /// The static scene's welded world (the timed one): its touching pairs after the last step,
    /// and the pair-steps only it had (must be 0) and only the unwelded copy had (welding
    /// removed them).
    welded_pairs: Option<(usize, [usize; 2])>,
    rapier_pairs: usize,
    /// sapwood's touching pairs with a moving end, and Box2D's contacts with manifold points
    /// (touching or within its speculative distance) and fat-box contacts, after the last step.
    sapwood_mover_pairs: usize,
    box2d_touching: u64,
    box2d_contacts: usize,
    /// Distinct pairs sapwood and rapier disagreed on at some step, by explanation.
    explained: Explained,
}

pub fn run(n: usize, threads: usize, args: &Args) -> Result<Row, String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(args.scene, n));
    let mut scene = make_scene(args, n);
    let config = sapwood_config(args, &scene)?;
    // The static scene's tiles by one `insert_batch`, in a world of its own (dropped before the
    // others are built, so that no two million-tile worlds share the memory).
    let batch = (args.scene == SceneName::Static)
        .then(|| SapwoodSide::build_with(&scene, WorldConfig::default(), Insertion::Batch).build_times);
    let mut sap = None;
    let sap_build = time_cpu(|| sap = Some(SapwoodSide::build_with(&scene, config, args.insertion)));
    let mut sap = sap.expect("built");
    // The static scene's tiles are welded (the default): the edges two tiles share never collide,
    // so a mover over a block touches fewer tiles in sapwood than in rapier. Its pairs are
    // checked in a copy of sapwood's world without welding, stepped untimed beside it; the
    // welded world's pairs must be a subset of the copy's.
    let mut unwelded = (args.scene == SceneName::Static)
        .then(|| SapwoodSide::build_with(&scene, WorldConfig { weld_static_edges: false, ..config }, args.insertion));
    let mut rap = None;
    let rap_build = time_cpu(|| rap = Some(RapierSide::build(&scene)));
    let mut rap = rap.expect("built");
    let mut b2 = None;
    let b2_build = time_cpu(|| b2 = Some(Box2dSide::build(&scene, args.box2d_recycle)));
    let mut b2 = b2.expect("built");
    // Per engine: wall ms per measured step, and the CPU time summed over them.
    let mut wall: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let mut cpu = [Some(Duration::ZERO); 3];
    let (mut b2_collision, mut b2_step) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    // Distinct disagreeing pairs → whether sapwood had it.
    let mut disagreeing: BTreeMap<(u32, u32), bool> = BTreeMap::new();
    let mut explained = Explained::default();
    // Pair-steps in the welded world only, and in the unwelded world only (contacts welding
    // removed), summed over the steps.
    let mut welding = [0usize; 2];
    for step in 0..args.warmup + steps {
        scene.step();
        // Rotate which engine goes first, so none always runs on a cache another warmed.
        for k in 0..3 {
            let engine = (step + k) % 3;
            let (d, c) = match engine {
                0 => time_cpu(|| sap.step(&scene)),
                1 => time_cpu(|| rap.step(&scene)),
                _ => time_cpu(|| b2.step(&scene)),
            };
            if step >= args.warmup {
                wall[engine].push(d.as_secs_f64() * 1e3);
                cpu[engine] = cpu[engine].zip(c).map(|(a, b)| a + b);
            }
        }
        if step >= args.warmup {
            let profile = b2.profile();
            b2_collision.push(profile.collision());
            b2_step.push(profile.step);
        }
        let mut checked = sap.touching();
        if let Some(unwelded) = &mut unwelded {
            unwelded.step(&scene);
            let all = unwelded.touching();
            for (pair, in_welded) in disagreements(&checked, &all) {
                welding[usize::from(!in_welded)] += 1;
                if in_welded {
                    eprintln!("n={n} step {}: pair {pair:?} touches in the welded world only: NOT EXPLAINED", step + 1);
                }
            }
            checked = all;
        }
        let diff = disagreements(&checked, &rap.touching());
        for &(pair, in_sapwood) in &diff {
            if disagreeing.insert(pair, in_sapwood).is_none() {
                eprintln!("n={n} threads={threads} step {}:", step + 1);
                explained.add(explain(&scene, &rap, pair, in_sapwood));
            }
        }
    }
    let cpu_ms = |c: Option<Duration>| c.map(|d| d.as_secs_f64() * 1e3 / steps as f64);
    let [ws, wr, wb] = &mut wall;
    let checked = unwelded.as_ref().unwrap_or(&sap);
    let engines = vec![
        Timing { name: "sapwood", wall: Stats::of(ws), cpu_ms: cpu_ms(cpu[0]).filter(|_| threads == 1) },
        Timing { name: "rapier2d", wall: Stats::of(wr), cpu_ms: cpu_ms(cpu[1]) },
        Timing { name: "Box2D v3", wall: Stats::of(wb), cpu_ms: cpu_ms(cpu[2]) },
        Timing { name: "Box2D v3 collision phases", wall: Stats::of(&mut b2_collision), cpu_ms: None },
        Timing { name: "Box2D v3 b2World_Step", wall: Stats::of(&mut b2_step), cpu_ms: None },
    ];
    Ok(Row {
        timings: Timings { label: n.to_string(), n, threads, steps, engines },
        builds: [sap_build, rap_build, b2_build],
        phases: batch.map(|batch| [sap.build_times, batch]),
        sapwood_pairs: checked.touching().len(),
        sapwood_mover_pairs: checked.touching_with_mover(&scene),
        welded_pairs: unwelded.is_some().then(|| (sap.touching().len(), welding)),
        rapier_pairs: rap.touching().len(),
        box2d_touching: b2.touching(),
        box2d_contacts: b2.contact_count(),
        explained,
    })
}

/// One engine alone, for profiling: no comparison, no pair checks, just build and step.
pub fn run_alone(engine: &str, n: usize, threads: usize, args: &Args) -> Result<(), String> {
    let steps = args.steps.unwrap_or_else(|| default_steps(args.scene, n));
    let mut scene = make_scene(args, n);
    let mut times = Vec::with_capacity(steps);
    let mut cpu = Some(Duration::ZERO);
    let mut tally = None;
    let mut record = |step: usize, (wall, c): (Duration, Option<Duration>)| {
        if step >= args.warmup {
            times.push(wall.as_secs_f64() * 1e3);
            cpu = cpu.zip(c).map(|(a, b)| a + b);
        }
    };
    match engine {
        "sapwood" => {
            let mut sap = SapwoodSide::build_with(&scene, sapwood_config(args, &scene)?, args.insertion);
            let mut phases = PhaseTally::default();
            for step in 0..args.warmup + steps {
                scene.step();
                record(step, time_cpu(|| sap.step(&scene)));
                if step >= args.warmup {
                    phases.add(&sap);
                }
            }
            tally = Some(phases);
        }
        "rapier" => {
            let mut rap = RapierSide::build(&scene);
            for step in 0..args.warmup + steps {
                scene.step();
                record(step, time_cpu(|| rap.step(&scene)));
            }
        }
        "box2d" => {
            let mut b2 = Box2dSide::build(&scene, args.box2d_recycle);
            for step in 0..args.warmup + steps {
                scene.step();
                record(step, time_cpu(|| b2.step(&scene)));
            }
        }
        other => return Err(format!("--only takes sapwood, rapier or box2d, not {other}")),
    }
    let cpu = cpu.map_or("–".to_string(), |c| format!("{:.3}", c.as_secs_f64() * 1e3 / steps as f64));
    let w = Stats::of(&mut times);
    println!(
        "{engine} alone (broad {}), n={n} threads={threads}: wall ms/step median {:.3}, mean {:.3}, p90 {:.3}, p99 {:.3}; {cpu} CPU ms/step of the stepping thread, {steps} steps",
        args.broad.as_deref().unwrap_or("default"),
        w.median,
        w.mean,
        w.p90,
        w.p99
    );
    if let Some(tally) = tally {
        tally.print(w.mean, steps);
    }
    Ok(())
}

pub fn print_tables(rows: &[Row], args: &Args) {
    let (title, size) = match args.scene {
        SceneName::Static => ("static scene (SCENES.md §5): N fixed tiles, 1,000 movers", "tiles"),
        _ => ("peer scene (SCENES.md §2)", "N"),
    };
    println!(
        "{title}, seed {}, {} warm-up steps, engines interleaved step by step; sapwood: {}, colliders inserted {}",
        args.seed,
        args.warmup,
        args.broad.as_deref().map_or("WorldConfig::default()".to_string(), |b| format!("default but --broad {b}")),
        match args.insertion {
            Insertion::OneByOne => "one at a time in scene order (World::insert)",
            Insertion::Batch => "by one World::insert_batch",
        },
    );
    println!();
    print_timings(rows.iter().map(|r| &r.timings), size);
    println!();
    print_ratios(rows.iter().map(|r| &r.timings), size, &[1, 2, 3]);
    println!();
    println!(
        "| {size} | threads | sapwood touching | rapier touching | disagreed on (explained: rounding, rapier off) | sapwood touching with a mover | Box2D manifolds | Box2D contacts | build ms sapwood / rapier / Box2D | build CPU ms sapwood / rapier / Box2D |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for r in rows {
        let [s, ra, b] = r.builds;
        let cpu = |d: Option<Duration>| ms(d.map(|d| d.as_secs_f64() * 1e3));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} / {:.1} / {:.1} | {} / {} / {} |",
            r.timings.n,
            r.timings.threads,
            r.sapwood_pairs,
            r.rapier_pairs,
            r.explained,
            r.sapwood_mover_pairs,
            r.box2d_touching,
            r.box2d_contacts,
            s.0.as_secs_f64() * 1e3,
            ra.0.as_secs_f64() * 1e3,
            b.0.as_secs_f64() * 1e3,
            cpu(s.1.filter(|_| r.timings.threads == 1)),
            cpu(ra.1),
            cpu(b.1),
        );
    }
    if rows.iter().any(|r| r.welded_pairs.is_some()) {
        println!();
        println!(
            "| {size} | threads | sapwood touching, welded (the timed world) | welding off (the untimed copy above) | pairs touching in the welded world only, over all steps | pairs welding removed, over all steps |"
        );
        println!("|---:|---:|---:|---:|---:|---:|");
        for r in rows {
            if let Some((welded, [welded_only, removed])) = r.welded_pairs {
                println!(
                    "| {} | {} | {welded} | {} | {welded_only} | {removed} |",
                    r.timings.n, r.timings.threads, r.sapwood_pairs
                );
            }
        }
    }
    if rows.iter().any(|r| r.phases.is_some()) {
        println!();
        println!(
            "| tiles | threads | sapwood: tiles one at a time ms | then 1,000 movers ms | first step ms | tiles by insert_batch ms | then movers ms | first step ms |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
        let t = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
        for r in rows {
            if let Some([one, batch]) = r.phases {
                println!(
                    "| {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.timings.n,
                    r.timings.threads,
                    t(one.insert_fixed),
                    t(one.insert_rest),
                    t(one.first_step),
                    t(batch.insert_fixed),
                    t(batch.insert_rest),
                    t(batch.first_step),
                );
            }
        }
    }
    println!();
    println!("ms: wall time of telling the engine the new poses and stepping it; the Box2D collision phases are");
    println!("its profile's pairs + collide, and its b2World_Step line its profile's step (the telling excluded).");
    println!("CPU ms/step: mean CPU time of the stepping thread (/proc/thread-self/schedstat) over the measured");
    println!("steps; sapwood's only at 1 thread (its rayon helpers run elsewhere). rapier2d (no `parallel`");
    println!("feature) and Box2D (no task system) run single-threaded at any thread count.");
    println!("Touching: sapwood depth >= 0, rapier a manifold point at distance < 0, after the last step;");
    println!("Box2D manifolds: its contacts with manifold points (touching, or within its speculative distance");
    println!("0.02), all with a mover since its still colliders are static bodies, so they compare with sapwood's");
    println!(
        "touching pairs with a mover; Box2D contacts: its fat-box pairs. Box2D's contact recycling is {}.",
        if args.box2d_recycle { "on (its default)" } else { "off (--box2d-recycle turns it on)" }
    );
    println!("Disagreements: distinct pairs only one of sapwood and rapier called touching at some step, each");
    println!("explained on stderr as exactly touching up to rounding, or as rapier off (the exact f64 signed");
    println!("distance of the shapes at those poses sides with sapwood beyond rounding).");
    if args.scene == SceneName::Static {
        println!("Tiles are fixed colliders (sapwood ColliderDesc::fixed, welded by default; rapier without");
        println!("fixed-fixed pairs; Box2D static bodies). Welded tiles' shared edges never collide, so the pairs");
        println!("checked against rapier are those of an untimed copy of sapwood's world with welding off, stepped");
        println!("beside it. The insertion table's worlds are WorldConfig::default().");
    }
    // Parallel speed-up of sapwood: 1 thread over each larger thread count, per size.
    for &n in &args.sizes {
        let one = rows.iter().find(|r| r.timings.n == n && r.timings.threads == 1);
        for r in rows.iter().filter(|r| r.timings.n == n && r.timings.threads > 1) {
            if let Some(one) = one {
                println!(
                    "N = {n}: sapwood at {} threads is {:.2}x faster (wall median) than at 1 thread",
                    r.timings.threads,
                    one.timings.engines[0].wall.median / r.timings.engines[0].wall.median
                );
            }
        }
    }
}
