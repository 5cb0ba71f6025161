//! The text format: every construct parses to the tree it should, and every error
//! points at the right line and column with the right message.

use isa::ast::*;
use isa::expr::{BinOp, Expr, Func};
use isa::{Op, parse_expr, parse_instr, parse_kernel};

const HEADER: &str = "kernel k\nlaunch cta_threads=64 regs=32\n";

/// A kernel with one role `r` on warps 0..1 whose body is `body` (indented by the caller).
fn body(body: &str) -> Vec<Stmt> {
    let src = format!("{HEADER}role r warps=0..1\n{body}");
    let k = parse_kernel(&src).unwrap_or_else(|d| panic!("{}", d.render("t.smk", &src)));
    k.roles.into_iter().next().expect("one role").body
}

fn instr(text: &str) -> Instr {
    parse_instr(text).unwrap_or_else(|d| panic!("`{text}`: {d}"))
}

fn v(n: &str) -> Expr {
    Expr::var(n)
}

fn reg(n: u8) -> Operand {
    Operand::Reg {
        reg: Reg::R(n),
        negated: false,
        reuse: false,
    }
}

#[test]
fn reuse_flags_mark_source_registers() {
    let i = instr("FFMA R14, R14, R4.reuse, -R5.reuse");
    assert_eq!(
        i.operands[2],
        Operand::Reg {
            reg: Reg::R(4),
            negated: false,
            reuse: true
        }
    );
    assert_eq!(
        i.operands[3],
        Operand::Reg {
            reg: Reg::R(5),
            negated: true,
            reuse: true
        }
    );
    // only the registers not read from the reuse cache go through the banks
    assert_eq!(i.bank_reads(), vec![Reg::R(14)]);
    assert_eq!(i.to_string(), "FFMA R14, R14, R4.reuse, -R5.reuse");
}

#[test]
fn header_declarations() {
    let src = "\
# a comment line
kernel gemm   // trailing comment
launch cta_threads=384 regs=168 smem=192KiB grid=132 cluster=2 tmem=256

buffer A global size=64MiB
buffer B size=1GiB
buffer C size=4096
shared sA size=0x100
mbarrier full[4] count=1
mbarrier done count=256
barrier epi id=1 threads=256
param PIPE=4 KT=512 NEG=-3
work flops=2 * 128 * KT bytes=KT * 64
role r warps=0..11
  NOP
";
    let k = parse_kernel(src).unwrap();
    assert_eq!(k.name, "gemm");
    let l = &k.launch;
    assert_eq!(
        (
            l.cta_threads,
            l.regs,
            l.smem,
            l.grid,
            l.cluster,
            l.tmem_cols
        ),
        (384, 168, 192 * 1024, 132, 2, 256)
    );
    assert_eq!((l.span.line, l.span.col), (3, 1));
    let sizes: Vec<(&str, u64)> = k
        .buffers
        .iter()
        .map(|b| (b.name.as_str(), b.size))
        .collect();
    assert_eq!(sizes, [("A", 64 << 20), ("B", 1 << 30), ("C", 4096)]);
    assert_eq!(k.shared[0].name, "sA");
    assert_eq!(k.shared[0].size, 256);
    assert_eq!(
        k.mbarriers
            .iter()
            .map(|m| (m.name.as_str(), m.len, m.count))
            .collect::<Vec<_>>(),
        [("full", 4, 1), ("done", 1, 256)]
    );
    let b = &k.named_barriers[0];
    assert_eq!((b.name.as_str(), b.id, b.threads), ("epi", 1, 256));
    assert_eq!(k.param("PIPE"), Some(4));
    assert_eq!(k.param("KT"), Some(512));
    assert_eq!(k.param("NEG"), Some(-3));
    let w = k.work.as_ref().unwrap();
    assert_eq!(w.flops, Some(parse_expr("2 * 128 * KT").unwrap()));
    assert_eq!(w.bytes, Some(parse_expr("KT * 64").unwrap()));
    assert_eq!(k.roles[0].span.line, 14);
}

#[test]
fn launch_defaults_and_alias() {
    let k = parse_kernel("kernel k\nlaunch threads=96\nrole r warps=0..2\n  EXIT\n").unwrap();
    let l = &k.launch;
    assert_eq!(
        (
            l.cta_threads,
            l.regs,
            l.smem,
            l.grid,
            l.cluster,
            l.tmem_cols
        ),
        (96, 0, 0, 1, 1, 0)
    );
    assert_eq!(k.warps(), 3);
}

