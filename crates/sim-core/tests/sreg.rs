//! Special-register reads (issue 25): S2R's result waits `lat_s2r`, S2UR's (and
//! `S2R.U`'s, the twins' S2UR into a vector register) `lat_s2r`'s uniform counterpart
//! `lat_s2ur`, each a scoreboard whatever the stall count says. The counts are derived
//! by hand from the windows data/gaps/sreg/ timed on an H100.

use sim_core::{Profile, RunConfig, run};

fn kernel(src: &str) -> isa::Kernel {
    isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)))
}

fn h100_with(sets: &[(&str, f64)]) -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    for (k, v) in sets {
        p.set(k, *v).unwrap();
    }
    p
}

fn cycles(src: &str, p: &Profile) -> u64 {
    run(&kernel(src), p, &RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .cycles
}

/// One warp: `n` steps of `step` (its lines), then EXIT.
fn chain(step: &str, n: u32) -> String {
    let mut s =
        String::from("kernel sreg\nlaunch cta_threads=32 regs=64 grid=1\nrole main warps=0..0\n");
    for _ in 0..n {
        s.push_str(step);
    }
    s.push_str("  EXIT\n");
    s
}

/// Cycles a step of `step` adds: 40 steps less 20, over 20.
fn per_step(step: &str, p: &Profile) -> u64 {
    let d = cycles(&chain(step, 40), p) - cycles(&chain(step, 20), p);
    assert_eq!(d % 20, 0, "{step}: {d} cycles over 20 steps");
    d / 20
}

#[test]
fn an_s2r_at_o0_steps_two_stall_counts_plus_lat_s2r() {
    // The -O0 window of data/gaps/sreg/: every instruction has stall count 15 and waits
    // for the one before it. A step is the read, its dependent add and a MOV: the add
    // issues lat_s2r after the read (more than the read's 15), the MOV 15 after the add,
    // the next read 15 after the MOV: lat_s2r + 30. The H100 measured 55 a step for
    // SR_CTAID.X and SR_CgaCtaId (lat_s2r 25), 53 for SR_TID.X.
    let step =
        "  S2R R7, SR_CTAID_X, stall=15\n  IADD3 R9, R9, R7, stall=15\n  MOV R8, 0x1, stall=15\n";
    assert_eq!(per_step(step, &Profile::builtin("h100").unwrap()), 55);
    for lat in [20.0, 25.0, 40.0] {
        let p = h100_with(&[("lat_s2r", lat)]);
        assert_eq!(per_step(step, &p), lat as u64 + 30, "lat_s2r {lat}");
    }
    // Below the stall count the count rules: 15 + 15 + 15.
    let p = h100_with(&[("lat_s2r", 10.0)]);
    assert_eq!(per_step(step, &p), 45);
}

#[test]
fn an_s2ur_window_at_o1_is_the_stall_counts_plus_lat_s2ur() {
    // The -O1 window of data/gaps/sreg/ (`k_cga_u1_k1`): a clock read (stall 1), NOP
    // (7), `S2UR UR6, SR_CgaCtaId` (2), the dependent `UIADD3` (5): 1 + 7 + L + 5, 44
    // cycles on the H100, L = 31. Per step here: NOP 1, NOP 7, S2UR, UIADD3 5.
    let step = "  NOP\n  NOP stall=7\n  S2UR UR6, SR_CgaCtaId, stall=2\n  UIADD3 UR7, UR6, UR7, URZ, stall=5\n";
    let p = Profile::builtin("h100").unwrap();
    assert_eq!(per_step(step, &p), 44);
    for lat in [20.0, 31.0, 50.0] {
        let p = h100_with(&[("lat_s2ur", lat)]);
        assert_eq!(per_step(step, &p), 1 + 7 + lat as u64 + 5, "lat_s2ur {lat}");
    }
}

#[test]
fn s2r_u_times_as_s2ur_and_s2r_as_s2r() {
    // The twins' S2UR into a vector register takes lat_s2ur, a plain S2R lat_s2r: a
    // dependent add behind each, apart by exactly their difference.
    let p = h100_with(&[("lat_s2r", 25.0), ("lat_s2ur", 31.0)]);
    let s2r = "  S2R R6, SR_CgaCtaId\n  IADD3 R7, R6, R7, stall=2\n";
    let s2ru = "  S2R.U R6, SR_CgaCtaId\n  IADD3 R7, R6, R7, stall=2\n";
    assert_eq!(per_step(s2r, &p), 25 + 2);
    assert_eq!(per_step(s2ru, &p), 31 + 2);
}
