//! The interactive terminal: raw mode, the alternate screen and mouse capture on the
//! way in; restored on the way out, whether the viewer quits, fails or panics. A long
//! first simulation runs on a worker thread: the terminal shows its progress, then its
//! timeline so far, filled in as it goes; q stops it.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyCode, KeyEvent, KeyEventKind,
    KeyModifiers,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use sim_core::Profile;

use crate::app::App;
use crate::draw::{Loading, draw, draw_loading};
use crate::model::{
    FIRST_FRAME, PARTIAL_EVERY, Partials, Progress, RunData, RunSpec, simulate_live,
};

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

/// A run to simulate before the viewer opens: its spec, and the kernel and profile
/// already loaded (so that their errors were printed before the terminal changed).
pub struct Job {
    /// What to run.
    pub spec: RunSpec,
    /// The kernel, parameters applied and validated.
    pub kernel: isa::Kernel,
    /// The profile, overrides applied.
    pub profile: Profile,
}

/// How the viewer ended.
#[derive(Debug)]
pub enum Ended {
    /// The user quit (during the first simulation too).
    Quit,
    /// A run could not start: the error's text, as `smsim run` prints it, to print
    /// once the terminal is restored.
    Failed(String),
}

/// Enters raw mode and the alternate screen, with the terminal restored on every way
/// out (a panic's message printed after the restoration, on the normal screen).
fn enter() -> io::Result<(Terminal<CrosstermBackend<io::Stdout>>, Guard)> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enable_raw_mode()?;
    let guard = Guard;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    Ok((terminal, guard))
}

/// Runs the viewer until the user quits. The terminal is restored on every way out;
/// a panic's message is printed after the restoration, on the normal screen.
pub fn run(app: App) -> io::Result<()> {
    let (mut terminal, _guard) = enter()?;
    view(&mut terminal, app)
}

