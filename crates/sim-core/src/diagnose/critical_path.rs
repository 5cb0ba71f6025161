//! The critical path of a run: from the cycle the last warp finished, back through what
//! each wait waited on, to the start. A wait on an mbarrier whose copies were in flight
//! continues at the copy's start in the warp that issued it; a wait for an mbarrier's
//! arrivals at the last arriving warp's arrive; a named barrier at the last warp to
//! reach it; a wait on wgmma groups at the start of the MMA whose completion ended it,
//! and from there back through the MMAs that kept the tensor pipe busy before it (any
//! warpgroup's) to the issue of the first that found it idle; a wait on a register
//! that a variable-latency instruction (a load, MUFU, a shuffle) writes at that
//! instruction's issue in the same warp; every other state (issue, a fixed latency, a
//! busy pipe) stays on the same warp, whose own earlier instructions lie on the path.
//!
//! The path's segments tile `[0, end)`: summed by category they say what decided the
//! run's length, and a wait off the path cost nothing.
//!
//! [`PathRecorder`] is the sink that keeps what the walk needs (the warps' state
//! intervals with their typed causes, the arrives and barrier issues, the phases,
//! releases and copies); [`run_with_path`] runs a kernel with it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use isa::Pipe;
use serde::Serialize;

use crate::cause::{GroupKind, WaitCause};
use crate::sink::{Event, RunHeader, Sink, Unit, WarpId};
use crate::{Profile, RunConfig, RunResult, SimError, WarpState};

/// What a stretch of the critical path was spent on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathCategory {
    /// Issuing instructions (`selected`).
    Issue,
    /// Eligible but not issued: another warp took the slot, dispatch, fetch, branch.
    IssueSlots,
    /// Fixed-latency dependencies and stall counts (`wait`).
    FixedLatency,
    /// Global and local memory: loads' latency, LSU queue, fences, drains.
    MemoryLatency,
    /// Shared memory, MUFU and shuffles (`short_scoreboard`, `mio_throttle`).
    SharedMemoryMufu,
    /// TMA copies in flight, from their start to their landing.
    TmaCopies,
    /// The tensor pipe: warpgroup MMAs waited for, the pipe or its queue full.
    TensorPipe,
    /// A busy FMA, ALU, FP64 or MUFU pipe.
    MathPipes,
    /// An mbarrier phase waiting for another warp's arrive (its signal included).
    Arrivals,
    /// A named barrier waiting for its last warp.
    Barriers,
    /// Sleeping or other waits the walk could not follow to their cause.
    Unfollowed,
    /// Before the path's first warp was launched (earlier CTAs on the SM).
    Launch,
}

impl PathCategory {
    /// The category's name for a reader.
    pub fn label(self) -> &'static str {
        match self {
            PathCategory::Issue => "issue",
            PathCategory::IssueSlots => "issue slots (not selected, dispatch)",
            PathCategory::FixedLatency => "fixed latency",
            PathCategory::MemoryLatency => "global memory latency",
            PathCategory::SharedMemoryMufu => "shared memory / MUFU",
            PathCategory::TmaCopies => "TMA copies in flight",
            PathCategory::TensorPipe => "tensor pipe",
            PathCategory::MathPipes => "math pipes",
            PathCategory::Arrivals => "mbarrier arrivals by another warp",
            PathCategory::Barriers => "named barriers",
            PathCategory::Unfollowed => "unfollowed waits",
            PathCategory::Launch => "before launch",
        }
    }
}

/// An instruction of the path with the cycles charged to it there.
#[derive(Clone, Debug, Serialize)]
pub struct PathInstruction {
    /// Its role.
    pub role: String,
    /// Its number in the role's text.
    pub pc: u32,
    /// Its text.
    pub instruction: String,
    /// What the cycles were spent on.
    pub category: PathCategory,
    /// Cycles of the path charged to it.
    pub cycles: u64,
}

/// A run's critical path, summed.
#[derive(Clone, Debug, Serialize)]
pub struct CriticalPath {
    /// The cycle the path ends: the last warp's finish.
    pub end: u64,
    /// Cycles per category, largest first (they sum to `end`).
    pub by_category: Vec<(PathCategory, u64)>,
    /// The instructions on the path, most cycles first.
    pub instructions: Vec<PathInstruction>,
    /// How many times the path moves from one warp to another.
    pub hops: u32,
}

impl CriticalPath {
    /// Cycles of `c` on the path.
    pub fn cycles_of(&self, c: PathCategory) -> u64 {
        self.by_category
            .iter()
            .find(|x| x.0 == c)
            .map_or(0, |x| x.1)
    }

    /// `c`'s share of the path.
    pub fn share_of(&self, c: PathCategory) -> f64 {
        self.cycles_of(c) as f64 / self.end.max(1) as f64
    }
}

