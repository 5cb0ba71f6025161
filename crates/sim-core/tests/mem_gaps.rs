//! The memory model's per-kind costs that issue 25's leave-one-GPU-out misses isolated,
//! each against a hand-derived cycle count: a tensor copy's extra latency over a bulk
//! copy's, the floor under a copy's latency, the further sectors of a whole line from
//! L2, `cp.async.cg` (LDGSTS.BYPASS) reading L2 without L1, and an uncoalesced load's
//! misses after its first `l2_miss_burst_lines`.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

fn h100_with(sets: &[(&str, f64)]) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in sets {
        p.set(k, *v).unwrap();
    }
    p
}

/// The run's cycles, with `G` warm in L2 (every line a hit: no HBM draws) unless `cold`.
fn cycles(src: &str, p: &Profile, cold: bool) -> u64 {
    let cfg = RunConfig {
        warm_l2: if cold { vec![] } else { vec!["G".into()] },
        ..RunConfig::default()
    };
    run(&kernel(src), p, &cfg)
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

/// One thread: a copy of 1 KiB (`op`, with `box_` its tensor box or nothing), its wait.
fn copy(op: &str, box_: &str) -> String {
    format!(
        "kernel copy\nlaunch cta_threads=32 regs=32 smem=1024 grid=1\nbuffer G global size=1MiB\nshared s size=1024\nmbarrier mb[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes=1024\n  {op} s[0], G[0], bytes=1024{box_}, bar=mb[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=0\n  EXIT\n"
    )
}

const BULK: (&str, &str) = ("UBLKCP.S.G", "");
const TENSOR: (&str, &str) = ("UTMALDG.2D", ", row=256, pitch=256");

#[test]
fn a_tensor_copy_raises_the_floor_by_its_extra_latency_not_its_lines() {
    // The box's four rows of 256 B, 256 B apart, are the bulk copy's 1 KiB: the same
    // lines at the same turns. Only the tensor map's addressing differs, and it raises
    // the floor: with the floor above the lines' arrival (1000 cycles) the tensor copy
    // completes the extra later; with none (the lines arrive about 300 cycles after the
    // turn) an extra below that hides behind them, one past it shows what it exceeds.
    for extra in [0.0, 7.0, 30.0] {
        let p = h100_with(&[
            ("tma_tensor_extra_latency", extra),
            ("tma_min_latency", 1000.0),
            ("jitter_l2", 0.0),
        ]);
        let bulk = cycles(&copy(BULK.0, BULK.1), &p, false);
        let tensor = cycles(&copy(TENSOR.0, TENSOR.1), &p, false);
        assert_eq!(tensor - bulk, extra as u64, "extra {extra}");
        let p = h100_with(&[
            ("tma_tensor_extra_latency", extra),
            ("tma_min_latency", 0.0),
            ("jitter_l2", 0.0),
        ]);
        let bulk = cycles(&copy(BULK.0, BULK.1), &p, false);
        assert_eq!(cycles(&copy(TENSOR.0, TENSOR.1), &p, false), bulk);
    }
    // No floor, an extra of 1000: the tensor copy completes 1000 after its turn, where
    // the bulk copy's lines took the port time of 1 KiB and the far latency.
    let p = h100_with(&[
        ("tma_tensor_extra_latency", 1000.0),
        ("tma_min_latency", 0.0),
        ("jitter_l2", 0.0),
    ]);
    let lines = (1024.0 / p.t.l2_bytes_per_clk_sm_max).ceil() as u64 + p.t.lat_l2_far as u64;
    let bulk = cycles(&copy(BULK.0, BULK.1), &p, false);
    let tensor = cycles(&copy(TENSOR.0, TENSOR.1), &p, false);
    assert_eq!(tensor - bulk, 1000 - lines);
}

#[test]
fn a_copy_completes_no_sooner_than_the_floor_after_its_turn() {
    // With no floor, 1 KiB from L2 completes its lines' port time plus the far L2
    // latency after its turn (about 300 cycles): a floor of 100 changes nothing. A floor
    // of 1000 or 2000 is the copy's time from its turn, so the run grows by the
    // difference, 1000 cycles, and by 1000 - (what the lines took) over no floor.
    let run_with = |floor: f64| {
        let p = h100_with(&[("tma_min_latency", floor), ("jitter_l2", 0.0)]);
        cycles(&copy(BULK.0, BULK.1), &p, false)
    };
    let (none, low, high, higher) = (
        run_with(0.0),
        run_with(100.0),
        run_with(1000.0),
        run_with(2000.0),
    );
    assert_eq!(low, none);
    assert_eq!(higher - high, 1000);
    let p = h100_with(&[("jitter_l2", 0.0)]);
    // The lines: 8 of 128 B crossing the port at l2_bytes_per_clk_sm_max, the last far
    // pair's (lines 6 and 7: `Memory::is_far` by line bit 1) far latency after its turn.
    let port = (1024.0 / p.t.l2_bytes_per_clk_sm_max).ceil() as u64;
    let lines = port + p.t.lat_l2_far as u64;
    assert_eq!(high - none, 1000 - lines);
}

/// One warp loads from `G` at `addr` (an expression of `lane`), then uses the value.
fn load(addr: &str) -> String {
    format!(
        "kernel load\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nbuffer G global size=1MiB\nrole main warps=0..0\n  LDG.E R4, G[{addr}]\n  FADD R5, R4, R4\n  EXIT\n"
    )
}

#[test]
fn a_whole_line_from_l2_returns_its_further_sectors_later() {
    // 32 lanes x 4 B: one line of 4 sectors. Its last sector returns 3 x l2_sector_cycles
    // (rounded up) after a one-sector load's would; raising the cost by 5 per sector adds
    // 15 cycles, and a one-lane load (one sector) does not move.
    let at = |c: f64, addr: &str| {
        let p = h100_with(&[("l2_sector_cycles", c), ("jitter_l2", 0.0)]);
        cycles(&load(addr), &p, false)
    };
    assert_eq!(at(5.0, "lane * 4") - at(0.0, "lane * 4"), 15);
    assert_eq!(at(2.5, "lane * 4") - at(0.0, "lane * 4"), 8);
    assert_eq!(at(5.0, "0"), at(0.0, "0"));
}

/// One warp: an async copy of 16 B per lane (`op`) from line 0, committed and waited
/// for; then (`again`) an LDG of the same line and its use.
fn ldgsts(op: &str, again: bool) -> String {
    let tail = if again {
        "  LDG.E R4, G[lane * 4]\n  FADD R5, R4, R4\n"
    } else {
        ""
    };
    format!(
        "kernel ldgsts\nlaunch cta_threads=32 regs=32 smem=512 grid=1\nbuffer G global size=1MiB\nshared s size=512\nrole main warps=0..0\n  {op} s[lane * 16], G[lane * 4], R2\n  LDGDEPBAR\n  DEPBAR.LE SB0, 0\n{tail}  EXIT\n"
    )
}

#[test]
fn a_bypassing_async_copy_fills_at_its_own_latency_and_leaves_l1_empty() {
    let p = h100_with(&[
        ("lat_ldgsts_fill", 40.0),
        ("lat_ldgsts_bypass_fill", 11.0),
        ("jitter_l2", 0.0),
    ]);
    // From L2 (warm): the same line, the same turn; the fill differs by 40 - 11.
    let ca = cycles(&ldgsts("LDGSTS.E.128", false), &p, false);
    let cg = cycles(&ldgsts("LDGSTS.E.BYPASS.128", false), &p, false);
    assert_eq!(ca - cg, 29);
    // A load of the line after the copy: L1 holds it after the .ca copy (an L1 hit),
    // not after the .cg one (an L2 hit again, the L2 latency instead of L1's).
    let ca2 = cycles(&ldgsts("LDGSTS.E.128", true), &p, false) - ca;
    let cg2 = cycles(&ldgsts("LDGSTS.E.BYPASS.128", true), &p, false) - cg;
    assert!(
        cg2 >= ca2 + (p.t.lat_l2_near - p.t.lat_l1_hit) as u64,
        "{ca2} {cg2}"
    );
}

/// One warp's `LDG.E.CG` (not allocated in L1: every line from L2) of `lines` lines, lane
/// i in line i % lines, then its use.
fn lines_load(lines: u32) -> String {
    format!(
        "kernel lines\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nbuffer G global size=1MiB\nrole main warps=0..0\n  LDG.E.CG R4, G[(lane % {lines}) * 128]\n  FADD R5, R4, R4\n  EXIT\n"
    )
}

#[test]
fn an_uncoalesced_loads_misses_after_the_burst_leave_the_gap_later() {
    // The built-in stagger (lines `l2_line_cycles` apart: more than a one-sector line's
    // port time, so each line leaves on a whole cycle, crosses the port within it and
    // arrives its partition's latency after): lines 8 to 15 of a 16-line load arrive
    // last and leave `l2_miss_burst_gap` later, so the load ends exactly the gap later;
    // an 8-line load has no line past the burst and does not move.
    let at = |lines: u32, gap: f64| {
        let p = h100_with(&[("l2_miss_burst_gap", gap), ("jitter_l2", 0.0)]);
        cycles(&lines_load(lines), &p, false)
    };
    for gap in [7.0, 26.0, 40.0] {
        assert_eq!(at(16, gap) - at(16, 0.0), gap as u64, "gap {gap}");
        assert_eq!(at(8, gap), at(8, 0.0), "gap {gap}");
    }
    // All lines leaving together (no stagger, one latency for both partitions): the 9th
    // line alone leaves the gap later, so it arrives last, the gap minus what the port
    // took for the first nine lines (32 B each) after the load without the gap.
    let flat = |burst: f64, gap: f64| {
        let p = h100_with(&[
            ("l2_line_cycles", 0.0),
            ("lat_l2_far", 260.0),
            ("lat_l2_near", 260.0),
            ("l2_miss_burst_lines", burst),
            ("l2_miss_burst_gap", gap),
            ("jitter_l2", 0.0),
        ]);
        (
            cycles(&lines_load(9), &p, false),
            p.t.l2_bytes_per_clk_sm_max,
        )
    };
    let ((with, rate), (without, _)) = (flat(8.0, 30.0), flat(8.0, 0.0));
    let line = 32.0 / rate;
    let expected = (30.0 + line).ceil() - (9.0 * line).ceil();
    assert_eq!(with - without, expected as u64);
    // A burst of 9 or more lines: the gap never applies.
    assert_eq!(flat(9.0, 30.0).0, without);
}
