//! The runtime race checker (issue 29): for each hazard kind, a racy kernel's run finds
//! it, naming both instructions, their warps and the stage or bytes, and the correct
//! kernel's run finds nothing. The kernels are parsed, not validated: some racy ones the
//! static checks would refuse, and the runtime checker must find them too.

use sim_core::races::{Hazard, RaceCheck};
use sim_core::sink::NoSink;
use sim_core::{Profile, RunConfig};

/// Every hazard of a run of `src` on the h100 profile, one line each.
fn hazards(src: &str) -> Vec<String> {
    let k = isa::parse_kernel(src).unwrap_or_else(|d| panic!("does not parse: {d}\n{src}"));
    let p = Profile::builtin("h100").unwrap();
    let cfg = RunConfig::default();
    let mut sink = RaceCheck::new(NoSink, &k);
    let with = sim_core::run_with(&k, &p, &cfg, cfg.policy.build(), &mut sink).map(|r| r.cycles);
    let without = sim_core::run(&k, &p, &cfg).map(|r| r.cycles);
    // Checking changes nothing of the run.
    assert_eq!(
        format!("{with:?}"),
        format!("{without:?}"),
        "the checked run differs"
    );
    with.unwrap_or_else(|e| panic!("the run fails: {e}"));
    sink.hazards().iter().map(line).collect()
}

fn line(h: &Hazard) -> String {
    format!(
        "{}: `{}` (line {}, warp {}) with `{}` (line {}, warp {}) on {}{} x{}",
        h.kind.name(),
        h.racing.text,
        h.racing.line,
        h.racing.warp,
        h.with.text,
        h.with.line,
        h.with.warp,
        h.stage
            .as_ref()
            .map(|s| format!("{s} "))
            .unwrap_or_default(),
        h.what,
        h.occurrences
    )
}

/// `text` with `from` replaced once, which must be there.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the kernel");
    text.replacen(from, to, 1)
}

/// One producer copies a stage; the consumer waits for its phase, then reads it.
const ONE_STAGE: &str = "kernel one_stage
launch cta_threads=64 regs=32 smem=8192 grid=1
buffer A size=1MiB
shared s size=8192
mbarrier full[1] count=1

role producer warps=0..0
  SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes=8192
  UTMALDG s[0], A[0], bytes=4096, bar=full[0]
  UTMALDG s[4096], A[4096], bytes=4096, bar=full[0]
  EXIT

role consumer warps=1..1
  NANOSLEEP 20
  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0
  LDS R0, s[lane * 4]
  EXIT
";

#[test]
fn shared_memory_read_before_the_phase_that_fills_it() {
    assert_eq!(hazards(ONE_STAGE), Vec::<String>::new());
    // Parity 1 passes at once: phase 0 is still being filled.
    let racy = edit(ONE_STAGE, "parity=0", "parity=1");
    assert_eq!(
        hazards(&racy),
        [
            "read before fill: `LDS R0, s[lane * 4]` (line 16, warp 1) with `UTMALDG s[0], A[0], bytes=4096, bar=full[0]` (line 9, warp 0) on full[0] s[0..4096] x1"
        ]
    );
}

#[test]
fn a_copy_into_a_stage_another_copy_is_still_filling() {
    let racy = edit(ONE_STAGE, "UTMALDG s[4096]", "UTMALDG s[0]");
    assert_eq!(
        hazards(&racy),
        [
            "fill over fill: `UTMALDG s[0], A[4096], bytes=4096, bar=full[0]` (line 10, warp 0) with `UTMALDG s[0], A[0], bytes=4096, bar=full[0]` (line 9, warp 0) on full[0] s[0..4096] x1"
        ]
    );
}

/// examples/gemm_ws.smk on one CTA and 8 K blocks (a debug build simulates slowly).
fn gemm_ws() -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/gemm_ws.smk"
    ))
    .expect("examples/gemm_ws.smk");
    edit(&edit(&text, "grid=132", "grid=1"), "KT=64", "KT=8")
}

