//! The test kit every broad phase's unit tests share: a model (`BTreeMap` of boxes with a naive
//! O(n²) pair set, independent of every structure, [`BruteForce`](super::BruteForce) included),
//! random churn checked against it after every mutation, and named adversarial box sets.

use std::collections::BTreeMap;

use glam::Vec2;

use crate::broad::{BroadPhase, Pair, diff_sorted_pairs, pair};
use crate::math::Aabb;

pub(crate) use crate::internal::SplitMix64;

/// The naive pair set of `items`, sorted.
pub(crate) fn brute_pairs(items: &[(u32, Aabb)]) -> Vec<Pair> {
    let mut out = Vec::new();
    for (i, (ia, a)) in items.iter().enumerate() {
        for (ib, b) in &items[i + 1..] {
            if a.overlaps(b) {
                out.push(pair(*ia, *ib));
            }
        }
    }
    out.sort_unstable();
    out
}

/// The model's pair set, sorted.
pub(crate) fn model_pairs(m: &BTreeMap<u32, Aabb>) -> Vec<Pair> {
    brute_pairs(&m.iter().map(|(&k, &b)| (k, b)).collect::<Vec<_>>())
}

/// The region most random boxes fall in, for the bounded structures' tests.
pub(crate) fn bounds() -> Aabb {
    Aabb::new(Vec2::ZERO, Vec2::splat(1000.0))
}

fn sorted_dedup_check(mut v: Vec<Pair>, what: &str) -> Vec<Pair> {
    for p in &v {
        assert!(p[0] < p[1], "{what}: pair {p:?} not canonical");
    }
    let n = v.len();
    v.sort_unstable();
    v.dedup();
    assert_eq!(n, v.len(), "{what}: duplicate pairs reported");
    v
}

/// Checks `pairs()` and a few `query_aabb` calls against the model.
pub(crate) fn check_now(bp: &mut dyn BroadPhase, m: &BTreeMap<u32, Aabb>, rng: &mut SplitMix64, ctx: &str) {
    assert_eq!(bp.len(), m.len(), "{ctx}: len");
    let mut got = Vec::new();
    bp.pairs(&mut got);
    let got = sorted_dedup_check(got, ctx);
    assert_eq!(got, model_pairs(m), "{ctx}: pairs() differ from brute force");
    let keys: Vec<Aabb> = m.values().copied().collect();
    for _ in 0..3 {
        let q = if !keys.is_empty() && rng.below(2) == 0 {
            keys[rng.below(keys.len())]
        } else {
            let c = Vec2::new(rng.range(-300.0, 1300.0), rng.range(-300.0, 1300.0));
            Aabb::from_center_half_extents(c, Vec2::new(rng.range(0.0, 200.0), rng.range(0.0, 200.0)))
        };
        let mut ids = Vec::new();
        bp.query_aabb(&q, &mut ids);
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(n, ids.len(), "{ctx}: query_aabb reported an id twice");
        let want: Vec<u32> = m.iter().filter(|(_, b)| b.overlaps(&q)).map(|(&k, _)| k).collect();
        assert_eq!(ids, want, "{ctx}: query_aabb {q:?}");
    }
    bp.validate().unwrap_or_else(|e| panic!("{ctx}: validate after queries: {e}"));
}

/// Calls `update_pairs` and checks began/ended against the diff of the model's pair sets.
pub(crate) fn check_changes(bp: &mut dyn BroadPhase, prev: &mut Vec<Pair>, m: &BTreeMap<u32, Aabb>, ctx: &str) {
    let (mut began, mut ended) = (Vec::new(), Vec::new());
    bp.update_pairs(&mut began, &mut ended);
    let began = sorted_dedup_check(began, ctx);
    let ended = sorted_dedup_check(ended, ctx);
    let cur = model_pairs(m);
    let (mut wb, mut we) = (Vec::new(), Vec::new());
    diff_sorted_pairs(prev, &cur, &mut wb, &mut we);
    assert_eq!(began, wb, "{ctx}: began");
    assert_eq!(ended, we, "{ctx}: ended");
    *prev = cur;
    bp.validate().unwrap_or_else(|e| panic!("{ctx}: validate after update_pairs: {e}"));
}

/// A random box: mostly small inside `[0, 1000]²`, some large, some outside, some degenerate.
pub(crate) fn random_box(rng: &mut SplitMix64) -> Aabb {
    let c = Vec2::new(rng.range(-150.0, 1150.0), rng.range(-150.0, 1150.0));
    let h = match rng.below(20) {
        0 => Vec2::ZERO,
        1 => Vec2::new(rng.range(100.0, 600.0), rng.range(0.0, 600.0)),
        2 => return Aabb::from_center_half_extents(c * 100.0, Vec2::splat(3.0)),
        _ => Vec2::new(rng.range(0.5, 40.0), rng.range(0.5, 40.0)),
    };
    Aabb::from_center_half_extents(c, h)
}

