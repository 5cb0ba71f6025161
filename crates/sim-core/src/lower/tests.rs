//! Lowering's own tests.

use super::*;

#[test]
fn power_of_two_division_and_remainder_as_the_general_ones() {
    let xs = [
        0i64,
        1,
        2,
        3,
        7,
        8,
        9,
        1000,
        -1,
        -2,
        -3,
        -7,
        -8,
        -9,
        -1000,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
    ];
    for shift in 0..62u32 {
        let k = 1i64 << shift;
        for &x in &xs {
            assert_eq!(rem_pow2(x, k - 1), x.wrapping_rem(k), "{x} % {k}");
            assert_eq!(div_pow2(x, shift), x.wrapping_div(k), "{x} / {k}");
        }
    }
    for &x in &xs {
        assert_eq!(rem_pow2(x, -1), x, "{x} with no mask");
    }
}

/// The postfix code's value, without the affine form.
fn postfix(e: &CExpr, env: &Env) -> Result<i64, EvalFault> {
    match e {
        CExpr::Code {
            code, lane, cta, ..
        } => CExpr::Code {
            code: code.clone(),
            affine: None,
            lane: *lane,
            cta: *cta,
            lane_step: None,
        }
        .eval(env),
        CExpr::Const(v) => Ok(*v),
    }
}

fn leaf() -> impl proptest::strategy::Strategy<Value = Expr> {
    use proptest::prelude::*;
    prop_oneof![
        (-5000i64..5000).prop_map(Expr::Int),
        Just(Expr::Int(1 << 40)),
        Just(Expr::Int(i64::MAX)),
        prop_oneof![
            Just("i"),
            Just("j"),
            Just("warp"),
            Just("lane"),
            Just("warpgroup"),
            Just("cta")
        ]
        .prop_map(|n| Expr::Var(n.to_string())),
    ]
}

fn expr() -> impl proptest::strategy::Strategy<Value = Expr> {
    use proptest::prelude::*;
    leaf().prop_recursive(5, 24, 2, |inner| {
        let op = prop_oneof![
            Just(BinOp::Add),
            Just(BinOp::Sub),
            Just(BinOp::Mul),
            Just(BinOp::Div),
            Just(BinOp::Rem),
            Just(BinOp::And),
            Just(BinOp::Shr),
            Just(BinOp::Shl),
        ];
        prop_oneof![
            (op, inner.clone(), inner.clone()).prop_map(|(op, a, b)| Expr::Bin(
                op,
                Box::new(a),
                Box::new(b)
            )),
            inner.prop_map(|a| Expr::Neg(Box::new(a))),
        ]
    })
}

/// `e` compiled with loop variables `i` and `j` in scope, unless it does not compile
/// or needs a deeper stack than the engine's (what the lowering rejects).
fn compiled(e: &Expr) -> Option<CExpr> {
    let scope = vec!["i".to_string(), "j".to_string()];
    let k = isa::parse_kernel(
        "kernel k\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  EXIT\n",
    )
    .unwrap();
    let mut code = Vec::new();
    (compile(e, &k, &scope, &mut code).is_ok() && depth(&code) <= 16).then(|| CExpr::code(code))
}

proptest::proptest! {
    /// Wherever the affine form applies it gives the postfix code's value (or its
    /// fault), for any loop variables, warp, lane and CTA.
    #[test]
    fn affine_form_evaluates_as_the_postfix_code(
        e in expr(),
        i in -100i64..100_000,
        j in proptest::prelude::any::<i64>(),
        warp in 0i64..32,
        lane in 0i64..32,
        cta in 0i64..1000,
    ) {
        if let Some(c) = compiled(&e) {
            let mut vars = [0i64; MAX_LOOP_DEPTH];
            vars[0] = i;
            vars[1] = j;
            let env = Env { vars: &vars, warp, lane, cta };
            proptest::prop_assert_eq!(c.eval(&env), postfix(&c, &env), "{:?}", c);
        }
    }
}

proptest::proptest! {
    /// `eval_ctas` gives, for each CTA of a run of them, `eval`'s value or its fault,
    /// with and without the affine form.
    #[test]
    fn eval_ctas_evaluates_each_cta_as_eval(
        e in expr(),
        i in -100i64..100_000,
        j in proptest::prelude::any::<i64>(),
        warp in 0i64..32,
        first in -40i64..1000,
        n in 0usize..200,
    ) {
        if let Some(c) = compiled(&e) {
            let mut vars = [0i64; MAX_LOOP_DEPTH];
            vars[0] = i;
            vars[1] = j;
            let env = Env { vars: &vars, warp, lane: 0, cta: 0 };
            let code_only = match &c {
                CExpr::Code { code, lane, cta, .. } => CExpr::Code {
                    code: code.clone(),
                    affine: None,
                    lane: *lane,
                    cta: *cta,
                    lane_step: None,
                },
                CExpr::Const(v) => CExpr::Const(*v),
            };
            for form in [&c, &code_only] {
                let mut out = vec![None; n];
                form.eval_ctas(&env, first, &mut out);
                for (k, &v) in out.iter().enumerate() {
                    let one = form.eval(&Env { cta: first + k as i64, ..env });
                    proptest::prop_assert_eq!(v, one.ok(), "{:?} at cta {}", form, first + k as i64);
                }
            }
        }
    }
}

