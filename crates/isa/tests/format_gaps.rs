//! The constructs of issue 25 item 8 in the text format: uniform registers and
//! instructions, `pred` declarations, the bulk store and its `.READ` wait, `perm()`,
//! `warm=`: each parsed, printed back to the same program, and each misuse a
//! positioned diagnostic.

use isa::ast::Reg;
use isa::expr::perm;
use isa::{parse_expr, parse_kernel, validate};

const HEAD: &str = "kernel k\nlaunch cta_threads=128 regs=64 smem=65536\nbuffer C size=1MiB\nshared s size=65536\nmbarrier mb[2] count=1\n";

/// `line:col: message` of every diagnostic (parse or validation) of `HEAD + rest`.
fn diags(rest: &str) -> Vec<String> {
    let src = format!("{HEAD}{rest}");
    match parse_kernel(&src) {
        Err(d) => vec![d.to_string()],
        Ok(k) => validate(&k).iter().map(|d| d.to_string()).collect(),
    }
}

#[track_caller]
fn check(rest: &str, expect: &[&str]) {
    assert_eq!(diags(rest), expect, "--- source ---\n{HEAD}{rest}");
}

#[test]
fn the_example_prints_back_to_the_same_program() {
    let src = include_str!("../../../examples/format_gaps.smk");
    let k = parse_kernel(src).unwrap();
    assert!(validate(&k).is_empty(), "{:?}", validate(&k));
    let printed = k.to_string();
    assert_eq!(parse_kernel(&printed).unwrap(), k);
    for line in [
        "pred P1 = (warp == 1) & ((k % 4) == 3)",
        "pred UP0 = (k + 1) < K",
        "buffer IN global size=64MiB warm=8388608",
        "ULDC.64 UR4, 528",
        "@P1 UBLKCP.G.S OUT[(cta * K + k) * 16384], stage[0], bytes=16384",
        "@P1 DEPBAR.LE.READ SB1, 0",
        "LDG.E.STRONG.GPU R10, TABLE[perm(k + cta * K, 512) * 128]",
        "@UP0 BRA",
    ] {
        assert!(printed.contains(line), "`{line}` not in\n{printed}");
    }
    assert_eq!(
        k.pred(Reg::Up(0)).unwrap().truth,
        parse_expr("k + 1 < K").unwrap()
    );
    assert_eq!(k.buffers[0].warm, 8 << 20);
}

#[test]
fn uniform_registers_parse_as_registers() {
    let i = isa::parse_instr("@!UP3 UIADD3 UR5, -UR62, URZ, 0x1").unwrap();
    assert_eq!(i.to_string(), "@!UP3 UIADD3 UR5, -UR62, URZ, 1");
    assert_eq!(i.dest_reg(), Some((Reg::Ur(5), 1)));
    assert_eq!(i.op.pipe(), isa::Pipe::Uniform);
    // A vector instruction reads a uniform register through no register bank.
    let f = isa::parse_instr("FFMA R1, R2, UR4, R6").unwrap();
    assert_eq!(f.bank_reads(), vec![Reg::R(2), Reg::R(6)]);
    assert!(f.source_regs().contains(&(Reg::Ur(4), 1)));
    assert_eq!(isa::ast::parse_reg("UR63"), None);
    assert_eq!(isa::ast::parse_reg("UP7"), None);
    assert_eq!(isa::ast::parse_reg("UR07"), None);
    assert_eq!(isa::ast::parse_reg("U"), None);
    let w = isa::parse_instr("UIMAD.WIDE.U32 UR6, UR7, UR8, URZ").unwrap();
    assert_eq!(w.dest_reg(), Some((Reg::Ur(6), 2)));
}

