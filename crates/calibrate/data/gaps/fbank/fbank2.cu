// fbank: does a two-source FADD pay a register-bank conflict? (sm_90a, issue 25, gaps/ldsw2)
//
// The regbank method (kernels/regbank.cu): every operand comes from a 16-byte vector load
// (LDG.E.128 writes four consecutive registers R4k..R4k+3) and stays where it landed, so a
// quad lane picks the register number mod 4. Each thread runs 4 independent dependent
// chains x = x + a (or fma); consecutive instructions belong to different chains. 16 x 4 =
// 64 instructions an iteration. The SASS (cuobjdump, committed) shows the registers ptxas
// actually used: read the bank pattern from there, not from this file.
//   rb_same / rb_two / rb_diff : regbank.cu's FFMA kernels, verbatim (the committed reference)
//   fa_same  : FADD x=q_i.x, a=q_{i+4}.x   -> both sources equal mod 4
//   fa_mod2  : FADD x=q_i.x, a=q_{i+4}.z   -> equal mod 2, not mod 4
//   fa_diff  : FADD x=q_i.x, a=q_i.y       -> odd and even
//   fa_piece : FADD q0.k += q1.k, k = x,y,z,w: the streaming piece's four FADDs
//              (FADD R16, R16, R80 ... R19, R19, R83: lane-wise, equal mod 4)
//   fa_piecex: the piece with the other bank: q0.x+=q1.y, q0.y+=q1.x, q0.z+=q1.w, q0.w+=q1.z
//   fa_reuse : FADD x=q_i.x, a=q4.x for all four chains (one B source: ptxas may mark .reuse)
// fbank2.cu (the second call) keeps rb_two, fa_same, fa_diff, fa_piece as anchors and adds
// FADDs whose both sources share a bank, the bank alternating from one FADD to the next
// (the piece's pattern: FADD R16, R16, R80; FADD R17, R17, R81; ...), or two and two:
//   fa_alt  : q0.x+=q4.x, q1.y+=q5.y, q2.x+=q6.x, q3.y+=q7.y   (even, odd, even, odd)
//   fa_alt2 : q0.x+=q1.z, q0.y+=q1.w, q0.z+=q1.x, q0.w+=q1.y   (fa_piecex's registers)
//   fa_pair : q0.x+=q4.x, q1.x+=q5.x, q2.y+=q6.y, q3.y+=q7.y   (even, even, odd, odd)
//   fa_pair2: q0.x+=q1.z, q0.z+=q1.x, q0.y+=q1.w, q0.w+=q1.y
//   fa_alt3 : fa_alt with fa_same's KEEP8 (ptxas renames accumulators differently)
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <string>
#include <vector>
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
DEV float sumq4(Q q) { return q.x * q.y * q.z * q.w; }
#define FMA(X, A, B) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(X) : "f"(A), "f"(B))
#define ADD(X, A, B) asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(X) : "f"(A))
#define RB_KERNEL(NAME, OP, SETUP, KEEP, X0, A0, B0, X1, A1, B1, X2, A2, B2, X3, A3, B3)     \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(int iters, const float* in, u64* times, float* sink) { \
    const float* p = in + 4 * (threadIdx.x & 1);                                           \
    SETUP                                                                                  \
    __syncthreads();                                                                       \
    u64 c0 = clk();                                                                        \
    _Pragma("unroll 1") for (int it = 0; it < iters; ++it) {                              \
      _Pragma("unroll") for (int u = 0; u < 16; ++u) {                                     \
        OP(X0, A0, B0);                                                                    \
        OP(X1, A1, B1);                                                                    \
        OP(X2, A2, B2);                                                                    \
        OP(X3, A3, B3);                                                                    \
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
#define KEEP12 sumq(q0) + sumq(q1) + sumq(q2) + sumq(q3) + sumq(q4) + sumq(q5) + sumq(q6) + sumq(q7) + \
    sumq(q8) + sumq(q9) + sumq(qa) + sumq(qb)
#define KEEP8 sumq(q0) + sumq(q1) + sumq(q2) + sumq(q3) + sumq(q4) + sumq(q5) + sumq(q6) + sumq(q7)
#define KEEP8A sumq4(q0) + sumq4(q1) + sumq4(q2) + sumq4(q3) + sumq4(q4) + sumq4(q5) + sumq4(q6) + sumq4(q7)
#define SETUP4 Q q0 = ldq(p), q1 = ldq(p + 8), q2 = ldq(p + 16), q3 = ldq(p + 24), q4 = ldq(p + 32), \
    q5 = ldq(p + 40), q6 = ldq(p + 48), q7 = ldq(p + 56);

RB_KERNEL(rb_two, FMA, SETUP4, KEEP8, q0.x, q4.x, q0.y, q1.x, q5.x, q1.y, q2.x, q6.x, q2.y, q3.x, q7.x, q3.y)
RB_KERNEL(fa_same, ADD, SETUP4, KEEP8, q0.x, q4.x, 0, q1.x, q5.x, 0, q2.x, q6.x, 0, q3.x, q7.x, 0)
RB_KERNEL(fa_diff, ADD, SETUP4, KEEP8, q0.x, q0.y, 0, q1.x, q1.y, 0, q2.x, q2.y, 0, q3.x, q3.y, 0)
RB_KERNEL(fa_piece, ADD, SETUP4, KEEP8A, q0.x, q1.x, 0, q0.y, q1.y, 0, q0.z, q1.z, 0, q0.w, q1.w, 0)
RB_KERNEL(fa_alt, ADD, SETUP4, KEEP8A, q0.x, q4.x, 0, q1.y, q5.y, 0, q2.x, q6.x, 0, q3.y, q7.y, 0)
RB_KERNEL(fa_alt2, ADD, SETUP4, KEEP8A, q0.x, q1.z, 0, q0.y, q1.w, 0, q0.z, q1.x, 0, q0.w, q1.y, 0)
RB_KERNEL(fa_pair, ADD, SETUP4, KEEP8A, q0.x, q4.x, 0, q1.x, q5.x, 0, q2.y, q6.y, 0, q3.y, q7.y, 0)
RB_KERNEL(fa_pair2, ADD, SETUP4, KEEP8A, q0.x, q1.z, 0, q0.z, q1.x, 0, q0.y, q1.w, 0, q0.w, q1.y, 0)
RB_KERNEL(fa_alt3, ADD, SETUP4, KEEP8, q0.x, q4.x, 0, q1.y, q5.y, 0, q2.x, q6.x, 0, q3.y, q7.y, 0)

typedef void (*K)(int, const float*, u64*, float*);
#define CK(x)                                                                 \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  struct { const char* name; K k; } ks[] = {
      {"rb_two", rb_two}, {"fa_same", fa_same}, {"fa_diff", fa_diff}, {"fa_piece", fa_piece},
      {"fa_alt", fa_alt}, {"fa_alt2", fa_alt2}, {"fa_pair", fa_pair}, {"fa_pair2", fa_pair2},
      {"fa_alt3", fa_alt3}};
  float* in;
  u64* times;
  float* sink;
  CK(cudaMalloc(&in, 4096 * sizeof(float)));
  CK(cudaMalloc(&times, 2 * 32 * sizeof(u64)));
  CK(cudaMalloc(&sink, 1024 * sizeof(float)));
  std::vector<float> h(4096);
  for (int i = 0; i < 4096; ++i) h[i] = 1.0f + 1e-3f * (i % 7);
  CK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  const int warps_list[] = {1, 4, 32};
  const int N1 = 256, N2 = 512, REPS = 7, OPS = 64;
  printf("# kernel warps N rep span_cycles mean_warp_cycles  (span = max c1 - min c0)\n");
  char line[512];
  std::string sum = "# summary: kernel warps cyc_per_instr_warp cyc_per_instr_subpartition  "
                    "((T(512)-T(256))/(256*64); subpartition: span / warps-per-subpartition)\n";
  for (auto& kk : ks) {
    for (int warps : warps_list) {
      double r[2][2];
      int Ns[2] = {N1, N2};
      for (int ni = 0; ni < 2; ++ni) {
        std::vector<double> spans, means;
        for (int rep = -1; rep < REPS; ++rep) {
          kk.k<<<1, warps * 32>>>(Ns[ni], in, times, sink);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          u64 t[64];
          CK(cudaMemcpy(t, times, 2 * warps * sizeof(u64), cudaMemcpyDeviceToHost));
          u64 lo = ~0ull, hi = 0;
          double m = 0;
          for (int w = 0; w < warps; ++w) {
            lo = std::min(lo, t[2 * w]);
            hi = std::max(hi, t[2 * w + 1]);
            m += double(t[2 * w + 1] - t[2 * w]);
          }
          m /= warps;
          if (rep < 0) continue;  // warm-up launch (instruction cache)
          printf("%s %d %d %d %llu %.1f\n", kk.name, warps, Ns[ni], rep, hi - lo, m);
          spans.push_back(double(hi - lo));
          means.push_back(m);
        }
        r[ni][0] = med(spans);
        r[ni][1] = med(means);
      }
      double per_sp = warps >= 4 ? warps / 4.0 : 1.0;
      snprintf(line, sizeof line, "%-10s %2d %.4f %.4f\n", kk.name, warps,
               (r[1][1] - r[0][1]) / double((N2 - N1) * OPS),
               (r[1][0] - r[0][0]) / double((N2 - N1) * OPS) / per_sp);
      sum += line;
    }
  }
  printf("%s", sum.c_str());
  return 0;
}
