//! [`Timeline`]: a [`Sink`] that keeps a run as compact intervals, for viewers and
//! exporters that need to answer "what was this warp doing at cycle t, and over this
//! window?" without holding every event.
//!
//! Memory grows with the number of state changes, not with cycles: a warp's states are
//! one `Span` (16 bytes) per change, each ending where the next starts, so the spans
//! tile the warp's lifetime from its launch to its finish. Every [`CHECKPOINT`] spans a
//! warp also keeps its cumulative cycles per state, so the cycles per state within any
//! window are two binary searches and at most `2 * CHECKPOINT` additions away, whatever
//! the window's width: a redraw at any zoom never scans the whole run. Units' busy
//! intervals are merged and prefix-summed likewise; memory traffic per level is kept
//! as completion cycles with prefix sums of bytes.
//!
//! What a state waits on ([`WaitCause`]) is kept once per distinct cause, its cycles
//! relative to its span's start, so that the many spans that wait the same way (a
//! load's latency, a pipe's interval) share one entry; [`Timeline::cause`] gives it
//! back with its cycles.
//!
//! The engine fills a timeline in the order the sink API promises: [`Sink::begin`]
//! (the header: roles, instruction texts and lines, mbarrier names), the events, then
//! [`Sink::finish`], which ends every warp's last span at its `WarpFinish` and builds
//! the indexes. Queries are meant for a finished timeline. A run that deadlocks or meets
//! the watchdog keeps its live warps' last state through the stop cycle (one cycle past
//! their `WarpFinish`), so that the stop cycle shows what each warp is stuck in.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cause::WaitCause;
use crate::sink::{Event, MemLevel, Outcome, RunEnd, RunHeader, Sink, Unit, WarpId};
use crate::state::{STATE_COUNT, WarpState};

/// The first index at or after `from` where `pred` fails (`pred` holds on a prefix of
/// `v`): an exponential search from `from`, so that a sweep of increasing targets reads
/// few elements when they are close and O(log n) when they are far.
fn gallop<T>(v: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    let mut lo = from.min(v.len());
    let mut step = 1;
    while lo + step <= v.len() && pred(&v[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(v.len());
    lo + v[lo..hi].partition_point(pred)
}

/// Spans between two cumulative checkpoints of a warp: the most spans a window query
/// adds up at each of its ends.
pub const CHECKPOINT: usize = 32;

/// One stretch of a warp in one state: from `start` to the next span's start (or the
/// warp's finish), charged to the instruction `pc` of its role (numbered as reports
/// number them: `PcStats::pc`), waiting on `cause` (an index in the timeline's causes,
/// `NO_CAUSE` for none). Packed into 16 bytes; read through [`Interval`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: u64,
    /// `pc << STATE_BITS | state`.
    pc_state: u32,
    cause: u32,
}

const STATE_BITS: u32 = 5;
const NO_CAUSE: u32 = u32::MAX;

impl Span {
    fn state(&self) -> usize {
        (self.pc_state & ((1 << STATE_BITS) - 1)) as usize
    }
    fn pc(&self) -> u32 {
        self.pc_state >> STATE_BITS
    }
}

/// What a state waits on, as the timeline keeps it: [`Timeline::cause`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CauseId(u32);

/// A warp's state over `[start, end)`, as the queries return it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// First cycle in the state.
    pub start: u64,
    /// First cycle after it (the next interval's start, or the warp's finish).
    pub end: u64,
    /// The warp's state throughout.
    pub state: WarpState,
    /// The instruction the state is charged to, numbered as in `PcStats::pc`.
    pub pc: u32,
    /// What it waits on, if the engine said ([`Timeline::cause`] reads it).
    pub cause: Option<CauseId>,
}

/// One warp's life as state intervals.
#[derive(Clone, Debug)]
pub struct WarpTimeline {
    /// The warp: its CTA's launch id on this SM and its index in the CTA.
    pub id: WarpId,
    /// Index of its role in [`Timeline::roles`] (from its issues, or the run's result).
    pub role: u16,
    /// Its sub-partition (from its issues; 0 until it issues).
    pub subpartition: u8,
    /// Its launch cycle.
    pub started: u64,
    /// Its finish: the cycle it left the SM (its last span ends here). Until the
    /// timeline is finished, its launch.
    pub finished: u64,
    /// Its `WarpFinish` cycle, once seen.
    finish_seen: Option<u64>,
    /// The cycle it executed EXIT (it may drain after), if it did.
    pub exited: Option<u64>,
    spans: Vec<Span>,
    /// `checkpoints[k][s]`: cycles in state `s` before span `k * CHECKPOINT`.
    checkpoints: Vec<[u64; STATE_COUNT]>,
}

