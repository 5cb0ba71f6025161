// smsim calibrate, issue 25: where a try_wait's cycles go in the loops the fit uses.
// One CTA on one SM throughout. Parts (each printed with its tag):
//  P  `probe`: micro.cu's lat_mbar_probe loop (a try_wait on a phase completed before the
//     loop, its mbar_wait helper), unstamped (cycles a wait over the whole loop) and
//     stamped (tA before the wait, tB after it, each iteration, into shared memory).
//  B  `bw`: micro.cu's bw_bulk loop (one thread keeps S bulk copies of C bytes in flight
//     from an L2-resident region), unstamped (cycles a copy over the loop), and stamped:
//     tA at the loop's top (before the wait on the oldest stage), tB after the wait,
//     tC after the issue of the next copy. `bwnc`: the same loop with the copy left out
//     (a plain arrive completes the stage's phase): the wait is then on a phase an arrive
//     completed S iterations earlier, i.e. the probe in the bw loop's context.
//  L  `lb`: micro.cu's lat_bulk (one thread: expect_tx + cp.async.bulk of C bytes from the
//     same L2-resident source, wait), per copy: t0 before the expect_tx, t1 after the
//     first try_wait returned (true or false), t2 after the wait; mode 0 alone (lat_bulk);
//     1 with a bar.sync(1, 64) with a second warp before each copy; 2 that and the second
//     warp try_waits (asleep) on the same phase (wake.cu's b-self); 3 alone after a spin
//     of 200 cycles on clock64 (wake.cu's completer spins).
//  G  `full`: a gemm-style full wait. Warp 1 lane 0 (producer) waits empty[s], issues
//     expect_tx + a C-byte copy into stage s (full[s]); warp 0 (32 lanes, consumer)
//     try_waits full[s], spins D cycles on clock64, lane 0 arrives on empty[s]. Stamps: the
//     producer's clock before its expect_tx (tP), the consumer's before its wait (tW) and
//     after it (tR). D 0 (the consumer waits on copies) and 2000 (copies done long before).
// Build and run: nvcc -O3 -arch=sm_90a -o /tmp/loopwait loopwait.cu && /tmp/loopwait
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <string>
#include <cstdlib>
typedef unsigned long long u64;
typedef unsigned u32;
#define DEV __device__ __forceinline__
#define SPIN_LIMIT 2000000000ull
#define MAXIT 512

