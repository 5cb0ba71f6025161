//! The simulator's own speed: simulated SM-cycles per second on a GEMM-like main loop
//! (mostly waits that fast-forward skips), warp-instructions per second on a 32-warp
//! latency-bound load chain, on 32 warps of coalesced per-lane loads streaming from
//! HBM, and on a 32-warp issue-bound FFMA loop (every waiting warp looked at every
//! cycle: the case fast-forward cannot skip). No sink attached.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_core::{Profile, RunConfig, run};

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

fn bench(c: &mut Criterion) {
    let p = Profile::builtin("h100").unwrap();
    let cfg = RunConfig::default();
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);

    let gemm = isa::parse_kernel(GEMM).unwrap();
    let cycles = run(&gemm, &p, &cfg).unwrap().cycles;
    g.throughput(Throughput::Elements(cycles));
    g.bench_function("gemm_mainloop_512/sm_cycles", |b| {
        b.iter(|| run(&gemm, &p, &cfg).unwrap())
    });

    let chain = isa::parse_kernel(CHAIN).unwrap();
    let instrs = run(&chain, &p, &cfg).unwrap().instructions;
    g.throughput(Throughput::Elements(instrs));
    g.bench_function("load_chain_32_warps/warp_instructions", |b| {
        b.iter(|| run(&chain, &p, &cfg).unwrap())
    });

    let coalesced = isa::parse_kernel(COALESCED).unwrap();
    let instrs = run(&coalesced, &p, &cfg).unwrap().instructions;
    g.throughput(Throughput::Elements(instrs));
    g.bench_function("coalesced_chain_32_warps/warp_instructions", |b| {
        b.iter(|| run(&coalesced, &p, &cfg).unwrap())
    });

    let issue = isa::parse_kernel(ISSUE).unwrap();
    let instrs = run(&issue, &p, &cfg).unwrap().instructions;
    g.throughput(Throughput::Elements(instrs));
    g.bench_function("issue_bound_32_warps/warp_instructions", |b| {
        b.iter(|| run(&issue, &p, &cfg).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
