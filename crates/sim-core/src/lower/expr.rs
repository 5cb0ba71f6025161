//! Compiled expressions: integer expressions over loop variables, parameters and the
//! built-ins, as stack code (`CExpr`) or, for addresses, affine forms (`Affine`) that
//! evaluate without allocation.

use super::*;

/// Values an expression can read at run time.
#[derive(Clone, Copy, Debug)]
pub struct Env<'a> {
    pub vars: &'a [i64; MAX_LOOP_DEPTH],
    pub warp: i64,
    pub lane: i64,
    pub cta: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EOp {
    Const(i64),
    Var(u8),
    Warp,
    Lane,
    Warpgroup,
    Cta,
    Neg,
    Not,
    Bin(BinOp),
    /// A binary operation whose right operand is a constant with which it cannot
    /// fault (`x * 32`, `x % 4096`): one step instead of a push and a pop.
    BinK(BinOp, i64),
    /// `x % k` for a constant power of two `k` (given as `k - 1`): a mask, where the
    /// general remainder is a hardware division.
    RemPow2(i64),
    /// `x / k` for a constant power of two `k` (given as its log2): a shift.
    DivPow2(u32),
    Min,
    Max,
    /// `perm(x, n)` (`isa::expr::perm`).
    Perm,
}

/// A compiled expression: a constant, or postfix code.
#[derive(Clone, Debug, PartialEq)]
pub enum CExpr {
    Const(i64),
    Code {
        code: Box<[EOp]>,
        /// The same value as a sum of terms, where the code allows it (most addresses).
        affine: Option<Affine>,
        /// Reads `lane`: lanes of one warp may see different values.
        lane: bool,
        /// Reads `cta`: CTAs may compute different values.
        cta: bool,
        /// Where lane `l`'s value is lane 0's plus `l` times a constant, the constant
        /// (`lane_step`).
        lane_step: Option<i64>,
    },
}

/// Most address expressions are a constant plus multiples of loop variables and
/// built-ins (`(i * 32 + warp) * 1024 + lane * 4`), perhaps reduced by a mask or a
/// shift at the end. Wrapping arithmetic is a ring, so the sum of terms computes the
/// postfix code's value bit for bit, in one pass without a stack: addresses are
/// evaluated for every memory instruction and every lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    pub(super) k: i64,
    /// (loop variable, coefficient) for the variables the sum reads, the first
    /// `AFFINE_FIXED` summed whether read or not (an unread one has coefficient 0):
    /// a multiplication costs less than a loop's control.
    pub(super) vars: [(u8, i64); AFFINE_TERMS],
    pub(super) n: u8,
    /// The coefficients of `warp`, `lane`, `warpgroup` and `cta` (0 when unread): four
    /// multiplications cost less than telling the sources apart term by term.
    pub(super) builtins: [i64; 4],
    /// The sum's remainder modulo `mask + 1`, a power of two, is taken first where the
    /// code's tail starts with one (most reduced addresses: `% 4194304`); otherwise
    /// `mask` is -1, with which `rem_pow2` leaves every value as it is: no test.
    pub(super) mask: i64,
    /// Operations applied after that, in order (only those that cannot fault; `Keep`
    /// beyond the last): seldom any.
    pub(super) tail: [Tail; AFFINE_TAIL],
}

pub(super) const AFFINE_TERMS: usize = 4;
/// The terms of `Affine::vars` summed without a test of how many there are.
pub(super) const AFFINE_FIXED: usize = 2;
pub(super) const AFFINE_TAIL: usize = 2;
pub(super) const SOURCES: usize = MAX_LOOP_DEPTH + 4;

/// An operation an affine form applies to its sum, one that cannot fault.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Tail {
    Keep,
    BinK(BinOp, i64),
    RemPow2(i64),
    DivPow2(u32),
}

impl Tail {
    #[inline(always)]
    pub(super) fn apply(self, x: i64) -> i64 {
        match self {
            Tail::Keep => x,
            Tail::RemPow2(mask) => rem_pow2(x, mask),
            Tail::DivPow2(shift) => div_pow2(x, shift),
            // `Affine::of` keeps only the operations that cannot fault.
            Tail::BinK(b, k) => bin(b, x, k).unwrap_or(0),
        }
    }
}

