//! Drawing the arena with tiny-skia. Per frame: the static backdrop is copied in
//! (`backdrop.rs`), enemies and projectiles are blitted from pre-rendered sprites
//! (`sprites.rs`), the player, the debug overlay and the HUD are drawn directly.

use sapwood::{Pose, Shape, Vec2};
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

/// Appends `shape` at `pose` to `pb` as a closed outline (circles natively, capsule caps as
/// 8-segment arcs).
pub fn push_shape(pb: &mut PathBuilder, view: &View, shape: &Shape, pose: &Pose) {
    let mut poly = |pts: &mut dyn Iterator<Item = Vec2>| {
        for (k, p) in pts.enumerate() {
            let (x, y) = view.px(pose.transform_point(p));
            if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
        }
        pb.close();
    };
    match shape {
        Shape::Circle(c) => {
            let (x, y) = view.px(pose.p);
            pb.push_circle(x, y, c.radius * view.scale);
        }
        Shape::Cuboid(b) => {
            let h = b.half_extents;
            poly(&mut [Vec2::new(-h.x, -h.y), Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)].into_iter());
        }
        Shape::Capsule(c) => {
            let d = c.b - c.a;
            let start = d.y.atan2(d.x) - std::f32::consts::FRAC_PI_2;
            let arc = |centre: Vec2, from: f32| {
                (0..=8).map(move |k| centre + c.radius * Vec2::from_angle(from + std::f32::consts::PI * k as f32 / 8.0))
            };
            poly(&mut arc(c.b, start).chain(arc(c.a, start + std::f32::consts::PI)));
        }
        Shape::Polygon(p) if p.radius() > 0.0 => {
            // A rounded polygon: offset each edge outwards and join with arcs.
            let (vs, ns) = (p.vertices(), p.normals());
            let r = p.radius();
            let n = vs.len();
            let mut pts = Vec::with_capacity(n * 6);
            for i in 0..n {
                let prev = ns[(i + n - 1) % n];
                let (a0, a1) = (prev.y.atan2(prev.x), ns[i].y.atan2(ns[i].x));
                let sweep = (a1 - a0).rem_euclid(std::f32::consts::TAU);
                for k in 0..=4 {
                    pts.push(vs[i] + r * Vec2::from_angle(a0 + sweep * k as f32 / 4.0));
                }
            }
            poly(&mut pts.into_iter());
        }
        Shape::Polygon(p) => poly(&mut p.vertices().iter().copied()),
        Shape::Compound(c) => {
            for (part_pose, part) in c.parts() {
                push_shape(pb, view, part, &pose.mul(part_pose));
            }
        }
        Shape::Segment(s) if s.radius > 0.0 => {
            push_shape(pb, view, &Shape::Capsule(sapwood::Capsule { a: s.a, b: s.b, radius: s.radius }), pose);
        }
        Shape::Segment(s) => poly(&mut [s.a, s.b].into_iter()),
        Shape::Chain(c) => {
            for (k, v) in c.vertices().iter().enumerate() {
                let (x, y) = view.px(pose.transform_point(*v));
                if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
            }
            if c.options().closed {
                pb.close();
            }
        }
    }
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
/// residents (orange: static and very large colliders), and each contact's normal.
fn draw_debug(game: &Game, view: &View, pixmap: &mut Pixmap) {
    let (mut sap, mut tree) = (PathBuilder::new(), PathBuilder::new());
    game.world.debug_fat_aabbs(|_, fat, in_tree| {
        let c = fat.center();
        if !view.visible(c, fat.half_extents().max_element()) {
            return;
        }
        let (x0, y0) = view.px(Vec2::new(fat.min.x, fat.max.y));
        let (x1, y1) = view.px(Vec2::new(fat.max.x, fat.min.y));
        if let Some(r) = Rect::from_ltrb(x0, y0, x1, y1) {
            if in_tree { tree.push_rect(r) } else { sap.push_rect(r) }
        }
    });
    let thin = Stroke { width: 1.0, ..Stroke::default() };
    stroke(pixmap, sap.finish(), &paint(90, 220, 120, 150), &thin);
    stroke(pixmap, tree.finish(), &paint(255, 170, 60, 220), &thin);
    let mut normals = PathBuilder::new();
    for c in game.world.contacts() {
        for p in c.manifold.points() {
            if view.visible(p.point, 1.0) {
                let (x0, y0) = view.px(p.point);
                let (x1, y1) = view.px(p.point + c.manifold.normal * (0.6 + 4.0 * p.depth));
                normals.move_to(x0, y0);
                normals.line_to(x1, y1);
            }
        }
    }
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
