//! A warp's states as packed spans: 6 bytes a change (a 24-bit offset from its block's
//! first start and a 24-bit index into the run's kinds), a full cycle and the
//! cumulative cycles per state every [`CHECKPOINT`] spans, kept as the run fills them.

use std::sync::Arc;

use crate::sink::WarpId;
use crate::state::STATE_COUNT;

/// Spans per block. A block keeps its first span's start in full (the others as 24-bit
/// offsets from it) and, once the timeline is finished, the warp's cumulative cycles per
/// state before it: a window query adds up at most this many spans at each end.
pub const CHECKPOINT: usize = 64;

/// One stretch of a warp in one kind of stay (state, instruction, cause): from its start
/// to the next span's start (or the warp's finish). 6 bytes (a long run holds tens of
/// millions, and its time goes partly to the page faults of their memory): the start
/// as a 24-bit offset from its block's first span, and the 24-bit `kind`:
/// `k << STATE_BITS | state`, where `k` indexes the timeline's table of kinds (so that
/// window sums read the state without it). `lo` holds the offset and the kind's low 8
/// bits, `hi` the kind's high 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(2))]
pub(super) struct Span {
    lo: u32,
    hi: u16,
}

/// Bits of a span's offset, and of its kind.
const DELTA_BITS: u32 = 24;

/// Bits of a span's kind: its state's and its index's in the table of kinds.
pub(super) const KIND_BITS: u32 = 24;

impl Span {
    /// A span at `delta` (below `NARROW`) from its block's base, of `kind` (below
    /// `1 << KIND_BITS`).
    #[inline(always)]
    fn new(delta: u32, kind: u32) -> Span {
        Span {
            lo: delta | kind << DELTA_BITS,
            hi: (kind >> (32 - DELTA_BITS)) as u16,
        }
    }

    /// Its start's offset from its block's base.
    #[inline(always)]
    pub(super) fn delta(self) -> u32 {
        self.lo & ((1 << DELTA_BITS) - 1)
    }

    /// Its kind: `k << STATE_BITS | state`.
    #[inline(always)]
    pub(super) fn kind(self) -> u32 {
        self.lo >> DELTA_BITS | u32::from(self.hi) << (32 - DELTA_BITS)
    }

    /// Its state's index (the kind's low bits, all in `lo`).
    #[inline(always)]
    pub(super) fn state(self) -> usize {
        (self.lo >> DELTA_BITS & STATE_MASK) as usize
    }
}

/// What a span is: the state, the instruction it is charged to (numbered as reports
/// number them: `PcStats::pc`), and what it waits on (an index in the timeline's causes,
/// `NO_CAUSE` for none). A run meets few distinct kinds (its loops' instructions times
/// their states and typical waits), so spans name them by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Kind {
    /// `pc << STATE_BITS | state`.
    pub(super) pc_state: u32,
    pub(super) cause: u32,
}

pub(super) const STATE_BITS: u32 = 5;

pub(super) const STATE_MASK: u32 = (1 << STATE_BITS) - 1;

pub(super) const NO_CAUSE: u32 = u32::MAX;

impl Kind {
    pub(super) fn pc(&self) -> u32 {
        self.pc_state >> STATE_BITS
    }
}

/// What a state waits on, as the timeline keeps it: [`Timeline::cause`](super::Timeline::cause) reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CauseId(pub(super) u32);

/// One warp's life as state intervals.
#[derive(Clone, Debug)]
pub struct WarpTimeline {
    /// The warp: its CTA's launch id on this SM and its index in the CTA.
    pub id: WarpId,
    /// Index of its role in [`Timeline::roles`](super::Timeline::roles) (from its issues, or the run's result).
    pub role: u16,
    /// Its sub-partition (from its issues; 0 until it issues).
    pub subpartition: u8,
    /// Its launch cycle.
    pub started: u64,
    /// Its finish: the cycle it left the SM (its last span ends here). Until the
    /// timeline is finished, its launch.
    pub finished: u64,
    /// Its `WarpFinish` cycle, once seen.
    pub(super) finish_seen: Option<u64>,
    /// The cycle it executed EXIT (it may drain after), if it did.
    pub exited: Option<u64>,
    pub(super) spans: Vec<Span>,
    /// `bases[k]`: the start of span `k * CHECKPOINT`.
    pub(super) bases: Vec<u64>,
    /// Every span's start, only once an offset from its block's base overflowed 24
    /// bits (a block of a warp's spans over 16 M cycles: long waits); empty otherwise.
    pub(super) wide: Vec<u64>,
    /// The timeline's kinds, shared once it is finished (empty until then).
    pub(super) kinds: Arc<[Kind]>,
    /// `checkpoints[k][s]`: cycles in state `s` before span `k * CHECKPOINT` (kept as
    /// the run goes: block `k`'s once span `k * CHECKPOINT` opens), in 32 bits: half
    /// the memory (a fifth of a long run's spans' own), which a long run pays for in
    /// page faults. Empty once a count passes `u32::MAX`: `wide_checkpoints` then.
    checkpoints: Vec<[u32; STATE_COUNT]>,
    /// The checkpoints in full, once a warp spends over `u32::MAX` cycles in a state
    /// (empty otherwise).
    pub(super) wide_checkpoints: Vec<[u64; STATE_COUNT]>,
    /// The last span's start (0 while there is none).
    open_start: u64,
    /// The last span's kind ([`NO_KIND`] while there is none): a change compares with
    /// it without reading the spans.
    open_kind: u32,
    /// The start of the last block's first span (`bases`' last; 0 while there is
    /// none): a push's offset without a look-up.
    base: u64,
    /// Offsets below this fit a span (`NARROW`), 0 once the starts are `wide`: a
    /// push's one test for both.
    narrow_below: u64,
    /// Cycles per state of every span before the last, kept as spans open (a block's
    /// checkpoint is a copy of it, not a second pass over the block's spans). Indexed
    /// by a kind's state bits, all of them (so without a bounds check): the entries
    /// past [`STATE_COUNT`] are never read.
    before_open: [u64; 1 << STATE_BITS],
}

