//! L1TEX crowded by scattered reads (issue 25 gap 6), against hand-derived cycle counts.
//! W warps each chase their own 8 lines, one warp-load of 32 lines a step (lanes
//! `STRIDE` bytes apart, as `gap.l1_spread.*` in data/gaps): once the lines are in L1,
//! the tag stage is the bound, so a step of all W warps takes W x 32 x the tag stage's
//! cycles a line. Scattered reads (lanes 1 KiB apart) with `l1_crowded_requests` or more
//! others in flight take `l1_crowded_line_cycles` a line, with
//! `l1_crowded_many_requests` or more `l1_crowded_many_line_cycles`, others one line a
//! cycle (`l1_lines_per_clk` 1).

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// W warps, `iters` steps of a load (`op`: LDG.E or LDG.E.CG) and a dependent add; each
/// lane's 8 lines 128 B apart, lanes `stride` bytes apart.
fn chase(warps: u32, stride: u32, op: &str, iters: u32) -> String {
    format!(
        "kernel crowd\nlaunch cta_threads={t} regs=32 grid=1\nbuffer P size={size}\n\
         param ITERS={iters}\nrole main warps=0..{last}\n  loop i 0..ITERS\n    \
         {op} R1, P[(warp * 32 + lane) * {stride} + (i % 8) * 128]\n    \
         IADD3 R2, R1, R2, RZ\n  EXIT\n",
        t = warps * 32,
        size = warps * 32 * stride + 8 * 128,
        last = warps - 1,
    )
}

/// Cycles per step of every warp, from 40 to 80 steps (the lines in L1 from the 8th).
fn per_step(warps: u32, stride: u32, op: &str, p: &Profile) -> f64 {
    let c = |n| {
        run(
            &kernel(&chase(warps, stride, op, n)),
            p,
            &RunConfig::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles as f64
    };
    (c(80) - c(40)) / 40.0
}

fn near(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 0.01 * want,
        "{what}: {got} against {want}"
    );
}

#[test]
fn scattered_reads_slow_the_tag_stage_only_once_l1_is_crowded() {
    let p = Profile::builtin("h100").unwrap();
    let (crowd, per_line) = (p.t.l1_crowded_requests, p.t.l1_crowded_line_cycles);
    assert_eq!(crowd, 12.0, "the measured threshold");
    // 12 warps: 11 others in flight at most, one line a cycle (GPU 1.006)
    near(per_step(12, 1024, "LDG.E", &p), 12.0 * 32.0, "12 warps");
    // 13 and 16 warps: crowded, per_line a line (GPU 1.189, 1.180)
    for w in [13u32, 16] {
        near(
            per_step(w, 1024, "LDG.E", &p),
            f64::from(w) * 32.0 * per_line,
            &format!("{w} warps"),
        );
    }
}

#[test]
fn a_larger_crowd_costs_less_a_line() {
    let p = Profile::builtin("h100").unwrap();
    let (many, per_line) = (
        p.t.l1_crowded_many_requests,
        p.t.l1_crowded_many_line_cycles,
    );
    assert_eq!(many, 22.0, "between 20 and 24 warps");
    // 20 warps: 19 others in flight, the first crowd's cost (GPU 1.170)
    near(
        per_step(20, 1024, "LDG.E", &p),
        20.0 * 32.0 * p.t.l1_crowded_line_cycles,
        "20 warps",
    );
    // 24 and 32 warps: 23 and 31 others, the larger crowd's cost (GPU 1.131, 1.147)
    for w in [24u32, 32] {
        near(
            per_step(w, 1024, "LDG.E", &p),
            f64::from(w) * 32.0 * per_line,
            &format!("{w} warps"),
        );
    }
    // at or below L1's line time a crowd costs nothing, never less than uncrowded
    let mut q = p.clone();
    q.set("l1_crowded_many_line_cycles", 0.5).unwrap();
    near(
        per_step(24, 1024, "LDG.E", &q),
        24.0 * 32.0,
        "no faster than L1",
    );
}

#[test]
fn a_page_a_line_and_reads_past_l1_stay_at_one_line_a_cycle() {
    let p = Profile::builtin("h100").unwrap();
    // lanes 4 KiB apart (GPU 1.007 at 16 warps) and `.cg` (1.006): not crowded
    near(
        per_step(16, 4096, "LDG.E", &p),
        16.0 * 32.0,
        "lanes 4 KiB apart",
    );
    near(per_step(16, 1024, "LDG.E.CG", &p), 16.0 * 32.0, ".cg");
}

#[test]
fn without_the_crowding_cost_sixteen_warps_run_at_one_line_a_cycle() {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("l1_crowded_line_cycles", 1.0).unwrap();
    near(
        per_step(16, 1024, "LDG.E", &p),
        16.0 * 32.0,
        "no crowding cost",
    );
}
