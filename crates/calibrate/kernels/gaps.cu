// smsim calibrate: the engine's model gaps, each isolated (issue 25 items 1-6, issue 30's
// cluster barrier). Opt-in: `calibrate-collect --only clock.light,gaps`. Compiled at run
// time with NVRTC for sm_90a (no #include). The wgmma kernels are appended by
// crates/calibrate/src/families/gaps.rs (their inline PTX lists the accumulators).
// Every spin loop is bounded so a bug cannot hang the GPU.

typedef unsigned long long u64;
typedef unsigned int u32;
struct __align__(16) V4 {
  u32 x, y, z, w;
};

#define DEV static __device__ __forceinline__
#define UNROLL _Pragma("unroll")
#define SPIN_LIMIT 2000000000ull

DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
DEV u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
DEV u32 smid() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
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
// returns 0 on timeout
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
DEV void bulk_s2g(void* dst, u32 src, u32 bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
               : "memory");
}

// ---------------------------------------------------------------- item 1: shared-memory bandwidth
// One CTA of 288 threads. For `budget` cycles from a common start:
//   warp 0, lane 0 (copies != 0): mode 0 streams bulk copies global -> shared of `bytes`
//     into a ring of 4 slots (4 in flight, one mbarrier per slot) from src + (i % 64) *
//     bytes (L2-resident after the first launch); mode 1 streams bulk stores shared ->
//     global from the slots to dst + (i % 64) * bytes (4 groups in flight, wait_group.read).
//   warps 1..8 (lds != 0): every thread loops 4 x LDS.128 (sts = 0) or STS.128 (sts = 1)
//     over a 32 KiB region, conflict-free (a warp-instruction touches 512 contiguous bytes).
// out[4 * warp + 0..3]: start, end clock64, and the units done (copies, or 4-wide
// iterations); the host turns them into bytes per clock.
#define SB_SLOTS 4
#define SB_REGION 32768
extern "C" __global__ void __launch_bounds__(288, 1) gap_smem_bw(const char* src, char* dst, u32 bytes, int copies,
                                                                 int mode, int lds, int sts, u64 budget, u64* out,
                                                                 int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[SB_SLOTS];
  u32 warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  u32 ring = smaddr(dsm);
  u32 region = ring + SB_SLOTS * bytes;
  if (threadIdx.x == 0) {
    for (int s = 0; s < SB_SLOTS; ++s) mbar_init(smaddr(&bars[s]), 1);
    mbar_fence_init();
  }
  for (u32 i = threadIdx.x; i < (SB_SLOTS * bytes + SB_REGION) / 4; i += blockDim.x) ((u32*)dsm)[i] = i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  u64 t0 = clk();
  u64 done = 0;
  if (warp == 0) {
    if (lane == 0 && copies) {
      if (mode == 0) {
        int i = 0;
        for (; clk() - t0 < budget; ++i) {
          u32 s = i % SB_SLOTS;
          u32 bar = smaddr(&bars[s]);
          if (i >= SB_SLOTS && !mbar_wait(bar, ((i / SB_SLOTS) - 1) & 1)) {
            err[0] = 1;
            break;
          }
          mbar_expect_tx(bar, bytes);
          bulk_g2s(ring + s * bytes, src + (u64)(i % 64) * bytes, bytes, bar);
        }
        for (int j = (i > SB_SLOTS ? i - SB_SLOTS : 0); j < i; ++j) {
          if (!mbar_wait(smaddr(&bars[j % SB_SLOTS]), (j / SB_SLOTS) & 1)) err[0] = 2;
        }
        done = i;
      } else {
        int i = 0;
        for (; clk() - t0 < budget; ++i) {
          bulk_s2g(dst + (u64)(i % 64) * bytes, ring + (i % SB_SLOTS) * bytes, bytes);
          asm volatile("cp.async.bulk.commit_group;" ::: "memory");
          asm volatile("cp.async.bulk.wait_group.read 3;" ::: "memory");
        }
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        done = i;
      }
    }
  } else if (lds) {
    u32 t = threadIdx.x - 32, n = blockDim.x - 32;
    u32 acc = 0;
    u64 it = 0;
    u32 idx = t;
    while (clk() - t0 < budget) {
      UNROLL for (int u = 0; u < 4; ++u) {
        u32 a = region + ((idx + u * n) & (SB_REGION / 16 - 1)) * 16;
        if (sts) {
          asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(a), "r"((u32)it) : "memory");
        } else {
          u32 x, y, z, w;
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
          acc ^= x ^ y ^ z ^ w;
        }
      }
      idx += 4 * n;
      ++it;
    }
    done = it;
    if (acc == 0x9E3779B9u) err[1] = acc;
  }
  u64 t1 = clk();
  if (lane == 0) {
    out[4 * warp + 0] = t0;
    out[4 * warp + 1] = t1;
    out[4 * warp + 2] = done;
    out[4 * warp + 3] = smid();
  }
}

// ---------------------------------------------------------------- item 2: the clock under load
// Per block, thread 0 records (clock64 start, end, globaltimer start, end, SM id) in
// times[5 * block]: the layout of the collector's BlockTimes.
DEV void block_times(u64* times, u64 c0, u64 g0) {
  __syncthreads();
  u64 c1 = clk(), g1 = gtime();
  if (threadIdx.x == 0) {
    times[5 * blockIdx.x + 0] = c0;
    times[5 * blockIdx.x + 1] = c1;
    times[5 * blockIdx.x + 2] = g0;
    times[5 * blockIdx.x + 3] = g1;
    times[5 * blockIdx.x + 4] = smid();
  }
}

