//! `smsim run KERNEL`: simulate a kernel on one SM and report where its warps spent
//! their cycles, in Nsight Compute's terms.

use std::path::Path;
use std::process::ExitCode;

use sim_core::result::SimError;
use sim_core::scheduler::Policy;
use sim_core::{Profile, RunConfig};

use crate::kernel_file;

#[derive(clap::Args)]
pub struct Args {
    /// A kernel file (`.smk`) or a built-in kernel `family/schedule` (see `smsim kernels`).
    pub kernel: String,
    /// A built-in profile (h100, b200) or a profile TOML file; by default the profile
    /// a built-in kernel's family targets (`smsim kernels` lists it), else h100.
    #[arg(long)]
    pub profile: Option<String>,
    /// Warp-scheduling policy: gto, lrr, oldest, two-level.
    #[arg(long, default_value = "two-level", value_parser = Policy::from_name)]
    pub policy: Policy,
    /// Seed of the variable latencies; part of every result.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Override one profile parameter for this run: `--set lat_fma=6` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// Override a kernel parameter: `--param KT=512` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = kernel_file::parse_param)]
    pub params: Vec<(String, i64)>,
    /// Stop runs that go on longer than this many cycles.
    #[arg(long, default_value_t = 2_000_000_000)]
    pub max_cycles: u64,
    /// Simulate at most this many CTAs (the whole-kernel estimate scales from them).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
    /// Start with this buffer's lines in L2, as after an earlier kernel that read or
    /// wrote it (repeatable): `--warm-l2 A --warm-l2 B`.
    #[arg(long = "warm-l2", value_name = "BUFFER")]
    pub warm_l2: Vec<String>,
    /// Run on this many seeds (from `--seed` on) and report their mean and range; the
    /// report and the trace are the first seed's.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub seeds: u32,
    /// Print the result as JSON (documented in the README).
    #[arg(long)]
    pub json: bool,
    /// Also write the timeline as a Chrome trace (open in ui.perfetto.dev). Refuses to
    /// overwrite an existing file.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
}

pub fn parse_set(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not a number (in `{s}`)"))?;
    Ok((k.trim().to_string(), v))
}

/// A built-in profile by name, or a TOML file.
pub fn load_profile(name: &str, set: &[(String, f64)]) -> Result<Profile, String> {
    let mut p = if Profile::builtin_names().any(|n| n.eq_ignore_ascii_case(name)) {
        Profile::builtin(name).map_err(|e| e.to_string())?
    } else if Path::new(name).exists() {
        let text =
            std::fs::read_to_string(name).map_err(|e| format!("{name}: cannot read: {e}"))?;
        Profile::from_toml(&text).map_err(|e| format!("{name}: {e}"))?
    } else {
        let names: Vec<&str> = Profile::builtin_names().collect();
        return Err(format!(
            "no built-in profile or file `{name}` (built in: {})",
            names.join(", ")
        ));
    };
    for (k, v) in set {
        p.set(k, *v).map_err(|e| format!("--set {k}={v}: {e}"))?;
    }
    Ok(p)
}

/// A kernel file, or a built-in kernel of the library.
pub fn load_kernel(name: &str, params: &[(String, i64)]) -> Result<isa::Kernel, String> {
    let path = Path::new(name);
    if path.exists() || name.ends_with(".smk") {
        return kernel_file::load(path, params)
            .map(|l| l.kernel)
            .map_err(|e| e.render());
    }
    if name.contains('/') && traces::family(name.split('/').next().unwrap_or("")).is_ok() {
        return traces::builtin_with(name, params).map_err(|e| format!("error: {e}\n"));
    }
    Err(format!(
        "error: `{name}` is neither a kernel file nor a built-in kernel (family/schedule); see `smsim kernels`\n"
    ))
}

/// The profile `run` uses when none is named: a built-in kernel's family's own (a
/// Blackwell kernel needs the B200's tensor memory), else the H100's.
pub fn default_profile(kernel: &str) -> &'static str {
    let builtin = !Path::new(kernel).exists() && !kernel.ends_with(".smk");
    match kernel.split_once('/') {
        Some((family, _)) if builtin => traces::family(family).map_or("h100", |f| f.profile),
        _ => "h100",
    }
}

pub fn run(args: &Args) -> ExitCode {
    let name = args
        .profile
        .as_deref()
        .unwrap_or_else(|| default_profile(&args.kernel));
    let profile = match load_profile(name, &args.set) {
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
            return ExitCode::FAILURE;
        }
    };
    let cfg = RunConfig {
        seed: args.seed,
        policy: args.policy,
        max_cycles: args.max_cycles,
        fast_forward: true,
        max_ctas: args.max_ctas,
        warm_l2: args.warm_l2.clone(),
    };
    let result = match &args.trace {
        None => sim_core::run(&kernel, &profile, &cfg),
        Some(path) => {
            let file = match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    eprintln!(
                        "error: {} exists; smsim does not overwrite files (choose another --trace path)",
                        path.display()
                    );
                    return ExitCode::from(2);
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            };
            let labels = match present::chrome::Labels::of(&kernel) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let written = std::io::BufWriter::new(file);
            let mut sink = match present::chrome::ChromeTrace::new(written, labels) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: writing {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            };
            let r = sim_core::run_with(&kernel, &profile, &cfg, cfg.policy.build(), &mut sink);
            // A run that fails ends its trace where it stopped (a deadlock's, the
            // watchdog's cycle): the timeline up to there is what explains it.
            let (end, finished) = match &r {
                Ok(r) => (r.cycles, &r.warps[..]),
                Err(SimError::Deadlock(s) | SimError::Watchdog(s)) => (s.cycle, &[][..]),
                Err(_) => (0, &[][..]),
            };
            if let Err(e) = sink.finish(end, finished) {
                eprintln!("error: writing {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            r
        }
    };
    match result {
        Ok(r) => {
            let spread = match other_seeds(&r, &kernel, &profile, &cfg, args.seeds) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let d = sim_core::diagnose::diagnose(&r, &kernel, &profile);
            if args.json {
                let v = present::diagnosis::run_json(&r, &d, spread.as_ref());
                println!("{}", serde_json::to_string_pretty(&v).expect("serializes"));
            } else {
                print!("{}", present::report::render(&r));
                if let Some(s) = &spread {
                    println!("\nSeeds       {}", s.line());
                }
                print!("{}", present::diagnosis::render(&d));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if args.json {
                let v = present::report::failure_json(&e);
                println!("{}", serde_json::to_string_pretty(&v).expect("serializes"));
            } else {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

/// With `--seeds N` above 1: the first seed's run `first` and the next N - 1 seeds'
/// (without a trace), as their spread.
fn other_seeds(
    first: &sim_core::RunResult,
    kernel: &isa::Kernel,
    profile: &Profile,
    cfg: &RunConfig,
    seeds: u32,
) -> Result<Option<present::diagnosis::SeedSpread>, String> {
    if seeds <= 1 {
        return Ok(None);
    }
    let mut runs = vec![first.clone()];
    for seed in traces::compare::seeds_from(cfg, seeds).into_iter().skip(1) {
        let cfg = RunConfig {
            seed,
            ..cfg.clone()
        };
        runs.push(sim_core::run(kernel, profile, &cfg).map_err(|e| format!("seed {seed}: {e}"))?);
    }
    Ok(Some(present::diagnosis::SeedSpread::of(&runs)))
}
