//! The ragdoll of Box2D's `shared/human.c` at scale 1, as rain creates it: eleven capsule
//! bones (the lower legs with a rounded foot polygon too) on revolute joints with limits, a
//! friction motor and a spring, its shapes kept apart by one negative group.

use std::f32::consts::PI;

use boxdd_sys::ffi::{b2BodyId, b2Capsule, b2JointId, b2Vec2};

use super::api::{
    DYNAMIC, body_def, destroy_joint, hull_polygon, local_point, make_rot, revolute_def, revolute_joint, shape_def,
    vec2,
};
use super::registry::Registry;

/// One bone: its body and capsule relative to the ragdoll's position, and its joint to its
/// parent (angles in multiples of π).
struct Bone {
    parent: Option<usize>,
    /// Height of the body's origin.
    y: f32,
    linear_damping: f32,
    /// Share of the joint friction torque its joint's motor gets.
    friction_scale: f32,
    /// The capsule's two centres' heights and its radius, in the body's frame.
    capsule: (f32, f32, f32),
    /// Whether it carries a foot.
    foot: bool,
    /// Height of the joint's pivot.
    pivot: f32,
    /// The joint's lower and upper angle, in multiples of π.
    limits: (f32, f32),
    /// The parent's joint frame turned by this many multiples of π (the forearms).
    frame_turn: f32,
}

const fn bone(
    parent: Option<usize>,
    y: f32,
    linear_damping: f32,
    friction_scale: f32,
    capsule: (f32, f32, f32),
    pivot: f32,
    limits: (f32, f32),
) -> Bone {
    Bone { parent, y, linear_damping, friction_scale, capsule, foot: false, pivot, limits, frame_turn: 0.0 }
}

const fn lower_leg(parent: usize) -> Bone {
    Bone { foot: true, ..bone(Some(parent), 0.475, 0.0, 0.5, (-0.155, 0.125, 0.045), 0.625, (-0.5, -0.02)) }
}

const fn lower_arm(parent: usize) -> Bone {
    Bone { frame_turn: 0.25, ..bone(Some(parent), 0.975, 0.1, 0.1, (-0.125, 0.125, 0.03), 1.1, (-0.2, 0.3)) }
}

const HIP: usize = 0;
const TORSO: usize = 1;
const LEG: (f32, f32, f32) = (-0.125, 0.125, 0.06);
const ARM: (f32, f32, f32) = (-0.125, 0.125, 0.035);

/// The bones in Box2D's order: hip, torso, head, then each leg (upper, lower) and each arm.
const BONES: [Bone; 11] = [
    bone(None, 0.95, 0.0, 1.0, (-0.02, 0.02, 0.095), 0.0, (0.0, 0.0)),
    bone(Some(HIP), 1.2, 0.0, 0.5, (-0.135, 0.135, 0.09), 1.0, (-0.25, 0.0)),
    bone(Some(TORSO), 1.475, 0.1, 0.25, (-0.038, 0.039, 0.075), 1.4, (-0.3, 0.1)),
    bone(Some(HIP), 0.775, 0.0, 1.0, LEG, 0.9, (-0.05, 0.4)),
    lower_leg(3),
    bone(Some(HIP), 0.775, 0.0, 1.0, LEG, 0.9, (-0.05, 0.4)),
    lower_leg(5),
    bone(Some(TORSO), 1.225, 0.0, 0.5, ARM, 1.35, (-0.1, 0.8)),
    lower_arm(7),
    bone(Some(TORSO), 1.225, 0.0, 0.5, ARM, 1.35, (-0.1, 0.8)),
    lower_arm(9),
];

/// A live ragdoll.
pub(super) struct Human {
    bodies: [b2BodyId; 11],
    joints: Vec<b2JointId>,
}

/// Joint friction, spring stiffness and damping, as rain gives them.
const FRICTION_TORQUE: f32 = 0.05;
const JOINT_HERTZ: f32 = 5.0;
const JOINT_DAMPING: f32 = 0.5;

impl Human {
    /// A ragdoll standing at `position` whose shapes share the group `-group`.
    pub(super) fn create(r: &mut Registry, position: b2Vec2, group: i32) -> Human {
        let mut def = body_def(DYNAMIC, 0.0, 0.0);
        def.sleepThreshold = 0.1;
        let mut shape = shape_def();
        shape.material.friction = 0.2;
        shape.filter.groupIndex = -group;
        shape.filter.categoryBits = 2;
        shape.filter.maskBits = 1 | 2;
        // Feet touch the ground only.
        let mut foot_shape = shape;
        foot_shape.material.friction = 0.05;
        foot_shape.filter.maskBits = 1;
        let foot_points = [vec2(-0.03, -0.185), vec2(0.11, -0.185), vec2(0.11, -0.16), vec2(-0.03, -0.14)];
        let foot = hull_polygon(&foot_points, 0.015);
        let at = |y: f32| vec2(position.x, position.y + y);

        let mut bodies = [b2BodyId { index1: 0, world0: 0, generation: 0 }; 11];
        let mut joints = Vec::with_capacity(10);
        for (i, b) in BONES.iter().enumerate() {
            def.position = at(b.y);
            def.linearDamping = b.linear_damping;
            let body = r.body(&def);
            bodies[i] = body;
            let (y1, y2, radius) = b.capsule;
            r.capsule(body, &shape, &b2Capsule { center1: vec2(0.0, y1), center2: vec2(0.0, y2), radius });
            if b.foot {
                r.polygon(body, &foot_shape, &foot);
            }
            let Some(parent) = b.parent else { continue };
            let pivot = at(b.pivot);
            let mut joint = revolute_def();
            joint.base.bodyIdA = bodies[parent];
            joint.base.bodyIdB = body;
            joint.base.localFrameA.p = local_point(bodies[parent], pivot);
            if b.frame_turn != 0.0 {
                joint.base.localFrameA.q = make_rot(b.frame_turn * PI);
            }
            joint.base.localFrameB.p = local_point(body, pivot);
            joint.enableLimit = true;
            joint.lowerAngle = b.limits.0 * PI;
            joint.upperAngle = b.limits.1 * PI;
            joint.enableMotor = true;
            joint.maxMotorTorque = b.friction_scale * FRICTION_TORQUE;
            joint.enableSpring = true;
            joint.hertz = JOINT_HERTZ;
            joint.dampingRatio = JOINT_DAMPING;
            joint.base.drawScale = 0.05;
            joints.push(revolute_joint(r.world, &joint));
        }
        Human { bodies, joints }
    }

    /// Destroys the joints, then the bodies, as `DestroyHuman` does.
    pub(super) fn destroy(self, r: &mut Registry) {
        for joint in self.joints {
            destroy_joint(joint);
        }
        for body in self.bodies {
            r.destroy_body(body);
        }
    }
}
