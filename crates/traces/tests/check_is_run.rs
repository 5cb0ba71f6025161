//! `smsim check` accepts exactly what `smsim run` can lower (issue 29): a kernel that
//! validates never meets a lowering error in the simulator. The limits at their edges
//! by hand, then generated kernels (`isa::textgen`); `cargo run --release -p traces
//! --example fuzz_text_sim` runs many more.

use isa::textgen::{Outcome, Rng, check, kernel, mutate};
use sim_core::{Profile, RunConfig, SimError, run};

/// The run's outcome when the simulator's lowering rejects the kernel, else `None`.
fn lowering_error(k: &isa::Kernel, profile: &Profile) -> Option<String> {
    let cfg = RunConfig {
        max_cycles: 20_000,
        max_ctas: Some(1),
        ..RunConfig::default()
    };
    match run(k, profile, &cfg) {
        // The lowering's errors are positioned: `line L:C: ...`.
        Err(SimError::Invalid(m)) if m.starts_with("line ") => Some(m),
        _ => None,
    }
}

fn valid(src: &str) -> isa::Kernel {
    let k = isa::parse_kernel(src).expect("parses");
    let d = isa::validate(&k);
    assert!(d.is_empty(), "{d:?}");
    k
}

#[test]
fn the_limits_check_enforces_are_the_simulator_s() {
    let h100 = Profile::builtin("h100").unwrap();
    // Loops nested 8 deep (the most the simulator runs) pass both.
    let mut src =
        String::from("kernel k\nlaunch cta_threads=32 regs=32 grid=1\nrole r warps=0..0\n");
    for d in 0..8 {
        src.push_str(&format!("{}loop v{d} 0..2\n", "  ".repeat(d + 1)));
    }
    src.push_str(&format!("{}FFMA R1, R2, R3, R4\n", "  ".repeat(9)));
    assert_eq!(lowering_error(&valid(&src), &h100), None);
    // An address that holds 16 values pending (the most the simulator evaluates).
    let right = format!("{}lane{}", "lane + (".repeat(15), ")".repeat(15));
    let src = format!(
        "kernel k\nlaunch cta_threads=32 regs=32 grid=1\nbuffer A size=4096\nrole r warps=0..0\n  LDG.E R0, A[{right}]\n"
    );
    assert_eq!(lowering_error(&valid(&src), &h100), None);
}

#[test]
fn generated_kernels_that_validate_lower() {
    let h100 = Profile::builtin("h100").unwrap();
    let b200 = Profile::builtin("b200").unwrap();
    let mut rng = Rng(29);
    let mut ran = 0;
    for case in 0..400 {
        let mut src = kernel(&mut rng);
        if case % 4 == 3 {
            src = mutate(&src, &mut rng);
        }
        let Ok(Outcome::Valid(k)) = check(&src) else {
            continue;
        };
        let profile = if k.launch.tmem_cols > 0 { &b200 } else { &h100 };
        if let Some(m) = lowering_error(&k, profile) {
            panic!("case {case}: check accepts it but run does not: {m}\n{src}");
        }
        ran += 1;
    }
    assert!(ran >= 10, "only {ran} valid kernels");
}
