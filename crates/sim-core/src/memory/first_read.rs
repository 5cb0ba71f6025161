//! First reads of lines the whole wave reads, while the reading SM's own lines from HBM
//! are still arriving (issue 25, gap 2; `l2_shared_first_read_cycles_per_sm`).
//!
//! Measured (crates/calibrate/data/chip, `tma_stream`, finding 2 of its README): 132 SMs,
//! each with one stage of a 16 KiB copy of its own rows from HBM and a 32 KiB tile every
//! SM reads, take 1011 and 1094 cycles (two runs) more a stage when the tile is on new
//! lines every k-step, read into L2 before or not; nothing more when it is on the same
//! lines every k-step, or when the SMs read the tile with no lines of their own from HBM.
//! On the GPU a deeper pipeline hides the extra (the `b_shared` gemm kernels: 4 stages run
//! at the HBM rate, 2 stages 60% slower), so it is a wait, not a rate: an SM's first read
//! of such a line completes no sooner than a time that grows with the number of SMs
//! reading it, from the copy's start (+50, +449 and +490, +1011 and +1094 cycles a stage
//! at 33, 66 and 132 SMs; the twins give +74, +409, +1057). Not captured: a 16 KiB tile
//! beside a 32 KiB private copy (+483 at 132 SMs; the wait ends before the private copy).
//!
//! With stages in flight (`l2_shared_lockstep_cycles_per_sm`; crates/calibrate/data/chip,
//! run-20261128T0625Z): the wave's SMs run the pipeline in lockstep, every SM reading the
//! same tile lines at the same moment, and a tile copy that starts while this SM's copy
//! of an earlier tile is still under way completes no sooner than this SM's own HBM lines
//! booked before it + n times the parameter (132 SMs, two stages: 2192 cycles a k-step
//! against 1611 with the tile's order rotated per CTA, which breaks the lockstep). One
//! stage at a time waits only the wait above, measured from the copy's start; the tile
//! alone, with no own lines from HBM, in step costs nothing (702 cycles a k-step against
//! 844 rotated).

use super::LineSet;

/// This SM's first reads of wave-shared lines: which lines it has read, and when its own
/// lines from HBM stop arriving.
#[derive(Clone, Debug)]
pub struct FirstReads {
    /// Cycles per sharing SM (with `base` 0: not modelled).
    pub per_sm: f64,
    /// Cycles for any number of sharing SMs.
    pub base: f64,
    /// Cycles per sharing SM after this SM's own lines from HBM have arrived
    /// (`l2_shared_lockstep_cycles_per_sm`).
    pub after_hbm_per_sm: f64,
    /// Wave-shared lines this SM has read.
    seen: LineSet,
    /// When the last of this SM's lines from HBM booked so far arrives.
    pub hbm_arrival: u64,
    /// When the last of this SM's copies of wave-shared lines booked so far completes.
    pub shared_done: u64,
}

impl FirstReads {
    /// `base`, `per_sm`: `l2_shared_first_read_cycles` and `_per_sm`; `after_hbm_per_sm`:
    /// `l2_shared_lockstep_cycles_per_sm`.
    pub fn new(base: f64, per_sm: f64, after_hbm_per_sm: f64) -> FirstReads {
        FirstReads {
            per_sm,
            base,
            after_hbm_per_sm,
            // A seed-shaped fa3-forward reads tens of thousands of such lines: start
            // big enough that most runs never rehash (256 KiB).
            seen: LineSet::with_capacity_and_hasher(1 << 15, Default::default()),
            hbm_arrival: 0,
            shared_done: 0,
        }
    }

    /// What a request's first reads of lines `sharers` SMs read wait from its start,
    /// `base + per_sm x sharers` (0 for lines two or fewer SMs read: a TPC's pair shares
    /// its partition).
    #[inline(always)]
    pub fn wait(&self, sharers: u32) -> u64 {
        if sharers > 2 {
            (self.base + self.per_sm * sharers as f64).round() as u64
        } else {
            0
        }
    }

    /// What a request's first reads of lines `sharers` SMs read wait after this SM's own
    /// lines from HBM arrive, `after_hbm_per_sm x sharers` (0 for two or fewer, as
    /// `wait`).
    #[inline(always)]
    pub fn after_hbm(&self, sharers: u32) -> u64 {
        if sharers > 2 {
            (self.after_hbm_per_sm * sharers as f64).round() as u64
        } else {
            0
        }
    }

    /// Whether `line` is read by this SM for the first time (and marks it read).
    #[inline(always)]
    pub fn first(&mut self, line: u64) -> bool {
        self.seen.insert(line)
    }
}
