//! The run's timeline as a Chrome trace (`smsim run --trace FILE`) (JSON Trace Event
//! Format), which chrome://tracing and ui.perfetto.dev open. One process per CTA, one
//! thread per warp (named with its role), one slice per warp state (its arguments name
//! the instruction it is charged to); the CTA's barrier and mbarrier phases on a thread
//! of their own; the units in a process of their own. Timestamps are SM cycles (shown as
//! microseconds by the viewers).
//!
//! Written as the run goes: a slice when its state ends, so a long run's trace never
//! sits in memory (only each warp's open state does, until the trace is finished).

use std::collections::{BTreeSet, HashMap};
use std::io::{self, Write};

use sim_core::WarpState;
use sim_core::result::WarpSummary;
use sim_core::sink::{Event, Sink, Unit, WarpId};

/// What the events name by number, in the kernel's words.
pub struct Labels {
    /// Each role: its first and last warp, its name, its instructions by pc.
    roles: Vec<(u32, u32, String, Vec<String>)>,
    /// The mbarrier declarations (events number their elements in one sequence).
    mbarriers: Vec<isa::ast::MbarrierDecl>,
}

impl Labels {
    /// The kernel's roles, instruction texts and mbarrier names; an error where the
    /// kernel cannot be lowered (the run would refuse it too).
    pub fn of(kernel: &isa::Kernel) -> Result<Labels, String> {
        let texts = sim_core::lower::instruction_texts(kernel)
            .map_err(|e| format!("line {}:{}: {}", e.line, e.col, e.message))?;
        Ok(Labels {
            roles: kernel
                .roles
                .iter()
                .zip(texts)
                .map(|(r, t)| (r.first_warp, r.last_warp, r.name.clone(), t))
                .collect(),
            mbarriers: kernel.mbarriers.clone(),
        })
    }

    fn role(&self, warp: u32) -> Option<&(u32, u32, String, Vec<String>)> {
        self.roles
            .iter()
            .find(|(first, last, ..)| (*first..=*last).contains(&warp))
    }

    fn mbarrier(&self, flat: u32) -> String {
        match isa::ast::mbarrier_at(&self.mbarriers, flat) {
            Some((name, el)) => format!("{name}[{el}]"),
            None => format!("mbarrier {flat}"),
        }
    }
}

/// The pid of the units' process, and the tid of each CTA's barrier thread: beyond any
/// CTA and warp.
const UNITS_PID: u32 = 1_000_000;
const BARRIERS_TID: u32 = 1_000_000;

/// The trace's list of events as it is written.
struct EventList<W: Write> {
    out: W,
    /// Whether an event is written (the next needs a comma before it).
    any: bool,
    /// The first write that failed: the rest are skipped, and `finish` returns it.
    error: Option<io::Error>,
}

impl<W: Write> EventList<W> {
    /// Writes one event (a JSON object that `write` produces).
    fn emit(&mut self, write: impl FnOnce(&mut W) -> io::Result<()>) {
        if self.error.is_some() {
            return;
        }
        let sep: &[u8] = if self.any { b",\n" } else { b"" };
        self.any = true;
        if let Err(e) = self.out.write_all(sep).and_then(|()| write(&mut self.out)) {
            self.error = Some(e);
        }
    }
}

/// Streams the trace into `out` as the engine runs; `finish` ends it.
pub struct ChromeTrace<W: Write> {
    list: EventList<W>,
    labels: Labels,
    /// Each warp's state since its last change: from when, which, charged to which pc.
    open: HashMap<WarpId, (u64, WarpState, u32)>,
    warps: BTreeSet<(u32, u32)>,
    ctas: BTreeSet<u32>,
}

impl<W: Write> ChromeTrace<W> {
    /// Starts the trace (its opening is written at once).
    pub fn new(mut out: W, labels: Labels) -> io::Result<ChromeTrace<W>> {
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        Ok(ChromeTrace {
            list: EventList {
                out,
                any: false,
                error: None,
            },
            labels,
            open: HashMap::new(),
            warps: BTreeSet::new(),
            ctas: BTreeSet::new(),
        })
    }

    /// Ends the warp's open state at `at`: its slice, if it lasted.
    fn close(&mut self, warp: WarpId, at: u64) {
        let Some((start, state, pc)) = self.open.remove(&warp) else {
            return;
        };
        if at <= start {
            return;
        }
        let instruction = self
            .labels
            .role(warp.warp)
            .and_then(|r| r.3.get(pc as usize))
            .map_or("", String::as_str);
        self.list.emit(|o| {
            write!(
                o,
                "{{\"name\":\"{}\",\"cat\":\"warp\",\"ph\":\"X\",\"ts\":{start},\"dur\":{},\"pid\":{},\"tid\":{},\"args\":{{\"pc\":{pc},\"instruction\":",
                state.name(),
                at - start,
                warp.cta,
                warp.warp
            )?;
            serde_json::to_writer(&mut *o, instruction)?;
            o.write_all(b"}}")
        });
    }

