// smsim calibrate, issue 25 (lanewait): a try_wait issued in lane 0's region (the warp's
// other 31 lanes parked at the region's end) against the same wait by one thread alone
// and by the whole warp. One CTA of 64 threads on one SM. Per repetition (64 a launch,
// 6 launches, the first launch and each launch's first 2 repetitions dropped):
//   warps 0 and 1 meet at `bar.sync 1, 64` (regions 1 and 2);
//   warp 0 lane 0 reads t0, then completes the phase's transaction side with
//     `arrive.expect_tx` and one `cp.async.bulk` of C bytes (source L2-resident, or at a
//     fresh HBM address each time), or (source `arrive`) warp 1 lane 0 spins A cycles,
//     reads t_arr and arrives (the phase's second arrival: warp 0 lane 0 arrives first);
//   warp 0 lane 0 spins D cycles, then waits with try_wait, every try stamped: the clock
//     read AFTER a branch on the try's predicate (so after it returned), with its result;
//     up to 6 stamped tries, then an unstamped loop (counted).
// Regions: 0 `alone` (lanes 1..31 of warp 0 exited; warp 1 exited unless the source is
// `arrive`, which then has no bar.sync: warp 1 spins from its own start), 1 `lane0`
// (lanes 1..31 wait at the region's end, the ws kernel's load and store warps), 2 `warp`
// (all 32 lanes try_wait, lane 0 issued the copy; the tp kernel's full wait).
// Hint: the try_wait's suspendTimeHint in ns (0 = the plain form).
// Printed per case: the number of tries (histogram), each stamped try's return - t0
// (median, p10, p90) for the repetitions with the modal try count, and the same from
// t_arr for `arrive`.
// Build: nvcc -O3 -arch=sm_90a -o /tmp/lanewait lanewait.cu
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <map>
typedef unsigned long long u64;
typedef unsigned u32;
#define DEV __device__ __forceinline__
#define REPS 64
#define NST 6
#define REC 12
#define SPIN_LIMIT 200000000ull

DEV u64 clk() {
  u64 t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
DEV u32 smaddr(const void* p) { return (u32)__cvta_generic_to_shared(p); }
DEV void spin(u64 d) {
  if (d == 0) return;
  u64 s = clk(), t;
  do t = clk(); while (t - s < d);
}
DEV void mbar_expect_tx(u32 bar, u32 bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(bar),
               "r"(bytes)
               : "memory");
}
DEV void mbar_arrive(u32 bar) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
DEV void bulk_g2s(u32 dst, const void* src, u32 bytes, u32 bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
// One try, stamped after it returned: the clock is read on each side of a branch on the
// try's predicate (the two sides differ, so ptxas cannot merge them above the branch).
DEV u32 try_st(u32 bar, u32 par, u32& t) {
  u32 ok, c;
  asm volatile(
      "{\n\t.reg .pred P;\n\t.reg .u64 k;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P, [%2], %3;\n\t"
      "@P bra LWT;\n\t"
      "mov.u64 k, %%clock64;\n\t"
      "cvt.u32.u64 %1, k;\n\t"
      "mov.u32 %0, 0;\n\t"
      "bra LWE;\n"
      "LWT:\n\t"
      "mov.u64 k, %%clock64;\n\t"
      "cvt.u32.u64 %1, k;\n\t"
      "mov.u32 %0, 1;\n"
      "LWE:\n\t}"
      : "=r"(ok), "=r"(c)
      : "r"(bar), "r"(par)
      : "memory");
  t = c;
  return ok;
}
DEV u32 try_st_hint(u32 bar, u32 par, u32 hint, u32& t) {
  u32 ok, c;
  asm volatile(
      "{\n\t.reg .pred P;\n\t.reg .u64 k;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P, [%2], %3, %4;\n\t"
      "@P bra LWT;\n\t"
      "mov.u64 k, %%clock64;\n\t"
      "cvt.u32.u64 %1, k;\n\t"
      "mov.u32 %0, 0;\n\t"
      "bra LWE;\n"
      "LWT:\n\t"
      "mov.u64 k, %%clock64;\n\t"
      "cvt.u32.u64 %1, k;\n\t"
      "mov.u32 %0, 1;\n"
      "LWE:\n\t}"
      : "=r"(ok), "=r"(c)
      : "r"(bar), "r"(par), "r"(hint)
      : "memory");
  t = c;
  return ok;
}
DEV u32 try_plain(u32 bar, u32 par) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(par)
      : "memory");
  return ok;
}

