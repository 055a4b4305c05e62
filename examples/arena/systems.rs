//! The systems: plain functions over hecs queries, called in order by `Game::frame`. The ones
//! after the collision step read sapwood's output: contact manifolds (`World::contacts`) for
//! positional separation and player damage, sensor events (`HecsSync::events`) for projectile
//! hits.

use hecs::Entity;
use sapwood::ecs::{ColliderHandle, HecsSync};
use sapwood::{Aabb, ColliderOptions, EventKind, Pose, QueryFilter, Shape, Vec2, World};

use crate::components::{Enemy, EnemyKind, Health, Player, Projectile, Spin, Velocity, Wall, category, filter_for};
use crate::game::{Input, Scratch, Stats};

pub const PLAYER_SPEED: f32 = 42.0;
/// How far the aimed gun looks for a target (half-side of the query box).
pub const AIM_RANGE: f32 = 55.0;
const AIM_PERIOD: f32 = 0.09;
const FAN_PERIOD: f32 = 0.35;
const FAN_SHOTS: usize = 12;
const SHOT_SPEED: f32 = 95.0;
const SHOT_LIFE: f32 = 1.3;
const SHOT_HALF: Vec2 = Vec2::new(1.5, 0.4);
/// The largest positional correction a mover gets from other movers in one frame. Bounds how
/// far a crowd can shove an enemy into a wall it was not yet touching (see `separate`).
pub const MAX_PUSH: f32 = 0.4;
/// Fraction of the penetration resolved per frame between movers (1 = all at once, which
/// jitters in dense crowds).
const RELAX: f32 = 0.8;

/// Sets the player's velocity from the input direction.
pub fn player_control(ecs: &mut hecs::World, input: Input) {
    for (vel, _) in ecs.query_mut::<(&mut Velocity, &Player)>() {
        vel.0 = input.dir.normalize_or_zero() * PLAYER_SPEED;
    }
}

/// Enemies head for the player, sliding off the enemies that block them: the component of the
/// chase velocity towards last frame's crowding direction is removed, so a crowd stops
/// pressing inwards instead of compressing layer on layer.
pub fn enemy_chase(ecs: &mut hecs::World, target: Vec2, scratch: &Scratch) {
    for (pose, vel, enemy, handle) in ecs.query_mut::<(&mut Pose, &mut Velocity, &Enemy, &ColliderHandle)>() {
        let mut v = (target - pose.p).normalize_or_zero() * enemy.speed;
        if let Some(&c) = scratch.crowding.get(handle.0.index() as usize)
            && let Some(n) = c.try_normalize()
        {
            let into = v.dot(n);
            if into > 0.0 {
                v -= 0.9 * into * n;
            }
        }
        vel.0 = v;
        if enemy.kind == EnemyKind::Capsule && v.length_squared() > 1e-6 {
            // Capsules face where they go.
            *pose = Pose::new(pose.p, v.y.atan2(v.x));
        }
    }
}

/// The player's guns: an aimed shot at the nearest enemy (a world query around the player) and
/// a rotating fan. New shots go to `scratch.new_shots`, spawned by [`spawn_shots`].
pub fn fire(ecs: &mut hecs::World, world: &World, scratch: &mut Scratch, stats: &mut Stats, dt: f32) {
    for (pose, player) in ecs.query_mut::<(&Pose, &mut Player)>() {
        player.aim_cooldown -= dt;
        player.fan_cooldown -= dt;
        if player.aim_cooldown <= 0.0 {
            player.aim_cooldown += AIM_PERIOD;
            let filter = QueryFilter { mask: category::ENEMY, include_sensors: false, exclude: None };
            let bounds = Aabb::from_center_half_extents(pose.p, Vec2::splat(AIM_RANGE));
            scratch.ids.clear();
            world.query_aabb(&bounds, &filter, &mut scratch.ids).unwrap();
            // Nearest by centre distance; ids come sorted, so ties go to the lower id.
            let nearest = scratch
                .ids
                .iter()
                .filter_map(|&id| world.pose(id).ok())
                .map(|p| p.p - pose.p)
                .min_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
            if let Some(d) = nearest.and_then(Vec2::try_normalize) {
                scratch.new_shots.push((pose.p + 2.5 * d, d, true));
            }
        }
        if player.fan_cooldown <= 0.0 {
            player.fan_cooldown += FAN_PERIOD;
            for k in 0..FAN_SHOTS {
                let a = player.fan_angle + std::f32::consts::TAU * k as f32 / FAN_SHOTS as f32;
                let d = Vec2::from_angle(a);
                scratch.new_shots.push((pose.p + 2.5 * d, d, false));
            }
            player.fan_angle += 0.21;
        }
    }
    stats.shots_fired += scratch.new_shots.len() as u64;
}

