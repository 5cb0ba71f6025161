//! `smsim check FILE`: validate a kernel and describe it with its occupancy.

use std::path::PathBuf;

use present::describe::{describe, render};

use crate::inputs::load_profile;
use crate::kernel_file::{self, LoadError};
use crate::outcome::{Fail, Outcome, print, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// The kernel file (`.smk`).
    pub file: PathBuf,
    /// Override a parameter's default: `--param KT=512` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// The GPU profile whose SM limits the occupancy is computed for.
    #[arg(long, default_value = "h100")]
    pub profile: String,
    /// Print the description (or the errors) as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `smsim check`: the description on stdout, or every error (rendered on stderr, or
/// as JSON on stdout under `--json`).
pub fn run(args: &Args) -> Outcome {
    let limits = load_profile(&args.profile, &[])?.limits();
    match kernel_file::load(&args.file, &args.params) {
        Ok(loaded) => {
            let d = describe(&loaded.kernel, &loaded.path, &args.profile, &limits);
            if args.json {
                print_json(&d)
            } else {
                print(&render(&d))
            }
        }
        Err(LoadError::Param(m)) => Err(Fail::Usage(m)),
        Err(e) if args.json => {
            print_json(&e.to_json())?;
            Err(Fail::Reported)
        }
        Err(e) => Err(Fail::Rendered(e.render())),
    }
}
