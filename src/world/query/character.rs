//! The character mover: collide-and-slide of a convex shape through the world, with slopes, steps, ground snapping and one-way platforms.
//!
//! One move runs these stages, each built on the world's exact queries (distances, contact
//! manifolds, shape casts through both trees):
//!
//! ```text
//!  push out ─▶ slide ─▶ step up? ─▶ snap down? ─▶ check
//!  (if the     (≤ max_iterations rounds of:     (every accepted surface is at a
//!   start        contacts within 2·skin → planes  positive distance, or the move
//!   overlaps)    → solve_planes → cast, stop at   falls back to the last free pose)
//!                the first new surface)
//! ```
//!
//! **Planes, then a cast** (Box2D v3's `b2World_CollideMover` + `b2SolvePlanes` +
//! `b2World_CastMover` loop). Every surface within twice the skin becomes a half-plane
//! `d · n >= skin - separation`; [`solve_planes`](crate::query::solve_planes) gives the displacement
//! nearest the remaining target that respects them all (exactly, so an acute notch is a corner,
//! not a jitter); a cast along that displacement stops a skin short of the first surface not
//! yet known. Surfaces already closer than the cast's target distance at its start are left to
//! the planes, which only let the shape move away from them: for a convex piece, moving with a
//! non-negative component along the outward normal at the closest point never brings it closer.
//!
//! **Slopes.** A surface whose normal is within `max_slope` of `up` is ground. A steeper one that
//! still faces up is a wall the shape must not climb by sliding: while the shape pushes into
//! one, an extra plane forbids gaining more height than the translation asked for. A shape on
//! the ground does not creep down it: the downward part of the translation is dropped while
//! grounded (snapping keeps it on a slope it walks down).
//!
//! **Determinism.** Contacts are gathered into a fixed array, capped to the nearest 16 by
//! `(separation, id, part)` and sorted by `(id, part)`; casts keep the first hit by `(fraction,
//! id, part)`: the answer depends on the set of colliders, never on the order the trees (or the
//! broad phase behind them) offer them.

use glam::Vec2;

use super::QueryFilter;
use crate::collide;
use crate::math::{Aabb, Pose, Ray, Rot};
use crate::query::{self, CastHit, CastOptions, Plane, QueryError};
use crate::shape::{ChainOptions, Segment, Shape};
use crate::storage::{ColliderId, ColliderSlot};
use crate::world::{MAX_COORDINATE, World};

/// How [`World::move_character`] moves a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CharacterConfig {
    /// The unit up direction (slopes are measured from it, steps climb along it). Default +y.
    pub up: Vec2,
    /// The gap kept between the shape and the geometry, in world units; at least 1e-4 of the
    /// shape's size is used. Default 0.01.
    pub skin: f32,
    /// The steepest ground, in radians from `up` (0 to π/2): a surface steeper than this is a
    /// wall, which the shape neither stands on nor climbs by sliding. Default 45°.
    pub max_slope: f32,
    /// How far down the shape is pulled to stay on the ground when walking off a slope or down
    /// a step (only when it started on the ground and is not moving up); 0 turns it off.
    /// Default 0.2.
    pub snap_to_ground: f32,
    /// The highest ledge climbed automatically when walking into it (only when it started on
    /// the ground; the ledge's top must be ground); 0 turns it off. Default 0.25.
    pub step_height: f32,
    /// The most cast-and-solve rounds of the slide; each round ends at a new surface, so this
    /// bounds the surfaces one move can slide along. Default 5.
    pub max_iterations: u32,
    /// What the shape collides with (set `exclude` to the character's own collider).
    pub filter: QueryFilter,
}

impl Default for CharacterConfig {
    fn default() -> Self {
        Self {
            up: Vec2::Y,
            skin: 0.01,
            max_slope: std::f32::consts::FRAC_PI_4,
            snap_to_ground: 0.2,
            step_height: 0.25,
            max_iterations: 5,
            filter: QueryFilter::default(),
        }
    }
}

