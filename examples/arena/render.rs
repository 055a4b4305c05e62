//! Drawing the arena with tiny-skia. Per frame: the static backdrop is copied in
//! (`backdrop.rs`), enemies and projectiles are blitted from pre-rendered sprites
//! (`sprites.rs`), the player, the debug overlay and the HUD are drawn directly.

use sapwood::debug_draw::{self, ColliderStyle, DebugDraw, DebugDrawOptions, Role};
use sapwood::{Aabb, ColliderId, Pose, Shape, Vec2};
use tiny_skia::{Color, FillRule, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::backdrop::Backdrop;
use crate::components::{Enemy, EnemyKind, Player, Projectile};
use crate::font;
use crate::game::Game;
use crate::level;
use crate::sprites::{Ink, SpriteCache};

/// Outside the arena.
const BACKGROUND: [u8; 4] = [14, 15, 20, 255];

/// Enemy fills by kind (the `EnemyKind` order), drawn in that order: circles under capsules
/// under polygons, each kind's outlines over its fills.
const ENEMY_FILLS: [[u8; 4]; 3] = [[226, 84, 96, 255], [96, 206, 120, 255], [168, 112, 234, 255]];
const ENEMY_LINE: Ink = Ink::Line([16, 12, 20, 255]);
const SHOT: Ink = Ink::Fill([255, 236, 120, 255]);

/// Which part of the world the picture shows.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// World point at the picture's centre.
    pub center: Vec2,
    /// Pixels per world unit.
    pub scale: f32,
    pub width: u32,
    pub height: u32,
}

impl View {
    /// The whole arena, walls included.
    pub fn whole(width: u32, height: u32) -> View {
        let extent = level::HALF + Vec2::splat(2.0 * level::WALL_HALF_THICKNESS + 2.0);
        let scale = (width as f32 / (2.0 * extent.x)).min(height as f32 / (2.0 * extent.y));
        View { center: Vec2::ZERO, scale, width, height }
    }

    /// Following `target` at `scale`, without showing much beyond the walls.
    pub fn follow(target: Vec2, scale: f32, width: u32, height: u32) -> View {
        let half_view = Vec2::new(width as f32, height as f32) / (2.0 * scale);
        let limit = (level::HALF + Vec2::splat(2.0 * level::WALL_HALF_THICKNESS + 4.0) - half_view).max(Vec2::ZERO);
        View { center: target.clamp(-limit, limit), scale, width, height }
    }

    /// The same view moved by less than a pixel so that the world origin falls on a pixel
    /// corner: everything it draws lines up with the backdrop's pixels.
    pub fn snapped(&self) -> View {
        let (ox, oy) = self.px(Vec2::ZERO);
        let (hw, hh) = (0.5 * self.width as f32, 0.5 * self.height as f32);
        View { center: Vec2::new(hw - ox.round(), oy.round() - hh) / self.scale, ..*self }
    }

    pub fn px(&self, p: Vec2) -> (f32, f32) {
        let q = (p - self.center) * self.scale;
        (0.5 * self.width as f32 + q.x, 0.5 * self.height as f32 - q.y)
    }

    fn visible(&self, p: Vec2, r: f32) -> bool {
        let half = Vec2::new(self.width as f32, self.height as f32) / (2.0 * self.scale) + Vec2::splat(r);
        (p - self.center).abs().cmple(half).all()
    }
}

/// What the HUD shows beside the game's own numbers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hud {
    pub fps: f64,
    /// Collision-step, sync and drawing milliseconds (smoothed by the caller).
    pub step_ms: f64,
    pub sync_ms: f64,
    pub draw_ms: f64,
    pub debug: bool,
    pub paused: bool,
}

/// A tiny-skia path in pixels as sapwood's debug-draw canvas: every shape it is handed becomes
/// closed sub-paths (circles natively, rounded corners and capsule caps as 4-step arcs), every
/// line an open one. Which paint the path gets is the caller's choice, so roles are ignored.
pub struct PathCanvas<'a> {
    pub pb: &'a mut PathBuilder,
    pub view: &'a View,
    outline: Vec<Vec2>,
}

