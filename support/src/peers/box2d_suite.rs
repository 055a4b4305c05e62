//! Box2D v3's own benchmark suite (its `shared/benchmarks.c`, stepped as its `benchmark/main.c`
//! steps it), simulated by Box2D with its own solver, and mirrored shape by shape into a
//! [`Scene`] that sapwood and rapier2d follow.
//!
//! Every scene of the suite that has collision is here ([`SuiteScene`]); `joint_grid`, a grid
//! of circles whose filter keeps every pair apart, is not. Each is built as Box2D's benchmark
//! builds it — bodies, shapes, joints, motors, kinematic bodies, sleep as the scene leaves it
//! (on, but off in the two pyramid scenes and for the spinner's bar) — at the benchmark's own
//! counts ([`SuiteSize::Benchmark`]) or at those of Box2D's debug build ([`SuiteSize::Small`]).
//! A step is the scene's own step function (rain's ragdolls created and destroyed, junkyard's
//! pusher given its target), then `b2World_Step` of 1/60 s in 4 sub-steps.
//!
//! **The mirror.** Each Box2D shape is one collider of the scene (a chain is one collider,
//! closed and one-sided as Box2D's chains are), with an id of its own that never returns:
//! [`SuiteSim::sync`] inserts the shapes created since the last sync, removes those whose body
//! was destroyed, and places every shape whose body moved (its transform changed), the shape in
//! its body's frame and its pose the body's. A box Box2D made (an axis-aligned rectangle, not
//! rounded) is a box centred on its own centre, its pose the body's times that offset, as a
//! user places a tile or a drum's wall; any other polygon a polygon with Box2D's vertices and
//! radius.
//!
//! **Pairs.** Box2D never pairs two shapes of one body, two bodies joined by a joint that does
//! not collide its bodies (every joint here), or a kinematic body with a static or kinematic
//! one. A filter says the same to the other engines: the shapes of a moving body with several
//! shapes share a negative group of their own, and so do the bodies a scene keeps apart
//! ([`SuiteSim`] picks groups below any a scene uses). Box2D's own filters (rain's ragdolls)
//! are copied as they are.
//!
//! One thread: no task system is given.

mod api;
mod compounds;
mod human;
mod junkyard;
mod pyramids;
mod rain;
mod recollide;
mod registry;
mod smash;
mod spinner;
mod tumbler;
mod washer;

use boxdd_sys::ffi::{
    b2Body_GetContactCapacity, b2Body_GetContactData, b2Body_IsAwake, b2BodyId, b2ContactData, b2DefaultWorldDef,
    b2Shape_GetUserData, b2World_GetCounters, b2World_SetContactRecycleDistance, b2World_Step,
};

use super::box2d::{Box2dProfile, SUB_STEPS, TIME_STEP, create_world, destroy_world, profile_of};
use crate::scenes::Scene;
use registry::Registry;

/// A scene of Box2D's benchmark suite that has collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuiteScene {
    /// 3,000 bodies of two triangles each, dropped on a walled floor.
    Compounds,
    /// 8,000 pentagons dropped on a walled floor and shoved by a kinematic pusher.
    Junkyard,
    /// One pyramid with a base of 100 boxes (5,050), sleep off.
    LargePyramid,
    /// 400 pyramids of 55 boxes on 20 floors of segments, sleep off.
    ManyPyramids,
    /// Ragdolls of 13 shapes, five at a time, raining on five floors of tiles; every 8 steps
    /// five groups are created, and once 40 columns are full, the oldest are destroyed.
    Rain,
    /// A heavy box at 40 m/s into a sleeping block of 9,600 boxes, no gravity.
    Smash,
    /// 6,076 capsules, circles and boxes stirred by a 40 m bar turning on a motor inside a
    /// loop of 360 chain segments.
    Spinner,
    /// 2,025 small boxes in a square drum turned by a motor.
    Tumbler,
    /// 8,100 small boxes in a kinematic ring of 40 polygons that turns.
    Washer,
}

/// How large a scene is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuiteSize {
    /// The counts of Box2D's benchmark (its release build).
    Benchmark,
    /// The counts of Box2D's debug build (`benchmarks.c` without `NDEBUG`): a few hundred
    /// bodies, for tests.
    Small,
}

impl SuiteScene {
    /// Every scene, in the order of Box2D's benchmark.
    pub const ALL: [SuiteScene; 9] = [
        SuiteScene::Compounds,
        SuiteScene::Junkyard,
        SuiteScene::LargePyramid,
        SuiteScene::ManyPyramids,
        SuiteScene::Rain,
        SuiteScene::Smash,
        SuiteScene::Spinner,
        SuiteScene::Tumbler,
        SuiteScene::Washer,
    ];

