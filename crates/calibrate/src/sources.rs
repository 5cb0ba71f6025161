//! The CUDA sources the collector compiles. `micro`, `regbank`, `mio` and `uni` are files under
//! `kernels/`; `wgmma` is generated here (its inline PTX lists up to 128 accumulator
//! registers, which no one should write by hand).

/// Dependent-chain lengths of the `LAT_CHAIN` kernels (must match `kernels/micro.cu`).
pub const CHAIN_A: u32 = 64;
pub const CHAIN_B: u32 = 320;
/// Per-step samples the chase kernels keep (REC_MAX in micro.cu).
pub const REC_MAX: u32 = 2048;
/// wgmma N values and back-to-back counts that get a latency kernel.
pub const WGMMA_N: [u32; 3] = [64, 128, 256];
pub const WGMMA_K: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// wgmma per commit group in the two-warpgroup kernels (`wgmma_pair_n256_k{K}`).
pub const WGMMA_PAIR_K: [u32; 4] = [1, 2, 4, 8];
/// wgmma per iteration of the tensor-load (burn) kernel, per warpgroup.
pub const BURN_PER_ITER: u32 = 16;

pub const MICRO: &str = include_str!("../kernels/micro.cu");
pub const REGBANK: &str = include_str!("../kernels/regbank.cu");
/// Shuffles, FMNMX and the BF16 pack (`kernels/mio.cu`).
pub const MIO: &str = include_str!("../kernels/mio.cu");
/// Dependent chains of the uniform datapath (`kernels/uni.cu`).
pub const UNI: &str = include_str!("../kernels/uni.cu");
/// 32-line warp-loads of lines no other warp touches: hits against misses that allocate.
pub const LINES: &str = include_str!("../kernels/lines.cu");
/// Validation kernels (never used by the fit): `calibrate-collect --validation`.
pub const VALIDATION: &str = include_str!("../kernels/validation.cu");
/// TMA-streaming validation kernels, twins of the library's elementwise-add.
pub const STREAM: &str = include_str!("../kernels/stream.cu");
/// singe-viscosity validation kernels, twins of the library's (SPECIES a compile-time
/// constant: [`singe_source`]).
pub const SINGE: &str = include_str!("../kernels/singe.cu");

/// `kernels/singe.cu` at SPECIES `n`: `#define SP n` first, the kernels named `_n{n}`
/// (one module per species count, and kernel names unique across modules).
pub fn singe_source(n: u32) -> String {
    format!("#define SP {n}\n{SINGE}")
        .replace("sv_data_parallel(", &format!("sv_data_parallel_n{n}("))
        .replace(
            "sv_warp_specialized(",
            &format!("sv_warp_specialized_n{n}("),
        )
}
/// K values with a latency-hiding kernel (vh_chase_{l1,l2}_k{K}).
pub const VH_K: [u32; 4] = [1, 4, 16, 64];

/// (name, text) of the validation sources.
pub fn validation() -> Vec<(&'static str, String)> {
    vec![
        ("validation", VALIDATION.to_string()),
        ("validation_gemm", gemm_validation_source()),
        ("validation_stream", STREAM.to_string()),
        ("validation_singe30", singe_source(30)),
        ("validation_singe60", singe_source(60)),
    ]
}

/// gemm-mainloop schedules with a validation kernel: (schedule, kernel name, threads,
/// wait_group depth). The `_fenced` kernels add CUTLASS's `warpgroup_fence_operand` (an
/// empty asm that reads and writes every accumulator) before each k-step's
/// `wgmma.fence` and after its wait: ptxas 13.0 serializes the plain wait_group 1
/// kernels' wgmma (C7514), and the fence is the known way to keep them pipelined.
pub const GEMM_SCHEDULES: [(&str, &str, u32, u32); 6] = [
    ("static-v1", "vg_static_v1", 256, 0),
    ("static-v2", "vg_static_v2", 256, 1),
    ("ws", "vg_ws", 384, 0),
    ("ws-wait1", "vg_ws_wait1", 384, 1),
    ("static-v2", "vg_static_v2_fenced", 256, 1),
    ("ws-wait1", "vg_ws_wait1_fenced", 384, 1),
];