impl<'a> PathCanvas<'a> {
    pub fn new(pb: &'a mut PathBuilder, view: &'a View) -> Self {
        PathCanvas { pb, view, outline: Vec::new() }
    }

    fn path(&mut self, points: &[Vec2], closed: bool) {
        for (k, p) in points.iter().enumerate() {
            let (x, y) = self.view.px(*p);
            if k == 0 { self.pb.move_to(x, y) } else { self.pb.line_to(x, y) }
        }
        if closed {
            self.pb.close();
        }
    }
}

impl DebugDraw for PathCanvas<'_> {
    fn circle(&mut self, center: Vec2, radius: f32, _axis: Vec2, _role: Role) {
        let (x, y) = self.view.px(center);
        self.pb.push_circle(x, y, radius * self.view.scale);
    }

    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role) {
        self.polygon(&[a, b], radius, role);
    }

    fn polygon(&mut self, vertices: &[Vec2], radius: f32, _role: Role) {
        let mut outline = std::mem::take(&mut self.outline);
        debug_draw::rounded_outline(vertices, radius, 4, &mut outline);
        self.path(&outline, true);
        self.outline = outline;
    }

    fn segment(&mut self, a: Vec2, b: Vec2, _role: Role) {
        self.path(&[a, b], false);
    }

    fn polyline(&mut self, points: &[Vec2], closed: bool, _role: Role) {
        self.path(points, closed);
    }

    fn point(&mut self, _p: Vec2, _role: Role) {}
}

/// Appends `shape` at `pose` to `pb` (see [`PathCanvas`]).
pub fn push_shape(pb: &mut PathBuilder, view: &View, shape: &Shape, pose: &Pose) {
    let role = Role::Collider(ColliderStyle::new(ColliderId::default(), shape.kind()));
    debug_draw::draw_shape(&mut PathCanvas::new(pb, view), shape, pose, role);
}

fn paint(r: u8, g: u8, b: u8, a: u8) -> Paint<'static> {
    let mut p = Paint { anti_alias: true, ..Paint::default() };
    p.set_color_rgba8(r, g, b, a);
    p
}

fn fill_and_stroke(pixmap: &mut Pixmap, pb: PathBuilder, fill: &Paint, line: Option<(&Paint, f32)>) {
    let Some(path) = pb.finish() else { return };
    pixmap.fill_path(&path, fill, FillRule::Winding, Transform::identity(), None);
    if let Some((line, width)) = line {
        pixmap.stroke_path(&path, line, &Stroke { width, ..Stroke::default() }, Transform::identity(), None);
    }
}

fn stroke(pixmap: &mut Pixmap, path: Option<Path>, line: &Paint, stroke: &Stroke) {
    if let Some(path) = path {
        pixmap.stroke_path(&path, line, stroke, Transform::identity(), None);
    }
}

/// Outline width in pixels at `scale` pixels per unit.
fn edge_width(scale: f32) -> f32 {
    0.6f32.max(0.12 * scale)
}

/// What drawing keeps from frame to frame.
#[derive(Default)]
pub struct Renderer {
    backdrop: Backdrop,
    sprites: SpriteCache,
}

impl Renderer {
    /// Draws the game into `pixmap` as seen through `view` (snapped to whole pixels).
    pub fn draw(&mut self, game: &Game, view: &View, hud: &Hud, pixmap: &mut Pixmap) {
        let view = view.snapped();
        let edge = edge_width(view.scale);
        self.backdrop.draw(game, &view, pixmap);
        self.sprites.prepare(view.scale, edge);
        for (kind, fill) in ENEMY_FILLS.into_iter().enumerate() {
            for ink in [Ink::Fill(fill), ENEMY_LINE] {
                for (pose, shape, enemy) in game.ecs.query::<(&Pose, &Shape, &Enemy)>().iter() {
                    if enemy.kind as usize == kind && view.visible(pose.p, 3.0) {
                        self.sprites.queue(pixmap, &view, shape, pose, ink);
                    }
                }
                self.sprites.flush(pixmap);
            }
        }
        for (pose, shape, _) in game.ecs.query::<(&Pose, &Shape, &Projectile)>().iter() {
            if view.visible(pose.p, 3.0) {
                self.sprites.queue(pixmap, &view, shape, pose, SHOT);
            }
        }
        self.sprites.flush(pixmap);
        draw_player(game, &view, pixmap, edge);
        if hud.debug {
            draw_debug(game, &view, pixmap);
        }
        draw_hud(game, hud, pixmap);
    }
}

