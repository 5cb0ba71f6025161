//! The cycle loop. Each cycle, each of the four sub-partition schedulers looks at its
//! warps, puts each in exactly one state, and issues one eligible warp's instruction.
//!
//! A warp's state is recomputed only when it can have changed: classification returns,
//! with the state, the first cycle at which it might differ (`until`). When no warp is
//! eligible the loop jumps straight to the earliest such cycle (fast-forward); turning
//! fast-forward off steps every cycle and reclassifies every warp, and must give the
//! same result. State time is accounted in spans, so skipped cycles cost nothing.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use isa::ast::Space;
use isa::opcode::{FixedClass, Op};
use isa::{Kernel, Pipe};

use crate::due::{self, DueWheel};
use crate::lower::{
    self, CExpr, DInstr, Env, IssueClass, Kind, MAX_LOOP_DEPTH, Node, Program, REG_SLOTS,
    WARP_TERMS,
};
use crate::memory::{self, LINE, Memory, SECTOR, SECTORS_PER_LINE};
use crate::profile::{Profile, Timing};
use crate::result::*;
use crate::scheduler::{Candidate, Policy, Scheduler, SchedulerPolicy};
use crate::sink::{
    Event, InstructionInfo, MemLevel, NoSink, Outcome, POLL_CYCLES, RoleInfo, RunEnd, RunHeader,
    Sink, Unit, WarpId,
};
use crate::state::{STATE_COUNT, WarpState};

const NEVER: u64 = u64::MAX;
const NPIPES: usize = Pipe::ALL.len();

/// How to run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunConfig {
    pub seed: u64,
    pub policy: Policy,
    /// The watchdog: a run still going after this many cycles stops with a report.
    pub max_cycles: u64,
    /// Skip cycles in which no warp can issue. Off only to check that skipping changes nothing.
    pub fast_forward: bool,
    /// Simulate at most this many CTAs on the SM (the busiest SM's share of the grid otherwise).
    pub max_ctas: Option<u32>,
    /// Global buffers whose lines start in L2, in this order (data an earlier launch
    /// read): a measured kernel timed after a warm-up launch.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warm_l2: Vec<String>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            seed: 1,
            policy: Policy::TwoLevel,
            max_cycles: 200_000_000,
            fast_forward: true,
            max_ctas: None,
            warm_l2: Vec::new(),
        }
    }
}

/// Runs a kernel (parameters already set) on a profile.
pub fn run(kernel: &Kernel, profile: &Profile, cfg: &RunConfig) -> Result<RunResult, SimError> {
    run_scheduled(kernel, profile, cfg, cfg.policy.scheduler(), &mut NoSink)
}

/// Runs with a policy of the caller's and events pushed into `sink`. (The policy is
/// called through its box; `run` holds its built-in policy by value, whose lone pick
/// the cycle loop inlines.)
pub fn run_with<S: Sink>(
    kernel: &Kernel,
    profile: &Profile,
    cfg: &RunConfig,
    policy: Box<dyn SchedulerPolicy>,
    sink: &mut S,
) -> Result<RunResult, SimError> {
    run_scheduled(kernel, profile, cfg, Scheduler::Custom(policy), sink)
}

