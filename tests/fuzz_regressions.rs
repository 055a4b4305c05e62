//! Inputs found by the fuzz targets in `fuzz/` that once broke a promise, each reduced to direct
//! calls and named for the bug it found.

use sapwood::{
    ColliderDesc, MAX_COORDINATE, Polygon, Pose, QueryFilter, Ray, Shape, ShapeError, Vec2, World, WorldConfig,
    WorldError, query,
};

/// `polygon` target, crash-4ce568c6: `Polygon::rounded_box` accepted half-extents of
/// (9.2e4, 2.8e17) and returned a polygon whose centroid overflowed to infinity, a shape that
/// `Shape::validate` refuses. A constructor must never build what validate refuses (except for
/// the documented size limit), so it now says `TooLarge`.
#[test]
fn fuzz_rounded_box_with_huge_extent_had_infinite_centroid() {
    let r = Polygon::rounded_box(Vec2::new(92000.0, 2.814_771_4e17), 0.0);
    assert_eq!(r, Err(ShapeError::TooLarge));
    let hull = Polygon::hull(&[Vec2::new(-1e15, -1e15), Vec2::new(1e15, -1e15), Vec2::new(0.0, 1e15)], 0.0);
    assert_eq!(hull, Err(ShapeError::TooLarge));
    // Up to the size limit the shape is accepted; beyond it the constructor refuses it.
    let big = Polygon::rounded_box(Vec2::splat(1e6), 0.0).unwrap();
    assert_eq!(Shape::from(big).validate(), Ok(()));
    assert_eq!(Polygon::rounded_box(Vec2::splat(1e12), 0.0), Err(ShapeError::TooLarge));
}

/// `polygon` target, crash-582f78ea: `Polygon::hull` accepted four points 1.65e6 apart whose
/// first three are collinear to within f32 rounding, and built a polygon that `Shape::validate`
/// refuses (its far vertex lay in front of the short edge next to it, by more than validate's
/// tolerance). The hull's turn test and validate's edge test round differently that far from
/// the origin; a constructor now runs validate's convexity test on what it built.
#[test]
fn fuzz_far_near_collinear_hull_failed_validate() {
    let pts = [
        Vec2::new(-1_653_031.3, -1_653_049.1),
        Vec2::new(-5.5625, -5.5625),
        Vec2::ZERO,
        Vec2::new(-7.125, -4.657_056_6e-15),
    ];
    match Polygon::hull(&pts, 0.0) {
        Ok(p) => assert_eq!(Shape::from(p).validate(), Ok(()), "hull built {p:?}"),
        Err(e) => assert_eq!(e, ShapeError::Collinear),
    }
    // A clearly convex outline of the same kind is still a polygon.
    let near = [Vec2::new(-16.5, -16.5), Vec2::new(-5.5, -5.0), Vec2::ZERO, Vec2::new(-7.0, 0.0)];
    assert_eq!(Polygon::hull(&near, 0.0).map(|p| Shape::from(p).validate()), Ok(Ok(())));
}

