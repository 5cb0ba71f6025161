//! `lat_mbarrier_lane_period`: a TRYWAIT issued by part of a warp (`lanes=1`: the other
//! lanes wait at the end of an `if (lane == 0)` region) on a phase not yet complete is
//! not woken by the phase; it ends at the first whole period after its issue that
//! follows the completion (`data/gaps/lanewait/`). A whole warp's wait wakes
//! `lat_mbarrier_wake` after the arrive that completes the phase.

use sim_core::{Profile, RunConfig, SimError, run};

fn sim(src: &str, p: &Profile) -> Result<u64, SimError> {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default()).map(|r| r.cycles)
}

/// Warp 0 waits on `full` at cycle 0 (`lanes` of it); warp 1, on another sub-partition,
/// sleeps `ns` and then completes the phase with an arrive.
fn kernel(lanes: &str, ns: u64) -> String {
    format!(
        "kernel lanewait\nlaunch cta_threads=64 regs=32 smem=0 grid=1\nmbarrier full count=1\n\
role waiter warps=0..0\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0{lanes}\n  EXIT\n\
role arriver warps=1..1\n  NANOSLEEP {ns}\n  SYNCS.ARRIVE.TRANS64 full[0]\n  EXIT\n"
    )
}

/// The arrive issues at cycle a (after the sleep). A whole warp wakes at a + W
/// (`lat_mbarrier_wake`), its EXIT issues then and the warp retires a cycle later:
/// a + W + 1 cycles, the arriver's EXIT long done. One lane's wait, issued at cycle 0,
/// ends at the first multiple of the period P at or after a, ceil(a / P) P, and the
/// kernel takes a cycle more.
#[test]
fn a_partial_warps_wait_ends_at_whole_periods_from_its_issue() {
    let p = Profile::builtin("h100").unwrap();
    let (period, wake) = (
        p.t.lat_mbarrier_lane_period as u64,
        p.t.lat_mbarrier_wake as u64,
    );
    for ns in [100, 250, 400] {
        let whole = sim(&kernel("", ns), &p).unwrap();
        let arrive = whole - wake - 1;
        let partial = sim(&kernel(", lanes=1", ns), &p).unwrap();
        assert_eq!(partial, arrive.div_ceil(period) * period + 1, "{ns} ns");
        // `lanes=32` is the whole warp
        assert_eq!(sim(&kernel(", lanes=32", ns), &p).unwrap(), whole);
        // The period follows the profile.
        let mut q = p.clone();
        q.set("lat_mbarrier_lane_period", 100.0).unwrap();
        assert_eq!(
            sim(&kernel(", lanes=1", ns), &q).unwrap(),
            arrive.div_ceil(100) * 100 + 1
        );
    }
    // At 250 ns (495 cycles at the profile's clock) the arrive is in the third period:
    // the lane goes on at 603, five cycles after the warp woken by the arrive (598).
    let whole = sim(&kernel("", 250), &p).unwrap();
    assert_eq!(whole - wake - 1, 495);
    assert_eq!(sim(&kernel(", lanes=1", 250), &p).unwrap(), 3 * period + 1);
}

/// A period of 0 (a profile may set it: `whole` allows 0) is no period: the partial
/// warp's wait is woken as a whole warp's, not divided by zero.
#[test]
fn a_zero_period_wakes_a_partial_warp_as_a_whole_one() {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("lat_mbarrier_lane_period", 0.0).unwrap();
    for ns in [100, 400] {
        assert_eq!(
            sim(&kernel(", lanes=1", ns), &p).unwrap(),
            sim(&kernel("", ns), &p).unwrap(),
            "{ns} ns"
        );
    }
}

/// A phase complete when the partial warp's TRYWAIT issues is probed as by a whole warp
/// (measured: one lane and one thread alone both 689 cycles after a 300-cycle delay).
#[test]
fn a_partial_warps_wait_on_a_complete_phase_is_a_probe() {
    let p = Profile::builtin("h100").unwrap();
    let src = |lanes: &str| {
        format!(
            "kernel done\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nmbarrier full count=1\n\
role main warps=0..0\n  SYNCS.ARRIVE.TRANS64 full[0]\n  NANOSLEEP 500\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0{lanes}\n  EXIT\n"
        )
    };
    assert_eq!(
        sim(&src(", lanes=1"), &p).unwrap(),
        sim(&src(""), &p).unwrap()
    );
}

/// A lane count outside 1..32 is the kernel's error, named at the instruction.
#[test]
fn a_lane_count_outside_a_warp_is_an_error() {
    let p = Profile::builtin("h100").unwrap();
    for bad in ["0", "33", "warp - 1"] {
        match sim(&kernel(&format!(", lanes={bad}"), 100), &p) {
            Err(e) => {
                let m = e.to_string();
                assert!(m.contains("1 to 32 lanes"), "{bad}: {m}");
            }
            Ok(c) => panic!("lanes={bad} ran ({c} cycles)"),
        }
    }
}

/// `NOP lanes=N` (the BSYNC ending a region N lanes ran): below 32 the warp's next
/// instruction issues `bsync_rejoin_cycles` after the NOP's stall count ends. One warp,
/// `FADD; NOP stall=S; FADD; EXIT`: converged, the FADDs issue at 0 and 2 (the NOP at 1,
/// a stall count of 1 is the next cycle), EXIT at 3, 4 cycles; with S = 4 the second
/// FADD waits for the count (1 + 4), 7 cycles. Rejoined, each takes
/// `bsync_rejoin_cycles` more, and an expression decides per warp.
#[test]
fn a_rejoin_holds_the_warp_beyond_the_bsyncs_count() {
    let p = Profile::builtin("h100").unwrap();
    let r = p.t.bsync_rejoin_cycles as u64;
    let src = |nop: &str, warps: u32| {
        format!(
            "kernel rejoin\nlaunch cta_threads={} regs=32 smem=0 grid=1\nrole main warps=0..{}\n  FADD R1, R2, R3\n  {nop}\n  FADD R4, R5, R6\n  EXIT\n",
            32 * warps,
            warps - 1
        )
    };
    assert_eq!(sim(&src("NOP", 1), &p).unwrap(), 4);
    assert_eq!(sim(&src("NOP stall=4", 1), &p).unwrap(), 7);
    assert_eq!(sim(&src("NOP lanes=32", 1), &p).unwrap(), 4);
    assert_eq!(sim(&src("NOP lanes=1", 1), &p).unwrap(), 4 + r);
    assert_eq!(sim(&src("NOP lanes=1, stall=4", 1), &p).unwrap(), 7 + r);
    // four warps, one per sub-partition: only warp 0 ran the region with one lane
    assert_eq!(
        sim(&src("NOP lanes=32 - 31 * (warp == 0)", 4), &p).unwrap(),
        4 + r
    );
    assert!(sim(&src("NOP lanes=0", 1), &p).is_err());
}
