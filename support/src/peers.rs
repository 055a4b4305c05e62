//! sapwood's `World`, rapier2d's collision-only pipeline and Box2D v3 ([`box2d`] as a
//! collision-only peer, [`box2d_sim`] simulating with its own solver), driven by one standard
//! scene.
//!
//! Shared by `examples/peers` and `benches/peers.rs`, so that the table and the criterion
//! numbers come from the same code. The rules are those of `docs/SCENES.md` ("Peers to run beside
//! sapwood"):
//!
//! - every engine receives the **same colliders** of [`Scene`]: same shape parameters (the
//!   polygon's vertices are copied, not regenerated), same poses — the rotation is copied as its
//!   cosine and sine, so no engine recomputes it from the angle with its own rounding;
//! - every engine is built **as a user would**: one collider at a time, in scene order
//!   (sapwood's `insert_batch`, which places a batch in Z-order, only on request: see
//!   [`Insertion`]);
//! - a step is: the scene moves (in the pyramids, [`Box2dSim`] steps and hands its poses to the
//!   scene; in Box2D's benchmark suite, [`SuiteSim`] also creates and destroys shapes), then
//!   each engine is told the colliders removed (`World::remove`; rapier: `ColliderSet::remove`),
//!   those inserted, one at a time (`World::insert`; `ColliderSet::insert`), and every moving
//!   collider's new pose (`World::set_pose`; rapier: `Collider::set_position`; Box2D:
//!   `b2Body_SetTransform`) and steps (`World::step`; `CollisionPipeline::step`;
//!   `b2World_Step`). Telling and stepping are timed together, per engine;
//! - fixed colliders (static geometry: the pyramids' ground, the static scene's tiles) are
//!   sapwood's [`ColliderDesc::fixed`] colliders and Box2D's static bodies;
//! - rapier's colliders have no rigid body and the prediction distance is 0; every collider but a
//!   fixed one has `ActiveCollisionTypes::all()` (a collider without a body counts as fixed, so
//!   without it every pair would be skipped as fixed–fixed), a fixed one the default types, so
//!   that fixed–fixed pairs are skipped as sapwood and Box2D skip them;
//! - a collider's [`Filter`](sapwood::Filter) (Box2D's categories, mask and group, in the suite) is sapwood's
//!   [`ColliderDesc::filter`] and rapier's `InteractionGroups` (categories and mask), plus, for
//!   a non-zero group, a contact-pair hook ([`GroupHook`]): rapier has no group index;
//! - a pair is touching in sapwood when it is in `World::contacts` (depth ≥ 0: exactly touching
//!   counts), in rapier when one of its manifold points has a negative distance.

pub mod box2d;
pub mod box2d_query;
pub mod box2d_sim;
pub mod box2d_suite;

use std::collections::HashMap;
use std::time::{Duration, Instant};

pub use box2d::{Box2dProfile, Box2dSide};
pub use box2d_sim::Box2dSim;
pub use box2d_suite::{SuiteScene, SuiteSim, SuiteSize};

/// The step-time statistics every table prints (re-exported from `frame_times`).
pub use crate::frame_times::Stats;
use crate::scenes::{Collider, Scene};
/// The rapier2d (and, through it, parry2d) this harness drives, for callers that query it.
pub use rapier2d;
use rapier2d::prelude::{
    ActiveCollisionTypes, ActiveHooks, ColliderBuilder, ColliderHandle, ColliderSet, CollisionPipeline,
    DefaultBroadPhase, Group, InteractionGroups, InteractionTestMode, IslandManager, NarrowPhase, PairFilterContext,
    PhysicsHooks, RigidBodySet, SoftBodySet, SolverFlags,
};
use sapwood::advisor::{self, Advice};
use sapwood::{ColliderDesc, ColliderId, Pose, Shape, World, WorldConfig, WorldError};

/// rapier's vector and pose types (glam through parry's `glamx`, not sapwood's glam version).
type RVec = rapier2d::math::Vector;
type RPose = rapier2d::math::Pose;
type RRot = rapier2d::math::Rotation;

/// The prediction distance given to rapier: 0, so that it reports no speculative contacts.
pub const PREDICTION: f32 = 0.0;