#[test]
fn roles_warp_ranges_and_maxnreg() {
    let src = format!(
        "{HEADER}role p warps=0..0 maxnreg=40\n  EXIT\nrole c warps=1\n  EXIT\nrole d warps=2..3\n  EXIT\n"
    );
    let k = parse_kernel(&src).unwrap();
    let r: Vec<(&str, u32, u32, Option<u32>)> = k
        .roles
        .iter()
        .map(|r| (r.name.as_str(), r.first_warp, r.last_warp, r.maxnreg))
        .collect();
    assert_eq!(
        r,
        [("p", 0, 0, Some(40)), ("c", 1, 1, None), ("d", 2, 3, None)]
    );
    assert_eq!(k.roles[2].warp_count(), 2);
    assert_eq!(k.role_of(3), Some(2));
    assert_eq!(k.role_of(4), None);
}

#[test]
fn loops_and_ifs_nest_by_indentation() {
    let b = body(
        "  loop k 0..KT - 1\n    loop j k..4\n      NOP\n    if k % 2 == 0\n      EXIT\n  NOP\n",
    );
    assert_eq!(b.len(), 2);
    let Stmt::Loop {
        var,
        start,
        end,
        body: inner,
        span,
    } = &b[0]
    else {
        panic!("a loop")
    };
    assert_eq!(var, "k");
    assert_eq!(start, &Expr::Int(0));
    assert_eq!(end, &Expr::bin(BinOp::Sub, v("KT"), Expr::Int(1)));
    assert_eq!((span.line, span.col), (4, 3));
    assert_eq!(inner.len(), 2);
    assert!(matches!(&inner[0], Stmt::Loop { var, start, .. } if var == "j" && start == &v("k")));
    let Stmt::If { cond, body, .. } = &inner[1] else {
        panic!("an if")
    };
    assert_eq!(cond, &parse_expr("(k % 2) == 0").unwrap());
    assert!(matches!(&body[0], Stmt::Instr(i) if i.op == Op::Exit));
    assert!(matches!(&b[1], Stmt::Instr(i) if i.op == Op::Nop));
}

#[test]
fn tabs_indent_too() {
    let b = body("\tloop i 0..2\n\t\tNOP\n\tEXIT\n");
    assert_eq!(b.len(), 2);
}

#[test]
fn instruction_mnemonic_modifiers_and_guard() {
    let i = instr("@!P2 LDG.E.128.CONSTANT R4, A[lane * 16]");
    assert_eq!(i.op, Op::Ldg);
    assert_eq!(i.mods, ["E", "128", "CONSTANT"]);
    assert_eq!(
        i.guard,
        Some(Guard {
            pred: Reg::P(2),
            negated: true
        })
    );
    assert_eq!(i.mnemonic(), "LDG.E.128.CONSTANT");
    assert_eq!(i.def_count(), 4);
    assert_eq!(i.dest_reg(), Some((Reg::R(4), 4)));
    let g = instr("@PT NOP").guard.unwrap();
    assert_eq!((g.pred, g.negated), (Reg::Pt, false));
}

#[test]
fn operand_kinds() {
    let i = instr(
        "FFMA R1, -R2, RZ, 1.5, -2.5e-3, 0x10, -7, !P3, PT, X[(k / 2) * 64 + lane], bytes=4096, bar=full[k % 4], k + 1, gsb0, min(a, 3)",
    );
    assert_eq!(
        i.operands,
        vec![
            reg(1),
            Operand::Reg {
                reg: Reg::R(2),
                negated: true,
                reuse: false
            },
            Operand::Reg {
                reg: Reg::Rz,
                negated: false,
                reuse: false
            },
            Operand::Float("1.5".into()),
            Operand::Float("-2.5e-3".into()),
            Operand::Int(16),
            Operand::Int(-7),
            Operand::Reg {
                reg: Reg::P(3),
                negated: true,
                reuse: false
            },
            Operand::Reg {
                reg: Reg::Pt,
                negated: false,
                reuse: false
            },
            Operand::Index {
                name: "X".into(),
                index: parse_expr("(k / 2) * 64 + lane").unwrap()
            },
            Operand::Key {
                key: "bytes".into(),
                value: Box::new(Operand::Int(4096))
            },
            Operand::Key {
                key: "bar".into(),
                value: Box::new(Operand::Index {
                    name: "full".into(),
                    index: parse_expr("k % 4").unwrap()
                })
            },
            Operand::Expr(Expr::bin(BinOp::Add, v("k"), Expr::Int(1))),
            Operand::Word("gsb0".into()),
            Operand::Expr(Expr::Call(
                Func::Min,
                Box::new(v("a")),
                Box::new(Expr::Int(3))
            )),
        ]
    );
    // Operand positions, for diagnostics.
    let cols: Vec<u32> = (0..i.operands.len())
        .map(|n| i.operand_span(n).col)
        .collect();
    assert_eq!(&cols[..4], &[6, 10, 15, 19]);
}

