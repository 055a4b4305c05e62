//! The soak: millions of random operations on a world and, beside it, on a naive model (a list of
//! colliders), compared as the run goes. Shared by `tests/soak.rs` (bounded, in CI) and
//! `examples/soak.rs` (the full 10M-operation run).
//!
//! What is compared, and how often (the model must stay cheap enough for 10M operations):
//! - after every operation: the collider count; after every accepted mutation the model's copy;
//!   after every refused one the error's kind and the target collider (and, on a sample, the
//!   whole world's snapshot bytes) unchanged;
//! - after every step: the events, folded into the set of pairs they say are touching, must be
//!   consistent (no begin twice, no end without a begin), and the contact count must match it;
//! - every `full_check_every` steps: that set against a brute-force pass over every pair of live
//!   colliders, and every contact's manifold against a fresh narrow-phase call;
//! - queries right after a step (when the world holds exactly the model's state) against a
//!   linear scan; queries between mutations only for sanity (ids live, sorted);
//! - every `snapshot_every` steps: a snapshot round trip, continuing with the restored world.
//!
//! Memory: the resident set size from `/proc/self/status` and, when the driver installs a counting
//! allocator (such as [`counting::Counting`]), its live bytes, sampled `samples` times over the run.

pub mod counting;

use std::collections::BTreeSet;
use std::time::Instant;

use sapwood::EventKind;
use sapwood::{
    Aabb, ColliderDesc, ColliderId, Filter, Polygon, Pose, QueryFilter, Ray, Rot, Shape, Vec2, World, WorldError,
    collide, query,
};

use crate::SplitMix64;

/// How a soak runs.
#[derive(Clone, Copy, Debug)]
pub struct SoakConfig {
    pub ops: u64,
    pub seed: u64,
    /// The population random-walks between these bounds.
    pub min_live: usize,
    pub max_live: usize,
    /// Steps between brute-force checks of the whole contact set.
    pub full_check_every: u64,
    /// Steps between snapshot round trips.
    pub snapshot_every: u64,
    /// Memory samples over the run.
    pub samples: usize,
    /// Print progress at each sample.
    pub verbose: bool,
}

impl SoakConfig {
    pub fn new(ops: u64) -> Self {
        Self {
            ops,
            seed: 0x5EED,
            min_live: 100,
            max_live: 300,
            full_check_every: 8,
            snapshot_every: 2000,
            samples: 100,
            verbose: false,
        }
    }
}

/// One memory sample.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub ops: u64,
    pub live: usize,
    pub rss_kib: u64,
    pub heap_bytes: usize,
}

/// What a soak did and found.
#[derive(Debug, Default)]
pub struct SoakReport {
    pub ops: u64,
    pub steps: u64,
    pub inserts: u64,
    pub removes: u64,
    pub set_poses: u64,
    pub set_shapes: u64,
    pub queries: u64,
    pub queries_checked: u64,
    pub bad_inputs: u64,
    pub full_checks: u64,
    pub snapshots: u64,
    pub events: u64,
    pub max_contacts: usize,
    pub divergences: u64,
    /// The first divergences, described.
    pub first_divergences: Vec<String>,
    pub samples: Vec<Sample>,
    pub seconds: f64,
}

impl SoakReport {
    /// Samples taken after the first tenth of the run.
    fn after_warmup(&self) -> &[Sample] {
        let warm = self.ops / 10;
        let i = self.samples.iter().position(|s| s.ops >= warm).unwrap_or(self.samples.len());
        &self.samples[i..]
    }

    /// `(at warm-up end, max after warm-up, at end)` of a sampled quantity.
    pub fn memory<T: Copy + Ord + Default>(&self, f: impl Fn(&Sample) -> T) -> (T, T, T) {
        let after = self.after_warmup();
        let first = after.first().map(&f).unwrap_or_default();
        let max = after.iter().map(&f).max().unwrap_or_default();
        let last = self.samples.last().map(&f).unwrap_or_default();
        (first, max, last)
    }