/// Spawns the shots `fire` asked for: spinning oriented boxes, sensors that meet only enemies
/// and walls.
pub fn spawn_shots(ecs: &mut hecs::World, scratch: &mut Scratch) {
    let options = ColliderOptions { filter: filter_for(category::SHOT), ..ColliderOptions::sensor() };
    let Ok(shape) = Shape::cuboid(SHOT_HALF) else { return };
    for (p, d, aimed) in scratch.new_shots.drain(..) {
        let projectile = if aimed {
            Projectile { damage: 2, pierce: 1, life: SHOT_LIFE }
        } else {
            Projectile { damage: 1, pierce: 2, life: SHOT_LIFE }
        };
        ecs.spawn((
            Pose::new(p, d.y.atan2(d.x)),
            shape.clone(),
            options,
            Velocity(d * SHOT_SPEED),
            Spin(if aimed { 0.0 } else { 14.0 }),
            projectile,
        ));
    }
}

/// Moves everything that has a velocity; turns everything that spins; ages projectiles.
pub fn integrate(ecs: &mut hecs::World, dt: f32) {
    for (pose, vel, spin) in ecs.query_mut::<(&mut Pose, &Velocity, Option<&Spin>)>() {
        let angle = pose.q.angle() + spin.map_or(0.0, |s| s.0 * dt);
        *pose = Pose::new(pose.p + vel.0 * dt, angle);
    }
    for (_, shot) in ecs.query_mut::<(Entity, &mut Projectile)>() {
        shot.life -= dt;
    }
}

/// Fills `scratch.kind_by_slot`: which collider slot belongs to what, for the systems that read
/// contacts by slot.
pub fn classify(ecs: &hecs::World, scratch: &mut Scratch) {
    let kinds = &mut scratch.kind_by_slot;
    kinds.iter_mut().for_each(|k| *k = 0);
    let mut set = |h: &ColliderHandle, cat: u32| {
        let i = h.0.index() as usize;
        if i >= kinds.len() {
            kinds.resize(i + 1, 0);
        }
        kinds[i] = cat;
    };
    for (h, _) in ecs.query::<(&ColliderHandle, &Enemy)>().iter() {
        set(h, category::ENEMY);
    }
    for (h, _) in ecs.query::<(&ColliderHandle, &Wall)>().iter() {
        set(h, category::WALL);
    }
    for (h, _) in ecs.query::<(&ColliderHandle, &Player)>().iter() {
        set(h, category::PLAYER);
    }
}

/// Positional separation from the contact manifolds (normal from `a` to `b`, depth):
/// - enemy–enemy: each moves `RELAX * depth / 2` apart along the normal;
/// - player–enemy: the enemy takes 80 %, the player 20 % (a crowd can trap the player);
/// - mover–wall: the mover moves out by the full depth.
///
/// A mover's share from other movers is clamped to [`MAX_PUSH`] and then stripped of any part
/// that points into a wall it touches, so the crowd never shoves an enemy back into a wall it
/// is being pushed out of. It can still shove one by at most `MAX_PUSH` into a wall it was not
/// touching; the next frame's contacts push it out. Hence the test's bound on wall depth.
pub fn separate(ecs: &mut hecs::World, world: &World, scratch: &mut Scratch) {
    let n = scratch.kind_by_slot.len();
    for v in [&mut scratch.push, &mut scratch.wall_push, &mut scratch.crowding] {
        v.clear();
        v.resize(n, Vec2::ZERO);
    }
    scratch.wall_normals.clear();
    scratch.wall_normals.resize(n, [Vec2::ZERO; 2]);
    let kind = |i: usize| scratch.kind_by_slot.get(i).copied().unwrap_or(0);

    for c in world.contacts() {
        let (a, b) = (c.a.index() as usize, c.b.index() as usize);
        let Some(depth) = c.manifold.max_depth() else { continue };
        let normal = c.manifold.normal;
        let (ka, kb) = (kind(a), kind(b));
        if a >= n || b >= n {
            continue;
        }
        match (ka, kb) {
            (category::ENEMY, category::ENEMY) => {
                let d = 0.5 * RELAX * depth * normal;
                scratch.push[a] -= d;
                scratch.push[b] += d;
                scratch.crowding[a] += depth * normal;
                scratch.crowding[b] -= depth * normal;
            }
            (category::PLAYER, category::ENEMY) | (category::ENEMY, category::PLAYER) => {
                // Push so that the enemy side moves along +n if it is `b`, -n if it is `a`.
                let (player, enemy, out) = if ka == category::PLAYER { (a, b, normal) } else { (b, a, -normal) };
                scratch.push[enemy] += 0.8 * depth * out;
                scratch.push[player] -= 0.2 * depth * out;
                scratch.crowding[enemy] -= depth * out;
            }
            (category::WALL, _) | (_, category::WALL) => {
                // `out` points from the wall to the mover.
                let (mover, out) = if ka == category::WALL { (b, normal) } else { (a, -normal) };
                scratch.wall_push[mover] += depth * out;
                let slots = &mut scratch.wall_normals[mover];
                if slots[0] == Vec2::ZERO {
                    slots[0] = out;
                } else if slots[1] == Vec2::ZERO {
                    slots[1] = out;
                }
            }
            _ => {}
        }
    }

    for (pose, handle) in ecs.query_mut::<(&mut Pose, &ColliderHandle)>().with::<hecs::Or<&Enemy, &Player>>() {
        let i = handle.0.index() as usize;
        if i >= n {
            continue;
        }
        let mut p = scratch.push[i].clamp_length_max(MAX_PUSH);
        for w in scratch.wall_normals[i] {
            let into = p.dot(w);
            if into < 0.0 {
                p -= into * w;
            }
        }
        p += scratch.wall_push[i];
        if p != Vec2::ZERO {
            pose.p += p;
        }
    }
}

