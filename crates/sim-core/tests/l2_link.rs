//! First reads of a tile every SM of the wave reads, under HBM load (issue 25;
//! `memory/link.rs`, `l2_link_bytes_per_clk_chip`): a far line of such a tile is copied
//! into the reading SMs' partition on its first read, across the link between the L2's
//! partitions; while this SM's own lines from HBM are queued, the copy waits on the link
//! behind them and crosses at this SM's share of the link's rate. Hand-derived with the
//! link slow enough to dominate (1 and 2 bytes per cycle per SM), HBM's and L2's random
//! delays off.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

/// The h100 profile with the link at `link` bytes per cycle (whole chip), every random
/// part of a line's latency off, and copies' lines from HBM at the loads' one-SM rate
/// (the derivations below take one HBM rate; with two, the link's queue position is not
/// yet right: the profile keeps the link off), and the first reads' own wait off
/// (`l2_shared_first_read_cycles` and `_per_sm`, tested in `shared_first_read.rs`).
fn plain_h100(link: f64) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    let ldg_rate = p.t.hbm_bytes_per_clk_sm_max;
    p.set("hbm_tma_bytes_per_clk_sm_max", ldg_rate).unwrap();
    for (k, v) in [
        ("jitter_hbm", 0.0),
        ("jitter_l2", 0.0),
        ("hbm_tail_probability", 0.0),
        ("l2_link_bytes_per_clk_chip", link),
        ("l2_shared_first_read_cycles_per_sm", 0.0),
        ("l2_shared_first_read_cycles", 0.0),
    ] {
        p.set(k, v).unwrap();
    }
    p
}

/// 132 CTAs of one thread; per k-step `steps` (each a list of copies, in issue order, on
/// one mbarrier): `("A", bytes)` a copy of the CTA's own new lines from HBM (`A`, cold),
/// `("B", bytes)` the tile every CTA reads at k-step k (`B`, warm in L2), `("B0", bytes)`
/// the same tile at every k-step.
fn run_steps(steps: usize, copies: &[(&str, u64)], link: f64) -> u64 {
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
        "kernel link\nlaunch cta_threads=32 regs=32 smem={slot} grid=132\n\
         buffer A global size=256MiB\nbuffer B global size=1MiB\nshared s size={slot}\n\
         mbarrier mb[1] count=1\nrole main warps=0..0\n  loop k 0..{steps}\n    \
         SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[0], bytes={slot}\n{body}    \
         SYNCS.PHASECHK.TRANS64.TRYWAIT mb[0], parity=k & 1\n  EXIT\n"
    );
    let cfg = RunConfig {
        warm_l2: vec!["B".into()],
        ..RunConfig::default()
    };
    run(&kernel(&src), &plain_h100(link), &cfg)
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

#[test]
fn first_reads_of_a_shared_tile_wait_behind_the_hbm_lines() {
    // A 16 KiB copy of the CTA's own lines from HBM, then a 32 KiB tile all 132 CTAs read
    // (the b_shared gemm's stage). Buffers start on 2 MiB pages, and the partition map
    // (`Memory::is_far`: the parity of line bits 1, 6 and 12) puts half of every 8 KiB of
    // lines in the far partition: 16 KiB of the tile is far. Its copy waits until the
    // private lines have had their HBM turn (the same time at either link rate), then
    // crosses at 132 / 132 = 1 or 264 / 132 = 2 bytes per cycle: 16384 or 8192 cycles,
    // far longer than anything else the stage waits for. So the kernel takes 8192
    // cycles more at 132 B/clk than at 264 (one cycle of rounding either way).
    let stage = [("A", 16384), ("B", 32768)];
    let slow = run_steps(1, &stage, 132.0);
    let fast = run_steps(1, &stage, 264.0);
    let d = slow as i64 - fast as i64;
    assert!((d - 8192).abs() <= 1, "{slow} - {fast} = {d}, want 8192");
    // Without the link the stage takes what its HBM lines take: under 3000 cycles.
    let off = run_steps(1, &stage, 0.0);
    assert!(
        off < 3000 && fast > off + 8192,
        "off {off}, 264 B/clk {fast}"
    );
}

#[test]
fn a_tile_on_the_same_lines_is_copied_once() {
    // Four k-steps of a private copy and the same 32 KiB tile: only the first k-step's
    // first reads cross the link, so the kernel is as much slower at 132 B/clk than at
    // 264 as one k-step (8192 cycles). New tile lines every k-step cross four times:
    // 4 x 8192 cycles, less what the private lines' turns move between the two runs
    // (this SM's HBM share follows its load, `load.rs`: at most one 16 KiB copy at the
    // even share, 16384 / 12.1 = 1354 cycles).
    let same = [("A", 16384), ("B0", 32768)];
    let d = run_steps(4, &same, 132.0) as i64 - run_steps(4, &same, 264.0) as i64;
    assert!((d - 8192).abs() <= 1, "same lines: {d}, want 8192");
    let new = [("A", 16384), ("B", 32768)];
    let d = run_steps(4, &new, 132.0) as i64 - run_steps(4, &new, 264.0) as i64;
    assert!(
        (4 * 8192 - 1354..=4 * 8192 + 4).contains(&d),
        "new lines: {d}, want about 32768"
    );
}

#[test]
fn without_hbm_lines_queued_first_reads_cost_nothing() {
    // The tile alone (no lines of the CTA's own from HBM), or the tile issued before the
    // private copy (the a_shared gemm's order): nothing of this SM's is queued at HBM
    // when the tile is read, and the kernel takes what it takes without the link.
    for stage in [&[("B", 32768)][..], &[("B", 32768), ("A", 16384)][..]] {
        assert_eq!(
            run_steps(2, stage, 132.0),
            run_steps(2, stage, 0.0),
            "{stage:?}"
        );
    }
}