#[test]
fn perm_is_a_permutation_per_key() {
    for n in [1i64, 2, 3, 7, 64, 100, 1000, 4097] {
        for key in [0i64, 1, 5] {
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let v = perm(i + key * n, n).unwrap();
                assert!((0..n).contains(&v), "perm({i}, {n}) = {v}");
                assert!(!seen[v as usize], "perm(., {n}) repeats {v}");
                seen[v as usize] = true;
            }
        }
    }
    let order = |key: i64| {
        (0..64)
            .map(|i| perm(i + key * 64, 64).unwrap())
            .collect::<Vec<_>>()
    };
    assert_ne!(order(0), order(1), "another key, another order");
    assert_ne!(order(0), (0..64).collect::<Vec<_>>(), "not the identity");
    assert_eq!(perm(-1, 10), perm(9 - 10, 10));
    assert_eq!(perm(5, 0), None);
    let e = parse_expr("perm(3, 0)").unwrap();
    assert_eq!(
        e.eval(&|_| None).unwrap_err().to_string(),
        "perm(x, n) permutes 0..n, and n must be at least 1, not 0"
    );
    assert_eq!(
        parse_expr("perm(k, 64) * 128").unwrap().to_string(),
        "perm(k, 64) * 128"
    );
}

#[test]
fn misuse_is_a_positioned_error() {
    let role = "role r warps=0..3\n";
    // pred declarations
    check(
        "pred PT = 1\n",
        &["6:6: `PT` is always true; declare P0..P6 or UP0..UP6"],
    );
    check(
        "pred R1 = 1\n",
        &["6:6: `R1` is not a predicate register (P0..P6, UP0..UP6)"],
    );
    check(
        "pred P0 = 1\npred P0 = 0\n",
        &["7:6: `P0` is declared a second time"],
    );
    // Lanes may diverge.
    check(&format!("pred P0 = lane < 4\n{role}  @P0 NOP\n"), &[]);
    check(
        &format!("pred P0 = k % 2 == 0\n{role}  loop k 0..4\n    @P0 NOP\n  @P0 NOP\n"),
        &["10:3: `k` is used outside its loop (the loop on line 8 has ended)"],
    );
    check(
        &format!("pred P0 = j == 0\n{role}  @P0 NOP\n"),
        &[
            "8:3: `j` is not a loop variable in scope, a parameter or a built-in (warp, lane, warpgroup, cta)",
        ],
    );
    // the uniform datapath
    check(
        &format!("{role}  UIADD3 UR4, R1, UR5, URZ\n"),
        &[
            "7:15: `UIADD3` runs on the uniform datapath and reads uniform registers (UR0..UR62, URZ, UP0..UP6, UPT), not `R1`",
        ],
    );
    check(
        &format!("{role}  FFMA UR4, R1, R2, R3\n"),
        &[
            "7:8: `FFMA`'s destination must be a vector register (R0..R254, RZ), not a uniform register",
        ],
    );
    check(
        &format!("{role}  ULDC.64 UR62, 0x10\n"),
        &["7:11: `ULDC.64`'s destination covers UR62..UR63, past UR62, the last uniform register"],
    );
    check(
        &format!("{role}  UISETP.GE.AND P0, UPT, UR4, UR5, UPT\n"),
        &[
            "7:17: `UISETP.GE.AND`'s destination must be a uniform predicate (UP0..UP6, UPT), not a predicate",
        ],
    );
    // the bulk store
    check(
        &format!("{role}  UBLKCP.G.S C[0], s[0], bytes=1024, bar=mb[0]\n"),
        &[
            "7:38: `UBLKCP.G.S` is a bulk store (shared to global): it completes through bulk groups, not an mbarrier",
        ],
    );
    check(
        &format!("{role}  UBLKCP.S.G s[0], C[0], bytes=1024\n"),
        &[
            "7:3: `UBLKCP.S.G` copies into shared memory and needs bar=MBAR[i], the mbarrier its bytes complete on",
        ],
    );
    check(
        &format!("{role}  UBLKCP.G.S s[0], C[0], bytes=1024, bar=mb[0]\n"),
        &[
            "7:3: `UBLKCP.G.S` says global memory first (a store) but its destination is shared memory",
            "7:3: copies complete bytes on mbarrier `mb`, but nothing ever arrives at it, so its phase never completes",
        ],
    );
    check(
        &format!("{role}  UBLKCP s[0], s[1024], bytes=1024\n"),
        &["7:16: `UBLKCP` copies between global and shared memory, not within one"],
    );
    check(
        &format!("{role}  DEPBAR.LE.READ SB0, 0\n"),
        &[
            "7:3: `DEPBAR.LE.READ` waits until bulk stores have read shared memory, which SB0 (cp.async groups) does not count",
        ],
    );
    // perm()
    check(
        &format!("param N=4\n{role}  loop i 0..8\n    LDG.E R1, C[perm(i, N - 4) * 128]\n"),
        &["9:15: `perm(i, N - 4)` permutes 0..n, but n = `N - 4` is at most 0 here"],
    );
    // warm=
    check(
        "buffer A size=1KiB warm=2KiB\nrole r warps=0..3\n  EXIT\n",
        &["6:1: buffer `A` has warm=2048 bytes, more than its size=1024"],
    );
    // What is right is not an error.
    check(
        &format!(
            "pred P0 = warp < 2\npred UP1 = k == 3\n{role}  ULDC.64 UR4, 0x118\n  loop k 0..4\n    @P0 UBLKCP.G.S C[k * 1024], s[0], bytes=1024\n    @!UP1 BRA\n    FFMA R1, R2, UR4, R1\n  UTMACMDFLUSH\n  DEPBAR.LE.READ SB1, 0\n  EXIT\n"
        ),
        &[],
    );
}

