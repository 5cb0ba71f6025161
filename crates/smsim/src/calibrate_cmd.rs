//! `smsim calibrate collect|fit|report`: measure a real GPU, fit the profile to the
//! committed measurements, report the simulator's error against them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use calibrate::{BUILTIN_PROFILE, workspace_path};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Run the microbenchmarks on GPU 0 (needs an NVIDIA GPU, its driver and NVRTC).
    Collect {
        /// Output file (never overwritten); default `<gpu>-<date>.json` in the current
        /// folder, or in the system's temporary folder when the current folder lies in
        /// this source tree (a collect joins the committed data, `crates/calibrate/data`,
        /// only when moved there on purpose).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run the validation kernels instead (their own file; never used by the fit).
        #[arg(long)]
        validation: bool,
        /// Fewer repetitions and sizes (a smoke test).
        #[arg(long)]
        quick: bool,
    },
    /// Fit the profile's parameters to committed measurements (offline): by default to
    /// each benchmark's median over the GPUs of every committed collect.
    Fit {
        /// Fit one measurement file instead of the median over GPUs.
        #[arg(long, conflicts_with_all = ["median_across_gpus", "write_builtin"])]
        data: Option<String>,
        /// Where to write the fitted profile (refused if it exists, unless --force).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write the built-in profile crates/sim-core/profiles/h100.toml.
        #[arg(long, conflicts_with = "out")]
        write_builtin: bool,
        /// Overwrite --out if it exists.
        #[arg(long)]
        force: bool,
        /// Starting profile (TOML file); default: the published priors in
        /// crates/calibrate/priors/h100.toml (so the fit is reproducible).
        #[arg(long)]
        profile: Option<String>,
        /// Sweeps of the joint refinement.
        #[arg(long, default_value_t = 4)]
        sweeps: usize,
        /// Fit to the median over GPUs of every committed collect (crates/calibrate/data,
        /// grouped by GPU as `calibrate across` does): the default, kept for scripts.
        #[arg(long)]
        median_across_gpus: bool,
        /// Leave this GPU (UUID or its first 8 characters) out of the median, to score it
        /// out of sample afterwards.
        #[arg(long, conflicts_with_all = ["data", "write_builtin"])]
        leave_out: Option<String>,
        /// Say nothing on stderr while fitting (by default: each step and item as it
        /// starts, and the time taken every ten seconds).
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Every committed collect grouped by GPU: each benchmark's measured spread beside the
    /// model, and each GPU scored on the benchmarks the fit never read from it.
    Across {
        /// The folder of collects (its *.json or *.json.gz, not its subfolders).
        #[arg(long, default_value = calibrate::DATA_DIR)]
        data_dir: String,
        /// More collects to add (e.g. a new GPU's file, with its .env.txt beside it).
        #[arg(long = "with")]
        with: Vec<PathBuf>,
        /// The profile to score (built-in name or TOML file).
        #[arg(long, default_value = "h100")]
        profile: String,
        /// Also write the markdown to this new file (refused if it exists).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The collect (file name) that --profile was fitted to, when it is not the
        /// committed fit: its GPU's benchmarks count in sample, every other out of sample.
        #[arg(long, conflicts_with = "median_fit")]
        fitted_on: Option<String>,
        /// --profile was fitted with `fit --median-across-gpus`: every GPU but
        /// --leave-out counts in sample.
        #[arg(long)]
        median_fit: bool,
        /// The GPU (UUID or its first 8 characters) the median fit left out.
        #[arg(long, requires = "median_fit")]
        leave_out: Option<String>,
        /// Leave one GPU out: score each GPU against the profile in DIR that left it out
        /// (`median-no-GPU.toml`, from `calibrate fit --leave-out GPU`), instead of one
        /// profile.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["fitted_on", "median_fit", "profile"])]
        leave_one_out: Option<PathBuf>,
    },
    /// Simulated against measured for every microbenchmark and validation kernel.
    ///
    /// Writes into a new folder beside the data (in the temporary folder when the data
    /// lies in this source tree), never over existing files.
    Report {
        /// A measurement file (e.g. a new GPU's collect); default: each benchmark's median
        /// over the GPUs of the committed collects, what the built-in profile was fitted to.
        #[arg(long)]
        data: Option<String>,
        /// The validation kernels' measurement file; repeated, runs of the same kernels on
        /// other GPUs, which the rankings read too (the first is scored). Default: the
        /// committed runs on five GPUs, the first scored.
        #[arg(long, value_name = "FILE")]
        validation_data: Vec<String>,
        /// The profile to report on (built-in name or TOML file).
        #[arg(long, default_value = "h100")]
        profile: String,
        /// A new folder for report.md, report.json and the scatter plots (refused if it
        /// exists).
        #[arg(long, conflicts_with_all = ["check", "write_committed"])]
        out_dir: Option<PathBuf>,
        /// Recompute and fail if the committed report (crates/calibrate/report) differs
        /// (writes nothing).
        #[arg(long, conflicts_with = "write_committed")]
        check: bool,
        /// Rewrite the committed report, crates/calibrate/report (from the committed data
        /// only).
        #[arg(long)]
        write_committed: bool,
    },
}

