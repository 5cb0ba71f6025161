//! Integer expressions: loop bounds, barrier indices, phase parities and per-lane addresses.
//!
//! Expressions are small trees here; the engine compiles them once into a form that
//! evaluates without allocation.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// An integer expression (64-bit, as a register holds it).
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// A loop variable, a parameter, or one of the built-ins `warp`, `lane`,
    /// `warpgroup`, `cta`.
    Var(String),
    /// `-a`.
    Neg(Box<Expr>),
    /// `~a` (bitwise not).
    Not(Box<Expr>),
    /// `a OP b`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `min(a, b)`, `max(a, b)` and `perm(x, n)`.
    Call(Func, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// The functions expressions may call.
pub enum Func {
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `perm(x, n)`: a pseudo-random permutation of `0..n` applied to `x % n`, one
    /// permutation for each `x / n` (Euclidean): `perm(i, N)` for `i` in `0..N` visits
    /// every slot once, in an order fixed by the kernel text, and `perm(i + s * N, N)`
    /// is the `s`-th such order. Data-dependent addresses (a pointer chase through a
    /// table) are written with it. `n` must be at least 1.
    Perm,
}

impl Func {
    /// The name as written.
    pub fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Perm => "perm",
        }
    }

    /// Applies the function.
    pub fn apply(self, a: i64, b: i64) -> Result<i64, EvalError> {
        Ok(match self {
            Func::Min => a.min(b),
            Func::Max => a.max(b),
            Func::Perm => perm(a, b).ok_or(EvalError::BadPerm(b))?,
        })
    }
}

