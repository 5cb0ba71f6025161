//! The constant loads, conversions and proxy fence of the TMA-streaming loops (issue
//! 25), each against a hand-derived cycle count: LDC's result waits for `lat_ldc` (a
//! scoreboard, whatever the stall count says), where ULDC's is the ALU's fixed latency;
//! I2F and F2I take `lat_convert`, MUFU `lat_mufu`; each half of the proxy fence holds
//! the warp `lat_fence`.

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
        String::from("kernel chain\nlaunch cta_threads=32 regs=32 grid=1\nrole main warps=0..0\n");
    for _ in 0..n {
        s.push_str(step);
    }
    s.push_str("  EXIT\n");
    s
}

#[test]
fn a_dependent_constant_load_chain_steps_lat_ldc_plus_the_add_stall() {
    // gap.const.ldc_chain's SASS: `LDC R7, c[0x3][R9]` (stall 2), then the dependent
    // `IADD3 R9, R7, R0` (stall 6). The add issues lat_ldc after the load (the
    // scoreboard: the load's stall count of 2 does not cover it), the next load 6 after
    // the add: a step is lat_ldc + 6, as the GPU's 34.46 - 6 = 28.5 says.
    let step = "  LDC R7, R9, stall=2\n  IADD3 R9, R7, R0, stall=6\n";
    for lat in [10.0, 28.0, 50.0] {
        let p = h100_with(&[("lat_ldc", lat)]);
        let slope = cycles(&chain(step, 40), &p) - cycles(&chain(step, 20), &p);
        assert_eq!(slope, 20 * (lat as u64 + 6), "lat_ldc {lat}");
    }
}

#[test]
fn a_constant_load_by_offset_waits_the_same_and_uldc_waits_the_alu() {
    // `LDC R6, 0x3c0` (the streaming loops' trip count) then `ISETP` on it: lat_ldc.
    // `ULDC UR6, 0x3c0` then `UIADD3` on it: the ALU's fixed latency, as ptxas's control
    // codes say (no scoreboard on ULDC).
    let p = h100_with(&[("lat_ldc", 28.0)]);
    let ldc = "  LDC R6, 0x3c0\n  ISETP.NE.AND P0, PT, R6, RZ, PT\n";
    let slope = cycles(&chain(ldc, 40), &p) - cycles(&chain(ldc, 20), &p);
    assert_eq!(slope, 20 * 28 + 20, "LDC then its consumer one issue later");
    let uldc = "  ULDC UR6, 0x3c0\n  UIADD3 UR7, UR6, URZ, URZ\n";
    let alu = p.t.lat_alu as u64;
    let slope = cycles(&chain(uldc, 40), &p) - cycles(&chain(uldc, 20), &p);
    assert_eq!(slope, 20 * (alu + 1));
}

#[test]
fn the_proxy_fence_after_stores_holds_the_warp_lat_fence_at_each_half() {
    // `fence.proxy.async.shared::cta` compiles to MEMBAR.ALL.CTA; FENCE.VIEW.ASYNC.S
    // (the twins' MEMBAR.CTA; FENCE.PROXY.ASYNC): each holds the warp lat_fence, so a
    // pair per step costs 2 x lat_fence (gap.const.fence: 18 cycles over STS alone
    // with the SASS's stall counts of 6 and 2, which lat_fence = 15 reproduces).
    let step = "  MEMBAR.CTA\n  FENCE.PROXY.ASYNC\n";
    for lat in [10.0, 15.0, 30.0] {
        let p = h100_with(&[("lat_fence", lat)]);
        let slope = cycles(&chain(step, 40), &p) - cycles(&chain(step, 20), &p);
        assert_eq!(slope, 20 * 2 * lat as u64, "lat_fence {lat}");
    }
}

#[test]
fn conversions_wait_lat_convert_and_mufu_lat_mufu() {
    // A chain I2F -> MUFU.RCP -> F2I, each reading the one before: a step is
    // lat_convert + lat_mufu + lat_convert (the division's reciprocal in
    // gap.const.div_chain, where the conversions measure 4 cycles over MUFU's 17).
    let step = "  I2F R2, R4\n  MUFU.RCP R3, R2\n  F2I R4, R3\n";
    for (conv, mufu) in [(17.0, 17.0), (21.0, 17.0), (30.0, 10.0)] {
        let p = h100_with(&[("lat_convert", conv), ("lat_mufu", mufu)]);
        let slope = cycles(&chain(step, 40), &p) - cycles(&chain(step, 20), &p);
        assert_eq!(slope, 20 * (2 * conv as u64 + mufu as u64), "{conv} {mufu}");
    }
}