proptest::proptest! {
    /// An affine form's warp part with its loop variables' terms gives lane 0's value,
    /// the value is a multiple of its alignment, and where it says its values end
    /// within a size, every value that is not negative does, for any loop
    /// variables, warp and CTA.
    #[test]
    fn warp_parts_and_bounds_give_the_values(
        e in expr(),
        i in -100i64..100_000,
        j in proptest::prelude::any::<i64>(),
        warp in 0u32..32,
        cta in 0u32..1000,
        width in 1u64..17,
    ) {
        let Some(CExpr::Code { affine: Some(a), .. }) = compiled(&e) else {
            return Ok(());
        };
        let mut vars = [0i64; MAX_LOOP_DEPTH];
        vars[0] = i;
        vars[1] = j;
        let v = a.value_of(&vars, [warp as i64, 0, (warp / 4) as i64, cta as i64]);
        proptest::prop_assert_eq!(a.value_from(a.warp_part(warp, cta), &vars), v);
        proptest::prop_assert_eq!((v as u64) & (a.alignment() - 1), 0, "{} not aligned", v);
        let modulus = (a.mask as u64).wrapping_add(1);
        for size in [0, 1, 64, 4096, modulus, modulus.wrapping_add(width), u64::MAX] {
            if a.ends_within(size, width) && v >= 0 {
                proptest::prop_assert!(v as u64 + width <= size, "{v} + {width} > {size}");
            }
        }
    }
}

/// The load chain's address ends 1020 bytes before its buffer's end: a 4-byte load
/// needs no upper bound check in a 4 MiB buffer, and does in one 1021 bytes shorter.
#[test]
fn a_masked_multiple_ends_a_step_below_the_modulus() {
    let k = isa::parse_kernel(
        "kernel k\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  EXIT\n",
    )
    .unwrap();
    let e = isa::parse::parse_expr("(i * 32 + warp) * 1024 % 4194304").unwrap();
    let mut code = Vec::new();
    compile(&e, &k, &["i".to_string()], &mut code).unwrap();
    let CExpr::Code {
        affine: Some(a), ..
    } = CExpr::code(code)
    else {
        panic!("affine")
    };
    assert!(a.ends_within(4 << 20, 4));
    assert!(!a.ends_within((4 << 20) - 1021, 4));
    assert_eq!(a.alignment(), 1024);
}

proptest::proptest! {
    /// Wherever a lane step is found, each lane's value (or fault) is lane 0's plus
    /// that many steps, for the expression alone and with a lane term added to it.
    #[test]
    fn a_lane_step_gives_every_lane_s_value(
        e in expr(),
        c in -64i64..64,
        term_first in proptest::prelude::any::<bool>(),
        i in -100i64..100_000,
        warp in 0i64..32,
    ) {
        let lane_term = Expr::Bin(BinOp::Mul, Box::new(Expr::Var("lane".into())), Box::new(Expr::Int(c)));
        let sum = if term_first {
            Expr::Bin(BinOp::Add, Box::new(lane_term), Box::new(e.clone()))
        } else {
            Expr::Bin(BinOp::Add, Box::new(e.clone()), Box::new(lane_term))
        };
        for e in [e, sum] {
            let Some(x) = compiled(&e) else { continue };
            let Some(step) = x.lane_step() else { continue };
            let mut vars = [0i64; MAX_LOOP_DEPTH];
            vars[0] = i;
            let at = |lane| postfix(&x, &Env { vars: &vars, warp, lane, cta: 3 });
            let first = at(0);
            for lane in 1..32 {
                let expected = first.clone().map(|v| v.wrapping_add(step.wrapping_mul(lane)));
                proptest::prop_assert_eq!(at(lane), expected, "{:?} lane {}", x, lane);
            }
        }
    }
}

#[test]
fn typical_addresses_take_the_affine_form() {
    let k = isa::parse_kernel(
        "kernel k\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  EXIT\n",
    )
    .unwrap();
    let scope = vec!["i".to_string()];
    for src in [
        "((i * 32 + warp) * 1024) % 4194304",
        "i * 49152 + lane * 16 - 8",
        "(cta * 4 + warpgroup) * 256 + lane * 4",
        "-(i * 3) + 7",
    ] {
        let e = isa::parse_expr(src).unwrap();
        let mut code = Vec::new();
        compile(&e, &k, &scope, &mut code).unwrap();
        let c = CExpr::code(code);
        assert!(
            matches!(
                c,
                CExpr::Code {
                    affine: Some(_),
                    ..
                }
            ),
            "{src}: {c:?}"
        );
    }
}
