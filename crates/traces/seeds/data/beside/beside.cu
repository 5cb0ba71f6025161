// smsim traces, issue 30: what a busy tensor core does to the instructions beside it on
// the H100 (the mechanism behind FA3's softmax running ~1300 cycles beside the other
// warpgroup's GEMMs where its pipes overlap to ~600 alone: ../pingpong-split).
//
// One block of 384 threads on one SM. Warpgroups 0 and 1 ("tensor") keep the tensor core
// busy in one of several modes (TMODE, a run-time argument):
//   0 idle (they wait at the final barrier: the probe runs alone),
//   1 SS m64n128k16 bf16, f32 accumulators, 4 per commit, wait_group 1 (queue full),
//   2 SS m64n128k16 f16 with f16 accumulators (32 registers a thread instead of 64),
//   3 as 1 with scale-d 0 (D = A B: the accumulators are written, not read),
//   4 serial: one SS wgmma, commit, wait_group 0 (the tensor queue never full),
//   5 RS (A from registers, FA3's P V form), f32 accumulators, as 1,
//   6 SS f16 operands, f32 accumulators (2's control).
// Warpgroup 2 ("probe", one warp per sub-partition) runs a probe body R times; each warp
// stamps clock64 before and after (in registers, stored after the loop). The tensor
// warps count their iterations and stamp clock64 when the probe starts and when it ends
// (a flag in shared memory, read once an iteration), so the tensor core's rate beside
// the probe is known.
//
// Probes (PROBE, a template argument; per body):
//   latency, one dependent chain: 1 FFMA(imm), 2 FMUL(imm), 3 FADD, 4 FMNMX, 5 MUFU.EX2,
//     6 F2FP, 7 FFMA->MUFU pairs, 8 FMNMX->FFMA pairs, 9 MUFU->FADD pairs (64
//     instructions);
//   throughput, 8 independent chains: 10 FFMA R,R,imm,R (one register read), 11 MUFU,
//     12 FMNMX, 13 FFMA and MUFU interleaved (independent), 14 FMNMX and MUFU
//     interleaved (independent), 15 FFMA->MUFU dependent pairs, 30 FFMA R,R,R,R (three
//     register reads, no reuse), 31 FMUL R,R,R;
//   FA3's softmax on 64 registers (../pingpong-split's softmax + rescale_convert): 16 + SMX
//     for SMX 0..7 (1 row max, 2 FMA work, 4 exponentials; the 32 F2FP always);
//   FMA density: 24, 25, 26: 64 FFMA (8 chains) then a dependent MUFU chain of 4, 16, 64;
//   barriers among the 4 probe warps (bar.sync 1, 128), 16 a body: 27 STS then BAR,
//     28 FFMA then BAR, 29 BAR alone.
//   0: no work (a clock spin): the tensor core's own rate in this harness.
//
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o beside beside.cu
// Run: ./beside OUTDIR (writes OUTDIR/beside.csv, prints the summary).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
// K-major, no swizzle: core matrices of 8 rows x 16 B, LBO 128 B, SBO 256 B.
DEV u64 desc(u32 saddr, u32 lbo, u32 sbo) {
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32);
}
DEV u32 hash(u32 i) {
  u32 h = i * 2654435761u;
  h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
  return h;
}
// Two random bf16: random sign and mantissa, exponent 2^-7 .. 2^8 (as f16: about 1..4).
DEV u32 rand_bf16x2(u32 i) {
  u32 h = hash(i);
  u32 lo = (h & 0x807Fu) | ((120u + ((h >> 8) & 15u)) << 7);
  u32 hi = ((h >> 16) & 0x807Fu) | ((120u + ((h >> 24) & 15u)) << 7);
  return lo | (hi << 16);
}

#include "wgmma_macros.h"

#define FENCE() asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define COMMIT() asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory")
#define WAIT(n) asm volatile("wgmma.wait_group.sync.aligned " #n ";" ::: "memory")

// ---- probe bodies ----
struct PS {
  float x[8], y[8], z[8], d[64], w[8], m[8];
  u32 pa[32];
  float sc;
  u32 sts;  // the warp's own shared word (probes 27-29)
};

