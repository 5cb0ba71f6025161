//! Charts of sweep results: a metric against an axis (a line per kernel, seed bands), a
//! heatmap over two axes, stacked warp-state bars per point, and the sensitivity
//! tornado. Each chart is first data ([`LineChart`], [`Heatmap`], [`StateBars`],
//! [`Tornado`]), which tests check, then drawn to PNG and SVG with plotters.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::metrics::Cell;
use crate::table::{Table, is_axis};

/// The font every chart's text is drawn in. PNG text needs a registered font (plotters
/// panics without one); it is the one calibrate's report bundles.
const FONT: &[u8] = include_bytes!("../../calibrate/assets/DejaVuSans.ttf");

fn register_font() -> Result<(), String> {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *ONCE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err("cannot register the charts' font".into())
    }
}

/// A column's description with its unit, for axis labels.
pub fn describe(column: &str) -> String {
    let base = column.trim_end_matches("_min").trim_end_matches("_max");
    let known = match base {
        "cycles" => "SM cycles",
        "time_us" => "time on the SM (µs)",
        "kernel_time_us" => "whole-kernel time (µs)",
        "tflops" => "TFLOP/s",
        "gbps" => "GB/s (declared bytes)",
        "hbm_gbps" => "HBM GB/s",
        "ipc" => "IPC (warp-instructions per cycle)",
        "instructions" => "warp-instructions",
        "regs" => "registers per thread",
        "smem" => "shared memory per CTA (bytes)",
        "ctas_per_sm" => "CTAs per SM",
        "occupancy" => "occupancy (share of warp slots)",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    if let Some(p) = base.strip_prefix("set.") {
        let unit = if p.starts_with("lat_") || p.ends_with("_cycles") || p.contains("jitter") {
            " (cycles)"
        } else {
            ""
        };
        return format!("profile {p}{unit}");
    }
    if let Some(p) = base.strip_prefix("param.") {
        return format!("kernel parameter {p}");
    }
    if let Some(u) = base.strip_prefix("unit.") {
        return format!("{u} busy (share of cycles)");
    }
    base.to_string()
}

/// Whether a larger value of the metric is better (throughputs) or worse (times).
pub fn higher_is_better(metric: &str) -> bool {
    matches!(
        metric,
        "tflops" | "gbps" | "ipc" | "hbm_gbps" | "occupancy" | "ctas_per_sm"
    )
}

/// A point of a line: `(x, y, y_min, y_max)`.
pub type LinePoint = (f64, f64, f64, f64);

/// One line: its points `(x, mean, min, max)` in x order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's text.
    pub label: String,
    /// `(x, y, y_min, y_max)`; min and max are y where there is no band.
    pub points: Vec<LinePoint>,
}

/// A metric against an axis, a line per value of the `by` column (and of any other axis
/// that varies).
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// The title.
    pub title: String,
    /// The x column.
    pub x: String,
    /// The metric.
    pub y: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Comparisons at each x: which line is best and whether its lead is beyond the
    /// seeds' band.
    pub notes: Vec<String>,
}

fn num(c: &Cell) -> Option<f64> {
    match c {
        Cell::Int(i) => Some(*i as f64),
        Cell::Float(f) => Some(*f),
        _ => None,
    }
}

