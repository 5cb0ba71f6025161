// smsim calibrate, issue 25 (data/gaps/brdist/): what a taken branch costs by where its
// target is. One warp, a loop of a runtime trip count (`#pragma unroll 1`): PRE half-KiB
// of straight-line FMUL (8 independent chains, one issue a cycle), then a branch over a
// region of SKIP x 256 B of FMUL that no lane runs:
//   MODE 0  the region's condition is warp-uniform, `(flag >> (i & 31)) & 1` with flag 0
//           (ptxas: a branch on a uniform predicate, no convergence barrier);
//   MODE 1  per thread, `threadIdx.x == ((who + i) & 1023)` with who 512 (no thread of the
//           warp matches: every lane takes the branch; ptxas: BSSY, the branch, BSYNC).
// SKIP 0 is no region: the loop's back branch over PRE half-KiB (the loop's footprint).
// Printed: cycles per trip, (T(256 trips) - T(128 trips)) / 128, medians of 7 launches;
// the SASS dump gives each loop's stall counts (the overhead is the trip less them).
// Build: nvcc -O3 -arch=sm_90a -o /tmp/brdist brdist.cu
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
#define MUL8                                                                               \
  asm volatile(                                                                            \
      "mul.f32 %0, %0, 0f3F800001;\n\tmul.f32 %1, %1, 0f3F800001;\n\t"                     \
      "mul.f32 %2, %2, 0f3F800001;\n\tmul.f32 %3, %3, 0f3F800001;\n\t"                     \
      "mul.f32 %4, %4, 0f3F800001;\n\tmul.f32 %5, %5, 0f3F800001;\n\t"                     \
      "mul.f32 %6, %6, 0f3F800001;\n\tmul.f32 %7, %7, 0f3F800001;"                         \
      : "+f"(a[0]), "+f"(a[1]), "+f"(a[2]), "+f"(a[3]), "+f"(a[4]), "+f"(a[5]), "+f"(a[6]), \
        "+f"(a[7]));

__device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
// N x 128 B of FMUL (N x 8 instructions).
template <int N>
__device__ __forceinline__ void fmul(float* a) {
#pragma unroll
  for (int i = 0; i < N; ++i) { MUL8 }
}

template <int PRE, int SKIP, int MODE>
__global__ void __launch_bounds__(32, 1) k_br(int iters, int flag, int who, u64* out, float* sink) {
  float a[8];
  for (int j = 0; j < 8; ++j) a[j] = 1.0f + j + threadIdx.x;
  u64 t0 = clk();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    fmul<4 * PRE>(a);
    if (SKIP > 0) {
      bool run = MODE == 0 ? ((flag >> (i & 31)) & 1) != 0 : (int)threadIdx.x == ((who + i) & 1023);
      if (run) { fmul<2 * SKIP>(a); }
    }
  }
  u64 t1 = clk();
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 1.2345f) sink[threadIdx.x] = s;
  if (threadIdx.x == 0) out[0] = t1 - t0;
}

static u64* d_out;
static float* d_sink;
template <int PRE, int SKIP, int MODE>
static void run(const char* what) {
  auto t = [](int iters) {
    std::vector<u64> v;
    for (int r = 0; r < 8; ++r) {
      k_br<PRE, SKIP, MODE><<<1, 32>>>(iters, 0, 512, d_out, d_sink);
      u64 h = 0;
      cudaMemcpy(&h, d_out, 8, cudaMemcpyDeviceToHost);
      if (r > 0) v.push_back(h);
    }
    std::sort(v.begin(), v.end());
    return std::make_pair(v[v.size() / 2], v.back() - v.front());
  };
  auto a = t(128), b = t(256);
  printf("%-8s pre %5d B skip %5d B mode %d : %.2f cycles/trip (T128 %llu, T256 %llu, spread %llu %llu)\n", what,
         PRE * 512, SKIP * 256, MODE, (double)(b.first - a.first) / 128.0, a.first, b.first, a.second, b.second);
}

int main() {
  cudaMalloc(&d_out, 8);
  cudaMalloc(&d_sink, 32 * 4);
  // the back branch by the loop's footprint
  run<1, 0, 0>("loop"); run<2, 0, 0>("loop"); run<4, 0, 0>("loop"); run<6, 0, 0>("loop");
  run<8, 0, 0>("loop"); run<10, 0, 0>("loop"); run<12, 0, 0>("loop"); run<14, 0, 0>("loop");
  run<16, 0, 0>("loop");
  // a forward branch over a region no lane runs, in a small loop: by distance and kind
  run<1, 1, 0>("skip"); run<1, 2, 0>("skip"); run<1, 4, 0>("skip"); run<1, 16, 0>("skip");
  run<1, 1, 1>("skip"); run<1, 2, 1>("skip"); run<1, 4, 1>("skip"); run<1, 16, 1>("skip");
  // the same in a loop of 7 KiB executed (the streaming kernel's footprint)
  run<14, 1, 0>("skipbig"); run<14, 4, 0>("skipbig"); run<14, 1, 1>("skipbig"); run<14, 4, 1>("skipbig");
  cudaError_t e = cudaDeviceSynchronize();
  printf("# %s\n", cudaGetErrorString(e));
  return 0;
}