impl WarpTimeline {
    fn new(id: WarpId, start: u64) -> WarpTimeline {
        WarpTimeline {
            id,
            role: 0,
            subpartition: 0,
            started: start,
            finished: start,
            finish_seen: None,
            exited: None,
            spans: Vec::new(),
            checkpoints: Vec::new(),
        }
    }

    /// Opens a span at `cycle`. A change at the cycle of the last span's start replaces
    /// it (the engine may classify a warp more than once in a cycle); a change to the
    /// state and instruction already open is no change.
    fn change(&mut self, cycle: u64, state: WarpState, pc: u32, cause: u32) {
        // The engine never goes back in time for a warp; a span opened in the future (an
        // issue that knows next cycle's state) that an earlier change supersedes is
        // dropped the same way as one replaced at its own cycle.
        while self.spans.last().is_some_and(|s| s.start >= cycle) {
            self.spans.pop();
        }
        let pc_state = pc << STATE_BITS | state as u32;
        if self
            .spans
            .last()
            .is_some_and(|s| s.pc_state == pc_state && s.cause == cause)
        {
            return;
        }
        self.spans.push(Span {
            start: cycle,
            pc_state,
            cause,
        });
    }

    /// Ends the last span at `finish` and builds the checkpoints.
    fn close(&mut self, finish: u64) {
        while self.spans.last().is_some_and(|s| s.start >= finish) {
            self.spans.pop();
        }
        self.finished = finish.max(self.started);
        self.checkpoints.clear();
        let mut acc = [0u64; STATE_COUNT];
        for (i, s) in self.spans.iter().enumerate() {
            if i % CHECKPOINT == 0 {
                self.checkpoints.push(acc);
            }
            let end = self.spans.get(i + 1).map_or(self.finished, |n| n.start);
            acc[s.state()] += end - s.start;
        }
        self.spans.shrink_to_fit();
    }

    fn interval(&self, i: usize) -> Interval {
        let s = self.spans[i];
        Interval {
            start: s.start,
            end: self.spans.get(i + 1).map_or(self.finished, |n| n.start),
            state: WarpState::ALL[s.state()],
            pc: s.pc(),
            cause: (s.cause != NO_CAUSE).then_some(CauseId(s.cause)),
        }
    }

    /// Number of intervals.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when the warp has no interval (it launched and left in the same cycle).
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The `i`-th interval, in time order.
    pub fn get(&self, i: usize) -> Option<Interval> {
        (i < self.spans.len()).then(|| self.interval(i))
    }

    /// Every interval in time order: they tile `[started, finished)`.
    pub fn intervals(&self) -> impl Iterator<Item = Interval> + '_ {
        (0..self.spans.len()).map(|i| self.interval(i))
    }

    /// Index of the interval holding `cycle`, if the warp was on the SM then.
    pub fn index_at(&self, cycle: u64) -> Option<usize> {
        if cycle < self.started || cycle >= self.finished || self.spans.is_empty() {
            return None;
        }
        Some(self.spans.partition_point(|s| s.start <= cycle) - 1)
    }

    /// The interval holding `cycle`, if the warp was on the SM then.
    pub fn at(&self, cycle: u64) -> Option<Interval> {
        self.index_at(cycle).map(|i| self.interval(i))
    }

    /// Cycles per state before `cycle` (clamped to the warp's life).
    fn cumulative(&self, cycle: u64) -> [u64; STATE_COUNT] {
        self.cumulative_from(cycle, &mut 0)
    }

    /// [`cumulative`](Self::cumulative), searching from the span `hint` (which it
    /// moves to the span found): a sweep over increasing cycles costs little per step.
    fn cumulative_from(&self, cycle: u64, hint: &mut usize) -> [u64; STATE_COUNT] {
        if self.spans.is_empty() || cycle <= self.started {
            return [0; STATE_COUNT];
        }
        let cycle = cycle.min(self.finished);
        // The spans that start before `cycle`: all of them count up to `cycle`.
        let from = if *hint < self.spans.len() && self.spans[*hint].start < cycle {
            *hint
        } else {
            0
        };
        let n = gallop(&self.spans, from, |s| s.start < cycle);
        *hint = n.saturating_sub(1);
        // (Before the timeline is finished there are no checkpoints: add from the start.)
        let k = ((n - 1) / CHECKPOINT).min(self.checkpoints.len().saturating_sub(1));
        let mut acc = self.checkpoints.get(k).copied().unwrap_or([0; STATE_COUNT]);
        let k = if self.checkpoints.is_empty() { 0 } else { k };
        for i in k * CHECKPOINT..n {
            let iv = self.interval(i);
            acc[iv.state.index()] += iv.end.min(cycle) - iv.start;
        }
        acc
    }

    /// Cycles in each state (indexed by `WarpState::index`) within `[from, to)`: exact,
    /// in O(log n + CHECKPOINT) whatever the window's width.
    pub fn states_in(&self, from: u64, to: u64) -> [u64; STATE_COUNT] {
        if to <= from {
            return [0; STATE_COUNT];
        }
        let (a, b) = (self.cumulative(from), self.cumulative(to));
        std::array::from_fn(|i| b[i] - a[i])
    }

    /// Cycles per state (indexed by `WarpState::index`) in each of `n` consecutive
    /// columns of `per_col` cycles from `start`: what [`states_in`](Self::states_in)
    /// gives column by column, computed in one sweep.
    pub fn columns(&self, start: u64, per_col: u64, n: usize) -> Vec<[u64; STATE_COUNT]> {
        let mut hint = 0;
        let mut prev = self.cumulative_from(start, &mut hint);
        (1..=n as u64)
            .map(|i| {
                let cur = self.cumulative_from(start + i * per_col, &mut hint);
                let d = std::array::from_fn(|s| cur[s] - prev[s]);
                prev = cur;
                d
            })
            .collect()
    }

    /// The first interval starting at or after `cycle` that satisfies `pred`.
    pub fn next_where(&self, cycle: u64, pred: impl Fn(&Interval) -> bool) -> Option<Interval> {
        let i = self.spans.partition_point(|s| s.start < cycle);
        (i..self.spans.len())
            .map(|i| self.interval(i))
            .find(|iv| pred(iv))
    }

    /// The last interval starting before `cycle` that satisfies `pred`.
    pub fn prev_where(&self, cycle: u64, pred: impl Fn(&Interval) -> bool) -> Option<Interval> {
        let i = self.spans.partition_point(|s| s.start < cycle);
        (0..i).rev().map(|i| self.interval(i)).find(|iv| pred(iv))
    }

    /// The start of the last interval (before the timeline is closed: the open one's).
    pub fn last_start(&self) -> Option<u64> {
        self.spans.last().map(|s| s.start)
    }

    /// Bytes this warp's intervals hold (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.spans.capacity() * size_of::<Span>()
            + self.checkpoints.capacity() * size_of::<[u64; STATE_COUNT]>()
    }
}