/// The static picture: background, floor with a faint grid every 20 units, walls and obstacles.
pub fn draw_static(game: &Game, view: &View, pixmap: &mut Pixmap) {
    let [r, g, b, a] = BACKGROUND;
    pixmap.fill(Color::from_rgba8(r, g, b, a));
    let edge = edge_width(view.scale);
    let (x0, y0) = view.px(Vec2::new(-level::HALF.x, level::HALF.y));
    let (x1, y1) = view.px(Vec2::new(level::HALF.x, -level::HALF.y));
    if let Some(r) = Rect::from_ltrb(x0, y0, x1, y1) {
        pixmap.fill_rect(r, &paint(30, 33, 42, 255), Transform::identity(), None);
    }
    let mut grid = PathBuilder::new();
    for k in -9..=9 {
        let x = 20.0 * k as f32;
        let (a, b) = (view.px(Vec2::new(x, -level::HALF.y)), view.px(Vec2::new(x, level::HALF.y)));
        grid.move_to(a.0, a.1);
        grid.line_to(b.0, b.1);
    }
    for k in -6..=6 {
        let y = 20.0 * k as f32;
        let (a, b) = (view.px(Vec2::new(-level::HALF.x, y)), view.px(Vec2::new(level::HALF.x, y)));
        grid.move_to(a.0, a.1);
        grid.line_to(b.0, b.1);
    }
    stroke(pixmap, grid.finish(), &paint(40, 44, 56, 255), &Stroke { width: 1.0, ..Stroke::default() });

    // Walls and obstacles.
    let mut walls = PathBuilder::new();
    for (shape, pose) in &game.walls {
        push_shape(&mut walls, view, shape, pose);
    }
    fill_and_stroke(pixmap, walls, &paint(96, 102, 120, 255), Some((&paint(150, 158, 180, 255), edge)));
}

/// The player, with a health arc (one shape: a path costs less than a sprite would save).
fn draw_player(game: &Game, view: &View, pixmap: &mut Pixmap, edge: f32) {
    for (pose, shape, _) in game.ecs.query::<(&Pose, &Shape, &Player)>().iter() {
        let mut pb = PathBuilder::new();
        push_shape(&mut pb, view, shape, pose);
        fill_and_stroke(pixmap, pb, &paint(110, 230, 255, 255), Some((&paint(255, 255, 255, 255), edge * 1.5)));
        let health = game.player_health();
        let frac = health.hp as f32 / health.max.max(1) as f32;
        let mut arc = PathBuilder::new();
        let r = if let Shape::Circle(c) = shape { c.radius + 1.0 } else { 3.0 };
        for k in 0..=32 {
            let a = std::f32::consts::FRAC_PI_2 + std::f32::consts::TAU * frac * k as f32 / 32.0;
            let (x, y) = view.px(pose.p + r * Vec2::from_angle(a));
            if k == 0 { arc.move_to(x, y) } else { arc.line_to(x, y) }
        }
        stroke(pixmap, arc.finish(), &paint(120, 255, 140, 255), &Stroke { width: edge * 2.0, ..Stroke::default() });
    }
}