    /// An instant event on a CTA's barrier thread.
    fn instant(&mut self, cta: u32, cycle: u64, name: &str) {
        self.list.emit(|o| {
            o.write_all(b"{\"name\":")?;
            serde_json::to_writer(&mut *o, name)?;
            write!(
                o,
                ",\"cat\":\"barrier\",\"ph\":\"i\",\"s\":\"t\",\"ts\":{cycle},\"pid\":{cta},\"tid\":{BARRIERS_TID}}}"
            )
        });
    }

    /// A metadata event naming a process or thread (`what`: process_name, thread_name,
    /// thread_sort_index with a number).
    fn meta(&mut self, what: &str, pid: u32, tid: Option<u32>, arg: serde_json::Value) {
        let key = if what.ends_with("index") {
            "sort_index"
        } else {
            "name"
        };
        let tid = tid.map_or(String::new(), |t| format!(",\"tid\":{t}"));
        self.list.emit(|o| {
            write!(
                o,
                "{{\"name\":\"{what}\",\"ph\":\"M\",\"pid\":{pid}{tid},\"args\":{{\"{key}\":"
            )?;
            serde_json::to_writer(&mut *o, &arg)?;
            o.write_all(b"}}")
        });
    }

    /// Ends the trace at cycle `end` with the names of its processes and threads, and
    /// returns the writer, flushed; or the first write that failed. Each warp's last state ends where the warp
    /// finished, as `finished` says (a finished run's `RunResult::warps`), and at `end`
    /// for a warp it does not name (a run that stopped with the warp still running).
    pub fn finish(mut self, end: u64, finished: &[WarpSummary]) -> io::Result<W> {
        // The events say when a warp's last state begins but not when the warp leaves
        // (its EXIT issues before its stores drain): the run's summary does.
        let at: HashMap<(u32, u32), u64> = finished
            .iter()
            .map(|w| ((w.cta, w.warp), w.finished))
            .collect();
        let mut open: Vec<WarpId> = self.open.keys().copied().collect();
        open.sort_by_key(|w| (w.cta, w.warp));
        for w in open {
            let finish = at.get(&(w.cta, w.warp)).copied().unwrap_or(end);
            self.close(w, finish);
        }
        for c in std::mem::take(&mut self.ctas) {
            self.meta("process_name", c, None, format!("CTA {c}").into());
            self.meta("process_sort_index", c, None, c.into());
            self.meta(
                "thread_name",
                c,
                Some(BARRIERS_TID),
                "barriers and mbarriers".into(),
            );
        }
        for (c, w) in std::mem::take(&mut self.warps) {
            let name = match self.labels.role(w) {
                Some(r) => format!("warp {w} ({})", r.2),
                None => format!("warp {w}"),
            };
            self.meta("thread_name", c, Some(w), name.into());
            self.meta("thread_sort_index", c, Some(w), w.into());
        }
        self.meta("process_name", UNITS_PID, None, "SM units".into());
        if let Some(e) = self.list.error.take() {
            return Err(e);
        }
        self.list.out.write_all(b"\n]}\n")?;
        self.list.out.flush()?;
        Ok(self.list.out)
    }
}

impl<W: Write> Sink for ChromeTrace<W> {
    fn event(&mut self, e: Event) {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                ..
            } => {
                self.close(warp, cycle);
                self.warps.insert((warp.cta, warp.warp));
                self.open.insert(warp, (cycle, state, pc));
            }
            Event::WarpExit { .. } => {}
            // The warp's last state ends where it finished, not at its CTA's end.
            Event::WarpFinish { cycle, warp } => self.close(warp, cycle),
            Event::CtaLaunch { cta, .. } => {
                self.ctas.insert(cta);
            }
            // A CTA's warps have all finished by its end, each at its own cycle, which
            // `finish` learns from the run's summary: their last states stay open.
            Event::CtaDone { .. } => {}
            Event::UnitBusy {
                start, end, unit, ..
            } => {
                let (name, tid) = match unit {
                    Unit::Pipe { pipe, subpartition } => (
                        format!("{} pipe", pipe.name()),
                        10 * pipe.index() as u32 + subpartition as u32,
                    ),
                    Unit::Tma => ("TMA".to_string(), 1000),
                    Unit::SharedMemory => ("shared memory".to_string(), 1001),
                    Unit::L1 => ("L1".to_string(), 1002),
                };
                let dur = end.saturating_sub(start).max(1);
                self.list.emit(|o| {
                    write!(
                        o,
                        "{{\"name\":\"{name}\",\"cat\":\"unit\",\"ph\":\"X\",\"ts\":{start},\"dur\":{dur},\"pid\":{UNITS_PID},\"tid\":{tid}}}"
                    )
                });
            }
            Event::MbarrierPhase {
                cycle,
                cta,
                mbarrier,
                phase,
            } => {
                let name = format!(
                    "{} completes a phase ({phase} so far)",
                    self.labels.mbarrier(mbarrier)
                );
                self.instant(cta, cycle, &name);
            }
            Event::BarrierRelease { cycle, cta, id } => {
                self.instant(cta, cycle, &format!("barrier {id} releases"));
            }
            Event::Issue { .. } | Event::Memory { .. } => {}
        }
    }
}
