// smsim calibrate: Blackwell (sm_100a) tensor memory and tcgen05.mma latencies, for the
// b200 profile, whose figures are published ones until a B200 measures them. Compiled
// at run time with NVRTC (no #include), only for sm_100a and later (`sources::for_arch`);
// the collector runs this section only on a GPU of compute capability 10.x.
//
// One CTA of 128 threads (one warpgroup: tcgen05.ld's 32x32b shape gives each warp its
// 32 lanes of TMEM). Warp 0 allocates the columns (tcgen05.alloc writes the TMEM address
// into shared memory), thread 0 issues the MMAs and commits them to an mbarrier, every
// thread waits on it, then reads its accumulator row back with tcgen05.ld. Each
// repetition writes, from thread 0: the cycles of the allocation (first repetition
// only, the rest 0), issue to commit-arrival of K back-to-back MMAs, and the TMEM load
// with its wait.
//
// Operands: A (128 x 16 bf16) and B (N x 16 bf16) in shared memory, no swizzle,
// K-major; the values are zeros (the latency does not depend on them). Descriptors:
// start address >> 4 in bits 0-13, leading-dimension byte offset >> 4 in 16-29, stride
// byte offset >> 4 in 32-45, the descriptor version 1 (bits 46-47, sm_100), no swizzle
// (bits 61-63 = 0). Instruction descriptor for kind::f16: D in F32 (bits 4-5 = 1), A
// and B in BF16 (bits 7-9 and 10-12 = 1), both K-major, N >> 3 in bits 17-22, M >> 4 in
// bits 24-28.

typedef unsigned long long u64;
typedef unsigned int u32;

static __device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

static __device__ __forceinline__ u32 smem_addr(const void* p) {
  u32 a;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}"
               : "=r"(a)
               : "l"(p));
  return a;
}

static __device__ __forceinline__ u64 smem_desc(u32 addr, u32 lbo, u32 sbo) {
  return (u64)((addr >> 4) & 0x3fff) | ((u64)((lbo >> 4) & 0x3fff) << 16) |
         ((u64)((sbo >> 4) & 0x3fff) << 32) | (1ull << 46);
}

static __device__ __forceinline__ u32 idesc_bf16_f32(u32 m, u32 n) {
  return (1u << 4) | (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

static __device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

static __device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  asm volatile(
      "{\n\t.reg .pred P;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1;\n\t"
      "@!P bra WAIT_%=;\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}

#define TC_COLS 256

#define TC_MMA_LAT(NAME, N, K)                                                             \
  extern "C" __global__ void __launch_bounds__(128) NAME(int reps, u64* out, u32* sink) {  \
    extern __shared__ __align__(1024) unsigned char smem[];                                \
    __shared__ __align__(8) u64 bar;                                                       \
    __shared__ u32 tmem_base;                                                              \
    unsigned char* a = smem;                                                               \
    unsigned char* b = smem + 128 * 16 * 2;                                                \
    for (u32 i = threadIdx.x; i < (128 + (N)) * 16 * 2 / 4; i += blockDim.x)               \
      ((u32*)smem)[i] = 0;                                                                 \
    const u32 warp = threadIdx.x / 32;                                                     \
    const u32 bar_a = smem_addr(&bar);                                                     \
    if (threadIdx.x == 0) mbar_init(bar_a, 1);                                             \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                           \
    __syncthreads();                                                                       \
    u64 t_alloc = 0;                                                                       \
    if (warp == 0) {                                                                       \
      u64 t0 = clk();                                                                      \
      asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"     \
                   ::"r"(smem_addr(&tmem_base)), "r"(TC_COLS) : "memory");                 \
      asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory"); \
      t_alloc = clk() - t0;                                                                \
    }                                                                                      \
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");                       \
    __syncthreads();                                                                       \
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");                        \
    const u32 tmem = tmem_base;                                                            \
    const u64 da = smem_desc(smem_addr(a), 128, 256);                                      \
    const u64 db = smem_desc(smem_addr(b), 128, 256);                                      \
    const u32 idesc = idesc_bf16_f32(128, (N));                                            \
    u32 acc = 0;                                                                           \
    for (int r = 0; r < reps; ++r) {                                                       \
      u64 t0 = clk();                                                                      \
      if (threadIdx.x == 0) {                                                              \
        for (int k = 0; k < (K); ++k) {                                                    \
          asm volatile(                                                                    \
              "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                            \
              "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}"              \
              ::"r"(tmem), "l"(da), "l"(db), "r"(idesc), "r"(k) : "memory");               \
        }                                                                                  \
        asm volatile(                                                                      \
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"  \
            ::"r"(bar_a) : "memory");                                                      \
      }                                                                                    \
      mbar_wait(bar_a, r & 1);                                                             \
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");                      \
      u64 t1 = clk();                                                                      \
      u32 v0, v1, v2, v3;                                                                  \
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];"         \
                   : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)                                \
                   : "r"(tmem + ((warp * 32) << 16)) : "memory");                          \
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");                         \
      acc += v0 ^ v1 ^ v2 ^ v3;                                                            \
      u64 t2 = clk();                                                                      \
      if (threadIdx.x == 0) {                                                              \
        out[3 * r] = r == 0 ? t_alloc : 0;                                                 \
        out[3 * r + 1] = t1 - t0;                                                          \
        out[3 * r + 2] = t2 - t1;                                                          \
      }                                                                                    \
      asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");                     \
      __syncthreads();                                                                     \
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");                      \
    }                                                                                      \
    if (acc == 0x12345678u) sink[threadIdx.x] = acc;                                       \
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");                       \
    __syncthreads();                                                                       \
    if (warp == 0)                                                                         \
      asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;"                 \
                   ::"r"(tmem), "r"(TC_COLS) : "memory");                                  \
  }

TC_MMA_LAT(tc_mma_lat_n64_k1, 64, 1)
TC_MMA_LAT(tc_mma_lat_n128_k1, 128, 1)
TC_MMA_LAT(tc_mma_lat_n256_k1, 256, 1)
TC_MMA_LAT(tc_mma_lat_n256_k8, 256, 8)
