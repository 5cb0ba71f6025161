//! `smsim sweep`: run a kernel over many points (a spec file, or axes on the command
//! line) into a JSON Lines or CSV file; `smsim sweep merge` joins shards; `--check`
//! reruns a study against its committed results. The work is `experiments`'; this is
//! the terminal's side: arguments, the progress bar, Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use experiments::runner::{self, Options, Progress};
use experiments::spec::{self, Spec, SpecError};
use experiments::{Plan, expand};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub merge: Option<MergeCommand>,
    /// A spec file (`.toml`), or kernels to sweep with axes given here: a kernel file,
    /// `family/schedule`, or a family (all its schedules); several with commas.
    pub target: Option<String>,
    /// The results file (`.jsonl` or `.csv`); by default the spec's `out`, else
    /// `sweep.jsonl`. An existing file from the same spec is resumed.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Points run at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Run only slice I of N (I from 0 to N-1): `--shard $SLURM_ARRAY_TASK_ID/8`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Start the results file afresh even if it holds rows.
    #[arg(long)]
    pub force: bool,
    /// Draw the spec's charts (or a default one) beside the results.
    #[arg(long)]
    pub plot: bool,
    /// Rerun the spec and fail if its committed results (its `out`) differ.
    #[arg(long)]
    pub check: bool,
    /// A kernel parameter axis: `--param PIPE=2..6`, `--param K=1024,4096` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUES")]
    pub params: Vec<String>,
    /// A profile parameter axis: `--set lat_hbm=500..900:100` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUES")]
    pub sets: Vec<String>,
    /// Seeds each point runs under: `--seeds 1..5` (the noise band).
    #[arg(long, value_name = "VALUES")]
    pub seeds: Option<String>,
    /// Policies, with commas: `--policy gto,two-level`.
    #[arg(long, value_name = "NAMES")]
    pub policy: Option<String>,
    /// Profiles, with commas (built-in names or files).
    #[arg(long, value_name = "NAMES")]
    pub profile: Option<String>,
    /// Simulate at most this many CTAs per point.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_ctas: Option<u32>,
}

