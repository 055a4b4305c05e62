//! `World::debug_draw`: what a world of every shape kind draws, counted by a recording canvas
//! and rendered to a PNG whose pixels are checked where each collider is.

use sapwood::debug_draw::{self, ColliderStyle, DebugDraw, DebugDrawOptions, Role};
use sapwood::{ChainOptions, ColliderDesc, ColliderId, Pose, Shape, ShapeKind, Vec2, World};
use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// Every primitive the world drew, in order.
#[derive(Debug, PartialEq)]
enum Prim {
    Circle(Vec2, f32, Role),
    Capsule(Vec2, Vec2, f32, Role),
    Polygon(Vec<Vec2>, f32, Role),
    Segment(Vec2, Vec2, Role),
    Polyline(Vec<Vec2>, bool, Role),
    Point(Vec2, Role),
}

#[derive(Default)]
struct Recorder(Vec<Prim>);

impl DebugDraw for Recorder {
    fn circle(&mut self, center: Vec2, radius: f32, _axis: Vec2, role: Role) {
        self.0.push(Prim::Circle(center, radius, role));
    }
    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role) {
        self.0.push(Prim::Capsule(a, b, radius, role));
    }
    fn polygon(&mut self, vertices: &[Vec2], radius: f32, role: Role) {
        self.0.push(Prim::Polygon(vertices.to_vec(), radius, role));
    }
    fn segment(&mut self, a: Vec2, b: Vec2, role: Role) {
        self.0.push(Prim::Segment(a, b, role));
    }
    fn polyline(&mut self, points: &[Vec2], closed: bool, role: Role) {
        self.0.push(Prim::Polyline(points.to_vec(), closed, role));
    }
    fn point(&mut self, p: Vec2, role: Role) {
        self.0.push(Prim::Point(p, role));
    }
}

impl Recorder {
    fn role(p: &Prim) -> Role {
        match p {
            Prim::Circle(.., r)
            | Prim::Capsule(.., r)
            | Prim::Polygon(.., r)
            | Prim::Segment(.., r)
            | Prim::Polyline(.., r)
            | Prim::Point(_, r) => *r,
        }
    }

    /// How many primitives of `id`'s collider style were drawn, by primitive.
    fn of(&self, id: ColliderId) -> Vec<&Prim> {
        self.0.iter().filter(|p| matches!(Self::role(p), Role::Collider(c) if c.id == id)).collect()
    }

    fn count(&self, role: Role) -> usize {
        self.0.iter().filter(|p| Self::role(p) == role).count()
    }
}

struct Scene {
    world: World,
    ground: ColliderId,
    ball: ColliderId,
    capsule: ColliderId,
    rounded: ColliderId,
    segment: ColliderId,
    chain: ColliderId,
    compound: ColliderId,
    sensor: ColliderId,
    disabled: ColliderId,
    bullet: ColliderId,
}

fn at(x: f32, y: f32) -> Pose {
    Pose::from_translation(Vec2::new(x, y))
}

/// One collider of each kind and flag, laid out along a 20 x 10 field above a static ground;
/// the ball rests 0.1 deep in the ground.
fn scene() -> Scene {
    let mut w = World::new();
    let mut add = |d: ColliderDesc| w.insert(d).unwrap();
    let ground = add(ColliderDesc::new(Shape::cuboid(Vec2::new(10.0, 0.5)).unwrap(), at(0.0, 0.0)).fixed());
    let ball = add(ColliderDesc::new(Shape::circle(1.0).unwrap(), at(-8.0, 1.4)));
    let capsule =
        add(ColliderDesc::new(Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap(), at(-4.0, 3.0)));
    let rounded = add(ColliderDesc::new(Shape::rounded_box(Vec2::new(0.8, 0.8), 0.2).unwrap(), at(0.0, 3.0)));
    let segment =
        add(ColliderDesc::new(Shape::segment(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)).unwrap(), at(4.0, 3.0)));
    let pts = [(-1.0, 0.0), (0.0, 1.0), (1.0, 0.0)].map(|(x, y)| Vec2::new(x, y)).to_vec();
    let chain = add(ColliderDesc::new(Shape::chain(pts, ChainOptions::default()).unwrap(), at(8.0, 6.0)).fixed());
    let parts =
        vec![(at(-0.6, 0.0), Shape::cuboid(Vec2::new(0.5, 0.5)).unwrap()), (at(0.6, 0.0), Shape::circle(0.5).unwrap())];
    let compound = add(ColliderDesc::new(Shape::compound(parts).unwrap(), at(-6.0, 7.0)));
    let sensor = add(ColliderDesc::new(Shape::circle(1.0).unwrap(), at(-1.0, 7.0)).sensor());
    let disabled = add(ColliderDesc::new(Shape::circle(1.0).unwrap(), at(3.0, 7.0)).disabled());
    let bullet = add(ColliderDesc::new(Shape::circle(0.3).unwrap(), at(8.0, 2.0)).bullet());
    w.step();
    Scene { world: w, ground, ball, capsule, rounded, segment, chain, compound, sensor, disabled, bullet }
}

