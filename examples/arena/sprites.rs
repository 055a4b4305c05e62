//! Pre-rendered movers. Each (ink, shape, rotation step) is drawn once with tiny-skia,
//! anti-aliased as before, and from then on copied onto the frame with a premultiplied
//! source-over per pixel (a plain copy where the sprite is opaque). Fills and outlines are
//! separate sprites, so that a crowd is drawn as before: all fills, then all outlines over them.
//! A thousand enemies on screen are a thousand small copies, where one path of a thousand
//! outlines costs tiny-skia an edge sort, clipping and supersampled scan conversion of all the
//! frame's edges every frame.
//!
//! Copies are queued and then made in order of rows, in horizontal bands on rayon's threads:
//! in the order of the ECS each copy lands on rows no other copy has touched lately, and the
//! frame (3 MB) does not stay in cache between them.
//!
//! What a sprite gives up: positions snap to whole pixels (at most half a pixel off), rotations
//! to [`TURNS`] steps, sizes to an eighth of a pixel.

use std::collections::HashMap;
use std::f32::consts::TAU;

use rayon::prelude::*;

use sapwood::{Pose, Shape, Vec2};
use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

use crate::render::{View, push_shape};

/// Rotation steps per turn: at the 5 px per unit of the follow view, a step moves the tip of a
/// 1.3-unit polygon by under half a pixel.
const TURNS: f32 = 96.0;
/// Sizes are keyed in steps of 1/`SUBPIXEL` pixel.
const SUBPIXEL: f32 = 8.0;
/// Shapes wider than this (pixels) are drawn as paths: few, and a sprite per rotation would
/// cost more memory than they save time.
const MAX_SPRITE: f32 = 96.0;
/// Rows per band of the parallel copy: a band's rows and the sprites over them stay in cache.
const BAND_ROWS: usize = 48;

/// What a sprite paints of its shape, in which colour (RGBA, straight alpha).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ink {
    Fill([u8; 4]),
    /// The outline, as wide as the cache's edge.
    Line([u8; 4]),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    ink: Ink,
    /// The shape's local geometry at the cache's scale, quantised and hashed.
    geometry: u64,
    /// Rotation step, 0 for circles.
    turn: u16,
}

/// A sprite as its rows' runs of opaque or of partly covered pixels (fully transparent ones are
/// left out: most of an outline's square, the corners of a fill's).
struct Sprite {
    /// Pixel of the shape's origin, counted from the sprite's top-left corner.
    origin: (i32, i32),
    height: i32,
    runs: Vec<Run>,
    /// The runs' pixels, premultiplied RGBA.
    pixels: Vec<[u8; 4]>,
}

#[derive(Clone, Copy)]
struct Run {
    /// Row and first column in the sprite.
    y: i32,
    x: i32,
    len: usize,
    /// Where its pixels start in `Sprite::pixels`.
    start: usize,
    opaque: bool,
}

/// The sprites of one scale (a new scale starts afresh: only the zoom toggle changes it).
#[derive(Default)]
pub struct SpriteCache {
    scale: f32,
    /// Outline width in pixels.
    edge: f32,
    index: HashMap<Key, usize>,
    sprites: Vec<Sprite>,
    /// The tallest sprite's height: how far above a band a copy that reaches into it can start.
    tallest: i32,
    /// Copies to make: (top row, left column, sprite).
    queue: Vec<(i32, i32, usize)>,
}

impl SpriteCache {
    /// Readies the cache for drawing at `scale` pixels per unit with `edge`-pixel outlines.
    pub fn prepare(&mut self, scale: f32, edge: f32) {
        if scale != self.scale || edge != self.edge {
            self.index.clear();
            self.sprites.clear();
            self.tallest = 0;
            (self.scale, self.edge) = (scale, edge);
        }
    }

