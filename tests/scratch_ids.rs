use sapwood::{collide, Pose, Shape, Vec2};
#[test]
fn ids_under_tilt() {
    let a = Shape::cuboid(Vec2::splat(0.5)).unwrap();
    for &(dx, la) in &[(0.5f32, 0.0f32), (-0.5, 0.0), (0.0, 0.0), (0.5, 1e-4), (0.0, 2e-4)] {
        for &tilt in &[-1e-3f32, -1e-4, -1e-6, 0.0, 1e-6, 1e-4, 1e-3] {
            let pa = Pose::new(Vec2::new(0.0, 0.5), la);
            let pb = Pose::new(Vec2::new(dx, 1.497), tilt);
            let m = collide::contact(&a, &pa, &a, &pb);
            let ids: Vec<String> = m.points().iter().map(|p| format!("{:08x}@{:.4}", p.id, p.depth)).collect();
            println!("dx {dx} la {la} tilt {tilt:e}: n {:?} {:?}", m.normal, ids);
        }
    }
}
