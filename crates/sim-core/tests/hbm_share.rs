//! One SM's share of the chip's HBM bandwidth when the busy SMs do not all stream at
//! once (issue 25; `memory/load.rs`). Every busy SM runs the simulated SM's program: an
//! SM whose copies wait between transfers shares the chip with fewer SMs transferring at
//! the same moment and moves its lines faster than the even share, up to one SM's most;
//! an SM that always has lines queued keeps the even share. Hand-derived against the
//! profile's rates, HBM's random delays off.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// The h100 profile with every random or address-dependent part of an HBM line's
/// latency off: a line from HBM arrives `lat_hbm` after its turn.
fn plain_h100() -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in [
        ("jitter_hbm", 0.0),
        ("jitter_l2", 0.0),
        ("hbm_tail_probability", 0.0),
        ("lat_hbm_far_extra", 0.0),
        ("lat_hbm_tma_extra", 0.0),
    ] {
        p.set(k, v).unwrap();
    }
    p
}

/// One thread on each of `grid` SMs: `n` bulk copies of `bytes` from HBM (new lines
/// each), `stages` in flight, sleeping `sleep_ns` after each wait before the next copy.
fn stream(grid: u32, n: u32, bytes: u64, stages: u32, sleep_ns: u32) -> String {
    let sleep = if sleep_ns > 0 {
        format!("    NANOSLEEP {sleep_ns}\n")
    } else {
        String::new()
    };
    format!(
        "kernel stream\nlaunch cta_threads=32 regs=32 smem={smem} grid={grid}\n\
         buffer G global size=1GiB\nshared s size={smem}\nmbarrier mb[{stages}] count=1\n\
         role main warps=0..0\n  loop i 0..{stages}\n    \
         SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i], bytes={bytes}\n    \
         UBLKCP.S.G s[i * {bytes}], G[(cta * {n} + i) * {bytes}], bytes={bytes}, bar=mb[i]\n  \
         loop j 0..{n}\n    SYNCS.PHASECHK.TRANS64.TRYWAIT mb[j % {stages}], parity=(j / {stages}) & 1\n\
         {sleep}    if j + {stages} < {n}\n      \
         SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[j % {stages}], bytes={bytes}\n      \
         UBLKCP.S.G s[(j % {stages}) * {bytes}], G[(cta * {n} + j + {stages}) * {bytes}], bytes={bytes}, bar=mb[j % {stages}]\n  \
         EXIT\n",
        smem = stages as u64 * bytes,
    )
}

fn cycles(src: &str, p: &Profile) -> f64 {
    run(&kernel(src), p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles as f64
}

/// Cycles per copy: the slope between `n` and `n + 8` copies (the first copies, which
/// fill the stages and meet the first window's assumed load, cancel out).
fn per_copy(grid: u32, n: u32, bytes: u64, stages: u32, sleep_ns: u32, p: &Profile) -> f64 {
    (cycles(&stream(grid, n + 8, bytes, stages, sleep_ns), p)
        - cycles(&stream(grid, n, bytes, stages, sleep_ns), p))
        / 8.0
}

#[test]
fn copies_between_waits_move_faster_than_the_even_share() {
    let p = plain_h100();
    let t = &p.t;
    let (sms, bytes) = (132.0, 64.0 * 1024.0);
    // A 64 KiB copy, then 20 us (39594 cycles at the light clock) of sleep: this SM's
    // share of HBM is busy for a few percent of each window, so are the others', and its
    // lines leave at `chip / (1 + 131 u)`, u about 0.02: above one SM's most, so at the
    // most (94.8 B/clk). They also cross this SM's share of the chip's L2 (3939.7 / 132 =
    // 29.8 B/clk), which is then the slower: the copy takes its bytes at that rate, plus
    // `lat_hbm` for the last line. The even share of HBM (1597.9 / 132 = 12.1 B/clk),
    // less the burst's reach (12689 bytes at it), would take 4366 cycles.
    let sleep = 20_000.0 * t.clock_mhz_light / 1000.0;
    let l2_share = t.l2_bytes_per_clk_chip / sms;
    let even = t.hbm_bytes_per_clk_chip / sms;
    let shared = bytes / l2_share + t.lat_hbm;
    let even_share = (bytes - t.hbm_burst_bytes) / even + t.lat_hbm;
    assert!(even_share > 1.5 * shared, "{even_share} {shared}");
    let copy = per_copy(132, 4, bytes as u64, 1, 20_000, &p) - sleep;
    // Above it by the wait's probe and the loop's few instructions.
    assert!(
        copy >= shared && copy < shared + 150.0,
        "a copy between sleeps took {copy} cycles, the L2 share gives {shared}, the even \
         HBM share {even_share}"
    );
}

#[test]
fn copies_always_queued_keep_the_even_share() {
    let p = plain_h100();
    let t = &p.t;
    // 16 KiB copies, four in flight, back to back: this SM's share of HBM is always busy,
    // u = 1, and each copy takes its bytes at the even share, 1597.9 / 132 B/clk: 1353.5
    // cycles.
    let even = 16384.0 / (t.hbm_bytes_per_clk_chip / 132.0);
    let copy = per_copy(132, 32, 16384, 4, 0, &p);
    assert!(
        (copy - even).abs() < 0.01 * even,
        "a copy of a saturated stream took {copy} cycles, the even share {even}"
    );
}

#[test]
fn one_sm_alone_is_not_changed() {
    // One busy SM: its even share is already one SM's most; sleeping between copies
    // changes nothing in a copy's time.
    let p = plain_h100();
    let sleep = 20_000.0 * p.t.clock_mhz_light / 1000.0;
    let with_sleep = per_copy(1, 4, 65536, 1, 20_000, &p) - sleep;
    let back_to_back = per_copy(1, 4, 65536, 1, 0, &p);
    assert!(
        (with_sleep - back_to_back).abs() <= 2.0,
        "{with_sleep} {back_to_back}"
    );
}
