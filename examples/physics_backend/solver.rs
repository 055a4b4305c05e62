//! A small 2D rigid-body stepper that uses sapwood only through its public world API.
//!
//! It lives in the example (with its test, `tests.rs`), not in the library: sapwood is a
//! collision back-end, and this file shows what a physics engine on top of it reads and writes
//! each step.
//!
//! ```text
//!  per frame, `substeps` times (h = dt / substeps):
//!   world.contacts() ──▶ constraint i from contact i (normal a→b, points, depth), warm
//!                        started from the impulses each point carries: the world handed them
//!                        from last substep's point with the same feature id (zero if new)
//!   integrate velocities (gravity)
//!   warm start, then sequential impulses: friction and normal per point (Catto, GDC 2006)
//!   integrate positions
//!   position correction: non-linear Gauss-Seidel on the contact separations (Box2D v2.4)
//!   world.store_impulses(constraint i's accumulated impulses into contact i)
//!   world.set_pose(every moving body); world.step()
//!   world.impacts() ──▶ each bullet that hit something this substep is put back at its time
//!                       of impact (world.teleport) and its approach speed along the impact
//!                       normal is removed (bounced by the restitution), so it never tunnels
//! ```
//!
//! The pose origin of every body is its centre of mass: [`Stepper::add`] re-centres shapes
//! whose centroid is off the origin.

use std::collections::HashMap;
use std::time::Instant;

use sapwood::{ColliderDesc, ColliderId, Contact, Pose, Rot, Shape, Vec2, World};

/// Tuning of the stepper.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Gravity acceleration.
    pub gravity: Vec2,
    /// Collision + solve rounds per frame.
    pub substeps: u32,
    /// Sequential-impulse sweeps per substep.
    pub velocity_iterations: u32,
    /// Non-linear Gauss-Seidel sweeps per substep.
    pub position_iterations: u32,
    /// Fraction of the remaining penetration removed per position sweep.
    pub baumgarte: f32,
    /// Penetration allowed without correction: keeps resting contacts touching, so that their
    /// manifolds (and feature ids) persist from step to step.
    pub slop: f32,
    /// Largest position correction per point and sweep.
    pub max_correction: f32,
    /// Approach speed below which contacts do not bounce.
    pub restitution_threshold: f32,
    /// Whether accumulated impulses are carried over (off only to measure what it is worth).
    pub warm_starting: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            gravity: Vec2::new(0.0, -10.0),
            substeps: 4,
            velocity_iterations: 8,
            position_iterations: 2,
            baumgarte: 0.2,
            slop: 0.005,
            max_correction: 0.2,
            restitution_threshold: 1.0,
            warm_starting: true,
        }
    }
}

/// What [`Stepper::add`] needs.
#[derive(Clone, Debug)]
pub struct BodyDesc {
    /// The shape, any origin (re-centred on its centre of mass).
    pub shape: Shape,
    /// Where the shape's local origin is.
    pub pose: Pose,
    /// Mass per unit area; 0 makes the body static.
    pub density: f32,
    /// Coulomb friction coefficient (combined by geometric mean).
    pub friction: f32,
    /// Bounciness (combined by maximum).
    pub restitution: f32,
    /// A fast body: its collider is a sapwood bullet, swept between steps, and the stepper
    /// stops it at its time of impact.
    pub bullet: bool,
}

impl BodyDesc {
    /// A moving body of density 1, friction 0.6, no bounce.
    pub fn new(shape: Shape, pose: Pose) -> Self {
        Self { shape, pose, density: 1.0, friction: 0.6, restitution: 0.0, bullet: false }
    }

    /// The same, as a bullet.
    pub fn bullet(mut self) -> Self {
        self.bullet = true;
        self
    }

    /// The same, static.
    pub fn fixed(mut self) -> Self {
        self.density = 0.0;
        self
    }
}

