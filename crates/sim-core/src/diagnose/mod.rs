//! What a finished run says about its kernel, derived from its result and profile alone:
//! which unit bounds it and how far it runs from that bound ([`bounds`]), figures that
//! exceed what the GPU can do or instructions it lacks ([`flags`]), and advice that
//! follows from what the run found ([`advice`]).
//!
//! Everything here is plain data (serialisable), computed after the run: the engine is
//! not involved, so a diagnosis costs nothing when it is not asked for.

pub mod advice;
pub mod bounds;
pub mod flags;

use serde::Serialize;

use crate::{Profile, RunResult};

pub use advice::Advice;
pub use bounds::{BoundUnit, Bounds, UnitBound};
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
}

/// The diagnosis of `r`, a run of `kernel` on `profile`.
pub fn diagnose(r: &RunResult, kernel: &isa::Kernel, profile: &Profile) -> Diagnosis {
    let bounds = bounds::bounds(r, profile);
    let flags = flags::flags(r, profile, &bounds);
    let advice = advice::advice(r, kernel, profile, &bounds);
    Diagnosis {
        bounds,
        flags,
        advice,
    }
}
