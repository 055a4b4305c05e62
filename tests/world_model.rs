//! The world against a naive model: random operation sequences, and after every step the
//! touching pairs, manifolds and events must equal a brute-force recomputation from the model's
//! own copy of every collider. Queries are checked after steps and between operations, where
//! they must see every insertion, move, reshape and removal at once.

use std::collections::{BTreeMap, BTreeSet};

use sapwood::{
    Aabb, BroadPhaseKind, ColliderDesc, ColliderId, EventKind, Filter, Pose, QueryFilter, Ray, Shape, Vec2, World,
    WorldConfig, WorldError, collide, query,
};
use sapwood_support::SplitMix64;
use sapwood_support::exact_query::{Body, ExactToi, SweepD, time_of_impact as exact_toi};

/// `next_u64() % n`: the draw these seeded tests were written with (not [`SplitMix64::below`],
/// which maps a float and so gives other sequences).
fn below_mod(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

fn random_shape(rng: &mut SplitMix64) -> Shape {
    match below_mod(rng, 10) {
        8 => {
            let a = Vec2::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5));
            let r = if below_mod(rng, 2) == 0 { 0.0 } else { rng.range(0.05, 0.3) };
            Shape::rounded_segment(a, a + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.2, 2.0), r).unwrap()
        }
        9 => {
            // A wandering polyline (terrain), open or closed, one- or two-sided.
            let n = 3 + below_mod(rng, 40);
            let mut p = Vec2::ZERO;
            let vs = (0..n)
                .map(|_| {
                    p += Vec2::from_angle(rng.range(-1.2, 1.2)) * rng.range(0.2, 0.8);
                    p
                })
                .collect();
            let options = sapwood::ChainOptions { closed: below_mod(rng, 2) == 0, one_sided: below_mod(rng, 2) == 0 };
            Shape::chain(vs, options).unwrap()
        }
        6 => {
            // A concave star, decomposed.
            let n = 5 + below_mod(rng, 10);
            let pts: Vec<Vec2> = (0..n)
                .map(|i| {
                    let r = if i % 2 == 0 { rng.range(0.8, 1.5) } else { rng.range(0.2, 0.7) };
                    r * Vec2::from_angle(i as f32 * std::f32::consts::TAU / n as f32)
                })
                .collect();
            Shape::concave_polygon(&pts, if below_mod(rng, 2) == 0 { 0.0 } else { rng.range(0.0, 0.2) }).unwrap()
        }
        7 => {
            // Convex parts at random local poses (overlapping or not).
            let parts = (0..1 + below_mod(rng, 4))
                .map(|_| {
                    let local = Pose::new(Vec2::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5)), rng.range(-3.0, 3.0));
                    let mut part = random_shape(rng);
                    while matches!(part, Shape::Compound(_) | Shape::Chain(_)) || part.bounding_radius() > 3.0 {
                        part = random_shape(rng);
                    }
                    (local, part)
                })
                .collect();
            Shape::compound(parts).unwrap()
        }
        0 => Shape::circle(rng.range(0.2, 1.0)).unwrap(),
        1 => Shape::capsule(
            Vec2::new(-rng.range(0.1, 0.8), 0.0),
            Vec2::new(rng.range(0.1, 0.8), 0.0),
            rng.range(0.1, 0.5),
        )
        .unwrap(),
        2 => Shape::cuboid(Vec2::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0))).unwrap(),
        3 => Shape::rounded_box(Vec2::new(rng.range(0.1, 0.6), rng.range(0.1, 0.6)), rng.range(0.0, 0.3)).unwrap(),
        4 => Shape::cuboid(Vec2::new(rng.range(8.0, 12.0), rng.range(0.2, 0.5))).unwrap(), // a long wall
        _ => {
            let pts: Vec<Vec2> = (0..8).map(|_| Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))).collect();
            Shape::polygon(&pts, 0.0).unwrap_or_else(|_| Shape::circle(0.5).unwrap())
        }
    }
}

/// A shape's parts as `(local pose, convex shape)`, a convex shape being its own part 0.
/// The parts a point query reports: a compound's parts, a chain's segments as bare segments.
fn parts_of(shape: &Shape) -> Vec<(Pose, Shape)> {
    match shape {
        Shape::Compound(c) => c.parts().to_vec(),
        Shape::Chain(c) => (0..c.segment_count())
            .map(|i| (Pose::IDENTITY, Shape::segment(c.segment(i).unwrap().a, c.segment(i).unwrap().b).unwrap()))
            .collect(),
        s => vec![(Pose::IDENTITY, s.clone())],
    }
}

