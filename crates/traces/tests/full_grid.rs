//! The GEMM main loop on a full grid: the L2 is shared by every SM, so the schedules
//! only show their differences once clusters share tiles through TMA multicast.

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
fn with_multicast_ws_keeps_the_tensor_pipe_busy_on_a_full_grid_and_static_v1_does_not() {
    let ws = gemm("ws", 2);
    let v1 = gemm("static-v1", 2);
    assert!(
        ws.unit("tensor") >= 0.9,
        "ws tensor busy {}",
        ws.unit("tensor")
    );
    assert!(v1.unit("tensor") < ws.unit("tensor"));
    assert!(v1.cycles > ws.cycles);
}

#[test]
fn without_multicast_the_full_grid_is_bound_by_l2_bandwidth() {
    let shared = gemm("ws", 2);
    let alone = gemm("ws", 1);
    assert!(
        alone.unit("l2_bandwidth") > 0.95,
        "l2 busy {}",
        alone.unit("l2_bandwidth")
    );
    assert!(alone.cycles > shared.cycles);
    assert!(alone.memory.l2_bytes > shared.memory.l2_bytes);
}