// Every SM: 1024 threads, 8 independent FFMA chains each, `iters` x 8 x 8 FFMA.
extern "C" __global__ void __launch_bounds__(1024, 1) gap_ffma_burn(long long iters, u64* times, float* sink) {
  float a[8];
  UNROLL for (int j = 0; j < 8; ++j) a[j] = threadIdx.x * 1e-7f + j;
  float m = 0.999999f, c = 1e-7f;
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  for (long long it = 0; it < iters; ++it) {
    UNROLL for (int r = 0; r < 8; ++r) {
      UNROLL for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], m, c);
    }
  }
  block_times(times, c0, g0);
  float s = 0.f;
  UNROLL for (int j = 0; j < 8; ++j) s += a[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Every SM: 1024 threads copy `n` V4 from src to dst (grid-stride), `passes` times: the
// chip's HBM stream (both buffers far larger than L2).
extern "C" __global__ void __launch_bounds__(1024, 1) gap_stream_burn(const V4* src, V4* dst, u64 n, int passes,
                                                                      u64* times) {
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  u64 stride = (u64)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      V4 x = src[i];
      x.x += p;
      dst[i] = x;
    }
  }
  block_times(times, c0, g0);
}

// ---------------------------------------------------------------- issue 30: cluster barrier
// Every thread of both CTAs of a cluster: `iters` x (barrier.cluster.arrive.release;
// barrier.cluster.wait.acquire); thread 0 of each CTA records clock64 around the loop
// and its SM id in out[4 * block ..]. The one-CTA cluster is the same code with
// nobody across the chip to wait for; BAR.SYNC (bar.sync 0) the CTA barrier beside it.
DEV void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
DEV void record4(u64* out, u64 t0, u64 t1) {
  if (threadIdx.x == 0) {
    out[4 * blockIdx.x + 0] = t0;
    out[4 * blockIdx.x + 1] = t1;
    out[4 * blockIdx.x + 2] = smid();
    out[4 * blockIdx.x + 3] = 0;
  }
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) gap_cluster2(int iters, u64* out) {
  cluster_sync();
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) cluster_sync();
  u64 t1 = clk();
  record4(out, t0, t1);
}
extern "C" __global__ void __cluster_dims__(1, 1, 1) gap_cluster1(int iters, u64* out) {
  cluster_sync();
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) cluster_sync();
  u64 t1 = clk();
  record4(out, t0, t1);
}
extern "C" __global__ void gap_cta_bar(int iters, u64* out) {
  __syncthreads();
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) __syncthreads();
  u64 t1 = clk();
  record4(out, t0, t1);
}

