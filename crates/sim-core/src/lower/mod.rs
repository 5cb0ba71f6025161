//! Decoding: turns each role's structured body into flat code the engine steps through,
//! with every operand resolved (registers to indices, names to barriers and buffers,
//! expressions compiled so that they evaluate without allocation).

use isa::ast::{Kernel, Operand, Reg, Space, Stmt};
use isa::expr::{BinOp, Expr, Func};
use isa::opcode::{MmaShape, Op, ResultLatency, Scoreboard};
use isa::{Instr, Pipe};

use crate::state::WarpState;

mod decode;
mod expr;
#[cfg(test)]
mod tests;

use decode::*;
pub use expr::*;

/// Register-file indices: R0..R254 are 0..254, P0..P6 are 256..262, UR0..UR62 are
/// 264..326 (`UR_BASE`), UP0..UP6 are 328..334 (`UP_BASE`).
pub const REG_SLOTS: usize = 336;
/// The slot of UR0.
pub const UR_BASE: u16 = 264;
/// The slot of UP0.
pub const UP_BASE: u16 = 328;

/// The register slot that a `Plain` instruction without a result names as its
/// `dst_reg`: beyond `REG_SLOTS`, so no instruction reads it, and the short issue writes
/// it rather than testing whether there is a result.
pub const NO_RESULT_REG: u16 = REG_SLOTS as u16;
pub const MAX_LOOP_DEPTH: usize = 8;

pub fn reg_index(r: Reg) -> Option<u16> {
    match r {
        Reg::R(n) => Some(n as u16),
        Reg::P(n) => Some(256 + n as u16),
        Reg::Ur(n) => Some(UR_BASE + n as u16),
        Reg::Up(n) => Some(UP_BASE + n as u16),
        Reg::Rz | Reg::Pt | Reg::Urz | Reg::Upt => None,
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
    /// `DEPBAR.LE.READ SB1, N` (cp.async.bulk.wait_group.read): waits until the bulk
    /// stores of all but N groups have read their shared memory, not until they
    /// complete.
    DepbarBulkRead,
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
    /// UCGABAR_ARV: the warp's arrival on its cluster's barrier.
    ClusterArrive,
    /// UCGABAR_WAIT: the warp waits for the cluster barrier's phase it arrived on.
    ClusterWait,
    Membar {
        gpu: bool,
    },
    Nanosleep,
    /// `NOP lanes=N`: the BSYNC at the end of a region that N lanes ran, the rest of the
    /// warp parked there: below 32, it holds the warp `bsync_rejoin_cycles` beyond its
    /// stall count.
    Rejoin,
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
    /// and its destination registers below `REG_SLOTS` (`dst_reg`, `dst_count`): its
    /// issue only books its pipe (and dispatch) and writes those registers when its
    /// `result` is ready.
    Plain,
    /// A global or local load, not a branch, with a stall count of at most 1 and its
    /// destination registers below `REG_SLOTS` (`dst_reg`, `dst_count`).
    GlobalLoad,
    /// Everything else.
    General,
}

/// How many source registers an instruction keeps in its own record (`Srcs`).
const SRCS_INLINE: usize = 10;

/// An instruction's source registers (`DInstr::srcs`): up to `SRCS_INLINE` in the
/// record itself, beside the other fields an issue reads (a separate allocation was a
/// second host memory wait per issue on fa3-forward's long consumer), more (a warpgroup
/// MMA's accumulators, say) in a box of their own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Srcs {
    inline: [u16; SRCS_INLINE],
    len: u16,
    more: Box<[u16]>,
}

impl std::ops::Deref for Srcs {
    type Target = [u16];
    #[inline(always)]
    fn deref(&self) -> &[u16] {
        match self.inline.get(..self.len as usize) {
            Some(s) => s,
            None => &self.more,
        }
    }
}

impl From<Vec<u16>> for Srcs {
    fn from(v: Vec<u16>) -> Srcs {
        let mut s = Srcs {
            len: u16::try_from(v.len()).unwrap_or(u16::MAX),
            ..Srcs::default()
        };
        match s.inline.get_mut(..v.len()) {
            Some(inline) => inline.copy_from_slice(&v),
            None => s.more = v.into_boxed_slice(),
        }
        s
    }
}

impl FromIterator<u16> for Srcs {
    fn from_iter<I: IntoIterator<Item = u16>>(it: I) -> Srcs {
        Srcs::from(it.into_iter().collect::<Vec<u16>>())
    }
}

