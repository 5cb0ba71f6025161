//! Tensor copies whose boxes are rows of one line a pitch apart, read from HBM (issue 25;
//! `hbm_tma_box_bytes`, `Memory::box_read`): a box costs the SM's share of HBM that many
//! bytes more than its lines, after them; and a box every SM of the wave reads is not the
//! SM's own HBM traffic, so its later rows do not wait on its first (`first_read.rs`).
//! Hand-derived with HBM's and L2's random delays off.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// The h100 profile with `hbm_tma_box_bytes` at `box_bytes` and HBM's and L2's random
/// delays off.
fn plain_h100(box_bytes: f64) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in [
        ("jitter_hbm", 0.0),
        ("jitter_l2", 0.0),
        ("hbm_tail_probability", 0.0),
        ("hbm_tma_box_bytes", box_bytes),
    ] {
        p.set(k, v).unwrap();
    }
    p
}

/// 132 CTAs of one thread, each streaming `steps` copies of `bytes` of its own rows of
/// an 8 KiB-row tensor (`A`, cold: every line from HBM), `stages` in flight: a box of
/// rows of `row` bytes a row apart, or contiguous bytes when `row` is None.
fn stream(steps: u64, stages: u64, bytes: u64, row: Option<u64>, p: &Profile) -> u64 {
    let rows = bytes / row.unwrap_or(bytes);
    let (src, keys) = match row {
        Some(r) => (
            format!("A[(cta * {rows}) * 8192 + (j) * {r}]"),
            format!(", row={r}, pitch=8192"),
        ),
        None => (format!("A[(cta * {steps} + (j)) * {bytes}]"), String::new()),
    };
    // The two instructions of copy `j`, indented by `ind`.
    let copy = |j: &str, ind: &str| {
        format!(
            "{ind}SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[({j}) % {stages}], bytes={bytes}\n\
             {ind}UTMALDG.2D s[(({j}) % {stages}) * {bytes}], {}, bytes={bytes}{keys}, \
             bar=mb[({j}) % {stages}]\n",
            src.replace("(j)", &format!("({j})"))
        )
    };
    let src = format!(
        "kernel box_stream\nlaunch cta_threads=32 regs=32 smem={smem} grid=132\n\
         buffer A size=512MiB\nshared s size={smem}\nmbarrier mb[{stages}] count=1\n\
         role main warps=0..0\n  loop i 0..{stages}\n{c0}  loop j 0..{steps}\n    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[j % {stages}], parity=(j / {stages}) & 1\n    \
         if j + {stages} < {steps}\n{c1}  EXIT\n",
        smem = stages * bytes,
        c0 = copy("i", "    "),
        c1 = copy(&format!("j + {stages}"), "      "),
    );
    run(&kernel(&src), p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

#[test]
fn a_box_of_one_line_rows_costs_its_share_of_hbm_more() {
    // 132 SMs, four 16 KiB boxes of 128-byte rows in flight each: the stream is held by
    // the SM's even share of HBM, hbm_bytes_per_clk_chip / 132 bytes a cycle (the kernel
    // runs at the light clock the rate is stated in). Each box costs 4096 bytes more of
    // it, after its lines: every box but the last delays the ones behind it, 63 x 4096 /
    // (chip / 132) cycles more (the rate's float sums: within a cycle).
    let t = &Profile::builtin("h100").unwrap().t;
    let share = t.hbm_bytes_per_clk_chip / 132.0;
    let want = 63.0 * 4096.0 / share;
    let off = stream(64, 4, 16384, Some(128), &plain_h100(0.0)) as f64;
    let on = stream(64, 4, 16384, Some(128), &plain_h100(4096.0)) as f64;
    let more = on - off;
    assert!(
        (more - want).abs() <= 1.0,
        "{more} cycles more, want {want:.0} (off {off}, on {on})"
    );
    // Without the cost the stream moves at the share: 64 x 16 KiB over it, less the
    // burst's head start (hbm_burst_bytes), plus the last copy's latency.
    let floor = (64.0 * 16384.0 - t.hbm_burst_bytes) / share;
    assert!(
        off > floor && off < floor + 3000.0,
        "off {off}, floor {floor:.0}"
    );
}

#[test]
fn contiguous_copies_and_longer_rows_cost_nothing_more() {
    // The same stream as contiguous copies, and as boxes of 512-byte rows (not
    // measured: no cost).
    for row in [None, Some(512)] {
        let off = stream(16, 4, 16384, row, &plain_h100(0.0));
        let on = stream(16, 4, 16384, row, &plain_h100(4096.0));
        assert_eq!(off, on, "rows {row:?}");
    }
}

/// 132 CTAs of one thread, each reading `steps` boxes of the same tile, one in flight:
/// 128 rows of 128 bytes, 8 KiB apart (`B`, cold), with nothing of their own from HBM.
fn shared_boxes(steps: u64, p: &Profile) -> u64 {
    let src = format!(
        "kernel shared_box\nlaunch cta_threads=32 regs=32 smem=16384 grid=132\n\
         buffer B size=64MiB\nshared s size=16384\nmbarrier mb[1] count=1\n\
         role main warps=0..0\n  loop k 0..{steps}\n    \
         SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes=16384\n    \
         UTMALDG.2D s[0], B[k * 128], bytes=16384, row=128, pitch=8192, bar=mb[0]\n    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=k & 1\n  EXIT\n"
    );
    run(&kernel(&src), p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

#[test]
fn a_shared_boxs_own_fills_do_not_make_its_rows_wait() {
    // Every SM reads the same cold box: its first row's lines come from HBM (each SM
    // carrying 1/132 of them), but they are the wave's, not this SM's own: no row waits
    // for the first-read wait (750 + 13.2 x 132 = 2492 cycles, longer than the box
    // takes), so the run is what it is with the wait off.
    let on = plain_h100(0.0);
    let mut off = on.clone();
    off.set("l2_shared_first_read_cycles", 0.0).unwrap();
    off.set("l2_shared_first_read_cycles_per_sm", 0.0).unwrap();
    let (a, b) = (shared_boxes(4, &on), shared_boxes(4, &off));
    assert_eq!(a, b);
    assert!(a < 4 * 2492, "{a} cycles");
}