/// One unit's busy time: merged, sorted intervals with prefix sums.
#[derive(Clone, Debug)]
pub struct UnitTimeline {
    /// The unit, as events name it.
    pub unit: Unit,
    /// Busy intervals `[start, end)`, sorted and disjoint once the timeline is closed.
    pub busy: Vec<(u64, u64)>,
    /// `prefix[i]`: busy cycles before `busy[i]`.
    prefix: Vec<u64>,
}

impl UnitTimeline {
    fn close(&mut self) {
        self.busy.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.busy.len());
        for &(s, e) in &self.busy {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        merged.shrink_to_fit();
        self.busy = merged;
        let mut acc = 0;
        self.prefix = self
            .busy
            .iter()
            .map(|&(s, e)| {
                let before = acc;
                acc += e - s;
                before
            })
            .collect();
    }

    fn busy_before(&self, cycle: u64) -> u64 {
        self.busy_before_from(cycle, &mut 0)
    }

    fn busy_before_from(&self, cycle: u64, hint: &mut usize) -> u64 {
        let from = if *hint < self.busy.len() && self.busy[*hint].0 < cycle {
            *hint
        } else {
            0
        };
        let n = gallop(&self.busy, from, |&(s, _)| s < cycle);
        *hint = n.saturating_sub(1);
        if n == 0 {
            return 0;
        }
        let (s, e) = self.busy[n - 1];
        self.prefix[n - 1] + e.min(cycle) - s
    }

    /// Busy cycles in each of `n` consecutive columns of `per_col` cycles from `start`,
    /// in one sweep.
    pub fn busy_columns(&self, start: u64, per_col: u64, n: usize) -> Vec<u64> {
        let mut hint = 0;
        let mut prev = self.busy_before_from(start, &mut hint);
        (1..=n as u64)
            .map(|i| {
                let cur = self.busy_before_from(start + i * per_col, &mut hint);
                let d = cur - prev;
                prev = cur;
                d
            })
            .collect()
    }

    /// Busy cycles within `[from, to)`, in O(log n).
    pub fn busy_in(&self, from: u64, to: u64) -> u64 {
        if to <= from {
            return 0;
        }
        self.busy_before(to) - self.busy_before(from)
    }
}

/// Bytes served by one memory level, by completion cycle.
#[derive(Clone, Debug)]
pub struct MemoryTimeline {
    /// The level that served the requests.
    pub level: MemLevel,
    /// `(completion cycle, bytes)`, sorted by cycle once closed.
    pub requests: Vec<(u64, u32)>,
    /// `prefix[i]`: bytes of the requests before `requests[i]`.
    prefix: Vec<u64>,
}

