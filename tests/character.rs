//! The character mover (`World::move_character`) on a course of slopes, steps, corridors, acute
//! notches, one-way and moving platforms, fast and random moves, for a capsule, a box, a circle
//! and a rounded box, in every broad phase.
//!
//! **The oracle.** After every move, the exact `f64` distance (`sapwood_support::exact_query`,
//! vertex–edge minima, no iteration) from the character to every solid collider, by brute
//! force over all of them, must be at least `CLEAR` (a quarter of the skin: the mover keeps
//! half a skin or more, and the rest is f32 rounding of the poses). One-sided chains are left to
//! the checks of their own tests (a character may legitimately be partly through one).
//! Progress is checked against the geometry: how high a slope took it, where a wall stopped it.

use sapwood::{
    Aabb, BroadPhaseKind, ChainOptions, CharacterConfig, CharacterMove, ColliderDesc, ColliderId, Pose, Shape, Tile,
    TileMap, Vec2, World, WorldConfig,
};
use sapwood_support::SplitMix64;
use sapwood_support::exact_query;

const SKIN: f32 = 0.01;

/// The least exact distance the oracle accepts between the character and any solid.
const CLEAR: f64 = 0.25 * SKIN as f64;

/// Every broad phase the world offers (the mover must answer the same in each).
fn kinds() -> [BroadPhaseKind; 7] {
    BroadPhaseKind::all(Aabb::new(Vec2::splat(-60.0), Vec2::splat(60.0)), 2.0)
}

/// The characters: 1.8 tall and 0.8 wide (the circle 1.0 across).
fn characters() -> Vec<(&'static str, Shape)> {
    vec![
        ("capsule", Shape::capsule(Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5), 0.4).unwrap()),
        ("box", Shape::cuboid(Vec2::new(0.4, 0.9)).unwrap()),
        ("circle", Shape::circle(0.5).unwrap()),
        ("rounded box", Shape::rounded_box(Vec2::new(0.3, 0.8), 0.1).unwrap()),
    ]
}

fn half(shape: &Shape) -> Vec2 {
    shape.aabb(&Pose::IDENTITY).half_extents()
}

fn config() -> CharacterConfig {
    CharacterConfig { skin: SKIN, ..CharacterConfig::default() }
}

/// A world and its solid geometry (what the oracle checks against).
struct Course {
    world: World,
    solids: Vec<(ColliderId, Shape, Pose)>,
}

impl Course {
    fn new(kind: BroadPhaseKind) -> Course {
        let config = WorldConfig { broad_phase: kind, large_extent: 8.0, ..WorldConfig::default() };
        Course { world: World::with_config(config).unwrap(), solids: Vec::new() }
    }

    /// Adds a fixed solid.
    fn solid(&mut self, shape: Shape, pose: Pose) -> ColliderId {
        let id = self.world.insert(ColliderDesc::new(shape.clone(), pose).fixed()).unwrap();
        self.solids.push((id, shape, pose));
        id
    }

    /// Adds a moving solid (a platform).
    fn moving(&mut self, shape: Shape, pose: Pose) -> ColliderId {
        let id = self.world.insert(ColliderDesc::new(shape.clone(), pose)).unwrap();
        self.solids.push((id, shape, pose));
        id
    }

    fn set_pose(&mut self, id: ColliderId, pose: Pose) {
        self.world.set_pose(id, pose).unwrap();
        self.solids.iter_mut().find(|s| s.0 == id).unwrap().2 = pose;
    }

    /// The floor: top face at y = 0, x in [-50, 50].
    fn floor(&mut self) {
        self.solid(Shape::cuboid(Vec2::new(50.0, 1.0)).unwrap(), Pose::from_translation(Vec2::new(0.0, -1.0)));
    }

    /// The least exact distance from `shape` at `pose` to any solid (brute force), and which.
    fn clearance(&self, shape: &Shape, pose: &Pose) -> (f64, Option<ColliderId>) {
        let mut best = (f64::INFINITY, None);
        for (id, s, p) in &self.solids {
            let d = exact_query::distance(shape, pose, s, p).distance;
            if d < best.0 {
                best = (d, Some(*id));
            }
        }
        best
    }

    fn assert_clear(&self, shape: &Shape, pose: &Pose, what: &str) {
        let (d, id) = self.clearance(shape, pose);
        assert!(d >= CLEAR, "{what}: {pose:?} is {d} from {id:?} (< {CLEAR})");
    }

    /// Moves `shape` from `pose` by `per_frame` for `frames` frames (stepping the world), the
    /// oracle checked after each; returns the last move.
    fn walk(
        &mut self,
        shape: &Shape,
        mut pose: Pose,
        per_frame: Vec2,
        frames: usize,
        what: &str,
    ) -> (Pose, CharacterMove) {
        self.world.step();
        let mut hits = Vec::new();
        let mut last = None;
        for f in 0..frames {
            let m = self.world.move_character(shape, &pose, per_frame, &config(), &mut hits).unwrap();
            assert!(!m.stuck, "{what}: frame {f}");
            self.assert_clear(shape, &m.pose, &format!("{what}, frame {f}"));
            pose = m.pose;
            last = Some(m);
        }
        (pose, last.unwrap())
    }
}

