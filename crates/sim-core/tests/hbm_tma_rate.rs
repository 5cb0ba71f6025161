//! A TMA copy's lines from HBM take one SM's sustained HBM share at their own rate,
//! `hbm_tma_bytes_per_clk_sm_max`, while an LDG's lines take it at
//! `hbm_bytes_per_clk_sm_max`, and the chip's share binds both alike (issue 25: one SM's
//! bulk-copy stream from HBM measures 90.8 B/clk against its LDG stream's 97.8, the whole
//! chip 1602 against 1597). Each against a hand-derived cycle count.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// The H100 profile with HBM's draws off (no far lines, no slow windows, no jitter), no
/// burst ahead of the sustained rate, and an SM port of 256 B/clk (above every rate
/// below, so that only the sustained rates bind), with `sets` on top.
fn h100_with(sets: &[(&str, f64)]) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in [
        ("lat_hbm_far_extra", 0.0),
        ("hbm_tail_window_probability", 0.0),
        ("jitter_hbm", 0.0),
        ("hbm_burst_bytes", 0.0),
        ("hbm_burst_bytes_per_clk_sm", 512.0),
        ("l2_bytes_per_clk_sm_max", 256.0),
    ]
    .iter()
    .chain(sets)
    {
        p.set(k, *v).unwrap();
    }
    p
}

/// Cycles of a run from cold (every line from HBM).
fn cycles(src: &str, p: &Profile) -> u64 {
    run(&kernel(src), p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

/// One thread per CTA, `grid` CTAs: a bulk copy of 64 KiB from HBM into shared memory,
/// its wait (each CTA its own 64 KiB).
fn copy(grid: u32) -> String {
    format!(
        "kernel copy\nlaunch cta_threads=32 regs=32 smem=65536 grid={grid}\nbuffer G global size=16MiB\nshared s size=65536\nmbarrier mb[1] count=1\nrole main warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes=65536\n  UBLKCP.S.G s[0], G[cta * 65536], bytes=65536, bar=mb[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=0\n  EXIT\n"
    )
}

/// One warp: 16 loads of 16 B a lane (4 lines each, 64 lines, 8 KiB), independent, then
/// a use of the last.
const LOADS: &str = "kernel loads\nlaunch cta_threads=32 regs=64 smem=0 grid=1\nbuffer G global size=16MiB\nrole main warps=0..0\n  loop i 0..16\n    LDG.E.128 R4, G[i * 512 + lane * 16]\n  FADD R8, R4, R4\n  EXIT\n";

#[test]
fn a_copys_lines_from_hbm_move_at_the_copy_rate() {
    // 512 lines of 128 B all take their turn at the copy's start; the last one's turn
    // ends 65536 / rate after it, and the copy completes that plus the fixed latencies
    // later. At 32 B/clk against 64 the copy completes 2048 - 1024 = 1024 cycles later,
    // whatever LDG's rate (64 or 128 B/clk): the copy's lines count rate / copy rate of
    // it per byte.
    for ldg in [64.0, 128.0] {
        let at = |tma: f64| {
            cycles(
                &copy(1),
                &h100_with(&[
                    ("hbm_bytes_per_clk_sm_max", ldg),
                    ("hbm_tma_bytes_per_clk_sm_max", tma),
                ]),
            )
        };
        assert_eq!(at(32.0) - at(64.0), 1024, "LDG at {ldg} B/clk");
        assert_eq!(at(64.0) - at(128.0), 512, "LDG at {ldg} B/clk");
    }
    // The same rates: as before copies had a rate of their own (one server, one cost).
    let same = h100_with(&[
        ("hbm_bytes_per_clk_sm_max", 64.0),
        ("hbm_tma_bytes_per_clk_sm_max", 64.0),
    ]);
    let apart = h100_with(&[
        ("hbm_bytes_per_clk_sm_max", 128.0),
        ("hbm_tma_bytes_per_clk_sm_max", 64.0),
    ]);
    assert_eq!(cycles(&copy(1), &same), cycles(&copy(1), &apart));
}

#[test]
fn loads_keep_their_rate_and_the_chip_share_binds_copies_alike() {
    // An LDG's lines do not see the copies' rate.
    let loads = |tma: f64| {
        cycles(
            LOADS,
            &h100_with(&[
                ("hbm_bytes_per_clk_sm_max", 64.0),
                ("hbm_tma_bytes_per_clk_sm_max", tma),
            ]),
        )
    };
    assert_eq!(loads(16.0), loads(256.0));
    // 132 CTAs share the chip's 1597.9 B/clk, 12.1 each: below both copy rates, the
    // copies take the same time at either.
    let chip = |tma: f64| {
        cycles(
            &copy(132),
            &h100_with(&[
                ("hbm_bytes_per_clk_sm_max", 64.0),
                ("hbm_tma_bytes_per_clk_sm_max", tma),
            ]),
        )
    };
    assert_eq!(chip(32.0), chip(64.0));
    // Below the chip's share, the copy rate binds again: 8 B/clk against 12.1.
    assert!(
        chip(8.0) > chip(32.0) + 2000,
        "{} {}",
        chip(8.0),
        chip(32.0)
    );
}
