//! Shared pieces of the fuzz targets: a byte decoder that favours the floats that break things
//! (NaN, ±inf, 1e30, just past the limits, denormals), and a world driven by decoded operations
//! and checked against a naive model after every one of them.
//!
//! Every check here is an `assert!`: libFuzzer reports a panic as a crash, so a failed check and
//! a panic inside the library are found the same way.

use std::collections::{BTreeMap, BTreeSet};

use sapwood::{
    Aabb, BroadPhaseKind, Capsule, ChainOptions, CharacterConfig, Circle, ColliderDesc, ColliderId, Cuboid, EventKind,
    Filter, MAX_COORDINATE, MAX_SHAPE_SIZE, Polygon, Pose, QueryFilter, Ray, Rot, Segment, Shape, Vec2, World,
    WorldConfig, WorldError, collide, query, query::CastOptions,
};

/// Reads values from fuzzer bytes; past the end every read gives zeros, so any input decodes.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

/// Floats chosen because they sit on or just past a boundary the library checks.
const PALETTE: [f32; 20] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e30,
    -1e30,
    MAX_COORDINATE,
    MAX_COORDINATE * 1.000_001,
    MAX_SHAPE_SIZE,
    MAX_SHAPE_SIZE * 1.000_001,
    f32::MIN_POSITIVE,
    1e-30,
    f32::MAX,
    f32::MIN,
    1e-7,
    1e5,
];

impl<'a> Bytes<'a> {
    /// A decoder over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }

    /// One byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// Four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A float: mostly small "sane" values, often a boundary value, sometimes any bit pattern.
    pub fn f32(&mut self) -> f32 {
        match self.u8() % 8 {
            0 => PALETTE[self.u8() as usize % PALETTE.len()],
            1 => f32::from_bits(self.u32()),
            2 => (self.u8() as i8) as f32 * 1000.0,
            _ => (self.u8() as i8) as f32 / 16.0,
        }
    }

    /// A vector of two [`Bytes::f32`].
    pub fn vec2(&mut self) -> Vec2 {
        Vec2::new(self.f32(), self.f32())
    }

    /// A pose: usually from an angle, sometimes with a raw (possibly non-unit, NaN) rotation.
    pub fn pose(&mut self) -> Pose {
        let p = self.vec2();
        if self.u8().is_multiple_of(8) {
            Pose { p, q: Rot { c: self.f32(), s: self.f32() } }
        } else {
            Pose::new(p, self.f32())
        }
    }

    /// A shape, through the checked constructors when they accept the input, otherwise built
    /// from its public parts (or, for polygons, its `Pod` bytes), which may well be invalid.
    pub fn shape(&mut self) -> Shape {
        match self.u8() % 10 {
            8 => {
                let (a, b) = (self.vec2(), self.vec2());
                let r = if self.u8().is_multiple_of(2) { 0.0 } else { self.f32() };
                Shape::rounded_segment(a, b, r).unwrap_or(Shape::Segment(Segment { a, b, radius: r }))
            }
            9 => {
                // A chain: a walk of small steps (terrain that shapes slide along) or decoded
                // vertices; an unbuildable one becomes an invalid bare segment, which the world
                // must refuse.
                let n = self.u8() as usize % 48;
                let flags = self.u8();
                let options = ChainOptions { closed: flags & 1 != 0, one_sided: flags & 2 != 0 };
                let mut p = self.vec2();
                let vs: Vec<Vec2> = (0..n)
                    .map(|_| {
                        if flags & 4 != 0 {
                            p += Vec2::from_angle(self.u8() as f32 / 40.0) * (0.1 + (self.u8() % 8) as f32 / 4.0);
                            p
                        } else {
                            self.vec2()
                        }
                    })
                    .collect();
                Shape::chain(vs, options).unwrap_or(Shape::Segment(Segment { a: p, b: p, radius: 0.0 }))
            }
            0 => {
                let r = self.f32();
                Shape::circle(r).unwrap_or(Shape::Circle(Circle { radius: r }))
            }
            1 => {
                let (a, b, r) = (self.vec2(), self.vec2(), self.f32());
                Shape::capsule(a, b, r).unwrap_or(Shape::Capsule(Capsule { a, b, radius: r }))
            }
            2 => {
                let h = self.vec2();
                Shape::cuboid(h).unwrap_or(Shape::Cuboid(Cuboid { half_extents: h }))
            }
            3 => {
                let n = self.u8() as usize % 12;
                let pts: Vec<Vec2> = (0..n).map(|_| self.vec2()).collect();
                let r = if self.u8().is_multiple_of(2) { 0.0 } else { self.f32() };
                Shape::polygon(&pts, r).unwrap_or(Shape::Circle(Circle { radius: r }))
            }
            4 => {
                let (h, r) = (self.vec2(), self.f32());
                Shape::rounded_box(h, r).unwrap_or(Shape::Cuboid(Cuboid { half_extents: h }))
            }
            5 => {
                let (n, cr, r) = (self.u8() as usize % 11, self.f32(), self.f32());
                Polygon::regular(n, cr, r).map(Shape::from).unwrap_or(Shape::Circle(Circle { radius: cr }))
            }
            6 => {
                let mut raw = [0u8; std::mem::size_of::<Polygon>()];
                for b in &mut raw {
                    *b = self.u8();
                }
                Shape::from(bytemuck::pod_read_unaligned::<Polygon>(&raw))
            }
            _ => {
                // Small sane shapes, so that worlds fill up with pairs that touch.
                let s = 0.25 + (self.u8() % 16) as f32 / 8.0;
                match self.u8() % 5 {
                    0 => Shape::circle(s).unwrap(),
                    1 => Shape::cuboid(Vec2::new(s, 0.5 * s)).unwrap(),
                    2 => Shape::segment(Vec2::new(-s, 0.0), Vec2::new(s, 0.3 * s)).unwrap(),
                    3 => {
                        // A zigzag floor of 12 segments.
                        let vs = (0..13).map(|i| Vec2::new(i as f32 * s - 6.0 * s, (i % 2) as f32 * 0.2 * s)).collect();
                        Shape::chain(vs, ChainOptions { closed: false, one_sided: s > 1.0 }).unwrap()
                    }
                    _ => Shape::from(Polygon::regular(5, s, 0.0).unwrap()),
                }
            }
        }
    }