/// Standing on the floor at `x`.
fn standing(shape: &Shape, x: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, half(shape).y + 1.5 * SKIN))
}

/// A ramp rising to the right from (0, 0) at `angle`, 20 units long.
fn ramp(angle_deg: f32) -> Shape {
    let t = angle_deg.to_radians().tan();
    Shape::polygon(&[Vec2::ZERO, Vec2::new(20.0, 0.0), Vec2::new(20.0, 20.0 * t)], 0.0).unwrap()
}

#[test]
fn walks_up_a_30_degree_slope() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            c.solid(ramp(30.0), Pose::IDENTITY);
            let start = standing(&shape, -3.0);
            let (end, m) = c.walk(&shape, start, Vec2::new(0.1, -0.05), 150, name);
            let surface = end.p.x.max(0.0) * 30f32.to_radians().tan();
            assert!(end.p.x > 6.0, "{name} {kind:?}: only reached x = {}", end.p.x);
            assert!(m.grounded && !m.hit_wall, "{name} {kind:?}: {m:?}");
            // Hugging the slope: its centre within its half height (plus the corner's reach)
            // of the surface under it.
            let above = end.p.y - surface;
            assert!(above > 0.0 && above < half(&shape).y + 0.35, "{name} {kind:?}: {above} above the slope");
        }
    }
}

#[test]
fn stops_at_a_60_degree_slope_and_slides_down_it() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            c.solid(ramp(60.0), Pose::IDENTITY);
            let start = standing(&shape, -3.0);
            let (end, m) = c.walk(&shape, start, Vec2::new(0.1, -0.05), 100, name);
            assert!(end.p.y < start.p.y + 0.02, "{name} {kind:?}: climbed to {}", end.p.y);
            assert!(end.p.x < 0.0 && end.p.x > -1.0, "{name} {kind:?}: x = {}", end.p.x);
            assert!(m.grounded && m.hit_wall, "{name} {kind:?}: {m:?}");
            // Dropped onto the slope, it slides down to its foot instead of sticking.
            let above = Pose::from_translation(Vec2::new(2.0, 6.0));
            let (end, m) = c.walk(&shape, above, Vec2::new(0.0, -0.2), 120, name);
            assert!(end.p.x < 0.3 && end.p.y < half(&shape).y + 0.5, "{name} {kind:?}: rests at {}", end.p);
            assert!(m.grounded, "{name} {kind:?}: {m:?}");
        }
    }
}

#[test]
fn climbs_a_low_step_not_a_high_one() {
    for kind in kinds() {
        for (name, shape) in characters() {
            for (h, climbs) in [(0.2, true), (0.5, false)] {
                let mut c = Course::new(kind);
                c.floor();
                c.solid(
                    Shape::cuboid(Vec2::new(4.0, h / 2.0)).unwrap(),
                    Pose::from_translation(Vec2::new(6.0, h / 2.0)),
                );
                let start = standing(&shape, 0.0);
                let what = format!("{name} {kind:?} step {h}");
                let (end, m) = c.walk(&shape, start, Vec2::new(0.1, -0.05), 60, &what);
                if climbs {
                    assert!(end.p.x > 3.0, "{what}: stopped at {}", end.p);
                    assert!((end.p.y - (start.p.y + h)).abs() < 0.03, "{what}: at {}", end.p);
                } else {
                    assert!(end.p.x < 2.0 - half(&shape).x + 0.05 && end.p.x > 1.0, "{what}: at {}", end.p);
                    assert!((end.p.y - start.p.y).abs() < 0.03, "{what}: at {}", end.p);
                    assert!(m.hit_wall, "{what}: {m:?}");
                }
                assert!(m.grounded, "{what}: {m:?}");
            }
        }
    }
}