/// An affine form's tail after its mask (`Affine::tail`), out of the way of the usual
/// one-mask or no tail.
#[inline(never)]
pub(super) fn apply_tail(tail: &[Tail; AFFINE_TAIL], x: i64) -> i64 {
    tail.iter().fold(x, |x, t| t.apply(x))
}

impl Affine {
    /// Reads the postfix code symbolically; None when any step is not affine.
    pub(super) fn of(code: &[EOp]) -> Option<Affine> {
        // A symbolic stack of (constant, coefficient per source).
        type Sym = (i64, [i64; SOURCES]);
        let unit = |src: usize| {
            let mut c = [0i64; SOURCES];
            c[src] = 1;
            (0i64, c)
        };
        let mut stack: Vec<Sym> = Vec::new();
        let mut i = 0;
        while i < code.len() {
            let top: Sym = match code[i] {
                EOp::Const(v) => (v, [0; SOURCES]),
                EOp::Var(s) if (s as usize) < MAX_LOOP_DEPTH => unit(s as usize),
                EOp::Warp => unit(MAX_LOOP_DEPTH),
                EOp::Lane => unit(MAX_LOOP_DEPTH + 1),
                EOp::Warpgroup => unit(MAX_LOOP_DEPTH + 2),
                EOp::Cta => unit(MAX_LOOP_DEPTH + 3),
                EOp::Neg => {
                    let (k, c) = stack.pop()?;
                    (k.wrapping_neg(), c.map(i64::wrapping_neg))
                }
                EOp::BinK(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), v) => {
                    let (k, c) = stack.pop()?;
                    match op {
                        BinOp::Add => (k.wrapping_add(v), c),
                        BinOp::Sub => (k.wrapping_sub(v), c),
                        _ => (k.wrapping_mul(v), c.map(|x| x.wrapping_mul(v))),
                    }
                }
                EOp::Bin(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul)) => {
                    let (kb, cb) = stack.pop()?;
                    let (ka, ca) = stack.pop()?;
                    let constant = |c: &[i64; SOURCES]| c.iter().all(|&x| x == 0);
                    match op {
                        BinOp::Add => (
                            ka.wrapping_add(kb),
                            std::array::from_fn(|s| ca[s].wrapping_add(cb[s])),
                        ),
                        BinOp::Sub => (
                            ka.wrapping_sub(kb),
                            std::array::from_fn(|s| ca[s].wrapping_sub(cb[s])),
                        ),
                        _ if constant(&cb) => (ka.wrapping_mul(kb), ca.map(|x| x.wrapping_mul(kb))),
                        _ if constant(&ca) => (kb.wrapping_mul(ka), cb.map(|x| x.wrapping_mul(ka))),
                        _ => return None,
                    }
                }
                // The rest may only end the code, applied to the sum.
                _ => break,
            };
            stack.push(top);
            i += 1;
        }
        let [(k, coef)] = stack[..] else {
            return None;
        };
        let rest = &code[i..];
        if rest.len() > AFFINE_TAIL
            || !rest
                .iter()
                .all(|op| matches!(op, EOp::BinK(..) | EOp::RemPow2(_) | EOp::DivPow2(_)))
        {
            return None;
        }
        let mut a = Affine {
            k,
            vars: [(0, 0); AFFINE_TERMS],
            n: 0,
            builtins: [0; 4],
            mask: -1,
            tail: [Tail::Keep; AFFINE_TAIL],
        };
        for (s, &c) in coef.iter().enumerate() {
            if s >= MAX_LOOP_DEPTH {
                a.builtins[s - MAX_LOOP_DEPTH] = c;
            } else if c != 0 {
                if a.n as usize == AFFINE_TERMS {
                    return None;
                }
                a.vars[a.n as usize] = (s as u8, c);
                a.n += 1;
            }
        }
        let rest = match rest {
            [EOp::RemPow2(mask), after @ ..] => {
                a.mask = *mask;
                after
            }
            _ => rest,
        };
        for (t, op) in a.tail.iter_mut().zip(rest) {
            *t = match *op {
                EOp::BinK(b, k) => Tail::BinK(b, k),
                EOp::RemPow2(mask) => Tail::RemPow2(mask),
                EOp::DivPow2(shift) => Tail::DivPow2(shift),
                _ => unreachable!("only these are kept in the tail"),
            };
        }
        Some(a)
    }

    /// The value: the tail's operations cannot fault (`Affine::of`), so neither can it.
    #[inline(always)]
    pub fn value(&self, env: &Env) -> i64 {
        let sources = [env.warp, env.lane, env.warp / 4, env.cta];
        self.value_of(env.vars, sources)
    }

    /// `value` given the sources themselves: `warp`, `lane`, `warpgroup` (`warp / 4`)
    /// and `cta`, in `builtins`' order. The engine's one-lane evaluation builds no
    /// `Env` (and divides its unsigned warp index by a shift).
    #[inline(always)]
    pub fn value_of(&self, vars: &[i64; MAX_LOOP_DEPTH], builtins: [i64; 4]) -> i64 {
        self.value_from(self.fixed_part(builtins), vars)
    }

    /// The sum of the constant and the built-in terms (warp, lane, warpgroup, CTA).
    #[inline(always)]
    pub(super) fn fixed_part(&self, builtins: [i64; 4]) -> i64 {
        let [cw, cl, cg, cc] = self.builtins;
        let [warp, lane, warpgroup, cta] = builtins;
        self.k
            .wrapping_add(cw.wrapping_mul(warp))
            .wrapping_add(cl.wrapping_mul(lane))
            .wrapping_add(cg.wrapping_mul(warpgroup))
            .wrapping_add(cc.wrapping_mul(cta))
    }

    /// Whether every value not below 0, plus `width`, is at most `size`: a sum
    /// reduced by a mask (and nothing after it) is at most the mask, and, where every
    /// term is a multiple of a power of two `g` that the modulus is a multiple of too,
    /// a multiple of `g`: at most `mask + 1 - g` (the chain's `(i * 32 + warp) * 1024
    /// % 4194304` ends 1020 bytes before the end of its 4 MiB buffer).
    pub(super) fn ends_within(&self, size: u64, width: u64) -> bool {
        if self.mask < 0 || self.tail[0] != Tail::Keep {
            return false;
        }
        let modulus = self.mask as u64 + 1;
        let g = self.step().min(modulus);
        (modulus - g)
            .checked_add(width)
            .is_some_and(|end| end <= size)
    }

    /// The largest power of two (up to 2^63) that every term and the constant are
    /// multiples of: so is their sum.
    pub(super) fn step(&self) -> u64 {
        let terms = self.vars[..self.n as usize].iter().map(|&(_, c)| c);
        let zeros = terms
            .chain(self.builtins)
            .chain([self.k])
            .map(i64::trailing_zeros)
            .min()
            .unwrap_or(64);
        1u64 << zeros.min(63)
    }

    /// A power of two that every value is a multiple of (1 where none is known): the
    /// sum's `step`, kept by a mask (a multiple of a power of two no larger than the
    /// modulus stays one, and a larger one becomes 0), with nothing applied after it.
    pub(super) fn alignment(&self) -> u64 {
        if self.tail[0] != Tail::Keep {
            return 1;
        }
        if self.mask < 0 {
            self.step()
        } else {
            self.step().min(self.mask as u64 + 1)
        }
    }

    /// Lane 0's sum of the constant and the built-in terms for warp `warp` of the CTA
    /// whose grid index is `cta`: what `value_of` adds to the loop variables' terms,
    /// the same at every evaluation by that warp (`MemOperand::warp_term`).
    pub fn warp_part(&self, warp: u32, cta: u32) -> i64 {
        self.fixed_part([warp as i64, 0, (warp / 4) as i64, cta as i64])
    }

    /// The value, given the sum of the constant and the built-in terms (`fixed`): the
    /// loop variables' terms added, then the mask and the tail. (Wrapping sums are
    /// the same in any order: `value_of` of the same sources, bit for bit.)
    #[inline(always)]
    pub fn value_from(&self, fixed: i64, vars: &[i64; MAX_LOOP_DEPTH]) -> i64 {
        let mut x = fixed;
        // Variable indices are below MAX_LOOP_DEPTH (`Affine::of`): the remainder only
        // spares the bounds checks.
        for &(s, c) in &self.vars[..AFFINE_FIXED] {
            x = x.wrapping_add(c.wrapping_mul(vars[s as usize % MAX_LOOP_DEPTH]));
        }
        if self.n as usize > AFFINE_FIXED {
            for &(s, c) in &self.vars[AFFINE_FIXED..self.n as usize] {
                x = x.wrapping_add(c.wrapping_mul(vars[s as usize % MAX_LOOP_DEPTH]));
            }
        }
        let x = rem_pow2(x, self.mask);
        if matches!(self.tail[0], Tail::Keep) {
            x
        } else {
            apply_tail(&self.tail, x)
        }
    }
}