/// `world_ops` target, crash-ca5d53e7: a ray of length 0 starting 1.2e-12 left of a static
/// circle of radius 1e6 centred at x = 1e6: `query::ray_cast` on the circle says "hit at t = 0"
/// (in the circle's frame the origin lies on its boundary, to f32 precision), while the world's
/// tree, testing the exact tight box, never offered the circle to that cast. The world's ray
/// queries now test each box grown by its rounding slack, so they agree with `query::ray_cast`
/// collider by collider.
#[test]
fn fuzz_ray_on_a_far_circles_rim_missed_its_box() {
    let circle = Shape::circle(1e6).unwrap();
    let pose = Pose::new(Vec2::new(1e6, -0.0625), -0.0625);
    let mut world = World::new();
    let id = world.insert(ColliderDesc::new(circle.clone(), pose).fixed()).unwrap();
    world.step();
    let ray = Ray::new(Vec2::new(-1.219_777_8e-12, 2.75), Vec2::new(-0.0625, -4.0));
    let want = query::ray_cast(&circle, &pose, &ray, 0.0).unwrap().map(|h| h.t);
    assert_eq!(want, Some(0.0), "the reference cast this guards");
    let mut all = Vec::new();
    world.ray_cast_all(&ray, 0.0, &QueryFilter::default(), &mut all).unwrap();
    assert_eq!(all.iter().map(|h| (h.id, h.t)).collect::<Vec<_>>(), [(id, 0.0)]);
    assert_eq!(world.ray_cast(&ray, 0.0, &QueryFilter::default()).unwrap().map(|h| (h.id, h.t)), Some((id, 0.0)));
    // The point and shape queries had the same blind spot.
    assert!(query::contains_point(&circle, &pose, ray.origin).unwrap());
    let mut ids = Vec::new();
    world.query_point(ray.origin, &QueryFilter::default(), &mut ids).unwrap();
    assert_eq!(ids, [id]);
    let probe = Shape::circle(sapwood::MIN_SHAPE_SIZE).unwrap();
    let at = Pose::from_translation(ray.origin - Vec2::new(sapwood::MIN_SHAPE_SIZE, 0.0));
    let overlap = sapwood::collide::overlaps(&circle, &pose, &probe, &at).unwrap();
    ids.clear();
    world.query_shape(&probe, &at, &QueryFilter::default(), &mut ids).unwrap();
    assert_eq!(ids.len(), usize::from(overlap), "query_shape agrees with collide::overlaps");
}

/// `world_ops` target, crash-0941a970: `World::with_config` accepted `aabb_margin = f32::MAX`;
/// the first step then made an infinite fat box and the SAP's invariant check panicked. Margins
/// are now bounded so that every fat box is finite.
#[test]
fn fuzz_huge_aabb_margin_gave_infinite_fat_boxes() {
    for (margin, ratio) in [(f32::MAX, 0.25), (1e30, 0.25), (MAX_COORDINATE * 2.0, 0.25), (0.0, f32::MAX), (0.0, 1e4)] {
        let config = WorldConfig { aabb_margin: margin, aabb_margin_ratio: ratio, ..WorldConfig::default() };
        assert_eq!(World::with_config(config).err(), Some(WorldError::InvalidConfig), "{margin} {ratio}");
    }
    // The largest accepted margins still give a working world.
    let config = WorldConfig { aabb_margin: MAX_COORDINATE, aabb_margin_ratio: 1e3, ..WorldConfig::default() };
    let mut world = World::with_config(config).unwrap();
    let a = world.insert(ColliderDesc::new(Shape::circle(1.0).unwrap(), Pose::IDENTITY)).unwrap();
    let far = Pose::from_translation(Vec2::splat(MAX_COORDINATE));
    world.insert(ColliderDesc::new(Shape::circle(1e6).unwrap(), far)).unwrap();
    world.insert(ColliderDesc::new(Shape::circle(1.0).unwrap(), Pose::from_translation(Vec2::X))).unwrap();
    world.step();
    assert_eq!(world.contacts().len(), 1);
    world.set_pose(a, Pose::from_translation(Vec2::splat(-MAX_COORDINATE))).unwrap();
    world.step();
    assert!(world.contacts().is_empty());
    let bytes = world.to_bytes();
    assert_eq!(World::from_bytes(&bytes).unwrap().to_bytes(), bytes);
}

