//! [`Timeline`]: a [`Sink`] that keeps a run as compact intervals, for viewers and
//! exporters that need to answer "what was this warp doing at cycle t, and over this
//! window?" without holding every event.
//!
//! Memory grows with the number of state changes, not with cycles: a warp's states are
//! one `Span` (8 bytes) per change, each ending where the next starts, so the spans
//! tile the warp's lifetime from its launch to its finish. A span holds its start as a
//! 32-bit offset from its block's first span (every [`CHECKPOINT`] spans a block keeps
//! a full cycle) and its state with an index in the run's table of kinds (state,
//! instruction, cause: a run meets a few thousand). Every block also keeps the warp's
//! cumulative cycles per state before it, so the cycles per state within any window
//! are two binary searches and at most `2 * CHECKPOINT` additions away, whatever the
//! window's width: a redraw at any zoom never scans the whole run. Units' busy
//! intervals are merged as they come and prefix-summed likewise; memory traffic per
//! level is kept as completion cycles with prefix sums of bytes.
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

/// Spans per block. A block keeps its first span's start in full (the others as 32-bit
/// offsets from it) and, once the timeline is finished, the warp's cumulative cycles per
/// state before it: a window query adds up at most this many spans at each end.
pub const CHECKPOINT: usize = 64;

/// One stretch of a warp in one kind of stay (state, instruction, cause): from its start
/// to the next span's start (or the warp's finish). 8 bytes: the start as an offset
/// from its block's first span, and `kind`: `k << STATE_BITS | state`, where `k` indexes
/// the timeline's table of kinds (so that window sums read the state without it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    delta: u32,
    kind: u32,
}

/// What a span is: the state, the instruction it is charged to (numbered as reports
/// number them: `PcStats::pc`), and what it waits on (an index in the timeline's causes,
/// `NO_CAUSE` for none). A run meets few distinct kinds (its loops' instructions times
/// their states and typical waits), so spans name them by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kind {
    /// `pc << STATE_BITS | state`.
    pc_state: u32,
    cause: u32,
}

const STATE_BITS: u32 = 5;
const STATE_MASK: u32 = (1 << STATE_BITS) - 1;
const NO_CAUSE: u32 = u32::MAX;
/// Kinds a timeline can name: past this many (a run with over a hundred million
/// barrier waits, each a kind of its own), new spans keep their state but name the
/// first kind met with their instruction and no cause, or the first kind.
const KIND_LIMIT: usize = 1 << (32 - STATE_BITS);
/// Kinds without a cause are found by `pc_state` in an array up to this size (roles of
/// up to 8,192 instructions); past it, by the hash map like the others.
const PLAIN_LIMIT: usize = 1 << 18;

impl Kind {
    fn pc(&self) -> u32 {
        self.pc_state >> STATE_BITS
    }
}

/// A kind as the timeline looks it up while the run goes: `pc_state` with the cause's
/// own key ([`Timeline::cause_key`]), so that a recurring kind costs one lookup in one
/// small table that all warps share (they run the same code).
type KindKey = (u64, u64, u64);

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

/// Cycles per state in a warp's first spans, as a sweep over increasing cycles carries
/// it: `acc` sums spans `[0, n)` in full.
struct Sweep {
    n: usize,
    acc: [u64; STATE_COUNT],
}

