//! Sinks that take states ahead (`Sink::STATES_AHEAD`: an issue tells its warp's register
//! wait from the next cycle at once, and the engine skips that cycle's look at the warp)
//! end with what they would hold fed every event in cycle order: the same timeline, read
//! back interval by interval with its causes, units, memory and sync events, and the
//! same critical path, for every library kernel under two policies.

use sim_core::cause::WaitCause;
use sim_core::diagnose::critical_path::PathRecorder;
use sim_core::scheduler::Policy;
use sim_core::sink::{Event, RunEnd, RunHeader, Sink, WarpId};
use sim_core::timeline::Timeline;
use sim_core::{Profile, RunConfig, WarpState};

/// `T` fed as a sink that takes no state ahead: every event in cycle order.
struct InOrder<T>(T);

impl<T: Sink> Sink for InOrder<T> {
    // (`STATES_AHEAD` left false: the engine's strict order.)
    fn begin(&mut self, h: &RunHeader) {
        self.0.begin(h);
    }
    fn event(&mut self, e: Event) {
        self.0.event(e);
    }
    fn state_change(
        &mut self,
        cycle: u64,
        warp: WarpId,
        state: WarpState,
        pc: u32,
        cause: Option<WaitCause>,
    ) {
        self.0.state_change(cycle, warp, state, pc, cause);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.0.finish(end);
    }
}

/// Everything a timeline's reader sees (kinds and causes by value, not by their
/// indexes, which follow the order the timeline met them in).
fn read_back(t: &Timeline) -> String {
    let mut out = format!("end {} outcome {:?}\n", t.end, t.outcome);
    for w in &t.warps {
        out += &format!(
            "warp {:?} role {} sp {} {}..{} exit {:?}\n",
            w.id, w.role, w.subpartition, w.started, w.finished, w.exited
        );
        for iv in w.intervals() {
            out += &format!(
                "  {}..{} {:?} pc {} {:?}\n",
                iv.start,
                iv.end,
                iv.state,
                iv.pc,
                t.cause(&iv)
            );
        }
    }
    for u in &t.units {
        out += &format!("unit {:?} {:?}\n", u.unit, u.busy().collect::<Vec<_>>());
    }
    for m in &t.memory {
        out += &format!("memory {:?} {:?}\n", m.level, m.requests);
    }
    out += &format!("syncs {:?}\n", t.syncs);
    out
}

#[test]
fn timelines_and_critical_paths_are_the_same_taken_ahead() {
    const { assert!(Timeline::STATES_AHEAD && PathRecorder::STATES_AHEAD) };
    const { assert!(!InOrder::<Timeline>::STATES_AHEAD) };
    let mut runs = 0;
    for f in traces::families() {
        let profile = Profile::builtin(f.profile).unwrap();
        for s in f.schedules {
            let k = traces::generate(f.name, s.name, &[]).unwrap();
            // (The default's lone pick and a general one.)
            for policy in [Policy::TwoLevel, Policy::Gto] {
                let cfg = RunConfig {
                    policy,
                    max_ctas: Some(1),
                    ..Default::default()
                };
                let name = format!("{}/{} {policy:?}", f.name, s.name);
                let mut ahead = Timeline::new();
                let a = sim_core::run_sink(&k, &profile, &cfg, &mut ahead);
                let mut in_order = InOrder(Timeline::new());
                let b = sim_core::run_sink(&k, &profile, &cfg, &mut in_order);
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}: result");
                assert_eq!(
                    read_back(&ahead),
                    read_back(&in_order.0),
                    "{name}: timeline"
                );

                let mut ahead = PathRecorder::new(&profile);
                sim_core::run_sink(&k, &profile, &cfg, &mut ahead).unwrap();
                let mut in_order = InOrder(PathRecorder::new(&profile));
                sim_core::run_sink(&k, &profile, &cfg, &mut in_order).unwrap();
                let (a, b) = (ahead.walk(), in_order.0.walk());
                assert_eq!(
                    serde_json::to_string(&a).unwrap(),
                    serde_json::to_string(&b).unwrap(),
                    "{name}: critical path"
                );
                runs += 1;
            }
        }
    }
    assert!(runs >= 10, "{runs} runs");
}