#[test]
fn negation_of_registers_and_of_names_that_look_like_them() {
    let i = instr("FADD R1, - R5, -(R6)");
    assert_eq!(
        i.operands[1],
        Operand::Reg {
            reg: Reg::R(5),
            negated: true,
            reuse: false
        }
    );
    assert_eq!(i.operands[2], Operand::Expr(Expr::Neg(Box::new(v("R6")))));
    // Each prints back as what it is.
    assert_eq!(i.to_string(), "FADD R1, -R5, -(R6)");
    assert_eq!(instr(&i.to_string()), i);
}

#[test]
fn register_names() {
    use isa::parse::parse_reg;
    assert_eq!(parse_reg("R0"), Some(Reg::R(0)));
    assert_eq!(parse_reg("R254"), Some(Reg::R(254)));
    assert_eq!(parse_reg("R255"), None);
    assert_eq!(parse_reg("R01"), None);
    assert_eq!(parse_reg("P6"), Some(Reg::P(6)));
    assert_eq!(parse_reg("P7"), None);
    assert_eq!(parse_reg("RZ"), Some(Reg::Rz));
    assert_eq!(parse_reg("PT"), Some(Reg::Pt));
    assert_eq!(parse_reg("r1"), None);
    // A name past the register file is a word, which the validator reports.
    assert_eq!(
        instr("MOV R1, R300").operands[1],
        Operand::Word("R300".into())
    );
}

#[test]
fn expressions_follow_c_precedence() {
    let cases: &[(&str, i64)] = &[
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("100 / 10 / 5", 2),
        ("7 % 4", 3),
        ("1 << 4 + 1", 32),
        ("256 >> 2", 64),
        ("((9 / 4) & 1) ^ 1", 1),
        ("8 | 2 ^ 3 & 6", 8), // 8 | (2 ^ (3 & 6)); left to right would give 0
        ("3 < 4 == 1", 1),
        ("-3 * -2", 6),
        ("~0", -1),
        ("-(2 + 3)", -5),
        ("min(4, max(1, 9)) + 1", 5),
        ("0x1f", 31),
        ("-9223372036854775808", i64::MIN),
    ];
    for (text, want) in cases {
        let e = parse_expr(text).unwrap_or_else(|d| panic!("`{text}`: {d}"));
        assert_eq!(e.eval(&|_| None), Ok(*want), "`{text}`");
    }
    let e = parse_expr("(k / PIPE) & 1").unwrap();
    let env = |n: &str| match n {
        "k" => Some(13),
        "PIPE" => Some(4),
        _ => None,
    };
    assert_eq!(e.eval(&env), Ok(1));
    assert!(parse_expr("1 +").is_err());
    assert!(parse_expr("(1").is_err());
    assert!(parse_expr("1 2").is_err());
}

#[test]
fn set_params_overrides_defaults() {
    let mut k = parse_kernel(&format!("{HEADER}param N=4\nrole r warps=0..1\n  EXIT\n")).unwrap();
    k.set_params(&[("N".into(), 9)]).unwrap();
    assert_eq!(k.param("N"), Some(9));
    let e = k.set_params(&[("M".into(), 1)]).unwrap_err();
    assert_eq!(e, "kernel `k` has no parameter `M` (it has: N)");
}

