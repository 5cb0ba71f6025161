//! `smsim calibrate collect|fit|report`: measure a real GPU, fit the profile to the
//! committed measurements, report the simulator's error against them.

use std::path::{Path, PathBuf};

use calibrate::{BUILTIN_PROFILE, PRIMARY_DATA, workspace_path};

use crate::inputs::load_profile;
use crate::outcome::{Fail, Outcome, print};

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

/// `smsim calibrate collect|fit|report`.
pub fn run(args: &Args) -> Outcome {
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

fn collect(out: Option<PathBuf>, validation: bool, quick: bool) -> Outcome {
    let opts = calibrate::CollectOptions {
        out,
        validation,
        quick,
        command: std::env::args().collect(),
        ..Default::default()
    };
    let p =
        calibrate::collect(&opts).map_err(|e| Fail::Failed(format!("calibrate collect: {e}")))?;
    print(&format!("wrote {}\n", p.display()))
}

fn load_measurement(data: &str) -> Result<(calibrate::Measurement, String), Fail> {
    let m = calibrate::load_data(data).map_err(Fail::Failed)?;
    let name = Path::new(data)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| data.to_string());
    Ok((m, name))
}

/// `calibrate fit`: the fitted profile written through a temporary file (a failure
/// leaves the old profile as it was), then the fit's summary.
fn fit(
    data: &str,
    out: Option<&Path>,
    write_builtin: bool,
    force: bool,
    profile: Option<&str>,
    sweeps: usize,
) -> Outcome {
    let target: PathBuf = match (out, write_builtin) {
        (Some(p), _) => p.to_path_buf(),
        (None, true) => workspace_path(BUILTIN_PROFILE),
        (None, false) => {
            return Err(Fail::Usage(
                "say where the fitted profile goes: --out FILE, or --write-builtin for crates/sim-core/profiles/h100.toml".into(),
            ));
        }
    };
    if out.is_some() && target.exists() && !force {
        return Err(Fail::Usage(format!(
            "{} exists; pass --force to overwrite it",
            target.display()
        )));
    }
    let (m, name) = load_measurement(data)?;
    let prior = match profile {
        Some(p) => load_profile(p, &[])?,
        None => sim_core::Profile::from_toml(calibrate::H100_PRIORS)
            .map_err(|e| Fail::Failed(e.to_string()))?,
    };
    let r = calibrate::fit::fit(&m, &prior, &name, sweeps).map_err(Fail::Failed)?;
    let text = calibrate::fit::finished_toml(&r);
    crate::files::write(&target, text.as_bytes(), true)?;
    print(&format!(
        "{}\nwrote {}\n",
        calibrate::fit::summary(&r),
        target.display()
    ))
}

fn report(data: &str, profile: &str, out_dir: &str, check: bool) -> Outcome {
    let (m, name) = load_measurement(data)?;
    let p = load_profile(profile, &[])?;
    let dir = workspace_path(out_dir);
    let summary = calibrate::report::run(&m, &name, &p, &dir, check).map_err(Fail::Failed)?;
    print(&format!("{summary}\n"))
}
