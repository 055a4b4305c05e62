//! Convex polygons of up to [`MAX_POLYGON_VERTICES`] vertices with an optional rounding radius.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::ShapeError;

/// The largest vertex count of a [`Polygon`]. A polygon stores its vertices and normals inline,
/// 144 bytes at eight, so that the kernels read one flat value; fewer would split decomposed
/// concave polygons into more parts. Eight covers boxes and regular 5–8-gons.
pub const MAX_POLYGON_VERTICES: usize = 8;

/// Polygons with an edge shorter than this (in both coordinates) are refused with
/// [`ShapeError::TooFewPoints`]: its squared length underflows f32.
const MIN_EDGE: f32 = 1e-12;

/// A convex polygon, counter-clockwise, with unit outward edge normals and its centroid
/// precomputed. Edge `i` runs from vertex `i` to vertex `i + 1 (mod count)` and has normal `i`.
///
/// With `radius > 0` the polygon is rounded: the shape is the set of points within `radius` of
/// the core polygon (a rounded rectangle is a rounded box).
///
/// ```
/// use sapwood::{Polygon, Vec2};
/// let tri = Polygon::hull(&[Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)], 0.0)?;
/// assert_eq!(tri.count(), 3);
/// assert!(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::new(2.0, 0.0)], 0.0).is_err()); // collinear
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Polygon {
    pub(crate) vertices: [Vec2; MAX_POLYGON_VERTICES], // 64 bytes
    pub(crate) normals: [Vec2; MAX_POLYGON_VERTICES],  // 64 bytes
    pub(crate) centroid: Vec2,                         // 8 bytes
    pub(crate) radius: f32,                            // 4 bytes
    pub(crate) count: u32,                             // 4 bytes
}