/// One rigid body. The collider's pose is `(position, angle)`.
#[derive(Clone, Debug)]
pub struct Body {
    /// Centre of mass.
    pub position: Vec2,
    /// Rotation angle (unwrapped: it is integrated, never reduced).
    pub angle: f32,
    /// Linear velocity.
    pub velocity: Vec2,
    /// Angular velocity.
    pub angular_velocity: f32,
    /// 0 for static bodies.
    pub inv_mass: f32,
    /// 0 for static bodies.
    pub inv_inertia: f32,
    /// Friction coefficient.
    pub friction: f32,
    /// Restitution.
    pub restitution: f32,
    /// The collider in the world, which holds the shape (centred on the centre of mass).
    pub collider: ColliderId,
}

impl Body {
    /// The collider pose.
    pub fn pose(&self) -> Pose {
        Pose { p: self.position, q: Rot::from_angle(self.angle) }
    }

    /// Whether the body moves.
    pub fn is_dynamic(&self) -> bool {
        self.inv_mass > 0.0
    }
}

/// `shape` moved by `-offset` in its local frame.
fn shifted(shape: &Shape, offset: Vec2) -> Shape {
    match shape {
        Shape::Capsule(c) => Shape::capsule(c.a - offset, c.b - offset, c.radius).expect("a moved capsule is valid"),
        Shape::Polygon(p) => {
            let pts: Vec<Vec2> = p.vertices().iter().map(|v| *v - offset).collect();
            Shape::polygon(&pts, p.radius()).expect("a moved polygon is valid")
        }
        Shape::Compound(c) => {
            let parts =
                c.parts().iter().map(|(pose, part)| (Pose { p: pose.p - offset, q: pose.q }, part.clone())).collect();
            Shape::compound(parts).expect("a moved compound is valid")
        }
        _ => shape.clone(),
    }
}

/// One contact point of a constraint.
#[derive(Clone, Copy, Debug, Default)]
struct Point {
    /// Anchors from the centres of mass at the start of the substep (world frame).
    ra: Vec2,
    rb: Vec2,
    /// `-depth` at the start of the substep.
    separation: f32,
    normal_mass: f32,
    tangent_mass: f32,
    /// Accumulated impulses.
    normal_impulse: f32,
    tangent_impulse: f32,
    /// Target normal velocity from restitution.
    bounce: f32,
    /// The manifold point's feature id.
    id: u32,
}

/// One manifold turned into a velocity/position constraint.
#[derive(Clone, Copy, Debug)]
struct Constraint {
    a: usize,
    b: usize,
    /// The contact's colliders, to check that constraint `i` still is contact `i` when the
    /// impulses are stored.
    key: (ColliderId, ColliderId),
    normal: Vec2,
    friction: f32,
    points: [Point; 2],
    count: usize,
}

/// Counters of the last frame, for the example's printout and the tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Contact points solved (summed over substeps).
    pub points: usize,
    /// Of those, how many arrived with exactly the impulses the solver stored for the same
    /// pair and feature id at the substep before, as the world carries them.
    pub warm_hits: usize,
    /// Of the others, how many are new to their pair: its features did not touch at the
    /// substep before (or the pair did not). The rest, if any, lost their impulses.
    pub new_points: usize,
    /// Milliseconds in the collision world (pose updates and `World::step`), the rest of the
    /// step being the solver's.
    pub collision_ms: f64,
    /// Bullets stopped at their time of impact (summed over substeps).
    pub impacts: usize,
}

/// The world, the bodies and the solver's scratch data.
pub struct Stepper {
    /// The collision world (public so that the example can read contacts for drawing).
    pub world: World,
    /// All bodies, in insertion order.
    pub bodies: Vec<Body>,
    /// Tuning.
    pub settings: Settings,
    /// Counters of the last frame.
    pub stats: Stats,
    /// `body_of[collider slot]` is the body index.
    body_of: Vec<u32>,
    /// Per-substep constraints, reused: constraint `i` is `world.contacts()[i]`.
    constraints: Vec<Constraint>,
    /// Body poses at the start of the substep, for the position solver's separation estimate.
    start: Vec<(Vec2, f32)>,
    /// The impulses stored at the last substep, as bits, by pair and feature id: what
    /// `Stats::warm_hits` checks the world's carry against.
    stored: HashMap<(ColliderId, ColliderId, u32), (u32, u32)>,
}

impl Default for Stepper {
    fn default() -> Self {
        Self::new(Settings::default())
    }
}

