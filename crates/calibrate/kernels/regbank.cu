// smsim calibrate: register-bank conflicts on FFMA source operands (sm_90a).
//
// PTX cannot name machine registers; ptxas allocates them. To pin the operands, every
// value comes from a 16-byte vector load (LDG.E.128 writes four consecutive registers
// R4k..R4k+3) and stays where it landed. Each thread runs RB_CHAINS independent
// dependent chains x = fma(x, a, b); consecutive FFMAs belong to different chains, so a
// register is not read by two FFMAs in a row in the same slot (no operand reuse).
// The variants choose which quad lane each operand comes from:
//   rb_same : x, a, b all lane .x of three different quads -> registers equal mod 4
//   rb_two  : x and a lane .x of two quads, b lane .y        -> two equal mod 4
//   rb_diff : x, a, b lanes .x, .y, .z of one quad           -> distinct mod 4
// The SASS (cuobjdump of the cubin, committed beside the data) shows the registers that
// ptxas actually used; the fit must read the bank pattern from there.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
struct __align__(16) Q {
  float x, y, z, w;
};
DEV Q ldq(const float* p) {
  Q q;
  asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(q.x), "=f"(q.y), "=f"(q.z), "=f"(q.w) : "l"(p));
  return q;
}
DEV float sumq(Q q) { return q.y * q.z * q.w; }
#define FMA(X, A, B) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(X) : "f"(A), "f"(B))
#define RB_CHAINS 4
// 16 x 4 = 64 FFMA per iteration per thread (RB_OPS_PER_ITER in bench.rs)
#define RB_KERNEL(NAME, SETUP, KEEP, X0, A0, B0, X1, A1, B1, X2, A2, B2, X3, A3, B3)          \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(int iters, const float* in, u64* times, float* sink) { \
    const float* p = in + 4 * (threadIdx.x & 1);                                           \
    SETUP                                                                                  \
    __syncthreads();                                                                       \
    u64 c0 = clk();                                                                        \
    _Pragma("unroll 1") for (int it = 0; it < iters; ++it) {                              \
      _Pragma("unroll") for (int u = 0; u < 16; ++u) {                                     \
        FMA(X0, A0, B0);                                                                   \
        FMA(X1, A1, B1);                                                                   \
        FMA(X2, A2, B2);                                                                   \
        FMA(X3, A3, B3);                                                                   \
      }                                                                                    \
    }                                                                                      \
    u64 c1 = clk();                                                                        \
    int w = threadIdx.x / 32;                                                              \
    if ((threadIdx.x & 31) == 0) {                                                         \
      times[2 * w] = c0;                                                                   \
      times[2 * w + 1] = c1;                                                               \
    }                                                                                      \
    sink[threadIdx.x] = X0 + X1 + X2 + X3 + KEEP;                                          \
  }

#define SETUP12                                                                         \
  Q q0 = ldq(p), q1 = ldq(p + 8), q2 = ldq(p + 16), q3 = ldq(p + 24), q4 = ldq(p + 32), \
    q5 = ldq(p + 40), q6 = ldq(p + 48), q7 = ldq(p + 56), q8 = ldq(p + 64), q9 = ldq(p + 72), \
    qa = ldq(p + 80), qb = ldq(p + 88);
// every lane of every quad stays live to the end, so ptxas keeps the 128-bit loads
#define KEEP12 sumq(q0) + sumq(q1) + sumq(q2) + sumq(q3) + sumq(q4) + sumq(q5) + sumq(q6) + sumq(q7) + \
    sumq(q8) + sumq(q9) + sumq(qa) + sumq(qb)
#define KEEP8 sumq(q0) + sumq(q1) + sumq(q2) + sumq(q3) + sumq(q4) + sumq(q5) + sumq(q6) + sumq(q7)
#define SETUP4 Q q0 = ldq(p), q1 = ldq(p + 8), q2 = ldq(p + 16), q3 = ldq(p + 24), q4 = ldq(p + 32), \
    q5 = ldq(p + 40), q6 = ldq(p + 48), q7 = ldq(p + 56);

RB_KERNEL(rb_same, SETUP12, KEEP12, q0.x, q4.x, q8.x, q1.x, q5.x, q9.x, q2.x, q6.x, qa.x, q3.x, q7.x, qb.x)
RB_KERNEL(rb_two, SETUP4, KEEP8, q0.x, q4.x, q0.y, q1.x, q5.x, q1.y, q2.x, q6.x, q2.y, q3.x, q7.x, q3.y)
RB_KERNEL(rb_diff, SETUP4, KEEP8, q0.x, q0.y, q0.z, q1.x, q1.y, q1.z, q2.x, q2.y, q2.z, q3.x, q3.y, q3.z)
