//! The suite's world and its mirror: every body and shape a scene creates goes through here,
//! which gives each shape a scene id (stored as its Box2D user data) and the collider the other
//! engines get, and remembers each body's shapes, so that destroying the body removes them.
//!
//! ```text
//!  bodies[slot]  (slot = the body's user data)     body_of[scene id] = slot
//!    body, moving?, group, pose handed over, [scene ids of its shapes]
//!  created: shapes waiting for the next sync      destroyed: ids waiting for it
//! ```

use std::collections::HashMap;
use std::ffi::c_void;

use boxdd_sys::ffi::{
    b2Body_GetTransform, b2Body_GetUserData, b2BodyDef, b2BodyId, b2BodyType_b2_staticBody, b2Capsule, b2ChainDef,
    b2Circle, b2CreateBody, b2CreateCapsuleShape, b2CreateChain, b2CreateCircleShape, b2CreatePolygonShape,
    b2CreateSegmentShape, b2DestroyBody, b2Filter, b2Polygon, b2Segment, b2ShapeDef, b2Vec2, b2WorldId,
};
use sapwood::{ChainOptions, Filter, Pose, Rot, Shape, Vec2};

use crate::scenes::{Collider, Scene};

/// A body the registry tracks.
struct Tracked {
    body: b2BodyId,
    /// Dynamic or kinematic: a simulation moves it.
    moving: bool,
    /// The group its shapes get when their own filter has none (0: none): shapes of one body,
    /// or bodies a scene keeps apart.
    group: i32,
    /// The body's pose at the last sync (`None` before the first); its shapes were handed
    /// this pose, or it times their offset ([`placed`]).
    pose: Option<Pose>,
    /// Scene ids of its shapes (a chain is one), each with where it sits in the body's frame
    /// (`None`: at the body's origin).
    shapes: Vec<(u32, Option<Pose>)>,
}

/// A shape created since the last sync: the collider it becomes, but for the pose.
struct Created {
    id: u32,
    slot: u32,
    shape: Shape,
    /// Where the collider sits in its body's frame (`None`: at the body's origin, the shape in
    /// the body's frame).
    offset: Option<Pose>,
    filter: Filter,
}

/// The suite's Box2D world and the mirror of its shapes.
pub(super) struct Registry {
    pub(super) world: b2WorldId,
    bodies: Vec<Option<Tracked>>,
    free_slots: Vec<u32>,
    /// `body_of[scene id]`: its body's slot, `u32::MAX` once the shape is gone.
    body_of: Vec<u32>,
    created: Vec<Created>,
    destroyed: Vec<u32>,
    /// The next group handed out, counting down from far below any group a scene uses.
    next_group: i32,
    live_shapes: usize,
    /// One shape per distinct polygon (see `peers::polygon_key`): a scene that builds a polygon
    /// once for many bodies (junkyard's pentagons) gives sapwood one shape for all of them, as a
    /// user cloning a `Shape` would.
    polygons: HashMap<Vec<u32>, Shape>,
}

/// The scene id stored as a shape's user data.
pub(super) fn user_id(data: *mut c_void) -> u32 {
    data as usize as u32
}

fn v(p: b2Vec2) -> Vec2 {
    Vec2::new(p.x, p.y)
}

/// sapwood's filter for Box2D's (whose category and mask bits beyond 32 no scene uses).
fn filter_of(f: &b2Filter) -> Filter {
    let bits = |b: u64| u32::try_from(b).unwrap_or_else(|_| if b == u64::MAX { u32::MAX } else { panic!("{b:#x}") });
    Filter { category: bits(f.categoryBits), mask: bits(f.maskBits), group: f.groupIndex }
}

/// The collider shape of a Box2D polygon, and its offset in the body's frame: a box Box2D made
/// (an axis-aligned rectangle, not rounded) is a box on its own centre, which a user of
/// sapwood would write as a box (a drum's walls, a floor's blocks); any other polygon keeps
/// Box2D's vertices and radius.
fn mirror_polygon(p: &b2Polygon) -> (Shape, Option<Pose>) {
    let vs: Vec<Vec2> = p.vertices[..usize::try_from(p.count).expect("a count")].iter().map(|&x| v(x)).collect();
    let (lo, hi) = vs.iter().fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(l, h), &x| (l.min(x), h.max(x)));
    let rectangle = vs.len() == 4
        && p.radius == 0.0
        && vs.iter().all(|x| (x.x == lo.x || x.x == hi.x) && (x.y == lo.y || x.y == hi.y));
    if rectangle {
        let (centre, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        let cuboid = Shape::cuboid(half).expect("a positive box");
        return (cuboid, (centre != Vec2::ZERO).then(|| Pose::from_translation(centre)));
    }
    (Shape::polygon(&vs, p.radius).expect("Box2D's polygon is convex"), None)
}

/// The pose of a collider sitting at `offset` in the frame of a body at `body`.
fn placed(body: Pose, offset: Option<Pose>) -> Pose {
    offset.map_or(body, |o| body.mul(&o))
}