// The same loops with a relaxed arrive (no release fence: what orders nothing but the
// barrier itself), a cluster of 2 and of 1.
DEV void cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) gap_cluster2_relaxed(int iters, u64* out) {
  cluster_sync();
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) cluster_sync_relaxed();
  u64 t1 = clk();
  record4(out, t0, t1);
}
extern "C" __global__ void __cluster_dims__(1, 1, 1) gap_cluster1_relaxed(int iters, u64* out) {
  cluster_sync();
  u64 t0 = clk();
  for (int i = 0; i < iters; ++i) cluster_sync_relaxed();
  u64 t1 = clk();
  record4(out, t0, t1);
}
// A peer CTA's mbarrier: thread 0 of CTA rank 0 arrives on rank 1's mbarrier (mapa, a
// remote arrive with release at cluster scope) and waits on its own; rank 1 waits on its
// own and arrives on rank 0's. One iteration is a round trip: two one-way hand-offs
// across SMs. `remote` 0 does the same between two warps of one CTA (local arrives), the
// baseline. out[4 * block + 0..1]: the timing thread's clock64 around the loop.
DEV u32 cluster_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
DEV void mbar_arrive_remote(u32 local_bar, u32 peer) {
  asm volatile(
      "{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n\t}" ::"r"(local_bar),
      "r"(peer)
      : "memory");
}
DEV u32 mbar_try_cluster(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, "
      "P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}
DEV int mbar_wait_cluster(u32 bar, u32 parity) {
  u64 t0 = clk();
  while (!mbar_try_cluster(bar, parity)) {
    if (clk() - t0 > SPIN_LIMIT) return 0;
  }
  return 1;
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) gap_peer_mbar(int iters, u64* out, int* err) {
  __shared__ __align__(8) u64 bar_mem;
  u32 bar = smaddr(&bar_mem);
  u32 rank = cluster_rank();
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  u64 t0 = clk();
  if (threadIdx.x == 0) {
    for (int i = 0; i < iters; ++i) {
      if (rank == 0) {
        mbar_arrive_remote(bar, 1);
        if (!mbar_wait_cluster(bar, i & 1)) {
          err[0] = 1;
          break;
        }
      } else {
        if (!mbar_wait_cluster(bar, i & 1)) {
          err[0] = 2;
          break;
        }
        mbar_arrive_remote(bar, 0);
      }
    }
  }
  u64 t1 = clk();
  record4(out, t0, t1);
  cluster_sync();
}
extern "C" __global__ void gap_local_mbar(int iters, u64* out, int* err) {
  __shared__ __align__(8) u64 bars[2];
  u32 b0 = smaddr(&bars[0]), b1 = smaddr(&bars[1]);
  if (threadIdx.x == 0) {
    mbar_init(b0, 1);
    mbar_init(b1, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  u64 t0 = clk();
  if (threadIdx.x == 0) {
    for (int i = 0; i < iters; ++i) {
      mbar_arrive(b1);
      if (!mbar_wait(b0, i & 1)) {
        err[0] = 3;
        break;
      }
    }
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < iters; ++i) {
      if (!mbar_wait(b1, i & 1)) {
        err[0] = 4;
        break;
      }
      mbar_arrive(b0);
    }
  }
  u64 t1 = clk();
  record4(out, t0, t1);
}

// ---------------------------------------------------------------- item 5: copy + try_wait loop
// One stage, steady state, `iters` bulk copies of `bytes` from an L2-resident source:
// handoff = 0: warp 0 lane 0 copies and waits on the copy itself (try_wait loop);
// handoff = 1: warp 0 lane 0 copies, warp 1 lane 0 waits on full and arrives on empty,
//              which the producer waits on before the next copy (a one-stage pipeline).
// out[0..1]: the producer's clock64 around the loop.
extern "C" __global__ void gap_copy_wait(const char* src, u32 bytes, int iters, int handoff, u64* out, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[2];
  u32 full = smaddr(&bars[0]), empty = smaddr(&bars[1]);
  if (threadIdx.x == 0) {
    mbar_init(full, 1);
    mbar_init(empty, 1);
    mbar_fence_init();
  }
  __syncthreads();
  u32 dst = smaddr(dsm);
  if (threadIdx.x == 0) {
    u64 t0 = clk();
    for (int i = 0; i < iters; ++i) {
      if (handoff && i > 0 && !mbar_wait(empty, (i - 1) & 1)) {
        err[0] = 1;
        break;
      }
      mbar_expect_tx(full, bytes);
      bulk_g2s(dst, src + (u64)(i % 64) * bytes, bytes, full);
      if (!handoff && !mbar_wait(full, i & 1)) {
        err[0] = 2;
        break;
      }
    }
    if (handoff && iters > 0 && !mbar_wait(empty, (iters - 1) & 1)) err[0] = 3;
    u64 t1 = clk();
    out[0] = t0;
    out[1] = t1;
  } else if (handoff && threadIdx.x == 32) {
    for (int i = 0; i < iters; ++i) {
      if (!mbar_wait(full, i & 1)) {
        err[0] = 4;
        break;
      }
      mbar_arrive(empty);
    }
  }
}

// ---------------------------------------------------------------- item 5 located: a copy's phases
// One thread, `iters` (at most 64) operations on one stage, each stamped with clock64 at
// three points, kept in shared memory and written out at the end (stamps[3 * i + k]):
//   mode 0: bulk copy of `bytes` from src + (i % 16) * bytes: k 0 before the expect_tx,
//           1 after the copy's issue, 2 after its try_wait loop returns;
//   mode 1: one tensor box of `ta` (a tile of the streaming kernels: x = (i % 32) * box_w);
//   mode 2: two boxes (of `ta` and `tb`) on one mbarrier, as the streaming kernels' loads;
//   mode 3: a tensor store of the box to `tc`: 1 after wait_group.read 0, 2 after wait_group 0;
//   mode 4: a tensor store, then at once the two-box load: 1 after the load's issue, 2
//           after the load's wait (the store's wait_group 0 after the stamp);
//   mode 5: a bulk store of `bytes` to dst: 1 after wait_group.read 0, 2 after wait_group 0.
struct __align__(64) GapTmap {
  u64 d[16];
};
DEV void gap_tma_load(u32 dst, const GapTmap* tm, int x, int y, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((u64)tm), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
DEV void gap_tma_store(const GapTmap* tm, int x, int y, u32 src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"((u64)tm), "r"(x),
               "r"(y), "r"(src)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
#define GAP_PHASE_MAX 64
extern "C" __global__ void gap_copy_phase(const __grid_constant__ GapTmap ta, const __grid_constant__ GapTmap tb,
                                          const __grid_constant__ GapTmap tc, const char* src, char* dst, u32 bytes,
                                          int box_w, int mode, int iters, u64* out, int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem;
  __shared__ u64 stamps[3 * GAP_PHASE_MAX];
  if (threadIdx.x != 0) return;
  u32 bar = smaddr(&bar_mem);
  mbar_init(bar, 1);
  mbar_fence_init();
  u32 s0 = smaddr(dsm), s1 = s0 + bytes;
  int n = iters < GAP_PHASE_MAX ? iters : GAP_PHASE_MAX;
  u32 parity = 0;
  for (int i = 0; i < n; ++i) {
    int x = (i % 32) * box_w;
    u64 a = clk(), b = 0, c = 0;
    if (mode <= 2) {
      mbar_expect_tx(bar, mode == 2 ? 2 * bytes : bytes);
      if (mode == 0) {
        bulk_g2s(s0, src + (u64)(i % 16) * bytes, bytes, bar);
      } else {
        gap_tma_load(s0, &ta, x, 0, bar);
        if (mode == 2) gap_tma_load(s1, &tb, x, 0, bar);
      }
      b = clk();
      if (!mbar_wait(bar, parity)) err[0] = 10 + mode;
      parity ^= 1;
      c = clk();
    } else if (mode == 3 || mode == 5) {
      if (mode == 3) {
        gap_tma_store(&tc, x, 0, s0);
      } else {
        bulk_s2g(dst + (u64)(i % 16) * bytes, s0, bytes);
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      b = clk();
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
      c = clk();
    } else {
      gap_tma_store(&tc, x, 0, s0 + 2 * bytes);
      mbar_expect_tx(bar, 2 * bytes);
      gap_tma_load(s0, &ta, x, 0, bar);
      gap_tma_load(s1, &tb, x, 0, bar);
      b = clk();
      if (!mbar_wait(bar, parity)) err[0] = 14;
      parity ^= 1;
      c = clk();
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    stamps[3 * i] = a;
    stamps[3 * i + 1] = b;
    stamps[3 * i + 2] = c;
  }
  for (int i = 0; i < 3 * n; ++i) out[i] = stamps[i];
}

// ---------------------------------------------------------------- the TMA-streaming tile, stamped
// The validation set's ew_tma_pipelined (kernels/stream.cu, the library's elementwise-add:
// thread 0 keeps NLB stages of (a, b) tile loads in flight, 4 warps add with LDS/FADD/STS
// into the store buffer between two BAR.SYNC 1, thread 0 stores the tile and loads the
// stage's next), with thread 0 stamping clock64 at 8 points of every tile (out[8 * t + k]):
// 0 its full wait returned, 1 the adds done, 2 the store buffer free (wait_group.read),
// 3 after the first BAR.SYNC, 4 the sums stored and fenced, 5 after the second BAR.SYNC,
// 6 the store issued, 7 the next loads issued. `skip` leaves parts out, to see what each
// costs: 1 the fence.proxy.async, 2 the store (and its read wait), 4 the LDS/FADD/STS.
#define GAP_EW_PIECES 16
extern "C" __global__ void __launch_bounds__(128, 1) gap_ew_probe(const __grid_constant__ GapTmap ta,
                                                                  const __grid_constant__ GapTmap tbm,
                                                                  const __grid_constant__ GapTmap tc, int tiles, int nlb,
                                                                  int nsb, int xblock, int yblock, int skip, u64* out,
                                                                  int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ u64 st[8 * 64];
  u32 base = (smaddr(dsm) + 1023) & ~1023u;
  unsigned char* gbase = dsm + (base - smaddr(dsm));
  u32 tbytes = (u32)(xblock * yblock * 4);
  u32 oA = 0, oB = nlb * tbytes, oC = 2 * nlb * tbytes, bars = base + (2 * nlb + nsb) * tbytes;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  u32 full = bars;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nlb; ++i) mbar_init(full + 8 * i, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < nlb && s < tiles; ++s) {
      mbar_expect_tx(full + 8 * s, 2 * tbytes);
      gap_tma_load(base + oA + s * tbytes, &ta, s * yblock, 0, full + 8 * s);
      gap_tma_load(base + oB + s * tbytes, &tbm, s * yblock, 0, full + 8 * s);
    }
  int q = (int)(tbytes / 512 / 4);
  for (int t = 0; t < tiles; ++t) {
    int s = t % nlb, sc = t % nsb;
    if (!mbar_wait(full + 8 * s, (t / nlb) & 1)) err[0] = 20;
    u64 c0 = clk();
    float4 acc[GAP_EW_PIECES];
    if (!(skip & 4)) {
#pragma unroll
      for (int j = 0; j < GAP_EW_PIECES; ++j) {
        if (j < q) {
          u32 off = (warp * q + j) * 512 + lane * 16;
          float4 a = *(const float4*)(gbase + oA + s * tbytes + off);
          float4 b = *(const float4*)(gbase + oB + s * tbytes + off);
          acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
        }
      }
    }
    u64 c1 = clk();
    if (threadIdx.x == 0 && !(skip & 2)) {
      if (nsb <= 1)
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      else
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    }
    u64 c2 = clk();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    u64 c3 = clk();
    if (!(skip & 4)) {
#pragma unroll
      for (int j = 0; j < GAP_EW_PIECES; ++j) {
        if (j < q) *(float4*)(gbase + oC + sc * tbytes + (warp * q + j) * 512 + lane * 16) = acc[j];
      }
    }
    if (!(skip & 1)) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    u64 c4 = clk();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    u64 c5 = clk(), c6 = c5, c7 = c5;
    if (threadIdx.x == 0) {
      if (!(skip & 2)) gap_tma_store(&tc, t * yblock, 0, base + oC + sc * tbytes);
      c6 = clk();
      if (t + nlb < tiles) {
        mbar_expect_tx(full + 8 * s, 2 * tbytes);
        gap_tma_load(base + oA + s * tbytes, &ta, (t + nlb) * yblock, 0, full + 8 * s);
        gap_tma_load(base + oB + s * tbytes, &tbm, (t + nlb) * yblock, 0, full + 8 * s);
      }
      c7 = clk();
      if (t < 64) {
        u64* m = st + 8 * t;
        m[0] = c0; m[1] = c1; m[2] = c2; m[3] = c3; m[4] = c4; m[5] = c5; m[6] = c6; m[7] = c7;
      }
    }
  }
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    u64 end = clk();
    int n = tiles < 64 ? tiles : 64;
    for (int i = 0; i < 8 * n; ++i) out[i] = st[i];
    out[8 * 64] = end;
  }
}

// ---------------------------------------------------------------- item 3: latency under chip load
// Every SM: CTA 0's thread 0 probes (after `settle` cycles) 16 bulk copies of 16 KiB,
// each copy's cycles in out[i]: from L2 (probe 0: each source copied once untimed just
// before, so that it is in L2 whatever the load evicts) or from HBM (probe 1: lines no
// one touched, 2 MiB apart); then it raises `flag`. Every other thread of every CTA runs
// the load until it sees the flag (polled every poll_mask + 1 iterations) or for `cap`
// iterations: 0 none; 1 an HBM stream (a grid-stride copy of 256 MiB, src to dst); 2 the
// same 4 MiB span read by every SM, each CTA from its own starting offset (the same lines
// at different times); 3 every CTA its own 192 KiB span (private L2 reuse). Each CTA's
// thread 32 records its clock span and the bytes its CTA moved (out[64 + 4 * cta ..]).
extern "C" __global__ void __launch_bounds__(1024, 1) gap_loaded(const V4* hsrc, V4* hdst, const V4* shared_span,
                                                                const V4* priv, const char* probe_l2,
                                                                const char* probe_hbm, int load, int probe,
                                                                long long settle, long long cap, int poll_mask,
                                                                volatile int* flag, u64* out, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem;
  __shared__ unsigned long long moved;
  if (threadIdx.x == 0) moved = 0;
  __syncthreads();
  u64 c0 = clk();
  u64 mine = 0;
  V4 acc = {0, 0, 0, 0};
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    u32 bar = smaddr(&bar_mem), dst = smaddr(dsm);
    mbar_init(bar, 1);
    mbar_fence_init();
    u64 t0 = clk();
    while (clk() - t0 < (u64)settle) {
    }
    u32 parity = 0;
    const u32 bytes = 16384;
    for (int i = 0; i < 16; ++i) {
      const char* s = probe == 0 ? probe_l2 + (u64)i * bytes : probe_hbm + (u64)i * 2 * 1024 * 1024;
      if (probe == 0) {
        mbar_expect_tx(bar, bytes);
        bulk_g2s(dst, s, bytes, bar);
        if (!mbar_wait(bar, parity)) err[0] = 30;
        parity ^= 1;
      }
      u64 a = clk();
      mbar_expect_tx(bar, bytes);
      bulk_g2s(dst, s, bytes, bar);
      if (!mbar_wait(bar, parity)) err[0] = 31;
      parity ^= 1;
      u64 b = clk();
      out[i] = b - a;
    }
    __threadfence();
    *flag = 1;
  } else if (load != 0) {
    u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 nthreads = gridDim.x * blockDim.x;
    for (long long it = 0; it < cap; ++it) {
      if ((it & poll_mask) == 0 && *flag) break;
      if (load == 1) {
        const u64 n = 256ull * 1024 * 1024 / 16;
        u64 i = ((u64)it * nthreads + tid) % n;
        V4 x = hsrc[i];
        x.x += (u32)it;
        hdst[i] = x;
        mine += 32;
      } else {
        const u32 n = load == 2 ? 4u * 1024 * 1024 / 16 : 192u * 1024 / 16;
        const V4* span = load == 2 ? shared_span : priv + (u64)blockIdx.x * n;
        u32 start = load == 2 ? blockIdx.x * 7919u * 16u : 0u;
        V4 x = span[(start + (u32)it * blockDim.x + threadIdx.x) % n];
        acc.x ^= x.x;
        acc.y ^= x.y;
        mine += 16;
      }
    }
  }
  atomicAdd(&moved, mine);
  if (acc.x == 0x9E3779B9u && acc.y == 1u) err[1] = 1;
  __syncthreads();
  if (threadIdx.x == 32) {
    u64 c1 = clk();
    out[64 + 4 * blockIdx.x] = c0;
    out[64 + 4 * blockIdx.x + 1] = c1;
    out[64 + 4 * blockIdx.x + 2] = moved;
    out[64 + 4 * blockIdx.x + 3] = smid();
  }
}

// ---------------------------------------------------------------- item 2: concurrent-SM L2 reuse
// bw_bulk (micro.cu) with the source grouped: CTA c streams `region` (warm in L2) from
// ((c / div) % mod) * group_stride, one thread keeping `stages` bulk copies of `chunk` in
// flight, so the CTAs of a group read the same lines at about the same time: div = 1
// groups CTAs c = g mod `mod`, mod = grid groups consecutive CTAs by `div`.
// times[5c..5c+4]: clock64 and %globaltimer around the loop, the SM's id.
extern "C" __global__ void gap_share(const char* base, u64 region, u64 group_stride, u32 div, u32 mod, u32 chunk,
                                     int stages, int nchunks, u64* times, int* err) {
  extern __shared__ __align__(128) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[8];
  if (threadIdx.x != 0) return;
  if (stages > 8) stages = 8;
  u32 d0 = smaddr(dsm);
  for (int s = 0; s < stages; ++s) mbar_init(smaddr(&bars[s]), 1);
  mbar_fence_init();
  u64 off = ((u64)(blockIdx.x / div) % mod) * group_stride % region;
  u32 parity = 0;
  u64 c0 = clk(), g0 = gtime();
  int issued = 0;
  for (int s = 0; s < stages && issued < nchunks; ++s, ++issued) {
    u32 bar = smaddr(&bars[s]);
    mbar_expect_tx(bar, chunk);
    bulk_g2s(d0 + s * chunk, base + off, chunk, bar);
    off += chunk;
    if (off >= region) off -= region;
  }
  for (int done = 0, s = 0; done < nchunks; ++done, s = (s + 1 == stages) ? 0 : s + 1) {
    u32 bar = smaddr(&bars[s]);
    if (!mbar_wait(bar, (parity >> s) & 1)) {
      err[0] = 1;
      return;
    }
    parity ^= 1u << s;
    if (issued < nchunks) {
      mbar_expect_tx(bar, chunk);
      bulk_g2s(d0 + s * chunk, base + off, chunk, bar);
      off += chunk;
      if (off >= region) off -= region;
      ++issued;
    }
  }
  u64 c1 = clk(), g1 = gtime();
  times[5 * blockIdx.x + 0] = c0;
  times[5 * blockIdx.x + 1] = c1;
  times[5 * blockIdx.x + 2] = g0;
  times[5 * blockIdx.x + 3] = g1;
  times[5 * blockIdx.x + 4] = smid();
}

// ---------------------------------------------------------------- constant loads and the fence
// The TMA-streaming kernels reload kernel parameters every tile with `LDC` (a variable
// latency: ptxas sets a scoreboard on it, where `ULDC` has none) and fence their stores
// with `fence.proxy.async` (`MEMBAR.ALL.CTA; FENCE.VIEW.ASYNC.S`). None of these is
// measured elsewhere.
// gap_ldc_chain: one thread walks `gap_ctab` (byte offsets: each entry the next's), so
// each `LDC R, c[0x3][R]` waits for the one before; `stride` 4 stays in one line, 64
// moves a line each step. out[0..1] clock64 around `iters` x 16 steps.
__constant__ u32 gap_ctab[256] = {
#define GAP_CT(i) (((i) + 1) % 256) * 4u
#define GAP_CT8(b) GAP_CT(b), GAP_CT(b + 1), GAP_CT(b + 2), GAP_CT(b + 3), GAP_CT(b + 4), GAP_CT(b + 5), GAP_CT(b + 6), GAP_CT(b + 7)
#define GAP_CT64(b) GAP_CT8(b), GAP_CT8(b + 8), GAP_CT8(b + 16), GAP_CT8(b + 24), GAP_CT8(b + 32), GAP_CT8(b + 40), GAP_CT8(b + 48), GAP_CT8(b + 56)
    GAP_CT64(0), GAP_CT64(64), GAP_CT64(128), GAP_CT64(192)};
__constant__ u32 gap_ctab16[256] = {
#define GAP_CS(i) (((i) + 16) % 256) * 4u
#define GAP_CS8(b) GAP_CS(b), GAP_CS(b + 1), GAP_CS(b + 2), GAP_CS(b + 3), GAP_CS(b + 4), GAP_CS(b + 5), GAP_CS(b + 6), GAP_CS(b + 7)
#define GAP_CS64(b) GAP_CS8(b), GAP_CS8(b + 8), GAP_CS8(b + 16), GAP_CS8(b + 24), GAP_CS8(b + 32), GAP_CS8(b + 40), GAP_CS8(b + 48), GAP_CS8(b + 56)
    GAP_CS64(0), GAP_CS64(64), GAP_CS64(128), GAP_CS64(192)};
extern "C" __global__ void gap_ldc_chain(int iters, int stride, u64* out, u32* sink) {
  const char* tab = stride == 4 ? (const char*)gap_ctab : (const char*)gap_ctab16;
  u32 i = 0;
  u64 t0 = clk();
  for (int it = 0; it < iters; ++it) {
    UNROLL for (int k = 0; k < 16; ++k) i = *(const u32*)(tab + i);
  }
  u64 t1 = clk();
  if (threadIdx.x == 0) {
    out[0] = t0;
    out[1] = t1;
  }
  sink[threadIdx.x] = i;
}
// gap_ldc_loop: the streaming kernels' loop bottom: the trip count reloaded from the
// parameter bank each iteration and compared at once (`ld.param` in the loop, which
// ptxas may keep as `LDC` or hoist: see the SASS). mode 1 adds a uniform add per
// iteration. out[0..1] clock64 around the loop.
extern "C" __global__ void gap_ldc_loop(int n, int mode, u64* out, u32* sink) {
  u32 acc = 0;
  u64 t0 = clk();
  for (int t = 0;; ++t) {
    int m;
    asm volatile("ld.param.u32 %0, [gap_ldc_loop_param_0];" : "=r"(m)::"memory");
    if (t >= m) break;
    acc += (u32)t * (u32)mode;
  }
  u64 t1 = clk();
  if (threadIdx.x == 0) {
    out[0] = t0;
    out[1] = t1;
  }
  sink[threadIdx.x] = acc;
}
// gap_fence: `warps` warps, `iters` x: mode 0 one STS.128 each; 1 STS.128 then
// fence.proxy.async.shared::cta; 2 the fence alone; 3 STS.128, the fence, bar.sync 1;
// 4 STS.128 and bar.sync 1. out[0..1] clock64 of thread 0 around the loop.
extern "C" __global__ void gap_fence(int iters, int mode, u64* out, u32* sink) {
  __shared__ __align__(16) V4 buf[1024];
  V4 v = {threadIdx.x, 1u, 2u, 3u};
  u32 n = blockDim.x;
  __syncthreads();
  u64 t0 = clk();
  for (int it = 0; it < iters; ++it) {
    if (mode != 2) buf[(threadIdx.x + it * 32) % 1024] = v;
    if (mode == 1 || mode == 2 || mode == 3) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (mode >= 3) asm volatile("bar.sync 1, %0;" ::"r"(n) : "memory");
    v.y += 1;
  }
  u64 t1 = clk();
  if (threadIdx.x == 0) {
    out[0] = t0;
    out[1] = t1;
  }
  __syncthreads();
  sink[threadIdx.x] = buf[threadIdx.x].y;
}
// gap_div_chain: one thread, `iters` x 4 dependent unsigned divisions by a divisor that
// changes each step (so the reciprocal is computed every time: I2F.U32.RP, MUFU.RCP,
// F2I, IMAD.HI, the fix-ups), as the streaming kernels' `t % NLB` does per tile.
extern "C" __global__ void gap_div_chain(int iters, u32 d0, u64* out, u32* sink) {
  u32 x = 0xfffffffu, d = d0;
  u64 t0 = clk();
  for (int it = 0; it < iters; ++it) {
    UNROLL for (int k = 0; k < 4; ++k) {
      x = 0xfffffffu - x % (d + (x & 7u));
    }
  }
  u64 t1 = clk();
  if (threadIdx.x == 0) {
    out[0] = t0;
    out[1] = t1;
  }
  sink[threadIdx.x] = x + d;
}

// ---------------------------------------------------------------- instruction fetch and divergence
// gap_icache_N: each warp runs `iters` passes of a straight-line body of N FFMAs (8
// independent chains on run-time operands, so ptxas keeps every one): N x 16 bytes of
// code a pass (8 KiB at 512 .. 128 KiB at 8192). Cycles per FFMA against N say whether
// a body fetched again every pass costs more once it outgrows an instruction cache.
#define GAP_F8(i) \
  a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c); \
  a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
// (The kernels gap_icache_N are generated by families/gaps.rs, one per body size.)
// gap_diverge: one warp, `iters` x: mode 0 lane 0 alone runs a short dependent chain
// (`if (threadIdx.x == 0)`: BSSY / BSYNC around a divergent branch), mode 1 every lane
// runs it (no branch), mode 2 the branch is warp-uniform (`if (n == 0)` on a
// run-time argument), mode 3 lane 0 alone, twice (two regions a pass, as the streaming
// loop's thread-0 regions).
extern "C" __global__ void gap_diverge(int iters, int mode, int n, u64* out, u32* sink) {
  u32 x = threadIdx.x, y = threadIdx.x;
  u64 t0 = clk();
  for (int it = 0; it < iters; ++it) {
    bool on = mode == 1 ? true : mode == 2 ? n == 0 : threadIdx.x == 0;
    if (on) x = x * 3u + (u32)it;
    if (mode == 3 && threadIdx.x == 0) y = y * 5u + x;
    asm volatile("" : "+r"(x), "+r"(y));
  }
  u64 t1 = clk();
  if (threadIdx.x == 0) {
    out[0] = t0;
    out[1] = t1;
  }
  sink[threadIdx.x] = x + y;
}

// ---------------------------------------------------------------- the streaming tile's waits in context
// gap_ctx (issue 25, the TMA-streaming twins' per-tile shortfall): one thread times one
// operation (b -> c) right after another is issued (a -> b), as thread 0 of
// ew_tma_pipelined does: the next tile's loads, the tile's store, or nothing before.
// pre: 0 nothing; 1 expect_tx + two tensor boxes (a, b) on `ld`; 2 a tensor store of the
// box (commit_group); 3 the store, then the loads (the kernel's order).
// op: 0 try_wait on `done`, a phase long complete; 1 an indexed constant load (LDC) and a
// branch on it; 2 fence.proxy.async.shared::cta; 3 cp.async.bulk.wait_group.read 0;
// 4 nothing (the stamps' own cost); 5 mbarrier.arrive on `done2` (count 1) and a
// try_wait on the phase it completes.
// After c, untimed: the loads' wait and the store's wait_group 0. out[3 * i + k]: a, b, c.
extern "C" __global__ void gap_ctx(const __grid_constant__ GapTmap ta, const __grid_constant__ GapTmap tb,
                                   const __grid_constant__ GapTmap tc, u32 bytes, int box_w, int pre, int op,
                                   int iters, u64* out, int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) u64 bar_mem[3];
  __shared__ u64 stamps[3 * GAP_PHASE_MAX];
  if (threadIdx.x != 0) return;
  u32 ld = smaddr(&bar_mem[0]), done = smaddr(&bar_mem[1]), done2 = smaddr(&bar_mem[2]);
  mbar_init(ld, 1);
  mbar_init(done, 1);
  mbar_init(done2, 1);
  mbar_fence_init();
  mbar_arrive(done);
  u32 s0 = smaddr(dsm), s1 = s0 + bytes, s2 = s0 + 2 * bytes;
  int n = iters < GAP_PHASE_MAX ? iters : GAP_PHASE_MAX;
  u32 parity = 0, p2 = 0, k = 0;
  for (int i = 0; i < n; ++i) {
    int x = (i % 32) * box_w;
    u64 a = clk();
    if (pre & 2) gap_tma_store(&tc, x, 0, s2);
    if (pre & 1) {
      mbar_expect_tx(ld, 2 * bytes);
      gap_tma_load(s0, &ta, x, 0, ld);
      gap_tma_load(s1, &tb, x, 0, ld);
    }
    u64 b = clk();
    if (op == 0) {
      if (!mbar_try(done, 0)) err[0] = 30;
    } else if (op == 1) {
      k = gap_ctab[k / 4];
      if (k == 7) err[0] = 31;
    } else if (op == 2) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    } else if (op == 3) {
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    } else if (op == 5) {
      mbar_arrive(done2);
      if (!mbar_wait(done2, p2)) err[0] = 35;
      p2 ^= 1;
    }
    u64 c = clk();
    if (pre & 1) {
      if (!mbar_wait(ld, parity)) err[0] = 32;
      parity ^= 1;
    }
    if (pre & 2) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    stamps[3 * i] = a;
    stamps[3 * i + 1] = b;
    stamps[3 * i + 2] = c;
  }
  for (int i = 0; i < 3 * n; ++i) out[i] = stamps[i];
}

