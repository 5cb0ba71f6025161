// smsim calibrate: the softmax's other instructions (sm_90a): warp shuffles (SHFL.BFLY,
// through the shared-memory crossbar), FMNMX (max.f32) and the FP32 -> BF16x2 pack
// (F2FP.BF16.F32.PACK_AB). A separate source so that a compile problem here costs only
// this section. Compiled at run time with NVRTC (no #include).

typedef unsigned long long u64;
typedef unsigned int u32;
#define UNROLL _Pragma("unroll")

static __device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

// Dependent chains of 64 and 320 instructions, each timed (as LAT_CHAIN in micro.cu);
// every lane of the launch runs the chain, lane 0 records.
#define MIO_CHAIN_A 64
#define MIO_CHAIN_B 320
#define MIO_LAT(NAME, T, C, INSTR)                                                       \
  extern "C" __global__ void NAME(u64* out, T a, T b, T x0, int reps, T* sink) {       \
    /* x differs by lane: ptxas folds a shuffle of a warp-uniform value away */          \
    T x = x0 + (T)threadIdx.x;                                                           \
    for (int r = 0; r < reps; ++r) {                                                     \
      u64 t0 = clk();                                                                    \
      UNROLL for (int i = 0; i < MIO_CHAIN_A; ++i) asm volatile(INSTR : "+" C(x) : C(a), C(b)); \
      u64 t1 = clk();                                                                    \
      UNROLL for (int i = 0; i < MIO_CHAIN_B; ++i) asm volatile(INSTR : "+" C(x) : C(a), C(b)); \
      u64 t2 = clk();                                                                    \
      if (threadIdx.x == 0) {                                                            \
        out[2 * r] = t1 - t0;                                                            \
        out[2 * r + 1] = t2 - t1;                                                        \
      }                                                                                  \
    }                                                                                    \
    sink[threadIdx.x] = x;                                                               \
  }

// a is the butterfly lane mask, passed at run time so that ptxas cannot fold it;
// launched with one full warp (the member mask names all 32 lanes)
MIO_LAT(lat_shfl, u32, "r", "shfl.sync.bfly.b32 %0, %0, %1, 0x1f, 0xffffffff;")
MIO_LAT(lat_fmnmx, float, "f", "max.f32 %0, %0, %1;")
// the pack reads x as two FP32 halves' source and writes the BF16 pair back into x
MIO_LAT(lat_f2fp, float, "f", "{ .reg .b32 u; cvt.rn.bf16x2.f32 u, %0, %1; mov.b32 %0, u; }")

// Throughput: one block of 1024 threads, 8 independent chains per thread, 16 x 8
// instructions per iteration; each warp's lane 0 records (start, end) clock64.
#define MIO_CHAINS 8
#define MIO_TP(NAME, T, C, INSTR)                                                        \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(int iters, T a, T b, u64* times, T* sink) { \
    T x[MIO_CHAINS];                                                                     \
    UNROLL for (int k = 0; k < MIO_CHAINS; ++k) x[k] = (T)(threadIdx.x * 3 + k);        \
    __syncthreads();                                                                     \
    u64 c0 = clk();                                                                      \
    for (int it = 0; it < iters; ++it) {                                                 \
      UNROLL for (int u = 0; u < 16; ++u) UNROLL for (int k = 0; k < MIO_CHAINS; ++k)    \
          asm volatile(INSTR : "+" C(x[k]) : C(a), C(b));                               \
    }                                                                                    \
    u64 c1 = clk();                                                                      \
    int w = threadIdx.x / 32;                                                            \
    if ((threadIdx.x & 31) == 0) {                                                       \
      times[2 * w] = c0;                                                                 \
      times[2 * w + 1] = c1;                                                             \
    }                                                                                    \
    T s = 0;                                                                             \
    UNROLL for (int k = 0; k < MIO_CHAINS; ++k) s += x[k];                               \
    sink[threadIdx.x] = s;                                                               \
  }

MIO_TP(tp_shfl, u32, "r", "shfl.sync.bfly.b32 %0, %0, %1, 0x1f, 0xffffffff;")
MIO_TP(tp_fmnmx, float, "f", "max.f32 %0, %0, %1;")
MIO_TP(tp_f2fp, float, "f", "{ .reg .b32 u; cvt.rn.bf16x2.f32 u, %0, %1; mov.b32 %0, u; }")