impl MemoryTimeline {
    fn close(&mut self) {
        self.requests.sort_unstable();
        self.requests.shrink_to_fit();
        let mut acc = 0u64;
        self.prefix = self
            .requests
            .iter()
            .map(|&(_, b)| {
                let before = acc;
                acc += b as u64;
                before
            })
            .collect();
    }

    fn bytes_before(&self, cycle: u64) -> u64 {
        let n = self.requests.partition_point(|&(c, _)| c < cycle);
        match n {
            0 => 0,
            n => self.prefix[n - 1] + self.requests[n - 1].1 as u64,
        }
    }

    /// Bytes of the requests completing within `[from, to)`, in O(log n).
    pub fn bytes_in(&self, from: u64, to: u64) -> u64 {
        if to <= from {
            return 0;
        }
        self.bytes_before(to) - self.bytes_before(from)
    }
}

/// A synchronisation event, for the rows of barriers and the jump keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    /// An mbarrier completed a phase: its number in the CTA and phases completed so far.
    MbarrierPhase {
        /// The mbarrier's number across the kernel's declarations (`isa::ast::mbarrier_at`).
        mbarrier: u32,
        /// Phases completed, this one included.
        phase: u64,
    },
    /// A named barrier released its warps.
    BarrierRelease {
        /// The barrier's id (0..15).
        id: u32,
    },
    /// A CTA launched on the SM.
    CtaLaunch,
    /// A CTA's last warp left the SM.
    CtaDone,
}

/// A synchronisation event at a cycle, in a CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncEvent {
    /// When it happened.
    pub cycle: u64,
    /// The CTA's launch id on this SM.
    pub cta: u32,
    /// What happened.
    pub kind: SyncKind,
}

/// A run as intervals: every warp's states, every unit's busy time, the memory levels'
/// traffic and the synchronisation events. Attach it to a run as its sink; the run's
/// end finishes it.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// What the run's events name: roles and their instructions (texts, source lines),
    /// mbarriers, units (from [`Sink::begin`]).
    pub header: Option<RunHeader>,
    /// How the run ended (from [`Sink::finish`]).
    pub outcome: Option<Outcome>,
    /// Role names, in the kernel's role order.
    pub roles: Vec<String>,
    /// Every warp, in launch order.
    pub warps: Vec<WarpTimeline>,
    /// Every unit that was busy, in first-use order.
    pub units: Vec<UnitTimeline>,
    /// Memory traffic per level that served requests beyond the SM (L2 near and far,
    /// HBM), in first-use order.
    pub memory: Vec<MemoryTimeline>,
    /// Synchronisation events, in cycle order.
    pub syncs: Vec<SyncEvent>,
    /// The last cycle: the run's length (or the cycle it stopped at).
    pub end: u64,
    /// Warp index by (CTA, warp): `slots[cta][warp]`, `u32::MAX` where none.
    slots: Vec<Vec<u32>>,
    /// Index in `units` by [`unit_code`], `u32::MAX` where none yet.
    unit_slots: Vec<u32>,
    /// Distinct causes, their cycles relative to the start of the span that first had
    /// them.
    causes: Vec<WaitCause>,
    /// Causes already kept that recur (a producer, a pipe, a wait group at the same
    /// distance from their span's start), by a key of their fields.
    cause_keys: HashMap<(u8, u64, u64), u32, BuildHasherDefault<MixHasher>>,
    /// Set by the viewer to stop the run (a newer what-if supersedes it).
    stop: Option<Arc<AtomicBool>>,
}

/// A hasher for the cause keys (a few integers): a multiply and a rotate per word, as
/// rustc's FxHasher does. The default SipHash cost a tenth of a long run's time.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Moves a cause's cycles by `f` (to and from their span's start).
fn shift_cycles(c: &mut WaitCause, f: impl Fn(u64) -> u64) {
    use crate::cause::MbarrierOwed;
    match c {
        WaitCause::Producer { ready, .. } => *ready = f(*ready),
        WaitCause::Pipe { free, .. } => *free = f(*free),
        WaitCause::WaitGroup { until, .. } => *until = f(*until),
        WaitCause::Mbarrier {
            owed: MbarrierOwed::Copies { lands, .. },
            ..
        } => *lands = f(*lands),
        WaitCause::Mbarrier { .. }
        | WaitCause::Barrier { .. }
        | WaitCause::WarpgroupArrive { .. } => {}
    }
}

/// A small number per unit, for a table lookup per `UnitBusy` event.
fn unit_code(u: Unit) -> usize {
    match u {
        Unit::Pipe { pipe, subpartition } => pipe as usize * 4 + (subpartition as usize & 3),
        Unit::Tma => 4 * isa::Pipe::ALL.len(),
        Unit::SharedMemory => 4 * isa::Pipe::ALL.len() + 1,
        Unit::L1 => 4 * isa::Pipe::ALL.len() + 2,
    }
}

