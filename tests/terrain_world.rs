//! A terrain world: chains traced from a tile map and loose segments, static, with moving
//! bodies of every convex kind. Each step's contacts equal a brute-force recomputation; the
//! world round-trips through a snapshot mid-run and both copies step on identically; 1, 2 and 8
//! threads give the same contacts and events; a steady-state step allocates nothing; queries
//! name chain segments.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use sapwood::{ColliderDesc, ColliderId, Pose, QueryFilter, Ray, Shape, TileMap, Vec2, World, collide};
use sapwood_support::{SplitMix64, alloc_count};

#[global_allocator]
static GLOBAL: alloc_count::Counting = alloc_count::Counting;

const LEVEL: &str = "
#..........................................................#
#..........................................................#
#.......F###7...............................##.............#
#..........................F7.........................../###
#.........................................##......../#####.#
#...../#\\.......##.........................#####..../#######
#..../###\\.....####....###......#......###..##....../#######
############################################################
";

/// Steps of one period of the bodies' motion.
const PERIOD: usize = 40;

struct Scene {
    world: World,
    bodies: Vec<(ColliderId, Vec2, Vec2, f32)>,
    shapes: BTreeMap<ColliderId, (Shape, bool)>,
}

impl Scene {
    fn build() -> Scene {
        let mut world = World::new();
        let mut shapes = BTreeMap::new();
        let map = TileMap::parse(LEVEL).unwrap();
        // One-sided: nothing should stand inside the solid.
        for (i, chain) in map.chains(1.0, Vec2::ZERO, true).unwrap().into_iter().enumerate() {
            let shape = Shape::Chain(chain);
            let mut desc = ColliderDesc::new(shape.clone(), Pose::IDENTITY);
            desc.is_static = true;
            desc.user_data = i as u64;
            shapes.insert(world.insert(desc).unwrap(), (shape, true));
        }
        // Loose segments: a bare ledge, a rounded rail, a tilted plank.
        for (a, b, r) in
            [((5.0, 4.5), (9.0, 4.5), 0.0), ((20.0, 3.0), (26.0, 3.0), 0.1), ((30.0, 2.0), (36.0, 4.0), 0.0)]
        {
            let shape = Shape::rounded_segment(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1), r).unwrap();
            let mut desc = ColliderDesc::new(shape.clone(), Pose::IDENTITY);
            desc.is_static = true;
            shapes.insert(world.insert(desc).unwrap(), (shape, true));
        }
        let mut rng = SplitMix64::new(0x7E44);
        let mut bodies = Vec::new();
        for k in 0..240 {
            let shape = match k % 5 {
                0 => Shape::cuboid(Vec2::new(rng.range(0.2, 0.5), rng.range(0.2, 0.5))).unwrap(),
                1 => Shape::circle(rng.range(0.2, 0.5)).unwrap(),
                2 => Shape::capsule(Vec2::new(-0.3, 0.0), Vec2::new(0.3, 0.0), rng.range(0.1, 0.3)).unwrap(),
                3 => Shape::rounded_box(Vec2::new(0.3, 0.2), 0.08).unwrap(),
                _ => Shape::rounded_segment(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.1), rng.range(0.0, 0.1)).unwrap(),
            };
            let home = Vec2::new(rng.range(1.5, 58.0), rng.range(0.6, 7.0));
            let sweep = Vec2::new(rng.range(-2.0, 2.0), rng.range(-1.0, 1.0));
            let spin = rng.range(-0.5, 0.5);
            let id = world.insert(ColliderDesc::new(shape.clone(), Pose::new(home, 0.0))).unwrap();
            shapes.insert(id, (shape, false));
            bodies.push((id, home, sweep, spin));
        }
        world.step();
        Scene { world, bodies, shapes }
    }

    /// Moves every body to where it is at step `t` (periodic in `t` with [`PERIOD`]).
    fn animate(&mut self, t: usize) {
        let phase = std::f32::consts::TAU * (t % PERIOD) as f32 / PERIOD as f32;
        for &(id, home, sweep, spin) in &self.bodies {
            let pose = Pose::new(home + sweep * phase.sin(), spin * phase.sin() * 3.0);
            self.world.set_pose(id, pose).unwrap();
        }
    }
}

/// The world's contacts must be exactly the brute-force touching pairs, with the same manifolds.
fn check_contacts(scene: &Scene, step: usize) -> usize {
    let world = &scene.world;
    let mut got = BTreeMap::new();
    for c in world.contacts() {
        got.insert((c.a, c.b), c.manifold);
    }
    let ids: Vec<ColliderId> = scene.shapes.keys().copied().collect();
    let mut want = BTreeMap::new();
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            let ((sa, static_a), (sb, static_b)) = (&scene.shapes[&a], &scene.shapes[&b]);
            if *static_a && *static_b {
                continue;
            }
            let (pa, pb) = (world.pose(a).unwrap(), world.pose(b).unwrap());
            let m = collide::contact(sa, &pa, sb, &pb).unwrap();
            if m.count > 0 {
                want.insert((a, b), m);
            }
        }
    }
    assert_eq!(got.len(), want.len(), "step {step}: contact count");
    for (k, m) in &want {
        assert_eq!(got.get(k), Some(m), "step {step}: contact {k:?}");
    }
    got.len()
}