impl CharacterConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite field; [`QueryError::Negative`] for a
    /// negative `skin`, `max_slope`, `snap_to_ground` or `step_height`;
    /// [`QueryError::OutOfRange`] for an `up` whose length is not 1 (within 1e-3), a
    /// `max_slope` above π/2, or a `skin`, `snap_to_ground` or `step_height` above
    /// [`MAX_COORDINATE`].
    pub fn validate(&self) -> Result<(), QueryError> {
        if !self.up.is_finite() {
            return Err(QueryError::NonFinite);
        }
        for x in [self.skin, self.max_slope, self.snap_to_ground, self.step_height] {
            query::check_amount(x)?;
        }
        let lengths = [self.skin, self.snap_to_ground, self.step_height];
        if (self.up.length() - 1.0).abs() > 1e-3
            || self.max_slope > std::f32::consts::FRAC_PI_2 + 1e-6
            || lengths.iter().any(|x| *x > MAX_COORDINATE)
        {
            return Err(QueryError::OutOfRange);
        }
        Ok(())
    }
}

/// A surface the character touched.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CharacterHit {
    /// The collider.
    pub id: ColliderId,
    /// Its part: the index in a [`Compound`](crate::Compound), the segment of a
    /// [`Chain`](crate::Chain), 0 for a convex collider.
    pub part: u32,
    /// The point on the surface nearest the character (world space).
    pub point: Vec2,
    /// The surface's unit normal there, out of the obstacle towards the character.
    pub surface_normal: Vec2,
}

/// Where [`World::move_character`] left the shape.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CharacterMove {
    /// Where the shape ends (rotation unchanged): at a positive distance from every surface it
    /// collides with, unless `stuck`.
    pub pose: Pose,
    /// `pose.p` minus the start position.
    pub translation: Vec2,
    /// It stands on a surface no steeper than `max_slope` (within twice the skin, after
    /// snapping).
    pub grounded: bool,
    /// What it stands on (the nearest ground; a moving platform's id tells the game whom to
    /// carry the character with).
    pub ground: Option<CharacterHit>,
    /// It pushed up into a surface facing down (a ceiling) on the way.
    pub hit_ceiling: bool,
    /// It pushed into a surface steeper than `max_slope` on the way.
    pub hit_wall: bool,
    /// It started inside geometry and no free pose was found near it (squeezed between
    /// surfaces with no room for it): `pose` is the one the push-out rounds reached.
    pub stuck: bool,
}

/// The contacts one round keeps: the nearest by `(separation, id, part)`. Enough for any shape
/// resting in a corner of a tile map; a surface left out is still stopped at by the cast.
const MAX_CONTACTS: usize = 16;

/// Push-out rounds when the shape overlaps geometry (each solves every contact at once, so one
/// usually suffices; more only where pushing out of one surface meets another).
const PUSH_OUT_ROUNDS: u32 = 8;

#[derive(Clone, Copy, Debug)]
struct Contact {
    hit: CharacterHit,
    /// Distance from the surface (negative: penetration depth).
    separation: f32,
}

impl Contact {
    fn key(&self) -> (f32, ColliderId, u32) {
        (self.separation, self.hit.id, self.hit.part)
    }

    fn before(&self, other: &Contact) -> bool {
        let (a, b) = (self.key(), other.key());
        a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)).is_lt()
    }
}

/// A fixed-capacity contact set (no allocation), holding the nearest `MAX_CONTACTS`.
#[derive(Clone, Copy)]
struct Contacts {
    items: [Option<Contact>; MAX_CONTACTS],
    len: usize,
    /// The least separation seen, over every contact offered (kept or not).
    min_separation: f32,
}

impl Contacts {
    fn new() -> Self {
        Self { items: [None; MAX_CONTACTS], len: 0, min_separation: f32::INFINITY }
    }

    fn push(&mut self, c: Contact) {
        self.min_separation = self.min_separation.min(c.separation);
        if self.len < MAX_CONTACTS {
            self.items[self.len] = Some(c);
            self.len += 1;
            return;
        }
        // Full: replace the farthest, if the new one is nearer (an order-free rule).
        let mut worst = 0;
        for i in 1..MAX_CONTACTS {
            if self.get(worst).before(&self.get(i)) {
                worst = i;
            }
        }
        if c.before(&self.get(worst)) {
            self.items[worst] = Some(c);
        }
    }

    fn get(&self, i: usize) -> Contact {
        self.items[i].expect("below len")
    }

