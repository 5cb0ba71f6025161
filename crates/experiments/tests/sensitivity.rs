//! Sensitivity against hand-derived effects on a dependent FFMA chain.

use std::path::Path;

use experiments::sensitivity::{self, Setup};
use sim_core::{Profile, RunConfig};

fn chain() -> isa::Kernel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ffma_chain.smk");
    experiments::plan::load_kernel_file(&path, "ffma_chain.smk").unwrap()
}

#[test]
fn a_dependent_chain_moves_with_the_fma_latency_alone() {
    let profile = Profile::builtin("h100").unwrap();
    let base_cycles = sim_core::run(&chain(), &profile, &RunConfig::default())
        .unwrap()
        .cycles as f64;
    let s = sensitivity::run(&Setup {
        kernel: chain(),
        name: "ffma_chain".into(),
        profile,
        config: RunConfig::default(),
        seeds: vec![1],
        delta: 0.1,
        metric: "cycles".into(),
        jobs: 2,
    })
    .unwrap();
    assert_eq!(s.base, base_cycles);
    assert_eq!(s.noise_pct, 0.0);
    // lat_fma 4 moves to 3 and 5 (10% of a whole 4 rounds back to 4, so one step): each
    // of the 1,023 dependences between the chain's 1,024 FFMAs waits one cycle less or
    // more.
    let fma = s.effects.iter().find(|e| e.parameter == "lat_fma").unwrap();
    assert_eq!(fma.tried, (3.0, 5.0));
    let step = 1023.0 / base_cycles * 100.0;
    assert!((fma.change.0.unwrap() + step).abs() < 1e-9, "{fma:?}");
    assert!((fma.change.1.unwrap() - step).abs() < 1e-9, "{fma:?}");
    assert_eq!(s.effects[0].parameter, "lat_fma");
    // Cycles do not depend on the clock, nor on memory the kernel never touches.
    for p in ["clock_mhz", "lat_hbm", "lat_l2_near"] {
        assert!(
            s.unmoved.iter().any(|u| u == p),
            "{p} moved: {:?}",
            s.effects
        );
    }
    let t = s.tornado(5, 0.1);
    assert_eq!(t.rows[0].0, "lat_fma");
    assert!(t.title.contains("±10%"), "{}", t.title);
    // The clock does move the time in µs: 1/0.9 and 1/1.1 of it (an FFMA chain issues no
    // tensor-pipe MMA: it runs at the light clock).
    let s = sensitivity::run(&Setup {
        kernel: chain(),
        name: "ffma_chain".into(),
        profile: Profile::builtin("h100").unwrap(),
        config: RunConfig::default(),
        seeds: vec![1],
        delta: 0.1,
        metric: "time_us".into(),
        jobs: 1,
    })
    .unwrap();
    let clock = s
        .effects
        .iter()
        .find(|e| e.parameter == "clock_mhz_light")
        .unwrap();
    assert!((clock.change.0.unwrap() - (1.0 / 0.9 - 1.0) * 100.0).abs() < 1e-9);
    assert!((clock.change.1.unwrap() - (1.0 / 1.1 - 1.0) * 100.0).abs() < 1e-9);
}
