// smsim calibrate: the L1TEX pipeline's pace for warp-loads of 32 lines that no other
// warp touches (sm_90a), so that hits, misses that allocate in L1 (ld) and misses that
// do not (ld.cg) can be told apart. A source of its own, so that micro.cu's hash stays
// the primary measurement's. Compiled at run time with NVRTC (no #include).

typedef unsigned long long u64;
#define UNROLL _Pragma("unroll")

static __device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

// One block of W warps; warp w's lanes chase their own pointer cycles through warp w's
// region (base + w * region), lane l starting at offset l * lane_stride; where each
// pointer leads is the host's image (the same offset of the next 4 KiB block, or the next
// of the lane's own lines). Each step is one warp-load of 32 lines no other warp touches. out[r] = cycles of `steps` steps of every warp
// (between __syncthreads, after `warm` untimed steps).
#define CHASE_OWN(NAME, LD)                                                                    \
  extern "C" __global__ void NAME(const char* base, u64 region, u64 lane_stride, int warm,     \
                                  int steps, int reps, u64* out, u64* sink) {                  \
    int i = threadIdx.x;                                                                       \
    u64 p = (u64)(base + (u64)(i / 32) * region + (u64)(i % 32) * lane_stride);                \
    for (int s = 0; s < warm; ++s) asm volatile(LD : "+l"(p)::"memory");                       \
    for (int r = 0; r < reps; ++r) {                                                           \
      __syncthreads();                                                                         \
      u64 t0 = clk();                                                                          \
      for (int s = 0; s < steps; s += 8) {                                                     \
        UNROLL for (int u = 0; u < 8; ++u) asm volatile(LD : "+l"(p)::"memory");              \
      }                                                                                        \
      __syncthreads();                                                                         \
      u64 t1 = clk();                                                                          \
      if (i == 0) out[r] = t1 - t0;                                                            \
    }                                                                                          \
    sink[i] = p;                                                                               \
  }
CHASE_OWN(chase_own_lines_ld, "ld.global.u64 %0, [%0];")
CHASE_OWN(chase_own_lines_cg, "ld.global.cg.u64 %0, [%0];")
