//! A 3x5 bitmap font (digits, capitals, a little punctuation), so the HUD needs no font file
//! or crate. Each glyph is five rows of three bits, most significant bit on the left:
//!
//! ```text
//!  '4' = [0b101,     # . #
//!         0b101,     # . #
//!         0b111,     # # #
//!         0b001,     . . #
//!         0b001]     . . #
//! ```

use tiny_skia::Pixmap;

/// The rows of `c` (lower case is drawn as upper case; unknown characters are blank).
pub fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b001, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        'A' => [0b010, 0b101, 0b111, 0b101, 0b101],
        'B' => [0b110, 0b101, 0b110, 0b101, 0b110],
        'C' => [0b011, 0b100, 0b100, 0b100, 0b011],
        'D' => [0b110, 0b101, 0b101, 0b101, 0b110],
        'E' => [0b111, 0b100, 0b110, 0b100, 0b111],
        'F' => [0b111, 0b100, 0b110, 0b100, 0b100],
        'G' => [0b011, 0b100, 0b101, 0b101, 0b011],
        'H' => [0b101, 0b101, 0b111, 0b101, 0b101],
        'I' => [0b111, 0b010, 0b010, 0b010, 0b111],
        'J' => [0b001, 0b001, 0b001, 0b101, 0b010],
        'K' => [0b101, 0b101, 0b110, 0b101, 0b101],
        'L' => [0b100, 0b100, 0b100, 0b100, 0b111],
        'M' => [0b101, 0b111, 0b111, 0b101, 0b101],
        'N' => [0b110, 0b101, 0b101, 0b101, 0b101],
        'O' => [0b010, 0b101, 0b101, 0b101, 0b010],
        'P' => [0b110, 0b101, 0b110, 0b100, 0b100],
        'Q' => [0b010, 0b101, 0b101, 0b110, 0b011],
        'R' => [0b110, 0b101, 0b110, 0b101, 0b101],
        'S' => [0b011, 0b100, 0b010, 0b001, 0b110],
        'T' => [0b111, 0b010, 0b010, 0b010, 0b010],
        'U' => [0b101, 0b101, 0b101, 0b101, 0b111],
        'V' => [0b101, 0b101, 0b101, 0b101, 0b010],
        'W' => [0b101, 0b101, 0b111, 0b111, 0b101],
        'X' => [0b101, 0b101, 0b010, 0b101, 0b101],
        'Y' => [0b101, 0b101, 0b010, 0b010, 0b010],
        'Z' => [0b111, 0b001, 0b010, 0b100, 0b111],
        '.' => [0b000, 0b000, 0b000, 0b000, 0b010],
        ':' => [0b000, 0b010, 0b000, 0b010, 0b000],
        '-' => [0b000, 0b000, 0b111, 0b000, 0b000],
        '/' => [0b001, 0b001, 0b010, 0b100, 0b100],
        '(' => [0b010, 0b100, 0b100, 0b100, 0b010],
        ')' => [0b010, 0b001, 0b001, 0b001, 0b010],
        '=' => [0b000, 0b111, 0b000, 0b111, 0b000],
        '+' => [0b000, 0b010, 0b111, 0b010, 0b000],
        _ => [0; 5],
    }
}

/// Advance per character in font pixels (3 wide + 1 space).
pub const ADVANCE: f32 = 4.0;
/// Line height in font pixels (5 high + 2 space).
pub const LINE: f32 = 7.0;

/// Draws `text` with its top-left corner at (x, y) in the opaque RGBA `colour`, each font
/// pixel a `scale`-sized square rounded to whole pixels: written straight into the pixmap, as
/// a few thousand tiny-skia rectangle fills a frame cost milliseconds.
pub fn draw_text(pixmap: &mut Pixmap, text: &str, x: f32, y: f32, scale: f32, colour: [u8; 4]) {
    for (i, c) in text.chars().enumerate() {
        let gx = x + i as f32 * ADVANCE * scale;
        for (row, bits) in glyph(c).iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) != 0 {
                    fill_square(pixmap, gx + col as f32 * scale, y + row as f32 * scale, scale, colour);
                }
            }
        }
    }
}

/// The pixels of the `size`-sided square at (x, y), clipped to the pixmap.
fn fill_square(pixmap: &mut Pixmap, x: f32, y: f32, size: f32, colour: [u8; 4]) {
    let (width, height) = (pixmap.width() as f32, pixmap.height() as f32);
    let (x0, x1) = (x.round().clamp(0.0, width) as usize, (x + size).round().clamp(0.0, width) as usize);
    let (y0, y1) = (y.round().clamp(0.0, height) as usize, (y + size).round().clamp(0.0, height) as usize);
    let stride = 4 * pixmap.width() as usize;
    let data = pixmap.data_mut();
    for row in y0..y1 {
        for px in data[row * stride + 4 * x0..row * stride + 4 * x1].chunks_exact_mut(4) {
            px.copy_from_slice(&colour);
        }
    }
}

/// Width of `text` in pixels at `scale`.
pub fn text_width(text: &str, scale: f32) -> f32 {
    text.chars().count() as f32 * ADVANCE * scale - scale
}
