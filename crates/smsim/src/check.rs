//! `smsim check FILE`: validate a kernel and describe it with its occupancy.

use std::path::PathBuf;
use std::process::ExitCode;

use present::describe::{describe, render};

use crate::kernel_file;

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

pub fn run(args: &Args) -> ExitCode {
    let limits = match crate::run::load_profile(&args.profile, &[]) {
        Ok(p) => p.limits(),
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(2);
        }
    };
    match kernel_file::load(&args.file, &args.params) {
        Ok(loaded) => {
            let d = describe(&loaded.kernel, &loaded.path, &args.profile, &limits);
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&d).expect("a description serializes")
                );
            } else {
                print!("{}", render(&d));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&e.to_json()).expect("errors serialize")
                );
            } else {
                eprint!("{}", e.render());
            }
            ExitCode::FAILURE
        }
    }
}
