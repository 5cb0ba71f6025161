//! The seeds' figures against smsim (`traces::seeds`):
//!
//! ```sh
//! cargo run --release -p traces --example seed_table              # print the table
//! cargo run --release -p traces --example seed_table -- --write   # and commit it to crates/traces/seeds/table.md
//! cargo run --release -p traces --example seed_table -- --check   # fail if the committed table is stale
//! cargo run --release -p traces --example seed_table -- --fit     # search the b200 parameter fitted (traces::seeds::B200_FIT) on the Fit figures
//! ```
use std::process::ExitCode;

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(traces::seeds::TABLE_PATH);
    if mode == "--fit" {
        let name = traces::seeds::B200_FIT;
        return match traces::seeds::fit_b200(2000.0, 40000.0) {
            Ok((v, errors)) => {
                let committed = sim_core::Profile::builtin("b200")
                    .ok()
                    .and_then(|p| p.file.params.get(name).map(|e| e.value));
                match committed {
                    Some(c) => println!("{name} = {v:.0} (the b200 profile has {c})"),
                    None => println!("{name} = {v:.0} (not in the b200 profile)"),
                }
                for (id, e) in errors {
                    println!("  {id}: {:+.1}%", 100.0 * e);
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
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
