//! Mass, centre of mass and rotational inertia of a shape of uniform density.
//!
//! Every solid shape is a convex core grown by a radius, so its area splits exactly into pieces
//! with closed forms (a rounded box shown):
//!
//! ```text
//!     ╭─┬─────────────┬─╮
//!     │ │    strip    │ │    a sector of radius r at each vertex, its angle the exterior
//!     ├─┼─────────────┼─┤    angle there (the angles sum to 2π: the sectors make one disc)
//!     │s│             │s│
//!     │t│    core     │t│    the core polygon: a fan of triangles from a point o inside it
//!     │r│      o      │r│    (Box2D's `b2ComputePolygonMass`, which approximates the rounding
//!     │i│             │i│    by pushing the vertices out; here it is exact)
//!     ├─┼─────────────┼─┤
//!     │ │    strip    │ │    a strip `edge length × r` outside each edge
//!     ╰─┴─────────────┴─╯
//! ```
//!
//! A capsule is a rectangle and two half discs (Box2D's `b2ComputeCapsuleMass`).
//!
//! Each piece contributes its area, its area-weighted centroid and its second moment about `o`;
//! the sums give the centroid, and the parallel-axis theorem moves the second moment from `o`
//! to it. The sums run in f64 about `o`, a point inside the shape, not the local origin: for a
//! polygon far from its origin, the second moment about the origin is huge and nearly equal to
//! the `mass × |centre|²` term it would lose to cancellation.

use glam::{DVec2, Vec2};

use super::{Capsule, Chain, Compound, MAX_POLYGON_VERTICES, Polygon, Shape, ShapeError};

/// A shape's mass properties at a uniform density, in the shape's local frame.
///
/// ```
/// use sapwood::{Shape, Vec2};
/// let plank = Shape::cuboid(Vec2::new(2.0, 0.5))?; // 4 × 1
/// let m = plank.mass_properties(3.0)?;
/// assert_eq!(m.mass, 12.0);
/// assert_eq!(m.center, Vec2::ZERO);
/// assert!((m.inertia - 12.0 * (16.0 + 1.0) / 12.0).abs() < 1e-5); // m (w² + h²) / 12
/// # Ok::<(), sapwood::ShapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MassProperties {
    /// Density times area.
    pub mass: f32,
    /// The centre of mass, in the shape's local frame.
    pub center: Vec2,
    /// The rotational inertia about the centre of mass (the polar moment `∫ ρ |x - center|² dA`).
    pub inertia: f32,
}

/// Unit-density moments in f64: area, centroid, and polar second moment about the centroid.
#[derive(Clone, Copy, Debug)]
struct Moments {
    area: f64,
    center: DVec2,
    inertia: f64,
}

