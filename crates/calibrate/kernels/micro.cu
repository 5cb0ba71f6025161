// smsim calibrate: microbenchmarks for one Hopper SM (sm_90a).
// Compiled at run time with NVRTC (no #include: NVRTC has no CUDA headers here).
// Timing: clock64 (SM cycles) inside the kernels; %globaltimer (ns) where wall time
// is wanted inside a kernel. Every spin loop is bounded so a bug cannot hang the GPU.

typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
struct __align__(16) V4 {
  u32 x, y, z, w;
};

#define DEV static __device__ __forceinline__
#define UNROLL _Pragma("unroll")
// about 1 s at 2 GHz: a wait longer than this is a failure, not a measurement
#define SPIN_LIMIT 2000000000ull

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
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}"
               : "=r"(r)
               : "l"(p));
  return r;
}

// ---------------------------------------------------------------- mbarrier helpers
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
// returns 0 on timeout
DEV int mbar_wait(u32 bar, u32 parity) {
  if (mbar_try(bar, parity)) return 1;
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > SPIN_LIMIT) return 0;
  }
  return 1;
}
DEV void bulk_g2s(u32 dst, const void* src, u32 bytes, u32 bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// ---------------------------------------------------------------- clock
// One thread spins for `cycles` SM cycles; records clock64 and globaltimer at both ends.
extern "C" __global__ void clk_spin(u64 cycles, u64* out) {
  if (threadIdx.x != 0) return;
  u64 c0 = clk();
  u64 g0 = gtime();
  u64 c;
  do {
    c = clk();
  } while (c - c0 < cycles);
  u64 g1 = gtime();
  out[4 * blockIdx.x + 0] = c0;
  out[4 * blockIdx.x + 1] = c;
  out[4 * blockIdx.x + 2] = g0;
  out[4 * blockIdx.x + 3] = g1;
}

// ---------------------------------------------------------------- dependent ALU chains
// One thread. Per repetition: a chain of CHAIN_A then a chain of CHAIN_B dependent
// instructions, each timed; latency = (tB - tA) / (CHAIN_B - CHAIN_A) removes the
// constant cost of the clock reads.
#define CHAIN_A 64
#define CHAIN_B 320
#define LAT_CHAIN(NAME, T, C, INSTR)                                                  \
  extern "C" __global__ void NAME(u64* out, T a, T b, T x0, int reps, T* sink) {    \
    T x = x0;                                                                         \
    for (int r = 0; r < reps; ++r) {                                                  \
      u64 t0 = clk();                                                                 \
      UNROLL for (int i = 0; i < CHAIN_A; ++i) asm volatile(INSTR : "+" C(x) : C(a), C(b)); \
      u64 t1 = clk();                                                                 \
      UNROLL for (int i = 0; i < CHAIN_B; ++i) asm volatile(INSTR : "+" C(x) : C(a), C(b)); \
      u64 t2 = clk();                                                                 \
      out[2 * r] = t1 - t0;                                                           \
      out[2 * r + 1] = t2 - t1;                                                       \
    }                                                                                 \
    sink[threadIdx.x] = x;                                                            \
  }

LAT_CHAIN(lat_ffma, float, "f", "fma.rn.f32 %0, %0, %1, %2;")
LAT_CHAIN(lat_fadd, float, "f", "add.rn.f32 %0, %0, %1;")
LAT_CHAIN(lat_imad, u32, "r", "mad.lo.u32 %0, %0, %1, %2;")
// two PTX adds that ptxas fuses into one IADD3 x, a, x, b per step
LAT_CHAIN(lat_iadd3, u32, "r", "{ .reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2; }")
LAT_CHAIN(lat_lop3, u32, "r", "lop3.b32 %0, %0, %1, %2, 0x96;")
LAT_CHAIN(lat_mufu_ex2, float, "f", "ex2.approx.ftz.f32 %0, %0;")
// |x| keeps ptxas from folding rcp(rcp(x)) into x (MUFU.RCP R, |R|)
LAT_CHAIN(lat_mufu_rcp, float, "f", "{ .reg .f32 t; abs.f32 t, %0; rcp.approx.ftz.f32 %0, t; }")

// LDS pointer chase: each 32-bit word holds the shared address of the next word.
extern "C" __global__ void lat_lds(u64* out, int reps, u32* sink) {
  __shared__ u32 buf[64];
  u32 base = smaddr(buf);
  if (threadIdx.x == 0)
    for (int i = 0; i < 64; ++i) buf[i] = base + 4u * ((i + 1) % 64);
  __syncthreads();
  if (threadIdx.x != 0) return;
  u32 x = base;
  for (int r = 0; r < reps; ++r) {
    u64 t0 = clk();
    UNROLL for (int i = 0; i < CHAIN_A; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x)::"memory");
    u64 t1 = clk();
    UNROLL for (int i = 0; i < CHAIN_B; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x)::"memory");
    u64 t2 = clk();
    out[2 * r] = t1 - t0;
    out[2 * r + 1] = t2 - t1;
  }
  sink[0] = x;
}