    fn iter(&self) -> impl Iterator<Item = Contact> + '_ {
        self.items[..self.len].iter().flatten().copied()
    }

    /// Sorts by `(id, part)`: the plane order the solver sees, independent of the visit order.
    fn sort(&mut self) {
        self.items[..self.len].sort_unstable_by_key(|c| c.map(|c| (c.hit.id, c.hit.part)));
    }
}

/// What stays fixed through one move.
struct Ctx<'a> {
    world: &'a World,
    shape: &'a Shape,
    rot: Rot,
    /// The pose the move started from: one-sided chain segments are solid for this move only if
    /// the shape was in front of them here (see `in_front`).
    start: Pose,
    /// The centre of the shape's box at `start`.
    centre: Vec2,
    up: Vec2,
    cos_max: f32,
    skin: f32,
    config: &'a CharacterConfig,
}

impl Ctx<'_> {
    fn pose(&self, p: Vec2) -> Pose {
        Pose { p, q: self.rot }
    }

    /// The least `x · n` over the shape at `pose` (its support point against `n`).
    fn lowest_along(&self, pose: &Pose, n: Vec2) -> f32 {
        let low = |pts: &[Vec2], r: f32| {
            pts.iter().map(|&v| pose.transform_point(v).dot(n)).fold(f32::INFINITY, f32::min) - r
        };
        match self.shape {
            Shape::Circle(c) => pose.p.dot(n) - c.radius,
            Shape::Capsule(c) => low(&[c.a, c.b], c.radius),
            Shape::Segment(c) => low(&[c.a, c.b], c.radius),
            Shape::Cuboid(b) => {
                let h = b.half_extents;
                low(&[h, Vec2::new(-h.x, h.y), -h, Vec2::new(h.x, -h.y)], 0.0)
            }
            Shape::Polygon(p) => low(p.vertices(), p.radius),
            Shape::Compound(_) | Shape::Chain(_) => pose.p.dot(n), // refused before a move starts
        }
    }

    /// Ground, not wall: within `max_slope` of `up`. A surface at exactly `max_slope` (a 45°
    /// tile under the default) is ground: the allowance covers the rounding of f32 normals.
    fn walkable(&self, normal: Vec2) -> bool {
        normal.dot(self.up) >= self.cos_max - 1e-5
    }

    /// Whether a one-sided chain's segment (`piece` at `pose`) is solid for this move: the
    /// shape's centre, where the move started, is in front of it (the narrow phase's rule), and
    /// for an open chain (a one-way platform) the shape was not partly through it there either.
    /// A closed chain outlines a solid, whose segments push a shape out from the front.
    fn in_front(&self, piece: &Shape, pose: &Pose, closed: bool) -> bool {
        let Shape::Segment(seg) = piece else { return true };
        let (a, b) = (pose.transform_point(seg.a), pose.transform_point(seg.b));
        let front = Vec2::new(b.y - a.y, a.x - b.x);
        if (self.centre - a).dot(front) <= 0.0 {
            return false;
        }
        closed || !collide::touching(self.shape, &self.start, piece, pose)
    }

    /// Calls `f(part, piece, pose)` for each convex piece of collider `slot` whose box meets
    /// `region` (world space): the collider itself, a compound's parts, a chain's segments (as
    /// bare segments). A one-sided chain's segment is left out unless it is solid for this move
    /// (see `in_front`).
    fn pieces(&self, slot: ColliderSlot, region: &Aabb, mut f: impl FnMut(u32, &Shape, &Pose)) {
        let s = slot.index();
        let (cs, cp) = (&self.world.cols.shape[s], &self.world.cols.pose[s]);
        match cs {
            Shape::Chain(c) => {
                let corners = [
                    region.min,
                    region.max,
                    Vec2::new(region.min.x, region.max.y),
                    Vec2::new(region.max.x, region.min.y),
                ];
                let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
                for k in corners {
                    let l = cp.inv_transform_point(k);
                    (lo, hi) = (lo.min(l), hi.max(l));
                }
                let ChainOptions { one_sided, closed } = c.options();
                c.segments_in(&Aabb::new(lo, hi).with_rounding_slack(), |i| {
                    let seg = c.segment_at(i as usize);
                    let piece = Shape::Segment(Segment { a: seg.a, b: seg.b, radius: 0.0 });
                    if one_sided && !self.in_front(&piece, cp, closed) {
                        return true;
                    }
                    f(i, &piece, cp);
                    true
                });
            }
            Shape::Compound(_) => {
                for (i, (lp, part)) in cs.parts_iter().enumerate() {
                    let pp = cp.mul(lp);
                    if part.aabb(&pp).with_rounding_slack().overlaps(region) {
                        f(i as u32, part, &pp);
                    }
                }
            }
            _ => f(0, cs, cp),
        }
    }
}