/// `polygon` target, crash-6e0031dc and a second one at 1e-23: triangles and quads of extent
/// 1e-22 (rounded by 0.5, so they looked usable) got normals 0.6% off unit length, and
/// `Shape::validate`'s own edge checks lose precision there, because squared edge lengths are
/// subnormal; validate refused the polygon its own constructor had built. Polygons with an edge
/// shorter than 1e-12 are now refused as `TooFewPoints` (its ends are not distinct in f32).
#[test]
fn fuzz_tiny_polygon_had_non_unit_normals() {
    for r in [1.042_312_2e-22_f32, 1e-20, 1e-15] {
        assert_eq!(Polygon::regular(3, r, 0.5), Err(ShapeError::TooFewPoints), "circumradius {r}");
    }
    let pts = [Vec2::new(0.0, 0.0), Vec2::new(3e-20, 0.0), Vec2::new(0.0, 2e-20), Vec2::new(3e-20, 2e-20)];
    assert_eq!(Polygon::hull(&pts, 0.1), Err(ShapeError::TooFewPoints));
    assert_eq!(Polygon::rounded_box(Vec2::splat(1e-20), 0.5), Err(ShapeError::TooFewPoints));
    // crash-9d0c2ddf: a sliver, 1e-21 by 5.6e4.
    assert_eq!(Polygon::rounded_box(Vec2::new(5.16524e-22, 28000.0), 0.4375), Err(ShapeError::TooFewPoints));
    // Edges from 1e-12 up are distinct, but a polygon smaller than MIN_SHAPE_SIZE is refused.
    assert_eq!(Polygon::regular(7, 1e-11, 0.0), Err(ShapeError::TooSmall));
    // What is built is valid.
    for r in [1e-9_f32, 1e-6] {
        let p = Polygon::regular(7, r, 0.0).unwrap();
        assert_eq!(Shape::from(p).validate(), Ok(()), "circumradius {r}");
        let b = Polygon::rounded_box(Vec2::new(r, 2.0 * r), 0.0).unwrap();
        assert_eq!(Shape::from(b).validate(), Ok(()), "box {r}");
    }
}

/// `world_ops` target, crash-c3f9b8ee: `QueryFilter::exclude` compared only the slot index, so
/// excluding a stale id (a removed collider's, or a forged one) hid the live collider that now
/// uses the slot from every query.
#[test]
fn fuzz_query_exclude_with_stale_id_hid_the_slots_new_collider() {
    use sapwood::{Aabb, QueryFilter, Ray};
    let mut world = World::new();
    let circle = Shape::circle(1.0).unwrap();
    let old = world.insert(ColliderDesc::new(circle.clone(), Pose::IDENTITY)).unwrap();
    world.step();
    world.remove(old).unwrap();
    world.step();
    let new = world.insert(ColliderDesc::new(circle, Pose::IDENTITY)).unwrap();
    world.step();
    assert_eq!(new.index(), old.index(), "the slot is reused");
    let filter = QueryFilter { exclude: Some(old), ..QueryFilter::default() };
    let mut out = Vec::new();
    world.query_aabb(&Aabb::new(Vec2::ZERO, Vec2::ZERO), &filter, &mut out).unwrap();
    assert_eq!(out, vec![new]);
    out.clear();
    world.query_point(Vec2::ZERO, &filter, &mut out).unwrap();
    assert_eq!(out, vec![new]);
    let ray = Ray::new(Vec2::new(-5.0, 0.0), Vec2::X);
    assert_eq!(world.ray_cast(&ray, 10.0, &filter).unwrap().map(|h| h.id), Some(new));
    // Excluding the live id itself still works.
    let filter = QueryFilter { exclude: Some(new), ..QueryFilter::default() };
    assert_eq!(world.ray_cast(&ray, 10.0, &filter).unwrap(), None);
}

/// Found by the bad-input matrix (tests/bad_input.rs): `World::query_shape` fed the kernels
/// probes the world refuses as colliders and reported what came out: a zero-size box reported
/// the ball it sits in, a self-intersecting polygon and a probe with a non-unit "rotation" got
/// answers the kernels never promised. Such probes are now refused with a typed error.
#[test]
fn bad_input_query_shape_trusted_invalid_probes() {
    use sapwood::query::QueryError;
    use sapwood::{Cuboid, QueryFilter, Rot};
    let mut world = World::new();
    let ball =
        world.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::from_translation(Vec2::new(0.0, 0.9))));
    world.step();
    let probe = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    let mut out = Vec::new();
    let scaled = Pose { p: Vec2::new(0.0, 2.0), q: Rot { c: 3.0, s: 0.0 } };
    let refused = world.query_shape(&probe, &scaled, &QueryFilter::default(), &mut out);
    assert_eq!(refused, Err(QueryError::NonFinite), "non-unit rotation scaled the probe: {out:?}");
    // The same probe with a unit rotation, moved to really reach the ball, is found.
    world.query_shape(&probe, &Pose::from_translation(Vec2::new(0.0, 1.5)), &QueryFilter::default(), &mut out).unwrap();
    assert_eq!(out, vec![ball.unwrap()]);
    out.clear();
    let zero = Shape::Cuboid(Cuboid { half_extents: Vec2::ZERO });
    let refused =
        world.query_shape(&zero, &Pose::from_translation(Vec2::new(0.0, 0.9)), &QueryFilter::default(), &mut out);
    assert_eq!(refused, Err(QueryError::InvalidShape));
    assert!(out.is_empty());
}