DEV u64 clk() {
  u64 t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
DEV u32 smaddr(const void* p) { return (u32)__cvta_generic_to_shared(p); }
DEV void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
DEV void mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
}
DEV void mbar_expect_tx(u32 bar, u32 bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(bar),
               "r"(bytes)
               : "memory");
}
DEV void mbar_arrive(u32 bar) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
DEV u32 mbar_try(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}
// micro.cu's helper: returns 0 on timeout
DEV int mbar_wait(u32 bar, u32 parity) {
  if (mbar_try(bar, parity)) return 1;
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > SPIN_LIMIT) return 0;
  }
  return 1;
}
DEV void bulk_g2s(u32 dst, const void* src, u32 bytes, u32 bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
DEV void st32(u32* p, u32 v) { *(volatile u32*)p = v; }

// ---------------------------------------------------------------- P: probe
extern "C" __global__ void probe(int iters, int stamped, u64* out, u32* st, int* err) {
  __shared__ __align__(8) u64 bar_mem;
  __shared__ u32 sa[MAXIT], sb[MAXIT];
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  mbar_init(bar, 1);
  mbar_fence_init();
  mbar_arrive(bar);
  if (!mbar_wait(bar, 0)) { err[0] = 1; return; }
  u64 t0 = clk();
  if (stamped) {
    for (int i = 0; i < iters; ++i) {
      u32 a = (u32)clk();
      if (!mbar_wait(bar, 0)) { err[0] = 2; return; }
      u32 b = (u32)clk();
      st32(&sa[i], a);
      st32(&sb[i], b);
    }
  } else {
    for (int i = 0; i < iters; ++i)
      if (!mbar_wait(bar, 0)) { err[0] = 2; return; }
  }
  u64 t1 = clk();
  out[0] = t1 - t0;
  if (stamped)
    for (int i = 0; i < iters; ++i) { st[2 * i] = sa[i]; st[2 * i + 1] = sb[i]; }
}

// ---------------------------------------------------------------- B: bw_bulk and variants
// mode 0: bw_bulk verbatim (micro.cu); 1: stamped; 2: no copy (an arrive completes the
// stage); 3: no copy, stamped.
extern "C" __global__ void bw(const char* base, u64 region, u32 chunk, int stages, int nchunks, int mode,
                              u64* times, u32* st, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[8];
  __shared__ u32 sa[MAXIT], sb[MAXIT], sc[MAXIT];
  if (threadIdx.x != 0) return;
  if (stages > 8) stages = 8;
  bool stamp = mode & 1, copy = mode < 2;
  u32 d0 = smaddr(dsm);
  for (int s = 0; s < stages; ++s) mbar_init(smaddr(&bars[s]), 1);
  mbar_fence_init();
  u32 parity = 0;
  u64 c0 = clk();
  u64 off = 0;
  int issued = 0;
  for (int s = 0; s < stages && issued < nchunks; ++s, ++issued) {
    u32 bar = smaddr(&bars[s]);
    if (copy) {
      mbar_expect_tx(bar, chunk);
      bulk_g2s(d0 + s * chunk, base + off, chunk, bar);
    } else {
      mbar_arrive(bar);
    }
    off += chunk;
    if (off >= region) off -= region;
  }
  for (int done = 0, s = 0; done < nchunks; ++done, s = (s + 1 == stages) ? 0 : s + 1) {
    u32 bar = smaddr(&bars[s]);
    u32 a = stamp ? (u32)clk() : 0;
    if (!mbar_wait(bar, (parity >> s) & 1)) { err[0] = 1; return; }
    u32 b = stamp ? (u32)clk() : 0;
    parity ^= 1u << s;
    if (issued < nchunks) {
      if (copy) {
        mbar_expect_tx(bar, chunk);
        bulk_g2s(d0 + s * chunk, base + off, chunk, bar);
      } else {
        mbar_arrive(bar);
      }
      off += chunk;
      if (off >= region) off -= region;
      ++issued;
    }
    if (stamp && done < MAXIT) {
      u32 c = (u32)clk();
      st32(&sa[done], a);
      st32(&sb[done], b);
      st32(&sc[done], c);
    }
  }
  u64 c1 = clk();
  times[0] = c1 - c0;
  if (stamp)
    for (int i = 0; i < nchunks && i < MAXIT; ++i) {
      st[3 * i] = sa[i];
      st[3 * i + 1] = sb[i];
      st[3 * i + 2] = sc[i];
    }
}

// ---------------------------------------------------------------- L: lat_bulk and context
// Warp 0 lane 0 copies and waits; the bar.sync (modes 1, 2) is outside the lane-0 region,
// as in wake.cu. Stamps go straight to global memory.
extern "C" __global__ void lb(const char* src, u32 bytes, int reps, int mode, u32* st, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  u32 bar = smaddr(&bar_mem);
  u32 dst = smaddr(dsm);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  bool pair = mode == 1 || mode == 2;
  if (warp == 1) {
    if (!pair) return;
    for (int r = 0; r < reps; ++r) {
      asm volatile("bar.sync 1, 64;" ::: "memory");
      if (mode == 2) while (!mbar_try(bar, r & 1)) {}
    }
    return;
  }
  if (!pair && lane != 0) return;
  for (int r = 0; r < reps; ++r) {
    if (pair) asm volatile("bar.sync 1, 64;" ::: "memory");
    if (lane == 0) {
      if (mode == 3) {
        u64 s = clk(), t;
        do t = clk(); while (t - s < 200);
      }
      u32 a = (u32)clk();
      mbar_expect_tx(bar, bytes);
      bulk_g2s(dst, src, bytes, bar);
      u32 ok = mbar_try(bar, r & 1);
      u32 b = (u32)clk();
      u32 n = 0;
      if (!ok) {
        u64 q = clk();
        while (!mbar_try(bar, r & 1)) {
          ++n;
          if (clk() - q > SPIN_LIMIT) { err[0] = 3; return; }
        }
      }
      u32 c = (u32)clk();
      st[4 * r] = a;
      st[4 * r + 1] = b;
      st[4 * r + 2] = c;
      st[4 * r + 3] = n + (ok ? 0 : 1000);
    }
  }
}

// ---------------------------------------------------------------- G: gemm-style full wait
// No CTA barrier after the loops (the producer's other lanes leave at once): stamps go
// straight to global memory.
extern "C" __global__ void full(const char* base, u32 chunk, int stages, int iters, int D, u32* st, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 fb[8], eb[8];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      mbar_init(smaddr(&fb[s]), 1);
      mbar_init(smaddr(&eb[s]), 1);
    }
    mbar_fence_init();
  }
  __syncthreads();
  u32 d0 = smaddr(dsm);
  if (warp == 1) {
    if (lane != 0) return;
    for (int i = 0, s = 0; i < iters; ++i, s = (s + 1 == stages) ? 0 : s + 1) {
      int k = i / stages;
      if (k > 0 && !mbar_wait(smaddr(&eb[s]), (k - 1) & 1)) { err[0] = 4; return; }
      u32 p = (u32)clk();
      mbar_expect_tx(smaddr(&fb[s]), chunk);
      bulk_g2s(d0 + s * chunk, base + (u64)(i % 64) * chunk, chunk, smaddr(&fb[s]));
      st[3 * i] = p;
    }
  } else if (warp == 0) {
    for (int i = 0, s = 0; i < iters; ++i, s = (s + 1 == stages) ? 0 : s + 1) {
      int k = i / stages;
      u32 w = (u32)clk();
      if (!mbar_wait(smaddr(&fb[s]), k & 1)) { err[0] = 5; return; }
      u32 r = (u32)clk();
      if (D > 0) {
        u64 q = clk(), t;
        do t = clk(); while (t - q < (u64)D);
      }
      __syncwarp();
      if (lane == 0) {
        mbar_arrive(smaddr(&eb[s]));
        st[3 * i + 1] = w;
        st[3 * i + 2] = r;
      }
    }
  }
}

