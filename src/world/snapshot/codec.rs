//! The byte level of snapshots: little-endian primitives, and the records sections are made of.

use glam::Vec2;

use super::{Result, SnapshotError, bad};
use crate::math::{Aabb, Pose, Rot};
use crate::shape::{
    Capsule, Chain, ChainOptions, Circle, Compound, Cuboid, MAX_CHAIN_VERTICES, MAX_COMPOUND_PARTS, Polygon, Segment,
    Shape, ShapeError,
};
use crate::storage::{ColliderId, Columns, Filter, slot_columns};
use crate::world::{Event, EventKind, World};

/// Appends little-endian values to a byte vector.
pub(super) struct Writer<'a> {
    pub out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    pub fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    pub fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    pub fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }
    pub fn aabb(&mut self, a: &Aabb) {
        self.vec2(a.min);
        self.vec2(a.max);
    }
    pub fn pose(&mut self, pose: &Pose) {
        self.vec2(pose.p);
        self.f32(pose.q.c);
        self.f32(pose.q.s);
    }
    pub fn len(&mut self, n: usize) {
        // Every list is indexed by u32 inside the world, so its length fits.
        self.u32(n as u32);
    }
    pub fn u32s(&mut self, vs: &[u32]) {
        self.len(vs.len());
        for &v in vs {
            self.u32(v);
        }
    }
    /// Writes a section: tag, a length placeholder patched once the payload is written.
    pub fn section(&mut self, tag: [u8; 4], body: impl FnOnce(&mut Self)) {
        self.out.extend_from_slice(&tag);
        let at = self.out.len();
        self.u64(0);
        body(self);
        let len = (self.out.len() - at - 8) as u64;
        self.out[at..at + 8].copy_from_slice(&len.to_le_bytes());
    }
    pub fn shape(&mut self, s: &Shape) {
        match s {
            Shape::Compound(c) => {
                self.u8(4);
                self.len(c.parts().len());
                for (pose, part) in c.parts() {
                    self.pose(pose);
                    self.shape(part);
                }
            }
            Shape::Circle(c) => {
                self.u8(0);
                self.f32(c.radius);
            }
            Shape::Capsule(c) => {
                self.u8(1);
                self.vec2(c.a);
                self.vec2(c.b);
                self.f32(c.radius);
            }
            Shape::Segment(c) => {
                self.u8(5);
                self.vec2(c.a);
                self.vec2(c.b);
                self.f32(c.radius);
            }
            Shape::Chain(c) => {
                self.u8(6);
                let o = c.options();
                self.u8(u8::from(o.closed) | u8::from(o.one_sided) << 1);
                self.len(c.vertices().len());
                for v in c.vertices() {
                    self.vec2(*v);
                }
            }
            Shape::Cuboid(b) => {
                self.u8(2);
                self.vec2(b.half_extents);
            }
            Shape::Polygon(p) => {
                self.u8(3);
                // Pod: the polygon is exactly 36 four-byte words; writing them one by one keeps
                // the format little-endian on any host.
                for &w in bytemuck::cast_slice::<Polygon, u32>(std::slice::from_ref(p)) {
                    self.u32(w);
                }
            }
        }
    }
    pub fn event(&mut self, e: &Event) {
        self.u32(e.a.index());
        self.u32(e.a.generation());
        self.u32(e.b.index());
        self.u32(e.b.generation());
        self.u8(e.kind as u8);
    }
}

