//! What the examples' charts share: a font for plotters' text.

use std::error::Error;

use plotters::style::FontStyle;

/// Font files tried in order (plotters' pure-Rust `ab_glyph` text needs one at run time);
/// `SAPWOOD_FONT` overrides, and the copy of DejaVu Sans in `assets/` (free licence beside it)
/// is the fallback, so that a fresh machine without fonts still gets its chart.
const FONTS: [&str; 4] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/Library/Fonts/Arial.ttf",
];

/// Registers the font plotters draws `"sans-serif"` text with: the first of [`FONTS`] found
/// (or `SAPWOOD_FONT`), else the bundled DejaVu Sans.
///
/// # Errors
/// When a font file found is not a usable font.
pub fn register_font() -> Result<(), Box<dyn Error>> {
    let candidates = std::env::var("SAPWOOD_FONT").into_iter().chain(FONTS.iter().map(|s| (*s).to_string()));
    for path in candidates {
        if let Ok(bytes) = std::fs::read(&path) {
            // plotters keeps fonts for the whole run.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| format!("{path} is not a usable font"))?;
            return Ok(());
        }
    }
    const BUNDLED: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
    plotters::style::register_font("sans-serif", FontStyle::Normal, BUNDLED)
        .map_err(|_| "the bundled DejaVu Sans is not a usable font".into())
}
