//! Runs the grammar-aware kernel-text fuzzer for as long as asked:
//! `cargo run --release -p isa --example fuzz_text -- [SEED] [CASES] [SECONDS]`.
//!
//! Each case is a generated kernel, corrupted in every other case, run through the
//! parser, the validator, the diagnostics' rendering and the printer
//! (`isa::textgen::fuzz`, the loop `fuzz_text_sim` shares). A case that breaks a promise
//! is written to `target/fuzz_text/SEED-CASE.smk` (a new file) with the problem in its
//! first lines, and counted. Every 10,000 cases it says how far it got on stderr; at the
//! end it prints the cases run, parse errors, invalid and valid kernels, and problems
//! found (exit status 1 when there is one).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = match isa::textgen::FuzzRun::from_args(&args, 100_000, "target/fuzz_text") {
        Ok(r) => r,
        Err(e) => {
            eprintln!("usage: fuzz_text [SEED] [CASES] [SECONDS]: {e}");
            std::process::exit(2);
        }
    };
    // A panic is a finding, reported by `check`; keep its message off the terminal.
    std::panic::set_hook(Box::new(|_| {}));
    let started = std::time::Instant::now();
    let t = isa::textgen::fuzz(&run, |_| None);
    println!(
        "fuzz_text seed {}: {}",
        run.seed,
        t.line(started.elapsed().as_secs_f64())
    );
    if t.found > 0 {
        std::process::exit(1);
    }
}
