// wshold/ (issue 25): the warp-specialized validation kernel of kernels/stream.cu (appended
// after it, so it shares its helpers and is compiled as the collector compiles it: NVRTC,
// sm_90a) with each compute warp's tile loop cut into eight segments by clock reads that
// every lane of warps 4.. makes on every tile (no branch added, none in a lane-0 region, so
// ptxas keeps them CS2R.32); the load and store warps run the validation code unstamped.
// Each segment's cycles are summed over the tiles in a register; lane 0 of each compute
// warp writes the sums at the end: st[(cta * 8 + warp) * 16 + k], k 0..7 the segments,
// 8 the tile count, 9 / 10 the tiles whose tail (fence and c_full arrive, k 5 + 6) took
// more than 150 cycles and their cycles, 11 / 12 the tiles whose full wait (k 0) took more
// than 400 and their cycles. Segments: 0 loop top -> full try_wait returned (t % NLB,
// t % NSB, the wait); 1 the adds (16 guarded pieces); 2 __syncwarp and the empty arrive;
// 3 the c_empty wait (its divisions and try_wait); 4 the STS (16 guarded slots); 5 the
// proxy fence; 6 __syncwarp and the c_full arrive; 7 the loop head to the next loop top.
// cpos 1 lays the store buffer(s) at 128 KiB, the other half of shared memory from the
// load buffers (wsstream/ item 1: not held there); STORE 0 (`_ns`): the store warp
// releases each buffer without storing it (no bulk read of shared memory).
DEV u32 clk32() {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}
#define SEG(v)                \
  do {                        \
    u32 _c = clk32();         \
    v += _c - prev;           \
    prev = _c;                \
  } while (0)

template <int STORE>
DEV void ws_acc_body(const TmapT* ta, const TmapT* tbm, const TmapT* tc, int tiles, int nlb, int nsb, int xblock,
                     int yblock, u64* times, int* err, u32* st, int cpos) {
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
        load_tiles(ta, tbm, base, oA, oB, tb, full + 8 * s, s, t, yblock, row0);
      }
  } else if (warp == 1) {
    if (lane == 0) {
      for (int t = 0; t < tiles; ++t) {
        int sc = t % nsb;
        mbar_wait(c_full + 8 * sc, (t / nsb) & 1, err);
        if (STORE) {
          tma_store(tc, t * yblock, row0, base + oC + sc * tb);
          if (nsb >= 2) {
            bulk_wait_read(1);
            if (t > 0) mbar_arrive(c_empty + 8 * ((t + nsb - 1) % nsb));
          } else {
            bulk_wait_read(0);
            mbar_arrive(c_empty + 8 * sc);
          }
        } else {
          mbar_arrive(c_empty + 8 * sc);
        }
      }
      if (STORE) bulk_wait_all();
    }
  } else if (warp >= 4) {
    int pieces = (int)(tb / 512) / cw, first = (warp - 4) * pieces;
    u32 s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    u32 nh = 0, sh = 0, nw = 0, sw = 0;
    u32 prev = clk32();
    for (int t = 0; t < tiles; ++t) {
      SEG(s7);
      int s = t % nlb, sc = t % nsb;
      u32 w0 = prev;
      mbar_wait(full + 8 * s, (t / nlb) & 1, err);
      SEG(s0);
      u32 dw = prev - w0;
      nw += dw > 400u ? 1u : 0u;
      sw += dw > 400u ? dw : 0u;
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
      SEG(s1);
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + 8 * s);
      SEG(s2);
      mbar_wait(c_empty + 8 * sc, ((t / nsb) & 1) ^ 1, err);
      SEG(s3);
#pragma unroll
      for (int j = 0; j < EW_MAX_PIECES; ++j) {
        if (j < pieces) *(float4*)(gbase + oC + sc * tb + (first + j) * 512 + lane * 16) = acc[j];
      }
      SEG(s4);
      u32 h0 = prev;
      fence_async();
      SEG(s5);
      __syncwarp();
      if (lane == 0) mbar_arrive(c_full + 8 * sc);
      SEG(s6);
      u32 dh = prev - h0;
      nh += dh > 150u ? 1u : 0u;
      sh += dh > 150u ? dh : 0u;
    }
    if (lane == 0) {
      u32* o = st + ((u64)blockIdx.x * 8 + warp) * 16;
      o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3; o[4] = s4; o[5] = s5; o[6] = s6; o[7] = s7;
      o[8] = (u32)tiles; o[9] = nh; o[10] = sh; o[11] = nw; o[12] = sw;
    }
  }
  record(times, warp, lane, c0, g0);
}

extern "C" __global__ void __launch_bounds__(384, 1) ew_ws_acc(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* st, int cpos) {
  ws_acc_body<1>(&ta, &tbm, &tc, tiles, nlb, nsb, xblock, yblock, times, err, st, cpos);
}
extern "C" __global__ void __launch_bounds__(384, 1) ew_ws_acc_ns(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* st, int cpos) {
  ws_acc_body<0>(&ta, &tbm, &tc, tiles, nlb, nsb, xblock, yblock, times, err, st, cpos);
}
