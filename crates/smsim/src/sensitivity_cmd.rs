//! `smsim sensitivity KERNEL`: each profile parameter moved down and up in turn; a table
//! and a tornado chart of the parameters the prediction depends on most.

use std::path::PathBuf;
use std::process::ExitCode;

use experiments::chart::{self, Chart};
use experiments::sensitivity::{self, Setup};
use sim_core::RunConfig;
use sim_core::scheduler::Policy;

use crate::kernel_file;
use crate::run::{default_profile, load_kernel, load_profile, parse_set};

#[derive(clap::Args)]
pub struct Args {
    /// A kernel file (`.smk`) or a built-in kernel `family/schedule`.
    pub kernel: String,
    /// The step each parameter moves down and up: `10%` or `0.1`.
    #[arg(long, default_value = "10%", value_parser = parse_delta)]
    pub delta: f64,
    /// The metric: time_us, cycles, kernel_time_us, ipc, tflops, gbps.
    #[arg(long, default_value = "time_us")]
    pub metric: String,
    /// A built-in profile or a profile TOML file (default: the kernel's family's).
    #[arg(long)]
    pub profile: Option<String>,
    /// Override a profile parameter before the study (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// Override a kernel parameter (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// Warp-scheduling policy.
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    /// Seeds averaged at each setting: `--seeds 1..3` (their spread is the noise floor).
    #[arg(long, default_value = "1")]
    pub seeds: String,
    /// Simulate at most this many CTAs.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    /// Parameters in the chart (the table lists all).
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// The chart's path without extension (default `sensitivity-KERNEL`); not
    /// overwritten.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Runs at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
}

fn parse_delta(s: &str) -> Result<f64, String> {
    let (t, scale) = match s.strip_suffix('%') {
        Some(t) => (t, 0.01),
        None => (s, 1.0),
    };
    let v: f64 = t
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a step such as 10% or 0.1"))?;
    let v = v * scale;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("`{s}`: the step is above 0 and below 100%"))
    }
}

pub fn run(args: &Args) -> ExitCode {
    let pname = args
        .profile
        .as_deref()
        .unwrap_or_else(|| default_profile(&args.kernel));
    let profile = match load_profile(pname, &args.set) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(2);
        }
    };
    let kernel = match load_kernel(&args.kernel, &args.params) {
        Ok(k) => k,
        Err(m) => {
            eprint!("{m}");
            return ExitCode::from(2);
        }
    };
    let seeds: Vec<u64> = match experiments::spec::parse_int_values(&args.seeds) {
        Ok(v) if v.iter().all(|&x| x >= 0) => v.into_iter().map(|x| x as u64).collect(),
        Ok(_) => {
            eprintln!("error: --seeds: a seed is 0 or more");
            return ExitCode::from(2);
        }
        Err(m) => {
            eprintln!("error: --seeds: {m}");
            return ExitCode::from(2);
        }
    };
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "sensitivity-{}",
            args.kernel.replace(['/', '.', ' '], "-")
        ))
    });
    for ext in ["png", "svg"] {
        let p = PathBuf::from(format!("{}.{ext}", out.display()));
        if p.exists() {
            eprintln!(
                "error: {} exists; smsim does not overwrite files (choose another --out)",
                p.display()
            );
            return ExitCode::from(2);
        }
    }
    let setup = Setup {
        kernel,
        name: args.kernel.clone(),
        profile,
        config: RunConfig {
            policy: args.policy,
            max_ctas: args.max_ctas,
            ..RunConfig::default()
        },
        seeds,
        delta: args.delta,
        metric: args.metric.clone(),
        jobs: args.jobs,
    };
    let s = match sensitivity::run(&setup) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{}", s.table());
    match chart::draw(
        &Chart::Tornado(s.tornado(args.top, args.delta)),
        &out,
        false,
    ) {
        Ok(files) => {
            for f in files {
                eprintln!("wrote {}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
