//! When each warp must next be looked at, kept so that a cycle finds its due warps, and
//! fast-forward the next cycle that has any, without reading every warp's due cycle.
//!
//! A timing wheel: one slot per cycle of the next `HORIZON`, each a mask of the warps
//! (by position within their sub-partition) due then, and a bitmap of the slots that
//! hold any. The engine keeps each warp's due cycle (`until`) itself and stays the
//! authority: the wheel only says where to look. A warp told a new due cycle keeps its
//! old bit, which is dropped where it is found stale (its warp is not due by then), so
//! moving a warp costs one insertion.

/// Cycles ahead the wheel holds; a warp due later is counted in `far_min` and put in
/// the wheel when its cycle comes within the horizon (`refill`). Longer than an L2 or
/// HBM round trip, so that a kernel waiting on memory rarely needs a refill.
pub const HORIZON: u64 = 1024;
const SLOT_MASK: u64 = HORIZON - 1;
const BUSY_WORDS: usize = (HORIZON / 64) as usize;

/// The most warps a sub-partition may hold (a position is a bit of a word).
pub const MAX_POSITIONS: usize = 64;

const NEVER: u64 = u64::MAX;

pub struct DueWheel {
    /// Per cycle modulo `HORIZON`, per sub-partition: the positions due then.
    slots: Box<[[u64; 4]; HORIZON as usize]>,
    /// Which slots hold any bit.
    busy: [u64; BUSY_WORDS],
    /// No later than the earliest due cycle beyond the horizon when it was told (held in
    /// no slot); `NEVER`: none.
    far_min: u64,
}

impl Default for DueWheel {
    fn default() -> Self {
        DueWheel {
            slots: Box::new([[0; 4]; HORIZON as usize]),
            busy: [0; BUSY_WORDS],
            far_min: NEVER,
        }
    }
}

impl DueWheel {
    /// The warp at `position` of sub-partition `sp` is due at `t` (told at `now`).
    #[inline(always)]
    pub fn insert(&mut self, sp: usize, position: usize, t: u64, now: u64) {
        let bit = 1u64 << position;
        if t <= now {
            // Due already: looked at this cycle if told before the cycle takes its slot
            // (events and refills at its start), else the next. The bit left in a slot
            // already taken is stale by the time the slot comes round again.
            self.slots[(now & SLOT_MASK) as usize][sp] |= bit;
            let j = ((now + 1) & SLOT_MASK) as usize;
            self.slots[j][sp] |= bit;
            self.busy[j >> 6] |= 1 << (j & 63);
        } else {
            self.insert_ahead(sp, position, t, now);
        }
    }

    /// `insert` of a warp due after `now`, which the caller knows (the compiler cannot
    /// tell it from `t = now + 1`, which might wrap).
    #[inline(always)]
    pub fn insert_ahead(&mut self, sp: usize, position: usize, t: u64, now: u64) {
        debug_assert!(t > now);
        if t - now < HORIZON {
            let j = (t & SLOT_MASK) as usize;
            self.slots[j][sp] |= 1u64 << position;
            self.busy[j >> 6] |= 1 << (j & 63);
        } else if t != NEVER {
            self.far_min = self.far_min.min(t);
        }
    }

    /// The warps at `positions` of sub-partition `sp` are due at the cycle after `now`
    /// (`insert_ahead` of each, at once).
    #[inline(always)]
    pub fn insert_next(&mut self, sp: usize, positions: u64, now: u64) {
        let j = ((now + 1) & SLOT_MASK) as usize;
        self.slots[j][sp] |= positions;
        self.busy[j >> 6] |= 1 << (j & 63);
    }

    /// Takes the positions, per sub-partition, that may be due at `now` (some may be
    /// stale), once its events and refills are in: nothing told later in the cycle adds
    /// a warp due at `now` (a warp told it is due already was due already, so its bit
    /// is here, or was told after its turn, and it is in the next slot too).
    #[inline(always)]
    pub fn take_all(&mut self, now: u64) -> [u64; 4] {
        let j = (now & SLOT_MASK) as usize;
        self.busy[j >> 6] &= !(1 << (j & 63));
        std::mem::take(&mut self.slots[j])
    }

