//! `smsim kernels` lists and prints the built-in kernel library; `smsim compare FAMILY`
//! runs every schedule of a family side by side.

use std::fmt::Write as _;

use sim_core::RunConfig;
use sim_core::scheduler::Policy;

use crate::inputs::{load_kernel, load_profile, parse_set};
use crate::kernel_file;
use crate::outcome::{Fail, Outcome, print, print_json};

#[derive(clap::Args)]
pub struct KernelsArgs {
    /// Print the kernel file of a built-in kernel, e.g. `gemm-mainloop/ws`.
    #[arg(long, value_name = "FAMILY/SCHEDULE")]
    pub emit: Option<String>,
    /// Override a parameter of the emitted kernel (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
}

/// `smsim kernels`: the library's listing, or one kernel's file (`--emit`).
pub fn kernels(args: &KernelsArgs) -> Outcome {
    if let Some(name) = &args.emit {
        return print(&load_kernel(name, &args.params)?.to_string());
    }
    let mut o = String::new();
    for f in traces::families() {
        let _ = writeln!(o, "{} (profile {}): {}", f.name, f.profile, f.description);
        for s in f.schedules {
            let _ = writeln!(o, "  {}/{:<18} {}", f.name, s.name, s.description);
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect();
        let _ = writeln!(o, "  params: {}", params.join(" "));
        if !f.seed_params.is_empty() {
            let seed: Vec<String> = f
                .seed_params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let _ = writeln!(
                o,
                "  the seed's problem: --param {}",
                seed.join(" --param ")
            );
        }
        let _ = writeln!(o);
    }
    print(&o)
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
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
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

/// `smsim compare FAMILY`: every schedule side by side.
pub fn compare(args: &CompareArgs) -> Outcome {
    let f = traces::family(&args.family).map_err(Fail::Failed)?;
    traces::resolve_params(f, &args.params).map_err(|m| Fail::Usage(format!("--param: {m}")))?;
    let name = args.profile.as_deref().unwrap_or(f.profile);
    let profile = load_profile(name, &args.set)?;
    let cfg = RunConfig {
        seed: args.seed,
        policy: args.policy,
        max_ctas: args.max_ctas,
        ..RunConfig::default()
    };
    let c = traces::compare::compare(&args.family, &args.params, &profile, &cfg)
        .map_err(Fail::Failed)?;
    if args.json {
        return print_json(&c);
    }
    let mut o = String::new();
    if !profile.file.validated {
        let _ = writeln!(
            o,
            "profile note ({}): {}",
            profile.name(),
            profile.file.note
        );
    }
    o.push_str(&present::compare::render(&c));
    print(&o)
}
