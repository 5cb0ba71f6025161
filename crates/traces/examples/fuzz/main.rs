//! Fuzzes the engine with mutated kernels (see `check.rs` for what a case is and
//! checks). From the repository root:
//!
//! ```sh
//! cargo run --release -p traces --example fuzz -- [SEED] [CASES] [SECONDS] [--profile]
//! ```
//!
//! `--profile` leaves the kernels as they are and sets one to three profile parameters
//! to edge values instead, as `--set` would. A case that finds a problem is written to
//! `target/fuzz/` with the run's settings and the problems in comments at its top, and
//! the run exits with 1. (Overflow checks and debug assertions find more:
//! `CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true`.)

mod check;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use check::Rng;

fn main() -> ExitCode {
    let mut numbers = Vec::new();
    let mut profile_mode = false;
    for a in std::env::args().skip(1) {
        if a == "--profile" {
            profile_mode = true;
        } else if let Ok(n) = a.parse::<u64>() {
            numbers.push(n);
        } else {
            eprintln!("usage: fuzz [SEED] [CASES] [SECONDS] [--profile]  (`{a}` is not a number)");
            return ExitCode::from(2);
        }
    }
    let seed = numbers.first().copied().unwrap_or(1);
    let cases = numbers.get(1).copied().unwrap_or(2000);
    let limit = numbers.get(2).copied().map(std::time::Duration::from_secs);
    let out_dir = std::path::Path::new("target/fuzz");
    let corpus = check::corpus();
    let h100 = sim_core::Profile::builtin("h100").expect("built in");
    let b200 = sim_core::Profile::builtin("b200").expect("built in");
    // The problems are reported, not the panics' own messages as they happen.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed);
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut found = 0u64;
    let started = std::time::Instant::now();
    let mut ran = 0u64;
    for case in 0..cases {
        if limit.is_some_and(|l| started.elapsed() >= l) {
            break;
        }
        ran += 1;
        if case > 0 && case % 1000 == 0 {
            eprintln!(
                "{case}/{cases} cases, {found} with problems, {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
        let base = &corpus[rng.below(corpus.len())];
        let mut profile = if rng.below(2) == 0 {
            h100.clone()
        } else {
            b200.clone()
        };
        let (src, sets) = if profile_mode {
            match check::tweak_profile(&mut profile, &mut rng) {
                Ok(sets) => (base.clone(), sets),
                Err(problem) => {
                    found += 1;
                    println!("case {case}: {problem}");
                    continue;
                }
            }
        } else {
            (check::mutate(base, &corpus, &mut rng), Vec::new())
        };
        let mut args = String::new();
        let checked = match check::parse_and_validate(&src) {
            Ok(Some(k)) => {
                let cfg = check::config(&k, &mut rng, 300_000);
                args = check::config_args(&cfg);
                check::check(&k, &profile, &cfg, 60_000)
            }
            Ok(None) => {
                *outcomes.entry("invalid").or_default() += 1;
                continue;
            }
            Err(problem) => check::Checked {
                problems: vec![problem],
                outcome: "panic",
            },
        };
        *outcomes.entry(checked.outcome).or_default() += 1;
        if checked.problems.is_empty() {
            continue;
        }
        found += 1;
        let path = out_dir.join(format!("case-{seed}-{case}.smk"));
        let mut text = format!(
            "# smsim fuzz case {case} of seed {seed}: smsim run THIS --profile {}{} {args}\n",
            profile.name(),
            sets.iter()
                .map(|s| format!(" --set {s}"))
                .collect::<String>(),
        );
        for p in &checked.problems {
            text.push_str(&format!("# {p}\n"));
        }
        text.push_str(&src);
        let written = std::fs::create_dir_all(out_dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)?
                .write_all(text.as_bytes())
        });
        match written {
            Ok(()) => println!("{}: {}", path.display(), checked.problems.join("; ")),
            Err(e) => println!(
                "case {case} ({}; not written to {}: {e}):\n{text}",
                checked.problems.join("; "),
                path.display()
            ),
        }
    }
    let summary: Vec<String> = outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!(
        "seed {seed}: {ran} cases ({}), {found} with problems, in {:.0} s",
        summary.join(", "),
        started.elapsed().as_secs_f64()
    );
    if found == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
