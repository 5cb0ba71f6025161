//! How many benchmarks each GPU misses read strictly (its value judged against the other
//! GPUs' spread, as leave-one-GPU-out judges it), in sample, for one or more profiles,
//! with the benchmarks outside 3% of the median. Run from the repository root:
//!
//! ```sh
//! cargo run --release -p calibrate --example strict -- [--leave-out GPU] [PROFILE.toml ...]
//! ```
//!
//! Without a profile, the built-in h100.
use std::collections::BTreeMap;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut leave_out = None;
    let mut files = Vec::new();
    while let Some(a) = args.next() {
        if a == "--leave-out" {
            leave_out = args.next();
        } else {
            files.push(a);
        }
    }
    let run = || -> Result<(), String> {
        let dir = calibrate::workspace_path(calibrate::DATA_DIR);
        let (m, _) = calibrate::across::median_data(&dir, leave_out.as_deref())?;
        let ts = calibrate::fit::targets(&m);
        let profiles: Vec<(String, sim_core::Profile)> = if files.is_empty() {
            vec![(
                "h100".into(),
                sim_core::Profile::builtin("h100").map_err(|e| e.to_string())?,
            )]
        } else {
            files
                .iter()
                .map(|f| {
                    let text = calibrate::datafile::read_text(std::path::Path::new(f))?;
                    let p = sim_core::Profile::from_toml(&text).map_err(|e| e.to_string())?;
                    Ok((f.clone(), p))
                })
                .collect::<Result<_, String>>()?
        };
        for (name, p) in &profiles {
            let mut per_gpu: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
            let mut off3 = Vec::new();
            for t in &ts {
                let v = t.twin.eval(p)?;
                let r = (v - t.measured) / t.measured;
                if r.abs() > 0.03 {
                    off3.push(format!("{} {:+.2}%", t.twin.bench, r * 100.0));
                }
                let Some(b) = m.get(&t.twin.bench) else {
                    continue;
                };
                let keyed = calibrate::across::per_gpu_keyed(b);
                let values: Vec<f64> = keyed.iter().map(|(_, x)| *x).collect();
                for ((g, x), (lo, hi)) in keyed.iter().zip(calibrate::across::strict_bands(&values))
                {
                    let e = per_gpu.entry(calibrate::across::short(g)).or_default();
                    e.0 += 1;
                    if !(lo..=hi).contains(&v) {
                        e.1 += 1;
                        e.2.push(format!("{} {:+.1}%", t.twin.bench, (v - x) / x * 100.0));
                    }
                }
            }
            let total: usize = per_gpu.values().map(|e| e.1).sum();
            println!(
                "== {name}: {} beyond 3% of the median {:?}; {total} GPU strict misses",
                off3.len(),
                off3
            );
            for (g, (n, miss, list)) in &per_gpu {
                println!(
                    "{g} {:5.1}% ({miss} of {n}): {}",
                    100.0 * (n - miss) as f64 / *n as f64,
                    list.join(", ")
                );
            }
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("strict: {e}");
            ExitCode::FAILURE
        }
    }
}