    /// Box2D's name for it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SuiteScene::Compounds => "compounds",
            SuiteScene::Junkyard => "junkyard",
            SuiteScene::LargePyramid => "large_pyramid",
            SuiteScene::ManyPyramids => "many_pyramids",
            SuiteScene::Rain => "rain",
            SuiteScene::Smash => "smash",
            SuiteScene::Spinner => "spinner",
            SuiteScene::Tumbler => "tumbler",
            SuiteScene::Washer => "washer",
        }
    }

    /// The scene with Box2D's name `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<SuiteScene> {
        SuiteScene::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The steps Box2D's benchmark takes (step 0 included, which it does not time).
    #[must_use]
    pub const fn steps(self) -> usize {
        match self {
            SuiteScene::Compounds | SuiteScene::LargePyramid | SuiteScene::Spinner | SuiteScene::Washer => 500,
            SuiteScene::Junkyard => 800,
            SuiteScene::ManyPyramids => 200,
            SuiteScene::Rain => 1000,
            SuiteScene::Smash => 300,
            SuiteScene::Tumbler => 750,
        }
    }
}

/// What a scene does before each `b2World_Step` (each scene's builder returns its driver).
enum Driver {
    /// Nothing: its motors and kinematic bodies move by themselves.
    Nothing,
    /// Creates and destroys ragdolls.
    Rain(rain::Rain),
    /// Steers the kinematic pusher.
    Junkyard(b2BodyId),
}

/// A Box2D world running one scene of the suite, and the shapes it mirrors into a [`Scene`].
pub struct SuiteSim {
    scene: SuiteScene,
    registry: Registry,
    driver: Driver,
    /// Steps taken: the step function's `stepCount`.
    steps: usize,
    /// Scratch for `b2Body_GetContactData`: one body's touching contacts.
    contact_data: Vec<b2ContactData>,
}

impl SuiteSim {
    /// Builds `scene` at `size` in a world with Box2D's default definition, as its benchmark
    /// does; `recycle` keeps contact recycling on (Box2D's default; off sets the world's recycle
    /// distance to 0, see [`Box2dSim`](super::Box2dSim)). Takes no step; the first
    /// [`SuiteSim::sync`] hands every shape over.
    #[must_use]
    pub fn build(scene: SuiteScene, size: SuiteSize, recycle: bool) -> SuiteSim {
        // SAFETY: the definition comes from `b2DefaultWorldDef`; the world lives until `Drop`.
        let world = unsafe {
            let world = create_world(&b2DefaultWorldDef());
            if !recycle {
                b2World_SetContactRecycleDistance(world, 0.0);
            }
            world
        };
        let mut registry = Registry::new(world);
        let (r, small) = (&mut registry, size == SuiteSize::Small);
        let driver = match scene {
            SuiteScene::Compounds => compounds::build(r, small),
            SuiteScene::Junkyard => junkyard::build(r, small),
            SuiteScene::LargePyramid => pyramids::build_large(r, small),
            SuiteScene::ManyPyramids => pyramids::build_many(r, small),
            SuiteScene::Rain => rain::Rain::build(r, small),
            SuiteScene::Smash => smash::build(r, small),
            SuiteScene::Spinner => spinner::build(r, small),
            SuiteScene::Tumbler => tumbler::build(r, small),
            SuiteScene::Washer => washer::build(r, small),
        };
        SuiteSim { scene, registry, driver, steps: 0, contact_data: Vec::new() }
    }

    /// The scene it runs.
    #[must_use]
    pub fn scene(&self) -> SuiteScene {
        self.scene
    }

    /// One step of the benchmark: the scene's step function, then `b2World_Step` of 1/60 s in 4
    /// sub-steps.
    pub fn step(&mut self) {
        match &mut self.driver {
            Driver::Nothing => {}
            Driver::Rain(rain) => rain.step(&mut self.registry, self.steps),
            Driver::Junkyard(pusher) => junkyard::step(*pusher, self.steps),
        }
        // SAFETY: the world is live; no callback was registered.
        unsafe { b2World_Step(self.registry.world, TIME_STEP, SUB_STEPS) };
        self.steps += 1;
    }

    /// Hands the changes since the last sync to `scene` (a [`Scene::simulated`], given to this
    /// simulation alone): starts a new step of it, removes the shapes destroyed, inserts those
    /// created and places the shapes of every body that moved.
    pub fn sync(&mut self, scene: &mut Scene) {
        self.registry.sync(scene);
    }

    /// Box2D's timings of the last step.
    #[must_use]
    pub fn profile(&self) -> Box2dProfile {
        profile_of(self.registry.world)
    }