/// One move in progress: the fixed context, the caller's predicate and outputs.
struct Run<'a, 'h, F> {
    ctx: Ctx<'a>,
    accept: F,
    hits: &'h mut Vec<CharacterHit>,
    hit_wall: bool,
    hit_ceiling: bool,
    /// The height (along `up`) of the shape's lowest point where the move started: ledges are
    /// measured from it.
    feet: f32,
}

impl<F: FnMut(ColliderId, &CharacterHit) -> bool> Run<'_, '_, F> {
    /// The contacts of the shape at `p`: every accepted piece closer than `margin`, with its
    /// separation (negative when overlapping, from the contact manifold's depth) and normal.
    fn contacts(&mut self, p: Vec2, margin: f32) -> Contacts {
        let ctx = &self.ctx;
        let pose = ctx.pose(p);
        let region = ctx.shape.aabb(&pose).fattened(margin);
        let mut out = Contacts::new();
        let (accept, hits) = (&mut self.accept, &mut *self.hits);
        ctx.world.for_each_in_aabb(&region, &ctx.config.filter, true, |slot| {
            let id = ctx.world.cols.id(slot);
            ctx.pieces(slot, &region, |part, piece, pp| {
                let Ok(d) = query::distance(ctx.shape, &pose, piece, pp) else { return };
                if d.distance >= margin {
                    return;
                }
                let (separation, normal) = if d.distance > 0.0 {
                    (d.distance, -d.normal)
                } else {
                    // Touching or overlapping: the manifold gives the depth and the shortest
                    // way out.
                    let m = collide::manifold(ctx.shape, &pose, piece, pp);
                    match m.max_depth() {
                        Some(depth) if m.normal != Vec2::ZERO => (-depth.max(0.0), -m.normal),
                        _ => (0.0, (p - d.point_b).try_normalize().unwrap_or(ctx.up)),
                    }
                };
                let normal = ctx.world.welds.hit_normal(&ctx.world.cols, slot.index(), d.point_b, normal);
                let hit = CharacterHit { id, part, point: d.point_b, surface_normal: normal };
                if accept(id, &hit) {
                    record(hits, hit);
                    out.push(Contact { hit, separation });
                }
            });
        });
        out.sort();
        out
    }

    /// The cast of one piece: stop a skin short of it; a piece already within the skin is cast
    /// against with half the skin, and one already within that is left to the planes.
    fn cast_piece(ctx: &Ctx, pose: &Pose, delta: Vec2, piece: &Shape, pp: &Pose) -> Option<CastHit> {
        let mut options = CastOptions { max_fraction: 1.0, target_distance: ctx.skin };
        let hit = query::cast_shapes(ctx.shape, pose, delta, piece, pp, Vec2::ZERO, &options).ok()??;
        if !hit.started_in_contact {
            return Some(hit);
        }
        options.target_distance = 0.5 * ctx.skin;
        let hit = query::cast_shapes(ctx.shape, pose, delta, piece, pp, Vec2::ZERO, &options).ok()??;
        (!hit.started_in_contact).then_some(hit)
    }

