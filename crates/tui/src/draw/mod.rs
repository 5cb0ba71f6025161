//! Drawing a frame: title, ruler, timeline rows, legend, detail and summary panes
//! (`panes`), status line, help. Cells are written straight into ratatui's buffer;
//! every cell's content comes from the timeline's window queries, so a frame costs the
//! same at any zoom and never scans the run.

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use sim_core::WarpState;
use sim_core::state::STATE_COUNT;
use sim_core::timeline::SyncKind;

mod panes;

pub use panes::wrap;
use panes::{detail, summary};

use crate::app::{App, Hits};
use crate::model::{Outcome, ProgressNow, RunData};
use crate::rows::RowKind;
use crate::view::View;

/// Width of the row labels.
pub const LABEL_W: u16 = 20;

/// The colour of a state.
pub fn state_color(s: WarpState) -> Color {
    use WarpState::*;
    match s {
        Selected => Color::Green,
        NotSelected => Color::LightGreen,
        Wait => Color::Yellow,
        LongScoreboard => Color::Red,
        ShortScoreboard => Color::LightRed,
        MioThrottle => Color::Magenta,
        LgThrottle => Color::LightMagenta,
        TexThrottle => Color::DarkGray,
        MathPipeThrottle => Color::Cyan,
        DispatchStall => Color::LightCyan,
        Barrier => Color::Blue,
        Membar => Color::LightBlue,
        BranchResolving => Color::DarkGray,
        NoInstruction => Color::DarkGray,
        Sleeping => Color::Indexed(99),
        Drain => Color::Gray,
        Gmma => Color::LightYellow,
        Misc => Color::White,
        ImcMiss => Color::DarkGray,
    }
}

/// The letter of a state where there is no colour (NO_COLOR, `--render`). Lowercase
/// and punctuation only: uppercase letters are issues (the mnemonic's first letter).
pub fn state_glyph(s: WarpState) -> char {
    use WarpState::*;
    match s {
        Selected => '#',
        NotSelected => '+',
        Wait => 'w',
        LongScoreboard => 'l',
        ShortScoreboard => 's',
        MioThrottle => 'm',
        LgThrottle => 'q',
        TexThrottle => 't',
        MathPipeThrottle => 'p',
        DispatchStall => 'd',
        Barrier => 'b',
        Membar => 'f',
        BranchResolving => 'r',
        NoInstruction => 'i',
        Sleeping => 'z',
        Drain => '.',
        Gmma => 'g',
        Misc => '?',
        ImcMiss => 'c',
    }
}

fn density(frac: f64) -> char {
    if frac <= 0.0 {
        ' '
    } else if frac < 0.25 {
        '░'
    } else if frac < 0.5 {
        '▒'
    } else if frac < 0.75 {
        '▓'
    } else {
        '█'
    }
}

fn dominant(states: &[u64; STATE_COUNT]) -> Option<(WarpState, u64)> {
    let (i, &v) = states
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))?;
    (v > 0).then(|| (WarpState::ALL[i], v))
}

pub(crate) struct Painter<'b> {
    buf: &'b mut Buffer,
    color: bool,
}

impl Painter<'_> {
    fn style(&self, s: Style) -> Style {
        if self.color { s } else { Style::default() }
    }
    fn text(&mut self, x: u16, y: u16, w: u16, s: &str, style: Style) {
        let st = self.style(style);
        self.buf.set_stringn(x, y, s, w as usize, st);
    }
    fn cell(&mut self, x: u16, y: u16, c: char, style: Style) {
        let st = self.style(style);
        let area = self.buf.area;
        if x < area.right() && y < area.bottom() {
            self.buf[(x, y)].set_char(c).set_style(st);
        }
    }
}