    /// Puts in the wheel the warps beyond its horizon whose due cycle may have come
    /// within it by `now`. `until` holds every warp's due cycle, in warp slot order:
    /// position `p` of sub-partition `sp` at `4 * p + sp` (the engine's layout).
    #[inline(always)]
    pub fn admit_far(&mut self, now: u64, until: &[u64]) {
        if self.far_min != NEVER && self.far_min < now + HORIZON {
            self.refill(now, until);
        }
    }

    /// Tells the wheel every warp's due cycle again (`far_min` becomes exact).
    #[inline(never)]
    fn refill(&mut self, now: u64, until: &[u64]) {
        self.far_min = NEVER;
        for (slot, &t) in until.iter().enumerate() {
            self.insert(slot & 3, slot >> 2, t, now);
        }
    }

    /// The next cycle after `now` worth visiting (`until` as for `admit_far`): the first
    /// whose slot holds any bit, or beyond the horizon `far_min`; `NEVER` if none. Not
    /// exact: the slot's bits may all be stale (their warps told a later cycle), and a
    /// visit to it then finds no warp due and changes nothing, which costs less than
    /// reading every bit's warp at every cycle (`next_due_exact` for the rare reports).
    /// When only warps beyond the horizon remain, the wheel is refilled so that
    /// `far_min` is their earliest. (Inlined: the engine asks at every cycle it visits.)
    #[inline(always)]
    pub fn next_due(&mut self, now: u64, until: &[u64]) -> u64 {
        let next = self.next_busy(now);
        // Warps beyond the horizon are due no sooner than `far_min`: they matter only
        // when nothing in the slots comes first (they are put in the slots then).
        if next < self.far_min {
            return next;
        }
        self.next_with_far(now, until, next)
    }

    /// `next_due` when the slots' `next` is no sooner than `far_min`. (Out of line:
    /// rare.)
    #[inline(never)]
    fn next_with_far(&mut self, now: u64, until: &[u64], next: u64) -> u64 {
        if next == NEVER {
            return NEVER;
        }
        self.refill(now, until);
        self.next_busy(now)
    }

    /// The first cycle after `now` whose slot holds any bit, else `far_min`.
    #[inline(always)]
    fn next_busy(&self, now: u64) -> u64 {
        match self.first_busy(((now + 1) & SLOT_MASK) as usize) {
            Some(j) => now + ((j as u64).wrapping_sub(now) & SLOT_MASK),
            None => self.far_min,
        }
    }

    /// The first cycle after `now` at which a warp is due (`until` as for `admit_far`);
    /// `NEVER` if none is. Exact: slots whose every bit is stale are emptied on the way,
    /// and when only warps beyond the horizon remain, the wheel is refilled so that
    /// `far_min` is their earliest (a deadlock or the watchdog is told apart by it).
    pub fn next_due_exact(&mut self, now: u64, until: &[u64]) -> u64 {
        let next = self.next_in_slots(now, |sp, position| until[4 * position + sp]);
        if next < self.far_min || next == NEVER {
            return next;
        }
        self.refill(now, until);
        self.next_in_slots(now, |sp, position| until[4 * position + sp])
    }

    /// `next_due` from the slots. A bit in the slot of cycle `t` counts if its warp is
    /// due by `t`: due at `t` itself, or due already (told so after its turn this
    /// cycle, it is in the next cycle's slot). A warp due between now and `t` has its
    /// bit in an earlier slot, found first.
    fn next_in_slots(&mut self, now: u64, until: impl Fn(usize, usize) -> u64) -> u64 {
        let from = ((now + 1) & SLOT_MASK) as usize;
        while let Some(j) = self.first_busy(from) {
            let t = now + ((j as u64).wrapping_sub(now) & SLOT_MASK);
            for (sp, &mask) in self.slots[j].iter().enumerate() {
                let mut m = mask;
                while m != 0 {
                    let position = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if until(sp, position) <= t {
                        return t;
                    }
                }
            }
            self.slots[j] = [0; 4];
            self.busy[j >> 6] &= !(1 << (j & 63));
        }
        self.far_min
    }

