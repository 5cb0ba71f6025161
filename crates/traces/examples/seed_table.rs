//! The seeds' figures against smsim (`traces::seeds`):
//!
//! ```sh
//! cargo run --release -p traces --example seed_table              # print the table
//! cargo run --release -p traces --example seed_table -- --write   # and commit it to crates/traces/seeds/table.md
//! cargo run --release -p traces --example seed_table -- --check   # fail if the committed table is stale
//! cargo run --release -p traces --example seed_table -- --fit     # search the fitted parameters again (traces::seeds::FITS)
//! ```
use std::process::ExitCode;

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(traces::seeds::TABLE_PATH);
    if mode == "--fit" {
        for f in traces::seeds::FITS {
            match traces::seeds::fit(f) {
                Ok((v, errors)) => {
                    println!("{} = {v} (held in {})", f.param, f.holder);
                    for (id, e) in errors {
                        println!("  {id}: {:+.1}%", 100.0 * e);
                    }
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", f.param);
                    return ExitCode::FAILURE;
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    let t = std::time::Instant::now();
    let text = traces::seeds::table().to_string();
    eprintln!("seed table: {:.1} s", t.elapsed().as_secs_f64());
    match mode.as_str() {
        "" => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        "--write" => match std::fs::write(&path, &text) {
            Ok(()) => {
                print!("{text}");
                eprintln!("wrote {}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                ExitCode::FAILURE
            }
        },
        "--check" => match std::fs::read_to_string(&path) {
            Ok(old) if old == text => ExitCode::SUCCESS,
            Ok(_) => {
                eprintln!(
                    "error: {} is stale: run `cargo run --release -p traces --example seed_table -- --write` and review the change",
                    path.display()
                );
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                ExitCode::FAILURE
            }
        },
        other => {
            eprintln!(
                "error: unknown option `{other}`; use --write or --check (or nothing to print)"
            );
            ExitCode::FAILURE
        }
    }
}
