// smsim calibrate: TMA-streaming validation kernels (never used by the fit), the measured
// twins of the library's `elementwise-add` (crates/traces/src/elementwise.rs, seed 001):
// c = a + b over an XNUMEL x YNUMEL FP32 tensor, a CTA per XBLOCK rows walking them in
// `tiles` tiles of XBLOCK x YBLOCK (TMA 2D boxes, no swizzle), NLB load stages of (a, b)
// tiles and NSB store buffers in shared memory, LDS.128 / FADD / STS.128 in 512-byte
// pieces, the sums stored with TMA 2D stores.
// - ew_tma_pipelined (128 threads): thread 0 keeps NLB stages of loads in flight; every
//   warp adds its quarter of the tile into registers; BAR.SYNC 1 before the sums go to
//   the store buffer (thread 0 first waits until that buffer's earlier store read it)
//   and after; thread 0 stores the tile and loads the stage's next tiles.
// - ew_warp_specialized (128 + 32 x CW threads): warp 0 loads (empty -> full mbarriers),
//   warp 1 stores (c_full -> c_empty), warps 2 and 3 exit, warps 4.. compute.
// Every warp's lane 0 records clock64 after the mbarrier init's __syncthreads and at its
// end (times[cta * 64 + warp * 4 + {0: start, 1: end, 2, 3: globaltimer}], smid at 63).
// Every wait is bounded: a timeout sets err and the kernel runs on.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#define EW_SPIN 20000000ull
#define EW_MAX_PIECES 16
struct __align__(64) TmapT {
  u64 d[16];
};
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
DEV void mbar_wait(u32 bar, u32 parity, int* err) {
  if (mbar_try(bar, parity)) return;
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > EW_SPIN) {
      err[0] = 1;
      return;
    }
  }
}
DEV void tma_load(u32 dst, const TmapT* tm, int x, int y, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((u64)tm), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
DEV void tma_store(const TmapT* tm, int x, int y, u32 src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"((u64)tm), "r"(x),
               "r"(y), "r"(src)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most n bulk groups are still reading shared memory (n = 0..3).
DEV void bulk_wait_read(int n) {
  if (n <= 0)
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  else if (n == 1)
    asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
  else if (n == 2)
    asm volatile("cp.async.bulk.wait_group.read 2;" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group.read 3;" ::: "memory");
}
DEV void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
DEV void fence_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
DEV void record(u64* times, int warp, int lane, u64 c0, u64 g0) {
  u64 c1 = clk(), g1 = gtime();
  if (lane == 0) {
    u64* mine = times + (u64)blockIdx.x * 64 + warp * 4;
    mine[0] = c0;
    mine[1] = c1;
    mine[2] = g0;
    mine[3] = g1;
    if (warp == 0) times[(u64)blockIdx.x * 64 + 63] = smid();
  }
}

#define EW_PROLOGUE                                                                  \
  extern __shared__ __align__(1024) unsigned char dsm[];                             \
  u32 base = (smaddr(dsm) + 1023) & ~1023u;                                          \
  unsigned char* gbase = dsm + (base - smaddr(dsm));                                 \
  u32 tb = (u32)(xblock * yblock * 4);                                               \
  u32 oA = 0, oB = nlb * tb, oC = 2 * nlb * tb, bars = base + (2 * nlb + nsb) * tb;   \
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;                              \
  int row0 = blockIdx.x * xblock;

DEV void load_tiles(const TmapT* ta, const TmapT* tb_, u32 base, u32 oA, u32 oB, u32 tb, u32 bar, int s, int t,
                    int yblock, int row0) {
  mbar_expect_tx(bar, 2 * tb);
  tma_load(base + oA + s * tb, ta, t * yblock, row0, bar);
  tma_load(base + oB + s * tb, tb_, t * yblock, row0, bar);
}

extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err) {
  EW_PROLOGUE
  u32 full = bars;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nlb; ++i) mbar_init(full + 8 * i, 1);
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  if (threadIdx.x == 0)
    for (int s = 0; s < nlb && s < tiles; ++s) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, s, yblock, row0);
  int q = (int)(tb / 512 / 4);
  for (int t = 0; t < tiles; ++t) {
    int s = t % nlb, sc = t % nsb;
    mbar_wait(full + 8 * s, (t / nlb) & 1, err);
    float4 acc[EW_MAX_PIECES];
#pragma unroll
    for (int j = 0; j < EW_MAX_PIECES; ++j) {
      if (j < q) {
        u32 off = (warp * q + j) * 512 + lane * 16;
        float4 a = *(const float4*)(gbase + oA + s * tb + off);
        float4 b = *(const float4*)(gbase + oB + s * tb + off);
        acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
      }
    }
    // the store buffer sc is free once the store NSB tiles ago has read it
    if (threadIdx.x == 0) bulk_wait_read(nsb - 1);
    asm volatile("bar.sync 1, 128;" ::: "memory");
#pragma unroll
    for (int j = 0; j < EW_MAX_PIECES; ++j) {
      if (j < q) *(float4*)(gbase + oC + sc * tb + (warp * q + j) * 512 + lane * 16) = acc[j];
    }
    fence_async();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    if (threadIdx.x == 0) {
      tma_store(&tc, t * yblock, row0, base + oC + sc * tb);
      if (t + nlb < tiles) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t + nlb, yblock, row0);
    }
  }
  if (threadIdx.x == 0) bulk_wait_all();
  record(times, warp, lane, c0, g0);
}

