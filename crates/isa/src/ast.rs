//! The program of one CTA and its launch, as parsed from a kernel file or built by a
//! generator.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::expr::Expr;
use crate::opcode::{MmaShape, Op};

/// Where something was written: 1-based line and column. Ignored by equality so that a
/// printed-and-reparsed program equals the original.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    pub name: String,
    pub launch: Launch,
    pub buffers: Vec<Buffer>,
    pub shared: Vec<SharedAlloc>,
    pub mbarriers: Vec<MbarrierDecl>,
    pub named_barriers: Vec<NamedBarrierDecl>,
    pub params: Vec<Param>,
    pub work: Option<Work>,
    pub roles: Vec<Role>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub cta_threads: u32,
    /// Registers per thread the kernel is compiled for.
    pub regs: u32,
    /// Shared memory per CTA in bytes.
    pub smem: u32,
    /// CTAs in the grid.
    pub grid: u32,
    /// Thread-block cluster size (CTAs), 1 when not clustered.
    pub cluster: u32,
    /// Tensor-memory columns the CTA allocates (Blackwell), 0 otherwise.
    pub tmem_cols: u32,
    pub span: Span,
}

impl Launch {
    pub fn warps(&self) -> u32 {
        self.cta_threads.div_ceil(32)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    /// Bytes.
    pub size: u64,
    pub span: Span,
}

/// A named region of the CTA's shared memory, `shared NAME size=BYTES`; regions are
/// laid out one after another in declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAlloc {
    pub name: String,
    pub size: u32,
    pub span: Span,
}

/// `mbarrier NAME[LEN] count=N`: LEN mbarriers, each completing a phase after N arrivals
/// (and its expected transaction bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarrierDecl {
    pub name: String,
    pub len: u32,
    pub count: u32,
    pub span: Span,
}

/// Which declared mbarrier, and which element of it, a CTA's `flat`-th mbarrier is: a
/// CTA's mbarriers are numbered across `decls` in order (as the simulator and its
/// events number them).
pub fn mbarrier_at(decls: &[MbarrierDecl], flat: u32) -> Option<(&str, u32)> {
    let mut base = 0u64;
    for m in decls {
        let el = u64::from(flat).checked_sub(base)?;
        if el < u64::from(m.len) {
            return Some((&m.name, el as u32));
        }
        base += u64::from(m.len);
    }
    None
}

/// `barrier NAME id=I threads=T`: a name for hardware named barrier I (0..15).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedBarrierDecl {
    pub name: String,
    pub id: u32,
    pub threads: u32,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub default: i64,
    pub span: Span,
}

/// The useful work one CTA does, so reports can give TFLOP/s or GB/s.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    pub flops: Option<Expr>,
    pub bytes: Option<Expr>,
    pub span: Span,
}

/// A body run by a contiguous range of warps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    pub name: String,
    /// First and last warp, inclusive.
    pub first_warp: u32,
    pub last_warp: u32,
    /// The register budget `setmaxnreg` gives the role's warps; the launch's `regs` if None.
    pub maxnreg: Option<u32>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

