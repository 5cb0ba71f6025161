//! The grammar-aware text fuzzer, bounded for CI: generated kernels, and corrupted ones,
//! never make the parser or the validator panic, get diagnostics inside the text, and
//! print back to the same kernel. (`cargo run --release -p isa --example fuzz_text --
//! SEED CASES` runs many more.)

use isa::textgen::{Outcome, Rng, check, kernel, mutate};

#[test]
fn generated_kernel_text_keeps_the_parser_s_and_validator_s_promises() {
    let mut rng = Rng(2026);
    let (mut parse_errors, mut invalid, mut valid) = (0, 0, 0);
    for case in 0..600 {
        let mut src = kernel(&mut rng);
        if case % 2 == 1 {
            src = mutate(&src, &mut rng);
        }
        match check(&src) {
            Ok(Outcome::ParseError) => parse_errors += 1,
            Ok(Outcome::Invalid(_)) => invalid += 1,
            Ok(Outcome::Valid(_)) => valid += 1,
            Err(problem) => panic!("case {case}: {problem}\n--- text ---\n{src}"),
        }
    }
    // Each path is exercised: the parser's errors, the validator's, and valid kernels.
    assert!(parse_errors > 30, "{parse_errors} parse errors");
    assert!(invalid > 100, "{invalid} invalid");
    assert!(valid > 5, "{valid} valid");
}