    /// `(recycled, updated)`: contacts whose manifold the last step recycled, of the contacts
    /// its collide pass went through.
    #[must_use]
    pub fn recycled(&self) -> (usize, usize) {
        // SAFETY: the world is live.
        let counters = unsafe { b2World_GetCounters(self.registry.world) };
        let count = |n: i32| usize::try_from(n).unwrap_or(0);
        (count(counters.recycledContactCount), count(counters.awakeContactCount))
    }

    /// Shapes alive now (a chain counted once), and shapes created so far.
    #[must_use]
    pub fn shape_counts(&self) -> (usize, usize) {
        self.registry.shape_counts()
    }

    /// Whether the body of the shape with this scene id is awake (`None`: static, or gone).
    #[must_use]
    pub fn is_awake(&self, id: u32) -> Option<bool> {
        // SAFETY: a live body of the live world.
        self.registry.moving_body_of(id).map(|body| unsafe { b2Body_IsAwake(body) })
    }

    /// Replaces `out` with every pair of scene ids whose Box2D contact has manifold points
    /// (touching, or within its speculative distance of 4 linear slops, 0.02), as `(lower id,
    /// higher id, smallest point separation)`, sorted; a chain's segments count as the chain,
    /// with the smallest separation of any. A negative separation is an overlap. After step
    /// `k` these manifolds were made at the poses after step `k - 1` (Box2D collides before
    /// its solver moves the bodies), or earlier for a contact Box2D recycled or whose bodies
    /// sleep.
    pub fn contacts(&mut self, out: &mut Vec<(u32, u32, f32)>) {
        let mut stored = |data: &b2ContactData, _, _| {
            let m = &data.manifold;
            let count = usize::try_from(m.pointCount).unwrap_or(0).min(2);
            Some(m.points[..count].iter().map(|p| p.separation).fold(f32::INFINITY, f32::min))
        };
        gather(&self.registry, &mut self.contact_data, out, &mut stored);
    }

    /// [`SuiteSim::contacts`] with every manifold made afresh by Box2D's own manifold functions
    /// at the poses of the last [`SuiteSim::sync`]: call it after [`SuiteSim::step`] and before
    /// the next sync, and the manifolds are those Box2D's step would have made without contact
    /// recycling and with every body awake, at the poses the mirror held before the step.
    /// Contacts with a shape created since that sync are left out; a pair whose fresh manifold
    /// has no point is kept with an infinite separation.
    pub fn recollided_contacts(&mut self, out: &mut Vec<(u32, u32, f32)>) {
        let registry = &self.registry;
        let mut separations = |data: &b2ContactData, a: u32, b: u32| {
            let (pa, pb) = (registry.handed_pose(a)?, registry.handed_pose(b)?);
            let m = recollide::manifold(data.shapeIdA, &pa, data.shapeIdB, &pb)?;
            let count = usize::try_from(m.pointCount).unwrap_or(0).min(2);
            Some(m.points[..count].iter().map(|p| p.separation).fold(f32::INFINITY, f32::min))
        };
        gather(registry, &mut self.contact_data, out, &mut separations);
    }
}

/// Every touching contact of the registry's world, as `(lower id, higher id, separation)`
/// sorted and merged (the smallest separation of a pair), `separation` saying what each is
/// (`None`: leave it out); `data` is scratch.
fn gather(
    registry: &Registry,
    data: &mut Vec<b2ContactData>,
    out: &mut Vec<(u32, u32, f32)>,
    separation: &mut impl FnMut(&b2ContactData, u32, u32) -> Option<f32>,
) {
    out.clear();
    // Every contact has a dynamic body; a contact between two moving bodies is listed by both
    // and merged below.
    for body in registry.moving_bodies() {
        // SAFETY: a live body of the live world, outside `b2World_Step`. Box2D writes at most
        // `capacity` records (its contact count, an upper bound on the touching ones) into the
        // buffer and returns how many; only those are then read.
        unsafe {
            let capacity = b2Body_GetContactCapacity(body);
            data.clear();
            data.reserve(usize::try_from(capacity).unwrap_or(0));
            let n = b2Body_GetContactData(body, data.as_mut_ptr(), capacity);
            data.set_len(usize::try_from(n).unwrap_or(0));
        }
        for d in data.iter() {
            // SAFETY: shapes of the live world; their user data is the scene id.
            let (a, b) = unsafe { (b2Shape_GetUserData(d.shapeIdA), b2Shape_GetUserData(d.shapeIdB)) };
            let (a, b) = (registry::user_id(a), registry::user_id(b));
            if let Some(s) = separation(d, a, b) {
                out.push((a.min(b), a.max(b), s));
            }
        }
    }
    out.sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then(x.2.total_cmp(&y.2)));
    out.dedup_by_key(|&mut (a, b, _)| (a, b));
}

impl Drop for SuiteSim {
    fn drop(&mut self) {
        // SAFETY: the world is live and is not used after this.
        unsafe { destroy_world(self.registry.world) };
    }
}