impl Role {
    pub fn warp_count(&self) -> u32 {
        self.last_warp + 1 - self.first_warp
    }
    pub fn contains(&self, warp: u32) -> bool {
        (self.first_warp..=self.last_warp).contains(&warp)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stmt {
    Instr(Instr),
    /// `loop VAR START..END`: VAR takes START, START+1, ..., END-1.
    Loop {
        var: String,
        start: Expr,
        end: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
    /// `if COND`: the body runs when COND is non-zero (a warp-uniform condition).
    If {
        cond: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Reg {
    /// R0..R254.
    R(u8),
    /// The zero register.
    Rz,
    /// P0..P6.
    P(u8),
    /// The always-true predicate.
    Pt,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reg::R(n) => write!(f, "R{n}"),
            Reg::Rz => write!(f, "RZ"),
            Reg::P(n) => write!(f, "P{n}"),
            Reg::Pt => write!(f, "PT"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    Reg {
        reg: Reg,
        negated: bool,
        /// SASS's `.reuse`: the operand is read from the operand reuse cache (it was read
        /// in the same slot by the previous instruction), not from its register bank.
        #[serde(default)]
        reuse: bool,
    },
    /// An integer immediate (also barrier ids, thread counts, wait-group depths).
    Int(i64),
    /// A floating-point immediate, kept as written so it prints back the same.
    Float(String),
    /// `NAME[EXPR]`: a byte address in a buffer, a shared region, `local` or `tmem`,
    /// or an element of an mbarrier array.
    Index { name: String, index: Expr },
    /// `key=EXPR` or `key=NAME[EXPR]`.
    Key { key: String, value: Box<Operand> },
    /// A bare expression: a parameter, a loop variable, arithmetic.
    Expr(Expr),
    /// A bare word the op gives meaning to, e.g. `gsb0` or `SB0`.
    Word(String),
}

/// `@P0` or `@!P0` in front of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    pub pred: Reg,
    pub negated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instr {
    pub guard: Option<Guard>,
    pub op: Op,
    /// Dotted modifiers after the base mnemonic, in order: `LDG.E.128` has `["E", "128"]`.
    pub mods: Vec<String>,
    pub operands: Vec<Operand>,
    pub span: Span,
    /// Where each operand starts, parallel to `operands` (empty for instructions built
    /// in Rust). Ignored by equality, like [`Span`].
    #[serde(default)]
    pub operand_spans: OperandSpans,
}

/// The source positions of an instruction's operands, for diagnostics that point at one
/// operand rather than at the whole line.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OperandSpans(pub Vec<Span>);

impl PartialEq for OperandSpans {
    fn eq(&self, _: &OperandSpans) -> bool {
        true
    }
}
impl Eq for OperandSpans {}

/// What kind of memory an `Index` operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Space {
    Global,
    Shared,
    Local,
    Tmem,
}

impl Instr {
    pub fn new(op: Op, mods: &[&str], operands: Vec<Operand>) -> Instr {
        Instr {
            guard: None,
            op,
            mods: mods.iter().map(|s| s.to_string()).collect(),
            operands,
            span: Span::default(),
            operand_spans: OperandSpans::default(),
        }
    }

    /// Where operand `i` (an index into `operands`) starts; the instruction's own span
    /// when the position is not known.
    pub fn operand_span(&self, i: usize) -> Span {
        self.operand_spans.0.get(i).copied().unwrap_or(self.span)
    }

    /// Where `key=` is written, or the whole instruction when it is not.
    pub fn key_span(&self, key: &str) -> Span {
        self.operands
            .iter()
            .position(|o| matches!(o, Operand::Key { key: k, .. } if k == key))
            .map(|i| self.operand_span(i))
            .unwrap_or(self.span)
    }

    pub fn has_mod(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }

    /// The full mnemonic as written: `LDG.E.128`.
    pub fn mnemonic(&self) -> String {
        let mut s = self.op.mnemonic().to_string();
        for m in &self.mods {
            s.push('.');
            s.push_str(m);
        }
        s
    }

    /// Bytes each lane moves for a memory instruction.
    pub fn width_bytes(&self) -> u32 {
        for m in &self.mods {
            match m.as_str() {
                "U8" | "S8" => return 1,
                "U16" | "S16" => return 2,
                "64" => return 8,
                "128" => return 16,
                _ => {}
            }
        }
        if self.op == Op::Ldsm {
            // ldmatrix .x1/.x2/.x4: 8x8 b16 matrices, 16 bytes a lane per four matrices.
            return if self.has_mod("4") {
                16
            } else if self.has_mod("2") {
                8
            } else {
                4
            };
        }
        4
    }

    pub fn mma_shape(&self) -> Option<Result<MmaShape, String>> {
        match self.op {
            Op::Hgmma | Op::Utcmma => Some(MmaShape::from_modifiers(self.op, &self.mods)),
            _ => None,
        }
    }

    /// The value of `key=...`, if present.
    pub fn key(&self, key: &str) -> Option<&Operand> {
        self.operands.iter().find_map(|o| match o {
            Operand::Key { key: k, value } if k == key => Some(&**value),
            _ => None,
        })
    }

    pub fn key_expr(&self, key: &str) -> Option<&Expr> {
        match self.key(key)? {
            Operand::Expr(e) => Some(e),
            _ => None,
        }
    }

    /// Operands that are not `key=value`, in order.
    pub fn positional(&self) -> impl Iterator<Item = &Operand> {
        self.operands
            .iter()
            .filter(|o| !matches!(o, Operand::Key { .. }))
    }

    pub fn has_word(&self, w: &str) -> bool {
        self.operands
            .iter()
            .any(|o| matches!(o, Operand::Word(x) if x.eq_ignore_ascii_case(w)))
    }

    /// True when the op writes its first positional register operand.
    pub fn writes_first_operand(&self) -> bool {
        use Op::*;
        match self.op {
            Stg | Sts | Stl | Red | Ldgsts | Ldgdepbar | Depbar | Ublkcp | Utmaldg | Utmastg
            | Utmacmdflush | Syncs | Fence | Warpgroup | Setmaxnreg | Utcmma | Utcbar | Sttm
            | Tmemalloc | Tmemdealloc | Bar | Membar | Nanosleep | Bra | Exit | Nop => false,
            // HGMMA's first operand is the accumulator it reads and writes; its
            // completion is tracked by wait groups, not the scoreboard.
            Hgmma => false,
            _ => true,
        }
    }

    /// How many consecutive registers the destination covers.
    pub fn def_count(&self) -> u32 {
        use Op::*;
        match self.op {
            Ldg | Lds | Ldl | Ldsm | Atom => self.width_bytes().div_ceil(4),
            Dfma => 2,
            Imad if self.has_mod("WIDE") => 2,
            Ldtm => {
                // .xN: N registers.
                self.mods
                    .iter()
                    .find_map(|m| m.strip_prefix('X').and_then(|n| n.parse::<u32>().ok()))
                    .unwrap_or(1)
            }
            _ => 1,
        }
    }

    /// The source registers read through the register banks: every vector register
    /// operand after the destination, except those marked `.reuse` (read from the
    /// operand reuse cache).
    pub fn bank_reads(&self) -> Vec<Reg> {
        let skip = usize::from(self.writes_first_operand());
        self.positional()
            .skip(skip)
            .filter_map(|o| match o {
                Operand::Reg {
                    reg: r @ Reg::R(_),
                    reuse: false,
                    ..
                } => Some(*r),
                _ => None,
            })
            .collect()
    }

    /// Registers read, each with the number of consecutive registers it covers.
    pub fn source_regs(&self) -> Vec<(Reg, u32)> {
        let mut out = Vec::new();
        if let Some(g) = self.guard {
            out.push((g.pred, 1));
        }
        let skip = usize::from(self.writes_first_operand());
        let data_width = match self.op {
            Op::Stg | Op::Sts | Op::Stl | Op::Red => self.width_bytes().div_ceil(4),
            Op::Dfma => 2,
            _ => 1,
        };
        for o in self.positional().skip(skip) {
            if let Operand::Reg { reg, .. } = o
                && matches!(reg, Reg::R(_) | Reg::P(_))
            {
                out.push((*reg, data_width));
            }
        }
        out
    }

    /// The register the instruction writes and how many consecutive registers from it.
    pub fn dest_reg(&self) -> Option<(Reg, u32)> {
        if !self.writes_first_operand() {
            return None;
        }
        match self.positional().next()? {
            Operand::Reg {
                reg: r @ (Reg::R(_) | Reg::P(_)),
                ..
            } => Some((*r, self.def_count())),
            _ => None,
        }
    }

    /// The memory operand (`NAME[EXPR]`) that is not a barrier, first one wins.
    pub fn memory_operands(&self) -> impl Iterator<Item = (&str, &Expr)> {
        self.positional().filter_map(|o| match o {
            Operand::Index { name, index } => Some((name.as_str(), index)),
            _ => None,
        })
    }
}

impl Kernel {
    /// Warps in one CTA.
    pub fn warps(&self) -> u32 {
        self.launch.warps()
    }

    pub fn param(&self, name: &str) -> Option<i64> {
        self.params
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.default)
    }

    /// The role that runs `warp`.
    pub fn role_of(&self, warp: u32) -> Option<usize> {
        self.roles.iter().position(|r| r.contains(warp))
    }

    /// Byte offset of a shared region within the CTA's shared memory.
    pub fn shared_offset(&self, name: &str) -> Option<u32> {
        let mut off = 0;
        for s in &self.shared {
            if s.name == name {
                return Some(off);
            }
            off += s.size;
        }
        None
    }

    pub fn mbarrier(&self, name: &str) -> Option<&MbarrierDecl> {
        self.mbarriers.iter().find(|m| m.name == name)
    }

    pub fn named_barrier(&self, name: &str) -> Option<&NamedBarrierDecl> {
        self.named_barriers.iter().find(|m| m.name == name)
    }

    /// Which space an `Index` operand's name refers to, if it is memory.
    pub fn space_of(&self, name: &str) -> Option<Space> {
        match name {
            "local" => Some(Space::Local),
            "tmem" => Some(Space::Tmem),
            _ if self.buffers.iter().any(|b| b.name == name) => Some(Space::Global),
            _ if self.shared.iter().any(|b| b.name == name) => Some(Space::Shared),
            _ => None,
        }
    }

    /// Replaces parameter defaults with overrides. Unknown names are an error.
    pub fn set_params(&mut self, overrides: &[(String, i64)]) -> Result<(), String> {
        for (name, value) in overrides {
            match self.params.iter_mut().find(|p| &p.name == name) {
                Some(p) => p.default = *value,
                None => {
                    let known: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
                    return Err(if known.is_empty() {
                        format!(
                            "kernel `{}` has no parameters; `{name}` is not one",
                            self.name
                        )
                    } else {
                        format!(
                            "kernel `{}` has no parameter `{name}` (it has: {})",
                            self.name,
                            known.join(", ")
                        )
                    });
                }
            }
        }
        Ok(())
    }

    /// Counts every instruction in the program text (not dynamic executions).
    pub fn static_instr_count(&self) -> usize {
        fn count(body: &[Stmt]) -> usize {
            body.iter()
                .map(|s| match s {
                    Stmt::Instr(_) => 1,
                    Stmt::Loop { body, .. } | Stmt::If { body, .. } => count(body),
                })
                .sum()
        }
        self.roles.iter().map(|r| count(&r.body)).sum()
    }
}

/// `R12`, `RZ`, `P3`, `PT`.
pub fn parse_reg(name: &str) -> Option<Reg> {
    match name {
        "RZ" => return Some(Reg::Rz),
        "PT" => return Some(Reg::Pt),
        _ => {}
    }
    let (kind, num) = name.split_at(1);
    if num.is_empty()
        || !num.bytes().all(|b| b.is_ascii_digit())
        || (num.len() > 1 && num.starts_with('0'))
    {
        return None;
    }
    let n: u32 = num.parse().ok()?;
    match kind {
        "R" if n <= 254 => Some(Reg::R(n as u8)),
        "P" if n <= 6 => Some(Reg::P(n as u8)),
        _ => None,
    }
}
