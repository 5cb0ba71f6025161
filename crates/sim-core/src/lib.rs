//! A cycle-level model of one GPU streaming multiprocessor.
//!
//! - [`profile`]: the GPU's parameters, each with its source.
//! - [`lower`]: decoding a kernel into flat code with compiled expressions.
//! - [`diagnose`]: a finished run's bounds, flagged figures and advice.
//! - [`engine`]: the cycle loop: schedulers, scoreboards, pipes, barriers, async units.
//! - [`memory`]: L1, L2 near/far, HBM, coalescing, bank conflicts.
//! - [`scheduler`]: the warp-scheduling policies.
//! - [`state`]: the warp states, with Nsight Compute's names and explanations.
//! - [`sink`]: the event stream the engine pushes into.
//! - [`result`]: what a run returns.
//! - [`timeline`]: a sink keeping a run as compact per-warp state intervals, for viewers.
//!
//! sim-core knows nothing of files, terminals or CUDA.

pub mod cause;
pub mod diagnose;
mod due;
pub mod engine;
pub mod lower;
pub mod memory;
pub mod profile;
pub mod result;
pub mod scheduler;
pub mod sink;
pub mod state;
pub mod timeline;

pub use engine::{RunConfig, run, run_with};
pub use profile::Profile;
pub use result::{RunResult, SimError};
pub use state::WarpState;
