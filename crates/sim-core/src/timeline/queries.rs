//! A warp's timeline read back: its intervals, the interval at a cycle, and the cycles
//! per state in any window or column sweep (two searches and at most `2 * CHECKPOINT`
//! additions, whatever the window's width).

use crate::state::{STATE_COUNT, WarpState};

use super::spans::{CHECKPOINT, CauseId, NO_CAUSE, STATE_BITS, WarpTimeline};

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
    /// What it waits on, if the engine said ([`Timeline::cause`](super::Timeline::cause) reads it).
    pub cause: Option<CauseId>,
}

/// Cycles per state in a warp's first spans, as a sweep over increasing cycles carries
/// it: `acc` sums spans `[0, n)` in full.
pub(super) struct Sweep {
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

impl WarpTimeline {
    /// How many spans start at a cycle satisfying `pred` (true on a prefix of cycles):
    /// a search of the blocks' bases, then of one block's offsets.
    pub(super) fn count_where(&self, pred: impl Fn(u64) -> bool) -> usize {
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
        lo + self.spans[lo..hi].partition_point(|s| pred(base + u64::from(s.delta())))
    }

    pub(super) fn interval(&self, i: usize) -> Interval {
        // (Before the timeline is finished the kinds are not shared yet: the state
        // only.)
        let k = self
            .kinds
            .get((self.spans[i].kind() >> STATE_BITS) as usize);
        Interval {
            start: self.start(i),
            end: self.end(i),
            state: WarpState::ALL[self.state(i)],
            pc: k.map_or(0, |k| k.pc()),
            cause: k.filter(|k| k.cause != NO_CAUSE).map(|k| CauseId(k.cause)),
        }
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
    pub(super) fn cumulative(&self, cycle: u64, sweep: &mut Sweep) -> [u64; STATE_COUNT] {
        if self.spans.is_empty() || cycle <= self.started {
            return [0; STATE_COUNT];
        }
        let cycle = cycle.min(self.finished);
        // The last span starting before `cycle` counts in part; the ones before it in
        // full.
        let last = self.count_where(|s| s < cycle) - 1;
        if sweep.n > last || last - sweep.n > CHECKPOINT {
            let k = (last / CHECKPOINT).min(self.checkpoint_count());
            *sweep = match self.checkpoint(k) {
                Some(acc) => Sweep {
                    n: k * CHECKPOINT,
                    acc,
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
}