    /// A box from two corners (possibly inverted or non-finite).
    pub fn aabb(&mut self) -> Aabb {
        Aabb::new(self.vec2(), self.vec2())
    }

    /// A world config: any broad phase, any margins.
    pub fn config(&mut self) -> WorldConfig {
        let broad_phase = match self.u8() % 8 {
            0 => BroadPhaseKind::BruteForce,
            1 => BroadPhaseKind::SortSweep,
            2 => BroadPhaseKind::UniformGrid { bounds: self.aabb(), cell_size: self.f32() },
            3 => BroadPhaseKind::SpatialHash { cell_size: self.f32() },
            4 => BroadPhaseKind::Quadtree { bounds: self.aabb() },
            5 => BroadPhaseKind::DynamicTree,
            _ => BroadPhaseKind::IncrementalSap,
        };
        // The model checks contacts against `collide::contact`, which knows nothing of welded
        // statics (where a contact may pass to the neighbour a surface is welded to): welds
        // have their own tests (`tests/weld.rs`).
        let mut c = WorldConfig { broad_phase, weld_static_edges: false, ..WorldConfig::default() };
        if self.u8().is_multiple_of(4) {
            c.aabb_margin = self.f32();
            c.aabb_margin_ratio = self.f32();
            c.large_extent = self.f32();
            c.aabb_motion_factor = self.f32();
        }
        c
    }
}

/// What [`World::insert`] must answer for `desc`, from the documented order of its checks.
pub fn expected_insert(desc: &ColliderDesc) -> Result<(), WorldError> {
    if !desc.pose.is_valid() {
        return Err(WorldError::InvalidPose);
    }
    if desc.pose.p.abs().max_element() > MAX_COORDINATE {
        return Err(WorldError::OutOfRange);
    }
    desc.shape.validate().map_err(WorldError::InvalidShape)
}

/// The naive model: live colliders by slot, and the touching pairs the last step reported.
#[derive(Default)]
pub struct Model {
    pub live: BTreeMap<u32, (ColliderId, ColliderDesc)>,
    pub touching: BTreeSet<(ColliderId, ColliderId)>,
    pub pending: Vec<(ColliderId, ColliderId, EventKind)>,
    pub removed: Vec<ColliderId>,
    /// Mutations since the last step: queries then see an older state, so they are not compared.
    pub dirty: bool,
    /// The world's `sensors_detect_sensors` and `sensors_detect_static`.
    pub sensors_detect_sensors: bool,
    pub sensors_detect_static: bool,
}

impl Model {
    fn sensor_pair(&self, a: ColliderId, b: ColliderId) -> bool {
        self.live[&a.index()].1.sensor || self.live[&b.index()].1.sensor
    }

    /// Brute force over every pair: tight boxes overlap, then the shared narrow phase decides
    /// (a manifold with points for solid pairs, the overlap test for sensor pairs).
    pub fn touching_now(&self) -> BTreeSet<(ColliderId, ColliderId)> {
        let all: Vec<_> = self.live.values().collect();
        let mut out = BTreeSet::new();
        for (i, (ia, a)) in all.iter().enumerate() {
            for (ib, b) in &all[i + 1..] {
                let senses_static = |s: &ColliderDesc, o: &ColliderDesc| s.sensor && o.is_static && !o.sensor;
                if (a.is_static && b.is_static)
                    || (a.sensor && b.sensor && !self.sensors_detect_sensors)
                    || (!self.sensors_detect_static && (senses_static(a, b) || senses_static(b, a)))
                    || !a.filter.pairs_with(&b.filter)
                {
                    continue;
                }
                if !a.shape.aabb(&a.pose).overlaps(&b.shape.aabb(&b.pose)) {
                    continue;
                }
                let touch = if a.sensor || b.sensor {
                    collide::overlaps(&a.shape, &a.pose, &b.shape, &b.pose).unwrap()
                } else {
                    collide::contact(&a.shape, &a.pose, &b.shape, &b.pose).unwrap().count > 0
                };
                if touch {
                    out.insert((*ia, *ib));
                }
            }
        }
        out
    }

    fn remove(&mut self, id: ColliderId) {
        let (_, removed) = self.live.remove(&id.index()).expect("model removes live ids only");
        let gone: Vec<_> = self.touching.iter().copied().filter(|&(a, b)| a == id || b == id).collect();
        for (a, b) in gone {
            self.touching.remove(&(a, b));
            let other = if a == id { b } else { a };
            let sensor = removed.sensor || self.live[&other.index()].1.sensor;
            self.pending.push((a, b, if sensor { EventKind::SensorExited } else { EventKind::ContactEnded }));
        }
        self.removed.push(id);
    }

    /// After a step: contacts, manifolds and events against brute force.
    pub fn check_step(&mut self, world: &World) {
        // Impacts: at most one per live bullet, in bullet order, each a time in [0, 1] against
        // another live collider.
        let mut last = None;
        for i in world.impacts() {
            let (bullet, other) = (i.bullet, i.other);
            let live = |id: ColliderId| self.live.get(&id.index()).filter(|(x, _)| *x == id);
            assert!(live(bullet).is_some_and(|(_, d)| d.bullet), "an impact of a non-bullet: {i:?}");
            assert!(live(other).is_some() && other != bullet, "an impact with a dead collider: {i:?}");
            assert!((0.0..=1.0).contains(&i.fraction), "an impact outside [0, 1]: {i:?}");
            assert!(last < Some(bullet), "impacts out of bullet order");
            last = Some(bullet);
        }
        let now = self.touching_now();
        let mut got = BTreeSet::new();
        for c in world.contacts() {
            let (a, b) = (c.a, c.b);
            let (ia, da) = &self.live[&a.index()];
            let (ib, db) = &self.live[&b.index()];
            assert_eq!((*ia, *ib), (a, b), "contact names a stale id");
            let m = collide::contact(&da.shape, &da.pose, &db.shape, &db.pose).unwrap();
            assert_eq!(c.manifold, m, "manifold of {a:?}-{b:?} differs from a fresh computation");
            assert!(got.insert((a, b)), "duplicate contact");
        }
        let want: BTreeSet<_> = now.iter().copied().filter(|&(a, b)| !self.sensor_pair(a, b)).collect();
        assert_eq!(got, want, "contact set differs from brute force");

        let mut events = std::mem::take(&mut self.pending);
        for &(a, b) in now.difference(&self.touching) {
            let k = if self.sensor_pair(a, b) { EventKind::SensorEntered } else { EventKind::ContactBegan };
            events.push((a, b, k));
        }
        for &(a, b) in self.touching.difference(&now) {
            let k = if self.sensor_pair(a, b) { EventKind::SensorExited } else { EventKind::ContactEnded };
            events.push((a, b, k));
        }
        events.sort();
        let got: Vec<_> = world.events().iter().map(|e| (e.a, e.b, e.kind)).collect();
        assert_eq!(got, events, "events differ from brute force");
        self.touching = now;
        self.dirty = false;
    }
}

