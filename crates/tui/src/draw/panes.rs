//! The panes under the rows: the detail pane (the selected warp at the cursor: its
//! state, instruction, what it waits on, what the state means; a stopped run's report)
//! and the summary pane (the visible window's states per role, unit use, the run's
//! bounds, the instructions waited on most; in compare mode the runs' differences).

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use sim_core::WarpState;
use sim_core::diagnose::Bounds;
use sim_core::state::STATE_COUNT;
use sim_core::timeline::SyncKind;

use super::{Painter, group, state_color};
use crate::app::App;
use crate::compare::{role_states, share};
use crate::model::{Outcome, RunData};
use crate::rows::RowKind;

/// Splits `s` into lines of at most `w` characters at spaces.
pub fn wrap(s: &str, w: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in s.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > w {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

fn put_lines(p: &mut Painter, area: Rect, lines: &[(String, Style)]) {
    let mut y = area.y;
    for (l, st) in lines {
        for part in wrap(l, area.width as usize) {
            if y >= area.bottom() {
                return;
            }
            p.text(area.x, y, area.width, &part, *st);
            y += 1;
        }
    }
}

/// The detail pane: the selected warp at the cursor, why it is in its state, what
/// that state means; a stopped run's report first.
pub(super) fn detail(app: &App, p: &mut Painter, area: Rect) {
    let mut lines: Vec<(String, Style)> = Vec::new();
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let run_i = app.active_run();
    let run = &app.runs[run_i];
    let cursor = app.view_for(run_i).cursor;
    match &run.outcome {
        Outcome::Deadlock(s) | Outcome::Watchdog(s) => {
            lines.push((
                format!("{} (cycle {})", s.headline, s.cycle),
                bold.fg(Color::Red),
            ));
            for w in &s.warps {
                lines.push((
                    format!(
                        "! c{} w{} ({}) at `{}`: waits for {}",
                        w.cta, w.warp, w.role, w.instruction, w.waits_for
                    ),
                    Style::default(),
                ));
            }
        }
        Outcome::Fault(m) => lines.push((format!("fault: {m}"), bold.fg(Color::Red))),
        Outcome::Finished | Outcome::Stopped | Outcome::Running(_) => {}
    }
    let t = &run.timeline;
    let frontier = run.frontier();
    if let Some(f) = frontier
        && cursor >= f
    {
        // Nothing there is known yet: not an idle warp, not an idle unit.
        lines.push((
            format!("cycle {cursor} is not simulated yet: the run has reached cycle {f}"),
            bold,
        ));
        lines.push((
            "the frame fills in as the run goes; Home, ← or [ go back to what is simulated".into(),
            Style::default(),
        ));
        put_lines(p, area, &lines);
        return;
    }
    match app.rows.get(app.selected).map(|r| &r.kind) {
        Some(RowKind::Warp(_)) | Some(RowKind::Group { .. }) => {
            let warps = app.selected_warps();
            if warps.len() > 1 {
                // A group: how many warps in each state at the cursor.
                let mut n = [0u32; STATE_COUNT];
                for &w in &warps {
                    if let Some(iv) = t.warps[w].at(cursor) {
                        n[iv.state.index()] += 1;
                    }
                }
                let mut s = format!("cycle {cursor}: ");
                for st in WarpState::ALL {
                    if n[st.index()] > 0 {
                        s.push_str(&format!("{} {}  ", n[st.index()], st.name()));
                    }
                }
                lines.push((s, bold));
            }
            if let Some((w, iv)) = app.cursor_interval() {
                let tw = &t.warps[w];
                lines.push((
                    format!(
                        "cycle {cursor}  CTA {} warp {} ({}, sp {})",
                        tw.id.cta,
                        tw.id.warp,
                        run.roles.get(tw.role as usize).map_or("?", |s| s.as_str()),
                        tw.subpartition
                    ),
                    bold,
                ));
                // A state still held where the run has got to ends later than the
                // frame knows.
                let open = frontier.is_some_and(|f| iv.end >= f && tw.live());
                let span = if open {
                    format!(
                        "since cycle {} ({} so far; the run has reached cycle {})",
                        iv.start,
                        iv.end - iv.start,
                        iv.end
                    )
                } else {
                    format!("cycles {}..{} ({})", iv.start, iv.end, iv.end - iv.start)
                };
                lines.push((
                    format!("{}  {span}", iv.state.name()),
                    Style::default()
                        .fg(state_color(iv.state))
                        .add_modifier(Modifier::BOLD),
                ));
                let line = run
                    .line(tw.role, iv.pc)
                    .map_or(String::new(), |l| format!(" (line {l})"));
                lines.push((
                    format!("pc {} `{}`{line}", iv.pc, run.text(tw.role, iv.pc)),
                    Style::default(),
                ));
                if let Some(c) = t.cause(&iv) {
                    lines.push((
                        format!("waits on: {}", run.cause_text(tw.role, cursor, &c)),
                        Style::default().add_modifier(Modifier::BOLD),
                    ));
                }
                let e = iv.state.explain();
                lines.push((format!("means: {}", e.means), Style::default()));
                lines.push((format!("causes: {}", e.causes), Style::default()));
                lines.push((format!("fixes: {}", e.fixes), Style::default()));
            } else if warps.len() == 1 {
                let tw = &t.warps[warps[0]];
                let on = if frontier.is_some() && tw.live() {
                    format!("from cycle {}", tw.started)
                } else {
                    format!("cycles {}..{}", tw.started, tw.finished)
                };
                lines.push((
                    format!(
                        "cycle {cursor}: CTA {} warp {} is not on the SM ({on})",
                        tw.id.cta, tw.id.warp
                    ),
                    Style::default(),
                ));
            }
        }
        Some(RowKind::Units {
            label,
            units,
            lanes,
        }) => {
            let (a, b) = app.view_for(run_i).window();
            let busy: u64 = units.iter().map(|&u| t.units[u].busy_in(a, b)).sum();
            let now: u64 = units
                .iter()
                .map(|&u| t.units[u].busy_in(cursor, cursor + 1))
                .sum();
            lines.push((
                format!(
                    "{label}: {:.1}% busy in the window; at cycle {cursor}: {now} of {lanes} busy",
                    100.0 * busy as f64 / ((b - a) * lanes).max(1) as f64
                ),
                bold,
            ));
        }
        Some(RowKind::Memory { label, levels }) => {
            let (a, b) = app.view_for(run_i).window();
            let bytes: u64 = levels.iter().map(|&l| t.memory[l].bytes_in(a, b)).sum();
            lines.push((
                format!(
                    "{label}: {bytes} bytes in the window, {:.1} bytes/cycle",
                    bytes as f64 / (b - a).max(1) as f64
                ),
                bold,
            ));
        }
        Some(RowKind::Sync { mbarrier }) => {
            let want = *mbarrier;
            let pred = |e: &sim_core::timeline::SyncEvent| match e.kind {
                SyncKind::MbarrierPhase { .. } => want,
                SyncKind::BarrierRelease { .. } => !want,
                _ => false,
            };
            for e in [t.prev_sync(cursor + 1, pred), t.next_sync(cursor, pred)]
                .into_iter()
                .flatten()
            {
                let what = match e.kind {
                    SyncKind::MbarrierPhase { mbarrier, phase } => {
                        format!("{} completes phase {phase}", run.mbarrier_name(mbarrier))
                    }
                    SyncKind::BarrierRelease { id } => format!("barrier {id} releases"),
                    _ => String::new(),
                };
                lines.push((
                    format!("cycle {}: CTA {} {what}", e.cycle, e.cta),
                    Style::default(),
                ));
            }
        }
        Some(RowKind::Title) | None => {}
    }
    put_lines(p, area, &lines);
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// The summary pane: for the visible window, each role's states (share and warps per
/// issue), unit use, and in compare mode the differences and the divergence cycle.
/// While a run simulates, the window's figures are of what is simulated, and what
/// needs the whole run says it waits for the end.
pub(super) fn summary(app: &App, p: &mut Painter, area: Rect) {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let (a, b) = app.view.window();
    let b = b.min(app.view.end);
    let window = match app.frontier() {
        Some(f) if f < b => format!("window {a}..{b}, simulated to {f}"),
        _ => format!("window {a}..{b} ({} cycles)", b - a),
    };
    let mut lines = vec![(window, bold)];
    if let [ra, rb] = &app.runs[..] {
        lines.extend(compare_summary(app, ra, rb, a, b));
    } else {
        lines.extend(run_summary(app, a, b));
    }
    put_lines(p, area, &lines);
}

/// The summary of two runs: where they diverge, their lengths and bounds, the state
/// shares that differ most over the window, overall and per role.
fn compare_summary(app: &App, ra: &RunData, rb: &RunData, a: u64, b: u64) -> Vec<(String, Style)> {
    let mut lines: Vec<(String, Style)> = Vec::new();
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let vb = app.view_for(1);
    let (ba, bb) = vb.window();
    let sa = role_states(ra, a, b);
    let sb = role_states(rb, ba, bb.min(vb.end));
    match (app.divergence, app.frontier()) {
        (Some(c), _) => lines.push((format!("runs diverge at cycle {c} (d: go there)"), bold)),
        (None, Some(f)) => lines.push((
            format!("runs identical before cycle {f} (simulated so far)"),
            bold,
        )),
        (None, None) => lines.push(("runs identical".into(), bold)),
    }
    let length = |r: &RunData| match r.frontier() {
        Some(f) => format!("simulating ({f} cycles so far)"),
        None => format!("{} cycles", r.timeline.end),
    };
    let lengths = if ra.frontier().is_none() && rb.frontier().is_none() {
        format!(
            "A {}, B {} ({:+.1}%)",
            length(ra),
            length(rb),
            100.0 * (rb.timeline.end as f64 / ra.timeline.end.max(1) as f64 - 1.0)
        )
    } else {
        format!("A {}, B {}", length(ra), length(rb))
    };
    lines.push((lengths, Style::default()));
    let bound = |r: &RunData| {
        let none = match r.frontier() {
            Some(_) => "once it ends",
            None => "none (unfinished)",
        };
        r.bounds.as_ref().map_or(none.to_string(), |bd| {
            format!(
                "{} ≥ {} ({:+.1}%)",
                bd.binding.label(),
                group(bd.lower_bound_cycles),
                100.0 * bd.above_bound
            )
        })
    };
    lines.push((
        format!("bound (whole runs): A {}, B {}", bound(ra), bound(rb)),
        Style::default(),
    ));
    // Every warp together first (the runs' roles may differ), then each role
    // both runs have.
    let all = |v: &[(String, [u64; STATE_COUNT])]| {
        let mut t = [0u64; STATE_COUNT];
        for (_, s) in v {
            for (acc, x) in t.iter_mut().zip(s) {
                *acc += x;
            }
        }
        ("all warps".to_string(), t)
    };
    let (ta, tb) = (all(&sa), all(&sb));
    let pairs = std::iter::once((&ta.0, &ta.1, &tb.1)).chain(
        sa.iter()
            .filter_map(|(n, x)| sb.iter().find(|(m, _)| m == n).map(|(_, y)| (n, x, y))),
    );
    for (name, x, y) in pairs {
        let mut diffs: Vec<(WarpState, f64, f64)> = WarpState::ALL
            .iter()
            .map(|&s| (s, share(x, s), share(y, s)))
            .filter(|d| d.1 > 0.0 || d.2 > 0.0)
            .collect();
        diffs.sort_by(|p, q| (q.2 - q.1).abs().total_cmp(&(p.2 - p.1).abs()));
        let parts: Vec<String> = diffs
            .iter()
            .take(3)
            .map(|(s, u, v)| format!("{} {}→{}", s.name(), pct(*u), pct(*v)))
            .collect();
        lines.push((format!("{name}: {}", parts.join("  ")), Style::default()));
    }
    lines
}

/// The summary of one run over the window `[a, b)`: each role's states, unit use,
/// the run's bounds, the instructions waited on most.
fn run_summary(app: &App, a: u64, b: u64) -> Vec<(String, Style)> {
    let mut lines: Vec<(String, Style)> = Vec::new();
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let run = &app.runs[0];
    // The window's cycles simulated so far: the units' shares are of those.
    let simulated = run.frontier().map_or(b, |f| f.clamp(a, b));
    let roles = role_states(run, a, b);
    for (name, s) in &roles {
        let total: u64 = s.iter().sum();
        if total == 0 {
            continue;
        }
        let issues = s[WarpState::Selected.index()];
        let mut ranked: Vec<(WarpState, u64)> = WarpState::ALL
            .iter()
            .map(|&st| (st, s[st.index()]))
            .filter(|x| x.1 > 0 && x.0 != WarpState::Selected)
            .collect();
        ranked.sort_by_key(|x| std::cmp::Reverse(x.1));
        let parts: Vec<String> = ranked
            .iter()
            .take(3)
            .map(|(st, v)| {
                format!(
                    "{} {} {:.1}/iss",
                    st.name(),
                    pct(*v as f64 / total as f64),
                    *v as f64 / issues.max(1) as f64
                )
            })
            .collect();
        lines.push((
            format!("{name}: {issues} issued; {}", parts.join(", ")),
            Style::default(),
        ));
    }
    let t = &run.timeline;
    let mut units: Vec<String> = Vec::new();
    for row in &app.rows {
        if let RowKind::Units {
            label,
            units: u,
            lanes,
        } = &row.kind
        {
            if label.starts_with(' ') {
                continue; // a sub-partition's row: its pipe's row counts it
            }
            let busy: u64 = u.iter().map(|&i| t.units[i].busy_in(a, b)).sum();
            units.push(format!(
                "{} {}",
                label.trim_end_matches(" pipe"),
                pct(busy as f64 / ((simulated - a) * lanes).max(1) as f64)
            ));
        }
    }
    if !units.is_empty() {
        lines.push((format!("units: {}", units.join(", ")), Style::default()));
    }
    if let Some(bd) = &run.bounds {
        lines.extend(bound_lines(bd));
    } else if run.frontier().is_some() {
        lines.push((
            "bound (whole run): once the run ends".into(),
            Style::default(),
        ));
    }
    if let Some(top) = app.waits_most(a, b) {
        let so_far = if run.frontier().is_some() {
            " (so far)"
        } else {
            ""
        };
        lines.push((format!("waits most{so_far}:"), bold));
        for (role, pc, cycles, total) in top.into_iter().take(3) {
            lines.push((
                format!(
                    " {} `{}` {}",
                    run.roles.get(role as usize).map_or("?", |s| s.as_str()),
                    run.text(role, pc),
                    pct(cycles as f64 / total.max(1) as f64)
                ),
                Style::default(),
            ));
        }
    }
    lines
}

/// The run's bounds (whole run: a lower bound on cycles is a property of all the
/// run's work, not of a window): the binding unit, its bound and the run's distance
/// from it, then every unit's use against its peak, largest first. Units come from
/// `sim_core::diagnose::bounds` as they are, so new ones appear here unasked.
fn bound_lines(bd: &Bounds) -> Vec<(String, Style)> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut out = vec![(
        format!(
            "bound (whole run): {} ≥ {} cycles, run {:+.1}%",
            bd.binding.label(),
            group(bd.lower_bound_cycles),
            100.0 * bd.above_bound
        ),
        bold,
    )];
    let mut used: Vec<&sim_core::diagnose::UnitBound> =
        bd.units.iter().filter(|u| u.use_fraction > 0.0).collect();
    used.sort_by(|a, b| b.use_fraction.total_cmp(&a.use_fraction));
    let parts: Vec<String> = used
        .iter()
        .map(|u| {
            let beyond = if u.exceeds_run { " (past the run)" } else { "" };
            format!("{} {:.1}%{beyond}", u.unit.label(), 100.0 * u.use_fraction)
        })
        .collect();
    if !parts.is_empty() {
        out.push((format!("of peak: {}", parts.join(", ")), Style::default()));
    }
    out
}