/// A Box2D transform as sapwood's pose (the rotation's cosine and sine copied).
fn body_pose(body: b2BodyId) -> Pose {
    // SAFETY: a live body of a live world, outside `b2World_Step` (the registry's callers).
    let xf = unsafe { b2Body_GetTransform(body) };
    Pose { p: v(xf.p), q: Rot { c: xf.q.c, s: xf.q.s } }
}

impl Registry {
    pub(super) fn new(world: b2WorldId) -> Registry {
        Registry {
            world,
            bodies: Vec::new(),
            free_slots: Vec::new(),
            body_of: Vec::new(),
            created: Vec::new(),
            destroyed: Vec::new(),
            next_group: -(1 << 20),
            live_shapes: 0,
            polygons: HashMap::new(),
        }
    }

    /// Creates a body from `def` (its user data becomes the registry's slot).
    pub(super) fn body(&mut self, def: &b2BodyDef) -> b2BodyId {
        let slot = self.free_slots.pop().unwrap_or_else(|| {
            self.bodies.push(None);
            (self.bodies.len() - 1) as u32
        });
        let mut def = *def;
        def.userData = slot as usize as *mut c_void;
        // SAFETY: the definition is a copy of a `b2DefaultBodyDef` the scene filled in; the world
        // is live and not stepping.
        let body = unsafe { b2CreateBody(self.world, &def) };
        let moving = def.type_ != b2BodyType_b2_staticBody;
        self.bodies[slot as usize] = Some(Tracked { body, moving, group: 0, pose: None, shapes: Vec::new() });
        body
    }

    fn slot(body: b2BodyId) -> u32 {
        // SAFETY: a live body created by `Registry::body`, whose user data is its slot.
        user_id(unsafe { b2Body_GetUserData(body) })
    }

    fn tracked(&mut self, body: b2BodyId) -> &mut Tracked {
        self.bodies[Self::slot(body) as usize].as_mut().expect("a live body")
    }

    /// Registers a shape about to be created on `body`: its scene id, and, for a moving body's
    /// second shape, the group that keeps the body's shapes apart (Box2D never pairs them).
    fn register(&mut self, body: b2BodyId, shape: Shape, offset: Option<Pose>, filter: Filter) -> u32 {
        let id = self.body_of.len() as u32;
        let slot = Self::slot(body);
        self.body_of.push(slot);
        let fresh = self.next_group;
        let t = self.tracked(body);
        let second = t.moving && !t.shapes.is_empty() && t.group == 0;
        if second {
            t.group = fresh;
        }
        t.shapes.push((id, offset));
        if second {
            self.next_group -= 1;
        }
        self.created.push(Created { id, slot, shape, offset, filter });
        self.live_shapes += 1;
        id
    }

    /// The shape definition with the scene id as its user data.
    fn tagged(def: &b2ShapeDef, id: u32) -> b2ShapeDef {
        b2ShapeDef { userData: id as usize as *mut c_void, ..*def }
    }

    /// Creates a polygon shape on `body`.
    pub(super) fn polygon(&mut self, body: b2BodyId, def: &b2ShapeDef, polygon: &b2Polygon) {
        let (mut shape, offset) = mirror_polygon(polygon);
        if let Shape::Polygon(p) = &shape {
            shape = self.polygons.entry(crate::peers::polygon_key(p)).or_insert(shape).clone();
        }
        let id = self.register(body, shape, offset, filter_of(&def.filter));
        // SAFETY: a live body; the definition and polygon are read during the call only.
        unsafe { b2CreatePolygonShape(body, &Self::tagged(def, id), polygon) };
    }

    /// Creates a capsule shape on `body`.
    pub(super) fn capsule(&mut self, body: b2BodyId, def: &b2ShapeDef, capsule: &b2Capsule) {
        let shape = Shape::capsule(v(capsule.center1), v(capsule.center2), capsule.radius).expect("a valid capsule");
        let id = self.register(body, shape, None, filter_of(&def.filter));
        // SAFETY: as in `polygon`.
        unsafe { b2CreateCapsuleShape(body, &Self::tagged(def, id), capsule) };
    }

    /// Creates a circle shape on `body`.
    ///
    /// # Panics
    /// When the circle is not centred on the body's origin (no scene has one).
    pub(super) fn circle(&mut self, body: b2BodyId, def: &b2ShapeDef, circle: &b2Circle) {
        assert!(circle.center.x == 0.0 && circle.center.y == 0.0, "circles are centred");
        let shape = Shape::circle(circle.radius).expect("a positive radius");
        let id = self.register(body, shape, None, filter_of(&def.filter));
        // SAFETY: as in `polygon`.
        unsafe { b2CreateCircleShape(body, &Self::tagged(def, id), circle) };
    }

    /// Creates a segment shape on `body`.
    pub(super) fn segment(&mut self, body: b2BodyId, def: &b2ShapeDef, segment: &b2Segment) {
        let shape = Shape::segment(v(segment.point1), v(segment.point2)).expect("a valid segment");
        let id = self.register(body, shape, None, filter_of(&def.filter));
        // SAFETY: as in `polygon`.
        unsafe { b2CreateSegmentShape(body, &Self::tagged(def, id), segment) };
    }