/// `run_with` of a policy as the engine holds it.
fn run_scheduled<S: Sink>(
    kernel: &Kernel,
    profile: &Profile,
    cfg: &RunConfig,
    policy: Scheduler,
    sink: &mut S,
) -> Result<RunResult, SimError> {
    let t = &profile.t;
    let mut prog = lower::lower(
        kernel,
        t.reg_banks as u32,
        t.reg_bank_ports as u32,
        t.reg_bank_conflict_cycles as u32,
    )
    .map_err(|e| SimError::Invalid(format!("line {}:{}: {}", e.line, e.col, e.message)))?;
    prog.resolve_results(
        FIXED_CLASSES.map(|c| profile.fixed_latency(c)),
        t.lat_mufu as u64,
        t.lat_l1_hit as u64,
    );
    let occ = isa::occupancy::occupancy(kernel, &profile.limits());
    let mut resident = occ.ctas_per_sm;
    if t.tmem_cols > 0.0 && kernel.launch.tmem_cols > 0 {
        resident = resident.min(t.tmem_cols as u32 / kernel.launch.tmem_cols);
    } else if kernel.launch.tmem_cols > 0 {
        return Err(SimError::Invalid(format!(
            "the kernel allocates {} tensor-memory columns but the {} profile has no tensor memory (tcgen05 kernels need a Blackwell profile such as b200)",
            kernel.launch.tmem_cols,
            profile.name()
        )));
    }
    if resident == 0 {
        return Err(SimError::Invalid(format!(
            "the kernel does not fit on an SM: {} registers per CTA ({} allowed), {} bytes of shared memory per CTA ({} allowed), {} warps per CTA ({} allowed)",
            occ.regs_per_cta,
            profile.t.regs_per_sm,
            occ.smem_per_cta,
            profile.t.smem_per_sm,
            occ.warps_per_cta,
            profile.t.max_warps_per_sm
        )));
    }
    let grid = kernel.launch.grid.max(1);
    let sms = t.sm_count as u32;
    let mut ctas_here = grid.div_ceil(sms);
    if let Some(m) = cfg.max_ctas {
        ctas_here = ctas_here.min(m.max(1));
    }
    let resident = resident.min(ctas_here);
    if resident as usize * occ.warps_per_cta as usize > 4 * due::MAX_POSITIONS {
        return Err(SimError::Invalid(format!(
            "{} resident warps: the engine holds at most {} per SM (the profile's max_warps_per_sm is {})",
            resident as usize * occ.warps_per_cta as usize,
            4 * due::MAX_POSITIONS,
            profile.t.max_warps_per_sm
        )));
    }
    let busy_sms = grid.min(sms);
    let smem_used = (kernel.launch.smem as u64 + t.smem_reserved_per_cta as u64) * resident as u64;
    let l1_bytes = (t.l1_plus_smem_bytes as u64).saturating_sub(smem_used.next_multiple_of(8192));
    let mut e = Engine::new(
        kernel, profile, &prog, cfg, policy, sink, resident, ctas_here, busy_sms, l1_bytes,
    );
    for name in &cfg.warm_l2 {
        let b = kernel
            .buffers
            .iter()
            .position(|b| &b.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = kernel.buffers.iter().map(|b| b.name.as_str()).collect();
                SimError::Invalid(format!(
                    "no buffer `{name}` to start in L2; the kernel's buffers: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            })?;
        let (base, size) = (e.buffer_base[b], e.buffer_size[b].max(1));
        e.mem.warm_l2(base / LINE, (base + size - 1) / LINE);
    }
    let tell = S::ENABLED || S::POLLS;
    if tell {
        let header = e.header(ctas_here, resident);
        e.sink.begin(&header);
    }
    match e.run() {
        Ok(stopped) => {
            let r = e.finish(occ, resident, ctas_here, grid);
            if tell {
                let outcome = if stopped {
                    Outcome::Stopped
                } else {
                    Outcome::Finished
                };
                sink.finish(&RunEnd {
                    cycles: r.cycles,
                    outcome,
                });
            }
            if stopped {
                Err(SimError::Stopped(Box::new(r)))
            } else {
                Ok(r)
            }
        }
        Err(err) => {
            if tell {
                e.end_live_warps();
                let outcome = match &err {
                    SimError::Deadlock(r) => Outcome::Deadlock(r.clone()),
                    SimError::Watchdog(r) => Outcome::Watchdog(r.clone()),
                    other => Outcome::Fault(other.to_string()),
                };
                let cycles = e.now;
                drop(e);
                sink.finish(&RunEnd { cycles, outcome });
            }
            Err(err)
        }
    }
}

/// What a stall waits on, besides the instruction it is charged to, packed in one word
/// (the kind above 32 bits, its text index or pipe below) so that the span accounting,
/// which compares causes on every issue, compares one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cause(u64);

/// A `Cause` unpacked, for reports.
enum Waited {
    Own,
    Producer { text: u32 },
    Pipe(Pipe),
}

impl Cause {
    /// The instruction itself (a barrier, a wait, an issue) says what it waits for.
    const OWN: Cause = Cause(0);

    /// A register written by this instruction (text index in the role) is not ready.
    fn producer(text: u32) -> Cause {
        Cause(1 << 32 | text as u64)
    }

    /// A busy pipe or a full queue.
    fn pipe(p: Pipe) -> Cause {
        Cause(2 << 32 | p.index() as u64)
    }

    fn unpack(self) -> Waited {
        let low = self.0 as u32;
        match self.0 >> 32 {
            0 => Waited::Own,
            1 => Waited::Producer { text: low },
            _ => Waited::Pipe(
                *Pipe::ALL
                    .iter()
                    .find(|p| p.index() == low as usize)
                    .expect("a packed pipe"),
            ),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Block {
    None,
    Barrier { id: u32 },
    Mbar { idx: u32, parity: u32 },
    WgArrive,
    Until { t: u64, state: WarpState },
}

struct Warp<'a> {
    live: bool,
    exited: bool,
    cta: u32,
    warp: u32,
    role: u16,
    /// Its sub-partition, below 4 (masked with 3 where it indexes, which spares the
    /// bounds checks).
    sp: u8,
    age: u64,
    pc: u32,
    /// The instruction at `pc` (None before the warp's launch settles it, and once the
    /// warp has exited: classification's one test for both), kept so that
    /// classification and issue need not walk the program to find it.
    cur: Option<&'a DInstr>,
    /// Its role's code, where an issue steps its pc. (The Vec, not a slice: one word
    /// in the warp; a slice's two cost the issue-bound benchmark more than they saved.)
    code: &'a Vec<Node>,
    /// Where the warp's role begins in the per-instruction totals (`pcs`).
    pc_base: u32,
    vars: [i64; MAX_LOOP_DEPTH],
    ends: [i64; MAX_LOOP_DEPTH],
    /// Per register, its pending write (together: one host cache line per lookup).
    /// (`REG_ARRAY` entries, the first `REG_SLOTS` used: an index masked to the array
    /// needs no bounds check.)
    regs: Box<[RegState; REG_ARRAY]>,
    /// From this cycle on, the registers of the instruction at `pc` are ready
    /// (`operands_wait` finds nothing) and nothing of the warp's own holds it (no block,
    /// no stall count, an instruction); u64::MAX: not known. Only the warp's own issue
    /// writes its registers, moves its pc or blocks it, and the issue works this out
    /// for the next instruction anyway, so classification need not look at the
    /// registers, the block or the stall count again. (Others only end a block.)
    operands_clear_from: u64,
    block: Block,
    /// The instruction that blocked the warp: stalls while blocked are charged to it.
    block_pc: u32,
    state: WarpState,
    /// What the current stall waits on, when it is not the instruction itself.
    cause: Cause,
    state_since: u64,
    state_pc: u32,
    wgmma: WaitGroups,
    /// HGMMAs this warp has issued: the i-th HGMMA of each of a warpgroup's four warps
    /// is one warpgroup MMA.
    hgmma_issued: u32,
    cp_async: WaitGroups,
    bulk_store: WaitGroups,
    utc_done: u64,
    outstanding: u64,
    last_issue: u64,
    /// When the instruction before the last one issued: a branch enters the warp's
    /// instruction buffer when the instruction two before it issues.
    issued_before: u64,
    /// Before this cycle the warp may not issue: the stall count of an instruction that
    /// also blocked the warp (a WARPGROUP.ARRIVE, a barrier, a wait) still holds it when
    /// the block ends sooner (the other warps of a warpgroup arrive a cycle later).
    stall_until: u64,
    stats: [u64; STATE_COUNT],
    started: u64,
    finished: u64,
}

/// Async operations committed in groups and waited for by depth (wgmma wait_group,
/// cp.async and bulk-store wait groups): when each committed group completes.
#[derive(Default)]
struct WaitGroups {
    /// Completion of the operations issued since the last commit.
    open: u64,
    committed: VecDeque<u64>,
}

impl WaitGroups {
    fn add(&mut self, done: u64) {
        self.open = self.open.max(done);
    }

    fn commit(&mut self, now: u64) {
        self.committed.push_back(self.open.max(now));
        self.open = 0;
    }

    fn clear(&mut self) {
        self.open = 0;
        self.committed.clear();
    }

    /// The earliest cycle at which at most `n` committed groups are still pending.
    fn wait_until(&mut self, now: u64, n: usize) -> u64 {
        self.committed.retain(|&t| t > now);
        if self.committed.len() <= n {
            return now;
        }
        // The (n+1)-th latest completion; groups beyond 64 pending are not told apart.
        let mut v: [u64; 64] = [0; 64];
        let k = self.committed.len().min(64);
        for (i, t) in self.committed.iter().take(k).enumerate() {
            v[i] = *t;
        }
        let v = &mut v[..k];
        v.sort_unstable_by(|a, b| b.cmp(a));
        v[n.min(k - 1)]
    }
}

/// A warp's register array: `REG_SLOTS` rounded up to a power of two, so that a
/// register index (below `REG_SLOTS`, by lowering) masked to it needs no bounds check
/// on the issue path. (The entries beyond are never read or written.)
const REG_ARRAY: usize = REG_SLOTS.next_power_of_two();

// A `Plain` instruction without a result writes `NO_RESULT_REG`, which must be in the
// array and read by none (beyond `REG_SLOTS`).
const _: () = assert!(lower::NO_RESULT_REG as usize >= REG_SLOTS);
const _: () = assert!((lower::NO_RESULT_REG as usize) < REG_ARRAY);

/// A register's pending write.
#[derive(Clone, Copy)]
struct RegState {
    /// When the value is ready.
    ready: u64,
    /// The instruction (text index) that last wrote it.
    writer: u32,
    /// What a reader waits in until then: its scoreboard (`wait` for a fixed latency,
    /// `long_scoreboard`, `short_scoreboard`).
    stall: WarpState,
}

impl RegState {
    const EMPTY: RegState = RegState {
        ready: 0,
        writer: u32::MAX,
        stall: WarpState::Wait,
    };
}

impl<'a> Warp<'a> {
    /// The end of a short issue of `d` on the warp itself: its pc stepped and, when the
    /// next node is an instruction, that instruction current, its register wait (from
    /// `next`) found and, if any, made the state from `next` on (the issue's `selected`
    /// span is charged and empty from `next`: nothing to close). Returns when the warp
    /// is next looked at, or None when the next node is the general loop control (the
    /// caller settles the warp).
    #[inline(always)]
    fn quiet_step(&mut self, d: &DInstr, next: u64) -> Option<u64> {
        self.pc += 1;
        if let Some((s, head)) = d.loop_tail {
            self.loop_tail(s, head);
        }
        let code: &'a [Node] = self.code;
        let Node::Instr(n) = &code[self.pc as usize] else {
            return None;
        };
        self.cur = Some(n);
        Some(match self.operands_wait(n, next) {
            Some((state, until, cause)) => {
                self.operands_clear_from = until;
                self.state = state;
                self.cause = cause;
                self.state_pc = self.pc;
                until
            }
            None => {
                self.operands_clear_from = next;
                next
            }
        })
    }
}

impl Warp<'_> {
    /// When the registers `d` reads or writes are not ready at `now`: the scoreboard
    /// state, the cycle they are, and the instruction that writes the latest of them.
    #[inline(always)]
    fn operands_wait(&self, d: &DInstr, now: u64) -> Option<(WarpState, u64, Cause)> {
        let regs: &[RegState; REG_ARRAY] = &self.regs;
        // The latest pending register: only its time is compared here, its scoreboard
        // and writer are read once at the end (through the reference kept, which needs
        // no second bounds check).
        let (mut ready, mut latest) = if let [r] = *d.srcs {
            // One register (the chain's each instruction): no loop to set up. (Its
            // writer and scoreboard are read only when it is pending, as the loop's.)
            let reg = &regs[r as usize % REG_ARRAY];
            (reg.ready, reg)
        } else {
            let mut ready = 0u64;
            let mut latest = &regs[0];
            for &r in d.srcs.iter() {
                let reg = &regs[r as usize % REG_ARRAY];
                if reg.ready > ready {
                    ready = reg.ready;
                    latest = reg;
                }
            }
            (ready, latest)
        };
        if let Some((base, end)) = d.waw {
            // Write after write: wait only until this result would land after the
            // pending one (fixed-latency writes to one register then land in order).
            let own = d.own_latency;
            for reg in &regs[base as usize..end as usize] {
                let t = reg.ready.saturating_sub(own);
                if t > ready {
                    ready = t;
                    latest = reg;
                }
            }
        }
        if ready <= now {
            return None;
        }
        let reg = latest;
        Some((reg.stall, ready, Cause::producer(reg.writer)))
    }

    /// Ends an iteration of the loop in `slot` whose head is at `head`: back to the
    /// body's first node, or past the tail when the loop is done.
    #[inline]
    fn loop_tail(&mut self, slot: u8, head: u32) {
        let s = slot as usize;
        self.vars[s] += 1;
        if self.vars[s] < self.ends[s] {
            self.pc = head + 1;
        } else {
            self.pc += 1;
        }
    }

    /// The instruction the current state is charged to.
    fn charged_pc(&self) -> u32 {
        if self.block == Block::None {
            self.pc
        } else {
            self.block_pc
        }
    }
}

/// A thread's local memory: 512 KiB (CUDA C++ Programming Guide, "Technical
/// Specifications per Compute Capability", every capability since 2.0).
const MAX_LOCAL_BYTES: i64 = 512 << 10;

/// The local bytes per thread laid out in a warp's first region (`lane_addr`).
const LOCAL_NEAR_BYTES: u64 = 32 << 10;

/// The most transaction bytes one arrive may expect: an mbarrier's tx-count is 20 bits
/// (PTX ISA, `mbarrier`: its range is -(2^20 - 1) to 2^20 - 1).
const MAX_MBARRIER_TX: i64 = (1 << 20) - 1;

#[derive(Clone, Debug)]
struct Mbar {
    count: u32,
    pending: u32,
    tx: i64,
    phase: u64,
    /// When the arrive that completed the last phase reaches the barrier
    /// (`lat_mbarrier_arrive` after its issue): a try_wait that finds the phase complete
    /// reads it no earlier than that.
    settled: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct NamedBar {
    arrived: u32,
    expected: u32,
    /// When the barrier unit has counted every arrival so far: it takes
    /// `bar_arrive_cycles_per_warp` per warp, one after another, so a barrier of many
    /// warps that arrive together releases later than one of few.
    counted_at: f64,
}

struct Cta {
    /// Launch order on this SM (what reports call the CTA).
    id: u32,
    /// The CTA's index in the grid, the `cta` of expressions: CTAs are dealt to the SMs
    /// in turn, so this SM's n-th CTA is n * sm_count.
    grid_id: u32,
    /// The first CTA (grid index) of this CTA's wave, and how many CTAs the wave has.
    wave_first: u32,
    wave_len: u32,
    live: bool,
    warps_left: u32,
    mbars: Vec<Mbar>,
    bars: [NamedBar; 16],
    wg_arrived: [u32; 8],
    /// Per warpgroup, the tensor-pipe slots of its last few warpgroup MMAs.
    wg_mma: [[MmaBooking; MMA_BOOKINGS]; 8],
}

/// One instruction's totals over every warp that ran it (one host line or so per
/// update: a span closes into its state's count and, for a stall, what it waited on).
struct PcTotals {
    /// Per state, its cycles: an issue is one cycle of `selected`, and nothing else
    /// is, so `selected` counts the instruction's issues.
    states: [u64; STATE_COUNT],
    /// What its stalls waited on, by state: few distinct entries per instruction. The
    /// first one (`Cause::OWN`: none yet) is kept here, where most stalls add to it
    /// without a look at the vector; `more_causes` holds the others, in order.
    first_cause: (WarpState, Cause, u64),
    more_causes: Vec<(WarpState, Cause, u64)>,
}

impl Default for PcTotals {
    fn default() -> PcTotals {
        PcTotals {
            states: [0; STATE_COUNT],
            first_cause: (WarpState::Wait, Cause::OWN, 0),
            more_causes: Vec::new(),
        }
    }
}

impl PcTotals {
    // Rare next to the span accounting it is called from: kept out of its code.
    #[inline(never)]
    fn add_cause(&mut self, state: WarpState, cause: Cause, span: u64) {
        if self.first_cause.1 == Cause::OWN {
            self.first_cause = (state, cause, span);
            return;
        }
        match self
            .more_causes
            .iter_mut()
            .find(|c| c.0 == state && c.1 == cause)
        {
            Some(c) => c.2 += span,
            None => self.more_causes.push((state, cause, span)),
        }
    }

    /// What its stalls waited on, in the order first met.
    fn causes(&self) -> impl Iterator<Item = &(WarpState, Cause, u64)> {
        let first = (self.first_cause.1 != Cause::OWN).then_some(&self.first_cause);
        first.into_iter().chain(self.more_causes.iter())
    }
}

/// How many of a warpgroup's MMAs a booking ring remembers: its warps never drift
/// further apart than one commit group (WARPGROUP.ARRIVE gathers them), at most a few
/// HGMMAs.
const MMA_BOOKINGS: usize = 16;

/// What a warp's global accesses read of the warp and its CTA, the same at each access
/// until the slot's next launch: a lane-0 address needs neither the warp's built-ins nor
/// its CTA's entry.
#[derive(Clone, Copy, Debug, Default)]
struct WarpTerms {
    /// `Affine::warp_part` of the role's addresses (`MemOperand::warp_term`).
    fixed: [i64; WARP_TERMS],
    /// The CTA's wave's length (`Cta::wave_len`).
    wave_len: u32,
}

/// When one warpgroup MMA runs on the SM's tensor pipe.
#[derive(Clone, Copy, Debug, Default)]
struct MmaBooking {
    /// Which of the warpgroup's MMAs (1-based; 0: none yet).
    seq: u32,
    start: u64,
}

/// A FIFO whose entries leave at known, mostly non-decreasing cycles (each unit serves
/// in order); full when `depth` have not left yet.
///
/// Rather than a count of the entries still in it, pruned at every look, it keeps the
/// departures of the last `depth` entries it took (0 for a slot never used), ascending
/// around a ring from `oldest`: those that are past have left. It is full exactly when
/// the earliest of them is still to come, one comparison. An entry is taken only when
/// the earliest has left, and it takes that slot: what it overwrites has left, and as
/// `now` never goes back, it stays left. Nothing allocates.
struct Queue {
    departs: Box<[u64]>,
    oldest: usize,
    /// `departs[oldest]` and the departure before it around the ring (the latest), kept
    /// at hand: a look and a push in order then index the ring once.
    earliest: u64,
    latest: u64,
}

impl Queue {
    fn new(depth: usize) -> Queue {
        Queue {
            departs: vec![0; depth.max(1)].into_boxed_slice(),
            oldest: 0,
            earliest: 0,
            latest: 0,
        }
    }

    /// When full, the cycle at which a slot frees.
    #[cfg(test)]
    fn full_until(&self, now: u64) -> Option<u64> {
        (self.earliest > now).then_some(self.earliest)
    }

    /// Adds an entry that leaves at `depart`, if it has not left by `now` and there is room.
    /// (Inlined always: every load and shared-memory access pushes one.)
    #[inline(always)]
    fn push(&mut self, now: u64, depart: u64) {
        if depart > now && self.earliest <= now {
            // The earliest slot becomes the latest.
            let i = self.oldest;
            self.departs[i] = depart;
            // (`>=` rather than `==`, the same for an `i` in the ring: the compiler then
            // knows `next` is in it too, and checks no bound when reading it.)
            let next = if i + 1 >= self.departs.len() {
                0
            } else {
                i + 1
            };
            self.oldest = next;
            if depart >= self.latest {
                self.latest = depart;
                self.earliest = self.departs[next];
            } else {
                self.sort_latest(i);
            }
        }
    }

    /// Moves the entry just taken at `i`, earlier than the one before it, back to its
    /// place in departure order (departures seldom come out of order).
    #[cold]
    #[inline(never)]
    fn sort_latest(&mut self, mut i: usize) {
        let cap = self.departs.len();
        while i != self.oldest {
            let before = if i == 0 { cap - 1 } else { i - 1 };
            if self.departs[before] <= self.departs[i] {
                break;
            }
            self.departs.swap(before, i);
            i = before;
        }
        self.earliest = self.departs[self.oldest];
        let newest = if self.oldest == 0 {
            cap - 1
        } else {
            self.oldest - 1
        };
        self.latest = self.departs[newest];
    }
}

/// Per sub-partition and pipe: when the pipe takes its next warp-instruction, and
/// when its queue (MIO, LSU, tensor) has room.
struct PipeBook {
    /// (One record per pipe: an issue's booking and a classification's question find
    /// their three numbers from one address.)
    slots: [[PipeSlot; NPIPES]; 4],
    /// Per sub-partition: the first cycle its dispatch is free again after a
    /// register-bank conflict (the conflicting operands are read one after another, and
    /// the measured rate with 32 warps shows that no other warp issues meanwhile).
    /// (Beside the pipes: a classification asks both.)
    dispatch_free: [u64; 4],
}

#[derive(Clone, Copy, Default)]
struct PipeSlot {
    /// The later of the two below: a warp whose instruction goes to the pipe cannot
    /// issue before it. Kept as the two change (an issue, a queue's entry) so that a
    /// classification, far more frequent, asks one question and not whether the pipe
    /// has a queue.
    ready: u64,
    /// After an issue, the issue interval later.
    free: u64,
    /// The queue's earliest departure (`Queue::earliest`; 0 for a pipe without a
    /// queue): the queue is full while it is to come.
    queue_earliest: u64,
}

impl PipeBook {
    /// The pipe takes its next warp-instruction at `t`.
    #[inline(always)]
    fn book(&mut self, sp: usize, p: usize, t: u64) {
        let slot = &mut self.slots[sp][p];
        slot.free = t;
        slot.ready = t.max(slot.queue_earliest);
    }

    /// The pipe's queue's earliest departure is now `earliest`.
    #[inline(always)]
    fn queue_moved(&mut self, sp: usize, p: usize, earliest: u64) {
        let slot = &mut self.slots[sp][p];
        slot.queue_earliest = earliest;
        slot.ready = earliest.max(slot.free);
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy, Debug)]
enum Ev {
    /// TMA bytes land in shared memory and count against an mbarrier's transactions.
    TxComplete {
        cta: u32,
        mbar: u32,
        bytes: u32,
    },
    /// An arrival made by an async unit (tcgen05 commit).
    Arrive {
        cta: u32,
        mbar: u32,
    },
    LaunchCta {
        slot: u32,
    },
}

struct Engine<'a, S: Sink> {
    kernel: &'a Kernel,
    profile: &'a Profile,
    t: &'a Timing,
    prog: &'a Program,
    cfg: &'a RunConfig,
    policy: Scheduler,
    sink: &'a mut S,
    now: u64,
    warps: Vec<Warp<'a>>,
    /// When each warp must next be looked at, by warp slot (slot `s` is position `s / 4`
    /// of sub-partition `s % 4`: `until_index`, the wheel's layout too); every position
    /// of every sub-partition has its entry (`NEVER` where no warp is).
    until: Box<[u64; UNTIL_LEN]>,
    /// CTAs the whole chip runs at once (one wave).
    wave_ctas: u32,
    /// Which warps are due when: where a cycle looks (`until` says whether they are).
    due: DueWheel,
    /// Per sub-partition, every position it has (without fast-forward every warp is
    /// looked at every cycle).
    all_positions: [u64; 4],
    ctas: Vec<Cta>,
    /// Per warp slot, set at the warp's launch: what its loads and stores read of the
    /// warp and its CTA (`WarpTerms`).
    warp_terms: Vec<WarpTerms>,
    warps_per_cta: u32,
    pipes: PipeBook,
    intervals: [u64; NPIPES],
    mio_q: [Queue; 4],
    lsu_q: [Queue; 4],
    tensor_q: [Queue; 4],
    tensor_free: [u64; 4],
    tensor_busy: [u64; 4],
    smem_free: f64,
    l1_free: f64,
    /// What one line takes of L1's rate: `1 / l1_lines_per_clk`.
    l1_line_time: f64,
    /// `l1_line_time` as a cycle count when it is a whole number of cycles (as with one
    /// line per clock).
    l1_line_whole: Option<u64>,
    /// `l1_line_cap` and `l2_line_cap` as counts, converted once (a saturating float
    /// conversion is a score of host instructions, which every load paid).
    line_caps: (usize, usize),
    tma_free: f64,
    tma_busy: f64,
    mem: Memory,
    events: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    /// The cycle of the earliest pending event (`NEVER`: none), kept beside the heap so
    /// that a cycle asks a number, not the heap.
    next_event: u64,
    event_seq: u64,
    /// This cycle's eligible warps of one sub-partition (at most its positions).
    cands: [Candidate; due::MAX_POSITIONS],
    /// How many eligible warps the policy's `pick_lone` takes for `pick` and `issued`:
    /// one if it provides it, else none (a count no cycle with eligible warps has). (A
    /// field, not a local of `run`: the cycle loop has no register to spare for it.)
    lone_cands: usize,
    /// The last cycle the run may visit: the watchdog's bound (below `NEVER`), or 0 once
    /// every CTA is done, so that one comparison per cycle finds the end, a deadlock and
    /// the watchdog (`stop` tells which). (A field, as `lone_cands` is.)
    stop_after: u64,
    /// The last cycle at which a warp was due or an event came (fast-forward's stale
    /// visits aside: where a deadlock is reported).
    last_due_cycle: u64,
    addrs: [u64; 32],
    lines: Vec<(u64, u32)>,
    next_cta: u32,
    /// CTAs launched or about to be (a launch waits `cta_launch_cycles`): several CTAs
    /// that finish within that wait must not start more CTAs than remain.
    ctas_claimed: u32,
    ctas_total: u32,
    ctas_done: u32,
    /// Per instruction of every role (roles one after another, each from its
    /// `pc_base`): state cycles, issues, and what stalls waited on.
    pcs: Vec<PcTotals>,
    /// Where each role begins in the per-instruction totals.
    role_pc_base: Vec<u32>,
    buffer_base: Vec<u64>,
    buffer_size: Vec<u64>,
    mem_requests: [u64; 5],
    warp_summaries: Vec<WarpSummary>,
    age_counter: u64,
}

/// A warp's code before its first launch.
static NO_CODE: Vec<Node> = Vec::new();

/// `Engine::until`'s length: every position of every sub-partition, whatever the
/// kernel, so that an index the compiler can bound needs no check.
const UNTIL_LEN: usize = 4 * due::MAX_POSITIONS;

/// The fixed-latency classes in `FixedClass` order, as `Program::resolve_results`
/// takes their latencies.
const FIXED_CLASSES: [FixedClass; 4] = [
    FixedClass::Fma,
    FixedClass::Alu,
    FixedClass::Imad,
    FixedClass::Fp64,
];

/// `x` as a whole number of cycles, if it is one (and small enough that adding it to
/// any cycle count is exact in f64).
fn whole_cycles(x: f64) -> Option<u64> {
    (x >= 0.0 && x < (1u64 << 32) as f64 && x.fract() == 0.0).then_some(x as u64)
}

fn fault(msg: impl Into<String>) -> SimError {
    SimError::Fault(msg.into())
}

/// What every short issue (no events, nothing that blocks) does first: the issue charged
/// as one `selected` cycle (`charge_issue`'s work) and its pipe and dispatch booked. A
/// function of the engine's fields it needs, so that a caller holding the warp need not
/// look it up again.
#[inline(always)]
fn start_quiet_issue(
    w: &mut Warp,
    pcs: &mut [PcTotals],
    pipes: &mut PipeBook,
    intervals: &[u64; NPIPES],
    d: &DInstr,
    now: u64,
) {
    let next = now + 1;
    debug_assert!(w.block == Block::None);
    let pc = w.pc;
    let span = now - w.state_since;
    if span != 0 {
        close_into(w, &mut pcs[(w.pc_base + w.state_pc) as usize], span);
    }
    w.state = WarpState::Selected;
    w.cause = Cause::OWN;
    w.state_pc = pc;
    let selected = WarpState::Selected.index();
    w.stats[selected] += 1;
    pcs[(w.pc_base + pc) as usize].states[selected] += 1;
    w.state_since = next;
    w.issued_before = w.last_issue;
    w.last_issue = now;
    let sp = w.sp as usize & 3;
    let p = d.pipe.index();
    pipes.book(sp, p, now + intervals[p]);
    if d.bank_conflict_cycles > 0 {
        pipes.dispatch_free[sp] = next + d.bank_conflict_cycles as u64;
    }
}

/// Of `busy` cycles a unit was booked for, the last of them ending at `free`, those
/// before the run's `end`.
fn booked_within(busy: u64, free: u64, end: u64) -> u64 {
    busy - free.saturating_sub(end).min(busy)
}

/// A warp's state span of `span` cycles (not 0) added to its totals and to `at`, the
/// totals of the instruction it is charged to.
#[inline(always)]
fn close_into(w: &mut Warp, at: &mut PcTotals, span: u64) {
    w.stats[w.state.index()] += span;
    at.states[w.state.index()] += span;
    if w.cause != Cause::OWN {
        // Most instructions' stalls wait on one thing: the first entry.
        let c = &mut at.first_cause;
        if c.1 == w.cause && c.0 == w.state {
            c.2 += span;
        } else {
            at.add_cause(w.state, w.cause, span);
        }
    }
}

impl<'a, S: Sink> Engine<'a, S> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        kernel: &'a Kernel,
        profile: &'a Profile,
        prog: &'a Program,
        cfg: &'a RunConfig,
        policy: Scheduler,
        sink: &'a mut S,
        resident: u32,
        ctas_total: u32,
        busy_sms: u32,
        l1_bytes: u64,
    ) -> Self {
        let t = &profile.t;
        let wpc = kernel.warps();
        let mut warps = Vec::new();
        for c in 0..resident {
            for w in 0..wpc {
                let slot = c * wpc + w;
                // Warps of resident CTAs interleave over the sub-partitions: slot s
                // is the (s / 4)-th warp of sub-partition s % 4.
                let sp = (slot % 4) as u8;
                warps.push(Warp {
                    live: false,
                    exited: false,
                    cta: c,
                    warp: w,
                    role: 0,
                    sp,
                    age: 0,
                    pc: 0,
                    cur: None,
                    code: &NO_CODE,
                    pc_base: 0,
                    vars: [0; MAX_LOOP_DEPTH],
                    ends: [0; MAX_LOOP_DEPTH],
                    regs: Box::new([RegState::EMPTY; REG_ARRAY]),
                    operands_clear_from: u64::MAX,
                    block: Block::None,
                    block_pc: 0,
                    state: WarpState::Selected,
                    cause: Cause::OWN,
                    state_since: 0,
                    state_pc: 0,
                    wgmma: WaitGroups::default(),
                    hgmma_issued: 0,
                    cp_async: WaitGroups::default(),
                    bulk_store: WaitGroups::default(),
                    utc_done: 0,
                    outstanding: 0,
                    last_issue: 0,
                    issued_before: 0,
                    stall_until: 0,
                    stats: [0; STATE_COUNT],
                    started: 0,
                    finished: 0,
                });
            }
        }
        let ctas = (0..resident)
            .map(|_| Cta {
                id: 0,
                grid_id: 0,
                wave_first: 0,
                wave_len: 0,
                live: false,
                warps_left: 0,
                mbars: vec![
                    Mbar {
                        count: 0,
                        pending: 0,
                        tx: 0,
                        phase: 0,
                        settled: 0,
                    };
                    prog.mbar_total as usize
                ],
                bars: [NamedBar::default(); 16],
                wg_arrived: [0; 8],
                wg_mma: [[MmaBooking::default(); MMA_BOOKINGS]; 8],
            })
            .collect();
        let mut intervals = [1u64; NPIPES];
        intervals[Pipe::Fma.index()] = t.fma_issue_interval as u64;
        intervals[Pipe::Alu.index()] = t.alu_issue_interval as u64;
        intervals[Pipe::Fp64.index()] = t.fp64_issue_interval as u64;
        intervals[Pipe::Mufu.index()] = t.mufu_issue_interval as u64;
        intervals[Pipe::Branch.index()] = t.branch_issue_interval as u64;
        intervals[Pipe::Sync.index()] = t.sync_issue_interval as u64;
        // Async and memory pipes are limited by their queues and units, not an interval.
        intervals[Pipe::Mio.index()] = 1;
        intervals[Pipe::Lsu.index()] = 1;
        intervals[Pipe::Tensor.index()] = 1;
        intervals[Pipe::Tma.index()] = 1;
        let buffer_base = lower::buffer_bases(kernel);
        let buffer_size = kernel.buffers.iter().map(|b| b.size).collect();
        let mut role_pc_base = Vec::new();
        let mut pcs = 0;
        for r in &prog.roles {
            role_pc_base.push(pcs as u32);
            pcs += r.code.len();
        }
        let q = |d: f64| -> [Queue; 4] { std::array::from_fn(|_| Queue::new(d as usize)) };
        Engine {
            kernel,
            profile,
            t,
            prog,
            cfg,
            policy,
            sink,
            now: 0,
            until: Box::new([NEVER; UNTIL_LEN]),
            wave_ctas: resident * t.sm_count as u32,
            due: DueWheel::default(),
            all_positions: std::array::from_fn(|sp| {
                let n = (warps.len() + 3 - sp) / 4;
                if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
            }),
            warp_terms: vec![WarpTerms::default(); warps.len()],
            warps,
            ctas,
            warps_per_cta: wpc,
            pipes: PipeBook {
                slots: [[PipeSlot::default(); NPIPES]; 4],
                dispatch_free: [0; 4],
            },
            intervals,
            mio_q: q(t.mio_queue_depth),
            lsu_q: q(t.lsu_queue_depth),
            tensor_q: q(t.tensor_queue_depth),
            tensor_free: [0; 4],
            tensor_busy: [0; 4],
            smem_free: 0.0,
            l1_free: 0.0,
            l1_line_time: 1.0 / t.l1_lines_per_clk,
            l1_line_whole: whole_cycles(1.0 / t.l1_lines_per_clk),
            line_caps: (t.l1_line_cap as usize, t.l2_line_cap as usize),
            tma_free: 0.0,
            tma_busy: 0.0,
            mem: Memory::new(t, l1_bytes, busy_sms, cfg.seed),
            events: BinaryHeap::new(),
            next_event: NEVER,
            event_seq: 0,
            cands: [Candidate {
                slot: 0,
                age: 0,
                last_issue: 0,
                position: 0,
            }; due::MAX_POSITIONS],
            lone_cands: 0,
            stop_after: 0,
            last_due_cycle: 0,
            addrs: [0; 32],
            lines: Vec::with_capacity(64),
            next_cta: 0,
            ctas_claimed: 0,
            ctas_total,
            ctas_done: 0,
            pcs: (0..pcs).map(|_| PcTotals::default()).collect(),
            role_pc_base,
            buffer_base,
            buffer_size,
            mem_requests: [0; 5],
            warp_summaries: Vec::new(),
            age_counter: 0,
        }
    }

    /// Where a warp's `until` is: its sub-partition's run, at its position there.
    #[inline(always)]
    fn until_index(&self, slot: u32) -> usize {
        slot as usize % UNTIL_LEN
    }

    /// Sets when a warp must next be looked at, and tells the wheel where to look.
    #[inline]
    fn set_until(&mut self, slot: u32, t: u64) {
        let i = self.until_index(slot);
        self.until[i] = t;
        self.due
            .insert(slot as usize & 3, slot as usize >> 2, t, self.now);
    }

    /// `set_until` for a cycle after this one (a warp classified or issued; those not
    /// selected are told the wheel together, in the cycle loop).
    #[inline(always)]
    fn set_until_ahead(&mut self, slot: u32, t: u64) {
        let i = self.until_index(slot);
        self.until[i] = t;
        self.due
            .insert_ahead(slot as usize & 3, slot as usize >> 2, t, self.now);
    }

    fn push_event(&mut self, at: u64, ev: Ev) {
        self.event_seq += 1;
        self.events.push(Reverse((at, self.event_seq, ev)));
        self.next_event = self.next_event.min(at);
    }

    fn wid(&self, slot: u32) -> WarpId {
        let w = &self.warps[slot as usize];
        WarpId {
            cta: self.ctas[w.cta as usize].id,
            warp: w.warp,
        }
    }

    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    fn launch_cta(&mut self, c: u32) -> Result<(), SimError> {
        let id = self.next_cta;
        self.next_cta += 1;
        let cta = &mut self.ctas[c as usize];
        cta.id = id;
        cta.grid_id = id * self.t.sm_count as u32;
        let wave = self.wave_ctas.max(1);
        cta.wave_first = cta.grid_id / wave * wave;
        cta.wave_len = wave.min(self.kernel.launch.grid.max(1) - cta.wave_first);
        cta.live = true;
        cta.warps_left = self.warps_per_cta;
        cta.bars = [NamedBar::default(); 16];
        cta.wg_arrived = [0; 8];
        cta.wg_mma = [[MmaBooking::default(); MMA_BOOKINGS]; 8];
        for (d, decl) in self.kernel.mbarriers.iter().enumerate() {
            let base = self.prog.mbar_base[d] as usize;
            for i in 0..decl.len as usize {
                cta.mbars[base + i] = Mbar {
                    count: decl.count,
                    pending: decl.count,
                    tx: 0,
                    phase: 0,
                    settled: 0,
                };
            }
        }
        if S::ENABLED {
            self.sink.event(Event::CtaLaunch {
                cycle: self.now,
                cta: id,
            });
        }
        for w in 0..self.warps_per_cta {
            let slot = c * self.warps_per_cta + w;
            let role = self
                .kernel
                .role_of(w)
                .ok_or_else(|| fault(format!("warp {w} has no role")))?;
            self.age_counter += 1;
            let now = self.now;
            let (grid_id, wave_len) = (
                self.ctas[c as usize].grid_id,
                self.ctas[c as usize].wave_len,
            );
            let terms = &mut self.warp_terms[slot as usize];
            terms.wave_len = wave_len;
            for (fixed, a) in terms
                .fixed
                .iter_mut()
                .zip(&self.prog.roles[role].warp_terms)
            {
                *fixed = a.warp_part(w, grid_id);
            }
            let warp = &mut self.warps[slot as usize];
            warp.live = true;
            warp.exited = false;
            warp.role = role as u16;
            warp.pc_base = self.role_pc_base[role];
            warp.cur = None;
            warp.code = &self.prog.roles[role].code;
            warp.age = self.age_counter;
            warp.pc = 0;
            warp.block = Block::None;
            warp.regs[..REG_SLOTS].fill(RegState::EMPTY);
            warp.operands_clear_from = u64::MAX;
            warp.state = WarpState::Selected;
            warp.cause = Cause::OWN;
            warp.state_since = now;
            warp.state_pc = 0;
            warp.wgmma.clear();
            warp.hgmma_issued = 0;
            warp.cp_async.clear();
            warp.bulk_store.clear();
            warp.utc_done = 0;
            warp.outstanding = 0;
            warp.last_issue = 0;
            warp.issued_before = 0;
            warp.stats = [0; STATE_COUNT];
            warp.started = now;
            self.set_until(slot, now);
            self.settle(slot)?;
            if S::ENABLED {
                // Open the warp's first span; its first classification may replace it
                // in this same cycle.
                let id = self.wid(slot);
                let w = &self.warps[slot as usize];
                let pc = self.event_pc(slot, w.pc);
                self.sink.event(Event::StateChange {
                    cycle: now,
                    warp: id,
                    state: w.state,
                    pc,
                    cause: None,
                });
            }
        }
        Ok(())
    }

    /// A node of the warp's role as events name it: the instruction's number in the
    /// reports (`RoleCode::node_text`), not the node's.
    fn event_pc(&self, slot: u32, node: u32) -> u32 {
        let role = self.warps[slot as usize].role as usize;
        self.prog.roles[role].node_text[node as usize]
    }

    fn env(&self, slot: u32, lane: i64) -> Env<'_> {
        let w = &self.warps[slot as usize];
        Env {
            vars: &w.vars,
            warp: w.warp as i64,
            lane,
            cta: self.ctas[w.cta as usize].grid_id as i64,
        }
    }

    fn eval(&self, slot: u32, e: &CExpr) -> Result<i64, SimError> {
        if let Some(v) = e.is_const() {
            return Ok(v);
        }
        e.eval(&self.env(slot, 0))
            .map_err(|f| self.fault_at(slot, &f.0))
    }

    fn fault_at(&self, slot: u32, msg: &str) -> SimError {
        let w = &self.warps[slot as usize];
        let role = &self.prog.roles[w.role as usize];
        let text = match &role.code[w.pc as usize] {
            Node::Instr(d) => role.texts[d.text as usize].clone(),
            _ => "(loop control)".to_string(),
        };
        fault(format!(
            "CTA {} warp {} (role {}) at `{}`, cycle {}: {msg}",
            self.ctas[w.cta as usize].id, w.warp, role.name, text, self.now
        ))
    }

    /// Steps over loop control (which costs no cycles) to the next instruction.
    fn settle(&mut self, slot: u32) -> Result<(), SimError> {
        let role = self.warps[slot as usize].role as usize;
        let code: &'a [Node] = &self.prog.roles[role].code;
        loop {
            let pc = self.warps[slot as usize].pc as usize;
            match &code[pc] {
                Node::Instr(d) => {
                    self.warps[slot as usize].cur = Some(d);
                    return Ok(());
                }
                Node::End => {
                    // Falling off the end of a role's body exits, as EXIT would.
                    let w = &mut self.warps[slot as usize];
                    w.cur = None;
                    if !w.exited {
                        w.exited = true;
                        if S::ENABLED {
                            let id = self.wid(slot);
                            self.sink.event(Event::WarpExit {
                                cycle: self.now,
                                warp: id,
                            });
                        }
                    }
                    return Ok(());
                }
                Node::LoopHead {
                    slot: s,
                    start,
                    end,
                    exit,
                } => {
                    let (a, b) = (self.eval(slot, start)?, self.eval(slot, end)?);
                    let w = &mut self.warps[slot as usize];
                    if a >= b {
                        w.pc = *exit;
                    } else {
                        w.vars[*s as usize] = a;
                        w.ends[*s as usize] = b;
                        w.pc += 1;
                    }
                }
                Node::LoopTail { slot: s, head } => {
                    self.warps[slot as usize].loop_tail(*s, *head);
                }
                Node::If { cond, exit } => {
                    let c = self.eval(slot, cond)?;
                    let w = &mut self.warps[slot as usize];
                    if c != 0 {
                        w.pc += 1;
                    } else {
                        w.pc = *exit;
                    }
                }
            }
        }
    }

    /// Closes the warp's current state span and opens a new one.
    fn set_state(&mut self, slot: u32, state: WarpState, cause: Cause) {
        self.set_state_at(slot, state, cause, self.now);
    }

    /// Closes the warp's current state span at cycle `now` (this cycle, or the next
    /// when an issue already knows the state the warp will be in then) and opens a new one.
    fn set_state_at(&mut self, slot: u32, state: WarpState, cause: Cause, now: u64) {
        let w = &mut self.warps[slot as usize];
        let pc = w.charged_pc();
        if w.state == state && w.state_pc == pc && w.cause == cause {
            return;
        }
        self.close_span(slot, now);
        self.open_span(slot, state, cause, pc, now);
    }

    /// Starts the warp's new state span at `now` (its last one closed).
    fn open_span(&mut self, slot: u32, state: WarpState, cause: Cause, pc: u32, now: u64) {
        let w = &mut self.warps[slot as usize];
        w.state = state;
        w.cause = cause;
        w.state_since = now;
        w.state_pc = pc;
        if S::ENABLED {
            let id = self.wid(slot);
            let pc = self.event_pc(slot, pc);
            self.sink.event(Event::StateChange {
                cycle: now,
                warp: id,
                state,
                pc,
                cause: None,
            });
        }
    }

    /// The warp issues at `now`: its open span ends and it enters `selected` (as
    /// `set_state` does, events included), and the issue cycle is charged at once (an
    /// issue lasts one cycle), so the `selected` span left open starts next cycle and
    /// whatever state follows closes it empty: one span closed per issue, not two. The
    /// `selected` cycles are then the issues, per warp and per instruction (no other
    /// count is kept).
    fn charge_issue(&mut self, slot: u32, now: u64) {
        let w = &self.warps[slot as usize];
        // A warp issues only when nothing blocks it: its state is charged to its pc.
        debug_assert!(w.block == Block::None);
        let pc = w.pc;
        if S::ENABLED {
            let unchanged =
                w.state == WarpState::Selected && w.state_pc == pc && w.cause == Cause::OWN;
            self.close_span(slot, now);
            if !unchanged {
                self.open_span(slot, WarpState::Selected, Cause::OWN, pc, now);
            }
        } else {
            // Without events an unchanged span needs no comparison: the same fields
            // are written again (and `state_since` below either way).
            self.close_span(slot, now);
            let w = &mut self.warps[slot as usize];
            w.state = WarpState::Selected;
            w.cause = Cause::OWN;
            w.state_pc = pc;
        }
        let w = &mut self.warps[slot as usize];
        let selected = WarpState::Selected.index();
        w.stats[selected] += 1;
        self.pcs[(w.pc_base + pc) as usize].states[selected] += 1;
        w.state_since = now + 1;
    }

    /// Adds the time from the warp's state's start to `now` to its totals.
    #[inline(always)]
    fn close_span(&mut self, slot: u32, now: u64) {
        let w = &mut self.warps[slot as usize];
        let span = now - w.state_since;
        if span == 0 {
            return;
        }
        close_into(w, &mut self.pcs[(w.pc_base + w.state_pc) as usize], span);
    }

    fn instr(&self, slot: u32) -> &'a DInstr {
        self.warps[slot as usize]
            .cur
            .expect("settle leaves live warps that have not exited on instructions")
    }

    /// The warp's state this cycle and the first cycle it might change; None: eligible.
    fn classify(&mut self, slot: u32) -> Option<(WarpState, u64, Cause)> {
        let now = self.now;
        let w = &mut self.warps[slot as usize];
        let d = match w.cur {
            // Nothing of the warp's own holds it (`operands_clear_from`): only the
            // sub-partition's pipe, queue and dispatch are left to look at.
            Some(d) if w.operands_clear_from <= now => {
                debug_assert!(w.block == Block::None && w.stall_until <= now);
                d
            }
            _ => {
                match w.block {
                    Block::None => {}
                    Block::Barrier { .. } => {
                        return Some((WarpState::Barrier, NEVER, Cause::OWN));
                    }
                    Block::Mbar { .. } => return Some((WarpState::Sleeping, NEVER, Cause::OWN)),
                    Block::WgArrive => return Some((WarpState::Gmma, NEVER, Cause::OWN)),
                    Block::Until { t, state } => {
                        if t > now {
                            return Some((state, t, Cause::OWN));
                        }
                        w.block = Block::None;
                    }
                }
                if w.stall_until > now {
                    return Some((WarpState::Wait, w.stall_until, Cause::OWN));
                }
                // An exited warp has no instruction: it drains.
                let Some(d) = w.cur else {
                    debug_assert!(w.exited);
                    return Some((WarpState::Drain, w.outstanding.max(now), Cause::OWN));
                };
                debug_assert!(!w.exited);
                // Not known yet (the warp has not issued), not yet ready, or not looked
                // at while something else held the warp: what is found holds until the
                // warp's next issue, so later visits need not look again.
                let wait = w.operands_wait(d, now);
                w.operands_clear_from = wait.map_or(now, |x| x.1);
                if let Some(blocked) = wait {
                    return Some(blocked);
                }
                d
            }
        };
        let sp = w.sp as usize & 3;
        let p = d.pipe.index();
        // The pipe busy or its queue full: one test for both (most looks find neither).
        if self.pipes.slots[sp][p].ready > now {
            return Some(self.pipe_hold(sp, d.pipe, now));
        }
        // The sub-partition's dispatch is still collecting the operands of an earlier
        // instruction whose sources met in one register bank: nobody issues.
        if self.pipes.dispatch_free[sp] > now {
            return Some((
                WarpState::DispatchStall,
                self.pipes.dispatch_free[sp],
                Cause::OWN,
            ));
        }
        None
    }

    /// An entry leaving at `depart` joins the queue of `pipe` (MIO, LSU or tensor) of
    /// sub-partition `sp`, and the pipe's readiness follows its queue.
    #[inline(always)]
    fn queue_push(&mut self, pipe: Pipe, sp: usize, now: u64, depart: u64) {
        let q = match pipe {
            Pipe::Mio => &mut self.mio_q[sp],
            Pipe::Lsu => &mut self.lsu_q[sp],
            Pipe::Tensor => &mut self.tensor_q[sp],
            _ => unreachable!("{pipe:?} has no queue"),
        };
        q.push(now, depart);
        let earliest = q.earliest;
        self.pipes.queue_moved(sp, pipe.index(), earliest);
    }

    /// What holds a warp whose pipe is busy or whose pipe's queue is full at `now`:
    /// the pipe first (`math_pipe_throttle`), then the queue (its throttle state).
    #[cold]
    #[inline(never)]
    fn pipe_hold(&self, sp: usize, pipe: Pipe, now: u64) -> (WarpState, u64, Cause) {
        let p = pipe.index();
        if self.pipes.slots[sp][p].free > now {
            return (
                WarpState::MathPipeThrottle,
                self.pipes.slots[sp][p].free,
                Cause::pipe(pipe),
            );
        }
        let t = self.pipes.slots[sp][p].queue_earliest;
        let state = match pipe {
            Pipe::Mio => WarpState::MioThrottle,
            Pipe::Lsu => WarpState::LgThrottle,
            _ => WarpState::MathPipeThrottle,
        };
        (state, t, Cause::pipe(pipe))
    }

    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    fn retire(&mut self, slot: u32) {
        let now = self.now;
        // Close the last span (drain) before the warp leaves.
        self.close_span(slot, now);
        let w = &mut self.warps[slot as usize];
        w.state_since = now;
        w.live = false;
        w.finished = now;
        let i = self.until_index(slot);
        self.until[i] = NEVER;
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::WarpFinish {
                cycle: now,
                warp: id,
            });
        }
        let w = &self.warps[slot as usize];
        self.warp_summaries.push(WarpSummary {
            cta: self.ctas[w.cta as usize].id,
            warp: w.warp,
            role: self.prog.roles[w.role as usize].name.clone(),
            subpartition: w.sp,
            started: w.started,
            finished: now,
            instructions: w.stats[WarpState::Selected.index()],
            states: StateCounts::from_array(&w.stats),
        });
        let c = w.cta as usize;
        self.ctas[c].warps_left -= 1;
        if self.ctas[c].warps_left == 0 {
            self.ctas[c].live = false;
            self.ctas_done += 1;
            if self.ctas_done == self.ctas_total {
                // The run ends with this cycle.
                self.stop_after = 0;
            }
            if S::ENABLED {
                self.sink.event(Event::CtaDone {
                    cycle: now,
                    cta: self.ctas[c].id,
                });
            }
            if self.ctas_claimed < self.ctas_total {
                self.ctas_claimed += 1;
                let at = now + self.t.cta_launch_cycles as u64;
                self.push_event(at, Ev::LaunchCta { slot: c as u32 });
            }
        }
    }

    /// The cycle loop, to the end of the run: Ok(true) when the sink stopped it.
    fn run(&mut self) -> Result<bool, SimError> {
        let initial = (self.ctas.len() as u32).min(self.ctas_total);
        for c in 0..initial {
            self.launch_cta(c)?;
        }
        self.ctas_claimed = initial;
        let ff = self.cfg.fast_forward;
        let tell_policy = self.policy.as_dyn().wants_issued();
        let policy_reads_history = self.policy.as_dyn().reads_history();
        self.lone_cands = usize::from(self.policy.as_dyn().picks_lone());
        self.stop_after = self.cfg.max_cycles.min(NEVER - 1);
        // (Later the last CTA's retire lowers `stop_after`, which the end of its cycle
        // finds: nothing between there and the next cycle retires a warp.)
        if self.ctas_done == self.ctas_total {
            return Ok(false);
        }
        self.last_due_cycle = self.now;
        loop {
            if self.next_event <= self.now {
                self.last_due_cycle = self.now;
                self.apply_events()?;
            }
            let now = self.now;
            if ff {
                self.due.admit_far(now, &self.until[..]);
            }
            // The warps that may be due, per sub-partition: the wheel's (a bit whose
            // warp has since been told another cycle is stale, and skipped below), or
            // without fast-forward every warp. In position order.
            let taken = if ff {
                self.due.take_all(now)
            } else {
                self.all_positions
            };
            debug_assert!(!ff || self.taken_has_every_due_warp(&taken));
            // The sub-partitions with warps to look at, as bits, looped over: which of
            // them has a warp due is data (a latency-bound kernel's visits usually find
            // one), and a test per sub-partition missed the host's branch prediction
            // about twice per visit (on the device host: load chain 0.94 of the time,
            // issue-bound loop 1.05, where all four always have warps).
            let mut busy_sps = u32::from(taken[0] != 0)
                | u32::from(taken[1] != 0) << 1
                | u32::from(taken[2] != 0) << 2
                | u32::from(taken[3] != 0) << 3;
            while busy_sps != 0 {
                let sp = busy_sps.trailing_zeros() as usize;
                busy_sps &= busy_sps - 1;
                let mut due_mask = taken[sp & 3];
                let mut n_cands = 0;
                // Looking at a warp changes no other warp's `until`.
                while due_mask != 0 {
                    let i = due_mask.trailing_zeros() as usize;
                    due_mask &= due_mask - 1;
                    let slot = (4 * i + sp) as u32;
                    let s = slot as usize;
                    if ff {
                        // A warp not live is due `NEVER` (from the start, and once
                        // retired: nothing wakes a warp that has exited).
                        if self.until[s % UNTIL_LEN] > now {
                            continue;
                        }
                        self.last_due_cycle = now;
                        debug_assert!(self.warps[s].live);
                    } else if !self.warps[s].live {
                        continue;
                    }
                    match self.classify(slot) {
                        Some((WarpState::Drain, t, _)) if t <= now => self.retire(slot),
                        Some((state, t, cause)) => {
                            self.set_state(slot, state, cause);
                            // (Whatever holds a warp, it is after this cycle.)
                            self.set_until_ahead(slot, t);
                        }
                        None => {
                            let c = &mut self.cands[n_cands % due::MAX_POSITIONS];
                            c.slot = slot;
                            c.position = i as u32;
                            // (Else they stay 0, as the engine made them.)
                            if policy_reads_history {
                                let w = &self.warps[s];
                                c.age = w.age;
                                c.last_issue = w.last_issue;
                            }
                            n_cands += 1;
                        }
                    }
                }
                if n_cands == 0 {
                    continue;
                }
                // `others`: how many candidates to look over for those not selected (none
                // when the only one is chosen).
                let (chosen, others) = if n_cands == self.lone_cands {
                    self.policy.pick_lone(sp, now, &self.cands[0]);
                    (self.cands[0].slot, 0)
                } else {
                    let cands = &self.cands[..n_cands];
                    let pick = self.policy.as_dyn().pick(sp, now, cands);
                    let chosen = cands[pick.min(n_cands - 1)].slot;
                    if tell_policy {
                        self.policy.as_dyn().issued(sp, chosen);
                    }
                    (chosen, n_cands)
                };
                // Those not selected are looked at again next cycle: told the wheel at once.
                let mut not_selected = 0u64;
                for i in 0..others {
                    let Candidate { slot, position, .. } = self.cands[i];
                    if slot != chosen {
                        self.set_state(slot, WarpState::NotSelected, Cause::OWN);
                        self.until[slot as usize % UNTIL_LEN] = self.now + 1;
                        not_selected |= 1 << (position % 64);
                    }
                }
                if not_selected != 0 {
                    self.due.insert_next(sp, not_selected, self.now);
                }
                self.issue(chosen)?;
            }
            let next = if ff {
                let n = self.due.next_due(now, &self.until[..]);
                n.min(self.next_event).max(self.now + 1)
            } else {
                self.now + 1
            };
            // (`NEVER`, a deadlock, is beyond any bound: one comparison for all three.)
            if next > self.stop_after || (!ff && self.stuck()) {
                return self.stop(next).map(|()| false);
            }
            // (A constant test: without a sink that polls, nothing.)
            if S::POLLS && next / POLL_CYCLES != now / POLL_CYCLES && !self.sink.keep_going() {
                // The run ends after this cycle: every span so far closes at its end.
                self.now = now + 1;
                return Ok(true);
            }
            self.now = next;
        }
    }

    /// Why the run stops before `next`, the cycle it would visit next: every CTA is done,
    /// else a deadlock (no cycle comes, or without fast-forward every live warp is
    /// stuck), else the watchdog.
    // Rare: kept out of the cycle loop's code.
    #[inline(never)]
    fn stop(&mut self, next: u64) -> Result<(), SimError> {
        if self.ctas_done == self.ctas_total {
            return Ok(());
        }
        let ff = self.cfg.fast_forward;
        // Fast-forward may have come to `next` through a slot whose bits were all stale
        // (`DueWheel::next_due`): whether any cycle comes is the exact next's, and a
        // deadlock is reported at the last cycle a warp was due or an event came, where
        // the exact search would have stopped.
        let next = if ff && next != NEVER {
            let exact = self.due.next_due_exact(self.now, &self.until[..]);
            exact.min(self.next_event)
        } else {
            next
        };
        if next == NEVER || (!ff && self.stuck()) {
            if ff {
                self.now = self.last_due_cycle;
            } else if self.issued_at(self.now) {
                // A warp that issued this cycle is looked at again next cycle (where it
                // finds itself blocked) under fast-forward, which reports the deadlock
                // there: the same cycle either way.
                self.now += 1;
            }
            return Err(SimError::Deadlock(
                self.report("deadlock: no warp can make progress"),
            ));
        }
        self.now = self.cfg.max_cycles;
        Err(SimError::Watchdog(self.report(&format!(
            "watchdog: the run passed {} cycles (raise it with --max-cycles)",
            self.cfg.max_cycles
        ))))
    }

    /// Whether any warp issued at cycle `t`.
    fn issued_at(&self, t: u64) -> bool {
        let selected = WarpState::Selected.index();
        self.warps
            .iter()
            .any(|w| w.stats[selected] > 0 && w.last_issue == t)
    }

    /// Whether the positions taken from the wheel at this cycle's start include every
    /// live warp due by now (what `DueWheel::take_all` relies on).
    fn taken_has_every_due_warp(&self, taken: &[u64; 4]) -> bool {
        (0..self.warps.len()).all(|s| {
            let i = self.until_index(s as u32);
            !self.warps[s].live || self.until[i] > self.now || taken[s & 3] >> (s >> 2) & 1 != 0
        })
    }

    /// Without fast-forward the loop does not see `NEVER`; a run is stuck when every
    /// live warp waits on something only another warp or an event could end.
    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    fn stuck(&self) -> bool {
        self.events.is_empty()
            && self.warps.iter().all(|w| {
                !w.live
                    || matches!(
                        w.block,
                        Block::Barrier { .. } | Block::Mbar { .. } | Block::WgArrive
                    )
            })
    }

    // Rare next to the issue loop it is called from: kept out of its code.
    #[inline(never)]
    fn apply_events(&mut self) -> Result<(), SimError> {
        while let Some(Reverse((t, _, _))) = self.events.peek() {
            if *t > self.now {
                break;
            }
            let Some(Reverse((_, _, ev))) = self.events.pop() else {
                break;
            };
            match ev {
                Ev::TxComplete { cta, mbar, bytes } => {
                    self.ctas[cta as usize].mbars[mbar as usize].tx -= bytes as i64;
                    self.check_phase(cta, mbar, self.t.lat_mbarrier_tx_wake);
                }
                Ev::Arrive { cta, mbar } => {
                    let m = &mut self.ctas[cta as usize].mbars[mbar as usize];
                    m.pending = m.pending.saturating_sub(1);
                    self.check_phase(cta, mbar, self.t.lat_mbarrier_wake);
                }
                Ev::LaunchCta { slot } => self.launch_cta(slot)?,
            }
        }
        self.next_event = self.events.peek().map_or(NEVER, |Reverse((t, _, _))| *t);
        Ok(())
    }

    /// Completes the mbarrier's phase if nothing is pending; its waiters wake `wake`
    /// cycles later (a phase the copy engine completes wakes them sooner than an arrive
    /// from another warp).
    fn check_phase(&mut self, cta: u32, mbar: u32, wake: f64) {
        let m = &mut self.ctas[cta as usize].mbars[mbar as usize];
        if m.pending != 0 || m.tx != 0 {
            return;
        }
        let completed_parity = (m.phase & 1) as u32;
        m.phase += 1;
        m.pending = m.count;
        let phase = m.phase;
        if S::ENABLED {
            let id = self.ctas[cta as usize].id;
            self.sink.event(Event::MbarrierPhase {
                cycle: self.now,
                cta: id,
                mbarrier: mbar,
                phase,
            });
        }
        let wake = self.now + wake as u64;
        let per = self.warps_per_cta;
        for s in cta * per..(cta + 1) * per {
            let w = &mut self.warps[s as usize];
            if w.live
                && w.block
                    == (Block::Mbar {
                        idx: mbar,
                        parity: completed_parity,
                    })
            {
                w.block = Block::Until {
                    t: wake,
                    state: WarpState::Sleeping,
                };
                self.set_until(s, self.now);
            }
        }
    }

    fn mbar_index(&self, slot: u32, d: &DInstr) -> Result<u32, SimError> {
        let (base, len, idx) = d
            .mbar
            .as_ref()
            .ok_or_else(|| self.fault_at(slot, "no mbarrier operand"))?;
        let i = self.eval(slot, idx)?;
        if i < 0 || i >= *len as i64 {
            return Err(self.fault_at(slot, &format!("mbarrier index {i} is outside 0..{len}")));
        }
        Ok(base + i as u32)
    }

    /// Evaluates a memory operand's address for all 32 lanes into `self.addrs`; returns
    /// whether the address is warp-uniform (evaluated once, and then only lane 0 is
    /// written unless `all_lanes`).
    fn lane_addrs(
        &mut self,
        slot: u32,
        m: &lower::MemOperand,
        width: u32,
        all_lanes: bool,
    ) -> Result<bool, SimError> {
        let w = &self.warps[slot as usize];
        let mut env = Env {
            vars: &w.vars,
            warp: w.warp as i64,
            lane: 0,
            cta: self.ctas[w.cta as usize].grid_id as i64,
        };
        // A warp-uniform address is evaluated once.
        if m.uniform {
            let a = self.lane_addr(slot, m, width, &env)?;
            if all_lanes {
                self.addrs.fill(a);
            } else {
                self.addrs[0] = a;
            }
            return Ok(true);
        }
        if let Some(step) = m.addr.lane_step()
            && m.space != Space::Local
        {
            // Lane l's address is lane 0's plus l steps: with lanes 0 and 31 in bounds,
            // so is every lane between (else the loop below names the first lane out).
            let first = self.lane_addr(slot, m, width, &env)?;
            env.lane = 31;
            if self.lane_addr(slot, m, width, &env).is_ok() {
                for (lane, a) in self.addrs.iter_mut().enumerate() {
                    *a = first.wrapping_add_signed(step.wrapping_mul(lane as i64));
                }
                return Ok(false);
            }
        }
        for lane in 0..32 {
            env.lane = lane;
            self.addrs[lane as usize] = self.lane_addr(slot, m, width, &env)?;
        }
        Ok(false)
    }

    /// The address lane `env.lane` of the warp in `slot` accesses, or why it cannot.
    #[inline(always)]
    fn lane_addr(
        &self,
        slot: u32,
        m: &lower::MemOperand,
        width: u32,
        env: &Env,
    ) -> Result<u64, SimError> {
        let lane = env.lane;
        // Most addresses are affine, which cannot fault: no `Result` to carry.
        let off = match &m.addr {
            CExpr::Code {
                affine: Some(a), ..
            } => a.value(env),
            e => e.eval(env).map_err(|f| self.fault_at(slot, &f.0))?,
        };
        Ok(match m.space {
            Space::Global => self.global_address(slot, m, width, lane, off)?,
            _ if off < 0 => return Err(self.negative_address(slot, lane, off)),
            Space::Shared => m.base + off as u64,
            // Local memory interleaves threads word by word, so a warp's access to the
            // same local offset is one coalesced line.
            Space::Local => {
                if off >= MAX_LOCAL_BYTES {
                    return Err(self.fault_at(
                        slot,
                        &format!("lane {lane} addresses local byte {off}, beyond a thread's {MAX_LOCAL_BYTES} bytes (512 KiB) of local memory"),
                    ));
                }
                let w = &self.warps[slot as usize];
                let gwarp = (w.cta as u64) * self.warps_per_cta as u64 + w.warp as u64;
                let off = off as u64;
                let word = lane as u64 * 4 + (off % 4);
                // A warp's first 32 KiB per thread (what spills use) is a 1 MiB region
                // of its own; anything beyond, up to the 512 KiB, one of 16 MiB in a
                // second range (in one region of 1 MiB, a thread's bytes past 32 KiB
                // were the next warp's).
                if off < LOCAL_NEAR_BYTES {
                    (1u64 << 44) + gwarp * (1 << 20) + (off / 4) * 128 + word
                } else {
                    let off = off - LOCAL_NEAR_BYTES;
                    (1u64 << 45) + gwarp * (1 << 24) + (off / 4) * 128 + word
                }
            }
            Space::Tmem => off as u64,
        })
    }

    fn negative_address(&self, slot: u32, lane: i64, off: i64) -> SimError {
        self.fault_at(
            slot,
            &format!("lane {lane} computes a negative address {off}"),
        )
    }

    /// Where lane `lane`'s offset `off` into a global buffer lies, or why it cannot.
    #[inline(always)]
    fn global_address(
        &self,
        slot: u32,
        m: &lower::MemOperand,
        width: u32,
        lane: i64,
        off: i64,
    ) -> Result<u64, SimError> {
        let b = m.base as usize;
        if off < 0 {
            return Err(self.negative_address(slot, lane, off));
        }
        let off = off as u64;
        if !m.ends_in_buffer && off + width as u64 > self.buffer_size[b] {
            return Err(self.fault_at(
                slot,
                &format!(
                    "lane {lane} reads byte {off} of buffer `{}`, which has {} bytes",
                    self.kernel.buffers[b].name, self.buffer_size[b]
                ),
            ));
        }
        Ok(m.buffer_at + off)
    }

    /// How many CTAs of this CTA's wave (running at once across the chip) request the
    /// same first line as this warp does at this point of the program. Addresses that
    /// do not depend on `cta` are shared by the whole wave; per-lane addresses that do
    /// are taken as private (evaluating them for every CTA would cost too much).
    #[inline(always)]
    fn sharers(&self, slot: u32, m: &lower::MemOperand, line: u64) -> u32 {
        let w = &self.warps[slot as usize];
        let wave_len = self.ctas[w.cta as usize].wave_len;
        self.sharers_in_wave(slot, m, line, wave_len)
    }

    /// `sharers`, given the length of the warp's CTA's wave.
    #[inline(always)]
    fn sharers_in_wave(&self, slot: u32, m: &lower::MemOperand, line: u64, wave_len: u32) -> u32 {
        if !m.per_cta {
            return wave_len;
        }
        if m.addr.uses_lane() {
            return 1;
        }
        self.sharers_by_cta(slot, m, line)
    }

    /// `sharers` for a warp-uniform address that depends on `cta`: evaluated for each
    /// CTA of the wave.
    #[inline(never)]
    fn sharers_by_cta(&self, slot: u32, m: &lower::MemOperand, line: u64) -> u32 {
        let w = &self.warps[slot as usize];
        let cta = &self.ctas[w.cta as usize];
        let (first, in_wave) = (cta.wave_first, cta.wave_len);
        let base = self.buffer_base[m.base as usize];
        let mut env = Env {
            vars: &w.vars,
            warp: w.warp as i64,
            lane: 0,
            cta: 0,
        };
        let mut n = 0;
        for c in first..first + in_wave {
            env.cta = c as i64;
            if let Ok(off) = m.addr.eval(&env)
                && off >= 0
                && (base + off as u64) / LINE == line
            {
                n += 1;
            }
        }
        n.max(1)
    }

    /// A shared unit busy from `start` to `end` (its rate's fractional cycles: the
    /// whole cycles they touch) for the warp in `slot`.
    #[inline(always)]
    fn emit_busy(&mut self, slot: u32, unit: Unit, start: f64, end: f64) {
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::UnitBusy {
                start: start as u64,
                end: memory::ceil(end),
                unit,
                warp: id,
            });
        }
    }

    fn emit_mem(&mut self, slot: u32, level: MemLevel, bytes: u32, done: u64, write: bool) {
        self.mem_requests[memory::level_index(level)] += 1;
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::Memory {
                cycle: self.now,
                done,
                warp: id,
                level,
                bytes,
                write,
            });
        }
    }

    /// Global or local access through the L1TEX queue; returns when all lines complete.
    /// (Inlined, for the common case's sake: a warp-uniform read of one line.)
    #[inline(always)]
    fn global_access(
        &mut self,
        slot: u32,
        d: &DInstr,
        m: usize,
        write: bool,
        through_l1: bool,
    ) -> Result<u64, SimError> {
        let mo = &d.mem[m];
        if mo.uniform {
            // A warp-uniform address (a broadcast, most loads; global, as local memory
            // is not uniform): one lane's lines, no comparing, evaluated here from the
            // warp's own fields rather than through `lane_addrs`. The warp's and its
            // CTA's entries are looked up once, for the address and the request.
            let (off, sp, wave_len) = self.lane0_offset(slot, mo)?;
            let a = self.global_address(slot, mo, d.width, 0, off)?;
            if mo.one_sector && !write && through_l1 {
                // Its bytes in one sector (lowering proved it): the line's one sector.
                debug_assert_eq!(a / SECTOR, (a + d.width.max(1) as u64 - 1) / SECTOR);
                return Ok(self.read_one_line(slot, mo, a / LINE, 1, sp, wave_len));
            }
            let width = d.width.max(1) as u64;
            let (first, last) = (a / SECTOR, (a + width - 1) / SECTOR);
            if !write && through_l1 && first / SECTORS_PER_LINE == last / SECTORS_PER_LINE {
                // One line read through L1: the general path for a request of one
                // line, without its line list.
                let sectors = (last - first + 1) as u32;
                let line = first / SECTORS_PER_LINE;
                return Ok(self.read_one_line(slot, mo, line, sectors, sp, wave_len));
            }
            self.lines.clear();
            memory::lines_of(a, width, &mut self.lines);
        } else if let Some(step) = mo.addr.lane_step()
            && mo.space == Space::Global
            && (0..=d.width.max(1) as i64).contains(&step)
        {
            // Lanes a step apart that leave no gap (most coalesced loads: `lane * 4`
            // with 4-byte lanes): together one contiguous run from lane 0's address to
            // lane 31's end, whose lines and sectors are what coalescing the 32 lanes'
            // addresses finds. Lanes 0 and 31 in bounds put every lane between in
            // bounds; otherwise the lane-by-lane path names the first lane out.
            let one_line = !write && through_l1;
            if let Some(done) = self.contiguous_lanes(slot, mo, d.width, step, one_line)? {
                return Ok(done);
            }
        } else {
            self.lane_addrs(slot, mo, d.width, false)?;
            memory::coalesce(&self.addrs, d.width, &mut self.lines);
        }
        Ok(self.request_lines(slot, mo, write, through_l1))
    }

    /// Lane 0's offset into a global operand's buffer for the warp in `slot` (an affine
    /// form from the warp's own fields, without an `Env`), with the warp's
    /// sub-partition and its CTA's wave's length for the request: the warp's and its
    /// CTA's entries looked up once.
    #[inline(always)]
    fn lane0_offset(
        &self,
        slot: u32,
        mo: &lower::MemOperand,
    ) -> Result<(i64, usize, u32), SimError> {
        let w = &self.warps[slot as usize];
        let sp = w.sp as usize & 3;
        let terms = &self.warp_terms[slot as usize];
        let off = match &mo.addr {
            CExpr::Code {
                affine: Some(a), ..
            } if (mo.warp_term as usize) < WARP_TERMS => {
                a.value_from(terms.fixed[mo.warp_term as usize % WARP_TERMS], &w.vars)
            }
            CExpr::Code {
                affine: Some(a), ..
            } => a.value_from(
                a.warp_part(w.warp, self.ctas[w.cta as usize].grid_id),
                &w.vars,
            ),
            e => e
                .eval(&self.env(slot, 0))
                .map_err(|f| self.fault_at(slot, &f.0))?,
        };
        Ok((off, sp, terms.wave_len))
    }

    /// A global access whose lanes, `step` bytes apart, cover one contiguous run (see
    /// `global_access`): lane 31's offset is lane 0's plus 31 steps (`CExpr::lane_step`).
    /// A run within one line, read through L1 (`one_line`), is requested here as
    /// `read_one_line` requests it: returns when it completes. Otherwise leaves the
    /// run's lines in `self.lines` and returns None.
    #[inline(never)]
    fn contiguous_lanes(
        &mut self,
        slot: u32,
        mo: &lower::MemOperand,
        width: u32,
        step: i64,
        one_line: bool,
    ) -> Result<Option<u64>, SimError> {
        let (off, sp, wave_len) = self.lane0_offset(slot, mo)?;
        let first = self.global_address(slot, mo, width, 0, off)?;
        let last_off = off.wrapping_add(step.wrapping_mul(31));
        match self.global_address(slot, mo, width, 31, last_off) {
            Ok(last) => {
                let end = last + width.max(1) as u64;
                let (first_sector, last_sector) = (first / SECTOR, (end - 1) / SECTOR);
                if one_line && first_sector / SECTORS_PER_LINE == last_sector / SECTORS_PER_LINE {
                    let sectors = (last_sector - first_sector + 1) as u32;
                    let line = first_sector / SECTORS_PER_LINE;
                    return Ok(Some(
                        self.read_one_line(slot, mo, line, sectors, sp, wave_len),
                    ));
                }
                self.lines.clear();
                memory::lines_of(first, end - first, &mut self.lines);
            }
            Err(_) => {
                self.lane_addrs(slot, mo, width, false)?;
                memory::coalesce(&self.addrs, width, &mut self.lines);
            }
        }
        Ok(None)
    }

    /// `global_access` of the lines in `self.lines`.
    #[inline(never)]
    fn request_lines(
        &mut self,
        slot: u32,
        mo: &lower::MemOperand,
        write: bool,
        through_l1: bool,
    ) -> u64 {
        let sp = self.warps[slot as usize].sp as usize & 3;
        let depart = self.enter_l1tex(slot, sp, self.lines.len());
        let local = mo.space == Space::Local;
        let sharers = if write || self.lines.is_empty() {
            1
        } else {
            self.sharers(slot, mo, self.lines[0].0)
        };
        self.mem.begin_request(sharers);
        let mut done = depart;
        let (hit_per_line, hit_cap) = (self.t.l1_line_cycles, self.line_caps.0);
        let (miss_per_line, miss_cap) = (self.t.l2_line_cycles, self.line_caps.1);
        let base = depart;
        for i in 0..self.lines.len() {
            let (line, sectors) = self.lines[i];
            // The lines of one uncoalesced request go down the L1TEX pipeline one after
            // another while other warps' requests fill the gaps: hits return
            // `l1_line_cycles` apart up to `l1_line_cap` lines (beyond it they overlap),
            // misses leave for L2 `l2_line_cycles` apart up to `l2_line_cap` lines.
            // The first line (of most requests, the only one) is not staggered: its
            // offsets are 0 whatever the rates, without the float round trip.
            let (hit_at, depart) = if i == 0 {
                (base, base)
            } else {
                (
                    base + (i.min(hit_cap) as f64 * hit_per_line) as u64,
                    base + (i.min(miss_cap) as f64 * miss_per_line) as u64,
                )
            };
            let (t, level) = if write {
                (
                    self.mem.write(line, sectors, depart, local),
                    if Memory::is_far(line) {
                        MemLevel::L2Far
                    } else {
                        MemLevel::L2Near
                    },
                )
            } else if through_l1 {
                self.mem.read_l1(line, sectors, hit_at, depart)
            } else {
                self.mem.read_l2(line, sectors, depart)
            };
            self.emit_mem(slot, level, sectors * 32, t, write);
            done = done.max(t);
        }
        done
    }

    /// A request of `n` lines enters L1TEX: it takes its turn at L1's line rate and a
    /// place in the sub-partition's LSU queue until its last line is through. Returns
    /// when its first line leaves the pipeline.
    #[inline(always)]
    fn enter_l1tex(&mut self, slot: u32, sp: usize, n: usize) -> u64 {
        let now = self.now;
        // `now` is far below 2^52: the signed conversion is exact, and shorter; and a
        // request that finds L1 idle starts at `now`, a whole cycle: no rounding up.
        let now_f = now as i64 as f64;
        let idle = self.l1_free <= now_f;
        let (start, first_out) = if idle {
            (now_f, now)
        } else {
            (self.l1_free, memory::ceil(self.l1_free))
        };
        // One line (most requests) takes the quotient computed once: the same value.
        self.l1_free = start
            + if n == 1 {
                self.l1_line_time
            } else {
                n as f64 / self.t.l1_lines_per_clk
            };
        // One line into an idle L1 whose line time is whole ends a whole time after
        // `now`: the sum is exact, so its ceiling is the sum, without the rounding.
        let through = match self.l1_line_whole {
            Some(k) if idle && n == 1 => now + k,
            _ => memory::ceil(self.l1_free),
        };
        // (`sp` is below 4: the mask spares the bounds check.)
        let sp = sp & 3;
        self.queue_push(Pipe::Lsu, sp, now, through);
        if S::ENABLED {
            self.emit_busy(slot, Unit::L1, start, self.l1_free);
        }
        first_out
    }

    /// `global_access` for a read through L1 of one line: the same steps, in the same
    /// order, as its loop takes for a request whose only line this is. `sp`: the warp's
    /// sub-partition; `wave_len`: its CTA's wave's length (looked up by the caller).
    #[inline(always)]
    fn read_one_line(
        &mut self,
        slot: u32,
        mo: &lower::MemOperand,
        line: u64,
        sectors: u32,
        sp: usize,
        wave_len: u32,
    ) -> u64 {
        let depart = self.enter_l1tex(slot, sp, 1);
        let sharers = self.sharers_in_wave(slot, mo, line, wave_len);
        let (t, level) = self.mem.read_l1_request(sharers, line, sectors, depart);
        self.emit_mem(slot, level, sectors * 32, t, false);
        depart.max(t)
    }

    fn set_dst(&mut self, slot: u32, d: &DInstr, ready: u64, stall: WarpState) {
        if let Some((base, n)) = d.dst {
            let w = &mut self.warps[slot as usize];
            let reg = RegState {
                ready,
                writer: d.text,
                stall,
            };
            // Most instructions write one register.
            if n == 1 && (base as usize) < REG_SLOTS {
                w.regs[base as usize] = reg;
                return;
            }
            let end = (base + n as u16).min(REG_SLOTS as u16) as usize;
            w.regs[(base as usize).min(end)..end].fill(reg);
        }
    }

    /// Blocks the warp on the instruction it is issuing.
    fn block(&mut self, slot: u32, b: Block) {
        let w = &mut self.warps[slot as usize];
        w.block = b;
        w.block_pc = w.pc;
    }

    /// Issues the warp's instruction and sets when the warp is next looked at. (Inlined
    /// always: with two short paths, each inlined, it was otherwise left out of the
    /// cycle loop, and a call per issue cost more than the paths saved.)
    #[inline(always)]
    fn issue(&mut self, slot: u32) -> Result<(), SimError> {
        let d = self.instr(slot);
        if !S::ENABLED {
            match d.issue {
                IssueClass::Plain => return self.issue_plain(slot, d),
                IssueClass::GlobalLoad => return self.issue_global_load(slot, d),
                IssueClass::General => {}
            }
        }
        let next = self.now + 1;
        self.issue_general(slot, d)?;
        self.after_issue(slot, next);
        Ok(())
    }

    /// `issue` of a plain instruction (`IssueClass::Plain`) without events: what
    /// `issue_general` and `after_issue` do for it, with the warp looked up once. Its
    /// pipe is booked, its one register written, its pc stepped, and a register wait of
    /// the next instruction is its state from the next cycle on (`Warp::quiet_step`).
    /// (`start_quiet_issue` on the warp it holds: a look-up of the warp of its own
    /// measured about 1% more host instructions on the chain.)
    #[inline(always)]
    fn issue_plain(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let now = self.now;
        let next = now + 1;
        let w = &mut self.warps[slot as usize];
        start_quiet_issue(w, &mut self.pcs, &mut self.pipes, &self.intervals, d, now);
        // (Written whether or not there is a result: `dst_reg` is then a slot nobody
        // reads.)
        let (cycles, stall) = d.short_result;
        w.regs[d.dst_reg as usize % REG_ARRAY] = RegState {
            ready: now + cycles,
            writer: d.text,
            stall,
        };
        // The pc step and the next instruction's register wait.
        let due = w.quiet_step(d, next);
        self.end_quiet_issue(slot, due, next)
    }

    /// `issue` of a global or local load (`IssueClass::GlobalLoad`) without events:
    /// its access as `issue_instr`'s load arm makes it, around it what `issue_plain` does
    /// (`start_quiet_issue` before, `Warp::quiet_step` after).
    #[inline(always)]
    fn issue_global_load(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let now = self.now;
        start_quiet_issue(
            &mut self.warps[slot as usize],
            &mut self.pcs,
            &mut self.pipes,
            &self.intervals,
            d,
            now,
        );
        let done = self.global_access(slot, d, 0, false, !d.bypass_l1)?;
        let next = now + 1;
        let w = &mut self.warps[slot as usize];
        w.outstanding = w.outstanding.max(done);
        w.regs[d.dst_reg as usize % REG_ARRAY] = RegState {
            ready: done,
            writer: d.text,
            stall: WarpState::LongScoreboard,
        };
        // The pc step and the next instruction's register wait, on the warp looked up
        // once after the access (a look-up of its own cost about 5 host instructions).
        let due = w.quiet_step(d, next);
        self.end_quiet_issue(slot, due, next)
    }

    /// The end of a short issue, after `Warp::quiet_step` gave `due`: the warp is next
    /// looked at then, or, where the next node is the general loop control (None), the
    /// warp is settled and `after_issue` finds its next instruction's wait.
    #[inline(always)]
    fn end_quiet_issue(&mut self, slot: u32, due: Option<u64>, next: u64) -> Result<(), SimError> {
        match due {
            Some(t) => self.set_until_ahead(slot, t),
            None => {
                self.settle(slot)?;
                self.after_issue(slot, next);
            }
        }
        Ok(())
    }

    /// `issue` of an instruction that is not a plain one: a branch's fetch, a stall
    /// count, whatever blocks the warp.
    fn issue_general(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let stall = d.stall;
        // A branch (the twins' branches are their loops' back branches, taken) has its
        // target fetched `branch_target_cycles` after the branch entered the instruction
        // buffer, when the instruction two before it issued: a warp that reaches the
        // branch while that fetch is under way waits for it, one that waited on an
        // operand before the branch has had it fetched meanwhile.
        let fetched = if d.op == Op::Bra {
            self.warps[slot as usize].issued_before + self.t.branch_target_cycles as u64
        } else {
            0
        };
        self.issue_instr(slot)?;
        let next = self.now + 1;
        // The control code's stall count holds the warp (Nsight's `wait`, charged to
        // the instruction it waits to issue). An instruction that blocked the warp holds
        // it at least as long: the count takes over if the block ends first.
        if stall > 1 || fetched > next {
            let w = &mut self.warps[slot as usize];
            if w.block != Block::None {
                w.stall_until = self.now + stall as u64;
            } else if !w.exited {
                let waited = self.now + stall as u64;
                let (t, state) = if fetched > waited {
                    (fetched, WarpState::NoInstruction)
                } else {
                    (waited, WarpState::Wait)
                };
                self.block(slot, Block::Until { t, state });
            }
        }
        Ok(())
    }

    /// After an issue: the next instruction's registers, and when the warp is next
    /// looked at.
    #[inline(always)]
    fn after_issue(&mut self, slot: u32, next: u64) {
        // The next instruction's registers, from next cycle: only the warp's own
        // issues change them, so this holds until its next issue.
        let w = &mut self.warps[slot as usize];
        // (An exited warp has no instruction.)
        let wait = match w.cur {
            Some(d) => {
                let wait = w.operands_wait(d, next);
                // A blocked warp (a stall count beyond one cycle blocks it too) has its
                // registers looked at again once the block ends.
                w.operands_clear_from = if w.block == Block::None {
                    wait.map_or(next, |x| x.1)
                } else {
                    u64::MAX
                };
                wait
            }
            _ => {
                w.operands_clear_from = u64::MAX;
                None
            }
        };
        // When that is a wait and nothing else holds the warp, it is the state the warp
        // will be in next cycle (nothing else unblocks or blocks a warp that is not
        // blocked): knowing it now spares that cycle a visit. With a sink the state
        // changes next cycle as before, so that events keep their order.
        let due = match wait {
            Some((state, until, cause)) if !S::ENABLED && w.block == Block::None => {
                // Only `charge_issue` starts a span at `next`, so a span from `next` is
                // its `selected`: the state needs no comparison of its own.
                if w.state_since == next {
                    debug_assert!(w.state == WarpState::Selected);
                    // The issue's `selected` span is charged and empty from `next` on
                    // (`charge_issue`), and a register wait is never `selected`: what
                    // `set_state_at` does, without its comparisons.
                    w.state = state;
                    w.cause = cause;
                    w.state_pc = w.pc;
                } else {
                    self.set_state_at(slot, state, cause, next);
                }
                until
            }
            _ => next,
        };
        self.set_until_ahead(slot, due);
    }

    /// Issues the warp's instruction: its effects, and its pc stepped to the next one.
    fn issue_instr(&mut self, slot: u32) -> Result<(), SimError> {
        let now = self.now;
        let d: &'a DInstr = self.instr(slot);
        let t = self.t;
        let sp = self.warps[slot as usize].sp as usize & 3;
        self.charge_issue(slot, now);
        {
            let w = &mut self.warps[slot as usize];
            w.issued_before = w.last_issue;
            w.last_issue = now;
        }
        if S::ENABLED {
            let id = self.wid(slot);
            let w = &self.warps[slot as usize];
            let (role, pc) = (w.role, self.event_pc(slot, w.pc));
            self.sink.event(Event::Issue {
                cycle: now,
                warp: id,
                subpartition: sp as u8,
                role,
                pc,
            });
        }
        let p = d.pipe.index();
        let interval = self.intervals[p];
        self.pipes.book(sp, p, now + interval);
        if d.bank_conflict_cycles > 0 {
            self.pipes.dispatch_free[sp] = now + 1 + d.bank_conflict_cycles as u64;
        }
        if S::ENABLED && interval > 1 {
            let id = self.wid(slot);
            self.sink.event(Event::UnitBusy {
                start: now,
                end: now + interval,
                unit: Unit::Pipe {
                    pipe: d.pipe,
                    subpartition: sp as u8,
                },
                warp: id,
            });
        }
        match &d.kind {
            Kind::Compute | Kind::Plain => {
                if let Some((cycles, stall)) = d.result {
                    self.set_dst(slot, d, now + cycles, stall);
                }
            }
            Kind::Load { space } | Kind::Store { space } => {
                let write = matches!(d.kind, Kind::Store { .. });
                match space {
                    Space::Shared => {
                        let m = &d.mem[0];
                        self.lane_addrs(slot, m, d.width, true)?;
                        let waves = memory::smem_wavefronts(&self.addrs, d.width) as f64 * 128.0
                            / t.smem_bytes_per_clk;
                        let start = self.smem_free.max(now as f64);
                        self.smem_free = start + waves;
                        self.queue_push(Pipe::Mio, sp, now, memory::ceil(start));
                        self.emit_busy(slot, Unit::SharedMemory, start, self.smem_free);
                        let done = memory::ceil(start + waves) + t.lat_lds as u64 - 1;
                        self.emit_mem(slot, MemLevel::Shared, d.width * 32, done, write);
                        if !write {
                            self.set_dst(slot, d, done, WarpState::ShortScoreboard);
                        }
                    }
                    Space::Global | Space::Local => {
                        let through_l1 = !d.bypass_l1;
                        let done = self.global_access(slot, d, 0, write, through_l1)?;
                        let w = &mut self.warps[slot as usize];
                        w.outstanding = w.outstanding.max(done);
                        if !write {
                            self.set_dst(slot, d, done, WarpState::LongScoreboard);
                        }
                    }
                    Space::Tmem => {
                        self.set_dst(
                            slot,
                            d,
                            now + t.lat_tmem_load as u64,
                            WarpState::ShortScoreboard,
                        );
                    }
                }
            }
            Kind::Exit => {
                let w = &mut self.warps[slot as usize];
                w.exited = true;
                w.cur = None;
                if S::ENABLED {
                    let id = self.wid(slot);
                    self.sink.event(Event::WarpExit {
                        cycle: now,
                        warp: id,
                    });
                }
                return Ok(());
            }
            // The rest, kept out of this function so that the common instructions'
            // path stays small (a match of every kind here left it spilling registers).
            _ => self.issue_other(slot, d, now, sp)?,
        }
        let w = &mut self.warps[slot as usize];
        w.pc += 1;
        // The common cases, straight-line code and the end of a loop's body followed by
        // an instruction, need no general loop control.
        let code: &'a [Node] = w.code;
        if let Some((s, head)) = d.loop_tail {
            w.loop_tail(s, head);
        }
        if let Node::Instr(d) = &code[w.pc as usize] {
            w.cur = Some(d);
            return Ok(());
        }
        self.settle(slot)
    }

    /// `issue_instr`'s effects of the instructions other than arithmetic, loads, stores
    /// and EXIT.
    #[inline(never)]
    fn issue_other(
        &mut self,
        slot: u32,
        d: &'a DInstr,
        now: u64,
        sp: usize,
    ) -> Result<(), SimError> {
        let t = self.t;
        match &d.kind {
            Kind::Shuffle => {
                // One wavefront (32 lanes x 4 bytes) through the shared-memory crossbar:
                // shuffles and shared loads share its bandwidth and the MIO queue.
                let waves = 128.0 / t.smem_bytes_per_clk;
                let start = self.smem_free.max(now as f64);
                self.smem_free = start + waves;
                self.queue_push(Pipe::Mio, sp, now, memory::ceil(start));
                self.emit_busy(slot, Unit::SharedMemory, start, self.smem_free);
                let done = memory::ceil(start + waves) + t.lat_shfl as u64 - 1;
                self.set_dst(slot, d, done, WarpState::ShortScoreboard);
            }
            Kind::Atomic { returns } => {
                let done = self.global_access(slot, d, 0, false, false)?;
                let w = &mut self.warps[slot as usize];
                w.outstanding = w.outstanding.max(done);
                if *returns {
                    self.set_dst(slot, d, done, WarpState::LongScoreboard);
                }
            }
            Kind::Ldgsts => {
                // The data then goes into shared memory; the group completes after that.
                let done = self.global_access(slot, d, 1, false, true)? + t.lat_ldgsts_fill as u64;
                let w = &mut self.warps[slot as usize];
                w.cp_async.add(done);
                w.outstanding = w.outstanding.max(done);
            }
            Kind::CpAsyncCommit => self.warps[slot as usize].cp_async.commit(now),
            Kind::DepbarCpAsync | Kind::DepbarBulk | Kind::WgDepbar => {
                let n = self.eval(slot, &d.n)?;
                if n < 0 {
                    return Err(self.fault_at(slot, "a wait depth cannot be negative"));
                }
                let w = &mut self.warps[slot as usize];
                let (groups, state) = match d.kind {
                    Kind::DepbarCpAsync => (&mut w.cp_async, WarpState::LongScoreboard),
                    Kind::DepbarBulk => (&mut w.bulk_store, WarpState::LongScoreboard),
                    _ => (&mut w.wgmma, WarpState::Gmma),
                };
                let until = groups.wait_until(now, n as usize);
                if until > now + 1 {
                    self.block(slot, Block::Until { t: until, state });
                }
            }
            Kind::TmaLoad | Kind::TmaStore => {
                let bytes = self.eval(slot, &d.n)?;
                if bytes <= 0 || bytes % 16 != 0 {
                    return Err(self.fault_at(
                        slot,
                        &format!("a bulk copy moves a positive multiple of 16 bytes, not {bytes}"),
                    ));
                }
                let (gi, si) = if d.kind == Kind::TmaLoad {
                    (1, 0)
                } else {
                    (0, 1)
                };
                // A tensor copy's box: `rows` rows of `row` bytes, `pitch` apart.
                let (row, pitch) = match &d.tensor_box {
                    Some((row, pitch)) => (self.eval(slot, row)?, self.eval(slot, pitch)?),
                    None => (bytes, bytes),
                };
                if row <= 0 || bytes % row != 0 || pitch < row {
                    return Err(self.fault_at(
                        slot,
                        &format!("a box of {bytes} bytes in rows of {row} bytes, {pitch} apart, is not a whole number of rows at least a row apart"),
                    ));
                }
                let rows = bytes / row;
                // (The pitch is the kernel's expression: its box may reach past any
                // buffer, even past what an i64 counts.)
                let Some(extent) = (rows - 1)
                    .checked_mul(pitch)
                    .and_then(|x| x.checked_add(row))
                else {
                    return Err(self.fault_at(
                        slot,
                        &format!("a box of {rows} rows {pitch} bytes apart spans more bytes than any buffer holds"),
                    ));
                };
                let gaddr = {
                    let g = &d.mem[gi];
                    let off = self.eval(slot, &g.addr)?;
                    let b = g.base as usize;
                    if off < 0 || off as u64 + extent as u64 > self.buffer_size[b] {
                        return Err(self.fault_at(
                            slot,
                            &format!("the copy covers bytes {off}..{} of buffer `{}`, which has {} bytes", i128::from(off) + i128::from(extent), self.kernel.buffers[b].name, self.buffer_size[b]),
                        ));
                    }
                    self.buffer_base[b] + off as u64
                };
                let soff = self.eval(slot, &d.mem[si].addr)?;
                if soff < 0 || soff as u64 + bytes as u64 > self.kernel.launch.smem as u64 {
                    return Err(self.fault_at(
                        slot,
                        &format!(
                            "the copy covers shared bytes {soff}..{}, beyond the CTA's {} bytes",
                            i128::from(soff) + i128::from(bytes),
                            self.kernel.launch.smem
                        ),
                    ));
                }
                let start = self.tma_free.max(now as f64);
                let busy = t.tma_issue_cycles + bytes as f64 / t.tma_bytes_per_clk;
                self.tma_free = start + busy;
                self.tma_busy += busy;
                let s = memory::ceil(start);
                let mut done = memory::ceil(self.tma_free);
                let first = gaddr / LINE;
                let last = (gaddr + bytes as u64 - 1) / LINE;
                let sharers = if d.kind == Kind::TmaLoad {
                    self.sharers(slot, &d.mem[gi], first)
                } else {
                    1
                };
                self.mem.begin_request(sharers);
                if d.multicast && d.kind == Kind::TmaLoad {
                    self.mem.multicast(self.kernel.launch.cluster);
                }
                if d.kind == Kind::TmaLoad {
                    // Row by row, in the order the TMA unit walks the box.
                    for r in 0..rows as u64 {
                        let from = gaddr + r * pitch as u64;
                        done = self.mem.read_l2_lines(
                            from / LINE,
                            (from + row as u64 - 1) / LINE,
                            s,
                            done,
                            &mut self.mem_requests,
                        );
                    }
                } else {
                    for line in first..=last {
                        let dn = self.mem.write(line, 4, s, false);
                        self.mem_requests[memory::level_index(MemLevel::L2Near)] += 1;
                        done = done.max(dn);
                    }
                }
                done += t.tma_extra_latency as u64;
                if S::ENABLED {
                    let id = self.wid(slot);
                    self.sink.event(Event::UnitBusy {
                        start: s,
                        end: memory::ceil(self.tma_free),
                        unit: Unit::Tma,
                        warp: id,
                    });
                    self.sink.event(Event::Memory {
                        cycle: s,
                        done,
                        warp: id,
                        level: MemLevel::L2Near,
                        bytes: bytes as u32,
                        write: d.kind == Kind::TmaStore,
                    });
                }
                if d.kind == Kind::TmaLoad {
                    let mbar = self.mbar_index(slot, d)?;
                    let cta = self.warps[slot as usize].cta;
                    self.push_event(
                        done,
                        Ev::TxComplete {
                            cta,
                            mbar,
                            bytes: bytes as u32,
                        },
                    );
                } else {
                    let w = &mut self.warps[slot as usize];
                    w.bulk_store.add(done);
                    w.outstanding = w.outstanding.max(done);
                }
            }
            Kind::TmaCommit => self.warps[slot as usize].bulk_store.commit(now),
            Kind::MbarInit => {
                let idx = self.mbar_index(slot, d)?;
                let n = self.eval(slot, &d.n)?;
                if n <= 0 || n > i64::from(isa::validate::MAX_MBARRIER_COUNT) {
                    return Err(self.fault_at(
                        slot,
                        &format!(
                            "an mbarrier's count is 1 to {} arrivals per phase, not {n}",
                            isa::validate::MAX_MBARRIER_COUNT
                        ),
                    ));
                }
                let cta = self.warps[slot as usize].cta as usize;
                let m = &mut self.ctas[cta].mbars[idx as usize];
                m.count = n as u32;
                m.pending = n as u32;
                m.tx = 0;
            }
            Kind::MbarArrive { expect_tx } => {
                let idx = self.mbar_index(slot, d)?;
                let count = self.eval(slot, &d.n2)?;
                let bytes = if *expect_tx {
                    self.eval(slot, &d.n)?
                } else {
                    0
                };
                let cta = self.warps[slot as usize].cta;
                let pending = self.ctas[cta as usize].mbars[idx as usize].pending;
                if !(0..=MAX_MBARRIER_TX).contains(&bytes) {
                    return Err(self.fault_at(
                        slot,
                        &format!("an arrive expects 0 to {MAX_MBARRIER_TX} transaction bytes (the mbarrier's tx-count is 20 bits), not {bytes}"),
                    ));
                }
                if count < 0 || count > i64::from(pending) {
                    let (name, el) = self.mbar_name(idx);
                    return Err(self.fault_at(
                        slot,
                        &format!("{count} arrivals on {name}[{el}], which expects only {pending} more in this phase"),
                    ));
                }
                let m = &mut self.ctas[cta as usize].mbars[idx as usize];
                m.tx += bytes;
                m.pending -= count as u32;
                let phase = m.phase;
                self.check_phase(cta, idx, t.lat_mbarrier_wake);
                // An arrive that completes the phase reaches the barrier
                // `lat_mbarrier_arrive` after it issues; a warp asleep on the phase wakes
                // `lat_mbarrier_wake` after the issue (which includes it).
                let m = &mut self.ctas[cta as usize].mbars[idx as usize];
                if m.phase != phase {
                    m.settled = now + t.lat_mbarrier_arrive as u64;
                }
            }
            Kind::MbarWait => {
                let idx = self.mbar_index(slot, d)?;
                let parity = (self.eval(slot, &d.n)? & 1) as u32;
                let cta = self.warps[slot as usize].cta as usize;
                let Mbar { phase, settled, .. } = self.ctas[cta].mbars[idx as usize];
                // try_wait.parity P passes once the phase with parity P has completed,
                // i.e. while the current phase's parity differs from P.
                if (phase & 1) as u32 == parity {
                    self.block(slot, Block::Mbar { idx, parity });
                } else {
                    // The phase has completed: the warp still waits for the probe's
                    // predicate (SYNCS.PHASECHK's result), as for any L1TEX-side result;
                    // a probe right behind the arrive that completed the phase reads the
                    // barrier once that arrive has reached it.
                    self.block(
                        slot,
                        Block::Until {
                            t: now.max(settled) + t.lat_mbarrier_probe as u64,
                            state: WarpState::LongScoreboard,
                        },
                    );
                }
            }
            Kind::Fence => self.block(
                slot,
                Block::Until {
                    t: now + t.lat_fence as u64,
                    state: WarpState::Membar,
                },
            ),
            Kind::Membar { gpu } => {
                let until = if *gpu {
                    (now + t.lat_membar_gpu as u64).max(self.warps[slot as usize].outstanding)
                } else {
                    now + t.lat_fence as u64
                };
                self.block(
                    slot,
                    Block::Until {
                        t: until,
                        state: WarpState::Membar,
                    },
                );
            }
            Kind::Nanosleep => {
                let ns = self.eval(slot, &d.n)?.max(0) as f64;
                let cycles = (ns * t.clock_mhz / 1000.0).ceil() as u64;
                self.block(
                    slot,
                    Block::Until {
                        t: now + cycles.max(1),
                        state: WarpState::Sleeping,
                    },
                );
            }
            Kind::WgArrive => {
                let w = &self.warps[slot as usize];
                let (cta, wg) = (w.cta as usize, (w.warp / 4) as usize);
                if wg >= 8 {
                    return Err(self.fault_at(slot, "warpgroup index beyond 8"));
                }
                self.ctas[cta].wg_arrived[wg] += 1;
                if self.ctas[cta].wg_arrived[wg] == 4 {
                    self.ctas[cta].wg_arrived[wg] = 0;
                    let base = cta as u32 * self.warps_per_cta + wg as u32 * 4;
                    for s in base..base + 4 {
                        if self.warps[s as usize].block == Block::WgArrive {
                            self.warps[s as usize].block = Block::Until {
                                t: now + 1,
                                state: WarpState::Gmma,
                            };
                            // A warp due this very cycle on a later sub-partition keeps its turn.
                            let due = self.until[self.until_index(s)].min(now + 1);
                            self.set_until(s, due);
                        }
                    }
                } else {
                    self.block(slot, Block::WgArrive);
                }
            }
            Kind::Hgmma { commit } => {
                let shape = d.mma.expect("decoded");
                let flops = shape.flops() as f64 / 4.0;
                let rate = t.tensor_flops_per_clk_sm / 4.0 * shape.ab.rate_vs_f16();
                let cycles = (flops / rate).ceil() as u64;
                // A warpgroup MMA is one operation of its four warps: the first of them
                // to issue it books the tensor pipe of all four sub-partitions, and the
                // others take the same slot. So every sub-partition runs the warpgroups'
                // MMAs in one order, as the SM's tensor cores do.
                let (cta, wg) = {
                    let w = &mut self.warps[slot as usize];
                    w.hgmma_issued += 1;
                    (w.cta as usize, (w.warp / 4) as usize % 8)
                };
                let seq = self.warps[slot as usize].hgmma_issued;
                let booking = &mut self.ctas[cta].wg_mma[wg][seq as usize % MMA_BOOKINGS];
                let start = if booking.seq == seq {
                    booking.start
                } else {
                    let start = self.tensor_free.iter().copied().max().unwrap_or(0).max(now);
                    *booking = MmaBooking { seq, start };
                    for f in &mut self.tensor_free {
                        *f = start + cycles;
                    }
                    start
                };
                self.tensor_busy[sp] += cycles;
                self.queue_push(Pipe::Tensor, sp, now, start);
                let done = start + cycles + t.hgmma_latency as u64;
                if S::ENABLED {
                    let id = self.wid(slot);
                    self.sink.event(Event::UnitBusy {
                        start,
                        end: start + cycles,
                        unit: Unit::Pipe {
                            pipe: Pipe::Tensor,
                            subpartition: sp as u8,
                        },
                        warp: id,
                    });
                }
                let w = &mut self.warps[slot as usize];
                w.wgmma.add(done);
                // (A warp that exits without waiting for it drains until its
                // accumulators are written: they are its registers.)
                w.outstanding = w.outstanding.max(done);
                if *commit {
                    w.wgmma.commit(now);
                }
            }
            Kind::Utcmma => {
                let shape = d.mma.expect("decoded");
                let rate = t.tensor_flops_per_clk_sm * shape.ab.rate_vs_f16();
                let mut cycles = shape.flops() as f64 / rate;
                let scale = shape.m as f64 / 128.0;
                if !d.mma_a_not_smem {
                    cycles = cycles.max((t.utcmma_smem_base_cycles + shape.n as f64 / 4.0) * scale);
                }
                let cycles = cycles.ceil() as u64;
                let start = self.tensor_free.iter().copied().max().unwrap_or(0).max(now);
                for s in 0..4 {
                    self.tensor_free[s] = start + cycles;
                    self.tensor_busy[s] += cycles;
                }
                let lat = if d.mma_a_not_smem {
                    t.utcmma_latency_tmem_a
                } else {
                    t.utcmma_latency_smem_a
                };
                let w = &mut self.warps[slot as usize];
                w.utc_done = w.utc_done.max(start + cycles + lat as u64);
            }
            Kind::Utcbar => {
                let idx = self.mbar_index(slot, d)?;
                let w = &self.warps[slot as usize];
                let (cta, at) = (w.cta, w.utc_done.max(now + 1));
                self.push_event(at, Ev::Arrive { cta, mbar: idx });
            }
            Kind::TmemLoad => self.set_dst(
                slot,
                d,
                now + t.lat_tmem_load as u64,
                WarpState::ShortScoreboard,
            ),
            Kind::TmemStore | Kind::TmemAlloc => {}
            Kind::BarSync | Kind::BarArrive => {
                let id = self.eval(slot, &d.n)?;
                let threads = self.eval(slot, &d.n2)?;
                if !(0..16).contains(&id) {
                    return Err(self.fault_at(slot, &format!("barrier id {id} is outside 0..15")));
                }
                if threads <= 0
                    || threads % 32 != 0
                    || threads > self.kernel.launch.cta_threads as i64
                {
                    return Err(self.fault_at(slot, &format!("barrier thread count {threads} must be a positive multiple of 32 up to the CTA's {}", self.kernel.launch.cta_threads)));
                }
                let cta = self.warps[slot as usize].cta as usize;
                let b = &mut self.ctas[cta].bars[id as usize];
                b.expected = (threads / 32) as u32;
                b.arrived += 1;
                b.counted_at = b.counted_at.max(now as f64) + t.bar_arrive_cycles_per_warp;
                if b.arrived >= b.expected {
                    b.arrived = 0;
                    let release = (b.counted_at.ceil() as u64).max(now) + t.lat_bar as u64;
                    let per = self.warps_per_cta;
                    for s in cta as u32 * per..(cta as u32 + 1) * per {
                        if self.warps[s as usize].block == (Block::Barrier { id: id as u32 }) {
                            self.warps[s as usize].block = Block::Until {
                                t: release,
                                state: WarpState::Barrier,
                            };
                            // A warp due this very cycle on a later sub-partition keeps its turn.
                            let due = self.until[self.until_index(s)].min(now + 1);
                            self.set_until(s, due);
                        }
                    }
                    if d.kind == Kind::BarSync {
                        self.block(
                            slot,
                            Block::Until {
                                t: release,
                                state: WarpState::Barrier,
                            },
                        );
                    }
                    if S::ENABLED {
                        self.sink.event(Event::BarrierRelease {
                            cycle: now,
                            cta: self.ctas[cta].id,
                            id: id as u32,
                        });
                    }
                } else if d.kind == Kind::BarSync {
                    self.block(slot, Block::Barrier { id: id as u32 });
                }
            }
            Kind::Compute | Kind::Plain | Kind::Load { .. } | Kind::Store { .. } | Kind::Exit => {
                unreachable!("issue_instr issues these itself")
            }
        }
        Ok(())
    }

    /// What the run's events name by number (`Sink::begin`).
    fn header(&mut self, ctas_simulated: u32, ctas_resident: u32) -> RunHeader {
        let mut lines = lower::instruction_lines(self.kernel);
        // A kernel built in Rust has no source lines: those of its printed text, which
        // parses back to the same program (`smsim kernels --emit` prints it).
        if lines.iter().flatten().any(|&l| l == 0)
            && let Ok(printed) = isa::parse_kernel(&self.kernel.to_string())
        {
            let again = lower::instruction_lines(&printed);
            if again.iter().map(Vec::len).eq(lines.iter().map(Vec::len)) {
                lines = again;
            }
        }
        let roles = self
            .prog
            .roles
            .iter()
            .zip(lines)
            .map(|(r, lines)| RoleInfo {
                name: r.name.clone(),
                first_warp: r.first_warp,
                last_warp: r.last_warp,
                instructions: r
                    .texts
                    .iter()
                    .zip(lines.into_iter().chain(std::iter::repeat(0)))
                    .map(|(text, line)| InstructionInfo {
                        text: text.clone(),
                        line,
                    })
                    .collect(),
            })
            .collect();
        let mut units = Vec::new();
        for pipe in Pipe::ALL {
            if self.intervals[pipe.index()] > 1 {
                for subpartition in 0..4 {
                    units.push(Unit::Pipe { pipe, subpartition });
                }
            }
        }
        units.extend([Unit::Tma, Unit::SharedMemory, Unit::L1]);
        RunHeader {
            kernel: self.kernel.name.clone(),
            profile: self.profile.name().to_string(),
            seed: self.cfg.seed,
            policy: self.policy.as_dyn().name().to_string(),
            clock_mhz: self.t.clock_mhz,
            ctas_simulated,
            ctas_resident,
            warps_per_cta: self.warps_per_cta,
            roles,
            mbarriers: (0..self.prog.mbar_total)
                .map(|i| {
                    let (name, el) = self.mbar_name(i);
                    format!("{name}[{el}]")
                })
                .collect(),
            units,
        }
    }

    /// A run that failed ends the lives of its live warps at its last cycle (their
    /// `WarpFinish`), so that every warp's states end.
    fn end_live_warps(&mut self) {
        if !S::ENABLED {
            return;
        }
        for slot in 0..self.warps.len() as u32 {
            if self.warps[slot as usize].live {
                let id = self.wid(slot);
                self.sink.event(Event::WarpFinish {
                    cycle: self.now,
                    warp: id,
                });
            }
        }
    }

    fn mbar_name(&self, flat: u32) -> (String, u32) {
        isa::ast::mbarrier_at(&self.kernel.mbarriers, flat)
            .map_or(("?".into(), flat), |(name, el)| (name.to_string(), el))
    }

    /// Describes every live warp and what it waits for.
    fn report(&self, headline: &str) -> StuckReport {
        let mut warps = Vec::new();
        for (s, w) in self.warps.iter().enumerate() {
            if !w.live {
                continue;
            }
            let role = &self.prog.roles[w.role as usize];
            let pc = w.charged_pc() as usize;
            let text = match &role.code[pc] {
                Node::Instr(d) => role.texts[d.text as usize].clone(),
                _ => "(end of role)".into(),
            };
            let cta = &self.ctas[w.cta as usize];
            let waits_for = match w.block {
                Block::Barrier { id } => {
                    let b = cta.bars[id as usize];
                    let per = self.warps_per_cta;
                    let waiting: Vec<String> = (w.cta * per..(w.cta + 1) * per)
                        .filter(|&o| {
                            self.warps[o as usize].live
                                && self.warps[o as usize].block == (Block::Barrier { id })
                        })
                        .map(|o| self.warps[o as usize].warp.to_string())
                        .collect();
                    let missing: Vec<String> = (w.cta * per..(w.cta + 1) * per)
                        .filter(|&o| {
                            !(self.warps[o as usize].live
                                && self.warps[o as usize].block == (Block::Barrier { id }))
                        })
                        .map(|o| {
                            let ow = &self.warps[o as usize];
                            if ow.live {
                                ow.warp.to_string()
                            } else {
                                format!("{} (exited)", ow.warp)
                            }
                        })
                        .collect();
                    format!(
                        "named barrier {id}: {} of {} warps arrived (waiting: {}); not arrived: {}",
                        b.arrived,
                        b.expected,
                        waiting.join(", "),
                        if missing.is_empty() {
                            "-".into()
                        } else {
                            missing.join(", ")
                        }
                    )
                }
                Block::Mbar { idx, parity } => {
                    let m = &cta.mbars[idx as usize];
                    let (name, el) = self.mbar_name(idx);
                    format!(
                        "mbarrier {name}[{el}] to complete the phase of parity {parity}: {} phases completed, {} of {} arrivals still missing, {} transaction bytes outstanding",
                        m.phase, m.pending, m.count, m.tx
                    )
                }
                Block::WgArrive => {
                    let wg = w.warp / 4;
                    format!(
                        "WARPGROUP.ARRIVE of warpgroup {wg}: {} of its 4 warps arrived",
                        cta.wg_arrived[wg as usize]
                    )
                }
                Block::Until { t, state } => format!("{state} until cycle {t}"),
                Block::None if w.exited => format!("drain until cycle {}", w.outstanding),
                Block::None => format!(
                    "{} (until cycle {})",
                    w.state,
                    self.until[self.until_index(s as u32)]
                ),
            };
            warps.push(StuckWarp {
                cta: cta.id,
                warp: w.warp,
                role: role.name.clone(),
                pc: match &role.code[pc] {
                    Node::Instr(d) => d.text,
                    _ => u32::MAX,
                },
                instruction: text,
                waits_for,
            });
        }
        StuckReport {
            headline: headline.to_string(),
            cycle: self.now,
            warps,
        }
    }

    fn finish(
        mut self,
        occ: isa::occupancy::Occupancy,
        resident: u32,
        ctas_here: u32,
        grid: u32,
    ) -> RunResult {
        let cycles = self.now;
        let t = self.t;
        // Close the spans of warps still live (none after a clean run).
        let live: Vec<u32> = (0..self.warps.len() as u32)
            .filter(|&s| self.warps[s as usize].live)
            .collect();
        for s in live {
            self.retire(s);
        }
        let mut roles = Vec::new();
        for (ri, r) in self.prog.roles.iter().enumerate() {
            let mut states = [0u64; STATE_COUNT];
            let mut instrs = 0;
            let mut warps = 0;
            for w in self.warp_summaries.iter().filter(|w| w.role == r.name) {
                warps += 1;
                instrs += w.instructions;
                for (i, v) in w.states.to_array().iter().enumerate() {
                    states[i] += v;
                }
            }
            let mut pcs = Vec::new();
            for (ti, text) in r.texts.iter().enumerate() {
                let pc = r.text_pc[ti] as usize;
                let at = self.role_pc_base[ri] as usize + pc;
                let mut waits_on: Vec<WaitsOn> = self.pcs[at]
                    .causes()
                    .map(|&(state, cause, cycles)| WaitsOn {
                        state,
                        on: match cause.unpack() {
                            Waited::Producer { text } if (text as usize) < r.texts.len() => {
                                format!("the result of pc {text} `{}`", r.texts[text as usize])
                            }
                            Waited::Producer { .. } => {
                                "a register written before the loop".to_string()
                            }
                            Waited::Pipe(p) => format!("the {} pipe", p.name()),
                            Waited::Own => String::new(),
                        },
                        cycles,
                    })
                    .collect();
                waits_on.sort_by_key(|w| std::cmp::Reverse(w.cycles));
                pcs.push(PcStats {
                    pc: ti as u32,
                    instruction: text.clone(),
                    issued: self.pcs[at].states[WarpState::Selected.index()],
                    states: StateCounts::from_array(&self.pcs[at].states),
                    waits_on,
                });
            }
            roles.push(RoleStats {
                name: r.name.clone(),
                warps_per_cta: r.last_warp + 1 - r.first_warp,
                warps_simulated: warps,
                instructions: instrs,
                states: StateCounts::from_array(&states),
                per_pc: pcs,
            });
        }
        // Issues per sub-partition, from the warps' (each warp stays on one).
        let mut issued = [0u64; 4];
        for w in &self.warp_summaries {
            issued[w.subpartition as usize & 3] += w.instructions;
        }
        let instructions: u64 = issued.iter().sum();
        let c = cycles.max(1) as f64;
        // A pipe is busy for its issue interval at each issue of an instruction on it.
        let mut pipe_busy = [0u64; NPIPES];
        for (ri, r) in self.prog.roles.iter().enumerate() {
            for (pc, node) in r.code.iter().enumerate() {
                if let Node::Instr(d) = node {
                    let at = self.role_pc_base[ri] as usize + pc;
                    let p = d.pipe.index();
                    pipe_busy[p] +=
                        self.pcs[at].states[WarpState::Selected.index()] * self.intervals[p];
                }
            }
        }
        // (The last issue on a pipe may end the run before its interval does: that
        // part of it lies past the run's end, not in it.)
        for (p, busy) in pipe_busy.iter_mut().enumerate() {
            for sp in &self.pipes.slots {
                *busy = booked_within(*busy, sp[p].free, cycles);
            }
        }
        let mut pipes = Vec::new();
        for p in [Pipe::Fma, Pipe::Alu, Pipe::Fp64, Pipe::Mufu] {
            let busy = pipe_busy[p.index()];
            pipes.push(UnitUse {
                unit: p.name().to_string(),
                busy_fraction: busy as f64 / (4.0 * c),
            });
        }
        // (As the pipes': a tcgen05 MMA need not be waited for by a warp of its CTA.)
        let tensor: u64 = self
            .tensor_busy
            .iter()
            .zip(&self.tensor_free)
            .map(|(&busy, &free)| booked_within(busy, free, cycles))
            .sum();
        pipes.push(UnitUse {
            unit: "tensor".into(),
            busy_fraction: tensor as f64 / (4.0 * c),
        });
        pipes.push(UnitUse {
            unit: "tma".into(),
            busy_fraction: (self.tma_busy / c).min(1.0),
        });
        let l2_bytes = self.mem.l2_bw.bytes;
        let hbm_bytes = self.mem.hbm_bw.bytes;
        pipes.push(UnitUse {
            unit: "l2_bandwidth".into(),
            busy_fraction: (self.mem.l2_busy_cycles() / c).min(1.0),
        });
        let waves = grid.div_ceil((t.sm_count as u32) * resident.max(1));
        let ctas_for_busiest = grid.div_ceil(t.sm_count as u32);
        // Scale when fewer CTAs were simulated than the busiest SM runs.
        let scale = ctas_for_busiest as f64 / ctas_here.max(1) as f64;
        let kernel_cycles = cycles as f64 * scale;
        let kernel_us = kernel_cycles / t.clock_mhz;
        let flops = self.prog.flops_per_cta.map(|f| f * grid as f64);
        let bytes = self.prog.bytes_per_cta.map(|b| b * grid as f64);
        RunResult {
            kernel: self.kernel.name.clone(),
            profile: self.profile.name().to_string(),
            profile_validated: self.profile.file.validated,
            profile_note: self.profile.file.note.clone(),
            overrides: self.profile.overrides.clone(),
            seed: self.cfg.seed,
            policy: self.policy.as_dyn().name().to_string(),
            warm_l2: self.cfg.warm_l2.clone(),
            cycles,
            time_us: cycles as f64 / t.clock_mhz,
            clock_mhz: t.clock_mhz,
            instructions,
            issued_per_subpartition: issued,
            ipc: instructions as f64 / c,
            ctas_simulated: ctas_here,
            ctas_resident: resident,
            occupancy: occ,
            grid,
            waves,
            kernel_time_us: kernel_us,
            tflops: flops.map(|f| f / (kernel_us * 1e6)),
            gbps: bytes.map(|b| b / (kernel_us * 1e3)),
            hbm_gbps: hbm_bytes as f64 * grid as f64 / ctas_here.max(1) as f64 / (kernel_us * 1e3),
            units: pipes,
            memory: MemoryStats {
                requests_l1: self.mem_requests[0],
                requests_l2_near: self.mem_requests[1],
                requests_l2_far: self.mem_requests[2],
                requests_hbm: self.mem_requests[3],
                requests_shared: self.mem_requests[4],
                l2_bytes,
                hbm_bytes,
            },
            roles,
            warps: std::mem::take(&mut self.warp_summaries),
        }
    }
}