    /// Max of a quantity over the second and the last quarter of the run: churn that leaks would
    /// make the second larger.
    pub fn quarters<T: Copy + Ord + Default>(&self, f: impl Fn(&Sample) -> T) -> (T, T) {
        let q = |lo: u64, hi: u64| {
            self.samples.iter().filter(|s| s.ops >= lo && s.ops < hi).map(&f).max().unwrap_or_default()
        };
        (q(self.ops / 4, self.ops / 2), q(3 * self.ops / 4, self.ops + 1))
    }
}

/// Resident set size in KiB (0 where `/proc` is absent).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

#[derive(Clone)]
struct Entry {
    id: ColliderId,
    desc: ColliderDesc,
}

/// The naive model: colliders by slot, plus a dense list of live slots for random picks.
struct Model {
    by_slot: Vec<Option<Entry>>,
    live: Vec<u32>,
    /// Position of each slot in `live`.
    pos: Vec<u32>,
    /// Pairs the world's events say are touching (a < b).
    touching: BTreeSet<(ColliderId, ColliderId)>,
    removed: Vec<ColliderId>,
    /// Something changed since the last step: queries see an older state.
    dirty: bool,
}

impl Model {
    fn new() -> Self {
        Self {
            by_slot: Vec::new(),
            live: Vec::new(),
            pos: Vec::new(),
            touching: BTreeSet::new(),
            removed: Vec::new(),
            dirty: false,
        }
    }

    fn get(&self, id: ColliderId) -> Option<&Entry> {
        self.by_slot.get(id.index() as usize).and_then(Option::as_ref).filter(|e| e.id == id)
    }

    fn add(&mut self, id: ColliderId, desc: ColliderDesc) -> bool {
        let s = id.index() as usize;
        if s >= self.by_slot.len() {
            self.by_slot.resize(s + 1, None);
            self.pos.resize(s + 1, u32::MAX);
        }
        let fresh = self.by_slot[s].is_none();
        self.by_slot[s] = Some(Entry { id, desc });
        self.pos[s] = self.live.len() as u32;
        self.live.push(s as u32);
        fresh
    }

    fn remove(&mut self, id: ColliderId) {
        let s = id.index() as usize;
        self.by_slot[s] = None;
        let p = self.pos[s] as usize;
        self.live.swap_remove(p);
        if let Some(&moved) = self.live.get(p) {
            self.pos[moved as usize] = p as u32;
        }
        if self.removed.len() < 64 {
            self.removed.push(id);
        } else {
            let k = (id.index() as usize) % 64;
            self.removed[k] = id;
        }
    }

    fn entries(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.live.iter().map(|&s| self.by_slot[s as usize].as_ref().expect("live slot"))
    }

    fn sensor_pair(&self, a: ColliderId, b: ColliderId) -> Option<bool> {
        Some(self.get(a)?.desc.sensor || self.get(b)?.desc.sensor)
    }

    /// Brute force over every pair of live colliders.
    fn touching_now(&self) -> BTreeSet<(ColliderId, ColliderId)> {
        let mut all: Vec<(&Entry, Aabb)> = self.entries().map(|e| (e, e.desc.shape.aabb(&e.desc.pose))).collect();
        all.sort_by_key(|(e, _)| e.id);
        let mut out = BTreeSet::new();
        for (i, (a, ba)) in all.iter().enumerate() {
            for (b, bb) in &all[i + 1..] {
                let (da, db) = (&a.desc, &b.desc);
                // The world's default sensor rules: sensors detect statics but not each other.
                let two_sensors = da.sensor && db.sensor;
                if (da.is_static && db.is_static)
                    || two_sensors
                    || !da.filter.pairs_with(&db.filter)
                    || !ba.overlaps(bb)
                {
                    continue;
                }
                if collide::overlaps(&da.shape, &da.pose, &db.shape, &db.pose).unwrap() {
                    out.insert((a.id, b.id));
                }
            }
        }
        out
    }
}

