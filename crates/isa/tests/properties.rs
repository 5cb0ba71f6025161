//! Properties: printed kernels parse back to themselves, and no input, however
//! malformed, makes the parser, validator, printer or occupancy calculation panic.

use std::path::Path;

use isa::ast::*;
use isa::expr::{BinOp, Expr, Func};
use isa::occupancy::{SmLimits, occupancy};
use isa::{Op, parse_kernel, validate};
use proptest::prelude::*;

// ----- generators -----

/// Lower-case names: never a register (R12, P3, RZ, PT) and never `min`/`max`.
fn ident() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,5}".prop_filter("reserved", |s| s != "min" && s != "max")
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        (-1000i64..1000).prop_map(Expr::Int),
        prop::sample::select(vec![i64::MIN, i64::MAX, 0, -1]).prop_map(Expr::Int),
        ident().prop_map(Expr::Var),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            // The parser folds `-5` into a literal, so a negated literal is a literal.
            inner.clone().prop_map(|e| match e {
                Expr::Int(v) => Expr::Int(v.wrapping_neg()),
                e => Expr::Neg(Box::new(e)),
            }),
            inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            (
                prop::sample::select(BinOp::ALL.to_vec()),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| Expr::bin(op, a, b)),
            (
                prop::sample::select(vec![Func::Min, Func::Max]),
                inner.clone(),
                inner
            )
                .prop_map(|(f, a, b)| Expr::Call(f, Box::new(a), Box::new(b))),
        ]
    })
}

fn reg() -> impl Strategy<Value = Reg> {
    prop_oneof![
        (0u8..=254).prop_map(Reg::R),
        Just(Reg::Rz),
        (0u8..=6).prop_map(Reg::P),
        Just(Reg::Pt),
    ]
}

fn float() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        0u32..1000,
        0u32..1000,
        prop::option::of(-20i32..20),
    )
        .prop_map(|(neg, a, b, exp)| {
            let mut s = format!("{}{a}.{b}", if neg { "-" } else { "" });
            if let Some(e) = exp {
                s.push_str(&format!("e{e}"));
            }
            s
        })
}

/// An operand in the form the parser produces it.
fn plain_operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        (reg(), any::<bool>(), any::<bool>()).prop_map(|(reg, negated, reuse)| Operand::Reg {
            reg,
            negated,
            // `.reuse` belongs to vector registers only
            reuse: reuse && matches!(reg, Reg::R(_)),
        }),
        any::<i64>().prop_map(Operand::Int),
        float().prop_map(Operand::Float),
        (ident(), expr()).prop_map(|(name, index)| Operand::Index { name, index }),
        expr().prop_map(Operand::from_expr),
        ident().prop_map(Operand::Word),
    ]
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        4 => plain_operand(),
        1 => (ident(), plain_operand()).prop_map(|(key, v)| Operand::Key {
            key,
            value: Box::new(v)
        }),
    ]
}

fn instr() -> impl Strategy<Value = Instr> {
    (
        prop::sample::select(Op::ALL.to_vec()),
        prop::collection::vec("[A-Z0-9][A-Z0-9_x]{0,6}", 0..4),
        prop::collection::vec(operand(), 0..5),
        prop::option::of((
            prop_oneof![(0u8..=6).prop_map(Reg::P), Just(Reg::Pt)],
            any::<bool>(),
        )),
    )
        .prop_map(|(op, mods, operands, guard)| {
            let mods: Vec<&str> = mods.iter().map(String::as_str).collect();
            let mut i = Instr::new(op, &mods, operands);
            i.guard = guard.map(|(pred, negated)| Guard { pred, negated });
            i
        })
}

fn stmts() -> impl Strategy<Value = Vec<Stmt>> {
    let leaf = instr().prop_map(Stmt::Instr);
    let stmt = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            3 => instr().prop_map(Stmt::Instr),
            1 => (ident(), expr(), expr(), prop::collection::vec(inner.clone(), 1..4)).prop_map(
                |(var, start, end, body)| Stmt::Loop {
                    var,
                    start,
                    end,
                    body,
                    span: Span::default()
                }
            ),
            1 => (expr(), prop::collection::vec(inner, 1..4)).prop_map(|(cond, body)| Stmt::If {
                cond,
                body,
                span: Span::default()
            }),
        ]
    });
    prop::collection::vec(stmt, 1..5)
}

