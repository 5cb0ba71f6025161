//! `smsim plot RESULTS`: a chart of a sweep's results (PNG and SVG beside them, and the
//! chart's data printed); `smsim sweep --plot` draws a spec's charts the same way.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use experiments::chart::{self, Chart};
use experiments::spec::{ChartSpec, Spec};
use experiments::table::Table;

#[derive(clap::Args)]
pub struct Args {
    /// A sweep's results file (`.jsonl` or `.csv`).
    pub results: PathBuf,
    /// The chart: line (a metric against an axis), heatmap (a metric over two axes),
    /// states (stacked warp-state shares per point).
    #[arg(long, default_value = "line")]
    pub kind: String,
    /// The axis along x (`PIPE`, `param.PIPE`, `lat_hbm`, `set.lat_hbm`...); by default
    /// the first numeric axis that varies.
    #[arg(long)]
    pub x: Option<String>,
    /// The metric (time_us, tflops, cycles, ipc, ...); for a heatmap the second axis;
    /// for states a role (default: all warps).
    #[arg(long)]
    pub y: Option<String>,
    /// The heatmap's metric (default time_us).
    #[arg(long)]
    pub z: Option<String>,
    /// The column that makes a line (or a heatmap panel): default `kernel`.
    #[arg(long)]
    pub by: Option<String>,
    /// The chart's title.
    #[arg(long)]
    pub title: Option<String>,
    /// The files' path without extension (default: beside the results, named from the
    /// columns). Existing files are not overwritten.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `RESULTS` without its extension, then `-NAME`.
fn stem_beside(results: &Path, name: &str) -> PathBuf {
    let stem = results
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    results.with_file_name(format!("{stem}-{name}"))
}

fn write(chart: &Chart, stem: &Path, force: bool) -> Result<(), String> {
    if !force {
        for ext in ["png", "svg"] {
            let mut p = stem.as_os_str().to_owned();
            p.push(format!(".{ext}"));
            let p = PathBuf::from(p);
            if p.exists() {
                return Err(format!(
                    "{} exists; smsim does not overwrite files (choose another --out)",
                    p.display()
                ));
            }
        }
    }
    print!("{}", chart::describe_chart(chart));
    let files = chart::draw(chart, stem, force)?;
    for f in files {
        eprintln!("wrote {}", f.display());
    }
    Ok(())
}

pub fn run(args: &Args) -> ExitCode {
    let t = match Table::read(&args.results) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let c = ChartSpec {
        kind: Some(args.kind.clone()),
        x: args.x.clone(),
        y: args.y.clone(),
        z: args.z.clone(),
        by: args.by.clone(),
        title: args.title.clone(),
        name: None,
    };
    let result = chart::from_spec(&t, &c, None).and_then(|(chart, name)| {
        let stem = args
            .out
            .clone()
            .unwrap_or_else(|| stem_beside(&args.results, &name));
        write(&chart, &stem, false)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `sweep --plot`: the spec's charts (or the default line chart) beside the results,
/// replacing earlier drawings of them (they are drawn from the file, which is kept).
pub fn plot_spec(spec: &Spec, results: &Path) -> ExitCode {
    let t = match Table::read(results) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let charts = if spec.charts.is_empty() {
        vec![ChartSpec::default()]
    } else {
        spec.charts.clone()
    };
    let mut code = ExitCode::SUCCESS;
    for c in &charts {
        let r = chart::from_spec(&t, c, spec.title.as_deref())
            .and_then(|(chart, name)| write(&chart, &stem_beside(results, &name), true));
        if let Err(e) = r {
            eprintln!("error: chart {:?}: {e}", c.name.as_deref().unwrap_or(""));
            code = ExitCode::FAILURE;
        }
    }
    code
}