impl Sweep {
    fn new() -> Sweep {
        Sweep {
            n: 0,
            acc: [0; STATE_COUNT],
        }
    }
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
    /// `bases[k]`: the start of span `k * CHECKPOINT`.
    bases: Vec<u64>,
    /// Every span's start, only once an offset from its block's base overflowed 32
    /// bits (a warp in one state for billions of cycles); empty otherwise.
    wide: Vec<u64>,
    /// The timeline's kinds, shared once it is finished (empty until then).
    kinds: Arc<[Kind]>,
    /// `checkpoints[k][s]`: cycles in state `s` before span `k * CHECKPOINT` (kept as
    /// the run goes: block `k`'s once span `k * CHECKPOINT` opens).
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
            bases: Vec::new(),
            wide: Vec::new(),
            kinds: Arc::from([]),
            checkpoints: Vec::new(),
        }
    }

    /// The start of span `i`.
    fn start(&self, i: usize) -> u64 {
        if self.wide.is_empty() {
            self.bases[i / CHECKPOINT] + u64::from(self.spans[i].delta)
        } else {
            self.wide[i]
        }
    }

    /// The end of span `i`: the next one's start, or the warp's finish.
    fn end(&self, i: usize) -> u64 {
        if i + 1 < self.spans.len() {
            self.start(i + 1)
        } else {
            self.finished
        }
    }

    fn state(&self, i: usize) -> usize {
        (self.spans[i].kind & STATE_MASK) as usize
    }

    /// How many spans start at a cycle satisfying `pred` (true on a prefix of cycles):
    /// a search of the blocks' bases, then of one block's offsets.
    fn count_where(&self, pred: impl Fn(u64) -> bool) -> usize {
        if !self.wide.is_empty() {
            return self.wide.partition_point(|&s| pred(s));
        }
        let b = self.bases.partition_point(|&s| pred(s));
        if b == 0 {
            return 0;
        }
        let base = self.bases[b - 1];
        let lo = (b - 1) * CHECKPOINT;
        let hi = (lo + CHECKPOINT).min(self.spans.len());
        lo + self.spans[lo..hi].partition_point(|s| pred(base + u64::from(s.delta)))
    }

    fn push(&mut self, cycle: u64, kind: u32) {
        let i = self.spans.len();
        if i.is_multiple_of(CHECKPOINT) {
            self.bases.push(cycle);
        }
        let delta = cycle - self.bases[i / CHECKPOINT];
        let delta = match u32::try_from(delta) {
            Ok(d) if self.wide.is_empty() => d,
            _ => {
                if self.wide.is_empty() {
                    self.wide = (0..i).map(|j| self.start(j)).collect();
                }
                self.wide.push(cycle);
                0
            }
        };
        self.spans.push(Span { delta, kind });
        if i.is_multiple_of(CHECKPOINT) {
            // A block begins: the one before it is complete (its last span ends here),
            // so its checkpoint is summed now, from spans still in cache.
            let mut acc = self.checkpoints.last().copied().unwrap_or([0; STATE_COUNT]);
            if i > 0 {
                let mut end = cycle;
                for j in (i - CHECKPOINT..i).rev() {
                    let start = self.start(j);
                    acc[self.state(j)] += end - start;
                    end = start;
                }
            }
            self.checkpoints.push(acc);
        }
    }

    fn pop(&mut self) {
        let i = self.spans.len() - 1;
        self.spans.pop();
        self.wide.truncate(i);
        if i.is_multiple_of(CHECKPOINT) {
            self.bases.pop();
            self.checkpoints.pop();
        }
    }

    /// Opens a span at `cycle`. A change at the cycle of the last span's start replaces
    /// it (the engine may classify a warp more than once in a cycle); a change to the
    /// kind already open is no change.
    fn change(&mut self, cycle: u64, kind: u32) {
        // The engine never goes back in time for a warp; a span opened in the future (an
        // issue that knows next cycle's state) that an earlier change supersedes is
        // dropped the same way as one replaced at its own cycle.
        while self.last_start().is_some_and(|s| s >= cycle) {
            self.pop();
        }
        if self.spans.last().is_some_and(|s| s.kind == kind) {
            return;
        }
        self.push(cycle, kind);
    }

    /// Ends the last span at `finish` and builds the checkpoints.
    fn close(&mut self, finish: u64) {
        while self.last_start().is_some_and(|s| s >= finish) {
            self.pop();
        }
        // (The checkpoints were kept as the blocks filled.)
        self.finished = finish.max(self.started);
        self.spans.shrink_to_fit();
        self.bases.shrink_to_fit();
        self.wide.shrink_to_fit();
        self.checkpoints.shrink_to_fit();
    }

    fn interval(&self, i: usize) -> Interval {
        // (Before the timeline is finished the kinds are not shared yet: the state
        // only.)
        let k = self.kinds.get((self.spans[i].kind >> STATE_BITS) as usize);
        Interval {
            start: self.start(i),
            end: self.end(i),
            state: WarpState::ALL[self.state(i)],
            pc: k.map_or(0, |k| k.pc()),
            cause: k.filter(|k| k.cause != NO_CAUSE).map(|k| CauseId(k.cause)),
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
        Some(self.count_where(|s| s <= cycle) - 1)
    }

    /// The interval holding `cycle`, if the warp was on the SM then.
    pub fn at(&self, cycle: u64) -> Option<Interval> {
        self.index_at(cycle).map(|i| self.interval(i))
    }

    /// Cycles per state before `cycle` (clamped to the warp's life), moving `sweep`
    /// on: from where it stands when that is near, else from the nearest checkpoint, so
    /// each call adds up at most `CHECKPOINT` spans, and fewer when a sweep of
    /// increasing cycles crosses few spans per step.
    fn cumulative(&self, cycle: u64, sweep: &mut Sweep) -> [u64; STATE_COUNT] {
        if self.spans.is_empty() || cycle <= self.started {
            return [0; STATE_COUNT];
        }
        let cycle = cycle.min(self.finished);
        // The last span starting before `cycle` counts in part; the ones before it in
        // full.
        let last = self.count_where(|s| s < cycle) - 1;
        if sweep.n > last || last - sweep.n > CHECKPOINT {
            let k = (last / CHECKPOINT).min(self.checkpoints.len());
            *sweep = match self.checkpoints.get(k) {
                Some(c) => Sweep {
                    n: k * CHECKPOINT,
                    acc: *c,
                },
                None => Sweep::new(),
            };
            if sweep.n > last {
                *sweep = Sweep::new();
            }
        }
        let mut start = self.start(sweep.n);
        while sweep.n < last {
            let end = self.start(sweep.n + 1);
            sweep.acc[self.state(sweep.n)] += end - start;
            start = end;
            sweep.n += 1;
        }
        let mut acc = sweep.acc;
        acc[self.state(last)] += cycle - start;
        acc
    }

    /// Cycles in each state (indexed by `WarpState::index`) within `[from, to)`: exact,
    /// in O(log n + CHECKPOINT) whatever the window's width.
    pub fn states_in(&self, from: u64, to: u64) -> [u64; STATE_COUNT] {
        if to <= from {
            return [0; STATE_COUNT];
        }
        let mut sweep = Sweep::new();
        let a = self.cumulative(from, &mut sweep);
        let b = self.cumulative(to, &mut sweep);
        std::array::from_fn(|i| b[i] - a[i])
    }

    /// Cycles per state (indexed by `WarpState::index`) in each of `n` consecutive
    /// columns of `per_col` cycles from `start`: what [`states_in`](Self::states_in)
    /// gives column by column, computed in one sweep.
    pub fn columns(&self, start: u64, per_col: u64, n: usize) -> Vec<[u64; STATE_COUNT]> {
        let mut sweep = Sweep::new();
        let mut prev = self.cumulative(start, &mut sweep);
        (1..=n as u64)
            .map(|i| {
                let cur = self.cumulative(start + i * per_col, &mut sweep);
                let d = std::array::from_fn(|s| cur[s] - prev[s]);
                prev = cur;
                d
            })
            .collect()
    }

    /// The first interval starting at or after `cycle` that satisfies `pred`.
    pub fn next_where(&self, cycle: u64, pred: impl Fn(&Interval) -> bool) -> Option<Interval> {
        let i = self.count_where(|s| s < cycle);
        (i..self.spans.len())
            .map(|i| self.interval(i))
            .find(|iv| pred(iv))
    }

    /// The last interval starting before `cycle` that satisfies `pred`.
    pub fn prev_where(&self, cycle: u64, pred: impl Fn(&Interval) -> bool) -> Option<Interval> {
        let i = self.count_where(|s| s < cycle);
        (0..i).rev().map(|i| self.interval(i)).find(|iv| pred(iv))
    }

    /// The start of the last interval (before the timeline is closed: the open one's).
    pub fn last_start(&self) -> Option<u64> {
        (!self.spans.is_empty()).then(|| self.start(self.spans.len() - 1))
    }

    /// Bytes this warp's intervals hold (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.spans.capacity() * size_of::<Span>()
            + (self.bases.capacity() + self.wide.capacity()) * size_of::<u64>()
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
    /// Adds a busy interval. Intervals come mostly in order of their start: one that
    /// overlaps or touches the last is merged into it at once, so that a pipe busy
    /// back to back holds one interval, not one per instruction.
    fn add(&mut self, start: u64, end: u64) {
        match self.busy.last_mut() {
            Some(last) if start >= last.0 && start <= last.1 => last.1 = last.1.max(end),
            _ => self.busy.push((start, end)),
        }
    }

    fn close(&mut self) {
        if !self.busy.is_sorted() {
            self.busy.sort_unstable();
        }
        // Merge in place: `w` intervals kept so far.
        let mut w = 0;
        for r in 0..self.busy.len() {
            let (s, e) = self.busy[r];
            if w > 0 && s <= self.busy[w - 1].1 {
                self.busy[w - 1].1 = self.busy[w - 1].1.max(e);
            } else {
                self.busy[w] = (s, e);
                w += 1;
            }
        }
        self.busy.truncate(w);
        self.busy.shrink_to_fit();
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
    /// Every kind of span met (state, instruction, cause), while the run goes.
    kinds: Vec<Kind>,
    /// The kinds, shared with the warps once the timeline is finished.
    shared_kinds: Option<Arc<[Kind]>>,
    /// Index in `kinds` by [`KindKey`], while the run goes (dropped when finished).
    kind_of: HashMap<KindKey, u32, BuildHasherDefault<MixHasher>>,
    /// Index in `kinds` of the kinds without a cause, by `pc_state` below
    /// [`PLAIN_LIMIT`] (`u32::MAX` where none yet), while the run goes: a third of a
    /// long run's time went to hashing them.
    plain_kinds: Vec<u32>,
    /// The most spans a finished warp of each role had, by role: what a new warp of
    /// the role reserves.
    typical_spans: Vec<usize>,
    /// Set by the viewer to stop the run (a newer what-if supersedes it).
    stop: Option<Arc<AtomicBool>>,
}

/// A hasher for the cause keys (a few integers): a multiply and a rotate per word, as
/// rustc's FxHasher does. The default SipHash cost a tenth of a long run's time.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        // The multiplies leave the low bits, which pick the bucket, depending on the
        // inputs' low bits only: fold the high half down (as rustc-hash 2 does), else
        // keys differing in their high bits collide and probe long chains.
        self.0 ^ (self.0 >> 32)
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

    /// A key of a cause of a span starting at `start`, for causes that recur (a
    /// producer, a pipe, a wait group at the same distance from their span's start, a
    /// warpgroup's arrivals); None for those kept once per span (barriers and
    /// mbarriers, whose phases and arrivals move on).
    fn cause_key(cause: &WaitCause, start: u64) -> Option<(u8, u64, u64)> {
        let rel = |x: u64| x.wrapping_sub(start);
        match cause {
            WaitCause::Producer { pc, ready } => {
                Some((0, pc.map_or(u64::MAX, u64::from), rel(*ready)))
            }
            WaitCause::Pipe { pipe, free } => Some((1, *pipe as u64, rel(*free))),
            WaitCause::WaitGroup { group, until } => Some((2, *group as u64, rel(*until))),
            WaitCause::WarpgroupArrive { warpgroup, arrived } => {
                Some((3, u64::from(*warpgroup), u64::from(*arrived)))
            }
            _ => None,
        }
    }

    /// Keeps a cause of a span starting at `start` (`key`: its [`Self::cause_key`]);
    /// its index.
    fn intern(&mut self, cause: WaitCause, start: u64, key: Option<(u8, u64, u64)>) -> u32 {
        if let Some(k) = key
            && let Some(&i) = self.cause_keys.get(&k)
        {
            return i;
        }
        let mut c = cause;
        shift_cycles(&mut c, |x| x.wrapping_sub(start));
        let i = self.causes.len() as u32;
        self.causes.push(c);
        if let Some(k) = key {
            self.cause_keys.insert(k, i);
        }
        i
    }

    /// The kind (state, instruction, cause) of a change at `cycle`, as a span names
    /// it: one lookup when the run has met it before.
    fn kind(&mut self, cycle: u64, state: WarpState, pc: u32, cause: Option<WaitCause>) -> u32 {
        let pc_state = pc << STATE_BITS | state as u32;
        // Most changes wait on nothing outside their instruction (selected,
        // not_selected, a dispatch stall): those kinds by `pc_state` in a plain array.
        let plain = cause.is_none() && (pc_state as usize) < PLAIN_LIMIT;
        if plain
            && let Some(&i) = self.plain_kinds.get(pc_state as usize)
            && i != u32::MAX
        {
            return i << STATE_BITS | state as u32;
        }
        let no_cause = (u64::from(pc_state) | u64::from(u8::MAX) << 32, 0, 0);
        let key = match &cause {
            None => Some(no_cause),
            Some(c) => Self::cause_key(c, cycle)
                .map(|(k, a, b)| (u64::from(pc_state) | u64::from(k) << 32, a, b)),
        };
        let found = key.and_then(|k| self.kind_of.get(&k).copied());
        let i = match found {
            Some(i) => i,
            None if self.kinds.len() >= KIND_LIMIT => {
                self.kind_of.get(&no_cause).copied().unwrap_or(0)
            }
            None => {
                let cause = match cause {
                    Some(c) => {
                        let ck = Self::cause_key(&c, cycle);
                        self.intern(c, cycle, ck)
                    }
                    None => NO_CAUSE,
                };
                let i = self.kinds.len() as u32;
                self.kinds.push(Kind { pc_state, cause });
                if let Some(k) = key {
                    self.kind_of.insert(k, i);
                }
                if plain {
                    let at = pc_state as usize;
                    if self.plain_kinds.len() <= at {
                        self.plain_kinds.resize(at + 1, u32::MAX);
                    }
                    self.plain_kinds[at] = i;
                }
                i
            }
        };
        i << STATE_BITS | state as u32
    }

    /// Distinct kinds of span (state, instruction, cause) kept.
    pub fn kind_count(&self) -> usize {
        self.shared_kinds
            .as_ref()
            .map_or(self.kinds.len(), |k| k.len())
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
        let i = self.warp_slot(id, cycle);
        &mut self.warps[i]
    }

    /// The index in `warps` of a warp, which starts at `cycle` if it is new.
    fn warp_slot(&mut self, id: WarpId, cycle: u64) -> usize {
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
            // A warp of a role seen finishing before likely changes state as often:
            // room for as many spans at once spares the copies of a growing vector.
            if let Some(&n) = self.typical_spans.get(tw.role as usize)
                && n > 0
            {
                let n = n + n / 8;
                tw.spans.reserve_exact(n);
                tw.bases.reserve_exact(n / CHECKPOINT + 1);
                tw.checkpoints.reserve_exact(n / CHECKPOINT + 1);
            }
            self.warps.push(tw);
        }
        row[w] as usize
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
        self.kind_of = HashMap::default();
        self.plain_kinds = Vec::new();
        let kinds: Arc<[Kind]> = Arc::from(std::mem::take(&mut self.kinds));
        for w in &mut self.warps {
            w.kinds = kinds.clone();
        }
        self.shared_kinds = Some(kinds);
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
            + self.kind_count() * size_of::<Kind>()
            + self.causes.capacity() * size_of::<WaitCause>()
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
                let kind = self.kind(cycle, state, pc, cause);
                self.warp_mut(warp, cycle).change(cycle, kind)
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
                let w = self.warp_mut(warp, cycle);
                w.finish_seen = Some(cycle);
                let (role, n) = (w.role as usize, w.len());
                if self.typical_spans.len() <= role {
                    self.typical_spans.resize(role + 1, 0);
                }
                self.typical_spans[role] = self.typical_spans[role].max(n);
            }
            Event::UnitBusy {
                start, end, unit, ..
            } => {
                let i = self.unit_index(unit);
                if end > start {
                    self.units[i].add(start, end);
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

    /// Changes fed one by one (replacements at the same cycle or before an open span's
    /// start, repeats of the open kind, and waits of billions of cycles that overflow a
    /// block's 32-bit offsets) read back as a direct list of them reads: intervals,
    /// the interval at a cycle, window sums and column sweeps.
    #[test]
    fn packed_spans_read_back_as_a_plain_list_of_changes() {
        for seed in 1..=6u64 {
            let mut x = seed;
            let mut next = move |m: u64| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % m
            };
            let warp = WarpId { cta: 0, warp: 0 };
            let mut t = Timeline::new();
            // The plain list: (start, state, pc), by the same rules as `change`.
            let mut plain: Vec<(u64, usize, u32)> = Vec::new();
            let mut cycle = 10;
            for _ in 0..700 {
                cycle = match next(10) {
                    0 => cycle,                                        // replaces the open span
                    1 if seed % 2 == 0 => cycle + (1 << 32) + next(9), // overflows an offset
                    2 => cycle.saturating_sub(next(3)).max(10),        // before the open span
                    _ => cycle + 1 + next(40),
                };
                let state = WarpState::ALL[next(4) as usize];
                let pc = next(3) as u32;
                t.event(Event::StateChange {
                    cycle,
                    warp,
                    state,
                    pc,
                    cause: None,
                });
                while plain.last().is_some_and(|s| s.0 >= cycle) {
                    plain.pop();
                }
                if plain
                    .last()
                    .is_none_or(|s| (s.1, s.2) != (state.index(), pc))
                {
                    plain.push((cycle, state.index(), pc));
                }
            }
            let finish = cycle + 5;
            t.event(Event::WarpFinish {
                cycle: finish,
                warp,
            });
            t.finish(&RunEnd {
                cycles: finish,
                outcome: Outcome::Finished,
            });
            let w = &t.warps[0];
            assert_eq!(w.len(), plain.len(), "seed {seed}");
            if seed % 2 == 0 {
                assert!(
                    !w.wide.is_empty(),
                    "seed {seed}: the wide form was exercised"
                );
            }
            let ends: Vec<u64> = plain.iter().skip(1).map(|s| s.0).chain([finish]).collect();
            for (i, iv) in w.intervals().enumerate() {
                let p = plain[i];
                assert_eq!(
                    (iv.start, iv.end, iv.state.index(), iv.pc),
                    (p.0, ends[i], p.1, p.2),
                    "seed {seed} interval {i}"
                );
            }
            let direct = |a: u64, b: u64| {
                let mut d = [0u64; STATE_COUNT];
                for (i, p) in plain.iter().enumerate() {
                    let (s, e) = (p.0.max(a), ends[i].min(b));
                    if e > s {
                        d[p.1] += e - s;
                    }
                }
                d
            };
            for _ in 0..200 {
                let a = 10 + next(finish - 5);
                let b = a + next(finish - a + 20);
                assert_eq!(w.states_in(a, b), direct(a, b), "seed {seed} {a}..{b}");
                let at = w.at(a).map(|iv| iv.start);
                let want = plain.iter().rev().find(|p| p.0 <= a).map(|p| p.0);
                assert_eq!(at, want.filter(|_| a < finish), "seed {seed} at {a}");
            }
            for per in [1, 7, 300, finish / 50 + 1] {
                let cols = w.columns(10, per, 60);
                for (i, c) in cols.iter().enumerate() {
                    let a = 10 + i as u64 * per;
                    assert_eq!(*c, direct(a, a + per), "seed {seed} per {per} column {i}");
                }
            }
        }
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