pub fn run(args: &Args) -> ExitCode {
    match &args.cmd {
        Cmd::Collect {
            out,
            validation,
            quick,
        } => collect(out.clone(), *validation, *quick),
        Cmd::Fit {
            data,
            out,
            write_builtin,
            force,
            profile,
            sweeps,
            median_across_gpus: _,
            leave_out,
            quiet,
        } => fit(
            data.as_deref().ok_or(leave_out.as_deref()),
            out.as_deref(),
            *write_builtin,
            *force,
            profile.as_deref(),
            *sweeps,
            *quiet,
        ),
        Cmd::Across {
            data_dir,
            with,
            profile,
            out,
            fitted_on,
            median_fit,
            leave_out,
            leave_one_out,
        } => {
            use calibrate::across::FittedOn;
            if let Some(dir) = leave_one_out {
                return leave_one_out_cmd(data_dir, with, dir, out.as_deref());
            }
            let f = match (fitted_on, median_fit) {
                (Some(f), _) => FittedOn::File(f),
                (None, true) => FittedOn::MedianWithout(leave_out.as_deref()),
                (None, false) => FittedOn::Committed,
            };
            across(data_dir, with, profile, out.as_deref(), f)
        }
        Cmd::Report {
            data,
            validation_data,
            profile,
            out_dir,
            check,
            write_committed,
        } => report(&ReportArgs {
            data: data.as_deref(),
            validation_data,
            profile,
            out_dir: out_dir.as_deref(),
            check: *check,
            write_committed: *write_committed,
        }),
    }
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::FAILURE
}

fn collect(out: Option<PathBuf>, validation: bool, quick: bool) -> ExitCode {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out_dir = match (&out, std::env::current_dir()) {
        (None, Ok(cwd)) => Some(calibrate::default_collect_dir(&cwd, Some(&tree))),
        (None, Err(_)) => Some(std::env::temp_dir()),
        (Some(_), _) => None,
    };
    let opts = calibrate::CollectOptions {
        out,
        out_dir,
        validation,
        quick,
        command: std::env::args().collect(),
        ..Default::default()
    };
    match calibrate::collect(&opts) {
        Ok(p) => {
            println!("wrote {}", p.display());
            println!(
                "score it: smsim calibrate report --{} {}",
                if validation {
                    "validation-data"
                } else {
                    "data"
                },
                p.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("calibrate collect: {e}")),
    }
}

fn load_measurement(data: &str) -> Result<(calibrate::Measurement, String), String> {
    let m = calibrate::load_data(data)?;
    let name = Path::new(data)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| data.to_string());
    Ok((m, name))
}

/// The fit's data with every benchmark at its median over the committed collects' GPUs,
/// less `leave_out`, and the name the fitted profile's sources give it.
fn median_measurement(leave_out: Option<&str>) -> Result<(calibrate::Measurement, String), String> {
    use calibrate::across;
    let (m, kept) = across::median_data(&workspace_path(calibrate::DATA_DIR), leave_out)?;
    if !kept.is_empty() {
        eprintln!(
            "note: one GPU alone measured {}; kept as the fit's file has them",
            kept.join(", ")
        );
    }
    Ok((m, across::median_data_name(leave_out)))
}

