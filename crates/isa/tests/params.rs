//! Issue 28 item 6: declarations take expressions of parameters, so one `--param`
//! reshapes the kernel; the declarations hold the values for the parameters given.

use isa::{parse_kernel, validate};

/// A pipeline whose depth is one parameter: the shared memory, the regions, the
/// mbarrier arrays, the grid and a named barrier's threads all follow it.
const RING: &str = "kernel ring
launch cta_threads=WARPS * 32 regs=32 smem=STAGES * 48KiB grid=2 * SMS
buffer A size=STAGES * 1MiB
shared sA size=STAGES * 16KiB
shared sB size=STAGES * 32KiB
mbarrier full[STAGES] count=1
mbarrier empty[STAGES] count=WARPS - 1
barrier all id=1 threads=WARPS * 32
param STAGES=4 WARPS=2 SMS=132

role producer warps=0..0
  loop k 0..8
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % STAGES], parity=((k / STAGES) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % STAGES], bytes=16384
    UTMALDG sA[(k % STAGES) * 16384], A[k * 16384], bytes=16384, bar=full[k % STAGES]
  BAR.SYNC all
  EXIT

role consumer warps=1..1
  loop k 0..8
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % STAGES], parity=(k / STAGES) & 1
    LDS R2, sA[(k % STAGES) * 16384 + lane * 4]
    SYNCS.ARRIVE.TRANS64 empty[k % STAGES]
  BAR.SYNC all
  EXIT
";

#[test]
fn declarations_follow_the_parameters() {
    let mut k = parse_kernel(RING).expect("parses");
    assert_eq!(validate(&k), vec![]);
    let l = &k.launch;
    assert_eq!((l.cta_threads, l.smem, l.grid), (64, 4 * 49152, 264));
    assert_eq!(k.buffers[0].size, 4 << 20);
    assert_eq!((k.shared[0].size, k.shared[1].size), (4 * 16384, 4 * 32768));
    assert_eq!((k.mbarriers[0].len, k.mbarriers[1].len), (4, 4));
    assert_eq!(k.mbarriers[1].count, 1);
    assert_eq!(k.named_barriers[0].threads, 64);

    // One override reshapes every declaration that uses it.
    k.set_params(&[("STAGES".into(), 2)]).unwrap();
    assert_eq!(validate(&k), vec![]);
    assert_eq!(k.launch.smem, 2 * 49152);
    assert_eq!(k.buffers[0].size, 2 << 20);
    assert_eq!((k.shared[0].size, k.shared[1].size), (2 * 16384, 2 * 32768));
    assert_eq!((k.mbarriers[0].len, k.mbarriers[1].len), (2, 2));
    assert_eq!(k.shared_offset("sB"), Some(2 * 16384));

    // The printed kernel keeps the expressions and parses back to the same kernel.
    let printed = k.to_string();
    assert!(printed.contains("smem=STAGES * 49152"), "{printed}");
    assert!(
        printed.contains("mbarrier full[STAGES] count=1"),
        "{printed}"
    );
    assert!(
        printed.contains("buffer A global size=STAGES * 1048576"),
        "{printed}"
    );
    assert_eq!(parse_kernel(&printed).expect("reparses"), k);
}

#[test]
fn a_parameter_that_overruns_a_declaration_is_a_positioned_error() {
    let mut k = parse_kernel(RING).unwrap();
    // Five stages need 240 KiB of shared memory: more than a block may have.
    k.set_params(&[("STAGES".into(), 5)]).unwrap();
    let d: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
    assert_eq!(
        d,
        ["2:1: smem=245760 bytes (240.0 KiB) is over the 232448 bytes (227 KB) one block may use"]
    );
    // A negative stage count has no declaration value: each use says so, where it is
    // (and nothing else, since every other check would see 0 there).
    k.set_params(&[("STAGES".into(), -1)]).unwrap();
    let d: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
    assert_eq!(
        &d[..3],
        [
            "2:44: `STAGES * 49152` (the declaration's `smem`) comes to -49152, outside 0..=4294967295",
            "3:15: `STAGES * 1048576` (the declaration's `size`) comes to -1048576, outside 0..=9223372036854775807",
            "4:16: `STAGES * 16384` (the declaration's `size`) comes to -16384, outside 0..=4294967295",
        ]
    );
}

#[test]
fn a_declaration_may_use_parameters_only() {
    let src = RING.replace("grid=2 * SMS", "grid=2 * warp");
    let k = parse_kernel(&src).unwrap();
    let d: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
    assert_eq!(
        d,
        [
            "2:64: a declaration's `grid` may use parameters and enclosing loop variables only, not `warp`"
        ]
    );
    let src = RING.replace("full[STAGES]", "full[STAGES - 4]");
    let d: Vec<String> = validate(&parse_kernel(&src).unwrap())
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(
        d[0],
        "6:15: the mbarrier array's length `STAGES - 4` comes to 0"
    );
}
