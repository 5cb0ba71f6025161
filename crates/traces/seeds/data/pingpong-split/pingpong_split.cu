// smsim traces, issue 30: which part of FA3's softmax makes the pingpong loop
// (../pingpong, MODE 0) slower than smsim, and when each warpgroup's work runs.
// The loop of ../pingpong-tl (two consumer warpgroups, operands static in shared memory,
// no producer, no loads) with its softmax split by pipe: SMX is a mask of the softmax's
// parts kept (1: the row max, 64 FMNMX, ALU pipe; 2: the FMA-pipe work, 8 + 64 FMUL,
// 64 FFMA, 64 FADD; 4: the 65 MUFU.EX2); P's conversion to bf16 (32 F2FP), GEMM1's A
// operand, is kept in every variant so that each step's P V waits for the step's work.
// MODE 0: FA3's pipelined step in pingpong (named barriers 1 and 2); MODE 1: its
// no-pipelining step; MODE 2: MODE 0 without the named barriers.
// TL 1: wait_group 0 written before the softmax (where ptxas put it in ../pingpong's
// MODE 0); TL 2: the same with clock stamps kept in registers (7 a step, 4 steps from
// step 9 * 64) and stored after the loop, so the loop itself issues no store.
// Cycles per step: SM clock64 per warp at NCP chunk ends, (last end - first chunk end) /
// steps after the first chunk. The helpers and wgmma macros are mufu_tensor.cu's.
//
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o pingpong_split pingpong_split.cu
// Run: ./pingpong_split OUTDIR (writes OUTDIR/cp.csv and OUTDIR/tl.csv, prints the summary).
#include <cuda_runtime.h>


#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#define NCP 16
#define MAXW 12

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
DEV u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
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
// Two random bf16: random sign and mantissa, exponent 2^-7 .. 2^8.
DEV u32 rand_bf16x2(u32 i) {
  u32 h = hash(i);
  u32 lo = (h & 0x807Fu) | ((120u + ((h >> 8) & 15u)) << 7);
  u32 hi = ((h >> 16) & 0x807Fu) | ((120u + ((h >> 24) & 15u)) << 7);
  return lo | (hi << 16);
}
#define WGMMA_SS(d, da, db) \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n\t}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "l"(da), "l"(db), "r"(1))

// As WGMMA_SS with scale-d 0: D = A B (a fresh S).
#define WGMMA_SS_Z(d, da, db) \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n\t}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "l"(da), "l"(db), "r"(0))

#define WGMMA_RS(d, a, db) \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n\t}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

#define FENCE() asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define COMMIT() asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory")
#define WAIT(n) asm volatile("wgmma.wait_group.sync.aligned " #n ";" ::: "memory")


#define BAR_SYNC(id) asm volatile("bar.sync %0, 256;" ::"r"(id) : "memory")
#define BAR_ARV(id) asm volatile("bar.arrive %0, 256;" ::"r"(id) : "memory")
DEV u32 clk32() {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}

// The softmax of one 64 x 128 S tile at FA3's per-thread counts (as ../pingpong), its
// parts kept by SMX: the row max (64 FMNMX over 8 chains), 8 FMUL, 64 FFMA, 64 MUFU.EX2,
// the row sum (64 FADD over 8 chains), 1 MUFU.EX2 for the rescale factor. Without the
// FMA part the row max is kept as the running state (x), so that it stays live.
template <int SMX>
DEV void softmax(float (&d)[64], float (&x)[8], float& sc) {
  float mx[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) mx[k] = x[k];
  if constexpr ((SMX & 1) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) mx[i % 8] = fmaxf(mx[i % 8], d[i]);
  }
  if constexpr ((SMX & 2) != 0) {
#pragma unroll
    for (int k = 0; k < 8; ++k) mx[k] *= 1.0e-3f;
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = fmaf(d[i], 1.0e-3f, -mx[i % 8]);
  }
  if constexpr ((SMX & 4) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(d[i]));
  }
  if constexpr ((SMX & 2) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) x[i % 8] += d[i];
  } else {
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = mx[k];
  }
  if constexpr ((SMX & 4) != 0) {
    float arg = (SMX & 2) != 0 ? -mx[0] * 1.0e-6f : mx[0];
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(sc) : "f"(arg));
  }
}

// O's rescale (64 FMUL, with the FMA part; on 8 other registers, as ../pingpong) and P
// to bf16 pairs (32 F2FP, always), GEMM1's A operand.
template <int SMX>
DEV void rescale_convert(float (&w)[8], float sc, const float (&d)[64], u32 (&pa)[32]) {
  if constexpr ((SMX & 2) != 0) {
#pragma unroll
    for (int i = 0; i < 64; ++i) w[i % 8] *= sc;
  }
#pragma unroll
  for (int i = 0; i < 32; ++i)
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(pa[i]) : "f"(d[2 * i + 1]), "f"(d[2 * i]));
}