/// The broad phase's view: fat boxes of the movers (green, in the SAP) and of the tree
/// residents (orange: static and very large colliders), and each contact's normal and depth.
fn draw_debug(game: &Game, view: &View, pixmap: &mut Pixmap) {
    /// Sorts the world's debug drawing into one path per colour.
    struct Overlay<'a> {
        sap: PathCanvas<'a>,
        tree: PathCanvas<'a>,
        normals: PathCanvas<'a>,
    }
    impl<'a> Overlay<'a> {
        fn canvas(&mut self, role: Role) -> &mut PathCanvas<'a> {
            match role {
                Role::FatBox { in_tree: true } => &mut self.tree,
                Role::FatBox { in_tree: false } => &mut self.sap,
                _ => &mut self.normals,
            }
        }
    }
    impl DebugDraw for Overlay<'_> {
        fn circle(&mut self, _: Vec2, _: f32, _: Vec2, _: Role) {}
        fn capsule(&mut self, _: Vec2, _: Vec2, _: f32, _: Role) {}
        fn polygon(&mut self, _: &[Vec2], _: f32, _: Role) {}
        fn segment(&mut self, a: Vec2, b: Vec2, role: Role) {
            self.canvas(role).segment(a, b, role);
        }
        fn polyline(&mut self, points: &[Vec2], closed: bool, role: Role) {
            self.canvas(role).polyline(points, closed, role);
        }
        fn point(&mut self, _: Vec2, _: Role) {}
    }

    let (mut sap, mut tree, mut normals) = (PathBuilder::new(), PathBuilder::new(), PathBuilder::new());
    let half = Vec2::new(view.width as f32, view.height as f32) / (2.0 * view.scale);
    let options = DebugDrawOptions {
        colliders: false,
        fat_boxes: true,
        impacts: false,
        normal_length: 0.6,
        bounds: Some(Aabb::from_center_half_extents(view.center, half)),
        ..DebugDrawOptions::default()
    };
    let mut overlay = Overlay {
        sap: PathCanvas::new(&mut sap, view),
        tree: PathCanvas::new(&mut tree, view),
        normals: PathCanvas::new(&mut normals, view),
    };
    game.world.debug_draw(&mut overlay, &options);
    let thin = Stroke { width: 1.0, ..Stroke::default() };
    stroke(pixmap, sap.finish(), &paint(90, 220, 120, 150), &thin);
    stroke(pixmap, tree.finish(), &paint(255, 170, 60, 220), &thin);
    stroke(pixmap, normals.finish(), &paint(255, 255, 255, 200), &thin);
}

fn draw_hud(game: &Game, hud: &Hud, pixmap: &mut Pixmap) {
    let s = &game.stats;
    let health = game.player_health();
    let lines = [
        format!(
            "FPS {:.0}   STEP {:.2} MS   SYNC {:.2} MS   DRAW {:.2} MS",
            hud.fps, hud.step_ms, hud.sync_ms, hud.draw_ms
        ),
        format!("COLLIDERS {}   CONTACT PAIRS {}", game.world.len(), game.world.contacts().len()),
        format!("SCORE {}   KILLS {}   HP {}/{}   LIVES LOST {}", s.score, s.kills, health.hp, health.max, s.deaths),
    ];
    let scale = 3.0;
    let width = lines.iter().map(|l| font::text_width(l, scale)).fold(0.0, f32::max);
    if let Some(r) = Rect::from_xywh(6.0, 6.0, width + 16.0, lines.len() as f32 * font::LINE * scale + 10.0) {
        pixmap.fill_rect(r, &paint(0, 0, 0, 150), Transform::identity(), None);
    }
    let text = [235, 238, 245, 255];
    for (i, line) in lines.iter().enumerate() {
        font::draw_text(pixmap, line, 14.0, 14.0 + i as f32 * font::LINE * scale, scale, text);
    }
    let mut keys = String::from("WASD/ARROWS MOVE   F1/B DEBUG   Z ZOOM   P PAUSE   ESC QUIT");
    if hud.debug {
        keys.push_str("   DEBUG: GREEN SAP FAT BOXES, ORANGE TREE");
    }
    if hud.paused {
        keys.push_str("   PAUSED");
    }
    let y = pixmap.height() as f32 - 5.0 * 2.0 - 8.0;
    if let Some(r) = Rect::from_xywh(6.0, y - 6.0, font::text_width(&keys, 2.0) + 16.0, 5.0 * 2.0 + 12.0) {
        pixmap.fill_rect(r, &paint(0, 0, 0, 150), Transform::identity(), None);
    }
    font::draw_text(pixmap, &keys, 14.0, y, 2.0, text);
}

/// `ENEMY_FILLS` is indexed by `EnemyKind as usize`.
const _: () = {
    assert!(EnemyKind::Circle as usize == 0);
    assert!(EnemyKind::Capsule as usize == 1);
    assert!(EnemyKind::Polygon as usize == 2);
};