    /// Queues `shape` at `pose` as seen through `view` (whose scale was `prepare`d), to be
    /// drawn by the next `flush`; the rare shape that has no sprite is drawn at once.
    pub fn queue(&mut self, pixmap: &mut Pixmap, view: &View, shape: &Shape, pose: &Pose, ink: Ink) {
        let extent = 2.0 * shape.bounding_radius() * self.scale + self.edge;
        let Some(geometry) = geometry_key(shape, self.scale).filter(|_| extent <= MAX_SPRITE) else {
            return draw_path(pixmap, view, shape, pose, ink, self.edge);
        };
        let turn = if matches!(shape, Shape::Circle(_)) {
            0
        } else {
            (pose.q.angle() / TAU * TURNS).round().rem_euclid(TURNS) as u16
        };
        let key = Key { ink, geometry, turn };
        let next = self.sprites.len();
        let slot = *self.index.entry(key).or_insert(next);
        if slot == next {
            let angle = f32::from(turn) * TAU / TURNS;
            let sprite = render(shape, angle, ink, self.scale, self.edge);
            self.tallest = self.tallest.max(sprite.height);
            self.sprites.push(sprite);
        }
        let sprite = &self.sprites[slot];
        let (x, y) = view.px(pose.p);
        self.queue.push((y.round() as i32 - sprite.origin.1, x.round() as i32 - sprite.origin.0, slot));
    }

    /// Draws what was queued, top rows first: where two copies overlap, the lower one lands on
    /// top whatever the queue order (both are of one ink in the arena's passes, so this hardly
    /// shows).
    pub fn flush(&mut self, pixmap: &mut Pixmap) {
        // Unstable: a stable sort would allocate its scratch every frame.
        self.queue.sort_unstable_by_key(|&(y, x, _)| (y, x));
        let width = pixmap.width() as usize;
        let (queue, sprites, tallest) = (&self.queue, &self.sprites, self.tallest);
        pixmap.data_mut().par_chunks_mut(4 * width * BAND_ROWS).enumerate().for_each(|(band, rows)| {
            let top = (band * BAND_ROWS) as i32;
            let bottom = top + (rows.len() / (4 * width)) as i32;
            let first = queue.partition_point(|&(y, _, _)| y + tallest <= top);
            for &(y, x, slot) in queue[first..].iter().take_while(|&&(y, _, _)| y < bottom) {
                let sprite = &sprites[slot];
                if y + sprite.height > top {
                    blit(rows, width, top, sprite, x, y);
                }
            }
        });
        self.queue.clear();
    }
}

