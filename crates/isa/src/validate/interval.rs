//! Interval arithmetic over expressions: the values an index, offset or bound can take
//! over every loop trip, warp and lane, and whether its bounds are really reached.

use crate::expr::{BinOp, EvalError, Expr, Func};

/// The values an expression can take: `lo..=hi`. `exact` when both bounds are really
/// reached; `dense` when every integer between them is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Iv {
    pub(super) lo: i64,
    pub(super) hi: i64,
    pub(super) exact: bool,
    pub(super) dense: bool,
}

impl Iv {
    pub(super) fn point(v: i64) -> Iv {
        Iv {
            lo: v,
            hi: v,
            exact: true,
            dense: true,
        }
    }
    pub(super) fn range(lo: i64, hi: i64) -> Iv {
        Iv {
            lo,
            hi,
            exact: true,
            dense: true,
        }
    }
    pub(super) fn is_point(&self) -> bool {
        self.lo == self.hi
    }
    pub(super) fn loose(self) -> Iv {
        Iv {
            exact: false,
            dense: false,
            ..self
        }
    }
}

pub(super) fn corners(a: Iv, b: Iv, f: impl Fn(i64, i64) -> Option<i64>) -> Option<(i64, i64)> {
    let c = [
        f(a.lo, b.lo)?,
        f(a.lo, b.hi)?,
        f(a.hi, b.lo)?,
        f(a.hi, b.hi)?,
    ];
    Some((*c.iter().min()?, *c.iter().max()?))
}

/// Interval of `e`, `None` when unknown (an unbound name, overflow, a divisor that may be
/// zero). Exactness assumes the variables are independent; the caller clears it when a
/// variable appears twice.
pub(super) fn interval(e: &Expr, env: &dyn Fn(&str) -> Option<Iv>) -> Option<Iv> {
    Some(match e {
        Expr::Int(v) => Iv::point(*v),
        Expr::Var(n) => env(n)?,
        Expr::Neg(a) => {
            let a = interval(a, env)?;
            Iv {
                lo: a.hi.checked_neg()?,
                hi: a.lo.checked_neg()?,
                ..a
            }
        }
        Expr::Not(a) => {
            let a = interval(a, env)?;
            Iv {
                lo: !a.hi,
                hi: !a.lo,
                ..a
            }
        }
        Expr::Call(f, a, b) => {
            let (a, b) = (interval(a, env)?, interval(b, env)?);
            let (lo, hi) = match f {
                Func::Min => (a.lo.min(b.lo), a.hi.min(b.hi)),
                Func::Max => (a.lo.max(b.lo), a.hi.max(b.hi)),
                Func::Perm if b.lo >= 1 => {
                    // Every value of 0..n is reached when x covers one whole
                    // permutation: n consecutive values from a multiple of n.
                    let n = b.lo;
                    let width = a.hi.checked_sub(a.lo);
                    let whole = b.is_point()
                        && a.dense
                        && width.is_some_and(|w| {
                            (a.lo.rem_euclid(n) == 0 && w >= n - 1)
                                || (n - 1).checked_mul(2).is_some_and(|m| w >= m)
                        });
                    return Some(Iv {
                        lo: 0,
                        hi: b.hi - 1,
                        exact: whole && a.exact && b.exact,
                        dense: whole,
                    });
                }
                Func::Perm => return None,
            };
            Iv {
                lo,
                hi,
                exact: a.exact && b.exact,
                dense: a.dense && b.dense,
            }
        }
        Expr::Bin(op, a, b) => {
            let (a, b) = (interval(a, env)?, interval(b, env)?);
            let exact = a.exact && b.exact;
            match op {
                BinOp::Add => Iv {
                    lo: a.lo.checked_add(b.lo)?,
                    hi: a.hi.checked_add(b.hi)?,
                    exact,
                    dense: a.dense && b.dense,
                },
                BinOp::Sub => Iv {
                    lo: a.lo.checked_sub(b.hi)?,
                    hi: a.hi.checked_sub(b.lo)?,
                    exact,
                    dense: a.dense && b.dense,
                },
                BinOp::Mul => {
                    let (lo, hi) = corners(a, b, i64::checked_mul)?;
                    let unit = |x: Iv| x.is_point() && x.lo.unsigned_abs() <= 1;
                    Iv {
                        lo,
                        hi,
                        exact,
                        dense: (a.dense && unit(b)) || (b.dense && unit(a)) || lo == hi,
                    }
                }
                BinOp::Div => {
                    if b.lo <= 0 && b.hi >= 0 {
                        return None;
                    }
                    let (lo, hi) = corners(a, b, i64::checked_div)?;
                    Iv {
                        lo,
                        hi,
                        exact: exact && b.is_point(),
                        dense: a.dense && b.is_point(),
                    }
                }
                BinOp::Rem => {
                    if !b.is_point() || b.lo <= 0 || a.lo < 0 {
                        return None;
                    }
                    let m = b.lo;
                    if a.lo / m == a.hi / m {
                        Iv {
                            lo: a.lo % m,
                            hi: a.hi % m,
                            exact: a.exact,
                            dense: a.dense,
                        }
                    } else {
                        // The range wraps: it reaches m - 1 just before a multiple of m
                        // and 0 at it, when it is dense.
                        Iv {
                            lo: 0,
                            hi: m - 1,
                            exact: a.exact && a.dense,
                            dense: a.dense && a.hi - a.lo + 1 >= m,
                        }
                    }
                }
                BinOp::Shl | BinOp::Shr => {
                    if !b.is_point() || !(0..63).contains(&b.lo) {
                        return None;
                    }
                    let s = b.lo as u32;
                    if *op == BinOp::Shl {
                        let f = 1i64.checked_shl(s)?;
                        Iv {
                            lo: a.lo.checked_mul(f)?,
                            hi: a.hi.checked_mul(f)?,
                            exact: a.exact,
                            dense: a.dense && (s == 0 || a.is_point()),
                        }
                    } else {
                        Iv {
                            lo: a.lo >> s,
                            hi: a.hi >> s,
                            exact: a.exact,
                            dense: a.dense,
                        }
                    }
                }
                BinOp::And | BinOp::Or | BinOp::Xor => {
                    if a.is_point() && b.is_point() {
                        return Some(Iv::point(op.apply(a.lo, b.lo).ok()?));
                    }
                    if a.lo < 0 || b.lo < 0 {
                        return None;
                    }
                    let hi = if *op == BinOp::And {
                        a.hi.min(b.hi)
                    } else {
                        // The bits up to the highest set one; i64::MAX's are 2^63 - 1.
                        let m = a.hi.max(b.hi) as u64;
                        i64::try_from((m + 1).checked_next_power_of_two()? - 1).ok()?
                    };
                    Iv::range(0, hi).loose()
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                    if a.is_point() && b.is_point() {
                        return Some(Iv::point(op.apply(a.lo, b.lo).ok()?));
                    }
                    Iv::range(0, 1).loose()
                }
            }
        }
    })
}