/// The most colliders a fuzzed world holds: the model's brute force is quadratic.
const MAX_LIVE: usize = 40;

/// Picks an id: usually a live one, sometimes a removed one or a forged one.
fn pick(b: &mut Bytes, model: &Model) -> ColliderId {
    let k = b.u8();
    match k % 8 {
        0 if !model.removed.is_empty() => model.removed[b.u8() as usize % model.removed.len()],
        1 => ColliderId::from_raw_parts(b.u32() % 64, b.u32() | 1),
        _ if !model.live.is_empty() => {
            let i = b.u8() as usize % model.live.len();
            model.live.values().nth(i).unwrap().0
        }
        _ => ColliderId::from_raw_parts(0, 1),
    }
}

fn desc(b: &mut Bytes) -> ColliderDesc {
    let flags = b.u8();
    let filter = match flags >> 4 {
        0 => Filter { category: 2, mask: !2, group: 0 },
        1 => Filter { group: -1, ..Filter::default() },
        2 => Filter { category: b.u32(), mask: b.u32(), group: b.u32() as i32 },
        _ => Filter::default(),
    };
    ColliderDesc {
        shape: b.shape(),
        pose: b.pose(),
        is_static: flags & 1 != 0,
        sensor: flags & 2 != 0,
        bullet: flags & 4 != 0,
        filter,
        user_data: u64::from(b.u32()),
        enabled: true,
        contact_events: true,
        sensor_events: true,
    }
}

fn live_id(model: &Model, id: ColliderId) -> bool {
    model.live.get(&id.index()).is_some_and(|(i, _)| *i == id)
}

/// Runs `f`, which must fail, and checks that it left the world byte-for-byte unchanged (and
/// so its state hash).
fn unchanged<T: std::fmt::Debug>(world: &mut World, f: impl FnOnce(&mut World) -> Result<T, WorldError>) -> WorldError {
    let (before, hash) = (world.to_bytes(), world.state_hash());
    let r = f(world);
    let e = r.expect_err("expected an error");
    assert_eq!(world.to_bytes(), before, "a failed call ({e:?}) changed the world");
    assert_eq!(world.state_hash(), hash, "a failed call ({e:?}) changed the state hash");
    e
}

/// What [`World::shift_origin`] must answer for `offset`, from its documented checks.
fn expected_shift(model: &Model, offset: Vec2) -> Result<(), WorldError> {
    if !offset.is_finite() {
        return Err(WorldError::InvalidOffset);
    }
    let beyond = |p: Vec2| (p - offset).abs().max_element() > MAX_COORDINATE;
    if offset.abs().max_element() > 2.0 * MAX_COORDINATE || model.live.values().any(|(_, d)| beyond(d.pose.p)) {
        return Err(WorldError::OutOfRange);
    }
    Ok(())
}

/// Reads that must agree with the model for live ids and say `StaleId` for the others.
fn check_reads(world: &World, model: &Model, id: ColliderId) {
    if let Some((_, d)) = model.live.get(&id.index()).filter(|(i, _)| *i == id) {
        assert_eq!(world.pose(id), Ok(d.pose));
        assert_eq!(world.shape(id), Ok(&d.shape));
        assert_eq!(world.user_data(id), Ok(d.user_data));
        assert!(world.aabb(id).is_ok() && world.contains(id));
        let mut mine = Vec::new();
        world.contacts_of(id, |c| mine.push(*c)).unwrap();
        let mut all: Vec<_> = world.contacts().iter().filter(|c| c.a == id || c.b == id).copied().collect();
        let key = |c: &sapwood::Contact| (c.a, c.b);
        mine.sort_by_key(key);
        all.sort_by_key(key);
        assert_eq!(mine, all, "contacts_of disagrees with contacts()");
    } else {
        assert!(!world.contains(id));
        assert_eq!(world.pose(id), Err(WorldError::StaleId));
        assert_eq!(world.shape(id).err(), Some(WorldError::StaleId));
        assert_eq!(world.aabb(id), Err(WorldError::StaleId));
        assert_eq!(world.user_data(id), Err(WorldError::StaleId));
        assert_eq!(world.contacts_of(id, |_| panic!("contact for a stale id")), Err(WorldError::StaleId));
    }
}

fn is_sane(v: Vec2) -> bool {
    v.is_finite() && v.abs().max_element() <= 1e5
}

