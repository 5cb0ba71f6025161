//! Units' busy time (merged intervals with prefix sums), memory levels' bytes by
//! completion cycle, and synchronisation events: each window's sums in a search.

use crate::sink::{MemLevel, Unit};

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

/// Busy intervals per prefix sum: a sum every this many intervals (not one each: a
/// long run's FP64 pipes hold 1.6 M intervals, whose sums were a third of the units'
/// memory), so a query adds up at most this many intervals.
const SUM_EVERY: usize = 64;

/// One unit's busy time: merged, sorted intervals with prefix sums.
#[derive(Clone, Debug)]
pub struct UnitTimeline {
    /// The unit, as events name it.
    pub unit: Unit,
    /// Busy intervals `[start, end)`, sorted and disjoint once the timeline is closed.
    pub busy: Vec<(u64, u64)>,
    /// `prefix[k]`: busy cycles before `busy[k * SUM_EVERY]`.
    pub(super) prefix: Vec<u64>,
}

impl UnitTimeline {
    /// Adds a busy interval. Intervals come mostly in order of their start: one that
    /// overlaps or touches the last is merged into it at once, so that a pipe busy
    /// back to back holds one interval, not one per instruction.
    pub(super) fn add(&mut self, start: u64, end: u64) {
        match self.busy.last_mut() {
            Some(last) if start >= last.0 && start <= last.1 => last.1 = last.1.max(end),
            _ => self.busy.push((start, end)),
        }
    }

    /// Sorts, merges and sums the busy intervals: once at the run's end, and at each
    /// [`Timeline::catch_up`] (the merged list stays valid for more intervals).
    pub(super) fn close(&mut self) {
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
        // In place: a catch-up's sums are rewritten, not copied beside the new ones.
        let mut acc = 0;
        self.prefix.clear();
        self.prefix.extend(self.busy.chunks(SUM_EVERY).map(|c| {
            let before = acc;
            acc += c.iter().map(|&(s, e)| e - s).sum::<u64>();
            before
        }));
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
        let first = (n - 1) / SUM_EVERY * SUM_EVERY;
        let (s, e) = self.busy[n - 1];
        let whole: u64 = self.busy[first..n - 1].iter().map(|&(s, e)| e - s).sum();
        self.prefix[first / SUM_EVERY] + whole + e.min(cycle) - s
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

    /// Busy cycles within `[from, to)`, in O(log n) and at most `2 * SUM_EVERY`
    /// additions.
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
    pub(super) prefix: Vec<u64>,
}

impl MemoryTimeline {
    pub(super) fn close(&mut self) {
        if !self.requests.is_sorted() {
            self.requests.sort_unstable();
        }
        let mut acc = 0u64;
        self.prefix.clear();
        self.prefix.extend(self.requests.iter().map(|&(_, b)| {
            let before = acc;
            acc += b as u64;
            before
        }));
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
