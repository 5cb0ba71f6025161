//! The validator, case by case: each kernel and the exact diagnostics (`line:col:
//! message`) it must produce. An empty list means the kernel is valid.

use isa::{parse_kernel, validate};

/// Parses `src` (which must parse) and compares its diagnostics with `expect`.
#[track_caller]
fn check(name: &str, src: &str, expect: &[&str]) {
    let k = parse_kernel(src).unwrap_or_else(|d| panic!("{name}: does not parse: {d}"));
    let got: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
    assert_eq!(
        got,
        expect,
        "{name}\n--- source ---\n{src}--- got ---\n{}",
        got.join("\n")
    );
}

#[test]
fn validator_cases() {
    check(
        "cta_threads",
        "kernel k\nlaunch cta_threads=2048 regs=32\nrole r warps=0..63\n  EXIT\n",
        &["2:1: cta_threads=2048 is outside 1..=1024"],
    );
    check(
        "regs 256",
        "kernel k\nlaunch cta_threads=32 regs=256\nrole r warps=0..0\n  EXIT\n",
        &["2:1: regs=256 is more than a thread can have"],
    );
    check(
        "regs 0",
        "kernel k\nlaunch cta_threads=32\nrole r warps=0..0\n  EXIT\n",
        &["2:1: the launch gives no registers per thread"],
    );
    check(
        "grid cluster",
        "kernel k\nlaunch cta_threads=32 regs=8 grid=3 cluster=2\nrole r warps=0..0\n  EXIT\n",
        &["2:1: grid=3 is not a whole number of clusters of 2"],
    );
    check(
        "tmem",
        "kernel k\nlaunch cta_threads=32 regs=8 tmem=48\nrole r warps=0..0\n  EXIT\n",
        &["2:1: tmem=48 columns cannot be allocated"],
    );
    check(
        "dup names",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=64\nshared A size=64\nparam lane=3\nbuffer R1 size=4\nrole r warps=0..3\n  EXIT\n",
        &[
            "4:1: `A` is declared twice: as a buffer on line 3 and as a shared region here",
            "5:7: `lane` cannot name a parameter: it is a register or a built-in name",
            "6:1: `R1` cannot name a buffer: it is a register or a built-in name",
        ],
    );
    check(
        "shared over launch",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nshared a size=4096\nshared b size=16\nrole r warps=0..3\n  EXIT\n",
        &["4:1: shared regions add up to 4112 bytes with `b`, more than the launch's smem=4096"],
    );
    check(
        "mbar count",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nmbarrier m count=0\nrole r warps=0..3\n  EXIT\n",
        &["3:1: mbarrier `m` has count=0: an mbarrier expects 1 to 1048575 arrivals per phase"],
    );
    check(
        "mbarriers over a CTA's shared memory",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nmbarrier a[29000] count=1\nmbarrier b[56] count=1\nmbarrier c[1] count=1\nrole r warps=0..3\n  EXIT\n",
        &[
            "5:1: 29057 mbarriers declared up to `c`: a CTA holds at most 29056 (each is 8 bytes of its at most 227 KiB of shared memory)",
        ],
    );
    check(
        "barrier decl",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbarrier b id=16 threads=48\nbarrier c id=2 threads=256\nrole r warps=0..3\n  EXIT\n",
        &[
            "3:1: barrier `b` has id=16, outside 0..15",
            "3:1: barrier `b` counts 48 threads, which is not a whole number of warps",
            "4:1: barrier `c` waits for 256 threads but the CTA has only 128",
        ],
    );
    check(
        "no roles",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\n",
        &["2:1: the kernel has no roles: nothing runs"],
    );
    check(
        "role beyond",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..5\n  EXIT\n",
        &["3:1: role `r` runs warps 0..5 but the CTA has 4 warps (128 threads)"],
    );
    check(
        "uncovered",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..0\n  EXIT\nrole s warps=3..3\n  EXIT\n",
        &["2:1: warps 1..2 of the CTA have no role: every warp needs a body"],
    );
    check(
        "maxnreg",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..3 maxnreg=100\n  EXIT\n",
        &[
            "2:1: the roles' register budgets need 12800 registers per CTA (128 x 100) but the launch allocates 8192 (regs=64 x 128 threads)",
            "3:1: role `r` has maxnreg=100",
        ],
    );
    check(
        "mixed wg",
        "kernel k\nlaunch cta_threads=128 regs=64\nrole r warps=0..0 maxnreg=40\n  EXIT\nrole s warps=1..3 maxnreg=80\n  EXIT\n",
        &[
            "2:1: the roles' register budgets need 8960 registers per CTA (32 x 40 + 96 x 80) but the launch allocates 8192 (regs=64 x 128 threads)",
            "5:1: warpgroup 0 mixes register budgets: role `r` has 40 and role `s` has 80",
        ],
    );
    check(
        "pool",
        "kernel k\nlaunch cta_threads=256 regs=64\nrole r warps=0..3 maxnreg=40\n  EXIT\nrole s warps=4..7 maxnreg=232\n  EXIT\n",
        &[
            "2:1: the roles' register budgets need 34816 registers per CTA (128 x 40 + 128 x 232) but the launch allocates 16384 (regs=64 x 256 threads)",
        ],
    );
    check(
        "dup role",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..1\n  EXIT\nrole r warps=2..3\n  EXIT\n",
        &["5:1: a second role named `r` (the first is on line 3)"],
    );
    check(
        "loop var shadow",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nparam N=2\nrole r warps=0..3\n  loop N 0..4\n    loop lane 0..2\n      loop i 0..2\n        loop i 0..2\n          NOP\n  EXIT\n",
        &[
            "5:3: loop variable `N` has the name of a parameter",
            "6:5: loop variable `lane` has the name of a built-in",
            "8:9: loop variable `i` shadows an enclosing loop's",
        ],
    );
    check(
        "loop bound",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..3\n  loop i 0..warp\n    NOP\n  EXIT\n",
        &["4:3: a loop bound may use parameters and enclosing loop variables only, not `warp`"],
    );
    check(
        "if lane",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..3\n  if lane < 4\n    NOP\n  EXIT\n",
        &["4:3: an `if` condition must be the same for every lane of a warp, but it uses `lane`"],
    );
    check(
        "modifier",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..3\n  FFMA.FOO R1, R2, R3, R4\n  MOV.X R1, R2\n  HGMMA.64x7x16.F32.BF16 R0, a[0], a[0]\n  EXIT\n",
        &[
            "4:3: `FFMA.FOO`: `.FOO` is not a modifier of FFMA",
            "5:3: `MOV.X`: `.X` is not a modifier of MOV",
            "6:3: `HGMMA.64x7x16.F32.BF16`: HGMMA's N must be a multiple of 8 from 8 to 256, not 7",
            "6:30: no buffer, shared region or mbarrier is named `a`",
            "6:36: no buffer, shared region or mbarrier is named `a`",
        ],
    );
    check(
        "arity",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=4096\nshared s size=4096\nrole r warps=0..3\n  FFMA R1, R2, R3\n  LDG.E R1\n  LDG.E R1, s[0]\n  STS A[0], R1\n  ISETP.GE.AND R1, PT, R2, R3, PT\n  MUFU R1, R2\n  FADD R1, A[0], R2\n  EXIT 3\n",
        &[
            "6:3: `FFMA` takes 4 operands, not 3",
            "7:3: `LDG.E` takes 2 operands, not 1",
            "8:13: `LDG.E`'s address must be global memory (a buffer), not shared memory",
            "9:7: `STS`'s address must be shared memory (a shared region), not global memory",
            "10:16: `ISETP.GE.AND`'s destination must be a predicate (P0..P6, PT), not a register",
            "11:3: `MUFU` does not say which function",
            "12:12: `FADD` takes no memory operand",
            "13:8: `EXIT` takes 0 operands, not 1",
        ],
    );
    check(
        "keys",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=65536\nshared s size=4096\nmbarrier m count=1\nrole r warps=0..3\n  UTMALDG s[0], A[0], bytes=4096\n  UBLKCP s[0], A[0], bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0]\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0]\n  FFMA R1, R2, R3, R4, x=1\n  SYNCS m[0]\n  SYNCS.ARRIVE.TRANS64 m, cta=1\n  UBLKCP s[0], A[0], bytes=100, bar=s[0]\n  EXIT\n",
        &[
            "7:3: `UTMALDG` needs `bar=`",
            "8:3: `UBLKCP` needs `bytes=`",
            "8:3: this copy completes bytes on mbarrier `m`, but no SYNCS.ARRIVE.TRANS64.EXPECT_TX announces bytes on it",
            "9:3: `SYNCS.PHASECHK.TRANS64.TRYWAIT` needs `parity=`",
            "10:3: `SYNCS.ARRIVE.TRANS64.EXPECT_TX` needs `bytes=`",
            "11:24: `FFMA` has no `x=` operand",
            "12:3: `SYNCS` does not say what to do with the mbarrier",
            "13:24: mbarrier `m` needs an index",
            "13:27: `SYNCS.ARRIVE.TRANS64` has `cta=` but is not .REMOTE",
            "14:22: `UBLKCP` copies 100 bytes",
            "14:33: `bar=` names an mbarrier, not `s[0]`",
        ],
    );
    check(
        "tensor box",
        "kernel k\nlaunch cta_threads=32 regs=8 smem=4096\nbuffer A size=1MiB\nshared s size=4096\nmbarrier m count=1\nrole r warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=24576\n  UTMALDG.2D s[0], A[0], bytes=4096, row=256, pitch=4096, bar=m[0]\n  UTMALDG.2D s[0], A[0], bytes=4096, row=256, bar=m[0]\n  UTMALDG.2D s[0], A[0], bytes=4096, row=8, pitch=4096, bar=m[0]\n  UTMALDG.2D s[0], A[0], bytes=4096, row=384, pitch=4096, bar=m[0]\n  UTMALDG.2D s[0], A[0], bytes=4096, row=256, pitch=128, bar=m[0]\n  UBLKCP s[0], A[0], bytes=4096, row=256, pitch=4096, bar=m[0]\n  EXIT\n",
        &[
            "9:38: a tensor copy's box needs both row= and pitch=, `pitch=` is missing",
            "10:38: row=8: a box row is a positive multiple of 16 bytes",
            "11:38: bytes=4096 is not a whole number of 384-byte rows",
            "12:47: pitch=128: rows 256 bytes long are at least 256 bytes apart, in multiples of 16",
            "13:34: `UBLKCP` has no `row=` operand",
            "13:43: `UBLKCP` has no `pitch=` operand",
        ],
    );
    check(
        "regs",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..3\n  MOV R64, RZ\n  LDG.E.128 R62, A[0]\n  IMAD.WIDE R63, R1, R2, R3\n  MOV R1, R300\n  EXIT\nbuffer A size=64\n",
        &[
            "4:7: `MOV` uses R64 but role `r`'s budget is 64 registers (the launch's regs=64)",
            "5:13: `LDG.E.128`'s destination R62..R65 must start at a register that is a multiple of 4",
            "5:13: `LDG.E.128` uses R62..R65 (destination) but role `r`'s budget is 64 registers (the launch's regs=64)",
            "6:13: `IMAD.WIDE`'s destination R63..R64 must start at a register that is a multiple of 2",
            "6:13: `IMAD.WIDE` uses R63..R64 (destination) but role `r`'s budget is 64 registers (the launch's regs=64)",
            "7:11: `R300` is not a register: registers are R0..R254",
        ],
    );
    check(
        "regs2",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=65536\nrole r warps=0..3\n  LDG.E.128 R252, A[0]\n  LDG.E.128 R5, A[0]\n  EXIT\n",
        &[
            "5:13: `LDG.E.128`'s destination covers R252..R255, past R254, the last register",
            "6:13: `LDG.E.128`'s destination R5..R8 must start at a register that is a multiple of 4",
        ],
    );
    check(
        "mbar idx",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nmbarrier m[2] count=1\nrole r warps=0..3\n  SYNCS.ARRIVE.TRANS64 m[2]\n  SYNCS.ARRIVE.TRANS64 m[warp]\n  SYNCS.ARRIVE.TRANS64 m[warp / 2]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[lane % 2], parity=0\n  EXIT\n",
        &[
            "5:24: the mbarrier index is 2, but `m` has 2 mbarriers (0..=1)",
            "6:24: mbarrier index `warp` takes values 0..=3 and reaches 3, but `m` has 2 mbarriers (0..=1)",
            "8:34: an mbarrier index must be the same for every lane of a warp, but it uses `lane`",
        ],
    );
    check(
        "bar",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbarrier b id=1 threads=64\nrole r warps=0..1\n  BAR.SYNC 16\n  BAR.SYNC 1, 48\n  BAR.SYNC 2, 256\n  BAR.ARV 3\n  BAR.SYNC b, 96\n  BAR.SYNC nope\n  BAR.SYNC b\n  BAR 1\n  EXIT\nrole s warps=2..3\n  BAR.SYNC b\n  BAR.ARV 3, 64\n  EXIT\n",
        &[
            "5:12: the barrier id is 16, but a CTA has 16 hardware barriers (0..=15)",
            "6:15: `BAR.SYNC` counts 48 threads, which is not a whole number of warps",
            "7:15: `BAR.SYNC` waits for 256 threads but the CTA has only 128",
            "8:3: `BAR.ARV` needs a thread count",
            "9:3: barrier 1 waits for 96 threads here but for 48 at line 6",
            "9:15: `BAR.SYNC` counts 96 threads but barrier `b` is declared with threads=64",
            "10:12: no barrier is named `nope`",
            "11:3: barrier 1 waits for 64 threads here but for 48 at line 6",
            "12:3: `BAR` needs exactly one of .SYNC, .ARV and .RED",
            "15:3: barrier 1 waits for 64 threads here but for 48 at line 6",
        ],
    );
    check(
        "bar counts",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..1\n  BAR.SYNC 1, 128\n  BAR.SYNC 1, 64\n  EXIT\nrole s warps=2..3\n  EXIT\n",
        &[
            "4:3: `BAR.SYNC` on barrier 1 waits for 128 threads, but only role `r` (warps 0..1, 64 threads) ever reaches it; role `s` never arrives, so the barrier never completes",
            "5:3: barrier 1 waits for 64 threads here but for 128 at line 4",
        ],
    );
    check(
        "bar arv ok",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole r warps=0..1\n  BAR.ARV 1, 128\n  EXIT\nrole s warps=2..3\n  BAR.SYNC 1, 128\n  EXIT\n",
        &[],
    );
    check(
        "mbar arrive none tx",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=65536\nshared s size=4096\nmbarrier m count=1\nrole r warps=0..3\n  UBLKCP s[0], A[0], bytes=4096, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  EXIT\n",
        &[
            "8:3: this waits on mbarrier `m`, but nothing ever arrives at it: no SYNCS.ARRIVE or UTCBAR names `m`, so its phase never completes and the wait never returns",
        ],
    );
    check(
        "mbar no expect",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=65536\nshared s size=4096\nmbarrier m count=1\nrole r warps=0..3\n  SYNCS.ARRIVE.TRANS64 m[0]\n  UBLKCP s[0], A[0], bytes=4096, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  EXIT\n",
        &[
            "8:3: this copy completes bytes on mbarrier `m`, but no SYNCS.ARRIVE.TRANS64.EXPECT_TX announces bytes on it",
        ],
    );
    check(
        "negative work",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nparam T=2\nwork flops=1000 bytes=9223372036854775807 * T\nrole r warps=0..3\n  EXIT\n",
        &[
            "4:1: `work bytes=` comes to -2: a CTA's work is not negative (does its product overflow 64 bits?)",
        ],
    );
    check(
        "tx balance past i64",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=65536\nshared s size=4096\nmbarrier m count=1\nparam B=9223372036854775807\nrole r warps=0..3\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=4096\n  UBLKCP s[0], A[0], bytes=B, bar=m[0]\n  UBLKCP s[0], A[0], bytes=2048, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  EXIT\n",
        &[
            "8:3: this expects 4096 bytes on `m[0]` but the copies complete 9223372036854777855 in this block",
            "9:10: the last byte of `s[0]` (9223372036854775807 bytes from the offset) takes values 0..=9223372036854775806 and reaches 9223372036854775806, but shared region `s` has 4096 bytes (0..=4095)",
            "9:16: the last byte of `A[0]` (9223372036854775807 bytes from the offset) takes values 0..=9223372036854775806 and reaches 9223372036854775806, but buffer `A` has 65536 bytes (0..=65535)",
            "9:22: `UBLKCP` copies 9223372036854775807 bytes",
        ],
    );
    check(
        "tx balance",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=65536\nshared s size=4096\nmbarrier m count=1\nrole r warps=0..3\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=4096\n  UBLKCP s[0], A[0], bytes=2048, bar=m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=2\n  EXIT\n",
        &[
            "7:3: this expects 4096 bytes on `m[0]` but the copy completes 2048 in this block",
            "9:40: parity=2: a phase parity is 0 or 1",
        ],
    );
    check(
        "mem bounds",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=4096\nshared s size=1024\nrole r warps=0..3\n  LDG.E.128 R4, A[(warp * 32 + lane) * 16]\n  LDS R4, s[-4]\n  STS s[(warp * 32 + lane) * 8], R4\n  @P0 LDG.E R4, A[lane * 1000]\n  LDG.E R4, A[lane * 1000 + 100000]\n  EXIT\n",
        &[
            "7:11: the byte offset is -4, but `s` starts at offset 0; offsets may not be negative",
            "10:13: the last byte of `A[lane * 1000 + 100000]` (4 bytes from the offset) takes values 100000..=131003 and reaches 131003, but buffer `A` has 4096 bytes (0..=4095)",
        ],
    );
    check(
        "wgmma",
        "kernel k\nlaunch cta_threads=256 regs=168 smem=65536\nshared a size=65536\nrole p warps=0..1\n  EXIT\nrole c warps=2..5\n  WARPGROUP.ARRIVE\n  HGMMA.64x256x16.F32.BF16 R0, a[0], a[0], gsb1\n  WARPGROUP.DEPBAR gsb0, 0\n  WARPGROUP R1\n  EXIT\nrole d warps=6..7\n  EXIT\n",
        &[
            "7:3: `WARPGROUP.ARRIVE` runs on whole warpgroups, but role `c` is warps 2..5",
            "8:44: `HGMMA.64x256x16.F32.BF16`'s fourth operand can only be `gsb0`, not `gsb1`",
            "9:3: `WARPGROUP.DEPBAR` needs `.LE`",
            "10:3: `WARPGROUP` needs .ARRIVE or .DEPBAR.LE",
        ],
    );
    check(
        "hgmma ok shape/regs",
        "kernel k\nlaunch cta_threads=128 regs=168 smem=65536\nshared a size=65536\nrole c warps=0..3\n  WARPGROUP.ARRIVE\n  HGMMA.64x256x16.F32.BF16 R40, R200, a[0]\n  HGMMA.64x128x16.F16.F16 R100, a[0], a[70000], gsb0\n  WARPGROUP.DEPBAR.LE gsb0, 0\n  EXIT\n",
        &[
            "6:33: `HGMMA.64x256x16.F32.BF16` uses R200..R203 (A fragment) but role `c`'s budget is 168 registers (the launch's regs=168)",
            "7:39: byte offset `70000` is 70000, but shared region `a` has 65536 bytes (0..=65535)",
        ],
    );
    check(
        "blackwell",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=65536 tmem=128\nshared a size=65536\nmbarrier m count=1\nrole c warps=0..3\n  TMEMALLOC cols=256\n  UTCMMA.128x256x16.F32.BF16.2CTA tmem[0], a[0], a[0]\n  UTCBAR m[0]\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  LDTM.32DP32BIT.X64 R0, tmem[0]\n  STTM.32DP32BIT.X64 tmem[0], R10\n  TMEMDEALLOC\n  EXIT\n",
        &[
            "6:13: `TMEMALLOC` allocates 256 columns but the launch declares tmem=128",
            "7:3: `UTCMMA.128x256x16.F32.BF16.2CTA` pairs two CTAs but the launch has cluster=1",
            "7:35: the last column of the 256-column accumulator at `tmem[0]` takes values 0..=255 and reaches 255, but the CTA allocates 128 columns (0..=127)",
            "11:31: `STTM.32DP32BIT.X64` uses R10..R73 (source) but role `c`'s budget is 64 registers (the launch's regs=64)",
        ],
    );
    check(
        "no tmem",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole c warps=0..3\n  LDTM.32DP32BIT.X4 R0, tmem[0]\n  EXIT\n",
        &["4:25: this uses tensor memory but the launch allocates none"],
    );
    check(
        "depbar",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole c warps=0..3\n  LDGDEPBAR\n  DEPBAR SB0, 1\n  DEPBAR.LE SB3, 1\n  DEPBAR.LE SB1, 99\n  SETMAXNREG 40\n  SETMAXNREG.DEC 41\n  NANOSLEEP 100\n  MEMBAR.GPU\n  FENCE.PROXY.ASYNC\n  BRA loop\n  EXIT\n",
        &[
            "5:3: `DEPBAR` needs `.LE`",
            "6:13: `DEPBAR.LE` waits on SB0 or SB1, not `SB3`",
            "7:18: wait depth 99 is outside 0..=63",
            "8:3: `SETMAXNREG` needs exactly one of .INC and .DEC",
            "9:18: `SETMAXNREG.DEC 41`",
        ],
    );
    check(
        "setmaxnreg role",
        "kernel k\nlaunch cta_threads=128 regs=64\nrole c warps=0..3 maxnreg=40\n  SETMAXNREG.DEC 48\n  EXIT\n",
        &["4:18: `SETMAXNREG.DEC 48` disagrees with role `c`'s maxnreg=40"],
    );
    check(
        "work vars",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nwork flops=N * lane\nrole c warps=0..3\n  EXIT\n",
        &[
            "3:1: `N` is not a loop variable in scope, a parameter or a built-in (warp, lane, warpgroup, cta)",
            "3:1: `work` may use parameters and enclosing loop variables only, not `lane`",
        ],
    );
    check(
        "remote",
        "kernel k\nlaunch cta_threads=128 regs=64 grid=4 cluster=2\nmbarrier m count=1\nrole c warps=0..3\n  SYNCS.ARRIVE.TRANS64.REMOTE m[0]\n  SYNCS.ARRIVE.TRANS64.REMOTE m[0], cta=cta ^ 1\n  SYNCS.PHASECHK.TRANS64.TRYWAIT m[0], parity=0\n  EXIT\n",
        &["5:3: `SYNCS.ARRIVE.TRANS64.REMOTE` needs `cta=`"],
    );
    check(
        "bar id expr",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nrole c warps=0..3\n  BAR.SYNC warp + 14, 32\n  BAR.SYNC lane, 32\n  EXIT\n",
        &[
            "4:12: barrier id `warp + 14` takes values 14..=17 and reaches 17, but a CTA has 16 hardware barriers (0..=15)",
            "5:12: a barrier id must be the same for every lane of a warp, but it uses `lane`",
        ],
    );
    check(
        "loop var used OK",
        "kernel k\nlaunch cta_threads=128 regs=64 smem=4096 grid=4\nbuffer A size=4096\nparam N=8\nrole c warps=0..3\n  loop i 0..N\n    loop j i..N\n      LDG.E R4, A[(j * 4 + warp) * 32 + lane]\n  EXIT\n",
        &[],
    );
}