impl Polygon {
    /// The convex hull of `points` (any order, duplicates and interior points allowed), rounded
    /// by `radius` (`0.0` for a sharp polygon).
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] for a NaN or infinite coordinate or radius,
    /// [`ShapeError::NegativeRadius`] for `radius < 0`, [`ShapeError::TooFewPoints`] when fewer
    /// than three distinct points remain after welding near-duplicates or a hull edge is shorter
    /// than 1e-12 (its squared length would underflow f32),
    /// [`ShapeError::Collinear`] when the points span no area,
    /// [`ShapeError::TooManyVertices`] when the hull has more than eight vertices,
    /// [`ShapeError::TooLarge`] when a coordinate plus the radius exceeds
    /// [`MAX_SHAPE_SIZE`](super::MAX_SHAPE_SIZE), and [`ShapeError::TooSmall`] when the polygon
    /// is smaller than [`MIN_SHAPE_SIZE`](super::MIN_SHAPE_SIZE) across.
    pub fn hull(points: &[Vec2], radius: f32) -> Result<Polygon, ShapeError> {
        if !radius.is_finite() || points.iter().any(|p| !p.is_finite()) {
            return Err(ShapeError::NonFinite);
        }
        if radius < 0.0 {
            return Err(ShapeError::NegativeRadius);
        }
        if points.len() < 3 {
            return Err(ShapeError::TooFewPoints);
        }
        // Work on a small stack copy when possible; hull input beyond 64 points is rare and
        // only pays for itself in a one-off allocation at construction time.
        let mut sorted: Vec<Vec2> = points.to_vec();
        sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));

        // Weld points closer than a tolerance relative to the cloud's extent, so that a hull
        // never carries a near-zero edge whose normal would be noise.
        let (lo, hi) =
            sorted.iter().fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let extent = (hi - lo).max_element();
        let weld = (extent * 1e-6).max(f32::MIN_POSITIVE);
        sorted.dedup_by(|b, a| (*b - *a).length() <= weld);
        if sorted.len() < 3 {
            return Err(ShapeError::TooFewPoints);
        }

        // Andrew's monotone chain: lower hull then upper hull, counter-clockwise. A point is
        // dropped unless it makes a strict left turn by more than a relative tolerance, which
        // also removes collinear points.
        let turn_tol = extent * extent * 1e-10;
        let mut hull: Vec<Vec2> = Vec::with_capacity(sorted.len() * 2);
        for pass in 0..2 {
            let start = hull.len();
            let iter: Box<dyn Iterator<Item = &Vec2>> =
                if pass == 0 { Box::new(sorted.iter()) } else { Box::new(sorted.iter().rev()) };
            for &p in iter {
                while hull.len() >= start + 2 {
                    let a = hull[hull.len() - 2];
                    let b = hull[hull.len() - 1];
                    if (b - a).perp_dot(p - a) > turn_tol {
                        break;
                    }
                    hull.pop();
                }
                hull.push(p);
            }
            hull.pop(); // the last point of each chain starts the other one
        }
        if hull.len() < 3 {
            return Err(ShapeError::Collinear);
        }
        if hull.len() > MAX_POLYGON_VERTICES {
            return Err(ShapeError::TooManyVertices);
        }
        Polygon::from_ccw(&hull, radius)
    }

    /// A box with the given half-extents centred on the origin, rounded by `radius`.
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] or [`ShapeError::NonPositiveSize`] for bad half-extents,
    /// [`ShapeError::NegativeRadius`] for `radius < 0`, [`ShapeError::TooLarge`] when a
    /// half-extent plus the radius exceeds [`MAX_SHAPE_SIZE`](super::MAX_SHAPE_SIZE),
    /// [`ShapeError::TooSmall`] when it is smaller than [`MIN_SHAPE_SIZE`](super::MIN_SHAPE_SIZE)
    /// across.
    pub fn rounded_box(half_extents: Vec2, radius: f32) -> Result<Polygon, ShapeError> {
        super::check_half_extents(half_extents)?;
        if !radius.is_finite() {
            return Err(ShapeError::NonFinite);
        }
        if radius < 0.0 {
            return Err(ShapeError::NegativeRadius);
        }
        let (hx, hy) = (half_extents.x, half_extents.y);
        Polygon::from_ccw(&[Vec2::new(-hx, -hy), Vec2::new(hx, -hy), Vec2::new(hx, hy), Vec2::new(-hx, hy)], radius)
    }

    /// A regular polygon with `n` vertices (3 to 8) on a circle of `circumradius`, the first
    /// vertex on the +x axis.
    ///
    /// # Errors
    /// As [`Polygon::hull`], plus [`ShapeError::TooManyVertices`] or [`ShapeError::TooFewPoints`]
    /// for `n` outside 3..=8 and [`ShapeError::NonPositiveSize`] for a circumradius `<= 0`.
    pub fn regular(n: usize, circumradius: f32, radius: f32) -> Result<Polygon, ShapeError> {
        if !circumradius.is_finite() {
            return Err(ShapeError::NonFinite);
        }
        if circumradius <= 0.0 {
            return Err(ShapeError::NonPositiveSize);
        }
        if n < 3 {
            return Err(ShapeError::TooFewPoints);
        }
        if n > MAX_POLYGON_VERTICES {
            return Err(ShapeError::TooManyVertices);
        }
        let mut pts = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (i, p) in pts.iter_mut().enumerate().take(n) {
            let a = std::f32::consts::TAU * i as f32 / n as f32;
            let (s, c) = crate::trig::sin_cos(a);
            *p = circumradius * Vec2::new(c, s);
        }
        Polygon::hull(&pts[..n], radius)
    }

    /// A polygon from its [`Polygon::vertices`] and [`Polygon::radius`] as another polygon
    /// returned them, for a deserializer: the normals and centroid are recomputed (equal to the
    /// original's for a polygon from the constructors) and every check of [`Shape::validate`]
    /// applies, so vertices that are not convex and counter-clockwise are refused.
    #[cfg(feature = "serde")]
    pub(crate) fn from_vertices(vs: &[Vec2], radius: f32) -> Result<Polygon, ShapeError> {
        if vs.len() < 3 {
            return Err(ShapeError::TooFewPoints);
        }
        if vs.len() > MAX_POLYGON_VERTICES {
            return Err(ShapeError::TooManyVertices);
        }
        if !radius.is_finite() || vs.iter().any(|v| !v.is_finite()) {
            return Err(ShapeError::NonFinite);
        }
        if radius < 0.0 {
            return Err(ShapeError::NegativeRadius);
        }
        Polygon::from_ccw(vs, radius)
    }

    /// Builds from vertices already convex and counter-clockwise; computes normals and centroid.
    fn from_ccw(vs: &[Vec2], radius: f32) -> Result<Polygon, ShapeError> {
        let n = vs.len();

        let mut poly = Polygon::zeroed();
        poly.count = n as u32;
        poly.radius = radius;
        poly.vertices[..n].copy_from_slice(vs);
        for i in 0..n {
            let e = vs[(i + 1) % n] - vs[i];
            // Below this length the squared length is subnormal: the normal comes out up to 1%
            // off unit length and `Shape::validate`'s own edge checks lose their precision, so it
            // would refuse polygons built here (1e-22 triangles, a 1e-21 × 5.6e4 rounded box;
            // the `polygon` fuzz target tries such inputs). Such end points are not distinct in
            // f32 arithmetic.
            if e.abs().max_element() < MIN_EDGE {
                return Err(ShapeError::TooFewPoints);
            }
            let normal = Vec2::new(e.y, -e.x).normalize_or_zero();
            if normal == Vec2::ZERO {
                return Err(ShapeError::TooFewPoints);
            }
            poly.normals[i] = normal;
        }
        // Area-weighted centroid, triangulated from the first vertex for accuracy far from the
        // origin.
        let origin = vs[0];
        let (mut area, mut c) = (0.0f32, Vec2::ZERO);
        for i in 1..n - 1 {
            let (e1, e2) = (vs[i] - origin, vs[i + 1] - origin);
            let a = 0.5 * e1.perp_dot(e2);
            area += a;
            c += a * (e1 + e2) / 3.0;
        }
        if !area.is_finite() {
            return Err(ShapeError::TooLarge);
        }
        if area <= 0.0 {
            return Err(ShapeError::Collinear);
        }
        poly.centroid = origin + c / area;
        // Area times edge length overflows f32 for coordinates beyond about 1e13 (a 9.2e4 ×
        // 2.8e17 rounded box gets an infinite centroid, which `Shape::validate` refuses).
        if !poly.centroid.is_finite() {
            return Err(ShapeError::TooLarge);
        }
        // What a constructor builds must pass `Shape::validate` (its size limit, and its
        // convexity test: the hull's turn test rounds differently far from the origin), so it
        // runs the very same checks.
        super::validate_polygon(&poly)?;
        Ok(poly)
    }

    /// The vertices, counter-clockwise.
    #[inline]
    #[must_use]
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices[..self.count as usize]
    }

    /// The unit outward normal of each edge; `normals()[i]` belongs to the edge from vertex `i`.
    #[inline]
    #[must_use]
    pub fn normals(&self) -> &[Vec2] {
        &self.normals[..self.count as usize]
    }

    /// The area centroid of the core polygon.
    #[inline]
    #[must_use]
    pub fn centroid(&self) -> Vec2 {
        self.centroid
    }

    /// The rounding radius (`0.0` for a sharp polygon).
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The number of vertices, 3 to 8.
    #[inline]
    #[must_use]
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// The polygon scaled about the origin by `s > 0` (the radius too).
    pub(crate) fn scaled(&self, s: f32) -> Polygon {
        let mut p = *self;
        for v in &mut p.vertices[..self.count as usize] {
            *v *= s;
        }
        p.centroid *= s;
        p.radius *= s;
        p
    }
}

