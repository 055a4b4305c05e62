//! Box2D v3 simulating a scene with its own solver: the pyramids of `docs/SCENES.md` §4, whose
//! poses it hands to the other engines each step.
//!
//! Where [`Box2dSide`](super::Box2dSide) uses Box2D as a collision-only peer, this side lets it
//! do what it is for: gravity, its soft-step solver and every default setting, except sleeping,
//! which is off (as in Box2D's own many-pyramids benchmark) so that every body stays awake and
//! every contact is updated each step. A fixed collider is a static body, any other a dynamic
//! one, created one at a time in scene order. After each step the bodies' transforms are read
//! back (`b2Body_GetTransform`, [`Box2dSim::copy_poses`]) for sapwood and rapier2d, as a user
//! who runs Box2D's solver over another collision engine would hand them over.
//!
//! **Contact recycling** (Box2D reuses a contact's manifold and estimates its separations from
//! the bodies' motion when the pair moved less than its recycle distance, 10 linear slops, since
//! the last full manifold) is Box2D's default, on. `recycle = false` sets the world's recycle
//! distance to 0, which is the world-wide switch this Box2D version has
//! (`b2World_SetContactRecycleDistance`; there is no world-definition field and no
//! `b2World_EnableContactRecycling`, only a per-body `b2BodyDef::enableContactRecycling`, which the
//! world's distance of 0 overrides for every body).
//!
//! **When manifolds are made**: `b2World_Step` finds new pairs and updates every contact's
//! manifold first, then solves and moves the bodies. So after step `k` its contacts describe the
//! poses after step `k - 1`, the poses the other engines were given one step earlier
//! ([`Box2dSim::contacts`]).
//!
//! One thread: no task system is given.

use std::ffi::c_void;

use boxdd_sys::ffi::{
    b2Body_GetContactCapacity, b2Body_GetContactData, b2Body_GetTransform, b2BodyId, b2ContactData, b2DefaultShapeDef,
    b2DefaultWorldDef, b2Shape_GetUserData, b2World_GetCounters, b2World_SetContactRecycleDistance, b2World_Step,
    b2WorldId,
};
use sapwood::{Pose, Rot, Vec2};

use super::box2d::{Box2dProfile, SUB_STEPS, TIME_STEP, create_body, create_world, destroy_world, profile_of};
use crate::scenes::Scene;

/// A Box2D world simulating a scene, and the body of every scene collider.
pub struct Box2dSim {
    world: b2WorldId,
    /// `(scene id, body)` of every collider, in scene order.
    bodies: Vec<(u32, b2BodyId)>,
    /// Scratch for `b2Body_GetContactData`: one body's touching contacts.
    contact_data: Vec<b2ContactData>,
}

impl Box2dSim {
    /// Creates one body and shape per scene collider, one at a time in scene order, in a world
    /// with Box2D's default definition (gravity −10 along y) but sleeping off. `recycle` keeps
    /// contact recycling on (Box2D's default; see the module docs). Takes no step.
    ///
    /// # Panics
    /// On a capsule, a segment, a compound or a rounded polygon: no standard scene has them.
    #[must_use]
    pub fn build(scene: &Scene, recycle: bool) -> Box2dSim {
        // SAFETY: the definitions come from Box2D's `b2Default*Def` and are passed by pointer for
        // the duration of each call; every id handed back is used only while the world lives
        // (it is destroyed in `Drop`).
        unsafe {
            let mut def = b2DefaultWorldDef();
            def.enableSleep = false;
            let world = create_world(&def);
            if !recycle {
                b2World_SetContactRecycleDistance(world, 0.0);
            }
            let bodies = scene.colliders().iter().map(|c| (c.id, create_body(world, c, b2DefaultShapeDef()))).collect();
            Box2dSim { world, bodies, contact_data: Vec::new() }
        }
    }

    /// One step of 1/60 s in Box2D's default 4 sub-steps: new pairs, every contact's manifold,
    /// then the solver.
    pub fn step(&mut self) {
        // SAFETY: the world is live; no callback was registered.
        unsafe { b2World_Step(self.world, TIME_STEP, SUB_STEPS) };
    }

    /// Gives every moving collider of `scene` its body's pose (`b2Body_GetTransform`; the
    /// rotation's cosine and sine are copied, not recomputed).
    pub fn copy_poses(&self, scene: &mut Scene) {
        for &(id, body) in &self.bodies {
            if scene.get(id).is_some_and(|c| c.moving) {
                // SAFETY: a live body of the live world, outside `b2World_Step`.
                let xf = unsafe { b2Body_GetTransform(body) };
                scene.set_pose(id, Pose { p: Vec2::new(xf.p.x, xf.p.y), q: Rot { c: xf.q.c, s: xf.q.s } });
            }
        }
    }

    /// Box2D's timings of the last step.
    #[must_use]
    pub fn profile(&self) -> Box2dProfile {
        profile_of(self.world)
    }

    /// `(recycled, updated)`: contacts whose manifold the last step recycled, of the contacts
    /// its collide pass went through.
    #[must_use]
    pub fn recycled(&self) -> (usize, usize) {
        // SAFETY: the world is live.
        let counters = unsafe { b2World_GetCounters(self.world) };
        let count = |n: i32| usize::try_from(n).unwrap_or(0);
        (count(counters.recycledContactCount), count(counters.awakeContactCount))
    }

    /// Replaces `out` with every contact whose manifold has points (touching, or within
    /// Box2D's speculative distance of 4 linear slops, 0.02), as `(lower scene id, higher scene
    /// id, smallest point separation)`, sorted. A negative separation is an overlap. These
    /// manifolds were made at the poses before the last step's solver (see the module docs).
    pub fn contacts(&mut self, out: &mut Vec<(u32, u32, f32)>) {
        out.clear();
        for &(id, body) in &self.bodies {
            // SAFETY: a live body of the live world, outside `b2World_Step`. Box2D writes at most
            // `capacity` records (its contact count, an upper bound on the touching ones) into
            // the buffer and returns how many; only those are then read.
            let n = unsafe {
                let capacity = b2Body_GetContactCapacity(body);
                self.contact_data.clear();
                self.contact_data.reserve(usize::try_from(capacity).unwrap_or(0));
                let n = b2Body_GetContactData(body, self.contact_data.as_mut_ptr(), capacity);
                let n = usize::try_from(n).unwrap_or(0);
                self.contact_data.set_len(n);
                n
            };
            for data in &self.contact_data[..n] {
                // SAFETY: shapes of the live world; their user data is the scene id.
                let (a, b) = unsafe { (b2Shape_GetUserData(data.shapeIdA), b2Shape_GetUserData(data.shapeIdB)) };
                let (a, b) = (user_id(a), user_id(b));
                // Each contact is listed by both bodies: keep it once, from its lower id.
                if a.min(b) != id {
                    continue;
                }
                let m = &data.manifold;
                let count = usize::try_from(m.pointCount).unwrap_or(0).min(2);
                let separation = m.points[..count].iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
                out.push((a.min(b), a.max(b), separation));
            }
        }
        out.sort_unstable_by_key(|&(a, b, _)| (a, b));
    }
}

/// The scene id stored as a shape's user data by `create_body`.
fn user_id(data: *mut c_void) -> u32 {
    data as usize as u32
}

impl Drop for Box2dSim {
    fn drop(&mut self) {
        // SAFETY: the world is live and is not used after this.
        unsafe { destroy_world(self.world) };
    }
}