/// Reads little-endian values; every read is bounds-checked and fails with `Truncated`.
pub(super) struct Reader<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.bytes.len() {
            return Err(SnapshotError::Truncated);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    pub fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad("a boolean byte is neither 0 nor 1")),
        }
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.u32()?))
    }
    pub fn vec2(&mut self) -> Result<Vec2> {
        Ok(Vec2::new(self.f32()?, self.f32()?))
    }
    pub fn aabb(&mut self) -> Result<Aabb> {
        Ok(Aabb::new(self.vec2()?, self.vec2()?))
    }
    /// A pose as written, unchecked.
    pub fn pose(&mut self) -> Result<Pose> {
        Ok(Pose { p: self.vec2()?, q: Rot { c: self.f32()?, s: self.f32()? } })
    }
    /// A record count, refused when `count * min_record_bytes` exceeds what is left, so that a
    /// corrupted count never drives a large allocation.
    pub fn count(&mut self, min_record_bytes: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_record_bytes) > self.bytes.len() {
            return Err(SnapshotError::Truncated);
        }
        Ok(n)
    }
    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        let n = self.count(4)?;
        (0..n).map(|_| self.u32()).collect()
    }
    /// The payload of the next section, which must carry `tag`.
    pub fn section(&mut self, tag: [u8; 4]) -> Result<Reader<'a>> {
        let found = self.array::<4>()?;
        if found != tag {
            return Err(SnapshotError::UnexpectedSection { expected: tag, found });
        }
        let len = usize::try_from(self.u64()?).map_err(|_| SnapshotError::Truncated)?;
        Ok(Reader { bytes: self.take(len)? })
    }
    /// Ends a section: every payload byte must have been read.
    pub fn finish(&self, tag: [u8; 4]) -> Result<()> {
        if self.bytes.is_empty() { Ok(()) } else { Err(SnapshotError::SectionLength(tag)) }
    }
    fn shape(&mut self, slot: u32) -> Result<Shape> {
        let shape = self.shape_unchecked(slot, true)?;
        shape.validate().map_err(|error| SnapshotError::InvalidShape { slot, error })?;
        Ok(shape)
    }
    /// A shape as written; a compound's parts are read with `allow_compound` false, so that
    /// nesting (which [`Compound::new`](crate::Compound::new) refuses anyway) cannot recurse.
    fn shape_unchecked(&mut self, slot: u32, allow_compound: bool) -> Result<Shape> {
        let shape = match self.u8()? {
            4 if allow_compound => {
                // The smallest part record: a pose and a circle.
                let n = self.count(<Pose as Codec>::MIN_BYTES + <Shape as Codec>::MIN_BYTES)?;
                if n > MAX_COMPOUND_PARTS {
                    return Err(SnapshotError::InvalidShape { slot, error: ShapeError::TooManyParts });
                }
                let mut parts = Vec::with_capacity(n);
                for _ in 0..n {
                    // Part poses are checked by `Compound::new`.
                    let pose = self.pose()?;
                    parts.push((pose, self.shape_unchecked(slot, false)?));
                }
                Shape::Compound(Compound::new(parts).map_err(|error| SnapshotError::InvalidShape { slot, error })?)
            }
            4 => return Err(SnapshotError::InvalidShape { slot, error: ShapeError::NestedCompound }),
            0 => Shape::Circle(Circle { radius: self.f32()? }),
            1 => Shape::Capsule(Capsule { a: self.vec2()?, b: self.vec2()?, radius: self.f32()? }),
            2 => Shape::Cuboid(Cuboid { half_extents: self.vec2()? }),
            5 => Shape::Segment(Segment { a: self.vec2()?, b: self.vec2()?, radius: self.f32()? }),
            6 => {
                let flags = self.u8()?;
                if flags > 3 {
                    return Err(bad("unknown chain flags"));
                }
                let options = ChainOptions { closed: flags & 1 != 0, one_sided: flags & 2 != 0 };
                let n = self.count(8)?;
                if n > MAX_CHAIN_VERTICES {
                    return Err(SnapshotError::InvalidShape { slot, error: ShapeError::TooManyVertices });
                }
                let mut vertices = Vec::with_capacity(n);
                for _ in 0..n {
                    vertices.push(self.vec2()?);
                }
                Shape::Chain(
                    Chain::new(vertices, options).map_err(|error| SnapshotError::InvalidShape { slot, error })?,
                )
            }
            3 => {
                let mut poly = <Polygon as bytemuck::Zeroable>::zeroed();
                for w in bytemuck::cast_slice_mut::<Polygon, u32>(std::slice::from_mut(&mut poly)) {
                    *w = self.u32()?;
                }
                Shape::from(poly)
            }
            _ => return Err(bad("unknown shape kind")),
        };
        Ok(shape)
    }
    /// A collider id naming a slot below `slots` with a non-zero generation (events and impacts
    /// may name colliders removed since, so the generation need not be the slot's).
    pub fn collider_id(&mut self, slots: usize) -> Result<ColliderId> {
        let id = ColliderId::from_raw_parts(self.u32()?, self.u32()?);
        if id.generation() == 0 || id.index() as usize >= slots {
            return Err(bad("a recorded id names no slot"));
        }
        Ok(id)
    }

    /// An event whose ids name slots below `slots`.
    pub fn event(&mut self, slots: usize) -> Result<Event> {
        let (a, b) = (self.collider_id(slots)?, self.collider_id(slots)?);
        let kind = match self.u8()? {
            0 => EventKind::ContactBegan,
            1 => EventKind::ContactEnded,
            2 => EventKind::SensorEntered,
            3 => EventKind::SensorExited,
            _ => return Err(bad("unknown event kind")),
        };
        if a.index() >= b.index() {
            return Err(bad("an event's ids are not in ascending slot order"));
        }
        Ok(Event { a, b, kind })
    }
}