/// How much each lane adds to the value of `code`, where lane `l`'s value is lane 0's
/// plus `l` times a constant: an affine form with nothing applied to its sum, or a
/// lane term added last to a part that does not read `lane` (`x % 4096 + lane * 4`:
/// what is added to the lane term is the same for every lane, faults included).
pub(super) fn lane_step_of(code: &[EOp], affine: Option<&Affine>) -> Option<i64> {
    if let Some(a) = affine
        && a.mask == -1
        && a.tail[0] == Tail::Keep
    {
        return Some(a.builtins[1]);
    }
    // The lane term, `lane` or `lane * c`, with the rest added before or after it.
    let (step, term) = match code {
        [
            ..,
            EOp::Lane,
            EOp::BinK(BinOp::Mul, c),
            EOp::Bin(BinOp::Add),
        ] => (*c, 2),
        [.., EOp::Lane, EOp::Bin(BinOp::Add)] => (1, 1),
        _ => return None,
    };
    let n = code.len();
    // `rest + term`: the rest is all the code before the term.
    let rest_then_term = &code[..n - 1 - term];
    // `term + rest`: the term comes first, the rest after it.
    let term_then_rest = &code[term..n - 1];
    let lane_free = |c: &[EOp]| !c.contains(&EOp::Lane) && one_value(c);
    if lane_free(rest_then_term) || (code[0] == EOp::Lane && lane_free(term_then_rest)) {
        Some(step)
    } else {
        None
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct EvalFault(pub String);

/// `x op y` as `BinOp::apply` computes it, with the operations that cannot fault inline.
#[inline(always)]
pub(super) fn bin(op: BinOp, x: i64, y: i64) -> Result<i64, EvalFault> {
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Div if y != 0 => x.wrapping_div(y),
        BinOp::Rem if y != 0 => x.wrapping_rem(y),
        BinOp::Shl if (0..64).contains(&y) => x.wrapping_shl(y as u32),
        BinOp::Shr if (0..64).contains(&y) => x.wrapping_shr(y as u32),
        // Comparisons, and the faults of division and shifts.
        _ => op.apply(x, y).map_err(|e| EvalFault(e.to_string()))?,
    })
}