/// The cost examples (`examples/gaps/`, one construct each, compared in their
/// comments) validate and print back to themselves.
#[test]
fn the_cost_examples_validate_and_print_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gaps");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "smk") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let k = parse_kernel(&src).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        let diags = validate(&k);
        assert!(diags.is_empty(), "{}: {diags:?}", path.display());
        assert_eq!(
            parse_kernel(&k.to_string()).unwrap(),
            k,
            "{}",
            path.display()
        );
        n += 1;
    }
    assert_eq!(n, 7);
}

/// The static race check reads `UBLKCP.G.S` as the bulk store it is, and
/// `DEPBAR.LE.READ SB1` as a wait that lets its stage be released.
#[test]
fn a_bulk_store_released_unwaited_is_a_race() {
    let ring = |wait: &str| {
        format!(
            "kernel ring\nlaunch cta_threads=64 regs=32 smem=8192 grid=1\nbuffer A size=1MiB\nbuffer C size=1MiB\nshared stage size=8192\nmbarrier full[2] count=1\nmbarrier empty[2] count=1\n\nrole producer warps=0..0\n  loop k 0..4\n    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % 2], parity=((k / 2) & 1) ^ 1\n    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % 2], bytes=4096\n    UTMALDG stage[(k % 2) * 4096], A[k * 4096], bytes=4096, bar=full[k % 2]\n  EXIT\n\nrole storer warps=1..1\n  loop k 0..4\n    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % 2], parity=(k / 2) & 1\n    UBLKCP.G.S C[k * 4096], stage[(k % 2) * 4096], bytes=4096\n    UTMACMDFLUSH\n{wait}    SYNCS.ARRIVE.TRANS64 empty[k % 2]\n  EXIT\n"
        )
    };
    let diags = |src: &str| -> Vec<String> {
        validate(&parse_kernel(src).unwrap())
            .iter()
            .map(|d| d.to_string())
            .collect()
    };
    assert_eq!(
        diags(&ring("    DEPBAR.LE.READ SB1, 0\n")),
        Vec::<String>::new()
    );
    assert_eq!(diags(&ring("    DEPBAR.LE SB1, 0\n")), Vec::<String>::new());
    assert_eq!(
        diags(&ring("")),
        [
            "21:5: this releases stage `empty[0]` while `UBLKCP.G.S` on line 19 may still read `stage[0..4096]` in it: no `DEPBAR.LE SB1, N` has waited for it"
        ]
    );
}

/// `perm(x, n)` with `n` near the 64-bit limit is judged without overflow (the text
/// fuzzer found `2 * (n - 1)` overflowing in the interval analysis).
#[test]
fn perm_of_a_huge_domain_validates_without_overflow() {
    let d = diags(
        "role r warps=0..1\n  LDG.E.STRONG.GPU R10, C[perm(lane, 9223372036854775807) % 1024]\n  EXIT\n",
    );
    assert!(d.iter().all(|m| !m.contains("overflow")), "{d:?}");
}
