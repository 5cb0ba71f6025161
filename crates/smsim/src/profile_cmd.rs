//! `smsim profile [NAME|FILE]`: every parameter of a GPU profile with its value, unit,
//! meaning and source.

use crate::inputs::{load_profile, parse_set};
use crate::outcome::{Outcome, print, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// A built-in profile (h100, b200, h200) or a profile TOML file.
    #[arg(default_value = "h100")]
    pub profile: String,
    /// Override one parameter, as `run --set` does: `--set lat_hbm=700` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// Print the parameters as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `smsim profile`: the table on stdout.
pub fn run(args: &Args) -> Outcome {
    let p = load_profile(&args.profile, &args.set)?;
    let table = present::profile::table(&p);
    if args.json {
        print_json(&table)
    } else {
        print(&present::profile::render(&table))
    }
}