/// The terrain branch's random-input run of the fuzz targets (world_ops, swept queries) found a
/// circle cast with a translation of 1e-34, whose square underflows to 0: the circle–circle
/// closed form divided by it and returned a fraction of NaN.
#[test]
fn fuzz_circle_cast_with_an_underflowing_translation_gave_nan() {
    use sapwood::query::{CastOptions, cast_shapes};
    let ball = Shape::circle(0.0625).unwrap();
    let (pa, pb) = (Pose::new(Vec2::ZERO, 0.44), Pose::from_translation(Vec2::new(8000.0, 0.0625)));
    let options = CastOptions { max_fraction: 4.375, target_distance: 0.375 };
    let hit = cast_shapes(&ball, &pa, Vec2::new(0.0, 1.0175667e-34), &ball, &pb, Vec2::ZERO, &options).unwrap();
    assert_eq!(hit, None, "8000 apart, a translation of 1e-34 meets nothing");
}

/// `queries` target, timeout-ea22c98f: the distance from a chain to a circle at (f32::MAX,
/// f32::MAX) never returned. The search for the chain's segments nearest the circle grew a box
/// about the circle's centre in the chain's frame, which had overflowed to infinity: the box
/// became NaN and never met the chain. The search is now bounded and falls back to every segment.
#[test]
fn fuzz_chain_distance_to_a_shape_at_f32_max_never_returned() {
    let vs = (0..13).map(|i| Vec2::new(-7.5 + 1.25 * i as f32, if i % 2 == 1 { 0.25 } else { 0.0 })).collect();
    let chain = Shape::chain(vs, sapwood::ChainOptions { closed: false, one_sided: true }).unwrap();
    let at = Pose { p: Vec2::new(-0.0625, -0.0625), q: sapwood::Rot::from_angle(-0.5624) };
    let far = Pose { p: Vec2::splat(f32::MAX), q: sapwood::Rot::from_angle(-2.3123) };
    let ball = Shape::circle(1.25).unwrap();
    // Any answer, in finite time, both ways round (beyond MAX_COORDINATE it is unspecified).
    let _ = query::distance(&chain, &at, &ball, &far);
    let _ = query::distance(&ball, &far, &chain, &at);
    let options = query::CastOptions::default();
    let _ = query::cast_shapes(&ball, &far, Vec2::new(-7.9375, 0.0), &chain, &at, Vec2::new(-0.0625, 2.9375), &options);
}

/// `world_ops` target, crash-7d56e8e8: a capsule whose ends were 1e-30 apart was accepted; the
/// square of its axis underflows to zero, and the distance from it to a circle 15,000 away came
/// out 0. Such a capsule or segment is now refused as `TooFewPoints`, as chains refuse such
/// vertices.
#[test]
fn fuzz_capsule_with_ends_1e_30_apart_was_accepted() {
    let (a, b) = (Vec2::ZERO, Vec2::new(0.0, 1e-30));
    assert_eq!(Shape::capsule(a, b, 0.9375), Err(ShapeError::TooFewPoints));
    assert_eq!(Shape::segment(a, b), Err(ShapeError::TooFewPoints));
    let assembled = Shape::Capsule(sapwood::Capsule { a, b, radius: 0.9375 });
    assert_eq!(assembled.validate(), Err(ShapeError::TooFewPoints));
    // Ends a normal f32 apart still make a capsule.
    assert!(Shape::capsule(a, Vec2::new(0.0, 1e-18), 0.9375).is_ok());
}