/// Random insert/remove/update churn (single and batch) against the model, with `validate`
/// after every mutation and began/ended checked at random intervals.
pub(crate) fn churn(make: &dyn Fn() -> Box<dyn BroadPhase>, seed: u64, steps: usize, max_ids: u32) {
    let mut rng = SplitMix64::new(seed);
    let mut bp = make();
    let name = bp.name();
    let mut m: BTreeMap<u32, Aabb> = BTreeMap::new();
    let mut prev = Vec::new();
    for step in 0..steps {
        let ctx = format!("{name} seed {seed} step {step}");
        let absent: Vec<u32> = (0..max_ids).filter(|id| !m.contains_key(id)).collect();
        let present: Vec<u32> = m.keys().copied().collect();
        match rng.below(10) {
            0..=2 if !absent.is_empty() => {
                let id = absent[rng.below(absent.len())];
                let b = random_box(&mut rng);
                bp.insert(id, b);
                m.insert(id, b);
            }
            3 if !present.is_empty() => {
                let id = present[rng.below(present.len())];
                bp.remove(id);
                m.remove(&id);
            }
            4 if !absent.is_empty() => {
                let mut items = Vec::new();
                for _ in 0..rng.below(8) + 1 {
                    let id = absent[rng.below(absent.len())];
                    if !items.iter().any(|&(i, _)| i == id) {
                        items.push((id, random_box(&mut rng)));
                    }
                }
                bp.insert_batch(&items);
                m.extend(items.iter().copied());
            }
            5 if !present.is_empty() => {
                let mut ids: Vec<u32> = (0..rng.below(6) + 1).map(|_| present[rng.below(present.len())]).collect();
                ids.sort_unstable();
                ids.dedup();
                bp.remove_batch(&ids);
                for id in ids {
                    m.remove(&id);
                }
            }
            _ if !present.is_empty() => {
                // Mostly small moves, sometimes a teleport or a resize.
                let mut items = Vec::new();
                for _ in 0..rng.below(present.len().min(20)) + 1 {
                    let id = present[rng.below(present.len())];
                    if items.iter().any(|&(i, _)| i == id) {
                        continue;
                    }
                    let old = m[&id];
                    let b = if rng.below(4) == 0 {
                        random_box(&mut rng)
                    } else {
                        let d = Vec2::new(rng.range(-15.0, 15.0), rng.range(-15.0, 15.0));
                        Aabb::new(old.min + d, old.max + d)
                    };
                    items.push((id, b));
                }
                if rng.below(2) == 0 {
                    bp.update_batch(&items);
                } else {
                    for &(id, b) in &items {
                        bp.update(id, b);
                    }
                }
                m.extend(items.iter().copied());
            }
            _ => {}
        }
        bp.validate().unwrap_or_else(|e| panic!("{ctx}: validate after mutation: {e}"));
        if rng.below(4) == 0 {
            check_now(bp.as_mut(), &m, &mut rng, &ctx);
        }
        if rng.below(3) == 0 {
            check_changes(bp.as_mut(), &mut prev, &m, &ctx);
        }
    }
    check_changes(bp.as_mut(), &mut prev, &m, &format!("{name} seed {seed} end"));
}