impl Timeline {
    /// An empty timeline, to attach to a run.
    pub fn new() -> Timeline {
        Timeline::default()
    }

    /// An empty timeline whose run stops (at the engine's next poll) once `stop` is set.
    pub fn with_stop(stop: Arc<AtomicBool>) -> Timeline {
        Timeline {
            stop: Some(stop),
            ..Timeline::default()
        }
    }

    /// What an interval waits on, with its cycles (its producer's ready cycle, the
    /// pipe's free cycle...).
    pub fn cause(&self, iv: &Interval) -> Option<WaitCause> {
        let mut c = self.causes.get(iv.cause?.0 as usize)?.clone();
        shift_cycles(&mut c, |x| x.wrapping_add(iv.start));
        Some(c)
    }

    /// Keeps a cause of a span starting at `start`; its index.
    fn intern(&mut self, cause: WaitCause, start: u64) -> u32 {
        let rel = |x: u64| x.wrapping_sub(start);
        let key = match &cause {
            WaitCause::Producer { pc, ready } => {
                Some((0, pc.map_or(u64::MAX, u64::from), rel(*ready)))
            }
            WaitCause::Pipe { pipe, free } => Some((1, *pipe as u64, rel(*free))),
            WaitCause::WaitGroup { group, until } => Some((2, *group as u64, rel(*until))),
            WaitCause::WarpgroupArrive { warpgroup, arrived } => {
                Some((3, u64::from(*warpgroup), u64::from(*arrived)))
            }
            _ => None,
        };
        if let Some(k) = key
            && let Some(&i) = self.cause_keys.get(&k)
        {
            return i;
        }
        let mut c = cause;
        shift_cycles(&mut c, rel);
        let i = self.causes.len() as u32;
        self.causes.push(c);
        if let Some(k) = key {
            self.cause_keys.insert(k, i);
        }
        i
    }

    /// Distinct causes kept.
    pub fn cause_count(&self) -> usize {
        self.causes.len()
    }

    /// The index in [`warps`](Timeline::warps) of a warp.
    pub fn warp_index(&self, id: WarpId) -> Option<usize> {
        let i = *self.slots.get(id.cta as usize)?.get(id.warp as usize)?;
        (i != u32::MAX).then_some(i as usize)
    }

    fn unit_index(&mut self, unit: Unit) -> usize {
        let code = unit_code(unit);
        if self.unit_slots.len() <= code {
            self.unit_slots.resize(code + 1, u32::MAX);
        }
        // Sub-partitions past 3 (none today) share a code: check the unit itself.
        let i = self.unit_slots[code];
        if i != u32::MAX && self.units[i as usize].unit == unit {
            return i as usize;
        }
        let i = match self.units.iter().position(|u| u.unit == unit) {
            Some(i) => i,
            None => {
                self.units.push(UnitTimeline {
                    unit,
                    busy: Vec::new(),
                    prefix: Vec::new(),
                });
                self.units.len() - 1
            }
        };
        self.unit_slots[code] = i as u32;
        i
    }

    fn warp_mut(&mut self, id: WarpId, cycle: u64) -> &mut WarpTimeline {
        let row = {
            let c = id.cta as usize;
            if self.slots.len() <= c {
                self.slots.resize(c + 1, Vec::new());
            }
            &mut self.slots[c]
        };
        let w = id.warp as usize;
        if row.len() <= w {
            row.resize(w + 1, u32::MAX);
        }
        if row[w] == u32::MAX {
            row[w] = self.warps.len() as u32;
            let mut tw = WarpTimeline::new(id, cycle);
            // Its role, by the warp ranges the header gives.
            if let Some(h) = &self.header
                && let Some(r) = h
                    .roles
                    .iter()
                    .position(|r| (r.first_warp..=r.last_warp).contains(&id.warp))
            {
                tw.role = r as u16;
            }
            self.warps.push(tw);
        }
        let i = row[w] as usize;
        &mut self.warps[i]
    }

    /// Ends the run at `end`: every warp's last span at its `WarpFinish` (a stopped
    /// run's blocked warps one cycle past, so that the stop cycle shows their state),
    /// and the indexes built.
    fn finish_all(&mut self, end: &RunEnd) {
        let stuck = matches!(end.outcome, Outcome::Deadlock(_) | Outcome::Watchdog(_));
        for w in &mut self.warps {
            let at = w.finish_seen.unwrap_or(end.cycles);
            // Blocked warps (live at the stop, not exited) show their state through it.
            let blocked = stuck && at >= end.cycles && w.exited.is_none();
            let at = if blocked { at + 1 } else { at };
            w.close(at);
        }
        if let Some(h) = &self.header {
            self.roles = h.roles.iter().map(|r| r.name.clone()).collect();
        }
        self.end = end.cycles;
        self.outcome = Some(end.outcome.clone());
        self.close_units();
        self.causes.shrink_to_fit();
        self.cause_keys = HashMap::default();
    }

