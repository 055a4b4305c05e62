//! Collider ids and the struct-of-arrays columns behind them.
//!
//! ```text
//!  slot:        0      1      2      3   ...
//!  generation: [1]    [3]    [2]    [1]        bumped on every removal; a ColliderId matches
//!  alive:      [y]    [n]    [y]    [y]        only while its generation equals the slot's
//!  pose:       [..]   [..]   [..]   [..]       one column per attribute, all indexed by slot
//!  shape:      [..]   [..]   [..]   [..]
//!  free list:  1 -> (end)                      dead slots, reused LIFO under a new generation
//! ```

use bytemuck::{Pod, Zeroable};

use crate::index::{NULL_INDEX, typed_index};
use crate::math::{Aabb, Pose};
use crate::shape::Shape;

typed_index!(
    /// A collider's slot: its row in the [`Columns`], the [`ColliderId::index`] of its ids. The
    /// broad phases know the collider by the raw value ([`ColliderSlot::get`]).
    ColliderSlot
);

/// A handle to a collider: a slot index and a generation, 8 bytes of plain data. Every record
/// the world hands out (contacts, impacts, events, hits) names colliders by the `ColliderId`
/// that [`World::insert`](crate::World::insert) returned, so `contact.a == ball` is the test.
///
/// A handle to a removed collider is *stale*: every call taking it returns
/// [`WorldError::StaleId`](crate::WorldError::StaleId), even after its slot is reused, because
/// the slot then carries a new generation. The world never issues generation 0, so
/// [`ColliderId::default`] (all zero bits) names no collider.
///
/// `Pod`, so records holding ids export without a copy (`bytemuck::cast_slice`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderId {
    index: u32,
    generation: u32,
}

impl ColliderId {
    /// The id with this slot index and generation. For ids saved by your own code (see
    /// [`ColliderId::index`], [`ColliderId::generation`]); a world answers
    /// [`WorldError::StaleId`](crate::WorldError::StaleId) to any id it did not issue.
    #[inline]
    #[must_use]
    pub const fn from_raw_parts(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }

    /// The slot index. Dense: usable to index your own side arrays.
    #[inline]
    #[must_use]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The generation of the slot this id was issued for (never 0 for an issued id).
    #[inline]
    #[must_use]
    pub const fn generation(self) -> u32 {
        self.generation
    }

    /// The slot, typed.
    #[inline]
    pub(crate) const fn slot(self) -> ColliderSlot {
        ColliderSlot::new(self.index)
    }
}

/// Which colliders may pair: Box2D's filter. Two colliders with the same non-zero `group`
/// always pair when the group is positive and never when it is negative; otherwise they pair
/// when each one's `category` bits meet the other's `mask`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Filter {
    /// The categories this collider belongs to.
    pub category: u32,
    /// The categories this collider pairs with.
    pub mask: u32,
    /// Group override, see the type docs; 0 for none.
    pub group: i32,
}

impl Default for Filter {
    fn default() -> Self {
        Self { category: 1, mask: u32::MAX, group: 0 }
    }
}

impl Filter {
    /// Whether colliders with these filters may pair.
    #[inline]
    #[must_use]
    pub fn pairs_with(&self, other: &Filter) -> bool {
        if self.group != 0 && self.group == other.group {
            return self.group > 0;
        }
        (self.category & other.mask) != 0 && (other.category & self.mask) != 0
    }
}