/// No kind: what [`WarpTimeline::open_kind`] holds while a warp has no span (a kind's
/// state bits are below [`STATE_COUNT`], so no kind is this).
const NO_KIND: u32 = u32::MAX;

/// Offsets from a block's base below this fit a span's 24 bits.
const NARROW: u64 = 1 << DELTA_BITS;

impl WarpTimeline {
    pub(super) fn new(id: WarpId, start: u64) -> WarpTimeline {
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
            wide_checkpoints: Vec::new(),
            open_start: 0,
            open_kind: NO_KIND,
            base: 0,
            narrow_below: NARROW,
            before_open: [0; 1 << STATE_BITS],
        }
    }

    /// The start of span `i`.
    pub(super) fn start(&self, i: usize) -> u64 {
        if self.wide.is_empty() {
            self.bases[i / CHECKPOINT] + u64::from(self.spans[i].delta())
        } else {
            self.wide[i]
        }
    }

    /// The end of span `i`: the next one's start, or the warp's finish.
    pub(super) fn end(&self, i: usize) -> u64 {
        if i + 1 < self.spans.len() {
            self.start(i + 1)
        } else {
            self.finished
        }
    }

    pub(super) fn state(&self, i: usize) -> usize {
        self.spans[i].state()
    }

    // Inlined into the engine's state changes, with the rare parts out of line: the
    // last span's start and kind and the block's base are kept beside the spans, so
    // a push reads nothing back from them.
    #[inline(always)]
    pub(super) fn push(&mut self, cycle: u64, kind: u32) {
        let i = self.spans.len();
        // (With no span yet, `open_kind`'s state bits name an entry never read.)
        self.before_open[(self.open_kind & STATE_MASK) as usize] += cycle - self.open_start;
        if i.is_multiple_of(CHECKPOINT) {
            self.begin_block(cycle);
        }
        let delta = cycle - self.base;
        let delta = if delta < self.narrow_below {
            delta as u32
        } else {
            self.push_wide(cycle)
        };
        self.spans.push(Span::new(delta, kind));
        self.open_start = cycle;
        self.open_kind = kind;
    }

    /// A block begins at `cycle`: the spans before it are complete (the last ends here).
    #[inline(never)]
    fn begin_block(&mut self, cycle: u64) {
        self.bases.push(cycle);
        self.base = cycle;
        let counts: [u64; STATE_COUNT] = std::array::from_fn(|s| self.before_open[s]);
        // (One test of every count's high half, not a conversion each.)
        let high = counts.iter().fold(0, |a, &c| a | c) >> 32;
        if self.wide_checkpoints.is_empty() && high == 0 {
            self.checkpoints.push(counts.map(|c| c as u32));
        } else {
            if self.wide_checkpoints.is_empty() {
                self.wide_checkpoints = self
                    .checkpoints
                    .drain(..)
                    .map(|c| c.map(u64::from))
                    .collect();
            }
            self.wide_checkpoints.push(counts);
        }
    }

    /// Block `k`'s checkpoint: cycles per state before span `k * CHECKPOINT`.
    pub(super) fn checkpoint(&self, k: usize) -> Option<[u64; STATE_COUNT]> {
        if self.wide_checkpoints.is_empty() {
            self.checkpoints.get(k).map(|c| c.map(u64::from))
        } else {
            self.wide_checkpoints.get(k).copied()
        }
    }

    /// Checkpoints kept: one per block.
    pub(super) fn checkpoint_count(&self) -> usize {
        self.checkpoints.len() + self.wide_checkpoints.len()
    }

    /// Room for `n` more spans at once (a warp of a role whose warps make about as
    /// many changes).
    pub(super) fn reserve(&mut self, n: usize) {
        self.spans.reserve_exact(n);
        self.bases.reserve_exact(n / CHECKPOINT + 1);
        self.checkpoints.reserve_exact(n / CHECKPOINT + 1);
    }

    /// Keeps the start of the span about to be pushed at `cycle` in full (every span's
    /// start from the first whose offset overflows 24 bits); its offset is then 0.
    #[cold]
    #[inline(never)]
    fn push_wide(&mut self, cycle: u64) -> u32 {
        if self.wide.is_empty() {
            self.wide = (0..self.spans.len()).map(|j| self.start(j)).collect();
            self.narrow_below = 0;
        }
        self.wide.push(cycle);
        0
    }

    #[inline(never)]
    pub(super) fn pop(&mut self) {
        let i = self.spans.len() - 1;
        self.spans.pop();
        self.wide.truncate(i);
        if self.wide.is_empty() {
            self.narrow_below = NARROW;
        }
        if i.is_multiple_of(CHECKPOINT) {
            self.bases.pop();
            self.checkpoints.pop();
            self.wide_checkpoints.pop();
            self.base = self.bases.last().copied().unwrap_or(0);
        }
        if i > 0 {
            // Span `i - 1` is the last again: its cycles leave the sums before it.
            let prev = self.start(i - 1);
            self.before_open[self.state(i - 1)] -= self.open_start - prev;
            self.open_start = prev;
            self.open_kind = self.spans[i - 1].kind();
        } else {
            // (The entry `NO_KIND` names took the first push's cycle: cleared.)
            self.before_open = [0; 1 << STATE_BITS];
            self.open_start = 0;
            self.open_kind = NO_KIND;
        }
    }

    /// Opens a span at `cycle`. A change at the cycle of the last span's start replaces
    /// it (the engine may classify a warp more than once in a cycle); a change to the
    /// kind already open is no change.
    #[inline(always)]
    pub(super) fn change(&mut self, cycle: u64, kind: u32) {
        // The engine never goes back in time for a warp; a span opened in the future (an
        // issue that knows next cycle's state) that an earlier change supersedes is
        // dropped the same way as one replaced at its own cycle.
        // (The usual change is past the open span's start: one comparison.)
        while cycle <= self.open_start && !self.spans.is_empty() {
            self.pop();
        }
        if self.open_kind == kind {
            return;
        }
        self.push(cycle, kind);
    }

    /// Makes a warp still on the SM readable up to `now` while the run goes on: its
    /// open span ends there for now (a finished warp ends at its finish, as
    /// [`close`](Self::close) ends it). `now` is past every span's start.
    pub(super) fn catch_up(&mut self, now: u64) {
        match self.finish_seen {
            Some(f) => {
                while self.last_start().is_some_and(|s| s >= f) {
                    self.pop();
                }
                self.finished = f.max(self.started);
            }
            None => self.finished = now.max(self.started),
        }
    }

    /// Ends the last span at `finish` and builds the checkpoints.
    pub(super) fn close(&mut self, finish: u64) {
        while self.last_start().is_some_and(|s| s >= finish) {
            self.pop();
        }
        // (The checkpoints were kept as the blocks filled.)
        self.finished = finish.max(self.started);
        self.spans.shrink_to_fit();
        self.bases.shrink_to_fit();
        self.wide.shrink_to_fit();
        self.checkpoints.shrink_to_fit();
        self.wide_checkpoints.shrink_to_fit();
    }

    /// Number of intervals.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when the warp has no interval (it launched and left in the same cycle).
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Whether the warp was still on the SM where the run has got to: its
    /// `WarpFinish` not yet seen (a timeline caught up while its run goes on:
    /// [`Timeline::catch_up`](super::Timeline::catch_up)). Its last interval then ends
    /// at the run's frontier for now, not where the warp's state ends.
    pub fn live(&self) -> bool {
        self.finish_seen.is_none()
    }

    /// The start of the last interval (before the timeline is closed: the open one's).
    pub fn last_start(&self) -> Option<u64> {
        (!self.spans.is_empty()).then_some(self.open_start)
    }

    /// Bytes this warp's intervals hold (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.spans.capacity() * size_of::<Span>()
            + (self.bases.capacity() + self.wide.capacity()) * size_of::<u64>()
            + self.checkpoints.capacity() * size_of::<[u32; STATE_COUNT]>()
            + self.wide_checkpoints.capacity() * size_of::<[u64; STATE_COUNT]>()
    }
}