fn random_shape(rng: &mut SplitMix64) -> Shape {
    match rng.below(7) {
        0 | 1 => Shape::circle(rng.range(0.2, 0.8)).unwrap(),
        2 => Shape::capsule(
            Vec2::new(-rng.range(0.1, 0.6), 0.0),
            Vec2::new(rng.range(0.1, 0.6), 0.0),
            rng.range(0.1, 0.4),
        )
        .unwrap(),
        3 => Shape::cuboid(Vec2::new(rng.range(0.1, 0.8), rng.range(0.1, 0.8))).unwrap(),
        4 => Shape::rounded_box(Vec2::new(rng.range(0.1, 0.5), rng.range(0.1, 0.5)), rng.range(0.0, 0.2)).unwrap(),
        5 => Shape::from(Polygon::regular(3 + rng.below(6), rng.range(0.2, 0.8), 0.0).unwrap()),
        _ => {
            let pts: Vec<Vec2> = (0..6).map(|_| Vec2::new(rng.range(-0.8, 0.8), rng.range(-0.8, 0.8))).collect();
            Shape::polygon(&pts, 0.0).unwrap_or_else(|_| Shape::circle(0.5).unwrap())
        }
    }
}

fn random_pose(rng: &mut SplitMix64, extent: f32) -> Pose {
    let angle = if rng.below(3) == 0 { 0.0 } else { rng.range(-std::f32::consts::PI, std::f32::consts::PI) };
    Pose::new(Vec2::new(rng.range(0.0, extent), rng.range(0.0, extent)), angle)
}

fn random_desc(rng: &mut SplitMix64, extent: f32) -> ColliderDesc {
    let mut d = ColliderDesc::new(random_shape(rng), random_pose(rng, extent));
    d.is_static = rng.below(8) == 0;
    d.sensor = rng.below(12) == 0;
    d.filter = match rng.below(10) {
        0 => Filter { category: 2, mask: !2, group: 0 },
        1 => Filter { group: -1, ..Filter::default() },
        _ => Filter::default(),
    };
    d.user_data = rng.next_u64();
    d
}