    /// The first accepted surface the shape meets moving from `p` by `delta`: the fraction of
    /// `delta` it can move and the surface, first by `(fraction, id, part)`.
    fn cast(&mut self, p: Vec2, delta: Vec2) -> Option<(f32, CharacterHit)> {
        let ctx = &self.ctx;
        let pose = ctx.pose(p);
        let options = CastOptions { max_fraction: 1.0, target_distance: ctx.skin };
        let (ray, grow) = World::cast_traversal(ctx.shape, &pose, delta, &options);
        let end = ctx.pose(p + delta);
        // The pieces within the cast's reach: the swept box grown by the target distance and
        // the cast's tolerance (what the traversal grows the boxes by beyond the probe's own).
        let start_box = ctx.shape.aabb(&pose);
        let reach = (grow.half - start_box.half_extents()).max_element();
        let swept = start_box.union(&ctx.shape.aabb(&end)).fattened(reach);
        let mut best: Option<(f32, CharacterHit)> = None;
        let accept = &mut self.accept;
        let movers = ctx.world.mover_tree.read(&ctx.world.cols);
        for (tree, resident) in ctx.world.query_trees(&movers) {
            let max = best.map_or(1.0, |b| b.0);
            tree.ray_cast_closest_with(&ray, max, grow, |raw, _| {
                let slot = ColliderSlot::new(raw);
                if !ctx.world.accepts(slot, &ctx.config.filter, resident) {
                    return None;
                }
                let id = ctx.world.cols.id(slot);
                ctx.pieces(slot, &swept, |part, piece, pp| {
                    let Some(h) = Self::cast_piece(ctx, &pose, delta, piece, pp) else { return };
                    let better = best.is_none_or(|(f, b)| {
                        h.fraction.total_cmp(&f).then(id.cmp(&b.id)).then(part.cmp(&b.part)).is_lt()
                    });
                    let normal = ctx.world.welds.hit_normal(&ctx.world.cols, slot.index(), h.point, -h.normal);
                    let hit = CharacterHit { id, part, point: h.point, surface_normal: normal };
                    if better && accept(id, &hit) {
                        best = Some((h.fraction, hit));
                    }
                });
                best.map(|b| b.0)
            });
        }
        best
    }

    /// Sets the wall and ceiling flags for a surface met while moving by `rem`, and tells
    /// whether it is a wall the motion's sideways part pushes into (a step candidate).
    fn classify(&mut self, normal: Vec2, rem: Vec2) -> bool {
        let up = self.ctx.up;
        let nu = normal.dot(up);
        if rem.dot(normal) >= 0.0 || self.ctx.walkable(normal) {
            return false;
        }
        if nu <= -self.ctx.cos_max {
            self.hit_ceiling = true;
            return false;
        }
        self.hit_wall = true;
        (rem - rem.dot(up) * up).dot(normal) < 0.0
    }

    /// Collide-and-slide from `p` by `t` (`known`: the contacts at `p`, if already gathered):
    /// returns where it ends and whether a wall blocked the sideways motion.
    fn slide(&mut self, mut p: Vec2, t: Vec2, mut known: Option<Contacts>) -> (Vec2, bool) {
        let (up, skin) = (self.ctx.up, self.ctx.skin);
        let target = p + t;
        let tiny = 1e-3 * skin;
        let mut blocked = false;
        let mut planes = [Plane { normal: Vec2::ZERO, offset: 0.0 }; MAX_CONTACTS + 1];
        for _ in 0..self.ctx.config.max_iterations {
            let rem = target - p;
            if rem.length_squared() <= tiny * tiny {
                break;
            }
            let contacts = match known.take() {
                Some(c) => c,
                None => self.contacts(p, 2.0 * skin),
            };
            let (mut n, mut steep) = (0, false);
            for c in contacts.iter() {
                let normal = c.hit.surface_normal;
                planes[n] = Plane { normal, offset: skin - c.separation };
                n += 1;
                blocked |= self.classify(normal, rem);
                steep |= rem.dot(normal) < 0.0
                    && !self.ctx.walkable(normal)
                    && normal.dot(up) > 0.0
                    && !self.is_ledge(&c.hit);
            }
            let mut solution = query::solve(rem, &planes[..n]);
            if steep {
                // No climbing a steep slope by sliding: gain no more height than asked for. A
                // soft rule: where it leaves no room (pushing out of a narrow notch needs a
                // little height), the surfaces alone decide.
                planes[n] = Plane { normal: -up, offset: -rem.dot(up).max(0.0) };
                let capped = query::solve(rem, &planes[..n + 1]);
                if capped.feasible {
                    solution = capped;
                }
            }
            // No room at all (squeezed between surfaces): stay rather than compromise.
            let delta = solution.delta;
            if !solution.feasible || delta.length_squared() <= tiny * tiny {
                break;
            }
            match self.cast(p, delta) {
                Some((f, hit)) => {
                    p += f * delta;
                    record(self.hits, hit);
                    blocked |= self.classify(hit.surface_normal, rem);
                }
                None => {
                    p += delta;
                    if delta == rem {
                        break; // the whole remaining motion, unconstrained
                    }
                }
            }
        }
        (p, blocked)
    }

