//! `smsim`: a cycle-level simulator of one GPU streaming multiprocessor.
//!
//! One module per subcommand; `kernel_file` loads, overrides and validates a kernel file
//! for all of them.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod calibrate_cmd;
mod check;
mod explain;
mod files;
mod inputs;
mod kernel_file;
mod library;
mod outcome;
mod plot_cmd;
mod profile_cmd;
mod progress;
mod run;
mod sensitivity_cmd;
mod sweep_cmd;
mod tui_cmd;
mod tune_cmd;

#[derive(Parser)]
#[command(
    name = "smsim",
    version,
    about = "Cycle-level simulator of one GPU streaming multiprocessor (H100)",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate a kernel file; describe its roles, resources and occupancy.
    Check(check::Args),
    /// Simulate a kernel on one SM: cycles, time, pipe use, occupancy, warp states.
    Run(run::Args),
    /// What a warp state (stall reason) means, what causes it, what fixes it.
    Explain(explain::Args),
    /// List the built-in kernel library, or print one kernel's file (`--emit`).
    Kernels(library::KernelsArgs),
    /// Run every schedule of a kernel family side by side and say why the fastest wins.
    Compare(library::CompareArgs),
    /// Every parameter of a GPU profile: value, unit, meaning and source.
    Profile(profile_cmd::Args),
    /// Run kernels over many points (a spec file or axes given here) into JSON Lines or CSV.
    Sweep(sweep_cmd::Args),
    /// Chart a sweep's results: a metric against an axis, a heatmap, warp-state bars.
    Plot(plot_cmd::Args),
    /// Which profile parameters a prediction depends on: each moved down and up in turn.
    Sensitivity(sensitivity_cmd::Args),
    /// Search a family's schedules and parameters: the best points and the Pareto front.
    Tune(tune_cmd::Args),
    /// The interactive timeline: every warp, every cycle, and why it waits.
    Tui(tui_cmd::Args),
    /// Measure a real GPU (collect), fit the profile (fit), report the error (report).
    Calibrate(calibrate_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    outcome::exit(match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Kernels(args) => library::kernels(&args),
        Command::Compare(args) => library::compare(&args),
        Command::Profile(args) => profile_cmd::run(&args),
        // (these subcommands say their own exit status.)
        Command::Calibrate(args) => return calibrate_cmd::run(&args),
        Command::Sweep(args) => return sweep_cmd::run(&args),
        Command::Plot(args) => return plot_cmd::run(&args),
        Command::Sensitivity(args) => return sensitivity_cmd::run(&args),
        Command::Tune(args) => return tune_cmd::run(&args),
        Command::Tui(args) => return tui_cmd::run(&args),
    })
}
