//! The engine's model gaps, each isolated by a microbenchmark (issue 25 items 1-6, issue
//! 30's cluster barrier): copies and LDS/STS sharing shared-memory bandwidth, the SM clock
//! under non-tensor and tensor loads (with zero, near-one and random operands), the
//! cross-SM cluster barrier's round trip, the wgmma commit's extra cost, a copy followed by
//! its try_wait in steady state. Opt-in: `calibrate-collect --only clock.light,gaps`
//! (its source is compiled only then, so a default collect is unchanged).
//!
//! The collector's section (run on the GPU) beside the simulated twins of its benchmarks.

use crate::bench::*;
use crate::gpu::{Result, arg, tensor_map_2d_u32};
use crate::sources;
use serde_json::json;

/// The hand-written kernels (`kernels/gaps.cu`).
pub const GAPS_CU: &str = include_str!("../../kernels/gaps.cu");

/// Bulk-copy ring slots and the LDS/STS region of `gap_smem_bw` (SB_SLOTS, SB_REGION).
const SB_SLOTS: u32 = 4;
const SB_REGION: u32 = 32768;
/// Threads of `gap_smem_bw`: one copy warp, eight LDS/STS warps.
const SB_THREADS: u32 = 288;

/// The gaps source: `kernels/gaps.cu` and the generated wgmma kernels (the tensor load
/// with three operand fills, and the commit variants).
pub fn source() -> String {
    let mut s = String::from(GAPS_CU);
    let stmt256 = sources::wgmma_stmt(256);
    let stmt64 = sources::wgmma_stmt(64);
    s += &format!(
        r#"
// ---------------------------------------------------------------- wgmma helpers
DEV u64 desc(u32 saddr, u32 lbo, u32 sbo) {{
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32);
}}
// Operands: fill 0 zeros; 1 bf16 near one (the collector's wgmma_burn_n256); 2 random
// bf16 (random sign and mantissa, exponent 2^-7 .. 2^8), as real data toggle the datapath.
DEV void gap_fill(unsigned char* sm, int bytes, int fill) {{
  for (int i = threadIdx.x; i < bytes / 4; i += blockDim.x) {{
    u32 h = (u32)i * 2654435761u;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    u32 lo = (h & 0x807Fu) | ((120u + ((h >> 8) & 15u)) << 7);
    u32 hi = ((h >> 16) & 0x807Fu) | ((120u + ((h >> 24) & 15u)) << 7);
    u32 v = fill == 0 ? 0u : fill == 1 ? (0x3F803F80u ^ (((u32)i * 2654435761u) & 0x007F007Fu)) : (lo | (hi << 16));
    ((u32*)sm)[i] = v;
  }}
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}}

// ---------------------------------------------------------------- item 2: tensor load
// Every SM: 2 warpgroups, each {per} m64n256k16 per iteration, commit, wait_group 1, as
// wgmma_burn_n256 but with the operands of `fill`. BlockTimes in times.
extern "C" __global__ void __launch_bounds__(256, 1) gap_wgmma_burn(long long iters, int fill, u64* times, float* sink) {{
  extern __shared__ __align__(128) unsigned char sm[];
  gap_fill(sm, {smem256}, fill);
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
      {stmt256}    }}
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }}
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  block_times(times, c0, g0);
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
"#,
        per = sources::BURN_PER_ITER,
        smem256 = sources::wgmma_smem(256),
    );
    for n in ICACHE_BODIES {
        s += &format!(
            r#"
extern "C" __global__ void gap_icache_{n}(int iters, float m, float c, u64* out, float* sink) {{
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  u64 t0 = clk();
  for (int it = 0; it < iters; ++it) {{
    _Pragma("unroll") for (int k = 0; k < {n} / 8; ++k) {{ GAP_F8(k) }}
  }}
  u64 t1 = clk();
  if (threadIdx.x % 32 == 0) {{
    out[2 * (threadIdx.x / 32)] = t0;
    out[2 * (threadIdx.x / 32) + 1] = t1;
  }}
  sink[threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}}
"#
        );
    }
    for (name, body) in COMMIT_VARIANTS {
        let body = body.replace("STMT", &stmt64);
        s += &format!(
            r#"
// item 4: one warpgroup, `iters` x (fence; {name}; wait_group 0), m64n64k16.
extern "C" __global__ void __launch_bounds__(128, 1) gap_commit_{name}(int iters, int n, u64* out, float* sink) {{
  extern __shared__ __align__(128) unsigned char sm[];
  gap_fill(sm, {smem64}, 1);
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  u32 scale_d = 1;
  float d[32];
  #pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  __syncthreads();
  u64 t0 = clk();
  for (int it = 0; it < iters; ++it) {{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    {body}
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }}
  u64 t1 = clk();
  if (threadIdx.x == 0) {{
    out[0] = t0;
    out[1] = t1;
  }}
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < 32; ++i) s += d[i];
  sink[threadIdx.x] = s + n;
}}
"#,
            smem64 = sources::wgmma_smem(64),
        );
    }
    s
}

/// The straight-line body sizes (FFMAs) of the instruction-fetch kernels `gap_icache_N`.
pub(super) const ICACHE_BODIES: [u32; 6] = [256, 512, 1024, 2048, 4096, 8192];