/// `x.wrapping_rem(mask + 1)` for a power of two `mask + 1`: the remainder takes the
/// sign of `x`, so a negative `x` with a non-zero low part is one `mask + 1` below its
/// low part; without a test: a negative `x` is raised by `mask` before the mask and
/// lowered by it after (its low part plus `mask` carries past the mask exactly when
/// the low part is not zero). A `mask` of -1 (all ones: `mask + 1` is 0, no power of
/// two) gives `x` itself, for every `x`: raised by -1 or 0 and lowered by as much.
#[inline(always)]
pub(super) fn rem_pow2(x: i64, mask: i64) -> i64 {
    let bias = (x >> 63) & mask;
    (x.wrapping_add(bias) & mask).wrapping_sub(bias)
}

/// `x.wrapping_div(1 << shift)` (shift below 63): rounds toward zero, so a negative `x`
/// is raised by the divisor less one before the arithmetic shift.
#[inline(always)]
pub(super) fn div_pow2(x: i64, shift: u32) -> i64 {
    let bias = (x >> 63) & ((1i64 << shift) - 1);
    (x + bias) >> shift
}

/// `f` applied to each value of `top` in place (`CExpr::eval_ctas`).
#[inline(always)]
fn lanes(top: &mut [i64], f: impl Fn(i64) -> i64) {
    for t in top {
        *t = f(*t);
    }
}