impl Shape {
    /// The mass, centre of mass and rotational inertia of the shape filled at `density` (mass
    /// per unit area), in its local frame.
    ///
    /// - Circles, capsules, boxes and polygons are exact, rounded polygons too: a polygon with
    ///   a radius is the core polygon plus a rectangle along each edge and a circular sector at
    ///   each vertex (parry2d 0.31 ignores the rounding, and its capsule uses the 3D
    ///   hemisphere's centroid offset `3r/8` where the half disc's is `4r/3π`).
    /// - A rounded segment (radius `> 0`) is a capsule.
    /// - A bare segment (radius 0) and a chain have no area: mass 0 and inertia 0, as in Box2D
    ///   and parry2d, with the centre at the mean of their vertices (those two put it at the
    ///   origin; a massless shape's centre weighs nothing in a sum).
    /// - A compound is the sum of its parts at their local poses (the parallel-axis theorem
    ///   moves each part's inertia to the compound's centre). Overlapping parts are counted
    ///   once per part, as in Box2D and parry2d: the mass of the union is not computed. A
    ///   compound of massless parts has its centre at the mean of their centres.
    /// - At density 0 the centre is still the centroid.
    ///
    /// ```
    /// use sapwood::{Shape, Vec2};
    /// use std::f32::consts::PI;
    /// let ball = Shape::circle(2.0)?.mass_properties(1.5)?;
    /// assert!((ball.mass - 1.5 * PI * 4.0).abs() < 1e-5);
    /// assert!((ball.inertia - ball.mass * 4.0 / 2.0).abs() < 1e-4); // m r² / 2
    /// let pill = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5)?.mass_properties(1.0)?;
    /// assert!((pill.mass - (2.0 + PI * 0.25)).abs() < 1e-6); // the box between the ends, one disc
    /// assert!(Shape::circle(1.0)?.mass_properties(-1.0).is_err());
    /// # Ok::<(), sapwood::ShapeError>(())
    /// ```
    ///
    /// # Errors
    /// [`ShapeError::NonFinite`] for a NaN or infinite density, [`ShapeError::NegativeDensity`]
    /// for a negative one, the shape's own error when it fails [`Shape::validate`] (a shape
    /// assembled from fields or bytes), and [`ShapeError::TooLarge`] when the mass or inertia
    /// overflows f32.
    pub fn mass_properties(&self, density: f32) -> Result<MassProperties, ShapeError> {
        if !density.is_finite() {
            return Err(ShapeError::NonFinite);
        }
        if density < 0.0 {
            return Err(ShapeError::NegativeDensity);
        }
        self.validate()?;
        let m = moments(self);
        let rho = f64::from(density);
        // `+ 0.0` turns a density of -0.0 into a mass of +0.0.
        let mass = (rho * m.area) as f32 + 0.0;
        let inertia = (rho * m.inertia) as f32 + 0.0;
        let center = Vec2::new(m.center.x as f32, m.center.y as f32);
        if !mass.is_finite() || !inertia.is_finite() {
            return Err(ShapeError::TooLarge);
        }
        Ok(MassProperties { mass, center, inertia })
    }
}

fn d(v: Vec2) -> DVec2 {
    DVec2::new(f64::from(v.x), f64::from(v.y))
}

/// A shape's unit-density moments (a valid shape: the caller validated it).
fn moments(shape: &Shape) -> Moments {
    match shape {
        Shape::Circle(c) => {
            let r = f64::from(c.radius);
            let area = std::f64::consts::PI * r * r;
            Moments { area, center: DVec2::ZERO, inertia: area * r * r / 2.0 }
        }
        Shape::Capsule(c) => capsule(c),
        Shape::Segment(s) if s.radius > 0.0 => capsule(&s.as_capsule()),
        Shape::Segment(s) => massless(0.5 * (d(s.a) + d(s.b))),
        Shape::Cuboid(b) => {
            let (hx, hy) = (f64::from(b.half_extents.x), f64::from(b.half_extents.y));
            let area = 4.0 * hx * hy;
            Moments { area, center: DVec2::ZERO, inertia: area * (hx * hx + hy * hy) / 3.0 }
        }
        Shape::Polygon(p) => polygon(p),
        Shape::Compound(c) => compound(c),
        Shape::Chain(c) => chain(c),
    }
}

fn massless(center: DVec2) -> Moments {
    Moments { area: 0.0, center, inertia: 0.0 }
}

/// A rectangle `length × 2r` between the ends plus two half discs. A half disc's centroid lies
/// `4r / 3π` beyond its end, and its inertia about that centroid is its inertia about the end,
/// `m r² / 2` for half the mass, less `m c²`: the two halves about the capsule's centre give
/// `m_disc (r²/2 + L²/4 + L c)`.
fn capsule(c: &Capsule) -> Moments {
    let (a, b, r) = (d(c.a), d(c.b), f64::from(c.radius));
    let l = (b - a).length();
    let rect = 2.0 * r * l;
    let disc = std::f64::consts::PI * r * r;
    let offset = 4.0 * r / (3.0 * std::f64::consts::PI);
    let inertia = rect * (l * l + 4.0 * r * r) / 12.0 + disc * (r * r / 2.0 + l * l / 4.0 + l * offset);
    Moments { area: rect + disc, center: 0.5 * (a + b), inertia }
}