#define FFMA_I(v) asm volatile("fma.rn.f32 %0, %0, 0f3F7FBE77, 0f3A83126F;" : "+f"(v))
#define FMUL_I(v) asm volatile("mul.f32 %0, %0, 0f3F7FFFFE;" : "+f"(v))
#define FADD_R(v, r) asm volatile("add.f32 %0, %0, %1;" : "+f"(v) : "f"(r))
#define FMNMX_R(v, r) asm volatile("max.f32 %0, %0, %1;" : "+f"(v) : "f"(r))
#define EX2N(v) asm volatile("{\n\t.reg .f32 t;\n\tneg.f32 t, %0;\n\tex2.approx.ftz.f32 %0, t;\n\t}" : "+f"(v))
#define F2FP_R(v, r) \
  asm volatile("{\n\t.reg .b32 t;\n\tcvt.rn.bf16x2.f32 t, %0, %1;\n\tmov.b32 %0, t;\n\t}" : "+f"(v) : "f"(r))
#define FFMA_EX2(v) \
  asm volatile("{\n\t.reg .f32 t;\n\tfma.rn.f32 t, %0, 0fBF7FBE77, 0fBA83126F;\n\tex2.approx.ftz.f32 %0, t;\n\t}" : "+f"(v))
#define FMNMX_FFMA(v, r) \
  asm volatile("{\n\t.reg .f32 t;\n\tmax.f32 t, %0, %1;\n\tfma.rn.f32 %0, t, 0f3F7FBE77, 0f3A83126F;\n\t}" : "+f"(v) : "f"(r))
#define EX2_FADD(v, r) \
  asm volatile("{\n\t.reg .f32 t;\n\tneg.f32 t, %0;\n\tex2.approx.ftz.f32 t, t;\n\tadd.f32 %0, t, %1;\n\t}" : "+f"(v) : "f"(r))
#define FFMA_RRR(v, a, b) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(v) : "f"(a), "f"(b))
#define FMUL_RR(v, a) asm volatile("mul.f32 %0, %0, %1;" : "+f"(v) : "f"(a))
#define BAR1() asm volatile("bar.sync 1, 128;" ::: "memory")

// FA3's softmax of a 64 x 128 tile at its per-thread counts, parts kept by SMX (as
// ../pingpong-split/pingpong_split.cu), then O's rescale and P's conversion.
template <int SMX>
DEV void softmax(PS& s) {
  float mx[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) mx[k] = s.x[k];
  if constexpr ((SMX & 1) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) mx[i % 8] = fmaxf(mx[i % 8], s.d[i]);
  }
  if constexpr ((SMX & 2) != 0) {
#pragma unroll
    for (int k = 0; k < 8; ++k) mx[k] *= 1.0e-3f;
#pragma unroll
    for (int i = 0; i < 64; ++i) s.d[i] = fmaf(s.d[i], 1.0e-3f, -mx[i % 8]);
  }
  if constexpr ((SMX & 4) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(s.d[i]));
  }
  if constexpr ((SMX & 2) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) s.x[i % 8] += s.d[i];
  } else {
#pragma unroll
    for (int k = 0; k < 8; ++k) s.x[k] = mx[k];
  }
  if constexpr ((SMX & 4) != 0) {
    float arg = (SMX & 2) != 0 ? -mx[0] * 1.0e-6f : mx[0];
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(s.sc) : "f"(arg));
  }
  if constexpr ((SMX & 2) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) s.w[i % 8] *= s.sc;
  }
#pragma unroll
  for (int i = 0; i < 32; ++i)
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(s.pa[i]) : "f"(s.d[2 * i + 1]), "f"(s.d[2 * i]));
  // The next body's S: P's bits fed back (a dependence, as the next GEMM0's S would be),
  // kept in a sane range.
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    s.d[2 * i] = __uint_as_float((s.pa[i] & 0x807f807fu) | 0x3f003f00u);
  }
}