/// `f(x, y)` into each value of `x` (`CExpr::eval_ctas`); no fault.
#[inline(always)]
fn pairs(x: &mut [i64], y: &[i64], f: impl Fn(i64, i64) -> i64) {
    for (x, &y) in x.iter_mut().zip(y) {
        *x = f(*x, y);
    }
}

/// `f(i, x[i])` into each value of `x`, for an operation that may fault
/// (`CExpr::eval_ctas`): `faulted[i]` is set where it did (the value then 0).
fn each(x: &mut [i64], faulted: &mut [bool], f: impl Fn(usize, i64) -> Result<i64, EvalFault>) {
    for (i, (x, fl)) in x.iter_mut().zip(faulted.iter_mut()).enumerate() {
        *x = f(i, *x).unwrap_or_else(|_| {
            *fl = true;
            0
        });
    }
}

impl CExpr {
    /// Wraps postfix code, noting which built-ins it reads.
    pub fn code(code: Vec<EOp>) -> CExpr {
        let affine = Affine::of(&code);
        CExpr::Code {
            lane: code.contains(&EOp::Lane),
            cta: code.contains(&EOp::Cta),
            lane_step: lane_step_of(&code, affine.as_ref()),
            affine,
            code: code.into_boxed_slice(),
        }
    }

    #[inline]
    pub fn eval(&self, env: &Env) -> Result<i64, EvalFault> {
        match self {
            CExpr::Const(v) => Ok(*v),
            CExpr::Code {
                affine: Some(a), ..
            } => Ok(a.value(env)),
            CExpr::Code { code, .. } => {
                // The top of the stack lives in `top`; `below` holds the rest. Lowering
                // checked that no expression needs more than 16 slots.
                let mut below = [0i64; 16];
                let mut sp = 0usize;
                let mut top = 0i64;
                for op in code.iter() {
                    let push = match *op {
                        EOp::Const(v) => v,
                        EOp::Var(s) => env.vars[s as usize],
                        EOp::Warp => env.warp,
                        EOp::Lane => env.lane,
                        EOp::Warpgroup => env.warp / 4,
                        EOp::Cta => env.cta,
                        EOp::Neg => {
                            top = top.wrapping_neg();
                            continue;
                        }
                        EOp::Not => {
                            top = !top;
                            continue;
                        }
                        EOp::BinK(b, k) => {
                            top = bin(b, top, k)?;
                            continue;
                        }
                        EOp::RemPow2(mask) => {
                            top = rem_pow2(top, mask);
                            continue;
                        }
                        EOp::DivPow2(shift) => {
                            top = div_pow2(top, shift);
                            continue;
                        }
                        EOp::Bin(b) => {
                            sp -= 1;
                            top = bin(b, below[sp], top)?;
                            continue;
                        }
                        EOp::Min => {
                            sp -= 1;
                            top = below[sp].min(top);
                            continue;
                        }
                        EOp::Max => {
                            sp -= 1;
                            top = below[sp].max(top);
                            continue;
                        }
                        EOp::Perm => {
                            sp -= 1;
                            top = Func::Perm
                                .apply(below[sp], top)
                                .map_err(|e| EvalFault(e.to_string()))?;
                            continue;
                        }
                    };
                    // The first push stores the empty stack's placeholder: harmless.
                    below[sp] = top;
                    sp += 1;
                    top = push;
                }
                Ok(top)
            }
        }
    }

