// smsim calibrate, issue 25 (second run): tma_issue.cu's load issue beside a co-runner on the
// loader's sub-partition (warp 4), by what the co-runner runs: CO_KB KiB of straight-line
// FMUL a trip (1, 7, 24; it reads the shared `done` flag once a trip), with or without a
// 3-cycle bubble (two dependent FMUL) every 64 instructions (BUB). Also printed: warp 0's
// whole span and the co-runner's trips meanwhile (its issue share). Otherwise as
// tma_issue.cu, whose header follows.
// smsim calibrate, issue 25: what issuing a tile's loads costs (mbarrier expect_tx and two
// 2D tensor loads, UTMALDG, as kernels/stream.cu's load_tiles), by what else runs on the SM.
// Thread 0 of warp 0, ROUNDS rounds: clock64, the issue, clock64 (value: the median of
// the rounds' issue time, rounds 2.., median of 7 launches); then it waits for the copies.
// Modes:
//   0 expect_tx(2 tiles) + 2 UTMALDG        1 expect_tx(1 tile) + 1 UTMALDG
//   2 a plain mbarrier arrive (no copy; the clock pair's own cost + an arrive)
//   3 2 UTMALDG + expect_tx after them      4 expect_tx + 2 non-tensor bulk copies (UBLKCP)
// Pipelining: idle (each round waits for its copies before the next issue) or inflight
// (two stages, as the streaming kernel: a stage's loads issued when its previous copies have
// landed, the other stage's copies landing meanwhile).
// Others: spin MASK: those warps spin on try_wait of a barrier completed after the last
// round (as the compute warps waiting on `full`); co MASK: those warps run a 7 KiB
// straight-line FMUL loop until the last round (as the compute warps' loop body).
// Tiles 32 x 128 FP32 (16 KiB), from a 64-row x 8192-column tensor (rows 0..31 or 32..63).
// Build: nvcc -O3 -arch=sm_90a -o /tmp/ti2 tma_issue2.cu -lcuda
#include <cuda.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
typedef unsigned int u32;
#define ROUNDS 48
#define TB (32 * 128 * 4)
#define DEV static __device__ __forceinline__
DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
DEV u32 smaddr(const void* p) { return (u32)__cvta_generic_to_shared(p); }
DEV void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
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
DEV void mbar_wait(u32 bar, u32 parity, int* err) {
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > 200000000ull) {
      err[0] = 1;
      return;
    }
  }
}
DEV void tma_load(u32 dst, const CUtensorMap* tm, int x, int y, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((u64)tm), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
DEV void bulk_load(u32 dst, const float* src, u32 bytes, u32 bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
template <int MODE>
DEV void issue(u32 a, u32 b, const CUtensorMap* ta, const CUtensorMap* tb, const float* ga, const float* gb, int r,
               u32 bar) {
  int x = (r % 64) * 128, y = 32 * (r & 1);
  if (MODE == 0) {
    mbar_expect_tx(bar, 2 * TB);
    tma_load(a, ta, x, y, bar);
    tma_load(b, tb, x, y, bar);
  } else if (MODE == 1) {
    mbar_expect_tx(bar, TB);
    tma_load(a, ta, x, y, bar);
  } else if (MODE == 2) {
    mbar_arrive(bar);
  } else if (MODE == 3) {
    tma_load(a, ta, x, y, bar);
    tma_load(b, tb, x, y, bar);
    mbar_expect_tx(bar, 2 * TB);
  } else {
    mbar_expect_tx(bar, 2 * TB);
    bulk_load(a, ga + (size_t)(r % 64) * (TB / 4), TB, bar);
    bulk_load(b, gb + (size_t)(r % 64) * (TB / 4), TB, bar);
  }
}
#define MUL8                                                                               \
  asm volatile(                                                                            \
      "mul.f32 %0, %0, 0f3F800001;\n\tmul.f32 %1, %1, 0f3F800001;\n\t"                     \
      "mul.f32 %2, %2, 0f3F800001;\n\tmul.f32 %3, %3, 0f3F800001;\n\t"                     \
      "mul.f32 %4, %4, 0f3F800001;\n\tmul.f32 %5, %5, 0f3F800001;\n\t"                     \
      "mul.f32 %6, %6, 0f3F800001;\n\tmul.f32 %7, %7, 0f3F800001;"                         \
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), \
        "+f"(f[7]));

#define DEP2 asm volatile("mul.f32 %0, %0, 0f3F800001;\n\tmul.f32 %0, %0, 0f3F800001;" : "+f"(f[0]));
template <int CO_KB, int BUB>
DEV void co_trip(float* f) {
#pragma unroll
  for (int i = 0; i < 8 * CO_KB; ++i) {
    MUL8
    if (BUB && (i % 8) == 7) DEP2
  }
}
template <int MODE, int CO_KB, int BUB>
__global__ void __launch_bounds__(256, 1) k_issue(const __grid_constant__ CUtensorMap ta,
                                                  const __grid_constant__ CUtensorMap tb, const float* ga,
                                                  const float* gb, int inflight, unsigned spin, unsigned co,
                                                  u64* out, int* err, float* sink) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[3];
  __shared__ volatile int done;
  u32 base = (smaddr(dsm) + 1023) & ~1023u;
  u32 full0 = smaddr(&bars[0]), stop = smaddr(&bars[2]);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(full0, 1);
    mbar_init(full0 + 8, 1);
    mbar_init(stop, 1);
    done = 0;
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (warp == 0) {
    if (lane != 0) return;
    u64 ts[ROUNDS];
    int stages = inflight ? 2 : 1;
    u64 w0 = clk();
    for (int s = 0; s < stages; ++s) issue<MODE>(base + 2 * s * TB, base + (2 * s + 1) * TB, &ta, &tb, ga, gb, s, full0 + 8 * s);
    for (int r = 0; r < ROUNDS; ++r) {
      int s = r % stages;
      mbar_wait(full0 + 8 * s, (r / stages) & 1, err);
      u64 t0 = clk();
      issue<MODE>(base + 2 * s * TB, base + (2 * s + 1) * TB, &ta, &tb, ga, gb, r + stages, full0 + 8 * s);
      u64 t1 = clk();
      ts[r] = t1 - t0;
    }
    for (int s = 0; s < stages; ++s) mbar_wait(full0 + 8 * s, ((ROUNDS + s) / stages) & 1, err);
    u64 w1 = clk();
    done = 1;
    mbar_arrive(stop);
    for (int r = 0; r < ROUNDS; ++r) out[r] = ts[r];
    out[ROUNDS] = w1 - w0;
  } else if ((spin >> warp) & 1) {
    mbar_wait(stop, 0, err);
  } else if ((co >> warp) & 1) {
    float f[8];
    for (int j = 0; j < 8; ++j) f[j] = 1.0f + j + lane;
    int n = 0;
    while (!done && n < 1000000) {
      co_trip<CO_KB, BUB>(f);
      ++n;
    }
    float s = 0;
    for (int j = 0; j < 8; ++j) s += f[j];
    if (s == 1.2345f) sink[threadIdx.x] = s;
    if (lane == 0) out[ROUNDS + 1 + warp] = n;
  }
}