/// Per-collider flag bits.
pub(crate) mod flags {
    /// Never moves; static–static pairs are never generated.
    pub const STATIC: u16 = 1;
    /// Reports enter/exit events and no manifold.
    pub const SENSOR: u16 = 2;
    /// Lives in the tree rather than the SAP (static, or larger than the config's limit).
    pub const IN_TREE: u16 = 4;
    /// Pose or shape changed since the last step; the collider is in the moved list.
    pub const MOVED: u16 = 8;
    /// A fast collider: swept from `sweep_start` to its pose by each step, which reports its
    /// earliest time of impact (`World::impacts`).
    pub const BULLET: u16 = 16;
    /// Switched off: in no pair and no query result, though it stays in the structures.
    pub const DISABLED: u16 = 32;
    /// Its pairs raise no `ContactBegan`/`ContactEnded` events.
    pub const NO_CONTACT_EVENTS: u16 = 64;
    /// Its pairs raise no `SensorEntered`/`SensorExited` events.
    pub const NO_SENSOR_EVENTS: u16 = 128;
    /// A flag that decides which pairs it may have changed since the last step (always with
    /// MOVED): the next step's broad phase searches all its pairs again, ends those the new
    /// flags or filter exclude and makes afresh those whose kind changed.
    pub const REFRESH: u16 = 256;
    /// Every bit a live collider may carry.
    pub const ALL: u16 =
        STATIC | SENSOR | IN_TREE | MOVED | BULLET | DISABLED | NO_CONTACT_EVENTS | NO_SENSOR_EVENTS | REFRESH;
}

/// The per-slot columns, listed once: `name: Type = value a new slot gets`. The list feeds
/// [`Columns`] (one `Vec` field per entry, and `allocate`) and the snapshot's slot record
/// (`world::snapshot`), so adding a column here adds it to both; the compiler then asks for a
/// snapshot codec if its type has none. A macro rather than a table of per-column functions
/// because the columns have different types and a slot record is a row across all of them.
///
/// Entries under `stored` are written in this order in every slot record (the order is part of
/// the snapshot format); `=> Codec` names a codec other than the type's own. Entries under
/// `derived` are not stored: a restore gives them their initial value and rebuilds them.
///
/// Takes the name of a macro to call with the list, so each user expands it in its own module.
macro_rules! slot_columns {
    ($then:ident) => {
        $then! {
            stored {
                /// Bumped on every release, never 0 (an id of generation 0 names no collider).
                generation: u32 = 1 => Generation,
                alive: bool = true,
                flags: u16 = 0,
                pose: Pose = Pose::IDENTITY,
                /// A bullet's pose as of the last step, where its next sweep starts; the identity
                /// for other colliders.
                sweep_start: Pose = Pose::IDENTITY,
                /// Tight box of the shape at its pose.
                aabb: Aabb = Aabb::default(),
                /// The box the broad phase knows: the tight box grown by the margin when it last
                /// escaped.
                fat: Aabb = Aabb::default(),
                filter: Filter = Filter::default(),
                user_data: u64 = 0,
                shape: Shape = Shape::Circle(crate::shape::Circle { radius: 1.0 }),
            }
            derived {
                /// Head of the collider's list of pair entries (see `world::PairEntry`), `NULL`
                /// when empty.
                pair_head: crate::world::PairIndex = crate::world::PairIndex::NULL,
            }
        }
    };
}
pub(crate) use slot_columns;

