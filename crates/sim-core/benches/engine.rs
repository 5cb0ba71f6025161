//! The simulator's own speed: simulated SM-cycles per second on a GEMM-like main loop
//! (mostly waits that fast-forward skips) and warp-instructions per second on a
//! 32-warp latency-bound load chain. No sink attached.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_core::{Profile, RunConfig, run};

/// A producer warp and two consumer warpgroups over a 4-stage TMA ring, 512 iterations.
const GEMM: &str = "kernel gemm_bench
launch cta_threads=384 regs=168 smem=196608 grid=1
buffer A size=64MiB
buffer B size=64MiB
shared stage size=196608
mbarrier full[4] count=1
mbarrier empty[4] count=8
param PIPE=4 KT=512
role producer warps=0..0
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % PIPE], parity=((k / PIPE) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % PIPE], bytes=49152
    UTMALDG stage[(k % PIPE) * 49152], A[(k % 256) * 16384], bytes=16384, bar=full[k % PIPE]
    UTMALDG stage[(k % PIPE) * 49152 + 16384], B[(k % 256) * 32768], bytes=32768, bar=full[k % PIPE]
  EXIT
role idle warps=1..3
  EXIT
role consumer warps=4..11
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % PIPE], parity=(k / PIPE) & 1
    WARPGROUP.ARRIVE
    loop j 0..4
      HGMMA.64x256x16.F32.BF16 R24, stage[(k % PIPE) * 49152 + j * 32], stage[(k % PIPE) * 49152 + 16384 + j * 32]
    HGMMA.64x256x16.F32.BF16 R24, stage[(k % PIPE) * 49152], stage[(k % PIPE) * 49152 + 16384], gsb0
    WARPGROUP.DEPBAR.LE gsb0, 0
    SYNCS.ARRIVE.TRANS64 empty[k % PIPE]
  EXIT
";

/// 32 warps each chasing loads through a 4 MiB (L2) footprint, with one dependent FFMA.
const CHAIN: &str = "kernel chain_bench
launch cta_threads=1024 regs=32 smem=0 grid=1
buffer A size=4MiB
param ITERS=2000
role main warps=0..31
  loop i 0..ITERS
    LDG.E R1, A[((i * 32 + warp) * 1024) % 4194304]
    FFMA R1, R1, R2, R3
  EXIT
";

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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
