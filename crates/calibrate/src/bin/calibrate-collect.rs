//! `calibrate-collect [--out FILE | --out-dir DIR] [--quick] [--validation] [--only SECTION[,SECTION...]] [--hbm-launches N] [--clean-flush | --dirty-flush] [--flush-settle-us N] [--dump-dir DIR]`
//! `calibrate-collect --compile-only DIR [--arch sm_90a]`
//!
//! Runs the microbenchmarks on GPU 0 and writes one JSON measurement file (never
//! overwriting one). The default protocol is the fit's: 64 launches per HBM copy latency
//! and clean L2 flushes; `--hbm-launches 1 --dirty-flush` is the original one. `--compile-only` needs only libnvrtc: it compiles every source and
//! writes the images to DIR (for disassembly), with no GPU.

use calibrate::{CollectOptions, collect, compile_all};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: calibrate-collect [--out FILE | --out-dir DIR] [--quick] [--validation] [--only SECTION[,SECTION...]] [--hbm-launches N] [--clean-flush | --dirty-flush] [--flush-settle-us N] [--dump-dir DIR]\n       \
                     calibrate-collect --compile-only DIR [--arch sm_90a]";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let mut opts = CollectOptions {
        command: argv.clone(),
        ..Default::default()
    };
    let mut compile_only: Option<PathBuf> = None;
    let mut arch = "sm_90a".to_string();
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        let mut value = |flag: &str| -> Result<String, ExitCode> {
            it.next().cloned().ok_or_else(|| {
                eprintln!("{flag} needs a value\n{USAGE}");
                ExitCode::from(2)
            })
        };
        let r = match a.as_str() {
            "--out" => value("--out").map(|v| opts.out = Some(PathBuf::from(v))),
            "--out-dir" => value("--out-dir").map(|v| opts.out_dir = Some(PathBuf::from(v))),
            "--quick" => {
                opts.quick = true;
                Ok(())
            }
            "--validation" => {
                opts.validation = true;
                Ok(())
            }
            "--only" => {
                value("--only").map(|v| opts.only = v.split(',').map(str::to_string).collect())
            }
            "--hbm-launches" => value("--hbm-launches").and_then(|v| match v.parse::<u32>() {
                Ok(n) if (1..=64).contains(&n) => {
                    opts.hbm_launches = n;
                    Ok(())
                }
                _ => {
                    eprintln!("--hbm-launches needs a number from 1 to 64\n{USAGE}");
                    Err(ExitCode::from(2))
                }
            }),
            "--clean-flush" => {
                opts.clean_flush = true;
                Ok(())
            }
            "--dirty-flush" => {
                opts.clean_flush = false;
                Ok(())
            }
            "--flush-settle-us" => {
                value("--flush-settle-us").and_then(|v| match v.parse::<u32>() {
                    Ok(n) if n <= 1_000_000 => {
                        opts.flush_settle_us = n;
                        Ok(())
                    }
                    _ => {
                        eprintln!(
                            "--flush-settle-us needs microseconds from 0 to 1000000\n{USAGE}"
                        );
                        Err(ExitCode::from(2))
                    }
                })
            }
            "--dump-dir" => value("--dump-dir").map(|v| opts.dump_dir = Some(PathBuf::from(v))),
            "--compile-only" => {
                value("--compile-only").map(|v| compile_only = Some(PathBuf::from(v)))
            }
            "--arch" => value("--arch").map(|v| arch = v),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other}\n{USAGE}");
                Err(ExitCode::from(2))
            }
        };
        if let Err(code) = r {
            return code;
        }
    }

    if let Some(dir) = compile_only {
        return match compile_all(&arch, Some(&dir)) {
            Ok(results) => {
                let failed = results.iter().filter(|r| r.2.is_err()).count();
                for (name, _, r) in &results {
                    if let Err(e) = r {
                        eprintln!("{name}: {e}");
                    }
                }
                if failed == 0 {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            }
            Err(e) => {
                eprintln!("calibrate-collect: {e}");
                ExitCode::FAILURE
            }
        };
    }

    match collect(&opts) {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("calibrate-collect: {e}");
            ExitCode::FAILURE
        }
    }
}
