// smsim calibrate, issue 25 (lanewait, part 2): what a lane-0 region costs the warp.
// One CTA, one warp (32 lanes) on one SM, 64 iterations a launch, 6 launches (the first
// and each launch's first 4 iterations dropped). Per iteration, clock64 reads (32-bit):
//   tA  all lanes, before the region;
//   tC  lane 0, the region's last instruction (after its body);
//   tB  all lanes, after the region (after the reconvergence, BSYNC);
// Regions (`div`): 1 `if (lane == 0) { BODY; tC }` (lanes 1..31 wait at its end);
//                  0 `if (flag) { BODY; tC }` with flag = 1 for every lane (no divergence,
//                    the same code and branch; the reference).
// (The mbarrier counts 1 arrival in lane 0's region, 32 where every lane runs the body.)
// Bodies (`body`): 0 none (only tC), 1 a shared store, 2 `cp.async.bulk.wait_group.read 0`
// with nothing in flight (DEPBAR), 3 an mbarrier arrive completing a phase (count 1),
// 4 that arrive and a try_wait on the completed phase, 5 arrive.expect_tx + a 1 KiB
// cp.async.bulk from L2 (tC right after the issue), 6 a 64-cycle clock spin.
// Printed per (div, body): median (p10, p90) of tB - tA (the region), tC - tA (to the
// body's end), tB - tC (the way out: the reconvergence).
// Build: nvcc -O3 -arch=sm_90a -o /tmp/region region.cu
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
typedef unsigned u32;
#define DEV __device__ __forceinline__
#define IT 64

DEV u32 clk32() {
  u64 t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return (u32)t;
}
DEV u32 smaddr(const void* p) { return (u32)__cvta_generic_to_shared(p); }

extern "C" __global__ void region(const char* src, int div, int body, int flag, u32* out) {
  __shared__ __align__(128) unsigned char buf[1024];
  __shared__ __align__(8) u64 bar_mem;
  __shared__ u32 sa[IT], sb[IT], sc[IT];
  __shared__ volatile u32 sink[32];
  int lane = threadIdx.x % 32;
  u32 bar = smaddr(&bar_mem);
  if (threadIdx.x == 0) {
    // every lane arrives where the region is the whole warp's
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(div ? 1 : 32) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncwarp();
  bool in = div ? lane == 0 : flag != 0;
  for (int i = 0; i < IT; ++i) {
    u32 a = clk32();
    u32 c = 0;
    if (in) {
      if (body == 1) {
        sink[0] = i;
      } else if (body == 2) {
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      } else if (body == 3 || body == 4) {
        asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
        if (body == 4) {
          u32 ok = 0;
          while (!ok)
            asm volatile(
                "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, "
                "P;\n\t}"
                : "=r"(ok)
                : "r"(bar), "r"(i & 1)
                : "memory");
        }
      } else if (body == 5) {
        asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], 1024;\n\t}" ::"r"(bar)
                     : "memory");
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(
                smaddr(buf)),
            "l"(src), "r"(bar)
            : "memory");
      } else if (body == 6) {
        u32 s = clk32();
        while (clk32() - s < 64) {
        }
      }
      c = clk32();
    }
    u32 b = clk32();
    if (lane == 0) {
      sa[i] = a;
      sb[i] = b;
      sc[i] = c;
    }
    if (body == 5) {
      // the copy's phase, waited on by the whole warp outside the timed region
      u32 ok = 0;
      while (!ok)
        asm volatile(
            "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
            : "=r"(ok)
            : "r"(bar), "r"(i & 1)
            : "memory");
    }
    __syncwarp();
  }
  if (lane == 0)
    for (int i = 0; i < IT; ++i) {
      out[3 * i] = sa[i];
      out[3 * i + 1] = sb[i];
      out[3 * i + 2] = sc[i];
    }
}

static double pct(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[(size_t)(p * (v.size() - 1) + 0.5)];
}

int main() {
  char* src;
  u32* out;
  cudaMalloc(&src, 1 << 20);
  cudaMemset(src, 1, 1 << 20);
  cudaMalloc(&out, 12 * IT);
  const char* BN[] = {"none", "sts", "depbar_read", "arrive", "arrive_trywait", "bulk_1KiB", "spin64"};
  std::vector<u32> h(3 * IT);
  for (int body = 0; body < 7; ++body)
    for (int div = 0; div < 2; ++div) {
      std::vector<double> ba, ca, bc;
      for (int l = 0; l < 6; ++l) {
        region<<<1, 32>>>(src, div, body, 1, out);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
          printf("# error: %s\n", cudaGetErrorString(e));
          return 1;
        }
        if (l == 0) continue;
        cudaMemcpy(h.data(), out, 12 * IT, cudaMemcpyDeviceToHost);
        for (int i = 4; i < IT; ++i) {
          ba.push_back((double)(u32)(h[3 * i + 1] - h[3 * i]));
          ca.push_back((double)(u32)(h[3 * i + 2] - h[3 * i]));
          bc.push_back((double)(u32)(h[3 * i + 1] - h[3 * i + 2]));
        }
      }
      printf("region %-6s body %-15s | tB-tA %6.0f (%.0f,%.0f) | tC-tA %6.0f (%.0f,%.0f) | tB-tC %6.0f (%.0f,%.0f)\n",
             div ? "lane0" : "all", BN[body], pct(ba, .5), pct(ba, .1), pct(ba, .9), pct(ca, .5), pct(ca, .1),
             pct(ca, .9), pct(bc, .5), pct(bc, .1), pct(bc, .9));
      fflush(stdout);
    }
  return 0;
}
