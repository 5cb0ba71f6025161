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
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// One CTA's program and its launch: what a kernel file holds.
pub struct Kernel {
    /// The name after `kernel`.
    pub name: String,
    /// The `launch` line.
    pub launch: Launch,
    /// `buffer` declarations (global memory), in order.
    pub buffers: Vec<Buffer>,
    /// `shared` regions, laid out in this order.
    pub shared: Vec<SharedAlloc>,
    /// `mbarrier` arrays, numbered across declarations in this order.
    pub mbarriers: Vec<MbarrierDecl>,
    /// `barrier` declarations: names for hardware named barriers.
    pub named_barriers: Vec<NamedBarrierDecl>,
    /// `param` declarations with their values (defaults or `--param` overrides).
    pub params: Vec<Param>,
    /// The `work` line, if any.
    pub work: Option<Work>,
    /// `pred` declarations: the truth of a predicate register per warp and per
    /// iteration, so that guarded instructions are timed as executing or not.
    #[serde(default)]
    pub preds: Vec<PredDecl>,
    /// The roles, each a body run by a range of warps.
    pub roles: Vec<Role>,
    /// Declaration values written as expressions of parameters (`smem=STAGES * 49152`),
    /// kept so that new parameter values reshape the kernel ([`Kernel::bind`]); the
    /// declarations themselves hold the values for the current parameters.
    #[serde(default)]
    pub decl_exprs: Vec<DeclExpr>,
}

/// Which declaration value a [`DeclExpr`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DeclField {
    /// `launch cta_threads=`.
    CtaThreads,
    /// `launch regs=`.
    Regs,
    /// `launch smem=`.
    Smem,
    /// `launch grid=`.
    Grid,
    /// `launch cluster=`.
    Cluster,
    /// `launch tmem=`.
    Tmem,
    /// `size=` of the n-th `buffer`.
    BufferSize(usize),
    /// `warm=` of the n-th `buffer`.
    BufferWarm(usize),
    /// `size=` of the n-th `shared` region.
    SharedSize(usize),
    /// The length `[N]` of the n-th `mbarrier` array.
    MbarrierLen(usize),
    /// `count=` of the n-th `mbarrier` array.
    MbarrierCount(usize),
    /// `id=` of the n-th named `barrier`.
    BarrierId(usize),
    /// `threads=` of the n-th named `barrier`.
    BarrierThreads(usize),
}

impl DeclField {
    /// How the value is written in its declaration: `smem`, `size`, `count`.
    pub fn key(self) -> &'static str {
        match self {
            DeclField::CtaThreads => "cta_threads",
            DeclField::Regs => "regs",
            DeclField::Smem => "smem",
            DeclField::Grid => "grid",
            DeclField::Cluster => "cluster",
            DeclField::Tmem => "tmem",
            DeclField::BufferSize(_) | DeclField::SharedSize(_) => "size",
            DeclField::BufferWarm(_) => "warm",
            DeclField::MbarrierLen(_) => "the array length",
            DeclField::MbarrierCount(_) => "count",
            DeclField::BarrierId(_) => "id",
            DeclField::BarrierThreads(_) => "threads",
        }
    }

    /// The largest value the field holds (buffer sizes are 64-bit, the rest 32-bit).
    pub fn max(self) -> i64 {
        match self {
            DeclField::BufferSize(_) | DeclField::BufferWarm(_) => i64::MAX,
            _ => i64::from(u32::MAX),
        }
    }
}

/// A declaration value written as an expression of parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclExpr {
    /// The value it gives.
    pub field: DeclField,
    /// The expression, of parameters only.
    pub expr: Expr,
    /// Where the expression is written.
    pub span: Span,
}

/// Why a declaration expression has no value for the current parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindError {
    /// It could not be evaluated (an unknown name, division by zero, overflow).
    Eval(crate::expr::EvalError),
    /// The value is negative or too large for the field.
    Range(i64),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// The `launch` line: the CTA's shape and resources, and the grid.
pub struct Launch {
    /// Threads per CTA.
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
    /// Where the `launch` line is.
    pub span: Span,
}

