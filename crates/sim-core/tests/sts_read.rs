//! A shared store's register read (`sts_read_bytes_per_clk`, `engine/sts_read.rs`):
//! each sub-partition reads its stores' registers one store at a time at that rate, and
//! an instruction that writes one of a store's registers waits until it has been read
//! (data/gaps/stsissue/: real STS.128 whose registers nothing rewrites cost one warp's
//! window nothing; with a write to R7 after each, 8.25 cycles a store). Cycle counts by
//! hand, at 64 B/clk (an STS.128 of 32 lanes, 512 bytes: 8 cycles) and a crossbar of
//! 128 B/clk (its 4 wavefronts: 4 cycles).

use sim_core::{Profile, RunConfig, RunResult, WarpState, run};

fn sim(src: &str, rate: f64) -> RunResult {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("sts_read_bytes_per_clk", rate).unwrap();
    p.set("smem_bytes_per_clk", 128.0).unwrap();
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, &p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn kernel(warps: u32, body: &str) -> String {
    format!(
        "kernel sts_read\nlaunch cta_threads={} regs=32 smem=65536 grid=1\nshared s size=65536\nrole main warps=0..{}\n{body}  EXIT\n",
        warps * 32,
        warps - 1
    )
}

/// The cycle the last warp ends, the store path at `rate` against off.
fn later(src: &str, rate: f64) -> i64 {
    let end = |r: &RunResult| r.warps.iter().map(|w| w.finished).max().unwrap() as i64;
    end(&sim(src, rate)) - end(&sim(src, 0.0))
}

#[test]
fn a_write_to_a_stored_register_waits_for_the_read() {
    // STS at c, its registers read at c + 512 / 64 = c + 8; the IADD3 that writes R4
    // issues then, 7 cycles later than at c + 1.
    let src = kernel(1, "  STS.128 s[lane * 16], R4\n  IADD3 R4, R8, R9, RZ\n");
    assert_eq!(later(&src, 64.0), 7);
    // It waits in short_scoreboard, charged to the store.
    let r = sim(&src, 64.0);
    assert_eq!(r.warps[0].states.get(WarpState::ShortScoreboard), 7);
    // A write to a register the store does not read does not wait.
    let other = kernel(1, "  STS.128 s[lane * 16], R4\n  IADD3 R12, R8, R9, RZ\n");
    assert_eq!(later(&other, 64.0), 0);
}

#[test]
fn a_sub_partitions_stores_are_read_one_after_another() {
    // STS R4 at c (read by c + 8), STS R12 at c + 1, whose turn starts at c + 8 and is
    // read by c + 16: the IADD3 writing R12 issues at c + 16 instead of c + 2.
    let src = kernel(
        1,
        "  STS.128 s[lane * 16], R4\n  STS.128 s[512 + lane * 16], R12\n  IADD3 R12, R8, R9, RZ\n",
    );
    assert_eq!(later(&src, 64.0), 14);
    // Two warps on two sub-partitions each read their own: 128 / 2 = 64 B/clk each, as
    // alone (each warp's IADD3 7 cycles later).
    let two = kernel(
        2,
        "  STS.128 s[warp * 512 + lane * 16], R4\n  IADD3 R4, R8, R9, RZ\n",
    );
    assert_eq!(later(&two, 64.0), 7);
    // Four warps on four sub-partitions: the crossbar's 4 cycles a store come first to
    // the first warp; the third store's read, begun while two paths are busy, takes
    // 512 / (128 / 3) = 12 cycles, the fourth's 16: the last warp's IADD3 15 later.
    let four = kernel(
        4,
        "  STS.128 s[warp * 512 + lane * 16], R4\n  IADD3 R4, R8, R9, RZ\n",
    );
    assert_eq!(later(&four, 64.0), 15);
}

#[test]
fn a_fence_waits_for_the_stores_read() {
    // 16 STS.128 from one warp: read one after another, the last by c + 16 x 8 = c + 128
    // (the crossbar's 64 cycles are behind): the fence after them (issued at c + 16)
    // ends there rather than lat_fence after its issue.
    let mut body = String::new();
    for j in 0..16 {
        body.push_str(&format!("  STS.128 s[{} + lane * 16], R4\n", j * 512));
    }
    body.push_str("  MEMBAR.CTA\n  IADD3 R12, R8, R9, RZ\n");
    let src = kernel(1, &body);
    let lat_fence = Profile::builtin("h100").unwrap().t.lat_fence as i64;
    // off: the crossbar's last write ends at c + 64, the fence at c + 16 + lat_fence at
    // the earliest
    let off_end = (16 + lat_fence).max(64);
    assert_eq!(later(&src, 64.0), 128 - off_end);
}
