// smsim traces, issue 30 item 1: do MUFU and the tensor core overlap on the H100?
//
// One kernel, templated on what its warpgroups do, run on one SM (grid 1: cycles per
// operation) and on every SM (grid = SMs: the SM clock under each load, clock64 against
// %globaltimer). A block has nT "tensor" warpgroups then nM "other" warpgroups:
//   tensor, TMODE 0: loop { 4 x wgmma m64n128k16 (A and B from shared memory), commit,
//                    wait_group 1 }: the tensor pipe never drains;
//           TMODE 1: the same with A from registers (FA3's GEMM1 P V is this form);
//           TMODE 2: FA3's consumer step in one warpgroup: 8 SS wgmma (S = Q K^T, a
//                    64x128 tile over d = 128), commit, 8 RS wgmma (O += P V over 128
//                    keys; 1024 tensor cycles in all), commit, wait_group 1 (S done),
//                    then 64 MUFU.EX2 per thread that read S (the tile's
//                    exponentials) while P V runs, then wait_group 0;
//           TMODE 3: as 2 but wait_group 0 before the exponentials (no overlap inside
//                    the warpgroup; two warpgroups can still overlap each other's).
//   other,  OP 0: loop { 8 rounds of 8 independent chains x <- 2^-x (MUFU.EX2) };
//           OP 1: the same with x <- x * 0.999 + 0.001 (FFMA), a control.
// Operands: random bf16 (random sign and mantissa, exponent 2^-7 .. 2^8), as real data
// toggle the datapath (the same fill as crates/calibrate's gap_wgmma_burn, fill 2).
// Every warp's lane 0 records clock64 at the start and after each of NCP chunks of its
// loop; thread 0 records the block's clock64 and %globaltimer after a final barrier.
//
// Build (any machine with CUDA 13): nvcc -O3 -std=c++17
//   -gencode=arch=compute_90a,code=sm_90a -o mufu_tensor mufu_tensor.cu
// Run: ./mufu_tensor OUTDIR (writes OUTDIR/cp.csv, OUTDIR/blocks.csv, prints a summary).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#define NCP 16
#define MAXW 12

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

DEV u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
DEV u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
// K-major, no swizzle: core matrices of 8 rows x 16 B, LBO 128 B, SBO 256 B.
DEV u64 desc(u32 saddr, u32 lbo, u32 sbo) {
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32);
}
DEV u32 hash(u32 i) {
  u32 h = i * 2654435761u;
  h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
  return h;
}
// Two random bf16: random sign and mantissa, exponent 2^-7 .. 2^8.
DEV u32 rand_bf16x2(u32 i) {
  u32 h = hash(i);
  u32 lo = (h & 0x807Fu) | ((120u + ((h >> 8) & 15u)) << 7);
  u32 hi = ((h >> 16) & 0x807Fu) | ((120u + ((h >> 24) & 15u)) << 7);
  return lo | (hi << 16);
}
#define WGMMA_SS(d, da, db) \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n\t}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "l"(da), "l"(db), "r"(1))

// As WGMMA_SS with scale-d 0: D = A B (a fresh S).
#define WGMMA_SS_Z(d, da, db) \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n\t}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "l"(da), "l"(db), "r"(0))

#define WGMMA_RS(d, a, db) \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n\t}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

#define FENCE() asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define COMMIT() asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory")
#define WAIT(n) asm volatile("wgmma.wait_group.sync.aligned " #n ";" ::: "memory")