    fn close_units(&mut self) {
        for u in &mut self.units {
            u.close();
        }
        for m in &mut self.memory {
            m.close();
        }
        self.syncs.sort_by_key(|e| e.cycle);
        self.end = self
            .warps
            .iter()
            .map(|w| w.finished)
            .fold(self.end, u64::max);
    }

    /// Total state intervals held.
    pub fn interval_count(&self) -> usize {
        self.warps.iter().map(|w| w.len()).sum()
    }

    /// Bytes the timeline holds on the heap (approximate: vectors' capacities).
    pub fn heap_bytes(&self) -> usize {
        self.warps.iter().map(|w| w.heap_bytes()).sum::<usize>()
            + self
                .units
                .iter()
                .map(|u| u.busy.capacity() * 16 + u.prefix.capacity() * 8)
                .sum::<usize>()
            + self
                .memory
                .iter()
                .map(|m| m.requests.capacity() * 16 + m.prefix.capacity() * 8)
                .sum::<usize>()
            + self.syncs.capacity() * size_of::<SyncEvent>()
    }

    /// The first synchronisation event after `cycle` that satisfies `pred`.
    pub fn next_sync(&self, cycle: u64, pred: impl Fn(&SyncEvent) -> bool) -> Option<SyncEvent> {
        let i = self.syncs.partition_point(|e| e.cycle <= cycle);
        self.syncs[i..].iter().copied().find(|e| pred(e))
    }

    /// The last synchronisation event before `cycle` that satisfies `pred`.
    pub fn prev_sync(&self, cycle: u64, pred: impl Fn(&SyncEvent) -> bool) -> Option<SyncEvent> {
        let i = self.syncs.partition_point(|e| e.cycle < cycle);
        self.syncs[..i].iter().rev().copied().find(|e| pred(e))
    }

    /// The synchronisation events within `[from, to)`.
    pub fn syncs_in(&self, from: u64, to: u64) -> &[SyncEvent] {
        let a = self.syncs.partition_point(|e| e.cycle < from);
        let b = self.syncs.partition_point(|e| e.cycle < to);
        &self.syncs[a..b.max(a)]
    }
}

impl Sink for Timeline {
    fn begin(&mut self, header: &RunHeader) {
        self.header = Some(header.clone());
        self.roles = header.roles.iter().map(|r| r.name.clone()).collect();
    }

    fn finish(&mut self, end: &RunEnd) {
        self.finish_all(end);
    }

    fn keep_going(&mut self) -> bool {
        self.stop
            .as_ref()
            .is_none_or(|s| !s.load(Ordering::Relaxed))
    }

