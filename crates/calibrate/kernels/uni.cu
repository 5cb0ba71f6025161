// smsim calibrate: dependent latencies of the uniform datapath (sm_90a): UIADD3, UIMAD,
// ULOP3, USHF and UISETP -> USEL, the instructions that carry the gemm main loops'
// stage, parity and descriptor arithmetic. A separate source so that a compile problem
// here costs only this section. Compiled at run time with NVRTC (no #include).
//
// ptxas keeps a warp-uniform value in a uniform register (UR) when its consumer takes
// only uniform operands: here the chain's result becomes the address of an
// mbarrier.init after the timed loop (SYNCS.EXCH [UR]). The operands are kernel
// parameters (nothing folds); two PTX adds per step fuse into one UIADD3 x, a, x, b (a
// single add per step would fuse pairwise into ULEA). The committed SASS beside the data
// shows the chains: 64 and 320 uniform instructions (two per step for UISETP -> USEL)
// between the clock reads.

typedef unsigned long long u64;
typedef unsigned int u32;
#define UNROLL _Pragma("unroll")

static __device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

#define UNI_CHAIN_A 64
#define UNI_CHAIN_B 320
#define UNI_LAT(NAME, INSTR)                                                             \
  extern "C" __global__ void NAME(u64* out, u32 a, u32 b, u32 x0, int reps, u32* sink) { \
    __shared__ u64 bar[2];                                                               \
    u32 x = x0;                                                                          \
    for (int r = 0; r < reps; ++r) {                                                     \
      u64 t0 = clk();                                                                    \
      UNROLL for (int i = 0; i < UNI_CHAIN_A; ++i) asm volatile(INSTR : "+r"(x) : "r"(a), "r"(b)); \
      u64 t1 = clk();                                                                    \
      UNROLL for (int i = 0; i < UNI_CHAIN_B; ++i) asm volatile(INSTR : "+r"(x) : "r"(a), "r"(b)); \
      u64 t2 = clk();                                                                    \
      if (threadIdx.x == 0) {                                                            \
        out[2 * r] = t1 - t0;                                                            \
        out[2 * r + 1] = t2 - t1;                                                        \
      }                                                                                  \
    }                                                                                    \
    /* a uniform-only consumer: keeps the chain in UR */                                 \
    u32 addr = (u32)__cvta_generic_to_shared(bar) + (x & 8u);                            \
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(addr) : "memory");       \
    sink[threadIdx.x] = (u32)bar[0];                                                     \
  }

UNI_LAT(lat_uiadd3, "{ .reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2; }")
UNI_LAT(lat_uimad, "mad.lo.u32 %0, %0, %1, %2;")
UNI_LAT(lat_ulop3, "lop3.b32 %0, %0, %1, %2, 0x96;")
UNI_LAT(lat_ushf, "shf.l.wrap.b32 %0, %0, %0, %1;")
// UISETP into UP0, then USEL reading it: two instructions per step
UNI_LAT(lat_usel, "{ .reg .pred p; setp.lt.u32 p, %0, %1; selp.b32 %0, %0, %2, p; }")
