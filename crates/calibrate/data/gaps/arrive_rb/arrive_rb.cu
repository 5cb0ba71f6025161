// smsim calibrate, issue 25 (ties): what an mbarrier arrive whose address sits in a vector
// register costs the instructions after it. ws-wait1's consumers release a stage with
// `SYNCS.ARRIVE.TRANS64.A1T0 RZ, [R6+URZ], RZ` (read barrier SB0) and the next instruction
// that writes R6 (`LDC R6, c[0x0][0x344]`) waits on SB0: until the arrive has read R6. The
// twin's arrive has no register operand, so it has no such wait. One warp, ITERS
// iterations, clock64 around the loop; cycles an iteration, median of LAUNCHES launches.
// MODE 0: every lane arrives at an address in a vector register, then a value the loop
//         needs is reloaded into a register (a constant load, as ws-wait1's loop bound);
// MODE 1: the same with a warp-uniform address (SASS `[URx]`: no register read, no wait);
// MODE 2: no arrive (the loop's own cost);
// MODE 3: MODE 0 with lane 0 alone arriving (a divergent region, as ws-wait1's release);
// MODE 4: every lane, the arrive and the constant load into the arrive's own address
//         register written in one PTX block (so that the load must wait for the read).
// Build: nvcc -O3 -arch=sm_90a -o /tmp/arb arrive_rb.cu
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
typedef unsigned int u32;
#define ITERS 256
#define LAUNCHES 7
static __device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
__constant__ int c_step[4];

template <int MODE>
__global__ void __launch_bounds__(32, 1) k_arrive(int iters, u64* out, int* sink) {
  __shared__ __align__(8) u64 bars[8];
  int lane = threadIdx.x;
  u32 base = (u32)__cvta_generic_to_shared(&bars[0]);
  if (lane < 8)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(base + lane * 8), "r"(1u << 19) : "memory");
  __syncwarp();
  int acc = 0;
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) {
    // the barrier: per lane (vector register) or per iteration (uniform)
    u32 a = MODE == 1 ? base + ((i & 7) << 3) : base + ((((i + lane) >> 5) + i) & 7) * 8;
    bool run = MODE == 4 ? false : MODE == 2 ? false : MODE == 3 ? lane == 0 : true;
    if (run)
      asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(a) : "memory");
    // a constant load right after, as ws-wait1's loop bound
    if (MODE == 4) {
      // the arrive and a load into its own address register, in one PTX block
      asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\tld.const.u32 %0, [c_step];\n\t}"
                   : "+r"(a)::"memory");
      acc += a;
    } else {
      int s;
      asm volatile("ld.const.u32 %0, [c_step];" : "=r"(s)::"memory");
      acc += s;
    }
  }
  u64 t1 = clk();
  if (lane == 0) out[0] = t1 - t0;
  if (acc == 12345) sink[0] = acc;
}

template <int MODE>
static double run(u64* d_out, int* d_sink) {
  std::vector<double> v;
  for (int l = 0; l < LAUNCHES + 1; ++l) {
    k_arrive<MODE><<<1, 32>>>(ITERS, d_out, d_sink);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      printf("MODE %d: %s\n", MODE, cudaGetErrorString(e));
      return -1;
    }
    u64 h;
    cudaMemcpy(&h, d_out, 8, cudaMemcpyDeviceToHost);
    if (l > 0) v.push_back((double)h / ITERS);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  u64* d_out;
  int* d_sink;
  cudaMalloc(&d_out, 8);
  cudaMalloc(&d_sink, 4);
  int one[4] = {1, 1, 1, 1};
  cudaMemcpyToSymbol(c_step, one, sizeof(one));
  printf("cycles an iteration, median of %d launches of %d iterations\n", LAUNCHES, ITERS);
  printf("mode0 vector-address arrive, every lane: %.2f\n", run<0>(d_out, d_sink));
  printf("mode1 uniform-address arrive, every lane: %.2f\n", run<1>(d_out, d_sink));
  printf("mode2 no arrive: %.2f\n", run<2>(d_out, d_sink));
  printf("mode3 vector-address arrive, lane 0: %.2f\n", run<3>(d_out, d_sink));
  printf("mode4 vector-address arrive then a load into its register (one PTX block): %.2f\n", run<4>(d_out, d_sink));
  cudaError_t e = cudaGetLastError();
  printf("# %s\n", e == cudaSuccess ? "no error" : cudaGetErrorString(e));
  return 0;
}
