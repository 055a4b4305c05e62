//! Box2D v3 (through `boxdd-sys`, which compiles Box2D's C sources) driven by the peer scene as a
//! collision-only engine.
//!
//! Box2D is a rigid-body engine; the rules that make it a fair collision peer:
//!
//! - the world is built **as a user would**: one body and one shape at a time, in scene order,
//!   with default definitions except where said here; gravity is zero and sleeping is off (a
//!   sleeping body's contacts are not updated, and these bodies are moved by hand);
//! - a **still** collider is a static body (Box2D never pairs two static bodies, so its
//!   still–still pairs cost it nothing, as they cost sapwood nothing after their first step); a
//!   **moving** collider is a dynamic body, teleported each step by `b2Body_SetTransform` (the
//!   same "here is the new pose" as `World::set_pose`);
//! - the solver is kept out by a **pre-solve callback that returns false**, Box2D's documented way
//!   to disable a contact for a step: no touching contact ever reaches the constraint graph, so no
//!   impulse moves a body and the solver stages iterate bodies with nothing to solve. The callback
//!   is called for exactly the contacts whose manifold has points, which is how
//!   [`Box2dSide::touching`] counts them;
//! - **contact recycling** (Box2D reuses a manifold unchanged, skipping its kernel, when the
//!   pair's relative pose moved less than a tolerance) is off unless asked for: sapwood and rapier
//!   recompute every pair with a moved end exactly;
//! - one thread: no task system is given, so Box2D runs every stage on the calling thread.
//!
//! Box2D's own profile splits its step; its **collision phases** are `pairs` (new pairs from the
//! moved fat boxes) plus `collide` (the manifolds of every awake contact), the share comparable
//! with sapwood's whole step. The wall time of telling the new poses and `b2World_Step` is the
//! whole cost a user pays.
//!
//! Box2D's C code is compiled by the cc crate, which does not define `NDEBUG`: the workspace's
//! `.cargo/config.toml` does, as Box2D's own release build does (without it Box2D keeps its
//! asserts and its debug counters).

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use boxdd_sys::ffi::{
    b2Body_SetTransform, b2BodyId, b2BodyType_b2_dynamicBody, b2BodyType_b2_staticBody, b2Circle, b2ComputeHull,
    b2CreateBody, b2CreateCircleShape, b2CreatePolygonShape, b2CreateWorld, b2DefaultBodyDef, b2DefaultShapeDef,
    b2DefaultWorldDef, b2DestroyWorld, b2MakeBox, b2MakePolygon, b2Polygon, b2Pos, b2Rot, b2ShapeDef, b2ShapeId,
    b2Vec2, b2World_GetCounters, b2World_GetProfile, b2World_SetContactRecycleDistance, b2World_SetPreSolveCallback,
    b2World_Step, b2WorldDef, b2WorldId,
};
use sapwood::{Pose, Shape};

use crate::scenes::{Collider, Scene};

/// The time step handed to `b2World_Step` (here it only scales the solver, which has nothing to
/// do; the pyramids' simulation steps at this rate too).
pub(super) const TIME_STEP: f32 = 1.0 / 60.0;
/// Box2D's default sub-step count.
pub(super) const SUB_STEPS: i32 = 4;

/// Box2D keeps its worlds in a global table that `b2CreateWorld` and `b2DestroyWorld` change
/// without a lock, so two threads creating worlds at once (tests run in parallel) could take
/// the same slot: every world of this crate is created and destroyed under this lock. A world
/// is then used by one thread at a time, which Box2D allows.
static WORLDS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `b2CreateWorld` under [`WORLDS`].
///
/// # Safety
/// `def` comes from `b2DefaultWorldDef`, possibly modified.
pub(super) unsafe fn create_world(def: &b2WorldDef) -> b2WorldId {
    let _table = WORLDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: see the function's contract; the lock keeps other threads out of the table.
    unsafe { b2CreateWorld(def) }
}

/// `b2DestroyWorld` under [`WORLDS`].
///
/// # Safety
/// `world` is live and is not used after this.
pub(super) unsafe fn destroy_world(world: b2WorldId) {
    let _table = WORLDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: see the function's contract.
    unsafe { b2DestroyWorld(world) }
}

