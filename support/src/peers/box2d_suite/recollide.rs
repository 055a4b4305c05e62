//! Box2D's touching contacts collided afresh by its own manifold functions at the poses last
//! handed to the mirror: what Box2D's collide pass would have made of them with contact
//! recycling off and every body awake (a recycled manifold is an estimate from the bodies'
//! motion, and a sleeping body's manifold dates from the step it fell asleep).
//!
//! A contact whose manifold has no points is apart by more than Box2D's speculative distance
//! (it was computed afresh: recycling keeps only manifolds with points), so the touching
//! contacts are every pair Box2D could call touching. Each is re-collided as Box2D's
//! `b2UpdateContact` does: shape B's body transform relative to shape A's
//! (`b2InvMulWorldTransforms`) into the function its contact registers name for the two shape
//! types, in the contact's order.

use boxdd_sys::ffi::{
    b2CollideCapsuleAndCircle, b2CollideCapsules, b2CollideChainSegmentAndCapsule, b2CollideChainSegmentAndCircle,
    b2CollideChainSegmentAndPolygon, b2CollideCircles, b2CollidePolygonAndCapsule, b2CollidePolygonAndCircle,
    b2CollidePolygons, b2CollideSegmentAndCapsule, b2CollideSegmentAndCircle, b2CollideSegmentAndPolygon,
    b2LocalManifold, b2Rot, b2Shape_GetCapsule, b2Shape_GetChainSegment, b2Shape_GetCircle, b2Shape_GetPolygon,
    b2Shape_GetSegment, b2Shape_GetType, b2ShapeId, b2ShapeType_b2_capsuleShape as CAPSULE,
    b2ShapeType_b2_chainSegmentShape as CHAIN_SEGMENT, b2ShapeType_b2_circleShape as CIRCLE,
    b2ShapeType_b2_polygonShape as POLYGON, b2ShapeType_b2_segmentShape as SEGMENT, b2SimplexCache, b2Transform,
};
use sapwood::Pose;

use super::api::{inv_rotate, vec2};

/// `b2InvMulWorldTransforms`: B's pose in A's frame, in Box2D's arithmetic.
fn relative(a: &Pose, b: &Pose) -> b2Transform {
    let q = b2Rot { c: a.q.c * b.q.c + a.q.s * b.q.s, s: a.q.c * b.q.s - a.q.s * b.q.c };
    let d = vec2(b.p.x - a.p.x, b.p.y - a.p.y);
    b2Transform { p: inv_rotate(b2Rot { c: a.q.c, s: a.q.s }, d), q }
}

/// The manifold Box2D computes for shapes `a` and `b` (in the contact's order) whose bodies
/// are at `pa` and `pb`; `None` for a pair of types Box2D never collides.
pub(super) fn manifold(a: b2ShapeId, pa: &Pose, b: b2ShapeId, pb: &Pose) -> Option<b2LocalManifold> {
    let xf = relative(pa, pb);
    let mut cache = b2SimplexCache { count: 0, indexA: [0; 3], indexB: [0; 3] };
    // SAFETY: shapes of a live world, outside `b2World_Step`; each getter matches the shape's
    // type, and the geometry and cache live across the call that reads them.
    unsafe {
        let (ta, tb) = (b2Shape_GetType(a), b2Shape_GetType(b));
        let m = match (ta, tb) {
            (CIRCLE, CIRCLE) => b2CollideCircles(&b2Shape_GetCircle(a), &b2Shape_GetCircle(b), xf),
            (CAPSULE, CIRCLE) => b2CollideCapsuleAndCircle(&b2Shape_GetCapsule(a), &b2Shape_GetCircle(b), xf),
            (CAPSULE, CAPSULE) => b2CollideCapsules(&b2Shape_GetCapsule(a), &b2Shape_GetCapsule(b), xf),
            (POLYGON, CIRCLE) => b2CollidePolygonAndCircle(&b2Shape_GetPolygon(a), &b2Shape_GetCircle(b), xf),
            (POLYGON, CAPSULE) => b2CollidePolygonAndCapsule(&b2Shape_GetPolygon(a), &b2Shape_GetCapsule(b), xf),
            (POLYGON, POLYGON) => b2CollidePolygons(&b2Shape_GetPolygon(a), &b2Shape_GetPolygon(b), xf),
            (SEGMENT, CIRCLE) => b2CollideSegmentAndCircle(&b2Shape_GetSegment(a), &b2Shape_GetCircle(b), xf),
            (SEGMENT, CAPSULE) => b2CollideSegmentAndCapsule(&b2Shape_GetSegment(a), &b2Shape_GetCapsule(b), xf),
            (SEGMENT, POLYGON) => b2CollideSegmentAndPolygon(&b2Shape_GetSegment(a), &b2Shape_GetPolygon(b), xf),
            (CHAIN_SEGMENT, CIRCLE) => {
                b2CollideChainSegmentAndCircle(&b2Shape_GetChainSegment(a), &b2Shape_GetCircle(b), xf)
            }
            (CHAIN_SEGMENT, CAPSULE) => {
                b2CollideChainSegmentAndCapsule(&b2Shape_GetChainSegment(a), &b2Shape_GetCapsule(b), xf, &mut cache)
            }
            (CHAIN_SEGMENT, POLYGON) => {
                b2CollideChainSegmentAndPolygon(&b2Shape_GetChainSegment(a), &b2Shape_GetPolygon(b), xf, &mut cache)
            }
            _ => return None,
        };
        Some(m)
    }
}
