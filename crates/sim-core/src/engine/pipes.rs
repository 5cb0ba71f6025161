//! The sub-partitions' pipes and queues: when each pipe takes its next
//! warp-instruction (`PipeBook`), and the MIO, LSU and tensor queues (`Queue`).

use super::*;

/// A FIFO whose entries leave at known, mostly non-decreasing cycles (each unit serves
/// in order); full when `depth` have not left yet.
///
/// Rather than a count of the entries still in it, pruned at every look, it keeps the
/// departures of the last `depth` entries it took (0 for a slot never used), ascending
/// around a ring from `oldest`: those that are past have left. It is full exactly when
/// the earliest of them is still to come, one comparison. An entry is taken only when
/// the earliest has left, and it takes that slot: what it overwrites has left, and as
/// `now` never goes back, it stays left. Nothing allocates.
pub(super) struct Queue {
    pub(super) departs: Box<[u64]>,
    pub(super) oldest: usize,
    /// `departs[oldest]` and the departure before it around the ring (the latest), kept
    /// at hand: a look and a push in order then index the ring once.
    pub(super) earliest: u64,
    pub(super) latest: u64,
}

impl Queue {
    pub(super) fn new(depth: usize) -> Queue {
        Queue {
            departs: vec![0; depth.max(1)].into_boxed_slice(),
            oldest: 0,
            earliest: 0,
            latest: 0,
        }
    }

    /// When full, the cycle at which a slot frees.
    #[cfg(test)]
    pub(super) fn full_until(&self, now: u64) -> Option<u64> {
        (self.earliest > now).then_some(self.earliest)
    }

    /// Adds an entry that leaves at `depart`, if it has not left by `now` and there is room.
    /// (Inlined always: every load and shared-memory access pushes one.)
    #[inline(always)]
    pub(super) fn push(&mut self, now: u64, depart: u64) {
        if depart > now && self.earliest <= now {
            // The earliest slot becomes the latest.
            let i = self.oldest;
            self.departs[i] = depart;
            // (`>=` rather than `==`, the same for an `i` in the ring: the compiler then
            // knows `next` is in it too, and checks no bound when reading it.)
            let next = if i + 1 >= self.departs.len() {
                0
            } else {
                i + 1
            };
            self.oldest = next;
            if depart >= self.latest {
                self.latest = depart;
                self.earliest = self.departs[next];
            } else {
                self.sort_latest(i);
            }
        }
    }

    /// Moves the entry just taken at `i`, earlier than the one before it, back to its
    /// place in departure order (departures seldom come out of order).
    #[cold]
    #[inline(never)]
    pub(super) fn sort_latest(&mut self, mut i: usize) {
        let cap = self.departs.len();
        while i != self.oldest {
            let before = if i == 0 { cap - 1 } else { i - 1 };
            if self.departs[before] <= self.departs[i] {
                break;
            }
            self.departs.swap(before, i);
            i = before;
        }
        self.earliest = self.departs[self.oldest];
        let newest = if self.oldest == 0 {
            cap - 1
        } else {
            self.oldest - 1
        };
        self.latest = self.departs[newest];
    }
}

/// Per sub-partition and pipe: when the pipe takes its next warp-instruction, and
/// when its queue (MIO, LSU, tensor) has room.
pub(super) struct PipeBook {
    /// (One record per pipe: an issue's booking and a classification's question find
    /// their three numbers from one address.)
    pub(super) slots: [[PipeSlot; NPIPES]; 4],
    /// Per sub-partition: the first cycle its dispatch is free again after a
    /// register-bank conflict (the conflicting operands are read one after another, and
    /// the measured rate with 32 warps shows that no other warp issues meanwhile).
    /// (Beside the pipes: a classification asks both.)
    pub(super) dispatch_free: [u64; 4],
}

#[derive(Clone, Copy, Default)]
pub(super) struct PipeSlot {
    /// The later of the two below: a warp whose instruction goes to the pipe cannot
    /// issue before it. Kept as the two change (an issue, a queue's entry) so that a
    /// classification, far more frequent, asks one question and not whether the pipe
    /// has a queue.
    pub(super) ready: u64,
    /// After an issue, the issue interval later.
    pub(super) free: u64,
    /// The queue's earliest departure (`Queue::earliest`; 0 for a pipe without a
    /// queue): the queue is full while it is to come.
    pub(super) queue_earliest: u64,
}