#[test]
fn corridors_admit_what_fits() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let h = half(&shape);
            for (room, fits) in [(0.05, true), (-0.05, false)] {
                // A tunnel from x = 2 to 10 whose ceiling is `room` above the character's top.
                let mut c = Course::new(kind);
                c.floor();
                let ceiling = 2.0 * h.y + room;
                c.solid(
                    Shape::cuboid(Vec2::new(4.0, 1.0)).unwrap(),
                    Pose::from_translation(Vec2::new(6.0, ceiling + 1.0)),
                );
                let what = format!("{name} {kind:?} tunnel {room:+}");
                let (end, _) = c.walk(&shape, standing(&shape, 0.0), Vec2::new(0.1, -0.05), 100, &what);
                if fits {
                    assert!(end.p.x > 9.0, "{what}: stopped at {}", end.p);
                } else {
                    assert!(end.p.x < 2.0, "{what}: entered to {}", end.p);
                }
                // A shaft in the floor `room` wider than the character, over a pit.
                let mut c = Course::new(kind);
                let w = 2.0 * h.x + room;
                let left = Pose::from_translation(Vec2::new(-w / 2.0 - 5.0, -1.0));
                let right = Pose::from_translation(Vec2::new(w / 2.0 + 5.0, -1.0));
                c.solid(Shape::cuboid(Vec2::new(5.0, 1.0)).unwrap(), left);
                c.solid(Shape::cuboid(Vec2::new(5.0, 1.0)).unwrap(), right);
                c.solid(Shape::cuboid(Vec2::new(20.0, 1.0)).unwrap(), Pose::from_translation(Vec2::new(0.0, -20.0)));
                let what = format!("{name} {kind:?} shaft {room:+}");
                let above = Pose::from_translation(Vec2::new(0.0, 3.0));
                let (end, _) = c.walk(&shape, above, Vec2::new(0.0, -0.2), 150, &what);
                if fits {
                    assert!(end.p.y < -15.0, "{what}: held at {}", end.p);
                } else {
                    assert!(end.p.y > 0.0, "{what}: fell to {}", end.p);
                }
            }
        }
    }
}

/// V-shaped notches of 10°, 20° and 30° (a two-sided chain, and two thin boxes): pushed into
/// the notch, the character settles, keeping clear, and comes to rest (no jitter: the last
/// frames do not move it).
#[test]
fn acute_notches_hold_still() {
    for kind in kinds() {
        for (name, shape) in characters() {
            for deg in [10.0f32, 20.0, 30.0] {
                for boxes in [false, true] {
                    let mut c = Course::new(kind);
                    let half_angle = (deg / 2.0).to_radians();
                    let arm = Vec2::new(half_angle.sin(), half_angle.cos()) * 30.0;
                    if boxes {
                        for s in [-1.0f32, 1.0] {
                            let dir = Vec2::new(s * arm.x, arm.y).normalize();
                            let normal = Vec2::new(-dir.y, dir.x) * -s; // away from the notch
                            let centre = dir * 15.0 + normal * 0.05;
                            let angle = dir.y.atan2(dir.x);
                            c.solid(Shape::cuboid(Vec2::new(15.0, 0.05)).unwrap(), Pose::new(centre, angle));
                        }
                    } else {
                        let v = vec![Vec2::new(-arm.x, arm.y), Vec2::ZERO, arm];
                        c.solid(Shape::chain(v, ChainOptions::default()).unwrap(), Pose::IDENTITY);
                    }
                    let what = format!("{name} {kind:?} notch {deg} boxes {boxes}");
                    let top = Pose::from_translation(Vec2::new(0.3, 25.0));
                    let (end, _) = c.walk(&shape, top, Vec2::new(0.05, -0.3), 200, &what);
                    let mut hits = Vec::new();
                    let mut pose = end;
                    for _ in 0..20 {
                        let m =
                            c.world.move_character(&shape, &pose, Vec2::new(0.05, -0.3), &config(), &mut hits).unwrap();
                        assert!(
                            (m.pose.p - pose.p).length() < 1e-4,
                            "{what}: still moving, {} -> {}",
                            pose.p,
                            m.pose.p
                        );
                        pose = m.pose;
                    }
                    assert!(pose.p.y > 0.0 && pose.p.y < 24.0, "{what}: at {}", pose.p);
                }
            }
        }
    }
}

/// A one-sided chain is a one-way platform: jumped through from below, landed on from above.
#[test]
fn one_sided_chain_is_a_one_way_platform() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            // Right to left: the front (the colliding side) faces up.
            let v = vec![Vec2::new(3.0, 2.5), Vec2::new(-3.0, 2.5)];
            let platform = c
                .world
                .insert(
                    ColliderDesc::new(
                        Shape::chain(v, ChainOptions { one_sided: true, closed: false }).unwrap(),
                        Pose::IDENTITY,
                    )
                    .fixed(),
                )
                .unwrap();
            let what = format!("{name} {kind:?}");
            let (up, _) = c.walk(&shape, standing(&shape, 0.0), Vec2::new(0.0, 0.4), 12, &what);
            assert!(up.p.y > 2.5 + half(&shape).y, "{what}: jumped only to {}", up.p);
            let (down, m) = c.walk(&shape, up, Vec2::new(0.0, -0.2), 40, &what);
            assert!(m.grounded && m.ground.map(|g| g.id) == Some(platform), "{what}: {m:?}");
            assert!((down.p.y - (2.5 + half(&shape).y)).abs() < 2.0 * SKIN, "{what}: rests at {}", down.p);
            // Partly through it (centre above, feet below), it is not held: it drops through.
            let through = Pose::from_translation(Vec2::new(0.0, 2.5 + 0.5 * half(&shape).y));
            let (fell, _) = c.walk(&shape, through, Vec2::new(0.0, -0.2), 40, &what);
            assert!(fell.p.y < 2.5 - half(&shape).y, "{what}: held at {} by a platform it was partly through", fell.p);
            // Walking off its end, it falls to the floor.
            let (off, m) = c.walk(&shape, down, Vec2::new(0.1, -0.2), 80, &what);
            assert!(
                off.p.x > 4.0 && m.grounded && (off.p.y - standing(&shape, 0.0).p.y).abs() < 2.0 * SKIN,
                "{what}: {m:?}"
            );
        }
    }
}