/// The data of a line chart.
pub fn line_chart(t: &Table, x: &str, y: &str, by: &str, title: &str) -> Result<LineChart, String> {
    let xi = t.column(x)?;
    let yi = t.column(y)?;
    let bi = t.column(by)?;
    let x = t.columns[xi].clone();
    let y = t.columns[yi].clone();
    let lo = t.column(&format!("{y}_min")).ok();
    let hi = t.column(&format!("{y}_max")).ok();
    // Other axes that vary split the lines further.
    let others: Vec<usize> = t
        .varying_axes()
        .into_iter()
        .filter(|&i| i != xi && i != bi)
        .collect();
    let mut series: Vec<Series> = Vec::new();
    for r in &t.rows {
        let (Some(xv), Some(yv)) = (num(&r[xi]), num(&r[yi])) else {
            continue;
        };
        let mut label = r[bi].label();
        for &o in &others {
            label.push_str(&format!(" {}={}", short(&t.columns[o]), r[o].label()));
        }
        let lo = lo.and_then(|i| num(&r[i])).unwrap_or(yv);
        let hi = hi.and_then(|i| num(&r[i])).unwrap_or(yv);
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push((xv, yv, lo, hi)),
            None => series.push(Series {
                label,
                points: vec![(xv, yv, lo, hi)],
            }),
        }
    }
    if series.is_empty() {
        return Err(format!(
            "no row has numbers in both `{x}` and `{y}` (failed points, or a text column?)"
        ));
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let notes = compare_at_each_x(&series, higher_is_better(&y));
    Ok(LineChart {
        title: title.to_string(),
        x,
        y,
        series,
        notes,
    })
}

/// At each x two lines or more share: the best, the runner-up, and whether the gap is
/// beyond the seeds' band (the best's worst seed still beats the runner-up's best).
fn compare_at_each_x(series: &[Series], higher_better: bool) -> Vec<String> {
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut notes = Vec::new();
    for x in xs {
        let mut at: Vec<(&str, LinePoint)> = series
            .iter()
            .filter_map(|s| {
                s.points
                    .iter()
                    .find(|p| p.0 == x)
                    .map(|p| (s.label.as_str(), *p))
            })
            .collect();
        if at.len() < 2 {
            continue;
        }
        at.sort_by(|a, b| {
            let o = a.1.1.total_cmp(&b.1.1);
            if higher_better { o.reverse() } else { o }
        });
        let (best, b) = at[0];
        let (next, n) = at[1];
        let clear = if higher_better { b.2 > n.3 } else { b.3 < n.2 };
        // Said as the better line's lead: a time's share below, a rate's above, and
        // the ratio either way.
        let gap = (b.1 - n.1).abs() / n.1.abs().max(f64::MIN_POSITIVE) * 100.0;
        let ratio = if higher_better { b.1 / n.1 } else { n.1 / b.1 };
        notes.push(format!(
            "at {}: {best} best, {gap:.1}% {} {next} ({ratio:.2}x){}",
            fmt_num(x),
            if higher_better { "above" } else { "below" },
            if clear {
                ""
            } else {
                " (within the seeds' band: not a difference)"
            }
        ));
    }
    notes
}

fn short(column: &str) -> &str {
    column
        .strip_prefix("param.")
        .or_else(|| column.strip_prefix("set."))
        .unwrap_or(column)
}

/// A metric over two axes; a panel per value of `by`.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    /// The title.
    pub title: String,
    /// The x column.
    pub x: String,
    /// The y column.
    pub y: String,
    /// The metric.
    pub z: String,
    /// The x values, ascending.
    pub xs: Vec<f64>,
    /// The y values, ascending.
    pub ys: Vec<f64>,
    /// Each panel: its label and values `[y][x]` (None where no point ran).
    pub panels: Vec<(String, Vec<Vec<Option<f64>>>)>,
}