/// Draws the whole frame into `buf` over `area`, and records where things are for the
/// mouse.
pub fn draw(app: &mut App, area: Rect, buf: &mut Buffer) {
    let (w, h) = (area.width, area.height);
    if w < 40 || h < 12 {
        buf.set_stringn(
            area.x,
            area.y,
            "terminal too small: smsim tui needs at least 40x12",
            w as usize,
            Style::default(),
        );
        return;
    }
    let cols = (w - LABEL_W) as u64;
    app.view.set_cols(cols);
    let detail_h = (h / 3).clamp(7, 14);
    let rows_y = area.y + 2;
    let rows_h = h - 2 - 1 - 1 - detail_h;
    app.hits = Hits {
        cells_x: area.x + LABEL_W,
        rows_y,
        rows_h,
        first_row: app.scroll,
    };
    app.keep_selection_visible();
    app.hits.first_row = app.scroll;
    let color = app.color;
    let mut p = Painter { buf, color };
    title(app, &mut p, area);
    ruler(app, &mut p, area.x, area.y + 1, w);
    let mut cache = Columns::default();
    for i in 0..rows_h as usize {
        let Some(row) = app.rows.get(app.scroll + i) else {
            break;
        };
        let y = rows_y + i as u16;
        let sel = app.scroll + i == app.selected;
        draw_row(app, &mut p, &mut cache, row, area.x, y, w, sel);
    }
    let legend_y = rows_y + rows_h;
    legend(app, &mut p, area.x, legend_y, w);
    let pane_y = legend_y + 1;
    let wide = w >= 100;
    if wide {
        let half = w / 2;
        detail(app, &mut p, Rect::new(area.x, pane_y, half - 1, detail_h));
        for y in pane_y..pane_y + detail_h {
            p.cell(area.x + half - 1, y, '│', Style::default());
        }
        summary(
            app,
            &mut p,
            Rect::new(area.x + half, pane_y, w - half, detail_h),
        );
    } else if app.show_summary {
        summary(app, &mut p, Rect::new(area.x, pane_y, w, detail_h));
    } else {
        detail(app, &mut p, Rect::new(area.x, pane_y, w, detail_h));
    }
    status(app, &mut p, area.x, area.y + h - 1, w);
    if app.help {
        help(&mut p, area);
    }
}

fn title(app: &App, p: &mut Painter, area: Rect) {
    let r = &app.runs[0];
    let (a, b) = app.view.window();
    let mut s = format!(
        " smsim tui │ {}: {} cycles, {}",
        r.spec.label(),
        r.timeline.end,
        r.outcome.word()
    );
    if let Some(r2) = app.runs.get(1) {
        s.push_str(&format!(
            " │ vs {}: {} cycles, {}",
            r2.spec.label(),
            r2.timeline.end,
            r2.outcome.word()
        ));
    }
    s.push_str(&format!(
        " │ {a}..{} at {}/col │ {} {} seed {}",
        b.min(app.view.end),
        app.view.per_col,
        r.profile_name,
        r.spec.policy.name(),
        r.spec.seed,
    ));
    if let Some(pr) = running_now(app) {
        // A first run still simulating: say so before anything else, so that no one
        // reads the frame as the whole run.
        s = format!(" PARTIAL, {} │{s}", running(pr));
    } else if app.pending.iter().any(|x| x.is_some()) {
        s = format!(" {} │{s}", running(&app.progress.now()));
    }
    let st = Style::default().add_modifier(Modifier::BOLD);
    p.text(area.x, area.y, area.width, &s, st);
}

/// What the frame shown while the first runs simulate says.
#[derive(Clone, Debug)]
pub struct Loading {
    /// The runs' labels ([`crate::model::RunSpec::label`]).
    pub labels: Vec<String>,
    /// Which of them is simulating.
    pub current: usize,
    /// How far it has got.
    pub progress: ProgressNow,
    /// Time since the first started.
    pub elapsed: std::time::Duration,
}

