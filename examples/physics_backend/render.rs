//! Drawing a scene with tiny-skia: one filled and outlined path per body.

use sapwood::{Pose, Shape, Vec2};
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

/// The outline of `shape` at `pose` as world points (circles and capsule caps as 16-gons).
fn outline(shape: &Shape, pose: &Pose) -> Vec<Vec2> {
    let arc = |c: Vec2, r: f32, from: f32, steps: usize, out: &mut Vec<Vec2>| {
        for k in 0..=steps {
            let a = from + std::f32::consts::PI * k as f32 / steps as f32;
            out.push(c + r * Vec2::new(a.cos(), a.sin()));
        }
    };
    let mut pts = Vec::new();
    match shape {
        Shape::Circle(c) => {
            for k in 0..16 {
                let a = std::f32::consts::TAU * k as f32 / 16.0;
                pts.push(c.radius * Vec2::new(a.cos(), a.sin()));
            }
        }
        Shape::Cuboid(b) => {
            let h = b.half_extents;
            pts.extend([Vec2::new(-h.x, -h.y), Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y)]);
        }
        Shape::Capsule(c) => {
            let d = c.b - c.a;
            let start = d.y.atan2(d.x) - std::f32::consts::FRAC_PI_2;
            arc(c.b, c.radius, start, 8, &mut pts);
            arc(c.a, c.radius, start + std::f32::consts::PI, 8, &mut pts);
        }
        Shape::Polygon(p) => pts.extend_from_slice(p.vertices()),
        Shape::Compound(_) => unreachable!("compounds are drawn part by part"),
        Shape::Segment(_) | Shape::Chain(_) => unreachable!("the example builds no segments or chains"),
    }
    pts.iter().map(|v| pose.transform_point(*v)).collect()
}

/// Draws every body into `pixmap`: static bodies grey, moving ones coloured by their kind.
pub fn draw(stepper: &Stepper, view: View, pixmap: &mut Pixmap) {
    let (w, h) = (pixmap.width(), pixmap.height());
    pixmap.fill(Color::from_rgba8(24, 26, 32, 255));
    let mut fill = Paint { anti_alias: true, ..Paint::default() };
    let mut line = Paint { anti_alias: true, ..Paint::default() };
    line.set_color_rgba8(10, 10, 12, 255);
    let stroke = Stroke { width: 1.0, ..Stroke::default() };
    for body in &stepper.bodies {
        let pose = body.pose();
        let mut pb = PathBuilder::new();
        let mut pts = Vec::new();
        // A compound is drawn as its parts, one closed sub-path each.
        let parts: Vec<(Pose, Shape)> = match &body.shape {
            Shape::Compound(c) => c.parts().iter().map(|(p, s)| (pose.mul(p), s.clone())).collect(),
            s => vec![(pose, s.clone())],
        };
        for (part_pose, part) in &parts {
            pts = outline(part, part_pose);
            for (k, p) in pts.iter().enumerate() {
                let (x, y) = view.to_px(*p, w, h);
                if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
            }
            pb.close();
        }
        if let Shape::Circle(_) = body.shape {
            // A spoke shows the rotation.
            let (x0, y0) = view.to_px(pose.p, w, h);
            let (x1, y1) = view.to_px(pts[0], w, h);
            pb.move_to(x0, y0);
            pb.line_to(x1, y1);
        }
        let Some(path) = pb.finish() else { continue };
        let (r, g, b) = match (body.is_dynamic(), &body.shape) {
            (false, _) => (110, 112, 120),
            (true, Shape::Cuboid(_)) => (222, 160, 72),
            (true, Shape::Circle(_)) => (90, 170, 220),
            (true, Shape::Capsule(_)) => (120, 200, 130),
            (true, Shape::Polygon(_)) => (210, 110, 140),
            (true, Shape::Compound(_)) => (170, 130, 220),
            (true, Shape::Segment(_) | Shape::Chain(_)) => (200, 200, 200),
        };
        fill.set_color_rgba8(r, g, b, 255);
        pixmap.fill_path(&path, &fill, FillRule::Winding, Transform::identity(), None);
        pixmap.stroke_path(&path, &line, &stroke, Transform::identity(), None);
    }
}