/// The local geometry in 1/`SUBPIXEL`-pixel steps after a tag for the kind of shape, hashed
/// (FNV-1a over the numbers); `None` for compounds and chains, which are drawn as paths.
fn geometry_key(shape: &Shape, scale: f32) -> Option<u64> {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |v: i64| {
        hash ^= v as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    let step = |v: f32| (v * scale * SUBPIXEL).round() as i64;
    match shape {
        Shape::Circle(c) => [0, step(c.radius)].into_iter().for_each(&mut mix),
        Shape::Capsule(c) => {
            [1, step(c.a.x), step(c.a.y), step(c.b.x), step(c.b.y), step(c.radius)].into_iter().for_each(&mut mix)
        }
        Shape::Cuboid(b) => [2, step(b.half_extents.x), step(b.half_extents.y)].into_iter().for_each(&mut mix),
        Shape::Polygon(p) => {
            [3, step(p.radius())].into_iter().for_each(&mut mix);
            p.vertices().iter().for_each(|v| [step(v.x), step(v.y)].into_iter().for_each(&mut mix));
        }
        Shape::Segment(c) => {
            [4, step(c.a.x), step(c.a.y), step(c.b.x), step(c.b.y), step(c.radius)].into_iter().for_each(&mut mix)
        }
        Shape::Compound(_) | Shape::Chain(_) => return None,
    }
    Some(hash)
}

/// `shape` turned by `angle`, drawn with its origin on a pixel corner near the middle.
fn render(shape: &Shape, angle: f32, ink: Ink, scale: f32, edge: f32) -> Sprite {
    let half = (shape.bounding_radius() * scale + edge + 1.0).ceil() as u32;
    let size = 2 * half;
    let mut pixmap = Pixmap::new(size, size).expect("a sprite is at least 2x2 pixels");
    // A view whose centre maps to pixel (half, half).
    let view = View { center: Vec2::ZERO, scale, width: size, height: size };
    draw_path(&mut pixmap, &view, shape, &Pose::new(Vec2::ZERO, angle), ink, edge);
    // Transparent, partly covered or opaque.
    let class = |p: &[u8; 4]| (p[3] > 0) as u8 + (p[3] == 255) as u8;
    let (mut runs, mut pixels) = (Vec::new(), Vec::new());
    let all: &[[u8; 4]] = bytemuck::cast_slice(pixmap.data());
    for (y, row) in all.chunks_exact(size as usize).enumerate() {
        let mut x = 0;
        while x < row.len() {
            let kind = class(&row[x]);
            let len = row[x..].iter().take_while(|p| class(p) == kind).count();
            if kind > 0 {
                runs.push(Run { y: y as i32, x: x as i32, len, start: pixels.len(), opaque: kind == 2 });
                pixels.extend_from_slice(&row[x..x + len]);
            }
            x += len;
        }
    }
    Sprite { origin: (half as i32, half as i32), height: size as i32, runs, pixels }
}

/// One shape as its own path, filled or outlined.
fn draw_path(pixmap: &mut Pixmap, view: &View, shape: &Shape, pose: &Pose, ink: Ink, edge: f32) {
    let mut pb = PathBuilder::new();
    push_shape(&mut pb, view, shape, pose);
    let Some(path) = pb.finish() else { return };
    let paint = |[r, g, b, a]: [u8; 4]| {
        let mut p = Paint { anti_alias: true, ..Paint::default() };
        p.set_color_rgba8(r, g, b, a);
        p
    };
    match ink {
        Ink::Fill(colour) => pixmap.fill_path(&path, &paint(colour), FillRule::Winding, Transform::identity(), None),
        Ink::Line(colour) => {
            let stroke = Stroke { width: edge, ..Stroke::default() };
            pixmap.stroke_path(&path, &paint(colour), &stroke, Transform::identity(), None);
        }
    }
}

/// Premultiplied source-over of `sprite` with its top-left corner at pixel (x, y), clipped to
/// `rows`: whole rows of a `width`-pixel picture, the first of them row `top`.
fn blit(rows: &mut [u8], width: usize, top: i32, sprite: &Sprite, x: i32, y: i32) {
    let height = (rows.len() / (4 * width)) as i32;
    for run in &sprite.runs {
        let row = y + run.y - top;
        let (x0, x1) = ((x + run.x).max(0), (x + run.x + run.len as i32).min(width as i32));
        if row < 0 || row >= height || x0 >= x1 {
            continue;
        }
        let from = run.start + (x0 - x - run.x) as usize;
        let src = &sprite.pixels[from..from + (x1 - x0) as usize];
        let at = 4 * (row as usize * width + x0 as usize);
        let dst = &mut rows[at..at + 4 * src.len()];
        if run.opaque {
            dst.copy_from_slice(bytemuck::cast_slice(src));
            continue;
        }
        for (s, d) in src.iter().zip(dst.chunks_exact_mut(4)) {
            let under = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            let over = scale_by(under, 255 - u32::from(s[3])) + u32::from_le_bytes(*s);
            d.copy_from_slice(&over.to_le_bytes());
        }
    }
}

/// Each byte of `word` times `factor` / 255, rounded (two bytes at a time in 16-bit lanes). With
/// premultiplied colour no byte of `over` exceeds its alpha, so the sum above never carries.
fn scale_by(word: u32, factor: u32) -> u32 {
    let lanes = |v: u32| {
        let t = v * factor + 0x0080_0080;
        ((t + ((t >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
    };
    lanes(word & 0x00ff_00ff) | (lanes((word >> 8) & 0x00ff_00ff) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_by_matches_rounded_division() {
        for v in [0u32, 1, 2, 127, 128, 254, 255] {
            for f in [0u32, 1, 100, 128, 254, 255] {
                let word = v | (v << 8) | (v << 16) | (v << 24);
                let expect = (v * f + 127) / 255;
                let got = scale_by(word, f);
                for byte in got.to_le_bytes() {
                    assert!(u32::from(byte).abs_diff(expect) <= 1, "{v} * {f} / 255: {byte} vs {expect}");
                }
            }
        }
    }
}