/// The data of a heatmap. Several rows in one cell (a third axis varying) are averaged.
pub fn heatmap(
    t: &Table,
    x: &str,
    y: &str,
    z: &str,
    by: &str,
    title: &str,
) -> Result<Heatmap, String> {
    let (xi, yi, zi, bi) = (t.column(x)?, t.column(y)?, t.column(z)?, t.column(by)?);
    // Only rows with a value: a failed point adds no empty column.
    let ok = |r: &&Vec<Cell>| num(&r[zi]).is_some();
    let mut xs: Vec<f64> = t
        .rows
        .iter()
        .filter(ok)
        .filter_map(|r| num(&r[xi]))
        .collect();
    let mut ys: Vec<f64> = t
        .rows
        .iter()
        .filter(ok)
        .filter_map(|r| num(&r[yi]))
        .collect();
    for v in [&mut xs, &mut ys] {
        v.sort_by(f64::total_cmp);
        v.dedup();
    }
    // Per panel, per (x, y) cell: the sum and count of values.
    type Cells = BTreeMap<(usize, usize), (f64, u32)>;
    let mut sums: BTreeMap<String, Cells> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for r in &t.rows {
        let (Some(xv), Some(yv), Some(zv)) = (num(&r[xi]), num(&r[yi]), num(&r[zi])) else {
            continue;
        };
        let label = r[bi].label();
        if !order.contains(&label) {
            order.push(label.clone());
        }
        let cx = xs.iter().position(|&v| v == xv).expect("collected above");
        let cy = ys.iter().position(|&v| v == yv).expect("collected above");
        let e = sums.entry(label).or_default().entry((cx, cy)).or_default();
        e.0 += zv;
        e.1 += 1;
    }
    if order.is_empty() {
        return Err(format!("no row has numbers in `{x}`, `{y}` and `{z}`"));
    }
    let panels = order
        .into_iter()
        .map(|label| {
            let s = &sums[&label];
            let grid = (0..ys.len())
                .map(|cy| {
                    (0..xs.len())
                        .map(|cx| s.get(&(cx, cy)).map(|(v, n)| v / f64::from(*n)))
                        .collect()
                })
                .collect();
            (label, grid)
        })
        .collect();
    Ok(Heatmap {
        title: title.to_string(),
        x: t.columns[xi].clone(),
        y: t.columns[yi].clone(),
        z: t.columns[zi].clone(),
        xs,
        ys,
        panels,
    })
}

/// Warp-state shares per point, stacked.
#[derive(Clone, Debug, PartialEq)]
pub struct StateBars {
    /// The title.
    pub title: String,
    /// The states drawn (those above 1% somewhere), then `other`.
    pub states: Vec<String>,
    /// Each bar: the point's label and its share of each state (in `states`' order).
    pub bars: Vec<(String, Vec<f64>)>,
}

/// The data of stacked warp-state bars: one bar per successful row (at most 40), the
/// states of all warps (`state.*`, or one role's with `role`).
pub fn state_bars(t: &Table, role: Option<&str>, title: &str) -> Result<StateBars, String> {
    let prefix = match role {
        Some(r) => format!("role.{r}."),
        None => "state.".to_string(),
    };
    let cols: Vec<usize> = (0..t.columns.len())
        .filter(|&i| t.columns[i].starts_with(&prefix))
        .collect();
    if cols.is_empty() {
        return Err(format!("the results have no `{prefix}*` columns"));
    }
    let axes = t.varying_axes();
    let rows: Vec<&Vec<Cell>> = t
        .rows
        .iter()
        .filter(|r| cols.iter().any(|&c| num(&r[c]).is_some()))
        .take(40)
        .collect();
    let shown: Vec<usize> = cols
        .iter()
        .copied()
        .filter(|&c| rows.iter().any(|r| num(&r[c]).unwrap_or(0.0) >= 0.01))
        .collect();
    let mut states: Vec<String> = shown
        .iter()
        .map(|&c| t.columns[c][prefix.len()..].to_string())
        .collect();
    states.push("other".into());
    let bars = rows
        .iter()
        .map(|r| {
            let label: Vec<String> = axes
                .iter()
                .map(|&a| match t.columns[a].as_str() {
                    "kernel" | "profile" | "policy" => r[a].label(),
                    c => format!("{}={}", short(c), r[a].label()),
                })
                .collect();
            let mut v: Vec<f64> = shown.iter().map(|&c| num(&r[c]).unwrap_or(0.0)).collect();
            let total: f64 = cols.iter().map(|&c| num(&r[c]).unwrap_or(0.0)).sum();
            v.push((total - v.iter().sum::<f64>()).max(0.0));
            (label.join(" "), v)
        })
        .collect();
    Ok(StateBars {
        title: title.to_string(),
        states,
        bars,
    })
}

