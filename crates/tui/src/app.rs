//! The viewer's state and what each key does to it. Drawing reads this state
//! ([`crate::draw`]); the terminal loop ([`crate::term`]) feeds it keys, mouse events
//! and finished what-if runs.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use sim_core::WarpState;
use sim_core::scheduler::Policy;
use sim_core::timeline::{Interval, SyncKind};

use crate::model::{Loader, Outcome, Progress, RunData, RunSpec, simulate, simulate_stoppable};
use crate::rows::{Folds, Row, RowKind, build_rows};
use crate::view::View;

/// What the jump keys (`]`, `[`) look for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JumpKind {
    /// An mbarrier completing a phase (any CTA).
    MbarrierPhase,
    /// A named barrier releasing its warps (any CTA).
    BarrierRelease,
    /// The selected warp (or group) entering this state.
    StateBegins(WarpState),
    /// The selected warp (or group) issuing the instruction `pc` of role `role`.
    Issues {
        /// The instruction's role.
        role: u16,
        /// The instruction.
        pc: u32,
    },
}

/// Where the last frame put things, for the mouse.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hits {
    /// First screen column of the timeline cells.
    pub cells_x: u16,
    /// Screen row of the first timeline row.
    pub rows_y: u16,
    /// Number of timeline rows shown.
    pub rows_h: u16,
    /// Index in [`App::rows`] of the first row shown.
    pub first_row: usize,
}

/// A what-if run finished in the background: for run `slot`, request `generation`.
pub struct Finished {
    /// Which run (0, or 1 in compare mode) it replaces.
    pub slot: usize,
    /// The request's number: only the newest request's result is taken.
    pub generation: u64,
    /// The run, or the error's text.
    pub run: Result<RunData, String>,
}

/// The viewer.
pub struct App {
    /// One run, or two in compare mode.
    pub runs: Vec<RunData>,
    /// The time axis (shared by both runs in compare mode).
    pub view: View,
    /// Compare mode: each run normalized to its own length (else one cycle axis).
    pub normalize: bool,
    /// Folded groups and expanded pipes.
    pub folds: Folds,
    /// The rows, rebuilt when folding changes or a run is replaced.
    pub rows: Vec<Row>,
    /// Index in `rows` of the selected row.
    pub selected: usize,
    /// Index in `rows` of the first row shown.
    pub scroll: usize,
    /// What `]` and `[` jump to.
    pub jump: JumpKind,
    /// The help overlay is shown.
    pub help: bool,
    /// The unit, memory and barrier rows are shown.
    pub show_units: bool,
    /// The summary pane replaces the detail pane (narrow terminals).
    pub show_summary: bool,
    /// Colours (off for NO_COLOR and `--color never`).
    pub color: bool,
    /// The what-if prompt being typed, if open.
    pub prompt: Option<String>,
    /// A one-line message for the status bar.
    pub message: String,
    /// The user asked to quit.
    pub quit: bool,
    /// The divergence cycle of the two runs, in compare mode.
    pub divergence: Option<u64>,
    /// Where the last frame put things.
    pub hits: Hits,
    loader: Option<Arc<dyn Loader>>,
    /// Run what-ifs on this thread (for `--render --keys` and tests), not in the background.
    pub synchronous: bool,
    generation: [u64; 2],
    /// What-ifs in flight, per run slot: their request numbers.
    pub pending: [Option<u64>; 2],
    /// How far the newest what-if in flight has got, for the title bar.
    pub progress: Arc<Progress>,
    /// The stop flag of the newest what-if per run slot.
    stops: [Option<Arc<AtomicBool>>; 2],
    tx: Sender<Finished>,
    rx: Receiver<Finished>,
    /// Bumped whenever a run is replaced, to invalidate caches.
    loads: u64,
    /// `waits_most` of the last window asked: (window, loads) and the answer.
    waits_cache: RefCell<Option<WaitsCache>>,
    /// CTAs (by launch id) the folding rule has met, per run: a run's partial frames
    /// bring more.
    ctas_seen: [u32; 2],
}

/// An instruction's stalled cycles in a window: `(role, pc, its stalled cycles, every
/// instruction's stalled cycles)`.
pub type WaitRow = (u16, u32, u64, u64);

/// `waits_most`'s last answer: (window start, end, runs loaded) and the rows.
type WaitsCache = ((u64, u64, u64), Option<Vec<WaitRow>>);

