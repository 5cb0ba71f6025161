//! A long run watched: how far it got, said on stderr now and then, and Ctrl-C, which
//! stops it where it is so that its report so far can be printed.
//!
//! [`Watched`] wraps the run's sink: it asks nothing of the engine but its polls
//! (`Sink::keep_going`, every `POLL_CYCLES` simulated cycles), so a run without a trace
//! stays as fast as without it. A poll comes when the cycle loop passes a multiple of
//! `POLL_CYCLES`, once however far a fast-forward jumps: without events, the cycles
//! said are a lower bound. With a trace (events on), the CTAs done and the last
//! event's cycle are counted too.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sim_core::sink::{Event, POLL_CYCLES, RunEnd, RunHeader, Sink};

/// Progress is said once a run has taken this long, and again this often.
const EVERY: Duration = Duration::from_secs(1);
/// Where stderr is not a terminal (a log), a line this often instead.
const EVERY_IN_A_LOG: Duration = Duration::from_secs(10);

/// Whether SIGINT (Ctrl-C) has come: the run stops at its next poll. A second Ctrl-C
/// ends the process at once, with status 130.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    // Registered in this order, the second signal finds the flag set and exits.
    let registered = signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        130,
        Arc::clone(&flag),
    )
    .and_then(|_| signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&flag)));
    if let Err(e) = registered {
        // Without the handler Ctrl-C still ends the run, only without its report.
        crate::outcome::say(&format!("warning: Ctrl-C will not report: {e}\n"));
    }
    flag
}

/// A sink that says how far the run got and stops it on Ctrl-C; its events go to
/// `inner` (a trace, or nothing).
pub struct Watched<S> {
    /// The sink the events are for.
    pub inner: S,
    /// Whether to say progress at all (not under `--quiet` or `--json`).
    show: bool,
    /// Set by Ctrl-C.
    interrupt: Arc<AtomicBool>,
    started: Instant,
    /// When progress is said next.
    next: Instant,
    /// Polls so far: each is at least `POLL_CYCLES` further.
    polls: u64,
    /// The latest cycle an event named (0 without events).
    cycle: u64,
    /// CTAs finished, as events said (only with events).
    ctas_done: u32,
    /// CTAs the run simulates (from its header).
    ctas: u32,
    /// Whether a progress line is on a terminal, to be cleared.
    on_screen: bool,
    /// Whether the run was stopped by Ctrl-C.
    stopped: bool,
}

impl<S: Sink> Watched<S> {
    /// Watches a run whose events go to `inner`; says progress if `show`.
    pub fn new(inner: S, show: bool, interrupt: Arc<AtomicBool>) -> Watched<S> {
        let now = Instant::now();
        Watched {
            inner,
            show,
            interrupt,
            started: now,
            next: now + EVERY,
            polls: 0,
            cycle: 0,
            ctas_done: 0,
            ctas: 0,
            on_screen: false,
            stopped: false,
        }
    }

    /// Whether Ctrl-C stopped the run.
    pub fn interrupted(&self) -> bool {
        self.stopped
    }