/// Each parameter's effect on a metric when moved down and up.
#[derive(Clone, Debug, PartialEq)]
pub struct Tornado {
    /// The title.
    pub title: String,
    /// The metric's description.
    pub metric: String,
    /// `(parameter, change down %, change up %)`, largest effect first.
    pub rows: Vec<(String, f64, f64)>,
}

const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

type Res = Result<(), String>;

fn e<E: std::fmt::Display>(x: E) -> String {
    x.to_string()
}

fn pad(lo: f64, hi: f64) -> (f64, f64) {
    let span = (hi - lo).abs().max(hi.abs() * 0.05).max(1e-9);
    (lo - span * 0.05, hi + span * 0.05)
}

fn draw_lines<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &LineChart) -> Res
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let pts = c.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in pts {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
        y0 = y0.min(p.2);
        y1 = y1.max(p.3);
    }
    let (x0, x1) = pad(x0, x1);
    let (y0, y1) = pad(y0, y1);
    let mut ch = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    ch.configure_mesh()
        .x_desc(describe(&c.x))
        .y_desc(describe(&c.y))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(e)?;
    for (i, s) in c.series.iter().enumerate() {
        let col = color(i);
        if s.points.iter().any(|p| p.2 != p.3) {
            let mut band: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0, p.3)).collect();
            band.extend(s.points.iter().rev().map(|p| (p.0, p.2)));
            ch.draw_series(std::iter::once(Polygon::new(band, col.mix(0.18))))
                .map_err(e)?;
        }
        ch.draw_series(LineSeries::new(
            s.points.iter().map(|p| (p.0, p.1)),
            col.stroke_width(2),
        ))
        .map_err(e)?
        .label(&s.label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
        ch.draw_series(
            s.points
                .iter()
                .map(|p| Circle::new((p.0, p.1), 3, col.filled())),
        )
        .map_err(e)?;
    }
    ch.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// A colour from a value in 0..=1 (dark blue through green to yellow, as viridis).
fn ramp(v: f64) -> RGBColor {
    let stops = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let v = v.clamp(0.0, 1.0) * (stops.len() - 1) as f64;
    let i = (v.floor() as usize).min(stops.len() - 2);
    let f = v - i as f64;
    let (a, b) = (stops[i], stops[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn draw_heatmap<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, h: &Heatmap) -> Res
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let root = root
        .titled(
            &format!("{} ({})", h.title, describe(&h.z)),
            ("sans-serif", 22),
        )
        .map_err(e)?;
    let vals: Vec<f64> = h
        .panels
        .iter()
        .flat_map(|p| p.1.iter().flatten().flatten().copied())
        .collect();
    let lo = vals.iter().copied().fold(f64::MAX, f64::min);
    let hi = vals.iter().copied().fold(f64::MIN, f64::max);
    let areas = root.split_evenly((1, h.panels.len()));
    for (area, (label, grid)) in areas.iter().zip(&h.panels) {
        let (nx, ny) = (h.xs.len() as f64, h.ys.len() as f64);
        let mut ch = ChartBuilder::on(area)
            .caption(label, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5..nx - 0.5, -0.5..ny - 0.5)
            .map_err(e)?;
        // Cells sit at whole coordinates; a label is drawn only there.
        let at = |vals: &[f64], v: f64| -> String {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < vals.len() {
                fmt_num(vals[i as usize])
            } else {
                String::new()
            }
        };
        let (xs, ys) = (h.xs.clone(), h.ys.clone());
        let fx = move |v: &f64| at(&xs, *v);
        let fy = move |v: &f64| at(&ys, *v);
        ch.configure_mesh()
            .disable_mesh()
            .x_desc(describe(&h.x))
            .y_desc(describe(&h.y))
            .x_labels(4 * h.xs.len() + 1)
            .y_labels(4 * h.ys.len() + 1)
            .x_label_formatter(&fx)
            .y_label_formatter(&fy)
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(e)?;
        for (cy, row) in grid.iter().enumerate() {
            for (cx, v) in row.iter().enumerate() {
                let Some(v) = v else { continue };
                let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
                let (x, y) = (cx as f64, cy as f64);
                ch.draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                    ramp(t).filled(),
                )))
                .map_err(e)?;
                if h.xs.len() * h.ys.len() <= 100 {
                    let text_col = if t > 0.6 { BLACK } else { WHITE };
                    let style = ("sans-serif", 12)
                        .into_font()
                        .color(&text_col)
                        .pos(Pos::new(HPos::Center, VPos::Center));
                    ch.draw_series(std::iter::once(Text::new(fmt_num(*v), (x, y), style)))
                        .map_err(e)?;
                }
            }
        }
    }
    root.present().map_err(e)
}