// ---------------------------------------------------------------- L1 under many warps, per warp
// gap_l1_spread (issue 25 gap 6): chase_own_lines_ld's walk (lines.cu: warp w's lanes
// chase their own 8-line cycles in warp w's region, each step one warp-load of 32 lines)
// with each warp's own end recorded: out[2 * w] = the common start (after
// __syncthreads), out[2 * w + 1] = warp w's clock64 after its last step. cg 1: the
// same through ld.global.cg (L2, not allocated in L1).
extern "C" __global__ void gap_l1_spread(const char* base, u64 region, u64 lane_stride, int warm, int steps,
                                         int cg, u64* out, u64* sink) {
  int i = threadIdx.x, w = i / 32;
  u64 p = (u64)(base + (u64)w * region + (u64)(i % 32) * lane_stride);
  if (cg) {
    for (int s = 0; s < warm; ++s) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  } else {
    for (int s = 0; s < warm; ++s) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
  }
  __syncthreads();
  u64 t0 = clk();
  if (cg) {
    for (int s = 0; s < steps; s += 8) {
      UNROLL for (int u = 0; u < 8; ++u) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
    }
  } else {
    for (int s = 0; s < steps; s += 8) {
      UNROLL for (int u = 0; u < 8; ++u) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
    }
  }
  // the last load's value before the stamp: the warp's end
  if (p == 1) sink[i] = 0;
  u64 t1 = clk();
  if (i % 32 == 0) {
    out[2 * w] = t0;
    out[2 * w + 1] = t1;
  }
  sink[i] = p;
}

