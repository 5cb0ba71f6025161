//! `smsim kernels` lists and prints the built-in kernel library; `smsim compare FAMILY`
//! runs every schedule of a family side by side.

use std::process::ExitCode;

use sim_core::scheduler::Policy;
use sim_core::{Profile, RunConfig};

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
        println!("  params: {}\n", params.join(" "));
    }
    ExitCode::SUCCESS
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
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = crate::run::parse_set)]
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
fn candidate(target: &str, args: &CompareArgs) -> Result<traces::compare::Candidate, String> {
    let (base, variant) = match target.split_once('@') {
        Some((b, v)) => (b, v),
        None => (target, ""),
    };
    let name = args
        .profile
        .clone()
        .unwrap_or_else(|| crate::run::default_profile(base).to_string());
    let mut profile = load_profile(&name, &args.set)?;
    let mut params = args.params.clone();
    for kv in variant.split(',').filter(|x| !x.trim().is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("`{kv}` in `{target}` is not NAME=VALUE"))?;
        let k = k.trim();
        // A profile parameter (lower-case, known to the profile) or a kernel's.
        if profile.file.params.contains_key(k) {
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("`{v}` is not a number (in `{target}`)"))?;
            profile
                .set(k, v)
                .map_err(|e| format!("{target}: {k}={v}: {e}"))?;
        } else {
            params.push(kernel_file::parse_param(kv).map_err(|e| format!("{target}: {e}"))?);
        }
    }
    let kernel = crate::run::load_kernel(base, &params).map_err(|e| e.trim_end().to_string());
    Ok(traces::compare::Candidate {
        name: target.to_string(),
        description: String::new(),
        kernel,
        profile,
    })
}

pub fn compare(args: &CompareArgs) -> ExitCode {
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
    let result = match family {
        Some(fam) => {
            let name = match &args.profile {
                Some(p) => p.clone(),
                None => match traces::family(fam) {
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
            traces::compare::compare_family(fam, &args.params, &profile, &cfg, args.seeds)
        }
        None => {
            let mut candidates = Vec::new();
            for t in &args.targets {
                match candidate(t, args) {
                    Ok(c) => candidates.push(c),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                }
            }
            let title = args.targets.join(" vs ");
            Ok(traces::compare::compare_kernels(
                &title, candidates, &cfg, args.seeds,
            ))
        }
    };
    match result {
        Ok(c) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&c).expect("a comparison serializes")
                );
            } else {
                let mut notes: Vec<String> = Vec::new();
                for r in &c.rows {
                    if let Ok(p) = Profile::builtin(&r.profile)
                        && !p.file.validated
                        && !notes.iter().any(|n| n.starts_with(&r.profile))
                    {
                        notes.push(format!(
                            "{} ({}): {}",
                            r.profile, "profile note", p.file.note
                        ));
                    }
                }
                for n in notes {
                    println!("{n}");
                }
                print!("{}", present::compare::render(&c));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
