//! Columns of stacked crates whose contacts stand out of collider order, for the tests of the
//! contacts' sort (`tests/warm_start.rs`, `tests/world_alloc.rs`).

use sapwood::{ColliderDesc, ColliderId, Contact, Pose, Shape, Vec2, World};

/// Columns of the scene.
pub const COLUMNS: usize = 16;
/// Crates per column; each overlaps the one below by 1% of its height.
pub const ROWS: usize = 30;

/// A world of `COLUMNS` stacks of `ROWS` unit crates, stepped, with every third crate then
/// removed and put back at its pose and the world stepped again: those crates' contacts ended
/// and began again, at the end of the array. Returns the world and the crates' ids.
pub fn out_of_order() -> (World, Vec<ColliderId>) {
    let mut world = World::new();
    let crate_ = Shape::cuboid(Vec2::new(0.5, 0.5)).expect("positive half-extents");
    let mut ids = Vec::with_capacity(COLUMNS * ROWS);
    for column in 0..COLUMNS {
        for row in 0..ROWS {
            let p = Vec2::new(column as f32 * 1.5, row as f32 * 0.99);
            ids.push(world.insert(ColliderDesc::new(crate_.clone(), Pose::from_translation(p))).expect("valid"));
        }
    }
    world.step();
    for id in ids.iter_mut().skip(1).step_by(3) {
        let pose = world.pose(*id).expect("live");
        world.remove(*id).expect("live");
        *id = world.insert(ColliderDesc::new(crate_.clone(), pose)).expect("valid");
    }
    world.step();
    (world, ids)
}

/// Neighbouring contacts out of `(a, b)` order.
pub fn descents(contacts: &[Contact]) -> usize {
    let key = |c: &Contact| (c.a.index(), c.b.index());
    contacts.windows(2).filter(|w| key(&w[1]) < key(&w[0])).count()
}

/// Moves every crate of `ids` by `dx` along x.
pub fn nudge(world: &mut World, ids: &[ColliderId], dx: f32) {
    for &id in ids {
        let pose = world.pose(id).expect("live");
        world.set_pose(id, Pose { p: pose.p + Vec2::new(dx, 0.0), ..pose }).expect("valid pose");
    }
}
