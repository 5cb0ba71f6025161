//! The cycle loop. Each cycle, each of the four sub-partition schedulers looks at its
//! warps, puts each in exactly one state, and issues one eligible warp's instruction.
//!
//! A warp's state is recomputed only when it can have changed: classification returns,
//! with the state, the first cycle at which it might differ (`until`). When no warp is
//! eligible the loop jumps straight to the earliest such cycle (fast-forward); turning
//! fast-forward off steps every cycle and reclassifies every warp, and must give the
//! same result. State time is accounted in spans, so skipped cycles cost nothing.

mod async_units;
mod cycle;
mod global;
mod issue;
mod l1_crowd;
mod pipes;
mod predicate;
mod races;
mod report;
mod smem_share;
mod stall;
mod sts_read;
mod sync;
mod warp;
mod watchdog;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use isa::ast::Space;
use isa::opcode::{FixedClass, Op};
use isa::{Kernel, Pipe};

use crate::cause::{GroupKind, MbarrierOwed, WaitCause, Waited};
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

use pipes::*;
use stall::*;
use warp::*;
pub use watchdog::watchdog_cycles;

const NEVER: u64 = u64::MAX;

/// The most warps one run simulates (over every CTA of the SM's share of the grid):
/// each retired warp keeps its summary in the result, so a grid of 2^32 CTAs would
/// keep gigabytes. Beyond, the run refuses and suggests `max_ctas`.
pub const MAX_SIMULATED_WARPS: u64 = 1 << 20;

const NPIPES: usize = Pipe::ALL.len();

/// The most loop trips a warp may take in a row without reaching an instruction: they
/// cost no cycles, so a billion of them would hold the run in one cycle for minutes
/// (about 2^24 take a few tens of milliseconds).
const MAX_EMPTY_TRIPS: u32 = 1 << 24;

/// How to run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunConfig {
    /// The seed of the variable latencies (a run is a function of it).
    pub seed: u64,
    /// The warp-scheduling policy.
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

/// Runs `cfg.policy` with events pushed into `sink`: `run_with(.., cfg.policy.build(),
/// sink)`, with the policy held by value as [`run`] holds it (its lone pick inlined
/// into the cycle loop, not called through a box): the same result, faster.
pub fn run_sink<S: Sink>(
    kernel: &Kernel,
    profile: &Profile,
    cfg: &RunConfig,
    sink: &mut S,
) -> Result<RunResult, SimError> {
    run_scheduled(kernel, profile, cfg, cfg.policy.scheduler(), sink)
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

/// The first warpgroup instruction (HGMMA, WARPGROUP.*) of `kernel`, with its role.
fn hopper_only_instruction(kernel: &Kernel) -> Option<(&str, &isa::ast::Instr)> {
    fn find(stmts: &[isa::ast::Stmt]) -> Option<&isa::ast::Instr> {
        stmts.iter().find_map(|s| match s {
            isa::ast::Stmt::Instr(i) => {
                matches!(i.op, isa::Op::Hgmma | isa::Op::Warpgroup).then_some(i)
            }
            isa::ast::Stmt::Loop { body, .. } | isa::ast::Stmt::If { body, .. } => find(body),
        })
    }
    kernel
        .roles
        .iter()
        .find_map(|r| find(&r.body).map(|i| (r.name.as_str(), i)))
}

/// `run_with` of a policy as the engine holds it.
fn run_scheduled<S: Sink>(
    kernel: &Kernel,
    profile: &Profile,
    cfg: &RunConfig,
    policy: Scheduler,
    sink: &mut S,
) -> Result<RunResult, SimError> {
    Prepared::new(kernel, profile)?.run_scheduled(cfg, policy, sink)
}

/// A kernel lowered for a profile, ready to run under any [`RunConfig`]: what every run
/// of the pair does first (the kernel's clock, the lowering, the occupancy and the
/// checks that the kernel fits), done once. `smsim compare` runs each schedule on
/// several seeds; lowering fa3-forward took 2% of it per run.
pub struct Prepared<'k> {
    kernel: &'k Kernel,
    /// The profile at the kernel's clock (`Profile::for_kernel`).
    profile: std::borrow::Cow<'k, Profile>,
    prog: Program,
    occ: isa::occupancy::Occupancy,
    /// CTAs resident at once on an SM (before a run's `max_ctas`).
    resident: u32,
}