#[derive(Clone, Debug, PartialEq)]
// Laid out as written (`repr(C)`), the fields the short issue paths and classification
// read first: an issue touches the next instruction as soon as its pc steps, and in
// fa3-forward's 1,500-instruction consumer the default layout (those fields spread
// over the record's last 150 of 1,100 bytes) had each issue wait on host memory.
#[repr(C)]
pub struct DInstr {
    /// Source registers, each expanded: up to 16 entries; after lowering, only those
    /// that some instruction of the role writes (the others are always ready); after
    /// `Program::resolve_results`, followed by the `waw` range of an instruction
    /// without a fixed latency of its own.
    pub srcs: Srcs,
    /// What a `Plain` or `GlobalLoad` issue writes there: the cycles from the issue to
    /// the value's being ready (a `Plain` one's `result`, 0 without one; a load's comes
    /// from its access) and the state a reader waits in until then.
    pub short_result: (u64, WarpState),
    /// A fixed-latency result's cycles (0 for others): a write after a pending write
    /// need only wait until its own result lands after that one.
    pub own_latency: u64,
    /// The loop tail that follows it, if one does (its loop's slot and head): stepping
    /// past the instruction then ends an iteration without looking at the tail's node.
    pub loop_tail: Option<(u8, u32)>,
    /// Index of the source instruction in the role's instruction list.
    pub text: u32,
    /// The destination registers whose pending writes an issue must wait out (write
    /// after write), as a range of register slots: None where there are none or every
    /// one is also a source (waiting for a source's write covers it), and after
    /// `Program::resolve_results` where the instruction has no fixed latency of its own
    /// (the range is then appended to `srcs`).
    pub waw: Option<(u16, u16)>,
    /// The destination registers that a shared store of the role reads (its address or
    /// data), as a range of register slots: an issue waits until the store before it
    /// has read them (write after read; the engine's `sts_read`). None where no
    /// destination is such a register.
    pub war: Option<(u16, u16)>,
    /// The first register that a `Plain` or `GlobalLoad` issue writes (`NO_RESULT_REG`
    /// for a `Plain` one without a `result`).
    pub dst_reg: u16,
    /// Which path its issue takes in the engine (`Program::resolve_results` sets it).
    pub issue: IssueClass,
    pub pipe: Pipe,
    /// How many registers from `dst_reg` it writes (1 but for 64- and 128-bit results:
    /// FP64 arithmetic, wide loads).
    pub dst_count: u8,
    /// Extra dispatch cycles from register-bank conflicts.
    pub bank_conflict_cycles: u8,
    /// The control code's stall count (`stall=`): cycles from this issue before the
    /// warp may issue again (1 without one: the next cycle).
    pub stall: u8,
    /// A branch right after a TRYWAIT (NOPs between): the try_wait's branch over its
    /// spin, which reads the try_wait's predicate. Its redirect is in the try_wait's
    /// own latency as fitted (`lat_mbarrier_probe`, whose benchmark loop takes that
    /// branch on every wait while its twin is a bare TRYWAIT), so it pays no
    /// `taken_branch_cycles` of its own.
    pub after_probe: bool,
    /// A branch on a per-thread predicate: the first `BRA` after a `BSSY` in its block
    /// (ptxas sets up a convergence barrier before a branch that may diverge, none where
    /// it proved the predicate warp-uniform). Taken, its target comes
    /// `per_thread_branch_cycles` later than a uniform branch's (`data/gaps/brdist/`).
    pub per_thread: bool,
    /// A branch's distance to its target in bytes as compiled (`BRA bytes=N`; 0 where not
    /// given): a loop's back branch over more than `icache_l0_bytes` misses the nearest
    /// instruction cache (`data/gaps/brdist/`).
    pub branch_bytes: i32,
    pub kind: Kind,
    pub op: Op,
    /// The profile's timing of the result, resolved before a run
    /// (`Program::resolve_results`) so that an issue reads it rather than matching on
    /// the latency's kind: for arithmetic and plain instructions that write a result,
    /// the cycles from issue to its being ready and the state a reader waits in until
    /// then (its scoreboard: `wait` for a fixed latency).
    pub result: Option<(u64, WarpState)>,
    /// Destination registers: first index and count.
    pub dst: Option<(u16, u8)>,
    pub latency: ResultLatency,
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
    /// The truth of its guard where the guard reads a declared predicate (`pred P0 =
    /// EXPR`; `@!P0` as `EXPR == 0`): where it evaluates to 0 the instruction issues
    /// and does nothing else. None: it executes (no guard, or a guard whose truth is
    /// not declared, timed as holding). Boxed: most instructions have none, and the
    /// instruction stays the size it was.
    pub guard: Option<Box<CExpr>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Instr(Box<DInstr>),
    // (The expressions boxed: a node is then 32 bytes, not 392, and the issue's step
    // to the next node reads the code array at that stride.)
    LoopHead {
        slot: u8,
        start: Box<CExpr>,
        end: Box<CExpr>,
        exit: u32,
    },
    LoopTail {
        slot: u8,
        head: u32,
    },
    If {
        cond: Box<CExpr>,
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
    pub mbar_total: u32,
    pub flops_per_cta: Option<f64>,
    pub bytes_per_cta: Option<f64>,
    /// Some instruction waits for a shared store to read its registers (`DInstr::war`).
    pub has_war: bool,
}

impl Program {
    /// Fills each instruction's `result` and `own_latency` from the profile's
    /// latencies: `fixed` by `FixedClass`, MUFU's (short scoreboard; the conversions'
    /// own, `convert`, LDC's, `constant`, S2R's, `sreg`, and S2UR's, `usreg`) and an L1 hit's (long scoreboard, for the arithmetic that has one);
    /// moves `waw` into `srcs` where
    /// there is no fixed latency of its own; and, with the result known,
    /// the path its issue takes (`issue`, `dst_reg`).
    pub fn resolve_results(&mut self, fixed: [u64; 4], short: [u64; 5], long: u64) {
        let [short, convert, constant, sreg, usreg] = short;
        for role in &mut self.roles {
            for node in &mut role.code {
                let Node::Instr(d) = node else { continue };
                let (result, own) = match d.latency {
                    ResultLatency::Fixed(c) => {
                        let cycles = fixed[c as usize];
                        (Some((cycles, WarpState::Wait)), cycles)
                    }
                    ResultLatency::Variable(Scoreboard::Short) => {
                        let cycles = match d.op {
                            Op::Ldc => constant,
                            Op::S2r => sreg,
                            Op::S2ur => usreg,
                            Op::I2f | Op::F2i | Op::F2f => convert,
                            _ => short,
                        };
                        (Some((cycles, WarpState::ShortScoreboard)), 0)
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
                // (Every destination register is tracked: `set_dst` would write them
                // all, none past the register file's end.)
                let short_dst = match d.dst {
                    Some((base, n)) if n >= 1 && base as usize + n as usize <= REG_SLOTS => {
                        Some((base, n))
                    }
                    _ => None,
                };
                // (A declared guard is evaluated on the general path.)
                let simple = d.op != Op::Bra && d.stall <= 1 && d.guard.is_none();
                d.issue = match d.kind {
                    Kind::Compute | Kind::Plain
                        if simple && (d.result.is_none() || short_dst.is_some()) =>
                    {
                        IssueClass::Plain
                    }
                    Kind::Load {
                        space: Space::Global | Space::Local,
                    } if simple && short_dst.is_some() && d.bank_conflict_cycles == 0 => {
                        IssueClass::GlobalLoad
                    }
                    _ => IssueClass::General,
                };
                (d.dst_reg, d.dst_count) = match (d.issue, d.result) {
                    (IssueClass::Plain, None) => (NO_RESULT_REG, 1),
                    _ => short_dst.unwrap_or((0, 1)),
                };
                d.short_result = match d.issue {
                    IssueClass::GlobalLoad => (0, WarpState::LongScoreboard),
                    _ => d.result.unwrap_or((0, WarpState::Wait)),
                };
            }
        }
    }
}

/// Marks each instruction of a role's code that writes a register some shared store of
/// the role reads (`DInstr::war`): on the GPU a store reads its registers when its turn on
/// the store path comes, and ptxas makes the next writer of any of them wait on the
/// store's read scoreboard (`data/gaps/stsissue/`).
fn mark_war(code: &mut [Node]) {
    let mut stored = [false; REG_SLOTS];
    for n in code.iter() {
        if let Node::Instr(d) = n
            && d.kind
                == (Kind::Store {
                    space: Space::Shared,
                })
        {
            for &r in d.srcs.iter() {
                if let Some(x) = stored.get_mut(r as usize) {
                    *x = true;
                }
            }
        }
    }
    if !stored.contains(&true) {
        return;
    }
    for n in code.iter_mut() {
        if let Node::Instr(d) = n
            && let Some((base, count)) = d.dst
        {
            let end = (base as usize + count as usize).min(REG_SLOTS);
            let base = (base as usize).min(end);
            if stored[base..end].contains(&true) {
                d.war = Some((base as u16, end as u16));
            }
        }
    }
}

/// Why a kernel cannot be lowered for the engine (an operand it cannot resolve, loops
/// nested too deep...), where in its text.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    /// The 1-based line.
    pub line: u32,
    /// The 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
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
        mark_war(&mut rc.code);
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
        // a branch whose last instruction before it, NOPs aside, is a TRYWAIT
        let mut after_wait = false;
        for n in rc.code.iter_mut() {
            match n {
                Node::Instr(d) if d.op == Op::Nop => {}
                Node::Instr(d) => {
                    d.after_probe = d.op == Op::Bra && after_wait;
                    after_wait = d.kind == Kind::MbarWait;
                }
                _ => after_wait = false,
            }
        }
        // the branch a BSSY opens its region for: the next BRA before the block ends
        // (a loop or `if` boundary) or the region rejoins (`NOP lanes=`, its BSYNC)
        let mut opened = false;
        for n in rc.code.iter_mut() {
            match n {
                Node::Instr(d) if d.op == Op::Bssy => opened = true,
                Node::Instr(d) if d.op == Op::Bra => {
                    d.per_thread = opened;
                    opened = false;
                }
                Node::Instr(d) if d.kind == Kind::Rejoin => opened = false,
                Node::Instr(_) => {}
                _ => opened = false,
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
    let has_war = roles.iter().any(|r| {
        r.code
            .iter()
            .any(|n| matches!(n, Node::Instr(d) if d.war.is_some()))
    });
    Ok(Program {
        has_war,
        roles,
        mbar_base,
        mbar_total: total,
        flops_per_cta: flops,
        bytes_per_cta: bytes,
    })
}
