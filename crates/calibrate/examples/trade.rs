//! What a move of profile parameters trades: every twinned microbenchmark against each
//! benchmark's median over the committed GPUs (less one), with a profile and with the
//! same profile moved, printing the benchmarks whose error changes. Run from the
//! repository root:
//!
//! ```sh
//! cargo run --release -p calibrate --example trade -- [--leave-out GPU] [--profile FILE] name+=delta|name=value ...
//! ```
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut leave_out = None;
    let mut profile = None;
    let mut moves = Vec::new();
    let mut all = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--leave-out" => leave_out = args.next(),
            "--profile" => profile = args.next(),
            "--all" => all = true,
            _ => moves.push(a),
        }
    }
    let run = || -> Result<(), String> {
        let dir = calibrate::workspace_path(calibrate::DATA_DIR);
        let (m, _) = calibrate::across::median_data(&dir, leave_out.as_deref())?;
        let base = match &profile {
            Some(f) => sim_core::Profile::from_toml(&calibrate::datafile::read_text(
                std::path::Path::new(f),
            )?)
            .map_err(|e| e.to_string())?,
            None => sim_core::Profile::builtin("h100").map_err(|e| e.to_string())?,
        };
        let mut moved = base.clone();
        for mv in &moves {
            let (name, value) = if let Some((n, d)) = mv.split_once("+=") {
                let d: f64 = d.parse().map_err(|_| format!("bad delta in {mv}"))?;
                (n, moved.file.params[n].value + d)
            } else if let Some((n, v)) = mv.split_once('=') {
                (n, v.parse().map_err(|_| format!("bad value in {mv}"))?)
            } else {
                return Err(format!("{mv}: expected name=value or name+=delta"));
            };
            moved.set(name, value).map_err(|e| e.to_string())?;
        }
        let ts = calibrate::fit::targets(&m);
        let mut changed = 0;
        let (mut sse0, mut sse1) = (0.0, 0.0);
        for t in &ts {
            let a = t.twin.eval(&base)?;
            let b = t.twin.eval(&moved)?;
            let (ea, eb) = (
                (a - t.measured) / t.measured * 100.0,
                (b - t.measured) / t.measured * 100.0,
            );
            sse0 += ea * ea;
            sse1 += eb * eb;
            // where each value sits in the strict window: 0 at the median, +-1 at its edges
            let win = m
                .get(&t.twin.bench)
                .map(calibrate::across::per_gpu_values)
                .and_then(|v| {
                    if v.is_empty() {
                        calibrate::across::strict_window(&[t.measured])
                    } else {
                        calibrate::across::strict_window(&v)
                    }
                });
            let at = |x: f64| match win {
                Some((_, hi)) if x >= t.measured => (x - t.measured) / (hi - t.measured),
                Some((lo, _)) => (x - t.measured) / (t.measured - lo),
                None => f64::NAN,
            };
            if (a - b).abs() > 1e-9 || all {
                changed += 1;
                println!(
                    "{:55} {:>10.2} {:>10.2} {:>8.2}% {:>6.2} {:>10.2} {:>8.2}% {:>6.2}",
                    t.twin.bench,
                    t.measured,
                    a,
                    ea,
                    at(a),
                    b,
                    eb,
                    at(b)
                );
            }
        }
        println!(
            "{changed} of {} changed; sum of squared % errors {sse0:.2} -> {sse1:.2}",
            ts.len()
        );
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trade: {e}");
            ExitCode::FAILURE
        }
    }
}
