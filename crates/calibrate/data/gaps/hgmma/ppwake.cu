// smsim calibrate, issue 25 (ties4): the mbarrier wake in micro.cu's ping-pong shape, against
// the gemm producer's (stamps.cu: 73 to 77 cycles from the consumer's clock read before its
// arrive to the producer's after its wait returns). lat_mbar_pingpong's loop (lane 0 of warps
// 0 and 1, the other lanes exited), with 32-bit clock reads kept in registers and stored after
// the arrive / wait they time: ping a (before its arrive), d (after its wait on b1 returns);
// pong b (after its wait on b0 returns), c (before its arrive). DLY > 0: ping spins DLY cycles
// between its arrive and its wait (is a try_wait right behind an arrive slowing the wake?).
// PLAIN: micro.cu's loop unchanged, the round trip from clock64 around the loop.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#include <cstdio>
#include <vector>
#include <algorithm>
DEV u64 clk() { u64 c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory"); return c; }
DEV u32 clk32() { u32 c; asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory"); return c; }
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
DEV void mbar_init(u32 bar, u32 count) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory"); }
DEV void mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory"); }
DEV void mbar_arrive(u32 bar) { asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory"); }
DEV u32 mbar_try(u32 bar, u32 parity) {
  u32 ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}" : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}
#define SPIN_LIMIT 20000000ull
DEV int mbar_wait(u32 bar, u32 parity) {
  if (mbar_try(bar, parity)) return 1;
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > SPIN_LIMIT) return 0;
  }
  return 1;
}
template <int PLAIN, int DLY, int TOP = 0>
__global__ void pp(int iters, u64* out, u32* st, int* err) {
  __shared__ __align__(8) u64 bars[2];
  u32 b0 = smaddr(&bars[0]), b1 = smaddr(&bars[1]);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) { mbar_init(b0, 1); mbar_init(b1, 1); mbar_fence_init(); }
  __syncthreads();
  if (lane != 0 || warp > 1) return;
  u32 ph = 0;
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) {
    u32 e = TOP ? clk32() : 0;  // TOP: a read at the loop top too (st[2048 + 2 * i + warp])
    if (warp == 0) {
      u32 a = PLAIN ? 0 : clk32();
      mbar_arrive(b0);
      if (DLY) { u32 t = clk32(); while (clk32() - t < (u32)DLY) {} }
      if (!mbar_wait(b1, ph)) { err[0] = 1; return; }
      if (!PLAIN) { u32 d = clk32(); st[4 * i] = a; st[4 * i + 3] = d; }
      if (TOP) st[2048 + 2 * i] = e;
    } else {
      if (!mbar_wait(b0, ph)) { err[0] = 2; return; }
      u32 b = PLAIN ? 0 : clk32();
      u32 c = PLAIN ? 0 : clk32();
      mbar_arrive(b1);
      if (!PLAIN) { st[4 * i + 1] = b; st[4 * i + 2] = c; }
      if (TOP) st[2048 + 2 * i + 1] = e;
    }
    ph ^= 1;
  }
  u64 t1 = clk();
  if (warp == 0) out[0] = t1 - t0;
}
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[v.size() / 2]; }
static double pct(std::vector<double> v, double p) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))]; }
static int idf(u32 x, u32 y) { return (int)(x - y); }
int main() {
  u64* out; u32* st; int* err;
  CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&st, 4 * 4 * 1024)); CK(cudaMalloc(&err, 4));
  struct { const char* name; void (*f)(int, u64*, u32*, int*); } vs[] = {
    {"plain", pp<1, 0>}, {"stamped", pp<0, 0>}, {"stamped, ping waits 200 after its arrive", pp<0, 200>}, {"plain, ping waits 200", pp<1, 200>}, {"stamped, loop top read", pp<0, 0, 1>}};
  for (auto& v : vs) {
    std::vector<double> slope, wp, pathp, wpi, pathpi, rt, dtop, topa, ptop;
    for (int r = 0; r < 8; ++r) {
      double sp[2];
      int its[2] = {64, 320};
      for (int q = 0; q < 2; ++q) {
        cudaMemset(err, 0, 4); cudaMemset(st, 0, 4 * 4 * 1024);
        v.f<<<1, 64>>>(its[q], out, st, err);
        CK(cudaDeviceSynchronize());
        u64 h; int he; cudaMemcpy(&h, out, 8, cudaMemcpyDeviceToHost); cudaMemcpy(&he, err, 4, cudaMemcpyDeviceToHost);
        if (he) printf("%s: timeout\n", v.name);
        sp[q] = (double)h;
        if (q == 1 && r > 0) {
          std::vector<u32> s(4096); cudaMemcpy(s.data(), st, 4 * 4096, cudaMemcpyDeviceToHost);
          for (int i = 8; i + 1 < 312; ++i) {
            wp.push_back(idf(s[4 * i + 1], s[4 * i]));         // ping a -> pong b
            pathp.push_back(idf(s[4 * i + 2], s[4 * i + 1]));  // pong b -> c
            wpi.push_back(idf(s[4 * i + 3], s[4 * i + 2]));    // pong c -> ping d
            pathpi.push_back(idf(s[4 * i + 4], s[4 * i + 3])); // ping d -> next a
            rt.push_back(idf(s[4 * i + 4], s[4 * i]));
            if (s[2048 + 2 * i + 2]) {
              dtop.push_back(idf(s[2048 + 2 * (i + 1)], s[4 * i + 3]));  // ping d -> its next loop top
              topa.push_back(idf(s[4 * i + 4], s[2048 + 2 * (i + 1)]));  // ping loop top -> a
              ptop.push_back(idf(s[2048 + 2 * (i + 1) + 1], s[4 * i + 2]));  // pong c -> its next loop top
            }
          }
        }
      }
      if (r > 0) slope.push_back((sp[1] - sp[0]) / 256.0);
    }
    printf("%s: round trip (slope 64 -> 320) %.2f (min %.2f max %.2f)\n", v.name, med(slope), pct(slope, 0), pct(slope, 1));
    if (wp.size())
      printf("  ping a -> pong b %.0f (p10 %.0f p90 %.0f); pong b -> c %.0f; pong c -> ping d %.0f (p10 %.0f p90 %.0f); ping d -> next a %.0f (p10 %.0f p90 %.0f); a -> a %.0f\n",
             med(wp), pct(wp, .1), pct(wp, .9), med(pathp), med(wpi), pct(wpi, .1), pct(wpi, .9), med(pathpi), pct(pathpi, .1), pct(pathpi, .9), med(rt));
    if (dtop.size())
      printf("  ping d -> loop top %.0f (p10 %.0f p90 %.0f); ping loop top -> a %.0f (p10 %.0f p90 %.0f); pong c -> loop top %.0f\n",
             med(dtop), pct(dtop, .1), pct(dtop, .9), med(topa), pct(topa, .1), pct(topa, .9), med(ptop));
  }
  printf("# %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