#[test]
fn the_warp_specialized_gemm_runs_race_free() {
    assert_eq!(hazards(&gemm_ws()), Vec::<String>::new());
}

#[test]
fn a_stage_released_while_its_mmas_may_still_read_it() {
    // Without gsb0 the group is never closed: the wait covers nothing.
    let racy = edit(
        &gemm_ws(),
        "sB[(k % PIPE) * 32768 + 96], gsb0",
        "sB[(k % PIPE) * 32768 + 96]",
    );
    // (The group is never covered: the epilogue's stores read the accumulator early too.)
    let found = hazards(&racy);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[1].starts_with("accumulator before wait: "),
        "{found:#?}"
    );
    // The first consumer warp of either warpgroup releases the stage first, whichever the
    // profile's timing puts ahead (warp 4 or 8: it has flipped with refits); the race is
    // its own release against its own MMAs.
    assert!(
        [4, 8].iter().any(|w| found[0].starts_with(&format!("release while read: `SYNCS.ARRIVE.TRANS64 empty[(k + PIPE - 1) % PIPE]` (line 51, warp {w}) with `HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192], sB[(k % PIPE) * 32768]` (line 45, warp {w}) on empty[0] sA[0..16384]"))),
        "{found:#?}"
    );
    // Waiting down to two groups leaves the previous stage's group in flight.
    let shallow = edit(
        &gemm_ws(),
        "WARPGROUP.DEPBAR.LE gsb0, 1",
        "WARPGROUP.DEPBAR.LE gsb0, 2",
    );
    let found = hazards(&shallow);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("release while read: "), "{found:#?}");
}

#[test]
fn an_accumulator_read_before_the_wait_that_covers_it() {
    let racy = edit(&gemm_ws(), "  WARPGROUP.DEPBAR.LE gsb0, 0\n", "");
    let found = hazards(&racy);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("accumulator before wait: `STG.E.128 C[(((cta * 8 + warp - 4) * 32 + c) * 32 + lane) * 16], R24` (line 53, warp 4) with `HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192], sB[(k % PIPE) * 32768]` (line 45, warp 4) on R24..R151 x256"),
        "{found:#?}"
    );
}

/// A two-stage ring: a producer fills `stage` with TMA loads, a storer writes each stage
/// back with a bulk store, waits for it, and releases the stage.
const STORE_RING: &str = "kernel store_ring
launch cta_threads=64 regs=32 smem=8192 grid=1
buffer A size=1MiB
buffer C size=1MiB
shared stage size=8192
mbarrier full[2] count=1
mbarrier empty[2] count=1
param KT=4

role producer warps=0..0
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % 2], parity=((k / 2) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % 2], bytes=4096
    UTMALDG stage[(k % 2) * 4096], A[k * 4096], bytes=4096, bar=full[k % 2]
  EXIT

role storer warps=1..1
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % 2], parity=(k / 2) & 1
    UTMASTG C[k * 4096], stage[(k % 2) * 4096], bytes=4096
    UTMACMDFLUSH
    DEPBAR.LE SB1, 0
    SYNCS.ARRIVE.TRANS64 empty[k % 2]
  EXIT
";

#[test]
fn a_stage_released_while_a_bulk_store_still_reads_it() {
    assert_eq!(hazards(STORE_RING), Vec::<String>::new());
    let unwaited = edit(STORE_RING, "    DEPBAR.LE SB1, 0\n", "");
    assert_eq!(
        hazards(&unwaited),
        [
            "release while read: `SYNCS.ARRIVE.TRANS64 empty[k % 2]` (line 22, warp 1) with `UTMASTG C[k * 4096], stage[(k % 2) * 4096], bytes=4096` (line 20, warp 1) on empty[0] stage[0..4096] x4",
        ]
    );
}
