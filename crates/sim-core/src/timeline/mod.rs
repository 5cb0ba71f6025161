//! [`Timeline`]: a [`Sink`] that keeps a run as compact intervals, for viewers and
//! exporters that need to answer "what was this warp doing at cycle t, and over this
//! window?" without holding every event.
//!
//! Memory grows with the number of state changes, not with cycles: a warp's states are
//! one `Span` (6 bytes) per change, each ending where the next starts, so the spans
//! tile the warp's lifetime from its launch to its finish. A span holds its start as a
//! 24-bit offset from its block's first span (every [`CHECKPOINT`] spans a block keeps
//! a full cycle) and its state with a 24-bit index in the run's table of kinds (state,
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
//! the indexes. Queries are meant for a finished timeline, or one caught up while its
//! run goes on ([`Timeline::catch_up`]: a viewer's frame of a run still simulating). A
//! run that deadlocks or meets
//! the watchdog keeps its live warps' last state through the stop cycle (one cycle past
//! their `WarpFinish`), so that the stop cycle shows what each warp is stuck in.
//!
//! The module's parts: `spans` (a warp's packed spans and their checkpoints, as the
//! run fills them), `queries` (a warp's intervals, the interval at a cycle, window
//! sums and column sweeps), `units` (units' busy time, memory bytes, sync events),
//! `sink` (the [`Sink`] that fills a timeline: kinds and causes interned, warps and
//! units found by table), and here the [`Timeline`] itself: its closing at the run's
//! end, its catching up while the run goes, and its run-wide queries.
//!
//! [`Sink`]: crate::sink::Sink
//! [`Sink::begin`]: crate::sink::Sink::begin
//! [`Sink::finish`]: crate::sink::Sink::finish

mod queries;
mod sink;
mod spans;
#[cfg(test)]
mod tests;
mod units;

pub use queries::Interval;
pub use spans::{CHECKPOINT, CauseId, WarpTimeline};
pub use units::{MemoryTimeline, SyncEvent, SyncKind, UnitTimeline};

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::cause::WaitCause;
use crate::sink::{Outcome, RunEnd, RunHeader, WarpId};

use sink::{KindKey, MixHasher, shift_cycles};
use spans::Kind;

/// A run as intervals: every warp's states, every unit's busy time, the memory levels'
/// traffic and the synchronisation events. Attach it to a run as its sink; the run's
/// end finishes it.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// What the run's events name: roles and their instructions (texts, source lines),
    /// mbarriers, units (from [`Sink::begin`](crate::sink::Sink::begin)).
    pub header: Option<RunHeader>,
    /// How the run ended (from [`Sink::finish`](crate::sink::Sink::finish)).
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
    /// Warp index by (CTA, warp): `slots[cta * stride + warp]`, `u32::MAX` where none
    /// (one flat table: a lookup per event, the fa3 seed's 7 M issues included).
    slots: Vec<u32>,
    /// Warps per CTA in `slots`: the header's, grown if a warp past it appears.
    stride: usize,
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
    /// The kinds met lately by [`KindKey`], direct-mapped (`sink::RECENT` entries
    /// once the first is met), while the run goes: most lookups end here.
    recent: Vec<(KindKey, u32)>,
    /// The most spans a finished warp of each role had, by role: what a new warp of
    /// the role reserves.
    typical_spans: Vec<usize>,
    /// Set by the viewer to stop the run (a newer what-if supersedes it).
    stop: Option<Arc<AtomicBool>>,
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
        let w = id.warp as usize;
        if w >= self.stride {
            return None;
        }
        let i = *self.slots.get(id.cta as usize * self.stride + w)?;
        (i != u32::MAX).then_some(i as usize)
    }

    /// Makes a timeline still being filled readable as far as the run has got, for a
    /// viewer that shows a long run while it simulates: every warp still on the SM
    /// ends (for now) at the cycle past `cycle`, past every span's start and at or
    /// past every finish seen (the returned cycle, also [`end`](Self::end)), finished
    /// warps at their finish; units,
    /// memory and sync events sorted and summed; the kinds shared, so intervals read
    /// back their instruction and cause. [`outcome`](Self::outcome) stays `None`: the
    /// run is not over. Call it between events (at a [`Sink::keep_going`] poll); the
    /// run then goes on filling the timeline, and [`Sink::finish`] closes it for good.
    ///
    /// [`Sink::keep_going`]: crate::sink::Sink::keep_going
    /// [`Sink::finish`]: crate::sink::Sink::finish
    /// It costs a pass over the units' busy lists, not over the spans.
    pub fn catch_up(&mut self, cycle: u64) -> u64 {
        // Past every live warp's open span and every finish seen (a warp's finish may
        // be sent ahead of the cycle the engine is at): one end for every row.
        let now = self
            .warps
            .iter()
            .filter_map(|w| match w.finish_seen {
                Some(f) => Some(f),
                None => w.last_start().map(|s| s + 1),
            })
            .fold(cycle, u64::max);
        let kinds: Arc<[Kind]> = Arc::from(self.kinds.as_slice());
        for w in &mut self.warps {
            w.catch_up(now);
            w.kinds = kinds.clone();
        }
        self.end = now;
        self.close_units();
        now
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
        // (Not at a catch-up: the lists grow on.)
        for u in &mut self.units {
            u.shrink();
        }
        for m in &mut self.memory {
            m.requests.shrink_to_fit();
            m.prefix.shrink_to_fit();
        }
        self.causes.shrink_to_fit();
        self.cause_keys = HashMap::default();
        self.kind_of = HashMap::default();
        self.plain_kinds = Vec::new();
        self.recent = Vec::new();
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
            + self.units.iter().map(|u| u.heap_bytes()).sum::<usize>()
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