#define CK(x)                                                                 \
  do {                                                                        \
    CUresult r_ = (x);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                 \
      printf("# %s failed: %d\n", #x, (int)r_);                               \
      exit(2);                                                                \
    }                                                                         \
  } while (0)

static CUtensorMap tmap(float* base) {
  CUtensorMap tm;
  cuuint64_t dims[2] = {8192, 64};
  cuuint64_t strides[1] = {8192 * 4};
  cuuint32_t boxd[2] = {128, 32};
  cuuint32_t estr[2] = {1, 1};
  CK(cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, (void*)base, dims, strides, boxd, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return tm;
}

static u64* d_out;
static int* d_err;
static float* d_sink;
static float *ga, *gb;
static CUtensorMap ta, tb;
template <int MODE, int CO_KB, int BUB>
static void run(const char* mname, int inflight, unsigned spin, unsigned co, const char* what) {
  auto k = k_issue<MODE, CO_KB, BUB>;
  int smem = 4 * TB + 1024;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  std::vector<double> med, trips, span;
  for (int rep = 0; rep < 8; ++rep) {
    cudaMemset(d_out, 0, (ROUNDS + 16) * 8);
    k<<<1, 256, smem>>>(ta, tb, ga, gb, inflight, spin, co, d_out, d_err, d_sink);
    cudaDeviceSynchronize();
    u64 h[ROUNDS + 16];
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    std::vector<double> v(h + 2, h + ROUNDS);
    std::sort(v.begin(), v.end());
    if (rep) {
      med.push_back(v[v.size() / 2]);
      span.push_back((double)h[ROUNDS]);
      trips.push_back((double)h[ROUNDS + 1 + 4]);
    }
  }
  std::sort(med.begin(), med.end());
  std::sort(span.begin(), span.end());
  std::sort(trips.begin(), trips.end());
  int err = 0;
  cudaMemcpy(&err, d_err, 4, cudaMemcpyDeviceToHost);
  printf("%-20s %-8s %-18s co %2d KiB bubble %d : %.1f cycles (launch medians %.1f..%.1f); warp 0 span %.0f, co trips %.0f%s\n",
         mname, inflight ? "inflight" : "idle", what, CO_KB, BUB, med[med.size() / 2], med.front(), med.back(),
         span[span.size() / 2], trips[trips.size() / 2], err ? " TIMEOUT" : "");
}
template <int MODE>
static void all(const char* mname) {
  for (int inflight = 0; inflight < 2; ++inflight) {
    run<MODE, 7, 0>(mname, inflight, 0, 0, "alone");
    run<MODE, 7, 0>(mname, inflight, 0, 0x10, "co w4");
    run<MODE, 1, 0>(mname, inflight, 0, 0x10, "co w4");
    run<MODE, 24, 0>(mname, inflight, 0, 0x10, "co w4");
    run<MODE, 7, 1>(mname, inflight, 0, 0x10, "co w4");
    run<MODE, 7, 0>(mname, inflight, 0, 0x02, "co w1");
  }
}

int main() {
  CK(cuInit(0));
  cudaMalloc(&d_out, (ROUNDS + 16) * 8);
  cudaMalloc(&d_err, 4);
  cudaMemset(d_err, 0, 4);
  cudaMalloc(&d_sink, 256 * 4);
  cudaMalloc(&ga, 8192 * 64 * 4);
  cudaMalloc(&gb, 8192 * 64 * 4);
  cudaMemset(ga, 0, 8192 * 64 * 4);
  cudaMemset(gb, 0, 8192 * 64 * 4);
  ta = tmap(ga);
  tb = tmap(gb);
  all<0>("expect_tx+2 UTMALDG");
  all<1>("expect_tx+1 UTMALDG");
  all<2>("arrive (no copy)");
  cudaError_t e = cudaGetLastError();
  printf("# %s\n", cudaGetErrorString(e));
  return 0;
}
