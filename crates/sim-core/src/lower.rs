//! Decoding: turns each role's structured body into flat code the engine steps through,
//! with every operand resolved (registers to indices, names to barriers and buffers,
//! expressions compiled so that they evaluate without allocation).

use isa::ast::{Kernel, Operand, Reg, Space, Stmt};
use isa::expr::{BinOp, Expr, Func};
use isa::opcode::{MmaShape, Op, ResultLatency, Scoreboard};
use isa::{Instr, Pipe};

use crate::state::WarpState;

/// Register-file indices: R0..R254 are 0..254, P0..P6 are 256..262.
pub const REG_SLOTS: usize = 264;

/// The register slot that a `Plain` instruction without a result names as its
/// `dst_reg`: beyond `REG_SLOTS`, so no instruction reads it, and the short issue writes
/// it rather than testing whether there is a result.
pub const NO_RESULT_REG: u16 = REG_SLOTS as u16;
pub const MAX_LOOP_DEPTH: usize = 8;

pub fn reg_index(r: Reg) -> Option<u16> {
    match r {
        Reg::R(n) => Some(n as u16),
        Reg::P(n) => Some(256 + n as u16),
        Reg::Rz | Reg::Pt => None,
    }
}

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
    k: i64,
    /// (loop variable, coefficient) for the variables the sum reads, the first
    /// `AFFINE_FIXED` summed whether read or not (an unread one has coefficient 0):
    /// a multiplication costs less than a loop's control.
    vars: [(u8, i64); AFFINE_TERMS],
    n: u8,
    /// The coefficients of `warp`, `lane`, `warpgroup` and `cta` (0 when unread): four
    /// multiplications cost less than telling the sources apart term by term.
    builtins: [i64; 4],
    /// The sum's remainder modulo `mask + 1`, a power of two, is taken first where the
    /// code's tail starts with one (most reduced addresses: `% 4194304`); otherwise
    /// `mask` is -1, with which `rem_pow2` leaves every value as it is: no test.
    mask: i64,
    /// Operations applied after that, in order (only those that cannot fault; `Keep`
    /// beyond the last): seldom any.
    tail: [Tail; AFFINE_TAIL],
}

const AFFINE_TERMS: usize = 4;
/// The terms of `Affine::vars` summed without a test of how many there are.
const AFFINE_FIXED: usize = 2;
const AFFINE_TAIL: usize = 2;
const SOURCES: usize = MAX_LOOP_DEPTH + 4;

/// An operation an affine form applies to its sum, one that cannot fault.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tail {
    Keep,
    BinK(BinOp, i64),
    RemPow2(i64),
    DivPow2(u32),
}

