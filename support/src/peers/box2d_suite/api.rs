//! Safe faces of the Box2D calls the scene builders make: its default definitions and shape
//! makers (value functions of its C API), its world settings and revolute joints, and the
//! inline math of its `math_functions.h`, which the bindings do not carry.

use boxdd_sys::ffi::{
    b2Body_GetLocalPoint, b2BodyDef, b2BodyId, b2BodyType, b2BodyType_b2_dynamicBody, b2BodyType_b2_kinematicBody,
    b2BodyType_b2_staticBody, b2ChainDef, b2ComputeCosSin, b2ComputeHull, b2CreateRevoluteJoint, b2DefaultBodyDef,
    b2DefaultChainDef, b2DefaultRevoluteJointDef, b2DefaultShapeDef, b2DestroyJoint, b2JointId, b2MakeBox,
    b2MakeOffsetBox, b2MakePolygon, b2MakeRoundedBox, b2MakeSquare, b2Polygon, b2RevoluteJointDef, b2Rot, b2ShapeDef,
    b2Vec2, b2World_EnableSleeping, b2World_SetGravity, b2WorldId,
};

pub(super) const STATIC: b2BodyType = b2BodyType_b2_staticBody;
pub(super) const KINEMATIC: b2BodyType = b2BodyType_b2_kinematicBody;
pub(super) const DYNAMIC: b2BodyType = b2BodyType_b2_dynamicBody;

pub(super) const ROT_IDENTITY: b2Rot = b2Rot { c: 1.0, s: 0.0 };

pub(super) fn vec2(x: f32, y: f32) -> b2Vec2 {
    b2Vec2 { x, y }
}

/// `b2DefaultBodyDef` of the given type at `(x, y)`.
pub(super) fn body_def(type_: b2BodyType, x: f32, y: f32) -> b2BodyDef {
    // SAFETY: a plain value function of the C API.
    let mut def = unsafe { b2DefaultBodyDef() };
    def.type_ = type_;
    def.position = vec2(x, y);
    def
}

/// `b2DefaultShapeDef`.
pub(super) fn shape_def() -> b2ShapeDef {
    // SAFETY: a plain value function of the C API.
    unsafe { b2DefaultShapeDef() }
}

/// `b2DefaultChainDef`.
pub(super) fn chain_def() -> b2ChainDef {
    // SAFETY: a plain value function of the C API.
    unsafe { b2DefaultChainDef() }
}

/// `b2DefaultRevoluteJointDef`.
pub(super) fn revolute_def() -> b2RevoluteJointDef {
    // SAFETY: a plain value function of the C API.
    unsafe { b2DefaultRevoluteJointDef() }
}

/// `b2MakeBox`: a box centred on the origin.
pub(super) fn make_box(hx: f32, hy: f32) -> b2Polygon {
    // SAFETY: a plain value function of the C API.
    unsafe { b2MakeBox(hx, hy) }
}

/// `b2MakeSquare`.
pub(super) fn make_square(h: f32) -> b2Polygon {
    // SAFETY: a plain value function of the C API.
    unsafe { b2MakeSquare(h) }
}

/// `b2MakeOffsetBox` with no rotation.
pub(super) fn make_offset_box(hx: f32, hy: f32, centre: b2Vec2) -> b2Polygon {
    // SAFETY: a plain value function of the C API.
    unsafe { b2MakeOffsetBox(hx, hy, centre, ROT_IDENTITY) }
}

/// `b2MakeRoundedBox`.
pub(super) fn make_rounded_box(hx: f32, hy: f32, radius: f32) -> b2Polygon {
    // SAFETY: a plain value function of the C API.
    unsafe { b2MakeRoundedBox(hx, hy, radius) }
}

/// `b2MakePolygon` of `b2ComputeHull` of the points.
pub(super) fn hull_polygon(points: &[b2Vec2], radius: f32) -> b2Polygon {
    let count = i32::try_from(points.len()).expect("a handful of points");
    // SAFETY: `points` holds `count` initialised points during the call; the hull comes from
    // `b2ComputeHull`, as `b2MakePolygon` requires.
    unsafe {
        let hull = b2ComputeHull(points.as_ptr(), count);
        assert!(hull.count >= 3, "a valid hull");
        b2MakePolygon(&hull, radius)
    }
}

/// `b2ComputeCosSin`: Box2D's own approximation, which its benchmarks place shapes with.
pub(super) fn cos_sin(radians: f32) -> (f32, f32) {
    // SAFETY: a plain value function of the C API.
    let cs = unsafe { b2ComputeCosSin(radians) };
    (cs.cosine, cs.sine)
}

/// `b2MakeRot`.
pub(super) fn make_rot(radians: f32) -> b2Rot {
    let (c, s) = cos_sin(radians);
    b2Rot { c, s }
}

/// `b2RotateVector`.
pub(super) fn rotate(q: b2Rot, v: b2Vec2) -> b2Vec2 {
    vec2(q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y)
}

/// `b2InvRotateVector`.
pub(super) fn inv_rotate(q: b2Rot, v: b2Vec2) -> b2Vec2 {
    vec2(q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y)
}

/// `b2MulSV`.
pub(super) fn scale(s: f32, v: b2Vec2) -> b2Vec2 {
    vec2(s * v.x, s * v.y)
}

/// `b2World_EnableSleeping`.
pub(super) fn enable_sleeping(world: b2WorldId, flag: bool) {
    // SAFETY: a live world, not stepping (the builders run between steps).
    unsafe { b2World_EnableSleeping(world, flag) }
}

/// `b2World_SetGravity`.
pub(super) fn set_gravity(world: b2WorldId, gravity: b2Vec2) {
    // SAFETY: as in `enable_sleeping`.
    unsafe { b2World_SetGravity(world, gravity) }
}

/// `b2Body_GetLocalPoint`.
pub(super) fn local_point(body: b2BodyId, world_point: b2Vec2) -> b2Vec2 {
    // SAFETY: a live body of a live world, not stepping.
    unsafe { b2Body_GetLocalPoint(body, world_point) }
}

/// `b2CreateRevoluteJoint`.
pub(super) fn revolute_joint(world: b2WorldId, def: &b2RevoluteJointDef) -> b2JointId {
    // SAFETY: a live world, not stepping; the definition names two of its live bodies and is
    // read during the call only.
    unsafe { b2CreateRevoluteJoint(world, def) }
}

/// `b2DestroyJoint`, waking nothing.
pub(super) fn destroy_joint(joint: b2JointId) {
    // SAFETY: a live joint of a live world, not stepping; its id is not used after this.
    unsafe { b2DestroyJoint(joint, false) }
}