/// sapwood's pose as rapier's, bit for bit (no angle → cos/sin round trip).
pub fn to_rapier_pose(p: &Pose) -> RPose {
    RPose::from_parts(RVec::new(p.p.x, p.p.y), RRot::from_cos_sin_unchecked(p.q.c, p.q.s))
}

/// The rapier collider of a scene collider, with the same shape, pose and filter: a rounded
/// polygon is rapier's round convex polygon, a chain a polyline (two-sided, with no ghost
/// vertices: rapier has no one-sided chains). The user data holds the scene id (low 32 bits) and
/// the filter's group (the next 32), which [`GroupHook`] reads.
///
/// # Panics
/// On a compound (no standard scene has one) or a positive group (rapier's groups are tested
/// before its hooks, so a positive group could not override the mask as in sapwood and Box2D).
pub fn rapier_collider(c: &Collider) -> ColliderBuilder {
    let v = |p: sapwood::Vec2| RVec::new(p.x, p.y);
    let builder = match &c.shape {
        Shape::Circle(ci) => ColliderBuilder::ball(ci.radius),
        Shape::Cuboid(b) => ColliderBuilder::cuboid(b.half_extents.x, b.half_extents.y),
        Shape::Polygon(poly) => {
            let points = poly.vertices().iter().map(|&p| v(p)).collect();
            if poly.radius() > 0.0 {
                ColliderBuilder::round_convex_polyline(points, poly.radius())
            } else {
                ColliderBuilder::convex_polyline(points)
            }
            .expect("a sapwood polygon is convex")
        }
        Shape::Capsule(cap) => ColliderBuilder::capsule_from_endpoints(v(cap.a), v(cap.b), cap.radius),
        Shape::Segment(seg) if seg.radius > 0.0 => {
            ColliderBuilder::capsule_from_endpoints(v(seg.a), v(seg.b), seg.radius)
        }
        Shape::Segment(seg) => ColliderBuilder::segment(v(seg.a), v(seg.b)),
        Shape::Chain(chain) => {
            let n = chain.vertices().len() as u32;
            let indices = (0..chain.segment_count() as u32).map(|i| [i, (i + 1) % n]).collect();
            ColliderBuilder::polyline(chain.vertices().iter().map(|&p| v(p)).collect(), Some(indices))
        }
        Shape::Compound(_) => panic!("no standard scene has compounds"),
    };
    // A fixed collider keeps rapier's default types, which skip fixed–fixed pairs, as sapwood
    // and Box2D do; pairs with any other collider are kept by that collider's types.
    let types = if c.fixed { ActiveCollisionTypes::default() } else { ActiveCollisionTypes::all() };
    let f = c.filter;
    assert!(f.group <= 0, "a positive group cannot override rapier's interaction groups");
    let groups = InteractionGroups::new(
        Group::from_bits_retain(f.category),
        Group::from_bits_retain(f.mask),
        InteractionTestMode::And,
    );
    let hooks = if f.group != 0 { ActiveHooks::FILTER_CONTACT_PAIRS } else { ActiveHooks::empty() };
    builder
        .position(to_rapier_pose(&c.pose))
        .active_collision_types(types)
        .collision_groups(groups)
        .active_hooks(hooks)
        .user_data(u128::from(c.id) | u128::from(f.group as u32) << 32)
}

/// A polygon's vertex and radius bits: equal keys, equal polygons. The suite's harness gives
/// each engine one shape per distinct polygon, as a scene that builds a polygon once and hands
/// it to many bodies does.
pub fn polygon_key(p: &sapwood::Polygon) -> Vec<u32> {
    p.vertices().iter().flat_map(|v| [v.x, v.y]).chain([p.radius()]).map(f32::to_bits).collect()
}

/// rapier's half of [`Filter::group`]: a pair whose colliders share a negative group never
/// collides (rapier calls this only for pairs with a collider whose group is not 0, the ones
/// [`rapier_collider`] gives the hook).
pub struct GroupHook;

