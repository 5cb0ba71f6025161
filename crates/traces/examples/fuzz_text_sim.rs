//! The grammar-aware kernel-text fuzzer with the simulator behind it:
//! `cargo run --release -p traces --example fuzz_text_sim -- [SEED] [CASES] [SECONDS]`.
//!
//! Each case is a kernel from `isa::textgen` (corrupted in every other case), run
//! through the parser, the validator and the printer (`isa::textgen::fuzz`, the loop
//! `fuzz_text` shares); a kernel that validates is then lowered and run with the race
//! checker on for at most 20,000 cycles, one CTA, on the h100 profile (b200 when it
//! allocates tensor memory): `check` must accept only what the simulator can lower, and
//! the run must not panic. A case that breaks a promise is written to
//! `target/fuzz_text_sim/SEED-CASE.smk` (a new file), headed by the problem.

use std::panic::{AssertUnwindSafe, catch_unwind};

use sim_core::races::RaceCheck;
use sim_core::sink::NoSink;
use sim_core::{Profile, RunConfig, SimError};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = match isa::textgen::FuzzRun::from_args(&args, 100_000, "target/fuzz_text_sim") {
        Ok(r) => r,
        Err(e) => {
            eprintln!("usage: fuzz_text_sim [SEED] [CASES] [SECONDS]: {e}");
            std::process::exit(2);
        }
    };
    std::panic::set_hook(Box::new(|_| {}));
    let h100 = Profile::builtin("h100").expect("h100");
    let b200 = Profile::builtin("b200").expect("b200");
    let cfg = RunConfig {
        max_cycles: 20_000,
        max_ctas: Some(1),
        ..RunConfig::default()
    };
    let started = std::time::Instant::now();
    let t = isa::textgen::fuzz(&run, |k| {
        let profile = if k.launch.tmem_cols > 0 { &b200 } else { &h100 };
        let mut sink = RaceCheck::new(NoSink, k);
        let go = || sim_core::run_with(k, profile, &cfg, cfg.policy.build(), &mut sink);
        match catch_unwind(AssertUnwindSafe(go)) {
            Err(_) => Some("the run panicked".to_string()),
            Ok(Err(SimError::Invalid(m))) if m.starts_with("line ") => Some(format!(
                "check accepts it but the simulator does not lower it: {m}"
            )),
            Ok(_) => None,
        }
    });
    println!(
        "fuzz_text_sim seed {}: {}",
        run.seed,
        t.line(started.elapsed().as_secs_f64())
    );
    if t.found > 0 {
        std::process::exit(1);
    }
}