impl<'k> Prepared<'k> {
    /// Lowers `kernel` for `profile`; the errors a run of it would give before it starts.
    pub fn new(kernel: &'k Kernel, profile: &'k Profile) -> Result<Prepared<'k>, SimError> {
        // The kernel's clock, and the memory rates in its cycles.
        let profile = profile.for_kernel(kernel);
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
            [
                t.lat_mufu as u64,
                t.lat_convert as u64,
                t.lat_ldc as u64,
                t.lat_s2r as u64,
                t.lat_s2ur as u64,
            ],
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
        // Blackwell (a profile with tensor memory) has no warpgroup MMAs: their timing
        // there would be invented.
        if let (true, Some((role, i))) = (t.tmem_cols > 0.0, hopper_only_instruction(kernel)) {
            return Err(SimError::Invalid(format!(
                "line {}: role {role} issues {}, a Hopper (sm_90a) warpgroup instruction that the {} profile's GPU does not have (Blackwell has tcgen05, UTCMMA, instead); run it on a Hopper profile such as h100",
                i.span.line,
                i.mnemonic(),
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
        Ok(Prepared {
            kernel,
            profile,
            prog,
            occ,
            resident,
        })
    }

    /// [`run`] of the prepared kernel: the same result.
    pub fn run(&self, cfg: &RunConfig) -> Result<RunResult, SimError> {
        self.run_scheduled(cfg, cfg.policy.scheduler(), &mut NoSink)
    }

    /// [`run_sink`] of the prepared kernel: the same result and events.
    pub fn run_sink<S: Sink>(&self, cfg: &RunConfig, sink: &mut S) -> Result<RunResult, SimError> {
        self.run_scheduled(cfg, cfg.policy.scheduler(), sink)
    }

    /// A run of the prepared kernel with a policy as the engine holds it.
    fn run_scheduled<S: Sink>(
        &self,
        cfg: &RunConfig,
        policy: Scheduler,
        sink: &mut S,
    ) -> Result<RunResult, SimError> {
        let (kernel, profile, prog) = (self.kernel, &*self.profile, &self.prog);
        let occ = self.occ.clone();
        let t = &profile.t;
        let resident = self.resident;
        let grid = kernel.launch.grid.max(1);
        let sms = t.sm_count as u32;
        let mut ctas_here = grid.div_ceil(sms);
        if let Some(m) = cfg.max_ctas {
            ctas_here = ctas_here.min(m.max(1));
        }
        let warps_simulated = u64::from(ctas_here) * u64::from(occ.warps_per_cta);
        if warps_simulated > MAX_SIMULATED_WARPS {
            return Err(SimError::Invalid(format!(
                "the busiest SM runs {ctas_here} CTAs of this grid ({grid} CTAs over {sms} SMs), {warps_simulated} warps: more than the {MAX_SIMULATED_WARPS} one run simulates (each keeps its summary); simulate fewer with --max-ctas N (RunConfig::max_ctas), and the whole-kernel estimate scales them to the grid"
            )));
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
        let smem_used =
            (kernel.launch.smem as u64 + t.smem_reserved_per_cta as u64) * resident as u64;
        let l1_bytes =
            (t.l1_plus_smem_bytes as u64).saturating_sub(smem_used.next_multiple_of(8192));
        let mut e = Engine::new(
            kernel, profile, prog, cfg, policy, sink, resident, ctas_here, busy_sms, l1_bytes,
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
        // `buffer NAME size=S warm=W`: the first W bytes start in L2.
        for (b, buf) in kernel.buffers.iter().enumerate() {
            let (base, warm) = (e.buffer_base[b], buf.warm.min(e.buffer_size[b]));
            if warm > 0 {
                e.mem.warm_l2(base / LINE, (base + warm - 1) / LINE);
            }
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
}

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
    /// The cluster barrier (UCGABAR): this CTA's warps arrived in its current phase, the
    /// phases completed, and when the last completed one lets its waiters go.
    cga_arrived: u32,
    cga_phases: u32,
    cga_release: u64,
    /// Per warpgroup, the tensor-pipe slots of its last few warpgroup MMAs.
    wg_mma: [[MmaBooking; MMA_BOOKINGS]; 8],
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
    /// Per pipe, what a warp-instruction takes of its sub-partition's tensor core (0:
    /// nothing): `mufu_tensor_cycles` for MUFU, `fma_tensor_cycles` for FMA.
    tensor_hold: [u64; NPIPES],
    /// Per pipe, what its issue interval grows by while the sub-partition's tensor core
    /// has an MMA to run (0: nothing): `mufu_beside_tensor_cycles` for MUFU,
    /// `alu_beside_tensor_cycles` for the ALU pipe.
    beside_tensor: [u64; NPIPES],
    /// Per pipe, how long a warp-instruction issued while its sub-partition's tensor core
    /// has an MMA to run holds the sub-partition's math pipes (0: none; `Paced::book`):
    /// `fma_port_beside_tensor_cycles`, `alu_...`, `mufu_...`.
    beside_port: [u64; NPIPES],
    smem_free: f64,
    /// When shared memory's read side (LDS, shuffles) and write side (STS) are next free;
    /// copies book nothing here (`smem_share`: they slow the accesses beside them).
    smem_side_free: [f64; 2],
    /// Cycles each side was booked, copies' side time included: with the crossbar's
    /// `smem_busy`, the shared-memory bound is the busiest of the three.
    smem_side_busy: [f64; 2],
    /// Cycles the shared-memory crossbar was booked (its wavefronts at its rate), and
    /// the bytes shared loads and stores moved through it: the shared-memory bound.
    smem_busy: f64,
    smem_bytes: u64,
    l1_free: f64,
    /// Completions of the scattered L1 reads in flight (`l1_crowd`).
    l1_scattered: Vec<u64>,
    /// Copies landing in shared memory: (from, held until, until) cycles and the write
    /// queue their bytes go through (`smem_share`): a store reaching the queue in
    /// `from..held until` is written at `until`.
    landing: Vec<(f64, f64, f64, usize)>,
    /// Each write queue's next free cycle, with `smem_write_queue` on (`smem_share`).
    smem_write_free: [f64; smem_share::WRITE_QUEUES],
    /// Per sub-partition, when its store path has read the registers of its last
    /// shared store (`sts_read`).
    sts_path_free: [f64; 4],
    /// Bulk stores reading shared memory: (from, until) cycles (`smem_share`).
    reading: Vec<(f64, f64)>,
    /// Cycles L1TEX's line rate was booked: the LSU bound.
    l1_busy: f64,
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
    /// The lanes the instruction being issued runs for: all, except under a guard
    /// whose declared truth reads `lane` (`predicate.rs`).
    active_lanes: u32,
    lines: Vec<(u64, u32)>,
    next_cta: u32,
    /// CTAs launched or about to be (a launch waits `cta_launch_cycles`): several CTAs
    /// that finish within that wait must not start more CTAs than remain.
    ctas_claimed: u32,
    ctas_total: u32,
    ctas_done: u32,
    /// The cycle each CTA finished, in order of finishing: the whole-kernel estimate
    /// of a run of fewer CTAs than the SM's share tells the first wave from the rest.
    cta_done_cycles: Vec<u64>,
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
    /// Per warp slot, the mbarrier (flat number) of the last wait it passed
    /// (`u32::MAX`: none): a fault of a later arrive names it, as the likely cause.
    passed_mbar: Vec<u32>,
}

/// A warp's code before its first launch.
static NO_CODE: Vec<Node> = Vec::new();

/// A warp's `node_text` before its first launch.
static NO_TEXT: Vec<u32> = Vec::new();

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
                warps.push(Warp::unlaunched(c, w, sp));
            }
        }
        let ctas = (0..resident)
            .map(|_| Cta::unlaunched(prog.mbar_total as usize))
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
            tensor_hold: {
                let mut h = [0u64; NPIPES];
                h[Pipe::Mufu.index()] = t.mufu_tensor_cycles.round() as u64;
                h[Pipe::Fma.index()] = t.fma_tensor_cycles.round() as u64;
                h
            },
            beside_tensor: {
                let mut b = [0u64; NPIPES];
                b[Pipe::Mufu.index()] = t.mufu_beside_tensor_cycles as u64;
                b[Pipe::Alu.index()] = t.alu_beside_tensor_cycles as u64;
                b
            },
            beside_port: {
                let mut b = [0u64; NPIPES];
                b[Pipe::Fma.index()] = t.fma_port_beside_tensor_cycles as u64;
                b[Pipe::Alu.index()] = t.alu_port_beside_tensor_cycles as u64;
                b[Pipe::Mufu.index()] = t.mufu_port_beside_tensor_cycles as u64;
                b
            },
            smem_free: 0.0,
            smem_side_free: [0.0; 2],
            smem_side_busy: [0.0; 2],
            smem_busy: 0.0,
            smem_bytes: 0,
            l1_busy: 0.0,
            l1_free: 0.0,
            l1_scattered: Vec::new(),
            landing: Vec::new(),
            smem_write_free: [0.0; smem_share::WRITE_QUEUES],
            sts_path_free: [0.0; 4],
            reading: Vec::new(),
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
            active_lanes: u32::MAX,
            lines: Vec::with_capacity(64),
            next_cta: 0,
            ctas_claimed: 0,
            ctas_total,
            ctas_done: 0,
            cta_done_cycles: Vec::with_capacity(ctas_total as usize),
            pcs: (0..pcs).map(|_| PcTotals::default()).collect(),
            role_pc_base,
            buffer_base,
            buffer_size,
            mem_requests: [0; 5],
            warp_summaries: Vec::new(),
            age_counter: 0,
            passed_mbar: vec![u32::MAX; resident as usize * wpc as usize],
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
            cta: w.cta_id,
            warp: w.warp,
        }
    }

    /// A node of the warp's role as events name it: the instruction's number in the
    /// reports (`RoleCode::node_text`), not the node's.
    fn event_pc(&self, slot: u32, node: u32) -> u32 {
        self.warps[slot as usize].node_text[node as usize]
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

    fn instr(&self, slot: u32) -> &'a DInstr {
        self.warps[slot as usize]
            .cur
            .expect("settle leaves live warps that have not exited on instructions")
    }
}

impl Cta {
    /// A CTA slot before any launch, with room for `mbars` mbarriers.
    fn unlaunched(mbars: usize) -> Cta {
        Cta {
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
                mbars
            ],
            bars: [NamedBar::default(); 16],
            wg_arrived: [0; 8],
            cga_arrived: 0,
            cga_phases: 0,
            cga_release: 0,
            wg_mma: [[MmaBooking::default(); MMA_BOOKINGS]; 8],
        }
    }
}
