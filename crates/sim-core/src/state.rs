//! Warp states, by the names Nsight Compute uses (shared/reference/stall-reasons.md).
//! Every resident warp, every cycle, is in exactly one of them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A warp's state in one cycle, by Nsight Compute's stall-reason names (`name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarpState {
    /// Issued an instruction this cycle (the only state that is not a stall).
    Selected,
    /// Eligible, but its scheduler issued another warp.
    NotSelected,
    /// Held by a fixed latency: the previous instruction's stall count, or a fixed-latency result.
    Wait,
    /// Waiting for a result from L1TEX: global, local or texture memory; or on an mbarrier
    /// phase (SYNCS.PHASECHK.TRYWAIT), as Nsight Compute counts a try_wait (the typed cause
    /// says which).
    LongScoreboard,
    /// Waiting for a result from the MIO: shared memory, a shuffle, MUFU, tensor memory.
    ShortScoreboard,
    /// Its MIO queue (shared memory, special math) is full.
    MioThrottle,
    /// Its LSU queue (global and local memory) is full.
    LgThrottle,
    /// Its texture pipe is full (not modelled: never charged).
    TexThrottle,
    /// Its instruction's pipe (FMA, ALU, FP64, MUFU, tensor) is busy.
    MathPipeThrottle,
    /// The dispatch is still reading an earlier instruction's conflicting register operands.
    DispatchStall,
    /// Waiting at a named barrier (BAR.SYNC) for the other warps; or in WARPGROUP.DEPBAR
    /// for its warpgroup's MMAs, as Nsight Compute counts that wait (the typed cause says
    /// which).
    Barrier,
    /// Waiting for a memory fence or barrier (MEMBAR, FENCE).
    Membar,
    /// Waiting for a branch target to resolve (not charged by this model: see `NoInstruction`).
    BranchResolving,
    /// No instruction to issue: a taken branch's target is still being fetched.
    NoInstruction,
    /// Asleep in NANOSLEEP.
    Sleeping,
    /// Exited, its stores and loads still in flight.
    Drain,
    /// Waiting for its warpgroup's warps at WARPGROUP.ARRIVE (the wgmma fence).
    Gmma,
    /// Anything else (not charged by this model).
    Misc,
    /// An immediate-constant cache miss (not modelled: never charged).
    ImcMiss,
}

/// How many warp states there are (`WarpState::ALL`'s length).
pub const STATE_COUNT: usize = 19;

/// What a state means, what usually causes it, what usually fixes it.
pub struct Explanation {
    /// What the state means.
    pub means: &'static str,
    /// What usually puts a warp in it.
    pub causes: &'static str,
    /// What usually gets it out.
    pub fixes: &'static str,
}

impl WarpState {
    /// Every state, in `index` order.
    pub const ALL: [WarpState; STATE_COUNT] = [
        WarpState::Selected,
        WarpState::NotSelected,
        WarpState::Wait,
        WarpState::LongScoreboard,
        WarpState::ShortScoreboard,
        WarpState::MioThrottle,
        WarpState::LgThrottle,
        WarpState::TexThrottle,
        WarpState::MathPipeThrottle,
        WarpState::DispatchStall,
        WarpState::Barrier,
        WarpState::Membar,
        WarpState::BranchResolving,
        WarpState::NoInstruction,
        WarpState::Sleeping,
        WarpState::Drain,
        WarpState::Gmma,
        WarpState::Misc,
        WarpState::ImcMiss,
    ];