impl PipeBook {
    /// The pipe takes its next warp-instruction at `t`.
    #[inline(always)]
    pub(super) fn book(&mut self, sp: usize, p: usize, t: u64) {
        let slot = &mut self.slots[sp][p];
        slot.free = t;
        slot.ready = t.max(slot.queue_earliest);
    }

    /// Every math pipe (FMA, ALU, FP64, MUFU) of sub-partition `sp` takes its next
    /// warp-instruction no sooner than `t` (`Paced::book` beside a busy tensor core).
    #[inline(always)]
    pub(super) fn hold_math(&mut self, sp: usize, t: u64) {
        for p in MATH_PIPES {
            let slot = &mut self.slots[sp][p];
            if slot.free < t {
                slot.free = t;
                slot.ready = slot.ready.max(t);
            }
        }
    }

    /// The pipe's queue's earliest departure is now `earliest`.
    #[inline(always)]
    pub(super) fn queue_moved(&mut self, sp: usize, p: usize, earliest: u64) {
        let slot = &mut self.slots[sp][p];
        slot.queue_earliest = earliest;
        slot.ready = earliest.max(slot.free);
    }
}

/// What every short issue (no events, nothing that blocks) does first: the issue charged
/// as one `selected` cycle (`charge_issue`'s work) and its pipe and dispatch booked. A
/// function of the engine's fields it needs, so that a caller holding the warp need not
/// look it up again. (`paced`: the pipes' issue intervals and what they grow by beside a
/// busy tensor core, with the sub-partitions' tensor cores' next free cycles.)
#[inline(always)]
pub(super) fn start_quiet_issue(
    w: &mut Warp,
    pcs: &mut [PcTotals],
    pipes: &mut PipeBook,
    paced: Paced,
    d: &DInstr,
    now: u64,
) {
    let next = now + 1;
    debug_assert!(w.block == Block::None);
    let pc = w.pc;
    let span = now - w.state_since;
    if span != 0 {
        close_into(w, &mut pcs[(w.pc_base + w.state_pc) as usize], span);
    }
    w.state = WarpState::Selected;
    w.cause = Cause::OWN;
    w.state_pc = pc;
    let selected = WarpState::Selected.index();
    w.stats[selected] += 1;
    pcs[(w.pc_base + pc) as usize].states[selected] += 1;
    w.state_since = next;
    w.issued_before = w.last_issue;
    w.last_issue = now;
    let sp = w.sp as usize & 3;
    paced.book(pipes, sp, d.pipe.index(), now);
    if d.bank_conflict_cycles > 0 {
        pipes.dispatch_free[sp] = next + d.bank_conflict_cycles as u64;
    }
}

/// The math pipes, which share the sub-partition's issue port beside a busy tensor core
/// (`*_port_beside_tensor_cycles`).
/// (`Pipe::index` is the discriminant.)
const MATH_PIPES: [usize; 4] = [
    Pipe::Fma as usize,
    Pipe::Alu as usize,
    Pipe::Fp64 as usize,
    Pipe::Mufu as usize,
];

/// What paces a pipe's issues: its interval, and what that grows by while the
/// sub-partition's tensor core has an MMA to run (its next free cycle is later than now);
/// and how long a math-pipe instruction issued then holds the sub-partition's other math
/// pipes (`port`; measured on the H100: beside a busy tensor core FA3's softmax takes
/// twice its time alone, its pipes no longer overlapping; crates/traces/seeds/data/beside).
/// (An FMA-pipe instruction's hold moves the tensor core's free cycle only one cycle past
/// its own issue, so an idle tensor core reads as idle to any later instruction.)
#[derive(Clone, Copy)]
pub(super) struct Paced<'e> {
    pub(super) intervals: &'e [u64; NPIPES],
    pub(super) beside_tensor: &'e [u64; NPIPES],
    pub(super) tensor_free: &'e [u64; 4],
    /// Per pipe, how long a warp-instruction issued beside a busy tensor core holds the
    /// sub-partition's math pipes (0: none; `*_port_beside_tensor_cycles`).
    pub(super) port: &'e [u64; NPIPES],
}

