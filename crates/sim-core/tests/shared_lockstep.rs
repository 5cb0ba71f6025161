//! First reads of a tile every SM of the wave reads, issued while this SM's copy of an
//! earlier such tile is still under way and its own lines from HBM are still arriving
//! (issue 25; `memory/first_read.rs`, `l2_shared_lockstep_cycles_per_sm`): the wave's SMs
//! run such a pipeline in lockstep, and the read completes no sooner than this SM's own
//! HBM lines booked before it + the number of SMs reading the line times the parameter.
//! Hand-derived with the wait long enough to dominate the stage (40 or 50 cycles per SM:
//! 5280 or 6600 cycles after the HBM lines at 132 SMs, against about 3200 cycles for the
//! two stages without it), so that the difference between two values is the difference of the
//! waits.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// The h100 profile with the lockstep wait at `per_sm` cycles per SM and HBM's and L2's
/// random delays off.
fn plain_h100(per_sm: f64) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in [
        ("jitter_hbm", 0.0),
        ("jitter_l2", 0.0),
        ("hbm_tail_probability", 0.0),
        ("l2_shared_lockstep_cycles_per_sm", per_sm),
    ] {
        p.set(k, v).unwrap();
    }
    p
}

/// `grid` CTAs of one thread; `stages` stages, each a 16 KiB copy of the CTA's own new
/// lines from HBM (`A`, cold) then the 32 KiB tile every CTA reads at that stage (`B`,
/// warm in L2), on the stage's mbarrier. `in_flight`: all stages issued before the first
/// wait (a pipeline); otherwise each stage waited for before the next is issued.
fn run_stages(grid: u32, stages: usize, in_flight: bool, per_sm: f64) -> u64 {
    let copy = "    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[k], bytes=49152\n    \
                UBLKCP.S.G s[k * 49152], A[(cta * 8 + k) * 16384], bytes=16384, bar=mb[k]\n    \
                UBLKCP.S.G s[k * 49152 + 16384], B[k * 32768], bytes=32768, bar=mb[k]\n";
    let wait = "    SYNCS.PHASECHK.TRANS64.TRYWAIT mb[k], parity=0\n";
    let body = if in_flight {
        format!("  loop k 0..{stages}\n{copy}  loop k 0..{stages}\n{wait}")
    } else {
        format!("  loop k 0..{stages}\n{copy}{wait}")
    };
    let smem = 49152 * stages;
    let src = format!(
        "kernel lockstep\nlaunch cta_threads=32 regs=32 smem={smem} grid={grid}\n\
         buffer A global size=32MiB\nbuffer B global size=1MiB\nshared s size={smem}\n\
         mbarrier mb[{stages}] count=1\nrole main warps=0..0\n{body}  EXIT\n"
    );
    let cfg = RunConfig {
        warm_l2: vec!["B".into()],
        ..RunConfig::default()
    };
    run(&kernel(&src), &plain_h100(per_sm), &cfg)
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

/// How much longer the kernel runs at 50 cycles per SM than at 40.
fn difference(grid: u32, stages: usize, in_flight: bool) -> i64 {
    run_stages(grid, stages, in_flight, 50.0) as i64
        - run_stages(grid, stages, in_flight, 40.0) as i64
}

#[test]
fn a_second_stage_in_flight_waits_after_the_hbm_lines() {
    // Two stages issued back to back: the first stage's tile has no earlier tile copy
    // under way (no lockstep wait); the second's starts while the first's is, and while
    // both stages' own lines are arriving: it completes 132 x 50 or 132 x 40 cycles after
    // the last of them, later than anything else the kernel waits for: 1320 cycles apart.
    // At 66 SMs 660.
    assert_eq!(difference(132, 2, true), 1320);
    assert_eq!(difference(66, 2, true), 660);
    // Three stages: the third waits after the HBM lines of all three, 132 x 50 or 40
    // after the last: the kernel's end moves by the same 1320 (the second stage's wait
    // ends before it).
    assert_eq!(difference(132, 3, true), 1320);
    // Without it the two stages end when their HBM lines and the first-read wait do
    // (`the_base_waits_whatever_the_sharers` in shared_first_read.rs); with it at 40 cycles
    // per SM, 5280 cycles after those lines, more than the 1320 above beyond that.
    let off = run_stages(132, 2, true, 0.0);
    let on = run_stages(132, 2, true, 40.0);
    assert!(on > off + 1320, "off {off}, at 40: {on}");
}

#[test]
fn one_stage_at_a_time_or_few_sharers_do_not_wait() {
    // Each stage waited for before the next is issued (a serialized loop): no earlier
    // tile copy is under way when a tile is read.
    assert_eq!(difference(132, 2, false), 0);
    // A tile two CTAs read (a TPC's pair): not the wave's.
    assert_eq!(difference(2, 2, true), 0);
}
