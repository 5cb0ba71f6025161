//! The static race checker (issue 29): for each hazard, a racy kernel gets an error that
//! names both instructions and the stage, and the correct kernel gets none.

use isa::{parse_kernel, validate};

/// `line:col: message` of every diagnostic.
fn diags(src: &str) -> Vec<String> {
    let k = parse_kernel(src).unwrap_or_else(|d| panic!("does not parse: {d}\n{src}"));
    validate(&k).iter().map(|d| d.to_string()).collect()
}

fn gemm_ws() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/gemm_ws.smk"
    ))
    .expect("examples/gemm_ws.smk")
}

/// `text` with `from` replaced once, which must be there.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the kernel");
    text.replacen(from, to, 1)
}

const LAST_HGMMA: &str = "sB[(k % PIPE) * 32768 + 96], gsb0";

#[test]
fn the_correct_warp_specialized_gemm_has_no_hazard() {
    assert_eq!(diags(&gemm_ws()), Vec::<String>::new());
}

#[test]
fn hgmmas_without_gsb0_released_before_any_wait_covers_them() {
    // The group is never closed, so `WARPGROUP.DEPBAR.LE gsb0, 1` waits for nothing and
    // the release of the previous stage races with its HGMMAs (it ran 15% faster).
    let racy = edit(&gemm_ws(), LAST_HGMMA, "sB[(k % PIPE) * 32768 + 96]");
    assert_eq!(
        diags(&racy),
        [
            "51:7: this releases stage `empty[0]` while `HGMMA.64x256x16.F32.BF16` on line 45 may still read `sA[0]` in it: it is in no committed wgmma group (no `gsb0` closes one after it), so no `WARPGROUP.DEPBAR` waits for it"
        ]
    );
}

#[test]
fn a_release_while_the_wait_leaves_the_stage_s_group_in_flight() {
    // Waiting down to two groups leaves the previous iteration's group in flight.
    let racy = edit(
        &gemm_ws(),
        "WARPGROUP.DEPBAR.LE gsb0, 1",
        "WARPGROUP.DEPBAR.LE gsb0, 2",
    );
    assert_eq!(
        diags(&racy),
        [
            "51:7: this releases stage `empty[0]` while `HGMMA.64x256x16.F32.BF16` on line 45 may still read `sA[0]` in it: its wgmma group is one that `WARPGROUP.DEPBAR.LE gsb0, 2` on line 49 leaves in flight"
        ]
    );
    // Releasing this iteration's stage needs a wait for every group...
    let current = edit(
        &gemm_ws(),
        "    if k > 0\n      SYNCS.ARRIVE.TRANS64 empty[(k + PIPE - 1) % PIPE]",
        "    SYNCS.ARRIVE.TRANS64 empty[k % PIPE]",
    );
    assert_eq!(
        diags(&current),
        [
            "50:5: this releases stage `empty[0]` while `HGMMA.64x256x16.F32.BF16` on line 45 may still read `sA[0]` in it: its wgmma group is one that `WARPGROUP.DEPBAR.LE gsb0, 1` on line 49 leaves in flight"
        ]
    );
    // ...which `WARPGROUP.DEPBAR.LE gsb0, 0` is.
    let correct = edit(
        &current,
        "WARPGROUP.DEPBAR.LE gsb0, 1",
        "WARPGROUP.DEPBAR.LE gsb0, 0",
    );
    assert_eq!(diags(&correct), Vec::<String>::new());
}

#[test]
fn an_mbarrier_count_the_arriving_warps_overrun() {
    // `empty` counts 2 arrivals a phase, but the consumer's 8 warps all arrive on it.
    let racy = edit(
        &gemm_ws(),
        "mbarrier empty[4] count=8",
        "mbarrier empty[4] count=2",
    );
    assert_eq!(
        diags(&racy),
        [
            "51:7: this arrives 8 times on `empty[(k + PIPE - 1) % PIPE]` (once for each of role `consumer`'s 8 warps) but `empty` completes a phase after count=2 arrivals: the phase completes early and the surplus arrivals complete the next one"
        ]
    );
    // One warp arriving for the role is fine with count=1.
    let one = edit(
        &edit(
            &gemm_ws(),
            "mbarrier empty[4] count=8",
            "mbarrier empty[4] count=1",
        ),
        "    if k > 0\n      SYNCS",
        "    if (k > 0) & (warp == 4)\n      SYNCS",
    );
    assert_eq!(diags(&one), Vec::<String>::new());
    // `count=` on the arrive multiplies.
    let counted = edit(
        &gemm_ws(),
        "SYNCS.ARRIVE.TRANS64 empty[(k + PIPE - 1) % PIPE]",
        "SYNCS.ARRIVE.TRANS64 empty[(k + PIPE - 1) % PIPE], count=2",
    );
    assert_eq!(
        diags(&counted),
        [
            "51:7: this arrives 16 times on `empty[(k + PIPE - 1) % PIPE]` (2 times for each of role `consumer`'s 8 warps) but `empty` completes a phase after count=8 arrivals: the phase completes early and the surplus arrivals complete the next one"
        ]
    );
}

/// A two-stage ring: a producer fills `stage` with TMA loads, a storer writes each stage
/// back with a bulk store and releases it.
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
    assert_eq!(diags(STORE_RING), Vec::<String>::new());
    let unwaited = edit(STORE_RING, "    DEPBAR.LE SB1, 0\n", "");
    assert_eq!(
        diags(&unwaited),
        [
            "22:5: this releases stage `empty[0]` while `UTMASTG` on line 20 may still read `stage[0..4096]` in it: no `DEPBAR.LE SB1, N` has waited for it"
        ]
    );
    let uncommitted = edit(STORE_RING, "    UTMACMDFLUSH\n    DEPBAR.LE SB1, 0\n", "");
    assert_eq!(
        diags(&uncommitted),
        [
            "21:5: this releases stage `empty[0]` while `UTMASTG` on line 20 may still read `stage[0..4096]` in it: the bulk store is not committed (`UTMACMDFLUSH`), so no `DEPBAR.LE SB1` waits for it"
        ]
    );
    let shallow = edit(STORE_RING, "DEPBAR.LE SB1, 0", "DEPBAR.LE SB1, 1");
    assert_eq!(
        diags(&shallow),
        [
            "23:5: this releases stage `empty[0]` while `UTMASTG` on line 20 may still read `stage[0..4096]` in it: its bulk-store group is one that `DEPBAR.LE SB1, 1` on line 22 leaves in flight"
        ]
    );
}