// ---------------------------------------------------------------- host
static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
static double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))];
}
static void ck(const char* what) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("# error %s: %s\n", what, cudaGetErrorString(e)); exit(1); }
}
#define D32(a, b) ((double)(u32)((a) - (b)))
static void summary(const char* tag, std::vector<double> v) {
  printf("%s median %.1f p10 %.1f p90 %.1f n %zu\n", tag, med(v), pct(v, 0.1), pct(v, 0.9), v.size());
}

int main() {
  u64* dt;
  u32* ds;
  int* derr;
  char* buf;
  const u64 REGION = 1 << 20;
  cudaMalloc(&dt, 64);
  cudaMalloc(&ds, 4 * 4 * MAXIT);
  cudaMalloc(&derr, 4);
  cudaMalloc(&buf, REGION + (1 << 16));
  cudaMemset(buf, 1, REGION + (1 << 16));
  cudaMemset(derr, 0, 4);
  cudaFuncSetAttribute(bw, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024);
  cudaFuncSetAttribute(lb, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024);
  cudaFuncSetAttribute(full, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024);
  std::vector<u32> h(4 * MAXIT);
  // P
  for (int stamped = 0; stamped < 2; ++stamped) {
    std::vector<double> per, ab, ba;
    for (int r = 0; r < 8; ++r) {
      probe<<<1, 32>>>(256, stamped, dt, ds, derr);
      ck("probe");
      u64 t;
      cudaMemcpy(&t, dt, 8, cudaMemcpyDeviceToHost);
      if (r == 0) continue;
      per.push_back((double)t / 256);
      if (stamped) {
        cudaMemcpy(h.data(), ds, 8 * 256, cudaMemcpyDeviceToHost);
        for (int i = 4; i < 256; ++i) {
          ab.push_back(D32(h[2 * i + 1], h[2 * i]));
          ba.push_back(D32(h[2 * i], h[2 * i - 1]));
        }
      }
    }
    printf("probe stamped %d: cycles a wait (whole loop) median %.2f\n", stamped, med(per));
    if (stamped) {
      summary("probe stamped 1: tA->tB (the wait)", ab);
      summary("probe stamped 1: tB->next tA (stores, loop)", ba);
    }
  }
  // B
  int cfg[][2] = {{8192, 4}, {16384, 4}, {8192, 2}, {32768, 4}};
  for (auto& c : cfg)
    for (int mode = 0; mode < 4; ++mode) {
      int n = 512;
      std::vector<double> per, ab, bc, ca;
      for (int r = 0; r < 6; ++r) {
        bw<<<1, 32, c[0] * c[1]>>>(buf, REGION, c[0], c[1], n, mode, dt, ds, derr);
        ck("bw");
        u64 t;
        cudaMemcpy(&t, dt, 8, cudaMemcpyDeviceToHost);
        if (r == 0) continue;
        per.push_back((double)t / n);
        if (mode & 1) {
          cudaMemcpy(h.data(), ds, 12 * n, cudaMemcpyDeviceToHost);
          for (int i = 16; i < n - 16; ++i) {
            ab.push_back(D32(h[3 * i + 1], h[3 * i]));
            bc.push_back(D32(h[3 * i + 2], h[3 * i + 1]));
            ca.push_back(D32(h[3 * i + 3], h[3 * i + 2]));
          }
        }
      }
      char tag[128];
      snprintf(tag, sizeof tag, "%s C %d S %d %s", mode < 2 ? "bw" : "bwnc", c[0], c[1], mode & 1 ? "stamped" : "plain");
      printf("%s: cycles a copy (whole loop) median %.2f  (%.2f B/clk)\n", tag, med(per), c[0] / med(per));
      if (mode & 1) {
        std::string t(tag);
        summary((t + ": tA->tB (the wait)").c_str(), ab);
        summary((t + ": tB->tC (the issue)").c_str(), bc);
        summary((t + ": tC->next tA (stores, stage, loop)").c_str(), ca);
      }
    }
  // L
  for (int bytes : {1024, 8192})
    for (int mode = 0; mode < 4; ++mode) {
      std::vector<double> tot, first, rest, nf;
      int reps = 64;
      for (int r = 0; r < 6; ++r) {
        lb<<<1, 64, bytes>>>(buf, bytes, reps, mode, ds, derr);
        ck("lb");
        if (r == 0) continue;
        cudaMemcpy(h.data(), ds, 16 * reps, cudaMemcpyDeviceToHost);
        for (int i = 2; i < reps; ++i) {
          tot.push_back(D32(h[4 * i + 2], h[4 * i]));
          first.push_back(D32(h[4 * i + 1], h[4 * i]));
          rest.push_back(D32(h[4 * i + 2], h[4 * i + 1]));
          nf.push_back(h[4 * i + 3]);
        }
      }
      char tag[128];
      snprintf(tag, sizeof tag, "lb C %d mode %d", bytes, mode);
      std::string t(tag);
      summary((t + ": t0->t2 (copy, whole wait)").c_str(), tot);
      summary((t + ": t0->t1 (to the first try_wait's return)").c_str(), first);
      summary((t + ": t1->t2").c_str(), rest);
      summary((t + ": 1000 x (first false) + false retries").c_str(), nf);
    }
  // G
  for (int D : {0, 2000})
    for (int bytes : {1024, 8192}) {
      int stages = 4, iters = 256;
      std::vector<double> pw, wr, pr, period;
      for (int r = 0; r < 6; ++r) {
        full<<<1, 64, bytes * stages>>>(buf, bytes, stages, iters, D, ds, derr);
        ck("full");
        if (r == 0) continue;
        cudaMemcpy(h.data(), ds, 12 * iters, cudaMemcpyDeviceToHost);
        for (int i = 8; i < iters; ++i) {
          wr.push_back(D32(h[3 * i + 2], h[3 * i + 1]));
          pr.push_back(D32(h[3 * i + 2], h[3 * i]));
          period.push_back(D32(h[3 * i + 2], h[3 * i - 1]));
        }
      }
      char tag[128];
      snprintf(tag, sizeof tag, "full C %d S 4 D %d", bytes, D);
      std::string t(tag);
      summary((t + ": consumer tW->tR (its wait)").c_str(), wr);
      summary((t + ": producer tP->consumer tR (issue to return)").c_str(), pr);
      summary((t + ": consumer tR->next tR (period)").c_str(), period);
    }
  int e = 0;
  cudaMemcpy(&e, derr, 4, cudaMemcpyDeviceToHost);
  cudaError_t ce = cudaGetLastError();
  printf("# err flag %d, %s\n", e, ce == cudaSuccess ? "no error" : cudaGetErrorString(ce));
  return 0;
}
