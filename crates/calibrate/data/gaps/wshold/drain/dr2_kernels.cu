// Write-queue drain probe, run 2 (issue 25, wshold/drain/): dr_kernels.cu's layout without
// its per-STS stamps (they cost ~28 cycles an iteration, predicated-off ones too, and put
// the read-back ~550 cycles after the writes). Appended to kernels/stream.cu. One CTA of
// 256 threads, two identical rounds, the second timed. Box A (32 KiB) at 0, box B (32 KiB)
// at 128 KiB, `full` at 120 KiB (+8 the second round).
// - warp 0 lane 0: clock64 (I0), expect_tx, A, spin to I0 + bdelay, clock64 (IB), B (ncopy
//   2), clock64 (I1), try_wait loop, clock64 (D);
// - warp 2, if poll: polls `full` with test_wait, clock64 when it sees it complete (C);
// - warps 4..7 (sub-partitions 0..3), if nsts > 0: spin to the round's start + delay,
//   clock64 (P0), nsts STS.128 back to back (1, 4 or 16; unrolled by a template: no
//   predicated iterations), clock64 (SE), then by rd: 0 an LDS of the first STS's word,
//   1 of the last one's, the value used, or 2 fence.proxy.async; clock64 (R).
//   Warp w writes at pofs + w x 8 KiB + j x 512 + lane x 16.
// out[0..4] = I0 IB I1 D C; out[8 + 4 w + k]: P0 SE R.
DEV u32 dr2_test(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.test_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}
template <int N>
DEV void dr2_tail(unsigned char* p, float4 acc, int rd, u64* o, int* err) {
  u64 p0 = clk();
#pragma unroll
  for (int j = 0; j < N; ++j) *(float4*)(p + j * 512) = acc;
  u64 se = clk();
  if (rd == 2) {
    fence_async();
  } else {
    float got = *(volatile float*)(p + (rd == 0 ? 0 : (N - 1) * 512));
    if (got == -12345.f) err[0] = 2;
  }
  u64 r = clk();
  o[0] = p0;
  o[1] = se;
  o[2] = r;
}
extern "C" __global__ void __launch_bounds__(256, 1) dr2_probe(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     int xblock, int yblock, int ncopy, int bdelay, int nsts, int rd, int pofs, int delay, int poll, u64* out, int* err) {
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
    } else if (warp == 2 && poll) {
      u64 t0 = clk();
      while (!dr2_test(full, 0)) {
        if (clk() - t0 > EW_SPIN) {
          err[0] = 4;
          break;
        }
      }
      u64 c = clk();
      if (lane == 0) out[4] = c;
    } else if (warp >= 4 && nsts > 0) {
      int w = warp - 4;
      while (clk() < c0 + (u64)delay) {
      }
      float4 acc = make_float4(lane, 1.f, 2.f, 3.f);
      unsigned char* p = gbase + pofs + w * 8192 + lane * 16;
      u64 o[3];
      if (nsts == 1)
        dr2_tail<1>(p, acc, rd, o, err);
      else if (nsts == 4)
        dr2_tail<4>(p, acc, rd, o, err);
      else
        dr2_tail<16>(p, acc, rd, o, err);
      if (lane == 0) {
        out[8 + 4 * w] = o[0];
        out[9 + 4 * w] = o[1];
        out[10 + 4 * w] = o[2];
      }
    }
    __syncthreads();
  }
}