fn draw_state_bars<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, b: &StateBars) -> Res
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let n = b.bars.len();
    // The first point at the top.
    let labels: Vec<String> = b.bars.iter().rev().map(|x| x.0.clone()).collect();
    let fy = move |i: &usize| labels.get(*i).cloned().unwrap_or_default();
    let mut ch = ChartBuilder::on(&root)
        .caption(&b.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(300)
        .build_cartesian_2d(0.0..1.0, 0..n)
        .map_err(e)?;
    ch.configure_mesh()
        .disable_y_mesh()
        .x_desc("share of warp-cycles")
        .y_labels(n + 1)
        .y_label_formatter(&fy)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    for (si, state) in b.states.iter().enumerate() {
        let col = if state == "other" {
            RGBColor(200, 200, 200)
        } else {
            color(si)
        };
        ch.draw_series(b.bars.iter().rev().enumerate().map(|(bi, (_, v))| {
            let start: f64 = v[..si].iter().sum();
            Rectangle::new([(start, bi), (start + v[si], bi + 1)], col.filled())
        }))
        .map_err(e)?
        .label(state.as_str())
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], col.filled()));
    }
    ch.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

fn draw_tornado<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, t: &Tornado) -> Res
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let n = t.rows.len().max(1);
    let m = t
        .rows
        .iter()
        .flat_map(|r| [r.1.abs(), r.2.abs()])
        .fold(0.1, f64::max)
        * 1.15;
    // Largest effect at the top.
    let labels: Vec<String> = t.rows.iter().rev().map(|r| r.0.clone()).collect();
    let fy = move |i: &usize| labels.get(*i).cloned().unwrap_or_default();
    let mut ch = ChartBuilder::on(&root)
        .caption(&t.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(200)
        .build_cartesian_2d(-m..m, 0..n)
        .map_err(e)?;
    ch.configure_mesh()
        .disable_y_mesh()
        .x_desc(format!("change of {} (%)", t.metric))
        .y_labels(n + 1)
        .y_label_formatter(&fy)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    let down = RGBColor(31, 119, 180);
    let up = RGBColor(214, 39, 40);
    for (k, (col, pick, name)) in [
        (down, 1usize, "parameter moved down"),
        (up, 2usize, "parameter moved up"),
    ]
    .into_iter()
    .enumerate()
    {
        let _ = k;
        ch.draw_series(t.rows.iter().rev().enumerate().map(|(i, r)| {
            let v = if pick == 1 { r.1 } else { r.2 };
            Rectangle::new([(0.0, i), (v, i + 1)], col.mix(0.8).filled())
        }))
        .map_err(e)?
        .label(name)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], col.filled()));
    }
    ch.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// A chart's data, ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// A metric against an axis.
    Lines(LineChart),
    /// A metric over two axes.
    Heatmap(Heatmap),
    /// Warp-state shares per point.
    States(StateBars),
    /// A sensitivity tornado.
    Tornado(Tornado),
}