/// Queries; compared with a linear scan over the model when nothing changed since the last step
/// and the input is in the range where the library promises accuracy.
fn query(b: &mut Bytes, world: &World, model: &Model) {
    let filter = match b.u8() % 4 {
        0 => QueryFilter { mask: 2, ..QueryFilter::default() },
        1 => QueryFilter { include_sensors: false, ..QueryFilter::default() },
        2 => QueryFilter { exclude: Some(pick(b, model)), ..QueryFilter::default() },
        _ => QueryFilter::default(),
    };
    let pass = |id: ColliderId, d: &ColliderDesc| {
        d.filter.category & filter.mask != 0 && (filter.include_sensors || !d.sensor) && filter.exclude != Some(id)
    };
    let compare = !model.dirty;
    let mut got = Vec::new();
    match b.u8() % 9 {
        8 => mover(b, world, model, &filter, compare),
        5 => swept_queries(b, world, model, &filter, compare),
        6 => distance_queries(b, world, model, &filter, compare),
        7 => {
            let ray = Ray::new(b.vec2(), b.vec2());
            let (max_t, answer) = (b.f32(), b.f32());
            let mut calls = 0;
            let res = world.ray_cast_with(&ray, max_t, &filter, |h| {
                calls += 1;
                assert!(h.t >= 0.0 && h.t <= max_t, "a ray hit outside [0, max_t]: {h:?}");
                answer
            });
            if res.is_err() {
                assert_eq!(calls, 0, "a refused ray called back");
            }
            assert_eq!(res.is_err(), !ray.origin.is_finite() || !ray.dir.is_finite() || max_t.is_nan() || max_t < 0.0);
        }
        0 => {
            let bx = b.aabb();
            let res = world.query_aabb(&bx, &filter, &mut got);
            assert_eq!(res.is_err(), bx.min.is_nan() || bx.max.is_nan(), "query_aabb refusal: {bx:?}");
            if compare {
                let want: Vec<_> = model
                    .live
                    .values()
                    .filter(|(id, d)| pass(*id, d) && d.shape.aabb(&d.pose).overlaps(&bx))
                    .map(|(id, _)| *id)
                    .collect();
                let boxes: Vec<_> = want.iter().map(|&id| world.aabb(id)).collect();
                assert_eq!(got, want, "query_aabb {bx:?} {filter:?} world boxes {boxes:?}");
            }
        }
        1 => {
            let p = b.vec2();
            let res = world.query_point(p, &filter, &mut got);
            assert_eq!(res.is_err(), !p.is_finite(), "query_point refusal: {p:?}");
            if compare && p.is_finite() {
                let want: Vec<_> = model
                    .live
                    .values()
                    .filter(|(id, d)| pass(*id, d) && query::contains_point(&d.shape, &d.pose, p).unwrap())
                    .map(|(id, _)| *id)
                    .collect();
                let shapes: Vec<_> = want.iter().map(|&id| (world.shape(id).cloned(), world.pose(id))).collect();
                assert_eq!(got, want, "query_point {p:?} {filter:?} {shapes:?}");
            }
        }
        2 => {
            let (shape, pose) = (b.shape(), b.pose());
            let res = world.query_shape(&shape, &pose, &filter, &mut got);
            assert_eq!(res.is_err(), shape.validate().is_err() || !pose.is_valid(), "query_shape refusal: {res:?}");
            if compare && res.is_ok() && is_sane(pose.p) {
                let want: Vec<_> = model
                    .live
                    .values()
                    .filter(|(id, d)| pass(*id, d) && collide::overlaps(&d.shape, &d.pose, &shape, &pose).unwrap())
                    .map(|(id, _)| *id)
                    .collect();
                assert_eq!(got, want, "query_shape");
            }
        }
        _ => {
            let ray = Ray::new(b.vec2(), b.vec2());
            let max_t = b.f32();
            let mut all = Vec::new();
            let res = world.ray_cast_all(&ray, max_t, &filter, &mut all);
            let closest = world.ray_cast(&ray, max_t, &filter);
            let bad = !ray.origin.is_finite() || !ray.dir.is_finite() || max_t.is_nan() || max_t < 0.0;
            assert_eq!((res.is_err(), closest.is_err()), (bad, bad), "ray refusal: {ray:?} {max_t}");
            assert!(!bad || all.is_empty(), "a refused ray appended hits");
            let Ok(closest) = closest else { return };
            let ok = is_sane(ray.origin) && is_sane(ray.dir) && ray.dir != Vec2::ZERO && max_t.is_finite();
            if compare && ok && (0.0..=1e5).contains(&max_t) {
                let mut want: Vec<(f32, ColliderId)> = model
                    .live
                    .values()
                    .filter(|(id, d)| pass(*id, d))
                    .filter_map(|(id, d)| query::ray_cast(&d.shape, &d.pose, &ray, max_t).unwrap().map(|h| (h.t, *id)))
                    .collect();
                want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                assert_eq!(all.iter().map(|h| (h.t, h.id)).collect::<Vec<_>>(), want, "ray_cast_all {ray:?} {max_t}");
                assert_eq!(closest.map(|h| (h.t, h.id)), want.first().copied(), "ray_cast");
            }
        }
    }
}

/// `World::cast_shape` / `cast_shape_all`: refused exactly for bad input, else (on a sane
/// world and probe) equal to a linear scan with `query::cast_shapes`.
fn swept_queries(b: &mut Bytes, world: &World, model: &Model, filter: &QueryFilter, compare: bool) {
    let (shape, pose, translation) = (b.shape(), b.pose(), b.vec2());
    let options = CastOptions { max_fraction: b.f32(), target_distance: b.f32() };
    let mut all = Vec::new();
    let res = world.cast_shape_all(&shape, &pose, translation, &options, filter, &mut all);
    let closest = world.cast_shape(&shape, &pose, translation, &options, filter);
    let bad = !pose.is_valid()
        || shape.validate().is_err()
        || !translation.is_finite()
        || !options.max_fraction.is_finite()
        || !options.target_distance.is_finite()
        || options.max_fraction < 0.0
        || options.target_distance < 0.0;
    assert_eq!(res.is_err(), bad, "cast_shape_all refusal");
    assert_eq!(closest.is_err(), bad, "cast_shape refusal");
    let sane = is_sane(pose.p) && is_sane(translation) && options.max_fraction <= 1e3 && options.target_distance <= 1e3;
    if compare && !bad && sane && shape.validate().is_ok() {
        let pass = |id: ColliderId, d: &ColliderDesc| {
            d.filter.category & filter.mask != 0 && (filter.include_sensors || !d.sensor) && filter.exclude != Some(id)
        };
        let mut want: Vec<(f32, ColliderId)> = model
            .live
            .values()
            .filter(|(id, d)| pass(*id, d))
            .filter_map(|(id, d)| {
                query::cast_shapes(&shape, &pose, translation, &d.shape, &d.pose, Vec2::ZERO, &options)
                    .unwrap()
                    .map(|h| (h.fraction, *id))
            })
            .collect();
        want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        assert_eq!(all.iter().map(|h| (h.fraction, h.id)).collect::<Vec<_>>(), want, "cast_shape_all");
        assert_eq!(closest.unwrap().is_some(), !want.is_empty(), "cast_shape");
    }
}

