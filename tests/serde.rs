//! The `serde` feature: every public value type goes through `serde_json` and back unchanged; a
//! `World` goes through as its snapshot, so its round trip is the snapshot's (same state hash,
//! and the same hashes step after step); and what a deserializer must not take on trust (a
//! polygon that is not convex, a NaN radius, a nested compound, a damaged snapshot) is an
//! error, never a panic. `cargo test --release --all-features --test serde`.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use sapwood::broad::{BoxRayHit, DynamicTree, TreeStats};
use sapwood::collide::{self, Manifold};
use sapwood::query::{self, CastOptions, Plane, SimplexCache, Sweep, ToiState};
use sapwood::{
    Aabb, BroadPhaseKind, Capsule, ChainOptions, CharacterConfig, CharacterHit, Circle, ColliderDesc, ColliderId,
    ColliderView, Compound, Contact, Cuboid, Event, EventKind, Filter, PairHooks, Polygon, Pose, QueryFilter, Ray, Rot,
    Segment, Shape, StepTimings, Tile, TileMap, Vec2, World, WorldConfig, advisor,
};
use sapwood_support::SplitMix64;

/// `value` through JSON and back, which must give it back unchanged; returns the JSON.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(&back, value, "{json}");
    json
}

/// The error `json` gives as a `T`.
fn refused<T: DeserializeOwned + Debug>(json: &str) -> String {
    match serde_json::from_str::<T>(json) {
        Ok(v) => panic!("{} was accepted as {v:?}", &json[..json.len().min(200)]),
        Err(e) => e.to_string(),
    }
}