// ---------------------------------------------------------------- global pointer chase
// The buffer holds a cycle of 64-bit pointers (each line's first word points to the next
// line of a random permutation). One thread:
//   1. warm_steps untimed steps (brings the cycle into the caches),
//   2. `chunks` timed chunks of chunk_steps steps each (mean latency per chunk),
//   3. rec_steps steps timed one by one (distribution; each sample also holds the cost
//      of the clock reads and one STS, measured by the same kernel at an L1 footprint).
#define REC_MAX 2048
#define CHASE(NAME, LD)                                                                               \
  extern "C" __global__ void NAME(const u64* start, i64 warm_steps, int chunk_steps, int chunks,    \
                                  int rec_steps, u64* out_chunks, u32* out_rec, u64* sink) {        \
    __shared__ u32 rec[REC_MAX];                                                                      \
    __shared__ __align__(8) u64 scratch[1];                                                           \
    if (threadIdx.x != 0) return;                                                                     \
    u32 sslot = smaddr(scratch);                                                                      \
    u64 p = (u64)start;                                                                               \
    for (i64 i = 0; i < warm_steps; ++i) asm volatile(LD : "+l"(p)::"memory");                       \
    for (int c = 0; c < chunks; ++c) {                                                                \
      u64 t0 = clk();                                                                                 \
      for (int i = 0; i < chunk_steps; i += 8) {                                                      \
        UNROLL for (int u = 0; u < 8; ++u) asm volatile(LD : "+l"(p)::"memory");                     \
      }                                                                                               \
      u64 t1 = clk();                                                                                 \
      out_chunks[c] = t1 - t0;                                                                        \
    }                                                                                                 \
    int n = rec_steps < REC_MAX ? rec_steps : REC_MAX;                                                \
    for (int i = 0; i < n; ++i) {                                                                     \
      u64 dt;                                                                                         \
      asm volatile("{\n\t.reg .u64 t0, t1;\n\tmov.u64 t0, %%clock64;\n\t" LD                           \
                   "\n\tst.shared.u64 [%2], %0;\n\tmov.u64 t1, %%clock64;\n\tsub.u64 %1, t1, t0;\n\t}" \
                   : "+l"(p), "=l"(dt)                                                                \
                   : "r"(sslot)                                                                       \
                   : "memory");                                                                       \
      rec[i] = (u32)dt;                                                                               \
    }                                                                                                 \
    for (int i = 0; i < n; ++i) out_rec[i] = rec[i];                                                  \
    out_chunks[chunks] = smid();                                                                      \
    sink[0] = p;                                                                                      \
  }

// ld.global (weak, the default: LDG.E.64, cached in L1), .ca (LDG.E.64.STRONG.SM) and
// .cg (LDG.E.64.STRONG.GPU, not cached in L1), as ptxas 13.0 translates them.
CHASE(chase_ld, "ld.global.u64 %0, [%0];")
CHASE(chase_ca, "ld.global.ca.u64 %0, [%0];")
CHASE(chase_cg, "ld.global.cg.u64 %0, [%0];")