/// `World::move_character`: refused exactly for bad input; else (on a world as the last step
/// left it, at sane scales) the final pose overlaps no collider the filter accepts, one-sided
/// chains aside, unless the move reports `stuck`.
fn mover(b: &mut Bytes, world: &World, model: &Model, filter: &QueryFilter, compare: bool) {
    let (shape, pose, translation) = (b.shape(), b.pose(), b.vec2());
    let config = CharacterConfig {
        up: if b.u8().is_multiple_of(2) { Vec2::Y } else { b.vec2() },
        skin: b.f32(),
        max_slope: b.f32(),
        snap_to_ground: b.f32(),
        step_height: b.f32(),
        max_iterations: u32::from(b.u8() % 8),
        filter: *filter,
    };
    let mut hits = Vec::new();
    let got = world.move_character(&shape, &pose, translation, &config, &mut hits);
    let amounts = [config.skin, config.max_slope, config.snap_to_ground, config.step_height];
    let shape_ok = shape.validate().is_ok()
        && match &shape {
            Shape::Compound(_) | Shape::Chain(_) => false,
            Shape::Segment(s) => s.radius > 0.0,
            _ => true,
        };
    let bad = !config.up.is_finite()
        || amounts.iter().any(|x| !x.is_finite() || *x < 0.0)
        || (config.up.length() - 1.0).abs() > 1e-3
        || config.max_slope > std::f32::consts::FRAC_PI_2 + 1e-6
        || [config.skin, config.snap_to_ground, config.step_height].iter().any(|x| *x > MAX_COORDINATE)
        || !pose.is_valid()
        || !translation.is_finite()
        || pose.p.abs().max_element() > MAX_COORDINATE
        || (pose.p + translation).abs().max_element() > MAX_COORDINATE
        || !shape_ok;
    assert_eq!(got.is_err(), bad, "move_character refusal: {got:?}");
    let Ok(m) = got else { return };
    assert!(m.pose.is_valid() && Some(m.pose.q) == pose.q.valid_unit(), "move_character broke the pose: {m:?}");
    let size = shape.bounding_radius();
    let sane = is_sane(pose.p)
        && is_sane(translation)
        && (1e-2..=1e3).contains(&size)
        && amounts.iter().all(|x| *x <= 1e3)
        && model.live.values().all(|(_, d)| (1e-2..=1e3).contains(&d.shape.bounding_radius()));
    if compare && sane && !m.stuck {
        for (id, d) in model.live.values() {
            let one_sided = matches!(&d.shape, Shape::Chain(c) if c.options().one_sided);
            let pass = d.filter.category & filter.mask != 0
                && (filter.include_sensors || !d.sensor)
                && filter.exclude != Some(*id);
            if pass && !one_sided {
                let gap = query::distance(&shape, &m.pose, &d.shape, &d.pose).unwrap().distance;
                assert!(gap > 0.0, "move_character ended inside {id:?}: {m:?} from {pose:?} by {translation}");
            }
        }
    }
}

/// `World::distance_to_nearest` / `distance_to_nearest_point`: refused exactly for bad input,
/// else (on a sane world and probe) the nearest distance of a linear scan.
fn distance_queries(b: &mut Bytes, world: &World, model: &Model, filter: &QueryFilter, compare: bool) {
    let (shape, pose, max_distance) = (b.shape(), b.pose(), b.f32());
    let got = world.distance_to_nearest(&shape, &pose, max_distance, filter);
    let bad_max = max_distance.is_nan() || max_distance < 0.0;
    assert_eq!(got.is_err(), bad_max || !pose.is_valid() || shape.validate().is_err(), "distance_to_nearest refusal");
    let point = b.vec2();
    let got_point = world.distance_to_nearest_point(point, max_distance, filter);
    assert_eq!(got_point.is_err(), bad_max || !point.is_finite(), "distance_to_nearest_point refusal");
    if compare && !bad_max && pose.is_valid() && is_sane(pose.p) && shape.validate().is_ok() {
        let pass = |id: ColliderId, d: &ColliderDesc| {
            d.filter.category & filter.mask != 0 && (filter.include_sensors || !d.sensor) && filter.exclude != Some(id)
        };
        let want = model
            .live
            .values()
            .filter(|(id, d)| pass(*id, d))
            .map(|(_, d)| query::distance(&shape, &pose, &d.shape, &d.pose).unwrap().distance)
            .filter(|&d| d <= max_distance)
            .min_by(f32::total_cmp);
        let all: Vec<_> = model.live.values().map(|(id, d)| (id, &d.shape, d.pose, world.aabb(*id))).collect();
        assert_eq!(
            got.unwrap().map(|h| h.distance),
            want,
            "distance_to_nearest {shape:?} at {pose:?} within {max_distance}, world {all:?}"
        );
    }
}

/// Every live collider lies inside the coordinate limit plus the shape limit, so a box query over
/// that region must find every one of them (after a step).
fn check_whole_query(world: &World, model: &Model) {
    let r = MAX_COORDINATE + 2.0 * MAX_SHAPE_SIZE;
    let mut out = Vec::new();
    world.query_aabb(&Aabb::new(Vec2::splat(-r), Vec2::splat(r)), &QueryFilter::default(), &mut out).unwrap();
    let want: Vec<_> = model.live.values().filter(|(_, d)| d.filter.category != 0).map(|(id, _)| *id).collect();
    assert_eq!(out, want, "a world-sized box query misses live colliders");
}