/// What a state waited on, kept small.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Waiting {
    Own,
    /// A register the instruction at this pc of the role writes.
    Producer(u32),
    Pipe(Pipe),
    Barrier(u32),
    /// An mbarrier phase, by the mbarrier's number. (The cause's own `lands` is what
    /// the engine knew when the wait began: copies issued later are not in it, so the
    /// walk asks the phase's completion instead.)
    Mbarrier(u32),
    Group(GroupKind),
}

#[derive(Clone, Copy, Debug)]
struct Interval {
    start: u64,
    state: WarpState,
    pc: u32,
    waiting: Waiting,
}

/// An [`Interval`] as a recorder keeps it: 16 bytes, not 24 (a recorded run keeps
/// millions: its pages were a tenth of `smsim compare`'s time). `word`: the start in
/// the low [`START_BITS`] bits, above it the state's index and the kind of wait
/// (`Waiting`'s variant); `what`: the wait's number (a pc, a pipe's index, a barrier,
/// an mbarrier, a group kind).
#[derive(Clone, Copy, Debug)]
struct Packed {
    word: u64,
    pc: u32,
    what: u32,
}

/// Bits of a packed interval's start: a run whose warp changes state past cycle
/// 2^48 (a nanosleep of days under a raised watchdog) gives up its path, as one past
/// [`MAX_STATE_CHANGES`] does.
const START_BITS: u32 = 48;

impl Packed {
    /// None when the start does not fit.
    fn of(iv: Interval) -> Option<Packed> {
        if iv.start >> START_BITS != 0 {
            return None;
        }
        let (kind, what) = match iv.waiting {
            Waiting::Own => (0, 0),
            Waiting::Producer(p) => (1, p),
            Waiting::Pipe(p) => (2, p.index() as u32),
            Waiting::Barrier(b) => (3, b),
            Waiting::Mbarrier(m) => (4, m),
            Waiting::Group(g) => (5, g as u32),
        };
        let high = (iv.state.index() as u64) | kind << 8;
        Some(Packed {
            word: iv.start | high << START_BITS,
            pc: iv.pc,
            what,
        })
    }

    fn start(&self) -> u64 {
        self.word & ((1 << START_BITS) - 1)
    }

    fn unpack(&self) -> Interval {
        let high = self.word >> START_BITS;
        let state = WarpState::ALL[(high & 0xff) as usize % WarpState::ALL.len()];
        let waiting = match high >> 8 {
            0 => Waiting::Own,
            1 => Waiting::Producer(self.what),
            2 => Waiting::Pipe(Pipe::ALL[self.what as usize % Pipe::ALL.len()]),
            3 => Waiting::Barrier(self.what),
            4 => Waiting::Mbarrier(self.what),
            _ => Waiting::Group(match self.what {
                0 => GroupKind::Wgmma,
                1 => GroupKind::CpAsync,
                _ => GroupKind::BulkStore,
            }),
        };
        Interval {
            start: self.start(),
            state,
            pc: self.pc,
            waiting,
        }
    }
}

/// Something per warp, by its slot in the run (`cta * warps_per_cta + warp`): a
/// vector, not a map, since every event names a warp.
struct PerWarp<T> {
    wpc: usize,
    v: Vec<T>,
}

impl<T> Default for PerWarp<T> {
    fn default() -> Self {
        PerWarp { wpc: 0, v: vec![] }
    }
}

impl<T: Default> PerWarp<T> {
    fn slot(&self, w: WarpId) -> usize {
        w.cta as usize * self.wpc.max(1) + w.warp as usize
    }

    fn get(&self, w: WarpId) -> Option<&T> {
        self.v.get(self.slot(w))
    }

    // A call per state change and per issue, not inlined by itself.
    #[inline(always)]
    fn entry(&mut self, w: WarpId) -> &mut T {
        let i = self.slot(w);
        if i >= self.v.len() {
            self.grow(i + 1);
        }
        &mut self.v[i]
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, len: usize) {
        self.v.resize_with(len, T::default);
    }

    fn iter(&self) -> impl Iterator<Item = (WarpId, &T)> {
        let wpc = self.wpc.max(1);
        self.v.iter().enumerate().map(move |(i, x)| {
            let w = WarpId {
                cta: (i / wpc) as u32,
                warp: (i % wpc) as u32,
            };
            (w, x)
        })
    }
}

/// A map keyed by cycles, hashed by one multiplication (std's SipHash was a seventh of
/// a recorded run).
type CycleMap<V> = HashMap<u64, V, BuildHasherDefault<CycleHasher>>;

/// Fibonacci hashing of a u64 key.
#[derive(Default)]
struct CycleHasher(u64);

impl Hasher for CycleHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    // (The walk's keys: a role, a pc and a category's discriminant.)
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
}

/// A map of the walk's few small keys, hashed as [`CycleMap`]'s (std's SipHash was
/// most of a charge to the path).
type SmallMap<K, V> = HashMap<K, V, BuildHasherDefault<CycleHasher>>;

/// State changes a [`PathRecorder`] keeps at most (16 bytes each, and their vectors' room): a longer run
/// gives up its path rather than the host's memory.
pub const MAX_STATE_CHANGES: usize = 1 << 24;

