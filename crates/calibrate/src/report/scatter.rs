//! The report's scatter plot of simulated against measured (SVG and PNG).

use std::path::Path;

use super::{Report, Row};

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Draws `scatter.svg` and `scatter.png` into `dir`, each through a temporary file.
pub(super) fn scatter(r: &Report, dir: &Path) -> Result<(), String> {
    use plotters::prelude::*;
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "cannot register the font")?;
    let pts = |rows: &[Row]| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|x| x.measured > 0.0 && x.simulated > 0.0)
            .map(|x| (x.measured, x.simulated))
            .collect()
    };
    let micro = pts(&r.micro);
    let val = pts(&r.validation);
    let all: Vec<f64> = micro.iter().chain(&val).flat_map(|p| [p.0, p.1]).collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min) * 0.7;
    let hi = all.iter().copied().fold(0.0, f64::max) * 1.4;
    macro_rules! draw {
        ($root:expr) => {{
            let root = $root;
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let mut c = ChartBuilder::on(&root)
                .caption(
                    "smsim vs H100: predicted against measured",
                    ("sans-serif", 24),
                )
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
                .map_err(|e| e.to_string())?;
            c.configure_mesh()
                .x_desc("measured (benchmark's unit: cycles, B/clk, per clk, MHz)")
                .y_desc("simulated")
                .label_style(("sans-serif", 14))
                .draw()
                .map_err(|e| e.to_string())?;
            c.draw_series(LineSeries::new(vec![(lo, lo), (hi, hi)], &BLACK))
                .map_err(|e| e.to_string())?
                .label("y = x");
            for f in [0.9, 1.1] {
                c.draw_series(LineSeries::new(
                    vec![(lo, lo * f), (hi, hi * f)],
                    &RGBColor(180, 180, 180),
                ))
                .map_err(|e| e.to_string())?;
            }
            c.draw_series(
                micro
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 4, BLUE.filled())),
            )
            .map_err(|e| e.to_string())?
            .label(format!(
                "microbenchmarks (MAPE {:.1}%)",
                r.micro_overall.mape_pct
            ))
            .legend(|(x, y)| Circle::new((x, y), 4, BLUE.filled()));
            c.draw_series(
                val.iter()
                    .map(|&(x, y)| TriangleMarker::new((x, y), 5, RED.filled())),
            )
            .map_err(|e| e.to_string())?
            .label(format!(
                "validation, latency-hiding (MAPE {:.1}%)",
                r.validation_overall.mape_pct
            ))
            .legend(|(x, y)| TriangleMarker::new((x, y), 5, RED.filled()));
            c.configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 14))
                .draw()
                .map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }};
    }
    // (Each drawn to a temporary renamed when complete: a failure keeps the old one.)
    outfile::write_with(
        &dir.join("scatter.svg"),
        true,
        |tmp| -> Result<(), String> {
            draw!(SVGBackend::new(tmp, (1000, 800)).into_drawing_area());
            Ok(())
        },
    )?;
    outfile::write_with(
        &dir.join("scatter.png"),
        true,
        |tmp| -> Result<(), String> {
            draw!(BitMapBackend::new(tmp, (1000, 800)).into_drawing_area());
            Ok(())
        },
    )
}