/// The same with a box platform and a predicate accepting only surfaces facing up.
#[test]
fn predicate_makes_a_one_way_box() {
    for (name, shape) in characters() {
        let mut c = Course::new(BroadPhaseKind::IncrementalSap);
        c.floor();
        let plank = Shape::cuboid(Vec2::new(3.0, 0.1)).unwrap();
        let plank_pose = Pose::from_translation(Vec2::new(0.0, 2.5));
        let platform = c.world.insert(ColliderDesc::new(plank.clone(), plank_pose).fixed()).unwrap();
        c.world.step();
        let oneway = |id: ColliderId, hit: &sapwood::CharacterHit| id != platform || hit.surface_normal.y > 0.7;
        let mut pose = standing(&shape, 0.0);
        let mut hits = Vec::new();
        let mut last = None;
        for (t, frames) in [(Vec2::new(0.0, 0.4), 12), (Vec2::new(0.0, -0.2), 40)] {
            for _ in 0..frames {
                let m = c.world.move_character_with(&shape, &pose, t, &config(), &mut hits, oneway).unwrap();
                c.assert_clear(&shape, &m.pose, name);
                pose = m.pose;
                last = Some(m);
            }
        }
        let m = last.unwrap();
        assert!(m.grounded && m.ground.map(|g| g.id) == Some(platform), "{name}: {m:?}");
        let d = exact_query::distance(&shape, &pose, &plank, &plank_pose).distance;
        assert!(d >= CLEAR && d < 2.0 * SKIN as f64, "{name}: {d} above the plank");
    }
}

/// A platform moved with `set_pose` and `step`: the game carries the character standing on it
/// by the platform's displacement, then moves it; it stays on the platform and never ends
/// inside it, up, down or sideways. A platform rising into a character it does not carry
/// pushes it out.
#[test]
fn moving_platforms_carry_and_push() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            let slab = Shape::cuboid(Vec2::new(2.0, 0.25)).unwrap();
            let at = |t: f32| Pose::from_translation(Vec2::new(3.0 * (0.05 * t).sin(), 3.0 + 2.0 * (0.07 * t).sin()));
            let platform = c.moving(slab.clone(), at(0.0));
            c.world.step();
            let mut pose = Pose::from_translation(Vec2::new(0.0, 3.25 + half(&shape).y + 1.5 * SKIN));
            let mut hits = Vec::new();
            let what = format!("{name} {kind:?}");
            let mut on = true;
            for f in 1..400 {
                let (from, to) = (at(f as f32 - 1.0), at(f as f32));
                c.set_pose(platform, to);
                c.world.step();
                if on {
                    pose.p += to.p - from.p; // the game carries its rider
                }
                let m = c.world.move_character(&shape, &pose, Vec2::new(0.0, -0.1), &config(), &mut hits).unwrap();
                c.assert_clear(&shape, &m.pose, &format!("{what}, frame {f}"));
                assert!(!m.stuck, "{what}, frame {f}");
                on = m.ground.is_some_and(|g| g.id == platform);
                assert!(on, "{what}, frame {f}: fell off, {m:?}");
                pose = m.pose;
            }
            // An elevator rising 0.3 a frame from under a character it does not carry.
            let mut c = Course::new(kind);
            c.floor();
            let lift = c.moving(slab.clone(), Pose::from_translation(Vec2::new(0.0, -0.3)));
            let mut pose = standing(&shape, 0.0);
            for f in 1..30 {
                c.set_pose(lift, Pose::from_translation(Vec2::new(0.0, -0.3 + 0.3 * f as f32)));
                c.world.step();
                let m = c.world.move_character(&shape, &pose, Vec2::ZERO, &config(), &mut hits).unwrap();
                c.assert_clear(&shape, &m.pose, &format!("{what} lift, frame {f}"));
                pose = m.pose;
            }
            assert!(pose.p.y > 8.0, "{what}: the lift left it at {}", pose.p);
            // A wall sliding 0.3 a frame into a standing character pushes it along the floor.
            let mut c = Course::new(kind);
            c.floor();
            let wall =
                c.moving(Shape::cuboid(Vec2::new(0.25, 2.0)).unwrap(), Pose::from_translation(Vec2::new(-2.0, 2.1)));
            let mut pose = standing(&shape, 0.0);
            for f in 1..30 {
                c.set_pose(wall, Pose::from_translation(Vec2::new(-2.0 + 0.3 * f as f32, 2.1)));
                c.world.step();
                let m = c.world.move_character(&shape, &pose, Vec2::new(0.0, -0.1), &config(), &mut hits).unwrap();
                c.assert_clear(&shape, &m.pose, &format!("{what} pushed, frame {f}"));
                pose = m.pose;
            }
            assert!(pose.p.x > 5.0, "{what}: the wall left it at {}", pose.p);
        }
    }
}