/// The sink that keeps what the critical path needs.
#[derive(Default)]
pub struct PathRecorder {
    /// State changes kept so far; past [`MAX_STATE_CHANGES`] the record is dropped
    /// and `overflowed` set.
    kept: usize,
    overflowed: bool,
    /// A warpgroup MMA's latency after its pipe time (`hgmma_latency`): its group
    /// completes this long after its busy interval ends.
    mma_latency: u64,
    /// Per end of a tensor-pipe busy interval: its start and a warp whose MMA it is.
    /// (The four warps of a warpgroup book the same interval: one is kept.)
    mma_by_end: CycleMap<(u64, WarpId)>,
    /// Per warp: its tensor-pipe busy intervals `(start, end)` in order.
    mma_of_warp: PerWarp<Vec<(u64, u64)>>,
    /// Per role: which instructions are warpgroup MMAs; per warp: their issues
    /// `(cycle, pc)` in order.
    mmas: Vec<Vec<bool>>,
    mma_issues: PerWarp<Vec<(u64, u32)>>,
    /// Per role: which instructions have a variable latency (loads, MUFU, shuffles);
    /// per warp: their issues `(cycle, pc)` in order.
    variable: Vec<Vec<bool>>,
    variable_issues: PerWarp<Vec<(u64, u32)>>,
    header: Option<RunHeader>,
    /// Per warp: its states in order, and its finish.
    intervals: PerWarp<Vec<Packed>>,
    finish: PerWarp<Option<u64>>,
    /// Per role: which instructions arrive on an mbarrier (with the array's name) or
    /// sync at a named barrier.
    arrives: Vec<Vec<Option<String>>>,
    bars: Vec<Vec<bool>>,
    /// Per role, per instruction: which of the above it is (`ISSUE_*` bits; 0 for
    /// most), so that an issue of none costs one look-up.
    issue_kinds: Vec<Vec<u8>>,
    /// Per CTA: arrive issues (cycle, warp, mbarrier array) and barrier issues.
    arrive_issues: HashMap<u32, Vec<(u64, u32, String)>>,
    bar_issues: HashMap<u32, Vec<(u64, u32)>>,
    /// Per (CTA, barrier id): release cycles.
    releases: HashMap<(u32, u32), Vec<u64>>,
    /// Per (CTA, mbarrier number): phase completion cycles.
    phases: HashMap<(u32, u32), Vec<u64>>,
    /// Per landing cycle: a request's start and the warp that made it. (Not per CTA:
    /// a multicast copy that one CTA of a cluster issued lands in its partner's too.)
    copies: CycleMap<(u64, WarpId)>,
    /// Per role: whether it issues bulk or tensor copies (only their warps' memory
    /// requests can complete an mbarrier phase's bytes).
    copiers: Vec<bool>,
    /// Per role: the most state changes a finished warp of it had, which a new warp of
    /// the role reserves room for at its first (a growing vector's copies were a fifth
    /// of a recorded run's page faults).
    typical_changes: Vec<usize>,
}

impl PathRecorder {
    /// An issue of instruction `p` of role `r`, of the kinds `k` (`ISSUE_*`, not 0).
    #[inline(never)]
    fn issue_of_kinds(&mut self, cycle: u64, warp: WarpId, r: usize, p: usize, k: u8) {
        let pc = p as u32;
        if k & ISSUE_ARRIVE != 0
            && let Some(Some(array)) = self.arrives.get(r).and_then(|x| x.get(p))
        {
            self.arrive_issues
                .entry(warp.cta)
                .or_default()
                .push((cycle, warp.warp, array.clone()));
        }
        if k & ISSUE_VARIABLE != 0 {
            self.variable_issues.entry(warp).push((cycle, pc));
        }
        if k & ISSUE_MMA != 0 {
            self.mma_issues.entry(warp).push((cycle, pc));
        }
        if k & ISSUE_BAR != 0 {
            self.bar_issues
                .entry(warp.cta)
                .or_default()
                .push((cycle, warp.warp));
        }
    }

    /// A warp's first state change: room for as many as a finished warp of its role
    /// had, and an eighth more.
    #[cold]
    #[inline(never)]
    fn reserve_intervals(&mut self, warp: WarpId) {
        let role = self.role_of(warp.warp) as usize;
        if let Some(&n) = self.typical_changes.get(role)
            && n > 0
        {
            self.intervals.entry(warp).reserve_exact(n + n / 8);
        }
    }

