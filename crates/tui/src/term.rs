//! The interactive terminal: raw mode, the alternate screen and mouse capture on the
//! way in; restored on the way out, whether the viewer quits, fails or panics.

use std::io::{self, Write};
use std::time::Duration;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::App;
use crate::draw::draw;

/// Puts the terminal back as it was: cooked mode, the main screen, no mouse capture.
/// Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut out = io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = out.flush();
}

/// Restores the terminal when dropped: on return, on error and while unwinding.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Runs the viewer until the user quits. The terminal is restored on every way out;
/// a panic's message is printed after the restoration, on the normal screen.
pub fn run(mut app: App) -> io::Result<()> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enable_raw_mode()?;
    let _guard = Guard;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let mut dirty = true;
    loop {
        if dirty {
            terminal.draw(|f| {
                let area = f.area();
                draw(&mut app, area, f.buffer_mut())
            })?;
            dirty = false;
        }
        if app.quit {
            break;
        }
        if event::poll(Duration::from_millis(50))? {
            match event::read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release => app.key(k),
                Event::Mouse(m) => app.mouse(m),
                Event::Resize(..) => terminal.autoresize()?,
                _ => {}
            }
            dirty = true;
        }
        // A what-if in flight: redraw its progress; one finished: the new run.
        dirty |= app.poll() || app.pending.iter().any(Option::is_some);
    }
    Ok(())
}
