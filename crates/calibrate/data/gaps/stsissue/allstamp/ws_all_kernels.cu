// stsissue/allstamp (issue 25): the warp-specialized validation kernel of kernels/stream.cu
// stamped at every tile without branches: a stamp is a 32-bit %clock read stored (STS.32,
// every lane of the warp the same word) into a stamp area at 128 KiB of shared memory, the
// other half from the load and store buffers of the 32x128 and 64x128 cases, so no stamp
// waits behind the copies' landing bytes (wsstream/ item 1). Slot K of tile t of warp w at
// word (w * 16 + K) * 32 + (t & 31); K as wsstream/ws_stamp_kernels.cu (load warp: K0 top, K1
// empty wait returned, K6 expect_tx, K7 UTMALDG A, K2 UTMALDG B; store warp: K0 top, K1
// c_full returned, K2 store issued, K3 read wait returned, K4 c_empty arrive; compute warps:
// K0 top, K9 after t % NLB, K1 full returned, K2 adds done, K3 empty arrive, K4 c_empty
// returned, K10 STS issued, K5 fence done, K6 c_full arrive). Tile t - 2 slots (K3..K5,
// K8, K9 of the load warp) are not written. Copied to global after the loop by each warp.
__device__ int g_t0 = 12;
DEV u32 clk32() {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}
#define STAMPT(k, tv) do { if ((tv) >= 0) sst[(warp * 16 + (k)) * 32 + ((tv) & 31)] = clk32(); } while (0)
#define STAMP(k) STAMPT(k, t)
#define STAMP_DECL volatile u32* sst = (volatile u32*)(gbase + 131072); u32 a6 = 0, a7 = 0, a8 = 0, a9 = 0, a10 = 0, b10 = 0; (void)t0;
#define STAMP_OUT                                                                         \
  __syncwarp();                                                                           \
  for (int i = lane; i < 16 * 32; i += 32)                                                \
    ((u32*)st)[((u64)blockIdx.x * 12 + warp) * 512 + i] = sst[warp * 512 + i];          \
  (void)a6; (void)a7; (void)a8; (void)a9; (void)a10; (void)b10;