/// The frame shown while the first runs simulate: which run, the cycle reached, CTAs
/// done (with a bar), time taken, and how to quit.
pub fn draw_loading(l: &Loading, color: bool, area: Rect, buf: &mut Buffer) {
    let mut p = Painter { buf, color };
    let (x, w) = (area.x, area.width);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let label = l.labels.get(l.current).map_or("", |s| s.as_str());
    p.text(
        x,
        area.y,
        w,
        &format!(" smsim tui │ simulating {label}"),
        bold,
    );
    let mut y = area.y + 2;
    if l.labels.len() > 1 {
        let s = format!(" run {} of {}: {label}", l.current + 1, l.labels.len());
        p.text(x, y, w, &s, Style::default());
        y += 1;
    }
    let pr = l.progress;
    let of = match (pr.estimate, pr.fraction()) {
        (Some(e), Some(f)) => format!(" of ~{} ({:.0}%)", group(e), (100.0 * f).floor()),
        _ => String::new(),
    };
    let s = if pr.ctas == 0 {
        " starting…".to_string()
    } else {
        format!(
            " cycle {}{of} simulated, {} of {} CTAs done, {:.1} s",
            group(pr.cycle),
            pr.ctas_done,
            pr.ctas,
            l.elapsed.as_secs_f64()
        )
    };
    p.text(x, y, w, &s, Style::default());
    let bar_w = w.saturating_sub(4).min(60);
    if pr.ctas > 0 && bar_w > 0 && y + 1 < area.bottom() {
        let done = (bar_w as u64 * pr.ctas_done as u64 / pr.ctas as u64) as u16;
        p.text(x + 1, y + 1, 1, "[", Style::default());
        for i in 0..bar_w {
            let c = if i < done { '█' } else { '·' };
            p.cell(x + 2 + i, y + 1, c, Style::default().fg(Color::Green));
        }
        p.text(x + 2 + bar_w, y + 1, 1, "]", Style::default());
    }
    if area.height > 1 {
        p.text(
            x,
            area.bottom() - 1,
            w,
            "q, Esc or Ctrl-C stops the simulation and quits",
            Style::default().add_modifier(Modifier::REVERSED),
        );
    }
}

/// A run under way in a few words: `simulating: cycle 1,234,567 of ~5,776,699, 21%,
/// 7/32 CTAs`, the length estimated once its first wave of CTAs is done
/// ([`crate::model::Waves::estimate`]); before that, the cycle and CTAs alone.
pub fn running(p: &ProgressNow) -> String {
    if p.ctas == 0 {
        return "simulating: starting".into();
    }
    match (p.estimate, p.fraction()) {
        (Some(e), Some(f)) => format!(
            "simulating: cycle {} of ~{}, {:.0}%, {}/{} CTAs",
            group(p.cycle),
            group(e),
            (100.0 * f).floor(),
            p.ctas_done,
            p.ctas
        ),
        _ => format!(
            "simulating: cycle {}, {}/{} CTAs",
            group(p.cycle),
            p.ctas_done,
            p.ctas
        ),
    }
}