#[derive(clap::Subcommand)]
pub enum MergeCommand {
    /// Join shard files of one spec into one results file (each point exactly once).
    Merge {
        /// The merged file.
        out: PathBuf,
        /// The shards' files.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Replace `out` if it exists.
        #[arg(long)]
        force: bool,
    },
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("`{s}` is not I/N (such as 0/4)"))?;
    let i: usize = i
        .trim()
        .parse()
        .map_err(|_| format!("`{i}` is not an index"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}` is not a count"))?;
    if n == 0 || i >= n {
        return Err(format!("shard {i}/{n}: I runs from 0 to N-1"));
    }
    Ok((i, n))
}

/// A spec from the command line's axes.
fn spec_from_args(args: &Args, target: &str) -> Result<Spec, SpecError> {
    let mut s = Spec {
        kernels: target.split(',').map(|k| k.trim().to_string()).collect(),
        base_dir: PathBuf::from("."),
        max_ctas: args.max_ctas,
        ..Spec::default()
    };
    let split = |a: &str, what: &str| -> Result<(String, String), SpecError> {
        a.split_once('=')
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .ok_or_else(|| SpecError::new(format!("{what} `{a}` is not NAME=VALUES")))
    };
    for a in &args.params {
        let (k, v) = split(a, "--param")?;
        let vals =
            spec::parse_int_values(&v).map_err(|m| SpecError::new(format!("--param {k}: {m}")))?;
        s.params.push((k, vals));
    }
    for a in &args.sets {
        let (k, v) = split(a, "--set")?;
        let vals =
            spec::parse_float_values(&v).map_err(|m| SpecError::new(format!("--set {k}: {m}")))?;
        s.sets.push((k, vals));
    }
    if let Some(v) = &args.seeds {
        s.seeds = spec::parse_int_values(v)
            .map_err(|m| SpecError::new(format!("--seeds: {m}")))?
            .into_iter()
            .map(|x| {
                u64::try_from(x).map_err(|_| SpecError::new(format!("--seeds: {x} is below 0")))
            })
            .collect::<Result<_, _>>()?;
    }
    let list = |v: &Option<String>| -> Vec<String> {
        v.iter()
            .flat_map(|x| x.split(','))
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    };
    s.policies = list(&args.policy);
    s.profiles = list(&args.profile);
    Ok(s)
}

/// Reads and expands a spec file, or the command line's axes; the error rendered.
pub fn load(args: &Args, target: &str) -> Result<(Spec, Plan, Option<PathBuf>), String> {
    let is_file = target.ends_with(".toml");
    let (spec, text) = if is_file {
        let text = std::fs::read_to_string(target)
            .map_err(|e| format!("error: {target}: cannot read: {e}\n"))?;
        let base = Path::new(target)
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let mut spec = spec::parse(&text, &base).map_err(|e| e.render(target, &text))?;
        // Command-line axes add to or replace the file's.
        if args.max_ctas.is_some() {
            spec.max_ctas = args.max_ctas;
        }
        (spec, Some(text))
    } else {
        let spec = spec_from_args(args, target).map_err(|e| format!("error: {e}\n"))?;
        (spec, None)
    };
    if is_file && (!args.params.is_empty() || !args.sets.is_empty() || args.seeds.is_some()) {
        return Err(
            "error: --param, --set and --seeds make a sweep without a spec file; write the axes in the spec\n"
                .into(),
        );
    }
    let plan = expand(&spec).map_err(|e| match &text {
        Some(t) => e.render(target, t),
        None => format!("error: {e}\n"),
    })?;
    let default_out = spec.out.as_ref().map(|o| spec.base_dir.join(o));
    Ok((spec, plan, default_out))
}

struct Bar {
    bar: indicatif::ProgressBar,
    failures: std::sync::atomic::AtomicUsize,
}

impl Progress for Bar {
    fn start(&self, total: usize, done: usize) {
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        self.bar.reset_eta();
    }
    fn point(&self, label: &str, error: Option<&str>) {
        if let Some(e) = error {
            let n = self
                .failures
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            // The first few failures are shown; every one is in its row.
            if n < 5 {
                let first = e.lines().next().unwrap_or("");
                self.bar.println(format!("point failed: {label}: {first}"));
            }
        }
        self.bar.inc(1);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

pub fn run(args: &Args) -> ExitCode {
    if let Some(MergeCommand::Merge { out, shards, force }) = &args.merge {
        return match runner::merge(out, shards, *force) {
            Ok(n) => {
                eprintln!(
                    "merged {} shards: {n} points -> {}",
                    shards.len(),
                    out.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let Some(target) = &args.target else {
        eprintln!("error: name a spec file or kernels to sweep (`smsim sweep --help`)");
        return ExitCode::from(2);
    };
    let (spec, plan, spec_out) = match load(args, target) {
        Ok(x) => x,
        Err(m) => {
            eprint!("{m}");
            return ExitCode::from(2);
        }
    };
    if args.check {
        return check(args, &plan, args.out.clone().or(spec_out));
    }
    let out = args
        .out
        .clone()
        .or(spec_out)
        .unwrap_or_else(|| PathBuf::from("sweep.jsonl"));
    let stop = Arc::new(AtomicBool::new(false));
    // The first Ctrl-C stops new points and closes the file (valid, resumable); a second
    // ends the process at once (the file is still valid up to its last whole row).
    let _ = signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        130,
        stop.clone(),
    );
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone());
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} points  {per_sec}  ETA {eta}",
        )
        .expect("a valid template"),
    );
    let bar = Bar {
        bar,
        failures: Default::default(),
    };
    let opts = Options {
        jobs: args.jobs,
        shard: args.shard,
        force: args.force,
        stop: Some(stop),
        stop_after: None,
    };
    let outcome = match runner::run_sweep(&plan, &out, &opts, &bar) {
        Ok(o) => o,
        Err(e) => {
            bar.bar.abandon();
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "{} points ({} run now, {} already in the file, {} failed) -> {}",
        outcome.total,
        outcome.ran,
        outcome.resumed,
        outcome.failed,
        out.display()
    );
    if outcome.interrupted {
        eprintln!("stopped early; the same command resumes the sweep");
        return ExitCode::from(130);
    }
    if args.plot {
        return crate::plot_cmd::plot_spec(&spec, &out);
    }
    ExitCode::SUCCESS
}

fn check(args: &Args, plan: &Plan, committed: Option<PathBuf>) -> ExitCode {
    let Some(committed) = committed else {
        eprintln!("error: --check needs the committed results: the spec's `out`, or --out");
        return ExitCode::from(2);
    };
    match runner::check(plan, &committed, args.jobs) {
        Ok(diffs) if diffs.is_empty() => {
            eprintln!(
                "{}: {} points rerun, every value matches",
                committed.display(),
                plan.points.len()
            );
            ExitCode::SUCCESS
        }
        Ok(diffs) => {
            eprintln!(
                "{}: {} values differ from the committed results:",
                committed.display(),
                diffs.len()
            );
            for d in diffs.iter().take(20) {
                eprintln!("  {d}");
            }
            eprintln!("rerun the study with --force to update them, and say why in the commit");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
