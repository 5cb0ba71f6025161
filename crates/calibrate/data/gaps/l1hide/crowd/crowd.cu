// l1hide/crowd (issue 25 gap 6): what makes the latency-hiding L1 walk crowd.
// The walk is gap_l1_trap_kK's (kernels/gaps.cu) loop for loop: every thread `iters`
// times loads an f32 from its own line through L1 and runs K dependent FFMAs; lanes
// 1 KiB apart, each lane's 8 lines 128 B apart. Two things vary:
//  - `word`: lane l reads byte ((l * word) & 127) of its line instead of byte 0, so the
//    lines are the walk's but the 32 words a warp-load returns sit in other data banks
//    (0: all in one bank, the walk; 64: 2 banks; 8: 16; 4: 32 banks);
//  - `delays[w]`: warp w spins that many cycles after the barrier before its first load
//    (the start pattern: by sub-partition, by quad, one SMSP held, odd warps held...).
// Output: one line per warp per launch (see the printf), the per-launch classification
// is done by summarize.py. Compiled on the device: nvcc -gencode=arch=compute_90a,code=sm_90a.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

typedef unsigned long long u64;

#define CK(x)                                                                      \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static __device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
static __device__ __forceinline__ u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
static __device__ __forceinline__ unsigned hw_warpid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
  return r;
}

template <int K>
__global__ void __launch_bounds__(1024, 1)
    crowd_walk(const char* P, int iters, int lines, float r2, float r3, int word,
               const int* delays, u64* times, float* sink) {
  const char* mine =
      P + (u64)threadIdx.x * lines * 128 + (u64)(((threadIdx.x & 31) * word) & 127);
  const char* end = mine + (u64)lines * 128;
  const char* q = mine;
  float r1 = 0.f;
  const u64 d = (u64)delays[threadIdx.x / 32];
  __syncthreads();
  u64 s0 = clk();
  while (clk() - s0 < d) {
  }
  u64 c0 = clk();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(r1) : "l"(q) : "memory");
#pragma unroll
    for (int j = 0; j < K; ++j) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r1) : "f"(r2), "f"(r3));
    q += 128;
    if (q == end) q = mine;
  }
  u64 c1 = clk();
  if ((threadIdx.x & 31) == 0) {
    unsigned w = threadIdx.x / 32;
    times[4 * w] = s0;
    times[4 * w + 1] = c0;
    times[4 * w + 2] = c1;
    times[4 * w + 3] = hw_warpid();
  }
  sink[threadIdx.x] = r1;
}

// clock64 against %globaltimer over a ~20 ms spin: the SM clock in MHz.
__global__ void clock_probe(u64* out) {
  u64 g0 = gtime(), c0 = clk();
  while (gtime() - g0 < 20000000ull) {
  }
  u64 g1 = gtime(), c1 = clk();
  out[0] = c1 - c0;
  out[1] = g1 - g0;
}