/// Decodes a config and a sequence of operations from `data` and applies them to a world and a
/// model, checking after each one. Returns the world, for the snapshot target.
pub fn run_world_ops(data: &[u8]) -> World {
    let mut b = Bytes::new(data);
    let config = b.config();
    let mut world = match World::with_config(config) {
        Ok(w) => w,
        Err(e) => {
            assert_eq!(e, WorldError::InvalidConfig);
            // The default world, less welding (see `Bytes::config`).
            World::with_config(WorldConfig { weld_static_edges: false, ..WorldConfig::default() }).expect("valid")
        }
    };
    let mut model = Model {
        sensors_detect_sensors: world.config().sensors_detect_sensors,
        sensors_detect_static: world.config().sensors_detect_static,
        ..Model::default()
    };
    let trace = std::env::var_os("SAPWOOD_FUZZ_TRACE").is_some();
    if trace {
        eprintln!("config {config:?} -> {:?}", world.config());
    }
    let mut ops = 0;
    while !b.is_empty() && ops < 300 {
        ops += 1;
        let op = b.u8() % 16;
        if trace {
            eprintln!("op {op} (live {}) at byte {}", model.live.len(), b.pos);
        }
        match op {
            0 | 1 => {
                let d = desc(&mut b);
                match expected_insert(&d) {
                    Ok(()) if model.live.len() < MAX_LIVE => {
                        let id = world.insert(d.clone()).expect("a valid description is accepted");
                        if trace {
                            eprintln!("  insert {id:?} {d:?}");
                        }
                        let d = ColliderDesc { pose: d.pose.valid_unit().unwrap(), ..d };
                        assert!(model.live.insert(id.index(), (id, d)).is_none(), "slot of a live id reused");
                        model.dirty = true;
                    }
                    Ok(()) => {}
                    Err(want) => assert_eq!(unchanged(&mut world, |w| w.insert(d)), want),
                }
            }
            2 => {
                let n = b.u8() as usize % 5;
                let descs: Vec<_> = (0..n).map(|_| desc(&mut b)).collect();
                match descs.iter().map(expected_insert).find(Result::is_err) {
                    Some(Err(want)) => {
                        let e = unchanged(&mut world, |w| {
                            let mut out = Vec::new();
                            w.insert_batch(&descs, &mut out).map(|()| out)
                        });
                        assert_eq!(e, want);
                    }
                    _ if model.live.len() + n <= MAX_LIVE => {
                        let mut out = vec![];
                        world.insert_batch(&descs, &mut out).expect("valid batch accepted");
                        assert_eq!(out.len(), n);
                        for (id, d) in out.into_iter().zip(descs) {
                            let d = ColliderDesc { pose: d.pose.valid_unit().unwrap(), ..d };
                            assert!(model.live.insert(id.index(), (id, d)).is_none());
                        }
                        model.dirty = true;
                    }
                    _ => {}
                }
            }
            3 => {
                let id = pick(&mut b, &model);
                if live_id(&model, id) {
                    if trace {
                        eprintln!("  remove {id:?}");
                    }
                    world.remove(id).expect("live id removed");
                    model.remove(id);
                    model.dirty = true;
                } else {
                    assert_eq!(unchanged(&mut world, |w| w.remove(id)), WorldError::StaleId);
                }
            }
            4 | 5 => {
                let id = pick(&mut b, &model);
                let pose = b.pose();
                let want = expected_insert(&ColliderDesc::new(Shape::circle(1.0).unwrap(), pose));
                match (live_id(&model, id), want) {
                    (true, Ok(())) => {
                        if trace {
                            eprintln!("  set_pose {id:?} {pose:?}");
                        }
                        world.set_pose(id, pose).unwrap();
                        model.live.get_mut(&id.index()).unwrap().1.pose = pose.valid_unit().unwrap();
                        model.dirty = true;
                    }
                    (true, Err(want)) => assert_eq!(unchanged(&mut world, |w| w.set_pose(id, pose)), want),
                    (false, _) => assert_eq!(unchanged(&mut world, |w| w.set_pose(id, pose)), WorldError::StaleId),
                }
            }
            6 => {
                let id = pick(&mut b, &model);
                let shape = b.shape();
                match (live_id(&model, id), shape.validate()) {
                    (true, Ok(())) => {
                        if trace {
                            eprintln!("  set_shape {id:?} {shape:?}");
                        }
                        world.set_shape(id, shape.clone()).unwrap();
                        model.live.get_mut(&id.index()).unwrap().1.shape = shape;
                        model.dirty = true;
                    }
                    (true, Err(e)) => {
                        assert_eq!(unchanged(&mut world, |w| w.set_shape(id, shape)), WorldError::InvalidShape(e));
                    }
                    (false, _) => assert_eq!(unchanged(&mut world, |w| w.set_shape(id, shape)), WorldError::StaleId),
                }
            }
            7 => {
                let id = pick(&mut b, &model);
                let u = u64::from(b.u32());
                if live_id(&model, id) {
                    world.set_user_data(id, u).unwrap();
                    model.live.get_mut(&id.index()).unwrap().1.user_data = u;
                } else {
                    assert_eq!(unchanged(&mut world, |w| w.set_user_data(id, u)), WorldError::StaleId);
                }
            }
            8 | 9 => {
                world.step();
                model.check_step(&world);
                check_whole_query(&world, &model);
            }
            10 | 11 => query(&mut b, &world, &model),
            12 => {
                let id = pick(&mut b, &model);
                check_reads(&world, &model, id);
            }
            13 => {
                let bytes = world.to_bytes();
                let restored = World::from_bytes(&bytes).expect("a world's own snapshot decodes");
                assert_eq!(restored.to_bytes(), bytes, "snapshot round trip is not exact");
                assert_eq!(restored.state_hash(), world.state_hash(), "a round trip changed the state hash");
                if b.u8().is_multiple_of(2) {
                    world = restored;
                }
            }
            14 => {
                // Mostly small offsets, so that far worlds come back into range; any float too.
                let offset = if b.u8().is_multiple_of(2) { b.vec2() } else { b.vec2() * 1.0e5 };
                match expected_shift(&model, offset) {
                    Ok(()) => {
                        if trace {
                            eprintln!("  shift_origin {offset:?}");
                        }
                        let before = world.contacts().len();
                        world.shift_origin(offset).expect("a shift in range is accepted");
                        assert_eq!(world.contacts().len(), before, "a shift changed the contacts");
                        if let Err(e) = world.validate() {
                            panic!("invariant broken by shift_origin({offset:?}): {e}");
                        }
                        // A zero offset, -0.0 included, changes nothing: not even a -0.0
                        // coordinate to +0.0 (which a coincident pair's normal can tell).
                        if offset != Vec2::ZERO {
                            for (_, d) in model.live.values_mut() {
                                d.pose.p -= offset;
                            }
                        }
                        model.dirty = true;
                    }
                    Err(want) => assert_eq!(unchanged(&mut world, |w| w.shift_origin(offset)), want),
                }
            }
            _ => {
                // A pure read: the same value twice, and a copy of the world agrees.
                let h = world.state_hash();
                assert_eq!(world.state_hash(), h);
                let copy = World::from_bytes(&world.to_bytes()).expect("a world's own snapshot decodes");
                assert_eq!(copy.state_hash(), h, "a restored world hashes differently");
            }
        }
        assert_eq!(world.len(), model.live.len(), "collider count differs from the model");
    }
    world.step();
    model.check_step(&world);
    check_whole_query(&world, &model);
    world
}