/// splitmix64's finalizer: a bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `perm(x, n)` ([`Func::Perm`]): `x % n` through the permutation of `0..n` that
/// `x / n` picks; None when `n` is below 1. A four-round Feistel network on the
/// smallest even number of bits that holds `n - 1` is a permutation of that power of
/// two; walking the cycle until the value falls below `n` restricts it to `0..n`
/// (fewer than four steps on average, as the power of two is under `4 n`). No table:
/// it evaluates without allocation, anywhere.
pub fn perm(x: i64, n: i64) -> Option<i64> {
    if n < 1 {
        return None;
    }
    let (key, mut v) = (x.div_euclid(n) as u64, x.rem_euclid(n) as u64);
    let bits = (64 - (n as u64 - 1).leading_zeros())
        .max(2)
        .next_multiple_of(2);
    let half = bits / 2;
    let mask = (1u64 << half) - 1;
    loop {
        let (mut l, mut r) = (v >> half, v & mask);
        for round in 0..4u64 {
            let f = mix(key.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (round << 56) ^ r) & mask;
            (l, r) = (r, l ^ f);
        }
        v = (l << half) | r;
        if v < n as u64 {
            return Some(v as i64);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// A binary operator, with C's precedence.
pub enum BinOp {
    /// `*`
    Mul,
    /// `/` (truncating, as C)
    Div,
    /// `%` (remainder, the sign of the dividend)
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `<` (1 or 0)
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    And,
    /// `^`
    Xor,
    /// `|`
    Or,
}

/// Names every kernel may use in expressions without declaring them.
pub const BUILTIN_VARS: [&str; 4] = ["warp", "lane", "warpgroup", "cta"];

impl BinOp {
    /// Binding strength, C's order: higher binds tighter.
    pub fn precedence(self) -> u8 {
        use BinOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Le | Gt | Ge => 7,
            Eq | Ne => 6,
            And => 5,
            Xor => 4,
            Or => 3,
        }
    }

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            And => "&",
            Xor => "^",
            Or => "|",
        }
    }

    /// Every operator.
    pub const ALL: [BinOp; 16] = [
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Add,
        BinOp::Sub,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::And,
        BinOp::Xor,
        BinOp::Or,
    ];

    /// Applies the operator. Division or remainder by zero and out-of-range shifts are
    /// errors, not panics: the expression came from the user.
    pub fn apply(self, a: i64, b: i64) -> Result<i64, EvalError> {
        use BinOp::*;
        Ok(match self {
            Mul => a.wrapping_mul(b),
            Div => {
                if b == 0 {
                    return Err(EvalError::DivideByZero);
                }
                a.wrapping_div(b)
            }
            Rem => {
                if b == 0 {
                    return Err(EvalError::DivideByZero);
                }
                a.wrapping_rem(b)
            }
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Shl => {
                if !(0..64).contains(&b) {
                    return Err(EvalError::BadShift(b));
                }
                a.wrapping_shl(b as u32)
            }
            Shr => {
                if !(0..64).contains(&b) {
                    return Err(EvalError::BadShift(b));
                }
                a.wrapping_shr(b as u32)
            }
            Lt => (a < b) as i64,
            Le => (a <= b) as i64,
            Gt => (a > b) as i64,
            Ge => (a >= b) as i64,
            Eq => (a == b) as i64,
            Ne => (a != b) as i64,
            And => a & b,
            Xor => a ^ b,
            Or => a | b,
        })
    }

    /// Applies the operator as [`BinOp::apply`] does, but a result outside the 64-bit
    /// integers is [`EvalError::Overflow`] rather than wrapped.
    pub fn checked_apply(self, a: i64, b: i64) -> Result<i64, EvalError> {
        use BinOp::*;
        let v = self.apply(a, b)?;
        let exact = match self {
            Mul => a.checked_mul(b),
            Div => a.checked_div(b),
            Rem => a.checked_rem(b),
            Add => a.checked_add(b),
            Sub => a.checked_sub(b),
            // Bits shifted out of a left shift, or into the sign, are an overflow.
            Shl => (v >> b == a).then_some(v),
            _ => Some(v),
        };
        exact.ok_or(EvalError::Overflow)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// Why an expression has no value.
pub enum EvalError {
    /// A name that is not a loop variable, parameter or built-in.
    Unbound(String),
    /// Division or remainder by zero.
    DivideByZero,
    /// A shift count outside 0..64.
    BadShift(i64),
    /// A result outside the 64-bit integers (from [`Expr::eval_checked`]).
    Overflow,
    /// `perm(x, n)` with `n` below 1.
    BadPerm(i64),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Unbound(v) => {
                write!(f, "`{v}` is not a loop variable, parameter or built-in")
            }
            EvalError::DivideByZero => write!(f, "division by zero"),
            EvalError::BadShift(b) => write!(f, "shift by {b} is outside 0..64"),
            EvalError::Overflow => write!(f, "the value overflows 64-bit integers"),
            EvalError::BadPerm(n) => {
                write!(
                    f,
                    "perm(x, n) permutes 0..n, and n must be at least 1, not {n}"
                )
            }
        }
    }
}

impl std::error::Error for EvalError {}