/// The soak. `heap_bytes` reads the driver's counting allocator (or returns 0).
pub fn run(cfg: &SoakConfig, heap_bytes: &dyn Fn() -> usize) -> SoakReport {
    let start = Instant::now();
    let mut rng = SplitMix64::new(cfg.seed);
    // The model is brute force over `collide::contact`, which knows nothing of welded statics.
    let mut world =
        World::with_config(sapwood::WorldConfig { weld_static_edges: false, ..sapwood::WorldConfig::default() })
            .expect("a valid config");
    let mut model = Model::new();
    let mut r = SoakReport::default();
    // Side of the square the colliders live in: about 0.5 colliders per unit² at max_live.
    let extent = (cfg.max_live as f32 / 0.5).sqrt();
    let sample_every = (cfg.ops / cfg.samples.max(1) as u64).max(1);
    // A step op also runs two queries, so `ops` can skip a multiple: sample on crossing.
    let mut next_sample = sample_every;
    let mut diverge = |r: &mut SoakReport, what: String| {
        r.divergences += 1;
        if r.first_divergences.len() < 10 {
            r.first_divergences.push(what);
        }
    };
    let mut hits = Vec::new();
    let mut ray_hits = Vec::new();
    let mut events_since_check = 0u64;

    while r.ops < cfg.ops {
        r.ops += 1;
        let n = model.live.len();
        let roll = rng.below(100);
        // Keep the population inside [min_live, max_live]: inserts win below, removals above.
        let op = if n < cfg.min_live && roll < 40 {
            0
        } else if n >= cfg.max_live && roll < 40 {
            14
        } else {
            roll
        };
        match op {
            0..=13 if n < cfg.max_live => {
                let desc = random_desc(&mut rng, extent);
                let id = world.insert(desc.clone()).expect("valid insert");
                if !model.add(id, desc) {
                    let what = format!("op {}: insert reused the slot of a live id {id:?}", r.ops);
                    diverge(&mut r, what);
                }
                model.dirty = true;
                r.inserts += 1;
            }
            14..=25 if n > 0 => {
                let slot = model.live[rng.below(n)];
                let id = model.by_slot[slot as usize].as_ref().expect("live slot").id;
                world.remove(id).expect("live id removes");
                model.remove(id);
                model.dirty = true;
                r.removes += 1;
            }
            26..=55 if n > 0 => {
                let slot = model.live[rng.below(n)];
                let e = model.by_slot[slot as usize].as_mut().unwrap();
                let pose = if rng.below(8) == 0 {
                    random_pose(&mut rng, extent)
                } else {
                    let d = Vec2::new(rng.range(-0.2, 0.2), rng.range(-0.2, 0.2));
                    let p = (e.desc.pose.p + d).clamp(Vec2::ZERO, Vec2::splat(extent));
                    Pose::new(p, e.desc.pose.q.angle() + rng.range(-0.1, 0.1))
                };
                world.set_pose(e.id, pose).expect("valid pose");
                e.desc.pose = pose;
                model.dirty = true;
                r.set_poses += 1;
            }
            56..=61 if n > 0 => {
                let slot = model.live[rng.below(n)];
                let e = model.by_slot[slot as usize].as_mut().unwrap();
                let shape = random_shape(&mut rng);
                world.set_shape(e.id, shape.clone()).expect("valid shape");
                e.desc.shape = shape;
                model.dirty = true;
                r.set_shapes += 1;
            }
            62..=63 if n > 0 => {
                let slot = model.live[rng.below(n)];
                let e = model.by_slot[slot as usize].as_mut().unwrap();
                let u = rng.next_u64();
                world.set_user_data(e.id, u).expect("live id");
                e.desc.user_data = u;
            }
            64..=67 => {
                bad_input(&mut rng, &mut world, &model, &mut r, &mut diverge);
                r.bad_inputs += 1;
            }
            68..=77 => {
                step(&mut world, &mut model, &mut r, &mut diverge, cfg, &mut events_since_check);
                // Queries right after the step compare against the linear scan.
                for _ in 0..2 {
                    r.ops += 1;
                    run_query(&mut rng, &world, &model, &mut r, &mut diverge, extent, &mut hits, &mut ray_hits);
                }
            }
            _ => run_query(&mut rng, &world, &model, &mut r, &mut diverge, extent, &mut hits, &mut ray_hits),
        }
        if world.len() != model.live.len() {
            let what = format!("op {}: world.len() {} != model {}", r.ops, world.len(), model.live.len());
            diverge(&mut r, what);
        }
        if r.ops >= next_sample {
            next_sample += sample_every;
            let s = Sample { ops: r.ops, live: model.live.len(), rss_kib: rss_kib(), heap_bytes: heap_bytes() };
            if cfg.verbose {
                eprintln!(
                    "ops {:>10}  steps {:>8}  live {:>3}  contacts {:>4}  rss {:>6} KiB  heap {:>8} B  divergences {}  {:.1} s",
                    s.ops,
                    r.steps,
                    s.live,
                    world.contacts().len(),
                    s.rss_kib,
                    s.heap_bytes,
                    r.divergences,
                    start.elapsed().as_secs_f64()
                );
            }
            r.samples.push(s);
        }
    }
    // A final full check.
    world.step();
    r.steps += 1;
    fold_events(&world, &mut model, &mut r, &mut diverge);
    full_check(&world, &mut model, &mut r, &mut diverge);
    r.seconds = start.elapsed().as_secs_f64();
    r
}

type Diverge<'a> = dyn FnMut(&mut SoakReport, String) + 'a;

