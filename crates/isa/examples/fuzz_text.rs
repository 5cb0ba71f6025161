//! Runs the grammar-aware kernel-text fuzzer for as long as asked:
//! `cargo run --release -p isa --example fuzz_text -- [SEED] [CASES]`.
//!
//! Each case is a generated kernel, corrupted in every other case, run through the
//! parser, the validator, the diagnostics' rendering and the printer
//! (`isa::textgen::check`). A case that breaks a promise is written to
//! `target/fuzz_text/SEED-CASE.smk` (a new file) with the problem in its first lines, and
//! counted. The end prints the cases run, parse errors, invalid and valid kernels, and
//! problems found.

use std::io::Write;

use isa::textgen::{Outcome, Rng, check, kernel, mutate};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(1);
    let cases: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    // A panic is a finding, reported by `check`; keep its message off the terminal.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed);
    let (mut parse_errors, mut invalid, mut valid, mut found) = (0u64, 0u64, 0u64, 0u64);
    let started = std::time::Instant::now();
    for case in 0..cases {
        let mut src = kernel(&mut rng);
        if case % 2 == 1 {
            src = mutate(&src, &mut rng);
        }
        match check(&src) {
            Ok(Outcome::ParseError) => parse_errors += 1,
            Ok(Outcome::Invalid(_)) => invalid += 1,
            Ok(Outcome::Valid(_)) => valid += 1,
            Err(problem) => {
                found += 1;
                let dir = std::path::Path::new("target/fuzz_text");
                let _ = std::fs::create_dir_all(dir);
                let path = dir.join(format!("{seed}-{case}.smk"));
                let body: String = problem.lines().map(|l| format!("# {l}\n")).collect();
                match std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                {
                    Ok(mut f) => {
                        let _ = write!(f, "{body}{src}");
                        eprintln!(
                            "case {case}: {} -> {}",
                            problem.lines().next().unwrap_or(""),
                            path.display()
                        );
                    }
                    Err(e) => eprintln!("case {case}: {problem} (not written: {e})"),
                }
            }
        }
        if (case + 1) % 100_000 == 0 {
            eprintln!(
                "{} cases, {found} found, {:.0} s",
                case + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "seed {seed}: {cases} cases in {:.1} s: {parse_errors} parse errors, {invalid} invalid, {valid} valid; {found} problems found",
        started.elapsed().as_secs_f64()
    );
    if found > 0 {
        std::process::exit(1);
    }
}