#[cfg(test)]
mod queue_tests {
    use super::Queue;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use std::collections::VecDeque;

    /// The queue as its contract states it: the entries taken and not yet left, in
    /// departure order, pruned at every look.
    struct Model {
        departs: VecDeque<u64>,
        depth: usize,
    }

    impl Model {
        fn prune(&mut self, now: u64) {
            self.departs.retain(|&d| d > now);
        }
        fn full_until(&mut self, now: u64) -> Option<u64> {
            self.prune(now);
            (self.departs.len() >= self.depth).then(|| self.departs[0])
        }
        fn push(&mut self, now: u64, depart: u64) {
            self.prune(now);
            if depart > now && self.departs.len() < self.depth {
                let at = self.departs.partition_point(|&d| d <= depart);
                self.departs.insert(at, depart);
            }
        }
    }

    /// Looks and pushes at non-decreasing cycles, departures mostly in order: the ring
    /// of the last entries answers as the pruned list does.
    #[test]
    fn queue_answers_as_its_pruned_entries() {
        for seed in 0..200 {
            let mut rng = StdRng::seed_from_u64(seed);
            let depth = rng.random_range(0..6);
            let (mut q, mut m) = (
                Queue::new(depth),
                Model {
                    departs: VecDeque::new(),
                    depth: depth.max(1),
                },
            );
            let mut now = 0u64;
            for step in 0..400 {
                now += rng.random_range(0..3);
                if rng.random_range(0..2) == 0 {
                    assert_eq!(
                        q.full_until(now),
                        m.full_until(now),
                        "seed {seed} step {step}"
                    );
                } else {
                    let depart = now + rng.random_range(0..12);
                    q.push(now, depart);
                    m.push(now, depart);
                }
            }
        }
    }
}
