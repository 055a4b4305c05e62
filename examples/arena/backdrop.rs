//! The parts of the picture that never move (floor, grid, walls and obstacles), drawn once per
//! scale and window size into a layer that covers every place the view can go, and copied row
//! by row under each frame. The view is snapped to whole pixels (`View::snapped`) so that the
//! copy lines up with what is drawn on top of it.

use sapwood::Vec2;
use tiny_skia::Pixmap;

use crate::game::Game;
use crate::level;
use crate::render::{self, View};

/// What the layer was drawn for: scale (as bits) and window size.
type Fit = (u32, u32, u32);

#[derive(Default)]
pub struct Backdrop {
    fit: Option<Fit>,
    layer: Option<Pixmap>,
}

impl Backdrop {
    /// Fills `pixmap` with the static picture as seen through `view` (snapped), drawing the
    /// layer first if the scale or the window size changed.
    pub fn draw(&mut self, game: &Game, view: &View, pixmap: &mut Pixmap) {
        let fit = (view.scale.to_bits(), view.width, view.height);
        if self.fit != Some(fit) {
            self.layer = layer(game, view);
            self.fit = Some(fit);
        }
        let Some(layer) = &self.layer else {
            return render::draw_static(game, view, pixmap);
        };
        // The layer's view is centred on the world origin, so the origin sits at the middle
        // pixel of both; the frame's top-left corner is that far from the layer's.
        let (ox, oy) = view.px(Vec2::ZERO);
        let left = (layer.width() / 2) as i64 - ox.round() as i64;
        let top = (layer.height() / 2) as i64 - oy.round() as i64;
        let fits = left >= 0
            && top >= 0
            && left + i64::from(view.width) <= i64::from(layer.width())
            && top + i64::from(view.height) <= i64::from(layer.height());
        if !fits {
            // A view outside the places `View::follow` and `View::whole` can go (or a layer too
            // large to allocate, above) is drawn the slow way.
            return render::draw_static(game, view, pixmap);
        }
        let row_bytes = 4 * view.width as usize;
        let layer_stride = 4 * layer.width() as usize;
        let start = top as usize * layer_stride + 4 * left as usize;
        let src = &layer.data()[start..];
        for (y, dst) in pixmap.data_mut().chunks_exact_mut(row_bytes).enumerate() {
            dst.copy_from_slice(&src[y * layer_stride..y * layer_stride + row_bytes]);
        }
    }
}

/// The static picture over every point the view's centre can reach at its scale (see
/// `View::follow`): the arena with its walls, or the window if that is larger.
fn layer(game: &Game, view: &View) -> Option<Pixmap> {
    let half_view = Vec2::new(view.width as f32, view.height as f32) / (2.0 * view.scale);
    let reach = half_view.max(level::HALF + Vec2::splat(2.0 * level::WALL_HALF_THICKNESS + 4.0));
    // Even sizes, so that the world origin falls on a pixel corner as in a snapped view.
    let width = 2 * ((reach.x * view.scale).ceil() as u32 + 1);
    let height = 2 * ((reach.y * view.scale).ceil() as u32 + 1);
    let mut layer = Pixmap::new(width, height)?;
    render::draw_static(game, &View { center: Vec2::ZERO, scale: view.scale, width, height }, &mut layer);
    Some(layer)
}