/// The parts of `shape` at `pose` touching `probe`: per part for a compound; for a chain, the
/// segments the narrow phase reports (ghost vertices and sidedness decide, not the segment
/// alone).
fn touching_parts(shape: &Shape, pose: &Pose, probe: &Shape, probe_pose: &Pose) -> Vec<u32> {
    if let Shape::Chain(_) = shape {
        let mut out = Vec::new();
        collide::contact_parts(shape, pose, probe, probe_pose, |i, _, _| out.push(i)).unwrap();
        out.sort_unstable();
        out.dedup();
        return out;
    }
    parts_of(shape)
        .into_iter()
        .enumerate()
        .filter(|(_, (lp, part))| collide::overlaps(part, &pose.mul(lp), probe, probe_pose).unwrap())
        .map(|(i, _)| i as u32)
        .collect()
}

fn random_pose(rng: &mut SplitMix64, extent: f32) -> Pose {
    let angle = if below_mod(rng, 3) == 0 { 0.0 } else { rng.range(-std::f32::consts::PI, std::f32::consts::PI) };
    Pose::new(Vec2::new(rng.range(0.0, extent), rng.range(0.0, extent)), angle)
}

fn random_filter(rng: &mut SplitMix64) -> Filter {
    match below_mod(rng, 8) {
        0 => Filter { category: 2, mask: !2, group: 0 },
        1 => Filter { group: -1, ..Filter::default() },
        _ => Filter::default(),
    }
}

#[derive(Clone)]
struct ModelCollider {
    id: ColliderId,
    desc: ColliderDesc,
}

/// The naive model: a list of live colliders and the touching pairs at the last step, each
/// with whether it was a sensor pair then.
#[derive(Default)]
struct Model {
    live: BTreeMap<u32, ModelCollider>,
    touching: BTreeMap<(ColliderId, ColliderId), bool>,
    /// The world's `sensors_detect_sensors` and `sensors_detect_static`.
    sensors_detect_sensors: bool,
    sensors_detect_static: bool,
    pending: Vec<(ColliderId, ColliderId, EventKind)>,
    /// Each bullet's pose as of the last step (its insert pose before its first): where the
    /// next step's sweep starts.
    sweep_start: BTreeMap<u32, Pose>,
    /// Impacts checked so far (the check must have something to check).
    impacts_seen: usize,
}

impl Model {
    /// The documented pairing rule: both enabled, not both static, the sensor rules of the
    /// config, the filters.
    fn may_pair(&self, a: &ColliderDesc, b: &ColliderDesc) -> bool {
        let senses_static = |s: &ColliderDesc, o: &ColliderDesc| s.sensor && o.is_static && !o.sensor;
        a.enabled
            && b.enabled
            && !(a.is_static && b.is_static)
            && (self.sensors_detect_sensors || !(a.sensor && b.sensor))
            && (self.sensors_detect_static || !(senses_static(a, b) || senses_static(b, a)))
            && a.filter.pairs_with(&b.filter)
    }

    /// Whether the pair's events of its kind are on for both colliders.
    fn reports(a: &ColliderDesc, b: &ColliderDesc, sensor: bool) -> bool {
        if sensor { a.sensor_events && b.sensor_events } else { a.contact_events && b.contact_events }
    }

