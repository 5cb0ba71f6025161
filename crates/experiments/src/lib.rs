//! Batch what-if experiments over the simulator: sweeps of kernels over kernel and
//! profile parameters, policies and seeds, their results as JSON Lines or CSV, charts of
//! them, sensitivity of a prediction to each profile parameter, and schedule search.
//!
//! - [`spec`]: a sweep's specification (TOML or command-line axes), with positioned errors.
//! - [`plan`]: the spec expanded into points, columns and a fingerprint.
//! - [`metrics`]: a point's row.
//! - [`table`]: the results file, both formats, read and written.
//! - [`chart`]: line, heatmap, stacked-state and tornado charts (data, then PNG and SVG).
//! - [`runner`]: points in parallel, streamed, resumable, sharded, merged, checked.
//! - [`sensitivity`]: each profile parameter moved down and up; the tornado's data.
//! - [`tune`]: schedule search within a budget; best points and the Pareto front.
//!
//! Nothing here knows of terminals: progress goes through [`runner::Progress`].

pub mod chart;
pub mod metrics;
pub mod plan;
pub mod runner;
pub mod sensitivity;
pub mod spec;
pub mod table;
pub mod tune;

pub use plan::{Plan, expand};
pub use runner::{Options, Outcome, Progress, run_sweep};
pub use spec::{Spec, SpecError};