impl Launch {
    /// Warps per CTA (threads rounded up to whole warps).
    pub fn warps(&self) -> u32 {
        self.cta_threads.div_ceil(32)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// `buffer NAME size=BYTES [warm=BYTES]`: a region of global memory.
pub struct Buffer {
    /// Its name, as memory operands write it.
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// `warm=BYTES`: the buffer's first BYTES start the run in L2 (as after an earlier
    /// kernel that touched them); 0 when not written.
    #[serde(default)]
    pub warm: u64,
    /// Where it is declared.
    pub span: Span,
}

/// A named region of the CTA's shared memory, `shared NAME size=BYTES`; regions are
/// laid out one after another in declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAlloc {
    /// Its name, as memory operands write it.
    pub name: String,
    /// Bytes.
    pub size: u32,
    /// Where it is declared.
    pub span: Span,
}

/// `mbarrier NAME[LEN] count=N`: LEN mbarriers, each completing a phase after N arrivals
/// (and its expected transaction bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarrierDecl {
    /// The array's name.
    pub name: String,
    /// Elements in the array.
    pub len: u32,
    /// Arrivals that complete a phase.
    pub count: u32,
    /// Where it is declared.
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

/// `pred P0 = EXPR`: predicate P0 (or uniform predicate UP0) is true where EXPR is
/// non-zero. EXPR is warp-uniform: parameters, `warp`, `warpgroup`, `cta` and the
/// loop variables in scope where a guard reads it (`pred P0 = k % 4 == 0` guards
/// instructions in `loop k`), so that `@P0` / `@!P0` instructions are timed as
/// executing or not, warp by warp and iteration by iteration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredDecl {
    /// The predicate: `P0`..`P6` or `UP0`..`UP6`.
    pub pred: Reg,
    /// Its truth: non-zero is true.
    pub truth: Expr,
    /// Where it is declared.
    pub span: Span,
}

/// `barrier NAME id=I threads=T`: a name for hardware named barrier I (0..15).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedBarrierDecl {
    /// The name instructions use instead of the id.
    pub name: String,
    /// The hardware barrier id, 0..15.
    pub id: u32,
    /// Threads that complete the barrier.
    pub threads: u32,
    /// Where it is declared.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// `param NAME=VALUE`: an integer the kernel's expressions may use, overridable with `--param`.
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its value: the default written in the file, or an override.
    pub default: i64,
    /// Where it is declared.
    pub span: Span,
}

/// The useful work one CTA does, so reports can give TFLOP/s or GB/s.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// Floating-point operations per CTA.
    pub flops: Option<Expr>,
    /// Bytes moved per CTA.
    pub bytes: Option<Expr>,
    /// Where the `work` line is.
    pub span: Span,
}

/// A body run by a contiguous range of warps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    /// Its name, as reports show it.
    pub name: String,
    /// First and last warp, inclusive.
    pub first_warp: u32,
    /// The last warp, inclusive.
    pub last_warp: u32,
    /// The register budget `setmaxnreg` gives the role's warps; the launch's `regs` if None.
    pub maxnreg: Option<u32>,
    /// The statements its warps run.
    pub body: Vec<Stmt>,
    /// Where the `role` line is.
    pub span: Span,
}