// The stamped wait: rec[2 + k] each try's return clock, rec[8] the results (bit k),
// rec[9] the tries in all (the unstamped ones included). Returns 0 on timeout.
DEV int wait_stamped(u32 bar, u32 par, u32 hint, u32* rec) {
  u32 mask = 0, n = 0;
  for (int k = 0; k < NST; ++k) {
    u32 t;
    u32 ok = hint ? try_st_hint(bar, par, hint, t) : try_st(bar, par, t);
    rec[2 + k] = t;
    ++n;
    if (ok) {
      mask |= 1u << k;
      rec[8] = mask;
      rec[9] = n;
      return 1;
    }
  }
  u64 q = clk();
  while (!try_plain(bar, par)) {
    ++n;
    if (clk() - q > SPIN_LIMIT) return 0;
  }
  rec[8] = mask;
  rec[9] = n + 1;
  return 1;
}

// region 0 alone, 1 lane0, 2 warp; source 0 L2 copy, 1 HBM copy, 2 arrive by warp 1
extern "C" __global__ void lw(const char* src, u64 hbm_off, u32 bytes, int region, int source, u32 D, u32 A,
                              u32 hint, u32* out, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem;
  __shared__ u32 rec[REC];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  u32 bar = smaddr(&bar_mem);
  u32 dst = smaddr(dsm);
  bool arrive_src = source == 2;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrive_src ? 2 : 1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  bool pair = region != 0;
  if (warp == 1) {
    if (!pair && !arrive_src) return;
    if (!pair && lane != 0) return;
    for (int r = 0; r < REPS; ++r) {
      if (pair) asm volatile("bar.sync 1, 64;" ::: "memory");
      if (lane == 0 && arrive_src) {
        spin(A);
        u32 t = (u32)clk();
        mbar_arrive(bar);
        out[REC * r + 1] = t;
      }
      if (!pair && arrive_src) spin(4000);  // alone: keep the repetitions apart
    }
    return;
  }
  if (region == 0 && lane != 0) return;
  for (int r = 0; r < REPS; ++r) {
    u32 par = r & 1;
    if (pair) asm volatile("bar.sync 1, 64;" ::: "memory");
    if (lane == 0) {
      u32 t0 = (u32)clk();
      rec[0] = t0;
      if (arrive_src) {
        mbar_arrive(bar);
      } else {
        mbar_expect_tx(bar, bytes);
        const char* s = source == 1 ? src + hbm_off + (u64)r * 65536 : src;
        bulk_g2s(dst, s, bytes, bar);
      }
      if (region != 2) {
        spin(D);
        if (!wait_stamped(bar, par, hint, rec)) err[0] = 1;
        for (int k = 0; k < REC; ++k)
          if (k != 1) out[REC * r + k] = rec[k];
      }
    }
    if (region == 2) {
      __syncwarp();
      spin(D);
      u32 mine[REC];
      if (!wait_stamped(bar, par, hint, mine)) err[0] = 2;
      if (lane == 0)
        for (int k = 2; k < REC; ++k) out[REC * r + k] = mine[k];
      if (lane == 0) out[REC * r] = rec[0];
      __syncwarp();
    }
  }
}