/// Named adversarial box sets (the index of each box is its id).
pub(crate) fn adversarial_sets() -> Vec<(&'static str, Vec<Aabb>)> {
    let mut rng = SplitMix64::new(99);
    let mut sets: Vec<(&'static str, Vec<Aabb>)> = Vec::new();
    let p = Vec2::new(500.0, 500.0);
    sets.push(("all at one point", (0..60).map(|_| Aabb::new(p, p)).collect()));
    sets.push((
        "all on one x",
        (0..80).map(|i| Aabb::new(Vec2::new(300.0, i as f32 * 7.0), Vec2::new(300.0, i as f32 * 7.0 + 7.0))).collect(),
    ));
    sets.push((
        "all on one y",
        (0..80)
            .map(|_| {
                let x = rng.range(0.0, 1000.0);
                Aabb::new(Vec2::new(x, 640.0), Vec2::new(x + rng.range(0.0, 30.0), 640.0))
            })
            .collect(),
    ));
    sets.push(("identical boxes", (0..50).map(|_| Aabb::new(Vec2::new(10.0, 20.0), Vec2::new(50.0, 60.0))).collect()));
    // A lattice of boxes whose edges exactly touch their neighbours', aligned with 40-px
    // cells and with cell boundaries falling on the shared edges.
    let mut lattice = Vec::new();
    for i in 0..12 {
        for j in 0..12 {
            let min = Vec2::new(i as f32 * 40.0, j as f32 * 40.0);
            lattice.push(Aabb::new(min, min + Vec2::splat(40.0)));
        }
    }
    sets.push(("exactly touching lattice", lattice));
    let mut huge: Vec<Aabb> = (0..60).map(|_| random_box(&mut rng)).collect();
    huge.push(Aabb::new(Vec2::splat(-1e5), Vec2::splat(1e5)));
    huge.push(Aabb::new(Vec2::new(-1e6, 499.0), Vec2::new(1e6, 501.0)));
    huge.push(Aabb::new(Vec2::new(250.0, -3e7), Vec2::new(251.0, 3e7)));
    sets.push(("huge spanning boxes", huge));
    sets.push((
        "tiny boxes",
        (0..100)
            .map(|_| {
                let c = Vec2::new(rng.range(100.0, 100.01), rng.range(100.0, 100.01));
                Aabb::from_center_half_extents(c, Vec2::splat(1e-4))
            })
            .collect(),
    ));
    sets.push((
        "far outside the bounds",
        (0..80)
            .map(|i| {
                let c = match i % 4 {
                    0 => Vec2::new(-5e4 + rng.range(0.0, 50.0), rng.range(0.0, 50.0)),
                    1 => Vec2::new(3e5 + rng.range(0.0, 50.0), 3e5 + rng.range(0.0, 50.0)),
                    2 => Vec2::new(rng.range(0.0, 1000.0), -7e4 + rng.range(0.0, 50.0)),
                    _ => Vec2::new(rng.range(-1e6, 1e6), rng.range(-1e6, 1e6)),
                };
                Aabb::from_center_half_extents(c, Vec2::splat(rng.range(1.0, 20.0)))
            })
            .collect(),
    ));
    sets.push((
        "coordinates near 1e6",
        (0..100)
            .map(|_| {
                let c = Vec2::new(1e6 + rng.range(0.0, 200.0), -1e6 + rng.range(0.0, 200.0));
                Aabb::from_center_half_extents(c, Vec2::new(rng.range(0.0, 10.0), rng.range(0.0, 10.0)))
            })
            .collect(),
    ));
    sets.push((
        "two clusters",
        (0..100)
            .map(|i| {
                let c = if i % 2 == 0 { Vec2::new(200.0, 200.0) } else { Vec2::new(800.0, 300.0) };
                Aabb::from_center_half_extents(c, Vec2::splat(15.0))
            })
            .collect(),
    ));
    sets
}

/// Each adversarial set: insert, check; shift every box by exactly one box width (touching
/// contacts change), check; remove every third, check.
pub(crate) fn adversarial(make: &dyn Fn() -> Box<dyn BroadPhase>) {
    let mut rng = SplitMix64::new(5);
    for (set_name, boxes) in adversarial_sets() {
        let mut bp = make();
        let ctx = format!("{} / {set_name}", bp.name());
        let mut m = BTreeMap::new();
        let mut prev = Vec::new();
        let items: Vec<(u32, Aabb)> = boxes.iter().enumerate().map(|(i, &b)| (i as u32 * 3, b)).collect();
        bp.insert_batch(&items);
        m.extend(items.iter().copied());
        check_now(bp.as_mut(), &m, &mut rng, &ctx);
        check_changes(bp.as_mut(), &mut prev, &m, &ctx);
        for (k, &(id, b)) in items.iter().enumerate() {
            if k % 2 == 0 {
                let w = Vec2::new(b.max.x - b.min.x, 0.0);
                let nb = Aabb::new(b.min + w, b.max + w);
                bp.update(id, nb);
                m.insert(id, nb);
                bp.validate().unwrap_or_else(|e| panic!("{ctx}: {e}"));
            }
        }
        check_changes(bp.as_mut(), &mut prev, &m, &format!("{ctx} shifted"));
        check_now(bp.as_mut(), &m, &mut rng, &format!("{ctx} shifted"));
        for &(id, _) in items.iter().step_by(3) {
            bp.remove(id);
            m.remove(&id);
            bp.validate().unwrap_or_else(|e| panic!("{ctx}: {e}"));
        }
        check_changes(bp.as_mut(), &mut prev, &m, &format!("{ctx} removed"));
        check_now(bp.as_mut(), &m, &mut rng, &format!("{ctx} removed"));
        // No change since the last call: nothing begins or ends.
        check_changes(bp.as_mut(), &mut prev, &m, &format!("{ctx} idle"));
    }
}
