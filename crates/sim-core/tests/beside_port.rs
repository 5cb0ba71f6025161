//! The math pipes beside a busy tensor core (`*_port_beside_tensor_cycles`): while its
//! sub-partition's tensor core has an MMA to run, a math-pipe warp-instruction holds every
//! math pipe of the sub-partition for its pipe's port time, so that the pipes take turns
//! instead of overlapping (measured on the H100: FA3's softmax beside two warpgroups of
//! wgmma takes 1414 cycles against 699 alone; crates/traces/seeds/data/beside). Cycle
//! counts derived by hand from the profile's intervals.

use sim_core::{Profile, RunConfig, RunResult, run};

fn sim(src: &str, p: &Profile) -> RunResult {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// A warpgroup (warps 0..3) issuing 16 HGMMA.64x128x16 (1024 tensor cycles) when `mma`,
/// and warps 4..7 that wait out a chain of three FFMAs (so that the HGMMAs are booked)
/// and then issue `body`.
fn kernel(mma: bool, body: &str) -> String {
    let mut src = String::from(
        "kernel k\nlaunch cta_threads=256 regs=168 smem=65536 grid=1\nshared sA size=32768\nshared sB size=32768\nrole mma warps=0..3\n",
    );
    if mma {
        src.push_str("  WARPGROUP.ARRIVE\n");
        for _ in 0..15 {
            src.push_str("  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0]\n");
        }
        src.push_str(
            "  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0], gsb0\n  WARPGROUP.DEPBAR.LE gsb0, 0\n",
        );
    }
    src.push_str("  EXIT\nrole math warps=4..7\n");
    for _ in 0..3 {
        src.push_str("  FFMA R1, R1, R2, R3\n");
    }
    src.push_str(body);
    src.push_str("  EXIT\n");
    src
}

/// When warp 4 (sub-partition 0, beside warp 0 of the warpgroup) finishes, on the h100
/// profile with `sets` applied.
fn finished(mma: bool, body: &str, sets: &[(&str, f64)]) -> u64 {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in sets {
        p.set(k, *v).unwrap();
    }
    let r = sim(&kernel(mma, body), &p);
    r.warps.iter().find(|w| w.warp == 4).unwrap().finished
}

/// 16 independent FFMAs (two register operands, no bank conflict): the FMA pipe's
/// interval is one cycle, so without the port they issue on 16 consecutive cycles; with
/// an FMA port time of k beside the busy tensor core each holds the pipes k cycles, and
/// the last issues 15 x (k - 1) later. Without the
/// HGMMAs the tensor core is idle and the port changes nothing.
#[test]
fn ffmas_beside_a_busy_tensor_core_take_turns_at_the_port() {
    // (The first reads the chain's result: every variant starts it at the same cycle.)
    let body: String = (0..16)
        .map(|i| {
            let (a, b) = if i == 0 { (1, 2) } else { (2, 5) };
            format!("  FFMA R{}, R{a}, R{b}, 0.5\n", 100 + i)
        })
        .collect();
    let at = |mma: bool, k: f64| finished(mma, &body, &[("fma_port_beside_tensor_cycles", k)]);
    let h = Profile::builtin("h100").unwrap();
    assert_eq!(h.t.fma_port_beside_tensor_cycles, 2.0);
    assert_eq!(h.t.fma_issue_interval, 1.0);
    assert_eq!(at(true, 2.0) - at(true, 0.0), 15);
    assert_eq!(at(true, 3.0) - at(true, 0.0), 30);
    assert_eq!(at(false, 3.0), at(false, 0.0));
}

/// 8 pairs of an independent MUFU.EX2 and FFMA. Beside the busy tensor core MUFU issues
/// every 8 + 3 = 11 cycles (`mufu_beside_tensor_cycles`). Without the port each FFMA
/// issues the cycle after its MUFU, which paces the pairs: the last FFMA at 7 x 11 + 1.
/// With a MUFU port time m and the FMA's f, the FFMA waits m cycles after its MUFU and
/// the next MUFU max(11, m + f): at m = 4, f = 2 (the profile's) only the last FFMA
/// moves, by m - 1 = 3; at m = 10 each pair takes 12, and the last FFMA issues
/// 7 x 12 + 10, 16 later than without the port.
#[test]
fn mufu_and_ffma_beside_a_busy_tensor_core_stop_overlapping() {
    // (The first MUFU reads the chain's result: every variant starts it at the same cycle.)
    let body: String = (0..8)
        .map(|i| {
            let a = if i == 0 { 1 } else { 2 };
            format!(
                "  MUFU.EX2 R{}, R{a}\n  FFMA R{}, R2, R3, 0.5\n",
                100 + i,
                120 + i
            )
        })
        .collect();
    let at = |mma: bool, m: f64, f: f64| {
        finished(
            mma,
            &body,
            &[
                ("mufu_port_beside_tensor_cycles", m),
                ("fma_port_beside_tensor_cycles", f),
            ],
        )
    };
    let h = Profile::builtin("h100").unwrap();
    assert_eq!(h.t.mufu_port_beside_tensor_cycles, 4.0);
    assert_eq!(
        h.t.mufu_issue_interval + h.t.mufu_beside_tensor_cycles,
        11.0
    );
    let none = at(true, 0.0, 0.0);
    assert_eq!(at(true, 4.0, 2.0) - none, 3);
    assert_eq!(at(true, 10.0, 2.0) - none, 16);
    assert_eq!(at(false, 10.0, 2.0), at(false, 0.0, 0.0));
}