/// `queries` target, crash-df96e4ae: the distance from a chain to a circle of radius 9e-41
/// beside it, both ~1.6e-33 from the origin, came out infinite: the box bounding the nearest
/// segments had a relative margin, which vanishes at such scales, and missed the segment it was
/// built from. The box is now never smaller than the one that found that segment.
#[test]
fn fuzz_chain_distance_at_subnormal_scale_was_infinite() {
    let vs = (0..13).map(|i| Vec2::new(-2.25 + 0.375 * i as f32, if i % 2 == 1 { 0.075 } else { 0.0 })).collect();
    let chain = Shape::chain(vs, sapwood::ChainOptions::default()).unwrap();
    let pa = Pose { p: Vec2::new(1.649_502_3e-33, 1.649_508_2e-33), q: sapwood::Rot::IDENTITY };
    let pb = Pose { p: Vec2::new(1.649_502_3e-33, 1.649_502_3e-33), q: sapwood::Rot::IDENTITY };
    // Such a dot is refused now (below MIN_SHAPE_SIZE); the free queries still answer for the
    // shape they are given, finitely. The smallest valid dot gets the same answer.
    assert_eq!(Shape::circle(9.1482e-41), Err(ShapeError::TooSmall));
    for radius in [9.1482e-41, sapwood::MIN_SHAPE_SIZE] {
        let dot = Shape::Circle(sapwood::Circle { radius });
        for d in [query::distance(&chain, &pa, &dot, &pb).unwrap(), query::distance(&dot, &pb, &chain, &pa).unwrap()] {
            assert!(d.distance.is_finite() && d.distance < 1e-30, "{d:?}");
        }
    }
}

/// `queries` target, crash-41b1ff05: the distance between two compounds of segments 53,738
/// apart was 1.3 short in one order. A's rotation was 2.5e-5 from unit length, within what
/// `Rot::is_valid` accepts, and the queries took it as unit, scaling the offset to B by that
/// much. Queries now compute with the rotation rescaled to unit length.
#[test]
fn fuzz_distance_with_a_slightly_non_unit_rotation_was_short() {
    let part = |half: f32| {
        let shape = Shape::segment(Vec2::new(-half, 0.0), Vec2::new(half, 0.3 * half)).unwrap();
        (Pose { p: Vec2::splat(-5.171579e-9), q: sapwood::Rot { c: 1.0, s: -5.171579e-9 } }, shape)
    };
    let sa = Shape::Compound(sapwood::Compound::new(vec![part(0.375), part(0.375)]).unwrap());
    let sb = Shape::Compound(sapwood::Compound::new(vec![part(1.375)]).unwrap());
    let pa = Pose { p: Vec2::new(-5.171579e-9, -5.1716036e-9), q: sapwood::Rot { c: -0.155_853_33, s: -0.987_755_6 } };
    let pb = Pose { p: Vec2::splat(-38000.0), q: sapwood::Rot { c: 0.761_781_45, s: 0.647_834_1 } };
    assert!(pa.q.is_valid() && ((pa.q.c * pa.q.c + pa.q.s * pa.q.s) - 1.0).abs() > 4e-5);
    let exact = sapwood_support::exact_query::distance(&sa, &pa, &sb, &pb).distance;
    for d in [query::distance(&sa, &pa, &sb, &pb).unwrap(), query::distance(&sb, &pb, &sa, &pa).unwrap()] {
        // f32 rounding at 5e4 is 4e-3.
        assert!((d.distance as f64 - exact).abs() < 0.02, "{} against {exact}", d.distance);
    }
    // The world keeps the rotation it computes with, and gives that back.
    let mut world = World::new();
    let id = world.insert(ColliderDesc::new(sa, pa)).unwrap();
    world.set_pose(id, pa).unwrap();
    let q = world.pose(id).unwrap().q;
    assert!(((q.c * q.c + q.s * q.s) - 1.0).abs() < 1e-6 && (q.c - pa.q.c).abs() < 1e-4, "{q:?}");
}

