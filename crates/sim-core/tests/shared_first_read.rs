//! First reads of a tile every SM of the wave reads, while the SM's own lines from HBM are
//! still arriving (issue 25; `memory/first_read.rs`, `l2_shared_first_read_cycles_per_sm`):
//! such a read completes no sooner than `l2_shared_first_read_cycles` + the number of SMs
//! reading the line times `l2_shared_first_read_cycles_per_sm` after its copy's start.
//! Hand-derived with the wait long enough to dominate the stage (the profile's base and
//! 40 or 50 cycles per SM: over 5280 cycles at 132 SMs, against a stage of under 3000
//! without it), so that the difference between two values is the difference of the
//! waits: 10 cycles per SM reading, per k-step that reads new lines.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// The h100 profile with the wait at `per_sm` cycles per SM (`base` the profile's when
/// None) and HBM's and L2's random delays off.
fn plain_h100(base: Option<f64>, per_sm: f64) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    if let Some(b) = base {
        p.set("l2_shared_first_read_cycles", b).unwrap();
    }
    for (k, v) in [
        ("jitter_hbm", 0.0),
        ("jitter_l2", 0.0),
        ("hbm_tail_probability", 0.0),
        ("l2_shared_first_read_cycles_per_sm", per_sm),
    ] {
        p.set(k, v).unwrap();
    }
    p
}

/// `grid` CTAs of one thread; per k-step `copies` (in issue order, on one mbarrier):
/// `("A", bytes)` a copy of the CTA's own new lines from HBM (`A`, cold), `("B", bytes)`
/// the tile every CTA reads at k-step k (`B`, warm in L2), `("B0", bytes)` the same tile
/// at every k-step.
fn run_steps(grid: u32, steps: usize, copies: &[(&str, u64)], p: &Profile) -> u64 {
    let slot: u64 = copies.iter().map(|c| c.1).sum();
    let mut body = String::new();
    let mut at = 0;
    for (what, bytes) in copies {
        let src = match *what {
            "A" => format!("A[(cta * {steps} + k) * {bytes}]"),
            "B" => format!("B[k * {bytes}]"),
            _ => "B[0]".to_string(),
        };
        body += &format!("    UBLKCP.S.G s[{at}], {src}, bytes={bytes}, bar=mb[0]\n");
        at += bytes;
    }
    let src = format!(
        "kernel first_read\nlaunch cta_threads=32 regs=32 smem={slot} grid={grid}\n\
         buffer A global size=256MiB\nbuffer B global size=1MiB\nshared s size={slot}\n\
         mbarrier mb[1] count=1\nrole main warps=0..0\n  loop k 0..{steps}\n    \
         SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes={slot}\n{body}    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=k & 1\n  EXIT\n"
    );
    let cfg = RunConfig {
        warm_l2: vec!["B".into()],
        ..RunConfig::default()
    };
    run(&kernel(&src), p, &cfg)
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

/// `run_steps` with `plain_h100(None, per_sm)`.
fn run_at(grid: u32, steps: usize, copies: &[(&str, u64)], per_sm: f64) -> u64 {
    run_steps(grid, steps, copies, &plain_h100(None, per_sm))
}

/// How much longer the kernel runs at 50 cycles per SM than at 40.
fn difference(grid: u32, steps: usize, copies: &[(&str, u64)]) -> i64 {
    run_at(grid, steps, copies, 50.0) as i64 - run_at(grid, steps, copies, 40.0) as i64
}

#[test]
fn a_new_shared_tile_beside_hbm_lines_waits_per_sm_reading_it() {
    // A 16 KiB copy of the CTA's own lines from HBM, then a 32 KiB tile all CTAs read
    // (the b_shared gemm's stage). The tile's copy starts when the TMA unit has taken the
    // private one (the same time at either value), while the private lines are still
    // arriving (at least lat_hbm, 572 cycles, after it); its first reads complete the
    // base + 132 x 50 or 132 x 40 cycles after that start, later than anything else the
    // stage waits for: 1320 cycles apart. At 66 SMs, 660.
    let stage = [("A", 16384), ("B", 32768)];
    assert_eq!(difference(132, 1, &stage), 1320);
    assert_eq!(difference(66, 1, &stage), 660);
    // Without the wait the stage takes what its HBM lines take: under 3000 cycles.
    let off = run_steps(132, 1, &stage, &plain_h100(Some(0.0), 0.0));
    assert!(off < 3000, "off {off}");
    // With it, the kernel ends when the tile's copy does: its start (the TMA unit's turn
    // on the private copy, tma_issue_cycles + 16384 / tma_bytes_per_clk), the wait, and
    // tma_extra_latency; then the try_wait's wake-up and EXIT, a few cycles.
    let t = &Profile::builtin("h100").unwrap().t;
    let start = (t.tma_issue_cycles + 16384.0 / t.tma_bytes_per_clk).ceil() as u64;
    let wait = (t.l2_shared_first_read_cycles + 5280.0).round() as u64;
    let end = start + wait + t.tma_extra_latency as u64;
    let on = run_at(132, 1, &stage, 40.0);
    assert!(
        (end..end + 12).contains(&on),
        "{on} cycles, want {end} and a few"
    );
}

#[test]
fn the_base_waits_whatever_the_sharers() {
    // With no wait per SM, a base of 6000 cycles against 5000 (each longer than the
    // stage): 1000 cycles, at 132 SMs or 3.
    let stage = [("A", 16384), ("B", 32768)];
    for grid in [132, 3] {
        let at = |b| run_steps(grid, 1, &stage, &plain_h100(Some(b), 0.0)) as i64;
        assert_eq!(at(6000.0) - at(5000.0), 1000, "grid {grid}");
    }
}

#[test]
fn only_first_reads_wait() {
    // Four k-steps of a private copy and a tile: on new lines every k-step, each k-step
    // waits (4 x 1320); on the same lines, only the first k-step's reads are first reads.
    let new = [("A", 16384), ("B", 32768)];
    assert_eq!(difference(132, 4, &new), 4 * 1320);
    let same = [("A", 16384), ("B0", 32768)];
    assert_eq!(difference(132, 4, &same), 1320);
}

#[test]
fn without_hbm_lines_arriving_or_sharers_nothing_waits() {
    // The tile alone (no lines of the CTA's own from HBM): nothing of this SM's is
    // arriving when the tile is read. Two CTAs reading it (a TPC's pair): no wait.
    for (grid, stage) in [
        (132, &[("B", 32768)][..]),
        (2, &[("A", 16384), ("B", 32768)][..]),
    ] {
        assert_eq!(
            run_at(grid, 2, stage, 50.0),
            run_steps(grid, 2, stage, &plain_h100(Some(0.0), 0.0)),
            "grid {grid}: {stage:?}"
        );
    }
}