/// The progress of the first run shown that is still simulating, if any.
fn running_now(app: &App) -> Option<&ProgressNow> {
    app.runs.iter().find_map(|r| match &r.outcome {
        Outcome::Running(pr) => Some(pr),
        _ => None,
    })
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn ruler(app: &App, p: &mut Painter, x: u16, y: u16, w: u16) {
    let v = app.view;
    p.text(
        x,
        y,
        LABEL_W,
        &format!("cursor {}", v.cursor),
        Style::default(),
    );
    let cols = (w - LABEL_W) as u64;
    // Ticks every 10-odd columns, at round cycle numbers where the zoom allows.
    let mut col = 0u64;
    while col < cols {
        let c = v.column(col).0;
        if c >= v.end {
            break;
        }
        let label = format!("|{c}");
        if col + label.len() as u64 > cols {
            break;
        }
        p.text(
            x + LABEL_W + col as u16,
            y,
            label.len() as u16,
            &label,
            Style::default().fg(Color::DarkGray),
        );
        col += (label.len() as u64 + 4).max(12);
    }
    if let Some(cc) = v.col_of(v.cursor) {
        p.cell(
            x + LABEL_W + cc as u16,
            y,
            'v',
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
    }
}

fn stuck_warp(run: &RunData, cta: u32, warp: u32) -> bool {
    match &run.outcome {
        Outcome::Deadlock(s) | Outcome::Watchdog(s) => {
            s.warps.iter().any(|w| w.cta == cta && w.warp == warp)
        }
        _ => false,
    }
}

/// Each warp's cycles per state per column, computed once a frame (a group's row and
/// its warps' rows read the same).
#[derive(Default)]
struct Columns {
    warps: HashMap<(usize, usize), Vec<[u64; STATE_COUNT]>>,
}

impl Columns {
    fn of(&mut self, app: &App, run: usize, warp: usize) -> &[[u64; STATE_COUNT]] {
        self.warps.entry((run, warp)).or_insert_with(|| {
            let v = app.view_for(run);
            app.runs[run].timeline.warps[warp].columns(v.start, v.per_col, v.cols as usize)
        })
    }
}

// One match arm per row kind; each is short, the match is what is long.
#[allow(clippy::too_many_arguments)]
fn draw_row(
    app: &App,
    p: &mut Painter,
    cache: &mut Columns,
    row: &crate::rows::Row,
    x: u16,
    y: u16,
    w: u16,
    sel: bool,
) {
    let run = &app.runs[row.run];
    let t = &run.timeline;
    let v = app.view_for(row.run);
    let cols = (w - LABEL_W) as u64;
    let mark = if sel { '>' } else { ' ' };
    let label = match &row.kind {
        RowKind::Title => format!(
            "{} {}",
            if row.run == 0 { "A" } else { "B" },
            run.spec.label()
        ),
        RowKind::Group {
            cta,
            role,
            warps,
            folded,
        } => format!(
            "{mark}{} c{cta} {} x{}",
            if *folded { '+' } else { '-' },
            run.roles.get(*role as usize).map_or("?", |s| s.as_str()),
            warps.len()
        ),
        RowKind::Warp(i) => {
            let tw = &t.warps[*i];
            let stuck = if stuck_warp(run, tw.id.cta, tw.id.warp) {
                '!'
            } else {
                ' '
            };
            format!(
                "{mark} {stuck}c{} w{:<3} sp{}",
                tw.id.cta, tw.id.warp, tw.subpartition
            )
        }
        RowKind::Units { label, .. } | RowKind::Memory { label, .. } => {
            format!("{mark} {label}")
        }
        RowKind::Sync { mbarrier } => {
            format!(
                "{mark} {}",
                if *mbarrier {
                    "mbar phases"
                } else {
                    "bar releases"
                }
            )
        }
    };
    let lstyle = if sel {
        Style::default().add_modifier(Modifier::REVERSED)
    } else {
        Style::default()
    };
    p.text(
        x,
        y,
        LABEL_W - 1,
        &format!("{label:<w$}", w = LABEL_W as usize - 1),
        lstyle,
    );
    let cx = x + LABEL_W;
    let cursor_col = v.col_of(v.cursor);
    match &row.kind {
        RowKind::Title => {
            let s = format!(
                "{} cycles, {}{}",
                t.end,
                run.outcome.word(),
                if app.normalize && row.run == 1 {
                    " (normalized)"
                } else {
                    ""
                }
            );
            p.text(
                cx,
                y,
                cols as u16,
                &s,
                Style::default().add_modifier(Modifier::BOLD),
            );
        }
        RowKind::Warp(i) => {
            let tw = &t.warps[*i];
            if v.per_col == 1 {
                cycle_cells(run, tw, v, p, cx, y, cols);
            } else {
                for (col, s) in cache.of(app, row.run, *i).iter().enumerate() {
                    state_cell(p, cx + col as u16, y, s, v.per_col);
                }
            }
        }
        RowKind::Group { warps, .. } => {
            let mut sums = vec![[0u64; STATE_COUNT]; cols as usize];
            for &wi in warps {
                for (sum, s) in sums.iter_mut().zip(cache.of(app, row.run, wi)) {
                    for (acc, x) in sum.iter_mut().zip(s) {
                        *acc += x;
                    }
                }
            }
            for (col, s) in sums.iter().enumerate() {
                state_cell(p, cx + col as u16, y, s, v.per_col * warps.len() as u64);
            }
        }
        RowKind::Units { units, lanes, .. } => {
            let mut busy = vec![0u64; cols as usize];
            for &u in units {
                let b = t.units[u].busy_columns(v.start, v.per_col, cols as usize);
                for (acc, x) in busy.iter_mut().zip(b) {
                    *acc += x;
                }
            }
            for (col, b) in busy.iter().enumerate() {
                let f = *b as f64 / (v.per_col * lanes) as f64;
                p.cell(
                    cx + col as u16,
                    y,
                    density(f),
                    Style::default().fg(Color::Cyan),
                );
            }
        }
        RowKind::Memory { levels, .. } => {
            let bytes: Vec<u64> = (0..cols)
                .map(|col| {
                    let (a, b) = v.column(col);
                    levels.iter().map(|&l| t.memory[l].bytes_in(a, b)).sum()
                })
                .collect();
            let max = bytes.iter().copied().max().unwrap_or(0).max(1);
            for (col, &b) in bytes.iter().enumerate() {
                let f = b as f64 / max as f64;
                p.cell(
                    cx + col as u16,
                    y,
                    density(f),
                    Style::default().fg(Color::Red),
                );
            }
        }
        RowKind::Sync { mbarrier } => {
            let (a, b) = v.window();
            for e in t.syncs_in(a, b) {
                let hit = match e.kind {
                    SyncKind::MbarrierPhase { .. } => *mbarrier,
                    SyncKind::BarrierRelease { .. } => !*mbarrier,
                    _ => false,
                };
                if hit && let Some(col) = v.col_of(e.cycle) {
                    p.cell(cx + col as u16, y, '|', Style::default().fg(Color::Blue));
                }
            }
        }
    }
    if let Some(f) = run.frontier() {
        not_simulated(row, t, v, f, p, cx, y, cols);
    }
    if let Some(cc) = cursor_col
        && app.color
    {
        let c = &mut p.buf[(cx + cc as u16, y)];
        c.set_style(c.style().add_modifier(Modifier::REVERSED));
    }
}

/// The glyph of cycles a run still simulating has not reached.
pub const NOT_SIMULATED: char = '·';

/// Marks the columns of a row past `frontier` (a run still simulating) as not
/// simulated yet, where the row has something still to come there: a warp still on
/// the SM (a warp that finished before the frontier is simply gone after it, blank),
/// a group with such a warp, the unit, memory and barrier rows.
#[allow(clippy::too_many_arguments)]
fn not_simulated(
    row: &crate::rows::Row,
    t: &sim_core::timeline::Timeline,
    v: View,
    frontier: u64,
    p: &mut Painter,
    cx: u16,
    y: u16,
    cols: u64,
) {
    let to_come = match &row.kind {
        RowKind::Title => false,
        RowKind::Warp(i) => t.warps[*i].live(),
        RowKind::Group { warps, .. } => warps.iter().any(|&w| t.warps[w].live()),
        RowKind::Units { .. } | RowKind::Memory { .. } | RowKind::Sync { .. } => true,
    };
    if !to_come {
        return;
    }
    for col in 0..cols {
        if v.column(col).0 >= frontier {
            p.cell(
                cx + col as u16,
                y,
                NOT_SIMULATED,
                Style::default().fg(Color::DarkGray),
            );
        }
    }
}

/// A coarse cell: the dominant state's colour (or letter) with its share as density.
fn state_cell(p: &mut Painter, x: u16, y: u16, s: &[u64; STATE_COUNT], capacity: u64) {
    let Some((st, v)) = dominant(s) else {
        p.cell(x, y, ' ', Style::default());
        return;
    };
    if p.color {
        let f = v as f64 / capacity.max(1) as f64;
        p.cell(x, y, density(f), Style::default().fg(state_color(st)));
    } else {
        p.cell(x, y, state_glyph(st), Style::default());
    }
}

/// One cycle per column: each issue shows its mnemonic (in colour: written on over the
/// following cycles' colours; without colour: its first letter, uppercase).
fn cycle_cells(
    run: &RunData,
    tw: &sim_core::timeline::WarpTimeline,
    v: View,
    p: &mut Painter,
    cx: u16,
    y: u16,
    cols: u64,
) {
    let mut mnemonic: Vec<char> = Vec::new();
    let mut k = 0;
    for col in 0..cols {
        let c = v.column(col).0;
        let Some(iv) = tw.at(c) else {
            p.cell(cx + col as u16, y, ' ', Style::default());
            mnemonic.clear();
            continue;
        };
        let st = iv.state;
        if st == WarpState::Selected {
            mnemonic = run.mnemonic(tw.role, iv.pc).chars().collect();
            k = 0;
        }
        let x = cx + col as u16;
        if p.color {
            let ch = mnemonic.get(k).copied().unwrap_or(' ');
            k += 1;
            p.cell(
                x,
                y,
                ch,
                Style::default().bg(state_color(st)).fg(Color::Black),
            );
        } else if st == WarpState::Selected {
            let ch = mnemonic
                .first()
                .copied()
                .unwrap_or('#')
                .to_ascii_uppercase();
            p.cell(x, y, ch, Style::default());
        } else {
            p.cell(x, y, state_glyph(st), Style::default());
        }
    }
}

fn legend(app: &App, p: &mut Painter, x: u16, y: u16, w: u16) {
    // The states present in the window, over every run's warps.
    let mut present = [0u64; STATE_COUNT];
    for (i, r) in app.runs.iter().enumerate() {
        let (a, b) = app.view_for(i).window();
        for tw in &r.timeline.warps {
            for (acc, v) in present.iter_mut().zip(tw.states_in(a, b)) {
                *acc += v;
            }
        }
    }
    let mut cx = x;
    let right = x + w;
    // Cycles a run still simulating has not reached, where the window shows some.
    let ahead = app.frontier().is_some_and(|f| f < app.view.window().1);
    if ahead {
        let item = format!("{NOT_SIMULATED} not simulated yet  ");
        p.text(cx, y, w, &item, Style::default());
        cx += item.chars().count() as u16;
    }
    let start = if app.color { "" } else { "issue=MNEMONIC " };
    p.text(cx, y, right.saturating_sub(cx), start, Style::default());
    cx += start.len() as u16;
    for s in WarpState::ALL {
        if present[s.index()] == 0 {
            continue;
        }
        let item = format!(" {}", s.name());
        if cx + 2 + item.len() as u16 > right {
            break;
        }
        let (g, st) = if app.color {
            ('█', Style::default().fg(state_color(s)))
        } else {
            (state_glyph(s), Style::default())
        };
        p.cell(cx, y, g, st);
        p.text(cx + 1, y, item.len() as u16, &item, Style::default());
        cx += 2 + item.len() as u16;
    }
}

fn status(app: &App, p: &mut Painter, x: u16, y: u16, w: u16) {
    let s = if let Some(prompt) = &app.prompt {
        format!(
            ":{prompt}_   (param K=V, set NAME=V, policy NAME, seed N; Enter runs, Esc cancels)"
        )
    } else if let Some(pr) = running_now(app) {
        // The run's progress first, whatever else the line says: no figure of the
        // frame reads as final while it is there.
        if app.message.is_empty() {
            format!("{}; what-ifs once it ends; q quits", running(pr))
        } else {
            format!("{} │ {}", running(pr), app.message)
        }
    } else if !app.message.is_empty() {
        app.message.clone()
    } else {
        format!(
            "? help  q quit  ←→ cursor  +- zoom  ]/[ jump to {}  : what-if",
            app.jump_label()
        )
    };
    p.text(
        x,
        y,
        w,
        &s,
        Style::default().add_modifier(Modifier::REVERSED),
    );
}

/// Every key, for the help overlay and the README.
pub const HELP: &[(&str, &str)] = &[
    ("← → h l", "move the cursor one column"),
    ("shift+← → H L", "pan a quarter of the window"),
    ("↑ ↓ j k PgUp PgDn", "select a row"),
    ("+ = i / - o", "zoom in / out at the cursor"),
    ("0 / z", "whole run / one cycle per column"),
    ("Home End", "cursor to the run's start / end"),
    (
        "Enter space",
        "fold a CTA's role; open a pipe per sub-partition",
    ),
    ("f", "fold or unfold every group"),
    ("u", "show or hide units, memory and barrier rows"),
    ("m b", "] [ jump to mbarrier phases / barrier releases"),
    ("s e", "] [ jump to the cursor's state / instruction"),
    ("] [", "jump to the next / previous event"),
    ("d", "compare: go to the first cycle the runs diverge"),
    ("n", "compare: one cycle axis / each run to its length"),
    (": w", "what-if: param K=V, set NAME=V, policy NAME, seed N"),
    ("p r", "what-if: next policy / next seed"),
    ("S Tab", "summary instead of detail (narrow terminals)"),
    ("mouse", "wheel zooms, a click moves cursor and row"),
    ("? / q Esc", "this help / quit"),
];

fn help(p: &mut Painter, area: Rect) {
    let w = area.width.min(76);
    let h = (HELP.len() as u16 + 4).min(area.height);
    let x = area.x + (area.width - w) / 2;
    let y = area.y + (area.height - h) / 2;
    for yy in y..y + h {
        p.text(
            x,
            yy,
            w,
            &" ".repeat(w as usize),
            Style::default().bg(Color::Black),
        );
    }
    p.text(
        x + 2,
        y,
        w - 4,
        "smsim tui keys (any key closes)",
        Style::default()
            .add_modifier(Modifier::BOLD)
            .bg(Color::Black),
    );
    for (i, (k, what)) in HELP.iter().enumerate() {
        let yy = y + 2 + i as u16;
        if yy >= y + h {
            break;
        }
        p.text(
            x + 2,
            yy,
            w - 4,
            &format!("{k:<18} {what}"),
            Style::default().bg(Color::Black),
        );
    }
}
