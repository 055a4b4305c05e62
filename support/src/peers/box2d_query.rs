//! Box2D v3's shape queries (`b2ShapeDistance`, `b2ShapeCast`, `b2TimeOfImpact`) on sapwood's
//! shapes and poses, for the query benchmark: each convex shape becomes the `b2ShapeProxy` of
//! its core and radius, exactly the shape sapwood queries.

use boxdd_sys::ffi::{
    b2DistanceInput, b2MakeProxy, b2Rot, b2ShapeCast, b2ShapeCastPairInput, b2ShapeDistance, b2ShapeProxy,
    b2SimplexCache, b2Sweep, b2TOIInput, b2TimeOfImpact, b2Transform, b2Vec2,
};
use sapwood::{Pose, Shape, Vec2};

fn v(p: Vec2) -> b2Vec2 {
    b2Vec2 { x: p.x, y: p.y }
}

fn xf(p: &Pose) -> b2Transform {
    b2Transform { p: v(p.p), q: b2Rot { c: p.q.c, s: p.q.s } }
}

/// The Box2D proxy of a convex shape (`None` for a compound).
#[must_use]
pub fn proxy(shape: &Shape) -> Option<b2ShapeProxy> {
    let (points, radius): (Vec<Vec2>, f32) = match shape {
        Shape::Circle(c) => (vec![Vec2::ZERO], c.radius),
        Shape::Capsule(c) => (vec![c.a, c.b], c.radius),
        Shape::Cuboid(b) => {
            let h = b.half_extents;
            (vec![-h, Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)], 0.0)
        }
        Shape::Polygon(p) => (p.vertices().to_vec(), p.radius()),
        _ => return None,
    };
    let pts: Vec<b2Vec2> = points.into_iter().map(v).collect();
    // SAFETY: `pts` holds `pts.len()` (1..=8) initialised points for the call's duration.
    Some(unsafe { b2MakeProxy(pts.as_ptr(), pts.len() as i32, radius) })
}

fn relative(pa: &Pose, pb: &Pose) -> b2Transform {
    xf(&pa.inv_mul(pb))
}

/// `b2ShapeDistance` with radii: the distance between the shapes.
#[must_use]
pub fn distance(a: &b2ShapeProxy, pa: &Pose, b: &b2ShapeProxy, pb: &Pose) -> f32 {
    let input = b2DistanceInput { proxyA: *a, proxyB: *b, transform: relative(pa, pb), useRadii: true };
    let mut cache = b2SimplexCache { count: 0, indexA: [0; 3], indexB: [0; 3] };
    // SAFETY: plain-data input and cache; no simplex buffer is asked for (null, capacity 0).
    unsafe { b2ShapeDistance(&input, &mut cache, std::ptr::null_mut(), 0) }.distance
}

/// `b2ShapeCast` of B translating by `translation_b` against A: the fraction of the hit.
#[must_use]
pub fn cast(a: &b2ShapeProxy, pa: &Pose, b: &b2ShapeProxy, pb: &Pose, translation_b: Vec2) -> Option<f32> {
    let input = b2ShapeCastPairInput {
        proxyA: *a,
        proxyB: *b,
        transform: relative(pa, pb),
        translationB: v(pa.q.inv_rotate(translation_b)),
        maxFraction: 1.0,
        canEncroach: false,
    };
    // SAFETY: plain-data input.
    let out = unsafe { b2ShapeCast(&input) };
    out.hit.then_some(out.fraction)
}

/// `b2TimeOfImpact` of two sweeps turning about their poses' origins: the fraction reached.
#[must_use]
pub fn time_of_impact(a: &b2ShapeProxy, sa: (&Pose, &Pose), b: &b2ShapeProxy, sb: (&Pose, &Pose)) -> f32 {
    let sweep = |(p0, p1): (&Pose, &Pose)| b2Sweep {
        localCenter: b2Vec2 { x: 0.0, y: 0.0 },
        c1: v(p0.p),
        c2: v(p1.p),
        q1: b2Rot { c: p0.q.c, s: p0.q.s },
        q2: b2Rot { c: p1.q.c, s: p1.q.s },
    };
    let input = b2TOIInput { proxyA: *a, proxyB: *b, sweepA: sweep(sa), sweepB: sweep(sb), maxFraction: 1.0 };
    // SAFETY: plain-data input.
    unsafe { b2TimeOfImpact(&input) }.fraction
}