impl PhysicsHooks for GroupHook {
    fn filter_contact_pair(&self, context: &PairFilterContext) -> Option<SolverFlags> {
        let group = |h: ColliderHandle| (context.colliders[h].user_data >> 32) as u32 as i32;
        let (a, b) = (group(context.collider1), group(context.collider2));
        (a == 0 || a != b).then(SolverFlags::default)
    }
}

/// The description sapwood is given of a scene collider: its shape, pose and filter, fixed or
/// not.
fn sapwood_desc(c: &Collider) -> ColliderDesc {
    let d = ColliderDesc::new(c.shape.clone(), c.pose).with_filter(c.filter);
    if c.fixed { d.fixed() } else { d }
}

/// sapwood's side: a default `World` and the id of every scene collider.
pub struct SapwoodSide {
    /// The world, default config.
    pub world: World,
    /// How long building it took.
    pub build_times: BuildTimes,
    /// `ids[scene id]`.
    ids: Vec<ColliderId>,
    /// `scene_of[slot index]`: the scene id of a world slot.
    scene_of: Vec<u32>,
}

/// Tells `world` the scene's last changes (see [`SapwoodSide::step`]) through the scene-id map
/// `ids`; `inserted(slot, scene id)` hears of each insertion.
fn tell(world: &mut World, ids: &mut Vec<ColliderId>, scene: &Scene, mut inserted: impl FnMut(ColliderId, u32)) {
    for &id in scene.removed() {
        world.remove(ids[id as usize]).expect("live id");
    }
    for &id in scene.inserted() {
        let c = scene.get(id).expect("inserted collider");
        let slot = world.insert(sapwood_desc(c)).expect("valid scene collider");
        if ids.len() <= id as usize {
            ids.resize(id as usize + 1, slot);
        }
        ids[id as usize] = slot;
        inserted(slot, id);
    }
    for c in scene.moving() {
        world.set_pose(ids[c.id as usize], c.pose).expect("live id, valid pose");
    }
}

/// The phases of [`SapwoodSide::build_with`], wall time.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildTimes {
    /// Inserting the fixed colliders (none in the seed table and the peer scene).
    pub insert_fixed: Duration,
    /// Inserting the others.
    pub insert_rest: Duration,
    /// The first step.
    pub first_step: Duration,
}

/// How sapwood's world receives the scene's colliders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Insertion {
    /// `World::insert`, one collider at a time in scene order: what a user adding objects as
    /// they appear does, and what the other engines get.
    #[default]
    OneByOne,
    /// One `World::insert_batch` of the whole scene, which takes its slots in Z-order.
    Batch,
}

impl SapwoodSide {
    /// Inserts every collider of `scene`, one at a time in scene order, into a default `World`
    /// and takes the first step.
    pub fn build(scene: &Scene) -> SapwoodSide {
        Self::build_with(scene, WorldConfig::default(), Insertion::OneByOne)
    }

    /// The same with another config (diagnostics only: the comparison uses the default) or
    /// insertion. Fixed colliders ([`ColliderDesc::fixed`]) are inserted first, then the
    /// others, each in scene order (every standard scene lists its fixed colliders first, so
    /// this is scene order), timed apart in [`SapwoodSide::build_times`].
    pub fn build_with(scene: &Scene, config: WorldConfig, insertion: Insertion) -> SapwoodSide {
        let mut world = World::with_config(config).expect("valid config");
        let desc = sapwood_desc;
        let (fixed, rest): (Vec<&Collider>, Vec<&Collider>) = scene.colliders().iter().partition(|c| c.fixed);
        let mut inserted = Vec::with_capacity(scene.len());
        let mut insert = |group: &[&Collider]| -> Duration {
            match insertion {
                Insertion::OneByOne => {
                    time(|| {
                        inserted.extend(group.iter().map(|&c| world.insert(desc(c)).expect("valid scene collider")))
                    })
                    .1
                }
                Insertion::Batch => {
                    let descs: Vec<ColliderDesc> = group.iter().map(|&c| desc(c)).collect();
                    let mut out = Vec::with_capacity(descs.len());
                    let took = time(|| world.insert_batch(&descs, &mut out).expect("valid scene colliders")).1;
                    inserted.append(&mut out);
                    took
                }
            }
        };
        let insert_fixed = insert(&fixed);
        let insert_rest = insert(&rest);
        let mut ids = vec![inserted[0]; scene.id_bound()];
        let mut scene_of = vec![u32::MAX; inserted.iter().map(|id| id.index() as usize + 1).max().unwrap_or(0)];
        for (c, &id) in fixed.iter().chain(&rest).zip(&inserted) {
            ids[c.id as usize] = id;
            scene_of[id.index() as usize] = c.id;
        }
        let first_step = time(|| world.step()).1;
        SapwoodSide { world, build_times: BuildTimes { insert_fixed, insert_rest, first_step }, ids, scene_of }
    }

