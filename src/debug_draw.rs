//! Debug drawing without a renderer: [`World::debug_draw`](crate::World::debug_draw) breaks the
//! world into a handful of primitives (circles, capsules, rounded polygons, segments, polylines,
//! points) and hands each to a [`DebugDraw`] the game implements for its canvas, with a
//! [`Role`] saying what the primitive shows. The game maps roles to colours ([`Role::color`] is
//! a ready palette); sapwood knows nothing of pixels.
//!
//! The model is Box2D's `b2World_Draw` with its `b2DebugDraw` callbacks and rapier's
//! `DebugRenderPipeline`: the world decides what to draw and in which order, the callbacks only
//! how. Areas (circle, capsule, polygon) are the colliders' shapes, for a renderer to fill
//! and/or outline; lines (segment, polyline) and points are everything else. [`draw_shape`]
//! draws one shape anywhere, for a game's own sprites and previews.
//!
//! ```
//! use sapwood::debug_draw::{DebugDraw, DebugDrawOptions, Role};
//! use sapwood::{ColliderDesc, Pose, Shape, Vec2, World};
//!
//! /// Counts what the world draws.
//! #[derive(Default)]
//! struct Tally { circles: usize, polygons: usize, normals: usize }
//!
//! impl DebugDraw for Tally {
//!     fn circle(&mut self, _: Vec2, _: f32, _: Vec2, _: Role) { self.circles += 1 }
//!     fn capsule(&mut self, _: Vec2, _: Vec2, _: f32, _: Role) {}
//!     fn polygon(&mut self, _: &[Vec2], _: f32, _: Role) { self.polygons += 1 }
//!     fn segment(&mut self, _: Vec2, _: Vec2, role: Role) { self.normals += (role == Role::ContactNormal) as usize }
//!     fn point(&mut self, _: Vec2, _: Role) {}
//! }
//!
//! let mut world = World::new();
//! world.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 0.5))?, Pose::IDENTITY).fixed())?;
//! world.insert(ColliderDesc::new(Shape::circle(0.5)?, Pose::from_translation(Vec2::new(0.0, 0.9))))?;
//! world.step();
//! let mut tally = Tally::default();
//! world.debug_draw(&mut tally, &DebugDrawOptions::default());
//! assert_eq!((tally.circles, tally.polygons, tally.normals), (1, 1, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use glam::Vec2;

use crate::math::{Aabb, Pose};
use crate::shape::{Shape, ShapeKind};
use crate::storage::ColliderId;

/// A canvas the world draws on. Every point is in world space.
///
/// The area primitives (`circle`, `capsule`, `polygon`) are shapes, to fill and/or outline;
/// `segment`, `polyline` and `point` are lines and marks. `role` says what a primitive shows.
pub trait DebugDraw {
    /// A disc: a circle collider (or a compound's circle part). `axis` is the unit x axis of its
    /// rotation, for a spoke that shows the spin; ignore it to draw a plain disc.
    fn circle(&mut self, center: Vec2, radius: f32, axis: Vec2, role: Role);

    /// Every point within `radius > 0` of the segment `a`–`b`: a capsule, or a rounded segment.
    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role);

    /// A convex polygon, counter-clockwise, grown by `radius >= 0` on every side (a rounded
    /// polygon or box; 0 for a sharp one). [`rounded_outline`] turns it into an outline.
    fn polygon(&mut self, vertices: &[Vec2], radius: f32, role: Role);

    /// A line from `a` to `b`: a bare segment collider, a contact normal, a depth.
    fn segment(&mut self, a: Vec2, b: Vec2, role: Role);

    /// A line through `points`, back to the first when `closed`: a chain, a box. By default one
    /// [`segment`](DebugDraw::segment) per edge; a renderer that draws paths does better with
    /// one path.
    fn polyline(&mut self, points: &[Vec2], closed: bool, role: Role) {
        for w in points.windows(2) {
            self.segment(w[0], w[1], role);
        }
        if let (true, [first, .., last]) = (closed, points) {
            self.segment(*last, *first, role);
        }
    }

    /// A mark at `p` (a contact point, an impact), a few pixels across whatever the zoom.
    fn point(&mut self, p: Vec2, role: Role);
}

