//! The snapshot reader: one function per section, each checking what it reads against what the
//! sections before it restored, then the rebuild of the derived structures as the last check.
//!
//! A check that needs a section's whole content runs after the section's `finish`, so a section
//! with unread bytes reports that first.

use glam::Vec2;

use super::codec::{MIN_SLOT_BYTES, Reader, SlotRecord};
use super::{
    CONF, CONT, CONTACT_BYTES, EVENT_BYTES, EVNT, IMPACT_BYTES, IMPC, LINK, LIST, MAGIC, PAIR, PAIR_BYTES,
    PAIR_REFUSED, PAIR_SENSOR, Result, SLOT, SNAPSHOT_VERSION, SnapshotError, bad, checksum,
};
use crate::broad::{BroadPhaseKind, Pair};
use crate::collide::reuse::Witness;
use crate::collide::{Manifold, ManifoldPoint};
use crate::math::{Aabb, Pose};
use crate::storage::{ColliderSlot, flags};
use crate::world::pairs::{ContactIndex, PairEntry, PairIndex, slots_of};
use crate::world::{Contact, Impact, World, WorldConfig};

/// Magic and version.
pub(super) fn header(r: &mut Reader<'_>) -> Result<()> {
    if r.take(MAGIC.len()).map_err(|_| SnapshotError::BadMagic)? != MAGIC {
        return Err(SnapshotError::BadMagic);
    }
    let found = r.u32()?;
    if found != SNAPSHOT_VERSION {
        return Err(SnapshotError::UnsupportedVersion { found, supported: SNAPSHOT_VERSION });
    }
    Ok(())
}

/// The checksum of `snapshot` (whose header `r` has read), checked before any section is.
pub(super) fn checksum_of(r: &mut Reader<'_>, snapshot: &[u8]) -> Result<()> {
    let stored = r.u64()?;
    if stored != checksum(snapshot) {
        return Err(SnapshotError::ChecksumMismatch);
    }
    Ok(())
}

/// The config, and an empty world made with it.
pub(super) fn conf(r: &mut Reader<'_>) -> Result<World> {
    let mut s = r.section(CONF)?;
    let broad_phase = match s.u8()? {
        0 => BroadPhaseKind::BruteForce,
        1 => BroadPhaseKind::SortSweep,
        2 => BroadPhaseKind::UniformGrid { bounds: s.aabb()?, cell_size: s.f32()? },
        3 => BroadPhaseKind::SpatialHash { cell_size: s.f32()? },
        4 => BroadPhaseKind::Quadtree { bounds: s.aabb()? },
        5 => BroadPhaseKind::DynamicTree,
        6 => BroadPhaseKind::IncrementalSap,
        _ => return Err(SnapshotError::InvalidConfig),
    };
    let (aabb_margin, aabb_margin_ratio, large_extent) = (s.f32()?, s.f32()?, s.f32()?);
    let aabb_motion_factor = s.f32()?;
    let weld_static_edges = match s.u8()? {
        0 => false,
        1 => true,
        _ => return Err(SnapshotError::InvalidConfig),
    };
    let switches = s.u8()?;
    if switches > 7 {
        return Err(SnapshotError::InvalidConfig);
    }
    let config = WorldConfig {
        broad_phase,
        aabb_margin,
        aabb_margin_ratio,
        large_extent,
        aabb_motion_factor,
        weld_static_edges,
        sensors_detect_sensors: switches & 1 != 0,
        sensors_detect_static: switches & 2 != 0,
        reuse_manifolds: switches & 4 != 0,
    };
    s.finish(CONF)?;
    World::with_config(config).map_err(|_| SnapshotError::InvalidConfig)
}

/// `a` is either `Aabb::EMPTY` or an ordered box (no NaN) within `bound` of the origin.
fn box_ok(a: &Aabb, bound: f64) -> bool {
    let within = |v: Vec2| f64::from(v.x).abs() <= bound && f64::from(v.y).abs() <= bound;
    *a == Aabb::EMPTY || (a.min.x <= a.max.x && a.min.y <= a.max.y && within(a.min) && within(a.max))
}

