// smsim calibrate, issue 25 (ties3): where ws-wait1's divisions cost its second warpgroup 72
// cycles a k-step (README, "The plain kernels' k-step as a slope", item 3). nodiv.cu's
// ws-wait1 with each `k % pipe` / `k / pipe` put back one at a time: PD the producer's,
// HD the consumers' head (the full wait's stage and parity), RD the release region's stage
// (`(k + pipe - 1) % pipe`, lane 0's arrive); one and two consumer warpgroups; the k-step the
// slope KT 32 -> 64. ST builds also read the 32-bit clock at the consumers' loop top, after
// the full wait, after wait_group 1 and after the release region and sum those four intervals
// in registers (written out at the end); and stamp the producer's wake: lane 0 of each
// consumer warp writes its clock just before its arrive on empty, the producer its clock just
// after its wait on empty returns. wake.cu's kernel (below, vg_wake) is that wake alone.
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

// The consumers' per-warp interval sums (ST): st[warp * 8 + i], i 0 head (loop top to the
// full wait's return), 1 the MMAs (to wait_group 1's return), 2 the release region, 3 the
// tail (release to the next loop top). Wake stamps: st[512 + k] the producer's return from
// its empty wait at k; st[1024 + 8 * k + w] consumer warp w's clock before its arrive at k.
template <int NWG, int PD, int HD, int RD, int ST>
__global__ void __launch_bounds__(384, 1) vg_ws_v(const __grid_constant__ TmapT tma, const __grid_constant__ TmapT tmb, int pipe, int kt, int mt, u64* times, float* sink, int* err, u32* st) {
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
        mbar_wait(bars + 8 * (pipe + s), ph ^ 1, err);
        if (ST) st[512 + k] = clk32();
        load_stage(&tma, &tmb, sa + s * 16384, sb + s * 32768, bars + 8 * s, m, n, k);
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
  u32 sh = 0, sm = 0, sr = 0, stl = 0, t3 = 0;
    for (int k = 0; k < kt; ++k) {
      u32 t0 = ST ? clk32() : 0;
      if (ST && k > 0) stl += t0 - t3;
      int s = HD ? k % pipe : (k & pm);
      int ph = HD ? (k / pipe) & 1 : (k >> lg) & 1;
      mbar_wait(bars + 8 * s, ph, err);
      u32 t1 = ST ? clk32() : 0;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      #pragma unroll
      for (int j = 0; j < 4; ++j) {
        u64 da = desc_sw128(sa + s * 16384 + cwg * 8192 + j * 32), db = desc_sw128(sb + s * 32768 + j * 32);
        WGMMA_STMT
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      u32 t2 = ST ? clk32() : 0;
      if (k > 0 && lane == 0) {
        if (ST) st[1024 + 8 * k + (warp - 4)] = clk32();
        mbar_arrive(bars + 8 * (pipe + (RD ? (k + pipe - 1) % pipe : ((k + pipe - 1) & pm))));
      }
      if (ST) {
        t3 = clk32();
        sh += t1 - t0; sm += t2 - t1; sr += t3 - t2;
      }
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  u64 c1 = clk(), g1 = gtime();
  if (lane == 0) {
    mine[0] = c0;
    mine[1] = c1;
    mine[2] = g0;
    mine[3] = g1;
    if (warp == 0) times[(u64)blockIdx.x * 64 + 63] = smid();
    if (ST) { st[warp * 8] = sh; st[warp * 8 + 1] = sm; st[warp * 8 + 2] = sr; st[warp * 8 + 3] = stl; }
  }
  float acc = 0.f;
  #pragma unroll
  for (int i = 0; i < 128; ++i) acc += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  }
}

// The producer's wake alone: warp 0 lane 0 (lanes 1..31 parked at the region's end, as the
// gemm's producer) waits on `empty` with the gemm's mbar_wait (one try, then the clock-checked
// spin loop), stamps, arrives on `full`; NC consumer warps wait on `full` (all lanes), spin D
// cycles (the MMAs' stand-in), and lane 0 stamps and arrives on `empty` (count NC). One stage:
// the producer at k + 1 waits for the consumers' arrives of k. st[k] the producer's stamp after
// its wait at k, st[512 + 8 * k + w] consumer warp w's before its arrive at k.
__global__ void __launch_bounds__(384, 1) vg_wake(int kt, int nc, int dly, u32* st, int* err) {
  __shared__ __align__(8) unsigned long long bar[2];
  u32 full = smaddr(&bar[0]), empty = smaddr(&bar[1]);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(full, 1);
    mbar_init(empty, nc);
    mbar_fence_init();
  }
  __syncthreads();
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < kt; ++k) {
        mbar_wait(empty, (k & 1) ^ 1, err);
        st[k] = clk32();
        mbar_arrive(full);
      }
    }
    st[2000 + lane] = clk32();  // lanes 1..31 wait at the region's end, as the gemm's producer
  } else if (warp >= 4 && warp < 4 + nc) {
    for (int k = 0; k < kt; ++k) {
      mbar_wait(full, k & 1, err);
      u32 t = clk32();
      while (clk32() - t < (u32)dly) {}
      if (lane == 0) {
        st[512 + 8 * k + (warp - 4)] = clk32();
        mbar_arrive(empty);
      }
    }
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
static double pct(std::vector<double> v, double p) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))]; }
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