fn fold_events(world: &World, model: &mut Model, r: &mut SoakReport, diverge: &mut Diverge) {
    for e in world.events() {
        r.events += 1;
        let key = (e.a, e.b);
        let ok = match e.kind {
            EventKind::ContactBegan | EventKind::SensorEntered => e.a < e.b && model.touching.insert(key),
            EventKind::ContactEnded | EventKind::SensorExited => model.touching.remove(&key),
        };
        if !ok {
            diverge(r, format!("step {}: inconsistent event {e:?}", r.steps));
        }
    }
}

fn step(
    world: &mut World,
    model: &mut Model,
    r: &mut SoakReport,
    diverge: &mut Diverge,
    cfg: &SoakConfig,
    events_since_check: &mut u64,
) {
    world.step();
    r.steps += 1;
    model.dirty = false;
    fold_events(world, model, r, diverge);
    *events_since_check += world.events().len() as u64;
    r.max_contacts = r.max_contacts.max(world.contacts().len());
    // Cheap: every contact is a live, solid pair the events said began.
    let solid = world.contacts().len();
    let claimed = model.touching.iter().filter(|&&(a, b)| model.sensor_pair(a, b) == Some(false)).count();
    if solid != claimed {
        diverge(r, format!("step {}: {solid} contacts but events claim {claimed} solid touching pairs", r.steps));
    }
    if r.steps.is_multiple_of(cfg.full_check_every) {
        full_check(world, model, r, diverge);
    }
    if r.steps.is_multiple_of(cfg.snapshot_every) {
        let bytes = world.to_bytes();
        match World::from_bytes(&bytes) {
            Ok(restored) if restored.to_bytes() == bytes => *world = restored,
            Ok(_) => diverge(r, format!("step {}: snapshot round trip not exact", r.steps)),
            Err(e) => diverge(r, format!("step {}: own snapshot refused: {e}", r.steps)),
        }
        r.snapshots += 1;
    }
}

fn full_check(world: &World, model: &mut Model, r: &mut SoakReport, diverge: &mut Diverge) {
    r.full_checks += 1;
    if let Err(e) = world.validate() {
        diverge(r, format!("step {}: {e}", r.steps));
    }
    let now = model.touching_now();
    if now != model.touching {
        let extra: Vec<_> = model.touching.difference(&now).take(3).collect();
        let missing: Vec<_> = now.difference(&model.touching).take(3).collect();
        diverge(r, format!("step {}: touching set differs: reported extra {extra:?}, missing {missing:?}", r.steps));
        model.touching = now;
    }
    for c in world.contacts() {
        let (a, b) = (c.a, c.b);
        match (model.get(a), model.get(b)) {
            (Some(ea), Some(eb)) => {
                let m = collide::contact(&ea.desc.shape, &ea.desc.pose, &eb.desc.shape, &eb.desc.pose).unwrap();
                if m != c.manifold {
                    diverge(r, format!("step {}: manifold of {a:?}-{b:?} differs", r.steps));
                }
            }
            _ => diverge(r, format!("step {}: contact names a dead collider {a:?}-{b:?}", r.steps)),
        }
    }
    for &s in &model.live {
        let e = model.by_slot[s as usize].as_ref().expect("live slot");
        if world.pose(e.id) != Ok(e.desc.pose)
            || world.shape(e.id) != Ok(&e.desc.shape)
            || world.user_data(e.id) != Ok(e.desc.user_data)
            || world.aabb(e.id) != Ok(e.desc.shape.aabb(&e.desc.pose))
        {
            diverge(r, format!("step {}: collider {:?} differs from the model", r.steps, e.id));
        }
    }
}