// gap_l1_hide_kK (data/gaps/l1hide): the latency-hiding validation kernel
// (validation.cu's VH_CHASE, ld.global.f32: through L1) at more K, each warp starting
// its walk `stagger * warp` lines into its lanes' 8-line cycles (stagger 0: the
// validation kernel's walk, every warp on the same line of its lanes at a step).
#define GAP_L1_HIDE(NAME, K)                                                                          \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(const char* P, int iters, int lines,      \
                                                             float r2, float r3, int stagger,          \
                                                             u64* times, float* sink) {                \
    const char* mine = P + (u64)threadIdx.x * lines * 128;                                            \
    const char* end = mine + (u64)lines * 128;                                                         \
    const char* q = mine + (u64)(((threadIdx.x / 32) * stagger) % lines) * 128;                        \
    float r1 = 0.f;                                                                                    \
    __syncthreads();                                                                                   \
    u64 c0 = clk();                                                                                    \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                              \
      asm volatile("ld.global.f32 %0, [%1];" : "=f"(r1) : "l"(q) : "memory");                          \
      _Pragma("unroll") for (int j = 0; j < K; ++j)                                                    \
          asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r1) : "f"(r2), "f"(r3));                    \
      q += 128;                                                                                        \
      if (q == end) q = mine;                                                                          \
    }                                                                                                  \
    u64 c1 = clk();                                                                                    \
    if ((threadIdx.x & 31) == 0) {                                                                     \
      times[2 * (threadIdx.x / 32)] = c0;                                                              \
      times[2 * (threadIdx.x / 32) + 1] = c1;                                                          \
    }                                                                                                  \
    sink[threadIdx.x] = r1;                                                                            \
  }
