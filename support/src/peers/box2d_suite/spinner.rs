//! `spinner`: capsules, circles and boxes stirred by a motorised bar inside a loop of chain
//! segments, as Box2D's `CreateSpinner` builds it.

use std::f32::consts::PI;

use boxdd_sys::ffi::{b2Capsule, b2Circle, b2SurfaceMaterial};

use super::Driver;
use super::api::{
    DYNAMIC, STATIC, body_def, chain_def, local_point, make_rot, make_rounded_box, make_square, revolute_def,
    revolute_joint, rotate, shape_def, vec2,
};
use super::registry::Registry;

/// Points of the loop.
const LOOP_POINTS: usize = 360;

/// A closed chain of 360 points on a circle of radius 40 about `(0, 32)`, wound clockwise (its
/// front faces in); a bar 40.8 m long (rounded box, never asleep) hinged to the ground at
/// `(0, 12)` and driven at 5 rad/s with unlimited torque; 6,076 bodies (499 when small),
/// capsule, circle and box in turn, in rows of 92 from `(-23, 2)`.
pub(super) fn build(r: &mut Registry, small: bool) -> Driver {
    let ground = r.body(&body_def(STATIC, 0.0, 0.0));
    let q = make_rot(-2.0 * PI / LOOP_POINTS as f32);
    let mut p = vec2(40.0, 0.0);
    let mut points = Vec::with_capacity(LOOP_POINTS);
    for _ in 0..LOOP_POINTS {
        points.push(vec2(p.x, p.y + 32.0));
        p = rotate(q, p);
    }
    let material = b2SurfaceMaterial {
        friction: 0.1,
        restitution: 0.0,
        rollingResistance: 0.0,
        tangentSpeed: 0.0,
        userMaterialId: 0,
        customColor: 0,
    };
    let mut chain = chain_def();
    chain.isLoop = true;
    chain.materials = &material;
    chain.materialCount = 1;
    r.chain(ground, &chain, &points);

    let mut def = body_def(DYNAMIC, 0.0, 12.0);
    def.enableSleep = false;
    let bar = r.body(&def);
    let mut shape = shape_def();
    shape.material.friction = 0.0;
    r.polygon(bar, &shape, &make_rounded_box(0.4, 20.0, 0.2));
    let mut joint = revolute_def();
    joint.base.bodyIdA = ground;
    joint.base.bodyIdB = bar;
    joint.base.localFrameA.p = local_point(ground, def.position);
    joint.enableMotor = true;
    joint.motorSpeed = 5.0;
    joint.maxMotorTorque = f32::MAX;
    revolute_joint(r.world, &joint);
    // The joint does not collide its bodies: the bar passes through the loop.
    r.keep_apart(ground, bar);

    let capsule = b2Capsule { center1: vec2(-0.25, 0.0), center2: vec2(0.25, 0.0), radius: 0.25 };
    let circle = b2Circle { center: vec2(0.0, 0.0), radius: 0.35 };
    let square = make_square(0.35);
    let mut shape = shape_def();
    shape.material.friction = 0.1;
    shape.material.restitution = 0.1;
    shape.density = 0.25;
    let count = if small { 499 } else { 2 * 3038 };
    let (mut x, mut y) = (-23.0f32, 2.0f32);
    for i in 0..count {
        let body = r.body(&body_def(DYNAMIC, x, y));
        match i % 3 {
            0 => r.capsule(body, &shape, &capsule),
            1 => r.circle(body, &shape, &circle),
            _ => r.polygon(body, &shape, &square),
        }
        x += 0.5;
        if x >= 23.0 {
            x = -23.0;
            y += 0.5;
        }
    }
    Driver::Nothing
}