    /// Tells the world the scene's last changes — the colliders removed, those inserted (one at
    /// a time) and every moving collider's pose — then steps it.
    pub fn step(&mut self, scene: &Scene) {
        let scene_of = &mut self.scene_of;
        tell(&mut self.world, &mut self.ids, scene, |slot, id| {
            let index = slot.index() as usize;
            if scene_of.len() <= index {
                scene_of.resize(index + 1, u32::MAX);
            }
            scene_of[index] = id;
        });
        self.world.step();
    }

    /// sapwood's advisor ([`advisor::advise`]) on this world, with the scene's next `frames`
    /// (one per step, as [`SapwoodSide::step`] would be told them) as the motion of every
    /// candidate broad phase.
    ///
    /// # Errors
    /// As [`advisor::advise`].
    pub fn advise(&self, frames: &[Scene]) -> Result<Advice, WorldError> {
        let mut ids = Vec::new();
        advisor::advise(&self.world, frames.len(), |world, step| {
            if step == 0 {
                ids.clone_from(&self.ids);
            }
            tell(world, &mut ids, &frames[step], |_, _| {});
        })
    }

    /// Touching pairs as `(lower scene id, higher scene id, deepest depth)`, sorted.
    pub fn touching(&self) -> Vec<(u32, u32, f32)> {
        let mut v: Vec<(u32, u32, f32)> = self
            .world
            .contacts()
            .iter()
            .map(|c| {
                let (a, b) = (self.scene_of[c.a.index() as usize], { self.scene_of[c.b.index() as usize] });
                let depth = c.manifold.points().iter().map(|p| p.depth).fold(f32::NEG_INFINITY, f32::max);
                (a.min(b), a.max(b), depth)
            })
            .collect();
        v.sort_unstable_by_key(|&(a, b, _)| (a, b));
        v
    }

    /// Touching pairs with at least one moving collider: the pairs Box2D, whose still colliders
    /// are static bodies, can have.
    pub fn touching_with_mover(&self, scene: &Scene) -> usize {
        let moving = |id: u32| scene.get(id).is_some_and(|c| c.moving);
        self.touching().iter().filter(|&&(a, b, _)| moving(a) || moving(b)).count()
    }
}

/// rapier's side: the collision pipeline and its sets, and the handle of every scene collider.
pub struct RapierSide {
    pipeline: CollisionPipeline,
    islands: IslandManager,
    broad_phase: DefaultBroadPhase,
    /// The narrow phase, holding the contact pairs.
    pub narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    /// Empty: `ColliderSet::remove` asks for one.
    soft_bodies: SoftBodySet,
    /// The colliders, none attached to a body.
    pub colliders: ColliderSet,
    /// `handles[scene id]`.
    handles: Vec<ColliderHandle>,
    /// The shapes of the polygons inserted by `step`, one per distinct polygon (see
    /// [`polygon_key`]), shared by the colliders made of it.
    polygons: HashMap<Vec<u32>, rapier2d::geometry::SharedShape>,
}

impl RapierSide {
    /// Inserts every collider of `scene` and takes the first step.
    pub fn build(scene: &Scene) -> RapierSide {
        let mut colliders = ColliderSet::with_capacity(scene.len());
        let mut handles = vec![ColliderHandle::invalid(); scene.id_bound()];
        for c in scene.colliders() {
            handles[c.id as usize] = colliders.insert(rapier_collider(c));
        }
        Self::with_colliders(colliders, handles)
    }

