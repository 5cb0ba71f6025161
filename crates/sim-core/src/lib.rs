//! A cycle-level model of one GPU streaming multiprocessor.
//!
//! - [`run`], [`run_sink`], [`run_with`] and [`RunConfig`]: run a kernel on a [`Profile`].
//! - [`profile`]: the GPU's parameters, each with its source.
//! - [`scheduler`]: the warp-scheduling policies ([`scheduler::SchedulerPolicy`] to
//!   write one's own).
//! - [`diagnose`]: a finished run's bounds, critical path, flagged figures and advice.
//! - [`state`]: the warp states, with Nsight Compute's names and explanations.
//! - [`sink`]: the event stream the engine pushes into: a run's header, its events,
//!   its end; a sink can stop a run.
//! - [`cause`]: what a stall waits on, as data.
//! - [`result`]: what a run returns.
//! - [`races`]: the runtime race checker, a sink wrapper ([`races::RaceCheck`]) that
//!   finds hazards of TMA copies, warpgroup MMAs, bulk stores and mbarriers.
//! - [`timeline`]: a sink keeping a run as compact per-warp state intervals, for viewers.
//!
//! Inside (not public): `lower` decodes a kernel into flat code with compiled
//! expressions; `engine` is the cycle loop (its module `engine::stall` is the stall
//! accounting); `memory` is L1, L2 near/far, HBM, coalescing and bank conflicts.
//!
//! sim-core knows nothing of files, terminals or CUDA.
//!
//! Running a kernel from its text:
//!
//! ```
//! use sim_core::{Profile, RunConfig, WarpState};
//!
//! let kernel = isa::parse_kernel(
//!     "kernel chain\n\
//!      launch cta_threads=32 regs=32 grid=1\n\
//!      role main warps=0..0\n\
//!      \x20 FFMA R1, R1, R2, 0.5\n\
//!      \x20 FFMA R1, R1, R2, 0.5\n\
//!      \x20 EXIT\n",
//! )
//! .unwrap();
//! let profile = Profile::builtin("h100").unwrap();
//! let r = sim_core::run(&kernel, &profile, &RunConfig::default()).unwrap();
//! assert_eq!(r.instructions, 3);
//! // The second FFMA waits for the first one's result: the FMA latency, less its issue.
//! let fma = profile.t.lat_fma as u64;
//! assert_eq!(r.roles[0].states.get(WarpState::Wait), fma - 1);
//! ```

#![warn(missing_docs)]

pub mod cause;
pub mod diagnose;
mod due;
mod engine;
mod lower;
mod memory;
pub mod profile;
pub mod races;
pub mod result;
pub mod scheduler;
pub mod sink;
pub mod state;
pub mod timeline;

pub use engine::{
    MAX_SIMULATED_WARPS, Prepared, RunConfig, run, run_sink, run_with, watchdog_cycles,
};
pub use lower::{IMPLICIT_EXIT, LowerError, instruction_texts};
pub use profile::Profile;
pub use result::{RunResult, SimError};
pub use state::WarpState;
