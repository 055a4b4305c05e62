//! Typed indices into the crate's flat arrays, and the one null value they share.
//!
//! The world and its structures link records by `u32` indices (Box2D's `int` links, rapier's
//! arena indices), and a bare `u32` says nothing of which array it indexes: a collider slot, a
//! pair entry and a tree node are all `u32`. Each kind gets a newtype made by [`typed_index!`],
//! so that passing one where another is meant is a type error, at no cost (`repr(transparent)`,
//! every method inlined to the integer operation).
//!
//! "No index" is [`NULL_INDEX`] everywhere (Box2D's `B2_NULL_INDEX`), in the newtypes (`NULL`)
//! and in the broad phases' own `u32` arrays alike.

/// The null index: "no such record" in every `u32` link of the crate, and the `NULL` of every
/// typed index. `u32::MAX`, so that no array of records reaches it (the world refuses its
/// 2^32 - 1-th collider, see [`WorldError::Full`](crate::WorldError::Full)).
pub(crate) const NULL_INDEX: u32 = u32::MAX;

/// Defines a typed index: a `#[repr(transparent)]` `u32` newtype with a `NULL` of
/// [`NULL_INDEX`], `Pod` (so that hashes and snapshots read arrays of it as `u32`s), ordered
/// and hashable like the integer, formatted (`Display`) as the integer, and converted only by
/// name: `new(u32)` / `get()` for the raw value, `from_index(usize)` / `index()` for
/// subscripts.
macro_rules! typed_index {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, bytemuck::Pod, bytemuck::Zeroable)]
        pub(crate) struct $name(u32);

        #[allow(dead_code)]
        impl $name {
            /// No record: [`NULL_INDEX`](crate::index::NULL_INDEX).
            pub(crate) const NULL: Self = Self(crate::index::NULL_INDEX);

            /// The index with this raw value.
            #[inline]
            #[must_use]
            pub(crate) const fn new(raw: u32) -> Self {
                Self(raw)
            }

            /// The index of array position `i` (below `u32::MAX`, which every array of records
            /// stays under).
            #[inline]
            #[must_use]
            pub(crate) fn from_index(i: usize) -> Self {
                debug_assert!(i < crate::index::NULL_INDEX as usize, "{} {i} out of range", stringify!($name));
                Self(i as u32)
            }

            /// The raw value.
            #[inline]
            #[must_use]
            pub(crate) const fn get(self) -> u32 {
                self.0
            }

            /// The array position, for subscripts.
            #[inline]
            #[must_use]
            pub(crate) const fn index(self) -> usize {
                self.0 as usize
            }

            /// Whether this is `NULL`.
            #[inline]
            #[must_use]
            pub(crate) const fn is_null(self) -> bool {
                self.0 == crate::index::NULL_INDEX
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                if self.is_null() {
                    write!(f, "{}::NULL", stringify!($name))
                } else {
                    write!(f, "{}({})", stringify!($name), self.0)
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}
pub(crate) use typed_index;

#[cfg(test)]
mod tests {
    use super::*;

    typed_index!(
        /// A test index.
        Probe
    );

    #[test]
    fn a_typed_index_is_its_u32() {
        assert_eq!(std::mem::size_of::<Probe>(), 4);
        assert_eq!(std::mem::size_of::<Option<[Probe; 2]>>(), std::mem::size_of::<Option<[u32; 2]>>());
        assert_eq!(bytemuck::cast::<[Probe; 2], [u32; 2]>([Probe::new(3), Probe::NULL]), [3, NULL_INDEX]);
        assert_eq!(Probe::from_index(7).index(), 7);
        assert!(Probe::NULL.is_null() && !Probe::new(0).is_null());
        assert!(Probe::new(1) < Probe::new(2) && Probe::new(2) < Probe::NULL);
        assert_eq!(format!("{} {:?} {:?}", Probe::new(5), Probe::new(5), Probe::NULL), "5 Probe(5) Probe::NULL");
    }
}