impl Role {
    /// Warps in the role.
    pub fn warp_count(&self) -> u32 {
        self.last_warp + 1 - self.first_warp
    }
    /// True when `warp` runs this role.
    pub fn contains(&self, warp: u32) -> bool {
        (self.first_warp..=self.last_warp).contains(&warp)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// One statement of a role's body.
pub enum Stmt {
    /// One instruction.
    Instr(Instr),
    /// `loop VAR START..END`: VAR takes START, START+1, ..., END-1.
    Loop {
        /// The loop variable.
        var: String,
        /// The first value, inclusive.
        start: Expr,
        /// The end, exclusive.
        end: Expr,
        /// The statements repeated.
        body: Vec<Stmt>,
        /// Where the `loop` line is.
        span: Span,
    },
    /// `if COND`: the body runs when COND is non-zero (a warp-uniform condition).
    If {
        /// The condition, warp-uniform.
        cond: Expr,
        /// The statements run when it holds.
        body: Vec<Stmt>,
        /// Where the `if` line is.
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
/// A register operand.
pub enum Reg {
    /// R0..R254.
    R(u8),
    /// The zero register.
    Rz,
    /// P0..P6.
    P(u8),
    /// The always-true predicate.
    Pt,
    /// UR0..UR62: a uniform register, one 32-bit value for the whole warp, read and
    /// written by the uniform datapath (and read by vector instructions, without a
    /// vector register bank).
    Ur(u8),
    /// URZ: the uniform zero register.
    Urz,
    /// UP0..UP6: a uniform predicate.
    Up(u8),
    /// UPT: the always-true uniform predicate.
    Upt,
}

impl Reg {
    /// A predicate: `P0`..`P6`, `PT`, `UP0`..`UP6`, `UPT`.
    pub fn is_predicate(self) -> bool {
        matches!(self, Reg::P(_) | Reg::Pt | Reg::Up(_) | Reg::Upt)
    }

    /// A uniform register or predicate (`UR`, `URZ`, `UP`, `UPT`).
    pub fn is_uniform(self) -> bool {
        matches!(self, Reg::Ur(_) | Reg::Urz | Reg::Up(_) | Reg::Upt)
    }

    /// A data register, vector or uniform (`R`, `RZ`, `UR`, `URZ`): not a predicate.
    pub fn is_data(self) -> bool {
        !self.is_predicate()
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reg::R(n) => write!(f, "R{n}"),
            Reg::Rz => write!(f, "RZ"),
            Reg::P(n) => write!(f, "P{n}"),
            Reg::Pt => write!(f, "PT"),
            Reg::Ur(n) => write!(f, "UR{n}"),
            Reg::Urz => write!(f, "URZ"),
            Reg::Up(n) => write!(f, "UP{n}"),
            Reg::Upt => write!(f, "UPT"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// One operand of an instruction.
pub enum Operand {
    /// A register or predicate, possibly negated (`-R1`, `!P0`).
    Reg {
        /// The register.
        reg: Reg,
        /// `-R1` or `!P0`.
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
    Index {
        /// The buffer, shared region, `local`, `tmem` or mbarrier array.
        name: String,
        /// The byte offset, column or element.
        index: Expr,
    },
    /// `key=EXPR` or `key=NAME[EXPR]`.
    Key {
        /// The key.
        key: String,
        /// Its value.
        value: Box<Operand>,
    },
    /// A bare expression: a parameter, a loop variable, arithmetic.
    Expr(Expr),
    /// A bare word the op gives meaning to, e.g. `gsb0` or `SB0`.
    Word(String),
}

/// `@P0` or `@!P0` in front of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    /// The predicate register.
    pub pred: Reg,
    /// `@!P0`: the instruction runs where the predicate is false.
    pub negated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// One instruction: an op, its modifiers and operands, an optional guard.
pub struct Instr {
    /// `@P0` / `@!P0`, if written.
    pub guard: Option<Guard>,
    /// The base mnemonic.
    pub op: Op,
    /// Dotted modifiers after the base mnemonic, in order: `LDG.E.128` has `["E", "128"]`.
    pub mods: Vec<String>,
    /// The operands in order, `key=value` ones included.
    pub operands: Vec<Operand>,
    /// Where the instruction starts.
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

pub use crate::opcode::Space;

impl Instr {
    /// An instruction built in Rust, without source positions.
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

    /// True when the instruction has modifier `m` (`LDG.E.128` has `E` and `128`).
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

    /// The MMA shape of an HGMMA or UTCMMA (an error when its modifiers are not one); `None` for other ops.
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

    /// The value of `key=` when it is an expression (not a register or memory operand).
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

    /// True when a bare word operand is `w` (case-insensitive): `gsb0`, `SB0`.
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
            | Tmemalloc | Tmemdealloc | Bar | UcgabarArv | UcgabarWait | Membar | Nanosleep
            | Bra | Exit | Nop => false,
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
            Imad | Uimad if self.has_mod("WIDE") => 2,
            Uldc | Umov | Ldc if self.has_mod("64") => 2,
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
                && matches!(reg, Reg::R(_) | Reg::P(_) | Reg::Ur(_) | Reg::Up(_))
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
                reg: r @ (Reg::R(_) | Reg::P(_) | Reg::Ur(_) | Reg::Up(_)),
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

    /// The value of parameter `name`.
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

    /// The mbarrier array declared as `name`.
    pub fn mbarrier(&self, name: &str) -> Option<&MbarrierDecl> {
        self.mbarriers.iter().find(|m| m.name == name)
    }

    /// The `pred` declaration of predicate `reg`, if it has one.
    pub fn pred(&self, reg: Reg) -> Option<&PredDecl> {
        self.preds.iter().find(|p| p.pred == reg)
    }

    /// The named barrier declared as `name`.
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
        self.bind();
        Ok(())
    }

    /// The value of a declaration expression for the current parameters.
    pub fn decl_value(&self, d: &DeclExpr) -> Result<i64, BindError> {
        let v = d
            .expr
            .eval_checked(&|n| self.param(n))
            .map_err(BindError::Eval)?;
        if v < 0 || v > d.field.max() {
            return Err(BindError::Range(v));
        }
        Ok(v)
    }

    /// Evaluates the declaration expressions for the current parameters into the
    /// declarations. A value that does not evaluate becomes 0 (validation reports it,
    /// with its position). [`Kernel::set_params`] calls this.
    pub fn bind(&mut self) {
        // One order whatever the order of the lines, so that equal kernels compare equal.
        self.decl_exprs.sort_by_key(|d| d.field);
        for i in 0..self.decl_exprs.len() {
            let d = &self.decl_exprs[i];
            let field = d.field;
            let v = self.decl_value(d).unwrap_or(0);
            let v32 = u32::try_from(v).unwrap_or(0);
            let l = &mut self.launch;
            match field {
                DeclField::CtaThreads => l.cta_threads = v32,
                DeclField::Regs => l.regs = v32,
                DeclField::Smem => l.smem = v32,
                DeclField::Grid => l.grid = v32,
                DeclField::Cluster => l.cluster = v32,
                DeclField::Tmem => l.tmem_cols = v32,
                DeclField::BufferSize(n) => self.buffers[n].size = v as u64,
                DeclField::BufferWarm(n) => self.buffers[n].warm = v as u64,
                DeclField::SharedSize(n) => self.shared[n].size = v32,
                DeclField::MbarrierLen(n) => self.mbarriers[n].len = v32,
                DeclField::MbarrierCount(n) => self.mbarriers[n].count = v32,
                DeclField::BarrierId(n) => self.named_barriers[n].id = v32,
                DeclField::BarrierThreads(n) => self.named_barriers[n].threads = v32,
            }
        }
    }

    /// The expression a declaration value was written as, if it was one.
    pub fn decl_expr(&self, field: DeclField) -> Option<&DeclExpr> {
        self.decl_exprs.iter().find(|d| d.field == field)
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

/// The last uniform register: a warp has UR0..UR62 (URZ is the 64th).
pub const MAX_UR: u32 = 62;

/// `R12`, `RZ`, `P3`, `PT`, `UR4`, `URZ`, `UP0`, `UPT`.
pub fn parse_reg(name: &str) -> Option<Reg> {
    match name {
        "RZ" => return Some(Reg::Rz),
        "PT" => return Some(Reg::Pt),
        "URZ" => return Some(Reg::Urz),
        "UPT" => return Some(Reg::Upt),
        _ => {}
    }
    if !name.is_ascii() {
        return None;
    }
    let split = if name.starts_with("UR") || name.starts_with("UP") {
        2
    } else {
        1
    };
    if name.len() <= split {
        return None;
    }
    let (kind, num) = name.split_at(split);
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
        "UR" if n <= MAX_UR => Some(Reg::Ur(n as u8)),
        "UP" if n <= 6 => Some(Reg::Up(n as u8)),
        _ => None,
    }
}
