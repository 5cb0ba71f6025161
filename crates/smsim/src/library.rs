//! `smsim kernels` lists and prints the built-in kernel library; `smsim compare`
//! runs every schedule of a family, or any kernels, side by side over seeds.

use std::fmt::Write as _;

use sim_core::RunConfig;
use sim_core::scheduler::Policy;

use crate::inputs::{load_kernel, load_profile, parse_set};
use crate::kernel_file;
use crate::outcome::{Fail, Outcome, print, print_json};
use traces::compare::Candidate;

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
    /// A kernel family (see `smsim kernels`), or several kernels: kernel files and
    /// built-in `family/schedule`s, each optionally with `@NAME=VALUE,...` (a kernel
    /// parameter, or a profile parameter such as `lat_hbm`): `gemm.smk@PIPE=2`.
    #[arg(required = true, value_name = "FAMILY | KERNEL[@NAME=VALUE,...]")]
    pub targets: Vec<String>,
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// A built-in profile or a TOML file; by default the profile the family (or each
    /// built-in kernel) targets, h100 for kernel files.
    #[arg(long)]
    pub profile: Option<String>,
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// The first seed; each kernel runs on `--seeds` seeds from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seeds each kernel runs on: their mean and range are reported, and kernels whose
    /// ranges overlap the fastest's tie with it.
    #[arg(long, default_value_t = traces::compare::DEFAULT_SEEDS, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub seeds: u32,
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    #[arg(long)]
    pub json: bool,
}

/// One kernel of `smsim compare A B ...`: `NAME[@K=V,...]` with its kernel and profile.
/// A variant that cannot be read is the command line's mistake; a kernel that cannot
/// be built is its row's error.
fn candidate(target: &str, args: &CompareArgs) -> Result<Candidate, Fail> {
    let (base, variant) = target.split_once('@').unwrap_or((target, ""));
    let name = args
        .profile
        .clone()
        .unwrap_or_else(|| crate::inputs::default_profile(base).to_string());
    let mut profile = load_profile(&name, &args.set)?;
    let mut params = args.params.clone();
    for kv in variant.split(',').filter(|x| !x.trim().is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| Fail::Usage(format!("`{kv}` in `{target}` is not NAME=VALUE")))?;
        let k = k.trim();
        // A profile parameter (known to the profile) or a kernel's.
        if profile.file.params.contains_key(k) {
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| Fail::Usage(format!("`{v}` is not a number (in `{target}`)")))?;
            profile
                .set(k, v)
                .map_err(|e| Fail::Usage(format!("{target}: {k}={v}: {e}")))?;
        } else {
            params.push(
                kernel_file::parse_param(kv).map_err(|e| Fail::Usage(format!("{target}: {e}")))?,
            );
        }
    }
    let kernel = load_kernel(base, &params).map_err(|e| e.to_string());
    Ok(Candidate {
        name: target.to_string(),
        description: String::new(),
        kernel,
        profile,
    })
}

/// `smsim compare FAMILY` (every schedule side by side) or `smsim compare A B ...`
/// (any kernels), each on `--seeds` seeds.
pub fn compare(args: &CompareArgs) -> Outcome {
    let cfg = RunConfig {
        seed: args.seed,
        policy: args.policy,
        max_ctas: args.max_ctas,
        ..RunConfig::default()
    };
    let family = match args.targets.as_slice() {
        [one] if !one.contains('/') && !one.contains('@') && !one.ends_with(".smk") => {
            Some(one.as_str())
        }
        _ => None,
    };
    let (c, profiles) = match family {
        Some(fam) => {
            let f = traces::family(fam).map_err(Fail::Failed)?;
            traces::resolve_params(f, &args.params)
                .map_err(|m| Fail::Usage(format!("--param: {m}")))?;
            let name = args.profile.as_deref().unwrap_or(f.profile);
            let profile = load_profile(name, &args.set)?;
            let c = traces::compare::compare_family(fam, &args.params, &profile, &cfg, args.seeds)
                .map_err(Fail::Failed)?;
            (c, vec![profile])
        }
        None => {
            let candidates = args
                .targets
                .iter()
                .map(|t| candidate(t, args))
                .collect::<Result<Vec<_>, _>>()?;
            let profiles = candidates.iter().map(|c| c.profile.clone()).collect();
            let title = args.targets.join(" vs ");
            let c = traces::compare::compare_kernels(&title, candidates, &cfg, args.seeds);
            (c, profiles)
        }
    };
    if args.json {
        return print_json(&c);
    }
    let mut o = String::new();
    let mut noted: Vec<&str> = Vec::new();
    for p in &profiles {
        if !p.file.validated && !noted.contains(&p.name()) {
            noted.push(p.name());
            let _ = writeln!(o, "profile note ({}): {}", p.name(), p.file.note);
        }
    }
    o.push_str(&present::compare::render(&c));
    print(&o)
}