    /// Brute force: every pair, filtered, with the shared narrow phase; whether it is a sensor
    /// pair.
    fn touching_now(&self) -> BTreeMap<(ColliderId, ColliderId), bool> {
        let all: Vec<&ModelCollider> = self.live.values().collect();
        let mut out = BTreeMap::new();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if !self.may_pair(&a.desc, &b.desc) {
                    continue;
                }
                if collide::overlaps(&a.desc.shape, &a.desc.pose, &b.desc.shape, &b.desc.pose).unwrap() {
                    out.insert((a.id, b.id), a.desc.sensor || b.desc.sensor);
                }
            }
        }
        out
    }

    /// Brute force: each bullet that moved, swept from its pose at the last step against every
    /// collider it may pair with (other bullets swept too, the rest held still), by the shared
    /// time-of-impact query; the earliest hit after the start, ties to the smaller slot.
    fn impacts_now(&self) -> Vec<(ColliderId, ColliderId, f32)> {
        let sweep = |c: &ModelCollider| {
            let start = if c.desc.bullet { self.sweep_start[&c.id.index()] } else { c.desc.pose };
            query::Sweep { start, end: c.desc.pose }
        };
        let mut out = Vec::new();
        for b in self.live.values().filter(|c| c.desc.bullet) {
            let sb = sweep(b);
            if sb.start == sb.end || b.desc.sensor || !b.desc.enabled {
                continue;
            }
            let mut best: Option<(f32, ColliderId)> = None;
            for o in self.live.values() {
                if o.id == b.id || o.desc.sensor || !self.may_pair(&b.desc, &o.desc) {
                    continue;
                }
                // Conservative cull: shapes whose swept bounding discs stay apart cannot touch.
                let so = sweep(o);
                let (rb, ro) = (b.desc.shape.bounding_radius(), o.desc.shape.bounding_radius());
                let seg = |s: &query::Sweep| (s.start.p, s.end.p);
                if segment_distance(seg(&sb), seg(&so)) > rb + ro + 0.01 {
                    continue;
                }
                let toi = query::time_of_impact(&b.desc.shape, &sb, &o.desc.shape, &so, 1.0).unwrap();
                // As documented for `World::impacts`: a hit after the start, or one within the
                // tolerance at the start when the sweep closes the gap.
                let closing = (sb.end.p - sb.start.p) - (so.end.p - so.start.p);
                let (mut hit, mut fraction) = match toi.state {
                    query::ToiState::Hit if toi.fraction > 0.0 => (true, toi.fraction),
                    query::ToiState::Hit => (closing.dot(toi.normal) > 0.0, toi.fraction),
                    _ => (false, toi.fraction),
                };
                // A search that ran out of iterations decides nothing (the world resumes it): the
                // exact reference says whether the sweep comes within the query's tolerance.
                if toi.state == query::ToiState::IterationLimit {
                    let tol = 1e-4 * b.desc.shape.bounding_radius().min(o.desc.shape.bounding_radius()) as f64;
                    let (ba, bo) = (Body::new(&b.desc.shape), Body::new(&o.desc.shape));
                    let (da, dob) = (SweepD::from_poses(&sb.start, &sb.end), SweepD::from_poses(&so.start, &so.end));
                    if let ExactToi::Within { fraction: t, .. } = exact_toi(&ba, &da, &bo, &dob, 1.0, tol, 0.0, 1 << 20)
                    {
                        (hit, fraction) = (t > 0.0, t as f32);
                    }
                }
                if hit && best.is_none_or(|(t, _)| fraction < t) {
                    best = Some((fraction, o.id));
                }
            }
            if let Some((t, o)) = best {
                out.push((b.id, o, t));
            }
        }
        out
    }

    fn remove(&mut self, id: ColliderId) {
        let removed = self.live.remove(&id.index()).expect("model removes live colliders only");
        let gone: Vec<_> = self.touching.keys().copied().filter(|&(a, b)| a == id || b == id).collect();
        for (a, b) in gone {
            let sensor = self.touching.remove(&(a, b)).unwrap();
            let other = if a == id { b } else { a };
            if Self::reports(&removed.desc, &self.live[&other.index()].desc, sensor) {
                self.pending.push((a, b, if sensor { EventKind::SensorExited } else { EventKind::ContactEnded }));
            }
        }
    }
}

fn check_step(world: &World, model: &mut Model, step: usize) {
    let now = model.touching_now();
    // Contacts: exactly the non-sensor touching pairs, each with the manifold brute force gives.
    let mut got = BTreeSet::new();
    for c in world.contacts() {
        let (a, b) = (c.a, c.b);
        assert!(a.index() < b.index(), "contact ids out of order");
        let (ca, cb) = (&model.live[&a.index()], &model.live[&b.index()]);
        assert_eq!((ca.id, cb.id), (a, b), "contact names a stale id");
        let m = collide::contact(&ca.desc.shape, &ca.desc.pose, &cb.desc.shape, &cb.desc.pose).unwrap();
        assert_eq!(c.manifold, m, "step {step}: manifold of {a:?}-{b:?} differs from a fresh computation");
        // The merged manifold is the deepest of the per-part ones, which the world reports too.
        let mut deepest = f32::NEG_INFINITY;
        let mut seen = false;
        world
            .part_contacts(a, b, |_, _, pm| {
                deepest = deepest.max(pm.max_depth().unwrap());
                seen |= *pm == m;
            })
            .unwrap();
        assert!(seen && deepest == m.max_depth().unwrap(), "step {step}: merged manifold is not the deepest part's");
        assert!(got.insert((a, b)), "duplicate contact");
    }
    let expected: BTreeSet<_> = now.iter().filter(|e| !e.1).map(|e| *e.0).collect();
    assert_eq!(got, expected, "step {step}: contact set differs from brute force");

    // Events: removals since the last step, then begin/end by diffing the touching sets (a
    // pair whose kind changed ends under the old kind and begins under the new), each only
    // when both colliders' switches for its kind are on.
    let mut want = std::mem::take(&mut model.pending);
    let reports = |a: ColliderId, b: ColliderId, sensor: bool| {
        Model::reports(&model.live[&a.index()].desc, &model.live[&b.index()].desc, sensor)
    };
    for (&(a, b), &sensor) in &now {
        if model.touching.get(&(a, b)) != Some(&sensor) && reports(a, b, sensor) {
            want.push((a, b, if sensor { EventKind::SensorEntered } else { EventKind::ContactBegan }));
        }
    }
    for (&(a, b), &sensor) in &model.touching {
        if now.get(&(a, b)) != Some(&sensor) && reports(a, b, sensor) {
            want.push((a, b, if sensor { EventKind::SensorExited } else { EventKind::ContactEnded }));
        }
    }
    want.sort();
    let got: Vec<_> = world.events().iter().map(|e| (e.a, e.b, e.kind)).collect();
    assert_eq!(got, want, "step {step}: events differ");
    model.touching = now;
}

