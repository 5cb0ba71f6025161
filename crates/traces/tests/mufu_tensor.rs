//! The H100 microbenchmarks of MUFU, FMA and ALU work beside a busy tensor core
//! (`seeds/data/mufu-tensor`) against the engine: the simulated kernels
//! (`seeds/data/mufu-tensor/sim/*.smk`, the CUDA variants' instruction counts) on the
//! h100 profile, each against the figure its variant measured (`summary.txt`).

use std::collections::HashMap;
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds/data/mufu-tensor")
}

/// The measured summary: variant -> (span, cycles per wgmma, cycles per other
/// instruction per sub-partition, cycles per iteration), one SM, the median of 3 runs.
fn measured() -> HashMap<String, [f64; 4]> {
    let text = std::fs::read_to_string(data().join("run-20261127T0808Z/summary.txt")).unwrap();
    let mut m = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 6 {
            continue;
        }
        let v: Vec<f64> = f[1..5].iter().filter_map(|x| x.parse().ok()).collect();
        if v.len() == 4 {
            m.insert(f[0].to_string(), [v[0], v[1], v[2], v[3]]);
        }
    }
    m
}

/// Simulated cycles of `sim/<name>.smk` on the h100 profile.
fn simulate(name: &str) -> u64 {
    let src = std::fs::read_to_string(data().join(format!("sim/{name}.smk"))).unwrap();
    let k = isa::parse_kernel(&src).unwrap();
    assert!(isa::validate(&k).is_empty(), "{name}.smk is invalid");
    let p = sim_core::Profile::builtin("h100").unwrap();
    sim_core::run(&k, &p, &sim_core::RunConfig::default())
        .unwrap()
        .cycles
}

fn within(sim: f64, real: f64, tol: f64, what: &str) {
    let e = sim / real - 1.0;
    assert!(
        e.abs() <= tol,
        "{what}: smsim {sim:.1} against {real:.1} measured ({:+.1}%, allowed {:.0}%)",
        100.0 * e,
        100.0 * tol
    );
}

#[test]
fn the_tensor_core_alone_runs_at_the_measured_rate() {
    let m = measured();
    // Two warpgroups, 2048 iterations of four HGMMA.64x128x16.
    let per_wgmma = simulate("t2") as f64 / (2.0 * 2048.0 * 4.0);
    within(per_wgmma, m["t2"][1], 0.01, "t2: cycles per wgmma");
}

#[test]
fn mufu_beside_the_tensor_core_costs_it_nothing() {
    let m = measured();
    // The tensor loop outlasts the MUFU loop: the span is the tensor loop's, unslowed.
    within(
        simulate("t2_m1_tlong") as f64,
        m["t2+m1.tlong"][0],
        0.01,
        "t2+m1.tlong: span",
    );
}

#[test]
fn fa3s_consumer_step_costs_tensor_time_plus_its_fma_instructions() {
    let m = measured();
    // Two warpgroups, 512 steps: tensor time (2048 cycles a step) and one cycle of it
    // per FMA-pipe instruction; without `fma_tensor_cycles` the step is tensor-bound.
    let step = simulate("sm2wg") as f64 / 512.0;
    within(step, m["sm2wg"][3], 0.03, "sm2wg: cycles per step");
    assert!(
        step > 1.1 * m["fa2wg"][3],
        "the softmax's FMA work must cost tensor time"
    );
}
