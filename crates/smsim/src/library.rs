//! `smsim kernels` lists and prints the built-in kernel library; `smsim compare FAMILY`
//! runs every schedule of a family side by side.

use std::process::ExitCode;

use sim_core::RunConfig;
use sim_core::scheduler::Policy;

use crate::kernel_file;
use crate::run::load_profile;

#[derive(clap::Args)]
pub struct KernelsArgs {
    /// Print the kernel file of a built-in kernel, e.g. `gemm-mainloop/ws`.
    #[arg(long, value_name = "FAMILY/SCHEDULE")]
    pub emit: Option<String>,
    /// Override a parameter of the emitted kernel (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
}

pub fn kernels(args: &KernelsArgs) -> ExitCode {
    if let Some(name) = &args.emit {
        return match traces::builtin_with(name, &args.params) {
            Ok(k) => {
                print!("{k}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    for f in traces::families() {
        println!("{} (profile {}): {}", f.name, f.profile, f.description);
        for s in f.schedules {
            println!("  {}/{:<18} {}", f.name, s.name, s.description);
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect();
        println!("  params: {}", params.join(" "));
        if !f.seed_params.is_empty() {
            let seed: Vec<String> = f
                .seed_params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            println!("  the seed's problem: --param {}", seed.join(" --param "));
        }
        println!();
    }
    ExitCode::SUCCESS
}

#[derive(clap::Args)]
pub struct CompareArgs {
    /// A kernel family (see `smsim kernels`).
    pub family: String,
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// A built-in profile or a TOML file; by default the profile the family targets.
    #[arg(long)]
    pub profile: Option<String>,
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = crate::run::parse_set)]
    pub set: Vec<(String, f64)>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    #[arg(long)]
    pub json: bool,
}

pub fn compare(args: &CompareArgs) -> ExitCode {
    let name = match &args.profile {
        Some(p) => p.clone(),
        None => match traces::family(&args.family) {
            Ok(f) => f.profile.to_string(),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let profile = match load_profile(&name, &args.set) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(2);
        }
    };
    let cfg = RunConfig {
        seed: args.seed,
        policy: args.policy,
        max_ctas: args.max_ctas,
        ..RunConfig::default()
    };
    match traces::compare::compare(&args.family, &args.params, &profile, &cfg) {
        Ok(c) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&c).expect("a comparison serializes")
                );
            } else {
                if !profile.file.validated {
                    println!("profile note ({}): {}", profile.name(), profile.file.note);
                }
                print!("{c}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