/// Bounds on the boxes a world with `config` can hold, so that a corrupted but finite box
/// (1e38, say) never reaches a broad phase. A tight box lies within `TIGHT_BOUND`: a pose is
/// within `MAX_COORDINATE` and a shape point within `sqrt(2) * MAX_SHAPE_SIZE` of it. A fat box
/// is a tight box grown by at most `margin + ratio * size`, and on one side by the motion reach,
/// at most `size`, with `size <= 2 * TIGHT_BOUND`.
/// Computed in f64 with a factor of two to spare; an extreme config makes it infinite, which
/// then accepts whatever such a world can really hold.
const TIGHT_BOUND: f64 = 1.0e7 + 1.5e6;
fn fat_bound(config: &WorldConfig) -> f64 {
    let size = 2.0 * TIGHT_BOUND;
    2.0 * (TIGHT_BOUND + f64::from(config.aabb_margin) + f64::from(config.aabb_margin_ratio) * size + size)
}

/// The collider slots: every column of every slot, each record checked as a whole.
pub(super) fn slots(r: &mut Reader<'_>, world: &mut World) -> Result<()> {
    let fat_bound = fat_bound(&world.config);
    let mut s = r.section(SLOT)?;
    let n = s.count(MIN_SLOT_BYTES)?;
    let cols = &mut world.cols;
    SlotRecord::reserve(cols, n);
    for slot in 0..n as u32 {
        let rec = SlotRecord::read(&mut s, slot)?;
        let (f, aabb, fat) = (rec.flags, rec.aabb, rec.fat);
        if !box_ok(&aabb, 2.0 * TIGHT_BOUND) || !box_ok(&fat, fat_bound) {
            return Err(bad("a box is unordered, NaN or out of range"));
        }
        if !rec.alive {
            // `Columns::release` clears the flags.
            if f != 0 {
                return Err(bad("a dead slot has flags"));
            }
        } else {
            if f & !flags::ALL != 0 {
                return Err(bad("unknown flag bits"));
            }
            if f & flags::REFRESH != 0 && f & flags::MOVED == 0 {
                return Err(bad("a collider to refresh is not marked moved"));
            }
            if f & flags::BULLET == 0 && rec.sweep_start != Pose::IDENTITY {
                return Err(bad("a collider that is not a bullet has a sweep start"));
            }
            if fat == Aabb::EMPTY {
                // Inserted since the last step: in no structure yet, waiting in `moved`.
                if aabb != Aabb::EMPTY || f & flags::MOVED == 0 || f & flags::IN_TREE != 0 {
                    return Err(bad("a collider inserted since the last step is not marked new"));
                }
            } else {
                if aabb == Aabb::EMPTY || !fat.contains(&aabb) {
                    return Err(bad("a tight box is outside its fat box"));
                }
                // Unmoved since the last step: the tight box is exactly what the step
                // computed from this pose and shape.
                if f & flags::MOVED == 0 && aabb != rec.shape.aabb(&rec.pose) {
                    return Err(bad("a tight box disagrees with its pose and shape"));
                }
                // A static switch since the last step moves it at the next.
                if f & flags::STATIC != 0 && f & flags::IN_TREE == 0 && f & flags::REFRESH == 0 {
                    return Err(bad("a static collider is not in the tree"));
                }
            }
            cols.alive_count += 1;
            cols.bullet_count += u32::from(f & flags::BULLET != 0);
        }
        rec.push(cols);
    }
    s.finish(SLOT)
}

/// The slot free list and the world's released and moved lists.
pub(super) fn lists(r: &mut Reader<'_>, world: &mut World) -> Result<()> {
    let mut s = r.section(LIST)?;
    world.cols.free = s.u32s()?.into_iter().map(ColliderSlot::new).collect();
    world.released = s.u32s()?.into_iter().map(ColliderSlot::new).collect();
    world.moved = s.u32s()?.into_iter().map(ColliderSlot::new).collect();
    s.finish(LIST)?;
    let cols = &world.cols;
    let n = cols.generation.len();
    // Every dead slot is in exactly one of `free` (reusable) and `released` (removed since
    // the last step, reusable after it); no live slot is in either.
    let mut seen = vec![false; n];
    for &slot in cols.free.iter().chain(&world.released) {
        let i = slot.index();
        if i >= n || cols.alive[i] || std::mem::replace(&mut seen[i], true) {
            return Err(bad("free and released lists do not partition the dead slots"));
        }
    }
    if seen.iter().filter(|&&x| x).count() != n - cols.alive_count as usize {
        return Err(bad("a dead slot is in neither the free nor the released list"));
    }
    // `moved` may list dead slots (removed after moving): the step skips them.
    seen.fill(false);
    for &slot in &world.moved {
        let i = slot.index();
        if i >= n {
            return Err(bad("a moved slot is out of range"));
        }
        seen[i] = true;
    }
    if (0..n).any(|i| cols.alive[i] && cols.flags[i] & flags::MOVED != 0 && !seen[i]) {
        return Err(bad("a collider marked moved is missing from the moved list"));
    }
    Ok(())
}