struct V { const char* name; int nwg; int st; void* f; };
int main() {
  const int K = 4096, M = 128, N = 256, REPS = 7;
  std::vector<unsigned short> ha((size_t)M * K, 0x3F80), hb((size_t)N * K, 0x3F81);
  void *A, *B; u64* times; float* sink; int* err; u32* st;
  CK(cudaMalloc(&A, ha.size() * 2)); CK(cudaMalloc(&B, hb.size() * 2)); CK(cudaMalloc(&times, 64 * 8)); CK(cudaMalloc(&sink, 4096 * 4)); CK(cudaMalloc(&err, 4)); CK(cudaMalloc(&st, 2048 * 4));
  cudaMemcpy(A, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice); cudaMemcpy(B, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  TmapT ta = tmap(A, K, M, 128), tb = tmap(B, K, N, 256);
  // name: divisions put back (P producer, H head, R release), warpgroups, stamped
  std::vector<V> vs = {
    {"none 2wg", 2, 0, (void*)vg_ws_v<2, 0, 0, 0, 0>}, {"none 1wg", 1, 0, (void*)vg_ws_v<1, 0, 0, 0, 0>},
    {"P 2wg", 2, 0, (void*)vg_ws_v<2, 1, 0, 0, 0>}, {"P 1wg", 1, 0, (void*)vg_ws_v<1, 1, 0, 0, 0>},
    {"H 2wg", 2, 0, (void*)vg_ws_v<2, 0, 1, 0, 0>}, {"H 1wg", 1, 0, (void*)vg_ws_v<1, 0, 1, 0, 0>},
    {"R 2wg", 2, 0, (void*)vg_ws_v<2, 0, 0, 1, 0>}, {"R 1wg", 1, 0, (void*)vg_ws_v<1, 0, 0, 1, 0>},
    {"HR 2wg", 2, 0, (void*)vg_ws_v<2, 0, 1, 1, 0>}, {"HR 1wg", 1, 0, (void*)vg_ws_v<1, 0, 1, 1, 0>},
    {"PHR 2wg", 2, 0, (void*)vg_ws_v<2, 1, 1, 1, 0>}, {"PHR 1wg", 1, 0, (void*)vg_ws_v<1, 1, 1, 1, 0>},
    {"none 2wg ST", 2, 1, (void*)vg_ws_v<2, 0, 0, 0, 1>}, {"none 1wg ST", 1, 1, (void*)vg_ws_v<1, 0, 0, 0, 1>},
    {"H 2wg ST", 2, 1, (void*)vg_ws_v<2, 0, 1, 0, 1>}, {"H 1wg ST", 1, 1, (void*)vg_ws_v<1, 0, 1, 0, 1>},
    {"R 2wg ST", 2, 1, (void*)vg_ws_v<2, 0, 0, 1, 1>}, {"R 1wg ST", 1, 1, (void*)vg_ws_v<1, 0, 0, 1, 1>},
    {"PHR 2wg ST", 2, 1, (void*)vg_ws_v<2, 1, 1, 1, 1>}, {"PHR 1wg ST", 1, 1, (void*)vg_ws_v<1, 1, 1, 1, 1>},
  };
  const int kts[3] = {16, 32, 64};
  for (int pipe = 2; pipe <= 4; pipe += 2)
    for (auto& v : vs) {
      int threads = 128 + 128 * v.nwg, smem = pipe * 49152 + 1024 + 128;
      CK(cudaFuncSetAttribute(v.f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      int nw = threads / 32;
      double sp[3];
      double ivs[3][8][4] = {};  // median interval sums per KT, consumer warp, interval
      std::vector<double> wake;  // KT 64: the producer's wait return less the last arrive
      for (int q = 0; q < 3; ++q) {
        int kt = kts[q], mt = 1;
        std::vector<double> spans, mhz;
        std::vector<double> iv[8][4];
        for (int r = 0; r < REPS + 1; ++r) {
          cudaMemset(err, 0, 4); cudaMemset(times, 0, 512); cudaMemset(st, 0, 8192);
          void* args[9] = {&ta, &tb, &pipe, &kt, &mt, &times, &sink, &err, &st};
          CK(cudaLaunchKernel(v.f, dim3(1), dim3(threads), args, smem, 0));
          CK(cudaDeviceSynchronize());
          u64 h[64]; int he; u32 hs[2048];
          cudaMemcpy(h, times, 512, cudaMemcpyDeviceToHost); cudaMemcpy(&he, err, 4, cudaMemcpyDeviceToHost); cudaMemcpy(hs, st, 8192, cudaMemcpyDeviceToHost);
          if (he) printf("%s: timeout\n", v.name);
          u64 c0 = ~0ull, c1 = 0; for (int w = 0; w < nw; ++w) { c0 = std::min(c0, h[w * 4]); c1 = std::max(c1, h[w * 4 + 1]); }
          if (r == 0) continue;
          spans.push_back((double)(c1 - c0));
          double gt = (double)(h[4 * 4 + 3] - h[4 * 4 + 2]);
          mhz.push_back(gt > 0 ? (double)(h[4 * 4 + 1] - h[4 * 4]) / gt * 1000.0 : 0.0);
          if (v.st) {
            for (int w = 0; w < 4 * v.nwg; ++w)
              for (int i = 0; i < 4; ++i) iv[w][i].push_back((double)hs[(4 + w) * 8 + i]);
            if (kt == 64)
              for (int k = pipe; k < kt; ++k) {
                // the producer at k waits for the release of stage k - pipe: the arrives at k - pipe + 1
                int ka = k - pipe + 1; u32 last = 0; int first = 1;
                for (int w = 0; w < 4 * v.nwg; ++w) { u32 a = hs[1024 + 8 * ka + w]; if (first || (int)(a - last) > 0) last = a; first = 0; }
                wake.push_back((double)(int)(hs[512 + k] - last));
              }
            if (kt == 64 && r == 1) {
              printf("raw %s PIPE %d: k, producer return, arrives (w0..):\n", v.name, pipe);
              for (int k = 0; k < 12; ++k) {
                printf("  %2d %10u", k, hs[512 + k]);
                for (int w = 0; w < 4 * v.nwg; ++w) printf(" %10u", hs[1024 + 8 * k + w]);
                printf("\n");
              }
            }
          }
        }
        std::vector<double> ss = spans; std::sort(ss.begin(), ss.end());
        sp[q] = med(spans);
        if (v.st) for (int w = 0; w < 4 * v.nwg; ++w) for (int i = 0; i < 4; ++i) ivs[q][w][i] = med(iv[w][i]);
        printf("PIPE %d KT %2d %s: span %.0f (reps min %.0f max %.0f), clock %.0f MHz\n", pipe, kt, v.name, sp[q], ss.front(), ss.back(), med(mhz));
      }
      printf("PIPE %d %s: k-step %.1f (KT 32 -> 64), %.1f (16 -> 32); KT 64 less 64 k-steps %.0f\n", pipe, v.name, (sp[2] - sp[1]) / 32, (sp[1] - sp[0]) / 16, sp[2] - 64 * (sp[2] - sp[1]) / 32);
      if (v.st) {
        printf("PIPE %d %s intervals a k-step (slope KT 32 -> 64 of the sums): head / MMAs / release / tail\n", pipe, v.name);
        for (int w = 0; w < 4 * v.nwg; ++w)
          printf("  warp %2d %7.1f %7.1f %7.1f %7.1f\n", 4 + w, (ivs[2][w][0] - ivs[1][w][0]) / 32, (ivs[2][w][1] - ivs[1][w][1]) / 32, (ivs[2][w][2] - ivs[1][w][2]) / 32, (ivs[2][w][3] - ivs[1][w][3]) / 32);
        printf("PIPE %d %s wake (producer's return less the last arrive it waits for, KT 64, all reps): p10 %.0f p50 %.0f p90 %.0f min %.0f max %.0f (n %zu)\n", pipe, v.name, pct(wake, 0.1), pct(wake, 0.5), pct(wake, 0.9), pct(wake, 0), pct(wake, 1), wake.size());
      }
    }
  // The wake alone.
  for (int nc : {1, 4, 8})
    for (int dly : {0, 100, 300, 600, 1000, 1500}) {
      int kt = 64;
      std::vector<double> wake, cons;
      for (int r = 0; r < REPS + 1; ++r) {
        cudaMemset(err, 0, 4); cudaMemset(st, 0, 8192);
        vg_wake<<<1, 384>>>(kt, nc, dly, st, err);
        CK(cudaDeviceSynchronize());
        u32 hs[2048]; int he; cudaMemcpy(hs, st, 8192, cudaMemcpyDeviceToHost); cudaMemcpy(&he, err, 4, cudaMemcpyDeviceToHost);
        if (he) printf("wake: timeout\n");
        if (r == 0) continue;
        for (int k = 4; k + 1 < kt; ++k) {
          u32 last = hs[512 + 8 * k];
          for (int w = 1; w < nc; ++w) { u32 a = hs[512 + 8 * k + w]; if ((int)(a - last) > 0) last = a; }
          wake.push_back((double)(int)(hs[k + 1] - last));
          cons.push_back((double)(int)(hs[k + 1] - hs[k]));
        }
        if (r == 1 && dly == 300) {
          printf("raw wake nc %d D %d: k, producer, arrives\n", nc, dly);
          for (int k = 0; k < 8; ++k) { printf("  %d %u", k, hs[k]); for (int w = 0; w < nc; ++w) printf(" %u", hs[512 + 8 * k + w]); printf("\n"); }
        }
      }
      printf("wake nc %d D %4d: producer return less the last arrive p10 %.0f p50 %.0f p90 %.0f min %.0f max %.0f; producer period p50 %.0f (n %zu)\n", nc, dly, pct(wake, 0.1), pct(wake, 0.5), pct(wake, 0.9), pct(wake, 0), pct(wake, 1), pct(cons, 0.5), wake.size());
    }
  printf("# %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