/// Refused input: the right error, and nothing changed.
fn bad_input(rng: &mut SplitMix64, world: &mut World, model: &Model, r: &mut SoakReport, diverge: &mut Diverge) {
    let n = model.live.len();
    let target = (n > 0).then(|| model.by_slot[model.live[rng.below(n)] as usize].clone().expect("live slot"));
    let stale = if !model.removed.is_empty() && rng.below(2) == 0 {
        model.removed[rng.below(model.removed.len())]
    } else {
        ColliderId::from_raw_parts(rng.below(4 * n.max(1)) as u32, u32::MAX)
    };
    let full = rng.below(500) == 0;
    let before = full.then(|| world.to_bytes());
    let len = world.len();
    let bad_poses = [
        Pose::from_translation(Vec2::new(f32::NAN, 1.0)),
        Pose::from_translation(Vec2::new(1.0, f32::NEG_INFINITY)),
        Pose::from_translation(Vec2::new(1e30, 0.0)),
        Pose { p: Vec2::ONE, q: Rot { c: 0.5, s: 0.5 } },
        Pose { p: Vec2::ONE, q: Rot { c: f32::NAN, s: 0.0 } },
    ];
    let bad_shapes = [
        Shape::Circle(sapwood::Circle { radius: f32::NAN }),
        Shape::Circle(sapwood::Circle { radius: -1.0 }),
        Shape::Cuboid(sapwood::Cuboid { half_extents: Vec2::new(0.0, 1.0) }),
        Shape::Capsule(sapwood::Capsule { a: Vec2::ZERO, b: Vec2::ZERO, radius: 1.0 }),
        Shape::Circle(sapwood::Circle { radius: 1e30 }),
    ];
    type Expect = fn(&WorldError) -> bool;
    let (what, got, want): (&str, Result<(), WorldError>, Expect) = match rng.below(5) {
        0 => {
            let pose = bad_poses[rng.below(bad_poses.len())];
            let id = target.as_ref().map_or(stale, |t| t.id);
            let want: fn(&WorldError) -> bool = if target.is_some() {
                |e| matches!(e, WorldError::InvalidPose | WorldError::OutOfRange)
            } else {
                |e| *e == WorldError::StaleId
            };
            ("set_pose", world.set_pose(id, pose), want)
        }
        1 => {
            let shape = bad_shapes[rng.below(bad_shapes.len())].clone();
            let id = target.as_ref().map_or(stale, |t| t.id);
            let want: fn(&WorldError) -> bool = if target.is_some() {
                |e| matches!(e, WorldError::InvalidShape(_))
            } else {
                |e| *e == WorldError::StaleId
            };
            ("set_shape", world.set_shape(id, shape), want)
        }
        2 => {
            let mut desc = random_desc(rng, 10.0);
            if rng.below(2) == 0 {
                desc.shape = bad_shapes[rng.below(bad_shapes.len())].clone();
            } else {
                desc.pose = bad_poses[rng.below(bad_poses.len())];
            }
            ("insert", world.insert(desc).map(drop), |e| {
                matches!(e, WorldError::InvalidPose | WorldError::OutOfRange | WorldError::InvalidShape(_))
            })
        }
        3 => ("remove stale", world.remove(stale), |e| *e == WorldError::StaleId),
        _ => ("set_pose stale", world.set_pose(stale, Pose::IDENTITY), |e| *e == WorldError::StaleId),
    };
    match got {
        Ok(()) => diverge(r, format!("op {}: bad {what} accepted", r.ops)),
        Err(e) if !want(&e) => diverge(r, format!("op {}: bad {what} gave {e:?}", r.ops)),
        Err(_) => {}
    }
    if world.len() != len {
        diverge(r, format!("op {}: refused {what} changed the count", r.ops));
    }
    if let Some(t) = target
        && (world.pose(t.id) != Ok(t.desc.pose) || world.shape(t.id) != Ok(&t.desc.shape))
    {
        diverge(r, format!("op {}: refused {what} changed its target", r.ops));
    }
    if let Some(before) = before
        && world.to_bytes() != before
    {
        diverge(r, format!("op {}: refused {what} changed the world's bytes", r.ops));
    }
}