/// 1000 units in one call, through thin walls (boxes 0.02 thick and bare segments): it stops
/// at the first wall, whatever the direction.
#[test]
fn very_fast_moves_stop_at_the_first_wall() {
    for kind in kinds() {
        for (name, shape) in characters() {
            for segments in [false, true] {
                let mut c = Course::new(kind);
                for k in 0..4 {
                    let x = 5.0 + k as f32 * 0.5;
                    for (a, b) in [(Vec2::new(x, -20.0), Vec2::new(x, 20.0)), (Vec2::new(-20.0, x), Vec2::new(20.0, x))]
                    {
                        let (shape, pose) = if segments {
                            (Shape::segment(a, b).unwrap(), Pose::IDENTITY)
                        } else {
                            let d = b - a;
                            (
                                Shape::cuboid(Vec2::new(0.5 * d.length(), 0.01)).unwrap(),
                                Pose::new(0.5 * (a + b), d.y.atan2(d.x)),
                            )
                        };
                        c.solid(shape, pose);
                    }
                }
                c.world.step();
                let h = half(&shape);
                let mut hits = Vec::new();
                for dir in [Vec2::X, Vec2::Y, Vec2::new(1.0, 1.0).normalize(), Vec2::new(1.0, 0.1).normalize()] {
                    let m =
                        c.world.move_character(&shape, &Pose::IDENTITY, dir * 1000.0, &config(), &mut hits).unwrap();
                    let what = format!("{name} {kind:?} segments {segments} dir {dir}");
                    c.assert_clear(&shape, &m.pose, &what);
                    assert!(m.pose.p.x + h.x < 5.0 && m.pose.p.y + h.y < 5.0, "{what}: tunnelled to {}", m.pose.p);
                    assert!(!hits.is_empty(), "{what}");
                }
            }
        }
    }
}

/// A random course (boxes, rotated boxes, polygons, capsules, chains, compounds) walked by thousands of
/// random moves, some of them 1000 units: the oracle after each, and the same answers, bit for
/// bit, in every broad phase.
#[test]
fn random_moves_never_end_inside() {
    let mut reference: Option<Vec<(u32, u32, bool, bool)>> = None;
    // Moves, least exact clearance, grounded endings, moves of about 1000 units.
    let mut stats = (0usize, f64::INFINITY, 0usize, 0usize);
    for kind in kinds() {
        let mut rng = SplitMix64::new(0x5EED);
        let mut c = Course::new(kind);
        // Walls around a 40 x 40 room.
        for (p, h) in [
            ((20.0, -1.0), (22.0, 1.0)),
            ((20.0, 41.0), (22.0, 1.0)),
            ((-1.0, 20.0), (1.0, 22.0)),
            ((41.0, 20.0), (1.0, 22.0)),
        ] {
            c.solid(Shape::cuboid(Vec2::new(h.0, h.1)).unwrap(), Pose::from_translation(Vec2::new(p.0, p.1)));
        }
        for _ in 0..60 {
            let p = Vec2::new(rng.range(2.0, 38.0), rng.range(2.0, 38.0));
            let shape = match rng.below(6) {
                5 => {
                    let parts = (0..2)
                        .map(|_| {
                            let local =
                                Pose::new(Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)), rng.range(-3.0, 3.0));
                            (local, Shape::cuboid(Vec2::new(rng.range(0.1, 0.8), rng.range(0.1, 0.8))).unwrap())
                        })
                        .collect();
                    Shape::compound(parts).unwrap()
                }
                0 => Shape::cuboid(Vec2::new(rng.range(0.2, 3.0), rng.range(0.05, 1.0))).unwrap(),
                1 => Shape::capsule(
                    Vec2::new(-rng.range(0.2, 2.0), 0.0),
                    Vec2::new(rng.range(0.2, 2.0), 0.0),
                    rng.range(0.05, 0.5),
                )
                .unwrap(),
                2 => {
                    let pts: Vec<Vec2> =
                        (0..6).map(|_| Vec2::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5))).collect();
                    Shape::polygon(&pts, rng.range(0.0, 0.2)).unwrap_or_else(|_| Shape::circle(0.7).unwrap())
                }
                3 => {
                    let v: Vec<Vec2> = (0..5).map(|i| Vec2::new(i as f32 * 1.5, rng.range(-1.0, 1.0))).collect();
                    Shape::chain(v, ChainOptions::default()).unwrap()
                }
                _ => Shape::circle(rng.range(0.2, 1.5)).unwrap(),
            };
            c.solid(shape, Pose::new(p, rng.range(-3.2, 3.2)));
        }
        c.world.step();
        let mut cfg = config();
        let mut results = Vec::new();
        let mut hits = Vec::new();
        for (name, shape) in characters() {
            // A free start, turned at random (the mover keeps the rotation).
            let mut pose = loop {
                let p = Pose::new(Vec2::new(rng.range(2.0, 38.0), rng.range(2.0, 38.0)), rng.range(-0.6, 0.6));
                if c.clearance(&shape, &p).0 > 0.05 {
                    break p;
                }
            };
            for i in 0..1500 {
                let t = match rng.below(10) {
                    0 => Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 1000.0,
                    1..=3 => Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 5.0,
                    _ => Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.4, 0.1)),
                };
                cfg.up = Vec2::from_angle(std::f32::consts::FRAC_PI_2 + rng.range(-0.3, 0.3));
                let m = c.world.move_character(&shape, &pose, t, &cfg, &mut hits).unwrap();
                let what = format!("{name} {kind:?} move {i} from {pose:?} by {t}");
                assert!(!m.stuck, "{what}");
                c.assert_clear(&shape, &m.pose, &what);
                let (gap, _) = c.clearance(&shape, &m.pose);
                stats.0 += 1;
                stats.1 = stats.1.min(gap);
                stats.2 += usize::from(m.grounded);
                stats.3 += usize::from(t.length() > 100.0);
                results.push((m.pose.p.x.to_bits(), m.pose.p.y.to_bits(), m.grounded, m.hit_wall));
                pose = m.pose;
            }
        }
        match &reference {
            None => reference = Some(results),
            Some(r) => assert!(*r == results, "{kind:?} answers differently from the first broad phase"),
        }
    }
    println!(
        "{} random moves ({} of ~1000 units), {} ending grounded; least exact clearance {:.6} (skin {SKIN})",
        stats.0, stats.3, stats.2, stats.1
    );
}