impl Stepper {
    /// An empty scene.
    pub fn new(settings: Settings) -> Self {
        Self {
            world: World::new(),
            bodies: Vec::new(),
            settings,
            stats: Stats::default(),
            body_of: Vec::new(),
            constraints: Vec::new(),
            start: Vec::new(),
            stored: HashMap::new(),
        }
    }

    /// Adds a body and its collider; returns the body index.
    pub fn add(&mut self, desc: BodyDesc) -> usize {
        let (inv_mass, inv_inertia, centroid) = if desc.density > 0.0 {
            let mass = desc.shape.mass_properties(desc.density).expect("scene bodies have finite mass");
            (1.0 / mass.mass, 1.0 / mass.inertia, mass.center)
        } else {
            (0.0, 0.0, Vec2::ZERO)
        };
        let shape = if centroid.length() > 1e-6 { shifted(&desc.shape, centroid) } else { desc.shape.clone() };
        let position = desc.pose.transform_point(centroid);
        let angle = desc.pose.q.angle();
        let mut collider_desc = ColliderDesc::new(shape, Pose { p: position, q: desc.pose.q });
        if inv_mass == 0.0 {
            collider_desc = collider_desc.fixed();
        }
        if desc.bullet {
            collider_desc = collider_desc.bullet();
        }
        let collider = self.world.insert(collider_desc).expect("scene bodies are valid colliders");
        let index = self.bodies.len();
        let slot = collider.index() as usize;
        if self.body_of.len() <= slot {
            self.body_of.resize(slot + 1, u32::MAX);
        }
        self.body_of[slot] = index as u32;
        self.bodies.push(Body {
            position,
            angle,
            velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            inv_mass,
            inv_inertia,
            friction: desc.friction,
            restitution: desc.restitution,
            collider,
        });
        index
    }

    /// Advances by `dt` seconds in `settings.substeps` substeps.
    pub fn step(&mut self, dt: f32) {
        self.stats = Stats::default();
        let h = dt / self.settings.substeps as f32;
        // Contacts of bodies added since the last call.
        let t = Instant::now();
        self.world.step();
        self.stats.collision_ms += t.elapsed().as_secs_f64() * 1e3;
        for _ in 0..self.settings.substeps {
            self.substep(h);
        }
    }

    fn substep(&mut self, h: f32) {
        let s = self.settings;
        self.start.clear();
        self.start.extend(self.bodies.iter().map(|b| (b.position, b.angle)));
        self.build_constraints();
        for b in self.bodies.iter_mut().filter(|b| b.is_dynamic()) {
            b.velocity += s.gravity * h;
        }
        if s.warm_starting {
            for c in &self.constraints {
                let tangent = c.normal.perp();
                for p in &c.points[..c.count] {
                    apply(&mut self.bodies, c, p.ra, p.rb, p.normal_impulse * c.normal + p.tangent_impulse * tangent);
                }
            }
        }
        for _ in 0..s.velocity_iterations {
            for i in 0..self.constraints.len() {
                solve_velocity(&mut self.bodies, &mut self.constraints[i]);
            }
        }
        for b in self.bodies.iter_mut().filter(|b| b.is_dynamic()) {
            b.position += h * b.velocity;
            b.angle += h * b.angular_velocity;
        }
        for _ in 0..s.position_iterations {
            for c in &self.constraints {
                solve_position(&mut self.bodies, &self.start, c, &s);
            }
        }
        self.store_impulses();
        let t = Instant::now();
        for b in self.bodies.iter().filter(|b| b.is_dynamic()) {
            self.world.set_pose(b.collider, b.pose()).expect("bodies stay within the world's range");
        }
        self.world.step();
        self.resolve_impacts();
        self.stats.collision_ms += t.elapsed().as_secs_f64() * 1e3;
    }