/// Dynamic shared memory of a gemm validation kernel: PIPE stages of A (16 KiB) and B
/// (32 KiB), the mbarriers, and 1 KiB to align the stages for the 128-byte swizzle.
pub fn gemm_smem(pipe: u32) -> u32 {
    pipe * 49152 + 1024 + 128
}

/// u64 slots of `times` per CTA in the gemm validation kernels.
pub const GEMM_TIMES_PER_CTA: usize = 64;

/// Blackwell tensor memory and tcgen05.mma (`kernels/tcgen05.cu`), for sm_100a and later.
pub const TCGEN05: &str = include_str!("../kernels/tcgen05.cu");

/// The tcgen05 kernels' N (columns of the accumulator) and K (MMAs per commit).
pub const TCGEN05_CASES: [(u32, u32); 4] = [(64, 1), (128, 1), (256, 1), (256, 8)];

/// Bytes of dynamic shared memory a tcgen05 kernel for N needs (A 128x16, B Nx16, bf16).
pub fn tcgen05_smem(n: u32) -> u32 {
    (128 + n) * 16 * 2
}

/// True for the Blackwell targets (sm_100a and later), which have tcgen05 and no wgmma.
pub fn is_blackwell(arch: &str) -> bool {
    arch.strip_prefix("sm_")
        .and_then(|s| {
            s.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>()
                .ok()
        })
        .is_some_and(|cc| cc >= 100)
}

/// The microbenchmark sources for `arch`: on Hopper every source of [`all`]; on Blackwell
/// the tcgen05 source in place of the wgmma one (wgmma is sm_90a only).
pub fn for_arch(arch: &str) -> Vec<(&'static str, String)> {
    let mut v = all();
    if is_blackwell(arch) {
        v.retain(|(name, _)| *name != "wgmma");
        v.push(("tcgen05", TCGEN05.to_string()));
    }
    v
}

/// (name, text) of every Hopper microbenchmark source, in compile order.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("micro", MICRO.to_string()),
        ("regbank", REGBANK.to_string()),
        ("mio", MIO.to_string()),
        ("uni", UNI.to_string()),
        ("lines", LINES.to_string()),
        ("wgmma", wgmma_source()),
    ]
}

/// Bytes of dynamic shared memory a wgmma kernel for N needs (A 64x16, B Nx16, bf16).
pub fn wgmma_smem(n: u32) -> u32 {
    2048 + n * 32
}

pub(crate) fn wgmma_stmt(n: u32) -> String {
    let regs = n / 2;
    let list: Vec<String> = (0..regs).map(|i| format!("%{i}")).collect();
    let outs: Vec<String> = (0..regs).map(|i| format!("\"+f\"(d[{i}])")).collect();
    format!(
        "asm volatile(\"{{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %{sc}, 0;\\n\\t\"\n      \
         \"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 {{{list}}}, %{da}, %{db}, p, 1, 1, 0, 0;\\n\\t}}\"\n      \
         : {outs}\n      : \"l\"(da), \"l\"(db), \"r\"(scale_d));\n",
        sc = regs + 2,
        da = regs,
        db = regs + 1,
        list = list.join(", "),
        outs = outs.join(", "),
    )
}