    /// Whether a contact is ground: its normal is within `max_slope` of `up`, or it is a
    /// [ledge](Self::is_ledge).
    fn is_ground(&mut self, hit: &CharacterHit) -> bool {
        self.ctx.walkable(hit.surface_normal) || self.is_ledge(hit)
    }

    /// Whether a steep contact is the edge of a ledge the shape may stand on and ride up: it
    /// faces up, lies no higher than `step_height` above the shape's lowest point at the start
    /// of the move, and has ground beside it. A round shape meets a low step's corner with a
    /// steep normal; without this it could neither stand on the corner nor get past it.
    ///
    /// The ground beside it is found by a short ray down onto the surface from just above the
    /// contact, nudged towards the obstacle, so that a corner answers with its top face while a
    /// steep slope answers with itself; a ray starting inside geometry (a slope steeper than
    /// the probe, about 76°) finds no ground.
    fn is_ledge(&mut self, hit: &CharacterHit) -> bool {
        let ctx = &self.ctx;
        let nu = hit.surface_normal.dot(ctx.up);
        if ctx.walkable(hit.surface_normal)
            || nu <= 0.0
            || hit.point.dot(ctx.up) - self.feet > ctx.config.step_height + ctx.skin
        {
            return false;
        }
        let Some(inward) = (nu * ctx.up - hit.surface_normal).try_normalize() else { return false };
        let ray = Ray { origin: hit.point + ctx.up * (4.0 * ctx.skin) + inward * ctx.skin, dir: -ctx.up };
        let max_t = 8.0 * ctx.skin;
        let region = Aabb::from_points(ray.origin, ray.at(max_t));
        let mut best: Option<(f32, Vec2)> = None;
        let accept = &mut self.accept;
        ctx.world.for_each_in_aabb(&region, &ctx.config.filter, true, |slot| {
            let id = ctx.world.cols.id(slot);
            ctx.pieces(slot, &region, |part, piece, pp| {
                let Some(h) = query::cast_ray(piece, pp, &ray, max_t).map(|(_, h)| h) else { return };
                let nearer = best.is_none_or(|(t, _)| h.t < t);
                if nearer && accept(id, &CharacterHit { id, part, point: h.point, surface_normal: h.surface_normal }) {
                    best = Some((h.t, h.surface_normal));
                }
            });
        });
        best.is_some_and(|(t, n)| t > 0.0 && ctx.walkable(n))
    }

    /// Step up a ledge from `p0` moving `lateral`: up by at most the step height, across, and
    /// down onto ground. Taken only if it ends farther along than the plain slide (`slid`).
    fn step(&mut self, p0: Vec2, lateral: Vec2, slid: Vec2) -> Option<Vec2> {
        let (up, skin) = (self.ctx.up, self.ctx.skin);
        let rise = up * self.ctx.config.step_height;
        let fu = self.cast(p0, rise).map_or(1.0, |h| h.0);
        let raised = fu * self.ctx.config.step_height;
        if raised <= skin {
            return None;
        }
        let (pl, _) = self.slide(p0 + fu * rise, lateral, None);
        let drop = -up * (raised + skin);
        let (fd, _) = self.cast(pl, drop)?;
        let landed = pl + fd * drop;
        let forward = lateral.normalize_or_zero();
        if (landed - p0).dot(forward) <= (slid - p0).dot(forward) + skin {
            return None;
        }
        let there = self.contacts(landed, 2.0 * skin);
        self.ground(&there)?; // it must land on ground
        Some(landed)
    }

    /// Pushes the shape at `p` out of what it overlaps, the shortest way the contacts give
    /// (all of them at once, through the plane solver); returns where it ends and its contacts
    /// there (free when their least separation is positive).
    fn push_out(&mut self, mut p: Vec2) -> (Vec2, Contacts) {
        let skin = self.ctx.skin;
        let mut planes = [Plane { normal: Vec2::ZERO, offset: 0.0 }; MAX_CONTACTS];
        for _ in 0..PUSH_OUT_ROUNDS {
            let contacts = self.contacts(p, 2.0 * skin);
            if contacts.min_separation > 0.0 {
                return (p, contacts);
            }
            let mut n = 0;
            for c in contacts.iter() {
                planes[n] = Plane { normal: c.hit.surface_normal, offset: skin - c.separation };
                n += 1;
            }
            let delta = query::solve(Vec2::ZERO, &planes[..n]).delta;
            if delta == Vec2::ZERO {
                break;
            }
            // The overlapped pieces are left out of the cast (they start in contact); it stops
            // at anything new in the way out.
            p += self.cast(p, delta).map_or(1.0, |h| h.0) * delta;
        }
        let contacts = self.contacts(p, 2.0 * skin);
        (p, contacts)
    }