    /// `eval` for `cta` = `first`, `first + 1`, ..., one for each entry of `out`, the
    /// other sources from `env`: `out[i]` is CTA `first + i`'s value, None where its
    /// evaluation faults (`eval`'s `Err`). The value bit for bit as `eval`'s, in one
    /// pass over the code for all of them, each operation a loop over the CTAs: a
    /// wave's 132 CTAs one `eval` each (`sharers_by_cta`, for every TMA copy whose
    /// address reads `cta`) cost a fortieth of a seed-shaped fa3 run.
    pub fn eval_ctas(&self, env: &Env, first: i64, out: &mut [Option<i64>]) {
        let n = out.len();
        let cta_of = |i: usize| first.wrapping_add(i as i64);
        let code = match self {
            CExpr::Const(v) => {
                out.fill(Some(*v));
                return;
            }
            CExpr::Code {
                affine: Some(a), ..
            } => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = Some(a.value(&Env {
                        cta: cta_of(i),
                        ..*env
                    }));
                }
                return;
            }
            CExpr::Code { code, .. } => code,
        };
        // The stack as `eval`'s, each slot `n` values (one per CTA), its top slot
        // `sp`; slot 0 is the empty stack's placeholder, as `eval`'s first push stores.
        // A CTA's fault leaves its values 0 from there on, never read.
        let mut stack = vec![0i64; (depth(code) + 1) * n];
        let mut faulted = vec![false; n];
        let mut sp = 0usize;
        for op in code.iter() {
            let push = match *op {
                EOp::Const(v) => Some(v),
                EOp::Var(s) => Some(env.vars[s as usize]),
                EOp::Warp => Some(env.warp),
                EOp::Lane => Some(env.lane),
                EOp::Warpgroup => Some(env.warp / 4),
                EOp::Cta => None,
                _ => {
                    let (lo, hi) = stack.split_at_mut(sp * n);
                    let top = &mut hi[..n];
                    match *op {
                        EOp::Neg => lanes(top, |t| t.wrapping_neg()),
                        EOp::Not => lanes(top, |t| !t),
                        EOp::BinK(b, k) => match b {
                            BinOp::Add => lanes(top, |t| t.wrapping_add(k)),
                            BinOp::Sub => lanes(top, |t| t.wrapping_sub(k)),
                            BinOp::Mul => lanes(top, |t| t.wrapping_mul(k)),
                            BinOp::And => lanes(top, |t| t & k),
                            BinOp::Or => lanes(top, |t| t | k),
                            BinOp::Xor => lanes(top, |t| t ^ k),
                            BinOp::Div if k != 0 => lanes(top, |t| t.wrapping_div(k)),
                            BinOp::Rem if k != 0 => lanes(top, |t| t.wrapping_rem(k)),
                            _ => each(top, &mut faulted, |_, t| bin(b, t, k)),
                        },
                        EOp::RemPow2(mask) => lanes(top, |t| rem_pow2(t, mask)),
                        EOp::DivPow2(shift) => lanes(top, |t| div_pow2(t, shift)),
                        _ => {
                            // Two operands: `x` the slot below, `y` the top; the result
                            // replaces `x`.
                            let (x, y) = (&mut lo[(sp - 1) * n..], &*top);
                            match *op {
                                EOp::Bin(BinOp::Add) => pairs(x, y, i64::wrapping_add),
                                EOp::Bin(BinOp::Sub) => pairs(x, y, i64::wrapping_sub),
                                EOp::Bin(BinOp::Mul) => pairs(x, y, i64::wrapping_mul),
                                EOp::Bin(b) => each(x, &mut faulted, |i, x| bin(b, x, y[i])),
                                EOp::Min => pairs(x, y, i64::min),
                                EOp::Max => pairs(x, y, i64::max),
                                _ => each(x, &mut faulted, |i, x| {
                                    Func::Perm
                                        .apply(x, y[i])
                                        .map_err(|e| EvalFault(e.to_string()))
                                }),
                            }
                            sp -= 1;
                        }
                    }
                    continue;
                }
            };
            sp += 1;
            let top = &mut stack[sp * n..(sp + 1) * n];
            match push {
                Some(v) => top.fill(v),
                None => {
                    for (i, t) in top.iter_mut().enumerate() {
                        *t = cta_of(i);
                    }
                }
            }
        }
        for ((o, &v), &f) in out.iter_mut().zip(&stack[sp * n..]).zip(&faulted) {
            *o = (!f).then_some(v);
        }
    }

    pub fn is_const(&self) -> Option<i64> {
        match self {
            CExpr::Const(v) => Some(*v),
            _ => None,
        }
    }

    /// Where lane `l`'s value is lane 0's plus `l` times a constant: the constant.
    #[inline]
    pub fn lane_step(&self) -> Option<i64> {
        match self {
            CExpr::Code { lane_step, .. } => *lane_step,
            CExpr::Const(_) => None,
        }
    }

    /// True when lanes of one warp may see different values.
    #[inline]
    pub fn uses_lane(&self) -> bool {
        matches!(self, CExpr::Code { lane: true, .. })
    }

    /// True when CTAs compute different values.
    #[inline]
    pub fn uses_cta(&self) -> bool {
        matches!(self, CExpr::Code { cta: true, .. })
    }
}