const WGMMA_PRELUDE: &str = r#"// smsim calibrate: wgmma (HGMMA) latency, issue interval and tensor load (sm_90a).
// Generated by crates/calibrate/src/sources.rs. A and B come from shared memory through
// no-swizzle K-major descriptors (core matrices 8 rows x 16 B; LBO 128 B, SBO 256 B);
// the data are finite bf16 values (their products are not checked: only time matters).
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
DEV u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
DEV u32 smid() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
DEV u64 desc(u32 saddr, u32 lbo, u32 sbo) {
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32);
}
// K-major, 128-byte swizzle (SBO 1024, LBO unused).
DEV u64 desc_sw(u32 saddr) {
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
// Fills `bytes` of shared memory with finite bf16 values near 1 and makes them visible
// to the async proxy (wgmma reads shared memory through it).
DEV void fill_operands(unsigned char* sm, int bytes) {
  for (int i = threadIdx.x; i < bytes / 4; i += blockDim.x)
    ((u32*)sm)[i] = 0x3F803F80u ^ ((i * 2654435761u) & 0x007F007Fu);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}
"#;

/// The generated wgmma source. Long because it is mostly the CUDA text it emits.
pub fn wgmma_source() -> String {
    let mut s = String::from(WGMMA_PRELUDE);
    for n in WGMMA_N {
        let regs = n / 2;
        let stmt = wgmma_stmt(n);
        for k in WGMMA_K {
            s += &format!(
                r#"
// One warpgroup: K back-to-back m64n{n}k16 into the same accumulators, commit, wait 0.
extern "C" __global__ void __launch_bounds__(128, 1) wgmma_lat_n{n}_k{k}(int reps, u64* out, float* sink) {{
  extern __shared__ __align__(128) unsigned char sm[];
  fill_operands(sm, {smem});
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  u32 scale_d = 1;
  float d[{regs}];
  #pragma unroll
  for (int i = 0; i < {regs}; ++i) d[i] = 0.f;
  for (int r = 0; r < reps; ++r) {{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    u64 t0 = clk();
    #pragma unroll
    for (int kk = 0; kk < {k}; ++kk) {{
      {stmt}    }}
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    u64 t1 = clk();
    if (threadIdx.x == 0) out[r] = t1 - t0;
  }}
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < {regs}; ++i) s += d[i];
  sink[threadIdx.x] = s;
}}
"#,
                smem = wgmma_smem(n),
            );
        }
    }
    let stmt = wgmma_stmt(256);
    for k in WGMMA_PAIR_K {
        s += &format!(
            r#"
// One or two warpgroups (128 or 256 threads) on one SM, each: ITERS x (K m64n256k16
// into its own accumulators, commit, wait_group 0). Every warp's lane 0 records clock64
// before and after; the host takes max(end) - min(start) per wgmma. Two warpgroups
// against one show what the tensor pipe pays when the warpgroup it serves changes.
extern "C" __global__ void __launch_bounds__(256, 1) wgmma_pair_n256_k{k}(int iters, u64* times, float* sink) {{
  extern __shared__ __align__(128) unsigned char sm[];
  fill_operands(sm, {smem});
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  u32 scale_d = 1;
  float d[128];
  #pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  __syncthreads();
  u64 c0 = clk();
  for (int it = 0; it < iters; ++it) {{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int kk = 0; kk < {k}; ++kk) {{
      {stmt}    }}
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }}
  u64 c1 = clk();
  if (threadIdx.x % 32 == 0) {{
    times[2 * (threadIdx.x / 32)] = c0;
    times[2 * (threadIdx.x / 32) + 1] = c1;
  }}
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  sink[threadIdx.x] = s;
}}
"#,
            smem = wgmma_smem(256),
        );
    }
    s += &format!(
        r#"
// What slows serialized wgmma in a real main loop: two warpgroups each ITERS x (one
// m64n256k16, commit, wait_group 0) as wgmma_pair_n256_k1, but
//   ring > 1: the operands advance through `ring` slots of 10 KiB (A 2 KiB, B 8 KiB),
//             a new address for every wgmma as a k-loop's descriptors do;
//   swz = 1:  128-byte-swizzle K-major descriptors (SBO 1024) instead of no swizzle;
//   copies > 0: a ninth warp streams `copies` bulk copies of 32 KiB (two in flight)
//             from `src` into shared memory meanwhile, as TMA refills stages.
extern "C" __global__ void __launch_bounds__(288, 1) wgmma_pair_var(int iters, int ring, int swz, const char* src, int copies, u64* times, float* sink) {{
  extern __shared__ __align__(1024) unsigned char sm[];
  __shared__ __align__(8) u64 cbar[2];
  fill_operands(sm, 4 * 10240);
  u32 a0 = (smaddr(sm) + 1023) & ~1023u;
  u32 cdst = a0 + 4 * 10240 + 1024;
  if (threadIdx.x == 256) {{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smaddr(&cbar[0])) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smaddr(&cbar[1])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }}
  __syncthreads();
  u64 c0 = clk();
  if (threadIdx.x >= 256) {{
    if (threadIdx.x == 256) {{
      u32 ph = 0;
      for (int i = 0; i < copies; ++i) {{
        int s = i & 1;
        u32 bar = smaddr(&cbar[s]);
        if (i >= 2) {{
          u32 ok = 0;
          while (!ok) asm volatile("{{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}}" : "=r"(ok) : "r"(bar), "r"((ph >> s) & 1) : "memory");
          ph ^= 1u << s;
        }}
        asm volatile("{{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], 32768;\n\t}}" ::"r"(bar) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 32768, [%2];" ::"r"(cdst + s * 32768), "l"(src + (u64)(i % 64) * 32768), "r"(bar) : "memory");
      }}
    }}
    return;
  }}
  u32 scale_d = 1;
  float d[128];
  #pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  for (int it = 0; it < iters; ++it) {{
    u32 slot = a0 + (u32)(it % ring) * 10240;
    u64 da = swz ? desc_sw(slot) : desc(slot, 128, 256);
    u64 db = swz ? desc_sw(slot + 2048) : desc(slot + 2048, 128, 256);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    {stmt}    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }}
  u64 c1 = clk();
  if (threadIdx.x % 32 == 0) {{
    times[2 * (threadIdx.x / 32)] = c0;
    times[2 * (threadIdx.x / 32) + 1] = c1;
  }}
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  sink[threadIdx.x] = s;
}}
"#
    );
    s += &format!(
        r#"
// The gemm-mainloop consumer's MMAs alone: two warpgroups, one 128x256x64 stage in
// shared memory with 128-byte-swizzle K-major descriptors (warpgroup w reads A rows
// w*64.., and the k-slice j of each wgmma is +32 bytes), the four descriptors of a
// k-step computed before the loop (no scalar work between the waits). ITERS k-steps:
//   mode 0: each wgmma its own group, wait_group 0 after it (as ptxas serialized them);
//   mode 1: the four as one group, one wait_group 0 (as ws);
//   mode 2: mode 0 with the k-slice offset dropped (every wgmma reads slice 0).
extern "C" __global__ void __launch_bounds__(256, 1) wgmma_slices(int iters, int mode, u64* times, float* sink) {{
  extern __shared__ __align__(1024) unsigned char sm[];
  fill_operands(sm, 49152 + 1024);
  u32 a0 = (smaddr(sm) + 1023) & ~1023u;
  u32 b0 = a0 + 16384;
  int wg = threadIdx.x / 128;
  u32 step = mode == 2 ? 0u : 32u;
  u64 da0 = desc_sw(a0 + wg * 8192), db0 = desc_sw(b0);
  u64 da1 = desc_sw(a0 + wg * 8192 + step), db1 = desc_sw(b0 + step);
  u64 da2 = desc_sw(a0 + wg * 8192 + 2 * step), db2 = desc_sw(b0 + 2 * step);
  u64 da3 = desc_sw(a0 + wg * 8192 + 3 * step), db3 = desc_sw(b0 + 3 * step);
  u32 scale_d = 1;
  float d[128];
  #pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  __syncthreads();
  u64 c0 = clk();
  if (mode == 1) {{
    for (int it = 0; it < iters; ++it) {{
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      {{ u64 da = da0, db = db0;
      {stmt}    }}
      {{ u64 da = da1, db = db1;
      {stmt}    }}
      {{ u64 da = da2, db = db2;
      {stmt}    }}
      {{ u64 da = da3, db = db3;
      {stmt}    }}
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }}
  }} else {{
    for (int it = 0; it < iters; ++it) {{
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      {{ u64 da = da0, db = db0;
      {stmt}    }}
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      {{ u64 da = da1, db = db1;
      {stmt}    }}
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      {{ u64 da = da2, db = db2;
      {stmt}    }}
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      {{ u64 da = da3, db = db3;
      {stmt}    }}
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }}
  }}
  u64 c1 = clk();
  if (threadIdx.x % 32 == 0) {{
    times[2 * (threadIdx.x / 32)] = c0;
    times[2 * (threadIdx.x / 32) + 1] = c1;
  }}
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  sink[threadIdx.x] = s;
}}
"#
    );
    s += &format!(
        r#"
// Tensor load for the clock: every warpgroup of the block issues {per} m64n256k16 per
// iteration into its own accumulators, commit, wait_group 1 (one group in flight).
// Thread 0 records clock64 and globaltimer around the loop, and the SM id.
extern "C" __global__ void __launch_bounds__(256, 1) wgmma_burn_n256(long long iters, u64* times, float* sink) {{
  extern __shared__ __align__(128) unsigned char sm[];
  fill_operands(sm, {smem});
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  u32 scale_d = 1;
  float d[128];
  #pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (long long it = 0; it < iters; ++it) {{
    #pragma unroll
    for (int kk = 0; kk < {per}; ++kk) {{
      {stmt}    }}
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }}
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  __syncthreads();
  u64 c1 = clk(), g1 = gtime();
  if (threadIdx.x == 0) {{
    times[5 * blockIdx.x + 0] = c0;
    times[5 * blockIdx.x + 1] = c1;
    times[5 * blockIdx.x + 2] = g0;
    times[5 * blockIdx.x + 3] = g1;
    times[5 * blockIdx.x + 4] = smid();
  }}
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
"#,
        per = BURN_PER_ITER,
        smem = wgmma_smem(256),
    );
    s
}

