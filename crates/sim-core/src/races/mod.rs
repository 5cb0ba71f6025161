//! The runtime race checker: hazards of the asynchronous protocols (TMA copies, warpgroup
//! MMAs, bulk stores, mbarriers) found as a run goes, like compute-sanitizer's racecheck
//! and synccheck do for CUDA, but for the units they do not cover.
//!
//! A run checks races when its sink says so ([`Sink::RACES`]): wrap any sink in
//! [`RaceCheck`]. Without it every hook in the engine compiles away, so runs that do not
//! check (sweeps, the library's tests, the speed bench) pay nothing.
//!
//! What is a hazard (each one names both instructions, their warps, and the stage or the
//! bytes):
//! - [`HazardKind::ReadBeforeFill`]: shared memory read (LDS, an MMA's operand, a bulk
//!   store's source) while a copy into it belongs to an mbarrier phase that has not
//!   completed: the data may not have landed.
//! - [`HazardKind::ReleaseWhileRead`]: a stage released (a plain arrive on the mbarrier a
//!   producer waits on before it refills the stage) while an MMA or bulk store of the
//!   releasing warp that reads the stage is in no group a wait has covered.
//! - [`HazardKind::AccumulatorBeforeWait`]: a register an HGMMA accumulates into, read
//!   or written by another instruction before a `WARPGROUP.DEPBAR` covers its group.
//! - [`HazardKind::FillOverFill`]: a copy into shared bytes another copy is still filling
//!   (its mbarrier phase has not completed).
//!
//! Which mbarrier guards a stage is learned as the run goes: the shared bytes that a
//! warp's copies fill after it waited on an mbarrier (other than the one the copies
//! complete on) are what that mbarrier guards. Arrival counts that cannot match the
//! arriving warps are found before a run, by `isa::validate`; an arrive beyond what a
//! phase lacks is a fault of the run, which names the mbarrier.
//!
//! The checker follows the protocol, not the timing: a release before the wait that
//! covers an MMA is a race even where this run's MMA happened to finish first.

mod track;

use serde::Serialize;

use crate::sink::{Event, RunEnd, RunHeader, Sink};
pub(crate) use track::At;
pub use track::Checker;

/// What kind of hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardKind {
    /// Shared memory read before the mbarrier phase of the copy that fills it completed.
    ReadBeforeFill,
    /// A stage released while an MMA or a bulk store may still read it.
    ReleaseWhileRead,
    /// An accumulator used before the wait group that covers its HGMMA.
    AccumulatorBeforeWait,
    /// A copy into shared memory that another copy is still filling.
    FillOverFill,
}

impl HazardKind {
    /// A short name, as reports head a hazard.
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::ReadBeforeFill => "read before fill",
            HazardKind::ReleaseWhileRead => "release while read",
            HazardKind::AccumulatorBeforeWait => "accumulator before wait",
            HazardKind::FillOverFill => "fill over fill",
        }
    }
}

/// An instruction of a warp, as a hazard names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Site {
    /// The warp's index in its CTA.
    pub warp: u32,
    /// Its role.
    pub role: String,
    /// The instruction's text.
    pub text: String,
    /// Its line in the kernel file (or in `smsim kernels --emit` for a built-in kernel).
    pub line: u32,
}

/// One hazard: the first time it happened, and how many times the same pair of
/// instructions raced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hazard {
    /// What kind.
    pub kind: HazardKind,
    /// The cycle of its first occurrence.
    pub cycle: u64,
    /// The CTA (launch order on the SM) of its first occurrence.
    pub cta: u32,
    /// The instruction that races: the reader, the release, the accumulator's user, the
    /// second copy.
    pub racing: Site,
    /// The instruction it races with: the copy, the MMA or bulk store, the HGMMA, the
    /// first copy.
    pub with: Site,
    /// The stage, as its mbarrier element: the copy's (`full[1]`) or the one released
    /// (`empty[1]`); none for an accumulator.
    pub stage: Option<String>,
    /// The bytes or registers: `sA[16384..32768]`, `R24..R151`.
    pub what: String,
    /// How many times these two instructions raced in the run.
    pub occurrences: u64,
}

/// A sink that checks races while the run goes, passing everything on to `inner`.
/// [`RaceCheck::hazards`] after the run.
pub struct RaceCheck<S: Sink> {
    /// The sink it wraps.
    pub inner: S,
    checker: Checker,
}

impl<S: Sink> RaceCheck<S> {
    /// A checker for runs of `kernel` around `inner`.
    pub fn new(inner: S, kernel: &isa::Kernel) -> Self {
        RaceCheck {
            inner,
            checker: Checker::new(kernel),
        }
    }

    /// The hazards found, in the order they first happened.
    pub fn hazards(&self) -> &[Hazard] {
        self.checker.hazards()
    }

    /// How many distinct hazards were found beyond those kept ([`MAX_HAZARDS`]).
    pub fn dropped(&self) -> u64 {
        self.checker.dropped
    }
}

/// The most distinct hazards (pairs of instructions) a run keeps; beyond, they are
/// counted only.
pub const MAX_HAZARDS: usize = 64;

impl<S: Sink> Sink for RaceCheck<S> {
    const ENABLED: bool = S::ENABLED;
    // (The header names the instructions the hazards name, so it is asked for.)
    const POLLS: bool = true;
    const RACES: bool = true;

    fn begin(&mut self, header: &RunHeader) {
        self.checker.begin(header);
        self.inner.begin(header);
    }
    fn event(&mut self, e: Event) {
        self.inner.event(e);
    }
    fn finish(&mut self, end: &RunEnd) {
        self.inner.finish(end);
    }
    fn keep_going(&mut self) -> bool {
        self.inner.keep_going()
    }
    fn races(&mut self) -> Option<&mut Checker> {
        Some(&mut self.checker)
    }
}