    /// The pipeline over `colliders`, after its first step.
    fn with_colliders(colliders: ColliderSet, handles: Vec<ColliderHandle>) -> RapierSide {
        let mut side = RapierSide {
            pipeline: CollisionPipeline::new(),
            islands: IslandManager::new(),
            broad_phase: DefaultBroadPhase::new(),
            narrow_phase: NarrowPhase::new(),
            bodies: RigidBodySet::new(),
            soft_bodies: SoftBodySet::new(),
            colliders,
            handles,
            polygons: HashMap::new(),
        };
        side.pipeline_step();
        side
    }

    fn pipeline_step(&mut self) {
        self.pipeline.step(
            PREDICTION,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &GroupHook,
            &(),
        );
    }

    /// rapier's copy of a sapwood world: every collider, same shape (a chain as a polyline)
    /// and pose, inserted one at a time in id order, then the first step. `handles` is indexed
    /// by the world slot of the id (`ColliderId::index`).
    #[cfg(feature = "parry")]
    pub fn from_world(world: &World) -> RapierSide {
        let mut colliders = ColliderSet::with_capacity(world.len());
        let mut handles = Vec::new();
        for id in world.ids() {
            let (shape, pose) = (world.shape(id).expect("live id"), world.pose(id).expect("live id"));
            let builder = ColliderBuilder::new(crate::parry_shapes::to_parry(shape))
                .position(to_rapier_pose(&pose))
                .active_collision_types(ActiveCollisionTypes::all());
            let slot = id.index() as usize;
            if handles.len() <= slot {
                handles.resize(slot + 1, ColliderHandle::invalid());
            }
            handles[slot] = colliders.insert(builder);
        }
        Self::with_colliders(colliders, handles)
    }

    /// rapier's `KinematicCharacterController::move_shape` of `shape` from `pose` by
    /// `translation` (time step 1/60, no collision events kept): the translation it allows and
    /// whether it ends grounded.
    pub fn move_character(
        &self,
        controller: &rapier2d::control::KinematicCharacterController,
        shape: &dyn rapier2d::parry::shape::Shape,
        pose: &Pose,
        translation: sapwood::Vec2,
    ) -> (sapwood::Vec2, bool) {
        let pipeline = self.broad_phase.as_query_pipeline(
            self.narrow_phase.query_dispatcher(),
            &self.bodies,
            &self.colliders,
            rapier2d::prelude::QueryFilter::default(),
        );
        let m = controller.move_shape(
            1.0 / 60.0,
            &pipeline,
            shape,
            &to_rapier_pose(pose),
            RVec::new(translation.x, translation.y),
            |_| {},
        );
        (sapwood::Vec2::new(m.translation.x, m.translation.y), m.grounded)
    }

    /// Tells rapier the scene's last changes — the colliders removed, those inserted (one at a
    /// time) and every moving collider's pose (`set_position`) — then steps the pipeline.
    pub fn step(&mut self, scene: &Scene) {
        for &id in scene.removed() {
            let h = self.handles[id as usize];
            self.colliders.remove(h, &mut self.islands, &mut self.bodies, &mut self.soft_bodies, false);
        }
        for &id in scene.inserted() {
            let c = scene.get(id).expect("inserted collider");
            let mut builder = rapier_collider(c);
            if let Shape::Polygon(p) = &c.shape {
                builder.shape = self.polygons.entry(polygon_key(p)).or_insert(builder.shape).clone();
            }
            let h = self.colliders.insert(builder);
            if self.handles.len() <= id as usize {
                self.handles.resize(id as usize + 1, ColliderHandle::invalid());
            }
            self.handles[id as usize] = h;
        }
        for c in scene.moving() {
            let co = self.colliders.get_mut(self.handles[c.id as usize]).expect("live handle");
            co.set_position(to_rapier_pose(&c.pose));
        }
        self.pipeline_step();
    }

