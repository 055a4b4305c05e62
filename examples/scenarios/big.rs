//! `--big`: the big world (SCENES.md §3) — 1,000,000 colliders of the peer mix, 1% then 10%
//! moving, in the default world. Each percentage runs in a fresh process (this program re-runs
//! itself with `--percent`), so that the memory reading of one does not inherit the other's heap.

use std::process::{Command, ExitCode};
use std::time::Instant;

use sapwood::{BroadPhaseKind, ColliderDesc, World, WorldConfig};
use sapwood_support::scenes::{BIG_WORLD_COLLIDERS, DEFAULT_SEED, Scene};

const WARMUP: usize = 3;
const STEPS: usize = 20;

/// A `kB` field of `/proc/self/status` (`VmRSS:`, `VmHWM:`), if readable (Linux).
pub fn status_kib(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs every percentage in its own process and prints the table.
pub fn run(out: &str, percents: &[usize], static_still: bool) -> ExitCode {
    if let [p] = percents {
        return run_one(out, *p, static_still);
    }
    println!(
        "| moving | colliders | build ms (insert_batch + first step) | RSS growth per collider | median ms/step (set_pose + step) | of which World::step | CPU ms/step (all threads) | min–max ms | touching pairs | sort-sweep copy agrees |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot find my own executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut ok = true;
    for &p in percents {
        let mut cmd = Command::new(&exe);
        cmd.args(["--big", "--out", out, "--percent", &p.to_string()]);
        if static_still {
            cmd.arg("--static-still");
        }
        let status = cmd.status();
        ok &= status.is_ok_and(|s| s.success());
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `static_still`: the colliders that never move are inserted as static (they live in the tree,
/// the SAP holds only the movers, and still–still pairs are not generated), as an embedder who
/// knows its scenery would do; otherwise every collider is a moving body, like the seed table.
fn run_one(out: &str, percent: usize, static_still: bool) -> ExitCode {
    let n = BIG_WORLD_COLLIDERS;
    let mut scene = Scene::big_world(percent, DEFAULT_SEED);
    let descs: Vec<ColliderDesc> = scene
        .colliders()
        .iter()
        .map(|c| {
            let d = ColliderDesc::new(c.shape.clone(), c.pose);
            if static_still && !c.moving { d.fixed() } else { d }
        })
        .collect();
    let rss0 = status_kib("VmRSS:").unwrap_or(0);
    let t = Instant::now();
    let mut world = World::new();
    let mut ids = Vec::with_capacity(n);
    world.insert_batch(&descs, &mut ids).expect("valid colliders");
    world.step();
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let rss1 = status_kib("VmRSS:").unwrap_or(0);
    let bytes_per = (rss1.saturating_sub(rss0) * 1024) as f64 / n as f64;
    drop(descs);

    let moving: Vec<usize> = (0..scene.len()).filter(|&i| scene.colliders()[i].moving).collect();
    let mut total = Vec::with_capacity(STEPS);
    let mut stepping = Vec::with_capacity(STEPS);
    let mut cpu = Vec::with_capacity(STEPS);
    for k in 0..WARMUP + STEPS {
        scene.step();
        let c0 = crate::cpu_ms();
        let t = Instant::now();
        for &i in &moving {
            let c = &scene.colliders()[i];
            world.set_pose(ids[c.id as usize], c.pose).expect("valid pose");
        }
        let t_step = Instant::now();
        world.step();
        if k >= WARMUP {
            stepping.push(t_step.elapsed().as_secs_f64() * 1e3);
            total.push(t.elapsed().as_secs_f64() * 1e3);
            cpu.push(crate::cpu_ms() - c0);
        }
    }
    let (lo, hi) = total.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    let med = median(&mut total);
    let med_step = median(&mut stepping);
    let med_cpu = median(&mut cpu);
    let pairs = world.contacts().len();
    // An independent broad phase over the same colliders must find the same touching pairs.
    let check = world
        .rebuilt_with(WorldConfig { broad_phase: BroadPhaseKind::SortSweep, ..*world.config() })
        .map(|w| w.contacts().len());
    let agrees = matches!(check, Ok(c) if c == pairs);
    println!(
        "| {percent}% ({}){} | {n} | {build_ms:.0} | {bytes_per:.0} B | {med:.2} | {med_step:.2} | {med_cpu:.2} | {lo:.2}–{hi:.2} | {pairs} | {} |",
        moving.len(),
        if static_still { ", rest static" } else { ", all bodies" },
        if agrees { "yes".to_string() } else { format!("NO ({check:?})") }
    );
    let _ = std::fs::create_dir_all(out);
    let path = format!("{out}/big_world_{percent}{}.csv", if static_still { "_static" } else { "" });
    let _ = std::fs::write(
        &path,
        format!(
            "percent,colliders,build_ms,bytes_per_collider,median_ms,median_step_ms,cpu_ms,min_ms,max_ms,touching_pairs,agrees\n\
             {percent},{n},{build_ms:.1},{bytes_per:.1},{med:.3},{med_step:.3},{med_cpu:.3},{lo:.3},{hi:.3},{pairs},{agrees}\n"
        ),
    );
    if agrees { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