GAP_L1_HIDE(gap_l1_hide_k1, 1)
GAP_L1_HIDE(gap_l1_hide_k4, 4)
GAP_L1_HIDE(gap_l1_hide_k8, 8)
GAP_L1_HIDE(gap_l1_hide_k12, 12)
GAP_L1_HIDE(gap_l1_hide_k16, 16)
GAP_L1_HIDE(gap_l1_hide_k20, 20)
GAP_L1_HIDE(gap_l1_hide_k24, 24)
GAP_L1_HIDE(gap_l1_hide_k32, 32)

// gap_l1_trap_kK (data/gaps/l1hide): gap_l1_hide_kK's walk (stagger 0) with warp w
// holding back `delay * w` cycles after the barrier before its first load, so the warps
// reach L1 one after another rather than all at once: whether the crowded state is
// one that the bunched start falls into. Each warp's own span (after its delay) counts.
#define GAP_L1_TRAP(NAME, K)                                                                          \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(const char* P, int iters, int lines,      \
                                                             float r2, float r3, int delay,            \
                                                             u64* times, float* sink) {                \
    const char* mine = P + (u64)threadIdx.x * lines * 128;                                            \
    const char* end = mine + (u64)lines * 128;                                                         \
    const char* q = mine;                                                                              \
    float r1 = 0.f;                                                                                    \
    __syncthreads();                                                                                   \
    u64 s0 = clk();                                                                                    \
    while (clk() - s0 < (u64)delay * (threadIdx.x / 32)) {                                             \
    }                                                                                                  \
    u64 c0 = clk();                                                                                    \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                              \
      asm volatile("ld.global.f32 %0, [%1];" : "=f"(r1) : "l"(q) : "memory");                          \
      _Pragma("unroll") for (int j = 0; j < K; ++j)                                                    \
          asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r1) : "f"(r2), "f"(r3));                    \
      q += 128;                                                                                        \
      if (q == end) q = mine;                                                                          \
    }                                                                                                  \
    u64 c1 = clk();                                                                                    \
    if ((threadIdx.x & 31) == 0) {                                                                     \
      times[2 * (threadIdx.x / 32)] = c0;                                                              \
      times[2 * (threadIdx.x / 32) + 1] = c1;                                                          \
    }                                                                                                  \
    sink[threadIdx.x] = r1;                                                                            \
  }
GAP_L1_TRAP(gap_l1_trap_k1, 1)
GAP_L1_TRAP(gap_l1_trap_k4, 4)
GAP_L1_TRAP(gap_l1_trap_k8, 8)
GAP_L1_TRAP(gap_l1_trap_k12, 12)
GAP_L1_TRAP(gap_l1_trap_k16, 16)
GAP_L1_TRAP(gap_l1_trap_k24, 24)
GAP_L1_TRAP(gap_l1_trap_k32, 32)