    /// Creates a chain on `body` through `points` (`def`'s own points and count are replaced):
    /// one collider, a one-sided chain (Box2D's chains collide on the right of each segment, as
    /// sapwood's one-sided chains do), closed when `def.isLoop`.
    pub(super) fn chain(&mut self, body: b2BodyId, def: &b2ChainDef, points: &[b2Vec2]) {
        let options = ChainOptions { closed: def.isLoop, one_sided: true };
        let shape = Shape::chain(points.iter().map(|&p| v(p)).collect(), options).expect("a valid chain");
        let id = self.register(body, shape, None, filter_of(&def.filter));
        let def = b2ChainDef {
            userData: id as usize as *mut c_void,
            points: points.as_ptr(),
            count: i32::try_from(points.len()).expect("a chain's points"),
            ..*def
        };
        // SAFETY: a live body; the points and materials are cloned by Box2D during the call.
        unsafe { b2CreateChain(body, &def) };
    }

    /// Keeps the shapes of two bodies apart in the mirror, as Box2D keeps them apart itself (a
    /// joint that does not collide its bodies, a kinematic body beside a static one): they all
    /// get one group of their own. Call it before the first sync.
    ///
    /// # Panics
    /// When the two bodies already carry different groups.
    pub(super) fn keep_apart(&mut self, a: b2BodyId, b: b2BodyId) {
        let (ga, gb) = (self.tracked(a).group, self.tracked(b).group);
        let group = match (ga, gb) {
            (0, 0) => {
                self.next_group -= 1;
                self.next_group + 1
            }
            (0, g) | (g, 0) => g,
            (g, h) => {
                assert_eq!(g, h, "two bodies with groups of their own");
                g
            }
        };
        self.tracked(a).group = group;
        self.tracked(b).group = group;
    }

    /// Destroys a body and its shapes (its joints must be gone).
    pub(super) fn destroy_body(&mut self, body: b2BodyId) {
        let slot = Self::slot(body);
        let t = self.bodies[slot as usize].take().expect("a live body");
        for &(id, _) in &t.shapes {
            self.body_of[id as usize] = u32::MAX;
            // A shape not yet handed over is simply dropped.
            match self.created.iter().position(|c| c.id == id) {
                Some(i) => drop(self.created.swap_remove(i)),
                None => self.destroyed.push(id),
            }
        }
        self.live_shapes -= t.shapes.len();
        self.free_slots.push(slot);
        // SAFETY: a live body of the live world, not stepping; its id is not used after this.
        unsafe { b2DestroyBody(body) };
    }

    /// See [`SuiteSim::sync`](super::SuiteSim::sync).
    pub(super) fn sync(&mut self, scene: &mut Scene) {
        scene.step();
        for id in self.destroyed.drain(..) {
            scene.remove(id);
        }
        // Created in id order: the order Box2D created them in.
        self.created.sort_unstable_by_key(|c| c.id);
        for c in self.created.drain(..) {
            let t = self.bodies[c.slot as usize].as_mut().expect("a live body");
            let body = *t.pose.get_or_insert_with(|| body_pose(t.body));
            let pose = placed(body, c.offset);
            // A scene's own group wins over the registry's (rain's ragdolls: one group for the
            // shapes of a ragdoll, its bodies and its lower legs' two shapes alike).
            let filter = Filter { group: if c.filter.group == 0 { t.group } else { c.filter.group }, ..c.filter };
            scene.insert(Collider {
                id: c.id,
                shape: c.shape,
                pose,
                angle: pose.q.angle(),
                moving: t.moving,
                fixed: !t.moving,
                filter,
                velocity: Vec2::ZERO,
                spin: 0.0,
            });
        }
        for t in self.bodies.iter_mut().flatten().filter(|t| t.moving) {
            let pose = body_pose(t.body);
            if t.pose != Some(pose) {
                t.pose = Some(pose);
                for &(id, offset) in &t.shapes {
                    scene.move_to(id, placed(pose, offset));
                }
            }
        }
    }

    /// Every live dynamic or kinematic body, in slot order.
    pub(super) fn moving_bodies(&self) -> impl Iterator<Item = b2BodyId> + '_ {
        self.bodies.iter().flatten().filter(|t| t.moving).map(|t| t.body)
    }

    /// The body of the shape with this scene id, when it is live and not static.
    pub(super) fn moving_body_of(&self, id: u32) -> Option<b2BodyId> {
        let slot = *self.body_of.get(id as usize)?;
        let t = self.bodies.get(slot as usize)?.as_ref()?;
        t.moving.then_some(t.body)
    }

    /// The pose of the body of the shape with this scene id at the last sync, where Box2D's
    /// shape (in its body's frame) was (`None`: created since, or gone). The scene's collider
    /// of a box off the body's origin was handed this pose times its offset.
    pub(super) fn handed_pose(&self, id: u32) -> Option<Pose> {
        let slot = *self.body_of.get(id as usize)?;
        let t = self.bodies.get(slot as usize)?.as_ref()?;
        t.pose
    }

    /// Shapes alive now and shapes created so far.
    pub(super) fn shape_counts(&self) -> (usize, usize) {
        (self.live_shapes, self.body_of.len())
    }
}