/// True when some variable occurs twice (`warp` and `warpgroup` count as one), which
/// breaks the independence exact bounds rely on.
pub(super) fn reuses_a_variable(e: &Expr) -> bool {
    pub(super) fn walk(e: &Expr, seen: &mut Vec<String>) -> bool {
        match e {
            Expr::Int(_) => false,
            Expr::Var(v) => {
                let v = if v == "warpgroup" { "warp" } else { v.as_str() };
                if seen.iter().any(|s| s == v) {
                    true
                } else {
                    seen.push(v.to_string());
                    false
                }
            }
            Expr::Neg(a) | Expr::Not(a) => walk(a, seen),
            Expr::Bin(_, a, b) | Expr::Call(_, a, b) => walk(a, seen) || walk(b, seen),
        }
    }
    walk(e, &mut Vec::new())
}

/// The smallest part of `e` whose value certainly leaves the 64-bit integers: an
/// operation on exactly bounded operands one of whose reached corners overflows.
pub(super) fn overflowing<'e>(e: &'e Expr, env: &dyn Fn(&str) -> Option<Iv>) -> Option<&'e Expr> {
    match e {
        Expr::Int(_) | Expr::Var(_) => None,
        Expr::Not(a) => overflowing(a, env),
        Expr::Neg(a) => overflowing(a, env).or_else(|| {
            let a = interval(a, env)?;
            (a.exact && a.lo == i64::MIN).then_some(e)
        }),
        Expr::Call(_, a, b) => overflowing(a, env).or_else(|| overflowing(b, env)),
        Expr::Bin(op, a, b) => overflowing(a, env)
            .or_else(|| overflowing(b, env))
            .or_else(|| {
                let (a, b) = (interval(a, env)?, interval(b, env)?);
                if !(a.exact && b.exact) {
                    return None;
                }
                let corners = [(a.lo, b.lo), (a.lo, b.hi), (a.hi, b.lo), (a.hi, b.hi)];
                corners
                    .iter()
                    .any(|&(x, y)| op.checked_apply(x, y) == Err(EvalError::Overflow))
                    .then_some(e)
            }),
    }
}

/// How many values evaluating `e` left to right holds at once, as the simulator's
/// postfix code does: a constant right operand is fused into its operator.
pub(super) fn eval_stack(e: &Expr) -> usize {
    match e {
        Expr::Int(_) | Expr::Var(_) => 1,
        Expr::Neg(a) | Expr::Not(a) => eval_stack(a),
        Expr::Bin(op, a, b) => match **b {
            Expr::Int(c) if op.apply(1, c).is_ok() => eval_stack(a),
            _ => eval_stack(a).max(1 + eval_stack(b)),
        },
        Expr::Call(_, a, b) => eval_stack(a).max(1 + eval_stack(b)),
    }
}