/// What a primitive shows; a renderer picks its colour (and fill or outline) from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A collider's shape, or one part of it (a compound's part, a chain).
    Collider(ColliderStyle),
    /// A collider's tight box, at its present pose.
    TightBox,
    /// A collider's fat box as the broad phase stores it; `in_tree` for the tree of static and
    /// very large colliders, else the movers' broad phase.
    FatBox {
        /// In the static/large-collider tree.
        in_tree: bool,
    },
    /// A node of the static/large-collider tree at `depth` (the root is 0); leaves are the
    /// residents' fat boxes.
    TreeNode {
        /// Steps from the root.
        depth: u32,
    },
    /// A contact point: the midpoint between the two surfaces.
    ContactPoint,
    /// A contact normal, from A towards B, [`DebugDrawOptions::normal_length`] long.
    ContactNormal,
    /// A contact's penetration: the segment along the normal from one surface to the other,
    /// centred on the contact point.
    ContactDepth,
    /// A bullet's impact point.
    Impact,
    /// An impact's normal, from the bullet towards what it hit.
    ImpactNormal,
    /// The bullet's shape at its pose at the time of impact.
    ImpactPose,
}

/// What a collider is, for its colour: its id, the kind of its shape (a compound's parts and a
/// chain's segments carry the compound's and the chain's kind) and its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColliderStyle {
    /// The collider.
    pub id: ColliderId,
    /// Its shape's kind.
    pub kind: ShapeKind,
    /// Static (fixed).
    pub is_static: bool,
    /// A sensor.
    pub sensor: bool,
    /// A bullet (swept by the continuous phase).
    pub bullet: bool,
    /// Disabled: in the world but in no pair.
    pub disabled: bool,
}

impl ColliderStyle {
    /// A moving, enabled, solid collider: the style for a shape drawn by [`draw_shape`] outside
    /// any world.
    #[must_use]
    pub fn new(id: ColliderId, kind: ShapeKind) -> Self {
        ColliderStyle { id, kind, is_static: false, sensor: false, bullet: false, disabled: false }
    }
}

impl Role {
    /// A default palette, RGBA with straight alpha: disabled colliders faint grey, sensors
    /// translucent yellow, bullets orange, statics grey-blue, moving colliders by shape kind;
    /// boxes green (movers) and orange (tree), tree nodes fading with depth; contacts white
    /// with red depths; impacts magenta.
    #[must_use]
    pub fn color(self) -> [u8; 4] {
        match self {
            Role::Collider(c) if c.disabled => [128, 128, 128, 90],
            Role::Collider(c) if c.sensor => [240, 220, 80, 110],
            Role::Collider(c) if c.bullet => [255, 150, 40, 255],
            Role::Collider(c) if c.is_static => [110, 120, 140, 255],
            Role::Collider(c) => match c.kind {
                ShapeKind::Circle => [90, 170, 220, 255],
                ShapeKind::Capsule => [120, 200, 130, 255],
                ShapeKind::Segment => [200, 200, 200, 255],
                ShapeKind::Cuboid => [222, 160, 72, 255],
                ShapeKind::Polygon => [210, 110, 140, 255],
                ShapeKind::Compound => [170, 130, 220, 255],
                ShapeKind::Chain => [160, 200, 200, 255],
            },
            Role::TightBox => [230, 230, 230, 160],
            Role::FatBox { in_tree: false } => [90, 220, 120, 150],
            Role::FatBox { in_tree: true } => [255, 170, 60, 220],
            Role::TreeNode { depth } => [120, 160, 255, 220u8.saturating_sub(depth.min(6) as u8 * 30)],
            Role::ContactPoint | Role::ContactNormal => [255, 255, 255, 230],
            Role::ContactDepth => [255, 70, 70, 255],
            Role::Impact | Role::ImpactNormal | Role::ImpactPose => [255, 60, 230, 230],
        }
    }
}

/// What [`World::debug_draw`](crate::World::debug_draw) draws. The default: the colliders,
/// contacts and impacts, no boxes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugDrawOptions {
    /// Every collider's shape ([`Role::Collider`]).
    pub colliders: bool,
    /// Tight boxes ([`Role::TightBox`]).
    pub tight_boxes: bool,
    /// Fat boxes ([`Role::FatBox`]), of the colliders placed by the last step.
    pub fat_boxes: bool,
    /// The static/large-collider tree's nodes ([`Role::TreeNode`]), as of the last step.
    pub tree_nodes: bool,
    /// The last step's contacts: points, normals and depths.
    pub contacts: bool,
    /// The last step's bullet impacts: points, normals and the bullets' poses then.
    pub impacts: bool,
    /// Length of the drawn normals, world units.
    pub normal_length: f32,
    /// Draw only what overlaps this box (the view), when given: a game drawing a large world
    /// through a small window skips the rest before it reaches the canvas.
    pub bounds: Option<Aabb>,
}