    /// The state's position in `ALL` (and in per-state count arrays).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Nsight Compute's name for the state.
    pub fn name(self) -> &'static str {
        match self {
            WarpState::Selected => "selected",
            WarpState::NotSelected => "not_selected",
            WarpState::Wait => "wait",
            WarpState::LongScoreboard => "long_scoreboard",
            WarpState::ShortScoreboard => "short_scoreboard",
            WarpState::MioThrottle => "mio_throttle",
            WarpState::LgThrottle => "lg_throttle",
            WarpState::TexThrottle => "tex_throttle",
            WarpState::MathPipeThrottle => "math_pipe_throttle",
            WarpState::DispatchStall => "dispatch_stall",
            WarpState::Barrier => "barrier",
            WarpState::Membar => "membar",
            WarpState::BranchResolving => "branch_resolving",
            WarpState::NoInstruction => "no_instruction",
            WarpState::Sleeping => "sleeping",
            WarpState::Drain => "drain",
            WarpState::Gmma => "gmma",
            WarpState::Misc => "misc",
            WarpState::ImcMiss => "imc_miss",
        }
    }

    /// The state of a name, as Nsight Compute writes it (`long_scoreboard`, with or
    /// without a `stall_` prefix, dashes for underscores, any case).
    pub fn from_name(s: &str) -> Option<WarpState> {
        let s = s.trim().to_ascii_lowercase().replace('-', "_");
        let s = s.strip_prefix("stall_").unwrap_or(&s);
        WarpState::ALL.iter().copied().find(|w| w.name() == s)
    }

    /// True for the states in which the warp is not held back.
    pub fn is_stall(self) -> bool {
        !matches!(self, WarpState::Selected)
    }

    /// What the state means, causes and fixes (`smsim explain`).
    pub fn explain(self) -> Explanation {
        use WarpState::*;
        let (means, causes, fixes) = match self {
            Selected => (
                "the warp issued an instruction this cycle; this is the only state that is not a stall",
                "a warp that is eligible and picked by its sub-partition's scheduler",
                "nothing to fix: a high share of selected per issued instruction means the scheduler is kept busy",
            ),
            NotSelected => (
                "the warp was eligible to issue but its scheduler picked another warp this cycle",
                "more eligible warps than issue slots: the sub-partition is issue-bound",
                "usually a good sign; if the kernel is issue-bound, remove instructions (fewer address computations, wider loads, unrolling that removes overhead) rather than add warps",
            ),
            Wait => (
                "the warp waits out a fixed-latency dependency, e.g. the result of an FFMA a few cycles away",
                "dependent chains of arithmetic with too little independent work in between (low ILP) and too few warps to switch to",
                "interleave independent instructions (more ILP, unrolling) or run more warps per scheduler",
            ),
            LongScoreboard => (
                "the warp waits on a register written by an L1TEX operation: a global or local load (or a cp.async/bulk-store wait group); or it spins in an mbarrier try_wait (SYNCS.PHASECHK.TRYWAIT) whose phase has not completed: the try_wait is an L1TEX-side probe that suspends the warp for a bounded time and retries, and Nsight Compute counts that wait as long_scoreboard (smsim's per-instruction causes say which mbarrier and whether its phase lacks arrivals or copies' bytes)",
                "memory latency (L2 or HBM) not covered by other work; register spills to local memory; a consumer waiting for a producer's data (TMA bytes, arrivals) or a producer waiting for a free stage",
                "issue loads earlier or several before the first use, raise occupancy, keep the working set in L1 or shared memory, cut spills (fewer live registers), or let a producer warp prefetch (TMA, cp.async); for mbarrier waits, deepen the pipeline (more stages) so waits overlap with work, or rebalance producer and consumer work",
            ),
            ShortScoreboard => (
                "the warp waits on a register written by an MIO operation: shared memory, MUFU special functions, conversions",
                "a dependent use soon after LDS/LDSM or MUFU; shared-memory bank conflicts lengthen it",
                "move the load earlier, remove bank conflicts (pad or swizzle), or interleave other work; for MUFU-heavy code overlap it with tensor work (pingpong)",
            ),
            MioThrottle => (
                "the warp's next instruction cannot enter the MIO instruction queue because it is full",
                "many shared-memory instructions (or bank-conflicted ones) in a short span",
                "use wider shared-memory accesses (LDS.128, LDSM), remove bank conflicts, spread MIO instructions out",
            ),
            LgThrottle => (
                "the warp's next instruction cannot enter the L1TEX queue for local and global memory because it is full",
                "many narrow global or local memory instructions; heavy register spilling (LDL/STL)",
                "use wider loads and stores (128-bit), fewer memory instructions, or remove spills (fewer registers per thread, split the work across warps)",
            ),
            TexThrottle => (
                "the warp's next instruction cannot enter the texture queue because it is full",
                "texture or surface instructions faster than the texture unit takes them (smsim does not model texture fetches, so this stays zero)",
                "fewer texture instructions, or wider fetches",
            ),
            MathPipeThrottle => (
                "the execution pipe the next instruction needs is busy",
                "one pipe oversubscribed: MUFU at 16 results per cycle per SM, FP64, integer, or the tensor core's queue",
                "move work to a less busy pipe (e.g. FMA-based polynomial instead of MUFU.EX2), or overlap the busy pipe's work with other pipes across warps",
            ),
            DispatchStall => (
                "the warp was ready but the dispatcher held it back",
                "register-bank conflicts among an instruction's source operands",
                "choose registers in different banks (the compiler usually does); reuse operands",
            ),
            Barrier => (
                "the warp waits at a CTA-wide or named barrier (BAR.SYNC) for its siblings; or in WARPGROUP.DEPBAR (wgmma wait_group) for its warpgroup's MMAs to finish: the hardware holds the warp on the tensor core's completion as on a barrier, and Nsight Compute counts it as barrier (smsim's per-instruction causes say which)",
                "uneven work before the barrier, or warps that reach it much later than others; waiting for this iteration's MMAs before reusing their inputs or accumulators (wait_group 0)",
                "balance the work between barriers, use named barriers over fewer warps, or replace barrier pairs with mbarriers so producers do not wait; keep one MMA group in flight (wait_group 1) and release the previous stage",
            ),
            Membar => (
                "the warp waits on a memory barrier (MEMBAR) for its earlier writes to become visible",
                "MEMBAR.GPU/SYS after stores, often from fences in atomics-based synchronisation",
                "use the narrowest fence scope (CTA), or fewer fences",
            ),
            BranchResolving => (
                "the warp waits for a branch target to be computed",
                "divergent or indirect branches (smsim's structured loops do not produce this)",
                "fewer branches; predication",
            ),
            NoInstruction => (
                "the warp waits for an instruction fetch",
                "instruction-cache misses in very large kernels (not modelled by smsim)",
                "smaller code: less unrolling",
            ),
            Sleeping => (
                "the warp is suspended in NANOSLEEP (an mbarrier try_wait that has not seen its phase complete counts as long_scoreboard, as in Nsight Compute)",
                "a back-off loop that sleeps between polls",
                "shorter sleeps, or wait on an mbarrier instead of polling",
            ),
            Drain => (
                "the warp has exited and waits for its outstanding memory operations to finish",
                "stores issued just before EXIT",
                "usually harmless at the end; a large share means many short-lived warps ending on stores",
            ),
            Gmma => (
                "the warp waits at WARPGROUP.ARRIVE (the wgmma fence) for the other warps of its warpgroup (a WARPGROUP.DEPBAR wait for the MMAs themselves counts as barrier, as in Nsight Compute)",
                "a warpgroup's warps arriving at different times",
                "give the warpgroup's warps the same work before the fence, or specialise warps so the wait does not hold back loads",
            ),
            Misc => (
                "any other hardware reason",
                "smsim uses it for the few cycles of instructions it does not model in detail",
                "see the instruction it is attributed to",
            ),
            ImcMiss => (
                "the warp waits on an immediate-constant-cache miss",
                "first use of constants (not modelled by smsim)",
                "nothing in smsim",
            ),
        };
        Explanation {
            means,
            causes,
            fixes,
        }
    }
}

impl fmt::Display for WarpState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_reference_list_and_parse_back() {
        let reference = include_str!("../../../docs/reference/stall-reasons.md");
        for s in WarpState::ALL {
            assert!(
                reference.contains(&format!("| {} |", s.name())),
                "{} not in stall-reasons.md",
                s.name()
            );
            assert_eq!(WarpState::from_name(s.name()), Some(s));
            assert_eq!(WarpState::ALL[s.index()], s);
        }
    }
}
