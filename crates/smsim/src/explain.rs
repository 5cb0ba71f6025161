//! `smsim explain REASON`: what a warp state means, its usual causes and fixes.

use sim_core::WarpState;

use crate::outcome::{Fail, Outcome, print};

#[derive(clap::Args)]
pub struct Args {
    /// A warp state by Nsight Compute's name (e.g. long_scoreboard), or `all`.
    pub reason: String,
}

/// `smsim explain REASON` (or `all`).
pub fn run(args: &Args) -> Outcome {
    if args.reason == "all" {
        let all: Vec<String> = WarpState::ALL
            .iter()
            .map(|&s| present::explain::text(s) + "\n")
            .collect();
        return print(&all.concat());
    }
    match WarpState::from_name(&args.reason) {
        Some(s) => print(&present::explain::text(s)),
        None => {
            let names: Vec<&str> = WarpState::ALL.iter().map(|s| s.name()).collect();
            Err(Fail::Usage(format!(
                "`{}` is not a warp state; the states are: {}",
                args.reason,
                names.join(", ")
            )))
        }
    }
}
