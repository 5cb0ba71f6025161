//! smsim's presentation: what a run, a kernel and a profile look like to a reader.
//!
//! The `smsim` binary, the timeline viewer and the sweeps share these renderers, so a
//! report reads the same wherever it is shown. Everything here takes plain data (a
//! [`sim_core::RunResult`], an [`isa::Kernel`], a [`sim_core::Profile`]) and returns
//! text or JSON; nothing here parses arguments or touches the terminal.
//!
//! - [`report`]: the run report (`smsim run`), its Warp State tables, a failed run as
//!   JSON.
//! - [`compare`]: kernels side by side over seeds (`smsim compare`), with the tie
//!   calls, bounds and advice.
//! - [`diagnosis`]: a run's bound, flagged figures, advice and spread over seeds.
//! - [`describe`]: a kernel's description with its occupancy (`smsim check`).
//! - [`explain`]: a warp state's meaning, causes and fixes (`smsim explain`).
//! - [`profile`]: a GPU profile's parameters with value, unit, meaning and source
//!   (`smsim profile`).
//! - [`races`]: the runtime race checker's hazards, each naming both instructions.
//! - [`chrome`]: the run's timeline as a Chrome / Perfetto trace, streamed as a
//!   [`sim_core::sink::Sink`].
//! - [`units`]: numbers for a reader: percentages, bytes, SI prefixes, plurals.

#![warn(missing_docs)]

pub mod chrome;
pub mod compare;
pub mod describe;
pub mod diagnosis;
pub mod explain;
pub mod profile;
pub mod races;
pub mod report;
pub mod units;