/// Each malformed input and the diagnostic it gives, as `line:col: message`.
#[test]
fn parse_errors_point_at_the_problem() {
    let cases: &[(&str, &str)] = &[
        ("", "1:1: empty file: expected `kernel NAME`"),
        (
            "# only a comment\n",
            "1:1: empty file: expected `kernel NAME`",
        ),
        (
            "kernal x\n",
            "1:1: expected `kernel NAME` as the first line",
        ),
        (
            "kernel\n",
            "1:7: expected a kernel name, found the end of the line",
        ),
        (
            "kernel x y\n",
            "1:10: expected the end of the line, found `y`",
        ),
        (
            "kernel x\n",
            "1:1: the kernel has no `launch` line (launch cta_threads=N regs=N smem=BYTES grid=N)",
        ),
        (
            "kernel x\nlaunch regs=32\n",
            "2:1: `launch` needs cta_threads=N",
        ),
        (
            "kernel x\nlaunch cta_threads=32 foo=1\n",
            "2:23: unknown launch setting `foo`; expected cta_threads, regs, smem, grid, cluster or tmem",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nlaunch cta_threads=32\n",
            "3:1: a second `launch` line",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nbuffer A\n",
            "3:7: `buffer` needs size=BYTES",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nbuffer A size=12XB\n",
            "3:17: unknown size suffix `XB`; expected KiB, MiB or GiB",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nmbarrier m[0] count=1\n",
            "3:12: an mbarrier array needs at least one element",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nmbarrier m[9223372036854775807] count=1\n",
            "3:12: an mbarrier array of 9223372036854775807 elements: a CTA holds at most 29056 mbarriers (each is 8 bytes of its at most 227 KiB of shared memory)",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nmbarrier m[2]\n",
            "3:1: `mbarrier` needs count=N (arrivals per phase)",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nbarrier b id=1\n",
            "3:1: `barrier` needs threads=N",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nparam\n",
            "3:1: `param` needs NAME=VALUE",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nparam A=\n",
            "3:9: expected a number, found the end of the line",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nparam A=-99999999999999999999\n",
            "3:10: number too large",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nwork\n",
            "3:1: `work` needs flops=EXPR or bytes=EXPR",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nwork time=3\n",
            "3:6: unknown work setting `time`; expected flops or bytes",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nfoo bar\n",
            "3:1: unknown declaration `foo`; expected launch, buffer, shared, mbarrier, barrier, param, work, pred or role",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nkernel y\n",
            "3:1: a second `kernel` line: one file holds one kernel",
        ),
        (
            "kernel x\nlaunch cta_threads=32\n  NOP\n",
            "3:3: unexpected indentation: only role bodies are indented",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r\n  NOP\n",
            "3:1: `role` needs warps=FIRST..LAST",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=3..1\n  NOP\n",
            "3:8: warps=3..1 is empty: the range is inclusive and must not run backwards",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..2000\n  NOP\n",
            "3:8: a CTA has at most 32 warps",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n",
            "3:1: role `r` has no body: indent its instructions under it",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0 max=3\n  NOP\n",
            "3:19: unknown role setting `max`; expected warps or maxnreg",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  NOP\n    NOP\n",
            "5:5: unexpected indentation: only `loop` and `if` open a block",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  loop i 0..4\n      NOP\n    NOP\n",
            "6:5: this line's indentation matches no enclosing block",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  loop i 0..4\n  NOP\n",
            "4:1: this loop has no body: indent its instructions under it",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  loop i 0 4\n    NOP\n",
            "4:12: expected `..`, found `4`",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  if\n    NOP\n",
            "4:5: expected an expression (a number, a name or `(`), found the end of the line",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  role q warps=1..1\n",
            "4:3: `role` must start at the beginning of its line",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  ffma R1, R2, R3, R4\n",
            "4:3: unknown instruction `ffma` (mnemonics are upper case, as in SASS)",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  FMAC R1, R2\n",
            "4:3: unknown instruction `FMAC`",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  LDG.E..128 R1, A[0]\n",
            "4:9: empty modifier after `.`",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  @R1 NOP\n",
            "4:4: `R1` is not a predicate register (P0..P6, PT, UP0..UP6, UPT)",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  MOV R1, !R2\n",
            "4:12: `!` negates a predicate register (P0..P6, PT, UP0..UP6, UPT)",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  MOV R1 R2\n",
            "4:10: expected `,` or the end of the instruction, found `R`",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  FFMA R1, R2,, R3\n",
            "4:15: expected an expression (a number, a name or `(`), found `,`",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  SYNCS.ARRIVE.TRANS64 a[0], bytes=count=3\n",
            "4:30: a key's value cannot be another key=value",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  LDG.E R1, A[1 + ]\n",
            "4:19: expected an expression (a number, a name or `(`), found `]`",
        ),
        (
            "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  LDG.E R1, A[99999999999999999999]\n",
            "4:15: number too large",
        ),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        match parse_kernel(src) {
            Ok(_) => failures.push(format!("{src:?}: parsed, expected `{want}`")),
            Err(d) if d.to_string() != *want => {
                failures.push(format!("{src:?}:\n  got  `{d}`\n  want `{want}`"))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rendered_diagnostic_shows_line_and_caret() {
    let src = "kernel x\nlaunch cta_threads=32\nrole r warps=0..0\n  LDG.E R1, A[1 + ]\n";
    let d = parse_kernel(src).unwrap_err();
    assert_eq!(
        d.render("t.smk", src),
        "t.smk:4:19: error: expected an expression (a number, a name or `(`), found `]`\n  |\n4 |   LDG.E R1, A[1 + ]\n  |                   ^\n"
    );
}

/// Every op has a row in the operand-form table, and each row's syntax starts with its
/// op's mnemonic (or the `{mnem}` placeholder).
#[test]
fn every_op_has_an_operand_form() {
    for &op in isa::opcode::Op::ALL {
        let form = op
            .form(&[])
            .unwrap_or_else(|| panic!("{op} has no operand form"));
        if let Some(o) = form.operands {
            assert!(
                o.syntax.starts_with(op.mnemonic()) || o.syntax.starts_with("{mnem}"),
                "{op}: {}",
                o.syntax
            );
            assert!(o.min <= o.max && o.kinds.len() <= o.max.max(1), "{op}");
        }
    }
}
