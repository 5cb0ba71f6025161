//! The event stream: a header, states that tile each warp's life exactly (ending at its
//! finish), an end, and a sink that stops a run.

use std::collections::HashMap;

use sim_core::result::SimError;
use sim_core::sink::{Event, Outcome, POLL_CYCLES, RunEnd, RunHeader, Sink, VecSink, WarpId};
use sim_core::state::STATE_COUNT;
use sim_core::{Profile, RunConfig, RunResult, WarpState};

fn kernel_file(path: &str) -> (String, isa::Kernel) {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&full).unwrap();
    let k = isa::parse_kernel(&src).unwrap_or_else(|e| panic!("{}", e.render(path, &src)));
    (src, k)
}

fn h100() -> Profile {
    Profile::builtin("h100").unwrap()
}

fn cfg() -> RunConfig {
    RunConfig {
        max_ctas: Some(3),
        ..Default::default()
    }
}

fn traced(k: &isa::Kernel, cfg: &RunConfig) -> (Result<RunResult, SimError>, VecSink) {
    let mut sink = VecSink::default();
    let r = sim_core::run_with(k, &h100(), cfg, cfg.policy.build(), &mut sink);
    (r, sink)
}

/// Each warp's state cycles from its events: a state lasts from its StateChange to the
/// next one or the warp's finish. Also each warp's first and finish cycles.
fn intervals(events: &[Event]) -> HashMap<WarpId, ([u64; STATE_COUNT], u64, u64)> {
    let mut open: HashMap<WarpId, (u64, WarpState)> = HashMap::new();
    let mut out: HashMap<WarpId, ([u64; STATE_COUNT], u64, u64)> = HashMap::new();
    for e in events {
        match *e {
            Event::StateChange {
                cycle, warp, state, ..
            } => {
                let entry = out
                    .entry(warp)
                    .or_insert(([0; STATE_COUNT], cycle, u64::MAX));
                assert_eq!(entry.2, u64::MAX, "{warp:?} changes state after its finish");
                if let Some((since, s)) = open.insert(warp, (cycle, state)) {
                    assert!(cycle >= since, "{warp:?} goes back in time");
                    entry.0[s.index()] += cycle - since;
                }
            }
            Event::WarpFinish { cycle, warp } => {
                let (since, s) = open.remove(&warp).expect("a finish after a state");
                assert!(cycle >= since);
                let entry = out.get_mut(&warp).unwrap();
                entry.0[s.index()] += cycle - since;
                entry.2 = cycle;
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "warps without a finish: {open:?}");
    out
}

/// The events' intervals agree with the result's per-warp start, finish and state totals.
fn assert_tiles(r: &RunResult, events: &[Event]) {
    let iv = intervals(events);
    assert_eq!(iv.len(), r.warps.len());
    for w in &r.warps {
        let id = WarpId {
            cta: w.cta,
            warp: w.warp,
        };
        let (states, start, finish) = iv[&id];
        assert_eq!((start, finish), (w.started, w.finished), "{id:?}");
        assert_eq!(states, w.states.to_array(), "{id:?}");
        assert_eq!(states.iter().sum::<u64>(), w.finished - w.started);
    }
}

#[test]
fn states_tile_every_warps_life_and_end_at_its_finish() {
    for path in [
        "examples/gemm_ws.smk",
        "examples/saxpy.smk",
        "examples/mbarrier_pingpong.smk",
        "examples/cp_async.smk",
        "crates/sim-core/benches/gemm.smk",
    ] {
        let (_, k) = kernel_file(path);
        let (r, sink) = traced(&k, &cfg());
        let r = r.unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_tiles(&r, &sink.events);
        let end = sink.end.expect("an end");
        assert_eq!(end.cycles, r.cycles);
        assert!(matches!(end.outcome, Outcome::Finished));
    }
}

#[test]
fn idle_warps_finish_at_their_finish_cycle_not_their_ctas_end() {
    let (_, k) = kernel_file("examples/gemm_ws.smk");
    let (r, sink) = traced(&k, &cfg());
    let r = r.unwrap();
    // The idle role's warps exit at once: EXIT issues at cycle 0, the warp retires at 1.
    let idle: Vec<_> = r.warps.iter().filter(|w| w.role == "idle").collect();
    assert!(!idle.is_empty());
    for w in idle {
        assert_eq!(w.finished, w.started + 1);
        let id = WarpId {
            cta: w.cta,
            warp: w.warp,
        };
        let finish = sink.events.iter().find_map(|e| match *e {
            Event::WarpFinish { cycle, warp } if warp == id => Some(cycle),
            _ => None,
        });
        assert_eq!(finish, Some(w.finished));
        assert!(w.finished < r.cycles);
    }
}

#[test]
fn the_header_names_roles_instructions_and_their_source_lines() {
    let (src, k) = kernel_file("examples/gemm_ws.smk");
    let (_, sink) = traced(&k, &cfg());
    let h: RunHeader = sink.header.expect("a header");
    assert_eq!(h.kernel, k.name);
    assert_eq!((h.profile.as_str(), h.seed), ("h100", 1));
    assert_eq!(h.warps_per_cta, 12);
    let names: Vec<_> = h.roles.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["producer", "idle", "consumer"]);
    assert_eq!(h.roles[2].warps_per_cta(), 8);
    let lines: Vec<&str> = src.lines().collect();
    for r in &h.roles {
        for i in &r.instructions {
            let opcode = i.text.split([' ', '.']).next().unwrap();
            let line = lines[i.line as usize - 1].trim_start();
            assert!(
                line.starts_with(opcode),
                "`{}` at line {}: `{line}`",
                i.text,
                i.line
            );
        }
    }
    assert!(h.mbarriers.iter().any(|m| m == "full[0]"));
}

#[test]
fn a_kernel_without_spans_takes_the_lines_of_its_printed_text() {
    let (_, mut k) = kernel_file("examples/mbarrier_pingpong.smk");
    fn clear(stmts: &mut [isa::ast::Stmt]) {
        for s in stmts {
            match s {
                isa::ast::Stmt::Instr(i) => i.span = Default::default(),
                isa::ast::Stmt::Loop { body, .. } | isa::ast::Stmt::If { body, .. } => clear(body),
            }
        }
    }
    for r in &mut k.roles {
        clear(&mut r.body);
    }
    let printed = k.to_string();
    let lines: Vec<&str> = printed.lines().collect();
    let (_, sink) = traced(&k, &cfg());
    for r in &sink.header.unwrap().roles {
        for i in &r.instructions {
            assert!(i.line > 0, "`{}` has no line", i.text);
            let opcode = i.text.split([' ', '.']).next().unwrap();
            assert!(lines[i.line as usize - 1].trim_start().starts_with(opcode));
        }
    }
}

/// Stops the run at the first poll past `after` cycles (seen through its events).
struct StopAfter {
    inner: VecSink,
    after: u64,
    last: u64,
    polls: u32,
}

impl Sink for StopAfter {
    fn begin(&mut self, h: &RunHeader) {
        self.inner.begin(h);
    }
    fn event(&mut self, e: Event) {
        if let Event::StateChange { cycle, .. } | Event::Issue { cycle, .. } = e {
            self.last = self.last.max(cycle);
        }
        self.inner.event(e);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.inner.finish(end);
    }
    fn keep_going(&mut self) -> bool {
        self.polls += 1;
        self.last < self.after
    }
}

#[test]
fn a_sink_stops_a_run_with_its_partial_result() {
    let (_, k) = kernel_file("crates/sim-core/benches/gemm.smk");
    let c = cfg();
    let full = sim_core::run(&k, &h100(), &c).unwrap();
    let mut sink = StopAfter {
        inner: VecSink::default(),
        after: 3 * POLL_CYCLES,
        last: 0,
        polls: 0,
    };
    let r = sim_core::run_with(&k, &h100(), &c, c.policy.build(), &mut sink);
    let Err(SimError::Stopped(part)) = r else {
        panic!("not stopped: {r:?}")
    };
    // It stops at the poll after it saw cycle `after` (when the loop passes the next
    // multiple of POLL_CYCLES), after the last cycle it visited before that multiple.
    assert!(
        part.cycles > 3 * POLL_CYCLES && part.cycles <= 5 * POLL_CYCLES,
        "{}",
        part.cycles
    );
    assert!(part.cycles < full.cycles);
    assert!(part.instructions < full.instructions);
    // One question per multiple passed, the last the one answered false. The run ends
    // after cycle `part.cycles - 1`, the last it visited (which may sit just below a
    // multiple: then `part.cycles` is that multiple, not yet passed).
    assert_eq!(sink.polls as u64, (part.cycles - 1) / POLL_CYCLES + 1);
    assert_tiles(&part, &sink.inner.events);
    let end = sink.inner.end.unwrap();
    assert!(matches!(end.outcome, Outcome::Stopped));
    assert_eq!(end.cycles, part.cycles);
}

#[test]
fn a_deadlock_ends_with_its_report_and_every_warps_finish() {
    let k = isa::parse_kernel(
        "kernel stuck\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nrole a warps=0..0\n  BAR.SYNC 1, 64\n  EXIT\nrole b warps=1..1\n  EXIT\n",
    )
    .unwrap();
    let (r, sink) = traced(&k, &cfg());
    assert!(matches!(r, Err(SimError::Deadlock(_))), "{r:?}");
    let end = sink.end.unwrap();
    let Outcome::Deadlock(report) = end.outcome else {
        panic!("{:?}", end.outcome)
    };
    assert_eq!(report.warps.len(), 1);
    // Both warps' lives end: b's at its finish, a's at the deadlock.
    let finishes: Vec<_> = sink
        .events
        .iter()
        .filter_map(|e| match e {
            Event::WarpFinish { cycle, warp } => Some((warp.warp, *cycle)),
            _ => None,
        })
        .collect();
    assert_eq!(finishes.len(), 2, "{finishes:?}");
    assert!(finishes.contains(&(0, end.cycles)));
}
