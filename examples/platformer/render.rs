//! Drawing the level with tiny-skia. The colliders come from the world's debug drawing, sorted
//! by category into one path per colour; the spikes, the goal and the trail are the game's own.
//! Every path is built in world units (y up) and drawn through the camera's transform; the
//! static ones (terrain, one-way platforms, spikes, the goal) are built once.

use sapwood::debug_draw::{self, DebugDraw, DebugDrawOptions, Role};
use sapwood::{Aabb, ShapeKind, Vec2, World};
use tiny_skia::{Color, FillRule, LineCap, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::components::category;
use crate::game::Game;
use crate::level::{CELL, Level};

const SKY: [u8; 4] = [28, 32, 48, 255];
const EARTH: [u8; 4] = [86, 66, 52, 255];
const GRASS: [u8; 4] = [112, 176, 92, 255];
const ONE_WAY: [u8; 4] = [196, 170, 120, 255];
const PLATFORM: [u8; 4] = [120, 150, 210, 255];
const PICKUP: [u8; 4] = [250, 210, 80, 255];
const SPIKES: [u8; 4] = [210, 80, 80, 255];
const PLAYER: [u8; 4] = [240, 240, 235, 255];
const PLAYER_GROUNDED: [u8; 4] = [150, 230, 255, 255];
const TRAIL: [u8; 4] = [240, 240, 235, 110];
const GOAL: [u8; 4] = [255, 255, 255, 255];

/// Which part of the level the picture shows: world point `center` at the picture's centre,
/// `scale` pixels per world unit.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub center: Vec2,
    pub scale: f32,
    pub width: u32,
    pub height: u32,
}

impl Camera {
    /// Following `target`, kept inside the level where the level is larger than the view.
    pub fn follow(target: Vec2, level: &Level, scale: f32, width: u32, height: u32) -> Camera {
        let half = Vec2::new(width as f32, height as f32) / (2.0 * scale);
        let axis =
            |t: f32, size: f32, half: f32| if size <= 2.0 * half { 0.5 * size } else { t.clamp(half, size - half) };
        let center = Vec2::new(axis(target.x, level.size.x, half.x), axis(target.y, level.size.y, half.y));
        Camera { center, scale, width, height }
    }

    /// The whole level.
    pub fn whole(level: &Level, width: u32, height: u32) -> Camera {
        let scale = (width as f32 / level.size.x).min(height as f32 / level.size.y);
        Camera { center: 0.5 * level.size, scale, width, height }
    }

    /// World (y up) to pixels (y down).
    fn transform(&self) -> Transform {
        let s = self.scale;
        Transform::from_row(
            s,
            0.0,
            0.0,
            -s,
            0.5 * self.width as f32 - s * self.center.x,
            0.5 * self.height as f32 + s * self.center.y,
        )
    }
}

fn paint(rgba: [u8; 4]) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(Color::from_rgba8(rgba[0], rgba[1], rgba[2], rgba[3]));
    p.anti_alias = true;
    p
}

fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Round, ..Stroke::default() }
}

/// What a collider is drawn as, by its category.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Tile boxes: earth.
    Terrain,
    /// Terrain chains: a closed one is the outline of earth edged with grass, an open one a
    /// one-way platform.
    TerrainChain,
    Platform,
    Pickup,
    Player,
    /// The spikes' sensors (the spikes are drawn instead) and everything not a collider.
    Hidden,
}

/// Sapwood's debug drawing of the level sorted into one path per class, in world units.
struct Paths<'w> {
    world: &'w World,
    /// Which classes to keep: the static terrain (drawn once) or the rest (every frame).
    keep: &'w [Class],
    earth: PathBuilder,
    grass: PathBuilder,
    one_way: PathBuilder,
    platform: PathBuilder,
    pickup: PathBuilder,
    player: PathBuilder,
    outline: Vec<Vec2>,
}

impl<'w> Paths<'w> {
    fn new(world: &'w World, keep: &'w [Class]) -> Self {
        let pb = PathBuilder::new;
        Paths {
            world,
            keep,
            earth: pb(),
            grass: pb(),
            one_way: pb(),
            platform: pb(),
            pickup: pb(),
            player: pb(),
            outline: Vec::new(),
        }
    }

