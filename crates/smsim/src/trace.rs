//! `smsim run --trace FILE`: the run's timeline as a Chrome trace (JSON Trace Event
//! Format), which chrome://tracing and ui.perfetto.dev open. One process per CTA, one
//! thread per warp, one slice per warp state; the units get a process of their own.
//! Timestamps are SM cycles (shown as microseconds by the viewers).

use std::collections::HashMap;
use std::io::Write;

use serde_json::{Value, json};
use sim_core::WarpState;
use sim_core::sink::{Event, Sink, Unit, WarpId};

/// Collects state spans and unit activity as the engine runs.
#[derive(Default)]
pub struct ChromeTrace {
    open: HashMap<WarpId, (u64, WarpState, u32)>,
    events: Vec<Value>,
    ctas: Vec<u32>,
}

const UNITS_PID: u32 = 1_000_000;

impl ChromeTrace {
    fn close(&mut self, warp: WarpId, at: u64) {
        if let Some((start, state, pc)) = self.open.remove(&warp)
            && at > start
        {
            self.events.push(json!({
                "name": state.name(), "cat": "warp", "ph": "X", "ts": start, "dur": at - start,
                "pid": warp.cta, "tid": warp.warp, "args": { "pc": pc }
            }));
        }
    }

    /// Writes the trace; `end` closes the spans still open.
    pub fn write(mut self, end: u64, out: &mut impl Write) -> std::io::Result<()> {
        let open: Vec<WarpId> = self.open.keys().copied().collect();
        for w in open {
            self.close(w, end);
        }
        for &c in &self.ctas {
            self.events.push(json!({"name": "process_name", "ph": "M", "pid": c, "args": {"name": format!("CTA {c}")}}));
        }
        self.events.push(json!({"name": "process_name", "ph": "M", "pid": UNITS_PID, "args": {"name": "SM units"}}));
        serde_json::to_writer(
            &mut *out,
            &json!({ "traceEvents": self.events, "displayTimeUnit": "ns" }),
        )?;
        out.flush()
    }
}

impl Sink for ChromeTrace {
    fn event(&mut self, e: Event) {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
            } => {
                self.close(warp, cycle);
                self.open.insert(warp, (cycle, state, pc));
            }
            Event::WarpExit { .. } => {}
            Event::CtaLaunch { cta, .. } => self.ctas.push(cta),
            Event::CtaDone { cycle, cta } => {
                let done: Vec<WarpId> =
                    self.open.keys().filter(|w| w.cta == cta).copied().collect();
                for w in done {
                    self.close(w, cycle);
                }
            }
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
                self.events.push(json!({"name": name, "cat": "unit", "ph": "X", "ts": start, "dur": end.saturating_sub(start).max(1), "pid": UNITS_PID, "tid": tid}));
            }
            Event::MbarrierPhase {
                cycle,
                cta,
                mbarrier,
                phase,
            } => {
                self.events.push(json!({"name": format!("mbarrier {mbarrier} phase {phase}"), "ph": "i", "s": "p", "ts": cycle, "pid": cta, "tid": 0}));
            }
            Event::BarrierRelease { cycle, cta, id } => {
                self.events.push(json!({"name": format!("barrier {id} released"), "ph": "i", "s": "p", "ts": cycle, "pid": cta, "tid": 0}));
            }
            Event::Issue { .. } | Event::Memory { .. } => {}
        }
    }
}