// ---------------------------------------------------------------- host
static double pct(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[(size_t)(p * (v.size() - 1) + 0.5)];
}
static void ck(const char* what) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("# error %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}
static const char* RN[] = {"alone", "lane0", "warp"};
static const char* SN[] = {"l2", "hbm", "arrive"};

static char* g_buf;
static u32* g_out;
static int* g_err;
static u64 g_hbm = 0;
const u64 HBM_SPAN = 1ull << 30;

static void run(int region, int source, u32 bytes, u32 D, u32 A, u32 hint) {
  std::vector<u32> h(REC * REPS);
  std::map<int, int> hist;
  std::vector<std::vector<u32>> recs;
  for (int l = 0; l < 6; ++l) {
    cudaMemset(g_out, 0, 4 * REC * REPS);
    u64 off = (1ull << 24) + g_hbm;
    g_hbm = (g_hbm + REPS * 65536) % (HBM_SPAN - (1ull << 25));
    lw<<<1, 64, 32768>>>(g_buf, off, bytes, region, source, D, A, hint, g_out, g_err);
    ck("lw");
    if (l == 0) continue;
    cudaMemcpy(h.data(), g_out, 4 * REC * REPS, cudaMemcpyDeviceToHost);
    for (int r = 2; r < REPS; ++r) {
      std::vector<u32> x(h.begin() + REC * r, h.begin() + REC * (r + 1));
      hist[x[9]]++;
      recs.push_back(x);
    }
  }
  int mode = 0, best = -1;
  for (auto& kv : hist)
    if (kv.second > best) best = kv.second, mode = kv.first;
  printf("%-6s %-6s C %5u D %4u A %4u hint %6u | tries:", RN[region], SN[source], bytes, D, A, hint);
  for (auto& kv : hist) printf(" %dx%d", kv.first, kv.second);
  printf(" | from t0:");
  int ns = std::min(mode, NST);
  for (int k = 0; k < ns; ++k) {
    std::vector<double> v;
    for (auto& x : recs)
      if ((int)x[9] == mode) v.push_back((double)(u32)(x[2 + k] - x[0]));
    printf(" [%d%s %.0f (%.0f,%.0f)]", k + 1, (k + 1 == mode && mode <= NST) ? "T" : "F", pct(v, 0.5), pct(v, 0.1),
           pct(v, 0.9));
  }
  if (source == 2) {
    printf(" | from t_arr:");
    for (int k = 0; k < ns; ++k) {
      std::vector<double> v;
      for (auto& x : recs)
        if ((int)x[9] == mode) v.push_back((double)(int)(x[2 + k] - x[1]));
      printf(" %.0f", pct(v, 0.5));
    }
    std::vector<double> a;
    for (auto& x : recs) a.push_back((double)(int)(x[1] - x[0]));
    printf(" (t_arr - t0 %.0f)", pct(a, 0.5));
  }
  printf("\n");
  fflush(stdout);
}

int main() {
  cudaMalloc(&g_buf, HBM_SPAN);
  cudaMalloc(&g_out, 4 * REC * REPS);
  cudaMalloc(&g_err, 4);
  cudaMemset(g_buf, 1, HBM_SPAN);
  cudaMemset(g_err, 0, 4);
  cudaFuncSetAttribute(lw, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768);
  ck("setup");
  // A. copies, no delay: L2 sizes and HBM, each region
  for (int region = 0; region < 3; ++region) {
    for (u32 c : {1024u, 4096u, 8192u, 16384u, 32768u}) run(region, 0, c, 0, 0, 0);
    for (u32 c : {1024u, 16384u}) run(region, 1, c, 0, 0, 0);
  }
  // B. a delay before the first try (the 8 KiB copy lands ~430 cycles after t0)
  for (int region = 0; region < 2; ++region)
    for (u32 d : {100u, 200u, 300u, 400u, 600u, 1500u}) run(region, 0, 8192, d, 0, 0);
  // C. a phase another warp's arrive completes, A cycles after the pair's bar.sync
  for (int region = 1; region < 3; ++region)
    for (u32 a : {0u, 100u, 200u, 300u, 400u, 600u, 1000u, 2000u}) run(region, 2, 0, 0, a, 0);
  run(0, 2, 0, 0, 1000, 0);
  // D. the suspend-time hint (ns)
  for (u32 hint : {1u, 100u, 1000u, 100000u}) {
    run(1, 0, 8192, 0, 0, hint);
    run(1, 0, 32768, 0, 0, hint);
    run(1, 2, 0, 0, 1000, hint);
  }
  int e = 0;
  cudaMemcpy(&e, g_err, 4, cudaMemcpyDeviceToHost);
  cudaError_t ce = cudaGetLastError();
  printf("# err flag %d, %s\n", e, ce == cudaSuccess ? "no error" : cudaGetErrorString(ce));
  return 0;
}
