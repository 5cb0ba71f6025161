//! `smsim tune FAMILY`: the best schedule and parameters of a family by exhaustive or
//! seeded random search within a budget, run as a (resumable) sweep; prints the best
//! points and the Pareto front of time against shared memory and registers.

use std::path::PathBuf;
use std::process::ExitCode;

use experiments::runner::{self, Options, Quiet};
use experiments::table::Table;
use experiments::tune::{self, Search};

#[derive(clap::Args)]
pub struct Args {
    /// A kernel family (see `smsim kernels`).
    pub family: String,
    /// A parameter's range: `--param PIPE=1..4`, `--param K=1024,4096` (repeatable).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUES")]
    pub params: Vec<String>,
    /// At most this many points; more candidates than this are sampled at random.
    #[arg(long, default_value_t = 200)]
    pub budget: usize,
    /// The sample's seed and the runs' seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What to minimize: kernel_time_us (the whole grid), time_us (one SM), cycles.
    #[arg(long, default_value = "kernel_time_us")]
    pub metric: String,
    /// The search's results (`.jsonl` or `.csv`; default `tune-FAMILY.jsonl`); an
    /// existing file of the same search is resumed.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Start the results file afresh.
    #[arg(long)]
    pub force: bool,
    /// Best points shown.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Runs at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
}

pub fn run(args: &Args) -> ExitCode {
    let mut params = Vec::new();
    for p in &args.params {
        let Some((k, v)) = p.split_once('=') else {
            eprintln!("error: --param `{p}` is not NAME=VALUES");
            return ExitCode::from(2);
        };
        match experiments::spec::parse_int_values(v) {
            Ok(vals) => params.push((k.trim().to_string(), vals)),
            Err(m) => {
                eprintln!("error: --param {k}: {m}");
                return ExitCode::from(2);
            }
        }
    }
    let search = Search {
        family: args.family.clone(),
        params,
        budget: args.budget,
        seed: args.seed,
    };
    let (spec, candidates) = match tune::spec(&search) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let plan = match experiments::expand(&spec) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("tune-{}.jsonl", args.family)));
    let how = if candidates > args.budget {
        format!(
            "a random sample (seed {}) of {} of {candidates} candidates",
            args.seed, args.budget
        )
    } else {
        format!("all {candidates} candidates")
    };
    eprintln!("searching {}: {how}", args.family);
    let opts = Options {
        jobs: args.jobs,
        force: args.force,
        ..Options::default()
    };
    if let Err(e) = runner::run_sweep(&plan, &out, &opts, &Quiet) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let t = match Table::read(&out) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (best, front, failed) = match tune::rank(&t, &args.metric) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "{}: {} points run ({how}), {failed} could not be built or run; results in {}\n",
        args.family,
        t.rows.len(),
        out.display()
    );
    let show = |title: &str, rows: &[tune::Ranked]| {
        println!("{title}");
        println!(
            "  {:>5} {:>14} {:>10} {:>5}  point",
            "rank", args.metric, "smem", "regs"
        );
        for (i, r) in rows.iter().enumerate() {
            println!(
                "  {:>5} {:>14.3} {:>10} {:>5}  {}",
                i + 1,
                r.time,
                r.smem,
                r.regs,
                r.label
            );
        }
        println!();
    };
    if let Ok(ei) = t.column("error") {
        for r in t.rows.iter().filter(|r| !r[ei].label().is_empty()).take(3) {
            let k = t.column("kernel").map(|k| r[k].label()).unwrap_or_default();
            println!("  failed: {k}: {}", r[ei].label());
        }
        if failed > 0 {
            println!();
        }
    }
    let top: Vec<tune::Ranked> = best.iter().take(args.top).cloned().collect();
    show("Best points:", &top);
    show(
        "Pareto front (no other point is as good in time, shared memory and registers, and better in one):",
        &front,
    );
    ExitCode::SUCCESS
}
