//! The grammar-aware kernel-text fuzzer with the simulator behind it:
//! `cargo run --release -p traces --example fuzz_text_sim -- [SEED] [CASES]`.
//!
//! Each case is a kernel from `isa::textgen` (corrupted in every other case), run
//! through the parser, the validator and the printer (`isa::textgen::check`); a kernel
//! that validates is then lowered and run for at most 20,000 cycles, one CTA, on the
//! h100 profile (b200 when it allocates tensor memory): `check` must accept only what
//! the simulator can lower, and the run must not panic. A case that breaks a promise
//! is written to `target/fuzz_text_sim/SEED-CASE.smk` (a new file), headed by the problem.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};

use isa::textgen::{Outcome, Rng, check, kernel, mutate};
use sim_core::{Profile, RunConfig, SimError, run};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(1);
    let cases: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    std::panic::set_hook(Box::new(|_| {}));
    let h100 = Profile::builtin("h100").expect("h100");
    let b200 = Profile::builtin("b200").expect("b200");
    let cfg = RunConfig {
        max_cycles: 20_000,
        max_ctas: Some(1),
        ..RunConfig::default()
    };
    let mut rng = Rng(seed);
    let (mut parse_errors, mut invalid, mut ran, mut found) = (0u64, 0u64, 0u64, 0u64);
    let started = std::time::Instant::now();
    for case in 0..cases {
        let mut src = kernel(&mut rng);
        if case % 2 == 1 {
            src = mutate(&src, &mut rng);
        }
        let problem = match check(&src) {
            Ok(Outcome::ParseError) => {
                parse_errors += 1;
                None
            }
            Ok(Outcome::Invalid(_)) => {
                invalid += 1;
                None
            }
            Ok(Outcome::Valid(k)) => {
                ran += 1;
                let profile = if k.launch.tmem_cols > 0 { &b200 } else { &h100 };
                match catch_unwind(AssertUnwindSafe(|| run(&k, profile, &cfg))) {
                    Err(_) => Some("the run panicked".to_string()),
                    Ok(Err(SimError::Invalid(m))) if m.starts_with("line ") => Some(format!(
                        "check accepts it but the simulator does not lower it: {m}"
                    )),
                    Ok(_) => None,
                }
            }
            Err(p) => Some(p),
        };
        if let Some(problem) = problem {
            found += 1;
            let dir = std::path::Path::new("target/fuzz_text_sim");
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
                    let first = problem.lines().next().unwrap_or("");
                    eprintln!("case {case}: {first} -> {}", path.display());
                }
                Err(e) => eprintln!("case {case}: {problem} (not written: {e})"),
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
        "seed {seed}: {cases} cases in {:.1} s: {parse_errors} parse errors, {invalid} invalid, {ran} valid and run; {found} problems found",
        started.elapsed().as_secs_f64()
    );
    if found > 0 {
        std::process::exit(1);
    }
}