fn shapes() -> Vec<Shape> {
    let ramp = [(4.0, 0.0), (2.0, 0.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| Vec2::new(x, y));
    vec![
        Shape::circle(0.5).unwrap(),
        Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.5), 0.25).unwrap(),
        Shape::segment(Vec2::ZERO, Vec2::new(2.0, 1.0)).unwrap(),
        Shape::rounded_segment(Vec2::ZERO, Vec2::new(0.0, 1.0), 0.1).unwrap(),
        Shape::cuboid(Vec2::new(1.5, 0.25)).unwrap(),
        Shape::polygon(&[Vec2::new(-1.0, -0.7), Vec2::new(1.3, -0.4), Vec2::new(0.1, 0.9)], 0.0).unwrap(),
        Shape::rounded_box(Vec2::new(0.7, 0.3), 0.05).unwrap(),
        Shape::from(Polygon::regular(7, 1.1, 0.02).unwrap()),
        Shape::compound(vec![
            (Pose::new(Vec2::new(0.0, 1.0), 0.3), Shape::cuboid(Vec2::new(0.5, 1.5)).unwrap()),
            (Pose::from_translation(Vec2::new(1.5, -0.25)), Shape::from(Polygon::regular(5, 0.4, 0.0).unwrap())),
            (Pose::IDENTITY, Shape::circle(0.3).unwrap()),
        ])
        .unwrap(),
        Shape::concave_polygon(
            &[(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (2.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
                .map(|(x, y)| Vec2::new(x, y)),
            0.0,
        )
        .unwrap(),
        Shape::chain(ramp.to_vec(), ChainOptions { closed: false, one_sided: true }).unwrap(),
        Shape::chain(ramp.to_vec(), ChainOptions { closed: true, one_sided: false }).unwrap(),
    ]
}

#[test]
fn shapes_round_trip_in_a_readable_form() {
    for shape in shapes() {
        round_trip(&shape);
        round_trip(&shape.kind());
        match &shape {
            Shape::Circle(c) => _ = round_trip(c),
            Shape::Capsule(c) => _ = round_trip(c),
            Shape::Segment(s) => _ = round_trip(s),
            Shape::Cuboid(c) => _ = round_trip(c),
            Shape::Polygon(p) => _ = round_trip(p),
            Shape::Compound(c) => _ = round_trip(c),
            Shape::Chain(c) => {
                round_trip(c);
                round_trip(&c.options());
                round_trip(&c.segment(1).unwrap());
                round_trip(&c.segment(0).unwrap());
            }
        }
        round_trip(&shape.mass_properties(2.0).unwrap());
    }
    let tri = Shape::polygon(&[Vec2::ZERO, Vec2::X, Vec2::Y], 0.0).unwrap();
    assert_eq!(round_trip(&tri), r#"{"Polygon":{"vertices":[[0.0,0.0],[1.0,0.0],[0.0,1.0]],"radius":0.0}}"#);
    assert_eq!(round_trip(&Shape::circle(0.5).unwrap()), r#"{"Circle":{"radius":0.5}}"#);
    let map = TileMap::parse("....\n./#.\n####").unwrap();
    assert_eq!(
        round_trip(&map),
        r#"{"rows":[["Empty","Empty","Empty","Empty"],["Empty","SlopeBottomRight","Solid","Empty"],["Solid","Solid","Solid","Solid"]]}"#
    );
    round_trip(&Tile::SlopeTopLeft);
}

#[test]
fn a_tampered_shape_is_an_error() {
    let cases: [(&str, &str); 14] = [
        // A reflex vertex (not convex), clockwise winding, too few and too many vertices.
        (r#"{"Polygon":{"vertices":[[0,0],[2,0],[1,0.2],[2,2],[0,2]],"radius":0}}"#, "collinear"),
        (r#"{"Polygon":{"vertices":[[0,0],[0,1],[1,0]],"radius":0}}"#, "collinear"),
        (r#"{"Polygon":{"vertices":[[0,0],[1,0]],"radius":0}}"#, "too few"),
        (
            r#"{"Polygon":{"vertices":[[0,0],[1,0],[2,1],[3,3],[2,5],[1,6],[0,6],[-1,5],[-2,3]],"radius":0}}"#,
            "more than 8",
        ),
        (r#"{"Polygon":{"vertices":[[0,0],[1,0],[0,1]],"radius":-1}}"#, "negative"),
        // JSON has no NaN (serde_json writes it as null, a type error on the way back), but an
        // overflowing number reads as an infinite f32.
        (r#"{"Circle":{"radius":null}}"#, "invalid type"),
        (r#"{"Circle":{"radius":1e39}}"#, "nan or infinite"),
        (r#"{"Circle":{"radius":-1}}"#, "positive"),
        (r#"{"Capsule":{"a":[0,0],"b":[0,0],"radius":1}}"#, "too few"),
        (r#"{"Compound":{"parts":[]}}"#, "no parts"),
        (
            r#"{"Compound":{"parts":[[{"p":[0,0],"q":{"c":1,"s":0}},{"Compound":{"parts":[]}}]]}}"#,
            "unknown variant `Compound`",
        ),
        (r#"{"Compound":{"parts":[[{"p":[0,0],"q":{"c":2,"s":0}},{"Circle":{"radius":1}}]]}}"#, "part pose"),
        (r#"{"Chain":{"vertices":[[0,0],[1,0],[1,0]],"options":{"closed":false,"one_sided":false}}}"#, "equal"),
        (r#"{"Chain":{"vertices":[[0,0]],"options":{"closed":false,"one_sided":false}}}"#, "too few"),
    ];
    for (json, why) in cases {
        let e = refused::<Shape>(json);
        assert!(e.to_lowercase().contains(&why.to_lowercase()), "{json}: {e}");
    }
    // The types inside a shape refuse the same input on their own.
    refused::<Polygon>(r#"{"vertices":[[0,0],[0,1],[1,0]],"radius":0}"#);
    refused::<Compound>(r#"{"parts":[]}"#);
    assert!(refused::<TileMap>(r##"{"rows":[["Solid"],["Solid","Empty"]]}"##).contains("row 1 has 2 cells"));
    assert!(refused::<TileMap>(r#"{"rows":[]}"#).contains("no cells"));
    // Plain data with public fields is taken as written, as a struct literal would be: the world
    // checks it where it matters (a pose on insert).
    let bad: Pose = serde_json::from_str(r#"{"p":[0,0],"q":{"c":2,"s":0}}"#).unwrap();
    let mut world = World::new();
    assert!(world.insert(ColliderDesc::new(Shape::circle(1.0).unwrap(), bad)).is_err());
}

#[test]
fn value_types_round_trip() {
    let pose = Pose::new(Vec2::new(1.5, -2.0), 0.7);
    round_trip(&pose);
    round_trip(&Rot::from_angle(-2.1));
    round_trip(&Aabb::new(Vec2::new(-1.0, -2.0), Vec2::new(3.0, 4.0)));
    round_trip(&Ray::new(Vec2::ZERO, Vec2::new(0.6, 0.8)));
    round_trip(&ColliderId::from_raw_parts(17, 3));
    round_trip(&Filter { category: 4, mask: 0xff00, group: -3 });
    round_trip(&Sweep::new(pose, Pose::new(Vec2::new(4.0, 0.0), 2.0)));
    round_trip(&CastOptions::default());
    round_trip(&Plane { normal: Vec2::Y, offset: 0.25 });
    round_trip(&query::solve_planes(Vec2::new(1.0, -1.0), &[Plane { normal: Vec2::Y, offset: 0.0 }]).unwrap());
    round_trip(&QueryFilter { mask: 6, include_sensors: false, exclude: Some(ColliderId::from_raw_parts(2, 1)) });
    round_trip(&CharacterConfig::default());
    round_trip(&EventKind::SensorExited);
    round_trip(&StepTimings {
        aabbs: Duration::from_nanos(1234),
        events: Duration::from_micros(5),
        ..Default::default()
    });
    let bounds = Aabb::new(Vec2::splat(-50.0), Vec2::splat(50.0));
    for kind in BroadPhaseKind::all(bounds, 2.5) {
        round_trip(&kind);
        round_trip(&WorldConfig { broad_phase: kind, aabb_margin: 0.1, reuse_manifolds: false, ..Default::default() });
    }
    round_trip(&WorldConfig::default());
    for (k, shape) in shapes().into_iter().enumerate() {
        let mut d = ColliderDesc::new(shape, pose)
            .with_user_data(k as u64)
            .with_filter(Filter { group: 2, ..Filter::default() });
        d.sensor = k % 3 == 0;
        d.bullet = k % 4 == 1;
        d.enabled = k % 2 == 0;
        round_trip(&d);
        round_trip(&d.fixed().with_contact_events(false));
    }
    #[cfg(feature = "hecs")]
    {
        round_trip(&sapwood::ColliderOptions::default());
        round_trip(&sapwood::ecs::ColliderHandle(ColliderId::from_raw_parts(9, 2)));
    }
}

#[test]
fn query_results_round_trip() {
    let shapes = shapes();
    let (a, b) = (&shapes[5], &shapes[4]);
    let (pa, pb) = (Pose::new(Vec2::ZERO, 0.3), Pose::new(Vec2::new(0.5, 0.4), -0.2));
    let m = collide::contact(a, &pa, b, &pb).unwrap();
    assert!(m.count > 0);
    round_trip(&m);
    round_trip(&m.points[0]);
    round_trip(&Manifold::EMPTY);
    let far = Pose::from_translation(Vec2::new(5.0, 0.5));
    round_trip(&query::distance(a, &pa, b, &far).unwrap());
    let mut cache = SimplexCache::default();
    query::distance_cached(a, &pa, b, &far, &mut cache).unwrap();
    assert!(!cache.is_empty());
    round_trip(&cache);
    let hit = query::ray_cast(b, &pb, &Ray::new(Vec2::new(-5.0, 0.4), Vec2::X), 100.0).unwrap().unwrap();
    round_trip(&hit);
    round_trip(&query::project_point(a, &pa, Vec2::new(3.0, 1.0)).unwrap());
    let cast = query::cast_shapes(a, &pa, Vec2::new(10.0, 0.0), b, &far, Vec2::ZERO, &CastOptions::default());
    round_trip(&cast.unwrap().unwrap());
    let toi =
        query::time_of_impact(a, &Sweep::new(pa, Pose::new(Vec2::new(9.0, 0.0), 1.0)), b, &Sweep::fixed(far), 1.0);
    let toi = toi.unwrap();
    assert_eq!(toi.state, ToiState::Hit);
    round_trip(&toi);
    round_trip(&toi.state);

    let mut tree = DynamicTree::new(0.0);
    for i in 0..20 {
        tree.insert(i, Aabb::new(Vec2::new(i as f32, 0.0), Vec2::new(i as f32 + 0.5, 1.0)));
    }
    let stats: TreeStats = tree.stats();
    round_trip(&stats);
    let box_hit: BoxRayHit = tree.ray_cast(&Ray::new(Vec2::new(-1.0, 0.5), Vec2::X), 100.0).unwrap();
    round_trip(&box_hit);

    let (world, _) = scene(40);
    let filter = QueryFilter::default();
    round_trip(&world.ray_cast(&Ray::new(Vec2::new(-30.0, 0.3), Vec2::X), 100.0, &filter).unwrap().unwrap());
    let probe = Shape::circle(0.2).unwrap();
    let from = Pose::from_translation(Vec2::new(0.0, 20.0));
    let options = CastOptions::default();
    round_trip(&world.cast_shape(&probe, &from, Vec2::new(0.0, -40.0), &options, &filter).unwrap().unwrap());
    round_trip(&world.distance_to_nearest(&probe, &from, f32::INFINITY, &filter).unwrap().unwrap());
    round_trip(&world.project_point(Vec2::new(0.0, 20.0), f32::INFINITY, &filter).unwrap().unwrap());
    let mut hits: Vec<CharacterHit> = Vec::new();
    let capsule = Shape::capsule(Vec2::new(0.0, -0.3), Vec2::new(0.0, 0.3), 0.2).unwrap();
    let stand = Pose::from_translation(Vec2::new(-25.0, -10.9));
    let mv = world.move_character(&capsule, &stand, Vec2::new(0.5, -0.3), &CharacterConfig::default(), &mut hits);
    let mv = mv.unwrap();
    assert!(mv.grounded && !hits.is_empty(), "{mv:?}");
    round_trip(&mv);
    round_trip(&hits[0]);
    let advice = advisor::advise(&world, 2, |_, _| {}).unwrap();
    let json = serde_json::to_string(&advice).unwrap();
    assert_eq!(serde_json::from_str::<advisor::Advice>(&json).unwrap(), advice);
}

/// Disables contacts with colliders whose user data is 0 mod 5.
struct Hooks;

impl PairHooks for Hooks {
    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, _m: &mut Manifold) -> bool {
        !a.user_data.is_multiple_of(5) && !b.user_data.is_multiple_of(5)
    }
}

/// A world with statics (a welded floor, a chain), movers of every kind, sensors and bullets,
/// stepped `steps` times.
fn scene(steps: usize) -> (World, Vec<ColliderId>) {
    let mut world = World::new();
    for k in -30..30 {
        let tile = Shape::cuboid(Vec2::splat(0.5)).unwrap();
        world.insert(ColliderDesc::new(tile, Pose::from_translation(Vec2::new(k as f32, -12.0))).fixed()).unwrap();
    }
    let ramp = [(20.0, 0.0), (10.0, -3.0), (0.0, -2.0)].map(|(x, y)| Vec2::new(x, y));
    let ramp = Shape::chain(ramp.to_vec(), ChainOptions::default()).unwrap();
    world.insert(ColliderDesc::new(ramp, Pose::IDENTITY).fixed()).unwrap();
    let mut rng = SplitMix64::new(5);
    let kinds = shapes();
    let mut ids = Vec::new();
    for i in 0..300u64 {
        let shape = kinds[i as usize % 10].clone();
        let p = Vec2::new(rng.range(-28.0, 28.0), rng.range(-11.0, 10.0));
        let mut d = ColliderDesc::new(shape, Pose::new(p, rng.range(-3.0, 3.0))).with_user_data(i);
        d.sensor = i % 17 == 3;
        d.bullet = i % 11 == 4;
        ids.push(world.insert(d).unwrap());
    }
    for step in 0..steps {
        for (k, &id) in ids.iter().enumerate() {
            if (k + step) % 3 == 0 {
                let pose = world.pose(id).unwrap();
                let p = (pose.p + Vec2::new(rng.range(-0.6, 0.6), rng.range(-0.6, 0.6)))
                    .clamp(Vec2::splat(-28.0), Vec2::splat(28.0));
                world.set_pose(id, Pose::new(p, pose.q.angle() + 0.3)).unwrap();
            }
        }
        world.step();
    }
    (world, ids)
}

#[test]
fn a_world_round_trips_as_its_snapshot() {
    let (mut world, ids) = scene(10);
    world.set_pair_hooks(Some(Arc::new(Hooks)));
    world.step();
    assert!(!world.contacts().is_empty() && !world.events().is_empty());
    // Changes since the last step travel too.
    world.set_pose(ids[3], Pose::from_translation(Vec2::new(1.0, 2.0))).unwrap();
    world.remove(ids[4]).unwrap();

    let json = serde_json::to_string(&world).unwrap();
    let mut back: World = serde_json::from_str(&json).unwrap();
    let mut snapshot = World::from_bytes(&world.to_bytes()).unwrap();
    assert_eq!(back.state_hash(), world.state_hash());
    assert_eq!(back.to_bytes(), world.to_bytes());
    let contacts: Vec<Contact> = world.contacts().to_vec();
    assert_eq!(back.contacts(), &contacts[..]);
    assert_eq!(back.events(), world.events());
    // Hooks are code: set them again, as on a restored snapshot.
    back.set_pair_hooks(Some(Arc::new(Hooks)));
    snapshot.set_pair_hooks(Some(Arc::new(Hooks)));
    let mut impacts = 0;
    for step in 0..15 {
        for w in [&mut world, &mut back, &mut snapshot] {
            for (k, &id) in ids.iter().enumerate().skip(5) {
                if (k + step) % 4 == 0 {
                    let pose = w.pose(id).unwrap();
                    w.set_pose(id, Pose::new(pose.p + Vec2::new(0.3, -0.2), pose.q.angle() - 0.4)).unwrap();
                }
            }
            w.step();
        }
        assert_eq!(back.state_hash(), world.state_hash(), "step {step}");
        assert_eq!(snapshot.state_hash(), world.state_hash(), "step {step}");
        assert_eq!(back.events(), world.events(), "step {step}");
        assert_eq!(back.impacts(), world.impacts(), "step {step}");
        impacts += world.impacts().len();
        for c in world.contacts().iter().take(3) {
            round_trip(c);
        }
        for e in world.events().iter().take(3) {
            round_trip::<Event>(e);
        }
        for i in world.impacts() {
            round_trip(i);
        }
    }
    assert!(impacts > 0, "the bullets hit something");
}

#[test]
fn a_damaged_world_is_an_error() {
    let (world, _) = scene(3);
    let json = serde_json::to_string(&world).unwrap();
    let mut bytes: Vec<u8> = serde_json::from_str(&json).unwrap();
    assert_eq!(bytes, world.to_bytes(), "a byte sequence in JSON");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let e = refused::<World>(&serde_json::to_string(&bytes).unwrap());
    assert!(e.contains("checksum"), "{e}");
    assert!(refused::<World>("[1, 2, 3]").contains("magic"));
    assert!(refused::<World>("[1, 2, 300]").contains("u8"));
    assert!(refused::<World>(r#""SAPWOOD""#).contains("sapwood"));
    assert!(refused::<World>(r#"{"a": 1}"#).contains("snapshot"));
    // The checksum is no defence against a deliberate edit: the snapshot's own checks are.
    let mut bytes = world.to_bytes();
    bytes.pop();
    sapwood::snapshot::reseal(&mut bytes).unwrap();
    let e = refused::<World>(&serde_json::to_string(&bytes).unwrap());
    assert!(!e.contains("checksum"), "{e}");
}

#[test]
fn plain_shapes_inside_other_types_are_checked_too() {
    let circle = Shape::circle(1.0).unwrap();
    let desc = ColliderDesc::new(circle, Pose::IDENTITY);
    let json = serde_json::to_string(&desc).unwrap().replace(r#""radius":1.0"#, r#""radius":-1.0"#);
    refused::<ColliderDesc>(&json);
    // The plain kinds are plain data on their own, but not as a shape.
    let c: Circle = serde_json::from_str(r#"{"radius":-1}"#).unwrap();
    assert!(Shape::Circle(c).validate().is_err());
    let _: (Capsule, Segment, Cuboid) = serde_json::from_str(
        r#"[{"a":[0,0],"b":[1,0],"radius":0.5},{"a":[0,0],"b":[1,0],"radius":0},{"half_extents":[1,2]}]"#,
    )
    .unwrap();
}
