// smsim calibrate, issue 25 (ties4): the producer's division against the lagging warpgroup's
// head, and the wake in the gemm's shape, raw per k-step (README, "The producer's timeline").
// divs.cu's ws-wait1 (vg_ws_v) with clock reads kept in registers and written after the
// instruction they time, so no store sits between a read and what it times:
// producer (warp 0 lane 0), per k: q0 after its stage / parity (the P division: the read
// takes them as inputs), q1 after its wait on `empty` returns, q2 after the two copies issue;
// consumers (every warp, every lane reads, all lanes store the same word), per k: c0 loop
// top, c1 after the head's stage / parity (the H division, as inputs), c2 after the full
// wait, c3 after wait_group 1, c4 (lane 0's region, k > 0) after the release stage (the R
// division, as input) and just before the arrive, stored after the arrive.
// Every launch at KT 64 writes its raw stamps: `R pipe variant rep k q0 q1 q2 | c0..c4 ...`.
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#define GEMM_SPIN 20000000ull
struct __align__(64) TmapT {
  u64 d[16];
};
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
DEV u32 smid() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
// K-major, 128-byte swizzle: 8-row groups 1024 B apart (SBO), LBO unused (1).
DEV u64 desc_sw128(u32 saddr) {
  return (u64)((saddr & 0x3FFFF) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
DEV void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
DEV void mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
}
DEV void mbar_expect_tx(u32 bar, u32 bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(bar),
               "r"(bytes)
               : "memory");
}
DEV void mbar_arrive(u32 bar) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
DEV u32 mbar_try(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}
// Waits for the phase; on timeout sets *err and returns (the caller runs on).
DEV void mbar_wait(u32 bar, u32 parity, int* err) {
  if (mbar_try(bar, parity)) return;
  u64 t0 = clk();
  while (!mbar_try(bar, parity)) {
    if (clk() - t0 > GEMM_SPIN) {
      err[0] = 1;
      return;
    }
  }
}
DEV void tma_2d(u32 dst, const TmapT* tm, int x, int y, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((u64)tm), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
// One stage: A rows m*128.., B rows n*256.., K columns k*64..
DEV void load_stage(const TmapT* ta, const TmapT* tb, u32 sa, u32 sb, u32 bar, int m, int n, int k) {
  mbar_expect_tx(bar, 49152);
  tma_2d(sa, ta, k * 64, m * 128, bar);
  tma_2d(sb, tb, k * 64, n * 256, bar);
}

DEV u32 clk32() { u32 c; asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory"); return c; }
#define WGMMA_STMT \
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t" \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n\t}" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "l"(da), "l"(db), "r"(scale_d));

DEV u32 clkd(u32 a, u32 b) {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c) : "r"(a), "r"(b) : "memory");
  return c;
}
#define CB 512
template <int NWG, int PD, int HD, int RD>
__global__ void __launch_bounds__(384, 1) vg_ws_s(const __grid_constant__ TmapT tma, const __grid_constant__ TmapT tmb, int pipe, int kt, int mt, u64* times, float* sink, int* err, u32* st) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  u32 base = (smaddr(dsm) + 1023) & ~1023u;
  u32 sa = base, sb = base + pipe * 16384, bars = base + pipe * 49152;
  const int pm = pipe - 1, lg = __ffs(pipe) - 1;  // pipe a power of two
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int m = blockIdx.x % mt, n = blockIdx.x / mt;
  u64* mine = times + (u64)blockIdx.x * 64 + warp * 4;
  if (threadIdx.x == 0) {
    for (int i = 0; i < pipe; ++i) {
      mbar_init(bars + 8 * i, 1);
      mbar_init(bars + 8 * (pipe + i), 4 * NWG);
    }
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (warp == 0 && lane == 0) {
      for (int k = 0; k < kt; ++k) {
        int s = PD ? k % pipe : (k & pm);
        int ph = PD ? (k / pipe) & 1 : (k >> lg) & 1;
        u32 q0 = clkd(s, ph);
        mbar_wait(bars + 8 * (pipe + s), ph ^ 1, err);
        u32 q1 = clk32();
        load_stage(&tma, &tmb, sa + s * 16384, sb + s * 32768, bars + 8 * s, m, n, k);
        u32 q2 = clk32();
        st[4 * k] = q0; st[4 * k + 1] = q1; st[4 * k + 2] = q2;
      }
    }
  u64 c1 = clk(), g1 = gtime();
  if (lane == 0) {
    mine[0] = c0;
    mine[1] = c1;
    mine[2] = g0;
    mine[3] = g1;
    if (warp == 0) times[(u64)blockIdx.x * 64 + 63] = smid();
  }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    int cwg = wg - 1;
  float d[128];
  #pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  u32 scale_d = 1;
    u32* mst = st + CB + (warp - 4) * 8;
    for (int k = 0; k < kt; ++k) {
      u32 t0 = clk32();
      int s = HD ? k % pipe : (k & pm);
      int ph = HD ? (k / pipe) & 1 : (k >> lg) & 1;
      u32 t1 = clkd(s, ph);
      mbar_wait(bars + 8 * s, ph, err);
      u32 t2 = clk32();
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      #pragma unroll
      for (int j = 0; j < 4; ++j) {
        u64 da = desc_sw128(sa + s * 16384 + cwg * 8192 + j * 32), db = desc_sw128(sb + s * 32768 + j * 32);
        WGMMA_STMT
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      u32 t3 = clk32();
      u32* ks = mst + k * 64;
      if (k > 0 && lane == 0) {
        int rs = RD ? (k + pipe - 1) % pipe : ((k + pipe - 1) & pm);
        u32 t4 = clkd(rs, 0);
        mbar_arrive(bars + 8 * (pipe + rs));
        ks[4] = t4;
      }
      ks[0] = t0; ks[1] = t1; ks[2] = t2; ks[3] = t3;
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  u64 c1 = clk(), g1 = gtime();
  if (lane == 0) {
    mine[0] = c0;
    mine[1] = c1;
    mine[2] = g0;
    mine[3] = g1;
    if (warp == 0) times[(u64)blockIdx.x * 64 + 63] = smid();
  }
  float acc = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) acc += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  }
}

