// smsim calibrate, issue 25: what an mbarrier try_wait on a phase long complete costs by
// the number of lanes that execute it (1, 2, 8, 16, 32) and the number of warps doing so
// at once (1, 4, 8 warps, one per subpartition first). Each lane runs ITERS dependent
// waits (try_wait, then a branch on its predicate, as stream.cu's mbar_wait); printed:
// cycles per wait, the slowest warp's lane 0, median of 9 launches.
// Build and run: nvcc -O3 -arch=sm_90a -o /tmp/tw trywait_lanes.cu && /tmp/tw
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define ITERS 256
__device__ __forceinline__ unsigned smaddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__global__ void tw(int lanes, int warps, int mode, unsigned long long* out) {
  __shared__ __align__(8) unsigned long long bar[2];
  unsigned b = smaddr(&bar[0]);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(b) : "memory");
  }
  __syncthreads();
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned long long t0 = 0, t1 = 0;
  unsigned acc = 0;
  if (warp < warps && lane < lanes) {
    t0 = clock64();
    for (int i = 0; i < ITERS; ++i) {
      unsigned ok;
      if (mode == 0) {  // try_wait.parity on phase 0 (complete)
        asm volatile(
            "{\n\t.reg .pred P;\n\tWAIT_%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\t@!P bra WAIT_%=;\n\tselp.u32 %0, 1, 0, P;\n\t}"
            : "=r"(ok) : "r"(b), "r"(acc & 0) : "memory");
      } else {  // test_wait.parity: a probe that never suspends
        asm volatile(
            "{\n\t.reg .pred P;\n\tWAIT_%=:\n\tmbarrier.test_wait.parity.shared::cta.b64 P, [%1], %2;\n\t@!P bra WAIT_%=;\n\tselp.u32 %0, 1, 0, P;\n\t}"
            : "=r"(ok) : "r"(b), "r"(acc & 0) : "memory");
      }
      acc += ok;
    }
    t1 = clock64();
  }
  if (lane == 0 && warp < warps) out[warp] = (t1 - t0) + (acc == 12345);
}
int main() {
  unsigned long long* d;
  cudaMalloc(&d, 64 * 8);
  int lanes_v[] = {1, 2, 8, 16, 32};
  int warps_v[] = {1, 4, 8};
  for (int mode = 0; mode < 2; ++mode)
    for (int w : warps_v)
      for (int l : lanes_v) {
        std::vector<double> v;
        for (int r = 0; r < 10; ++r) {
          tw<<<1, 256>>>(l, w, mode, d);
          cudaDeviceSynchronize();
          unsigned long long h[8];
          cudaMemcpy(h, d, 8 * 8, cudaMemcpyDeviceToHost);
          unsigned long long m = 0;
          for (int i = 0; i < w; ++i) m = std::max(m, h[i]);
          if (r) v.push_back((double)m / ITERS);
        }
        std::sort(v.begin(), v.end());
        printf("%s warps %d lanes %2d : %.2f cycles/wait (min %.2f max %.2f)\n", mode ? "test_wait" : "try_wait ", w, l,
               v[v.size() / 2], v.front(), v.back());
      }
  cudaError_t e = cudaGetLastError();
  printf("# %s\n", cudaGetErrorString(e));
  return 0;
}