/// Projectile hits from sensor events: a shot entering an enemy damages it (until the shot's
/// pierce is spent); a shot entering a wall is spent. Killed enemies go to `scratch.dead`.
pub fn hits(ecs: &mut hecs::World, world: &World, sync: &HecsSync, scratch: &mut Scratch, stats: &mut Stats) {
    for (a, b, kind) in sync.events(world) {
        if kind != EventKind::SensorEntered {
            continue;
        }
        let (shot, other) = if ecs.satisfies::<&Projectile>(a) { (a, b) } else { (b, a) };
        let Ok(mut projectile) = ecs.get::<&mut Projectile>(shot) else { continue };
        if projectile.pierce == 0 {
            continue;
        }
        if ecs.satisfies::<&Wall>(other) {
            projectile.pierce = 0;
            scratch.spent.push(shot);
            continue;
        }
        let mut q = ecs.query_one::<(&mut Health, &Enemy)>(other);
        let Ok((health, enemy)) = q.get() else { continue };
        if health.hp <= 0 {
            continue; // already killed this frame
        }
        health.hp -= projectile.damage;
        stats.hits += 1;
        projectile.pierce -= 1;
        if projectile.pierce == 0 {
            scratch.spent.push(shot);
        }
        if health.hp <= 0 {
            stats.kills += 1;
            stats.score += match enemy.kind {
                EnemyKind::Circle => 10,
                EnemyKind::Capsule => 20,
                EnemyKind::Polygon => 30,
            };
            scratch.dead.push(other);
        }
    }
    for (e, shot) in ecs.query_mut::<(Entity, &Projectile)>() {
        if shot.life <= 0.0 && shot.pierce > 0 {
            scratch.spent.push(e);
        }
    }
}

/// Enemies touching the player hurt it (one hit point, then half a second of grace). At zero
/// the player loses a life, gets full health back, and a shock wave sends the enemies within
/// 25 units back to the edge (they count as neither kills nor score).
pub fn player_hurt(
    ecs: &mut hecs::World,
    world: &World,
    scratch: &mut Scratch,
    stats: &mut Stats,
    player: Entity,
    dt: f32,
) {
    let Ok(handle) = ecs.get::<&ColliderHandle>(player).map(|h| h.0) else { return };
    let mut touching = false;
    let _ = world.contacts_of(handle, |c| {
        let other = if c.a.index() == handle.index() { c.b.index() } else { c.a.index() };
        touching |= scratch.kind_by_slot.get(other as usize) == Some(&category::ENEMY);
    });
    let Ok((pose, health, state)) = ecs.query_one_mut::<(&Pose, &mut Health, &mut Player)>(player) else { return };
    let centre = pose.p;
    state.hurt_cooldown -= dt;
    if !touching || state.hurt_cooldown > 0.0 {
        return;
    }
    state.hurt_cooldown = 0.5;
    health.hp -= 1;
    if health.hp > 0 {
        return;
    }
    health.hp = health.max;
    stats.deaths += 1;
    for (e, pose, _) in ecs.query_mut::<(Entity, &Pose, &Enemy)>() {
        if pose.p.distance_squared(centre) < 25.0 * 25.0 {
            scratch.dead.push(e);
        }
    }
}

/// Despawns spent and expired projectiles (their colliders go at the next sync).
pub fn despawn_spent(ecs: &mut hecs::World, scratch: &mut Scratch) {
    scratch.spent.sort_unstable_by_key(|e| e.to_bits());
    scratch.spent.dedup();
    for e in scratch.spent.drain(..) {
        let _ = ecs.despawn(e);
    }
}
