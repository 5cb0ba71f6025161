//! The fit `smsim calibrate fit [--leave-out GPU] --out FILE` makes, in a small binary
//! (no viewer, no charts) to carry to a machine with many cores, where
//! `scripts/fit-all.sh`'s fits run in parallel. Run from the repository root:
//!
//! ```sh
//! cargo build --release -p calibrate --example fit_median
//! target/release/examples/fit_median OUT.toml [GPU]
//! ```
//!
//! writes the profile fitted to each benchmark's median over the GPUs of
//! crates/calibrate/data (less GPU), refusing an existing OUT.
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), leave_out) = (args.first(), args.get(1).map(String::as_str)) else {
        eprintln!("usage: fit_median OUT.toml [GPU]");
        return ExitCode::from(2);
    };
    let run = || -> Result<String, String> {
        let dir = calibrate::workspace_path(calibrate::DATA_DIR);
        let (m, _) = calibrate::across::median_data(&dir, leave_out)?;
        let prior =
            sim_core::Profile::from_toml(calibrate::H100_PRIORS).map_err(|e| e.to_string())?;
        let name = calibrate::across::median_data_name(leave_out);
        let r = calibrate::fit::fit(&m, &prior, &name, 4)?;
        let text = calibrate::fit::finished_toml(&r);
        calibrate::write_new(std::path::Path::new(out), &text).map_err(|e| e.to_string())?;
        Ok(calibrate::fit::summary(&r))
    };
    match run() {
        Ok(s) => {
            println!("{s}\nwrote {out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("fit_median: {e}");
            ExitCode::FAILURE
        }
    }
}