static double clock_mhz(u64* dout) {
  u64 h[2];
  clock_probe<<<1, 1>>>(dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
  return (double)h[0] / (double)h[1] * 1000.0;
}

struct Variant {
  const char* name;
  int word;
  int kind;  // delay pattern
  int amount;
};
// kind: 0 none, 1 amount*w, 2 amount*(w%4) (SMSPs apart, an SMSP's warps together),
// 3 amount*(w/4) (quads of consecutive warps apart), 4 hold w%4==0, 5 hold w%4!=0,
// 6 hold odd w, 7 hold w >= W/2, 8 hold w == 0 only
static int delay_of(const Variant& v, int w, int W) {
  switch (v.kind) {
    case 0: return 0;
    case 1: return v.amount * w;
    case 2: return v.amount * (w % 4);
    case 3: return v.amount * (w / 4);
    case 4: return (w % 4 == 0) ? v.amount : 0;
    case 5: return (w % 4 != 0) ? v.amount : 0;
    case 6: return (w % 2 == 1) ? v.amount : 0;
    case 7: return (w >= W / 2) ? v.amount : 0;
    case 8: return (w == 0) ? v.amount : 0;
  }
  return 0;
}

static void launch(int K, int W, const char* P, int iters, int lines, float r2, float r3,
                   int word, const int* dd, u64* dt, float* ds) {
  dim3 g(1), b(32 * W);
  switch (K) {
    case 1: crowd_walk<1><<<g, b>>>(P, iters, lines, r2, r3, word, dd, dt, ds); break;
    case 8: crowd_walk<8><<<g, b>>>(P, iters, lines, r2, r3, word, dd, dt, ds); break;
    case 16: crowd_walk<16><<<g, b>>>(P, iters, lines, r2, r3, word, dd, dt, ds); break;
    case 20: crowd_walk<20><<<g, b>>>(P, iters, lines, r2, r3, word, dd, dt, ds); break;
    default: fprintf(stderr, "no kernel for K %d\n", K); exit(1);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 12;
  const int iters = 512, lines = 8;
  const float r2 = 0.999f, r3 = 0.001f;
  const size_t arena = 2u << 20;
  char* P;
  u64* dt;
  float* ds;
  int* dd;
  CK(cudaMalloc(&P, arena));
  CK(cudaMalloc(&dt, 32 * 4 * sizeof(u64)));
  CK(cudaMalloc(&ds, 1024 * sizeof(float)));
  CK(cudaMalloc(&dd, 32 * sizeof(int)));
  {
    std::vector<float> init(arena / 4);
    for (size_t i = 0; i < init.size(); ++i) init[i] = 1.0f + (float)(i % 97) * 1e-3f;
    CK(cudaMemcpy(P, init.data(), arena, cudaMemcpyHostToDevice));
  }
  printf("# clock_before_mhz %.1f\n", clock_mhz(dt));
  const Variant variants[] = {
      {"base", 0, 0, 0},          {"word64", 64, 0, 0},       {"word8", 8, 0, 0},
      {"word4", 4, 0, 0},         {"lin64", 0, 1, 64},        {"smsp64", 0, 2, 64},
      {"smsp128", 0, 2, 128},     {"smsp256", 0, 2, 256},     {"quad128", 0, 3, 128},
      {"hold_smsp0", 0, 4, 512},  {"hold_smsp123", 0, 5, 512}, {"hold_odd", 0, 6, 512},
      {"hold_half", 0, 7, 512},   {"hold_w0", 0, 8, 512},      {"word4_lin64", 4, 1, 64},
  };
  const int nv = sizeof variants / sizeof variants[0];
  const int points[][2] = {{16, 1}, {16, 8}, {16, 16}, {18, 8}, {18, 20}, {14, 1}};
  const int np = sizeof points / sizeof points[0];
  printf("# cols: pass variant W K launch warp s0 c0 c1 hw_warpid delay\n");
  for (int pass = 0; pass < 2; ++pass) {
    for (int pi = 0; pi < np; ++pi) {
      const int W = points[pi][0], K = points[pi][1];
      for (int vi0 = 0; vi0 < nv; ++vi0) {
        // the second pass runs the variants in the reverse order
        const Variant& v = variants[pass == 0 ? vi0 : nv - 1 - vi0];
        int hd[32];
        for (int w = 0; w < 32; ++w) hd[w] = delay_of(v, w, W);
        CK(cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice));
        // one launch first: the lines warm in L2 (as gaps.l1trap)
        launch(K, W, P, iters, lines, r2, r3, v.word, dd, dt, ds);
        for (int r = 0; r < reps; ++r) {
          launch(K, W, P, iters, lines, r2, r3, v.word, dd, dt, ds);
          u64 h[32 * 4];
          CK(cudaMemcpy(h, dt, sizeof(u64) * 4 * W, cudaMemcpyDeviceToHost));
          for (int w = 0; w < W; ++w)
            printf("L %d %s %d %d %d %d %llu %llu %llu %llu %d\n", pass, v.name, W, K, r, w,
                   h[4 * w], h[4 * w + 1], h[4 * w + 2], h[4 * w + 3], hd[w]);
        }
      }
    }
  }
  printf("# clock_after_mhz %.1f\n", clock_mhz(dt));
  return 0;
}
