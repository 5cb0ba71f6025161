// smsim calibrate: validation kernels (never used by the fit).
//
// latency-hiding (crates/traces/src/latency.rs, seed 003): every thread walks its own
// chain of 128-byte lines, P + ((warp*32 + lane)*LINES + i % LINES)*128; each iteration
// loads one f32 (R1) and runs K dependent FFMAs on it (x = x*r2 + r3). The K loop is
// unrolled (one kernel per K); the outer loop is not (unroll 1), so the next load issues
// only after the last FFMA of the chain. L1 variant: ld.global.f32 (LDG.E); L2 variant:
// ld.global.cg.f32 (LDG.E.STRONG.GPU, not cached in L1). The SASS that ran is committed
// beside the data: the simulated twin must follow it.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

#define VH_CHASE(NAME, LD, K)                                                                        \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                              \
      NAME(const char* P, int iters, int lines, float r2, float r3, u64* times, float* sink) {      \
    const char* mine = P + (u64)threadIdx.x * lines * 128;                                          \
    const char* end = mine + (u64)lines * 128;                                                       \
    const char* q = mine;                                                                            \
    float r1 = 0.f;                                                                                  \
    __syncthreads();                                                                                 \
    u64 c0 = clk();                                                                                  \
    _Pragma("unroll 1") for (int i = 0; i < iters; ++i) {                                            \
      asm volatile(LD " %0, [%1];" : "=f"(r1) : "l"(q) : "memory");                                  \
      _Pragma("unroll") for (int j = 0; j < K; ++j)                                                  \
          asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(r1) : "f"(r2), "f"(r3));                  \
      q += 128;                                                                                      \
      if (q == end) q = mine;                                                                        \
    }                                                                                                \
    u64 c1 = clk();                                                                                  \
    if ((threadIdx.x & 31) == 0) {                                                                   \
      times[2 * (threadIdx.x / 32)] = c0;                                                            \
      times[2 * (threadIdx.x / 32) + 1] = c1;                                                        \
    }                                                                                                \
    sink[threadIdx.x] = r1;                                                                          \
  }

VH_CHASE(vh_chase_l1_k1, "ld.global.f32", 1)
VH_CHASE(vh_chase_l1_k4, "ld.global.f32", 4)
VH_CHASE(vh_chase_l1_k16, "ld.global.f32", 16)
VH_CHASE(vh_chase_l1_k64, "ld.global.f32", 64)
VH_CHASE(vh_chase_l2_k1, "ld.global.cg.f32", 1)
VH_CHASE(vh_chase_l2_k4, "ld.global.cg.f32", 4)
VH_CHASE(vh_chase_l2_k16, "ld.global.cg.f32", 16)
VH_CHASE(vh_chase_l2_k64, "ld.global.cg.f32", 64)
