//! The suite's chart (`--chart PATH`): one panel per thread count, a group of bars per scene
//! (sapwood, rapier2d, Box2D's pairs + collide with contact recycling on and off), mean ms per
//! step on a log scale.

use std::error::Error;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One scene at one thread count: mean ms per step of each engine, in [`ENGINES`] order.
pub struct Bars {
    pub scene: &'static str,
    pub threads: usize,
    pub ms: [f64; 4],
}

const ENGINES: [(&str, RGBColor); 4] = [
    ("sapwood", RGBColor(214, 39, 40)),
    ("rapier2d", RGBColor(31, 119, 180)),
    ("Box2D pairs + collide, recycling on", RGBColor(44, 160, 44)),
    ("Box2D, recycling off", RGBColor(152, 223, 138)),
];

pub fn draw(path: &str, bars: &[Bars]) -> Result<(), Box<dyn Error>> {
    sapwood_support::chart::register_font()?;
    let mut threads: Vec<usize> = bars.iter().map(|b| b.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let panel_h = 420;
    let root = BitMapBackend::new(path, (1400, panel_h * threads.len().max(1) as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let values = bars.iter().flat_map(|b| b.ms).filter(|v| *v > 0.0);
    let lo = values.clone().fold(f64::MAX, f64::min).min(1.0) / 2.0;
    // Room above the tallest bar for the legend.
    let hi = values.fold(0.0, f64::max).max(1.0) * 6.0;
    for (panel, &t) in root.split_evenly((threads.len().max(1), 1)).iter().zip(&threads) {
        let rows: Vec<&Bars> = bars.iter().filter(|b| b.threads == t).collect();
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!(
                    "Box2D's benchmark suite, {t} thread{} — mean ms per step (log scale)",
                    if t == 1 { "" } else { "s" }
                ),
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(28)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..rows.len() as f64, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("ms")
            .y_label_formatter(&|v| if *v >= 1.0 { format!("{v:.0}") } else { format!("{v:.2}") })
            .label_style(("sans-serif", 14))
            .draw()?;
        // Scene names under the middle of each group.
        let label = ("sans-serif", 14).into_text_style(&root).pos(Pos::new(HPos::Center, VPos::Top));
        for (i, r) in rows.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64 + 0.5, lo));
            root.draw(&Text::new(r.scene, (px, py + 6), label.clone()))?;
        }
        // Scene i spans [i, i + 1); engine k's bar is the k-th of equal slots in its middle 80%.
        let width = 0.8 / ENGINES.len() as f64;
        for (k, &(name, color)) in ENGINES.iter().enumerate() {
            chart
                .draw_series(rows.iter().enumerate().map(|(i, r)| {
                    let x0 = i as f64 + 0.1 + k as f64 * width;
                    Rectangle::new([(x0, lo), (x0 + 0.9 * width, r.ms[k].max(lo))], color.filled())
                }))?
                .label(name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
