// Hold probe (issue 25, stream6): is a shared-memory or mbarrier operation of one warp held
// while another warp's TMA tensor copies into shared memory are in flight or landing?
// Appended to kernels/stream.cu (its helpers, its load_tiles: expect_tx and two 2D boxes of
// XBLOCK rows x 512 B, the streaming kernels' loads). One CTA of 256 threads:
// - warp 0 lane 0: clock64 (I0), load_tiles (unless xblock_copy is 0), clock64 (I1), waits
//   on `full`, clock64 (D);
// - warp `pw`, all lanes: spins until clock64 >= its start + delay, clock64 (P0), the
//   operation `op`, clock64 (P1);
// - the other warps exit.
// Every clock64 after the same __syncthreads; SM-wide counter. Output per launch:
//   out[0..2] = I0, I1, D (warp 0), out[3..4] = P0, P1 (warp pw, lane 0).
// Operations (the warp-specialized compute warps' tile tail, piece by piece):
//   0 nothing (two clock reads)
//   1 __syncwarp + lane 0 mbarrier.arrive on `other` (count 4096: never completes)
//   2 fence.proxy.async.shared::cta
//   3 8 STS.128 into the C region, fence, __syncwarp, lane 0 arrive (the whole tail)
//   4 8 STS.128 alone
//   5 8 LDS.128 from the C region, summed (the result waited for)
//   6 lane 0 mbarrier.try_wait.parity on `other`'s complete phase (parity 1)
//   7 8 STS.128, fence (no arrive)
extern "C" __global__ void __launch_bounds__(256, 1) ew_hold(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     int xblock, int yblock, int xblock_copy, int op, int pw, int delay, u64* out, int* err) {
  int nlb = 1, nsb = 1;
  EW_PROLOGUE
  u32 full = bars, other = bars + 8;
  if (threadIdx.x == 0) {
    mbar_init(full, 1);
    mbar_init(other, 4096);
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk();
  if (warp == 0) {
    if (lane == 0) {
      u64 i0 = clk();
      if (xblock_copy) load_tiles(&ta, &tbm, base, oA, oB, tb, full, 0, 0, yblock, row0);
      u64 i1 = clk();
      if (xblock_copy) mbar_wait(full, 0, err);
      u64 d = clk();
      out[0] = i0;
      out[1] = i1;
      out[2] = d;
    }
  } else if (warp == pw) {
    while (clk() < c0 + (u64)delay) {
    }
    float4 acc = make_float4(lane, 1.f, 2.f, 3.f);
    u64 p0 = clk();
    if (op == 1) {
      __syncwarp();
      if (lane == 0) mbar_arrive(other);
    } else if (op == 2) {
      fence_async();
    } else if (op == 3 || op == 4 || op == 7) {
#pragma unroll
      for (int j = 0; j < 8; ++j) *(float4*)(gbase + oC + (j * 32 + lane) * 16) = acc;
      if (op != 4) fence_async();
      if (op == 3) {
        __syncwarp();
        if (lane == 0) mbar_arrive(other);
      }
    } else if (op == 5) {
      float4 s = acc;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float4 v = *(const float4*)(gbase + oC + (j * 32 + lane) * 16);
        s.x += v.x + v.y + v.z + v.w;
      }
      if (s.x == -12345.f) err[0] = 2;
    } else if (op == 6) {
      if (lane == 0 && !mbar_try(other, 1)) err[0] = 3;
    }
    u64 p1 = clk();
    if (lane == 0) {
      out[3] = p0;
      out[4] = p1;
    }
  }
}
