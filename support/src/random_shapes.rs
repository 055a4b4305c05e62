//! Random convex shapes shared by the oracle tests (drawn with [`F64Rng`]) and the benches
//! (drawn with [`SplitMix64`]).

use glam::DVec2;
use sapwood::{Shape, Vec2};

use crate::SplitMix64;
use crate::f64_rng::F64Rng;

/// An f64 vector rounded to f32.
#[must_use]
pub fn v2(v: DVec2) -> Vec2 {
    Vec2::new(v.x as f32, v.y as f32)
}

/// A random convex shape of about `size`, of every kind (polygons sharp or rounded, capsules,
/// circles, boxes, rounded boxes, rounded segments, and with `bare_segments` segments of radius
/// 0), its core around `offset` where the kind allows (circles, boxes and rounded boxes are
/// centred on their origin). Only shapes that pass `Shape::validate`.
pub fn random_convex_at(rng: &mut F64Rng, size: f64, offset: DVec2, bare_segments: bool) -> Shape {
    loop {
        let s = match rng.below(if bare_segments { 8 } else { 7 }) {
            0 | 1 => {
                let n = 3 + rng.below(6) as usize;
                let stretch = DVec2::new(1.0, rng.range(0.2, 1.0));
                let pts: Vec<Vec2> =
                    (0..n).map(|_| v2(offset + rng.dir() * size * rng.range(0.3, 1.0) * stretch)).collect();
                let r = if rng.chance(0.5) { 0.0 } else { size * rng.log_range(0.005, 0.5) };
                Shape::polygon(&pts, r as f32)
            }
            2 => {
                let a = rng.dir() * size * rng.range(0.05, 1.0);
                Shape::capsule(v2(offset + a), v2(offset - a), (size * rng.range(0.05, 0.6)) as f32)
            }
            3 => Shape::circle((size * rng.range(0.1, 1.0)) as f32),
            4 => Shape::cuboid(v2(DVec2::new(size * rng.range(0.05, 1.0), size * rng.range(0.05, 1.0)))),
            5 => Shape::rounded_box(
                v2(DVec2::new(size * rng.range(0.05, 1.0), size * rng.range(0.05, 1.0))),
                (size * rng.log_range(0.005, 0.5)) as f32,
            ),
            6 if bare_segments => {
                let a = rng.dir() * size * rng.range(0.05, 1.0);
                Shape::segment(v2(offset + a), v2(offset - a))
            }
            _ => {
                let a = rng.dir() * size * rng.range(0.05, 1.0);
                Shape::rounded_segment(v2(offset + a), v2(offset - a), (size * rng.range(0.05, 0.6)) as f32)
            }
        };
        if let Ok(s) = s
            && s.validate().is_ok()
        {
            return s;
        }
    }
}

/// A random convex hull of 3–8 vertices with the origin strictly inside, rounded by `radius`.
pub fn random_hull(rng: &mut F64Rng, size: f64, radius: f32) -> Shape {
    loop {
        let n = 3 + rng.below(6) as usize;
        let stretch = DVec2::new(1.0, rng.range(0.25, 1.0));
        let pts: Vec<Vec2> = (0..n).map(|_| v2(rng.dir() * size * rng.range(0.3, 1.0) * stretch)).collect();
        if let Ok(s) = Shape::polygon(&pts, radius)
            && let Shape::Polygon(p) = &s
            && p.vertices().iter().zip(p.normals()).all(|(v, n)| n.dot(*v) > 0.05 * size as f32)
        {
            return s;
        }
    }
}

/// Log-uniform in `[lo, hi]`.
pub fn log_range(rng: &mut SplitMix64, lo: f32, hi: f32) -> f32 {
    (lo.ln() + (hi.ln() - lo.ln()) * rng.next_f32()).exp()
}

/// A unit vector at a uniform angle.
pub fn dir(rng: &mut SplitMix64) -> Vec2 {
    Vec2::from_angle(rng.range(-std::f32::consts::PI, std::f32::consts::PI))
}

/// A random convex hull of 3–8 vertices of `size` with the origin well inside, rounded by
/// `radius` (the benches' generator).
pub fn hull(rng: &mut SplitMix64, size: f32, radius: f32) -> Shape {
    loop {
        let n = 3 + (rng.next_u64() % 6) as usize;
        let pts: Vec<Vec2> = (0..n).map(|_| dir(rng) * size * rng.range(0.3, 1.0)).collect();
        if let Ok(s) = Shape::polygon(&pts, radius)
            && let Shape::Polygon(p) = &s
            && p.vertices().iter().zip(p.normals()).all(|(v, n)| n.dot(*v) > 0.05 * size)
        {
            return s;
        }
    }
}

/// The convex kinds the benches draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvexKind {
    /// A circle of radius `size`.
    Circle,
    /// A capsule through the origin, core up to `size` long each way.
    Capsule,
    /// A box with half-extents up to `size`.
    Cuboid,
    /// A sharp hull ([`hull`]).
    Polygon,
    /// A rounded box or a rounded hull, rounding log-uniform in 0.5%–50% of `size`.
    Rounded,
}

/// A random convex shape of `kind` and `size` around its origin (the benches' generator).
pub fn convex(rng: &mut SplitMix64, kind: ConvexKind, size: f32) -> Shape {
    match kind {
        ConvexKind::Circle => Shape::circle(size).unwrap(),
        ConvexKind::Capsule => {
            let d = dir(rng) * size * rng.range(0.1, 1.0);
            Shape::capsule(-d, d, size * rng.range(0.05, 0.6)).unwrap()
        }
        ConvexKind::Cuboid => {
            Shape::cuboid(Vec2::new(size * rng.range(0.05, 1.0), size * rng.range(0.05, 1.0))).unwrap()
        }
        ConvexKind::Polygon => hull(rng, size, 0.0),
        ConvexKind::Rounded => {
            let r = size * log_range(rng, 0.005, 0.5);
            if rng.next_f32() < 0.5 {
                Shape::rounded_box(Vec2::new(size * rng.range(0.05, 1.0), size * rng.range(0.05, 1.0)), r).unwrap()
            } else {
                hull(rng, size, r)
            }
        }
    }
}