/// `queries` target, crash-efd002ce: a cast of two circles of radius 1e-23 whose paths pass
/// 1.4e-19 apart reported a hit at fraction 0.37. The closed form's discriminant, a product of
/// two squares of lengths near 1e-19, underflowed from a negative value to -0 and passed for a
/// touch. The quadratic is now solved in f64. The same miss and hit at every scale from 1e-20 to
/// 1e5. (Circles this small are below `MIN_SHAPE_SIZE` now, refused by the constructors and the
/// world; the free queries answer for the shapes they are given, and answer these right.)
#[test]
fn fuzz_cast_of_tiny_circles_missing_each_other_reported_a_hit() {
    use sapwood::query::{CastOptions, cast_shapes};
    let circle = |radius: f32| Shape::Circle(sapwood::Circle { radius });
    let (ra, rb) = (7.914983e-24, 1.7277532e-23);
    let pa = Pose { p: Vec2::splat(5.459277e-19), q: sapwood::Rot { c: 1.0, s: 5.459277e-19 } };
    let pb = Pose { p: Vec2::new(7.492156e-19, 5.459277e-19), q: pa.q };
    let (ta, tb) = (Vec2::splat(5.459277e-19), Vec2::new(2.1205078e-38, 0.0));
    let options = CastOptions { max_fraction: 1.0, target_distance: 0.0 };
    assert_eq!(Shape::circle(ra), Err(ShapeError::TooSmall));
    let (a, b) = (circle(ra), circle(rb));
    assert_eq!(cast_shapes(&a, &pa, ta, &b, &pb, tb, &options).unwrap(), None, "the paths pass 1.4e-19 apart");
    // The same geometry scaled: A moves along the diagonal, B sits off its path by (d, 0), so
    // the centres come within d / sqrt(2) of each other. Radii of d / 60 miss; radii of 0.4 d
    // touch where |(d, 0) - s (4, 4) scale| = 0.8 d, as the exact quadratic says.
    for scale in [1e-20f32, 1e-18, 1e-10, 1e-3, 1.0, 1e3, 1e5] {
        let (p, d) = (Vec2::splat(2.0 * scale), 3.0 * scale);
        let (pa, pb) = (Pose::from_translation(p), Pose::from_translation(p + Vec2::new(d, 0.0)));
        let t = Vec2::splat(4.0 * scale);
        let small = circle(d / 60.0);
        let miss = cast_shapes(&small, &pa, t, &small, &pb, Vec2::ZERO, &options).unwrap();
        assert_eq!(miss, None, "scale {scale}");
        let big = circle(0.4 * d);
        let hit = cast_shapes(&big, &pa, t, &big, &pb, Vec2::ZERO, &options).unwrap().expect("a hit");
        // (3 - 4s)² + 16 s² = 2.4², the first root of 32 s² - 24 s + 3.24 = 0.
        let exact = (24.0 - (24.0f64 * 24.0 - 4.0 * 32.0 * 3.24).sqrt()) / 64.0;
        assert!((f64::from(hit.fraction) - exact).abs() < 1e-4, "scale {scale}: {} vs {exact}", hit.fraction);
    }
}