    /// Continuous collision on the world's bullet impacts: each bullet that hit something
    /// during the substep just stepped goes back to its pose at the time of impact, by a
    /// teleport so that the world does not sweep the move back, and loses its approach speed
    /// along the impact normal: a normal impulse between the two bodies, as for a point
    /// contact through the centres of mass (inelastic, plus the pair's restitution). The next
    /// substep then moves it away or lets it rest against the surface, where the contacts take
    /// over. Clamping loses the rest of the substep's motion (Box2D's choice too); the bullet
    /// is moving fast, so that is a small share of a frame.
    fn resolve_impacts(&mut self) {
        for k in 0..self.world.impacts().len() {
            let hit = self.world.impacts()[k];
            let (bullet, other) = (hit.bullet, hit.other);
            let a = self.body_of[bullet.index() as usize] as usize;
            let o = self.body_of[other.index() as usize] as usize;
            let body = &mut self.bodies[a];
            body.position = hit.pose.p;
            // Keep the angle unwrapped: turn by the difference the impact pose makes.
            body.angle += Rot::from_angle(body.angle).inv_mul(&hit.pose.q).angle();
            let pose = body.pose();
            self.world.teleport(bullet, pose).expect("the impact pose is a valid pose");
            let (ba, bo) = (&self.bodies[a], &self.bodies[o]);
            let approach = (ba.velocity - bo.velocity).dot(hit.normal);
            let k = ba.inv_mass + bo.inv_mass;
            if approach > 0.0 && k > 0.0 {
                let e = ba.restitution.max(bo.restitution);
                let p = hit.normal * ((1.0 + e) * approach / k);
                let (ma, mo) = (ba.inv_mass, bo.inv_mass);
                self.bodies[a].velocity -= ma * p;
                self.bodies[o].velocity += mo * p;
            }
            self.stats.impacts += 1;
        }
    }

    /// Hands the accumulated impulses back to the world, constraint `i` to contact `i`: the
    /// contacts are those `build_constraints` read, as no step or removal came in between.
    /// Without warm starting they stay zero, so nothing is carried.
    fn store_impulses(&mut self) {
        if !self.settings.warm_starting {
            return;
        }
        self.stored.clear();
        for c in &self.constraints {
            for p in &c.points[..c.count] {
                self.stored.insert((c.key.0, c.key.1, p.id), (p.normal_impulse.to_bits(), p.tangent_impulse.to_bits()));
            }
        }
        let constraints = &self.constraints;
        self.world.store_impulses(|i, contact| {
            let c = &constraints[i];
            assert_eq!(c.key, (contact.a, contact.b), "constraint {i} is not contact {i}");
            c.points.map(|p| (p.normal_impulse, p.tangent_impulse))
        });
    }

    /// One constraint per touching pair of `world.contacts()`, in order: the manifold's normal
    /// points from the contact's `a` to its `b`, each point is the midpoint between the surfaces
    /// with its own depth and the impulses the world carried to it.
    fn build_constraints(&mut self) {
        self.constraints.clear();
        let contacts: &[Contact] = self.world.contacts();
        for contact in contacts {
            let a = self.body_of[contact.a.index() as usize] as usize;
            let b = self.body_of[contact.b.index() as usize] as usize;
            let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
            let m = &contact.manifold;
            let n = m.normal;
            let t = n.perp();
            let mut c = Constraint {
                a,
                b,
                key: (contact.a, contact.b),
                normal: n,
                friction: (ba.friction * bb.friction).sqrt(),
                points: [Point::default(); 2],
                count: m.count as usize,
            };
            let restitution = ba.restitution.max(bb.restitution);
            for (k, mp) in m.points().iter().enumerate() {
                let (ra, rb) = (mp.point - ba.position, mp.point - bb.position);
                let k_mass = |dir: Vec2| {
                    let (rna, rnb) = (ra.perp_dot(dir), rb.perp_dot(dir));
                    let k = ba.inv_mass + bb.inv_mass + ba.inv_inertia * rna * rna + bb.inv_inertia * rnb * rnb;
                    if k > 0.0 { 1.0 / k } else { 0.0 }
                };
                let vn = relative_velocity(ba, bb, ra, rb).dot(n);
                let (normal_impulse, tangent_impulse) = (mp.normal_impulse, mp.tangent_impulse);
                self.stats.points += 1;
                match self.stored.get(&(contact.a, contact.b, mp.id)) {
                    Some(&stored) => {
                        self.stats.warm_hits +=
                            usize::from(stored == (normal_impulse.to_bits(), tangent_impulse.to_bits()));
                    }
                    None => self.stats.new_points += 1,
                }
                c.points[k] = Point {
                    ra,
                    rb,
                    separation: -mp.depth,
                    normal_mass: k_mass(n),
                    tangent_mass: k_mass(t),
                    normal_impulse,
                    tangent_impulse,
                    bounce: if vn < -self.settings.restitution_threshold { -restitution * vn } else { 0.0 },
                    id: mp.id,
                };
            }
            self.constraints.push(c);
        }
    }
}