/// The engine's `Paced` view, from its fields one by one, so that a caller may hold a
/// warp mutably at the same time.
macro_rules! paced {
    ($engine:expr) => {
        $crate::engine::pipes::Paced {
            intervals: &$engine.intervals,
            beside_tensor: &$engine.beside_tensor,
            tensor_free: &$engine.tensor_free,
            port: &$engine.beside_port,
        }
    };
}
pub(super) use paced;

impl Paced<'_> {
    /// Books pipe `p` of sub-partition `sp` for an instruction issued at `now`: its
    /// interval, and beside a busy tensor core every math pipe's for its `port` time;
    /// returns the interval.
    #[inline(always)]
    pub(super) fn book(&self, pipes: &mut PipeBook, sp: usize, p: usize, now: u64) -> u64 {
        let interval = self.interval(sp, p, now);
        pipes.book(sp, p, now + interval);
        let port = self.port[p];
        if port > 0 && self.tensor_free[sp] > now {
            pipes.hold_math(sp, now + port);
        }
        interval
    }

    /// The issue interval of pipe `p` of sub-partition `sp` for an instruction issued at `now`.
    #[inline(always)]
    pub(super) fn interval(&self, sp: usize, p: usize, now: u64) -> u64 {
        let extra = self.beside_tensor[p];
        if extra > 0 && self.tensor_free[sp] > now {
            self.intervals[p] + extra
        } else {
            self.intervals[p]
        }
    }
}

/// Of `busy` cycles a unit was booked for, the last of them ending at `free`, those
/// before the run's `end`.
pub(super) fn booked_within(busy: u64, free: u64, end: u64) -> u64 {
    busy - free.saturating_sub(end).min(busy)
}

impl<'a, S: Sink> Engine<'a, S> {
    /// An entry leaving at `depart` joins the queue of `pipe` (MIO, LSU or tensor) of
    /// sub-partition `sp`, and the pipe's readiness follows its queue.
    #[inline(always)]
    pub(super) fn queue_push(&mut self, pipe: Pipe, sp: usize, now: u64, depart: u64) {
        let q = match pipe {
            Pipe::Mio => &mut self.mio_q[sp],
            Pipe::Lsu => &mut self.lsu_q[sp],
            Pipe::Tensor => &mut self.tensor_q[sp],
            _ => unreachable!("{pipe:?} has no queue"),
        };
        q.push(now, depart);
        let earliest = q.earliest;
        self.pipes.queue_moved(sp, pipe.index(), earliest);
    }
}

#[cfg(test)]
mod queue_tests {
    use super::Queue;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use std::collections::VecDeque;

    /// The queue as its contract states it: the entries taken and not yet left, in
    /// departure order, pruned at every look.
    struct Model {
        departs: VecDeque<u64>,
        depth: usize,
    }

    impl Model {
        fn prune(&mut self, now: u64) {
            self.departs.retain(|&d| d > now);
        }
        fn full_until(&mut self, now: u64) -> Option<u64> {
            self.prune(now);
            (self.departs.len() >= self.depth).then(|| self.departs[0])
        }
        fn push(&mut self, now: u64, depart: u64) {
            self.prune(now);
            if depart > now && self.departs.len() < self.depth {
                let at = self.departs.partition_point(|&d| d <= depart);
                self.departs.insert(at, depart);
            }
        }
    }

    /// Looks and pushes at non-decreasing cycles, departures mostly in order: the ring
    /// of the last entries answers as the pruned list does.
    #[test]
    pub(super) fn queue_answers_as_its_pruned_entries() {
        for seed in 0..200 {
            let mut rng = StdRng::seed_from_u64(seed);
            let depth = rng.random_range(0..6);
            let (mut q, mut m) = (
                Queue::new(depth),
                Model {
                    departs: VecDeque::new(),
                    depth: depth.max(1),
                },
            );
            let mut now = 0u64;
            for step in 0..400 {
                now += rng.random_range(0..3);
                if rng.random_range(0..2) == 0 {
                    assert_eq!(
                        q.full_until(now),
                        m.full_until(now),
                        "seed {seed} step {step}"
                    );
                } else {
                    let depart = now + rng.random_range(0..12);
                    q.push(now, depart);
                    m.push(now, depart);
                }
            }
        }
    }
}
