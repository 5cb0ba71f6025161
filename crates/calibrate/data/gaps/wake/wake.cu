// smsim calibrate, issue 25: what a try_wait that SLEEPS until another agent completes the
// phase costs on top of the wait itself (the "wake" cost), against the probe on a phase
// already complete (lat_mbarrier_probe's benchmark). One CTA, one SM. Per iteration, with
// clock64 kept in registers and stored to shared memory only after the timed point:
//  (a, printed `probe`) PROBE_ITERS dependent try_waits on a complete phase, the compiler's C loop.
//  (b, printed `arrive`) warp 0 (all 32 lanes) try_waits on phase i; lane 0 of warp A (A = 1: other
//      sub-partition, A = 4: the same one) spins D cycles on clock64, reads t_arr, arrives.
//      Printed: waiter's return clock minus t_arr (the wake latency), and the number of
//      try_waits that returned false (0: the first one slept until the phase completed).
//  (a-poll) the same waited on with test_wait (never suspends): the polling reference.
//  (a-hint) the same with try_wait's suspendTimeHint (ns).
//  (c, printed `bulk`) lane 0 of warp A spins D, reads t_arr, arrive.expect_tx 1 KiB and issues a
//      cp.async.bulk of 1 KiB from global (L2-resident after the first) completing it.
//      (bulk) waiter try_waits; (b-poll) waiter test_waits; (b-self) the issuing thread itself
//      try_waits right after the issue (warp 0 idle). Each: return minus t_arr.
// Median / p10 / p90 of 5 launches x (ITERS-2) iterations (the first two of each launch
// dropped). Build and run: nvcc -O3 -arch=sm_90a -o /tmp/wake wake.cu && /tmp/wake
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define ITERS 64
#define PROBE_ITERS 256
__device__ __forceinline__ unsigned smaddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ bool try_wait(unsigned b, unsigned par) {
  unsigned ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
               : "=r"(ok) : "r"(b), "r"(par) : "memory");
  return ok;
}
__device__ __forceinline__ bool try_wait_hint(unsigned b, unsigned par, unsigned hint) {
  unsigned ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2, %3;\n\tselp.u32 %0, 1, 0, P;\n\t}"
               : "=r"(ok) : "r"(b), "r"(par), "r"(hint) : "memory");
  return ok;
}
__device__ __forceinline__ bool test_wait(unsigned b, unsigned par) {
  unsigned ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.test_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
               : "=r"(ok) : "r"(b), "r"(par) : "memory");
  return ok;
}
__device__ __forceinline__ void arrive(unsigned b) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(b) : "memory");
}
__device__ __forceinline__ void bulk_1k(unsigned b, unsigned dst, const void* src) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], 1024;\n\t}" ::"r"(b) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(dst),
               "l"(src), "r"(b)
               : "memory");
}
__device__ __forceinline__ void pair_sync() { asm volatile("bar.sync 1, 64;" ::: "memory"); }

__global__ void probe(unsigned long long* out) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned b = smaddr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    arrive(b);
  }
  __syncthreads();
  unsigned acc = 0;
  long long t0 = clock64();
  for (int i = 0; i < PROBE_ITERS; ++i) {
    while (!try_wait(b, acc & 0)) {
    }
    acc += 1;
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = (t1 - t0) + (acc == 12345);
}

