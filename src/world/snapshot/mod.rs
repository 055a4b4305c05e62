//! Snapshots: the whole world as bytes, and back, validated.
//!
//! A snapshot holds every piece of state that decides what the next [`World::step`] does, so a
//! restored world gives the same ids, and bit-identical contacts (same order, with the impulses
//! a solver stored in them, which the next steps carry) and events, as the original stepped the
//! same way. Derived structures are *not* stored: the broad phases are
//! rebuilt from the fat boxes by batch insertion, and the pair table and the per-collider pair
//! links from the pair entries.
//!
//! The [pair hooks](crate::PairHooks) are code and are not stored, only the filter's answers
//! are: set the hooks on a restored world before its first step (see [`World::set_pair_hooks`]).
//!
//! # Integrity
//! A 64-bit checksum (XXH3-64) of everything after it is checked before anything else is read,
//! so that a snapshot damaged on disk or on the wire is refused with
//! [`SnapshotError::ChecksumMismatch`] instead of decoding into a valid world that differs
//! from the one saved (many single-byte changes hit a float or user data, which no structural
//! check can tell from a real value). The checksum guards against accident, not tampering:
//! anyone can recompute it ([`reseal`]). So nothing read from the bytes is trusted either:
//! every shape, pose, index and cross-reference is checked, so that hostile input with a valid
//! checksum gives a [`SnapshotError`], never a panic, and no length read from the bytes
//! allocates more than the bytes could fill.
//!
//! # Format (version 10, little-endian throughout)
//! ```text
//!  magic     8 bytes  "SAPWOOD\0"
//!  version   u32      10 (other versions are refused: there is no migration)
//!  checksum  u64      XXH3-64, seed 0, of every byte after this field
//!  then eight sections, always in this order, each  tag [u8; 4] | byte length u64 | payload
//!   CONF  broad-phase kind (u8 tag + fields), aabb_margin, aabb_margin_ratio, large_extent,
//!         aabb_motion_factor (f32 bits), weld_static_edges u8 (0 or 1; the welds themselves
//!         are derived from the statics and recomputed on restore), switches u8 (bit 0
//!         sensors detect sensors, bit 1 sensors detect statics, bit 2 manifold reuse; the
//!         reuse witnesses are derived and start empty on restore)
//!   SLOT  n u32, then per slot: generation u32, alive u8, flags u16 (bits: 1 static,
//!         2 sensor, 4 in the tree, 8 moved, 16 bullet, 32 disabled, 64 no contact events,
//!         128 no sensor events, 256 pairs to refresh at the next step), pose 4×f32, sweep start
//!         4×f32 (a bullet's pose as of the last step; the identity for other colliders), tight
//!         box 4×f32, fat box 4×f32, filter 3×u32, user_data u64, shape (kind u8 + fields; a
//!         polygon is its 144 `Pod` bytes as 36 little-endian words; a compound, kind 4, is
//!         a part count u32 (1..=128) then per part a pose 4×f32 and a convex shape; a
//!         segment, kind 5, is a, b, radius; a chain, kind 6, is flags u8 (1 closed,
//!         2 one-sided), a vertex count u32 then the vertices 2×f32 each; its BVH is rebuilt)
//!   LIST  free, released, moved: each n u32 + n×u32 slots (order kept: it decides reuse)
//!   PAIR  n u32, per pair entry: ids 2×u32 (both u32::MAX when free), contact u32,
//!         touching u8, kind u8 (bit 0 a sensor pair, bit 1 refused by the pair filter);
//!         then the pair free list, n u32 + n×u32
//!   LINK  per collider slot: n u32 + its pair entries in list order (the order decides the order
//!         in which a removal ends touching pairs, hence the contacts array's order)
//!   CONT  n u32, per contact: owning pair entry u32, manifold (normal 2×f32, 2 points each
//!         point 2×f32, depth f32, feature id u32, normal and tangent impulse 2×f32; count u32;
//!         the ids `a`, `b` are derived from the pair)
//!   EVNT  pending events, then last step's events: each n u32 + n×(a, b raw ids, kind u8)
//!   IMPC  last step's impacts: n u32 + n×(bullet, other raw ids, fraction, point 2×f32,
//!         normal 2×f32, pose 4×f32)
//! ```
//! Floats are stored as their bit patterns, so a round trip is exact, NaN payloads included.

mod codec;
mod read;
mod write;

#[cfg(test)]
mod tests;

use self::codec::{Reader, Writer};
use super::{World, WorldError};
use crate::shape::ShapeError;

const MAGIC: [u8; 8] = *b"SAPWOOD\0";
/// The format version this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 10;
/// Where the checksum sits (after magic and version), and where the bytes it covers start.
const CHECKSUM_AT: usize = MAGIC.len() + 4;
const PAYLOAD_AT: usize = CHECKSUM_AT + 8;