/// The convexity test `Shape::validate` applies to a polygon: each normal is unit and
/// perpendicular to its edge, the winding is counter-clockwise, and every vertex lies behind
/// every edge, within tolerances relative to the edge's length (f32 rounding of the normals and
/// the vertex differences).
pub(super) fn check_convex(vs: &[Vec2], normals: &[Vec2]) -> Result<(), ShapeError> {
    let n = vs.len();
    for (i, &nrm) in normals.iter().enumerate() {
        let (a, b) = (vs[i], vs[(i + 1) % n]);
        let e = b - a;
        if (nrm.length_squared() - 1.0).abs() > 1e-4 || nrm.dot(e).abs() > 1e-3 * e.length() {
            return Err(ShapeError::Collinear);
        }
        if vs.iter().any(|v| nrm.dot(*v - a) > 1e-4 * e.length().max(1e-6)) || e.perp_dot(nrm) >= 0.0 {
            return Err(ShapeError::Collinear);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_drops_interior_duplicate_and_collinear_points() {
        let pts = [
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(1.0, 0.0), // on an edge
            Vec2::new(2.0, 2.0),
            Vec2::new(0.0, 2.0),
            Vec2::new(1.0, 1.0), // interior
            Vec2::new(2.0, 2.0), // duplicate
        ];
        let p = Polygon::hull(&pts, 0.0).unwrap();
        assert_eq!(p.count(), 4);
        assert!((p.centroid() - Vec2::ONE).length() < 1e-6);
        for i in 0..4 {
            let (a, b) = (p.vertices()[i], p.vertices()[(i + 1) % 4]);
            // CCW: every other vertex is on the inner side of each edge.
            assert!((b - a).perp_dot(p.vertices()[(i + 2) % 4] - a) > 0.0);
            assert!((p.normals()[i].length() - 1.0).abs() < 1e-6);
            assert!(p.normals()[i].dot(b - a).abs() < 1e-6);
        }
    }

    #[test]
    fn hull_rejects_bad_input() {
        assert_eq!(Polygon::hull(&[Vec2::ZERO, Vec2::X], 0.0), Err(ShapeError::TooFewPoints));
        assert_eq!(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::X], 0.0), Err(ShapeError::TooFewPoints));
        assert_eq!(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::new(3.0, 0.0)], 0.0), Err(ShapeError::Collinear));
        assert_eq!(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::new(f32::NAN, 1.0)], 0.0), Err(ShapeError::NonFinite));
        assert_eq!(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::Y], -1.0), Err(ShapeError::NegativeRadius));
        assert_eq!(Polygon::hull(&[Vec2::ZERO, Vec2::X, Vec2::Y], f32::INFINITY), Err(ShapeError::NonFinite));
        let circle: Vec<Vec2> = (0..12).map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / 12.0)).collect();
        assert_eq!(Polygon::hull(&circle, 0.0), Err(ShapeError::TooManyVertices));
        assert!(Polygon::regular(8, 1.0, 0.0).is_ok());
        assert_eq!(Polygon::regular(9, 1.0, 0.0), Err(ShapeError::TooManyVertices));
    }
}