// Every block's thread 0 chases the same cycle: warm_steps untimed, then `steps` timed;
// out[2*block] = SM id, out[2*block+1] = cycles. One block per SM maps the L2 latency
// each SM sees (near and far L2 partitions).
extern "C" __global__ void chase_sm(const u64* start, i64 warm_steps, int steps, u64* out, u64* sink) {
  if (threadIdx.x != 0) return;
  u64 p = (u64)start;
  for (i64 i = 0; i < warm_steps; ++i) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
  u64 t0 = clk();
  for (int i = 0; i < steps; i += 8) {
    UNROLL for (int u = 0; u < 8; ++u) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
  }
  u64 t1 = clk();
  out[2 * blockIdx.x] = smid();
  out[2 * blockIdx.x + 1] = t1 - t0;
  sink[blockIdx.x] = p;
}

// One warp, every lane chasing its own cycle of 64-bit pointers, the lanes of one
// warp-load spread over `lines` 128-byte lines: lane i reads offset (i % lines) * 128 +
// ((i / lines) % 16) * 8 of the current 4 KiB block, whose pointer leads to the same
// offset of the next block. So every step is one warp-load touching exactly `lines`
// lines (max(lines, 4) or more 32-byte sectors) that depends on the step before.
// out[r] = cycles of `steps` steps (after `warm` untimed steps).
#define CHASE_LINES(NAME, LD)                                                                   \
  extern "C" __global__ void NAME(const char* base, int lines, int warm, int steps, int reps, \
                                  u64* out, u64* sink) {                                      \
    int i = threadIdx.x;                                                                        \
    u64 p = (u64)(base + (i % lines) * 128 + ((i / lines) % 16) * 8);                           \
    for (int s = 0; s < warm; ++s) asm volatile(LD : "+l"(p)::"memory");                        \
    for (int r = 0; r < reps; ++r) {                                                            \
      __syncwarp();                                                                             \
      u64 t0 = clk();                                                                           \
      for (int s = 0; s < steps; s += 8) {                                                      \
        UNROLL for (int u = 0; u < 8; ++u) asm volatile(LD : "+l"(p)::"memory");               \
      }                                                                                         \
      __syncwarp();                                                                             \
      u64 t1 = clk();                                                                           \
      if (i == 0) out[r] = t1 - t0;                                                             \
    }                                                                                           \
    sink[i] = p;                                                                                \
  }
CHASE_LINES(chase_lines_ld, "ld.global.u64 %0, [%0];")
CHASE_LINES(chase_lines_cg, "ld.global.cg.u64 %0, [%0];")

// Writes the pointer cycle: line order[i] points to line order[i+1].
extern "C" __global__ void build_chain(char* base, const u32* order, u64 n, u64 stride) {
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
    u64 cur = order[i];
    u64 nxt = order[(i + 1) % n];
    *(u64*)(base + cur * stride) = (u64)(base + nxt * stride);
  }
}

// ---------------------------------------------------------------- LDGSTS (cp.async) chase
// Each step: cp.async 16 B (the next pointer) to shared, commit, wait_group 0, LDS it back.
#define LDGSTS(NAME, INSTR)                                                                        \
  extern "C" __global__ void NAME(const u64* start, int steps, int reps, u64* out, u64* sink) {   \
    __shared__ __align__(16) u64 slot[2];                                                          \
    if (threadIdx.x != 0) return;                                                                  \
    u32 s = smaddr(slot);                                                                          \
    u64 p = (u64)start;                                                                            \
    for (int r = 0; r < reps; ++r) {                                                               \
      u64 t0 = clk();                                                                              \
      for (int i = 0; i < steps; i += 4) {                                                         \
        UNROLL for (int u = 0; u < 4; ++u) asm volatile(                                           \
            INSTR "\n\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tld.shared.u64 %0, [%1];" \
            : "+l"(p)                                                                              \
            : "r"(s)                                                                               \
            : "memory");                                                                           \
      }                                                                                            \
      u64 t1 = clk();                                                                              \
      out[r] = t1 - t0;                                                                            \
    }                                                                                              \
    sink[0] = p;                                                                                   \
  }

LDGSTS(lat_ldgsts_ca16, "cp.async.ca.shared.global [%1], [%0], 16;")
LDGSTS(lat_ldgsts_cg16, "cp.async.cg.shared.global [%1], [%0], 16;")