/// Feeds decoded shapes and point clouds to every shape constructor; whatever they accept must
/// pass [`Shape::validate`], and scaling an accepted shape must give a valid shape or an error.
pub fn run_polygon(data: &[u8]) {
    let mut b = Bytes::new(data);
    let n = b.u8() as usize % 24;
    let pts: Vec<Vec2> = (0..n).map(|_| b.vec2()).collect();
    let radius = if b.u8().is_multiple_of(2) { 0.0 } else { b.f32() };
    let mut accepted = Vec::new();
    let via_shape = Shape::polygon(&pts, radius);
    assert_eq!(via_shape, Polygon::hull(&pts, radius).map(Shape::from), "Shape::polygon is Polygon::hull");
    if let Ok(s) = via_shape {
        accepted.push(s);
    }
    if let Ok(p) = Polygon::hull(&pts, radius) {
        assert!((3..=sapwood::MAX_POLYGON_VERTICES).contains(&p.count()));
        accepted.push(Shape::from(p));
    }
    if let Ok(p) = Polygon::regular(b.u8() as usize % 12, b.f32(), b.f32()) {
        accepted.push(Shape::from(p));
    }
    if let Ok(s) = Shape::rounded_box(b.vec2(), b.f32()) {
        accepted.push(s);
    }
    if let Ok(s) = Shape::capsule(b.vec2(), b.vec2(), b.f32()) {
        accepted.push(s);
    }
    if let Ok(s) = Shape::cuboid(b.vec2()) {
        accepted.push(s);
    }
    if let Ok(s) = Shape::circle(b.f32()) {
        accepted.push(s);
    }
    if let Ok(s) = Shape::rounded_segment(b.vec2(), b.vec2(), if b.u8().is_multiple_of(2) { 0.0 } else { b.f32() }) {
        accepted.push(s);
    }
    let flags = b.u8();
    if let Ok(s) = Shape::chain(pts.clone(), ChainOptions { closed: flags & 1 != 0, one_sided: flags & 2 != 0 }) {
        accepted.push(s);
    }
    let factor = b.f32();
    for s in accepted {
        // Every constructor applies `validate`'s limits, the size included.
        assert_eq!(s.validate(), Ok(()), "a constructor built {s:?}");
        if let Ok(t) = s.scaled(factor) {
            assert_eq!(t.validate(), Ok(()), "scaled({factor}) of {s:?} gave an invalid {t:?}");
        }
        // Exercise the kernels and queries on the accepted shape against itself.
        let pose = Pose::new(Vec2::new(0.1, 0.2), 0.3);
        let _ = collide::contact(&s, &Pose::IDENTITY, &s, &pose).unwrap();
        let _ = collide::overlaps(&s, &Pose::IDENTITY, &s, &pose).unwrap();
        let _ = query::contains_point(&s, &pose, Vec2::ZERO).unwrap();
        let _ = query::ray_cast(&s, &pose, &Ray::new(Vec2::new(-10.0, 0.0), Vec2::X), 100.0).unwrap();
    }
}

/// Decodes arbitrary bytes as a snapshot (mode 0 and 1), or builds a world from the bytes, writes
/// its snapshot and corrupts it with the rest of the bytes (modes 2 and 3), so that the decoder
/// sees both garbage and nearly valid snapshots. Modes 1 and 3 then reseal the bytes (a valid
/// checksum over them, see [`sapwood::snapshot::reseal`]), so that the structural checks
/// behind the checksum are fuzzed too; modes 0 and 2 feed the bytes as they are, which the
/// checksum refuses unless they are intact. An accepted world must step, round-trip exactly
/// and behave like its own restored copy, state hash included.
pub fn run_snapshot(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut owned;
    let bytes: &[u8] = if mode % 4 < 2 {
        if mode % 2 == 0 {
            rest
        } else {
            owned = rest.to_vec();
            let _ = sapwood::snapshot::reseal(&mut owned);
            &owned
        }
    } else {
        let split = (rest.first().copied().unwrap_or(0) as usize * 4).min(rest.len());
        let (ops, edits) = rest.split_at(split);
        let mut snap = run_world_ops(ops).to_bytes();
        // Edits: (position u16, xor byte) triples, plus an optional truncation.
        for e in edits.chunks_exact(3) {
            if snap.is_empty() {
                break;
            }
            let at = u16::from_le_bytes([e[0], e[1]]) as usize % snap.len();
            snap[at] ^= e[2];
        }
        if edits.len() % 3 == 1 {
            snap.truncate(snap.len().saturating_sub(edits[edits.len() - 1] as usize));
        }
        if mode % 2 == 1 {
            let _ = sapwood::snapshot::reseal(&mut snap);
        }
        owned = snap;
        &owned
    };
    let Ok(mut world) = World::from_bytes(bytes) else { return };
    let again = world.to_bytes();
    let mut copy = World::from_bytes(&again).expect("an accepted snapshot re-encodes to a valid one");
    assert_eq!(copy.to_bytes(), again, "round trip of an accepted snapshot is not exact");
    assert_eq!(copy.state_hash(), world.state_hash(), "a round trip changed the state hash");
    for _ in 0..3 {
        world.step();
        copy.step();
        assert_eq!(world.to_bytes(), copy.to_bytes(), "a restored world diverges from its copy");
        assert_eq!(world.state_hash(), copy.state_hash(), "a restored world hashes differently");
    }
    let r = MAX_COORDINATE + 2.0 * MAX_SHAPE_SIZE;
    let mut out = Vec::new();
    world.query_aabb(&Aabb::new(Vec2::splat(-r), Vec2::splat(r)), &QueryFilter::default(), &mut out).unwrap();
    // Colliders in no category are never reported, so this is a bound, not an equality.
    assert!(out.len() <= world.len() && out.iter().all(|&id| world.contains(id)));
    let ids: Vec<_> = world.ids().collect();
    assert_eq!(ids.len(), world.len());
    for id in ids {
        world.remove(id).expect("listed ids are live");
    }
    world.step();
    assert!(world.is_empty() && world.contacts().is_empty());
}