// 8 rounds of 8 independent chains: 64 warp-instructions of OP (y: a loop-invariant
// register operand).
template <int OP>
DEV void other_round(float (&x)[8], float y) {
#pragma unroll
  for (int u = 0; u < 8; ++u) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if (OP == 0)  // MUFU.EX2 R, -R
        asm volatile("{\n\t.reg .f32 t;\n\tneg.f32 t, %0;\n\tex2.approx.ftz.f32 %0, t;\n\t}" : "+f"(x[k]));
      else if (OP == 1)  // FFMA R, R, R(reuse), imm
        asm volatile("fma.rn.f32 %0, %0, 0f3F7FBE77, 0f3A83126F;" : "+f"(x[k]));
      else if (OP == 2)  // FMNMX R, R, R
        asm volatile("max.f32 %0, %0, %1;" : "+f"(x[k]) : "f"(y));
      else if (OP == 3)  // FMUL R, R, imm
        asm volatile("mul.f32 %0, %0, 0f3F7FBE77;" : "+f"(x[k]));
      else if (OP == 4)  // LOP3 R, R, R (another chain's value: a loop-invariant one folds)
        asm volatile("{\n\t.reg .b32 t;\n\tmov.b32 t, %0;\n\txor.b32 t, t, %1;\n\tmov.b32 %0, t;\n\t}"
                     : "+f"(x[k]) : "r"(__float_as_uint(x[(k + 3) % 8])));
      else  // F2FP.BF16.F32.PACK_AB R, R, R
        asm volatile("{\n\t.reg .b32 t;\n\tcvt.rn.bf16x2.f32 t, %0, %1;\n\tmov.b32 %0, t;\n\t}" : "+f"(x[k]) : "f"(y));
    }
  }
}

struct Cfg {
  int nT, nM;
  u32 zero;  // 0 (see TMODE 2)
  long long tIters, mIters;  // multiples of NCP
};

