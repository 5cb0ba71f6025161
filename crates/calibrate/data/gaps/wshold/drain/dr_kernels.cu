// Write-queue drain probe (issue 25, wshold/drain/): how the STS that a tensor copy holds
// in its 128 KiB half are written. Appended to kernels/stream.cu (its helpers). One CTA of
// 256 threads, two identical rounds, the second timed (the first warms the instruction
// cache and L2). Box A (XBLOCK 64 rows x 512 B = 32 KiB, the 64x128 tail's shape) at 0;
// box B (same shape) at 128 KiB, the other half; `full` at 120 KiB (+8 the second round).
// - warp 0 lane 0: clock64 (I0), expect_tx, A, a spin until I0 + bdelay (if bdelay > 0),
//   clock64 (IB), B (ncopy 2), clock64 (I1), try_wait loop on `full`, clock64 (D);
// - warps 4..7 (sub-partitions 0..3), every lane: spin until the round's start + delay,
//   clock64 (P0), then nsts STS.128 (1, 4 or 16) each stamped at its issue (S_j: the clock
//   read just before it), clock64 (SE), then the completion, by `rd`:
//   0 an LDS.32 of each STS's first word in store order, the value used, stamped (R_j);
//   1 the same in reverse order (the last STS's word first);
//   2 fence.proxy.async, stamped (R_0: every write of the warp done);
//   then clock64 (END). Warp w (0..3) writes at pofs + w x 8 KiB + j x 512 + lane x 16.
// out[0..3] = I0 IB I1 D; out[8 + 40 w + k]: k 0 P0, 1..16 S_j, 17 SE, 18..33 R_j, 34 END.
extern "C" __global__ void __launch_bounds__(256, 1) dr_probe(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     int xblock, int yblock, int ncopy, int bdelay, int nsts, int rd, int pofs, int delay, u64* out, int* err) {
  int nlb = 1, nsb = 1;
  EW_PROLOGUE
  (void)oB;
  (void)oC;
  (void)bars;
  const u32 fofs = 120 * 1024, bofs = 128 * 1024;
#pragma unroll 1
  for (int round = 0; round < 2; ++round) {
    u32 full = base + fofs + 8 * round;
    if (threadIdx.x == 0) {
      mbar_init(full, 1);
      mbar_fence_init();
    }
    __syncthreads();
    u64 c0 = clk();
    if (warp == 0) {
      if (lane == 0) {
        u64 i0 = clk(), ib = 0;
        if (ncopy > 0) {
          mbar_expect_tx(full, ncopy * tb);
          tma_load(base + oA, &ta, 0, row0, full);
          if (ncopy > 1) {
            while (clk() < i0 + (u64)bdelay) {
            }
            ib = clk();
            tma_load(base + bofs, &tbm, 0, row0, full);
          }
        } else {
          mbar_arrive(full);
        }
        u64 i1 = clk();
        mbar_wait(full, 0, err);
        u64 d = clk();
        out[0] = i0;
        out[1] = ib;
        out[2] = i1;
        out[3] = d;
      }
    } else if (warp >= 4) {
      int w = warp - 4;
      while (clk() < c0 + (u64)delay) {
      }
      float4 acc = make_float4(lane, 1.f, 2.f, 3.f);
      u32 mine = pofs + w * 8192 + lane * 16;
      u64 s[16], r[16];
      float got = 0.f;
      u64 p0 = clk();
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        s[j] = 0;
        r[j] = 0;
        if (j < nsts) {
          s[j] = clk();
          *(float4*)(gbase + mine + j * 512) = acc;
        }
      }
      u64 se = clk();
      if (rd == 0) {
#pragma unroll
        for (int j = 0; j < 16; ++j)
          if (j < nsts) {
            got += *(volatile float*)(gbase + mine + j * 512);
            if (got == -12345.f) err[0] = 2;
            r[j] = clk();
          }
      } else if (rd == 1) {
#pragma unroll
        for (int j = 15; j >= 0; --j)
          if (j < nsts) {
            got += *(volatile float*)(gbase + mine + j * 512);
            if (got == -12345.f) err[0] = 2;
            r[j] = clk();
          }
      } else {
        fence_async();
        r[0] = clk();
      }
      u64 e = clk();
      if (lane == 0) {
        u64* o = out + 8 + 40 * w;
        o[0] = p0;
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          o[1 + j] = s[j];
          o[18 + j] = r[j];
        }
        o[17] = se;
        o[34] = e;
      }
    }
    __syncthreads();
  }
}