// mode: 0 arrive/try_wait, 1 arrive/test_wait, 2 arrive/try_wait+hint,
//       3 bulk/try_wait, 4 bulk/test_wait, 5 bulk/issuer waits itself
__global__ void wake(int mode, int aw, int D, unsigned hint, const int4* src, long long* out) {
  __shared__ __align__(8) unsigned long long bar;
  __shared__ __align__(128) int4 buf[64];
  __shared__ long long t_arr[ITERS], t_ret[ITERS];
  __shared__ int spins[ITERS];
  unsigned b = smaddr(&bar), dst = smaddr(buf);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (warp != 0 && warp != aw) return;
  bool bulk = mode >= 3;
  for (int i = 0; i < ITERS; ++i) {
    unsigned par = i & 1;
    pair_sync();
    if (warp == aw) {
      if (lane == 0) {
        long long s = clock64(), t;
        do t = clock64(); while (t - s < D);
        if (bulk) bulk_1k(b, dst, src); else arrive(b);
        if (mode == 5) {
          int n = 0;
          while (!try_wait(b, par)) ++n;
          long long r = clock64();
          t_ret[i] = r;
          spins[i] = n;
        }
        t_arr[i] = t;
      }
    } else if (mode != 5) {
      int n = 0;
      if (mode == 1 || mode == 4) {
        while (!test_wait(b, par)) ++n;
      } else if (mode == 2) {
        while (!try_wait_hint(b, par, hint)) ++n;
      } else {
        while (!try_wait(b, par)) ++n;
      }
      long long r = clock64();
      if (lane == 0) {
        t_ret[i] = r;
        spins[i] = n;
      }
    } else {
      // mode 5: warp 0 idles but still waits so the next iteration's phase is settled
      while (!try_wait(b, par)) {
      }
    }
  }
  pair_sync();
  if (threadIdx.x == 0)
    for (int i = 0; i < ITERS; ++i) {
      out[2 * i] = t_ret[i] - t_arr[i];
      out[2 * i + 1] = spins[i];
    }
}

static void report(const char* name, int aw, int D, unsigned hint, int mode, const int4* src, long long* d) {
  std::vector<long long> v;
  double sp = 0;
  long long spmax = 0;
  for (int r = 0; r < 6; ++r) {
    wake<<<1, 160>>>(mode, aw, D, hint, src, d);
    cudaDeviceSynchronize();
    long long h[2 * ITERS];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (r == 0) continue;  // warm-up launch (code, L2)
    for (int i = 2; i < ITERS; ++i) {
      v.push_back(h[2 * i]);
      sp += h[2 * i + 1];
      spmax = std::max(spmax, h[2 * i + 1]);
    }
  }
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  printf("%-8s %-9s D %5d hint %8u : median %6lld p10 %6lld p90 %6lld min %6lld max %6lld | false try_waits mean %.2f max %lld\n",
         name, aw == 4 ? "same-smsp" : "other-smsp", D, hint, v[n / 2], v[n / 10], v[n * 9 / 10], v.front(), v.back(),
         sp / n, spmax);
}

int main() {
  long long* d;
  unsigned long long* dp;
  int4* src;
  cudaMalloc(&d, 2 * ITERS * 8);
  cudaMalloc(&dp, 8);
  cudaMalloc(&src, 4096);
  cudaMemset(src, 1, 4096);
  {
    std::vector<double> v;
    for (int r = 0; r < 10; ++r) {
      probe<<<1, 32>>>(dp);
      cudaDeviceSynchronize();
      unsigned long long h;
      cudaMemcpy(&h, dp, 8, cudaMemcpyDeviceToHost);
      if (r) v.push_back((double)h / PROBE_ITERS);
    }
    std::sort(v.begin(), v.end());
    printf("probe    complete phase, C loop : %.2f cycles/wait (min %.2f max %.2f)\n", v[v.size() / 2], v.front(), v.back());
  }
  int Ds[] = {0, 200, 1000, 4000};
  int aws[] = {1, 4};
  for (int aw : aws)
    for (int D : Ds) report("arrive", aw, D, 0, 0, src, d);
  for (int aw : aws)
    for (int D : Ds) report("a-poll", aw, D, 0, 1, src, d);
  unsigned hints[] = {0, 100, 1000, 10000000};
  for (unsigned h : hints)
    for (int D : {1000, 4000}) report("a-hint", 1, D, h, 2, src, d);
  for (int aw : aws)
    for (int D : Ds) report("bulk", aw, D, 0, 3, src, d);
  for (int aw : aws)
    for (int D : Ds) report("b-poll", aw, D, 0, 4, src, d);
  for (int D : Ds) report("b-self", 1, D, 0, 5, src, d);
  cudaError_t e = cudaGetLastError();
  printf("# %s\n", e == cudaSuccess ? "no error" : cudaGetErrorString(e));
  return 0;
}