DEV void gemm0(float (&d)[64], u64 da, u64 db) {
  FENCE();
  WGMMA_SS_Z(d, da, db);
#pragma unroll
  for (int k = 1; k < 8; ++k) WGMMA_SS(d, da, db);
  COMMIT();
}
DEV void gemm1(float (&o)[64], const u32 (&pa)[32], u64 db) {
  FENCE();
#pragma unroll
  for (int k = 0; k < 8; ++k) WGMMA_RS(o, (pa + 4 * k), db);
  COMMIT();
}

#define NTL 7
#define NST 4
#define TLCH 8
// One step; K >= 0 (TL 2) stamps it into t[K * NTL + 0..6].
//   MODE 0/2: a top, b after the sync, c after the arrive, d after wait_group 1,
//             e after wait_group 0 (TL >= 1), f after the softmax, g at the step's end.
//   MODE 1:   a top, b after the arrive, c after wait_group 0 (S done), d-e unused (a
//             stamp there would stop ptxas sinking the softmax below the sync), f after
//             P V issued, g at the step's end (P V done).
template <int MODE, int SMX, int TL, int K>
DEV void step(float (&d)[64], float (&o)[64], u32 (&pa)[32], float (&w)[8], float (&x)[8],
                float& sc, u64 da, u64 db, int wg, bool last, u32 (&t)[NST * NTL]) {
  constexpr bool S = TL == 2 && K >= 0;
  constexpr int B = K < 0 ? 0 : K * NTL;
  if constexpr (S) t[B + 0] = clk32();
  if constexpr (MODE == 1) {
    gemm0(d, da, db);
    BAR_ARV(2 - wg);
    if constexpr (S) t[B + 1] = clk32();
    WAIT(0);
    if constexpr (S) t[B + 2] = clk32();
    softmax<SMX>(d, x, sc);
    rescale_convert<SMX>(w, sc, d, pa);
    if (wg == 0 || !last) BAR_SYNC(1 + wg);
    gemm1(o, pa, db);
    if constexpr (S) t[B + 5] = clk32();
    WAIT(0);
    if constexpr (S) t[B + 6] = clk32();
  } else {
    if constexpr (MODE == 0) BAR_SYNC(1 + wg);
    if constexpr (S) t[B + 1] = clk32();
    gemm0(d, da, db);
    gemm1(o, pa, db);
    if constexpr (MODE == 0) {
      if (wg == 0 || !last) BAR_ARV(2 - wg);
    }
    if constexpr (S) t[B + 2] = clk32();
    WAIT(1);
    if constexpr (S) t[B + 3] = clk32();
    if constexpr (TL >= 1) {
      WAIT(0);
      if constexpr (S) t[B + 4] = clk32();
    }
    softmax<SMX>(d, x, sc);
    if constexpr (S) t[B + 5] = clk32();
    if constexpr (TL == 0) WAIT(0);
    rescale_convert<SMX>(w, sc, d, pa);
    if constexpr (S) t[B + 6] = clk32();
  }
}

template <int MODE, int SMX, int TL>
__global__ void __launch_bounds__(256, 1) pp(long long iters, u64* cp, float* sink, u32* tl) {
  __shared__ __align__(128) unsigned char sm[2048 + 4096];
  for (int i = threadIdx.x; i < (2048 + 4096) / 4; i += blockDim.x) ((u32*)sm)[i] = rand_bf16x2(i);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  int wg = threadIdx.x / 128, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  u64* my = cp + (size_t)warp * (NCP + 1);
  float d[64], o[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f, o[i] = 0.f;
  u32 pa[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) pa[i] = rand_bf16x2(threadIdx.x * 32 + i + 99);
  float sc = 0.999f, w[8], x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) w[k] = 1.f + k, x[k] = 0.25f + 0.01f * (float)(threadIdx.x % 7 + k);
  u32 t[NST * NTL];
#pragma unroll
  for (int j = 0; j < NST * NTL; ++j) t[j] = 0;
  long long per = iters / NCP;
  __syncthreads();
  if (lane == 0) my[0] = clk();
  // Warpgroup 0 takes the first turn (as ../pingpong); warpgroup 1 skips its last
  // hand-over (MODE 0) or its last sync (MODE 1).
  if (MODE != 2 && wg == 1) BAR_ARV(1);
  if (MODE == 1) BAR_SYNC(1 + wg);
  for (int ch = 0; ch < NCP; ++ch) {
    long long it0 = 0;
    if constexpr (TL == 2) {
      // Twice, the second time with the stamped code already in the instruction cache:
      // the second pass's stamps are the ones kept.
      if (ch == TLCH || ch == TLCH + 1) {
        step<MODE, SMX, TL, 0>(d, o, pa, w, x, sc, da, db, wg, false, t);
        step<MODE, SMX, TL, 1>(d, o, pa, w, x, sc, da, db, wg, false, t);
        step<MODE, SMX, TL, 2>(d, o, pa, w, x, sc, da, db, wg, false, t);
        step<MODE, SMX, TL, 3>(d, o, pa, w, x, sc, da, db, wg, false, t);
        it0 = NST;
      }
    }
    for (long long it = it0; it < per; ++it) {
      bool last = ch == NCP - 1 && it == per - 1;
      step<MODE, SMX, TL, -1>(d, o, pa, w, x, sc, da, db, wg, last, t);
    }
    if (lane == 0) my[ch + 1] = clk();
  }
  float acc = sc;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += d[i] + o[i];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += x[k] + w[k];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc += __uint_as_float(pa[i] & 0x3fff3fffu);
  if (TL == 2 && lane == 0) {
#pragma unroll
    for (int j = 0; j < NST * NTL; ++j) tl[(size_t)warp * NST * NTL + j] = t[j];
  }
  __syncthreads();
  sink[threadIdx.x] = acc;
}