#define FORCE2(x, y) asm volatile("" : "+r"(x), "+r"(y))
DEV u32 lds_volatile(u32 addr) {
  u32 v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

#define EW_WS_BODY(WATCH)                                                                  \
  EW_PROLOGUE                                                                              \
  int t0 = g_t0;                                                                           \
  int cw = (int)(blockDim.x / 32) - 4;                                                     \
  u32 full = bars, empty = bars + 8 * nlb, c_full = bars + 16 * nlb, c_empty = c_full + 8 * nsb; \
  if (threadIdx.x == 0) {                                                                  \
    for (int i = 0; i < nlb; ++i) {                                                        \
      mbar_init(full + 8 * i, 1);                                                          \
      mbar_init(empty + 8 * i, cw);                                                        \
    }                                                                                      \
    for (int i = 0; i < nsb; ++i) {                                                        \
      mbar_init(c_full + 8 * i, cw);                                                       \
      mbar_init(c_empty + 8 * i, 1);                                                       \
    }                                                                                      \
    mbar_fence_init();                                                                     \
  }                                                                                        \
  __syncthreads();                                                                         \
  u64 c0 = clk(), g0 = gtime();                                                            \
  STAMP_DECL                                                                               \
  if (warp == 0) {                                                                         \
    if (lane == 0)                                                                         \
      for (int t = 0; t < tiles; ++t) {                                                    \
        STAMP(0); STAMPT(3, t - 2);                                                        \
        int s = t % nlb;                                                                   \
        mbar_wait(empty + 8 * s, ((t / nlb) & 1) ^ 1, err);                                \
        STAMP(1); STAMPT(4, t - 2);                                                        \
        mbar_expect_tx(full + 8 * s, 2 * tb);                                              \
        STAMP(6); STAMPT(8, t - 2);                                                        \
        tma_load(base + oA + s * tb, &ta, t * yblock, row0, full + 8 * s);                 \
        STAMP(7); STAMPT(9, t - 2);                                                        \
        tma_load(base + oB + s * tb, &tbm, t * yblock, row0, full + 8 * s);                \
        STAMP(2); STAMPT(5, t - 2);                                                        \
      }                                                                                    \
  } else if (warp == 1) {                                                                  \
    if (lane == 0) {                                                                       \
      for (int t = 0; t < tiles; ++t) {                                                    \
        STAMP(0);                                                                          \
        int sc = t % nsb;                                                                  \
        mbar_wait(c_full + 8 * sc, (t / nsb) & 1, err);                                    \
        STAMP(1);                                                                          \
        tma_store(&tc, t * yblock, row0, base + oC + sc * tb);                             \
        STAMP(2);                                                                          \
        if (nsb >= 2) {                                                                    \
          bulk_wait_read(1);                                                               \
          STAMP(3);                                                                        \
          if (t > 0) mbar_arrive(c_empty + 8 * ((t + nsb - 1) % nsb));                     \
        } else {                                                                           \
          bulk_wait_read(0);                                                               \
          STAMP(3);                                                                        \
          mbar_arrive(c_empty + 8 * sc);                                                   \
        }                                                                                  \
        STAMP(4);                                                                          \
      }                                                                                    \
      bulk_wait_all();                                                                     \
    }                                                                                      \
  } else if (warp == 2 && WATCH) {                                                         \
    for (int t = 0; t < tiles; ++t) {                                                      \
      int s = t % nlb;                                                                     \
      mbar_wait(full + 8 * s, (t / nlb) & 1, err);                                         \
      STAMP(0); STAMPT(1, t - 2);                                                          \
      if (t == t0 + 1 && t + 1 < tiles) {                                                  \
        /* tile t0 + 2's boxes: lane 0 A's first 16 B, 1 A's last, 2 B's first, 3 B's last */ \
        int s2 = (t + 1) % nlb, q = lane & 3;                                              \
        u32 addr = base + ((q < 2) ? oA : oB) + s2 * tb + ((q & 1) ? tb - 16 : 0);         \
        u32 want = __float_as_uint((float)(t0 + 3));                                       \
        u32 seen = 0, n = 0, start = clk32();                                              \
        while (true) {                                                                     \
          u32 v = lds_volatile(addr);                                                      \
          u32 c = clk32();                                                                 \
          ++n;                                                                             \
          if (!seen && v == want) seen = c;                                                \
          bool late = __any_sync(0xffffffffu, c - start > 200000u); /* warp-uniform */ \
          if (__all_sync(0xffffffffu, seen != 0) || late) break;                          \
        }                                                                                  \
        u32 s0 = __shfl_sync(0xffffffffu, seen, 0), s1 = __shfl_sync(0xffffffffu, seen, 1); \
        u32 s2v = __shfl_sync(0xffffffffu, seen, 2), s3 = __shfl_sync(0xffffffffu, seen, 3); \
        a6 = s0; a7 = s1; a8 = s2v; a9 = s3; a10 = n; b10 = start;                         \
      }                                                                                    \
    }                                                                                      \
  } else if (warp >= 4) {                                                                  \
    int pieces = (int)(tb / 512) / cw, first = (warp - 4) * pieces;                        \
    for (int t = 0; t < tiles; ++t) {                                                      \
      STAMP(0);                                                                            \
      int s = t % nlb, sc = t % nsb;                                                       \
      FORCE2(s, sc);                                                                       \
      STAMP(9);                                                                            \
      mbar_wait(full + 8 * s, (t / nlb) & 1, err);                                         \
      STAMP(1);                                                                            \
      float4 acc[EW_MAX_PIECES];                                                           \
      _Pragma("unroll")                                                                    \
      for (int j = 0; j < EW_MAX_PIECES; ++j) {                                            \
        if (j < pieces) {                                                                  \
          u32 off = (first + j) * 512 + lane * 16;                                         \
          float4 a = *(const float4*)(gbase + oA + s * tb + off);                          \
          float4 b = *(const float4*)(gbase + oB + s * tb + off);                          \
          acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);                \
        }                                                                                  \
      }                                                                                    \
      STAMP(2);                                                                            \
      __syncwarp();                                                                        \
      if (lane == 0) mbar_arrive(empty + 8 * s);                                           \
      STAMP(3);                                                                            \
      mbar_wait(c_empty + 8 * sc, ((t / nsb) & 1) ^ 1, err);                               \
      STAMP(4);                                                                            \
      _Pragma("unroll")                                                                    \
      for (int j = 0; j < EW_MAX_PIECES; ++j) {                                            \
        if (j < pieces) *(float4*)(gbase + oC + sc * tb + (first + j) * 512 + lane * 16) = acc[j]; \
      }                                                                                    \
      STAMP(10);                                                                           \
      fence_async();                                                                       \
      STAMP(5);                                                                            \
      __syncwarp();                                                                        \
      if (lane == 0) mbar_arrive(c_full + 8 * sc);                                         \
      STAMP(6);                                                                            \
    }                                                                                      \
  }                                                                                        \
  STAMP_OUT                                                                                \
  record(times, warp, lane, c0, g0);

extern "C" __global__ void __launch_bounds__(384, 1) ew_ws_all(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                        const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                        u64* times, int* err, u64* st) {
  EW_WS_BODY(0)
}
extern "C" __global__ void __launch_bounds__(384, 1) ew_ws_allw(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                        const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                        u64* times, int* err, u64* st) {
  EW_WS_BODY(1)
}