/// `world_ops` target, crash-6544dce9: after `shift_origin((0, -0))` the model's two coincident
/// circles, at (0, -0) and (0, +0), had a contact normal opposite to the world's. The world
/// treats any zero offset as no shift (its positions keep their -0.0), while the model had
/// subtracted the offset, turning -0.0 into +0.0, which the degenerate pair's normal tells
/// apart. The model now does what the world does; this checks that the world does it.
#[test]
fn fuzz_shift_by_negative_zero_changed_nothing_but_the_model_did() {
    let circle = Shape::circle(0.25).unwrap();
    let at = Pose { p: Vec2::new(0.0, -0.0), q: sapwood::Rot { c: 0.99542564, s: 0.09553936 } };
    let mut world = World::new();
    let a = world.insert(ColliderDesc::new(circle.clone(), at)).unwrap();
    let b = world.insert(ColliderDesc::new(circle.clone(), at)).unwrap();
    world.step();
    let (hash, contacts) = (world.state_hash(), world.contacts().to_vec());
    world.shift_origin(Vec2::new(0.0, -0.0)).unwrap();
    world.shift_origin(Vec2::ZERO).unwrap();
    assert_eq!(world.state_hash(), hash, "a zero shift changed the world");
    assert!(world.pose(a).unwrap().p.y.is_sign_negative(), "a zero shift rewrote -0.0");
    world.step();
    assert_eq!(world.contacts(), contacts);
    let fresh = sapwood::collide::contact(&circle, &world.pose(a).unwrap(), &circle, &world.pose(b).unwrap());
    assert_eq!(world.contacts()[0].manifold, fresh.unwrap());
}

/// Found beside crash-efd002ce by a scan of random rays against circles of radius 1e-36 to
/// 1e-5: the ray cast's test of whether the ray starts inside a circle, and its closed form for
/// circles (and capsule ends and rounded corners), squared f32 lengths, which underflow below
/// about 1e-19. A ray starting 4.5e-30 from the centre of a circle of radius 1.9e-30, and
/// missing it, hit at t = 0. Both now square in f64. A ray along x from (-4, 2) s misses a circle of radius 1.9 s
/// at the origin and meets one of radius 2.5 s at t = 2.5 s, at every scale s from 1e-30 to 1e5,
/// directions short and long. (Below `MIN_SHAPE_SIZE` such circles are refused by the
/// constructors and the world; the free queries still answer them, and right.)
#[test]
fn ray_starting_outside_a_tiny_circle_was_inside_it() {
    use sapwood::query::ray_cast;
    let circle = |radius: f32| Shape::Circle(sapwood::Circle { radius });
    for scale in [1e-30f32, 1e-25, 1e-20, 1e-18, 1e-10, 1e-3, 1.0, 1e3, 1e5] {
        for speed in [1e-5f32, 1.0, 1e5] {
            let ray = Ray::new(Vec2::new(-4.0 * scale, 2.0 * scale), Vec2::new(speed, 0.0));
            let max_t = 10.0 * scale / speed;
            let small = circle(1.9 * scale);
            assert_eq!(ray_cast(&small, &Pose::IDENTITY, &ray, max_t).unwrap(), None, "scale {scale}, speed {speed}");
            let big = circle(2.5 * scale);
            let hit = ray_cast(&big, &Pose::IDENTITY, &ray, max_t).unwrap().expect("a hit");
            let exact = 2.5 * f64::from(scale) / f64::from(speed);
            assert!(
                (f64::from(hit.t) / exact - 1.0).abs() < 1e-5,
                "scale {scale}, speed {speed}: {} vs {exact}",
                hit.t
            );
        }
    }
}

/// `polygon` target, crash-7dc9c75c (CI, the commit that added `MIN_SHAPE_SIZE`): `Chain::new`
/// accepted two vertices 2.8e-14 apart, a chain `Shape::validate` refused as `TooSmall`; a
/// constructor must never build what validate refuses. The chain's own check applies the floor.
#[test]
fn fuzz_chain_smaller_than_the_size_floor_was_built() {
    let tiny = vec![Vec2::new(2.842_213_6e-14, 0.0), Vec2::ZERO];
    assert_eq!(Shape::chain(tiny, sapwood::ChainOptions::default()).map(|_| ()), Err(ShapeError::TooSmall));
    let small = vec![Vec2::new(sapwood::MIN_SHAPE_SIZE, 0.0), Vec2::ZERO];
    let chain = Shape::chain(small, sapwood::ChainOptions::default()).unwrap();
    assert_eq!(chain.validate(), Ok(()));
}