#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>
static TmapT tmap(void* p, u64 w, u64 h, u32 bh) {
  CUtensorMap tm; cuuint64_t dims[2] = {w, h}; cuuint64_t str[1] = {w * 2}; cuuint32_t box[2] = {64, bh}; cuuint32_t es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, p, dims, str, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r) printf("tmap %d\n", (int)r);
  TmapT t; memcpy(&t, &tm, sizeof(t)); return t;
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[v.size() / 2]; }
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

struct V { const char* name; int nwg; void* f; };
int main() {
  const int K = 4096, M = 128, N = 256, REPS = 7, NST = CB + 64 * 64 + 64;
  std::vector<unsigned short> ha((size_t)M * K, 0x3F80), hb((size_t)N * K, 0x3F81);
  void *A, *B; u64* times; float* sink; int* err; u32* st;
  CK(cudaMalloc(&A, ha.size() * 2)); CK(cudaMalloc(&B, hb.size() * 2)); CK(cudaMalloc(&times, 64 * 8)); CK(cudaMalloc(&sink, 4096 * 4)); CK(cudaMalloc(&err, 4)); CK(cudaMalloc(&st, NST * 4));
  cudaMemcpy(A, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice); cudaMemcpy(B, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  TmapT ta = tmap(A, K, M, 128), tb = tmap(B, K, N, 256);
  std::vector<V> vs = {
    {"PHR 2wg", 2, (void*)vg_ws_s<2, 1, 1, 1>}, {"HR 2wg", 2, (void*)vg_ws_s<2, 0, 1, 1>},
    {"PHR 1wg", 1, (void*)vg_ws_s<1, 1, 1, 1>}, {"HR 1wg", 1, (void*)vg_ws_s<1, 0, 1, 1>},
    {"none 2wg", 2, (void*)vg_ws_s<2, 0, 0, 0>},
  };
  std::vector<u32> hs(NST);
  for (int pipe = 4; pipe >= 2; pipe -= 2)
    for (auto& v : vs) {
      int threads = 128 + 128 * v.nwg, smem = pipe * 49152 + 1024 + 128;
      CK(cudaFuncSetAttribute(v.f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      int nw = threads / 32;
      for (int kt : {32, 64}) {
        int mt = 1;
        std::vector<double> spans, mhz;
        for (int r = 0; r < REPS + 1; ++r) {
          cudaMemset(err, 0, 4); cudaMemset(times, 0, 512); cudaMemset(st, 0, NST * 4);
          void* args[9] = {&ta, &tb, &pipe, &kt, &mt, &times, &sink, &err, &st};
          CK(cudaLaunchKernel(v.f, dim3(1), dim3(threads), args, smem, 0));
          CK(cudaDeviceSynchronize());
          u64 h[64]; int he;
          cudaMemcpy(h, times, 512, cudaMemcpyDeviceToHost); cudaMemcpy(&he, err, 4, cudaMemcpyDeviceToHost); cudaMemcpy(hs.data(), st, NST * 4, cudaMemcpyDeviceToHost);
          if (he) printf("%s: timeout\n", v.name);
          u64 c0 = ~0ull, c1 = 0; for (int w = 0; w < nw; ++w) { c0 = std::min(c0, h[w * 4]); c1 = std::max(c1, h[w * 4 + 1]); }
          if (r == 0) continue;
          spans.push_back((double)(c1 - c0));
          double gt = (double)(h[4 * 4 + 3] - h[4 * 4 + 2]);
          mhz.push_back(gt > 0 ? (double)(h[4 * 4 + 1] - h[4 * 4]) / gt * 1000.0 : 0.0);
          if (kt == 64)
            for (int k = 0; k < kt; ++k) {
              printf("R %d %s %d %d %u %u %u |", pipe, v.name, r, k, hs[4 * k], hs[4 * k + 1], hs[4 * k + 2]);
              for (int w = 0; w < 4 * v.nwg; ++w)
                for (int i = 0; i < 5; ++i) printf(" %u", hs[CB + w * 8 + k * 64 + i]);
              printf("\n");
            }
        }
        std::vector<double> ss = spans; std::sort(ss.begin(), ss.end());
        printf("PIPE %d KT %2d %s: span %.0f (reps min %.0f max %.0f), clock %.0f MHz\n", pipe, kt, v.name, med(spans), ss.front(), ss.back(), med(mhz));
      }
    }
  printf("# %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
