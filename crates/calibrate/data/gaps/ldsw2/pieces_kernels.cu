// ldsw2/ (issue 25; from tploop/tploop_kernels.cu, with the VEC and ONE variants at the end): the tma-pipelined validation kernel of kernels/stream.cu (appended
// after it, so it shares its helpers and is compiled as the collector compiles it: NVRTC,
// sm_90a) with its tile loop cut into nine segments by clock reads that every lane makes
// on every tile (no `if (t == 12)` around them, so no branch is added, and none inside
// thread 0's regions, so ptxas keeps them `CS2R.32`, not `S2UR`). Each segment's cycles
// are summed over the tiles in a register; lane 0 of each warp writes the nine sums at
// the end (st[(cta * 4 + warp) * 16 + k], k 9 the tile count). Runs at two tile counts
// give the steady tile as a difference (the first and last NLB tiles are the same in
// both). Segments (k): 0 loop top -> try_wait returned; 1 the adds (16 guarded pieces);
// 2 thread 0's bulk-store read wait (its region and BSYNC); 3 BAR 1; 4 the STS; 5 the
// fence; 6 BAR 2; 7 thread 0's store and loads (its region and BSYNC); 8 the loop head
// (the loop bound's LDC, its compare, the back branch) to the next loop top.
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

#define TP_ACC_BODY(STORE, VEC, ONE) \
  EW_PROLOGUE                                                                                                             \
  u32 full = bars;                                                                                                        \
  if (threadIdx.x == 0) {                                                                                                 \
    for (int i = 0; i < nlb; ++i) mbar_init(full + 8 * i, 1);                                                             \
    mbar_fence_init();                                                                                                    \
  }                                                                                                                       \
  __syncthreads();                                                                                                        \
  u64 c0 = clk(), g0 = gtime();                                                                                           \
  u32 s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0;                                             \
  if (threadIdx.x == 0)                                                                                                   \
    for (int s = 0; s < nlb && s < tiles; ++s) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, s, yblock, row0); \
  int q = (int)(tb / 512 / 4);                                                                                            \
  int zv;                                                                                                                 \
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(zv));                                                                       \
  zv -= lane;                                                                                                             \
  u32 prev = clk32();                                                                                                     \
  for (int t = 0; t < tiles; ++t) {                                                                                       \
    SEG(s8);                                                                                                              \
    int s = t % nlb, sc = t % nsb;                                                                                        \
    if (VEC) s += zv;                                                                                                     \
    mbar_wait(full + 8 * s, (t / nlb) & 1, err);                                                                          \
    SEG(s0);                                                                                                              \
    float4 acc[EW_MAX_PIECES];                                                                                            \
_Pragma("unroll")                                                                                                            \
    for (int j = 0; j < EW_MAX_PIECES; ++j) {                                                                             \
      if (j < q) {                                                                                                        \
        u32 off = (warp * q + j) * 512 + lane * 16;                                                                       \
        float4 a = *(const float4*)(gbase + oA + s * tb + off);                                                           \
        float4 b = ONE ? make_float4(1.f, 1.f, 1.f, 1.f) : *(const float4*)(gbase + oB + s * tb + off);                  \
        acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);                                                 \
      }                                                                                                                   \
    }                                                                                                                     \
    SEG(s1);                                                                                                              \
    if (STORE && threadIdx.x == 0) bulk_wait_read(nsb - 1);                                                               \
    SEG(s2);                                                                                                              \
    asm volatile("bar.sync 1, 128;" ::: "memory");                                                                        \
    SEG(s3);                                                                                                              \
_Pragma("unroll")                                                                                                            \
    for (int j = 0; j < EW_MAX_PIECES; ++j) {                                                                             \
      if (j < q) *(float4*)(gbase + oC + sc * tb + (warp * q + j) * 512 + lane * 16) = acc[j];                            \
    }                                                                                                                     \
    SEG(s4);                                                                                                              \
    fence_async();                                                                                                        \
    SEG(s5);                                                                                                              \
    asm volatile("bar.sync 1, 128;" ::: "memory");                                                                        \
    SEG(s6);                                                                                                              \
    if (threadIdx.x == 0) {                                                                                               \
      if (STORE) tma_store(&tc, t * yblock, row0, base + oC + sc * tb);                                                   \
      if (t + nlb < tiles) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t + nlb, yblock, row0);               \
    }                                                                                                                     \
    SEG(s7);                                                                                                              \
  }                                                                                                                       \
  if (threadIdx.x == 0) bulk_wait_all();                                                                                  \
  if (lane == 0) {                                                                                                        \
    u32* o = st + ((u64)blockIdx.x * 4 + warp) * 16;                                                                      \
    o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3; o[4] = s4; o[5] = s5; o[6] = s6; o[7] = s7; o[8] = s8;                    \
    o[9] = (u32)tiles;                                                                                                    \
  }                                                                                                                       \
  record(times, warp, lane, c0, g0);

// STORE 1: the validation kernel's loop; STORE 0 (`_ns`): the same without the bulk store
// and its read wait (the copies in, no bulk read of shared memory beside the adds).
extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined_acc(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* st) {
  TP_ACC_BODY(1, 0, 0)
}
extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined_acc_ns(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* st) {
  TP_ACC_BODY(0, 0, 0)
}
// ldsw2/: VEC 1 (`_nsv`): the stage index plus a per-thread zero (%laneid - lane), so the
// pieces' addresses are vector arithmetic, not the uniform datapath; ONE 1 (`_ns1`): one
// LDS.128 a piece (its four FADDs add 1.0).
extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined_acc_nsv(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* st) {
  TP_ACC_BODY(0, 1, 0)
}
extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined_acc_ns1(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u32* st) {
  TP_ACC_BODY(0, 0, 1)
}