/// The pair entries and their free list, unlinked. Returns the live pairs, sorted, for the
/// final check against the rebuilt broad phases.
pub(super) fn pairs(r: &mut Reader<'_>, world: &mut World) -> Result<Vec<Pair>> {
    let cols = &world.cols;
    let n = cols.generation.len();
    let mut s = r.section(PAIR)?;
    let np = s.count(PAIR_BYTES)?;
    world.pairs.reserve_exact(np);
    for _ in 0..np {
        let key = [s.u32()?, s.u32()?];
        let contact = ContactIndex::new(s.u32()?);
        let touching = s.bool()?;
        let kind = s.u8()?;
        if kind > (PAIR_SENSOR | PAIR_REFUSED) {
            return Err(bad("a pair's kind byte has unknown bits"));
        }
        let (sensor, refused) = (kind & PAIR_SENSOR != 0, kind & PAIR_REFUSED != 0);
        let ids = slots_of(key);
        let pair = PairEntry {
            ids,
            next: [PairIndex::NULL; 2],
            prev: [PairIndex::NULL; 2],
            contact,
            touching,
            sensor,
            refused,
        };
        if !pair.is_free() {
            let [a, b] = ids.map(ColliderSlot::index);
            if a >= b || b >= n {
                return Err(bad("a pair's slots are out of range or out of order"));
            }
            if !cols.is_placed(a) || !cols.is_placed(b) {
                return Err(bad("a pair names a dead or unplaced collider"));
            }
            // A collider whose flags or filter changed since the last step keeps its old pairs
            // until the step refreshes them.
            let refresh = (cols.flags[a] | cols.flags[b]) & flags::REFRESH != 0;
            if !refresh && !World::may_pair(cols, &world.config, ids[0], ids[1]) {
                return Err(bad("a pair the filters or static flags exclude"));
            }
            if !refresh && sensor != ((cols.flags[a] | cols.flags[b]) & flags::SENSOR != 0) {
                return Err(bad("a pair's sensor flag disagrees with its colliders"));
            }
            if !cols.fat[a].overlaps(&cols.fat[b]) {
                return Err(bad("a pair whose fat boxes do not overlap"));
            }
            if (sensor || !touching) != contact.is_null() {
                return Err(bad("a pair's contact index disagrees with its touching state"));
            }
            // Only a refusal since the last step leaves a refused pair touching, and it marked
            // an end moved so that the next step ends the contact.
            if refused && touching && (cols.flags[a] | cols.flags[b]) & flags::MOVED == 0 {
                return Err(bad("a refused pair touches and neither end is marked moved"));
            }
            world.refusals_pending |= refused && touching;
        }
        world.pairs.push(pair);
    }
    world.free_pairs = s.u32s()?.into_iter().map(PairIndex::new).collect();
    s.finish(PAIR)?;
    let mut free = vec![false; np];
    for &p in &world.free_pairs {
        let i = p.index();
        if i >= np || !world.pairs[i].is_free() || std::mem::replace(&mut free[i], true) {
            return Err(bad("the pair free list names a live or repeated pair entry"));
        }
    }
    if world.pairs.iter().zip(&free).any(|(p, &f)| !f && p.is_free()) {
        return Err(bad("a free pair entry is missing from the pair free list"));
    }
    let mut keys: Vec<Pair> = world.pairs.iter().filter(|p| !p.is_free()).map(PairEntry::key).collect();
    keys.sort_unstable();
    if keys.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad("two pair entries hold the same pair"));
    }
    Ok(keys)
}