    /// Empties the recorder for another run on `profile`, keeping its buffers: a run
    /// of fa3-forward at its seed's shape keeps ~36 MB of state changes, and a fresh
    /// recorder per run faulted them in anew (a tenth of `smsim compare`'s time). The
    /// path of the next run is the one a new recorder would give.
    pub fn reset(&mut self, profile: &Profile) {
        // (Every field named: a field added later must say here what a reset does.)
        let PathRecorder {
            kept,
            overflowed,
            mma_latency,
            mma_by_end,
            mma_of_warp,
            mmas,
            mma_issues,
            variable,
            variable_issues,
            header,
            intervals,
            finish,
            arrives,
            bars,
            issue_kinds,
            arrive_issues,
            bar_issues,
            releases,
            phases,
            copies,
            copiers,
            typical_changes,
        } = self;
        *kept = 0;
        *overflowed = false;
        *mma_latency = profile.t.hgmma_latency as u64;
        *header = None;
        // Per-warp vectors keep their slots and their room; an empty slot reads as
        // one never written (`PerWarp::get` of an empty vector finds nothing in it).
        for v in &mut mma_of_warp.v {
            v.clear();
        }
        for v in mma_issues.v.iter_mut().chain(&mut variable_issues.v) {
            v.clear();
        }
        for v in &mut intervals.v {
            v.clear();
        }
        // (`walk` reads every slot's finish: none may stay.)
        finish.v.clear();
        mma_by_end.clear();
        copies.clear();
        mmas.clear();
        variable.clear();
        arrives.clear();
        bars.clear();
        issue_kinds.clear();
        copiers.clear();
        arrive_issues.clear();
        bar_issues.clear();
        releases.clear();
        phases.clear();
        // (Only room to reserve: a new kernel's roles are other roles.)
        typical_changes.clear();
    }

    /// Past [`MAX_STATE_CHANGES`]: everything kept goes (the path needs all of it).
    #[cold]
    #[inline(never)]
    fn overflow(&mut self) {
        let header = self.header.take();
        *self = PathRecorder {
            overflowed: true,
            header,
            ..PathRecorder::default()
        };
    }
}

/// `PathRecorder::issue_kinds`' bits: an instruction that arrives on an mbarrier, has a
/// variable latency, is a warpgroup MMA, syncs at a named barrier.
const ISSUE_ARRIVE: u8 = 1;
const ISSUE_VARIABLE: u8 = 2;
const ISSUE_MMA: u8 = 4;
const ISSUE_BAR: u8 = 8;

/// Whether an opcode's result comes after a variable latency (a load through L1TEX or
/// shared memory, MUFU, a shuffle): a wait on it goes back to its issue. (Fixed
/// latencies are the few cycles right after the producer's issue: the warp's own
/// states cover them.)
fn variable_latency(op: &str) -> bool {
    ["LDG", "LDL", "LDS", "ATOM", "MUFU", "SHFL", "LDTM"]
        .iter()
        .any(|p| op.starts_with(p))
}

/// The array an instruction's first mbarrier operand names: `full` of `full[k % 4]`.
fn mbarrier_array(text: &str) -> Option<String> {
    let operand = text.split_whitespace().nth(1)?;
    let name = operand.split('[').next()?;
    Some(name.trim_end_matches(',').to_string())
}

impl Sink for PathRecorder {
    // (Each warp's intervals stay in cycle order: all it needs.)
    const STATES_AHEAD: bool = true;

    fn begin(&mut self, header: &RunHeader) {
        for r in &header.roles {
            let ops = r.instructions.iter().map(|i| {
                let op = i.text.split_whitespace().next().unwrap_or("");
                (op.to_string(), i.text.clone())
            });
            self.arrives.push(
                ops.clone()
                    .map(|(op, text)| {
                        (op.starts_with("SYNCS.ARRIVE") || op.starts_with("UTCBAR"))
                            .then(|| mbarrier_array(&text))
                            .flatten()
                    })
                    .collect(),
            );
            self.bars
                .push(ops.clone().map(|(op, _)| op.starts_with("BAR.")).collect());
            self.mmas
                .push(ops.clone().map(|(op, _)| op.starts_with("HGMMA")).collect());
            self.variable
                .push(ops.map(|(op, _)| variable_latency(&op)).collect());
            let r = self.arrives.len() - 1;
            let kinds = (0..self.arrives[r].len())
                .map(|p| {
                    [
                        (self.arrives[r][p].is_some(), ISSUE_ARRIVE),
                        (self.variable[r][p], ISSUE_VARIABLE),
                        (self.mmas[r][p], ISSUE_MMA),
                        (self.bars[r][p], ISSUE_BAR),
                    ]
                    .iter()
                    .filter(|x| x.0)
                    .fold(0, |k, x| k | x.1)
                })
                .collect();
            self.issue_kinds.push(kinds);
        }
        let wpc = header.warps_per_cta as usize;
        for m in [&mut self.intervals.wpc, &mut self.finish.wpc] {
            *m = wpc;
        }
        self.mma_of_warp.wpc = wpc;
        self.mma_issues.wpc = wpc;
        self.variable_issues.wpc = wpc;
        self.copiers = header
            .roles
            .iter()
            .map(|r| {
                r.instructions.iter().any(|i| {
                    let op = i.text.split_whitespace().next().unwrap_or("");
                    op.starts_with("UBLKCP") || op.starts_with("UTMALDG")
                })
            })
            .collect();
        self.header = Some(header.clone());
    }