/// Windows holding more intervals than this get no "waits most" list (it would scan
/// them all on every change of window).
pub const WAITS_SCAN_LIMIT: usize = 2_000_000;

impl App {
    /// A viewer of one run (or two: compare mode) in `cols` timeline columns. A run
    /// that stopped (deadlock, watchdog) opens with the cursor at its stop.
    pub fn new(runs: Vec<RunData>, loader: Option<Arc<dyn Loader>>) -> App {
        assert!(
            !runs.is_empty() && runs.len() <= 2,
            "one run, or two to compare"
        );
        let end = runs.iter().map(RunData::axis_end).max().unwrap_or(1);
        let (tx, rx) = channel();
        let mut app = App {
            runs,
            view: View::fit(end, 80),
            normalize: false,
            folds: Folds::default(),
            rows: Vec::new(),
            selected: 0,
            scroll: 0,
            jump: JumpKind::MbarrierPhase,
            help: false,
            show_units: true,
            show_summary: false,
            color: true,
            prompt: None,
            message: String::new(),
            quit: false,
            divergence: None,
            hits: Hits::default(),
            loader,
            synchronous: false,
            generation: [0; 2],
            pending: [None; 2],
            progress: Arc::new(Progress::default()),
            stops: [None, None],
            tx,
            rx,
            loads: 0,
            waits_cache: RefCell::new(None),
            ctas_seen: [0; 2],
        };
        app.fold_new_ctas();
        app.rebuild();
        // Start on the first warp or group, not a title.
        app.selected = app
            .rows
            .iter()
            .position(|r| !matches!(r.kind, RowKind::Title))
            .unwrap_or(0);
        app.after_load();
        app
    }

    /// Large runs open folded to one row per CTA and role, the first CTA open: the
    /// groups of the CTAs not met before are folded (those met keep the user's folds).
    fn fold_new_ctas(&mut self) {
        // Counted as the run will have them (its header's CTAs times warps per CTA), so
        // that a run still simulating folds as its finished self will.
        let warps = |r: &RunData| {
            let t = &r.timeline;
            let planned = t
                .header
                .as_ref()
                .map_or(0, |h| h.ctas_simulated as usize * h.warps_per_cta as usize);
            planned.max(t.warps.len())
        };
        let many = self.runs.iter().map(warps).sum::<usize>() > 48;
        for (i, r) in self.runs.iter().enumerate() {
            let seen = &mut self.ctas_seen[i.min(1)];
            let before = *seen;
            for w in &r.timeline.warps {
                if many && w.id.cta != 0 && w.id.cta >= before {
                    self.folds.groups.insert((i, w.id.cta, w.role));
                }
                *seen = (*seen).max(w.id.cta + 1);
            }
        }
    }

    /// Recomputes what depends on the runs: rows, divergence, and a stopped run's
    /// cursor.
    fn after_load(&mut self) {
        self.divergence = match &self.runs[..] {
            [a, b] => crate::compare::divergence(a, b),
            _ => None,
        };
        let stuck = match &self.runs[0].outcome {
            Outcome::Deadlock(s) | Outcome::Watchdog(s) => {
                Some((s.cycle, s.warps.first().map(|w| (w.cta, w.warp))))
            }
            _ => None,
        };
        if let Some((cycle, first)) = stuck {
            self.view.goto(cycle);
            // Select the first stuck warp.
            let warps = &self.runs[0].timeline.warps;
            if let Some((cta, warp)) = first
                && let Some(i) = self.rows.iter().position(|r| {
                    r.run == 0
                        && matches!(r.kind, RowKind::Warp(wi)
                            if warps[wi].id.cta == cta && warps[wi].id.warp == warp)
                })
            {
                self.selected = i;
            }
        }
    }

    /// Rebuilds the row list (folding changed, a run replaced), keeping the selection
    /// on a valid row.
    pub fn rebuild(&mut self) {
        self.rows = build_rows(&self.runs, &self.folds, self.show_units);
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
    }

    /// The run shown in row `i`'s slot and the view of the time axis it uses (in
    /// normalized compare mode, the second run's axis is scaled to its own length).
    pub fn view_for(&self, run: usize) -> View {
        if run == 0 || !self.normalize || self.runs.len() < 2 {
            return self.view;
        }
        let (a, b) = (
            self.runs[0].axis_end().max(1),
            self.runs[1].axis_end().max(1),
        );
        let scale = |c: u64| (c as u128 * b as u128 / a as u128) as u64;
        View {
            start: scale(self.view.start),
            per_col: scale(self.view.per_col).max(1),
            cols: self.view.cols,
            end: b,
            cursor: scale(self.view.cursor).min(b - 1),
        }
    }