/// Expands [`slot_columns`] into the `Columns` struct and the push of a new slot.
macro_rules! define_columns {
    (
        stored { $( $(#[$sdoc:meta])* $s:ident: $sty:ty = $sinit:expr $(=> $codec:ty)?, )* }
        derived { $( $(#[$ddoc:meta])* $d:ident: $dty:ty = $dinit:expr, )* }
    ) => {
        /// The columns. Every `Vec` has one entry per slot, dead or alive.
        #[derive(Clone, Default)]
        pub(crate) struct Columns {
            $( $(#[$sdoc])* pub $s: Vec<$sty>, )*
            $( $(#[$ddoc])* pub $d: Vec<$dty>, )*
            /// Dead slots, reused last-in first-out.
            pub free: Vec<ColliderSlot>,
            pub alive_count: u32,
            /// Live colliders with the BULLET flag: the step skips its continuous phase at 0.
            pub bullet_count: u32,
        }

        impl Columns {
            /// Appends a slot to every column, each with the value a new slot gets.
            fn push_new_slot(&mut self) {
                $( self.$s.push($sinit); )*
                $( self.$d.push($dinit); )*
            }
        }
    };
}
slot_columns!(define_columns);

impl Columns {
    /// The slot of `id`, as a subscript of the columns, when it is alive and current.
    #[inline]
    pub fn slot(&self, id: ColliderId) -> Option<usize> {
        let i = id.index as usize;
        (i < self.generation.len() && self.alive[i] && self.generation[i] == id.generation).then_some(i)
    }

    /// Whether slot `s` holds a live collider that is in the broad-phase structures. A collider
    /// inserted since the last step has an empty fat box until the step places it.
    #[inline]
    pub fn is_placed(&self, s: usize) -> bool {
        self.alive[s] && self.fat[s] != Aabb::EMPTY
    }

    /// The current id of a live slot.
    #[inline]
    pub fn id(&self, slot: ColliderSlot) -> ColliderId {
        let g = self.generation[slot.index()];
        ColliderId::from_raw_parts(slot.get(), g)
    }

    /// Takes a slot (a free one first); every column gets a default entry to be filled by the
    /// caller.
    pub fn allocate(&mut self) -> Option<ColliderSlot> {
        self.alive_count += 1;
        if let Some(slot) = self.free.pop() {
            self.alive[slot.index()] = true;
            return Some(slot);
        }
        let slot = u32::try_from(self.generation.len()).ok().filter(|&s| s != NULL_INDEX)?;
        self.push_new_slot();
        Some(ColliderSlot::new(slot))
    }

    /// Kills a slot: the generation moves on so that every outstanding id goes stale. The slot
    /// is not reusable until the caller hands it to `free` (the world waits for the next step,
    /// so that the broad phase never sees a removal and a reuse of one id in the same interval,
    /// which it would report as no change at all).
    pub fn release(&mut self, slot: ColliderSlot) {
        let s = slot.index();
        self.alive[s] = false;
        self.bullet_count -= u32::from(self.flags[s] & flags::BULLET != 0);
        // Skip 0 on wrap-around so that a generation is never zero (zeroed ids name no collider).
        self.generation[s] = self.generation[s].checked_add(1).unwrap_or(1);
        self.flags[s] = 0;
        // A compound's parts are shared data: let them go now rather than when the slot is
        // reused. Convex shapes stay as they were (dead slots are snapshotted as they are).
        if matches!(self.shape[s], Shape::Compound(_)) {
            self.shape[s] = Shape::Circle(crate::shape::Circle { radius: 1.0 });
        }
        self.alive_count -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_eight_bytes_of_plain_data() {
        assert_eq!(std::mem::size_of::<ColliderId>(), 8);
        let id = ColliderId::from_raw_parts(3, 7);
        assert_eq!((id.index(), id.generation()), (3, 7));
        assert_eq!(bytemuck::cast::<ColliderId, [u32; 2]>(id), [3, 7]);
    }

    #[test]
    fn released_slots_come_back_under_a_new_generation() {
        let mut c = Columns::default();
        let a = c.allocate().unwrap();
        let id_a = c.id(a);
        c.release(a);
        c.free.push(a);
        assert_eq!(c.slot(id_a), None);
        let b = c.allocate().unwrap();
        assert_eq!(a, b);
        assert_ne!(c.id(b), id_a);
        assert_eq!(c.slot(c.id(b)), Some(b.index()));
    }

    #[test]
    fn filters_follow_box2d_rules() {
        let a = Filter { category: 0b01, mask: 0b10, group: 0 };
        let b = Filter { category: 0b10, mask: 0b01, group: 0 };
        let c = Filter { category: 0b10, mask: 0b10, group: 0 };
        assert!(a.pairs_with(&b) && b.pairs_with(&a));
        assert!(!a.pairs_with(&c) && !c.pairs_with(&a));
        let never = Filter { group: -3, ..Filter::default() };
        assert!(!never.pairs_with(&never));
        let always = Filter { category: 1, mask: 0, group: 5 };
        assert!(always.pairs_with(&always));
    }
}