    fn class(&self, role: Role) -> Class {
        let Role::Collider(c) = role else { return Class::Hidden };
        let class = match self.world.filter(c.id).map_or(0, |f| f.category) {
            category::TERRAIN if c.kind == ShapeKind::Chain => Class::TerrainChain,
            category::TERRAIN => Class::Terrain,
            category::PLATFORM => Class::Platform,
            category::PICKUP => Class::Pickup,
            category::PLAYER => Class::Player,
            _ => Class::Hidden,
        };
        if self.keep.contains(&class) { class } else { Class::Hidden }
    }

    /// The path an area of `class` goes into.
    fn area(&mut self, class: Class) -> Option<&mut PathBuilder> {
        match class {
            Class::Terrain => Some(&mut self.earth),
            Class::Platform => Some(&mut self.platform),
            Class::Pickup => Some(&mut self.pickup),
            Class::Player => Some(&mut self.player),
            Class::TerrainChain | Class::Hidden => None,
        }
    }
}

fn push_path(pb: &mut PathBuilder, points: &[Vec2], offset: Vec2, closed: bool) {
    for (k, p) in points.iter().enumerate() {
        let p = *p + offset;
        if k == 0 { pb.move_to(p.x, p.y) } else { pb.line_to(p.x, p.y) }
    }
    if closed {
        pb.close();
    }
}

impl DebugDraw for Paths<'_> {
    fn circle(&mut self, center: Vec2, radius: f32, _axis: Vec2, role: Role) {
        if let Some(pb) = self.area(self.class(role)) {
            pb.push_circle(center.x, center.y, radius);
        }
    }

    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role) {
        self.polygon(&[a, b], radius, role);
    }

    fn polygon(&mut self, vertices: &[Vec2], radius: f32, role: Role) {
        let mut outline = std::mem::take(&mut self.outline);
        debug_draw::rounded_outline(vertices, radius, 8, &mut outline);
        if let Some(pb) = self.area(self.class(role)) {
            push_path(pb, &outline, Vec2::ZERO, true);
        }
        self.outline = outline;
    }

    fn segment(&mut self, a: Vec2, b: Vec2, role: Role) {
        self.polyline(&[a, b], false, role);
    }

    fn polyline(&mut self, points: &[Vec2], closed: bool, role: Role) {
        match self.class(role) {
            Class::TerrainChain if closed => {
                push_path(&mut self.earth, points, Vec2::ZERO, true);
                push_path(&mut self.grass, points, Vec2::ZERO, true);
            }
            // Drawn a little below the edge, so that the player stands on top of the line.
            Class::TerrainChain => push_path(&mut self.one_way, points, Vec2::new(0.0, -0.06), false),
            _ => {}
        }
    }

    fn point(&mut self, _: Vec2, _: Role) {}
}

/// The level's static paths, built once.
pub struct Renderer {
    earth: Option<Path>,
    grass: Option<Path>,
    one_way: Option<Path>,
    spikes: Option<Path>,
    goal: Option<Path>,
    flag: Option<Path>,
}

/// The colliders drawn once.
const STATIC: [Class; 2] = [Class::Terrain, Class::TerrainChain];
/// The colliders drawn every frame.
const MOVING: [Class; 3] = [Class::Platform, Class::Pickup, Class::Player];