/// Velocity of B's anchor relative to A's.
#[inline]
fn relative_velocity(a: &Body, b: &Body, ra: Vec2, rb: Vec2) -> Vec2 {
    (b.velocity + b.angular_velocity * rb.perp()) - (a.velocity + a.angular_velocity * ra.perp())
}

/// Applies impulse `p` to B at `rb` and `-p` to A at `ra`.
#[inline]
fn apply(bodies: &mut [Body], c: &Constraint, ra: Vec2, rb: Vec2, p: Vec2) {
    let a = &mut bodies[c.a];
    a.velocity -= a.inv_mass * p;
    a.angular_velocity -= a.inv_inertia * ra.perp_dot(p);
    let b = &mut bodies[c.b];
    b.velocity += b.inv_mass * p;
    b.angular_velocity += b.inv_inertia * rb.perp_dot(p);
}

/// One sequential-impulse sweep over a manifold: friction first (bounded by the normal impulse
/// of the last sweep), then the non-penetration impulse, both clamped on the accumulated value.
fn solve_velocity(bodies: &mut [Body], c: &mut Constraint) {
    let (n, t) = (c.normal, c.normal.perp());
    for k in 0..c.count {
        let p = c.points[k];
        let vt = relative_velocity(&bodies[c.a], &bodies[c.b], p.ra, p.rb).dot(t);
        let max = c.friction * p.normal_impulse;
        let new = (p.tangent_impulse - p.tangent_mass * vt).clamp(-max, max);
        let delta = new - p.tangent_impulse;
        c.points[k].tangent_impulse = new;
        apply(bodies, c, p.ra, p.rb, delta * t);
    }
    for k in 0..c.count {
        let p = c.points[k];
        let vn = relative_velocity(&bodies[c.a], &bodies[c.b], p.ra, p.rb).dot(n);
        let new = (p.normal_impulse - p.normal_mass * (vn - p.bounce)).max(0.0);
        let delta = new - p.normal_impulse;
        c.points[k].normal_impulse = new;
        apply(bodies, c, p.ra, p.rb, delta * n);
    }
}

/// One non-linear Gauss-Seidel sweep: the current separation is the start separation plus how
/// far the anchors have moved apart along the normal (anchors rotate with their bodies), and
/// positions are pushed apart directly.
fn solve_position(bodies: &mut [Body], start: &[(Vec2, f32)], c: &Constraint, s: &Settings) {
    let n = c.normal;
    for p in &c.points[..c.count] {
        let (a, b) = (&bodies[c.a], &bodies[c.b]);
        let ra = Rot::from_angle(a.angle - start[c.a].1).rotate(p.ra);
        let rb = Rot::from_angle(b.angle - start[c.b].1).rotate(p.rb);
        let moved = (b.position - start[c.b].0 + rb - p.rb) - (a.position - start[c.a].0 + ra - p.ra);
        let separation = p.separation + moved.dot(n);
        let correction = (s.baumgarte * (separation + s.slop)).clamp(-s.max_correction, 0.0);
        let (rna, rnb) = (ra.perp_dot(n), rb.perp_dot(n));
        let k = a.inv_mass + b.inv_mass + a.inv_inertia * rna * rna + b.inv_inertia * rnb * rnb;
        if k <= 0.0 {
            continue;
        }
        let impulse = n * (-correction / k);
        let a = &mut bodies[c.a];
        a.position -= a.inv_mass * impulse;
        a.angle -= a.inv_inertia * ra.perp_dot(impulse);
        let b = &mut bodies[c.b];
        b.position += b.inv_mass * impulse;
        b.angle += b.inv_inertia * rb.perp_dot(impulse);
    }
}