impl Tail {
    #[inline(always)]
    fn apply(self, x: i64) -> i64 {
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
fn apply_tail(tail: &[Tail; AFFINE_TAIL], x: i64) -> i64 {
    tail.iter().fold(x, |x, t| t.apply(x))
}

impl Affine {
    /// Reads the postfix code symbolically; None when any step is not affine.
    fn of(code: &[EOp]) -> Option<Affine> {
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
    fn fixed_part(&self, builtins: [i64; 4]) -> i64 {
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
    fn ends_within(&self, size: u64, width: u64) -> bool {
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
    fn step(&self) -> u64 {
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
    fn alignment(&self) -> u64 {
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
fn lane_step_of(code: &[EOp], affine: Option<&Affine>) -> Option<i64> {
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
fn bin(op: BinOp, x: i64, y: i64) -> Result<i64, EvalFault> {
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
fn rem_pow2(x: i64, mask: i64) -> i64 {
    let bias = (x >> 63) & mask;
    (x.wrapping_add(bias) & mask).wrapping_sub(bias)
}

/// `x.wrapping_div(1 << shift)` (shift below 63): rounds toward zero, so a negative `x`
/// is raised by the divisor less one before the arithmetic shift.
#[inline(always)]
fn div_pow2(x: i64, shift: u32) -> i64 {
    let bias = (x >> 63) & ((1i64 << shift) - 1);
    (x + bias) >> shift
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

/// What an instruction does, decoded once.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Register-to-register arithmetic (and MUFU, conversions).
    Compute,
    /// SHFL: a register exchange between lanes through the shared-memory crossbar.
    Shuffle,
    Load {
        space: Space,
    },
    Store {
        space: Space,
    },
    Atomic {
        returns: bool,
    },
    Ldgsts,
    CpAsyncCommit,
    /// DEPBAR.LE SB0, N (cp.async groups) or SB1 (bulk stores).
    DepbarCpAsync,
    DepbarBulk,
    TmaLoad,
    TmaStore,
    TmaCommit,
    MbarInit,
    MbarArrive {
        expect_tx: bool,
    },
    MbarWait,
    Fence,
    WgArrive,
    Hgmma {
        commit: bool,
    },
    WgDepbar,
    Utcmma,
    Utcbar,
    TmemLoad,
    TmemStore,
    TmemAlloc,
    BarSync,
    BarArrive,
    Membar {
        gpu: bool,
    },
    Nanosleep,
    Exit,
    /// Costs an issue slot and nothing else: BRA, NOP, SETMAXNREG, TMEMDEALLOC.
    Plain,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemOperand {
    pub space: Space,
    /// Index of the global buffer, or the byte offset of the shared region.
    pub base: u64,
    pub addr: CExpr,
    /// Every lane accesses one address: the address does not read `lane`, and the
    /// space is not local memory (whose lanes' words interleave). Decided here rather
    /// than at every access.
    pub uniform: bool,
    /// A global address that reads `cta`: CTAs of a wave may not share its lines.
    pub per_cta: bool,
    /// A global buffer's first byte's address (`buffer_bases`); 0 in other spaces.
    pub buffer_at: u64,
    /// For a global address with an affine form, the first `WARP_TERMS` of a role's:
    /// the index of its `Affine::warp_part` among the warp's, computed once at the
    /// warp's launch (`WARP_TERMS`: none; `RoleCode::warp_terms` lists them).
    pub warp_term: u8,
    /// Every lane's value of a global address, plus the access's width, stays within
    /// the buffer where it is not negative: its affine form's sum is reduced modulo a
    /// power of two no larger than the buffer's size less the width. Only a negative
    /// value can then fault.
    pub ends_in_buffer: bool,
    /// A global access whose every lane's bytes lie in one 32-byte sector: its address
    /// (buffer and value, both multiples of a power of two) is aligned at least to its
    /// width (at most 32 bytes).
    pub one_sector: bool,
}

impl MemOperand {
    pub fn new(space: Space, base: u64, addr: CExpr) -> MemOperand {
        MemOperand {
            uniform: !addr.uses_lane() && space != Space::Local,
            per_cta: space == Space::Global && addr.uses_cta(),
            buffer_at: 0,
            warp_term: WARP_TERMS as u8,
            ends_in_buffer: false,
            one_sector: false,
            space,
            base,
            addr,
        }
    }
}

/// The path an instruction's issue takes in the engine: most instructions of a kernel
/// take one of two short ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssueClass {
    /// Arithmetic or a plain instruction, not a branch, with a stall count of at most 1
    /// and at most one destination register below `REG_SLOTS` (`dst_reg`): its issue
    /// only books its pipe (and dispatch) and writes that register when its `result`
    /// is ready.
    Plain,
    /// A global or local load, not a branch, with a stall count of at most 1 and one
    /// destination register below `REG_SLOTS` (`dst_reg`).
    GlobalLoad,
    /// Everything else.
    General,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DInstr {
    pub kind: Kind,
    pub op: Op,
    pub pipe: Pipe,
    pub latency: ResultLatency,
    /// Destination registers: first index and count.
    pub dst: Option<(u16, u8)>,
    /// The destination registers whose pending writes an issue must wait out (write
    /// after write), as a range of register slots: None where there are none or every
    /// one is also a source (waiting for a source's write covers it), and after
    /// `Program::resolve_results` where the instruction has no fixed latency of its own
    /// (the range is then appended to `srcs`).
    pub waw: Option<(u16, u16)>,
    /// Source registers, each expanded: up to 16 entries; after lowering, only those
    /// that some instruction of the role writes (the others are always ready); after
    /// `Program::resolve_results`, followed by the `waw` range of an instruction
    /// without a fixed latency of its own.
    pub srcs: Box<[u16]>,
    /// Extra dispatch cycles from register-bank conflicts.
    pub bank_conflict_cycles: u8,
    /// The first register of each source operand read through the banks (not `.reuse`
    /// ones): a 64-bit pair is read from both banks in one access, so only operands, not
    /// registers, compete for a bank.
    pub operand_regs: Box<[u16]>,
    /// Bytes per lane for memory instructions.
    pub width: u32,
    /// Memory operands in order (for copies: destination first).
    pub mem: Box<[MemOperand]>,
    /// The mbarrier (first element index in the CTA's flat mbarrier array, and element).
    pub mbar: Option<(u32, u32, CExpr)>,
    /// bytes=, parity=, count=, a wait depth, a sleep, a barrier id...
    pub n: CExpr,
    /// A second number: a barrier's thread count.
    pub n2: CExpr,
    pub mma: Option<MmaShape>,
    /// A operand from tensor memory or registers (not shared memory).
    pub mma_a_not_smem: bool,
    /// `.CG` loads and `.BYPASS` copies skip L1.
    pub bypass_l1: bool,
    /// `UTMALDG.MULTICAST`: one L2 read feeds every CTA of the cluster.
    pub multicast: bool,
    /// A tensor copy's box (`row=`, `pitch=`): the bytes read from each row and the
    /// bytes between rows in global memory. None: one contiguous range.
    pub tensor_box: Option<(CExpr, CExpr)>,
    /// Index of the source instruction in the role's instruction list.
    pub text: u32,
    /// The control code's stall count (`stall=`): cycles from this issue before the
    /// warp may issue again (1 without one: the next cycle).
    pub stall: u8,
    /// The profile's timing of the result, resolved before a run
    /// (`Program::resolve_results`) so that an issue reads it rather than matching on
    /// the latency's kind: for arithmetic and plain instructions that write a result,
    /// the cycles from issue to its being ready and the state a reader waits in until
    /// then (its scoreboard: `wait` for a fixed latency).
    pub result: Option<(u64, WarpState)>,
    /// A fixed-latency result's cycles (0 for others): a write after a pending write
    /// need only wait until its own result lands after that one.
    pub own_latency: u64,
    /// Which path its issue takes in the engine (`Program::resolve_results` sets it).
    pub issue: IssueClass,
    /// The register that a `Plain` or `GlobalLoad` issue writes (`NO_RESULT_REG` for a
    /// `Plain` one without a `result`).
    pub dst_reg: u16,
    /// What a `Plain` or `GlobalLoad` issue writes there: the cycles from the issue to
    /// the value's being ready (a `Plain` one's `result`, 0 without one; a load's comes
    /// from its access) and the state a reader waits in until then.
    pub short_result: (u64, WarpState),
    /// The loop tail that follows it, if one does (its loop's slot and head): stepping
    /// past the instruction then ends an iteration without looking at the tail's node.
    pub loop_tail: Option<(u8, u32)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Instr(Box<DInstr>),
    LoopHead {
        slot: u8,
        start: CExpr,
        end: CExpr,
        exit: u32,
    },
    LoopTail {
        slot: u8,
        head: u32,
    },
    If {
        cond: CExpr,
        exit: u32,
    },
    End,
}

#[derive(Clone, Debug)]
pub struct RoleCode {
    pub name: String,
    pub first_warp: u32,
    pub last_warp: u32,
    pub code: Vec<Node>,
    /// The source of each instruction, as printed, for reports.
    pub texts: Vec<String>,
    /// Node index of each instruction text.
    pub text_pc: Vec<u32>,
    /// Each node's instruction as reports number them (an index into `texts`): an
    /// instruction's own, else the next instruction's (the end: `IMPLICIT_EXIT`'s where
    /// it is reported, else one past the last). Events name instructions by it.
    pub node_text: Vec<u32>,
    /// The affine forms of the global addresses whose `MemOperand::warp_term` is set,
    /// in its order.
    pub warp_terms: Vec<Affine>,
}

/// Where each global buffer of a kernel lies in the SM's address space: from 4 GiB
/// up, each `BUFFER_ALIGN` aligned with a gap of as much after it.
pub fn buffer_bases(k: &Kernel) -> Vec<u64> {
    let mut next = 1u64 << 32;
    let mut bases = Vec::with_capacity(k.buffers.len());
    for b in &k.buffers {
        bases.push(next);
        next = (next + b.size).next_multiple_of(BUFFER_ALIGN) + BUFFER_ALIGN;
    }
    bases
}

/// Every global buffer's alignment (2 MiB: a large page).
const BUFFER_ALIGN: u64 = 1 << 21;

/// How many global addresses of a role keep their `Affine::warp_part` per warp.
pub const WARP_TERMS: usize = 4;

#[derive(Clone, Debug)]
pub struct Program {
    pub roles: Vec<RoleCode>,
    /// First flat index of each mbarrier declaration, and the total count.
    pub mbar_base: Vec<u32>,
    pub mbar_count: Vec<u32>,
    pub mbar_total: u32,
    pub flops_per_cta: Option<f64>,
    pub bytes_per_cta: Option<f64>,
}

impl Program {
    /// Fills each instruction's `result` and `own_latency` from the profile's
    /// latencies: `fixed` by `FixedClass`, MUFU's (short scoreboard) and an L1 hit's
    /// (long scoreboard, for the arithmetic that has one); moves `waw` into `srcs` where
    /// there is no fixed latency of its own; and, with the result known,
    /// the path its issue takes (`issue`, `dst_reg`).
    pub fn resolve_results(&mut self, fixed: [u64; 4], short: u64, long: u64) {
        for role in &mut self.roles {
            for node in &mut role.code {
                let Node::Instr(d) = node else { continue };
                let (result, own) = match d.latency {
                    ResultLatency::Fixed(c) => {
                        let cycles = fixed[c as usize];
                        (Some((cycles, WarpState::Wait)), cycles)
                    }
                    ResultLatency::Variable(Scoreboard::Short) => {
                        (Some((short, WarpState::ShortScoreboard)), 0)
                    }
                    ResultLatency::Variable(Scoreboard::Long) => {
                        (Some((long, WarpState::LongScoreboard)), 0)
                    }
                    ResultLatency::None => (None, 0),
                };
                d.own_latency = own;
                // Without a fixed latency of its own, waiting out a destination's pending
                // write is the test a source has: the registers join the sources, after
                // them (the same comparisons in the same order, in one loop).
                if own == 0
                    && let Some((base, end)) = d.waw.take()
                {
                    d.srcs = d.srcs.iter().copied().chain(base..end).collect();
                }
                d.result = match d.kind {
                    Kind::Compute | Kind::Plain => result,
                    _ => None,
                };
                let one_dst = match d.dst {
                    Some((base, 1)) if (base as usize) < REG_SLOTS => Some(base),
                    _ => None,
                };
                let simple = d.op != Op::Bra && d.stall <= 1;
                d.issue = match d.kind {
                    Kind::Compute | Kind::Plain
                        if simple && (d.result.is_none() || one_dst.is_some()) =>
                    {
                        IssueClass::Plain
                    }
                    Kind::Load {
                        space: Space::Global | Space::Local,
                    } if simple && one_dst.is_some() && d.bank_conflict_cycles == 0 => {
                        IssueClass::GlobalLoad
                    }
                    _ => IssueClass::General,
                };
                d.dst_reg = match (d.issue, d.result) {
                    (IssueClass::Plain, None) => NO_RESULT_REG,
                    _ => one_dst.unwrap_or(0),
                };
                d.short_result = match d.issue {
                    IssueClass::GlobalLoad => (0, WarpState::LongScoreboard),
                    _ => d.result.unwrap_or((0, WarpState::Wait)),
                };
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

struct Lowerer<'k> {
    k: &'k Kernel,
    scope: Vec<String>,
    mbar_base: Vec<u32>,
}

fn compile(e: &Expr, k: &Kernel, scope: &[String], out: &mut Vec<EOp>) -> Result<(), String> {
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
            });
        }
    }
    Ok(())
}

/// What an operation does to the stack: the values it takes, and those it leaves.
fn stack_effect(op: &EOp) -> (i32, i32) {
    match op {
        EOp::Const(_) | EOp::Var(_) | EOp::Warp | EOp::Lane | EOp::Warpgroup | EOp::Cta => (0, 1),
        EOp::Neg | EOp::Not | EOp::BinK(..) | EOp::RemPow2(_) | EOp::DivPow2(_) => (1, 1),
        EOp::Bin(_) | EOp::Min | EOp::Max => (2, 1),
    }
}

/// Whether `code` is one whole expression: it leaves one value and takes none it did
/// not push.
fn one_value(code: &[EOp]) -> bool {
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

fn depth(code: &[EOp]) -> usize {
    let (mut d, mut max) = (0i32, 0i32);
    for op in code {
        let (takes, leaves) = stack_effect(op);
        d += leaves - takes;
        max = max.max(d);
    }
    max as usize
}

impl<'k> Lowerer<'k> {
    fn cexpr(&self, e: &Expr, span: isa::Span) -> Result<CExpr, LowerError> {
        let params = |n: &str| {
            if self.scope.iter().any(|s| s == n) {
                None
            } else {
                self.k.param(n)
            }
        };
        let e = e.substitute(&params);
        if let Expr::Int(v) = e {
            return Ok(CExpr::Const(v));
        }
        let mut code = Vec::new();
        compile(&e, self.k, &self.scope, &mut code).map_err(|m| err(span, m))?;
        if depth(&code) > 16 {
            return Err(err(
                span,
                "expression nested too deeply (more than 16 pending operands)",
            ));
        }
        Ok(CExpr::code(code))
    }

    fn operand_expr(&self, o: &Operand, span: isa::Span) -> Result<CExpr, LowerError> {
        match o.as_expr() {
            Some(e) => self.cexpr(&e, span),
            None => Err(err(
                span,
                format!("expected a number or an expression, found `{o}`"),
            )),
        }
    }

    fn key(&self, i: &Instr, key: &str) -> Result<Option<CExpr>, LowerError> {
        match i.key(key) {
            Some(o) => Ok(Some(self.operand_expr(o, i.span)?)),
            None => Ok(None),
        }
    }

    fn need_key(&self, i: &Instr, key: &str) -> Result<CExpr, LowerError> {
        self.key(i, key)?
            .ok_or_else(|| err(i.span, format!("{} needs {key}=", i.mnemonic())))
    }

    fn mbar_ref(&self, o: &Operand, span: isa::Span) -> Result<(u32, u32, CExpr), LowerError> {
        match o {
            Operand::Index { name, index } => {
                let d = self
                    .k
                    .mbarriers
                    .iter()
                    .position(|m| &m.name == name)
                    .ok_or_else(|| err(span, format!("`{name}` is not a declared mbarrier")))?;
                Ok((
                    self.mbar_base[d],
                    self.k.mbarriers[d].len,
                    self.cexpr(index, span)?,
                ))
            }
            Operand::Word(name) => {
                let d = self
                    .k
                    .mbarriers
                    .iter()
                    .position(|m| &m.name == name)
                    .ok_or_else(|| err(span, format!("`{name}` is not a declared mbarrier")))?;
                Ok((self.mbar_base[d], self.k.mbarriers[d].len, CExpr::Const(0)))
            }
            _ => Err(err(
                span,
                format!("expected an mbarrier such as full[i], found `{o}`"),
            )),
        }
    }

    fn decode(&self, i: &Instr, text: u32) -> Result<DInstr, LowerError> {
        let span = i.span;
        let op = i.op;
        let mut d = DInstr {
            kind: Kind::Plain,
            op,
            pipe: op.pipe(),
            latency: op.result_latency(),
            dst: None,
            waw: None,
            srcs: Box::new([]),
            bank_conflict_cycles: 0,
            operand_regs: Box::new([]),
            width: i.width_bytes(),
            mem: Box::new([]),
            mbar: None,
            n: CExpr::Const(0),
            n2: CExpr::Const(0),
            tensor_box: None,
            mma: None,
            mma_a_not_smem: false,
            bypass_l1: i.has_mod("CG") || i.has_mod("BYPASS"),
            multicast: i.has_mod("MULTICAST"),
            text,
            result: None,
            own_latency: 0,
            issue: IssueClass::General,
            dst_reg: 0,
            short_result: (0, WarpState::Wait),
            loop_tail: None,
            stall: match self.key(i, "stall")? {
                None => 1,
                Some(CExpr::Const(c)) if (0..=isa::validate::MAX_STALL).contains(&c) => {
                    c.max(1) as u8
                }
                Some(_) => {
                    return Err(err(
                        span,
                        format!(
                            "`stall=` must be a constant from 0 to {}",
                            isa::validate::MAX_STALL
                        ),
                    ));
                }
            },
        };
        if let Some((r, n)) = i.dest_reg()
            && let Some(idx) = reg_index(r)
        {
            d.dst = Some((idx, n.min(255) as u8));
        }
        let mut srcs = Vec::new();
        let mut operand_regs = Vec::new();
        for r in i.bank_reads() {
            if let Some(idx) = reg_index(r)
                && !operand_regs.contains(&idx)
            {
                operand_regs.push(idx);
            }
        }
        for (r, n) in i.source_regs() {
            if let Some(idx) = reg_index(r) {
                for j in 0..n as u16 {
                    if idx + j < REG_SLOTS as u16 {
                        srcs.push(idx + j);
                    }
                }
            }
        }
        let mut mem = Vec::new();
        for (name, index) in i.memory_operands() {
            let Some(space) = self.k.space_of(name) else {
                if self.k.mbarrier(name).is_some() {
                    continue;
                }
                return Err(err(
                    span,
                    format!("`{name}` is not a declared buffer, shared region, `local` or `tmem`"),
                ));
            };
            let base = match space {
                Space::Global => self
                    .k
                    .buffers
                    .iter()
                    .position(|b| b.name == name)
                    .unwrap_or(0) as u64,
                Space::Shared => self.k.shared_offset(name).unwrap_or(0) as u64,
                _ => 0,
            };
            mem.push(MemOperand::new(space, base, self.cexpr(index, span)?));
        }
        let word_n = |w: &str| -> Option<&Operand> {
            // The operand after a word such as SB0 or gsb0: `DEPBAR.LE SB0, 2`.
            let pos: Vec<&Operand> = i.positional().collect();
            let at = pos
                .iter()
                .position(|o| matches!(o, Operand::Word(x) if x.eq_ignore_ascii_case(w)))?;
            pos.get(at + 1).copied()
        };
        use Kind::*;
        d.kind = match op {
            Op::Ldg | Op::Ldl | Op::Lds | Op::Ldsm => {
                let m = mem.first().ok_or_else(|| {
                    err(
                        span,
                        format!(
                            "{} needs a memory operand such as A[lane * 4]",
                            i.mnemonic()
                        ),
                    )
                })?;
                Load { space: m.space }
            }
            Op::Stg | Op::Stl | Op::Sts => {
                let m = mem.first().ok_or_else(|| {
                    err(
                        span,
                        format!(
                            "{} needs a memory operand such as A[lane * 4]",
                            i.mnemonic()
                        ),
                    )
                })?;
                Store { space: m.space }
            }
            Op::Atom | Op::Red => {
                if mem.is_empty() {
                    return Err(err(
                        span,
                        format!("{} needs a memory operand", i.mnemonic()),
                    ));
                }
                Atomic {
                    returns: op == Op::Atom,
                }
            }
            Op::Ldgsts => {
                if mem.len() != 2 || mem[0].space != Space::Shared || mem[1].space != Space::Global
                {
                    return Err(err(
                        span,
                        "LDGSTS takes a shared destination and a global source: LDGSTS.E.128 stage[off], A[off]",
                    ));
                }
                Ldgsts
            }
            Op::Ldgdepbar => CpAsyncCommit,
            Op::Depbar => {
                let (kind, n) = if let Some(n) = word_n("SB0") {
                    (DepbarCpAsync, n)
                } else if let Some(n) = word_n("SB1") {
                    (DepbarBulk, n)
                } else {
                    return Err(err(
                        span,
                        "DEPBAR.LE needs SB0, N (cp.async groups) or SB1, N (bulk-store groups)",
                    ));
                };
                d.n = self.operand_expr(n, span)?;
                kind
            }
            Op::Ublkcp | Op::Utmaldg => {
                if mem.len() != 2 || mem[0].space != Space::Shared || mem[1].space != Space::Global
                {
                    return Err(err(
                        span,
                        format!(
                            "{} copies global to shared: {} stage[off], A[off], bytes=N, bar=full[i]",
                            i.mnemonic(),
                            op
                        ),
                    ));
                }
                d.n = self.need_key(i, "bytes")?;
                if let (Some(row), Some(pitch)) = (self.key(i, "row")?, self.key(i, "pitch")?) {
                    d.tensor_box = Some((row, pitch));
                }
                let bar = i.key("bar").ok_or_else(|| {
                    err(span, format!("{} needs bar=MBARRIER[i] to complete on", op))
                })?;
                d.mbar = Some(self.mbar_ref(bar, span)?);
                TmaLoad
            }
            Op::Utmastg => {
                if mem.len() != 2 || mem[0].space != Space::Global || mem[1].space != Space::Shared
                {
                    return Err(err(
                        span,
                        "UTMASTG copies shared to global: UTMASTG C[off], stage[off], bytes=N",
                    ));
                }
                d.n = self.need_key(i, "bytes")?;
                TmaStore
            }
            Op::Utmacmdflush => TmaCommit,
            Op::Syncs => {
                let target = i.positional().next().ok_or_else(|| {
                    err(span, format!("{} needs an mbarrier operand", i.mnemonic()))
                })?;
                d.mbar = Some(self.mbar_ref(target, span)?);
                if i.has_mod("EXCH") {
                    d.n = self.need_key(i, "count")?;
                    MbarInit
                } else if i.has_mod("ARRIVE") {
                    let expect_tx = i.has_mod("EXPECT_TX");
                    d.n = if expect_tx {
                        self.need_key(i, "bytes")?
                    } else {
                        CExpr::Const(0)
                    };
                    d.n2 = self.key(i, "count")?.unwrap_or(CExpr::Const(1));
                    MbarArrive { expect_tx }
                } else if i.has_mod("PHASECHK") || i.has_mod("TRYWAIT") {
                    d.n = self.need_key(i, "parity")?;
                    MbarWait
                } else {
                    return Err(err(
                        span,
                        "SYNCS needs .EXCH (init), .ARRIVE or .PHASECHK.TRANS64.TRYWAIT",
                    ));
                }
            }
            Op::Fence => Fence,
            Op::Warpgroup => {
                if i.has_mod("ARRIVE") {
                    WgArrive
                } else if i.has_mod("DEPBAR") {
                    let n = word_n("gsb0")
                        .ok_or_else(|| err(span, "WARPGROUP.DEPBAR.LE needs gsb0, N"))?;
                    d.n = self.operand_expr(n, span)?;
                    WgDepbar
                } else {
                    return Err(err(span, "WARPGROUP needs .ARRIVE or .DEPBAR.LE"));
                }
            }
            Op::Hgmma => {
                let shape = i
                    .mma_shape()
                    .unwrap_or_else(|| Err("no shape".into()))
                    .map_err(|m| err(span, m))?;
                d.mma = Some(shape);
                // The accumulator is read and written; A may come from registers.
                let pos: Vec<&Operand> = i.positional().collect();
                if let Some(Operand::Reg { reg, .. }) = pos.get(1) {
                    d.mma_a_not_smem = true;
                    if let Some(idx) = reg_index(*reg) {
                        for j in 0..4 {
                            srcs.push(idx + j);
                        }
                    }
                }
                Hgmma {
                    commit: i.has_word("gsb0"),
                }
            }
            Op::Utcmma => {
                let shape = i
                    .mma_shape()
                    .unwrap_or_else(|| Err("no shape".into()))
                    .map_err(|m| err(span, m))?;
                d.mma = Some(shape);
                d.mma_a_not_smem = mem.get(1).map(|m| m.space == Space::Tmem).unwrap_or(false);
                Utcmma
            }
            Op::Utcbar => {
                let target = i
                    .positional()
                    .next()
                    .ok_or_else(|| err(span, "UTCBAR needs an mbarrier operand"))?;
                d.mbar = Some(self.mbar_ref(target, span)?);
                Utcbar
            }
            Op::Ldtm => TmemLoad,
            Op::Sttm => TmemStore,
            Op::Tmemalloc => TmemAlloc,
            Op::Bar => {
                let first = i.positional().next().ok_or_else(|| {
                    err(
                        span,
                        "BAR needs a barrier id (0..15) or a declared barrier name",
                    )
                })?;
                let all = self.k.launch.cta_threads as i64;
                match first {
                    Operand::Word(w) if self.k.named_barrier(w).is_some() => {
                        let b = self.k.named_barrier(w).expect("checked");
                        d.n = CExpr::Const(b.id as i64);
                        d.n2 = CExpr::Const(b.threads as i64);
                    }
                    o => {
                        d.n = self.operand_expr(o, span)?;
                        d.n2 = match i.positional().nth(1) {
                            Some(t) => self.operand_expr(t, span)?,
                            None => CExpr::Const(all),
                        };
                    }
                }
                if i.has_mod("ARV") { BarArrive } else { BarSync }
            }
            Op::Membar => Membar {
                gpu: !i.has_mod("CTA"),
            },
            Op::Nanosleep => {
                d.n = match i.positional().next() {
                    Some(o) => self.operand_expr(o, span)?,
                    None => return Err(err(span, "NANOSLEEP needs a duration in nanoseconds")),
                };
                Nanosleep
            }
            Op::Exit => Exit,
            Op::Shfl => Shuffle,
            Op::Bra | Op::Nop | Op::Setmaxnreg | Op::Tmemdealloc => Plain,
            _ => Compute,
        };
        srcs.sort_unstable();
        srcs.dedup();
        if let Some((base, n)) = d.dst {
            let end = (base as usize + n as usize).min(REG_SLOTS) as u16;
            let base = base.min(end);
            if !(base..end).all(|r| srcs.binary_search(&r).is_ok()) {
                d.waw = Some((base, end));
            }
        }
        d.srcs = srcs.into_boxed_slice();
        d.operand_regs = operand_regs.into_boxed_slice();
        d.mem = mem.into_boxed_slice();
        Ok(d)
    }

    fn body(&mut self, stmts: &[Stmt], rc: &mut RoleCode) -> Result<(), LowerError> {
        for s in stmts {
            match s {
                Stmt::Instr(i) => {
                    let text = rc.texts.len() as u32;
                    rc.texts.push(i.to_string());
                    rc.text_pc.push(rc.code.len() as u32);
                    let d = self.decode(i, text)?;
                    rc.code.push(Node::Instr(Box::new(d)));
                }
                Stmt::Loop {
                    var,
                    start,
                    end,
                    body,
                    span,
                } => {
                    if self.scope.len() >= MAX_LOOP_DEPTH {
                        return Err(err(
                            *span,
                            format!("loops nest at most {MAX_LOOP_DEPTH} deep"),
                        ));
                    }
                    let start = self.cexpr(start, *span)?;
                    let end = self.cexpr(end, *span)?;
                    let slot = self.scope.len() as u8;
                    let head = rc.code.len() as u32;
                    rc.code.push(Node::LoopHead {
                        slot,
                        start,
                        end,
                        exit: 0,
                    });
                    self.scope.push(var.clone());
                    self.body(body, rc)?;
                    self.scope.pop();
                    rc.code.push(Node::LoopTail { slot, head });
                    let exit = rc.code.len() as u32;
                    if let Node::LoopHead { exit: e, .. } = &mut rc.code[head as usize] {
                        *e = exit;
                    }
                }
                Stmt::If { cond, body, span } => {
                    let cond = self.cexpr(cond, *span)?;
                    let at = rc.code.len();
                    rc.code.push(Node::If { cond, exit: 0 });
                    self.body(body, rc)?;
                    let exit = rc.code.len() as u32;
                    if let Node::If { exit: e, .. } = &mut rc.code[at] {
                        *e = exit;
                    }
                }
            }
        }
        Ok(())
    }
}

fn err(span: isa::Span, m: impl Into<String>) -> LowerError {
    LowerError {
        line: span.line,
        col: span.col,
        message: m.into(),
    }
}

/// Register-bank conflict cycles of a source list: each bank serves `ports` distinct
/// registers per dispatch.
pub fn bank_conflict_cycles(srcs: &[u16], banks: u32, ports: u32, penalty: u32) -> u8 {
    let mut per_bank = [0u32; 16];
    let banks = banks.clamp(1, 16);
    for &s in srcs {
        if s < 256 {
            per_bank[(s as u32 % banks) as usize] += 1;
        }
    }
    let worst = per_bank.iter().copied().max().unwrap_or(0);
    let extra = worst.div_ceil(ports.max(1)).saturating_sub(1);
    (extra * penalty).min(255) as u8
}

/// Each role's instructions as reports and events number them (`RoleCode::texts`), in
/// the kernel's role order: for exporters that label what events name.
pub fn instruction_texts(k: &Kernel) -> Result<Vec<Vec<String>>, LowerError> {
    // (The register-bank model changes no text: any will do.)
    Ok(lower(k, 2, 1, 0)?
        .roles
        .into_iter()
        .map(|r| r.texts)
        .collect())
}

/// Each role's instructions' 1-based source lines, in the order and number of
/// `RoleCode::texts` (a role's implicit EXIT takes the line of its last statement).
/// Spans a builder left unset are 0.
pub fn instruction_lines(k: &Kernel) -> Vec<Vec<u32>> {
    fn walk(stmts: &[Stmt], out: &mut Vec<u32>) {
        for s in stmts {
            match s {
                Stmt::Instr(i) => out.push(i.span.line),
                Stmt::Loop { body, .. } | Stmt::If { body, .. } => walk(body, out),
            }
        }
    }
    fn last_line(stmts: &[Stmt]) -> u32 {
        match stmts.last() {
            Some(Stmt::Instr(i)) => i.span.line,
            Some(Stmt::Loop { body, span, .. } | Stmt::If { body, span, .. }) => {
                last_line(body).max(span.line)
            }
            None => 0,
        }
    }
    k.roles
        .iter()
        .map(|r| {
            let mut lines = Vec::new();
            walk(&r.body, &mut lines);
            if !matches!(r.body.last(), Some(Stmt::Instr(i)) if i.op == Op::Exit) {
                lines.push(last_line(&r.body).max(r.span.line));
            }
            lines
        })
        .collect()
}

/// How a role's end is named where a warp may run off it without an EXIT.
pub const IMPLICIT_EXIT: &str = "EXIT (implicit: the end of the role)";

/// Lowers a kernel (with its parameters already set) for a profile's bank model.
pub fn lower(k: &Kernel, banks: u32, ports: u32, penalty: u32) -> Result<Program, LowerError> {
    let mut mbar_base = Vec::new();
    let mut total = 0u32;
    for m in &k.mbarriers {
        mbar_base.push(total);
        total += m.len;
    }
    let mut lw = Lowerer {
        k,
        scope: vec![],
        mbar_base: mbar_base.clone(),
    };
    let mut roles = Vec::new();
    let buffer_at = buffer_bases(k);
    for r in &k.roles {
        let mut rc = RoleCode {
            name: r.name.clone(),
            first_warp: r.first_warp,
            last_warp: r.last_warp,
            code: vec![],
            texts: vec![],
            text_pc: vec![],
            node_text: vec![],
            warp_terms: vec![],
        };
        lw.body(&r.body, &mut rc)?;
        // A warp that runs off the role's end exits there (`Engine::settle`) and drains
        // charged to the end: where the body may get there, the end is reported as an
        // instruction of its own, so that the per-instruction totals keep every cycle.
        if !matches!(r.body.last(), Some(Stmt::Instr(i)) if i.op == Op::Exit) {
            rc.texts.push(IMPLICIT_EXIT.to_string());
            rc.text_pc.push(rc.code.len() as u32);
        }
        rc.code.push(Node::End);
        // Back from the end, each node takes the first text at or after it.
        rc.node_text = vec![0; rc.code.len()];
        let mut next_text = rc.texts.len();
        for pc in (0..rc.code.len()).rev() {
            if next_text > 0 && rc.text_pc[next_text - 1] as usize == pc {
                next_text -= 1;
            }
            rc.node_text[pc] = next_text as u32;
        }
        // The global addresses' buffers, per-warp parts and bounds
        // (`MemOperand::buffer_at`, `MemOperand::warp_term`,
        // `MemOperand::ends_in_buffer`).
        for n in rc.code.iter_mut() {
            let Node::Instr(d) = n else { continue };
            let width = d.width as u64;
            for mo in d.mem.iter_mut().filter(|mo| mo.space == Space::Global) {
                mo.buffer_at = buffer_at.get(mo.base as usize).copied().unwrap_or(0);
                let CExpr::Code {
                    affine: Some(a), ..
                } = &mo.addr
                else {
                    continue;
                };
                let size = k.buffers.get(mo.base as usize).map_or(0, |b| b.size);
                mo.ends_in_buffer = a.ends_within(size, width);
                // Buffers are 2 MiB aligned (`buffer_bases`).
                let aligned = a.alignment().min(BUFFER_ALIGN).min(crate::memory::SECTOR);
                mo.one_sector = width.max(1) <= aligned;
                if rc.warp_terms.len() < WARP_TERMS {
                    mo.warp_term = rc.warp_terms.len() as u8;
                    rc.warp_terms.push(a.clone());
                }
            }
        }
        // A register that no instruction of the role writes is ready from the start
        // whenever its warps read it (only a warp's own issues write its registers):
        // an issue need not look at it.
        let mut written = [false; REG_SLOTS];
        for n in &rc.code {
            if let Node::Instr(d) = n
                && let Some((base, count)) = d.dst
            {
                let end = (base as usize + count as usize).min(REG_SLOTS);
                written[(base as usize).min(end)..end].fill(true);
            }
        }
        for n in rc.code.iter_mut() {
            if let Node::Instr(d) = n {
                d.srcs = d
                    .srcs
                    .iter()
                    .copied()
                    .filter(|&r| written.get(r as usize).copied().unwrap_or(true))
                    .collect();
            }
        }
        for pc in 1..rc.code.len() {
            if let Node::LoopTail { slot, head } = rc.code[pc]
                && let Node::Instr(d) = &mut rc.code[pc - 1]
            {
                d.loop_tail = Some((slot, head));
            }
        }
        for n in rc.code.iter_mut() {
            if let Node::Instr(d) = n {
                // Only arithmetic reads its sources through the banked register file
                // in one dispatch; memory and async ops are not modelled as conflicting.
                if d.kind == Kind::Compute {
                    d.bank_conflict_cycles =
                        bank_conflict_cycles(&d.operand_regs, banks, ports, penalty);
                }
            }
        }
        roles.push(rc);
    }
    let lookup = |n: &str| k.param(n);
    let work = |e: &Option<Expr>| -> Result<Option<f64>, LowerError> {
        let Some(e) = e else { return Ok(None) };
        let (line, col) = k
            .work
            .as_ref()
            .map_or((0, 0), |w| (w.span.line, w.span.col));
        let at = |message: String| LowerError { line, col, message };
        match e.eval(&lookup) {
            Ok(v) if v < 0 => Err(at(format!(
                "work: comes to {v}, and a CTA's work is not negative"
            ))),
            Ok(v) => Ok(Some(v as f64)),
            Err(m) => Err(at(format!("work: {m}"))),
        }
    };
    let (flops, bytes) = match &k.work {
        Some(w) => (work(&w.flops)?, work(&w.bytes)?),
        None => (None, None),
    };
    Ok(Program {
        roles,
        mbar_count: k.mbarriers.iter().map(|m| m.len).collect(),
        mbar_base,
        mbar_total: total,
        flops_per_cta: flops,
        bytes_per_cta: bytes,
    })
}

#[cfg(test)]
mod tests {
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
}