/// Simulates `jobs` on a worker thread while the terminal shows how far they got (the
/// cycle reached, CTAs done, time taken), then runs the viewer on the runs
/// (`make_app` makes it). A run shows its timeline so far from its first frame on
/// ([`FIRST_FRAME`]: its first two waves of CTAs done, or 0.4 s after launch; in compare
/// mode, beside the first run once that has finished), and answers keys while it
/// simulates (what-ifs excepted): each key asks for the run so far at the engine's
/// next poll, the viewer applies it and draws, and the place reached carries over to
/// the finished run. q, Esc or Ctrl-C while they simulate stop the simulation and
/// quit.
pub fn run_loading(
    jobs: Vec<Job>,
    color: bool,
    make_app: impl FnOnce(Vec<RunData>) -> App,
) -> io::Result<Ended> {
    let (mut terminal, _guard) = enter()?;
    let labels: Vec<String> = jobs.iter().map(|j| j.spec.label()).collect();
    let progress = Arc::new(Progress::default());
    let current = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel();
    // A run shows itself while it simulates: the worker hands the runs finished so far
    // and the one simulating (as far as it got) over `partial`, waits while this thread
    // draws them, and goes on with what comes back over `back` (a closed channel stops
    // it).
    let (partial_tx, partial) = channel::<Vec<RunData>>();
    let (back, back_rx) = channel::<Vec<RunData>>();
    let wanted = Arc::new(AtomicBool::new(false));
    let worker = {
        let (progress, current, stop) = (progress.clone(), current.clone(), stop.clone());
        let wanted = wanted.clone();
        std::thread::spawn(move || {
            let mut runs: Vec<RunData> = Vec::new();
            for (i, job) in jobs.iter().enumerate() {
                current.store(i, Ordering::Relaxed);
                progress.reset();
                let mut show = |run: RunData| {
                    let mut shown = std::mem::take(&mut runs);
                    shown.push(run);
                    partial_tx.send(shown).ok()?;
                    let mut shown = back_rx.recv().ok()?;
                    let run = shown.pop();
                    runs = shown;
                    run
                };
                let partials = Some(Partials {
                    first: FIRST_FRAME,
                    every: PARTIAL_EVERY,
                    show: &mut show,
                    wanted: Some(&wanted),
                });
                let run = simulate_live(
                    &job.spec,
                    &job.kernel,
                    &job.profile,
                    &progress,
                    Some(stop.clone()),
                    partials,
                );
                match run {
                    Ok(r) => runs.push(r),
                    Err(m) => {
                        let _ = tx.send(Err(m));
                        return;
                    }
                }
                if stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            let _ = tx.send(Ok(runs));
        })
    };
    let started = Instant::now();
    // The viewer of the run so far, once the first partial run came; and the keys and
    // clicks that wait for the next.
    let mut live: Option<App> = None;
    let mut queued: Vec<Event> = Vec::new();
    let runs = loop {
        if let Ok(runs) = partial.try_recv() {
            // The run so far, drawn as the viewer will draw it (the title says it is
            // partial), with the keys pressed since, and handed straight back to the
            // waiting simulation.
            let app = match &mut live {
                Some(app) => {
                    app.take_partial(runs);
                    app
                }
                None => {
                    let mut app = App::new(runs, None);
                    app.color = color;
                    live.insert(app)
                }
            };
            for e in queued.drain(..) {
                match e {
                    Event::Key(k) if is_what_if(k) => {
                        app.message = "what-ifs work once the run ends".into()
                    }
                    Event::Key(k) => app.key(k),
                    Event::Mouse(m) => app.mouse(m),
                    _ => {}
                }
            }
            terminal.draw(|f| {
                let area = f.area();
                draw(app, area, f.buffer_mut())
            })?;
            let _ = back.send(app.give_back());
        } else if live.is_none() {
            let loading = Loading {
                labels: labels.clone(),
                current: current.load(Ordering::Relaxed),
                progress: progress.now(),
                elapsed: started.elapsed(),
            };
            terminal.draw(|f| {
                let area = f.area();
                draw_loading(&loading, color, area, f.buffer_mut())
            })?;
        }
        match rx.try_recv() {
            Ok(Ok(runs)) => break runs,
            Ok(Err(m)) => return Ok(Ended::Failed(m)),
            Err(_) => {}
        }
        // Short: a partial frame waits here with the simulation paused.
        if event::poll(Duration::from_millis(10))? {
            match event::read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release && quits(k) => {
                    // The run stops at the engine's next poll: a few thousand cycles
                    // (or at once, if it waits for a partial frame: the channels
                    // close).
                    stop.store(true, Ordering::Relaxed);
                    drop((partial, back));
                    let _ = worker.join();
                    return Ok(Ended::Quit);
                }
                Event::Resize(..) => {
                    terminal.autoresize()?;
                    wanted.store(true, Ordering::Relaxed);
                }
                Event::Key(k) if k.kind == KeyEventKind::Release => {}
                e @ (Event::Key(_) | Event::Mouse(_)) if live.is_some() => {
                    queued.push(e);
                    wanted.store(true, Ordering::Relaxed);
                }
                _ => {}
            }
        }
    };
    let mut app = make_app(runs);
    if let Some(live) = &live {
        app.keep_place_of(live);
    }
    // Keys pressed after the last partial frame apply to the whole run.
    for e in queued {
        match e {
            Event::Key(k) => app.key(k),
            Event::Mouse(m) => app.mouse(m),
            _ => {}
        }
    }
    view(&mut terminal, app)?;
    Ok(Ended::Quit)
}

/// The keys that start a what-if (`:`, `w`, `p`, `r`): not while the first run
/// simulates.
fn is_what_if(k: KeyEvent) -> bool {
    matches!(k.code, KeyCode::Char(':' | 'w' | 'p' | 'r'))
        && !k.modifiers.contains(KeyModifiers::CONTROL)
}

/// q, Esc or Ctrl-C.
fn quits(k: KeyEvent) -> bool {
    match k.code {
        KeyCode::Char('q') | KeyCode::Esc => true,
        KeyCode::Char('c') => k.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

/// The viewer's loop: draw when something changed, read keys and the mouse, take
/// finished what-ifs.
fn view(terminal: &mut Terminal<CrosstermBackend<io::Stdout>>, mut app: App) -> io::Result<()> {
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