#[test]
fn each_collider_draws_as_its_kind() {
    let s = scene();
    let mut r = Recorder::default();
    s.world.debug_draw(&mut r, &DebugDrawOptions::default());
    assert!(matches!(r.of(s.ground)[..], [Prim::Polygon(v, 0.0, _)] if v.len() == 4));
    assert!(matches!(r.of(s.ball)[..], [Prim::Circle(c, 1.0, _)] if *c == Vec2::new(-8.0, 1.4)));
    assert!(
        matches!(r.of(s.capsule)[..], [Prim::Capsule(a, b, 0.5, _)] if *a == Vec2::new(-5.0, 3.0) && *b == Vec2::new(-3.0, 3.0))
    );
    assert!(matches!(r.of(s.rounded)[..], [Prim::Polygon(v, 0.2, _)] if v.len() == 4));
    assert!(matches!(r.of(s.segment)[..], [Prim::Segment(a, _, _)] if *a == Vec2::new(3.0, 3.0)));
    assert!(matches!(r.of(s.chain)[..], [Prim::Polyline(v, false, _)] if v.len() == 3 && v[1] == Vec2::new(8.0, 7.0)));
    // A compound as its parts, both with the compound's style.
    let parts = r.of(s.compound);
    assert!(
        matches!(parts[..], [Prim::Polygon(..), Prim::Circle(c, 0.5, _)] if (*c - Vec2::new(-5.4, 7.0)).length() < 1e-5)
    );
    let style = |id| match Recorder::role(r.of(id)[0]) {
        Role::Collider(c) => c,
        other => panic!("{other:?}"),
    };
    assert_eq!(style(s.compound).kind, ShapeKind::Compound);
    assert!(style(s.ground).is_static && !style(s.ground).sensor);
    assert!(style(s.sensor).sensor && !style(s.sensor).disabled);
    assert!(style(s.disabled).disabled);
    assert!(style(s.bullet).bullet);
    assert_eq!(style(s.ball), ColliderStyle::new(s.ball, ShapeKind::Circle));
    // The ball's contact with the ground: one point, a normal and a depth of 0.1.
    assert_eq!(s.world.contacts().len(), 1);
    assert_eq!((r.count(Role::ContactPoint), r.count(Role::ContactNormal)), (1, 1));
    let depth = r.0.iter().find_map(|p| match p {
        Prim::Segment(a, b, Role::ContactDepth) => Some((*b - *a).length()),
        _ => None,
    });
    assert!((depth.unwrap() - 0.1).abs() < 1e-4, "{depth:?}");
    // No boxes unless asked for.
    assert_eq!(r.0.iter().filter(|p| matches!(p, Prim::Polyline(_, true, _))).count(), 0);
}

#[test]
fn boxes_tree_nodes_and_bounds() {
    let s = scene();
    let all = DebugDrawOptions { tight_boxes: true, fat_boxes: true, tree_nodes: true, ..DebugDrawOptions::default() };
    let mut r = Recorder::default();
    s.world.debug_draw(&mut r, &all);
    assert_eq!(r.count(Role::TightBox), s.world.len());
    assert_eq!(r.count(Role::FatBox { in_tree: true }), 2, "the two statics live in the tree");
    assert_eq!(r.count(Role::FatBox { in_tree: false }), s.world.len() - 2);
    // Two leaves under one root.
    assert_eq!((r.count(Role::TreeNode { depth: 0 }), r.count(Role::TreeNode { depth: 1 })), (1, 2));
    // A fat box contains its tight box.
    let tight = s.world.shape(s.ball).unwrap().aabb(&s.world.pose(s.ball).unwrap());
    assert!(r.0.iter().any(|p| matches!(p, Prim::Polyline(v, true, Role::FatBox { .. })
        if v[0].cmple(tight.min).all() && v[2].cmpge(tight.max).all() && v[0] != tight.min)));

    // Bounds around the ball keep the ball and the ground under it, and its contact.
    let view = sapwood::Aabb::from_center_half_extents(Vec2::new(-8.0, 1.4), Vec2::splat(1.5));
    let mut r = Recorder::default();
    s.world.debug_draw(&mut r, &DebugDrawOptions { bounds: Some(view), ..DebugDrawOptions::default() });
    let ids: Vec<ColliderId> =
        r.0.iter()
            .filter_map(|p| match Recorder::role(p) {
                Role::Collider(c) => Some(c.id),
                _ => None,
            })
            .collect();
    assert_eq!(ids, [s.ground, s.ball]);
    assert_eq!(r.count(Role::ContactPoint), 1);
}