/// The same moves with the world stepped under 1, 2 and 8 threads give bit-identical answers.
#[test]
fn same_answers_for_any_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut c = Course::new(BroadPhaseKind::IncrementalSap);
            c.floor();
            c.solid(ramp(30.0), Pose::from_translation(Vec2::new(5.0, 0.0)));
            let mut blocks = Vec::new();
            for i in 0..200 {
                let p = Vec2::new(-40.0 + (i % 40) as f32 * 2.0, 4.0 + (i / 40) as f32 * 3.0);
                blocks.push(c.moving(Shape::cuboid(Vec2::new(0.5, 0.2)).unwrap(), Pose::from_translation(p)));
            }
            let shape = Shape::capsule(Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5), 0.4).unwrap();
            let mut pose = standing(&shape, -10.0);
            let mut out = Vec::new();
            let mut hits = Vec::new();
            for f in 0..300 {
                for (i, &b) in blocks.iter().enumerate() {
                    let p = Vec2::new(
                        -40.0 + (i % 40) as f32 * 2.0 + (0.03 * f as f32 + i as f32).sin(),
                        4.0 + (i / 40) as f32 * 3.0,
                    );
                    c.set_pose(b, Pose::from_translation(p));
                }
                c.world.step();
                let t = Vec2::new(0.15 * (0.02 * f as f32).cos(), if f % 50 == 0 { 1.0 } else { -0.1 });
                let m = c.world.move_character(&shape, &pose, t, &config(), &mut hits).unwrap();
                out.push((m.pose.p.x.to_bits(), m.pose.p.y.to_bits(), m.grounded, hits.len()));
                pose = m.pose;
            }
            out
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(8));
}

/// Walking down a 30° ramp and off a low ledge it stays on the ground (snapped); off a high
/// ledge it does not.
#[test]
fn snaps_to_the_ground_walking_down() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            // A ramp falling to the right from (0, 5.77) to (10, 0), on a plateau at height 5.77.
            let top = 10.0 * 30f32.to_radians().tan();
            c.solid(
                Shape::polygon(&[Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(0.0, top)], 0.0).unwrap(),
                Pose::IDENTITY,
            );
            c.solid(
                Shape::cuboid(Vec2::new(5.0, top / 2.0)).unwrap(),
                Pose::from_translation(Vec2::new(-5.0, top / 2.0)),
            );
            c.world.step();
            let what = format!("{name} {kind:?} ramp");
            let mut pose = Pose::from_translation(Vec2::new(-2.0, top + half(&shape).y + 1.5 * SKIN));
            let mut hits = Vec::new();
            for f in 0..100 {
                // No gravity at all: only the snap brings it down the ramp.
                let m = c.world.move_character(&shape, &pose, Vec2::new(0.1, 0.0), &config(), &mut hits).unwrap();
                c.assert_clear(&shape, &m.pose, &what);
                assert!(m.grounded, "{what}, frame {f}: {m:?}");
                pose = m.pose;
            }
            assert!(pose.p.x > 7.0 && pose.p.y < top, "{what}: at {}", pose.p);
            for (drop, snaps) in [(0.15, true), (0.5, false)] {
                let mut c = Course::new(kind);
                c.floor();
                c.solid(
                    Shape::cuboid(Vec2::new(5.0, drop / 2.0)).unwrap(),
                    Pose::from_translation(Vec2::new(-5.0, drop / 2.0)),
                );
                c.world.step();
                let what = format!("{name} {kind:?} ledge {drop}");
                let mut pose = Pose::from_translation(Vec2::new(-2.0, drop + half(&shape).y + 1.5 * SKIN));
                let mut ever_airborne = false;
                for f in 0..40 {
                    let m = c.world.move_character(&shape, &pose, Vec2::new(0.1, 0.0), &config(), &mut hits).unwrap();
                    c.assert_clear(&shape, &m.pose, &what);
                    ever_airborne |= !m.grounded;
                    if snaps {
                        assert!(m.grounded, "{what}, frame {f}: {m:?}");
                    }
                    pose = m.pose;
                }
                assert!(pose.p.x > 1.5, "{what}: at {}", pose.p);
                if snaps {
                    assert!((pose.p.y - standing(&shape, 0.0).p.y).abs() < 2.0 * SKIN, "{what}: at {}", pose.p);
                } else {
                    assert!(ever_airborne, "{what}: snapped down a ledge higher than snap_to_ground");
                }
            }
        }
    }
}