impl Renderer {
    pub fn new(game: &Game) -> Renderer {
        let level = &game.level;
        let mut terrain = Paths::new(&game.world, &STATIC);
        let options = DebugDrawOptions { contacts: false, impacts: false, ..DebugDrawOptions::default() };
        game.world.debug_draw(&mut terrain, &options);
        let mut pb = PathBuilder::new();
        for &(lo, hi) in &level.spikes {
            let mut x = lo.x;
            while x < hi.x - 0.5 * CELL {
                pb.move_to(x, lo.y);
                pb.line_to(x + 0.5 * CELL, hi.y - 0.1);
                pb.line_to(x + CELL, lo.y);
                pb.close();
                x += CELL;
            }
        }
        let spikes = pb.finish();
        let ground_at_goal = (0..level.map.height())
            .map(|from_bottom| CELL * from_bottom as f32)
            .find(|&y| !level.solid_at(Vec2::new(level.goal_x + 0.5 * CELL, y + 0.5 * CELL)))
            .unwrap_or(0.0);
        let mut pb = PathBuilder::new();
        pb.move_to(level.goal_x, ground_at_goal);
        pb.line_to(level.goal_x, ground_at_goal + 3.0);
        let goal = pb.finish();
        let mut pb = PathBuilder::new();
        pb.move_to(level.goal_x, ground_at_goal + 3.0);
        pb.line_to(level.goal_x + 1.2, ground_at_goal + 2.6);
        pb.line_to(level.goal_x, ground_at_goal + 2.2);
        pb.close();
        let flag = pb.finish();
        Renderer {
            earth: terrain.earth.finish(),
            grass: terrain.grass.finish(),
            one_way: terrain.one_way.finish(),
            spikes,
            goal,
            flag,
        }
    }

    /// The picture of `game` through `camera`; with `trail`, the player's path and where the
    /// pickups were too.
    pub fn draw(&self, game: &Game, camera: &Camera, trail: bool, pixmap: &mut Pixmap) {
        let t = camera.transform();
        pixmap.fill(Color::from_rgba8(SKY[0], SKY[1], SKY[2], SKY[3]));
        // Below the map, where a view taller than the level looks, is earth too.
        if let Some(r) = Rect::from_ltrb(-1e3, -1e3, game.level.size.x + 1e3, 0.0) {
            pixmap.fill_rect(r, &paint(EARTH), t, None);
        }
        if let Some(path) = &self.earth {
            pixmap.fill_path(path, &paint(EARTH), FillRule::Winding, t, None);
        }
        if let Some(path) = &self.grass {
            pixmap.stroke_path(path, &paint(GRASS), &stroke(0.1), t, None);
        }
        if let Some(path) = &self.spikes {
            pixmap.fill_path(path, &paint(SPIKES), FillRule::Winding, t, None);
        }
        if let Some(path) = &self.one_way {
            pixmap.stroke_path(path, &paint(ONE_WAY), &stroke(0.12), t, None);
        }
        if let (Some(pole), Some(flag)) = (&self.goal, &self.flag) {
            pixmap.stroke_path(pole, &paint(GOAL), &stroke(0.08), t, None);
            pixmap.fill_path(flag, &paint(PICKUP), FillRule::Winding, t, None);
        }
        let mut moving = Paths::new(&game.world, &MOVING);
        let half = Vec2::new(camera.width as f32, camera.height as f32) / (2.0 * camera.scale);
        let options = DebugDrawOptions {
            contacts: false,
            impacts: false,
            bounds: Some(Aabb::from_center_half_extents(camera.center, half)),
            ..DebugDrawOptions::default()
        };
        game.world.debug_draw(&mut moving, &options);
        if let Some(path) = moving.platform.finish() {
            pixmap.fill_path(&path, &paint(PLATFORM), FillRule::Winding, t, None);
        }
        if trail {
            // Where every pickup was: the ones left are filled in below.
            for p in &game.level.pickups {
                if let Some(c) = PathBuilder::from_circle(p.x, p.y, 0.25) {
                    pixmap.stroke_path(&c, &paint(PICKUP), &stroke(0.05), t, None);
                }
            }
        }
        if let Some(path) = moving.pickup.finish() {
            pixmap.fill_path(&path, &paint(PICKUP), FillRule::Winding, t, None);
        }
        if trail && game.trail.len() > 1 {
            let mut pb = PathBuilder::new();
            pb.move_to(game.trail[0].x, game.trail[0].y);
            for p in &game.trail[1..] {
                pb.line_to(p.x, p.y);
            }
            if let Some(path) = pb.finish() {
                pixmap.stroke_path(&path, &paint(TRAIL), &stroke(0.06), t, None);
            }
        }
        if let Some(path) = moving.player.finish() {
            let colour = if game.player_state().grounded { PLAYER_GROUNDED } else { PLAYER };
            pixmap.fill_path(&path, &paint(colour), FillRule::Winding, t, None);
        }
    }
}