template <int P>
DEV void body(PS& s) {
  if constexpr (P >= 1 && P <= 9) {
    float& v = s.x[0];
#pragma unroll
    for (int i = 0; i < (P >= 7 ? 32 : 64); ++i) {
      if constexpr (P == 1) FFMA_I(v);
      if constexpr (P == 2) FMUL_I(v);
      if constexpr (P == 3) FADD_R(v, s.y[0]);
      if constexpr (P == 4) FMNMX_R(v, s.y[i % 8]);
      if constexpr (P == 5) EX2N(v);
      if constexpr (P == 6) F2FP_R(v, s.y[0]);
      if constexpr (P == 7) FFMA_EX2(v);
      if constexpr (P == 8) FMNMX_FFMA(v, s.y[i % 8]);
      if constexpr (P == 9) EX2_FADD(v, s.y[0]);
    }
  } else if constexpr ((P >= 10 && P <= 15) || P == 30 || P == 31) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        if constexpr (P == 10) FFMA_I(s.x[k]);
        if constexpr (P == 11) EX2N(s.x[k]);
        if constexpr (P == 12) FMNMX_R(s.x[k], s.y[(k + u) % 8]);
        if constexpr (P == 13) { FFMA_I(s.x[k]); EX2N(s.m[k]); }
        if constexpr (P == 14) { FMNMX_R(s.x[k], s.y[(k + u) % 8]); EX2N(s.m[k]); }
        if constexpr (P == 15) FFMA_EX2(s.x[k]);
        if constexpr (P == 30) FFMA_RRR(s.x[k], s.y[k], s.z[k]);
        if constexpr (P == 31) FMUL_RR(s.x[k], s.y[k]);
      }
    }
  } else if constexpr (P >= 16 && P <= 23) {
    softmax<P - 16>(s);
  } else if constexpr (P >= 24 && P <= 26) {
    constexpr int L = P == 24 ? 4 : (P == 25 ? 16 : 64);
#pragma unroll
    for (int u = 0; u < 8; ++u) {
#pragma unroll
      for (int k = 0; k < 8; ++k) FFMA_I(s.x[k]);
    }
    // The chain starts from the FFMAs' results, so it cannot run beside them.
    float v = s.m[0] + s.x[0] * 0.f;
#pragma unroll
    for (int i = 0; i < L; ++i) EX2N(v);
    s.m[0] = v;
  } else if constexpr (P >= 27 && P <= 29) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      if constexpr (P == 27) asm volatile("st.shared.u32 [%0], %1;" ::"r"(s.sts), "r"(__float_as_uint(s.x[i % 8])) : "memory");
      if constexpr (P == 28) FFMA_I(s.x[i % 8]);
      BAR1();
    }
  }
}

struct Cfg {
  int tmode;
  int reps;          // R: probe bodies between the stamps
  long long titers;  // the tensor warps' iterations
};

// out per block: 4 probe warps x (t0, t1), then 8 tensor warps x (ca, na, cb, nb).
#define OUTN (4 * 2 + 8 * 4)

template <int P>
__global__ void __launch_bounds__(384, 1) kern(Cfg c, u64* out, float* sink) {
  __shared__ __align__(128) unsigned char sm[2048 + 4096];
  __shared__ u32 words[128];
  __shared__ volatile int flag;
  for (int i = threadIdx.x; i < (2048 + 4096) / 4; i += blockDim.x) ((u32*)sm)[i] = rand_bf16x2(i);
  if (threadIdx.x == 0) flag = 0;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  int wg = threadIdx.x / 128, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc = 0.f;
  if (wg < 2) {
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.f;
    u32 ra[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) ra[i] = rand_bf16x2(threadIdx.x * 4 + i + 7777);
    u32 h[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) h[i] = 0;
    long long na = 0, nb = 0;
    u64 ca = 0, cb = 0;
    bool seen_a = false, seen_b = false;
    // A fixed count (c.titers, sized by the host to outlast the probe several times): a
    // warpgroup's wgmmas must be issued by all its warps, so no warp may leave on its
    // own reading of the flag. The flag only stamps the probe's window.
#define TLOOP(BODY)                                                    \
  for (long long it = 1; it <= c.titers; ++it) {                       \
    BODY;                                                              \
    int f = flag;                                                      \
    if (f >= 1 && !seen_a) { seen_a = true; ca = clk(); na = it; }     \
    if (f == 2 && !seen_b) { seen_b = true; cb = clk(); nb = it; }     \
  }
    if (c.tmode == 1) {
      TLOOP(FENCE(); WGMMA_SS(d, da, db); WGMMA_SS(d, da, db); WGMMA_SS(d, da, db); WGMMA_SS(d, da, db);
            COMMIT(); WAIT(1));
    } else if (c.tmode == 2) {
      TLOOP(FENCE(); WGMMA_SS_H(h, da, db); WGMMA_SS_H(h, da, db); WGMMA_SS_H(h, da, db); WGMMA_SS_H(h, da, db);
            COMMIT(); WAIT(1));
    } else if (c.tmode == 3) {
      TLOOP(FENCE(); WGMMA_SS_Z(d, da, db); WGMMA_SS_Z(d, da, db); WGMMA_SS_Z(d, da, db); WGMMA_SS_Z(d, da, db);
            COMMIT(); WAIT(1));
    } else if (c.tmode == 4) {
      TLOOP(FENCE(); WGMMA_SS(d, da, db); COMMIT(); WAIT(0));
    } else if (c.tmode == 5) {
      TLOOP(FENCE(); WGMMA_RS(d, ra, db); WGMMA_RS(d, ra, db); WGMMA_RS(d, ra, db); WGMMA_RS(d, ra, db);
            COMMIT(); WAIT(1));
    } else if (c.tmode == 6) {
      TLOOP(FENCE(); WGMMA_SS_F16(d, da, db); WGMMA_SS_F16(d, da, db); WGMMA_SS_F16(d, da, db);
            WGMMA_SS_F16(d, da, db); COMMIT(); WAIT(1));
    }
    WAIT(0);
#pragma unroll
    for (int i = 0; i < 64; ++i) acc += d[i];
#pragma unroll
    for (int i = 0; i < 32; ++i) acc += __uint_as_float(h[i] & 0x3fff3fffu);
    if (lane == 0) {
      u64* o = out + (size_t)blockIdx.x * OUTN + 8 + warp * 4;
      o[0] = ca, o[1] = (u64)na, o[2] = cb, o[3] = (u64)nb;
    }
  } else {
    PS s;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      s.x[k] = 0.25f + 0.01f * (float)(threadIdx.x % 7 + k);
      s.y[k] = 0.5f + 0.001f * (float)(threadIdx.x + k);
      s.z[k] = 0.001f * (float)(k + 1);
      s.w[k] = 1.f + k;
      s.m[k] = 0.3f + 0.01f * k;
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) s.d[i] = 0.5f + 0.001f * (float)((threadIdx.x * 7 + i) % 97);
#pragma unroll
    for (int i = 0; i < 32; ++i) s.pa[i] = 0;
    s.sc = 0.999f;
    s.sts = smaddr(&words[threadIdx.x - 256]);
    // Let the tensor warps get going, then warm the probe's code.
    u64 w0 = clk();
    while (clk() - w0 < 4000) {
    }
    for (int r = 0; r < 4; ++r) body<P>(s);
    u64 t0 = clk();
    if (threadIdx.x == 256) flag = 1;
    if constexpr (P == 0) {
      while (clk() - t0 < (u64)c.reps * 1000) {
      }
    } else {
      for (int r = 0; r < c.reps; ++r) body<P>(s);
    }
    u64 t1 = clk();
    BAR1();
    if (threadIdx.x == 256) flag = 2;
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += s.x[k] + s.w[k] + s.m[k];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc += s.d[i];
#pragma unroll
    for (int i = 0; i < 32; ++i) acc += __uint_as_float(s.pa[i] & 0x3fff3fffu);
    acc += s.sc;
    if (lane == 0) {
      u64* o = out + (size_t)blockIdx.x * OUTN + (warp - 8) * 2;
      o[0] = t0, o[1] = t1;
    }
  }
  __syncthreads();
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*KernelFn)(Cfg, u64*, float*);

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

