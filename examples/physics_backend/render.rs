//! Drawing a scene with tiny-skia through the world's debug drawing: one filled and outlined
//! path per collider (a compound's parts each), in sapwood's default palette (static bodies
//! grey, moving ones coloured by their kind).

use sapwood::Vec2;
use sapwood::debug_draw::{self, DebugDraw, DebugDrawOptions, Role};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

use crate::solver::Stepper;

/// Which part of the world the picture shows.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// World point at the picture's centre.
    pub center: Vec2,
    /// Pixels per metre.
    pub scale: f32,
}

impl View {
    fn to_px(self, p: Vec2, w: u32, h: u32) -> (f32, f32) {
        let q = (p - self.center) * self.scale;
        (0.5 * w as f32 + q.x, 0.5 * h as f32 - q.y)
    }
}

/// The pixmap as a debug-draw canvas.
struct Canvas<'a> {
    pixmap: &'a mut Pixmap,
    view: View,
    /// Reused outline of the shape being drawn.
    outline: Vec<Vec2>,
}

impl Canvas<'_> {
    fn px(&self, p: Vec2) -> (f32, f32) {
        self.view.to_px(p, self.pixmap.width(), self.pixmap.height())
    }

    /// Fills `self.outline` (plus a spoke from `spoke`, if any) with the role's colour and
    /// outlines it in black.
    fn fill(&mut self, role: Role, spoke: Option<(Vec2, Vec2)>) {
        let mut pb = PathBuilder::new();
        for (k, p) in self.outline.iter().enumerate() {
            let (x, y) = self.px(*p);
            if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
        }
        pb.close();
        if let Some((a, b)) = spoke {
            let ((x0, y0), (x1, y1)) = (self.px(a), self.px(b));
            pb.move_to(x0, y0);
            pb.line_to(x1, y1);
        }
        let Some(path) = pb.finish() else { return };
        let [r, g, b, a] = role.color();
        let mut fill = Paint { anti_alias: true, ..Paint::default() };
        fill.set_color_rgba8(r, g, b, a);
        let mut line = Paint { anti_alias: true, ..Paint::default() };
        line.set_color_rgba8(10, 10, 12, 255);
        self.pixmap.fill_path(&path, &fill, FillRule::Winding, Transform::identity(), None);
        self.pixmap.stroke_path(&path, &line, &Stroke { width: 1.0, ..Stroke::default() }, Transform::identity(), None);
    }
}

impl DebugDraw for Canvas<'_> {
    fn circle(&mut self, center: Vec2, radius: f32, axis: Vec2, role: Role) {
        debug_draw::rounded_outline(&[center], radius, 16, &mut self.outline);
        // A spoke shows the rotation.
        self.fill(role, Some((center, center + radius * axis)));
    }

    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role) {
        self.polygon(&[a, b], radius, role);
    }

    fn polygon(&mut self, vertices: &[Vec2], radius: f32, role: Role) {
        debug_draw::rounded_outline(vertices, radius, 8, &mut self.outline);
        self.fill(role, None);
    }

    fn segment(&mut self, a: Vec2, b: Vec2, role: Role) {
        self.polyline(&[a, b], false, role);
    }

    fn polyline(&mut self, points: &[Vec2], _closed: bool, role: Role) {
        self.outline.clear();
        self.outline.extend_from_slice(points);
        self.fill(role, None);
    }

    fn point(&mut self, _: Vec2, _: Role) {}
}

/// Draws every body into `pixmap`.
pub fn draw(stepper: &Stepper, view: View, pixmap: &mut Pixmap) {
    pixmap.fill(Color::from_rgba8(24, 26, 32, 255));
    let options = DebugDrawOptions { contacts: false, impacts: false, ..DebugDrawOptions::default() };
    stepper.world.debug_draw(&mut Canvas { pixmap, view, outline: Vec::new() }, &options);
}
