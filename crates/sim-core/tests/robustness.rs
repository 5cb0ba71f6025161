//! Bounded behaviour for inputs that once aborted or ran away (issue 29's engine items).

use sim_core::result::SimError;
use sim_core::{MAX_SIMULATED_WARPS, Profile, RunConfig, watchdog_cycles};

fn h100() -> Profile {
    Profile::builtin("h100").unwrap()
}

const TINY: &str = "kernel tiny\nlaunch cta_threads=32 regs=32 smem=0 grid=4294967295\nrole main warps=0..0\n  FADD R1, R2, R3\n  FADD R4, R5, R6\n  EXIT\n";

#[test]
fn a_grid_too_large_to_simulate_is_refused_with_max_ctas_suggested() {
    let k = isa::parse_kernel(TINY).unwrap();
    let t = std::time::Instant::now();
    let e = sim_core::run(&k, &h100(), &RunConfig::default()).unwrap_err();
    // (Refused before anything is allocated: well under a second, not 27 s and 7.9 GB.)
    assert!(t.elapsed().as_secs_f64() < 1.0);
    let SimError::Invalid(m) = &e else {
        panic!("{e}")
    };
    // 2^32 - 1 CTAs over 132 SMs: 32,537,632 on the busiest, one warp each.
    assert!(m.contains("the busiest SM runs 32537632 CTAs"), "{m}");
    assert!(
        m.contains(&format!("more than the {MAX_SIMULATED_WARPS}")),
        "{m}"
    );
    assert!(m.contains("--max-ctas"), "{m}");
    // With fewer CTAs simulated it runs, and the estimate covers the grid.
    let cfg = RunConfig {
        max_ctas: Some(8),
        ..Default::default()
    };
    let r = sim_core::run(&k, &h100(), &cfg).unwrap();
    assert_eq!(r.ctas_simulated, 8);
    assert_eq!(r.grid, u32::MAX);
}

#[test]
fn queue_depths_that_size_allocations_are_bounded() {
    for name in ["lsu_queue_depth", "mio_queue_depth", "tensor_queue_depth"] {
        let mut p = h100();
        let before = p.t.clone();
        let e = p.set(name, 4294967295.0).unwrap_err().to_string();
        assert!(e.contains("from 1 to 65536"), "{name}: {e}");
        assert!(p.t == before, "{name}: the profile changed");
        p.set(name, 65536.0).unwrap();
        assert!(p.set(name, 0.0).is_err());
    }
}

#[test]
fn the_kernel_sized_watchdog_lets_every_example_finish_with_room() {
    let p = h100();
    for path in [
        "examples/gemm_ws.smk",
        "examples/saxpy.smk",
        "examples/mbarrier_pingpong.smk",
        "examples/cp_async.smk",
        "examples/ffma_chain.smk",
        "crates/sim-core/benches/gemm.smk",
        "crates/sim-core/benches/chain.smk",
        "crates/sim-core/benches/coalesced.smk",
    ] {
        let src = std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
        let k = isa::parse_kernel(&src).unwrap();
        let cfg = RunConfig {
            max_ctas: Some(4),
            ..Default::default()
        };
        let w = watchdog_cycles(&k, &p, cfg.max_ctas).unwrap();
        let r = sim_core::run(
            &k,
            &p,
            &RunConfig {
                max_cycles: w,
                ..cfg
            },
        )
        .unwrap_or_else(|e| panic!("{path}: {e}"));
        // The run takes less than the bound before its margin of 64.
        assert!(
            r.cycles <= w / 64,
            "{path}: {} cycles, watchdog {w}",
            r.cycles
        );
    }
}

#[test]
fn the_watchdog_grows_with_the_loops_and_stops_a_runaway_run() {
    let p = h100();
    let looped = |n: u64| {
        isa::parse_kernel(&format!(
            "kernel k\nlaunch cta_threads=32 regs=32 grid=1\nrole main warps=0..0\n  loop i 0..{n}\n    loop j 0..10\n      FFMA R1, R1, R2, 0.5\n  EXIT\n"
        ))
        .unwrap()
    };
    let small = watchdog_cycles(&looped(1_000_000), &p, None).unwrap();
    let large = watchdog_cycles(&looped(2_000_000), &p, None).unwrap();
    // 10 million FFMAs and the EXIT, each at one worst latency, times 64; twice the
    // loop, 20 million and one.
    let worst = small / 64 / 10_000_001;
    assert_eq!(small, 10_000_001 * worst * 64);
    assert_eq!(large, 20_000_001 * worst * 64);
    assert!(worst > p.t.lat_hbm as u64);
    // A tiny kernel gets the floor.
    assert_eq!(watchdog_cycles(&looped(0), &p, None).unwrap(), 1_000_000);
    // A run given the small bound for the large kernel meets the watchdog, which names
    // the bound.
    let k = looped(1_000_000_000_000);
    let cfg = RunConfig {
        max_cycles: 100_000,
        ..Default::default()
    };
    let Err(SimError::Watchdog(r)) = sim_core::run(&k, &p, &cfg) else {
        panic!("no watchdog")
    };
    assert!(r.headline.contains("100000 cycles"), "{}", r.headline);
}