extern "C" __global__ void __launch_bounds__(384, 1) ew_warp_specialized(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                        const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                        u64* times, int* err) {
  EW_PROLOGUE
  int cw = (int)(blockDim.x / 32) - 4;
  u32 full = bars, empty = bars + 8 * nlb, c_full = bars + 16 * nlb, c_empty = c_full + 8 * nsb;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nlb; ++i) {
      mbar_init(full + 8 * i, 1);
      mbar_init(empty + 8 * i, cw);
    }
    for (int i = 0; i < nsb; ++i) {
      mbar_init(c_full + 8 * i, cw);
      mbar_init(c_empty + 8 * i, 1);
    }
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  if (warp == 0) {
    if (lane == 0)
      for (int t = 0; t < tiles; ++t) {
        int s = t % nlb;
        mbar_wait(empty + 8 * s, ((t / nlb) & 1) ^ 1, err);
        load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t, yblock, row0);
      }
  } else if (warp == 1) {
    if (lane == 0) {
      for (int t = 0; t < tiles; ++t) {
        int sc = t % nsb;
        mbar_wait(c_full + 8 * sc, (t / nsb) & 1, err);
        tma_store(&tc, t * yblock, row0, base + oC + sc * tb);
        if (nsb >= 2) {
          // release the previous buffer once its store has read it
          bulk_wait_read(1);
          if (t > 0) mbar_arrive(c_empty + 8 * ((t + nsb - 1) % nsb));
        } else {
          bulk_wait_read(0);
          mbar_arrive(c_empty + 8 * sc);
        }
      }
      bulk_wait_all();
    }
  } else if (warp >= 4) {
    int pieces = (int)(tb / 512) / cw, first = (warp - 4) * pieces;
    for (int t = 0; t < tiles; ++t) {
      int s = t % nlb, sc = t % nsb;
      mbar_wait(full + 8 * s, (t / nlb) & 1, err);
      float4 acc[EW_MAX_PIECES];
#pragma unroll
      for (int j = 0; j < EW_MAX_PIECES; ++j) {
        if (j < pieces) {
          u32 off = (first + j) * 512 + lane * 16;
          float4 a = *(const float4*)(gbase + oA + s * tb + off);
          float4 b = *(const float4*)(gbase + oB + s * tb + off);
          acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
        }
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + 8 * s);
      mbar_wait(c_empty + 8 * sc, ((t / nsb) & 1) ^ 1, err);
#pragma unroll
      for (int j = 0; j < EW_MAX_PIECES; ++j) {
        if (j < pieces) *(float4*)(gbase + oC + sc * tb + (first + j) * 512 + lane * 16) = acc[j];
      }
      fence_async();
      __syncwarp();
      if (lane == 0) mbar_arrive(c_full + 8 * sc);
    }
  }
  record(times, warp, lane, c0, g0);
}
