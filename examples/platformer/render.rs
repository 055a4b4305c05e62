//! Drawing the level with tiny-skia. Every path is built in world units (y up) and drawn
//! through the camera's transform; the static ones (terrain, one-way platforms, spikes, the
//! goal) are built once.

use sapwood::{Pose, Shape, Vec2};
use tiny_skia::{Color, FillRule, LineCap, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::components::{MovingPlatform, Pickup};
use crate::game::{Game, PLAYER_HALF_CORE, PLAYER_RADIUS};
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

/// The level's static paths, built once.
pub struct Renderer {
    terrain: Option<Path>,
    one_way: Option<Path>,
    spikes: Option<Path>,
    goal: Option<Path>,
    flag: Option<Path>,
}

impl Renderer {
    pub fn new(level: &Level) -> Renderer {
        let mut pb = PathBuilder::new();
        for chain in &level.terrain {
            let vs = chain.vertices();
            pb.move_to(vs[0].x, vs[0].y);
            for v in &vs[1..] {
                pb.line_to(v.x, v.y);
            }
            pb.close();
        }
        let terrain = pb.finish();
        let mut pb = PathBuilder::new();
        for &(a, b) in &level.one_way {
            pb.move_to(a.x, a.y - 0.06);
            pb.line_to(b.x, b.y - 0.06);
        }
        let one_way = pb.finish();
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
        Renderer { terrain, one_way, spikes, goal, flag }
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
        if let Some(path) = &self.terrain {
            pixmap.fill_path(path, &paint(EARTH), FillRule::Winding, t, None);
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
        for (pose, shape, _) in game.ecs.query::<(&Pose, &Shape, &MovingPlatform)>().iter() {
            if let Shape::Cuboid(c) = shape {
                let (lo, hi) = (pose.p - c.half_extents, pose.p + c.half_extents);
                if let Some(r) = Rect::from_ltrb(lo.x, lo.y, hi.x, hi.y) {
                    pixmap.fill_path(&PathBuilder::from_rect(r), &paint(PLATFORM), FillRule::Winding, t, None);
                }
            }
        }
        if trail {
            // Where every pickup was: the ones left are filled in below.
            for p in &game.level.pickups {
                if let Some(c) = PathBuilder::from_circle(p.x, p.y, 0.25) {
                    pixmap.stroke_path(&c, &paint(PICKUP), &stroke(0.05), t, None);
                }
            }
        }
        for (pose, _) in game.ecs.query::<(&Pose, &Pickup)>().iter() {
            if let Some(c) = PathBuilder::from_circle(pose.p.x, pose.p.y, 0.25) {
                pixmap.fill_path(&c, &paint(PICKUP), FillRule::Winding, t, None);
            }
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
        let pose = game.player_pose();
        let up = pose.q.y_axis() * PLAYER_HALF_CORE;
        let mut pb = PathBuilder::new();
        pb.move_to(pose.p.x - up.x, pose.p.y - up.y);
        pb.line_to(pose.p.x + up.x, pose.p.y + up.y);
        if let Some(path) = pb.finish() {
            let colour = if game.player_state().grounded { PLAYER_GROUNDED } else { PLAYER };
            pixmap.stroke_path(&path, &paint(colour), &stroke(2.0 * PLAYER_RADIUS), t, None);
        }
    }
}