struct Probe {
  int id;
  const char* name;
  KernelFn fn;
  int instrs;  // warp-instructions a body (the probe's own, from the source)
};
#define PR(i, nm, k) {i, nm, kern<i>, k}

int main(int argc, char** argv) {
  const char* outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
  Probe probes[] = {
      PR(0, "none", 0),          PR(1, "lat.ffma", 64),     PR(2, "lat.fmul", 64),
      PR(3, "lat.fadd", 64),     PR(4, "lat.fmnmx", 64),    PR(5, "lat.mufu", 64),
      PR(6, "lat.f2fp", 64),     PR(7, "lat.ffma>mufu", 64), PR(8, "lat.fmnmx>ffma", 64),
      PR(9, "lat.mufu>fadd", 64), PR(10, "tp.ffma.imm", 64), PR(11, "tp.mufu", 64),
      PR(12, "tp.fmnmx", 64),    PR(13, "tp.ffma|mufu", 128), PR(14, "tp.fmnmx|mufu", 128),
      PR(15, "tp.ffma>mufu", 128), PR(30, "tp.ffma.rrr", 64), PR(31, "tp.fmul.rr", 64),
      PR(16, "smx.c", 32),       PR(17, "smx.a", 96),       PR(18, "smx.f", 304),
      PR(19, "smx.af", 368),     PR(20, "smx.m", 97),       PR(21, "smx.am", 161),
      PR(22, "smx.fm", 369),     PR(23, "smx.afm", 433),    PR(24, "dens.ffma64+mufu4", 68),
      PR(25, "dens.ffma64+mufu16", 80), PR(26, "dens.ffma64+mufu64", 128),
      PR(27, "bar.sts", 32),     PR(28, "bar.ffma", 32),    PR(29, "bar.only", 16),
  };
  // Tensor modes run beside every probe, and those run beside the subset below.
  const int all_modes[] = {0, 1};
  const int more_modes[] = {2, 3, 4, 5, 6};
  const int subset[] = {0, 1, 5, 10, 11, 12, 13, 14, 15, 30, 31, 18, 20, 21, 22, 23, 24, 26, 27, 29};
  const int reps = 3;
  u64* dout;
  float* sink;
  CK(cudaMalloc(&dout, OUTN * sizeof(u64)));
  CK(cudaMalloc(&sink, 384 * sizeof(float)));
  std::vector<u64> h(OUTN);
  FILE* f = fopen((std::string(outdir) + "/beside.csv").c_str(), "w");
  if (!f) {
    fprintf(stderr, "cannot write beside.csv in %s\n", outdir);
    return 1;
  }
  fprintf(f, "probe,name,instrs,tmode,rep,R,warp,t0,t1,cyc_per_body\n");
  FILE* g = fopen((std::string(outdir) + "/tensor.csv").c_str(), "w");
  fprintf(g, "probe,name,tmode,rep,warp,ca,na,cb,nb\n");
  printf("%-20s %5s %5s %10s %10s %10s %9s %9s\n", "probe", "tmode", "R", "cyc/body", "min", "max",
         "cyc/inst", "tc/wgmma");
  auto launch = [&](const Probe& p, int tmode, int R, int rep, bool log, double* tcw) -> std::vector<double> {
    CK(cudaMemset(dout, 0, OUTN * sizeof(u64)));
    // The tensor warps run about 900k cycles (an iteration: 4 wgmma of each of two
    // warpgroups, 512 cycles; serial, about 128), the probe about 150k alone.
    Cfg c{tmode, R, tmode == 4 ? 7000LL : 1800LL};
    p.fn<<<1, 384>>>(c, dout, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), dout, OUTN * sizeof(u64), cudaMemcpyDeviceToHost));
    std::vector<double> cyc;
    for (int w = 0; w < 4; ++w) {
      double cb = (double)(h[w * 2 + 1] - h[w * 2]) / (double)R;
      cyc.push_back(cb);
      if (log)
        fprintf(f, "%d,%s,%d,%d,%d,%d,%d,%llu,%llu,%.3f\n", p.id, p.name, p.instrs, tmode, rep, R, w, h[w * 2],
                h[w * 2 + 1], cb);
    }
    // Tensor: both warpgroups' wgmmas over the window warp 0 saw (warp 4's window
    // nearly the same), cycles per wgmma of the tensor core.
    double per_it = tmode == 4 ? 1.0 : 4.0;
    *tcw = 0;
    if (tmode != 0) {
      const u64* t0 = &h[8 + 0 * 4];
      const u64* t4 = &h[8 + 4 * 4];
      double span = (double)(t0[2] - t0[0]);
      double nw = ((double)(t0[3] - t0[1]) + (double)(t4[3] - t4[1])) * per_it;
      *tcw = (t0[2] == 0 || t4[2] == 0) ? -1.0 : (nw > 0 ? span / nw : 0);
      if (log)
        for (int w = 0; w < 8; ++w) {
          const u64* t = &h[8 + w * 4];
          fprintf(g, "%d,%s,%d,%d,%d,%llu,%llu,%llu,%llu\n", p.id, p.name, tmode, rep, w, t[0], t[1], t[2], t[3]);
        }
    }
    return cyc;
  };
  for (const Probe& p : probes) {
    // R: about 150k cycles of the probe alone.
    double tcw;
    int R = 64;
    if (p.id != 0) {
      std::vector<double> c0 = launch(p, 0, 16, -1, false, &tcw);
      double per = median(c0);
      R = std::max(16, std::min(8192, (int)(150000.0 / std::max(per, 1.0))));
    } else {
      R = 150;
    }
    std::vector<int> modes(all_modes, all_modes + 2);
    if (std::find(std::begin(subset), std::end(subset), p.id) != std::end(subset))
      modes.insert(modes.end(), more_modes, more_modes + 5);
    for (int tmode : modes) {
      std::vector<double> meds, tcs;
      for (int r = 0; r < reps; ++r) {
        std::vector<double> c = launch(p, tmode, R, r, true, &tcw);
        meds.push_back(median(c));
        tcs.push_back(tcw);
      }
      std::sort(meds.begin(), meds.end());
      double m = median(meds);
      printf("%-20s %5d %5d %10.1f %10.1f %10.1f %9.3f %9.2f\n", p.name, tmode, R, m, meds.front(), meds.back(),
             p.instrs ? m / p.instrs : 0.0, median(tcs));
      fflush(stdout);
    }
  }
  fclose(f);
  fclose(g);
  return 0;
}
