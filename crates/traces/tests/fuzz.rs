//! Two hundred cases of the `fuzz` example, every test run: mutated kernels never make
//! the engine panic, and a run that succeeds keeps its accounting, the same result with
//! a sink and without fast-forward, and a deadlock's report without fast-forward. (The
//! example runs many more: `cargo run --release -p traces --example fuzz -- SEED CASES`.)

#[path = "../examples/fuzz/check.rs"]
mod check;

use check::Rng;

fn cases(seed: u64, n: usize, profile_mode: bool) {
    let corpus = check::corpus();
    let h100 = sim_core::Profile::builtin("h100").unwrap();
    let b200 = sim_core::Profile::builtin("b200").unwrap();
    let mut rng = Rng(seed);
    let mut ran = 0;
    for case in 0..n {
        let base = &corpus[rng.below(corpus.len())];
        let mut profile = if rng.below(2) == 0 {
            h100.clone()
        } else {
            b200.clone()
        };
        let src = if profile_mode {
            let sets = check::tweak_profile(&mut profile, &mut rng);
            assert!(sets.is_ok(), "case {case}: {}", sets.unwrap_err());
            base.clone()
        } else {
            check::mutate(base, &corpus, &mut rng)
        };
        let Some(k) = check::parse_and_validate(&src).unwrap_or_else(|p| panic!("{p}\n{src}"))
        else {
            continue;
        };
        // (Warpgroup MMAs are refused on Blackwell before the run: such a kernel runs on
        // the H100 here, so that it exercises the engine.)
        if !profile_mode && profile.t.tmem_cols > 0.0 && src.contains("WARPGROUP") {
            profile = h100.clone();
        }
        // (Shorter than the example's 300,000 cycles: the test build is unoptimised.)
        let cfg = check::config(&k, &mut rng, 150_000);
        let checked = check::check(&k, &profile, &cfg, 150_000);
        assert!(
            checked.problems.is_empty(),
            "case {case} of seed {seed} (--profile {} {}): {:?}\n{src}",
            profile.name(),
            check::config_args(&cfg),
            checked.problems
        );
        ran += u32::from(checked.outcome == "ran");
    }
    // Many cases run to the end (others are invalid, deadlock, fault or outlast the
    // cycles given): the checks of a finished run are exercised.
    assert!(
        ran as usize > n / 5,
        "only {ran} of {n} cases ran to the end"
    );
}

#[test]
fn mutated_kernels_never_panic_the_engine_and_keep_its_promises() {
    cases(1, 150, false);
}

#[test]
fn edge_profile_values_are_refused_or_run_without_panics() {
    cases(2, 50, true);
}