const CONF: [u8; 4] = *b"CONF";
const SLOT: [u8; 4] = *b"SLOT";
const LIST: [u8; 4] = *b"LIST";
const PAIR: [u8; 4] = *b"PAIR";
const LINK: [u8; 4] = *b"LINK";
const CONT: [u8; 4] = *b"CONT";
const EVNT: [u8; 4] = *b"EVNT";
const IMPC: [u8; 4] = *b"IMPC";

/// Smallest encoded sizes of repeated records, used to cap counts read from the bytes before
/// anything is allocated: a count can never claim more records than the remaining bytes hold.
/// (The slot record's, `MIN_SLOT_BYTES`, is summed from its columns in `codec`.)
const PAIR_BYTES: usize = 3 * 4 + 2;
/// The bits of a pair record's kind byte. A world without pair hooks writes only the first,
/// as the byte's old meaning (a sensor flag) did.
const PAIR_SENSOR: u8 = 1;
const PAIR_REFUSED: u8 = 2;
const CONTACT_BYTES: usize = 4 + 4 * (2 + 2 * 6 + 1);
const EVENT_BYTES: usize = 4 * 4 + 1;
const IMPACT_BYTES: usize = 4 * 4 + 4 * 9;

/// Why bytes could not be turned into a [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The bytes do not start with the snapshot magic.
    BadMagic,
    /// A snapshot format version this build cannot read (an older one, or a newer one).
    UnsupportedVersion {
        /// The version the bytes carry.
        found: u32,
        /// The one version this build reads, [`SNAPSHOT_VERSION`].
        supported: u32,
    },
    /// The checksum does not match the bytes: they were damaged (a changed, missing or extra
    /// byte anywhere after the version).
    ChecksumMismatch,
    /// The bytes end early, or a length or count claims more than the bytes hold.
    Truncated,
    /// A section tag is not the one expected at this place.
    UnexpectedSection {
        /// The tag expected.
        expected: [u8; 4],
        /// The tag found.
        found: [u8; 4],
    },
    /// A section's payload is longer than its content.
    SectionLength([u8; 4]),
    /// Bytes follow the last section.
    TrailingBytes,
    /// The stored [`WorldConfig`](crate::WorldConfig) is refused by [`World::with_config`], or
    /// names an unknown broad phase.
    InvalidConfig,
    /// A slot's shape fails [`Shape::validate`](crate::Shape::validate) (or has an unknown kind
    /// tag).
    InvalidShape {
        /// The slot index.
        slot: u32,
        /// What is wrong with it.
        error: ShapeError,
    },
    /// A slot's pose fails the checks of [`World::set_pose`].
    InvalidPose {
        /// The slot index.
        slot: u32,
        /// [`WorldError::InvalidPose`] or [`WorldError::OutOfRange`].
        error: WorldError,
    },
    /// Values that are each well-formed contradict one another; names the broken invariant.
    Inconsistent(&'static str),
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tag = |t: &[u8; 4]| String::from_utf8_lossy(t).into_owned();
        match self {
            SnapshotError::BadMagic => f.write_str("not a sapwood snapshot (bad magic)"),
            SnapshotError::UnsupportedVersion { found, supported } => {
                let age = if found < supported { "older than" } else { "newer than" };
                write!(
                    f,
                    "snapshot format version {found} is {age} the version this build reads ({supported}); \
                     snapshots are not migrated between versions"
                )
            }
            SnapshotError::ChecksumMismatch => f.write_str("snapshot checksum mismatch: the bytes are damaged"),
            SnapshotError::Truncated => f.write_str("snapshot is truncated or a length is out of range"),
            SnapshotError::UnexpectedSection { expected, found } => {
                write!(f, "expected section {:?}, found {:?}", tag(expected), tag(found))
            }
            SnapshotError::SectionLength(t) => write!(f, "section {:?} has unread bytes", tag(t)),
            SnapshotError::TrailingBytes => f.write_str("bytes follow the last snapshot section"),
            SnapshotError::InvalidConfig => f.write_str("snapshot holds an invalid world config"),
            SnapshotError::InvalidShape { slot, error } => write!(f, "slot {slot}: invalid shape: {error}"),
            SnapshotError::InvalidPose { slot, error } => write!(f, "slot {slot}: {error}"),
            SnapshotError::Inconsistent(what) => write!(f, "inconsistent snapshot: {what}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

type Result<T, E = SnapshotError> = std::result::Result<T, E>;

fn bad(what: &'static str) -> SnapshotError {
    SnapshotError::Inconsistent(what)
}

/// XXH3-64 of the bytes after the checksum field. The snapshot is at least a header long.
fn checksum(snapshot: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&snapshot[PAYLOAD_AT..])
}

/// Writes the checksum of a whole snapshot into its header.
fn seal(snapshot: &mut [u8]) {
    let sum = checksum(snapshot);
    snapshot[CHECKSUM_AT..PAYLOAD_AT].copy_from_slice(&sum.to_le_bytes());
}

/// Recomputes the checksum of snapshot bytes edited on purpose (a migration tool, a test or a
/// fuzzer that changes fields and wants the decoder's structural checks to see them), so that
/// [`World::from_bytes`] reads past the checksum. The checksum detects accidental damage only;
/// resealing is what makes an edit deliberate.
///
/// ```
/// use sapwood::{snapshot, World};
/// let mut bytes = World::new().to_bytes();
/// let last = bytes.len() - 1;
/// bytes[last] ^= 1; // the last section's last byte
/// assert_eq!(World::from_bytes(&bytes).err(), Some(sapwood::SnapshotError::ChecksumMismatch));
/// snapshot::reseal(&mut bytes)?;
/// assert!(World::from_bytes(&bytes).is_err()); // now refused by a structural check
/// # Ok::<(), sapwood::SnapshotError>(())
/// ```
///
/// # Errors
/// [`SnapshotError::BadMagic`], [`SnapshotError::UnsupportedVersion`] or
/// [`SnapshotError::Truncated`] when the bytes do not start with this version's header; they
/// are then left as they are.
pub fn reseal(bytes: &mut [u8]) -> Result<(), SnapshotError> {
    read::header(&mut Reader { bytes })?;
    if bytes.len() < PAYLOAD_AT {
        return Err(SnapshotError::Truncated);
    }
    seal(bytes);
    Ok(())
}

impl World {
    /// The whole world as bytes (see the [format](crate::snapshot)). [`World::from_bytes`]
    /// restores it: same ids, and the same contacts, events and impacts from every following
    /// step.
    ///
    /// ```
    /// use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
    ///
    /// let mut world = World::new();
    /// let id = world.insert(ColliderDesc::new(Shape::circle(1.0)?, Pose::from_translation(Vec2::X)))?;
    /// let copy = World::from_bytes(&world.to_bytes())?;
    /// assert_eq!(copy.pose(id)?, world.pose(id)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_snapshot(&mut out);
        out
    }

    /// Appends the snapshot to `out`, so that a caller saving every frame reuses one buffer.
    pub fn write_snapshot(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let mut w = Writer { out };
        w.out.extend_from_slice(&MAGIC);
        w.u32(SNAPSHOT_VERSION);
        w.u64(0);
        w.section(CONF, |w| write::conf(w, &self.config));
        w.section(SLOT, |w| write::slots(w, self));
        w.section(LIST, |w| write::lists(w, self));
        w.section(PAIR, |w| write::pairs(w, self));
        w.section(LINK, |w| write::links(w, self));
        w.section(CONT, |w| write::contacts(w, self));
        w.section(EVNT, |w| write::events(w, self));
        w.section(IMPC, |w| write::impacts(w, self));
        seal(&mut out[start..]);
    }

    /// Restores a world written by [`World::to_bytes`] or [`World::write_snapshot`].
    ///
    /// ```
    /// use sapwood::{SnapshotError, World};
    /// assert_eq!(World::from_bytes(b"not a snapshot").err(), Some(SnapshotError::BadMagic));
    /// let bytes = World::new().to_bytes();
    /// assert_eq!(World::from_bytes(&bytes[..bytes.len() - 1]).err(), Some(SnapshotError::ChecksumMismatch));
    /// assert_eq!(World::from_bytes(&bytes[..15]).err(), Some(SnapshotError::Truncated)); // no whole header
    /// ```
    ///
    /// # Errors
    /// [`SnapshotError::BadMagic`] for bytes that are no snapshot,
    /// [`SnapshotError::UnsupportedVersion`] for another format version,
    /// [`SnapshotError::ChecksumMismatch`] for damaged bytes (truncated, extended or changed
    /// anywhere after the version), and for bytes with a valid checksum that do not describe a
    /// valid world (bad shape or pose, out-of-range index, zero generation, inconsistent free
    /// lists, pairs or contacts) the variant naming the check that failed. Never panics,
    /// whatever the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<World, SnapshotError> {
        let mut r = Reader { bytes };
        read::header(&mut r)?;
        read::checksum_of(&mut r, bytes)?;
        let mut world = read::conf(&mut r)?;
        read::slots(&mut r, &mut world)?;
        read::lists(&mut r, &mut world)?;
        let keys = read::pairs(&mut r, &mut world)?;
        read::links(&mut r, &mut world)?;
        read::contacts(&mut r, &mut world)?;
        read::events(&mut r, &mut world)?;
        read::impacts(&mut r, &mut world)?;
        if !r.bytes.is_empty() {
            return Err(SnapshotError::TrailingBytes);
        }
        world.rebuild_structures(&keys)?;
        world.reweld_all();
        world.validate_if_enabled("from_bytes");
        Ok(world)
    }
}