template <int TMODE, int OP>
__global__ void __launch_bounds__(TMODE >= 2 ? 256 : 384, 1) mix(Cfg c, u64* cp, u64* bt, float* sink) {
  __shared__ __align__(128) unsigned char sm[2048 + 4096];
  for (int i = threadIdx.x; i < (2048 + 4096) / 4; i += blockDim.x) ((u32*)sm)[i] = rand_bf16x2(i);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  u32 a = smaddr(sm), b = a + 2048;
  u64 da = desc(a, 128, 256), db = desc(b, 128, 256);
  int wg = threadIdx.x / 128, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  u64* my = cp + ((size_t)blockIdx.x * MAXW + warp) * (NCP + 1);
  float acc = 0.f;
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  if (lane == 0) my[0] = c0;
  if (wg < c.nT) {
    // d: the accumulators of the SS wgmma (FA3's S), o: of the RS ones (FA3's O).
    float d[64], o[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.f, o[i] = 0.f;
    u32 ra[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) ra[i] = rand_bf16x2(threadIdx.x * 4 + i + 7777);
    // TMODE 4: P (bf16 pairs, the RS wgmma's A over 8 k-steps) and the O rescale.
    u32 pa[TMODE == 4 ? 32 : 1];
#pragma unroll
    for (int i = 0; i < (TMODE == 4 ? 32 : 1); ++i) pa[i] = rand_bf16x2(threadIdx.x * 32 + i + 99);
    float sc = 0.999f, w[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) w[k] = 1.f + k;
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = 0.25f + 0.01f * (float)(threadIdx.x % 7 + k);
    long long per = c.tIters / NCP;
    for (int ch = 0; ch < NCP; ++ch) {
      for (long long it = 0; it < per; ++it) {
        if (TMODE == 0) {
          FENCE();
          WGMMA_SS(d, da, db); WGMMA_SS(d, da, db); WGMMA_SS(d, da, db); WGMMA_SS(d, da, db);
          COMMIT();
          WAIT(1);
        } else if (TMODE == 1) {
          FENCE();
          WGMMA_RS(d, ra, db); WGMMA_RS(d, ra, db); WGMMA_RS(d, ra, db); WGMMA_RS(d, ra, db);
          COMMIT();
          WAIT(1);
        } else if (TMODE == 4) {
          // FA3's consumer step with its softmax at the real per-thread counts (64 S
          // values a thread): O rescaled (64 FMUL), S = Q K^T (8 SS, S fresh),
          // O += P V (8 RS, P from the last step), wait for S, the row max (64 FMNMX
          // over 8 chains, 8 FMUL), 64 FFMA (scale, subtract the max), 64 MUFU.EX2,
          // the row sum (64 FADD over 8 chains), 1 MUFU.EX2 for the next rescale,
          // wait for P V, P to bf16 pairs (32 F2FP). No shuffles.
          // (FA3 rescales O itself; here ptxas then serializes the wgmma (C7518)
          // wherever the rescale stands, so its 64 FMUL go to 8 other registers.)
#pragma unroll
          for (int i = 0; i < 64; ++i) w[i % 8] *= sc;
          FENCE();
          WGMMA_SS_Z(d, da, db);
#pragma unroll
          for (int k = 1; k < 8; ++k) WGMMA_SS(d, da, db);
          COMMIT();
          FENCE();
#pragma unroll
          for (int k = 0; k < 8; ++k) WGMMA_RS(o, (pa + 4 * k), db);
          COMMIT();
          WAIT(1);
          float mx[8];
#pragma unroll
          for (int k = 0; k < 8; ++k) mx[k] = x[k];
#pragma unroll
          for (int i = 0; i < 64; ++i) mx[i % 8] = fmaxf(mx[i % 8], d[i]);
#pragma unroll
          for (int k = 0; k < 8; ++k) mx[k] *= 1.0e-3f;
#pragma unroll
          for (int i = 0; i < 64; ++i) d[i] = fmaf(d[i], 1.0e-3f, -mx[i % 8]);
#pragma unroll
          for (int i = 0; i < 64; ++i) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(d[i]));
#pragma unroll
          for (int i = 0; i < 64; ++i) x[i % 8] += d[i];
          asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(sc) : "f"(-mx[0] * 1.0e-6f));
          WAIT(0);
#pragma unroll
          for (int i = 0; i < 32; ++i)
            asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(pa[i]) : "f"(d[2 * i + 1]), "f"(d[2 * i]));
        } else {
          // The next GEMMs wait for the last exponentials, as FA3's GEMM1 waits for
          // P: `dep` is 0 at run time (c.zero), but ptxas cannot know it, so it
          // cannot move exponentials below the next wgmma issue (it did: they
          // ended up between the HGMMAs, delaying their issue).
          u32 dep = 0;
#pragma unroll
          for (int k = 0; k < 8; ++k) dep ^= __float_as_uint(x[k]);
          dep &= c.zero;
          u64 daj = da ^ dep, dbj = db ^ dep;
          FENCE();
#pragma unroll
          for (int k = 0; k < 8; ++k) WGMMA_SS(d, daj, dbj);
          COMMIT();
          FENCE();
#pragma unroll
          for (int k = 0; k < 8; ++k) WGMMA_RS(o, ra, dbj);
          COMMIT();
          // The exponentials read S (a data dependence, as the softmax's does), so
          // ptxas cannot hoist them above the wait: TMODE 2 waits for the SS group
          // only (P V still runs), TMODE 3 for both.
          if (TMODE == 3) {
            WAIT(0);
#pragma unroll
            for (int k = 0; k < 8; ++k) x[k] += d[k] * 0.f + o[k] * 0.f;
          } else {
            WAIT(1);
#pragma unroll
            for (int k = 0; k < 8; ++k) x[k] += d[k] * 0.f;
          }
          other_round<0>(x, 0.f);
          WAIT(0);
          // P to bf16 pairs, the next P V's A operand (FA3's F2FP, after P V is done).
#pragma unroll
          for (int i = 0; i < 4; ++i)
            asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(ra[i]) : "f"(x[2 * i + 1]), "f"(x[2 * i]));
        }
      }
      if (lane == 0) my[ch + 1] = clk();
    }
    WAIT(0);