typedef void (*KernelFn)(long long, u64*, float*, u32*);

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

// The variants: MODE (pp, np, nobar) x the softmax's parts (c: the conversion alone, a:
// ALU, f: FMA, m: MUFU; afm the whole softmax).
#define V3(tag, smx) {"pp." tag, pp<0, smx, 0>}, {"nobar." tag, pp<2, smx, 0>}, {"np." tag, pp<1, smx, 0>}

int main(int argc, char** argv) {
  const char* outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
  struct Var {
    const char* name;
    KernelFn fn;
  } vars[] = {
      {"warmup", pp<0, 7, 0>},
      V3("afm", 7), V3("c", 0), V3("a", 1), V3("f", 2), V3("m", 4), V3("af", 3), V3("am", 5), V3("fm", 6),
#ifndef NO_TL
      {"pp.afm.h", pp<0, 7, 1>}, {"pp.afm.h.tl", pp<0, 7, 2>}, {"nobar.afm.h", pp<2, 7, 1>},
      {"nobar.afm.h.tl", pp<2, 7, 2>}, {"np.afm.tl", pp<1, 7, 2>}, {"pp.f.h.tl", pp<0, 2, 2>},
#endif
      {"pp.afm.again", pp<0, 7, 0>},
  };
  const long long iters = 1024;
  const int reps = 5;
  u64* cp;
  float* sink;
  u32* tl;
  size_t ncp = (size_t)8 * (NCP + 1), ntl = (size_t)8 * NST * NTL;
  CK(cudaMalloc(&cp, ncp * sizeof(u64)));
  CK(cudaMalloc(&sink, 256 * sizeof(float)));
  CK(cudaMalloc(&tl, ntl * sizeof(u32)));
  std::vector<u64> h(ncp);
  std::vector<u32> ht(ntl);
  FILE* g = fopen((std::string(outdir) + "/tl.csv").c_str(), "w");
  FILE* f = fopen((std::string(outdir) + "/cp.csv").c_str(), "w");
  if (!f || !g) {
    fprintf(stderr, "cannot write cp.csv or tl.csv in %s\n", outdir);
    return 1;
  }
  // tl.csv: 32-bit SM clock stamps (`step`'s letters a..g), steps (TLCH + 1) * per
  // + 0..3.
  fprintf(g, "variant,rep,warp,step,a,b,c,d,e,f,g\n");
  fprintf(f, "variant,rep,warp");
  for (int i = 0; i <= NCP; ++i) fprintf(f, ",c%d", i);
  fprintf(f, "\n");
  printf("%-16s %12s %12s %12s\n", "variant", "cyc/step", "min", "max");
  for (const Var& v : vars) {
    std::vector<double> stepc;
    for (int r = 0; r < reps; ++r) {
      CK(cudaMemset(cp, 0, ncp * sizeof(u64)));
      CK(cudaMemset(tl, 0, ntl * sizeof(u32)));
      v.fn<<<1, 256>>>(iters, cp, sink, tl);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), cp, ncp * sizeof(u64), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(ht.data(), tl, ntl * sizeof(u32), cudaMemcpyDeviceToHost));
      if (strstr(v.name, ".tl"))
        for (int w = 0; w < 8; ++w)
          for (int k = 0; k < NST; ++k) {
            fprintf(g, "%s,%d,%d,%d", v.name, r, w, k);
            for (int j = 0; j < NTL; ++j) fprintf(g, ",%u", ht[((size_t)w * NST + k) * NTL + j]);
            fprintf(g, "\n");
          }
      u64 s = ~0ull, e = 0;
      for (int w = 0; w < 8; ++w) {
        const u64* c = &h[(size_t)w * (NCP + 1)];
        fprintf(f, "%s,%d,%d", v.name, r, w);
        for (int i = 0; i <= NCP; ++i) fprintf(f, ",%llu", c[i]);
        fprintf(f, "\n");
        // Steady state: from the end of the first chunk to the end of the last.
        s = std::min(s, c[1]);
        e = std::max(e, c[NCP]);
      }
      // A step: both warpgroups' blocks (2048 tensor cycles).
      stepc.push_back((double)(e - s) / (double)(iters - iters / NCP));
    }
    std::sort(stepc.begin(), stepc.end());
    printf("%-16s %12.1f %12.1f %12.1f\n", v.name, median(stepc), stepc.front(), stepc.back());
    fflush(stdout);
  }
  fclose(f);
  fclose(g);
  return 0;
}