/// Draws a chart to `stem.png` and `stem.svg`; returns the two paths. Each is drawn
/// to a temporary beside it and renamed when complete (`outfile`), so a failure leaves
/// the old drawing or none; an existing file is replaced only with `overwrite`.
pub fn draw(chart: &Chart, stem: &Path, overwrite: bool) -> Result<Vec<PathBuf>, String> {
    register_font()?;
    let size = match chart {
        Chart::Lines(_) => (960, 600),
        Chart::Heatmap(h) => ((480 * h.panels.len() as u32).clamp(640, 1920), 560),
        Chart::States(b) => (1100, (160 + 22 * b.bars.len() as u32).max(420)),
        Chart::Tornado(t) => (960, (160 + 28 * t.rows.len() as u32).max(400)),
    };
    let mut written = Vec::new();
    for ext in ["svg", "png"] {
        let mut p = stem.as_os_str().to_owned();
        p.push(format!(".{ext}"));
        let path = PathBuf::from(p);
        let at = |m: String| format!("{}: {m}", path.display());
        macro_rules! go {
            ($root:expr) => {
                match chart {
                    Chart::Lines(c) => draw_lines($root, c),
                    Chart::Heatmap(h) => draw_heatmap($root, h),
                    Chart::States(b) => draw_state_bars($root, b),
                    Chart::Tornado(t) => draw_tornado($root, t),
                }
            };
        }
        outfile::write_with(&path, overwrite, |tmp| -> Result<(), String> {
            if ext == "svg" {
                go!(SVGBackend::new(tmp, size).into_drawing_area()).map_err(at)
            } else {
                go!(BitMapBackend::new(tmp, size).into_drawing_area()).map_err(at)
            }
        })?;
        written.push(path);
    }
    Ok(written)
}

/// The default chart of a results table: `metric` (by default TFLOP/s where the kernels
/// declare flops, else the time) against the first numeric axis that varies, a line per
/// value of `by`.
pub fn default_line(t: &Table, metric: Option<&str>, by: &str) -> Result<LineChart, String> {
    let x = t
        .varying_axes()
        .into_iter()
        .find(|&i| is_axis(&t.columns[i]) && t.rows.iter().any(|r| num(&r[i]).is_some()))
        .ok_or("no numeric axis varies in these results; name one with --x")?;
    let metric = metric.unwrap_or_else(|| {
        let has_flops = t
            .column("tflops")
            .is_ok_and(|c| t.rows.iter().any(|r| num(&r[c]).is_some()));
        if has_flops { "tflops" } else { "time_us" }
    });
    line_chart(t, &t.columns[x].clone(), metric, by, "")
}

