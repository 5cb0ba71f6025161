//! `smsim check FILE`: validate a kernel and describe it with its occupancy; with
//! `--races`, also run it with the race checker on and report its hazards.

use std::path::PathBuf;

use present::describe::{describe, render};
use sim_core::RunConfig;
use sim_core::races::RaceCheck;
use sim_core::sink::NoSink;

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
    /// Also run the kernel (as `smsim run` does, seed 1) with the race checker on and
    /// report every hazard it finds: the exit status is 1 if there is one.
    #[arg(long)]
    pub races: bool,
    /// Print the description (or the errors) as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `smsim check`: the description on stdout, or every error (rendered on stderr, or
/// as JSON on stdout under `--json`).
pub fn run(args: &Args) -> Outcome {
    let profile = load_profile(&args.profile, &[])?;
    let limits = profile.limits();
    match kernel_file::load(&args.file, &args.params) {
        Ok(loaded) => {
            let d = describe(&loaded.kernel, &loaded.path, &args.profile, &limits);
            if !args.races {
                return if args.json {
                    print_json(&d)
                } else {
                    print(&render(&d))
                };
            }
            let (hazards, dropped, cycles) = races(&loaded.kernel, &profile)?;
            if args.json {
                let mut v = serde_json::to_value(&d)
                    .map_err(|e| Fail::Failed(format!("the result does not serialize: {e}")))?;
                if let Some(o) = v.as_object_mut() {
                    o.insert(
                        "races".into(),
                        serde_json::to_value(&hazards).unwrap_or_default(),
                    );
                }
                print_json(&v)?;
            } else {
                let mut o = render(&d);
                if hazards.is_empty() && dropped == 0 {
                    o.push_str(&format!(
                        "\nRaces: none in a run of {cycles} cycles (seed 1, the race checker on)\n"
                    ));
                } else {
                    o.push_str(&present::races::render(&hazards, dropped));
                }
                print(&o)?;
            }
            if hazards.is_empty() && dropped == 0 {
                Ok(())
            } else {
                Err(Fail::Reported)
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

/// The kernel run as `smsim run` runs it by default, with the race checker on: its
/// hazards, the distinct ones dropped, and the run's cycles. A run that fails is an
/// error (exit 1) that says so.
fn races(
    kernel: &isa::Kernel,
    profile: &sim_core::Profile,
) -> Result<(Vec<sim_core::races::Hazard>, u64, u64), Fail> {
    let max_cycles = sim_core::watchdog_cycles(kernel, profile, None).unwrap_or(u64::MAX / 2);
    let cfg = RunConfig {
        max_cycles,
        ..RunConfig::default()
    };
    let mut sink = RaceCheck::new(NoSink, kernel);
    let r = sim_core::run_with(kernel, profile, &cfg, cfg.policy.build(), &mut sink)
        .map_err(|e| Fail::Rendered(format!("error: the run that checks races: {e}\n")))?;
    Ok((sink.hazards().to_vec(), sink.dropped(), r.cycles))
}
