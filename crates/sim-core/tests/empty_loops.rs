//! A loop whose body never runs takes no cycles (loop control is free), so a billion of
//! its trips would hold a run in one cycle, out of the watchdog's and Ctrl-C's reach
//! (issue 29). The engine stops such a warp with a fault that says why.

use sim_core::{Profile, RunConfig, SimError};

fn run(src: &str) -> Result<sim_core::RunResult, SimError> {
    let k = isa::parse_kernel(src).unwrap();
    sim_core::run(
        &k,
        &Profile::builtin("h100").unwrap(),
        &RunConfig::default(),
    )
}

#[test]
fn a_billion_trips_of_a_loop_whose_if_never_holds_fault_at_once() {
    let t = std::time::Instant::now();
    let e = run("kernel empty\nlaunch cta_threads=32 regs=32 grid=1\nrole main warps=0..0\n  loop i 0..1000000000\n    if i < 0\n      FFMA R1, R1, R2, 0.5\n  EXIT\n")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "run-time fault: CTA 0 warp 0 (role main) at `(loop control)`, cycle 0: 16777216 loop trips in a row without an instruction (a loop whose body never runs, its `if` never holding?): they would take no cycle, so the run stops here; give the loop fewer trips or its body an instruction"
    );
    // (Debug builds step a few million trips a second.)
    assert!(t.elapsed().as_secs() < 60);
}

#[test]
fn a_loop_whose_if_holds_now_and_then_runs() {
    // A million trips, an instruction every 1000th: never 2^24 trips in a row.
    let r = run("kernel sparse\nlaunch cta_threads=32 regs=32 grid=1\nrole main warps=0..0\n  loop i 0..1000000\n    if i % 1000 == 0\n      FFMA R1, R1, R2, 0.5\n  EXIT\n")
        .unwrap();
    assert_eq!(r.instructions, 1000 + 1);
}