    /// The selected row's run.
    pub fn active_run(&self) -> usize {
        self.rows.get(self.selected).map_or(0, |r| r.run)
    }

    /// The warps of the selected row (one, a group's, or none for unit rows).
    pub fn selected_warps(&self) -> Vec<usize> {
        match self.rows.get(self.selected).map(|r| &r.kind) {
            Some(RowKind::Warp(w)) => vec![*w],
            Some(RowKind::Group { warps, .. }) => warps.clone(),
            _ => Vec::new(),
        }
    }

    /// The selected warp's interval at the cursor (the first warp of a group).
    pub fn cursor_interval(&self) -> Option<(usize, Interval)> {
        let run = self.active_run();
        let cursor = self.view_for(run).cursor;
        self.selected_warps()
            .into_iter()
            .find_map(|w| Some((w, self.runs[run].timeline.warps[w].at(cursor)?)))
    }

    /// Handles one key.
    pub fn key(&mut self, k: KeyEvent) {
        if let Some(p) = &mut self.prompt {
            match k.code {
                KeyCode::Enter => {
                    let line = std::mem::take(p);
                    self.prompt = None;
                    self.what_if_command(&line);
                }
                KeyCode::Esc => self.prompt = None,
                KeyCode::Backspace => {
                    p.pop();
                }
                KeyCode::Char(c) => p.push(c),
                _ => {}
            }
            return;
        }
        if self.help {
            // Any key closes the help; `q` still quits.
            self.help = false;
            if k.code != KeyCode::Char('q') {
                return;
            }
        }
        let shift = k.modifiers.contains(KeyModifiers::SHIFT);
        let page = (self.view.cols / 4).max(1) as i64;
        match k.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => self.quit = true,
            KeyCode::Char('?') => self.help = true,
            KeyCode::Left if shift => self.view.pan(-page),
            KeyCode::Right if shift => self.view.pan(page),
            KeyCode::Left | KeyCode::Char('h') => self.view.step(-1),
            KeyCode::Right | KeyCode::Char('l') => self.view.step(1),
            KeyCode::Char('H') => self.view.pan(-page),
            KeyCode::Char('L') => self.view.pan(page),
            KeyCode::Up | KeyCode::Char('k') => self.select(self.selected.saturating_sub(1)),
            KeyCode::Down | KeyCode::Char('j') => self.select(self.selected + 1),
            KeyCode::PageUp => self.select(self.selected.saturating_sub(10)),
            KeyCode::PageDown => self.select(self.selected + 10),
            KeyCode::Home => self.view.goto(0),
            KeyCode::End => self.go_to_end(),
            KeyCode::Char('+') | KeyCode::Char('=') | KeyCode::Char('i') => self.view.zoom_in(),
            KeyCode::Char('-') | KeyCode::Char('o') => self.view.zoom_out(),
            KeyCode::Char('0') => self.view.zoom_fit(),
            KeyCode::Char('z') => self.view.zoom_to(1),
            KeyCode::Enter | KeyCode::Char(' ') => self.toggle_fold(),
            KeyCode::Char('f') => self.fold_all(),
            KeyCode::Char('u') => {
                self.show_units = !self.show_units;
                self.rebuild();
            }
            KeyCode::Char('S') | KeyCode::Tab => self.show_summary = !self.show_summary,
            KeyCode::Char('n') => self.normalize = !self.normalize,
            KeyCode::Char(']') => self.jump(true),
            KeyCode::Char('[') => self.jump(false),
            KeyCode::Char('m') => self.set_jump(JumpKind::MbarrierPhase),
            KeyCode::Char('b') => self.set_jump(JumpKind::BarrierRelease),
            KeyCode::Char('s') => {
                if let Some((_, iv)) = self.cursor_interval() {
                    self.set_jump(JumpKind::StateBegins(iv.state));
                }
            }
            KeyCode::Char('e') => {
                if let Some((w, iv)) = self.cursor_interval() {
                    let role = self.runs[self.active_run()].timeline.warps[w].role;
                    self.set_jump(JumpKind::Issues { role, pc: iv.pc });
                }
            }
            KeyCode::Char('d') => {
                if let Some(c) = self.divergence {
                    self.view.goto(c);
                }
            }
            KeyCode::Char(':') | KeyCode::Char('w') => self.prompt = Some(String::new()),
            KeyCode::Char('p') => {
                let slot = self.active_run();
                let mut spec = self.runs[slot].spec.clone();
                let i = Policy::ALL
                    .iter()
                    .position(|p| *p == spec.policy)
                    .unwrap_or(0);
                spec.policy = Policy::ALL[(i + 1) % Policy::ALL.len()];
                self.request(slot, spec);
            }
            KeyCode::Char('r') => {
                let slot = self.active_run();
                let mut spec = self.runs[slot].spec.clone();
                spec.seed += 1;
                self.request(slot, spec);
            }
            _ => {}
        }
        self.keep_selection_visible();
    }

    /// The cycle the runs still simulating have reached (the earliest, in compare
    /// mode); None when every run shown is over.
    pub fn frontier(&self) -> Option<u64> {
        self.runs.iter().filter_map(RunData::frontier).min()
    }

    /// The cursor to the run's end; while a run simulates, its end is not known: the
    /// cursor goes as far as it has got, and the status line says so.
    fn go_to_end(&mut self) {
        match self.frontier() {
            Some(f) => {
                self.view.goto(f.saturating_sub(1));
                // (Short: the run's progress comes first on the status line.)
                self.message = format!(
                    "end not simulated yet: cursor at cycle {}",
                    f.saturating_sub(1)
                );
            }
            None => self.view.goto(self.view.end - 1),
        }
    }

    fn set_jump(&mut self, kind: JumpKind) {
        self.jump = kind;
        self.message = format!("] and [ jump to: {}", self.jump_label());
    }

    /// The jump target in words, for the status bar.
    pub fn jump_label(&self) -> String {
        let run = &self.runs[self.active_run()];
        match self.jump {
            JumpKind::MbarrierPhase => "mbarrier phase".into(),
            JumpKind::BarrierRelease => "barrier release".into(),
            JumpKind::StateBegins(s) => format!("{s} begins"),
            JumpKind::Issues { role, pc } => format!("`{}` issues", run.mnemonic(role, pc)),
        }
    }

    fn select(&mut self, i: usize) {
        self.selected = i.min(self.rows.len().saturating_sub(1));
    }

    /// Scrolls so the selected row is among the rows shown.
    pub fn keep_selection_visible(&mut self) {
        // Before the first frame the height is unknown: nothing to keep.
        if self.hits.rows_h == 0 {
            return;
        }
        let h = self.hits.rows_h as usize;
        if self.selected < self.scroll {
            self.scroll = self.selected;
        } else if self.selected >= self.scroll + h {
            self.scroll = self.selected + 1 - h;
        }
    }

    fn toggle_fold(&mut self) {
        let Some(row) = self.rows.get(self.selected) else {
            return;
        };
        let key = match &row.kind {
            RowKind::Group { cta, role, .. } => (row.run, *cta, *role),
            RowKind::Warp(w) => {
                let tw = &self.runs[row.run].timeline.warps[*w];
                (row.run, tw.id.cta, tw.role)
            }
            RowKind::Units { label, lanes, .. } => {
                // A pipe's row opens into a row per sub-partition (and closes again
                // from any of them).
                let pipe = label.trim().split(' ').next().unwrap_or("").to_string() + " pipe";
                let key = (row.run, if *lanes > 1 { label.clone() } else { pipe });
                if !self.folds.pipes.remove(&key) && *lanes > 1 {
                    self.folds.pipes.insert(key.clone());
                }
                self.rebuild();
                if let Some(i) = self.rows.iter().position(|r| {
                    r.run == key.0
                        && matches!(&r.kind, RowKind::Units { label, .. } if *label == key.1)
                }) {
                    self.selected = i;
                }
                return;
            }
            _ => return,
        };
        if !self.folds.groups.remove(&key) {
            self.folds.groups.insert(key);
        }
        self.rebuild();
        // Keep the selection on the group's row.
        if let Some(i) = self.rows.iter().position(|r| {
            r.run == key.0
                && matches!(r.kind, RowKind::Group { cta, role, .. } if cta == key.1 && role == key.2)
        }) {
            self.selected = i;
        }
    }

    fn fold_all(&mut self) {
        let groups: Vec<(usize, u32, u16)> = self
            .rows
            .iter()
            .filter_map(|r| match r.kind {
                RowKind::Group { cta, role, .. } => Some((r.run, cta, role)),
                _ => None,
            })
            .collect();
        if groups.iter().all(|g| self.folds.groups.contains(g)) {
            self.folds.groups.clear();
        } else {
            self.folds.groups.extend(groups);
        }
        self.rebuild();
    }

    /// Moves the cursor to the next (or previous) event of the chosen kind.
    fn jump(&mut self, forward: bool) {
        let run = self.active_run();
        let view = self.view_for(run);
        let cur = view.cursor;
        let data = &self.runs[run];
        let t = &data.timeline;
        let found = match self.jump {
            JumpKind::MbarrierPhase | JumpKind::BarrierRelease => {
                let want_mbar = self.jump == JumpKind::MbarrierPhase;
                let pred = |e: &sim_core::timeline::SyncEvent| match e.kind {
                    SyncKind::MbarrierPhase { .. } => want_mbar,
                    SyncKind::BarrierRelease { .. } => !want_mbar,
                    _ => false,
                };
                if forward {
                    t.next_sync(cur, pred).map(|e| e.cycle)
                } else {
                    t.prev_sync(cur, pred).map(|e| e.cycle)
                }
            }
            kind => {
                let pred = |iv: &Interval| match kind {
                    JumpKind::StateBegins(s) => iv.state == s,
                    JumpKind::Issues { pc, .. } => iv.state == WarpState::Selected && iv.pc == pc,
                    _ => false,
                };
                let warps = self.selected_warps();
                let hits = warps.iter().filter_map(|&w| {
                    let tw = &t.warps[w];
                    if let JumpKind::Issues { role, .. } = kind
                        && tw.role != role
                    {
                        return None;
                    }
                    if forward {
                        tw.next_where(cur + 1, pred).map(|iv| iv.start)
                    } else {
                        tw.prev_where(cur, pred).map(|iv| iv.start)
                    }
                });
                if forward { hits.min() } else { hits.max() }
            }
        };
        match found {
            Some(c) => {
                let c = if run == 1 && self.normalize {
                    let (a, b) = (self.runs[0].axis_end().max(1), data.axis_end().max(1));
                    (c as u128 * a as u128 / b as u128) as u64
                } else {
                    c
                };
                self.view.goto(c);
                self.message = format!("{} at cycle {c}", self.jump_label());
            }
            None => {
                let so_far = match data.frontier() {
                    Some(f) if forward => format!(" so far (simulated to cycle {f})"),
                    _ => String::new(),
                };
                self.message = format!(
                    "no {} {}{so_far}",
                    self.jump_label(),
                    if forward { "after" } else { "before" }
                )
            }
        }
    }

    /// A what-if typed at the prompt: `param K=V`, `set NAME=V`, `policy NAME`, `seed N`.
    fn what_if_command(&mut self, line: &str) {
        let slot = self.active_run();
        let mut spec = self.runs[slot].spec.clone();
        match parse_what_if(line, &mut spec) {
            Ok(()) => self.request(slot, spec),
            Err(m) => self.message = m,
        }
    }

    /// Asks for `spec` to be run in place of run `slot`. The old view stays until the
    /// new run is ready; a newer request supersedes an older one still running.
    pub fn request(&mut self, slot: usize, spec: RunSpec) {
        let Some(loader) = self.loader.clone() else {
            self.message = "what-if needs a kernel loader".into();
            return;
        };
        if self.frontier().is_some() {
            self.message = "what-ifs work once the run ends".into();
            return;
        }
        self.generation[slot] += 1;
        let generation = self.generation[slot];
        self.pending[slot] = Some(generation);
        self.message = format!("running {} ...", spec.label());
        if self.synchronous {
            let run = simulate(&*loader, &spec);
            self.finished(Finished {
                slot,
                generation,
                run,
            });
            return;
        }
        let tx = self.tx.clone();
        let progress = self.progress.clone();
        progress.reset();
        // The request this one supersedes stops at the engine's next poll.
        let stop = Arc::new(AtomicBool::new(false));
        if let Some(old) = self.stops[slot].replace(stop.clone()) {
            old.store(true, Ordering::Relaxed);
        }
        std::thread::spawn(move || {
            let run = loader
                .load(&spec)
                .and_then(|(k, p)| simulate_stoppable(&spec, &k, &p, &progress, Some(stop)));
            // The viewer may have quit: nobody to tell.
            let _ = tx.send(Finished {
                slot,
                generation,
                run,
            });
        });
    }

    /// Takes the what-if runs that have finished (the terminal loop calls this between
    /// keys). True if the view changed.
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        while let Ok(f) = self.rx.try_recv() {
            changed |= self.finished(f);
        }
        changed
    }

    fn finished(&mut self, f: Finished) -> bool {
        if Some(f.generation) != self.pending[f.slot] {
            return false; // superseded by a newer request
        }
        self.pending[f.slot] = None;
        match f.run {
            Ok(run) => {
                self.message = format!(
                    "{}: {} cycles ({})",
                    run.spec.label(),
                    run.timeline.end,
                    run.outcome.word()
                );
                self.runs[f.slot] = run;
                self.loads += 1;
                let end = self.runs.iter().map(RunData::axis_end).max().unwrap_or(1);
                self.view.set_end(end);
                let selected = self.selected;
                self.rebuild();
                self.selected = selected.min(self.rows.len().saturating_sub(1));
                self.after_load();
            }
            Err(m) => self.message = m.lines().next().unwrap_or("error").to_string(),
        }
        true
    }

    /// Shows `runs` (one, or two to compare), the last of them a run still simulating
    /// as far as it has got (the viewer of its partial frames), in place of those shown
    /// before: the place kept (the window, refitted if it showed the whole run so far;
    /// the cursor, selection and folds).
    pub fn take_partial(&mut self, runs: Vec<RunData>) {
        assert!(
            !runs.is_empty() && runs.len() <= 2,
            "one run, or two to compare"
        );
        let fit = self.view.start == 0 && self.view.per_col == self.view.fit_per_col();
        self.runs = runs;
        self.loads += 1;
        let end = self.runs.iter().map(RunData::axis_end).max().unwrap_or(1);
        self.view.set_end(end);
        if fit {
            self.view.zoom_fit();
        }
        self.fold_new_ctas();
        let selected = self.selected;
        self.rebuild();
        self.selected = selected.min(self.rows.len().saturating_sub(1));
        // (The frontier moved on: the runs compared further.)
        self.divergence = match &self.runs[..] {
            [a, b] => crate::compare::divergence(a, b),
            _ => None,
        };
    }

    /// Gives the runs shown back (to the simulation, which goes on filling the last);
    /// until the next [`take_partial`](Self::take_partial) the app holds no run and
    /// must not be drawn or sent keys.
    pub fn give_back(&mut self) -> Vec<RunData> {
        std::mem::take(&mut self.runs)
    }

    /// Carries over the place a viewer of the same run's partial frames had reached:
    /// the window (refitted if it showed the whole run so far), the cursor, the
    /// selection, folds and panes. A run that stopped keeps its opening at the stop.
    pub fn keep_place_of(&mut self, live: &App) {
        if self.runs[0].outcome.stuck_cycle().is_none() {
            let fit = live.view.start == 0 && live.view.per_col == live.view.fit_per_col();
            let end = self.view.end;
            self.view = live.view;
            self.view.set_end(end);
            if fit {
                self.view.zoom_fit();
            }
            self.selected = live.selected;
            self.scroll = live.scroll;
        }
        // The user's folds for the CTAs the partial frames showed; the opening folds
        // for those launched since.
        let mut folds = live.folds.clone();
        folds.groups.extend(
            self.folds
                .groups
                .iter()
                .filter(|g| g.1 >= live.ctas_seen[g.0.min(1)])
                .copied(),
        );
        self.folds = folds;
        self.show_units = live.show_units;
        self.show_summary = live.show_summary;
        self.jump = live.jump;
        let selected = self.selected;
        self.rebuild();
        self.selected = selected.min(self.rows.len().saturating_sub(1));
    }

    /// Handles a mouse event: the wheel zooms at the pointer, a click moves the cursor
    /// and selects the row.
    pub fn mouse(&mut self, m: MouseEvent) {
        let h = self.hits;
        let in_cells = m.column >= h.cells_x;
        let col = m.column.saturating_sub(h.cells_x) as u64;
        match m.kind {
            MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
                if in_cells && col < self.view.cols {
                    self.view.goto(self.view.column(col).0);
                }
                if m.kind == MouseEventKind::ScrollUp {
                    self.view.zoom_in();
                } else {
                    self.view.zoom_out();
                }
            }
            MouseEventKind::Down(MouseButton::Left)
                if m.row >= h.rows_y && m.row < h.rows_y + h.rows_h =>
            {
                self.select(h.first_row + (m.row - h.rows_y) as usize);
                if in_cells && col < self.view.cols {
                    self.view.goto(self.view.column(col).0);
                }
            }
            _ => {}
        }
    }
}

