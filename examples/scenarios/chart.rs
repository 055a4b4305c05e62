//! The chart: one panel per size, grouped bars (one per algorithm) per scenario, log-scale ms,
//! and where the seed table has a number for the size, its SAP's as a black tick across the group.

use std::error::Error;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use sapwood_support::scenes::SeedScenario;

use crate::{Algo, Cell, Outcome};

const COLORS: [RGBColor; 7] = [
    RGBColor(120, 120, 120), // brute
    RGBColor(31, 119, 180),  // sort-sweep
    RGBColor(255, 127, 14),  // grid
    RGBColor(44, 160, 44),   // hash
    RGBColor(148, 103, 189), // quadtree
    RGBColor(140, 86, 75),   // tree
    RGBColor(214, 39, 40),   // sap
];

pub fn draw(
    path: &str,
    sizes: &[usize],
    scenarios: &[SeedScenario],
    algos: &[Algo],
    cells: &[Cell],
    seed_sap_ms: impl Fn(usize, SeedScenario) -> Option<f64>,
) -> Result<(), Box<dyn Error>> {
    sapwood_support::chart::register_font()?;
    let panel_h = 380;
    let root = BitMapBackend::new(path, (1400, panel_h * sizes.len().max(1) as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((sizes.len().max(1), 1));
    for (panel, &n) in panels.iter().zip(sizes) {
        let ms_of = |s: SeedScenario, a: Algo| {
            cells.iter().find(|c| c.size == n && c.scenario == s && c.algo == a).and_then(|c| match c.outcome {
                Outcome::Ran { median_ms, .. } => Some(median_ms.max(1e-4)),
                _ => None,
            })
        };
        let seed: Vec<(usize, f64)> =
            scenarios.iter().enumerate().filter_map(|(i, &s)| seed_sap_ms(n, s).map(|v| (i, v))).collect();
        let values: Vec<f64> = scenarios
            .iter()
            .flat_map(|&s| algos.iter().filter_map(move |&a| ms_of(s, a)))
            .chain(seed.iter().map(|&(_, v)| v))
            .collect();
        let lo = values.iter().copied().fold(f64::MAX, f64::min).min(1.0) / 2.0;
        let hi = values.iter().copied().fold(0.0, f64::max).max(1.0) * 2.0;
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{n} colliders — median ms per world step (log scale)"), ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(28)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..scenarios.len() as f64, (lo..hi).log_scale())?;
        chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("ms").label_style(("sans-serif", 14)).draw()?;
        // Scenario names under the middle of each group (the mesh's own labels would fall on
        // round numbers, not on the groups).
        let label = ("sans-serif", 14).into_text_style(&root).pos(Pos::new(HPos::Center, VPos::Top));
        for (i, s) in scenarios.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64 + 0.5, lo));
            root.draw(&Text::new(s.name(), (px, py + 6), label.clone()))?;
        }
        // Scenario i spans [i, i + 1); algorithm k's bar is the k-th of equal slots in its middle 80%.
        let width = 0.8 / algos.len() as f64;
        for (k, &a) in algos.iter().enumerate() {
            let color = COLORS[Algo::ALL.iter().position(|&x| x == a).unwrap_or(0)];
            let bars: Vec<(usize, f64)> =
                scenarios.iter().enumerate().filter_map(|(i, &s)| ms_of(s, a).map(|v| (i, v))).collect();
            chart
                .draw_series(bars.into_iter().map(|(i, v)| {
                    let x0 = i as f64 + 0.1 + k as f64 * width;
                    Rectangle::new([(x0, lo), (x0 + 0.9 * width, v)], color.filled())
                }))?
                .label(a.name())
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], color.filled()));
        }
        if !seed.is_empty() {
            chart
                .draw_series(seed.into_iter().map(|(i, v)| {
                    PathElement::new(vec![(i as f64 + 0.05, v), (i as f64 + 0.95, v)], BLACK.stroke_width(3))
                }))?
                .label("seed table's SAP (C++, its machine)")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], BLACK.stroke_width(3)));
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
