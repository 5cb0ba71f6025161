// smsim calibrate, issue 25 (ties5): the ping-pong loop's own path, one warp, no wake.
// micro.cu's lat_mbar_pingpong with ping waiting on its own barrier b0 (SELF: the phase it
// just completed, so its try_wait returns at its first try, as lat_mbar_self's does): ping's
// exact loop (loop head with YIELD and BSSY, the per-warp forward branch, arrive, try_wait,
// the success branch, BSYNC, LOP3, back branch) with lat_mbar_self's arrive-to-wait in place
// of the wake. UNI: the warp test on a kernel parameter (a uniform branch, no convergence
// region). STRAIGHT: lat_mbar_self's loop (no warp branch). Cycles a trip: (T(320) - T(64)) / 256
// from clock64 around the loop, 7 launches after a warm-up.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#include <cstdio>
#include <vector>
#include <algorithm>
#include <type_traits>
DEV u32 clk32() { u32 c; asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory"); return c; }
DEV u64 clk() { u64 c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory"); return c; }
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
// SELF 0: the two-warp ping-pong (micro.cu's); 1: ping waits on b0, only warp 0 runs.
// STAMP: ping reads the clock at its loop top (top), before its arrive (a) and after its wait
// returns (d), and sums top - d (the previous trip's), a - top and d - a in registers, stored
// once after the loop (out[1..3]): no store on the path. STAMP 2: the same with 64-bit clock
// reads and sums (ptxas reads %clock of STAMP 1 with S2UR at some places, whose latency then
// sits on the path; clock64 is a CS2R into vector registers).
// SHAPE 1: each side's wait a single try_wait (no spin loop; SELF's always succeeds);
// SHAPE 2: no else side (warp 0 runs the region; its branch around it not taken).
// LIVE: lanes 1-31 do not exit; they wait at the end of lane 0's region (its BSYNC, as the
// gemm producer's lanes do) while lane 0 runs the loop.
template <int SELF, int UNI, int STAMP = 0, int SHAPE = 0, int LIVE = 0>
__global__ void pp(int iters, int sel, u64* out, int* err) {
  __shared__ __align__(8) u64 bars[2];
  u32 b0 = smaddr(&bars[0]), b1 = smaddr(&bars[1]);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) { mbar_init(b0, 1); mbar_init(b1, 1); mbar_fence_init(); }
  __syncthreads();
  if (warp > (SELF ? 0 : 1) || (!LIVE && lane != 0)) return;
  if (!LIVE || lane == 0) {
  int who = UNI ? sel : warp;
  u32 ph = 0;
  typedef typename std::conditional<STAMP == 2, u64, u32>::type T;
#define CLK() (STAMP == 2 ? (T)clk() : (T)clk32())
  T d = STAMP ? CLK() : 0, s_dt = 0, s_ta = 0, s_ad = 0;
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) {
    T top = STAMP ? CLK() : 0;
    if (STAMP) s_dt += top - d;
    if (who == 0) {
      T a = STAMP ? CLK() : 0;
      mbar_arrive(b0);
      if (SHAPE == 1) { if (!mbar_try(SELF ? b0 : b1, ph)) { err[0] = 3; return; } }
      else if (!mbar_wait(SELF ? b0 : b1, ph)) { err[0] = 1; return; }
      if (STAMP) { d = CLK(); s_ta += a - top; s_ad += d - a; }
    } else if (SHAPE == 1) {
      if (!mbar_try(b0, ph)) { err[0] = 4; return; }
      mbar_arrive(b1);
    } else if (SHAPE == 0) {
      if (!mbar_wait(b0, ph)) { err[0] = 2; return; }
      mbar_arrive(b1);
    }
    ph ^= 1;
  }
  u64 t1 = clk();
  if (warp == 0) { out[0] = t1 - t0; out[1] = s_dt; out[2] = s_ta; out[3] = s_ad; }
  }
  if (LIVE) out[4] = lane;  // the parked lanes run on after lane 0's region
}
// lat_mbar_self's loop, one thread.
__global__ void straight(int iters, int sel, u64* out, int* err) {
  __shared__ __align__(8) u64 bar_mem;
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  mbar_init(bar, 1);
  mbar_fence_init();
  u32 ph = 0;
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) {
    mbar_arrive(bar);
    if (!mbar_wait(bar, ph)) { err[0] = 1; return; }
    ph ^= 1;
  }
  u64 t1 = clk();
  out[0] = t1 - t0;
}
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[v.size() / 2]; }
static double pct(std::vector<double> v, double p) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))]; }
int main() {
  u64* out; int* err;
  CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&err, 4));
  struct { const char* name; void (*f)(int, int, u64*, int*); } vs[] = {
      {"pingpong (two warps, per-warp branch)", pp<0, 0>},
      {"self pingpong (ping alone waits on b0, per-warp branch)", pp<1, 0>},
      {"self pingpong, uniform branch (sel param)", pp<1, 1>},
      {"straight (lat_mbar_self)", straight},
      {"pingpong, ping stamped", pp<0, 0, 1>},
      {"self pingpong, stamped", pp<1, 0, 1>},
      {"self pingpong, uniform branch, stamped", pp<1, 1, 1>},
      {"pingpong, ping stamped with clock64", pp<0, 0, 2>},
      {"self pingpong, stamped with clock64", pp<1, 0, 2>},
      {"self pingpong, uniform branch, stamped with clock64", pp<1, 1, 2>},
      {"self pingpong, single try_wait (no spin loop)", pp<1, 0, 0, 1>},
      {"self pingpong, single try_wait, stamped with clock64", pp<1, 0, 2, 1>},
      {"self pingpong, no else side", pp<1, 0, 0, 2>},
      {"self pingpong, no else side, stamped with clock64", pp<1, 0, 2, 2>},
      {"self pingpong, lanes 1-31 live (parked at __syncwarp)", pp<1, 0, 0, 0, 1>},
      {"self pingpong, lanes 1-31 live, stamped with clock64", pp<1, 0, 2, 0, 1>},
      {"self pingpong, single try_wait, lanes 1-31 live", pp<1, 0, 0, 1, 1>},
      {"self pingpong, single try_wait, lanes 1-31 live, stamped with clock64", pp<1, 0, 2, 1, 1>}};
  for (int pass = 0; pass < 2; ++pass)
    for (auto& v : vs) {
      std::vector<double> slope, sdt, sta, sad;
      for (int r = 0; r < 8; ++r) {
        double sp[2], q1[2], q2[2], q3[2];
        int its[2] = {64, 320};
        for (int q = 0; q < 2; ++q) {
          cudaMemset(err, 0, 4); cudaMemset(out, 0, 64);
          v.f<<<1, 64>>>(its[q], 0, out, err);
          CK(cudaDeviceSynchronize());
          u64 h[4]; int he;
          cudaMemcpy(h, out, 32, cudaMemcpyDeviceToHost); cudaMemcpy(&he, err, 4, cudaMemcpyDeviceToHost);
          if (he) printf("%s: timeout %d\n", v.name, he);
          sp[q] = (double)h[0]; q1[q] = (double)h[1]; q2[q] = (double)h[2]; q3[q] = (double)h[3];
        }
        if (r > 0) {
          slope.push_back((sp[1] - sp[0]) / 256.0);
          sdt.push_back((q1[1] - q1[0]) / 256.0); sta.push_back((q2[1] - q2[0]) / 256.0); sad.push_back((q3[1] - q3[0]) / 256.0);
        }
      }
      printf("pass %d, %s: cycles a trip %.2f (min %.2f max %.2f)\n", pass, v.name, med(slope), pct(slope, 0), pct(slope, 1));
      if (med(sdt) + med(sta) + med(sad) > 0)
        printf("  ping d -> loop top %.2f (min %.2f max %.2f); loop top -> a %.2f (min %.2f max %.2f); a -> d %.2f (min %.2f max %.2f)\n", med(sdt), pct(sdt, 0), pct(sdt, 1), med(sta), pct(sta, 0), pct(sta, 1), med(sad), pct(sad, 0), pct(sad, 1));
    }
  printf("# %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