#[test]
fn a_bullet_impact_draws_its_point_normal_and_pose() {
    let mut w = World::new();
    w.insert(ColliderDesc::new(Shape::cuboid(Vec2::new(0.2, 5.0)).unwrap(), at(0.0, 0.0)).fixed()).unwrap();
    let bullet = w.insert(ColliderDesc::new(Shape::circle(0.1).unwrap(), at(-5.0, 0.0)).bullet()).unwrap();
    w.step();
    w.set_pose(bullet, at(5.0, 0.0)).unwrap();
    w.step();
    assert_eq!(w.impacts().len(), 1);
    let mut r = Recorder::default();
    w.debug_draw(&mut r, &DebugDrawOptions::default());
    assert_eq!((r.count(Role::Impact), r.count(Role::ImpactNormal)), (1, 1));
    let ghost = r.0.iter().find_map(|p| match p {
        Prim::Circle(c, _, Role::ImpactPose) => Some(*c),
        _ => None,
    });
    assert!((ghost.unwrap().x + 0.3).abs() < 1e-3, "the bullet at the wall's face: {ghost:?}");
}

#[test]
fn rounded_outline_hugs_the_shape() {
    let mut out = Vec::new();
    // A capsule as a rounded two-gon: every outline point 0.5 from the segment.
    let (a, b) = (Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0));
    debug_draw::rounded_outline(&[a, b], 0.5, 8, &mut out);
    assert_eq!(out.len(), 18);
    for p in &out {
        let t = ((*p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        assert!(((*p - (a + t * (b - a))).length() - 0.5).abs() < 1e-5, "{p}");
    }
    assert!(out.iter().any(|p| p.y > 0.49) && out.iter().any(|p| p.y < -0.49));
    // A rounded square: its extreme points are the box grown by the radius.
    let sq = [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0)];
    debug_draw::rounded_outline(&sq, 0.25, 4, &mut out);
    let max = out.iter().fold(Vec2::splat(f32::MIN), |m, p| m.max(*p));
    assert!((max - Vec2::splat(1.25)).abs().max_element() < 1e-5, "{max}");
    // A lone vertex is a circle.
    debug_draw::rounded_outline(&[Vec2::ZERO], 2.0, 16, &mut out);
    assert_eq!(out.len(), 16);
    assert!(out.iter().all(|p| (p.length() - 2.0).abs() < 1e-5));
}

/// A tiny-skia canvas: areas filled with `Role::color`, lines stroked one pixel wide.
struct Canvas {
    pixmap: Pixmap,
    /// Pixels per world unit; the world's (-10, -1) is the picture's bottom-left corner.
    scale: f32,
    outline: Vec<Vec2>,
}

impl Canvas {
    fn px(&self, p: Vec2) -> (f32, f32) {
        let q = (p - Vec2::new(-10.0, -1.0)) * self.scale;
        (q.x, self.pixmap.height() as f32 - q.y)
    }

    fn paint(role: Role) -> Paint<'static> {
        let [r, g, b, a] = role.color();
        let mut p = Paint::default();
        p.set_color_rgba8(r, g, b, a);
        p
    }

    fn fill_outline(&mut self, role: Role) {
        let mut pb = PathBuilder::new();
        for (k, p) in self.outline.iter().enumerate() {
            let (x, y) = self.px(*p);
            if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
        }
        pb.close();
        if let Some(path) = pb.finish() {
            self.pixmap.fill_path(&path, &Self::paint(role), FillRule::Winding, Transform::identity(), None);
        }
    }

    fn stroke(&mut self, pts: &[Vec2], closed: bool, role: Role) {
        let mut pb = PathBuilder::new();
        for (k, p) in pts.iter().enumerate() {
            let (x, y) = self.px(*p);
            if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
        }
        if closed {
            pb.close();
        }
        if let Some(path) = pb.finish() {
            let stroke = Stroke { width: 1.0, ..Stroke::default() };
            self.pixmap.stroke_path(&path, &Self::paint(role), &stroke, Transform::identity(), None);
        }
    }
}