impl Expr {
    /// A variable.
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// `a op b`.
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// Evaluates with `lookup` resolving variables.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, EvalError> {
        Ok(match self {
            Expr::Int(v) => *v,
            Expr::Var(name) => lookup(name).ok_or_else(|| EvalError::Unbound(name.clone()))?,
            Expr::Neg(e) => e.eval(lookup)?.wrapping_neg(),
            Expr::Not(e) => !e.eval(lookup)?,
            Expr::Bin(op, a, b) => op.apply(a.eval(lookup)?, b.eval(lookup)?)?,
            Expr::Call(func, a, b) => func.apply(a.eval(lookup)?, b.eval(lookup)?)?,
        })
    }

    /// Evaluates as [`Expr::eval`] does, but a result outside the 64-bit integers (of
    /// any operation on the way) is [`EvalError::Overflow`] rather than wrapped.
    pub fn eval_checked(&self, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, EvalError> {
        Ok(match self {
            Expr::Int(v) => *v,
            Expr::Var(name) => lookup(name).ok_or_else(|| EvalError::Unbound(name.clone()))?,
            Expr::Neg(e) => e
                .eval_checked(lookup)?
                .checked_neg()
                .ok_or(EvalError::Overflow)?,
            Expr::Not(e) => !e.eval_checked(lookup)?,
            Expr::Bin(op, a, b) => {
                op.checked_apply(a.eval_checked(lookup)?, b.eval_checked(lookup)?)?
            }
            Expr::Call(func, a, b) => {
                func.apply(a.eval_checked(lookup)?, b.eval_checked(lookup)?)?
            }
        })
    }

    /// Every variable name the expression mentions, in order of first appearance.
    pub fn vars(&self, out: &mut Vec<String>) {
        match self {
            Expr::Int(_) => {}
            Expr::Var(v) => {
                if !out.contains(v) {
                    out.push(v.clone())
                }
            }
            Expr::Neg(e) | Expr::Not(e) => e.vars(out),
            Expr::Bin(_, a, b) | Expr::Call(_, a, b) => {
                a.vars(out);
                b.vars(out);
            }
        }
    }

    /// True when the value can differ between the lanes of one warp.
    pub fn depends_on_lane(&self) -> bool {
        let mut v = Vec::new();
        self.vars(&mut v);
        v.iter().any(|n| n == "lane")
    }

    /// Replaces parameters by their values, leaving other names alone, and folds
    /// constant subtrees.
    pub fn substitute(&self, value_of: &dyn Fn(&str) -> Option<i64>) -> Expr {
        match self {
            Expr::Int(v) => Expr::Int(*v),
            Expr::Var(n) => match value_of(n) {
                Some(v) => Expr::Int(v),
                None => Expr::Var(n.clone()),
            },
            Expr::Neg(e) => match e.substitute(value_of) {
                Expr::Int(v) => Expr::Int(v.wrapping_neg()),
                e => Expr::Neg(Box::new(e)),
            },
            Expr::Not(e) => match e.substitute(value_of) {
                Expr::Int(v) => Expr::Int(!v),
                e => Expr::Not(Box::new(e)),
            },
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.substitute(value_of), b.substitute(value_of));
                if let (Expr::Int(x), Expr::Int(y)) = (&a, &b)
                    && let Ok(v) = op.apply(*x, *y)
                {
                    return Expr::Int(v);
                }
                Expr::bin(*op, a, b)
            }
            Expr::Call(f, a, b) => {
                let (a, b) = (a.substitute(value_of), b.substitute(value_of));
                if let (Expr::Int(x), Expr::Int(y)) = (&a, &b)
                    && let Ok(v) = f.apply(*x, *y)
                {
                    return Expr::Int(v);
                }
                Expr::Call(*f, Box::new(a), Box::new(b))
            }
        }
    }

    /// The value when the expression is a literal.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Expr::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// Prints with the parentheses a reader expects: required ones, plus any around a
    /// mix of operators other than the familiar `a * b + c`.
    fn fmt_child(&self, f: &mut fmt::Formatter<'_>, parent: BinOp, right: bool) -> fmt::Result {
        use BinOp::*;
        let paren = match self {
            Expr::Bin(op, ..) => {
                let (p, c) = (parent.precedence(), op.precedence());
                let additive = |o: BinOp| matches!(o, Add | Sub);
                let multiplicative = |o: BinOp| matches!(o, Mul | Div | Rem);
                let plain = (multiplicative(*op) && additive(parent))
                    || (!right && (*op == parent || (additive(*op) && additive(parent))));
                c < p || (right && c == p) || !plain
            }
            _ => false,
        };
        if paren {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(v) => write!(f, "{v}"),
            Expr::Var(n) => write!(f, "{n}"),
            Expr::Neg(e) | Expr::Not(e) => {
                f.write_str(if matches!(self, Expr::Neg(_)) {
                    "-"
                } else {
                    "~"
                })?;
                if matches!(**e, Expr::Bin(..)) {
                    write!(f, "({e})")
                } else {
                    write!(f, "{e}")
                }
            }
            Expr::Call(func, a, b) => {
                write!(f, "{}({a}, {b})", func.name())
            }
            Expr::Bin(op, a, b) => {
                a.fmt_child(f, *op, false)?;
                write!(f, " {} ", op.symbol())?;
                b.fmt_child(f, *op, true)
            }
        }
    }
}

impl From<i64> for Expr {
    fn from(v: i64) -> Self {
        Expr::Int(v)
    }
}
