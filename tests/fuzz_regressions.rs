//! Inputs found by the fuzz targets in `fuzz/` that once broke a promise, each reduced to direct
//! calls and named for the bug it found.

use sapwood::{ColliderDesc, MAX_COORDINATE, Polygon, Pose, Shape, ShapeError, Vec2, World, WorldConfig, WorldError};

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
    // Up to the size limit and a bit beyond, the centroid is finite and the shape accepted.
    let big = Polygon::rounded_box(Vec2::splat(1e6), 0.0).unwrap();
    assert_eq!(Shape::Polygon(big).validate(), Ok(()));
    let bigger = Polygon::rounded_box(Vec2::splat(1e12), 0.0).unwrap();
    assert_eq!(Shape::Polygon(bigger).validate(), Err(ShapeError::TooLarge));
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

/// `polygon` target, crash-6e0031dc: a triangle of circumradius 1e-22 (rounded by 0.5, so a
/// usable shape) got normals 0.6% off unit length, because the squared edge length is subnormal;
/// `Shape::validate` refused the polygon its own constructor had built.
#[test]
fn fuzz_tiny_polygon_had_non_unit_normals() {
    for r in [1.042_312_2e-22_f32, 1e-20, 1e-15] {
        let p = Polygon::regular(3, r, 0.5).unwrap();
        assert_eq!(Shape::Polygon(p).validate(), Ok(()), "circumradius {r}");
        for n in p.normals() {
            assert!((n.length() - 1.0).abs() < 1e-6, "{n:?}");
        }
    }
    let pts = [Vec2::new(0.0, 0.0), Vec2::new(3e-20, 0.0), Vec2::new(0.0, 2e-20), Vec2::new(3e-20, 2e-20)];
    let p = Polygon::hull(&pts, 0.1).unwrap();
    assert_eq!(Shape::Polygon(p).validate(), Ok(()));
}