fn contact_hash(world: &World) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for c in world.contacts() {
        (c.a, c.b).hash(&mut h);
        bytemuck::bytes_of(&c.manifold).hash(&mut h);
    }
    for e in world.events() {
        (e.a, e.b, e.kind as u8).hash(&mut h);
    }
    h.finish()
}

#[test]
fn terrain_contacts_match_brute_force_and_survive_a_snapshot() {
    let _serial = alloc_count::serial();
    let mut scene = Scene::build();
    let mut total = 0;
    for t in 0..2 * PERIOD {
        scene.animate(t);
        scene.world.step();
        total += check_contacts(&scene, t);
        if t == PERIOD {
            let bytes = scene.world.to_bytes();
            let copy = World::from_bytes(&bytes).unwrap();
            assert_eq!(copy.to_bytes(), bytes, "a restored terrain world writes the same bytes");
            assert_eq!(copy.state_hash(), scene.world.state_hash());
            let mut twin = Scene { world: copy, bodies: scene.bodies.clone(), shapes: scene.shapes.clone() };
            for u in t + 1..t + PERIOD {
                scene.animate(u);
                scene.world.step();
                twin.animate(u);
                twin.world.step();
                assert_eq!(contact_hash(&scene.world), contact_hash(&twin.world), "step {u} after the round trip");
                assert_eq!(scene.world.state_hash(), twin.world.state_hash());
            }
            // Back to where the loop left off.
            scene.animate(t);
            scene.world.step();
        }
    }
    assert!(total > 2 * PERIOD * 50, "the bodies must touch the terrain: {total} contacts in all");
}

#[test]
fn terrain_steps_are_deterministic_for_any_thread_count() {
    let _serial = alloc_count::serial();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut scene = Scene::build();
            (0..PERIOD)
                .map(|t| {
                    scene.animate(t);
                    scene.world.step();
                    contact_hash(&scene.world)
                })
                .collect::<Vec<u64>>()
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(8));
}

#[test]
fn terrain_steady_state_step_allocates_nothing() {
    let _serial = alloc_count::serial();
    let pool = alloc_count::pool(2);
    pool.install(|| {
        let mut scene = Scene::build();
        let mut hits = Vec::with_capacity(1024);
        let ray = Ray::new(Vec2::new(0.5, 7.5), Vec2::new(1.0, -0.1));
        let mut frame = |scene: &mut Scene, t| {
            scene.animate(t);
            scene.world.step();
            hits.clear();
            scene.world.ray_cast_all(&ray, 60.0, &QueryFilter::default(), &mut hits).unwrap();
        };
        // Warm-up periods size every scratch buffer (as tests/world_alloc.rs does).
        for t in 0..12 * PERIOD {
            frame(&mut scene, t);
        }
        alloc_count::take();
        alloc_count::set_counting(true);
        for t in 12 * PERIOD..13 * PERIOD {
            frame(&mut scene, t);
        }
        alloc_count::set_counting(false);
        assert_eq!(alloc_count::allocations(), 0, "allocations in a steady-state terrain period");
    });
}

#[test]
fn queries_name_chain_segments() {
    let _serial = alloc_count::serial();
    let mut scene = Scene::build();
    // The terrain alone.
    for &(id, ..) in &scene.bodies {
        scene.world.remove(id).unwrap();
    }
    scene.world.step();
    let world = &scene.world;
    let filter = QueryFilter::default();
    // Straight down onto the floor's top at x = 3.5 (the floor row's top is y = 1).
    let hit = world.ray_cast(&Ray::new(Vec2::new(3.5, 1.9), Vec2::NEG_Y), 5.0, &filter).unwrap().unwrap();
    let Shape::Chain(chain) = &scene.shapes[&hit.id].0 else { panic!("the floor is a chain") };
    let seg = chain.segment(hit.part as usize).unwrap();
    assert!((hit.point - Vec2::new(3.5, 1.0)).length() < 1e-5 && hit.surface_normal == Vec2::Y);
    assert_eq!((seg.a.y, seg.b.y), (1.0, 1.0));
    assert!(seg.a.x.min(seg.b.x) <= 3.5 && seg.a.x.max(seg.b.x) >= 3.5);
    // A vertex of the outline lies on two segments.
    let v = chain.segment(hit.part as usize).unwrap().b;
    let mut parts = Vec::new();
    world.query_point_parts(v, &filter, &mut parts).unwrap();
    let on_chain: Vec<u32> = parts.iter().filter(|p| p.0 == hit.id).map(|p| p.1).collect();
    assert_eq!(on_chain.len(), 2, "{parts:?}");
    assert!(on_chain.contains(&hit.part));
}