/// The commit variants (item 4): one MMA and its commit; a second, empty commit; two MMAs
/// in one group; one MMA in a loop of a run-time trip count, so that the commit cannot
/// ride on the last MMA's instruction.
const COMMIT_VARIANTS: [(&str, &str); 5] = [
    (
        "plain",
        "STMT asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");",
    ),
    (
        "empty",
        "STMT asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\"); asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");",
    ),
    (
        "two",
        "STMT STMT asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");",
    ),
    // A second fence (WARPGROUP.ARRIVE) between two MMAs of one group: does an ARRIVE
    // wait for the MMA in flight before it? (`two` without the fence: 119.7 cycles.)
    (
        "fence2",
        "STMT asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\"); STMT asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");",
    ),
    (
        "loop",
        "_Pragma(\"unroll 1\") for (int kk = 0; kk < n; ++kk) { STMT } asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");",
    ),
];

impl Runner {
    /// Item 1: bulk copies (into or out of shared memory) and LDS/STS alone and together.
    pub(crate) fn gaps_smem_bw(&mut self) -> Result<()> {
        let bytes: u32 = 16384;
        let smem = SB_SLOTS * bytes + SB_REGION;
        self.k("gap_smem_bw")?.func.allow_smem(smem)?;
        let budget: u64 = 400_000;
        let (src, dst) = (self.arena.ptr + 768 * MIB, self.arena.ptr + 800 * MIB);
        let (out, err) = (self.out.ptr, self.err.ptr);
        // (name, copies, mode, lds, sts)
        let cases: [(&str, i32, i32, i32, i32); 8] = [
            ("g2s", 1, 0, 0, 0),
            ("s2g", 1, 1, 0, 0),
            ("lds", 0, 0, 1, 0),
            ("sts", 0, 0, 1, 1),
            ("g2s_lds", 1, 0, 1, 0),
            ("g2s_sts", 1, 0, 1, 1),
            ("s2g_lds", 1, 1, 1, 0),
            ("s2g_sts", 1, 1, 1, 1),
        ];
        let warps = SB_THREADS / 32;
        for (name, copies, mode, lds, sts) in cases {
            self.clear_err()?;
            let (mut copy_bpc, mut lds_bpc, mut raw) = (Vec::new(), Vec::new(), Vec::new());
            // The first launch brings the copies' sources into L2 and is not kept.
            for rep in 0..self.reps(6, 2) {
                self.launch(
                    "gap_smem_bw",
                    1,
                    SB_THREADS,
                    smem,
                    &[
                        arg(&src),
                        arg(&dst),
                        arg(&bytes),
                        arg(&copies),
                        arg(&mode),
                        arg(&lds),
                        arg(&sts),
                        arg(&budget),
                        arg(&out),
                        arg(&err),
                    ],
                )?;
                let o = self.out_u64(4 * warps as usize)?;
                if rep == 0 {
                    continue;
                }
                let span = |w: usize| o[4 * w + 1].wrapping_sub(o[4 * w]) as f64;
                if copies != 0 {
                    copy_bpc.push(o[2] as f64 * f64::from(bytes) / span(0));
                }
                if lds != 0 {
                    // each warp's 4 x 512 B per iteration over its own span, summed
                    let r: f64 = (1..warps as usize)
                        .map(|w| o[4 * w + 2] as f64 * 4.0 * 512.0 / span(w))
                        .sum();
                    lds_bpc.push(r);
                }
                raw.push(json!(o));
            }
            self.check_err("gap_smem_bw")?;
            let params = vec![
                ("copy_bytes", v(bytes)),
                ("copies_in_flight", v(SB_SLOTS)),
                (
                    "copy_mode",
                    v(if mode == 0 {
                        "global->shared"
                    } else {
                        "shared->global"
                    }),
                ),
                ("copies", v(copies != 0)),
                ("lds_warps", v(if lds != 0 { warps - 1 } else { 0 })),
                ("shared_op", v(if sts != 0 { "STS.128" } else { "LDS.128" })),
                ("budget_cycles", v(budget)),
            ];
            let method = "one CTA: warp 0 lane 0 streams bulk copies of 16 KiB (4 in flight) from an \
                          L2-resident 1 MiB (or bulk stores to one) for a budget of cycles, while 8 warps \
                          loop 4 conflict-free 128-bit shared loads (or stores) per thread; bytes per \
                          clock of each over its own span, median over launches after a warm-up one";
            if copies != 0 {
                self.push(Rec {
                    name: format!("gap.smem.{name}.copy"),
                    group: "gaps",
                    unit: "B/clk",
                    kernel: "gap_smem_bw",
                    method,
                    params: params.clone(),
                    reps: copy_bpc,
                    extra: vec![("raw", v(&raw))],
                });
            }
            if lds != 0 {
                self.push(Rec {
                    name: format!("gap.smem.{name}.shared"),
                    group: "gaps",
                    unit: "B/clk",
                    kernel: "gap_smem_bw",
                    method,
                    params,
                    reps: lds_bpc,
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    /// Item 2: the SM clock (clock64 against %globaltimer, per block, median) under
    /// full-chip FFMA, HBM-stream and wgmma loads, the last with three operand fills.
    pub(crate) fn gaps_clock(&mut self) -> Result<()> {
        let grid = self.sm_count;
        let mhz = self.clock_mhz.unwrap_or(1900.0);
        let secs = if self.quick { 0.02 } else { 0.1 };
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let reps = self.reps(3, 1);
        // FFMA: 512 cycles per iteration per SM (65,536 FFMA at 128 per clock).
        let iters: i64 = (secs * mhz * 1e6 / 512.0) as i64;
        let mut runs: Vec<(String, Vec<f64>, Vec<serde_json::Value>)> = Vec::new();
        let (mut c, mut raw) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let ms = self.launch_timed(
                "gap_ffma_burn",
                grid,
                1024,
                0,
                &[arg(&iters), arg(&out), arg(&sink)],
            )?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            c.push(bt.mhz());
            raw.push(json!({"event_ms": ms, "iters": iters, "distinct_sms": bt.distinct_sms()}));
        }
        runs.push(("ffma".into(), c, raw));
        // HBM stream: 256 MiB copied per pass, about 0.2 ms a pass.
        let n: u64 = 256 * MIB / 16;
        let passes: i32 = if self.quick { 50 } else { 250 };
        let (src, dst) = (self.arena.ptr, self.arena.ptr + 512 * MIB);
        let (mut c, mut raw) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let ms = self.launch_timed(
                "gap_stream_burn",
                grid,
                1024,
                0,
                &[arg(&src), arg(&dst), arg(&n), arg(&passes), arg(&out)],
            )?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            c.push(bt.mhz());
            let gbs = 2.0 * (n * 16) as f64 * f64::from(passes) / (ms * 1e6);
            raw.push(json!({"event_ms": ms, "passes": passes, "gb_per_s": gbs}));
        }
        runs.push(("hbm_stream".into(), c, raw));
        // wgmma: as clock.tensor, 2 x 16 x 128 cycles per iteration.
        let smem = sources::wgmma_smem(256);
        self.k("gap_wgmma_burn")?.func.allow_smem(smem)?;
        let iters: i64 =
            (0.15 * mhz * 1e6 / (2.0 * f64::from(sources::BURN_PER_ITER) * 128.0)) as i64;
        for (fill, label) in [(0i32, "zeros"), (1, "near_one"), (2, "random")] {
            let (mut c, mut raw) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                let ms = self.launch_timed(
                    "gap_wgmma_burn",
                    grid,
                    256,
                    smem,
                    &[arg(&iters), arg(&fill), arg(&out), arg(&sink)],
                )?;
                let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
                c.push(bt.mhz());
                let flop = 2.0
                    * 64.0
                    * 256.0
                    * 16.0
                    * f64::from(sources::BURN_PER_ITER)
                    * iters as f64
                    * 2.0
                    * f64::from(grid);
                raw.push(
                    json!({"event_ms": ms, "iters": iters, "tflops": flop / (ms * 1e-3) / 1e12,
                    "max_block_cycles": bt.max_cycles(), "max_block_ns": bt.max_ns()}),
                );
            }
            runs.push((format!("wgmma_{label}"), c, raw));
        }
        for (label, c, raw) in runs {
            self.push(Rec {
                name: format!("gap.clock.{label}.globaltimer"),
                group: "gaps",
                unit: "MHz",
                kernel: match label.as_str() {
                    "ffma" => "gap_ffma_burn",
                    "hbm_stream" => "gap_stream_burn",
                    _ => "gap_wgmma_burn",
                },
                method: "every SM runs the load; median over blocks of clock64 delta / %globaltimer \
                         delta, one value per launch",
                params: vec![("grid", v(grid))],
                reps: c,
                extra: vec![("raw", v(&raw))],
            });
        }
        self.clock_spin("gaps_light_after", 3)
    }

    /// Issue 30: barrier.cluster arrive + wait, a cluster of 2 CTAs (two SMs) against one
    /// CTA's cluster and BAR.SYNC; cycles per round, every CTA's median.
    pub(crate) fn gaps_cluster(&mut self) -> Result<()> {
        let iters: i32 = 4096;
        let out = self.out.ptr;
        for (name, kernel, grid, block) in [
            ("cluster2.threads_128", "gap_cluster2", 2u32, 128u32),
            ("cluster2.threads_256", "gap_cluster2", 2, 256),
            ("cluster2.threads_32", "gap_cluster2", 2, 32),
            ("cluster1.threads_128", "gap_cluster1", 1, 128),
            ("cta_bar.threads_128", "gap_cta_bar", 1, 128),
            (
                "cluster2_relaxed.threads_128",
                "gap_cluster2_relaxed",
                2,
                128,
            ),
            (
                "cluster1_relaxed.threads_128",
                "gap_cluster1_relaxed",
                1,
                128,
            ),
        ] {
            let (mut per, mut raw) = (Vec::new(), Vec::new());
            for _ in 0..self.reps(5, 2) {
                self.launch(kernel, grid, block, 0, &[arg(&iters), arg(&out)])?;
                let o = self.out_u64(4 * grid as usize)?;
                for b in 0..grid as usize {
                    per.push(o[4 * b + 1].wrapping_sub(o[4 * b]) as f64 / f64::from(iters));
                }
                raw.push(json!(o));
            }
            self.push(Rec {
                name: format!("gap.{name}"),
                group: "gaps",
                unit: "cycles",
                kernel,
                method: "every thread loops barrier.cluster.arrive.release + barrier.cluster.wait.acquire \
                         (bar.sync 0 for cta_bar); thread 0 of each CTA times the loop; cycles per round, \
                         one value per CTA per launch (raw: start, end, SM id per CTA)",
                params: vec![("grid", v(grid)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![("raw", v(&raw))],
            });
        }
        // An mbarrier arrive on the peer CTA's barrier and back (a round trip), against
        // the same between two warps of one CTA.
        let err = self.err.ptr;
        for (name, kernel, grid, block) in [
            ("peer_mbar.round_trip", "gap_peer_mbar", 2u32, 64u32),
            ("local_mbar.round_trip", "gap_local_mbar", 1, 64),
        ] {
            self.clear_err()?;
            let (mut per, mut raw) = (Vec::new(), Vec::new());
            for _ in 0..self.reps(5, 2) {
                self.launch(kernel, grid, block, 0, &[arg(&iters), arg(&out), arg(&err)])?;
                let o = self.out_u64(4 * grid as usize)?;
                per.push(o[1].wrapping_sub(o[0]) as f64 / f64::from(iters));
                raw.push(json!(o));
            }
            self.check_err(kernel)?;
            self.push(Rec {
                name: format!("gap.{name}"),
                group: "gaps",
                unit: "cycles",
                kernel,
                method: "thread 0 of CTA rank 0 arrives on the other's mbarrier (peer: mapa + \
                         mbarrier.arrive.release.cluster.shared::cluster; local: a second warp's \
                         barrier in the same CTA) and waits on its own, which the other arrives on \
                         after its wait; cycles per round trip (two hand-offs) of rank 0",
                params: vec![("grid", v(grid)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![("raw", v(&raw))],
            });
        }
        Ok(())
    }

    /// Item 4: the commit variants' cycles per iteration.
    pub(crate) fn gaps_commit(&mut self) -> Result<()> {
        let iters: i32 = 1024;
        let n: i32 = 1;
        let smem = sources::wgmma_smem(64);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (name, _) in COMMIT_VARIANTS {
            let kernel = format!("gap_commit_{name}");
            self.k(&kernel)?.func.allow_smem(smem)?;
            let mut per = Vec::new();
            for _ in 0..self.reps(5, 2) {
                self.launch(
                    &kernel,
                    1,
                    128,
                    smem,
                    &[arg(&iters), arg(&n), arg(&out), arg(&sink)],
                )?;
                let o = self.out_u64(2)?;
                per.push(o[1].wrapping_sub(o[0]) as f64 / f64::from(iters));
            }
            self.push(Rec {
                name: format!("gap.commit.{name}"),
                group: "gaps",
                unit: "cycles",
                kernel: &kernel,
                method: "one warpgroup: iters x (wgmma.fence; the variant's m64n64k16 and commits; \
                         wait_group 0); cycles per iteration",
                params: vec![
                    ("iters", v(iters)),
                    ("n", v(n)),
                    ("shape", v("m64n64k16 bf16")),
                ],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// Item 5: a copy and its try_wait in steady state, by the copying thread or handed
    /// to another warp and back; cycles per copy.
    pub(crate) fn gaps_copy_wait(&mut self) -> Result<()> {
        self.k("gap_copy_wait")?.func.allow_smem(32768)?;
        let iters: i32 = 256;
        let src = self.arena.ptr + 832 * MIB;
        let (out, err) = (self.out.ptr, self.err.ptr);
        for bytes in [1024u32, 4096, 16384] {
            for handoff in [0i32, 1] {
                self.clear_err()?;
                let mut per = Vec::new();
                for rep in 0..self.reps(6, 2) {
                    self.launch(
                        "gap_copy_wait",
                        1,
                        64,
                        bytes,
                        &[
                            arg(&src),
                            arg(&bytes),
                            arg(&iters),
                            arg(&handoff),
                            arg(&out),
                            arg(&err),
                        ],
                    )?;
                    let o = self.out_u64(2)?;
                    if rep > 0 {
                        per.push(o[1].wrapping_sub(o[0]) as f64 / f64::from(iters));
                    }
                }
                self.check_err("gap_copy_wait")?;
                self.push(Rec {
                    name: format!(
                        "gap.copy_wait.{}.{}",
                        if handoff == 0 { "self" } else { "handoff" },
                        fmt_bytes(u64::from(bytes))
                    ),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_copy_wait",
                    method: "one stage: iters x (expect_tx + bulk copy from an L2-resident 64-copy ring; \
                             the copier's try_wait loop, or another warp's wait and arrive on an empty \
                             barrier the copier waits on); cycles per copy after a warm-up launch",
                    params: vec![("bytes", v(bytes)), ("handoff", v(handoff)), ("iters", v(iters))],
                    reps: per,
                    extra: vec![],
                });
            }
        }
        Ok(())
    }
}

/// The streaming kernels' tensor: rows of 4096 u32 (16 KiB apart), tiles 128 wide.
const PH_WIDTH: u64 = 4096;
/// A tile's width in u32 (512-byte rows).
const PH_BOX_W: u32 = 128;

/// Medians of a list (0 when empty).
fn median(mut x: Vec<f64>) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.sort_by(f64::total_cmp);
    let n = x.len();
    if n % 2 == 1 {
        x[n / 2]
    } else {
        (x[n / 2 - 1] + x[n / 2]) / 2.0
    }
}

impl Runner {
    /// Item 5 located: one thread's copy (or store), stamped before its issue, after the
    /// issue (or the store's read wait) and after its wait; per phase, cycles, median
    /// over the operations of every launch but the first two of each (`gap_copy_phase`).
    pub(crate) fn gaps_phase(&mut self) -> Result<()> {
        let rows: u32 = 32;
        let tile = u64::from(PH_BOX_W * rows * 4);
        let (a, b, c) = (
            self.arena.ptr,
            self.arena.ptr + 64 * MIB,
            self.arena.ptr + 128 * MIB,
        );
        let (bsrc, bdst) = (self.arena.ptr + 192 * MIB, self.arena.ptr + 256 * MIB);
        let map = |p| tensor_map_2d_u32(p, PH_WIDTH, u64::from(rows), PH_BOX_W, rows);
        let (ta, tb, tc) = (map(a)?, map(b)?, map(c)?);
        let smem = 3 * tile as u32;
        self.k("gap_copy_phase")?.func.allow_smem(smem)?;
        let iters: i32 = 64;
        let box_w = PH_BOX_W as i32;
        let (out, err) = (self.out.ptr, self.err.ptr);
        // (name, mode, bytes)
        let cases: [(&str, i32, u32); 8] = [
            ("bulk.1KiB", 0, 1024),
            ("bulk.16KiB", 0, 16384),
            ("box.32x512B", 1, tile as u32),
            ("two_boxes.32x512B", 2, tile as u32),
            ("box_store.32x512B", 3, tile as u32),
            ("store_then_two_boxes.32x512B", 4, tile as u32),
            ("bulk_store.1KiB", 5, 1024),
            ("bulk_store.16KiB", 5, 16384),
        ];
        for (name, mode, bytes) in cases {
            self.clear_err()?;
            let (mut issue, mut wait, mut total, mut gap) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let mut raw = Vec::new();
            for rep in 0..self.reps(5, 2) {
                self.launch(
                    "gap_copy_phase",
                    1,
                    32,
                    smem,
                    &[
                        arg(&ta),
                        arg(&tb),
                        arg(&tc),
                        arg(&bsrc),
                        arg(&bdst),
                        arg(&bytes),
                        arg(&box_w),
                        arg(&mode),
                        arg(&iters),
                        arg(&out),
                        arg(&err),
                    ],
                )?;
                let o = self.out_u64(3 * iters as usize)?;
                if rep == 0 {
                    continue;
                }
                for i in 2..iters as usize {
                    let (s0, s1, s2) = (o[3 * i], o[3 * i + 1], o[3 * i + 2]);
                    issue.push(s1.wrapping_sub(s0) as f64);
                    wait.push(s2.wrapping_sub(s1) as f64);
                    total.push(s2.wrapping_sub(s0) as f64);
                    if i + 1 < iters as usize {
                        gap.push(o[3 * (i + 1)].wrapping_sub(s2) as f64);
                    }
                }
                raw.push(json!(o));
            }
            self.check_err("gap_copy_phase")?;
            let method = "one thread, 64 operations on one stage (L2-resident sources after a \
                          warm-up launch), clock64 before the operation (a), after its issue or a \
                          store's wait_group.read (b), after its wait (c); issue = b - a, wait = \
                          c - b, total = c - a, loop = the next a - c; median over operations 2.. \
                          of each launch after the first";
            let params = vec![
                ("mode", v(mode)),
                ("bytes", v(bytes)),
                (
                    "box",
                    v(format!(
                        "{rows} rows of {} B, {} B apart",
                        PH_BOX_W * 4,
                        PH_WIDTH * 4
                    )),
                ),
            ];
            for (phase, reps) in [
                ("issue", issue),
                ("wait", wait),
                ("total", total),
                ("loop", gap),
            ] {
                self.push(Rec {
                    name: format!("gap.phase.{name}.{phase}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_copy_phase",
                    method,
                    params: params.clone(),
                    reps,
                    extra: if phase == "total" {
                        vec![("raw", v(&raw))]
                    } else {
                        vec![]
                    },
                });
            }
        }
        Ok(())
    }

    /// The TMA-streaming tile stamped (`gap_ew_probe`, the validation set's
    /// ew_tma_pipelined at one CTA): per tile, each phase's cycles (median over tiles
    /// 1..tiles-1 and launches), and the whole tile (`tile`), with parts left out.
    pub(crate) fn gaps_stream(&mut self) -> Result<()> {
        let (a, b, c) = (
            self.arena.ptr,
            self.arena.ptr + 384 * MIB,
            self.arena.ptr + 768 * MIB,
        );
        let (out, err) = (self.out.ptr, self.err.ptr);
        let tiles: i32 = 32;
        // (xblock, nlb, nsb, skip)
        let cases: [(u32, i32, i32, i32); 8] = [
            (32, 2, 1, 0),
            (32, 2, 1, 1),
            (32, 2, 1, 2),
            (32, 2, 1, 4),
            (32, 2, 1, 7),
            (32, 3, 1, 0),
            (32, 2, 2, 0),
            (64, 2, 1, 0),
        ];
        const PHASES: [&str; 8] = [
            "adds",
            "read_wait",
            "bar1",
            "sts_fence",
            "bar2",
            "store_issue",
            "load_issue",
            "full_wait",
        ];
        for (xb, nlb, nsb, skip) in cases {
            let tb = u64::from(xb) * u64::from(PH_BOX_W) * 4;
            let smem = (1024 + (2 * nlb as u64 + nsb as u64) * tb + 8 * nlb as u64 + 64) as u32;
            self.k("gap_ew_probe")?.func.allow_smem(smem)?;
            let map = |p| tensor_map_2d_u32(p, PH_WIDTH, u64::from(xb), PH_BOX_W, xb);
            let (ta, tbm, tc) = (map(a)?, map(b)?, map(c)?);
            let (xb_i, yb_i) = (xb as i32, PH_BOX_W as i32);
            let args = [
                arg(&ta),
                arg(&tbm),
                arg(&tc),
                arg(&tiles),
                arg(&nlb),
                arg(&nsb),
                arg(&xb_i),
                arg(&yb_i),
                arg(&skip),
                arg(&out),
                arg(&err),
            ];
            self.clear_err()?;
            let mut per: Vec<Vec<f64>> = vec![Vec::new(); 8];
            let (mut whole, mut raw) = (Vec::new(), Vec::new());
            for rep in 0..self.reps(6, 2) {
                self.launch("gap_ew_probe", 1, 128, smem, &args)?;
                let o = self.out_u64(8 * 64 + 1)?;
                if rep == 0 {
                    continue;
                }
                let n = tiles as usize;
                for t in 1..n - 1 {
                    let m = &o[8 * t..8 * t + 8];
                    for k in 0..7 {
                        per[k].push(m[k + 1].wrapping_sub(m[k]) as f64);
                    }
                    per[7].push(o[8 * (t + 1)].wrapping_sub(m[7]) as f64);
                }
                whole.push(o[8 * (n - 1)].wrapping_sub(o[8]) as f64 / (n - 2) as f64);
                raw.push(json!(&o[..8 * n + 1]));
            }
            self.check_err("gap_ew_probe")?;
            let name = format!("gap.ew.tile_{xb}x128.nlb_{nlb}.nsb_{nsb}.skip_{skip}");
            let params = vec![
                ("XBLOCK", v(xb)),
                ("YBLOCK", v(PH_BOX_W)),
                ("NUM_LOAD_BUFFERS", v(nlb)),
                ("NUM_STORE_BUFFERS", v(nsb)),
                ("skip", v(skip)),
                ("tiles", v(tiles)),
            ];
            let method = "ew_tma_pipelined at one CTA (A, B in L2 after a warm-up launch), thread 0 \
                          stamping clock64 at 8 points of every tile; skip: 1 no fence.proxy.async, \
                          2 no store, 4 no LDS/FADD/STS; per phase the median over tiles 1..30 of \
                          every launch; tile = (tile 31's full wait - tile 1's) / 30";
            self.push(Rec {
                name: format!("{name}.tile"),
                group: "gaps",
                unit: "cycles",
                kernel: "gap_ew_probe",
                method,
                params: params.clone(),
                reps: whole,
                extra: vec![("raw", v(&raw))],
            });
            for (k, phase) in PHASES.iter().enumerate() {
                let m = median(per[k].clone());
                self.push(Rec {
                    name: format!("{name}.{phase}"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_ew_probe",
                    method,
                    params: params.clone(),
                    reps: vec![m],
                    extra: vec![("samples", v(per[k].len()))],
                });
            }
        }
        Ok(())
    }

    /// Item 3: a 16 KiB bulk copy's latency from L2 and from HBM on one SM while every
    /// SM runs a load (none, an HBM stream, one 4 MiB span read by all, private spans);
    /// cycles per copy, median over 16 copies of each launch; the load's rate in extra.
    pub(crate) fn gaps_loaded(&mut self) -> Result<()> {
        let grid = self.sm_count;
        let p = self.arena.ptr;
        let (hsrc, hdst, span, private, probe_l2) = (
            p,
            p + 256 * MIB,
            p + 512 * MIB,
            p + 520 * MIB,
            p + 560 * MIB,
        );
        let (out, err) = (self.out.ptr, self.err.ptr);
        let flag = self.err.ptr + 64;
        self.k("gap_loaded")?.func.allow_smem(16384)?;
        let settle: i64 = 20_000;
        let reps = self.reps(4, 2);
        let mut launch_no: u64 = 0;
        for (load, lname, cap, poll) in [
            (0i32, "none", 1i64, 0i32),
            (1, "hbm_stream", 4000, 15),
            (2, "l2_shared_4MiB", 40_000, 255),
            (3, "l2_private_192KiB", 40_000, 255),
        ] {
            for (probe, pname) in [(0i32, "l2"), (1, "hbm")] {
                let (mut lat, mut raw) = (Vec::new(), Vec::new());
                for _ in 0..reps {
                    // HBM probes: 16 copies 1 MiB apart per launch, each launch at lines no
                    // earlier one read (16 launches: 576 to 832 MiB of the arena).
                    let probe_hbm = p + 576 * MIB + launch_no * 16 * MIB;
                    if probe == 1 {
                        launch_no = (launch_no + 1) % 16;
                    }
                    self.clear_err()?;
                    let ms = self.launch_timed(
                        "gap_loaded",
                        grid,
                        1024,
                        16384,
                        &[
                            arg(&hsrc),
                            arg(&hdst),
                            arg(&span),
                            arg(&private),
                            arg(&probe_l2),
                            arg(&probe_hbm),
                            arg(&load),
                            arg(&probe),
                            arg(&settle),
                            arg(&cap),
                            arg(&poll),
                            arg(&flag),
                            arg(&out),
                            arg(&err),
                        ],
                    )?;
                    self.check_err("gap_loaded")?;
                    let o = self.out_u64(64 + 4 * grid as usize)?;
                    lat.extend(o[..16].iter().map(|x| *x as f64));
                    let ctas = &o[64..];
                    let moved: u64 = ctas.chunks_exact(4).map(|c| c[2]).sum();
                    let spans: Vec<f64> = ctas
                        .chunks_exact(4)
                        .map(|c| c[1].wrapping_sub(c[0]) as f64)
                        .collect();
                    let span_med = median(spans.clone());
                    raw.push(json!({"copies": &o[..16], "event_ms": ms, "bytes_moved": moved,
                        "cta_span_median": span_med,
                        "chip_bytes_per_clk": moved as f64 / spans.iter().copied().fold(0.0, f64::max)}));
                }
                self.push(Rec {
                    name: format!("gap.loaded.{lname}.probe_{pname}_16KiB"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_loaded",
                    method: "every SM runs the load; CTA 0's thread 0, after 20k cycles, times 16 bulk \
                             copies of 16 KiB (from L2: each source copied once untimed first; from \
                             HBM: lines never read, 1 MiB apart), then raises a flag that ends the load; \
                             every copy of every launch",
                    params: vec![("load", v(lname)), ("grid", v(grid)), ("probe", v(pname))],
                    reps: lat,
                    extra: vec![("raw", v(&raw))],
                });
            }
        }
        Ok(())
    }
}

impl Runner {
    /// Item 2 (concurrent-SM L2 reuse): 128 CTAs stream a 16 MiB span warm in L2
    /// (`gap_share`: one thread keeps `stages` bulk copies of 32 KiB in flight), in groups
    /// of S CTAs that read the same lines at about the same time: CTAs c = g mod (128 / S)
    /// (`mod`: the first run's grouping, CTAs 128 / S apart) or consecutive CTAs c / S
    /// (`div`). S = 1: private streams (`bw.tma.l2.chip`); S = 128: every CTA the same
    /// bytes (`bw.tma.l2.chip.same_data`). With 4 stages the chip's L2 rate against the
    /// sharers per line; with 1 stage each copy's period (latency plus the loop) under that
    /// load; one SM alone for reference. Each launch's SM ids are kept in `extra.raw`.
    pub(crate) fn gaps_share(&mut self) -> Result<()> {
        let region: u64 = 16 * MIB;
        let chunk: u32 = 32 * 1024;
        let grid: u32 = 128;
        let per_block: u64 = 8 * MIB;
        let nchunks = (per_block / u64::from(chunk)) as i32;
        let (base, out, err) = (self.arena.ptr, self.out.ptr, self.err.ptr);
        let reps = self.reps(5, 2);
        let mut cases: Vec<(&str, u32, u64, u32, u32)> = Vec::new();
        for s in [1u32, 2, 4, 8, 16, 32, 128] {
            cases.push(("mod", grid, u64::from(s), 1, grid / s));
            if s > 1 && s < 128 {
                cases.push(("div", grid, u64::from(s), s, grid / s));
            }
        }
        cases.push(("one_sm", 1, 1, 1, 1));
        for stages in [4i32, 1] {
            let smem = chunk * stages as u32;
            self.k("gap_share")?.func.allow_smem(smem)?;
            for &(how, launch_grid, sharers, div, groups) in &cases {
                if stages == 1 && how == "div" {
                    continue;
                }
                let stride = region / u64::from(groups) / u64::from(chunk) * u64::from(chunk);
                let args = |n: &i32| {
                    [
                        arg(&base),
                        arg(&region),
                        arg(&stride),
                        arg(&div),
                        arg(&groups),
                        arg(&chunk),
                        arg(&stages),
                        arg(n),
                        arg(&out),
                        arg(&err),
                    ]
                };
                self.clear_err()?;
                let wn = (region / u64::from(chunk)) as i32;
                self.launch("gap_share", launch_grid, 32, smem, &args(&wn))?;
                let (mut bpc, mut per_copy, mut raw) = (Vec::new(), Vec::new(), Vec::new());
                for _ in 0..reps {
                    let ms =
                        self.launch_timed("gap_share", launch_grid, 32, smem, &args(&nchunks))?;
                    self.check_err("gap_share")?;
                    let bt = BlockTimes::parse(&self.out_u64(5 * launch_grid as usize)?);
                    let mhz = bt.mhz();
                    let ns = bt.span_ns();
                    let bytes = f64::from(nchunks) * f64::from(chunk) * f64::from(launch_grid);
                    bpc.push(bytes / (ns * mhz * 1e-3));
                    per_copy.push(median(bt.c.clone()) / f64::from(nchunks));
                    raw.push(json!({"event_ms": ms, "span_ns": ns, "clock_mhz": mhz,
                        "block_cycles": &bt.c, "smids": &bt.smids}));
                }
                let name = if launch_grid == 1 {
                    format!("gap.share.one_sm.stages_{stages}")
                } else {
                    format!("gap.share.{how}.sharers_{sharers}.stages_{stages}")
                };
                let params = vec![
                    ("grid", v(launch_grid)),
                    ("grouping", v(how)),
                    ("sharers", v(sharers)),
                    ("div", v(div)),
                    ("groups", v(groups)),
                    ("group_stride", v(stride)),
                    ("region_bytes", v(region)),
                    ("chunk_bytes", v(chunk)),
                    ("stages", v(stages)),
                    ("chunks_per_block", v(nchunks)),
                ];
                let method = "gap_share: CTA c streams the 16 MiB span (warm in L2) from ((c / div) mod \
                              groups) x 16 MiB / groups, one thread keeping `stages` bulk copies of 32 KiB \
                              in flight";
                self.push(Rec {
                    name: format!("{name}.bytes_per_clk"),
                    group: "gaps",
                    unit: "bytes_per_clk",
                    kernel: "gap_share",
                    method,
                    params: params.clone(),
                    reps: bpc,
                    extra: vec![("raw", v(&raw))],
                });
                self.push(Rec {
                    name: format!("{name}.cycles_per_copy"),
                    group: "gaps",
                    unit: "cycles",
                    kernel: "gap_share",
                    method,
                    params,
                    reps: per_copy,
                    extra: vec![],
                });
            }
        }
        Ok(())
    }
}

impl Runner {
    /// Item 4: the latency-hiding L1 pattern's cost per line (1.13 to 1.19 cycles from 16
    /// warps on with lanes 1 KiB apart, 1.00 with lanes 128 B apart) against where a
    /// warp-load's 32 lines fall: lanes S apart, each cycling through its own 8 lines 128 B
    /// apart (S = 1, 2, 4, 8 KiB, and 1 KiB + 128 B, which shifts each lane by a line),
    /// and the same footprint transposed (lanes 128 B apart, a lane's lines 4 KiB apart:
    /// every load 32 consecutive lines). `chase_own_lines_ld` (lines.cu), cycles per line.
    pub(crate) fn gaps_l1sets(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let steps: i32 = 256;
        let warm: i32 = 16;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let max_warps = 32u64;
        // (label, lane stride, step between a lane's lines, region per warp)
        let cases: [(&str, u64, u64, u64); 6] = [
            ("lanes_128B.lines_4KiB", 128, 4096, 32 * 1024),
            ("lanes_1KiB.lines_128B", 1024, 128, 32 * 1024),
            ("lanes_1152B.lines_128B", 1152, 128, 40 * 1024),
            ("lanes_2KiB.lines_128B", 2048, 128, 64 * 1024),
            ("lanes_4KiB.lines_128B", 4096, 128, 128 * 1024),
            ("lanes_8KiB.lines_128B", 8192, 128, 256 * 1024),
        ];
        for (label, lane_stride, step, region) in cases {
            let mut img = vec![0u64; (max_warps * region / 8) as usize];
            for w in 0..max_warps {
                let base = self.arena.ptr + w * region;
                for lane in 0..32u64 {
                    for j in 0..8u64 {
                        let from = lane * lane_stride + j * step;
                        let to = lane * lane_stride + ((j + 1) % 8) * step;
                        img[((w * region + from) / 8) as usize] = base + to;
                    }
                }
            }
            self.arena.upload(&img)?;
            for warps in [8u32, 12, 16, 24, 32] {
                let base = self.arena.ptr;
                self.launch(
                    "chase_own_lines_ld",
                    1,
                    32 * warps,
                    0,
                    &[
                        arg(&base),
                        arg(&region),
                        arg(&lane_stride),
                        arg(&warm),
                        arg(&steps),
                        arg(&reps),
                        arg(&out),
                        arg(&sink),
                    ],
                )?;
                let raw = self.out_u64(reps as usize)?;
                let lines = f64::from(steps) * f64::from(warps) * 32.0;
                self.push(Rec {
                    name: format!("gap.l1sets.{label}.warps_{warps}"),
                    group: "gaps",
                    unit: "cycles_per_line",
                    kernel: "chase_own_lines_ld",
                    method: "one block of WARPS warps, every lane chasing its own cycle of 8 lines \
                             (ld.global, allocating in L1) in its warp's region; cycles of 256 steps \
                             of every warp (between __syncthreads, after 16 untimed) per line",
                    params: vec![
                        ("lane_stride_bytes", v(lane_stride)),
                        ("line_step_bytes", v(step)),
                        ("region_bytes_per_warp", v(region)),
                        ("warps", v(warps)),
                        ("steps", v(steps)),
                    ],
                    reps: raw.iter().map(|x| *x as f64 / lines).collect(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gap_kernel_is_found_by_name() {
        let names = kernel_names(&source());
        for k in [
            "gap_smem_bw",
            "gap_share",
            "gap_ffma_burn",
            "gap_stream_burn",
            "gap_wgmma_burn",
            "gap_cluster2",
            "gap_cluster1",
            "gap_cta_bar",
            "gap_copy_wait",
            "gap_commit_plain",
            "gap_commit_empty",
            "gap_commit_two",
            "gap_commit_loop",
            "gap_commit_fence2",
            "gap_copy_phase",
            "gap_ew_probe",
            "gap_loaded",
            "gap_cluster2_relaxed",
            "gap_cluster1_relaxed",
            "gap_peer_mbar",
            "gap_local_mbar",
            "gap_ldc_chain",
            "gap_ldc_loop",
            "gap_fence",
            "gap_div_chain",
            "gap_icache_256",
            "gap_icache_8192",
            "gap_diverge",
            "gap_ctx",
            "gap_l1_spread",
        ] {
            assert!(names.iter().any(|n| n == k), "{k} not in {names:?}");
        }
        assert!(!names.iter().any(|n| n.starts_with("__")), "{names:?}");
        // The generated text leaves no placeholder behind.
        assert!(!source().contains("STMT"));
    }
}
