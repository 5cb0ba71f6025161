//! What a finished run says about its kernel, derived from its result and profile alone:
//! which unit bounds it and how far it runs from that bound ([`bounds`]), figures that
//! exceed what the GPU can do or instructions it lacks ([`flags`]), and advice that
//! follows from what the run found ([`advice`]).
//!
//! Everything here is plain data (serialisable), computed after the run: the engine is
//! not involved, so a diagnosis costs nothing when it is not asked for.

pub mod advice;
pub mod bounds;
pub mod critical_path;
pub mod flags;

use serde::Serialize;

use crate::{Profile, RunResult};

pub use advice::Advice;
pub use bounds::{BoundUnit, Bounds, UnitBound};
pub use critical_path::{CriticalPath, PathCategory, run_prepared_with_path, run_with_path};
pub use flags::Flag;

/// A run's diagnosis: its bounds, the figures flagged, and the advice.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnosis {
    /// Each unit's lower bound on the run's cycles, and the binding one.
    pub bounds: Bounds,
    /// Figures beyond the profile's physical peaks, and instructions its GPU lacks.
    pub flags: Vec<Flag>,
    /// What the run's stalls suggest changing (or not).
    pub advice: Vec<Advice>,
    /// The chain of waits that decided the run's end (from a run with a
    /// [`critical_path::PathRecorder`]; see [`diagnose_run`]).
    pub critical_path: Option<CriticalPath>,
}

/// The diagnosis of `r`, a run of `kernel` on `profile`.
pub fn diagnose(r: &RunResult, kernel: &isa::Kernel, profile: &Profile) -> Diagnosis {
    // (The kernel ran at its own clock, its memory rates in its cycles: the bounds too.)
    let clocked = profile.for_kernel(kernel);
    let profile: &Profile = &clocked;
    let bounds = bounds::bounds(r, profile);
    let flags = flags::flags(r, profile, &bounds);
    let advice = advice::advice(r, kernel, profile, &bounds);
    Diagnosis {
        bounds,
        flags,
        advice,
        critical_path: None,
    }
}

/// Runs `kernel` with a [`critical_path::PathRecorder`]: its result and its whole
/// diagnosis, the critical path included.
pub fn diagnose_run(
    kernel: &isa::Kernel,
    profile: &Profile,
    cfg: &crate::RunConfig,
) -> Result<(RunResult, Diagnosis), crate::SimError> {
    let (r, path) = run_with_path(kernel, profile, cfg)?;
    let mut d = diagnose(&r, kernel, profile);
    d.critical_path = Some(path);
    Ok((r, d))
}