fn kernel() -> impl Strategy<Value = Kernel> {
    let launch = (
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(
            |(cta_threads, regs, smem, grid, cluster, tmem_cols)| Launch {
                cta_threads,
                regs,
                smem,
                grid,
                cluster,
                tmem_cols,
                span: Span::default(),
            },
        );
    let sp = Span::default;
    let buffers = prop::collection::vec((ident(), any::<u64>()), 0..3).prop_map(move |v| {
        v.into_iter()
            .map(|(name, size)| Buffer {
                name,
                size,
                warm: size / 2,
                span: sp(),
            })
            .collect::<Vec<_>>()
    });
    let shared = prop::collection::vec((ident(), any::<u32>()), 0..3).prop_map(move |v| {
        v.into_iter()
            .map(|(name, size)| SharedAlloc {
                name,
                size,
                span: sp(),
            })
            .collect::<Vec<_>>()
    });
    let mbarriers =
        prop::collection::vec((ident(), 1u32..64, any::<u32>()), 0..3).prop_map(move |v| {
            v.into_iter()
                .map(|(name, len, count)| MbarrierDecl {
                    name,
                    len,
                    count,
                    span: sp(),
                })
                .collect::<Vec<_>>()
        });
    let barriers =
        prop::collection::vec((ident(), any::<u32>(), any::<u32>()), 0..2).prop_map(move |v| {
            v.into_iter()
                .map(|(name, id, threads)| NamedBarrierDecl {
                    name,
                    id,
                    threads,
                    span: sp(),
                })
                .collect::<Vec<_>>()
        });
    let params = prop::collection::vec((ident(), any::<i64>()), 0..3).prop_map(move |v| {
        v.into_iter()
            .map(|(name, default)| Param {
                name,
                default,
                span: sp(),
            })
            .collect::<Vec<_>>()
    });
    // At least one of flops and bytes.
    let work = prop::option::of(
        prop_oneof![
            expr().prop_map(|e| (Some(e), None)),
            expr().prop_map(|e| (None, Some(e))),
            (expr(), expr()).prop_map(|(a, b)| (Some(a), Some(b))),
        ]
        .prop_map(|(flops, bytes)| Work {
            flops,
            bytes,
            span: Span::default(),
        }),
    );
    let roles = prop::collection::vec(
        (
            ident(),
            0u32..1024,
            0u32..64,
            prop::option::of(any::<u32>()),
            stmts(),
        ),
        1..4,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(name, first, extra, maxnreg, body)| Role {
                name,
                first_warp: first,
                last_warp: (first + extra).min(1023),
                maxnreg,
                body,
                span: Span::default(),
            })
            .collect::<Vec<_>>()
    });
    (
        ident(),
        launch,
        buffers,
        shared,
        mbarriers,
        barriers,
        params,
        work,
        roles,
    )
        .prop_map(
            |(name, launch, buffers, shared, mbarriers, named_barriers, params, work, roles)| {
                Kernel {
                    name,
                    launch,
                    buffers,
                    shared,
                    mbarriers,
                    named_barriers,
                    params,
                    work,
                    preds: vec![],
                    roles,
                    decl_exprs: vec![],
                }
            },
        )
}

fn h100() -> SmLimits {
    SmLimits {
        regs_per_sm: 65536,
        max_regs_per_thread: 255,
        reg_alloc_unit: 256,
        reg_file_partitions: 4,
        max_warps_per_sm: 64,
        max_threads_per_sm: 2048,
        max_ctas_per_sm: 32,
        smem_per_sm: 233_472,
        max_smem_per_block: 232_448,
        smem_reserved_per_cta: 1024,
        smem_alloc_unit: 128,
    }
}

/// Everything downstream of a parse must cope with what the parser accepts.
fn exercise(src: &str) {
    if let Ok(k) = parse_kernel(src) {
        for d in validate(&k) {
            let _ = d.render("fuzz.smk", src);
        }
        let _ = occupancy(&k, &h100());
        let printed = k.to_string();
        let again = parse_kernel(&printed).unwrap_or_else(|d| {
            panic!(
                "accepted input prints as text that does not parse:\n{}\n{printed}",
                d.render("printed", &printed)
            )
        });
        assert_eq!(again, k, "printed:\n{printed}");
    } else if let Err(d) = parse_kernel(src) {
        let _ = d.render("fuzz.smk", src);
    }
}