/// A tile map (cells 0.2 wide: 45° slope tiles, one-cell steps up and down, walls at both
/// ends) traced into chains, one- and two-sided: walked end to end and back, the oracle after
/// every frame.
#[test]
fn walks_a_tile_map_end_to_end() {
    // Ground height per column, in cells, and the slope tiles ('/' rising, '\\' falling) as
    // (column, level).
    let mut heights = vec![2usize; 100];
    let mut slopes = Vec::new();
    for (c, h) in heights.iter_mut().enumerate() {
        *h = match c {
            0 | 99 => 30,
            15 => {
                slopes.push((15, 2, Tile::SlopeBottomRight));
                2
            }
            16..=29 => 3,
            30..=44 => 4,
            45 => {
                slopes.push((45, 3, Tile::SlopeBottomLeft));
                3
            }
            46..=59 => 3,
            70 => {
                slopes.push((70, 2, Tile::SlopeBottomRight));
                2
            }
            71 => {
                slopes.push((71, 3, Tile::SlopeBottomRight));
                3
            }
            72..=85 => 4,
            86..=98 => 3,
            _ => 2,
        };
    }
    let rows: Vec<Vec<Tile>> = (0..30)
        .map(|row| {
            let level = 29 - row;
            (0..100)
                .map(|c| {
                    if level < heights[c] {
                        Tile::Solid
                    } else {
                        slopes.iter().find(|s| s.0 == c && s.1 == level).map_or(Tile::Empty, |s| s.2)
                    }
                })
                .collect()
        })
        .collect();
    let map = TileMap::new(&rows).unwrap();
    for one_sided in [false, true] {
        for kind in kinds() {
            for (name, shape) in characters() {
                let mut c = Course::new(kind);
                for chain in map.chains(0.2, Vec2::ZERO, one_sided).unwrap() {
                    // One-sided or not, the character stays in front of every segment: the
                    // oracle checks against them all.
                    c.solid(Shape::Chain(chain), Pose::IDENTITY);
                }
                let what = format!("{name} {kind:?} one-sided {one_sided}");
                let start = Pose::from_translation(Vec2::new(1.0, 0.4 + half(&shape).y + 1.5 * SKIN));
                let (end, m) = c.walk(&shape, start, Vec2::new(0.08, -0.1), 400, &what);
                assert!(end.p.x > 19.8 - 0.2 - half(&shape).x - 0.05, "{what}: stopped at {}", end.p);
                assert!(m.grounded && m.hit_wall, "{what}: {m:?}");
                let (back, m) = c.walk(&shape, end, Vec2::new(-0.08, -0.1), 400, &what);
                assert!(back.p.x < 0.2 + half(&shape).x + 0.05, "{what}: stopped at {}", back.p);
                assert!(m.grounded, "{what}: {m:?}");
            }
        }
    }
}

/// Jumping into a ceiling reports it and stops below it; running into a wall reports it and
/// stops beside it; neither is reported in open space.
#[test]
fn reports_ceilings_and_walls() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            c.solid(Shape::cuboid(Vec2::new(3.0, 0.5)).unwrap(), Pose::from_translation(Vec2::new(0.0, 3.5)));
            c.solid(Shape::cuboid(Vec2::new(0.5, 5.0)).unwrap(), Pose::from_translation(Vec2::new(6.0, 5.0)));
            let what = format!("{name} {kind:?}");
            let (up, m) = c.walk(&shape, standing(&shape, 0.0), Vec2::new(0.0, 0.3), 10, &what);
            assert!(m.hit_ceiling && !m.hit_wall, "{what}: {m:?}");
            assert!((up.p.y + half(&shape).y - 3.0).abs() < 2.0 * SKIN, "{what}: under the ceiling at {}", up.p);
            let (side, m) = c.walk(&shape, standing(&shape, 4.0), Vec2::new(0.3, 0.0), 10, &what);
            assert!(m.hit_wall && !m.hit_ceiling, "{what}: {m:?}");
            assert!((side.p.x + half(&shape).x - 5.5).abs() < 2.0 * SKIN, "{what}: beside the wall at {}", side.p);
            let (_, m) = c.walk(&shape, standing(&shape, -5.0), Vec2::new(-0.1, 0.0), 5, &what);
            assert!(!m.hit_wall && !m.hit_ceiling && m.grounded, "{what}: {m:?}");
        }
    }
}

