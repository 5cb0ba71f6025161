//! `smsim calibrate collect|fit|report`: measure a real GPU, fit the profile to the
//! committed measurements, report the simulator's error against them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use calibrate::{BUILTIN_PROFILE, PRIMARY_DATA, workspace_path};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Run the microbenchmarks on GPU 0 (needs an NVIDIA GPU, its driver and NVRTC).
    Collect {
        /// Output file (never overwritten); default crates/calibrate/data/<gpu>-<date>.json.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run the validation kernels instead (their own file; never used by the fit).
        #[arg(long)]
        validation: bool,
        /// Fewer repetitions and sizes (a smoke test).
        #[arg(long)]
        quick: bool,
    },
    /// Fit the profile's parameters to committed measurements (offline).
    Fit {
        /// The measurement file.
        #[arg(long, default_value = PRIMARY_DATA)]
        data: String,
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
    },
    /// Simulated against measured for every microbenchmark and validation kernel.
    Report {
        /// The measurement file.
        #[arg(long, default_value = PRIMARY_DATA)]
        data: String,
        /// The profile to report on (built-in name or TOML file).
        #[arg(long, default_value = "h100")]
        profile: String,
        /// Where to write report.md, report.json and the scatter plots.
        #[arg(long, default_value = calibrate::REPORT_DIR)]
        out_dir: String,
        /// Recompute and fail if the committed report differs (writes nothing).
        #[arg(long)]
        check: bool,
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
        } => fit(
            data,
            out.as_deref(),
            *write_builtin,
            *force,
            profile.as_deref(),
            *sweeps,
        ),
        Cmd::Report {
            data,
            profile,
            out_dir,
            check,
        } => report(data, profile, out_dir, *check),
    }
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::FAILURE
}

fn collect(out: Option<PathBuf>, validation: bool, quick: bool) -> ExitCode {
    let opts = calibrate::CollectOptions {
        out,
        validation,
        quick,
        command: std::env::args().collect(),
        ..Default::default()
    };
    match calibrate::collect(&opts) {
        Ok(p) => {
            println!("wrote {}", p.display());
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

fn fit(
    data: &str,
    out: Option<&Path>,
    write_builtin: bool,
    force: bool,
    profile: Option<&str>,
    sweeps: usize,
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
    let (m, name) = match load_measurement(data) {
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
    let r = match calibrate::fit::fit(&m, &prior, &name, sweeps) {
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

fn report(data: &str, profile: &str, out_dir: &str, check: bool) -> ExitCode {
    let (m, name) = match load_measurement(data) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let p = match crate::run::load_profile(profile, &[]) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let dir = workspace_path(out_dir);
    match calibrate::report::run(&m, &name, &p, &dir, check) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