    /// The ground among `contacts`: the nearest that [is ground](Self::is_ground).
    fn ground(&mut self, contacts: &Contacts) -> Option<CharacterHit> {
        let mut best: Option<Contact> = None;
        for c in contacts.iter() {
            if best.is_none_or(|b| c.before(&b)) && self.is_ground(&c.hit) {
                best = Some(c);
            }
        }
        best.map(|c| c.hit)
    }
}

/// Adds a touched surface to the caller's list, once per `(id, part)` (the first touch kept).
fn record(hits: &mut Vec<CharacterHit>, h: CharacterHit) {
    if !hits.iter().any(|x| x.id == h.id && x.part == h.part) {
        hits.push(h);
    }
}

/// The shapes a character may be: one convex piece with an interior.
fn check_character_shape(shape: &Shape) -> Result<(), QueryError> {
    let kind_ok = match shape {
        Shape::Compound(_) | Shape::Chain(_) => false,
        Shape::Segment(s) => s.radius > 0.0,
        _ => true,
    };
    if kind_ok && shape.validate().is_ok() { Ok(()) } else { Err(QueryError::InvalidShape) }
}

impl World {
    /// Moves a character `shape` from `pose` by `translation` through the world, by
    /// collide-and-slide: it slides along walls and walkable slopes, stops at walls and at
    /// slopes steeper than [`CharacterConfig::max_slope`], climbs ledges up to
    /// [`CharacterConfig::step_height`], stays on the ground within
    /// [`CharacterConfig::snap_to_ground`], keeps [`CharacterConfig::skin`] away from
    /// everything, and never passes through anything, however fast (every motion is a shape
    /// cast). A shape that starts overlapping geometry (a platform moved into it) is first
    /// pushed out the shortest way its contacts give. The world is unchanged: write the result
    /// back with [`World::set_pose`] if the character is a collider.
    ///
    /// One-sided chains are one-way platforms: a segment stops the shape only if the shape's
    /// centre was in front of it where the move started, and, for an open chain, the shape was
    /// not partly through it there (so it jumps up through a platform and lands on it once
    /// clear of it; a closed one-sided chain, the outline of a solid, still pushes out a shape
    /// overlapping it from the front). Sensors count unless the filter leaves them out.
    ///
    /// `hits` is cleared, then receives every surface the shape touched (within twice the skin
    /// or hit by a cast), once each, sorted by `(id, part)`; it is the only allocation, none
    /// once its capacity suffices. The result is deterministic: the same for any thread count
    /// or broad phase.
    ///
    /// ```
    /// use sapwood::{CharacterConfig, ColliderDesc, Pose, Shape, Vec2, World};
    /// let mut world = World::new();
    /// world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 0.5))?, Pose::IDENTITY).fixed())?;
    /// world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.5, 2.0))?, Pose::from_translation(Vec2::new(3.0, 2.0))).fixed())?;
    /// world.step();
    /// let player = Shape::capsule(Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5), 0.4)?;
    /// let standing = Pose::from_translation(Vec2::new(0.0, 1.41));
    /// let mut hits = Vec::new();
    /// // A fast walk to the right with gravity: it slides along the floor and stops at the wall.
    /// let m = world.move_character(&player, &standing, Vec2::new(100.0, -1.0), &CharacterConfig::default(), &mut hits)?;
    /// assert!(m.grounded && m.hit_wall);
    /// assert!((m.pose.p.x - 2.09).abs() < 0.01); // the wall's face at 2.5, the radius 0.4, the skin 0.01
    /// assert_eq!(hits.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::NonFinite`] for a NaN or infinite pose or translation or a non-unit
    /// rotation; [`QueryError::OutOfRange`] for a start or end position beyond
    /// [`MAX_COORDINATE`]; [`QueryError::InvalidShape`] for a shape failing
    /// [`Shape::validate`], a compound, a chain or a bare segment (radius 0); the errors of
    /// [`CharacterConfig::validate`]. `hits` is unchanged then.
    pub fn move_character(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        config: &CharacterConfig,
        hits: &mut Vec<CharacterHit>,
    ) -> Result<CharacterMove, QueryError> {
        self.move_character_with(shape, pose, translation, config, hits, |_, _| true)
    }