impl Default for DebugDrawOptions {
    fn default() -> Self {
        DebugDrawOptions {
            colliders: true,
            tight_boxes: false,
            fat_boxes: false,
            tree_nodes: false,
            contacts: true,
            impacts: true,
            normal_length: 0.5,
            bounds: None,
        }
    }
}

/// Draws `shape` at `pose` with `role`: a compound as its parts, a chain as one polyline, a
/// rounded segment as a capsule.
pub fn draw_shape(out: &mut impl DebugDraw, shape: &Shape, pose: &Pose, role: Role) {
    match shape {
        Shape::Circle(c) => out.circle(pose.p, c.radius, pose.q.x_axis(), role),
        Shape::Capsule(c) => out.capsule(pose.transform_point(c.a), pose.transform_point(c.b), c.radius, role),
        Shape::Segment(s) if s.radius > 0.0 => {
            out.capsule(pose.transform_point(s.a), pose.transform_point(s.b), s.radius, role);
        }
        Shape::Segment(s) => out.segment(pose.transform_point(s.a), pose.transform_point(s.b), role),
        Shape::Cuboid(b) => {
            let h = b.half_extents;
            let corners = [Vec2::new(-h.x, -h.y), Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)];
            out.polygon(&corners.map(|v| pose.transform_point(v)), 0.0, role);
        }
        Shape::Polygon(p) => {
            let mut vs = [Vec2::ZERO; crate::shape::MAX_POLYGON_VERTICES];
            for (w, v) in vs.iter_mut().zip(p.vertices()) {
                *w = pose.transform_point(*v);
            }
            out.polygon(&vs[..p.count()], p.radius(), role);
        }
        Shape::Compound(c) => {
            for (part_pose, part) in c.parts() {
                draw_shape(out, part, &pose.mul(part_pose), role);
            }
        }
        Shape::Chain(c) => {
            let points: Vec<Vec2> = c.vertices().iter().map(|v| pose.transform_point(*v)).collect();
            out.polyline(&points, c.options().closed, role);
        }
    }
}

/// The outline of a convex, counter-clockwise polygon grown by `radius`, into `out` (cleared
/// first): the vertices themselves when `radius` is 0, else each edge pushed out by `radius`
/// with an arc of `arc_steps` steps around each corner. Two vertices and a radius make a
/// capsule; one vertex makes a circle. For renderers that draw [`DebugDraw::polygon`] and
/// [`DebugDraw::capsule`] as paths.
pub fn rounded_outline(vertices: &[Vec2], radius: f32, arc_steps: usize, out: &mut Vec<Vec2>) {
    out.clear();
    let n = vertices.len();
    if radius <= 0.0 || n == 0 {
        out.extend_from_slice(vertices);
        return;
    }
    let steps = arc_steps.max(1);
    // Outward normal of the edge from vertex i to i + 1 (the right-hand perpendicular of a
    // counter-clockwise edge).
    let normal = |i: usize| {
        let d = (vertices[(i + 1) % n] - vertices[i]).normalize_or(Vec2::X);
        Vec2::new(d.y, -d.x)
    };
    for (i, &corner) in vertices.iter().enumerate() {
        // The turn at a corner of a convex polygon is in (0, pi] (pi at a capsule's ends, where
        // the sign of the zero cross product decides atan2's sign); a lone vertex turns 2 pi.
        let (from, sweep) = if n == 1 {
            (Vec2::X, std::f32::consts::TAU)
        } else {
            let (from, to) = (normal((i + n - 1) % n), normal(i));
            let a = crate::trig::atan2(from.perp_dot(to), from.dot(to));
            (from, if a < 0.0 { a + std::f32::consts::TAU } else { a })
        };
        let (s, c) = crate::trig::sin_cos(sweep / steps as f32);
        let mut d = from;
        let last = if n == 1 { steps - 1 } else { steps };
        for _ in 0..=last {
            out.push(corner + radius * d);
            d = Vec2::new(c * d.x - s * d.y, s * d.x + c * d.y);
        }
    }
}