    /// The first busy slot from `from` on, wrapping around.
    #[inline]
    fn first_busy(&self, from: usize) -> Option<usize> {
        let (w0, b0) = (from >> 6, from & 63);
        let head = self.busy[w0] & (u64::MAX << b0);
        if head != 0 {
            return Some(w0 * 64 + head.trailing_zeros() as usize);
        }
        let order = (w0 + 1..BUSY_WORDS).chain(0..=w0);
        for w in order {
            let bits = if w == w0 {
                self.busy[w] & !(u64::MAX << b0)
            } else {
                self.busy[w]
            };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the wheel stands for: every warp's due cycle, read whole each time.
    fn next_by_scan(until: &[[u64; 8]; 4], now: u64) -> u64 {
        let min = until.iter().flatten().copied().min().unwrap_or(NEVER);
        if min == NEVER {
            NEVER
        } else {
            min.max(now + 1)
        }
    }

    proptest! {
        /// Random runs of warps told new due cycles (near, far, never, or at once) while
        /// the clock moves as the engine moves it: each cycle's due warps and the next
        /// due cycle are those a scan of every warp finds.
        #[test]
        fn finds_what_a_scan_finds(
            steps in prop::collection::vec(
                prop::collection::vec((0usize..4, 0usize..8, prop_oneof![
                    0u64..3, 1u64..40, 900u64..3000, Just(NEVER)]), 0..6),
                1..120),
        ) {
            // (The wheel reads it in warp slot order: position-major.)
            let slot_order = |until: &[[u64; 8]; 4]| -> [u64; 32] {
                std::array::from_fn(|s| until[s & 3][s >> 2])
            };
            let mut wheel = DueWheel::default();
            let mut until = [[NEVER; 8]; 4];
            let mut now = 0u64;
            for told in steps {
                wheel.admit_far(now, &slot_order(&until));
                let taken = wheel.take_all(now);
                for (sp, row) in until.iter_mut().enumerate() {
                    let mut due = taken[sp];
                    let mut found = 0u64;
                    while due != 0 {
                        let p = due.trailing_zeros() as usize;
                        due &= due - 1;
                        if row[p] <= now {
                            found |= 1 << p;
                        }
                    }
                    let expected = (0..8).filter(|&p| row[p] <= now)
                        .fold(0u64, |m, p| m | 1 << p);
                    prop_assert_eq!(found, expected, "cycle {} sub-partition {}", now, sp);
                    // The due warps are looked at: each is told a later cycle.
                    for (p, t) in row.iter_mut().enumerate() {
                        if found & (1 << p) != 0 {
                            *t = now + 1 + (p as u64 * 7 + now) % 50;
                            wheel.insert(sp, p, *t, now);
                        }
                    }
                }
                for (sp, p, d) in told {
                    let t = if d == NEVER { NEVER } else { now + d };
                    until[sp][p] = t;
                    wheel.insert(sp, p, t, now);
                }
                // Every other cycle the exact next, else the one the engine visits: no
                // later than the exact one (its slot's bits may all be stale).
                let exact = next_by_scan(&until, now);
                let next = if now.is_multiple_of(2) {
                    let next = wheel.next_due_exact(now, &slot_order(&until));
                    prop_assert_eq!(next, exact, "after cycle {}", now);
                    next
                } else {
                    let next = wheel.next_due(now, &slot_order(&until));
                    prop_assert!(next > now && next <= exact, "after cycle {}: {}", now, next);
                    next
                };
                if next == NEVER {
                    break;
                }
                now = next;
            }
        }
    }
}