impl App {
    /// The instructions of run 0 where warps spend the most stalled cycles within
    /// `[from, to)`: `(role, pc, stalled cycles, all stalled cycles)`, largest first.
    /// None when the window holds more than [`WAITS_SCAN_LIMIT`] intervals. Cached per
    /// window: redraws that keep the window cost nothing here.
    pub fn waits_most(&self, from: u64, to: u64) -> Option<Vec<WaitRow>> {
        let key = (from, to, self.loads);
        if let Some((k, v)) = &*self.waits_cache.borrow()
            && *k == key
        {
            return v.clone();
        }
        let v = self.scan_waits(from, to);
        *self.waits_cache.borrow_mut() = Some((key, v.clone()));
        v
    }

    fn scan_waits(&self, from: u64, to: u64) -> Option<Vec<WaitRow>> {
        let t = &self.runs[0].timeline;
        // The whole run: the result's per-instruction totals say it without a scan.
        if from == 0
            && to >= t.end
            && let Some(r) = &self.runs[0].result
        {
            let mut v: Vec<WaitRow> = Vec::new();
            for (role, rs) in r.roles.iter().enumerate() {
                for p in &rs.per_pc {
                    let stalled = p.states.total() - p.states.get(WarpState::Selected);
                    if stalled > 0 {
                        v.push((role as u16, p.pc, stalled, 0));
                    }
                }
            }
            let total: u64 = v.iter().map(|x| x.2).sum();
            for x in &mut v {
                x.3 = total;
            }
            v.sort_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
            v.truncate(5);
            return Some(v);
        }
        let ranges: Vec<(usize, usize, usize)> = t
            .warps
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let a = w.index_at(from.max(w.started)).unwrap_or(w.len());
                let b = w.index_at(to.saturating_sub(1).min(w.finished.saturating_sub(1)));
                let b = b.map_or(a, |b| b + 1).max(a);
                (i, a, b)
            })
            .collect();
        if ranges.iter().map(|r| r.2 - r.1).sum::<usize>() > WAITS_SCAN_LIMIT {
            return None;
        }
        let mut by: std::collections::HashMap<(u16, u32), u64> = Default::default();
        let mut total = 0;
        for (i, a, b) in ranges {
            let w = &t.warps[i];
            for k in a..b {
                let iv = w.get(k).expect("in range");
                if iv.state == WarpState::Selected {
                    continue;
                }
                let c = iv.end.min(to) - iv.start.max(from);
                *by.entry((w.role, iv.pc)).or_default() += c;
                total += c;
            }
        }
        let mut v: Vec<WaitRow> = by
            .into_iter()
            .map(|((r, pc), c)| (r, pc, c, total))
            .collect();
        v.sort_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
        v.truncate(5);
        Some(v)
    }
}

/// Applies a what-if command to a spec.
pub fn parse_what_if(line: &str, spec: &mut RunSpec) -> Result<(), String> {
    let line = line.trim();
    let (cmd, arg) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let arg = arg.trim();
    let kv = || -> Result<(&str, &str), String> {
        arg.split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| format!("`{arg}` is not NAME=VALUE"))
    };
    match cmd {
        "param" | "p" => {
            let (k, v) = kv()?;
            let v: i64 = v.parse().map_err(|_| format!("`{v}` is not an integer"))?;
            spec.set_param(k, v);
        }
        "set" => {
            let (k, v) = kv()?;
            let v: f64 = v.parse().map_err(|_| format!("`{v}` is not a number"))?;
            spec.set_profile_value(k, v);
        }
        "policy" => spec.policy = Policy::from_name(arg)?,
        "seed" => spec.seed = arg.parse().map_err(|_| format!("`{arg}` is not a seed"))?,
        _ => {
            return Err(format!(
                "`{line}`: try `param K=V`, `set NAME=V`, `policy gto|lrr|oldest|two-level` or `seed N`"
            ));
        }
    }
    Ok(())
}