#[allow(clippy::too_many_arguments)]
fn run_query(
    rng: &mut SplitMix64,
    world: &World,
    model: &Model,
    r: &mut SoakReport,
    diverge: &mut Diverge,
    extent: f32,
    hits: &mut Vec<ColliderId>,
    ray_hits: &mut Vec<sapwood::WorldRayHit>,
) {
    r.queries += 1;
    let filter = match rng.below(4) {
        0 => QueryFilter { mask: 2, ..QueryFilter::default() },
        1 => QueryFilter { include_sensors: false, ..QueryFilter::default() },
        _ => QueryFilter::default(),
    };
    let pass = |e: &Entry| {
        e.desc.filter.category & filter.mask != 0
            && (filter.include_sensors || !e.desc.sensor)
            && filter.exclude != Some(e.id)
    };
    let compare = !model.dirty;
    hits.clear();
    let mut want: Vec<ColliderId> = Vec::new();
    let kind = rng.below(4);
    match kind {
        0 => {
            let lo = Vec2::new(rng.range(-2.0, extent), rng.range(-2.0, extent));
            let bx = Aabb::new(lo, lo + Vec2::new(rng.range(0.0, 5.0), rng.range(0.0, 5.0)));
            world.query_aabb(&bx, &filter, hits).unwrap();
            if compare {
                want = model
                    .entries()
                    .filter(|e| pass(e) && e.desc.shape.aabb(&e.desc.pose).overlaps(&bx))
                    .map(|e| e.id)
                    .collect();
            }
        }
        1 => {
            let p = Vec2::new(rng.range(0.0, extent), rng.range(0.0, extent));
            world.query_point(p, &filter, hits).unwrap();
            if compare {
                want = model
                    .entries()
                    .filter(|e| pass(e) && query::contains_point(&e.desc.shape, &e.desc.pose, p).unwrap())
                    .map(|e| e.id)
                    .collect();
            }
        }
        2 => {
            let (shape, pose) = (random_shape(rng), random_pose(rng, extent));
            world.query_shape(&shape, &pose, &filter, hits).unwrap();
            if compare {
                want = model
                    .entries()
                    .filter(|e| pass(e) && collide::overlaps(&e.desc.shape, &e.desc.pose, &shape, &pose).unwrap())
                    .map(|e| e.id)
                    .collect();
            }
        }
        _ => {
            let origin = Vec2::new(rng.range(-3.0, extent + 3.0), rng.range(-3.0, extent + 3.0));
            let ray = Ray::new(origin, Vec2::from_angle(rng.range(0.0, std::f32::consts::TAU)));
            let max_t = rng.range(0.5, 30.0);
            ray_hits.clear();
            world.ray_cast_all(&ray, max_t, &filter, ray_hits).unwrap();
            let closest = world.ray_cast(&ray, max_t, &filter).unwrap();
            if compare {
                r.queries_checked += 1;
                let mut want: Vec<(f32, ColliderId)> = model
                    .entries()
                    .filter(|e| pass(e))
                    .filter_map(|e| {
                        query::ray_cast(&e.desc.shape, &e.desc.pose, &ray, max_t).unwrap().map(|h| (h.t, e.id))
                    })
                    .collect();
                want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let got: Vec<_> = ray_hits.iter().map(|h| (h.t, h.id)).collect();
                if got != want || closest.map(|h| (h.t, h.id)) != want.first().copied() {
                    diverge(r, format!("op {}: ray cast {ray:?} {max_t}: got {got:?}, want {want:?}", r.ops));
                }
            } else if ray_hits.iter().any(|h| model.get(h.id).is_none()) {
                diverge(r, format!("op {}: ray cast reports a dead collider", r.ops));
            }
            return;
        }
    }
    if compare {
        r.queries_checked += 1;
        want.sort_unstable();
        if *hits != want {
            diverge(r, format!("op {}: query kind {kind}: got {hits:?}, want {want:?}", r.ops));
        }
    } else if hits.iter().any(|&id| model.get(id).is_none()) || !hits.is_sorted() {
        diverge(r, format!("op {}: query kind {kind} reports a dead collider or is unsorted", r.ops));
    }
}