#[test]
fn every_diagnostic_has_a_position_and_most_have_help() {
    let src = "kernel k\nlaunch cta_threads=128 regs=64 smem=4096\nbuffer A size=64\nrole r warps=0..2\n  LDG.E R1, Q[0]\n  FFMA R1, R2, R3\n  MOV R70, RZ\n";
    let diags = validate(&parse_kernel(src).unwrap());
    assert!(diags.len() >= 4);
    for d in &diags {
        assert!(d.line >= 1 && d.col >= 1, "{d}");
    }
    assert!(diags.iter().all(|d| d.help.is_some()), "{diags:#?}");
    // Sorted by position.
    let pos: Vec<(u32, u32)> = diags.iter().map(|d| (d.line, d.col)).collect();
    let mut sorted = pos.clone();
    sorted.sort();
    assert_eq!(pos, sorted);
}

#[test]
fn parameter_overrides_are_validated() {
    // In range with the default, out of range once the parameter grows.
    let src = "kernel k\nlaunch cta_threads=32 regs=32\nbuffer A size=1024\nparam N=8\nrole r warps=0..0\n  loop i 0..N\n    LDG.E R4, A[(i * 32 + lane) * 4]\n  EXIT\n";
    let mut k = parse_kernel(src).unwrap();
    assert!(validate(&k).is_empty());
    k.set_params(&[("N".into(), 9)]).unwrap();
    let got: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
    assert_eq!(
        got,
        [
            "7:15: the last byte of `A[(i * 32 + lane) * 4]` (4 bytes from the offset) takes values 0..=1151 and reaches 1151, but buffer `A` has 1024 bytes (0..=1023)"
        ]
    );
}

#[test]
fn kernels_built_in_rust_validate_too() {
    use isa::builder::KernelBuilder;
    let k = KernelBuilder::new("chain", 32)
        .regs(16)
        .param("N", 8)
        .role("main", 0, 0, None, |b| {
            b.loop_("i", 0, "N", |b| {
                b.ins("FFMA R1, R1, R2, R3");
            });
            b.ins("MOV R20, RZ");
            b.ins("EXIT");
        })
        .build();
    let got: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
    // Built instructions have no source position: 0:0.
    assert_eq!(
        got,
        ["0:0: `MOV` uses R20 but role `main`'s budget is 16 registers (the launch's regs=16)"]
    );
}