    // Inlined into the engine's state changes: no event built or moved (compare
    // records a path for each schedule's first seed).
    #[inline(always)]
    fn state_change(
        &mut self,
        cycle: u64,
        warp: WarpId,
        state: WarpState,
        pc: u32,
        cause: Option<WaitCause>,
    ) {
        if self.overflowed {
            return;
        }
        self.kept += 1;
        if self.kept > MAX_STATE_CHANGES {
            self.overflow();
            return;
        }
        let waiting = match cause {
            Some(WaitCause::Producer { pc: Some(p), .. }) => Waiting::Producer(p),
            None | Some(WaitCause::Producer { .. } | WaitCause::WarpgroupArrive { .. }) => {
                Waiting::Own
            }
            Some(WaitCause::Pipe { pipe, .. }) => Waiting::Pipe(pipe),
            Some(WaitCause::Barrier { id, .. }) => Waiting::Barrier(id),
            Some(WaitCause::Mbarrier { mbarrier, .. }) => Waiting::Mbarrier(mbarrier),
            Some(WaitCause::WaitGroup { group, .. }) => Waiting::Group(group),
        };
        let v = self.intervals.entry(warp);
        if v.is_empty() {
            self.reserve_intervals(warp);
        }
        let Some(packed) = Packed::of(Interval {
            start: cycle,
            state,
            pc,
            waiting,
        }) else {
            self.overflow();
            return;
        };
        self.intervals.entry(warp).push(packed);
    }

    // Inlined into the engine's short issues (most of a run's): an instruction of
    // none of the kinds the path follows costs one look-up.
    #[inline(always)]
    fn issue(&mut self, cycle: u64, warp: WarpId, _subpartition: u8, role: u16, pc: u32) {
        let (r, p) = (role as usize, pc as usize);
        let kinds = self.issue_kinds.get(r).and_then(|x| x.get(p)).copied();
        if let Some(k) = kinds.filter(|&k| k != 0)
            && !self.overflowed
        {
            self.issue_of_kinds(cycle, warp, r, p, k);
        }
    }

    // Inlined likewise: only the tensor pipe's busy time is kept.
    #[inline(always)]
    fn unit_busy(&mut self, start: u64, end: u64, unit: Unit, warp: WarpId) {
        if let Unit::Pipe {
            pipe: Pipe::Tensor, ..
        } = unit
            && !self.overflowed
        {
            self.mma_by_end.entry(end).or_insert((start, warp));
            self.mma_of_warp.entry(warp).push((start, end));
        }
    }

    fn event(&mut self, e: Event) {
        if self.overflowed {
            return;
        }
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause,
            } => self.state_change(cycle, warp, state, pc, cause),
            Event::WarpFinish { cycle, warp } => {
                *self.finish.entry(warp) = Some(cycle);
                let (role, n) = (
                    self.role_of(warp.warp) as usize,
                    self.intervals.entry(warp).len(),
                );
                if self.typical_changes.len() <= role {
                    self.typical_changes.resize(role + 1, 0);
                }
                self.typical_changes[role] = self.typical_changes[role].max(n);
            }
            Event::Issue {
                cycle,
                warp,
                subpartition,
                role,
                pc,
            } => self.issue(cycle, warp, subpartition, role, pc),
            Event::MbarrierPhase {
                cycle,
                cta,
                mbarrier,
                ..
            } => {
                self.phases.entry((cta, mbarrier)).or_default().push(cycle);
            }
            Event::BarrierRelease { cycle, cta, id } => {
                self.releases.entry((cta, id)).or_default().push(cycle);
            }
            Event::UnitBusy {
                start,
                end,
                unit,
                warp,
            } => self.unit_busy(start, end, unit, warp),
            Event::Memory {
                cycle, done, warp, ..
            } => {
                // (Of requests landing together, the first kept: one start is enough.)
                let role = self.role_of(warp.warp) as usize;
                if self.copiers.get(role) == Some(&true) {
                    self.copies.entry(done).or_insert((cycle, warp));
                }
            }
            _ => {}
        }
    }
}

/// Runs `kernel` with a [`PathRecorder`] and returns the result and its critical path.
pub fn run_with_path(
    kernel: &isa::Kernel,
    profile: &Profile,
    cfg: &RunConfig,
) -> Result<(RunResult, CriticalPath), SimError> {
    run_prepared_with_path(&crate::Prepared::new(kernel, profile)?, profile, cfg)
}

/// `run_with_path` of a kernel prepared once for several runs (`profile` the one it
/// was prepared for).
pub fn run_prepared_with_path(
    prepared: &crate::Prepared,
    profile: &Profile,
    cfg: &RunConfig,
) -> Result<(RunResult, CriticalPath), SimError> {
    run_prepared_with_path_into(prepared, profile, cfg, &mut PathRecorder::new(profile))
}