impl DebugDraw for Canvas {
    fn circle(&mut self, center: Vec2, radius: f32, _axis: Vec2, role: Role) {
        let mut out = std::mem::take(&mut self.outline);
        debug_draw::rounded_outline(&[center], radius, 32, &mut out);
        self.outline = out;
        self.fill_outline(role);
    }
    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role) {
        self.polygon(&[a, b], radius, role);
    }
    fn polygon(&mut self, vertices: &[Vec2], radius: f32, role: Role) {
        let mut out = std::mem::take(&mut self.outline);
        debug_draw::rounded_outline(vertices, radius, 8, &mut out);
        self.outline = out;
        self.fill_outline(role);
    }
    fn segment(&mut self, a: Vec2, b: Vec2, role: Role) {
        self.stroke(&[a, b], false, role);
    }
    fn polyline(&mut self, points: &[Vec2], closed: bool, role: Role) {
        self.stroke(points, closed, role);
    }
    fn point(&mut self, p: Vec2, role: Role) {
        let (x, y) = self.px(p);
        if let Some(path) = PathBuilder::from_circle(x, y, 2.0) {
            self.pixmap.fill_path(&path, &Self::paint(role), FillRule::Winding, Transform::identity(), None);
        }
    }
}

#[test]
fn renders_to_a_png_with_each_collider_where_it_is() {
    let s = scene();
    let mut canvas = Canvas { pixmap: Pixmap::new(400, 200).unwrap(), scale: 20.0, outline: Vec::new() };
    s.world.debug_draw(&mut canvas, &DebugDrawOptions { contacts: false, ..DebugDrawOptions::default() });
    let png = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("debug_draw.png");
    canvas.pixmap.save_png(&png).unwrap();
    let pixmap = Pixmap::load_png(&png).unwrap();
    // The colour at world point (x, y), premultiplied alpha undone.
    let at = |x: f32, y: f32| {
        let (px, py) = canvas.px(Vec2::new(x, y));
        let c = pixmap.pixel(px as u32, py as u32).unwrap().demultiply();
        [c.red(), c.green(), c.blue(), c.alpha()]
    };
    let style = |id| {
        let s = &s.world;
        let flags = (s.is_static(id).unwrap(), s.shape(id).unwrap().kind());
        Role::Collider(ColliderStyle { is_static: flags.0, ..ColliderStyle::new(id, flags.1) }).color()
    };
    let near = |got: [u8; 4], want: [u8; 4]| got.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 2);
    for (id, x, y) in [
        (s.ground, 5.0, 0.0),
        (s.ball, -8.0, 1.8),
        (s.capsule, -4.0, 3.0),
        (s.capsule, -5.3, 3.0),
        (s.rounded, 0.0, 3.0),
        (s.rounded, 0.9, 0.0 + 3.0),
        (s.compound, -6.6, 7.0),
        (s.compound, -5.4, 7.2),
        (s.bullet, 8.0, 2.0),
    ] {
        let want = if id == s.bullet { [255, 150, 40, 255] } else { style(id) };
        assert!(near(at(x, y), want), "{id:?} at ({x}, {y}): {:?}, want {want:?}", at(x, y));
    }
    // Beyond the rounded box's rounding and between the compound's parts: background.
    assert_eq!(at(1.1, 4.1)[3], 0);
    assert_eq!(at(-4.0, 3.6)[3], 0);
    // Translucent sensor, faint disabled collider.
    assert_eq!(at(-1.0, 7.0)[3], 110);
    assert_eq!(at(3.0, 7.0)[3], 90);
    // The chain and the segment are one-pixel lines: ink within a pixel of them, none a few
    // pixels off.
    let inked_near = |x: f32, y: f32| {
        let (px, py) = canvas.px(Vec2::new(x, y));
        (-1..=1).any(|dy| {
            (-1..=1)
                .any(|dx| pixmap.pixel((px as i32 + dx) as u32, (py as i32 + dy) as u32).is_some_and(|c| c.alpha() > 0))
        })
    };
    assert!(inked_near(7.5, 6.5) && !inked_near(8.0, 6.5));
    assert!(inked_near(4.0, 3.0) && !inked_near(4.0, 3.3));
}