    /// Touching pairs (a manifold point with a negative distance) as `(lower scene id, higher
    /// scene id, smallest distance)`, sorted.
    pub fn touching(&self) -> Vec<(u32, u32, f32)> {
        let mut v: Vec<(u32, u32, f32)> = self
            .narrow_phase
            .contact_pairs()
            .filter_map(|pair| {
                let dist =
                    pair.manifolds().iter().flat_map(|m| m.points.iter()).map(|p| p.dist).fold(f32::INFINITY, f32::min);
                (dist < 0.0).then(|| {
                    // The low 32 bits of the user data: the scene id.
                    let a = self.colliders[pair.collider1].user_data as u32;
                    let b = self.colliders[pair.collider2].user_data as u32;
                    (a.min(b), a.max(b), dist)
                })
            })
            .collect();
        v.sort_unstable_by_key(|&(a, b, _)| (a, b));
        v
    }

    /// The rapier collider of a scene id.
    pub fn collider(&self, id: u32) -> &rapier2d::prelude::Collider {
        &self.colliders[self.handles[id as usize]]
    }

    /// rapier's `QueryPipeline::cast_shape` of `shape` from `pose` along `translation` (max time
    /// of impact 1, target distance 0): the scene id hit and the fraction.
    pub fn cast_shape(
        &self,
        shape: &dyn rapier2d::parry::shape::Shape,
        pose: &Pose,
        translation: sapwood::Vec2,
    ) -> Option<(u32, f32)> {
        let pipeline = self.broad_phase.as_query_pipeline(
            self.narrow_phase.query_dispatcher(),
            &self.bodies,
            &self.colliders,
            rapier2d::prelude::QueryFilter::default(),
        );
        let options = rapier2d::parry::query::ShapeCastOptions::with_max_time_of_impact(1.0);
        let (handle, hit) =
            pipeline.cast_shape(&to_rapier_pose(pose), RVec::new(translation.x, translation.y), shape, options)?;
        Some((self.colliders[handle].user_data as u32, hit.time_of_impact))
    }

    /// The smallest manifold distance rapier holds for a pair of scene ids (`None`: no contact
    /// pair, or a pair without points).
    pub fn pair_distance(&self, a: u32, b: u32) -> Option<f32> {
        let (ha, hb) = (self.handles[a as usize], self.handles[b as usize]);
        let pair = self.narrow_phase.contact_pair(ha, hb)?;
        pair.manifolds().iter().flat_map(|m| m.points.iter()).map(|p| p.dist).reduce(f32::min)
    }
}

/// Pairs in only one of two sorted touching lists: `(pair, in sapwood's list)`.
pub fn disagreements(sapwood: &[(u32, u32, f32)], rapier: &[(u32, u32, f32)]) -> Vec<((u32, u32), bool)> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < sapwood.len() || j < rapier.len() {
        let s = sapwood.get(i).map(|&(a, b, _)| (a, b));
        let r = rapier.get(j).map(|&(a, b, _)| (a, b));
        match (s, r) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                out.push((x, true));
                i += 1;
            }
            (Some(x), None) => {
                out.push((x, true));
                i += 1;
            }
            (_, Some(y)) => {
                out.push((y, false));
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// Median of some durations, in milliseconds.
pub fn median_ms(samples: &mut [Duration]) -> f64 {
    samples.sort_unstable();
    let n = samples.len();
    let mid = if n % 2 == 1 { samples[n / 2] } else { (samples[n / 2 - 1] + samples[n / 2]) / 2 };
    mid.as_secs_f64() * 1e3
}

/// Runs `f` once and returns how long it took.
pub fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed())
}

/// CPU time the calling thread has run so far (`/proc/thread-self/schedstat`, first field, in
/// ns); `None` where that file does not exist.
///
/// Why: the bench machine is shared, and a wall-clock step that gets preempted counts the other
/// processes' time too. The kernel updates this figure at scheduler ticks and context switches,
/// so one reading can be a tick (a few ms) stale: use it summed over many steps, never per step.
pub fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Wall time and calling-thread CPU time of one run of `f`.
pub fn time_cpu(f: impl FnOnce()) -> (Duration, Option<Duration>) {
    let c0 = thread_cpu();
    let t = Instant::now();
    f();
    let wall = t.elapsed();
    let cpu = thread_cpu().zip(c0).map(|(c1, c0)| c1.saturating_sub(c0));
    (wall, cpu)
}