/// [`run_prepared_with_path`] recording into `rec`, reset first ([`PathRecorder::reset`]):
/// a caller with several runs to record keeps one recorder, and its buffers' pages.
pub fn run_prepared_with_path_into(
    prepared: &crate::Prepared,
    profile: &Profile,
    cfg: &RunConfig,
    rec: &mut PathRecorder,
) -> Result<(RunResult, CriticalPath), SimError> {
    rec.reset(profile);
    let r = prepared.run_sink(cfg, rec)?;
    let path = rec.walk();
    Ok((r, path))
}

/// The category of a state that stays on its warp.
fn own_category(state: WarpState, waiting: Waiting) -> PathCategory {
    match (state, waiting) {
        (_, Waiting::Pipe(Pipe::Tensor)) => PathCategory::TensorPipe,
        (_, Waiting::Pipe(Pipe::Mio)) => PathCategory::SharedMemoryMufu,
        (_, Waiting::Pipe(Pipe::Lsu)) => PathCategory::MemoryLatency,
        (_, Waiting::Pipe(Pipe::Tma)) => PathCategory::TmaCopies,
        (_, Waiting::Pipe(_)) => PathCategory::MathPipes,
        (_, Waiting::Group(GroupKind::Wgmma)) => PathCategory::TensorPipe,
        (_, Waiting::Group(_)) => PathCategory::MemoryLatency,
        // (Whatever Nsight names the state: a try-wait is `long_scoreboard` there.)
        (_, Waiting::Mbarrier(_)) => PathCategory::Unfollowed,
        (_, Waiting::Barrier(_)) => PathCategory::Barriers,
        (WarpState::Selected, _) => PathCategory::Issue,
        (WarpState::Gmma, _) => PathCategory::TensorPipe,
        (WarpState::MathPipeThrottle, _) => PathCategory::MathPipes,
        (WarpState::Wait, _) => PathCategory::FixedLatency,
        (
            WarpState::LongScoreboard
            | WarpState::LgThrottle
            | WarpState::TexThrottle
            | WarpState::Membar
            | WarpState::Drain,
            _,
        ) => PathCategory::MemoryLatency,
        (WarpState::ShortScoreboard | WarpState::MioThrottle, _) => PathCategory::SharedMemoryMufu,
        (WarpState::Barrier, _) => PathCategory::Barriers,
        (WarpState::Sleeping, _) => PathCategory::Unfollowed,
        (
            WarpState::NotSelected
            | WarpState::DispatchStall
            | WarpState::BranchResolving
            | WarpState::NoInstruction
            | WarpState::ImcMiss
            | WarpState::Misc,
            _,
        ) => PathCategory::IssueSlots,
    }
}

struct Walk<'a> {
    rec: &'a PathRecorder,
    by_category: SmallMap<PathCategory, u64>,
    by_pc: SmallMap<(u32, u32, PathCategory), u64>,
}

impl Walk<'_> {
    fn charge(&mut self, w: WarpId, iv: &Interval, c: PathCategory, cycles: u64) {
        *self.by_category.entry(c).or_default() += cycles;
        let role = self.rec.role_of(w.warp);
        *self.by_pc.entry((role, iv.pc, c)).or_default() += cycles;
    }
}

impl PathRecorder {
    /// A recorder for a run on `profile`.
    pub fn new(profile: &Profile) -> PathRecorder {
        PathRecorder {
            mma_latency: profile.t.hgmma_latency as u64,
            ..PathRecorder::default()
        }
    }

    /// The MMA of `w` whose group's completion ended a wait at `t` (its busy interval
    /// ends `mma_latency` before; else the latest that completed by `t`), and the
    /// chain of MMAs that kept the tensor pipe busy up to its start: each `(start,
    /// end, warp)`, latest first. The last one found the pipe idle.
    fn mma_chain(&self, w: WarpId, t: u64) -> Vec<(u64, u64, WarpId)> {
        let Some(v) = self.mma_of_warp.get(w) else {
            return vec![];
        };
        let done = |e: u64| e + self.mma_latency;
        let Some(&(mut start, end)) = v
            .iter()
            .rev()
            .find(|&&(_, e)| done(e) == t)
            .or_else(|| v.iter().rev().find(|&&(_, e)| done(e) <= t))
        else {
            return vec![];
        };
        let mut chain = vec![(start, end, w)];
        while let Some(&(s, by)) = self.mma_by_end.get(&start).filter(|(s, _)| *s < start) {
            chain.push((s, start, by));
            start = s;
        }
        chain
    }

    /// The issue of the instruction at `pc` that `w` made last before `t`: its cycle.
    fn producer_issue(&self, w: WarpId, pc: u32, t: u64) -> Option<u64> {
        let v = self.variable_issues.get(w)?;
        let i = v.partition_point(|&(c, _)| c < t);
        v[..i].iter().rev().find(|x| x.1 == pc).map(|x| x.0)
    }

    /// The warpgroup MMA instruction `w` issued last at or before `t`: its cycle and pc.
    fn mma_issue(&self, w: WarpId, t: u64) -> Option<(u64, u32)> {
        let v = self.mma_issues.get(w)?;
        let i = v.partition_point(|&(c, _)| c <= t).checked_sub(1)?;
        Some(v[i])
    }