/// Box2D's own timings of one step, in milliseconds (`b2World_GetProfile`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Box2dProfile {
    /// The whole `b2World_Step`.
    pub step: f64,
    /// New pairs from the moved fat boxes (the broad phase's pair search).
    pub pairs: f64,
    /// The manifolds of the awake contacts (the narrow phase).
    pub collide: f64,
}

/// The profile of a live world's last step.
pub(super) fn profile_of(world: b2WorldId) -> Box2dProfile {
    // SAFETY: the callers own a live world.
    let p = unsafe { b2World_GetProfile(world) };
    Box2dProfile { step: f64::from(p.step), pairs: f64::from(p.pairs), collide: f64::from(p.collide) }
}

impl Box2dProfile {
    /// The collision phases: `pairs + collide`.
    #[must_use]
    pub fn collision(&self) -> f64 {
        self.pairs + self.collide
    }
}

/// Box2D's side: its world, the body of every scene collider, and the pre-solve counter.
pub struct Box2dSide {
    world: b2WorldId,
    /// `bodies[scene id]`.
    bodies: Vec<b2BodyId>,
    /// Contacts with manifold points in the last step, counted by the pre-solve callback. Boxed
    /// so that the address Box2D holds as the callback's context stays put.
    touching: Box<AtomicU64>,
}

/// Counts the contact and disables it for this step (so the solver never sees it).
///
/// # Safety
/// `context` is the `AtomicU64` of a live [`Box2dSide`] (Box2D calls this only inside
/// `b2World_Step` of that side's world, on the stepping thread: no task system is given).
unsafe extern "C" fn count_and_disable(
    _a: b2ShapeId,
    _b: b2ShapeId,
    _point: b2Pos,
    _normal: b2Vec2,
    context: *mut c_void,
) -> bool {
    // SAFETY: see the function's contract; the counter outlives the world (dropped after it).
    let counter = unsafe { &*(context as *const AtomicU64) };
    counter.fetch_add(1, Ordering::Relaxed);
    false
}

pub(super) fn to_box2d_pose(p: &Pose) -> (b2Pos, b2Rot) {
    (b2Vec2 { x: p.p.x, y: p.p.y }, b2Rot { c: p.q.c, s: p.q.s })
}

/// Box2D's polygon for a scene shape that is a box or a polygon.
///
/// # Panics
/// On a rounded polygon, or a polygon Box2D's hull rejects (none in the peer scene).
fn box2d_polygon(shape: &Shape) -> b2Polygon {
    match shape {
        // SAFETY: plain value functions of the C API.
        Shape::Cuboid(b) => unsafe { b2MakeBox(b.half_extents.x, b.half_extents.y) },
        Shape::Polygon(poly) => {
            assert_eq!(poly.radius(), 0.0, "the peer scene has no rounded polygons");
            let points: Vec<b2Vec2> = poly.vertices().iter().map(|v| b2Vec2 { x: v.x, y: v.y }).collect();
            let count = i32::try_from(points.len()).expect("a handful of vertices");
            // SAFETY: `points` holds `count` initialised points for the duration of the call.
            let hull = unsafe { b2ComputeHull(points.as_ptr(), count) };
            assert_eq!(hull.count, count, "a regular polygon is its own hull");
            // SAFETY: `hull` comes from `b2ComputeHull`, as `b2MakePolygon` requires.
            unsafe { b2MakePolygon(&hull, 0.0) }
        }
        _ => unreachable!("only boxes and polygons are polygons"),
    }
}