/// How the values of one slot column are stored in a slot record.
pub(super) trait Codec {
    /// The column's element type.
    type Value;
    /// The fewest bytes an encoded value takes.
    const MIN_BYTES: usize;
    fn write(w: &mut Writer<'_>, v: &Self::Value);
    /// Reads slot `slot`'s value and refuses, right there, one no world holds in this column:
    /// the first bad value read decides the error, whatever follows it.
    fn read(r: &mut Reader<'_>, slot: u32) -> Result<Self::Value>;
}

/// The generation column's codec: a `u32` that is never 0 (the niche of [`ColliderId`]).
pub(super) enum Generation {}

impl Codec for Generation {
    type Value = u32;
    const MIN_BYTES: usize = 4;
    fn write(w: &mut Writer<'_>, v: &u32) {
        w.u32(*v);
    }
    fn read(r: &mut Reader<'_>, _: u32) -> Result<u32> {
        match r.u32()? {
            0 => Err(bad("a slot has generation 0")),
            g => Ok(g),
        }
    }
}

/// Columns of plain values: the value's own bytes, any value accepted.
macro_rules! plain_codec {
    ($($t:ident: $bytes:literal),*) => {$(
        impl Codec for $t {
            type Value = $t;
            const MIN_BYTES: usize = $bytes;
            fn write(w: &mut Writer<'_>, v: &$t) {
                w.$t(*v);
            }
            fn read(r: &mut Reader<'_>, _: u32) -> Result<$t> {
                r.$t()
            }
        }
    )*};
}
plain_codec!(bool: 1, u8: 1, u16: 2, u64: 8);

impl Codec for Pose {
    type Value = Pose;
    const MIN_BYTES: usize = 16;
    fn write(w: &mut Writer<'_>, v: &Pose) {
        w.pose(v);
    }
    fn read(r: &mut Reader<'_>, slot: u32) -> Result<Pose> {
        // Dead slots keep the pose they had, which was checked when it was set.
        World::check_pose(&r.pose()?).map_err(|error| SnapshotError::InvalidPose { slot, error })
    }
}

impl Codec for Aabb {
    type Value = Aabb;
    const MIN_BYTES: usize = 16;
    fn write(w: &mut Writer<'_>, v: &Aabb) {
        w.aabb(v);
    }
    /// Unchecked: whether a box is in range and agrees with the rest of its slot is decided
    /// once the whole record is read.
    fn read(r: &mut Reader<'_>, _: u32) -> Result<Aabb> {
        r.aabb()
    }
}

impl Codec for Filter {
    type Value = Filter;
    const MIN_BYTES: usize = 12;
    fn write(w: &mut Writer<'_>, v: &Filter) {
        w.u32(v.category);
        w.u32(v.mask);
        w.u32(v.group as u32);
    }
    fn read(r: &mut Reader<'_>, _: u32) -> Result<Filter> {
        Ok(Filter { category: r.u32()?, mask: r.u32()?, group: r.u32()? as i32 })
    }
}

impl Codec for Shape {
    type Value = Shape;
    /// A kind byte and a circle's radius.
    const MIN_BYTES: usize = 1 + 4;
    fn write(w: &mut Writer<'_>, v: &Shape) {
        w.shape(v);
    }
    fn read(r: &mut Reader<'_>, slot: u32) -> Result<Shape> {
        r.shape(slot)
    }
}

/// The codec of a slot column: the one its entry names after `=>`, else its type's own.
macro_rules! codec {
    ($ty:ty) => {
        $ty
    };
    ($ty:ty, $codec:ty) => {
        $codec
    };
}

/// Expands [`slot_columns`] into the slot record: the stored columns in list order.
macro_rules! slot_record {
    (
        stored { $( $(#[$sdoc:meta])* $s:ident: $sty:ty = $sinit:expr $(=> $codec:ty)?, )* }
        derived { $( $(#[$ddoc:meta])* $d:ident: $dty:ty = $dinit:expr, )* }
    ) => {
        /// One slot's stored columns, each checked on its own but not yet against one another.
        pub(super) struct SlotRecord {
            $( pub $s: $sty, )*
        }

        /// The smallest slot record.
        pub(super) const MIN_SLOT_BYTES: usize = 0 $( + <codec!($sty $(, $codec)?) as Codec>::MIN_BYTES )*;

        impl SlotRecord {
            pub fn write(w: &mut Writer<'_>, cols: &Columns, s: usize) {
                $( <codec!($sty $(, $codec)?) as Codec>::write(w, &cols.$s[s]); )*
            }

            /// Reads slot `slot`'s record (struct fields are evaluated in the order written, so
            /// the columns are read in list order).
            pub fn read(r: &mut Reader<'_>, slot: u32) -> Result<Self> {
                Ok(SlotRecord { $( $s: <codec!($sty $(, $codec)?) as Codec>::read(r, slot)?, )* })
            }

            /// Makes room for `n` more slots in every column.
            pub fn reserve(cols: &mut Columns, n: usize) {
                $( cols.$s.reserve_exact(n); )*
                $( cols.$d.reserve_exact(n); )*
            }

            /// Appends the record as a new slot of `cols`, the derived columns at their initial
            /// value, to be rebuilt.
            pub fn push(self, cols: &mut Columns) {
                $( cols.$s.push(self.$s); )*
                $( cols.$d.push($dinit); )*
            }
        }
    };
}
slot_columns!(slot_record);