/// Every collider's doubly linked pair list, rebuilt from its stored order.
pub(super) fn links(r: &mut Reader<'_>, world: &mut World) -> Result<()> {
    let mut s = r.section(LINK)?;
    // Bit k of `ends[p]`: pair p has been listed by its collider ids[k].
    let mut ends = vec![0u8; world.pairs.len()];
    for slot in (0..world.cols.generation.len()).map(ColliderSlot::from_index) {
        let len = s.count(4)?;
        let mut prev = PairIndex::NULL;
        for _ in 0..len {
            let p = PairIndex::new(s.u32()?);
            let pair = world.pairs.get_mut(p.index()).ok_or(bad("a linked pair entry is out of range"))?;
            if pair.ids[0] != slot && pair.ids[1] != slot {
                return Err(bad("a collider lists a pair it is not part of"));
            }
            let end = World::end_of(pair, slot);
            if ends[p.index()] & (1 << end) != 0 {
                return Err(bad("a collider lists a pair twice"));
            }
            ends[p.index()] |= 1 << end;
            pair.prev[end] = prev;
            if prev.is_null() {
                world.cols.pair_head[slot.index()] = p;
            } else {
                let pp = &mut world.pairs[prev.index()];
                let pend = World::end_of(pp, slot);
                pp.next[pend] = p;
            }
            prev = p;
        }
    }
    s.finish(LINK)?;
    if world.pairs.iter().zip(&ends).any(|(p, &e)| !p.is_free() && e != 3) {
        return Err(bad("a pair is missing from a collider's list"));
    }
    Ok(())
}

/// The contacts array, each contact owned by the pair entry that points back at it.
pub(super) fn contacts(r: &mut Reader<'_>, world: &mut World) -> Result<()> {
    let mut s = r.section(CONT)?;
    let nc = s.count(CONTACT_BYTES)?;
    world.contacts.reserve_exact(nc);
    world.contact_pair.reserve_exact(nc);
    world.contact_witness.resize(nc, Witness::default());
    for i in (0..nc).map(ContactIndex::from_index) {
        let p = PairIndex::new(s.u32()?);
        let normal = s.vec2()?;
        let mut points = [ManifoldPoint::default(); 2];
        for pt in &mut points {
            *pt = ManifoldPoint {
                point: s.vec2()?,
                depth: s.f32()?,
                id: s.u32()?,
                normal_impulse: s.f32()?,
                tangent_impulse: s.f32()?,
            };
        }
        let manifold = Manifold { normal, points, count: s.u32()? };
        // `Manifold::points` slices by `count`: more than two would panic there.
        if !(1..=2).contains(&manifold.count) {
            return Err(bad("a contact's point count is not 1 or 2"));
        }
        // The impulses are the solver's, stored as it gave them: any bits are a valid world.
        if !normal.is_finite() || points.iter().any(|p| !p.point.is_finite() || !p.depth.is_finite()) {
            return Err(bad("a contact's manifold is not finite"));
        }
        let pair = world.pairs.get(p.index()).ok_or(bad("a contact's pair entry is out of range"))?;
        if pair.is_free() || pair.contact != i {
            return Err(bad("a contact and its pair do not point at each other"));
        }
        let [a, b] = pair.ids;
        world.contacts.push(Contact { a: world.cols.id(a), b: world.cols.id(b), manifold });
        world.contact_pair.push(p);
    }
    s.finish(CONT)?;
    for (p, pair) in world.pairs.iter().enumerate() {
        if !pair.is_free()
            && !pair.contact.is_null()
            && world.contact_pair.get(pair.contact.index()) != Some(&PairIndex::from_index(p))
        {
            return Err(bad("a touching pair's contact is missing or owned by another pair"));
        }
    }
    Ok(())
}

/// The pending events, then last step's.
pub(super) fn events(r: &mut Reader<'_>, world: &mut World) -> Result<()> {
    let n = world.cols.generation.len();
    let mut s = r.section(EVNT)?;
    for list in [&mut world.pending_events, &mut world.events] {
        let ne = s.count(EVENT_BYTES)?;
        list.reserve_exact(ne);
        for _ in 0..ne {
            list.push(s.event(n)?);
        }
    }
    s.finish(EVNT)
}

