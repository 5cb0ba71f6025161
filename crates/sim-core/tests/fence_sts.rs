//! A CTA-scope fence waits for the warp's shared stores to be written (issue 25, the
//! TMA-streaming twins). On the H100 `fence.proxy.async` after a warp's STS.128
//! (`MEMBAR.ALL.CTA; FENCE.VIEW.ASYNC.S`) costs 18 cycles over the STS alone
//! (`gap.const.fence`), but where four warps store a tile's 32 KiB together the STS and
//! the fence take 323 to 330 cycles (`data/gaps/stamp`, the warp-specialized 64x128
//! kernel: about 100 B/clk, the shared-memory rate), where the engine's warps issued
//! their STS in 60 cycles and left the fence 15 later.

use sim_core::{Profile, RunConfig, RunResult, run};

fn sim(src: &str, p: &Profile) -> RunResult {
    let k = isa::parse_kernel(src).unwrap_or_else(|e| panic!("{}", e.render("test", src)));
    run(&k, p, &RunConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// `warps` warps (one a sub-partition) each store `n` STS.128 (4 wavefronts, 512 B)
/// to their own part of shared memory, then fence.
fn src(warps: u32, n: u32, fence: &str) -> String {
    format!(
        "kernel f\nlaunch cta_threads={} regs=32 smem=65536 grid=1\nshared s size=65536\nparam N={n}\n\
         role main warps=0..{}\n  loop i 0..N\n    STS.128 s[(warp * N + i) * 512 + lane * 16], R4\n  {fence}\n  EXIT\n",
        warps * 32,
        warps - 1
    )
}

fn profile() -> Profile {
    let mut p = Profile::builtin("h100").unwrap();
    p.set("smem_bytes_per_clk", 128.0).unwrap();
    p
}

#[test]
fn a_fence_waits_until_the_warps_stores_are_written() {
    let p = profile();
    // 4 warps x 16 STS.128 = 32 KiB through the crossbar at 128 B/clk: 256 cycles from
    // the first STS. The warp whose last STS goes through last leaves the fence when it
    // is written, not `lat_fence` after the fence issues.
    let r = sim(&src(4, 16, "MEMBAR.CTA"), &p);
    let start = r.warps.iter().map(|w| w.started).min().unwrap();
    let last = r.warps.iter().map(|w| w.finished).max().unwrap();
    let crossbar = 4.0 * 16.0 * 512.0 / 128.0;
    let span = (last - start) as f64;
    assert!(span >= crossbar, "{span} against {crossbar}");
    assert!(span <= crossbar + p.t.lat_fence + 8.0, "{span}");
    // The proxy fence alone waits the same way.
    let q = sim(&src(4, 16, "FENCE.PROXY.ASYNC"), &p);
    assert_eq!(q.warps.iter().map(|w| w.finished).max(), Some(last));
    // Without a fence the warps leave as soon as their STS have issued.
    let none = sim(&src(4, 16, "NOP"), &p);
    let end = none.warps.iter().map(|w| w.finished).max().unwrap();
    assert!(((end - start) as f64) < crossbar - 32.0, "{}", end - start);
}

#[test]
fn one_store_then_a_fence_costs_lat_fence() {
    // One STS.128 is written 4 cycles after it issues, before `lat_fence` runs out: the
    // fence costs what `gap.const.fence` measured it to (lat_fence after its issue).
    let p = profile();
    let with = sim(&src(1, 1, "MEMBAR.CTA"), &p).warps[0].finished;
    let without = sim(&src(1, 1, "NOP"), &p).warps[0].finished;
    assert_eq!(with - without, p.t.lat_fence as u64 - 1);
}