    /// [`World::move_character`] with a predicate: `accept(id, hit)` is asked about each
    /// surface the shape would respond to (a contact or a cast's first hit), and `false` makes
    /// the move ignore that surface (a one-way platform from below: accept only a hit whose
    /// normal faces up). It should depend only on its arguments, so that the move stays
    /// deterministic.
    ///
    /// # Errors
    /// As [`World::move_character`].
    pub fn move_character_with(
        &self,
        shape: &Shape,
        pose: &Pose,
        translation: Vec2,
        config: &CharacterConfig,
        hits: &mut Vec<CharacterHit>,
        accept: impl FnMut(ColliderId, &CharacterHit) -> bool,
    ) -> Result<CharacterMove, QueryError> {
        config.validate()?;
        let pose = &query::check_pose(pose)?;
        if !translation.is_finite() {
            return Err(QueryError::NonFinite);
        }
        if pose.p.abs().max_element() > MAX_COORDINATE || (pose.p + translation).abs().max_element() > MAX_COORDINATE {
            return Err(QueryError::OutOfRange);
        }
        check_character_shape(shape)?;
        hits.clear();
        let up = config.up.normalize();
        let ctx = Ctx {
            world: self,
            shape,
            rot: pose.q,
            start: *pose,
            centre: shape.aabb(pose).center(),
            up,
            cos_max: crate::trig::sin_cos(config.max_slope).1,
            skin: config.skin.max(1e-4 * shape.bounding_radius()),
            config,
        };
        let mut run = Run { ctx, accept, hits, hit_wall: false, hit_ceiling: false, feet: 0.0 };

        let (start, at_start) = run.push_out(pose.p);
        let start_free = at_start.min_separation > 0.0;
        run.feet = run.ctx.lowest_along(&run.ctx.pose(start), up);
        let grounded = run.ground(&at_start).is_some();
        let mut t = translation;
        let rise = t.dot(up);
        if grounded && rise < 0.0 {
            t -= rise * up; // stand: gravity does not make it creep down the ground
        }
        let (mut p, blocked) = run.slide(start, t, Some(at_start));
        if config.step_height > 0.0 && grounded && blocked {
            let mark = (run.hits.len(), run.hit_wall, run.hit_ceiling);
            match run.step(start, t - t.dot(up) * up, p) {
                Some(stepped) => p = stepped,
                None => {
                    // The attempt touched nothing the move keeps.
                    run.hits.truncate(mark.0);
                    (run.hit_wall, run.hit_ceiling) = (mark.1, mark.2);
                }
            }
        }
        let margin = 2.0 * run.ctx.skin;
        let mut at_end = run.contacts(p, margin);
        let mut ground = run.ground(&at_end);
        if ground.is_none() && config.snap_to_ground > 0.0 && grounded && translation.dot(up) <= 0.0 {
            let drop = -up * config.snap_to_ground;
            if let Some((f, hit)) = run.cast(p, drop)
                && run.is_ground(&hit)
            {
                p += f * drop;
                at_end = run.contacts(p, margin);
                ground = run.ground(&at_end);
            }
        }
        let mut stuck = false;
        if at_end.min_separation <= 0.0 {
            // Rounding left it touching (or the start could not be freed): push out again, or
            // fall back to the free start.
            let (q, at_q) = run.push_out(p);
            (p, at_end) = match (at_q.min_separation > 0.0, start_free) {
                (true, _) => (q, at_q),
                (false, true) => (start, at_start),
                (false, false) => {
                    stuck = true;
                    (q, at_q)
                }
            };
            ground = run.ground(&at_end);
        }
        let (hit_wall, hit_ceiling) = (run.hit_wall, run.hit_ceiling);
        run.hits.sort_unstable_by_key(|h| (h.id, h.part));
        Ok(CharacterMove {
            pose: Pose { p, q: pose.q },
            translation: p - pose.p,
            grounded: ground.is_some(),
            ground,
            hit_ceiling,
            hit_wall,
            stuck,
        })
    }
}