/// The smallest distance between points moving linearly along two segments at the same
/// time: `|p(t) - q(t)|` minimised over `t` in `[0, 1]` (the relative motion is linear).
fn segment_distance(p: (Vec2, Vec2), q: (Vec2, Vec2)) -> f32 {
    let (d0, d1) = (q.0 - p.0, q.1 - p.1);
    let v = d1 - d0;
    let t = if v.length_squared() > 0.0 { (-d0.dot(v) / v.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (d0 + t * v).length()
}

/// The bullets' impacts against [`Model::impacts_now`]: the same bullets, the same first
/// collider hit (or one hit within the tolerance of the same time), the same time within the
/// tolerance: the world clips each bullet's queries at its earliest hit so far, which may end
/// an iteration a rounding error apart from an unclipped query.
fn check_impacts(world: &World, model: &mut Model, step: usize) {
    let want = model.impacts_now();
    let got = world.impacts();
    model.impacts_seen += got.len();
    assert_eq!(got.len(), want.len(), "step {step}: impacts {got:?} vs brute force {want:?}");
    for (g, &(bullet, other, t)) in got.iter().zip(&want) {
        assert_eq!(g.bullet, bullet, "step {step}: impact order");
        // Both answers stop within the query's distance tolerance of contact (`query::advance`:
        // 1e-4 of the smaller extent plus 8 ulps of the coordinates), the world's with its
        // queries clipped at the earliest hit so far: along a sweep of length `len` two such
        // stops can be this far apart in fraction.
        let (b, o) = (&model.live[&bullet.index()], &model.live[&other.index()]);
        let len = (b.desc.pose.p - model.sweep_start[&bullet.index()].p).length();
        let (rb, ro) = (b.desc.shape.bounding_radius(), o.desc.shape.bounding_radius());
        let mag = b.desc.pose.p.abs().max_element().max(o.desc.pose.p.abs().max_element());
        let tol_d = 2.0 * (1e-4 * rb.min(ro) + 8.0 * f32::EPSILON * (mag + rb + ro + len));
        let allowed = 1e-4 + tol_d / len.max(1e-6);
        assert!((g.fraction - t).abs() <= allowed, "step {step}: fraction {} vs {t} (allowed {allowed})", g.fraction);
        if g.other != other {
            // Another collider hit at the same time within the tolerance.
            let c = &model.live[&g.other.index()];
            let sb =
                query::Sweep { start: model.sweep_start[&bullet.index()], end: model.live[&bullet.index()].desc.pose };
            let start = if c.desc.bullet { model.sweep_start[&c.id.index()] } else { c.desc.pose };
            let so = query::Sweep { start, end: c.desc.pose };
            let toi =
                query::time_of_impact(&model.live[&bullet.index()].desc.shape, &sb, &c.desc.shape, &so, 1.0).unwrap();
            assert!(
                (toi.fraction - t).abs() <= 1e-4,
                "step {step}: impact with {:?} at {} vs {other:?} at {t}",
                c.id,
                toi.fraction
            );
        }
        let at = g.pose;
        assert!(at.is_valid() && g.normal.is_finite() && (g.normal.length() - 1.0).abs() < 1e-3, "step {step}: {g:?}");
    }
    // The next sweep starts where the bullets are now.
    for c in model.live.values().filter(|c| c.desc.bullet) {
        model.sweep_start.insert(c.id.index(), c.desc.pose);
    }
}

/// Every scene query against a linear scan over the model.
fn check_queries(world: &World, model: &Model, rng: &mut SplitMix64, extent: f32) {
    let filters = [
        QueryFilter::default(),
        QueryFilter { mask: 2, ..QueryFilter::default() },
        QueryFilter { include_sensors: false, ..QueryFilter::default() },
        QueryFilter { exclude: model.live.values().next().map(|c| c.id), ..QueryFilter::default() },
    ];
    for _ in 0..4 {
        let filter = filters[below_mod(rng, filters.len())];
        let pass = |c: &ModelCollider| {
            c.desc.enabled
                && c.desc.filter.category & filter.mask != 0
                && (filter.include_sensors || !c.desc.sensor)
                && filter.exclude != Some(c.id)
        };
        let mut got = Vec::new();

        let lo = Vec2::new(rng.range(-2.0, extent), rng.range(-2.0, extent));
        let bx = Aabb::new(lo, lo + Vec2::new(rng.range(0.0, 6.0), rng.range(0.0, 6.0)));
        world.query_aabb(&bx, &filter, &mut got).unwrap();
        let want: Vec<_> = model
            .live
            .values()
            .filter(|c| pass(c) && c.desc.shape.aabb(&c.desc.pose).overlaps(&bx))
            .map(|c| c.id)
            .collect();
        assert_eq!(got, want, "query_aabb {bx:?}");

        got.clear();
        let p = Vec2::new(rng.range(0.0, extent), rng.range(0.0, extent));
        world.query_point(p, &filter, &mut got).unwrap();
        let want: Vec<_> = model
            .live
            .values()
            .filter(|c| pass(c) && query::contains_point(&c.desc.shape, &c.desc.pose, p).unwrap())
            .map(|c| c.id)
            .collect();
        assert_eq!(got, want, "query_point {p:?}");
        let mut got_parts = Vec::new();
        world.query_point_parts(p, &filter, &mut got_parts).unwrap();
        let want_parts: Vec<(ColliderId, u32)> = model
            .live
            .values()
            .filter(|c| pass(c))
            .flat_map(|c| {
                parts_of(&c.desc.shape)
                    .into_iter()
                    .enumerate()
                    .filter(|(_, (lp, part))| query::contains_point(part, &c.desc.pose.mul(lp), p).unwrap())
                    .map(|(i, _)| (c.id, i as u32))
            })
            .collect();
        assert_eq!(got_parts, want_parts, "query_point_parts {p:?}");

        got.clear();
        let probe = random_shape(rng);
        let probe_pose = random_pose(rng, extent);
        world.query_shape(&probe, &probe_pose, &filter, &mut got).unwrap();
        let want: Vec<_> = model
            .live
            .values()
            .filter(|c| pass(c) && collide::overlaps(&c.desc.shape, &c.desc.pose, &probe, &probe_pose).unwrap())
            .map(|c| c.id)
            .collect();
        assert_eq!(got, want, "query_shape");
        let mut got_parts = Vec::new();
        world.query_shape_parts(&probe, &probe_pose, &filter, &mut got_parts).unwrap();
        let want_parts: Vec<(ColliderId, u32)> = model
            .live
            .values()
            .filter(|c| pass(c))
            .flat_map(|c| {
                touching_parts(&c.desc.shape, &c.desc.pose, &probe, &probe_pose).into_iter().map(|i| (c.id, i))
            })
            .collect();
        assert_eq!(got_parts, want_parts, "query_shape_parts");
        // A collider is reported by query_shape exactly when one of its parts is.
        let mut ids: Vec<ColliderId> = got_parts.iter().map(|x| x.0).collect();
        ids.dedup();
        assert_eq!(ids, got, "query_shape vs its parts");

        let origin = Vec2::new(rng.range(-5.0, extent + 5.0), rng.range(-5.0, extent + 5.0));
        let dir = Vec2::from_angle(rng.range(0.0, std::f32::consts::TAU));
        let ray = Ray::new(origin, dir);
        let max_t = rng.range(1.0, 40.0);
        let mut want: Vec<(f32, ColliderId, u32)> = model
            .live
            .values()
            .filter(|c| pass(c))
            .filter_map(|c| {
                query::ray_cast_part(&c.desc.shape, &c.desc.pose, &ray, max_t)
                    .unwrap()
                    .map(|(part, h)| (h.t, c.id, part))
            })
            .collect();
        want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut all = Vec::new();
        world.ray_cast_all(&ray, max_t, &filter, &mut all).unwrap();
        assert_eq!(all.iter().map(|h| (h.t, h.id, h.part)).collect::<Vec<_>>(), want, "ray_cast_all");
        let closest = world.ray_cast(&ray, max_t, &filter).unwrap().map(|h| (h.t, h.id, h.part));
        assert_eq!(closest, want.first().copied(), "ray_cast");

        // Shape casts and nearest distances, against the exact pair queries over every collider
        // (drawn from their own generator: the seeded operations stay those of the seed).
        let mut rng = SplitMix64::new(u64::from(origin.x.to_bits()) << 32 | u64::from(max_t.to_bits()));
        let probe = Shape::circle(rng.range(0.1, 0.6)).unwrap();
        let start = Pose::from_translation(origin);
        let translation = dir * max_t;
        let options = sapwood::query::CastOptions::default();
        let mut want: Vec<(f32, ColliderId)> = model
            .live
            .values()
            .filter(|c| pass(c))
            .filter_map(|c| {
                query::cast_shapes(&probe, &start, translation, &c.desc.shape, &c.desc.pose, Vec2::ZERO, &options)
                    .unwrap()
                    .map(|h| (h.fraction, c.id))
            })
            .collect();
        want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut casts = Vec::new();
        world.cast_shape_all(&probe, &start, translation, &options, &filter, &mut casts).unwrap();
        assert_eq!(casts.iter().map(|h| (h.fraction, h.id)).collect::<Vec<_>>(), want, "cast_shape_all");
        let first = world.cast_shape(&probe, &start, translation, &options, &filter).unwrap();
        assert_eq!(first.map(|h| (h.fraction, h.id)), want.first().copied(), "cast_shape");

        let max_distance = rng.range(0.5, 8.0);
        let nearest = model
            .live
            .values()
            .filter(|c| pass(c))
            .map(|c| (query::distance(&probe, &start, &c.desc.shape, &c.desc.pose).unwrap().distance, c.id))
            .filter(|&(d, _)| d <= max_distance)
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let got = world.distance_to_nearest(&probe, &start, max_distance, &filter).unwrap();
        assert_eq!(got.map(|h| (h.distance, h.id)), nearest, "distance_to_nearest");

        // The nearest surface to a point on the ray, a collider holding it first (negative
        // distance), against the pair query over every collider.
        let point = origin + dir * rng.range(0.0, max_t);
        let max_distance = if rng.next_f32() < 0.25 { f32::INFINITY } else { rng.range(0.0, 4.0) };
        let nearest = model
            .live
            .values()
            .filter(|c| pass(c))
            .map(|c| {
                let p = query::project_point(&c.desc.shape, &c.desc.pose, point).unwrap();
                (p.distance, c.id, p.part, p.point)
            })
            .filter(|&(d, ..)| d <= max_distance)
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let got = world.project_point(point, max_distance, &filter).unwrap();
        assert_eq!(got.map(|h| (h.distance, h.id, h.part, h.point)), nearest, "project_point {point:?}");
    }
}

fn run(seed: u64, steps: usize, config: WorldConfig) {
    run_with(seed, steps, config, false, 0);
}

/// `drift_all`: after the random operations, nudge every live collider, as a scene where
/// everything moves does (the step then takes its pair-slot scan and in-place contact path).
/// `crowd`: colliders that are not static inserted first and moved only by the random
/// operations, as in a large world where a few of many move (the step then walks the moved
/// colliders' pair lists).
fn run_with(seed: u64, steps: usize, config: WorldConfig, drift_all: bool, crowd: usize) {
    let mut rng = SplitMix64::new(seed);
    // The queries between operations draw from their own generator, so that the operations
    // stay those of the seed.
    let mut between = SplitMix64::new(seed ^ 0x5eed);
    // The model is brute force over `collide::contact`, which knows nothing of welded statics.
    let mut world = World::with_config(WorldConfig { weld_static_edges: false, ..config }).unwrap();
    let mut model = Model {
        sensors_detect_sensors: config.sensors_detect_sensors,
        sensors_detect_static: config.sensors_detect_static,
        ..Model::default()
    };
    let extent = 30.0;
    for _ in 0..crowd {
        let mut desc = ColliderDesc::new(random_shape(&mut rng), random_pose(&mut rng, extent));
        desc.bullet = below_mod(&mut rng, 4) == 0;
        let id = world.insert(desc.clone()).unwrap();
        if desc.bullet {
            model.sweep_start.insert(id.index(), desc.pose);
        }
        model.live.insert(id.index(), ModelCollider { id, desc });
    }
    for step in 0..steps {
        let ops = below_mod(&mut rng, 12);
        for op in 0..ops {
            // Queries see every change at once, without a step (the last one's boxes are stale
            // for what moved since).
            if op > 0 && below_mod(&mut between, 3) == 0 {
                check_queries(&world, &model, &mut between, extent);
                for c in model.live.values() {
                    assert_eq!(world.aabb(c.id).unwrap(), c.desc.shape.aabb(&c.desc.pose));
                }
            }
            let live: Vec<ColliderId> = model.live.values().map(|c| c.id).collect();
            match below_mod(&mut rng, 12) {
                0..=2 => {
                    // One in four inserts is a batch, whose ids come back in Z-order slots: the
                    // per-id checks after the step prove each id got its own description.
                    let count = if below_mod(&mut rng, 4) == 0 { 2 + below_mod(&mut rng, 6) } else { 1 };
                    let descs: Vec<ColliderDesc> = (0..count)
                        .map(|_| {
                            let mut desc = ColliderDesc::new(random_shape(&mut rng), random_pose(&mut rng, extent));
                            desc.is_static = below_mod(&mut rng, 5) == 0;
                            desc.sensor = below_mod(&mut rng, 10) == 0;
                            desc.bullet = below_mod(&mut rng, 4) == 0;
                            desc.filter = random_filter(&mut rng);
                            desc.user_data = rng.next_u64();
                            desc.enabled = below_mod(&mut rng, 8) != 0;
                            desc.contact_events = below_mod(&mut rng, 8) != 0;
                            desc.sensor_events = below_mod(&mut rng, 8) != 0;
                            desc
                        })
                        .collect();
                    let ids = if count == 1 {
                        vec![world.insert(descs[0].clone()).unwrap()]
                    } else {
                        let mut out = vec![];
                        world.insert_batch(&descs, &mut out).unwrap();
                        out
                    };
                    assert_eq!(ids.len(), count);
                    for (id, desc) in ids.into_iter().zip(descs) {
                        if desc.bullet {
                            model.sweep_start.insert(id.index(), desc.pose);
                        }
                        assert!(model.live.insert(id.index(), ModelCollider { id, desc }).is_none());
                    }
                }
                3 if !live.is_empty() => {
                    let id = live[below_mod(&mut rng, live.len())];
                    world.remove(id).unwrap();
                    model.remove(id);
                    assert_eq!(world.remove(id), Err(WorldError::StaleId), "double removal");
                    assert_eq!(world.pose(id), Err(WorldError::StaleId));
                    assert_eq!(world.set_enabled(id, true), Err(WorldError::StaleId));
                    assert_eq!(world.set_filter(id, Filter::default()), Err(WorldError::StaleId));
                    assert_eq!(world.is_static(id), Err(WorldError::StaleId));
                }
                4..=7 if !live.is_empty() => {
                    let id = live[below_mod(&mut rng, live.len())];
                    let c = model.live.get_mut(&id.index()).unwrap();
                    let pose = if below_mod(&mut rng, 4) == 0 {
                        random_pose(&mut rng, extent)
                    } else {
                        let d = Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
                        Pose::new(c.desc.pose.p + d, c.desc.pose.q.angle() + rng.range(-0.1, 0.1))
                    };
                    if below_mod(&mut rng, 5) == 0 {
                        // A teleport is not swept: a bullet's next sweep starts here.
                        world.teleport(id, pose).unwrap();
                        if c.desc.bullet {
                            model.sweep_start.insert(id.index(), pose);
                        }
                    } else {
                        world.set_pose(id, pose).unwrap();
                    }
                    c.desc.pose = pose;
                }
                8 if !live.is_empty() => {
                    let id = live[below_mod(&mut rng, live.len())];
                    let shape = random_shape(&mut rng);
                    world.set_shape(id, shape.clone()).unwrap();
                    model.live.get_mut(&id.index()).unwrap().desc.shape = shape;
                }
                10 | 11 if !live.is_empty() => {
                    // Live state: each setter, the model told the same.
                    let id = live[below_mod(&mut rng, live.len())];
                    let c = model.live.get_mut(&id.index()).unwrap();
                    let d = &mut c.desc;
                    match below_mod(&mut rng, 8) {
                        0 => {
                            d.filter = random_filter(&mut rng);
                            world.set_filter(id, d.filter).unwrap();
                        }
                        1 => {
                            d.sensor = !d.sensor;
                            world.set_sensor(id, d.sensor).unwrap();
                        }
                        2 => {
                            d.is_static = !d.is_static;
                            world.set_static(id, d.is_static).unwrap();
                        }
                        3 => {
                            d.bullet = !d.bullet;
                            world.set_bullet(id, d.bullet).unwrap();
                            if d.bullet {
                                model.sweep_start.insert(id.index(), d.pose);
                            } else {
                                model.sweep_start.remove(&id.index());
                            }
                        }
                        4 => {
                            d.contact_events = !d.contact_events;
                            world.set_contact_events(id, d.contact_events).unwrap();
                        }
                        5 => {
                            d.sensor_events = !d.sensor_events;
                            world.set_sensor_events(id, d.sensor_events).unwrap();
                        }
                        6 => {
                            d.enabled = !d.enabled;
                            world.set_enabled(id, d.enabled).unwrap();
                        }
                        _ => {
                            // All at once, each switch at random.
                            let was_bullet = d.bullet;
                            let mut flip = || below_mod(&mut rng, 2) == 1;
                            let options = sapwood::ColliderOptions {
                                is_static: flip(),
                                sensor: flip(),
                                bullet: flip(),
                                enabled: flip(),
                                contact_events: flip(),
                                sensor_events: flip(),
                                filter: if flip() { random_filter(&mut rng) } else { d.filter },
                            };
                            world.set_options(id, options).unwrap();
                            *d = d.clone().with_options(options);
                            if d.bullet && !was_bullet {
                                model.sweep_start.insert(id.index(), d.pose);
                            } else if !d.bullet {
                                model.sweep_start.remove(&id.index());
                            }
                        }
                    }
                    let d = &model.live[&id.index()].desc;
                    assert_eq!(world.options(id).unwrap(), d.options());
                    assert_eq!(world.filter(id).unwrap(), d.filter);
                    assert_eq!(world.is_sensor(id).unwrap(), d.sensor);
                    assert_eq!(world.is_static(id).unwrap(), d.is_static);
                    assert_eq!(world.is_bullet(id).unwrap(), d.bullet);
                    assert_eq!(world.is_enabled(id).unwrap(), d.enabled);
                    assert_eq!(world.contact_events(id).unwrap(), d.contact_events);
                    assert_eq!(world.sensor_events(id).unwrap(), d.sensor_events);
                    world.validate().unwrap_or_else(|e| panic!("step {step}, after a setter: {e}"));
                }
                _ if !live.is_empty() => {
                    // Bad input is refused and changes nothing.
                    let id = live[below_mod(&mut rng, live.len())];
                    let before = world.pose(id).unwrap();
                    let bad = [
                        Pose::from_translation(Vec2::new(f32::NAN, 0.0)),
                        Pose::from_translation(Vec2::new(f32::INFINITY, 0.0)),
                        Pose::from_translation(Vec2::new(1e30, 0.0)),
                        Pose { p: Vec2::ZERO, q: sapwood::Rot { c: 2.0, s: 0.0 } },
                    ];
                    for pose in bad {
                        assert!(world.set_pose(id, pose).is_err());
                        assert!(world.teleport(id, pose).is_err());
                    }
                    let bad_shape = Shape::Circle(sapwood::Circle { radius: f32::NAN });
                    assert!(world.set_shape(id, bad_shape.clone()).is_err());
                    assert!(world.insert(ColliderDesc::new(bad_shape, Pose::IDENTITY)).is_err());
                    assert_eq!(world.pose(id).unwrap(), before);
                }
                _ => {}
            }
        }
        if drift_all {
            let mut live: Vec<ColliderId> = model.live.values().map(|c| c.id).collect();
            live.sort_unstable();
            for id in live {
                let c = model.live.get_mut(&id.index()).unwrap();
                let d = Vec2::new(rng.range(-0.15, 0.15), rng.range(-0.15, 0.15));
                let pose = Pose::new(c.desc.pose.p + d, c.desc.pose.q.angle() + rng.range(-0.05, 0.05));
                world.set_pose(id, pose).unwrap();
                c.desc.pose = pose;
            }
        }
        world.step();
        world.validate().unwrap_or_else(|e| panic!("step {step}: {e}"));
        check_step(&world, &mut model, step);
        check_impacts(&world, &mut model, step);
        check_queries(&world, &model, &mut rng, extent);
        assert_eq!(world.len(), model.live.len());
        for c in model.live.values() {
            assert_eq!(world.user_data(c.id).unwrap(), c.desc.user_data);
            assert_eq!(world.aabb(c.id).unwrap(), c.desc.shape.aabb(&c.desc.pose));
        }
    }
    assert!(
        model.impacts_seen >= steps / 20,
        "seed {seed}: {} impacts in {steps} steps: too few to mean anything",
        model.impacts_seen
    );
}

#[test]
fn world_matches_naive_model_with_default_broad_phase() {
    for seed in 0..6 {
        run(seed, 300, WorldConfig::default());
    }
}

#[test]
fn world_matches_naive_model_with_every_broad_phase() {
    let kinds = BroadPhaseKind::all(Aabb::new(Vec2::ZERO, Vec2::splat(30.0)), 2.0);
    for (i, kind) in kinds.into_iter().enumerate() {
        let config = WorldConfig { broad_phase: kind, large_extent: 5.0, ..WorldConfig::default() };
        run(100 + i as u64, 200, config);
    }
}

#[test]
fn world_matches_naive_model_when_everything_moves() {
    for seed in 0..3 {
        run_with(200 + seed, 200, WorldConfig::default(), true, 0);
    }
    let hash =
        WorldConfig { broad_phase: sapwood::BroadPhaseKind::SpatialHash { cell_size: 2.0 }, ..WorldConfig::default() };
    run_with(210, 200, hash, true, 0);
}

/// A few colliders move among many that stay (a crowd of 300 that the random operations rarely
/// reach): the narrow phase walks the moved colliders' pair lists instead of scanning every
/// pair, and must come out the same.
#[test]
fn world_matches_naive_model_when_few_of_many_move() {
    for seed in 0..2 {
        run_with(220 + seed, 200, WorldConfig::default(), false, 300);
    }
}

#[test]
fn world_matches_naive_model_with_other_sensor_rules() {
    let config = WorldConfig { sensors_detect_sensors: true, sensors_detect_static: false, ..WorldConfig::default() };
    run(300, 200, config);
    let kinds = BroadPhaseKind::all(Aabb::new(Vec2::ZERO, Vec2::splat(30.0)), 2.0);
    run(301, 150, WorldConfig { broad_phase: kinds[3], ..config });
}

#[test]
fn zero_margin_and_tiny_large_extent_still_exact() {
    run(7, 200, WorldConfig { aabb_margin_ratio: 0.0, large_extent: 0.5, ..WorldConfig::default() });
}
