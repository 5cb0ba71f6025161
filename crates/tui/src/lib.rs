//! `smsim tui`: the interactive timeline of a simulated run. Every warp, every cycle,
//! coloured by its Nsight Compute state; units, memory traffic and barriers below; a
//! cursor whose detail pane says what the selected warp waits on and what that state
//! means; a summary of the visible window; two runs compared on one axis; what-ifs
//! rerun in the background.
//!
//! - [`model`]: a run as the viewer holds it ([`model::RunData`]: the
//!   [`sim_core::timeline::Timeline`] and the texts labelling it), and how to make one;
//!   [`model::simulate_live`] hands a long run so far to the viewer while it simulates,
//!   the first time once its first two waves of CTAs are done ([`model::FIRST_FRAME`]), with
//!   its length estimated ([`model::Waves`]).
//! - [`view`]: the time axis: zoom, pan and cursor arithmetic.
//! - [`rows`]: the rows: CTAs' roles (foldable), warps, units, barriers.
//! - [`app`]: the viewer's state and what each key does.
//! - [`draw`]: a frame.
//! - [`compare`]: two runs' divergence cycle and state-share differences.
//! - [`term`]: the terminal: raw mode, events, and its restoration on any exit; the
//!   first runs simulating on a worker thread, their progress, then their timeline so
//!   far (the first frame at the run's second wave, or 0.4 s after launch at the
//!   latest, whatever the run's length), cycles not yet simulated drawn as such.
//!
//! The crate reads sim-core only through its result, sink and timeline types; sim-core
//! knows nothing of terminals.

pub mod app;
pub mod compare;
pub mod draw;
pub mod model;
pub mod rows;
pub mod term;
pub mod view;

pub use app::App;
pub use model::{Loader, RunData, RunSpec, simulate};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Draws one frame of `app` at `cols` x `rows` and returns it as text, one line per
/// row, trailing spaces removed (for `--render`, tests and documentation).
pub fn render_text(app: &mut App, cols: u16, rows: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
    term.draw(|f| {
        let area = f.area();
        draw::draw(app, area, f.buffer_mut())
    })
    .expect("drawing into memory");
    buffer_text(term.backend().buffer())
}

/// A buffer's symbols as lines of text.
pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Parses `--keys`: each character is a key; `<Name>` names the others (`<Left>`,
/// `<Right>`, `<Up>`, `<Down>`, `<S-Left>`, `<S-Right>`, `<Enter>`, `<Esc>`, `<Tab>`,
/// `<Space>`, `<PgUp>`, `<PgDn>`, `<Home>`, `<End>`, `<BS>`, `<lt>` for `<`).
pub fn parse_keys(s: &str) -> Result<Vec<KeyEvent>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '<' {
            out.push(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            continue;
        }
        let mut name = String::new();
        loop {
            match chars.next() {
                Some('>') => break,
                Some(x) => name.push(x),
                None => return Err(format!("--keys: `<{name}` has no closing `>`")),
            }
        }
        let (code, m) = match name.as_str() {
            "Left" => (KeyCode::Left, KeyModifiers::NONE),
            "Right" => (KeyCode::Right, KeyModifiers::NONE),
            "Up" => (KeyCode::Up, KeyModifiers::NONE),
            "Down" => (KeyCode::Down, KeyModifiers::NONE),
            "S-Left" => (KeyCode::Left, KeyModifiers::SHIFT),
            "S-Right" => (KeyCode::Right, KeyModifiers::SHIFT),
            "Enter" | "CR" => (KeyCode::Enter, KeyModifiers::NONE),
            "Esc" => (KeyCode::Esc, KeyModifiers::NONE),
            "Tab" => (KeyCode::Tab, KeyModifiers::NONE),
            "Space" => (KeyCode::Char(' '), KeyModifiers::NONE),
            "PgUp" => (KeyCode::PageUp, KeyModifiers::NONE),
            "PgDn" => (KeyCode::PageDown, KeyModifiers::NONE),
            "Home" => (KeyCode::Home, KeyModifiers::NONE),
            "End" => (KeyCode::End, KeyModifiers::NONE),
            "BS" => (KeyCode::Backspace, KeyModifiers::NONE),
            "lt" => (KeyCode::Char('<'), KeyModifiers::NONE),
            _ => {
                return Err(format!(
                    "--keys: unknown key `<{name}>` (known: Left Right Up Down S-Left S-Right Enter Esc Tab Space PgUp PgDn Home End BS lt)"
                ));
            }
        };
        out.push(KeyEvent::new(code, m));
    }
    Ok(out)
}

/// How `--zoom` sets the axis: the whole run, or cycles per column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    /// The whole run in the window.
    Fit,
    /// This many cycles per column.
    PerColumn(u64),
}

impl std::str::FromStr for Zoom {
    type Err = String;
    fn from_str(s: &str) -> Result<Zoom, String> {
        if s == "fit" {
            return Ok(Zoom::Fit);
        }
        match s.parse::<u64>() {
            Ok(n) if n > 0 => Ok(Zoom::PerColumn(n)),
            _ => Err(format!(
                "`{s}` is not a zoom: `fit` or cycles per column (a positive integer)"
            )),
        }
    }
}

/// Sets up a frame as `--render` asks: the axis sized for `cols`, the zoom, the cursor
/// at `at`, then the keys pressed in order.
pub fn prepare(app: &mut App, cols: u16, at: Option<u64>, zoom: Option<Zoom>, keys: &[KeyEvent]) {
    app.view
        .set_cols(cols.saturating_sub(draw::LABEL_W).max(1) as u64);
    app.view.zoom_fit();
    if let Some(c) = at {
        app.view.goto(c);
    } else if let Some(c) = app.runs[0].outcome.stuck_cycle() {
        app.view.goto(c);
    }
    match zoom {
        Some(Zoom::PerColumn(n)) => app.view.zoom_to(n),
        Some(Zoom::Fit) | None => {}
    }
    for k in keys {
        app.key(*k);
    }
}
