// smsim calibrate, issue 25: what a loop's backward branch costs by the size of the loop
// body (instruction fetch). A loop of KB KiB of straight-line FMUL (8 independent chains,
// one register read each: no bank conflict, one issue a cycle) closed by one backward
// branch; cycles per iteration from iteration 1 to the last (iteration 0 fetches cold).
// Printed per (variant, KiB, warps): cycles per iteration, the SASS instructions a
// iteration issues is 64 x KB + the loop control (see the SASS dump), so the overhead is
// cycles - 64 x KB x (warps per sub-partition).
// Variants:
//   loop   KB, warps mask (0x1 one warp; 0xF four warps, one per sub-partition; 0x11 two
//          warps on sub-partition 0; 0xFF eight warps)
//   skip   1 KiB executed, then a branch over SKIP KiB never executed (flag 0), in the loop
//   pair   warp 0 runs the 1 KiB loop (timed) while warp 4 (its sub-partition) or warp 1
//          (another) runs a KB KiB loop until warp 0 is done
// Build: nvcc -O3 -arch=sm_90a -DPART=n -o /tmp/icN icache_loop.cu   (n = 0..3; 4: the pairs
// alone, the co-runner's trips printed, the second run)
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
#define ITERS 64
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
// KB KiB of FMUL: 8 x KB statements of 8 instructions of 16 bytes.
template <int KB>
__device__ __forceinline__ void body(float* a) {
#pragma unroll
  for (int i = 0; i < 8 * KB; ++i) { MUL8 }
}

// loop: every warp in mask runs the KB KiB loop ITERS times.
template <int KB>
__global__ void __launch_bounds__(256, 1) k_loop(unsigned mask, float seed, u64* out, float* sink) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (!((mask >> warp) & 1)) return;
  float a[8];
  for (int j = 0; j < 8; ++j) a[j] = seed + j + lane;
  u64 t0 = 0;
  for (int i = 0; i < ITERS; ++i) {
    if (i == 1) t0 = clk();
    body<KB>(a);
  }
  u64 t1 = clk();
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 1.2345f) sink[threadIdx.x] = s;
  if (lane == 0) out[warp] = t1 - t0;
}

// skip: 1 KiB executed, SKIP KiB behind a branch never taken into (flag 0).
template <int SKIP>
__global__ void __launch_bounds__(256, 1) k_skip(unsigned mask, int flag, float seed, u64* out, float* sink) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (!((mask >> warp) & 1)) return;
  float a[8];
  for (int j = 0; j < 8; ++j) a[j] = seed + j + lane;
  u64 t0 = 0;
  for (int i = 0; i < ITERS; ++i) {
    if (i == 1) t0 = clk();
    body<1>(a);
    if (flag) body<SKIP>(a);
  }
  u64 t1 = clk();
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 1.2345f) sink[threadIdx.x] = s;
  if (lane == 0) out[warp] = t1 - t0;
}

// pair: warp 0 times its 1 KiB loop; warp `other` runs a KB KiB loop until warp 0 is done.
template <int KB>
__global__ void __launch_bounds__(256, 1) k_pair(int other, float seed, u64* out, float* sink) {
  __shared__ volatile int done;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  float a[8];
  for (int j = 0; j < 8; ++j) a[j] = seed + j + lane;
  u64 t0 = 0, t1 = 0;
  if (warp == 0) {
    for (int i = 0; i < 4 * ITERS; ++i) {
      if (i == 1) t0 = clk();
      body<1>(a);
    }
    t1 = clk();
    __syncwarp();
    if (lane == 0) done = 1;
  } else if (warp == other) {
    int n = 0;
    t0 = clk();
    while (!done && n < 100000) {
      body<KB>(a);
      ++n;
    }
    t1 = clk();
    if (lane == 0) out[8 + warp] = n;
  } else {
    return;
  }
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 1.2345f) sink[threadIdx.x] = s;
  if (lane == 0) out[warp] = t1 - t0;
}

static u64* d_out;
static float* d_sink;
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
template <typename F>
static void report(const char* var, int kb, unsigned mask, int iters, F launch) {
  std::vector<double> slow, fast;
  for (int r = 0; r < 8; ++r) {
    cudaMemset(d_out, 0, 16 * 8);
    launch();
    cudaDeviceSynchronize();
    u64 h[16];
    cudaMemcpy(h, d_out, 16 * 8, cudaMemcpyDeviceToHost);
    double mx = 0, mn = 1e30;
    for (int w = 0; w < 8; ++w)
      if ((mask >> w) & 1) {
        double c = (double)h[w] / (iters - 1);
        mx = std::max(mx, c);
        mn = std::min(mn, c);
      }
    if (r) { slow.push_back(mx); fast.push_back(mn); }
  }
  printf("%s kb %d mask 0x%02x : %.2f cycles/iter (fastest warp %.2f)", var, kb, mask, median(slow), median(fast));
  if (var[0] == 'p') {
    u64 h[16];
    cudaMemcpy(h, d_out, 16 * 8, cudaMemcpyDeviceToHost);
    for (int w = 1; w < 8; ++w)
      if (h[8 + w]) printf("; warp %d: %llu trips in %llu cycles", w, h[8 + w], h[w]);
  }
  printf("\n");
}
template <int KB>
static void loop_all() {
  unsigned masks[] = {0x1, 0xF, 0x11, 0xFF};
  for (unsigned m : masks)
    report("loop", KB, m, ITERS, [&] { k_loop<KB><<<1, 256>>>(m, 1.0f, d_out, d_sink); });
}
template <int SKIP>
static void skip_all() {
  unsigned masks[] = {0x1, 0xF};
  for (unsigned m : masks)
    report("skip", SKIP, m, ITERS, [&] { k_skip<SKIP><<<1, 256>>>(m, 0, 1.0f, d_out, d_sink); });
}
template <int KB>
static void pair_all() {
  int others[] = {4, 1};
  for (int o : others)
    report(o == 4 ? "pair_same_sp" : "pair_other_sp", KB, 0x1, 4 * ITERS,
           [&] { k_pair<KB><<<1, 256>>>(o, 1.0f, d_out, d_sink); });
}

int main() {
  cudaMalloc(&d_out, 16 * 8);
  cudaMalloc(&d_sink, 256 * 4);
#if PART == 0
  loop_all<1>(); loop_all<2>(); loop_all<3>(); loop_all<4>(); loop_all<6>(); loop_all<8>();
#elif PART == 1
  loop_all<10>(); loop_all<12>(); loop_all<16>(); loop_all<20>();
#elif PART == 2
  loop_all<24>(); loop_all<32>(); loop_all<48>();
#elif PART == 3
  skip_all<2>(); skip_all<8>(); skip_all<32>();
  pair_all<1>(); pair_all<4>(); pair_all<8>(); pair_all<16>(); pair_all<32>();
#else
  pair_all<1>(); pair_all<4>(); pair_all<8>(); pair_all<16>(); pair_all<32>();
#endif
  cudaError_t e = cudaGetLastError();
  printf("# part %d: %s\n", PART, cudaGetErrorString(e));
  return 0;
}