const GEMM_PRELUDE: &str = r#"// smsim calibrate: gemm-mainloop validation kernels (never used by the fit).
// Generated by crates/calibrate/src/sources.rs; twins: crates/traces/src/gemm.rs.
// C += A x B, BF16 in, FP32 accumulators in registers, a 128x256x64 CTA tile: A (M x K)
// and B (N x K) are K-major; per k-step a stage holds A 128x64 (16 KiB) and B 256x64
// (32 KiB), loaded by two TMA tensor copies (128-byte swizzle) completing on full[s].
// Each consumer warpgroup issues four wgmma m64n256k16 (its 64 rows of A) per k-step as
// one commit group. Every wait is bounded: a timeout sets err and the kernel runs on
// (so no thread is left at a barrier), its times then meaningless.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#define GEMM_SPIN 20000000ull
struct __align__(64) TmapT {
  u64 d[16];
};
DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
DEV u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
DEV u32 smid() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
// K-major, 128-byte swizzle: 8-row groups 1024 B apart (SBO), LBO unused (1).
DEV u64 desc_sw128(u32 saddr) {
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
DEV void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
DEV void mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
}
DEV void mbar_expect_tx(u32 bar, u32 bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(bar),
               "r"(bytes)
               : "memory");
}
DEV void mbar_arrive(u32 bar) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
DEV u32 mbar_try(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}
// Waits for the phase; on timeout sets *err and returns (the caller runs on).
DEV void mbar_wait(u32 bar, u32 parity, int* err) {
  if (mbar_try(bar, parity)) return;
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > GEMM_SPIN) {
      err[0] = 1;
      return;
    }
  }
}
DEV void tma_2d(u32 dst, const TmapT* tm, int x, int y, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((u64)tm), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
// One stage: A rows m*128.., B rows n*256.., K columns k*64..
DEV void load_stage(const TmapT* ta, const TmapT* tb, u32 sa, u32 sb, u32 bar, int m, int n, int k) {
  mbar_expect_tx(bar, 49152);
  tma_2d(sa, ta, k * 64, m * 128, bar);
  tma_2d(sb, tb, k * 64, n * 256, bar);
}
"#;

const FENCE_OPERANDS: &str = r#"#pragma unroll
      for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
      "#;

fn gemm_kstep(acc_rows: &str, fenced: bool) -> String {
    let stmt = wgmma_stmt(256);
    format!(
        r#"{}asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      #pragma unroll
      for (int j = 0; j < 4; ++j) {{
        u64 da = desc_sw128(sa + s * 16384 + {acc_rows} * 8192 + j * 32), db = desc_sw128(sb + s * 32768 + j * 32);
        {stmt}      }}
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");"#,
        if fenced { FENCE_OPERANDS } else { "" }
    )
}

/// The gemm-mainloop validation kernels (`GEMM_SCHEDULES`): arguments (tensor map of A,
/// of B, PIPE, KT, MT, times, sink, err); CTA c takes tile (c % MT, c / MT).
pub fn gemm_validation_source() -> String {
    let mut s = String::from(GEMM_PRELUDE);
    let common = r#"  extern __shared__ __align__(1024) unsigned char dsm[];
  u32 base = (smaddr(dsm) + 1023) & ~1023u;
  u32 sa = base, sb = base + pipe * 16384, bars = base + pipe * 49152;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int m = blockIdx.x % mt, n = blockIdx.x / mt;
  u64* mine = times + (u64)blockIdx.x * 64 + warp * 4;
"#;
    // The accumulators live only where wgmma runs: a producer warpgroup that gave its
    // registers back (setmaxnreg.dec) must hold none of them.
    let accumulators = r#"  float d[128];
  #pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  u32 scale_d = 1;
"#;
    let record = r#"  u64 c1 = clk(), g1 = gtime();
  if (lane == 0) {
    mine[0] = c0;
    mine[1] = c1;
    mine[2] = g0;
    mine[3] = g1;
    if (warp == 0) times[(u64)blockIdx.x * 64 + 63] = smid();
  }
"#;
    let drain = r#"  float acc = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) acc += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
"#;
    for (schedule, kname, threads, lag) in GEMM_SCHEDULES {
        let ws = threads == 384;
        let fenced = kname.ends_with("_fenced");
        let after_wait = if fenced { FENCE_OPERANDS } else { "" };
        s += &format!(
            "\n// {schedule}\nextern \"C\" __global__ void __launch_bounds__({threads}, 1) {kname}(const __grid_constant__ TmapT tma, const __grid_constant__ TmapT tmb, int pipe, int kt, int mt, u64* times, float* sink, int* err) {{\n{common}"
        );
        if ws {
            s += r#"  if (threadIdx.x == 0) {
    for (int i = 0; i < pipe; ++i) {
      mbar_init(bars + 8 * i, 1);
      mbar_init(bars + 8 * (pipe + i), 8);
    }
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (warp == 0 && lane == 0) {
      for (int k = 0; k < kt; ++k) {
        int s = k % pipe;
        mbar_wait(bars + 8 * (pipe + s), ((k / pipe) & 1) ^ 1, err);
        load_stage(&tma, &tmb, sa + s * 16384, sb + s * 32768, bars + 8 * s, m, n, k);
      }
    }
"#;
            s += record;
            s += r#"  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    int cwg = wg - 1;
"#;
            s += accumulators;
            s += r#"
    for (int k = 0; k < kt; ++k) {
      int s = k % pipe;
      mbar_wait(bars + 8 * s, (k / pipe) & 1, err);
      "#;
            s += &gemm_kstep("cwg", fenced);
            if lag == 0 {
                s += r#"
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (lane == 0) mbar_arrive(bars + 8 * (pipe + s));
    }
"#;
            } else {
                s += &r#"
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      {after_wait}if (k > 0 && lane == 0) mbar_arrive(bars + 8 * (pipe + (k + pipe - 1) % pipe));
    }
"#
                .replace("{after_wait}", after_wait);
            }
            s += r#"    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
"#;
            s += record;
            s += drain;
            s += "  }\n}\n";
        } else {
            s += accumulators;
            s += r#"  if (threadIdx.x == 0) {
    for (int i = 0; i < pipe; ++i) mbar_init(bars + 8 * i, 1);
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  int wg = threadIdx.x / 128;
  if (threadIdx.x == 0)
    for (int i = 0; i < pipe && i < kt; ++i) load_stage(&tma, &tmb, sa + i * 16384, sb + i * 32768, bars + 8 * i, m, n, i);
  for (int k = 0; k < kt; ++k) {
    int s = k % pipe;
    mbar_wait(bars + 8 * s, (k / pipe) & 1, err);
    "#;
            s += &gemm_kstep("wg", fenced);
            if lag == 0 {
                s += r#"
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (k + pipe < kt) {
      asm volatile("bar.sync 1, 256;" ::: "memory");
      if (threadIdx.x == 0) load_stage(&tma, &tmb, sa + s * 16384, sb + s * 32768, bars + 8 * s, m, n, k + pipe);
    }
  }
"#;
            } else {
                s += &r#"
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    {after_wait}int j = k - 1;
    if (k >= 1 && j + pipe < kt) {
      asm volatile("bar.sync 1, 256;" ::: "memory");
      int sj = j % pipe;
      if (threadIdx.x == 0) load_stage(&tma, &tmb, sa + sj * 16384, sb + sj * 32768, bars + 8 * sj, m, n, j + pipe);
    }
  }
"#
                .replace("{after_wait}", after_wait);
            }
            s += r#"  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
"#;
            s += record;
            s += drain;
            s += "}\n";
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_cuda_source() {
        assert!(MICRO.contains(&format!("#define CHAIN_A {CHAIN_A}\n")));
        assert!(MICRO.contains(&format!("#define CHAIN_B {CHAIN_B}\n")));
        assert!(MICRO.contains(&format!("#define REC_MAX {REC_MAX}\n")));
        assert!(MICRO.contains("#define TP_LDS_UNR 8\n"));
    }

    #[test]
    fn wgmma_source_has_every_kernel() {
        let s = wgmma_source();
        for n in WGMMA_N {
            for k in WGMMA_K {
                assert!(s.contains(&format!("wgmma_lat_n{n}_k{k}(")));
            }
            assert!(s.contains(&format!("m64n{n}k16.f32.bf16.bf16")));
        }
        assert!(s.contains("wgmma_burn_n256("));
        for k in WGMMA_PAIR_K {
            assert!(s.contains(&format!("wgmma_pair_n256_k{k}(")));
        }
        assert!(crate::bench::kernel_names(&s).contains(&"wgmma_pair_var".to_string()));
        assert!(crate::bench::kernel_names(&s).contains(&"wgmma_slices".to_string()));
        // 128 accumulators for N = 256: %0..%127, then the two descriptors and scale-d
        assert!(s.contains("%127}, %128, %129, p, 1, 1, 0, 0;"));
        assert!(s.contains("setp.ne.b32 p, %130, 0;"));
    }

    #[test]
    fn gemm_validation_source_has_every_schedule() {
        let s = gemm_validation_source();
        let names = crate::bench::kernel_names(&s);
        for (_, kname, threads, lag) in GEMM_SCHEDULES {
            assert!(names.iter().any(|n| n == kname), "{kname} in {names:?}");
            assert!(s.contains(&format!("__launch_bounds__({threads}, 1) {kname}(")));
            let _ = lag;
        }
        assert_eq!(s.matches("wgmma.wait_group.sync.aligned 1;").count(), 4);
        assert_eq!(s.matches("setmaxnreg.inc.sync.aligned.u32 232;").count(), 3);
        assert!(!s.contains("{after_wait}"));
    }
}
