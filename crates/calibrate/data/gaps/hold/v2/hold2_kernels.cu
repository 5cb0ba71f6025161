// Hold probe, second run (issue 25, stream6): which part of the warp-specialized compute
// warps' tile tail is held while another warp's tensor copies are in flight. Appended to
// kernels/stream.cu. One CTA of 256 threads:
// - warp 0 lane 0: clock64 (I0), load_tiles (expect_tx, two 2D boxes of xblock rows x
//   512 B), clock64 (I1), waits on `full`, clock64 (D);
// - warp 1 lane 0, if `waiter`: waits on `other` (count nw), as the store warp on c_full;
// - warps 4 .. 4 + nw - 1, all lanes: spin until clock64 >= start + delay, clock64 (P0),
//   the operation, clock64 (P1);
// Output: out[0..2] = I0, I1, D; out[3 + 2 i], out[4 + 2 i] = P0, P1 of probe warp i;
// out[12] = the waiter's wake.
// Operations:
//   3 nsts STS.128, fence.proxy.async, __syncwarp, lane 0 arrive on `other` (the tail)
//   7 nsts STS.128, fence.proxy.async (no arrive)
//   8 fence.proxy.async, __syncwarp, lane 0 arrive (no STS)
//   9 nsts STS.128, __threadfence_block (MEMBAR.CTA, no proxy fence), __syncwarp, arrive
extern "C" __global__ void __launch_bounds__(256, 1) ew_hold2(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     int xblock, int yblock, int op, int nw, int nsts, int waiter, int delay, u64* out, int* err) {
  // the C region (4 warps x 8 KiB) below the mbarriers: two store buffers at 32-row tiles
  int nlb = 1, nsb = xblock < 64 ? 2 : 1;
  EW_PROLOGUE
  u32 full = bars, other = bars + 8;
  if (threadIdx.x == 0) {
    mbar_init(full, 1);
    mbar_init(other, waiter ? nw : 4096);
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk();
  if (warp == 0) {
    if (lane == 0) {
      u64 i0 = clk();
      load_tiles(&ta, &tbm, base, oA, oB, tb, full, 0, 0, yblock, row0);
      u64 i1 = clk();
      mbar_wait(full, 0, err);
      u64 d = clk();
      out[0] = i0;
      out[1] = i1;
      out[2] = d;
    }
  } else if (warp == 1) {
    if (lane == 0 && waiter) {
      mbar_wait(other, 0, err);
      out[12] = clk();
    }
  } else if (warp >= 4 && warp < 4 + nw) {
    while (clk() < c0 + (u64)delay) {
    }
    float4 acc = make_float4(lane, 1.f, 2.f, 3.f);
    u32 mine = oC + (warp - 4) * 8192;
    u64 p0 = clk();
    if (op != 8) {
      if (nsts == 16) {
#pragma unroll
        for (int j = 0; j < 16; ++j) *(float4*)(gbase + mine + (j * 32 + lane) * 16) = acc;
      } else {
#pragma unroll
        for (int j = 0; j < 8; ++j) *(float4*)(gbase + mine + (j * 32 + lane) * 16) = acc;
      }
    }
    if (op == 9)
      __threadfence_block();
    else
      fence_async();
    if (op != 7) {
      __syncwarp();
      if (lane == 0) mbar_arrive(other);
    }
    u64 p1 = clk();
    if (lane == 0) {
      out[3 + 2 * (warp - 4)] = p0;
      out[4 + 2 * (warp - 4)] = p1;
    }
  }
}