    fn event(&mut self, e: Event) {
        match e {
            Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause,
            } => {
                let cause = match cause {
                    Some(c) => self.intern(c, cycle),
                    None => NO_CAUSE,
                };
                self.warp_mut(warp, cycle).change(cycle, state, pc, cause)
            }
            Event::Issue {
                cycle,
                warp,
                subpartition,
                role,
                ..
            } => {
                let w = self.warp_mut(warp, cycle);
                w.role = role;
                w.subpartition = subpartition;
            }
            Event::WarpExit { cycle, warp } => self.warp_mut(warp, cycle).exited = Some(cycle),
            Event::WarpFinish { cycle, warp } => {
                self.warp_mut(warp, cycle).finish_seen = Some(cycle)
            }
            Event::UnitBusy {
                start, end, unit, ..
            } => {
                let i = self.unit_index(unit);
                if end > start {
                    self.units[i].busy.push((start, end));
                }
            }
            // L1 hits and shared-memory accesses are the SM's own traffic, as many as
            // its loads: the viewer shows what crosses to L2 and HBM.
            Event::Memory {
                level: MemLevel::L1 | MemLevel::Shared,
                ..
            } => {}
            Event::Memory {
                done, level, bytes, ..
            } => {
                let i = match self.memory.iter().position(|m| m.level == level) {
                    Some(i) => i,
                    None => {
                        self.memory.push(MemoryTimeline {
                            level,
                            requests: Vec::new(),
                            prefix: Vec::new(),
                        });
                        self.memory.len() - 1
                    }
                };
                self.memory[i].requests.push((done, bytes));
            }
            Event::MbarrierPhase {
                cycle,
                cta,
                mbarrier,
                phase,
            } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::MbarrierPhase { mbarrier, phase },
            }),
            Event::BarrierRelease { cycle, cta, id } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::BarrierRelease { id },
            }),
            Event::CtaLaunch { cycle, cta } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::CtaLaunch,
            }),
            Event::CtaDone { cycle, cta } => self.syncs.push(SyncEvent {
                cycle,
                cta,
                kind: SyncKind::CtaDone,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunConfig;
    use crate::profile::Profile;
    use crate::result::RunResult;

    /// The timeline, and every state change as the engine sent it.
    #[derive(Default)]
    struct Tee {
        t: Timeline,
        changes: Vec<(WarpId, u64, WarpState, u32, Option<WaitCause>)>,
    }

    impl Sink for Tee {
        fn begin(&mut self, h: &RunHeader) {
            self.t.begin(h);
        }
        fn finish(&mut self, end: &RunEnd) {
            self.t.finish(end);
        }
        fn event(&mut self, e: Event) {
            if let Event::StateChange {
                cycle,
                warp,
                state,
                pc,
                cause,
            } = &e
            {
                self.changes
                    .push((*warp, *cycle, *state, *pc, cause.clone()));
            }
            self.t.event(e);
        }
    }

    fn run(src: &str) -> (Timeline, RunResult) {
        let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("t", src)));
        let p = Profile::builtin("h100").unwrap();
        let cfg = RunConfig::default();
        let mut tee = Tee::default();
        let r = crate::run_with(&k, &p, &cfg, cfg.policy.build(), &mut tee).unwrap();
        // Every interval reads back the state, instruction and cause of the last change
        // the engine sent for its warp at its start cycle (causes kept once, relative to
        // their span, come back with their own cycles).
        let t = tee.t;
        let last: HashMap<(WarpId, u64), usize> = tee
            .changes
            .iter()
            .enumerate()
            .map(|(i, c)| ((c.0, c.1), i))
            .collect();
        for tw in &t.warps {
            for iv in tw.intervals() {
                let sent = &tee.changes[last[&(tw.id, iv.start)]];
                assert_eq!(
                    (sent.2, sent.3),
                    (iv.state, iv.pc),
                    "{:?} at {}",
                    tw.id,
                    iv.start
                );
                assert_eq!(sent.4, t.cause(&iv), "{:?} at {}", tw.id, iv.start);
            }
        }
        (t, r)
    }

    /// The promises: intervals tile each warp's life from launch to finish, and the
    /// cycles per state agree with the run's own per-warp totals; window sums agree
    /// with a direct sum over the intervals.
    fn check(t: &Timeline, r: &RunResult) {
        assert_eq!(t.warps.len(), r.warps.len());
        for w in &r.warps {
            let id = WarpId {
                cta: w.cta,
                warp: w.warp,
            };
            let tw = &t.warps[t.warp_index(id).expect("every warp has a timeline")];
            assert_eq!((tw.started, tw.finished), (w.started, w.finished), "{id:?}");
            let ivs: Vec<Interval> = tw.intervals().collect();
            if w.finished > w.started {
                assert_eq!(ivs.first().unwrap().start, w.started);
                assert_eq!(ivs.last().unwrap().end, w.finished);
            }
            let mut sums = [0u64; STATE_COUNT];
            for pair in ivs.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "{id:?} tiles");
            }
            for iv in &ivs {
                assert!(iv.end > iv.start, "{id:?}: empty interval {iv:?}");
                sums[iv.state.index()] += iv.end - iv.start;
            }
            assert_eq!(sums, w.states.to_array(), "{id:?} per-state totals");
            assert_eq!(tw.states_in(0, u64::MAX), sums);
            // Any window: the indexed sum equals the direct one.
            let len = w.finished - w.started;
            for (a, b) in [(0, len / 3), (len / 7, len / 2 + 3), (len / 2, len + 5)] {
                let (a, b) = (w.started + a, w.started + b);
                let mut direct = [0u64; STATE_COUNT];
                for iv in &ivs {
                    let (s, e) = (iv.start.max(a), iv.end.min(b));
                    if e > s {
                        direct[iv.state.index()] += e - s;
                    }
                }
                assert_eq!(tw.states_in(a, b), direct, "{id:?} window {a}..{b}");
            }
            // A sweep of columns gives what each column's own query gives.
            let per = (len / 37).max(1);
            let cols = tw.columns(w.started, per, 40);
            for (i, c) in cols.iter().enumerate() {
                let a = w.started + i as u64 * per;
                assert_eq!(*c, tw.states_in(a, a + per), "{id:?} column {i}");
            }
        }
    }

    #[test]
    fn intervals_tile_lifetimes_and_agree_with_the_result() {
        let (t, r) = run(include_str!("../../../examples/mbarrier_pingpong.smk"));
        check(&t, &r);
        assert!(t.interval_count() > r.warps.len() * 10);
        assert!(
            t.syncs
                .iter()
                .any(|e| matches!(e.kind, SyncKind::MbarrierPhase { .. }))
        );
        let (t, r) = run(include_str!("../../../examples/gemm_ws.smk"));
        check(&t, &r);
        let (t, r) = run(include_str!("../../../examples/saxpy.smk"));
        check(&t, &r);
        assert!(!t.memory.is_empty());
    }

    #[test]
    fn a_consumers_mbarrier_wait_names_who_owes_the_phase() {
        use crate::cause::MbarrierOwed;
        let (t, _) = run(include_str!("../../../examples/mbarrier_pingpong.smk"));
        let consumer = t.roles.iter().position(|r| r == "consumer").unwrap() as u16;
        let mut owed_by_producer = 0;
        let mut owed_by_copies = 0;
        for tw in t.warps.iter().filter(|w| w.role == consumer) {
            for iv in tw
                .intervals()
                .filter(|iv| iv.state == WarpState::LongScoreboard)
            {
                match t.cause(&iv) {
                    Some(WaitCause::Mbarrier { name, owed, .. }) => {
                        assert!(name.starts_with("full["), "{name}");
                        match owed {
                            MbarrierOwed::Arrivals { roles } => {
                                assert_eq!(roles, vec!["producer".to_string()]);
                                owed_by_producer += 1;
                            }
                            MbarrierOwed::Copies { in_flight, lands } => {
                                assert!(in_flight == 0 || lands >= iv.start, "{iv:?}");
                                owed_by_copies += 1;
                            }
                        }
                    }
                    other => panic!("a consumer's sleep waits on full: {other:?}"),
                }
            }
        }
        assert!(owed_by_producer + owed_by_copies > 0);
        // Causes are kept once per distinct wait, not per interval.
        assert!(t.cause_count() < t.interval_count());
    }

    #[test]
    fn a_dependent_chain_reads_back_cycle_by_cycle() {
        // One warp: FFMA chain of 3, then EXIT. FFMA i issues at lat * i, the warp
        // waits (`wait`) in between, EXIT issues the cycle after the last FFMA and the
        // warp retires the cycle after (tests/engine.rs derives the same counts).
        let src = "kernel chain\nlaunch cta_threads=32 regs=32 smem=0 grid=1\nrole main warps=0..0\n  loop i 0..3\n    FFMA R1, R1, R2, 0.5\n  EXIT\n";
        let (t, r) = run(src);
        check(&t, &r);
        let lat = Profile::builtin("h100").unwrap().t.lat_fma as u64;
        let w = &t.warps[0];
        let at = |c| w.at(c).map(|iv| iv.state);
        assert_eq!(at(0), Some(WarpState::Selected));
        assert_eq!(at(1), Some(WarpState::Wait));
        assert_eq!(w.at(1).unwrap().end, lat);
        assert_eq!(at(lat), Some(WarpState::Selected));
        assert_eq!(w.at(2 * lat).unwrap().pc, 0);
        assert_eq!(w.at(2 * lat + 1).unwrap().pc, 1, "EXIT after the loop");
        assert_eq!(w.finished, 2 * lat + 2);
        assert_eq!(at(w.finished), None);
        let s = w.states_in(0, lat);
        assert_eq!(s[WarpState::Selected.index()], 1);
        assert_eq!(s[WarpState::Wait.index()], lat - 1);
    }

    #[test]
    fn a_set_stop_flag_stops_the_run_and_finishes_the_timeline() {
        let src = include_str!("../../../examples/gemm_ws.smk");
        let k = isa::parse_kernel(src).unwrap();
        let p = Profile::builtin("h100").unwrap();
        let cfg = RunConfig::default();
        let stop = Arc::new(AtomicBool::new(true));
        let mut t = Timeline::with_stop(stop);
        let r = crate::run_with(&k, &p, &cfg, cfg.policy.build(), &mut t);
        let Err(crate::SimError::Stopped(partial)) = r else {
            panic!("the run stops")
        };
        assert!(matches!(t.outcome, Some(Outcome::Stopped)));
        assert_eq!(t.end, partial.cycles);
        assert!(t.warps.iter().all(|w| w.finished <= t.end));
    }

    #[test]
    fn units_merge_and_sum_busy_time() {
        let mut u = UnitTimeline {
            unit: Unit::Tma,
            busy: vec![(10, 20), (5, 12), (30, 31), (19, 25)],
            prefix: vec![],
        };
        u.close();
        assert_eq!(u.busy, vec![(5, 25), (30, 31)]);
        assert_eq!(u.busy_in(0, 100), 21);
        assert_eq!(u.busy_in(10, 30), 15);
        assert_eq!(u.busy_in(24, 31), 2);
        assert_eq!(u.busy_in(31, 40), 0);
        assert_eq!(u.busy_columns(0, 8, 4), vec![3, 8, 8, 2]);
        assert_eq!(u.busy_columns(26, 5, 2), vec![1, 0]);
    }
}