#pragma unroll
    for (int i = 0; i < 64; ++i) acc += d[i] + o[i];
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += x[k];
    acc += sc;
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += w[k];
  } else if (wg < c.nT + c.nM) {
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = 0.25f + 0.01f * (float)(threadIdx.x % 7 + k);
    long long per = c.mIters / NCP;
    for (int ch = 0; ch < NCP; ++ch) {
      float y = 0.5f + 0.001f * (float)threadIdx.x;
    for (long long it = 0; it < per; ++it) other_round<OP>(x, y);
      if (lane == 0) my[ch + 1] = clk();
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += x[k];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    u64 c1 = clk(), g1 = gtime();
    bt[blockIdx.x * 4 + 0] = c0;
    bt[blockIdx.x * 4 + 1] = c1;
    bt[blockIdx.x * 4 + 2] = g0;
    bt[blockIdx.x * 4 + 3] = g1;
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*KernelFn)(Cfg, u64*, u64*, float*);

struct Var {
  const char* name;
  KernelFn fn;
  int tmode;  // wgmma per iteration: 4 (TMODE 0, 1) or 16 (2, 3, 4)
  int nT, nM;
  long long tIters, mIters;
  bool chip;  // every SM, else one block
  int reps;
};

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

int main(int argc, char** argv) {
  const char* outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  printf("device %s, %d SMs, cc %d.%d\n", prop.name, sms, prop.major, prop.minor);
  const Var vars[] = {
      {"warmup.chip.t2", mix<0, 0>, 0, 2, 0, 160000, 0, true, 1},
      {"t2", mix<0, 0>, 0, 2, 0, 2048, 0, false, 3},
      {"t2rs", mix<1, 0>, 1, 2, 0, 2048, 0, false, 3},
      {"t1", mix<0, 0>, 0, 1, 0, 2048, 0, false, 3},
      {"m1", mix<0, 0>, 0, 0, 1, 0, 2048, false, 3},
      {"m2", mix<0, 0>, 0, 0, 2, 0, 2048, false, 3},
      {"f1", mix<0, 1>, 0, 0, 1, 0, 16384, false, 3},
      {"t2+m1.mlong", mix<0, 0>, 0, 2, 1, 2048, 4096, false, 3},
      {"t2+m1.tlong", mix<0, 0>, 0, 2, 1, 4096, 1024, false, 3},
      {"t1+m2.mlong", mix<0, 0>, 0, 1, 2, 2048, 4096, false, 3},
      {"t1+m1.mlong", mix<0, 0>, 0, 1, 1, 2048, 4096, false, 3},
      {"t2rs+m1.mlong", mix<1, 0>, 1, 2, 1, 2048, 4096, false, 3},
      {"t2rs+m1.tlong", mix<1, 0>, 1, 2, 1, 4096, 1024, false, 3},
      {"t2+f1.mlong", mix<0, 1>, 0, 2, 1, 2048, 32768, false, 3},
      {"fmnmx", mix<0, 2>, 0, 0, 1, 0, 16384, false, 3},
      {"fmul", mix<0, 3>, 0, 0, 1, 0, 16384, false, 3},
      {"lop3", mix<0, 4>, 0, 0, 1, 0, 16384, false, 3},
      {"f2fp", mix<0, 5>, 0, 0, 1, 0, 16384, false, 3},
      {"t2+fmnmx.mlong", mix<0, 2>, 0, 2, 1, 2048, 32768, false, 3},
      {"t2+fmul.mlong", mix<0, 3>, 0, 2, 1, 2048, 32768, false, 3},
      {"t2+lop3.mlong", mix<0, 4>, 0, 2, 1, 2048, 32768, false, 3},
      {"t2+f2fp.mlong", mix<0, 5>, 0, 2, 1, 2048, 32768, false, 3},
      {"sm2wg", mix<4, 0>, 4, 2, 0, 512, 0, false, 3},
      {"sm1wg", mix<4, 0>, 4, 1, 0, 512, 0, false, 3},
      {"fa2wg", mix<2, 0>, 2, 2, 0, 512, 0, false, 3},
      {"fa2wg.serial", mix<3, 0>, 3, 2, 0, 512, 0, false, 3},
      {"fa1wg", mix<2, 0>, 2, 1, 0, 512, 0, false, 3},
      {"fa1wg.serial", mix<3, 0>, 3, 1, 0, 512, 0, false, 3},
      {"chip.t2", mix<0, 0>, 0, 2, 0, 1000000, 0, true, 2},
      {"chip.m1", mix<0, 0>, 0, 0, 1, 0, 1000000, true, 2},
      {"chip.t2+m1", mix<0, 0>, 0, 2, 1, 1000000, 1000000, true, 2},
      {"chip.fa2wg", mix<2, 0>, 2, 2, 0, 250000, 0, true, 2},
      {"chip.sm2wg", mix<4, 0>, 4, 2, 0, 200000, 0, true, 2},
      {"chip.t2+f1", mix<0, 1>, 0, 2, 1, 1000000, 8000000, true, 2},
      {"chip.t2.again", mix<0, 0>, 0, 2, 0, 1000000, 0, true, 2},
  };
  u64 *cp, *bt;
  float* sink;
  size_t ncp = (size_t)sms * MAXW * (NCP + 1);
  CK(cudaMalloc(&cp, ncp * sizeof(u64)));
  CK(cudaMalloc(&bt, (size_t)sms * 4 * sizeof(u64)));
  CK(cudaMalloc(&sink, (size_t)sms * 384 * sizeof(float)));
  std::vector<u64> hcp(ncp), hbt((size_t)sms * 4);
  std::string p1 = std::string(outdir) + "/cp.csv", p2 = std::string(outdir) + "/blocks.csv";
  FILE* fcp = fopen(p1.c_str(), "w");
  FILE* fbt = fopen(p2.c_str(), "w");
  if (!fcp || !fbt) {
    fprintf(stderr, "cannot write %s\n", outdir);
    return 1;
  }
  fprintf(fcp, "variant,rep,warp,role");
  for (int i = 0; i <= NCP; ++i) fprintf(fcp, ",c%d", i);
  fprintf(fcp, "\n");
  fprintf(fbt, "variant,rep,block,c0,c1,g0,g1\n");
  printf("%-16s %10s %10s %10s %10s %9s\n", "variant", "span", "cyc/wgmma", "cyc/oth/SP", "cyc/iter", "MHz");
  for (const Var& v : vars) {
    int grid = v.chip ? sms : 1;
    int threads = 128 * (v.nT + v.nM);
    int wpi = v.tmode >= 2 ? 16 : 4;
    std::vector<double> span, tcyc, mcyc, iter, mhz;
    for (int r = 0; r < v.reps; ++r) {
      CK(cudaMemset(cp, 0, ncp * sizeof(u64)));
      Cfg c{v.nT, v.nM, 0u, v.tIters, v.mIters};
      v.fn<<<grid, threads>>>(c, cp, bt, sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hcp.data(), cp, ncp * sizeof(u64), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(hbt.data(), bt, (size_t)sms * 4 * sizeof(u64), cudaMemcpyDeviceToHost));
      // Block 0's warps: tensor warps are 0 .. 4 nT - 1, the others after them.
      u64 ts = ~0ull, te = 0, ms = ~0ull, me = 0;
      for (int w = 0; w < 4 * (v.nT + v.nM); ++w) {
        const u64* c = &hcp[(size_t)w * (NCP + 1)];
        bool t = w < 4 * v.nT;
        fprintf(fcp, "%s,%d,%d,%s", v.name, r, w, t ? "tensor" : "other");
        for (int i = 0; i <= NCP; ++i) fprintf(fcp, ",%llu", c[i]);
        fprintf(fcp, "\n");
        if (t) ts = std::min(ts, c[0]), te = std::max(te, c[NCP]);
        else ms = std::min(ms, c[0]), me = std::max(me, c[NCP]);
      }
      std::vector<double> bm;
      for (int bI = 0; bI < grid; ++bI) {
        const u64* q = &hbt[(size_t)bI * 4];
        fprintf(fbt, "%s,%d,%d,%llu,%llu,%llu,%llu\n", v.name, r, bI, q[0], q[1], q[2], q[3]);
        if (q[3] > q[2]) bm.push_back(1000.0 * (double)(q[1] - q[0]) / (double)(q[3] - q[2]));
      }
      mhz.push_back(median(bm));
      span.push_back((double)(hbt[1] - hbt[0]));
      if (v.nT) {
        tcyc.push_back((double)(te - ts) / ((double)v.nT * v.tIters * wpi));
        iter.push_back((double)(te - ts) / (double)v.tIters);
      }
      if (v.nM) mcyc.push_back((double)(me - ms) / ((double)v.nM * v.mIters * 64));
    }
    printf("%-16s %10.0f %10.2f %10.3f %10.1f %9.1f\n", v.name, median(span), median(tcyc), median(mcyc),
           median(iter), median(mhz));
    fflush(stdout);
  }
  fclose(fcp);
  fclose(fbt);
  return 0;
}