/// Last step's impacts: ids below the slot count with a non-zero generation (like events', they
/// may name colliders removed since), a fraction in `[0, 1]` and finite points, normals and poses,
/// as a step writes them.
pub(super) fn impacts(r: &mut Reader<'_>, world: &mut World) -> Result<()> {
    let n = world.cols.generation.len();
    let mut s = r.section(IMPC)?;
    let ni = s.count(IMPACT_BYTES)?;
    world.impacts.reserve_exact(ni);
    for _ in 0..ni {
        let (bullet, other) = (s.collider_id(n)?, s.collider_id(n)?);
        let (fraction, point, normal, pose) = (s.f32()?, s.vec2()?, s.vec2()?, s.pose()?);
        let finite = point.is_finite()
            && normal.is_finite()
            && pose.p.is_finite()
            && pose.q.c.is_finite()
            && pose.q.s.is_finite();
        if !(0.0..=1.0).contains(&fraction) || !finite {
            return Err(bad("an impact is not finite or its fraction is outside [0, 1]"));
        }
        world.impacts.push(Impact { bullet, other, fraction, point, normal, pose });
    }
    s.finish(IMPC)
}

impl World {
    /// Rebuilds everything derived from the columns and pair entries: the pair table, the
    /// movers' broad phase, the movers' tree and the static tree, each by one batch insert in
    /// slot order. The movers' broad phase then reports every overlapping pair as begun; the
    /// pair entries already hold that state, so the report is only used as a check and dropped.
    ///
    /// The check: the live pair entries (`keys`, sorted) must be exactly the candidate pairs
    /// the structures find (fat boxes overlap, filters allow, not both static), as in a world
    /// that got there by stepping. A snapshot with a pair entry missing would otherwise restore
    /// into a world that silently never reports that pair.
    pub(super) fn rebuild_structures(&mut self, keys: &[Pair]) -> Result<()> {
        self.pair_table.reserve(keys.len());
        for (p, pair) in self.pairs.iter().enumerate() {
            if !pair.is_free() {
                self.pair_table.insert(pair.key(), PairIndex::from_index(p));
            }
        }
        let (mut in_tree, mut movers) = (Vec::new(), Vec::new());
        for s in 0..self.cols.generation.len() {
            // Colliders inserted since the last step (empty fat box) join at the next step.
            if self.cols.is_placed(s) {
                let list = if self.cols.flags[s] & flags::IN_TREE != 0 { &mut in_tree } else { &mut movers };
                list.push((s as u32, self.cols.fat[s]));
            }
        }
        self.tree.insert_batch(&in_tree);
        self.movers.insert_batch(&movers);
        for &(id, _) in &movers {
            self.mover_tree.touch(ColliderSlot::new(id));
        }
        let mut found = std::mem::take(&mut self.scratch.began);
        found.clear();
        if !movers.is_empty() {
            // An empty broad phase has no pairs to report.
            self.movers.update_pairs(&mut found, &mut self.scratch.ended);
            self.scratch.ended.clear();
        }
        // Pairs with a tree resident, found the way the step finds them.
        for &(id, fat) in &in_tree {
            self.query_both_trees(&fat);
            found.extend(self.scratch.query_hits.iter().filter(|&&o| o != id).map(|&o| crate::broad::pair(id, o)));
        }
        let (cols, config) = (&self.cols, &self.config);
        // A collider whose flags or filter changed since the last step keeps its old pairs until
        // the next step refreshes them: its pairs are not checked.
        let settled = |&[a, b]: &Pair| (cols.flags[a as usize] | cols.flags[b as usize]) & flags::REFRESH == 0;
        found.retain(|&key| {
            let [a, b] = slots_of(key);
            World::may_pair(cols, config, a, b)
        });
        found.retain(settled);
        found.sort_unstable();
        found.dedup();
        let same = found.iter().eq(keys.iter().filter(|k| settled(k)));
        found.clear();
        self.scratch.began = found;
        self.scratch.query_hits.clear();
        // Queries find what changed since the snapshot's last step where it is now (the moved
        // list also keeps the last step's own, no longer flagged).
        for i in 0..self.moved.len() {
            let s = self.moved[i];
            if self.cols.alive[s.index()] && self.cols.flags[s.index()] & flags::MOVED != 0 {
                self.mover_tree.change(s);
            }
        }
        if same { Ok(()) } else { Err(bad("the pair entries are not the pairs whose fat boxes overlap")) }
    }
}