/// One body with one shape for a scene collider: static unless it moves, at the collider's pose,
/// the shape made from `shape` with the scene id as its user data.
///
/// # Safety
/// `world` is live and not inside `b2World_Step`.
///
/// # Panics
/// On a capsule, a segment, a compound, a chain or a rounded polygon: no standard scene has them.
pub(super) unsafe fn create_body(world: b2WorldId, c: &Collider, mut shape: b2ShapeDef) -> b2BodyId {
    // SAFETY: the definitions come from Box2D's `b2Default*Def` and are passed by pointer for the
    // duration of each call; the body id handed back belongs to the live `world`.
    unsafe {
        let mut body = b2DefaultBodyDef();
        body.type_ = if c.moving { b2BodyType_b2_dynamicBody } else { b2BodyType_b2_staticBody };
        (body.position, body.rotation) = to_box2d_pose(&c.pose);
        let id = b2CreateBody(world, &body);
        shape.userData = c.id as usize as *mut c_void;
        match &c.shape {
            Shape::Circle(ci) => {
                let circle = b2Circle { center: b2Vec2 { x: 0.0, y: 0.0 }, radius: ci.radius };
                b2CreateCircleShape(id, &shape, &circle);
            }
            Shape::Cuboid(_) | Shape::Polygon(_) => {
                let polygon = box2d_polygon(&c.shape);
                b2CreatePolygonShape(id, &shape, &polygon);
            }
            Shape::Capsule(_) | Shape::Segment(_) | Shape::Compound(_) | Shape::Chain(_) => {
                panic!("no standard scene has capsules, segments, compounds or chains")
            }
        }
        id
    }
}

impl Box2dSide {
    /// Creates one body and shape per scene collider, in scene order, and takes the first step.
    /// `recycle` keeps Box2D's contact recycling on (its default; see the module docs).
    ///
    /// # Panics
    /// On a capsule, a compound or a rounded polygon: the peer scene has none.
    #[must_use]
    pub fn build(scene: &Scene, recycle: bool) -> Box2dSide {
        let touching = Box::new(AtomicU64::new(0));
        // SAFETY: the definitions come from Box2D's `b2Default*Def` and are passed by pointer for
        // the duration of each call; every id handed back is used only while the world lives
        // (the world is destroyed in `Drop`, before `touching` is freed).
        unsafe {
            let mut def = b2DefaultWorldDef();
            def.gravity = b2Vec2 { x: 0.0, y: 0.0 };
            def.enableSleep = false;
            let world = create_world(&def);
            if !recycle {
                b2World_SetContactRecycleDistance(world, 0.0);
            }
            let context = std::ptr::from_ref::<AtomicU64>(&touching).cast_mut().cast::<c_void>();
            b2World_SetPreSolveCallback(world, Some(count_and_disable), context);
            let mut side = Box2dSide { world, bodies: Vec::with_capacity(scene.id_bound()), touching };
            side.bodies.resize(scene.id_bound(), b2BodyId { index1: 0, world0: 0, generation: 0 });
            for c in scene.colliders() {
                let mut shape = b2DefaultShapeDef();
                // Pre-solve applies to contacts with a dynamic body's shape, i.e. every contact here.
                shape.enablePreSolveEvents = c.moving;
                side.bodies[c.id as usize] = create_body(world, c, shape);
            }
            side.step_world();
            side
        }
    }

    fn step_world(&mut self) {
        self.touching.store(0, Ordering::Relaxed);
        // SAFETY: the world is live; the pre-solve context is `self.touching`.
        unsafe { b2World_Step(self.world, TIME_STEP, SUB_STEPS) };
    }

    /// Tells Box2D every moving collider's pose (`b2Body_SetTransform`), then steps the world.
    pub fn step(&mut self, scene: &Scene) {
        for c in scene.moving() {
            let (p, q) = to_box2d_pose(&c.pose);
            // SAFETY: a live body of the live world, outside `b2World_Step`.
            unsafe { b2Body_SetTransform(self.bodies[c.id as usize], p, q) };
        }
        self.step_world();
    }

    /// Box2D's timings of the last step.
    #[must_use]
    pub fn profile(&self) -> Box2dProfile {
        profile_of(self.world)
    }

    /// Contacts whose manifold had points in the last step: touching, or within Box2D's
    /// speculative distance (4 linear slops, 0.02 length units) of touching. Every such contact
    /// has a dynamic body, i.e. a moving collider.
    #[must_use]
    pub fn touching(&self) -> u64 {
        self.touching.load(Ordering::Relaxed)
    }

    /// Box2D's contacts: pairs whose fat boxes overlap, with at least one dynamic body.
    #[must_use]
    pub fn contact_count(&self) -> usize {
        // SAFETY: the world is live.
        let counters = unsafe { b2World_GetCounters(self.world) };
        usize::try_from(counters.contactCount).unwrap_or(0)
    }
}

impl Drop for Box2dSide {
    fn drop(&mut self) {
        // SAFETY: the world is live and is not used after this.
        unsafe { destroy_world(self.world) };
    }
}
