//! The simulator's own speed: simulated SM-cycles per second on a GEMM-like main loop
//! (mostly waits that fast-forward skips), warp-instructions per second on a 32-warp
//! latency-bound load chain, on 32 warps of coalesced per-lane loads streaming from
//! HBM, and on a 32-warp issue-bound FFMA loop (every waiting warp looked at every
//! cycle: the case fast-forward cannot skip). No sink attached.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_core::{Profile, RunConfig, RunResult, run};

/// A producer warp and two consumer warpgroups over a 4-stage TMA ring, 512 iterations.
const GEMM: &str = include_str!("gemm.smk");

/// 32 warps each chasing loads through a 4 MiB (L2) footprint, with one dependent FFMA.
const CHAIN: &str = include_str!("chain.smk");

/// The chain's loads made per-lane and coalesced (`lane * 4`: each warp reads a whole
/// line per load), streaming through 8 MiB: the common form of a real kernel's loads.
const COALESCED: &str = include_str!("coalesced.smk");

/// 32 warps each running a chain of dependent FFMAs: eight per scheduler compete for its
/// issue slot every cycle.
const ISSUE: &str = include_str!("issue.smk");

/// What a benchmark's throughput counts, from one run's result.
type Work = fn(&RunResult) -> u64;

fn bench(c: &mut Criterion) {
    let p = Profile::builtin("h100").unwrap();
    let cfg = RunConfig::default();
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);

    // Each kernel's throughput is counted in what its target is set in (SM-cycles for
    // the gemm loop, warp-instructions for the others) first; the two kernels issue 3
    // sets targets for are also counted in the other unit (criterion keeps one unit per
    // benchmark: those two are timed twice).
    let (cycles, instructions): (Work, Work) = (|r| r.cycles, |r| r.instructions);
    let kernels = [
        ("gemm_mainloop_512/sm_cycles", GEMM, cycles),
        ("load_chain_32_warps/warp_instructions", CHAIN, instructions),
        ("gemm_mainloop_512/warp_instructions", GEMM, instructions),
        ("load_chain_32_warps/sm_cycles", CHAIN, cycles),
        (
            "coalesced_chain_32_warps/warp_instructions",
            COALESCED,
            instructions,
        ),
        (
            "issue_bound_32_warps/warp_instructions",
            ISSUE,
            instructions,
        ),
    ];
    for (name, src, work) in kernels {
        let k = isa::parse_kernel(src).unwrap();
        g.throughput(Throughput::Elements(work(&run(&k, &p, &cfg).unwrap())));
        g.bench_function(name, |b| b.iter(|| run(&k, &p, &cfg).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