/// The core's fan of triangles, the edge rectangles and the vertex sectors, summed about the
/// mean of the vertices (inside the polygon, so the sums stay near the size of the result).
fn polygon(p: &Polygon) -> Moments {
    let n = p.count();
    let mut vs = [DVec2::ZERO; MAX_POLYGON_VERTICES];
    for (w, v) in vs.iter_mut().zip(p.vertices()) {
        *w = d(*v);
    }
    let o = vs[..n].iter().sum::<DVec2>() / n as f64;
    // The outward normals of the f64 edges (the stored ones are rounded to f32).
    let mut ns = [DVec2::ZERO; MAX_POLYGON_VERTICES];
    for i in 0..n {
        let e = vs[(i + 1) % n] - vs[i];
        ns[i] = DVec2::new(e.y, -e.x).normalize();
    }
    let r = f64::from(p.radius);
    // Area, first moment about o, second moment about o.
    let (mut area, mut first, mut second) = (0.0, DVec2::ZERO, 0.0);
    for i in 0..n {
        let (e1, e2) = (vs[i] - o, vs[(i + 1) % n] - o);
        // Triangle (o, v_i, v_i+1): area D/2, centroid (e1 + e2)/3, and ∫|x|² = D/12 (e1·e1 +
        // e1·e2 + e2·e2), D the cross product (positive: counter-clockwise, o inside).
        let cross = e1.perp_dot(e2);
        area += 0.5 * cross;
        first += (0.5 * cross) * (e1 + e2) / 3.0;
        second += cross / 12.0 * (e1.length_squared() + e1.dot(e2) + e2.length_squared());
        if r > 0.0 {
            // The rectangle outside edge i: centroid half a radius out from the edge's middle,
            // inertia about it (L² + r²)/12 per unit area.
            let len = (e2 - e1).length();
            let rect = len * r;
            let c = 0.5 * (e1 + e2) + 0.5 * r * ns[i];
            area += rect;
            first += rect * c;
            second += rect * ((len * len + r * r) / 12.0 + c.length_squared());
            // The sector at vertex i + 1, between the normals of edges i and i + 1: angle θ,
            // centroid 4 r sin(θ/2) / 3θ out along the bisector, ∫|x - apex|² = θ r⁴ / 4.
            let (n0, n1) = (ns[i], ns[(i + 1) % n]);
            let theta = crate::trig::atan2_f64(n0.perp_dot(n1), n0.dot(n1));
            if theta > 0.0 {
                let sector = 0.5 * theta * r * r;
                let bisector = (n0 + n1).normalize();
                let reach = 4.0 * r * crate::trig::sin_cos_f64(0.5 * theta).0 / (3.0 * theta);
                let c = e2 + reach * bisector;
                let about_apex = theta * (r * r) * (r * r) / 4.0;
                area += sector;
                first += sector * c;
                // Apex to centroid, then centroid to o.
                second += about_apex - sector * reach * reach + sector * c.length_squared();
            }
        }
    }
    let centroid = first / area;
    Moments { area, center: o + centroid, inertia: second - area * centroid.length_squared() }
}

/// The parts at their local poses, combined about the area-weighted centre.
fn compound(c: &Compound) -> Moments {
    let placed: Vec<Moments> = c
        .parts()
        .iter()
        .map(|(pose, part)| {
            let m = moments(part);
            // Exact in f64: the f32 pose's own cosine and sine.
            let (cos, sin) = (f64::from(pose.q.c), f64::from(pose.q.s));
            let at = DVec2::new(cos * m.center.x - sin * m.center.y, sin * m.center.x + cos * m.center.y);
            Moments { center: d(pose.p) + at, ..m }
        })
        .collect();
    let area: f64 = placed.iter().map(|m| m.area).sum();
    if area == 0.0 {
        return massless(placed.iter().map(|m| m.center).sum::<DVec2>() / placed.len() as f64);
    }
    let center = placed.iter().map(|m| m.area * m.center).sum::<DVec2>() / area;
    let inertia = placed.iter().map(|m| m.inertia + m.area * (m.center - center).length_squared()).sum();
    Moments { area, center, inertia }
}

fn chain(c: &Chain) -> Moments {
    let vs = c.vertices();
    massless(vs.iter().map(|v| d(*v)).sum::<DVec2>() / vs.len() as f64)
}
