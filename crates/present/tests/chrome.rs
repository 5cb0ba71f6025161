//! The Chrome trace and the timeline viewer read one run the same way: every warp's
//! slices in the trace are the `Timeline`'s intervals (start, end, state, instruction),
//! each warp's last ending where the run's result says it finished. (The trace may cut
//! one state in two where what it waits on changes: slices of the same state and
//! instruction that touch are joined before the comparison.)

use present::chrome::ChromeTrace;
use sim_core::sink::{Event, RunEnd, RunHeader, Sink};
use sim_core::timeline::Timeline;

/// Both sinks fed the same run.
struct Both<'a> {
    trace: &'a mut ChromeTrace<Vec<u8>>,
    timeline: &'a mut Timeline,
}

impl Sink for Both<'_> {
    fn begin(&mut self, h: &RunHeader) {
        self.trace.begin(h);
        self.timeline.begin(h);
    }
    fn event(&mut self, e: Event) {
        self.trace.event(e.clone());
        self.timeline.event(e);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.trace.finish(end);
        self.timeline.finish(end);
    }
}

/// A warp's slices as (start, end, state, pc), in time order.
type Slices = Vec<(u64, u64, String, u64)>;

fn slices_of(events: &[serde_json::Value], cta: u32, warp: u32) -> Slices {
    let mut v: Slices = events
        .iter()
        .filter(|e| e["cat"] == "warp" && e["pid"] == cta && e["tid"] == warp)
        .map(|e| {
            let ts = e["ts"].as_u64().unwrap();
            (
                ts,
                ts + e["dur"].as_u64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                e["args"]["pc"].as_u64().unwrap(),
            )
        })
        .collect();
    v.sort();
    // Join touching slices of one state and instruction (a change of cause only).
    let mut joined: Slices = Vec::new();
    for s in v {
        match joined.last_mut() {
            Some(last) if last.1 == s.0 && last.2 == s.2 && last.3 == s.3 => last.1 = s.1,
            _ => joined.push(s),
        }
    }
    joined
}

fn check(file: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file);
    let kernel = isa::parse_kernel(&std::fs::read_to_string(path).unwrap()).unwrap();
    let profile = sim_core::Profile::builtin("h100").unwrap();
    let cfg = sim_core::RunConfig::default();
    let mut trace = ChromeTrace::new(Vec::new()).unwrap();
    let mut timeline = Timeline::new();
    let r = sim_core::run_with(
        &kernel,
        &profile,
        &cfg,
        cfg.policy.build(),
        &mut Both {
            trace: &mut trace,
            timeline: &mut timeline,
        },
    )
    .unwrap();
    let bytes = trace.finish(r.cycles).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    assert_eq!(timeline.warps.len(), r.warps.len());
    for w in &timeline.warps {
        // The timeline splits a state where its cause changes (an mbarrier wait on
        // arrivals, then on copies); the trace's slices are per state and instruction.
        let mut from_timeline: Slices = Vec::new();
        for i in w.intervals().filter(|i| i.end > i.start) {
            let s = (i.start, i.end, i.state.name().to_string(), i.pc as u64);
            match from_timeline.last_mut() {
                Some(l) if l.1 == s.0 && l.2 == s.2 && l.3 == s.3 => l.1 = s.1,
                _ => from_timeline.push(s),
            }
        }
        let from_trace = slices_of(events, w.id.cta, w.id.warp);
        if from_trace != from_timeline {
            let at = from_trace
                .iter()
                .zip(&from_timeline)
                .position(|(a, b)| a != b)
                .unwrap_or(from_trace.len().min(from_timeline.len()));
            panic!(
                "{file}: warp {:?}: slice {at} differs: trace {:?}, timeline {:?} ({} and {} slices)",
                w.id,
                from_trace.get(at),
                from_timeline.get(at),
                from_trace.len(),
                from_timeline.len()
            );
        }
        let summary = r
            .warps
            .iter()
            .find(|s| s.cta == w.id.cta && s.warp == w.id.warp)
            .unwrap();
        assert_eq!(from_trace.last().unwrap().1, summary.finished, "{file}");
    }
}

#[test]
fn the_trace_and_the_timeline_agree() {
    for file in [
        "examples/gemm_ws.smk",
        "examples/saxpy.smk",
        "examples/mbarrier_pingpong.smk",
        "examples/cp_async.smk",
    ] {
        check(file);
    }
}