/// A wall sliding towards a fixed one squeezes a character between them: while there is room it
/// is pushed along and kept clear; once the gap is narrower than the character the move says
/// `stuck` (and only then).
#[test]
fn a_crushed_character_is_stuck() {
    for kind in kinds() {
        for (name, shape) in characters() {
            let mut c = Course::new(kind);
            c.floor();
            c.solid(Shape::cuboid(Vec2::new(0.5, 3.0)).unwrap(), Pose::from_translation(Vec2::new(3.0, 3.0)));
            let wall =
                c.moving(Shape::cuboid(Vec2::new(0.5, 3.0)).unwrap(), Pose::from_translation(Vec2::new(-3.0, 3.0)));
            let mut pose = standing(&shape, 0.0);
            let mut hits = Vec::new();
            let what = format!("{name} {kind:?}");
            let mut stuck_at = None;
            for f in 1..60 {
                let x = -3.0 + 0.1 * f as f32;
                c.set_pose(wall, Pose::from_translation(Vec2::new(x, 3.0)));
                c.world.step();
                let m = c.world.move_character(&shape, &pose, Vec2::new(0.0, -0.1), &config(), &mut hits).unwrap();
                let gap = (3.0 - 0.5) - (x + 0.5);
                if gap > 2.0 * half(&shape).x + 2.0 * SKIN + 0.1 {
                    assert!(!m.stuck, "{what}, frame {f}: stuck with a gap of {gap}");
                    c.assert_clear(&shape, &m.pose, &format!("{what}, frame {f}"));
                }
                if m.stuck {
                    // No room for the character and a skin on each side.
                    assert!(gap < 2.0 * half(&shape).x + 2.0 * SKIN, "{what}, frame {f}: stuck with a gap of {gap}");
                    stuck_at.get_or_insert(f);
                }
                pose = m.pose;
            }
            assert!(stuck_at.is_some(), "{what}: never reported stuck");
        }
    }
}

/// The mover's ghost-collision test: walking over a floor of unit pieces (a chain of 200 unit
/// segments with every vertex kept, 200 separate segments, 200 separate boxes), at several
/// speeds, each character keeps its full speed and stays on the ground: a seam never stops,
/// slows or lifts it. Progress is compared with the same walk on one solid floor.
#[test]
fn seams_never_catch_a_walking_character() {
    type Build = fn(&mut Course);
    let floors: [(&str, Build); 3] = [
        ("chain of unit segments", |c| {
            let vs = (0..=200).rev().map(|i| Vec2::new(i as f32 - 100.0, 0.0)).collect();
            c.solid(Shape::chain(vs, ChainOptions::default()).unwrap(), Pose::IDENTITY);
        }),
        ("unit segments", |c| {
            for i in 0..200 {
                let x = i as f32 - 100.0;
                c.solid(Shape::segment(Vec2::new(x, 0.0), Vec2::new(x + 1.0, 0.0)).unwrap(), Pose::IDENTITY);
            }
        }),
        ("unit boxes", |c| {
            for i in 0..200 {
                let at = Pose::from_translation(Vec2::new(i as f32 - 99.5, -0.5));
                c.solid(Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap(), at);
            }
        }),
    ];
    for (floor, build) in floors {
        for (name, shape) in characters() {
            for speed in [0.013, 0.05, 0.21, 0.5] {
                let mut c = Course::new(BroadPhaseKind::IncrementalSap);
                build(&mut c);
                let (frames, start) = (60, standing(&shape, -40.0));
                c.world.step();
                let (mut pose, mut hits) = (start, Vec::new());
                for f in 0..frames {
                    // Gravity pulls a little each frame, as in a game.
                    let m =
                        c.world.move_character(&shape, &pose, Vec2::new(speed, -0.02), &config(), &mut hits).unwrap();
                    let what = format!("{name} on {floor} at {speed}/frame, frame {f}");
                    assert!(m.grounded && !m.hit_wall, "{what}: {m:?}");
                    assert!(
                        (m.translation.x - speed).abs() <= 1e-4 * speed.max(1.0),
                        "{what}: moved {:?}",
                        m.translation
                    );
                    assert!(m.pose.p.y.abs() - half(&shape).y < 2.0 * SKIN, "{what}: at height {}", m.pose.p.y);
                    pose = m.pose;
                }
                assert!((pose.p.x - start.p.x - frames as f32 * speed).abs() < 1e-3, "{name} on {floor} at {speed}");
            }
        }
    }
}