    fn role_of(&self, warp: u32) -> u32 {
        self.header
            .as_ref()
            .and_then(|h| {
                h.roles
                    .iter()
                    .position(|r| (r.first_warp..=r.last_warp).contains(&warp))
            })
            .unwrap_or(0) as u32
    }

    /// The state of `w` at cycle `t - 1`: its interval and the interval's end.
    fn interval_before(&self, w: WarpId, t: u64) -> Option<(Interval, u64)> {
        let v = self.intervals.get(w)?;
        let i = v.partition_point(|iv| iv.start() < t).checked_sub(1)?;
        let end = v.get(i + 1).map_or_else(
            || self.finish.get(w).copied().flatten().unwrap_or(t),
            |n| n.start(),
        );
        Some((v[i].unpack(), end))
    }

    /// The last arrive on mbarrier number `m`'s array in `cta` before `t` by a warp
    /// other than `not`.
    fn last_arrive(&self, cta: u32, m: u32, before: u64, not: u32) -> Option<(u64, u32)> {
        let name = self.header.as_ref()?.mbarriers.get(m as usize)?;
        let array = name.split('[').next()?;
        self.arrive_issues
            .get(&cta)?
            .iter()
            .filter(|(c, w, a)| *c < before && *w != not && a == array)
            .max_by_key(|(c, _, _)| *c)
            .map(|(c, w, _)| (*c, *w))
    }

    /// What completed the phase of mbarrier `m` that a wait from `iv` to `t` ended
    /// on: the phase's completion within the wait, then the copy that landed then (its
    /// start and issuer), else the last arrive before it by another warp.
    fn mbarrier_jump(
        &self,
        cta: u32,
        m: u32,
        iv: &Interval,
        t: u64,
        not: u32,
    ) -> Option<(u64, WarpId, PathCategory)> {
        let done = *self
            .phases
            .get(&(cta, m))?
            .iter()
            .filter(|&&c| c >= iv.start && c <= t)
            .min()?;
        if let Some(&(start, by)) = self.copies.get(&done).filter(|(s, _)| *s < t) {
            return Some((start, by, PathCategory::TmaCopies));
        }
        self.last_arrive(cta, m, done + 1, not)
            .filter(|(c, _)| *c >= iv.start)
            .map(|(c, by)| (c, WarpId { cta, warp: by }, PathCategory::Arrivals))
    }

    /// The last warp other than `not` to reach barrier `id` in `cta` by `t`: the
    /// release before `t` and the barrier issue at it.
    fn last_at_barrier(&self, cta: u32, id: u32, t: u64, not: u32) -> Option<(u64, u32)> {
        let release = *self
            .releases
            .get(&(cta, id))?
            .iter()
            .filter(|&&c| c <= t)
            .max()?;
        self.bar_issues
            .get(&cta)?
            .iter()
            .filter(|(c, w)| *c <= release && *w != not)
            .max_by_key(|(c, _)| *c)
            .map(|&(c, w)| (c, w))
    }

    /// The critical path, or None when the run had more than [`MAX_STATE_CHANGES`]
    /// state changes to keep.
    pub fn path(&self) -> Option<CriticalPath> {
        (!self.overflowed).then(|| self.walk())
    }

