//! Ray casts and point tests against one shape at a pose.
//!
//! Both work in the shape's local frame: the ray or point is moved in by the inverse pose, the
//! shape is tested where its description is simplest (a circle at the origin, an axis-aligned
//! box), and a hit is moved back out.
//!
//! # Conventions
//! - **The boundary is inside**, as everywhere in sapwood: [`contains_point`] is true for a point
//!   exactly on the surface, and a ray starting on the surface hits at `t = 0`.
//! - A ray starting inside a shape (or on its boundary) hits at `t = 0`, at its origin, with the
//!   normal `-dir / |dir|`: a solid shape has no entry point, and this normal points back along
//!   the ray like a surface the ray has just entered. A zero `dir` gives a zero normal.
//! - `t` is in units of `dir` (see [`Ray`]); hits are reported for `0 <= t <= max_t`.
//! - Rounded polygons are exact: the surface is the core polygon's edges pushed out by the
//!   radius, joined by circular arcs around the vertices.
//! - A [`Compound`](crate::Compound) is the union of its parts: a ray hits the closest part
//!   (on equal `t`, the lowest part index; [`ray_cast_part`] tells which), a point is inside
//!   when it is inside any part ([`containing_part`] tells the first).
//!
//! ```
//! use sapwood::query::{contains_point, ray_cast};
//! use sapwood::{Pose, Ray, Shape, Vec2};
//!
//! let crate_ = Shape::cuboid(Vec2::new(1.0, 0.5))?;
//! let pose = Pose::from_translation(Vec2::new(5.0, 0.0));
//! let hit = ray_cast(&crate_, &pose, &Ray::new(Vec2::ZERO, Vec2::X), 100.0).unwrap();
//! assert_eq!((hit.t, hit.point, hit.normal), (4.0, Vec2::new(4.0, 0.0), Vec2::NEG_X));
//! assert!(contains_point(&crate_, &pose, Vec2::new(6.0, 0.5))); // a corner counts
//! # Ok::<(), sapwood::ShapeError>(())
//! ```

mod point;
mod ray;
#[cfg(test)]
mod tests;

pub(crate) use point::{EdgeRegion, edge_region, max_separation, within};
pub use point::{contains_point, containing_part};
pub use ray::{RayHit, ray_cast, ray_cast_part};