/// A chart a spec (or `smsim plot`'s options) describes, built from results, with the
/// name its files take (`name` or one made from its columns).
pub fn from_spec(
    t: &Table,
    c: &crate::spec::ChartSpec,
    spec_title: Option<&str>,
) -> Result<(Chart, String), String> {
    let kind = c.kind.as_deref().unwrap_or("line");
    let by = c.by.as_deref().unwrap_or("kernel");
    let base = spec_title.unwrap_or("smsim sweep");
    let title = |what: String| c.title.clone().unwrap_or(format!("{base}: {what}"));
    let (chart, name) = match kind {
        "line" => {
            let l = match &c.x {
                Some(x) => line_chart(t, x, c.y.as_deref().unwrap_or("time_us"), by, "")?,
                None => default_line(t, c.y.as_deref(), by)?,
            };
            let name = format!("{}-vs-{}", short(&l.y), short(&l.x));
            let l = LineChart {
                title: title(format!("{} against {}", short(&l.y), short(&l.x))),
                ..l
            };
            (Chart::Lines(l), name)
        }
        "heatmap" => {
            let (Some(x), Some(y)) = (&c.x, &c.y) else {
                return Err("a heatmap needs x and y (two axes) and z (a metric)".into());
            };
            let z = c.z.as_deref().unwrap_or("time_us");
            let h = heatmap(t, x, y, z, by, "")?;
            let name = format!("{}-over-{}-{}", short(&h.z), short(&h.x), short(&h.y));
            let h = Heatmap {
                title: title(format!(
                    "{} over {} and {}",
                    short(&h.z),
                    short(&h.x),
                    short(&h.y)
                )),
                ..h
            };
            (Chart::Heatmap(h), name)
        }
        "states" => {
            let role = c.y.as_deref();
            let b = state_bars(t, role, "")?;
            let name = match role {
                Some(r) => format!("states-{r}"),
                None => "states".to_string(),
            };
            let what = match role {
                Some(r) => format!("warp states of role {r}"),
                None => "warp states of all warps".to_string(),
            };
            (
                Chart::States(StateBars {
                    title: title(what),
                    ..b
                }),
                name,
            )
        }
        other => {
            return Err(format!(
                "no chart kind `{other}`; the kinds are line, heatmap, states"
            ));
        }
    };
    Ok((chart, c.name.clone().unwrap_or(name)))
}

/// The chart's data as text: a table of the series (what the picture shows, for a
/// terminal and for review).
pub fn describe_chart(chart: &Chart) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    match chart {
        Chart::Lines(l) => {
            let _ = writeln!(s, "{}", l.title);
            for se in &l.series {
                let _ = writeln!(s, "  {}:", se.label);
                for p in &se.points {
                    let band = if p.2 != p.3 {
                        format!("  (seeds {} .. {})", fmt_num(p.2), fmt_num(p.3))
                    } else {
                        String::new()
                    };
                    let _ = writeln!(
                        s,
                        "    {} = {:<10} {} {}{band}",
                        short(&l.x),
                        fmt_num(p.0),
                        short(&l.y),
                        fmt_num(p.1)
                    );
                }
            }
            for n in &l.notes {
                let _ = writeln!(s, "  {n}");
            }
        }
        Chart::Heatmap(h) => {
            let _ = writeln!(
                s,
                "{} ({} rows: {}, columns: {})",
                h.title,
                short(&h.z),
                short(&h.y),
                short(&h.x)
            );
            for (label, grid) in &h.panels {
                let _ = writeln!(s, "  {label}:");
                let head: Vec<String> =
                    h.xs.iter()
                        .map(|x| format!("{:>10}", fmt_num(*x)))
                        .collect();
                let _ = writeln!(s, "    {:>10} {}", "", head.join(" "));
                for (y, row) in h.ys.iter().zip(grid) {
                    let cells: Vec<String> = row
                        .iter()
                        .map(|v| format!("{:>10}", v.map(fmt_num).unwrap_or_else(|| "-".into())))
                        .collect();
                    let _ = writeln!(s, "    {:>10} {}", fmt_num(*y), cells.join(" "));
                }
            }
        }
        Chart::States(b) => {
            let _ = writeln!(s, "{}", b.title);
            for (label, v) in &b.bars {
                let parts: Vec<String> = b
                    .states
                    .iter()
                    .zip(v)
                    .filter(|x| *x.1 >= 0.005)
                    .map(|(st, x)| format!("{st} {:.1}%", x * 100.0))
                    .collect();
                let _ = writeln!(s, "  {label}: {}", parts.join(", "));
            }
        }
        Chart::Tornado(t) => {
            let _ = writeln!(s, "{}", t.title);
            let _ = writeln!(s, "  {:<28} {:>10} {:>10}", "parameter", "down", "up");
            for (p, d, u) in &t.rows {
                let _ = writeln!(s, "  {p:<28} {d:>+9.2}% {u:>+9.2}%");
            }
        }
    }
    s
}

/// A number for text tables: integers as integers, others to four significant digits.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.4}")
    }
}
