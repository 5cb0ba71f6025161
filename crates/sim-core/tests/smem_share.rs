//! Shared memory's write side shared by STS and a copy landing there (issue 25, the
//! warp-specialized streaming twin; `gap.smem.g2s_sts`: STS.128 at 42.6 B/clk beside
//! copies landing, 86.5 alone), against a hand-derived cycle count.

use sim_core::{Profile, RunConfig, RunResult, run};

fn sim(src: &str, p: &Profile) -> RunResult {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn h100_with(sets: &[(&str, f64)]) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in sets {
        p.set(k, *v).unwrap();
    }
    p
}

/// Warp 0 copies 16 KiB into shared memory and waits for it; warp 1 (another
/// sub-partition) stores 256 STS.128 meanwhile, 4 wavefronts each.
const SRC: &str = "kernel share\nlaunch cta_threads=64 regs=32 smem=65536 grid=1\nbuffer G global size=1MiB\nshared stage size=65536\nmbarrier full[1] count=1\nparam N=256\nrole copy warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=16384\n  UBLKCP.S.G stage[0], G[0], bytes=16384, bar=full[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n  EXIT\nrole sts warps=1..1\n  loop i 0..N\n    STS.128 stage[16384 + (i % 64) * 512 + lane * 16], R6\n  EXIT\n";

/// The cycle the STS warp ends.
fn sts_end(p: &Profile) -> u64 {
    sim(SRC, p).warps[1].finished
}

#[test]
fn an_sts_stream_slows_by_the_factor_while_a_copy_lands() {
    // The copy's 16 KiB land in the 16384 / tma_bytes_per_clk cycles before its last
    // line arrives, well inside the STS stream (256 x 4 wavefronts at 128 B/clk: 1024
    // cycles). There the stream moves at 1 / factor of its rate, so it ends
    // window x (1 - 1 / factor) later than with no slowing, give or take the one STS
    // that straddles the window's end (4 x factor cycles).
    let f = 2.03;
    let base = h100_with(&[
        ("smem_bytes_per_clk", 128.0),
        ("sts_beside_copy_factor", 1.0),
    ]);
    let slow = h100_with(&[("smem_bytes_per_clk", 128.0), ("sts_beside_copy_factor", f)]);
    let window = 16384.0 / slow.t.tma_bytes_per_clk;
    let want = window * (1.0 - 1.0 / f);
    let got = sts_end(&slow) as f64 - sts_end(&base) as f64;
    assert!((got - want).abs() <= 4.0 * f + 1.0, "{got} against {want}");
    // With the factor at 1 the copy costs the STS nothing: the stream alone (1024
    // cycles of the crossbar from its first issue).
    let alone = base.clone();
    let no_copy = SRC.replace("UBLKCP.S.G stage[0], G[0], bytes=16384, bar=full[0]", "NOP");
    let no_copy = no_copy.replace("  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0\n", "");
    assert_eq!(sts_end(&base), sim(&no_copy, &alone).warps[1].finished);
}
