// Write-queue window probe (issue 25, wshold/queue/): for how long, against a copy's
// issue and its completion, does one CTA's tensor copy from L2 into shared memory hold a
// shared-memory write (or an mbarrier arrive, or a read) of another warp in the same
// 128 KiB half? Appended to kernels/stream.cu (its helpers; load_tiles: expect_tx and two
// 2D boxes of XBLOCK rows x 512 B, the streaming kernels' loads). One CTA of 256 threads:
// - warp 0 lane 0: clock64 (I0), expect_tx and `ncopy` boxes (0, 1: only A, 2: A and B),
//   clock64 (I1), waits on `full` (try_wait loop, as the kernels), clock64 (D);
// - warp 2 (sub-partition 2: neither warp 0's nor warp 5's), every lane, if `poll`: polls
//   `full` with test_wait (no sleep) from the start, clock64 (C) when it sees the phase
//   complete: the copies' completion, less than a poll late (a first run polled from warp
//   1, warp 5's sub-partition, and slowed the probe);
// - warp 5 (another sub-partition than warp 0), every lane: spins until clock64 >= its
//   start + delay, clock64 (P0), the operation at shared offset `pofs` (its mbarrier
//   `other` at pofs + 4096, count 4096: never completes), clock64 (P1).
// Every clock64 after the same __syncthreads; SM-wide counter. out[0..5] = I0 I1 D C P0 P1
// of the second of two identical rounds (the first warms the instruction cache and L2).
// Layout: box A at 0, box B at tb (16 KiB for XBLOCK 32), `full` at fofs (96 KiB: the
// copies' half, or 176 KiB; +8 the second round's); pofs 48 KiB (the copies' half) or 160 KiB (the other half).
// Operations:
//   1 __syncwarp, lane 0 arrive on `other` (no write before it)
//   2 nsts STS.128 a lane (1, 2, 4, 8), __syncwarp, lane 0 arrive (writes, then the arrive)
//   3 8 STS.128 a lane, fence.proxy.async, __syncwarp, lane 0 arrive (the ws compute
//     warps' tile tail, as hold/v2 op 3)
//   4 one STS.32 a lane, then an LDS.32 of the same word, the value used (read after write)
//   5 one LDS.32 a lane, the value used (a read alone)
DEV u32 mbar_test(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.test_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}
extern "C" __global__ void __launch_bounds__(256, 1) qw_probe(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     int xblock, int yblock, int ncopy, int op, int nsts, int pofs, int fofs, int poll, int delay, u64* out, int* err) {
  int nlb = 1, nsb = 1;
  EW_PROLOGUE
  (void)oC;
  (void)bars;
  // Two rounds of the same code, the first untimed: it warms the instruction cache (a
  // first run of the probe's code waited ~300 cycles on instruction fetch each launch) and
  // L2 with the boxes; each round its own `full` and `other`.
#pragma unroll 1
  for (int round = 0; round < 2; ++round) {
    u32 full = base + fofs + 8 * round, other = base + pofs + 4096 + 8 * round;
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
        if (ncopy > 0) {
          mbar_expect_tx(full, ncopy * tb);
          tma_load(base + oA, &ta, 0, row0, full);
          if (ncopy > 1) tma_load(base + oB, &tbm, 0, row0, full);
        } else {
          mbar_arrive(full);
        }
        u64 i1 = clk();
        mbar_wait(full, 0, err);
        u64 d = clk();
        out[0] = i0;
        out[1] = i1;
        out[2] = d;
      }
    } else if (warp == 2 && poll) {
      u64 t0 = clk(), c = 0;
      while (!mbar_test(full, 0)) {
        if (clk() - t0 > EW_SPIN) {
          err[0] = 4;
          break;
        }
      }
      c = clk();
      if (lane == 0) out[3] = c;
    } else if (warp == 5) {
      while (clk() < c0 + (u64)delay) {
      }
      float4 acc = make_float4(lane, 1.f, 2.f, 3.f);
      u32 mine = pofs;
      float got = 0.f;
      u64 p0 = clk();
      if (op == 1) {
        __syncwarp();
        if (lane == 0) mbar_arrive(other);
      } else if (op == 2) {
        // nsts STS.128 (1, 2, 4 or 8), no fence, then the arrive
#pragma unroll
        for (int j = 0; j < 8; ++j)
          if (j < nsts) *(float4*)(gbase + mine + (j * 32 + lane) * 16) = acc;
        __syncwarp();
        if (lane == 0) mbar_arrive(other);
      } else if (op == 3) {
#pragma unroll
        for (int j = 0; j < 8; ++j) *(float4*)(gbase + mine + (j * 32 + lane) * 16) = acc;
        fence_async();
        __syncwarp();
        if (lane == 0) mbar_arrive(other);
      } else if (op == 4) {
        volatile float* p = (volatile float*)(gbase + mine + lane * 4);
        *p = acc.x;
        got = *p;
        if (got == -12345.f) err[0] = 2;
      } else if (op == 5) {
        volatile float* p = (volatile float*)(gbase + mine + 512 + lane * 4);
        got = *p;
        if (got == -12345.f) err[0] = 2;
      }
      u64 p1 = clk();
      if (lane == 0) {
        out[4] = p0;
        out[5] = p1;
      }
    }
    __syncthreads();
  }
}
