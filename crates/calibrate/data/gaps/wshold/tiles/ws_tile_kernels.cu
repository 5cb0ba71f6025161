// wshold/tiles/ (issue 25): the warp-specialized validation kernel of kernels/stream.cu
// (appended after it, compiled as the collector compiles it: NVRTC, sm_90a) with every
// party of one tile timed by the SM clock, per tile rather than summed (wshold/'s
// ws_acc_kernels.cu sums): each compute warp reads the clock at wshold/'s eight points
// (every lane, no branch) and lane l keeps tile T0 + l's reads in eight registers (a
// select, no branch), written at the end: cw[((warp - 4) * 32 + lane) * 8 + k], k 0 loop
// top, 1 full wait returned, 2 adds done, 3 empty arrive done, 4 c_empty wait returned,
// 5 STS issued, 6 fence done, 7 c_full arrive done. Lane 0 of the load warp stores,
// per tile, the clock when its empty wait returns and when its two copies are issued
// (ld[t * 2 + 0 / 1]); lane 0 of the store warp when its c_full wait returns, when its
// bulk store is issued, when its read wait returns (st[t * 4 + 0 / 1 / 2]). Warp 2 (idle
// in the validation kernel), every lane, waits on each full phase in turn and stores the
// clock at its return (ob[t]): when tile t's bytes have all landed. cpos 1 lays the
// store buffer(s) and the mbarriers at 128 KiB; STORE 0 (`_ns`) stores nothing.
#define WT_T0 16
DEV u32 clk32t() {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}
#define TK(r)                          \
  do {                                 \
    u32 _c = clk32t();                 \
    r = (t - WT_T0 == lane) ? _c : r;  \
  } while (0)

template <int STORE>
DEV void ws_tile_body(const TmapT* ta, const TmapT* tbm, const TmapT* tc, int tiles, int nlb, int nsb, int xblock,
                      int yblock, u64* times, int* err, u32* out, int cpos) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  u32 base = (smaddr(dsm) + 1023) & ~1023u;
  unsigned char* gbase = dsm + (base - smaddr(dsm));
  u32 tb = (u32)(xblock * yblock * 4);
  u32 oA = 0, oB = nlb * tb, oC = cpos ? 131072u : 2 * nlb * tb;
  u32 bars = base + (cpos ? 131072u + nsb * tb : (2 * nlb + nsb) * tb);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row0 = blockIdx.x * xblock;
  int cw = (int)(blockDim.x / 32) - 4;
  u32 full = bars, empty = bars + 8 * nlb, c_full = bars + 16 * nlb, c_empty = c_full + 8 * nsb;
  u32* ocw = out;             // 4 * 32 * 8
  u32* old = out + 1024;      // 64 * 2
  u32* ost = out + 1024 + 128;  // 64 * 4
  u32* oob = out + 1024 + 384;  // 64
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
        u32 e = clk32t();
        load_tiles(ta, tbm, base, oA, oB, tb, full + 8 * s, s, t, yblock, row0);
        u32 i = clk32t();
        if (blockIdx.x == 0 && t < 64) {
          old[t * 2] = e;
          old[t * 2 + 1] = i;
        }
      }
  } else if (warp == 1) {
    if (lane == 0) {
      for (int t = 0; t < tiles; ++t) {
        int sc = t % nsb;
        mbar_wait(c_full + 8 * sc, (t / nsb) & 1, err);
        u32 f = clk32t(), s = f, r = f;
        if (STORE) {
          tma_store(tc, t * yblock, row0, base + oC + sc * tb);
          s = clk32t();
          if (nsb >= 2) {
            bulk_wait_read(1);
            r = clk32t();
            if (t > 0) mbar_arrive(c_empty + 8 * ((t + nsb - 1) % nsb));
          } else {
            bulk_wait_read(0);
            r = clk32t();
            mbar_arrive(c_empty + 8 * sc);
          }
        } else {
          mbar_arrive(c_empty + 8 * sc);
        }
        if (blockIdx.x == 0 && t < 64) {
          ost[t * 4] = f;
          ost[t * 4 + 1] = s;
          ost[t * 4 + 2] = r;
        }
      }
      if (STORE) bulk_wait_all();
    }
  } else if (warp == 2) {
    for (int t = 0; t < tiles; ++t) {
      mbar_wait(full + 8 * (t % nlb), (t / nlb) & 1, err);
      u32 c = clk32t();
      if (lane == 0 && blockIdx.x == 0 && t < 64) oob[t] = c;
    }
  } else if (warp >= 4) {
    int pieces = (int)(tb / 512) / cw, first = (warp - 4) * pieces;
    u32 r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0, r6 = 0, r7 = 0;
    for (int t = 0; t < tiles; ++t) {
      TK(r0);
      int s = t % nlb, sc = t % nsb;
      mbar_wait(full + 8 * s, (t / nlb) & 1, err);
      TK(r1);
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
      TK(r2);
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + 8 * s);
      TK(r3);
      mbar_wait(c_empty + 8 * sc, ((t / nsb) & 1) ^ 1, err);
      TK(r4);
#pragma unroll
      for (int j = 0; j < EW_MAX_PIECES; ++j) {
        if (j < pieces) *(float4*)(gbase + oC + sc * tb + (first + j) * 512 + lane * 16) = acc[j];
      }
      TK(r5);
      fence_async();
      TK(r6);
      __syncwarp();
      if (lane == 0) mbar_arrive(c_full + 8 * sc);
      TK(r7);
    }
    if (blockIdx.x == 0) {
      u32* o = ocw + ((warp - 4) * 32 + lane) * 8;
      o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3; o[4] = r4; o[5] = r5; o[6] = r6; o[7] = r7;
    }
  }
  record(times, warp, lane, c0, g0);
}

extern "C" __global__ void __launch_bounds__(384, 1) ew_ws_tile(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* out, int cpos) {
  ws_tile_body<1>(&ta, &tbm, &tc, tiles, nlb, nsb, xblock, yblock, times, err, out, cpos);
}
extern "C" __global__ void __launch_bounds__(384, 1) ew_ws_tile_ns(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* out, int cpos) {
  ws_tile_body<0>(&ta, &tbm, &tc, tiles, nlb, nsb, xblock, yblock, times, err, out, cpos);
}