    /// Walks back from the last warp's finish; see the module's description. (A
    /// record that overflowed walks nothing: its path is empty.)
    pub fn walk(&self) -> CriticalPath {
        let mut walk = Walk {
            rec: self,
            by_category: SmallMap::default(),
            by_pc: SmallMap::default(),
        };
        let Some((last, end)) = self
            .finish
            .iter()
            .filter_map(|(w, c)| c.map(|c| (w, c)))
            .max_by_key(|&(w, c)| (c, w))
        else {
            return CriticalPath {
                end: 0,
                by_category: vec![],
                instructions: vec![],
                hops: 0,
            };
        };
        let (mut w, mut t, mut hops) = (last, end, 0u32);
        // A jump at the same cycle (to the last warp at a barrier) is taken once: a
        // second in a row would go back and forth between warps that met there.
        let mut jumped_at = None;
        while t > 0 {
            let Some((iv, _)) = self.interval_before(w, t) else {
                *walk.by_category.entry(PathCategory::Launch).or_default() += t;
                break;
            };
            let cta = w.cta;
            if let Waiting::Group(GroupKind::Wgmma) = iv.waiting {
                let chain = self.mma_chain(w, t);
                if let Some(&(first, _, by)) = chain.last().filter(|c| c.0 < t) {
                    // The wait, then each MMA's pipe time back to the first, charged to
                    // the MMA instructions; the path goes on at that MMA's issue.
                    let mut at = t;
                    for &(start, _, mw) in &chain {
                        let pc = self.mma_issue(mw, start).map_or(iv.pc, |x| x.1);
                        let charged = Interval { pc, ..iv };
                        walk.charge(mw, &charged, PathCategory::TensorPipe, at - start);
                        at = start;
                    }
                    let issued = self.mma_issue(by, first).map_or(first, |x| x.0);
                    if issued < first {
                        // (Issued before the pipe took it: the tensor queue's wait.)
                        let pc = self.mma_issue(by, first).map_or(iv.pc, |x| x.1);
                        let charged = Interval { pc, ..iv };
                        walk.charge(by, &charged, PathCategory::TensorPipe, first - issued);
                    }
                    if by != w {
                        hops += 1;
                    }
                    w = by;
                    t = issued;
                    jumped_at = None;
                    continue;
                }
            }
            if let Waiting::Producer(p) = iv.waiting {
                // The producer's latency from its issue: the instructions the warp
                // issued meanwhile were off the path.
                if let Some(issued) = self.producer_issue(w, p, iv.start) {
                    let c = own_category(iv.state, Waiting::Own);
                    let charged = Interval { pc: p, ..iv };
                    walk.charge(w, &charged, c, t - issued);
                    t = issued;
                    jumped_at = None;
                    continue;
                }
            }
            let jump = match iv.waiting {
                Waiting::Mbarrier(m) => self.mbarrier_jump(cta, m, &iv, t, w.warp),
                Waiting::Barrier(id) => self
                    .last_at_barrier(cta, id, t, w.warp)
                    .filter(|(c, _)| *c >= iv.start)
                    .map(|(c, by)| (c, WarpId { cta, warp: by }, PathCategory::Barriers)),
                _ => None,
            }
            .filter(|(from, _, _)| *from < t || jumped_at != Some(t));
            match jump {
                Some((from, by, c)) => {
                    walk.charge(w, &iv, c, t - from);
                    if by != w {
                        hops += 1;
                    }
                    jumped_at = (from == t).then_some(t);
                    // (A jump at the same cycle moves to another warp, whose state
                    // before `t` then takes `t` back.)
                    w = by;
                    t = from;
                }
                None => {
                    let c = own_category(iv.state, iv.waiting);
                    walk.charge(w, &iv, c, t - iv.start);
                    t = iv.start;
                    jumped_at = None;
                }
            }
        }
        let mut by_category: Vec<(PathCategory, u64)> =
            walk.by_category.into_iter().filter(|x| x.1 > 0).collect();
        by_category.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut instructions: Vec<PathInstruction> = walk
            .by_pc
            .into_iter()
            .filter(|x| x.1 > 0)
            .map(|((role, pc, category), cycles)| {
                let r = self
                    .header
                    .as_ref()
                    .and_then(|h| h.roles.get(role as usize));
                PathInstruction {
                    role: r.map_or(String::new(), |r| r.name.clone()),
                    pc,
                    instruction: r
                        .and_then(|r| r.instructions.get(pc as usize))
                        .map_or(String::new(), |i| i.text.clone()),
                    category,
                    cycles,
                }
            })
            .collect();
        // (The category last too: `by_pc` is a hash map, whose order follows its
        // hasher.)
        instructions.sort_by(|a, b| {
            b.cycles
                .cmp(&a.cycles)
                .then(a.role.cmp(&b.role))
                .then(a.pc.cmp(&b.pc))
                .then(a.category.cmp(&b.category))
        });
        CriticalPath {
            end,
            by_category,
            instructions,
            hops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every state with every kind of wait, at starts up to the packing's limit, comes
    /// back as it went in; a start past it does not pack.
    #[test]
    fn packed_intervals_unpack_to_themselves() {
        let waits = [
            Waiting::Own,
            Waiting::Producer(u32::MAX),
            Waiting::Producer(7),
            Waiting::Pipe(Pipe::Tensor),
            Waiting::Barrier(15),
            Waiting::Mbarrier(29_055),
            Waiting::Group(GroupKind::Wgmma),
            Waiting::Group(GroupKind::CpAsync),
            Waiting::Group(GroupKind::BulkStore),
        ];
        let starts = [0, 1, 5_409_767, (1 << START_BITS) - 1];
        for &state in &WarpState::ALL {
            for &waiting in &waits {
                for pipe in Pipe::ALL {
                    for &start in &starts {
                        let waiting = match waiting {
                            Waiting::Pipe(_) => Waiting::Pipe(pipe),
                            w => w,
                        };
                        let iv = Interval {
                            start,
                            state,
                            pc: u32::MAX - 1,
                            waiting,
                        };
                        let back = Packed::of(iv).expect("fits").unpack();
                        assert_eq!(
                            (back.start, back.state, back.pc, back.waiting),
                            (iv.start, iv.state, iv.pc, iv.waiting)
                        );
                    }
                }
            }
        }
        let far = Interval {
            start: 1 << START_BITS,
            state: WarpState::Wait,
            pc: 0,
            waiting: Waiting::Own,
        };
        assert!(Packed::of(far).is_none());
        assert_eq!(size_of::<Packed>(), 16);
    }
}
