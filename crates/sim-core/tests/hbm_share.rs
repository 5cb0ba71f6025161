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
    // most. Their share of the chip's L2 follows the same load (`l2_fill_share`: the
    // even share, 3934.8 / 132 = 29.8 B/clk, would take 2199 cycles), so what binds is
    // the burst the lines cross this SM's port at, `hbm_burst_bytes_per_clk_sm` (120.3
    // B/clk; the sustained TMA rate, 110.8, runs `hbm_burst_bytes` behind it): the copy
    // takes its bytes at the burst rate, plus `lat_hbm` for the last line. The even
    // share of HBM (1597.9 / 132 = 12.1 B/clk), less the burst's reach, would take 4366.
    let sleep = 20_000.0 * t.clock_mhz_light / 1000.0;
    let even_l2 = bytes / (t.l2_bytes_per_clk_chip / sms) + t.lat_hbm;
    let even = t.hbm_bytes_per_clk_chip / sms;
    let burst = bytes / t.hbm_burst_bytes_per_clk_sm + t.lat_hbm;
    let tma_most = t
        .hbm_tma_bytes_per_clk_sm_max
        .min(t.l2_bytes_per_clk_sm_max);
    let sustained = bytes / tma_most - t.hbm_burst_bytes / t.hbm_bytes_per_clk_sm_max;
    assert!(sustained + t.lat_hbm < burst, "{sustained} {burst}");
    let even_share = (bytes - t.hbm_burst_bytes) / even + t.lat_hbm;
    assert!(
        even_l2 > 1.5 * burst && even_share > 3.0 * burst,
        "{even_share} {burst}"
    );
    let copy = per_copy(132, 4, bytes as u64, 1, 20_000, &p) - sleep;
    // Above it by the wait's probe and the loop's few instructions.
    assert!(
        copy >= burst && copy < burst + 150.0,
        "a copy between sleeps took {copy} cycles, the burst gives {burst}, the even L2 \
         share {even_l2}, the even HBM share {even_share}"
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

#[test]
fn hits_between_waits_keep_the_even_l2_share() {
    // The same copies from lines warm in L2: hits cross this SM's even share of the
    // chip's L2 (3934.8 / 132 = 29.8 B/clk) whatever the gaps, only lines from HBM get
    // more (`l2_fill_share`). A 64 KiB copy takes its bytes at that share, 2199 cycles,
    // and the L2 latency after the last (the near and far partitions' 200 to 300), never
    // less.
    let mut p = plain_h100();
    p.set("jitter_l2", 0.0).unwrap();
    let t = &p.t;
    let bytes = 65536.0;
    let even_l2 = bytes / (t.l2_bytes_per_clk_chip / 132.0);
    // (The simulated SM runs CTA 0, whose copies lie in the buffer's first 768 KiB: all
    // warm.)
    let src = |n: u32| stream(132, n, 65536, 1, 20_000).replace("size=1GiB", "size=8MiB");
    let sleep = 20_000.0 * t.clock_mhz_light / 1000.0;
    let cfg = RunConfig {
        warm_l2: vec!["G".into()],
        ..RunConfig::default()
    };
    let c = |n| run(&kernel(&src(n)), &p, &cfg).unwrap().cycles as f64;
    let copy = (c(12) - c(4)) / 8.0 - sleep;
    assert!(
        copy >= even_l2 + t.lat_l2_near && copy < even_l2 + t.lat_l2_far + 150.0,
        "a copy of hits between sleeps took {copy} cycles, the even L2 share {even_l2}"
    );
}
