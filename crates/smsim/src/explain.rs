//! `smsim explain REASON`: what a warp state means, its usual causes and fixes.

use std::process::ExitCode;

use sim_core::WarpState;

#[derive(clap::Args)]
pub struct Args {
    /// A warp state by Nsight Compute's name (e.g. long_scoreboard), or `all`.
    pub reason: String,
}

pub fn run(args: &Args) -> ExitCode {
    if args.reason == "all" {
        for s in WarpState::ALL {
            println!("{}", present::explain::text(s));
        }
        return ExitCode::SUCCESS;
    }
    match WarpState::from_name(&args.reason) {
        Some(s) => {
            print!("{}", present::explain::text(s));
            ExitCode::SUCCESS
        }
        None => {
            let names: Vec<&str> = WarpState::ALL.iter().map(|s| s.name()).collect();
            eprintln!(
                "error: `{}` is not a warp state; the states are: {}",
                args.reason,
                names.join(", ")
            );
            ExitCode::FAILURE
        }
    }
}
