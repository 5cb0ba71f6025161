//! The GEMM main loop on a full grid: every SM shares the chip's L2 bandwidth, so
//! clusters that share a tile through TMA multicast move less data per SM and keep the
//! tensor pipe busier. (With the fitted h100 profile the full grid stays L2-bound even
//! then; the one-CTA tests in library.rs show the schedules' own differences.)

use sim_core::{Profile, RunConfig, RunResult, run};

fn gemm(schedule: &str, cluster: i64) -> RunResult {
    let k = traces::builtin_with(
        &format!("gemm-mainloop/{schedule}"),
        &[("CLUSTER".to_string(), cluster), ("K".to_string(), 2048)],
    )
    .unwrap();
    assert!(k.launch.grid >= 132, "the default problem fills the chip");
    let cfg = RunConfig {
        max_ctas: Some(1),
        ..RunConfig::default()
    };
    run(&k, &Profile::builtin("h100").unwrap(), &cfg).unwrap()
}

#[test]
fn multicast_moves_less_l2_data_per_sm_and_keeps_the_tensor_pipe_busier() {
    for schedule in ["ws", "static-v1"] {
        let shared = gemm(schedule, 2);
        let alone = gemm(schedule, 1);
        assert!(alone.memory.l2_bytes > shared.memory.l2_bytes, "{schedule}");
        assert!(alone.cycles > shared.cycles, "{schedule}");
        assert!(shared.unit("tensor") > alone.unit("tensor"), "{schedule}");
    }
}

#[test]
fn without_multicast_the_full_grid_is_bound_by_l2_bandwidth() {
    let alone = gemm("ws", 1);
    assert!(
        alone.unit("l2_bandwidth") > 0.95,
        "l2 busy {}",
        alone.unit("l2_bandwidth")
    );
    assert!(alone.unit("tensor") < 0.9);
}
