// Third stamp run (issue 25): the validation kernels of kernels/stream.cu stamped in
// registers (32-bit %clock) at tiles ST_T0 and ST_T0 + 1, written after the loop, as
// stamp/ew_stamp_nvrtc_kernels.cu, with three more stamps:
//   K 9   after the tile's `t % NLB` / `t % NSB` (forced computed there), before the try_wait
//   K 10  after the tile's STS were issued, before the fence (the STS and the fence apart)
//   load warp (ws): K 0..2 of tiles 12, 13 as before; K 3..5 the same of tiles 14, 15
//   watcher warp 2 (ws, kernel *_stw only): K 0 when full of tile 12/13 completes,
//   K 1 of tile 14/15 (the loads that land during tiles 12/13's STS)
#define ST_T0 12
DEV u32 clk32() {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}
#define STAMPT(k, tv)                       \
  do {                                      \
    if ((tv) == ST_T0) a##k = clk32();      \
    else if ((tv) == ST_T0 + 1) b##k = clk32(); \
  } while (0)
#define STAMP(k) STAMPT(k, t)
#define STAMP_DECL u32 a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0, a8 = 0, a9 = 0, a10 = 0, \
                       b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0, b9 = 0, b10 = 0;
#define STAMP_OUT                                                                         \
  if (lane == 0) {                                                                        \
    u32* o = (u32*)st + ((u64)blockIdx.x * 12 + warp) * 32;                               \
    o[0] = a0; o[1] = a1; o[2] = a2; o[3] = a3; o[4] = a4; o[5] = a5; o[6] = a6;          \
    o[7] = a7; o[8] = a8; o[9] = a9; o[10] = a10; o[16] = b0; o[17] = b1; o[18] = b2;     \
    o[19] = b3; o[20] = b4; o[21] = b5; o[22] = b6; o[23] = b7; o[24] = b8; o[25] = b9;   \
    o[26] = b10; o[31] = (u32)c0;                                                         \
  }
#define FORCE2(x, y) asm volatile("" : "+r"(x), "+r"(y))

extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined_st(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u64* st) {
  EW_PROLOGUE
  u32 full = bars;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nlb; ++i) mbar_init(full + 8 * i, 1);
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  STAMP_DECL
  if (threadIdx.x == 0)
    for (int s = 0; s < nlb && s < tiles; ++s) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, s, yblock, row0);
  int q = (int)(tb / 512 / 4);
  for (int t = 0; t < tiles; ++t) {
    STAMP(0);
    int s = t % nlb, sc = t % nsb;
    FORCE2(s, sc);
    STAMP(9);
    mbar_wait(full + 8 * s, (t / nlb) & 1, err);
    STAMP(1);
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
    STAMP(2);
    if (threadIdx.x == 0) bulk_wait_read(nsb - 1);
    STAMP(3);
    asm volatile("bar.sync 1, 128;" ::: "memory");
    STAMP(4);
#pragma unroll
    for (int j = 0; j < EW_MAX_PIECES; ++j) {
      if (j < q) *(float4*)(gbase + oC + sc * tb + (warp * q + j) * 512 + lane * 16) = acc[j];
    }
    STAMP(10);
    fence_async();
    STAMP(5);
    asm volatile("bar.sync 1, 128;" ::: "memory");
    STAMP(6);
    if (threadIdx.x == 0) {
      tma_store(&tc, t * yblock, row0, base + oC + sc * tb);
      STAMP(7);
      if (t + nlb < tiles) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t + nlb, yblock, row0);
      STAMP(8);
    }
  }
  if (threadIdx.x == 0) bulk_wait_all();
  STAMP_OUT
  record(times, warp, lane, c0, g0);
}

#define EW_WS_BODY(WATCH)                                                                  \
  EW_PROLOGUE                                                                              \
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
        load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t, yblock, row0);          \
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
    if (lane == 0)                                                                         \
      for (int t = 0; t < tiles; ++t) {                                                    \
        int s = t % nlb;                                                                   \
        mbar_wait(full + 8 * s, (t / nlb) & 1, err);                                       \
        STAMP(0); STAMPT(1, t - 2);                                                        \
      }                                                                                    \
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

extern "C" __global__ void __launch_bounds__(384, 1) ew_warp_specialized_st(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                        const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                        u64* times, int* err, u64* st) {
  EW_WS_BODY(0)
}
extern "C" __global__ void __launch_bounds__(384, 1) ew_warp_specialized_stw(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                        const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                        u64* times, int* err, u64* st) {
  EW_WS_BODY(1)
}
