//! The run's timeline as a Chrome trace (`smsim run --trace FILE`) (JSON Trace Event
//! Format), which chrome://tracing and ui.perfetto.dev open. One process per CTA, one
//! thread per warp (named with its role), one slice per warp state (its arguments name
//! the instruction it is charged to, with its source line, and what it waits on); the CTA's barrier and mbarrier phases on a thread
//! of their own; the units in a process of their own. Timestamps are SM cycles (shown as
//! microseconds by the viewers).
//!
//! Written as the run goes: a slice when its state ends, so a long run's trace never
//! sits in memory (only each warp's open state does). Each warp's last slice ends at its
//! `WarpFinish`, where the run's result says it finished.

use std::collections::{BTreeSet, HashMap};
use std::io::{self, Write};

use sim_core::WarpState;
use sim_core::sink::{Event, RoleInfo, RunHeader, Sink, Unit, WaitCause, WarpId};

/// What the events name by number, in the kernel's words: the run's header.
#[derive(Default)]
struct Labels {
    /// The roles, their warps and their instructions with source lines.
    roles: Vec<RoleInfo>,
    /// Each mbarrier of a CTA by its number: `full[0]`.
    mbarriers: Vec<String>,
}

impl Labels {
    fn role(&self, warp: u32) -> Option<&RoleInfo> {
        self.roles
            .iter()
            .find(|r| (r.first_warp..=r.last_warp).contains(&warp))
    }

    fn mbarrier(&self, flat: u32) -> String {
        match self.mbarriers.get(flat as usize) {
            Some(name) => name.clone(),
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
    /// Each warp's state since its last change: from when, which, charged to which pc,
    /// waiting on what.
    open: HashMap<WarpId, (u64, WarpState, u32, Option<WaitCause>)>,
    warps: BTreeSet<(u32, u32)>,
    ctas: BTreeSet<u32>,
}

impl<W: Write> ChromeTrace<W> {
    /// Starts the trace (its opening is written at once); the run's header names what
    /// its events number.
    pub fn new(mut out: W) -> io::Result<ChromeTrace<W>> {
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        Ok(ChromeTrace {
            list: EventList {
                out,
                any: false,
                error: None,
            },
            labels: Labels::default(),
            open: HashMap::new(),
            warps: BTreeSet::new(),
            ctas: BTreeSet::new(),
        })
    }

    /// Ends the warp's open state at `at`: its slice, if it lasted. Its arguments: the
    /// instruction it is charged to (pc, text, source line) and what it waits on.
    fn close(&mut self, warp: WarpId, at: u64) {
        let Some((start, state, pc, cause)) = self.open.remove(&warp) else {
            return;
        };
        if at <= start {
            return;
        }
        let instruction = self
            .labels
            .role(warp.warp)
            .and_then(|r| r.instructions.get(pc as usize));
        let (text, line) = instruction.map_or(("", 0), |i| (i.text.as_str(), i.line));
        self.list.emit(|o| {
            write!(
                o,
                "{{\"name\":\"{}\",\"cat\":\"warp\",\"ph\":\"X\",\"ts\":{start},\"dur\":{},\"pid\":{},\"tid\":{},\"args\":{{\"pc\":{pc},\"line\":{line},\"instruction\":",
                state.name(),
                at - start,
                warp.cta,
                warp.warp
            )?;
            serde_json::to_writer(&mut *o, text)?;
            if let Some(c) = &cause {
                o.write_all(b",\"waits_on\":")?;
                serde_json::to_writer(&mut *o, c)?;
            }
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
    /// returns the writer, flushed; or the first write that failed. (Each warp's last
    /// state ended at its `WarpFinish`; a state still open, of a run that did not say
    /// its warps' ends, ends at `end`.)
    pub fn finish(mut self, end: u64) -> io::Result<W> {
        let mut open: Vec<WarpId> = self.open.keys().copied().collect();
        open.sort_by_key(|w| (w.cta, w.warp));
        for w in open {
            self.close(w, end);
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
                Some(r) => format!("warp {w} ({})", r.name),
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
    fn begin(&mut self, header: &RunHeader) {
        self.labels = Labels {
            roles: header.roles.clone(),
            mbarriers: header.mbarriers.clone(),
        };
    }

    fn event(&mut self, e: Event) {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause,
            } => {
                self.close(warp, cycle);
                self.warps.insert((warp.cta, warp.warp));
                self.open.insert(warp, (cycle, state, pc, cause));
            }
            Event::WarpExit { .. } => {}
            // The warp's last state ends where it finished, not at its CTA's end.
            Event::WarpFinish { cycle, warp } => self.close(warp, cycle),
            Event::CtaLaunch { cta, .. } => {
                self.ctas.insert(cta);
            }
            // A CTA's warps have all finished by its end, each at its `WarpFinish`.
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
