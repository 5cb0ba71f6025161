// wsstream/predsts (issue 25): do predicated-off STS.128 cost what real ones do? The
// streaming kernel's compute warps store their pieces as 16 slots `if (j < q) STS.128`,
// which ptxas compiles as 16 predicated STS.128 (`@P STS.128`); the GPU took as long for
// 8 real + 8 off as for 16 real (stamp3/ item 1). Here: W warps (one per sub-partition
// for W <= 4), each 64 iterations of: clock, the 16 slots with q a runtime value,
// clock, __threadfence_block (MEMBAR.CTA), clock. Printed per (W, q): medians over warps
// and iterations of issue (first to second clock) and fence (second to third) cycles.
#include <cstdio>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
__device__ __forceinline__ u64 clk() { u64 c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory"); return c; }
extern "C" __global__ void __launch_bounds__(512, 1) k_slots(int q, int iters, u64* out) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float4 v = make_float4(lane, warp, q, 1.f);
  unsigned char* base = sm + warp * 8192;
  for (int i = 0; i < iters; ++i) {
    u64 t0 = clk();
#pragma unroll
    for (int j = 0; j < 16; ++j)
      if (j < q) *(float4*)(base + j * 512 + lane * 16) = v;
    u64 t1 = clk();
    __threadfence_block();
    u64 t2 = clk();
    if (lane == 0) { out[(warp * iters + i) * 2] = t1 - t0; out[(warp * iters + i) * 2 + 1] = t2 - t1; }
    v.x += 1.f;
  }
}
int main() {
  const int iters = 64;
  u64* d;
  cudaMalloc(&d, 16 * iters * 2 * sizeof(u64));
  cudaFuncSetAttribute(k_slots, cudaFuncAttributeMaxDynamicSharedMemorySize, 16 * 8192);
  std::vector<u64> h(16 * iters * 2);
  for (int w : {1, 4, 8})
    for (int q : {0, 1, 4, 8, 12, 16}) {
      for (int rep = 0; rep < 3; ++rep) k_slots<<<1, 32 * w, w * 8192>>>(q, iters, d);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { printf("# error %s\n", cudaGetErrorString(e)); return 1; }
      cudaMemcpy(h.data(), d, h.size() * sizeof(u64), cudaMemcpyDeviceToHost);
      std::vector<u64> a, b;
      for (int x = 0; x < w; ++x)
        for (int i = 4; i < iters; ++i) { a.push_back(h[(x * iters + i) * 2]); b.push_back(h[(x * iters + i) * 2 + 1]); }
      std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
      printf("warps %d q %2d issue %llu (p10 %llu p90 %llu) fence %llu (p10 %llu p90 %llu)\n", w, q, a[a.size() / 2],
             a[a.size() / 10], a[a.size() * 9 / 10], b[b.size() / 2], b[b.size() / 10], b[b.size() * 9 / 10]);
    }
  return 0;
}
