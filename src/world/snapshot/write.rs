//! The snapshot writer: one function per section, each the inverse of its reader in `read`.

use super::codec::{SlotRecord, Writer};
use super::{PAIR_REFUSED, PAIR_SENSOR};
use crate::broad::BroadPhaseKind;
use crate::storage::ColliderSlot;
use crate::world::{World, WorldConfig};

pub(super) fn conf(w: &mut Writer<'_>, c: &WorldConfig) {
    match c.broad_phase {
        BroadPhaseKind::BruteForce => w.u8(0),
        BroadPhaseKind::SortSweep => w.u8(1),
        BroadPhaseKind::UniformGrid { bounds, cell_size } => {
            w.u8(2);
            w.aabb(&bounds);
            w.f32(cell_size);
        }
        BroadPhaseKind::SpatialHash { cell_size } => {
            w.u8(3);
            w.f32(cell_size);
        }
        BroadPhaseKind::Quadtree { bounds } => {
            w.u8(4);
            w.aabb(&bounds);
        }
        BroadPhaseKind::DynamicTree => w.u8(5),
        BroadPhaseKind::IncrementalSap => w.u8(6),
    }
    w.f32(c.aabb_margin);
    w.f32(c.aabb_margin_ratio);
    w.f32(c.large_extent);
    w.f32(c.aabb_motion_factor);
    w.u8(u8::from(c.weld_static_edges));
    w.u8(u8::from(c.sensors_detect_sensors)
        | u8::from(c.sensors_detect_static) << 1
        | u8::from(c.reuse_manifolds) << 2);
}

pub(super) fn slots(w: &mut Writer<'_>, world: &World) {
    let cols = &world.cols;
    w.len(cols.generation.len());
    for s in 0..cols.generation.len() {
        SlotRecord::write(w, cols, s);
    }
}

pub(super) fn lists(w: &mut Writer<'_>, world: &World) {
    // Typed indices are their u32s (`repr(transparent)`).
    w.u32s(bytemuck::cast_slice(&world.cols.free));
    w.u32s(bytemuck::cast_slice(&world.released));
    w.u32s(bytemuck::cast_slice(&world.moved));
}

pub(super) fn pairs(w: &mut Writer<'_>, world: &World) {
    w.len(world.pairs.len());
    for p in &world.pairs {
        w.u32(p.ids[0].get());
        w.u32(p.ids[1].get());
        w.u32(p.contact.get());
        w.bool(p.touching);
        w.u8(if p.sensor { PAIR_SENSOR } else { 0 } | if p.refused { PAIR_REFUSED } else { 0 });
    }
    w.u32s(bytemuck::cast_slice(&world.free_pairs));
}

pub(super) fn links(w: &mut Writer<'_>, world: &World) {
    for (s, &head) in world.cols.pair_head.iter().enumerate() {
        // The count leads the list but is known only at its end: patched in place.
        let at = w.out.len();
        w.u32(0);
        let mut n = 0u32;
        let mut p = head;
        while !p.is_null() {
            w.u32(p.get());
            n += 1;
            let pair = &world.pairs[p.index()];
            p = pair.next[World::end_of(pair, ColliderSlot::from_index(s))];
        }
        w.out[at..at + 4].copy_from_slice(&n.to_le_bytes());
    }
}

pub(super) fn contacts(w: &mut Writer<'_>, world: &World) {
    w.len(world.contacts.len());
    for (c, &p) in world.contacts.iter().zip(&world.contact_pair) {
        w.u32(p.get());
        let m = &c.manifold;
        w.vec2(m.normal);
        for pt in &m.points {
            w.vec2(pt.point);
            w.f32(pt.depth);
            w.u32(pt.id);
            w.f32(pt.normal_impulse);
            w.f32(pt.tangent_impulse);
        }
        w.u32(m.count);
    }
}

pub(super) fn events(w: &mut Writer<'_>, world: &World) {
    for list in [&world.pending_events, &world.events] {
        w.len(list.len());
        for e in list.iter() {
            w.event(e);
        }
    }
}

pub(super) fn impacts(w: &mut Writer<'_>, world: &World) {
    w.len(world.impacts.len());
    for i in &world.impacts {
        for id in [i.bullet, i.other] {
            w.u32(id.index());
            w.u32(id.generation());
        }
        w.f32(i.fraction);
        w.vec2(i.point);
        w.vec2(i.normal);
        w.pose(&i.pose);
    }
}
