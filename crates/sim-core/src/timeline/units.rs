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
///
/// Intervals are kept as a 32-bit start and length (8 bytes: a long run's pipes hold
/// millions, half the memory of two full cycles), and in full (16 bytes) from the first
/// one that ends past `u32::MAX` cycles.
#[derive(Clone, Debug)]
pub struct UnitTimeline {
    /// The unit, as events name it.
    pub unit: Unit,
    /// Busy intervals `(start, length)`, while every one ends below `u32::MAX`.
    narrow: Vec<(u32, u32)>,
    /// Busy intervals `[start, end)` once one did not (`narrow` is then empty).
    wide: Vec<(u64, u64)>,
    /// `prefix[k]`: busy cycles before interval `k * SUM_EVERY`.
    prefix: Vec<u64>,
}

/// A narrow interval in full.
#[inline(always)]
fn full(&(s, l): &(u32, u32)) -> (u64, u64) {
    (u64::from(s), u64::from(s) + u64::from(l))
}

/// Sorts and merges intervals in place (`get` reads one in full, `put` writes one):
/// the count kept.
fn merge<T: Ord>(
    v: &mut Vec<T>,
    get: impl Fn(&T) -> (u64, u64),
    put: impl Fn(u64, u64) -> T,
) -> usize {
    if !v.is_sorted() {
        v.sort_unstable();
    }
    // `w` intervals kept so far.
    let mut w = 0;
    for r in 0..v.len() {
        let (s, e) = get(&v[r]);
        if w > 0 && s <= get(&v[w - 1]).1 {
            let (ps, pe) = get(&v[w - 1]);
            v[w - 1] = put(ps, pe.max(e));
        } else {
            v[w] = put(s, e);
            w += 1;
        }
    }
    v.truncate(w);
    w
}

/// Busy cycles before `cycle` in sorted, disjoint intervals with their prefix sums,
/// from `hint` on (see [`UnitTimeline::busy_before_from`]).
fn busy_before<T>(
    v: &[T],
    get: impl Fn(&T) -> (u64, u64),
    prefix: &[u64],
    cycle: u64,
    hint: &mut usize,
) -> u64 {
    let from = if *hint < v.len() && get(&v[*hint]).0 < cycle {
        *hint
    } else {
        0
    };
    let n = gallop(v, from, |x| get(x).0 < cycle);
    *hint = n.saturating_sub(1);
    if n == 0 {
        return 0;
    }
    let first = (n - 1) / SUM_EVERY * SUM_EVERY;
    let (s, e) = get(&v[n - 1]);
    let whole: u64 = v[first..n - 1]
        .iter()
        .map(|x| {
            let (s, e) = get(x);
            e - s
        })
        .sum();
    prefix[first / SUM_EVERY] + whole + e.min(cycle) - s
}

impl UnitTimeline {
    /// A unit not busy yet.
    pub(super) fn new(unit: Unit) -> UnitTimeline {
        UnitTimeline {
            unit,
            narrow: Vec::new(),
            wide: Vec::new(),
            prefix: Vec::new(),
        }
    }

    /// Busy intervals kept (merged, once the timeline is closed).
    pub fn len(&self) -> usize {
        self.narrow.len() + self.wide.len()
    }

    /// True when the unit was never busy.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The busy intervals `[start, end)`, sorted and disjoint once the timeline is
    /// closed.
    pub fn busy(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.narrow
            .iter()
            .map(full)
            .chain(self.wide.iter().copied())
    }

    /// Adds a busy interval (`end > start`). Intervals come mostly in order of their
    /// start: one that overlaps or touches the last is merged into it at once, so
    /// that a pipe busy back to back holds one interval, not one per instruction.
    #[inline(always)]
    pub(super) fn add(&mut self, start: u64, end: u64) {
        if self.wide.is_empty() && end <= u64::from(u32::MAX) {
            // (Both fit: `start < end`, and so does any merge's length.)
            match self.narrow.last_mut() {
                Some(last) if start >= u64::from(last.0) && start <= full(last).1 => {
                    last.1 = last.1.max((end - u64::from(last.0)) as u32);
                }
                _ => self.narrow.push((start as u32, (end - start) as u32)),
            }
            return;
        }
        self.add_wide(start, end);
    }

    /// [`Self::add`] in full: the intervals kept so far widened first.
    #[cold]
    #[inline(never)]
    fn add_wide(&mut self, start: u64, end: u64) {
        if !self.narrow.is_empty() {
            self.wide = self.narrow.iter().map(full).collect();
            self.narrow = Vec::new();
        }
        match self.wide.last_mut() {
            Some(last) if start >= last.0 && start <= last.1 => last.1 = last.1.max(end),
            _ => self.wide.push((start, end)),
        }
    }

    /// Sorts, merges and sums the busy intervals: once at the run's end, and at each
    /// [`Timeline::catch_up`](super::Timeline::catch_up) (the merged list stays valid
    /// for more intervals).
    pub(super) fn close(&mut self) {
        merge(&mut self.narrow, full, |s, e| (s as u32, (e - s) as u32));
        merge(&mut self.wide, |&x| x, |s, e| (s, e));
        // In place: a catch-up's sums are rewritten, not copied beside the new ones.
        let mut acc = 0;
        self.prefix.clear();
        let sums = |c: &[(u64, u64)]| c.iter().map(|&(s, e)| e - s).sum::<u64>();
        if self.wide.is_empty() {
            self.prefix.extend(self.narrow.chunks(SUM_EVERY).map(|c| {
                let before = acc;
                acc += c.iter().map(|&(_, l)| u64::from(l)).sum::<u64>();
                before
            }));
        } else {
            self.prefix.extend(self.wide.chunks(SUM_EVERY).map(|c| {
                let before = acc;
                acc += sums(c);
                before
            }));
        }
    }

    /// Gives back the room the lists grew into (at the run's end).
    pub(super) fn shrink(&mut self) {
        self.narrow.shrink_to_fit();
        self.wide.shrink_to_fit();
        self.prefix.shrink_to_fit();
    }

    /// Bytes held on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        self.narrow.capacity() * size_of::<(u32, u32)>()
            + self.wide.capacity() * size_of::<(u64, u64)>()
            + self.prefix.capacity() * size_of::<u64>()
    }

    fn busy_before(&self, cycle: u64) -> u64 {
        self.busy_before_from(cycle, &mut 0)
    }

    fn busy_before_from(&self, cycle: u64, hint: &mut usize) -> u64 {
        if self.wide.is_empty() {
            busy_before(&self.narrow, full, &self.prefix, cycle, hint)
        } else {
            busy_before(&self.wide, |&x| x, &self.prefix, cycle, hint)
        }
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