fn example_sources() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out = Vec::new();
    for sub in [dir.clone(), dir.join("broken")] {
        for e in std::fs::read_dir(sub).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "smk") {
                out.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    out.sort();
    out
}

/// One edit to a source text.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Indent(usize, usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let text = prop_oneof![
        "\\PC{0,8}",
        prop::sample::select(vec![
            "[",
            "]",
            "(",
            ")",
            ",",
            "=",
            "..",
            "-",
            "@!P0 ",
            " 99999999999999999999",
            "\t",
            "\n",
            "  ",
            "loop i 0..4\n",
            "if 1\n",
            "R254",
            "0x",
            "#",
            "//",
            "%",
            "/ 0",
            "<< 70",
            "é",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(
        prop_oneof![
            (any::<usize>(), 0usize..20).prop_map(|(a, n)| Edit::Delete(a, n)),
            (any::<usize>(), text).prop_map(|(a, s)| Edit::Insert(a, s)),
            any::<usize>().prop_map(Edit::DuplicateLine),
            (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
            (any::<usize>(), 0usize..6).prop_map(|(a, n)| Edit::Indent(a, n)),
        ],
        1..6,
    )
}

fn apply(src: &str, edits: &[Edit]) -> String {
    let mut s = src.to_string();
    let boundary = |s: &str, at: usize| {
        let mut at = at % (s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    for e in edits {
        match e {
            Edit::Delete(a, n) => {
                let a = boundary(&s, *a);
                let b = boundary(&s, (a + n).min(s.len()));
                s.replace_range(a..b.max(a), "");
            }
            Edit::Insert(a, t) => {
                let a = boundary(&s, *a);
                s.insert_str(a, t);
            }
            Edit::DuplicateLine(a) | Edit::Indent(a, _) | Edit::SwapLines(a, _) => {
                let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
                if lines.is_empty() {
                    continue;
                }
                let i = a % lines.len();
                match e {
                    Edit::DuplicateLine(_) => {
                        let l = lines[i].clone();
                        lines.insert(i, l);
                    }
                    Edit::Indent(_, n) => lines[i] = format!("{}{}", " ".repeat(*n), lines[i]),
                    Edit::SwapLines(_, b) => {
                        let j = b % lines.len();
                        lines.swap(i, j)
                    }
                    _ => unreachable!(),
                }
                s = lines.join("\n");
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn printed_kernels_parse_back(k in kernel()) {
        let printed = k.to_string();
        let again = parse_kernel(&printed).map_err(|d| {
            TestCaseError::fail(format!("{}\n{printed}", d.render("printed", &printed)))
        })?;
        prop_assert_eq!(&again, &k, "printed:\n{}", printed);
        prop_assert_eq!(again.to_string(), printed);
    }

    #[test]
    fn random_kernels_never_panic_validation_or_occupancy(k in kernel()) {
        let _ = validate(&k);
        let _ = occupancy(&k, &h100());
    }

    #[test]
    fn printed_expressions_parse_back(e in expr()) {
        let text = e.to_string();
        prop_assert_eq!(isa::parse_expr(&text).map_err(|d| TestCaseError::fail(format!("{text}: {d}")))?, e);
    }

    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,300}") {
        exercise(&src);
    }

    #[test]
    fn line_shaped_text_never_panics(lines in prop::collection::vec(
        prop_oneof![
            Just("kernel k".to_string()),
            Just("launch cta_threads=64 regs=32 smem=1024".to_string()),
            Just("role r warps=0..1".to_string()),
            Just("buffer A size=4KiB".to_string()),
            Just("mbarrier m[2] count=1".to_string()),
            Just("param N=4".to_string()),
            "  [A-Z]{2,6}(\\.[A-Z0-9]{1,3}){0,2} [RP0-9a-z\\[\\]\\(\\)+*%=, -]{0,30}",
            "  (loop [a-z] [0-9a-zN]{1,2}\\.\\.[0-9a-zN]{1,3}|if [a-z0-9 <>=]{1,8})",
            "    [A-Z]{3,5} [R0-9, \\[\\]a-z]{0,20}",
        ],
        0..12,
    )) {
        exercise(&lines.join("\n"));
    }

    #[test]
    fn mutated_examples_never_panic(which in any::<prop::sample::Index>(), e in edits()) {
        let sources = example_sources();
        let src = &sources[which.index(sources.len())];
        exercise(&apply(src, &e));
    }
}