    /// One line of progress, on stderr.
    fn say(&mut self) {
        let cycles = (self.polls * POLL_CYCLES).max(self.cycle);
        let ctas = if S::ENABLED {
            format!("{} of {} CTAs done", self.ctas_done, self.ctas)
        } else {
            present::units::plural(self.ctas as u64, "CTA")
        };
        let line = format!(
            "smsim: {} cycles simulated so far ({ctas}), {:.0} s; Ctrl-C stops and reports",
            group(cycles),
            self.started.elapsed().as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        let terminal = err.is_terminal();
        let _ = if terminal {
            write!(err, "\r{line}\x1b[K")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
        self.on_screen = terminal;
        self.next = Instant::now() + if terminal { EVERY } else { EVERY_IN_A_LOG };
    }
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
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

impl<S: Sink> Sink for Watched<S> {
    const ENABLED: bool = S::ENABLED;
    const POLLS: bool = true;
    const RACES: bool = S::RACES;

    fn races(&mut self) -> Option<&mut sim_core::races::Checker> {
        self.inner.races()
    }

    fn begin(&mut self, header: &RunHeader) {
        self.ctas = header.ctas_simulated;
        self.inner.begin(header);
    }

    fn event(&mut self, e: Event) {
        match &e {
            Event::CtaDone { cycle, .. } => {
                self.ctas_done += 1;
                self.cycle = self.cycle.max(*cycle);
            }
            Event::StateChange { cycle, .. } => self.cycle = self.cycle.max(*cycle),
            _ => {}
        }
        self.inner.event(e);
    }

    fn finish(&mut self, end: &RunEnd) {
        if self.on_screen {
            // The line is cleared: the report follows on stdout.
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
        self.inner.finish(end);
    }

    fn keep_going(&mut self) -> bool {
        self.polls += 1;
        if self.interrupt.load(Ordering::Relaxed) {
            self.stopped = true;
            return false;
        }
        if self.show && Instant::now() >= self.next {
            self.say();
        }
        self.inner.keep_going()
    }
}

/// A line on stderr every few seconds while a long step without progress of its own
/// runs (`calibrate fit`), saying what it is and how long it has taken; it stops when
/// dropped.
pub struct Heartbeat {
    /// Dropping the sender ends the thread's wait at once.
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    /// Says `what` on stderr now, then how long it has taken every `every`.
    pub fn start(what: String, every: Duration) -> Heartbeat {
        Heartbeat::saying(what, every, crate::outcome::say)
    }

    /// The same, each line given to `say` (whole, with its newline).
    fn saying(what: String, every: Duration, say: fn(&str)) -> Heartbeat {
        say(&format!("{what}\n"));
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let started = Instant::now();
        let thread = std::thread::spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every)
            {
                say(&format!("  ... {:.0} s\n", started.elapsed().as_secs_f64()));
            }
        });
        Heartbeat {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A line saying where `calibrate fit` is, as a step or an item of one starts:
/// `calibrate fit: step 3 of 6, 1-D searches, 4 of 24 (lat_fma), 12 s`.
pub fn fit_stage(p: &calibrate::fit::Progress, elapsed: Duration) -> String {
    let item = if p.items > 1 {
        format!(", {} of {}", p.item, p.items)
    } else {
        String::new()
    };
    let what = p.what.map(|w| format!(" ({w})")).unwrap_or_default();
    format!(
        "calibrate fit: step {} of {}, {}{item}{what}, {:.0} s\n",
        p.step,
        calibrate::fit::STEPS,
        p.name,
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::{Heartbeat, fit_stage, group};

    #[test]
    fn a_fit_stage_names_its_step_item_and_time() {
        let p = calibrate::fit::Progress {
            step: 3,
            name: "1-D searches",
            item: 4,
            items: 24,
            what: Some("lat_fma"),
        };
        assert_eq!(
            fit_stage(&p, Duration::from_millis(12_400)),
            "calibrate fit: step 3 of 6, 1-D searches, 4 of 24 (lat_fma), 12 s\n"
        );
        let one = calibrate::fit::Progress {
            step: 1,
            name: "read off the data",
            item: 1,
            items: 1,
            what: None,
        };
        assert_eq!(
            fit_stage(&one, Duration::ZERO),
            "calibrate fit: step 1 of 6, read off the data, 0 s\n"
        );
    }

    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn keep(line: &str) {
        SAID.lock().unwrap().push(line.to_string());
    }

    /// A heartbeat says what runs at once, then a line each interval, and nothing after
    /// it is dropped.
    #[test]
    fn a_heartbeat_beats_until_dropped() {
        let beat = Heartbeat::saying("fitting".into(), Duration::from_millis(40), keep);
        std::thread::sleep(Duration::from_millis(150));
        drop(beat);
        let n = SAID.lock().unwrap().len();
        std::thread::sleep(Duration::from_millis(100));
        let said = SAID.lock().unwrap().clone();
        assert_eq!(said.len(), n, "a line after the drop: {said:?}");
        assert_eq!(said[0], "fitting\n");
        assert!(n >= 3, "{said:?}");
        assert!(
            said[1..]
                .iter()
                .all(|l| l.starts_with("  ... ") && l.ends_with(" s\n"))
        );
    }

    #[test]
    fn cycles_read_in_groups_of_three() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
    }
}