// ---------------------------------------------------------------- bulk copy (UBLKCP) latency
// One thread: per repetition, expect_tx + cp.async.bulk of `bytes` from src + r*src_step,
// then wait on the mbarrier. Cycles from before the arrive to after the wait succeeds.
extern "C" __global__ void lat_bulk(const char* src, u64 src_step, u32 bytes, int reps, u64* out, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem;
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  u32 dst = smaddr(dsm);
  mbar_init(bar, 1);
  mbar_fence_init();
  u32 parity = 0;
  for (int r = 0; r < reps; ++r) {
    const char* s = src + (u64)r * src_step;
    u64 t0 = clk();
    mbar_expect_tx(bar, bytes);
    bulk_g2s(dst, s, bytes, bar);
    if (!mbar_wait(bar, parity)) {
      err[0] = 1;
      return;
    }
    u64 t1 = clk();
    parity ^= 1;
    out[r] = t1 - t0;
  }
}

// ---------------------------------------------------------------- tensor-map copy (UTMALDG)
struct __align__(64) TmapT {
  u64 d[16];
};
// 2D tile load of a box (64 x rows u32 elements) at (0, r*y_step).
extern "C" __global__ void lat_tma2d(const __grid_constant__ TmapT tm, u32 box_bytes, int y_step, int reps, u64* out,
                                     int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem;
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  u32 dst = smaddr(dsm);
  mbar_init(bar, 1);
  mbar_fence_init();
  u64 tmap = (u64)&tm;
  u32 parity = 0;
  for (int r = 0; r < reps; ++r) {
    int y = r * y_step;
    int x = 0;
    u64 t0 = clk();
    mbar_expect_tx(bar, box_bytes);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];" ::"r"(dst),
        "l"(tmap), "r"(x), "r"(y), "r"(bar)
        : "memory");
    if (!mbar_wait(bar, parity)) {
      err[0] = 1;
      return;
    }
    u64 t1 = clk();
    parity ^= 1;
    out[r] = t1 - t0;
  }
}

// ---------------------------------------------------------------- mbarrier between warps
// Warp 0 lane 0 arrives on bar0 and waits on bar1; warp 1 lane 0 waits on bar0 and
// arrives on bar1. One round trip = two arrive-to-wait hand-offs.
extern "C" __global__ void lat_mbar_pingpong(int iters, int reps, u64* out, int* err) {
  __shared__ __align__(8) u64 bars[2];
  u32 b0 = smaddr(&bars[0]), b1 = smaddr(&bars[1]);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(b0, 1);
    mbar_init(b1, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (lane != 0 || warp > 1) return;
  u32 ph = 0;
  for (int r = 0; r < reps; ++r) {
    u64 t0 = clk();
    for (int i = 0; i < iters; ++i) {
      if (warp == 0) {
        mbar_arrive(b0);
        if (!mbar_wait(b1, ph)) {
          err[0] = 1;
          return;
        }
      } else {
        if (!mbar_wait(b0, ph)) {
          err[0] = 2;
          return;
        }
        mbar_arrive(b1);
      }
      ph ^= 1;
    }
    u64 t1 = clk();
    if (warp == 0) out[r] = t1 - t0;
  }
}

// One thread arrives (count 1) and then waits on the completed phase: local cost.
extern "C" __global__ void lat_mbar_self(int iters, int reps, u64* out, int* err) {
  __shared__ __align__(8) u64 bar_mem;
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  mbar_init(bar, 1);
  mbar_fence_init();
  u32 ph = 0;
  for (int r = 0; r < reps; ++r) {
    u64 t0 = clk();
    for (int i = 0; i < iters; ++i) {
      mbar_arrive(bar);
      if (!mbar_wait(bar, ph)) {
        err[0] = 1;
        return;
      }
      ph ^= 1;
    }
    u64 t1 = clk();
    out[r] = t1 - t0;
  }
}

// One thread waits, again and again, on a phase that completed long before: the cost of
// a try_wait whose answer is "complete" (its predicate decides the branch, so the next
// one issues after it). Against lat_mbar_self (arrive, then wait) it splits the arrive's
// own latency from the probe's.
extern "C" __global__ void lat_mbar_probe(int iters, int reps, u64* out, int* err) {
  __shared__ __align__(8) u64 bar_mem;
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  mbar_init(bar, 1);
  mbar_fence_init();
  mbar_arrive(bar);
  if (!mbar_wait(bar, 0)) {
    err[0] = 1;
    return;
  }
  for (int r = 0; r < reps; ++r) {
    u64 t0 = clk();
    for (int i = 0; i < iters; ++i) {
      if (!mbar_wait(bar, 0)) {
        err[0] = 2;
        return;
      }
    }
    u64 t1 = clk();
    out[r] = t1 - t0;
  }
}

// ---------------------------------------------------------------- BAR.SYNC
extern "C" __global__ void __launch_bounds__(1024, 1) lat_barsync(int iters, int reps, u64* out) {
  for (int r = 0; r < reps; ++r) {
    asm volatile("bar.sync 0;" ::: "memory");
    u64 t0 = clk();
    for (int i = 0; i < iters; i += 8) {
      UNROLL for (int u = 0; u < 8; ++u) asm volatile("bar.sync 0;" ::: "memory");
    }
    u64 t1 = clk();
    if (threadIdx.x == 0) out[r] = t1 - t0;
  }
}

// ---------------------------------------------------------------- per-SM throughput
// Each warp's lane 0 records (start, end) clock64; the host takes max(end) - min(start).
#define TP_CHAINS 8
#define TP_KERNEL(NAME, INSTR)                                                        \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(int iters, float a, float b, u64* times, float* sink) { \
    float x[TP_CHAINS];                                                               \
    UNROLL for (int k = 0; k < TP_CHAINS; ++k) x[k] = threadIdx.x * 1e-3f + k;        \
    __syncthreads();                                                                  \
    u64 c0 = clk();                                                                   \
    for (int it = 0; it < iters; ++it) {                                              \
      UNROLL for (int u = 0; u < 16; ++u) UNROLL for (int k = 0; k < TP_CHAINS; ++k)  \
          asm volatile(INSTR : "+f"(x[k]) : "f"(a), "f"(b));                          \
    }                                                                                 \
    u64 c1 = clk();                                                                   \
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;                             \
    if ((threadIdx.x & 31) == 0) {                                                    \
      times[2 * w] = c0;                                                              \
      times[2 * w + 1] = c1;                                                          \
    }                                                                                 \
    float s = 0.f;                                                                    \
    UNROLL for (int k = 0; k < TP_CHAINS; ++k) s += x[k];                             \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s;                                  \
  }