/// Distance, shape cast and time of impact on decoded shapes (valid, or assembled from fields
/// and bytes), poses, translations, sweeps, fractions and target distances. Any input must get
/// an answer or a typed error, never a panic; non-finite or non-unit poses, translations and
/// fractions must be refused. Where every input is valid and within
/// [`MAX_COORDINATE`](sapwood::MAX_COORDINATE): the distance is finite, `>= 0` and the same
/// both ways round and with any cache; a cast's fraction lies in `[0, max]` and the shapes are
/// within the target (plus tolerance) there; a time of impact's fraction lies in `[0, max]` and
/// a hit leaves the shapes within the tolerance. The tolerance is the queries' documented
/// `1e-4` of the smaller shape plus `2e-5` of the magnitudes involved (f32 rounding).
pub fn run_queries(data: &[u8]) {
    let mut b = Bytes::new(data);
    let shape = |b: &mut Bytes| {
        if b.u8().is_multiple_of(6) {
            // A compound of constructor-built parts (a compound cannot hold invalid parts).
            let n = 1 + b.u8() as usize % 3;
            let parts: Vec<(Pose, Shape)> = (0..n).map(|_| (b.pose(), b.shape())).collect();
            Shape::compound(parts).unwrap_or_else(|_| b.shape())
        } else {
            b.shape()
        }
    };
    let (sa, sb) = (shape(&mut b), shape(&mut b));
    let (pa, pb) = (b.pose(), b.pose());
    let (ta, tb) = (b.vec2(), b.vec2());
    let (ea, eb) = (b.pose(), b.pose());
    let max = if b.u8().is_multiple_of(2) { 1.0 } else { b.f32() };
    let target = if b.u8().is_multiple_of(2) { 0.0 } else { b.f32() };

    let d = query::distance(&sa, &pa, &sb, &pb);
    let d_rev = query::distance(&sb, &pb, &sa, &pa);
    let mut cache = query::SimplexCache::default();
    let _ = query::distance_cached(&sb, &pa, &sa, &pb, &mut cache); // another pair's cache
    let d_cached = query::distance_cached(&sa, &pa, &sb, &pb, &mut cache);
    let options = query::CastOptions { max_fraction: max, target_distance: target };
    let cast = query::cast_shapes(&sa, &pa, ta, &sb, &pb, tb, &options);
    let (wa, wb) = (query::Sweep::new(pa, ea), query::Sweep::new(pb, eb));
    let toi = query::time_of_impact(&sa, &wa, &sb, &wb, max);

    let poses_ok = [pa, pb, ea, eb].iter().all(|p| p.is_valid());
    if !poses_ok {
        if !pa.is_valid() || !pb.is_valid() {
            assert_eq!(d.err(), Some(query::QueryError::NonFinite), "invalid poses {pa:?} {pb:?}");
            assert_eq!(cast.err(), Some(query::QueryError::NonFinite), "invalid cast poses");
        }
        assert_eq!(toi.err(), Some(query::QueryError::NonFinite), "invalid sweep poses");
        return;
    }
    let amounts_ok = max.is_finite() && max >= 0.0 && target.is_finite() && target >= 0.0;
    if !ta.is_finite() || !tb.is_finite() || !amounts_ok {
        assert!(cast.is_err(), "cast accepted {ta:?} {tb:?} {options:?}");
    }
    if !(max.is_finite() && max >= 0.0) {
        assert!(toi.is_err(), "time of impact accepted max fraction {max}");
    }
    let sane = |v: Vec2| v.is_finite() && v.abs().max_element() <= MAX_COORDINATE;
    let valid = sa.validate().is_ok()
        && sb.validate().is_ok()
        && [pa.p, pb.p, ea.p, eb.p, pa.p + ta, pb.p + tb].into_iter().all(sane)
        && amounts_ok
        && max <= 10.0
        && target <= MAX_SHAPE_SIZE;
    if !valid {
        return;
    }
    let (ra, rb) = (sa.bounding_radius(), sb.bounding_radius());
    let magnitude = |ps: &[Vec2]| ps.iter().map(|p| p.abs().max_element()).sum::<f32>() + ra + rb;
    let tol = |ps: &[Vec2]| 1e-4 * ra.min(rb) + 2e-5 * magnitude(ps);

    let (d, d_rev, d_cached) = (d.unwrap(), d_rev.unwrap(), d_cached.unwrap());
    let t0 = tol(&[pa.p, pb.p]);
    assert!(d.distance.is_finite() && d.distance >= 0.0, "distance {d:?}");
    assert!((d.distance - d_rev.distance).abs() <= t0, "asymmetric: {d:?} vs {d_rev:?}");
    assert!((d.distance - d_cached.distance).abs() <= t0, "cache changed the answer: {d:?} vs {d_cached:?}");
    let dist_at = |pa: &Pose, pb: &Pose| query::distance(&sa, pa, &sb, pb).unwrap().distance;

    if let Some(h) = cast.unwrap() {
        assert!((0.0..=max).contains(&h.fraction), "cast fraction {h:?} outside [0, {max}]");
        let (ha, hb) = (Pose { p: pa.p + h.fraction * ta, q: pa.q }, Pose { p: pb.p + h.fraction * tb, q: pb.q });
        let t = tol(&[pa.p, pb.p, ta * max, tb * max]);
        assert!(
            dist_at(&ha, &hb) <= target + 2.0 * t,
            "cast hit {h:?} leaves the shapes apart by more than the target"
        );
        assert!(!h.started_in_contact || h.fraction == 0.0, "{h:?}");
    }
    let toi = toi.unwrap();
    assert!((0.0..=max).contains(&toi.fraction), "toi fraction {toi:?} outside [0, {max}]");
    if toi.state == query::ToiState::Hit {
        let t = tol(&[pa.p, pb.p, ea.p, eb.p]);
        let apart = dist_at(&wa.at(toi.fraction), &wb.at(toi.fraction));
        assert!(apart <= 2.0 * t, "toi hit {toi:?} with the shapes {apart} apart");
    }
}