pub(super) fn compile(
    e: &Expr,
    k: &Kernel,
    scope: &[String],
    out: &mut Vec<EOp>,
) -> Result<(), String> {
    match e {
        Expr::Int(v) => out.push(EOp::Const(*v)),
        Expr::Var(n) => {
            if let Some(slot) = scope.iter().rposition(|s| s == n) {
                out.push(EOp::Var(slot as u8));
            } else if let Some(v) = k.param(n) {
                out.push(EOp::Const(v));
            } else {
                out.push(match n.as_str() {
                    "warp" => EOp::Warp,
                    "lane" => EOp::Lane,
                    "warpgroup" => EOp::Warpgroup,
                    "cta" => EOp::Cta,
                    _ => {
                        return Err(format!(
                            "`{n}` is not a loop variable in scope, a parameter or a built-in"
                        ));
                    }
                });
            }
        }
        Expr::Neg(a) => {
            compile(a, k, scope, out)?;
            out.push(EOp::Neg);
        }
        Expr::Not(a) => {
            compile(a, k, scope, out)?;
            out.push(EOp::Not);
        }
        Expr::Bin(op, a, b) => {
            compile(a, k, scope, out)?;
            compile(b, k, scope, out)?;
            // A constant right operand that cannot make the operation fault fuses
            // with it (faults depend on the right operand only).
            match out.last() {
                Some(&EOp::Const(c)) if op.apply(1, c).is_ok() => {
                    out.pop();
                    let pow2 = c > 0 && (c & (c - 1)) == 0 && c < (1 << 62);
                    out.push(match op {
                        BinOp::Rem if pow2 => EOp::RemPow2(c - 1),
                        BinOp::Div if pow2 => EOp::DivPow2(c.trailing_zeros()),
                        _ => EOp::BinK(*op, c),
                    });
                }
                _ => out.push(EOp::Bin(*op)),
            }
        }
        Expr::Call(f, a, b) => {
            compile(a, k, scope, out)?;
            compile(b, k, scope, out)?;
            out.push(match f {
                Func::Min => EOp::Min,
                Func::Max => EOp::Max,
                Func::Perm => EOp::Perm,
            });
        }
    }
    Ok(())
}

/// What an operation does to the stack: the values it takes, and those it leaves.
pub(super) fn stack_effect(op: &EOp) -> (i32, i32) {
    match op {
        EOp::Const(_) | EOp::Var(_) | EOp::Warp | EOp::Lane | EOp::Warpgroup | EOp::Cta => (0, 1),
        EOp::Neg | EOp::Not | EOp::BinK(..) | EOp::RemPow2(_) | EOp::DivPow2(_) => (1, 1),
        EOp::Bin(_) | EOp::Min | EOp::Max | EOp::Perm => (2, 1),
    }
}

/// Whether `code` is one whole expression: it leaves one value and takes none it did
/// not push.
pub(super) fn one_value(code: &[EOp]) -> bool {
    let mut d = 0i32;
    for op in code {
        let (takes, leaves) = stack_effect(op);
        if d < takes {
            return false;
        }
        d += leaves - takes;
    }
    d == 1
}

pub(super) fn depth(code: &[EOp]) -> usize {
    let (mut d, mut max) = (0i32, 0i32);
    for op in code {
        let (takes, leaves) = stack_effect(op);
        d += leaves - takes;
        max = max.max(d);
    }
    max as usize
}