TP_KERNEL(tp_ffma, "fma.rn.f32 %0, %0, %1, %2;")
TP_KERNEL(tp_mufu_ex2, "ex2.approx.ftz.f32 %0, %0;")
TP_KERNEL(tp_mufu_rcp, "{ .reg .f32 t; abs.f32 t, %0; rcp.approx.ftz.f32 %0, t; }")

// Shared-memory load throughput (TP_LDS_UNR loads per iteration; 16 made ptxas spill).
#define TP_LDS_UNR 8
// vec = 4: LDS.128 (512 B per warp instruction);
// vec = 1: LDS.32 (128 B). Conflict-free addresses.
#define TP_LDS(NAME, VEC)                                                                     \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(int iters, u64* times, u32* sink) {                       \
    __shared__ __align__(16) u32 buf[8192];                                                 \
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) buf[i] = i * 2654435761u;          \
    __syncthreads();                                                                        \
    u32 base = smaddr(buf) + (threadIdx.x & 31) * 4 * VEC;                                  \
    u32 acc = 0;                                                                            \
    u64 c0 = clk();                                                                         \
    for (int it = 0; it < iters; ++it) {                                                    \
      /* a new window every iteration, so ptxas cannot hoist the loads out of the loop */   \
      u32 bi = base + (it & 7) * (TP_LDS_UNR * 128 * VEC);                                  \
      UNROLL for (int u = 0; u < TP_LDS_UNR; ++u) {                                         \
        u32 v0, v1, v2, v3;                                                                 \
        if (VEC == 4)                                                                       \
          asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"                              \
                       : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)                             \
                       : "r"(bi + u * 128 * VEC));                                          \
        else {                                                                              \
          asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v0) : "r"(bi + u * 128 * VEC));     \
          v1 = v2 = v3 = 0;                                                                 \
        }                                                                                   \
        acc ^= v0 ^ v1 ^ v2 ^ v3;                                                           \
      }                                                                                     \
    }                                                                                       \
    u64 c1 = clk();                                                                         \
    int w = threadIdx.x / 32;                                                               \
    if ((threadIdx.x & 31) == 0) {                                                          \
      times[2 * w] = c0;                                                                    \
      times[2 * w + 1] = c1;                                                                \
    }                                                                                       \
    sink[threadIdx.x] = acc;                                                                \
  }

TP_LDS(tp_lds128, 4)
TP_LDS(tp_lds32, 1)

// ---------------------------------------------------------------- memory bandwidth (LDG)
// Grid-stride streaming read of 16-byte vectors, BW_UNR independent loads per iteration,
// addresses wrapped into a power-of-two region (`mask` = elements - 1). Thread 0 of each
// block records clock64 and globaltimer at both ends, between __syncthreads.
#define BW_UNR 8
extern "C" __global__ void __launch_bounds__(1024, 1) bw_ld(const V4* base, u64 mask, u64 iters, u64* times, u32* sink) {
  u64 T = (u64)gridDim.x * blockDim.x;
  u64 idx = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  u32 acc = 0;
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  for (u64 it = 0; it < iters; ++it) {
    u32 vx[BW_UNR], vy[BW_UNR], vz[BW_UNR], vw[BW_UNR];
    UNROLL for (int u = 0; u < BW_UNR; ++u) {
      const V4* p = base + ((idx + (it * BW_UNR + u) * T) & mask);
      asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(vx[u]), "=r"(vy[u]), "=r"(vz[u]), "=r"(vw[u]) : "l"(p));
    }
    UNROLL for (int u = 0; u < BW_UNR; ++u) acc ^= vx[u] ^ vy[u] ^ vz[u] ^ vw[u];
  }
  __syncthreads();
  u64 c1 = clk(), g1 = gtime();
  if (threadIdx.x == 0) {
    times[5 * blockIdx.x + 0] = c0;
    times[5 * blockIdx.x + 1] = c1;
    times[5 * blockIdx.x + 2] = g0;
    times[5 * blockIdx.x + 3] = g1;
    times[5 * blockIdx.x + 4] = smid();
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

// ---------------------------------------------------------------- TMA (bulk copy) bandwidth
// One thread per block keeps `stages` bulk copies of `chunk` bytes in flight into a ring
// of shared-memory slots; nchunks copies per block, from base + ((block*block_stride +
// k*chunk) mod region).
extern "C" __global__ void bw_bulk(const char* base, u64 region, u64 block_stride, u32 chunk, int stages, int nchunks,
                                   u64* times, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[8];
  if (threadIdx.x != 0) return;
  if (stages > 8) stages = 8;
  u32 d0 = smaddr(dsm);
  for (int s = 0; s < stages; ++s) mbar_init(smaddr(&bars[s]), 1);
  mbar_fence_init();
  u64 off0 = (u64)blockIdx.x * block_stride;
  u32 parity = 0;
  u64 c0 = clk(), g0 = gtime();
  // the source offset advances without a 64-bit modulo (a dependent chain of ~70
  // instructions that, in this one thread, cost more than a copy)
  u64 off = off0 % region;
  int issued = 0;
  for (int s = 0; s < stages && issued < nchunks; ++s, ++issued) {
    u32 bar = smaddr(&bars[s]);
    mbar_expect_tx(bar, chunk);
    bulk_g2s(d0 + s * chunk, base + off, chunk, bar);
    off += chunk;
    if (off >= region) off -= region;
  }
  for (int done = 0, s = 0; done < nchunks; ++done, s = (s + 1 == stages) ? 0 : s + 1) {
    u32 bar = smaddr(&bars[s]);
    if (!mbar_wait(bar, (parity >> s) & 1)) {
      err[0] = 1;
      return;
    }
    parity ^= 1u << s;
    if (issued < nchunks) {
      mbar_expect_tx(bar, chunk);
      bulk_g2s(d0 + s * chunk, base + off, chunk, bar);
      off += chunk;
      if (off >= region) off -= region;
      ++issued;
    }
  }
  u64 c1 = clk(), g1 = gtime();
  times[5 * blockIdx.x + 0] = c0;
  times[5 * blockIdx.x + 1] = c1;
  times[5 * blockIdx.x + 2] = g0;
  times[5 * blockIdx.x + 3] = g1;
  times[5 * blockIdx.x + 4] = smid();
}