/// `data`: one file (`Ok`), or the median over GPUs less a GPU left out (`Err`).
#[allow(clippy::too_many_arguments)]
fn fit(
    data: Result<&str, Option<&str>>,
    out: Option<&Path>,
    write_builtin: bool,
    force: bool,
    profile: Option<&str>,
    sweeps: usize,
    quiet: bool,
) -> ExitCode {
    let target: PathBuf = match (out, write_builtin) {
        (Some(p), _) => p.to_path_buf(),
        (None, true) => workspace_path(BUILTIN_PROFILE),
        (None, false) => {
            return fail(
                "say where the fitted profile goes: --out FILE, or --write-builtin for crates/sim-core/profiles/h100.toml",
            );
        }
    };
    if out.is_some() && target.exists() && !force {
        return fail(format!(
            "{} exists; pass --force to overwrite it",
            target.display()
        ));
    }
    let loaded = match data {
        Ok(file) => load_measurement(file),
        Err(leave_out) => median_measurement(leave_out),
    };
    let (m, name) = match loaded {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let prior = match profile {
        Some(p) => crate::run::load_profile(p, &[]),
        None => sim_core::Profile::from_toml(calibrate::H100_PRIORS).map_err(|e| e.to_string()),
    };
    let prior = match prior {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // The fit takes a minute or more: each step and item as it starts, and a line every
    // ten seconds between (unless --quiet).
    let beat = (!quiet).then(|| {
        crate::progress::Heartbeat::start(
            format!(
                "calibrate fit: {} benchmarks of {name}, {sweeps} sweeps",
                m.benchmarks.len()
            ),
            std::time::Duration::from_secs(10),
        )
    });
    let started = std::time::Instant::now();
    let r = calibrate::fit::fit_with(&m, &prior, &name, sweeps, &mut |p| {
        if !quiet {
            crate::outcome::say(&crate::progress::fit_stage(p, started.elapsed()));
        }
    });
    drop(beat);
    let r = match r {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let text = calibrate::fit::finished_toml(&r);
    // Through a temporary file: a failure leaves the old profile as it was.
    if let Err(e) = crate::files::write(&target, text.as_bytes(), true) {
        return fail(e);
    }
    println!("{}", calibrate::fit::summary(&r));
    println!("wrote {}", target.display());
    ExitCode::SUCCESS
}

/// `calibrate report`'s arguments.
struct ReportArgs<'a> {
    data: Option<&'a str>,
    validation_data: &'a [String],
    profile: &'a str,
    out_dir: Option<&'a Path>,
    check: bool,
    write_committed: bool,
}

fn report(a: &ReportArgs<'_>) -> ExitCode {
    use calibrate::report::Output;
    let committed_inputs = a.data.is_none() && a.validation_data.is_empty();
    if (a.check || a.write_committed) && !committed_inputs {
        return fail(
            "--check and --write-committed are for the committed report, from the committed data; \
             drop --data/--validation-data or the option",
        );
    }
    let loaded = match a.data {
        Some(file) => load_measurement(file),
        None => median_measurement(None),
    };
    let (m, name) = match loaded {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    // each benchmark's spread over the committed GPUs, for the band
    let spreads = match calibrate::report::committed_spreads() {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let files: Vec<&str> = a.validation_data.iter().map(String::as_str).collect();
    let val = if files.is_empty() {
        calibrate::report::ValidationInput::committed()
    } else {
        calibrate::report::ValidationInput::load_runs(&files)
    };
    let val = match val {
        Ok(v) => v,
        Err(e) => return fail(e),
    };
    let p = match crate::run::load_profile(a.profile, &[]) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let (dir, mode) = if a.check {
        (workspace_path(calibrate::REPORT_DIR), Output::Check)
    } else if a.write_committed {
        (workspace_path(calibrate::REPORT_DIR), Output::Replace)
    } else if let Some(d) = a.out_dir {
        (d.to_path_buf(), Output::NewDir)
    } else {
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let data_path = workspace_path(a.data.unwrap_or(calibrate::DATA_DIR));
        (
            calibrate::report::default_out_dir(&data_path, Some(&tree)),
            Output::NewDir,
        )
    };
    match calibrate::report::run_with(&m, &name, &spreads, &val, &p, &dir, mode) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `calibrate across --leave-one-out DIR`.
fn leave_one_out_cmd(data_dir: &str, with: &[PathBuf], dir: &Path, out: Option<&Path>) -> ExitCode {
    let extra: Vec<&Path> = with.iter().map(PathBuf::as_path).collect();
    let md = (|| -> Result<String, String> {
        let collects = calibrate::across::load_collects(&workspace_path(data_dir), &extra)?;
        let dir_path = if dir.exists() {
            dir.to_path_buf()
        } else {
            workspace_path(&dir.to_string_lossy())
        };
        let mut profiles = Vec::new();
        for (gpu, path) in calibrate::loo::profiles_in(&dir_path)? {
            let p = crate::run::load_profile(&path.to_string_lossy(), &[])?;
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default();
            profiles.push((gpu, file, p));
        }
        let rows = calibrate::loo::rows(&collects, &profiles)?;
        // Every GPU with data, to name those no profile left out.
        let (_, all) = calibrate::across::score(
            &collects,
            &profiles[0].2,
            calibrate::across::FittedOn::Committed,
        )?;
        Ok(calibrate::loo::markdown(
            &rows,
            &all,
            &dir.to_string_lossy(),
            95.0,
        ))
    })();
    let md = match md {
        Ok(md) => md,
        Err(e) => return fail(e),
    };
    if let Some(o) = out
        && let Err(e) = calibrate::write_new(o, &md)
    {
        return fail(e);
    }
    print!("{md}");
    ExitCode::SUCCESS
}

fn across(
    data_dir: &str,
    with: &[PathBuf],
    profile: &str,
    out: Option<&Path>,
    fitted_on: calibrate::across::FittedOn<'_>,
) -> ExitCode {
    let p = match crate::run::load_profile(profile, &[]) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let extra: Vec<&Path> = with.iter().map(PathBuf::as_path).collect();
    let md = match calibrate::across::run(&workspace_path(data_dir), &extra, &p, fitted_on) {
        Ok(md) => md,
        Err(e) => return fail(e),
    };
    if let Some(o) = out
        && let Err(e) = calibrate::write_new(o, &md)
    {
        return fail(e);
    }
    print!("{md}");
    ExitCode::SUCCESS
}
