// smsim calibrate, issue 25: the TMA-streaming validation kernels (kernels/stream.cu) with
// clock64 stamps at each phase of every tile, for every warp's lane 0, beside the
// unstamped kernels themselves (included from stream.cu) in the same run.
// Build and run (device machine): see run.sh beside this file. Output, one line a stamp:
//   CASE REP CTA WARP TILE K CYCLES   (cycles from the CTA's first warp start; K below)
// and one line a launch of the unstamped kernel: CASE-plain REP span_cycles.
// Stamps, ew_tma_pipelined (every warp): 0 loop top, 1 full wait returned, 2 adds done,
//   3 after thread 0's store read wait, 4 after BAR 1, 5 STS + fence done, 6 after BAR 2,
//   7 thread 0: store issued, 8 thread 0: next loads issued.
// Stamps, ew_warp_specialized: load warp 0: 0 top, 1 empty wait returned, 2 loads issued;
//   store warp 1: 0 top, 1 c_full wait returned, 2 store issued, 3 read wait returned,
//   4 c_empty arrived; compute warps: 0 top, 1 full wait returned, 2 adds done, 3 empty
//   arrived, 4 c_empty wait returned, 5 STS + fence done, 6 c_full arrived.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include "stream.cu"  // kernels/stream.cu, unchanged (run.sh: -I)

#define NST 16
#define STAMP(k)                                                                        \
  do {                                                                                  \
    u64 _c = clk();                                                                     \
    if (lane == 0) st[(((u64)blockIdx.x * 12 + warp) * tiles + t) * NST + (k)] = _c;   \
  } while (0)

extern "C" __global__ void __launch_bounds__(128, 1) ew_tma_pipelined_st(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                     const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                     u64* times, int* err, u64* st) {
  EW_PROLOGUE
  u32 full = bars;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nlb; ++i) mbar_init(full + 8 * i, 1);
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  if (threadIdx.x == 0)
    for (int s = 0; s < nlb && s < tiles; ++s) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, s, yblock, row0);
  int q = (int)(tb / 512 / 4);
  for (int t = 0; t < tiles; ++t) {
    STAMP(0);
    int s = t % nlb, sc = t % nsb;
    mbar_wait(full + 8 * s, (t / nlb) & 1, err);
    STAMP(1);
    float4 acc[EW_MAX_PIECES];
#pragma unroll
    for (int j = 0; j < EW_MAX_PIECES; ++j) {
      if (j < q) {
        u32 off = (warp * q + j) * 512 + lane * 16;
        float4 a = *(const float4*)(gbase + oA + s * tb + off);
        float4 b = *(const float4*)(gbase + oB + s * tb + off);
        acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
      }
    }
    STAMP(2);
    if (threadIdx.x == 0) bulk_wait_read(nsb - 1);
    STAMP(3);
    asm volatile("bar.sync 1, 128;" ::: "memory");
    STAMP(4);
#pragma unroll
    for (int j = 0; j < EW_MAX_PIECES; ++j) {
      if (j < q) *(float4*)(gbase + oC + sc * tb + (warp * q + j) * 512 + lane * 16) = acc[j];
    }
    fence_async();
    STAMP(5);
    asm volatile("bar.sync 1, 128;" ::: "memory");
    STAMP(6);
    if (threadIdx.x == 0) {
      tma_store(&tc, t * yblock, row0, base + oC + sc * tb);
      STAMP(7);
      if (t + nlb < tiles) load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t + nlb, yblock, row0);
      STAMP(8);
    }
  }
  if (threadIdx.x == 0) bulk_wait_all();
  record(times, warp, lane, c0, g0);
}

extern "C" __global__ void __launch_bounds__(384, 1) ew_warp_specialized_st(const __grid_constant__ TmapT ta, const __grid_constant__ TmapT tbm,
                        const __grid_constant__ TmapT tc, int tiles, int nlb, int nsb, int xblock, int yblock,
                        u64* times, int* err, u64* st) {
  EW_PROLOGUE
  int cw = (int)(blockDim.x / 32) - 4;
  u32 full = bars, empty = bars + 8 * nlb, c_full = bars + 16 * nlb, c_empty = c_full + 8 * nsb;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nlb; ++i) {
      mbar_init(full + 8 * i, 1);
      mbar_init(empty + 8 * i, cw);
    }
    for (int i = 0; i < nsb; ++i) {
      mbar_init(c_full + 8 * i, cw);
      mbar_init(c_empty + 8 * i, 1);
    }
    mbar_fence_init();
  }
  __syncthreads();
  u64 c0 = clk(), g0 = gtime();
  if (warp == 0) {
    if (lane == 0)
      for (int t = 0; t < tiles; ++t) {
        STAMP(0);
        int s = t % nlb;
        mbar_wait(empty + 8 * s, ((t / nlb) & 1) ^ 1, err);
        STAMP(1);
        load_tiles(&ta, &tbm, base, oA, oB, tb, full + 8 * s, s, t, yblock, row0);
        STAMP(2);
      }
  } else if (warp == 1) {
    if (lane == 0) {
      for (int t = 0; t < tiles; ++t) {
        STAMP(0);
        int sc = t % nsb;
        mbar_wait(c_full + 8 * sc, (t / nsb) & 1, err);
        STAMP(1);
        tma_store(&tc, t * yblock, row0, base + oC + sc * tb);
        STAMP(2);
        if (nsb >= 2) {
          bulk_wait_read(1);
          STAMP(3);
          if (t > 0) mbar_arrive(c_empty + 8 * ((t + nsb - 1) % nsb));
        } else {
          bulk_wait_read(0);
          STAMP(3);
          mbar_arrive(c_empty + 8 * sc);
        }
        STAMP(4);
      }
      bulk_wait_all();
    }
  } else if (warp >= 4) {
    int pieces = (int)(tb / 512) / cw, first = (warp - 4) * pieces;
    for (int t = 0; t < tiles; ++t) {
      STAMP(0);
      int s = t % nlb, sc = t % nsb;
      mbar_wait(full + 8 * s, (t / nlb) & 1, err);
      STAMP(1);
      float4 acc[EW_MAX_PIECES];
#pragma unroll
      for (int j = 0; j < EW_MAX_PIECES; ++j) {
        if (j < pieces) {
          u32 off = (first + j) * 512 + lane * 16;
          float4 a = *(const float4*)(gbase + oA + s * tb + off);
          float4 b = *(const float4*)(gbase + oB + s * tb + off);
          acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
        }
      }
      STAMP(2);
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + 8 * s);
      STAMP(3);
      mbar_wait(c_empty + 8 * sc, ((t / nsb) & 1) ^ 1, err);
      STAMP(4);
#pragma unroll
      for (int j = 0; j < EW_MAX_PIECES; ++j) {
        if (j < pieces) *(float4*)(gbase + oC + sc * tb + (first + j) * 512 + lane * 16) = acc[j];
      }
      fence_async();
      STAMP(5);
      __syncwarp();
      if (lane == 0) mbar_arrive(c_full + 8 * sc);
      STAMP(6);
    }
  }
  record(times, warp, lane, c0, g0);
}

#define CK(x)                                                                    \
  do {                                                                           \
    auto _r = (x);                                                               \
    if (_r != 0) {                                                               \
      fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)_r);      \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

static TmapT tmap(void* base, unsigned long long width, unsigned long long height, unsigned bw, unsigned bh) {
  CUtensorMap tm;
  cuuint64_t dims[2] = {width, height};
  cuuint64_t strides[1] = {width * 4};
  cuuint32_t boxd[2] = {bw, bh};
  cuuint32_t estr[2] = {1, 1};
  CK(cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, base, dims, strides, boxd, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  TmapT t;
  static_assert(sizeof(t) == sizeof(tm), "tensor map size");
  memcpy(&t, &tm, sizeof(t));
  return t;
}

int main() {
  const unsigned long long YN = 4096;
  const int REPS = 5;
  struct Case {
    const char* sched;
    int xb, nlb, nsb, grid;
  };
  std::vector<Case> cases;
  for (int grid : {1, 8})
    for (const char* sc : {"tma-pipelined", "warp-specialized"})
      for (int xb : {32, 64})
        for (int nlb : {2, 3})
          for (int nsb : {1, 2}) {
            if (xb == 64 && nlb == 3 && nsb == 2) continue;  // shared memory
            if (grid == 8 && nlb == 3) continue;
            cases.push_back({sc, xb, nlb, nsb, grid});
          }
  float *a, *b, *c;
  size_t bytes = 8ull * 64 * YN * 4;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&c, bytes));
  std::vector<float> ones(bytes / 4, 1.0f);
  CK(cudaMemcpy(a, ones.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, ones.data(), bytes, cudaMemcpyHostToDevice));
  u64 *times, *st;
  int* err;
  size_t stn = 8ull * 12 * 32 * NST;
  CK(cudaMalloc(&times, 8 * 64 * 8));
  CK(cudaMalloc(&st, stn * 8));
  CK(cudaMalloc(&err, 4));
  CK(cudaMemset(err, 0, 4));
  std::vector<u64> hst(stn), ht(8 * 64);
  for (auto& cs : cases) {
    int yb = 128, tiles = (int)(YN / yb);
    unsigned long long rows = (unsigned long long)cs.grid * cs.xb;
    TmapT ta = tmap(a, YN, rows, yb, cs.xb), tbm = tmap(b, YN, rows, yb, cs.xb), tcm = tmap(c, YN, rows, yb, cs.xb);
    u32 tb = cs.xb * yb * 4;
    unsigned smem = 1024 + (2 * cs.nlb + cs.nsb) * tb + 8 * (2 * cs.nlb + 2 * cs.nsb);
    bool ws = cs.sched[0] == 'w';
    int threads = ws ? 256 : 128;
    for (int stamped = 0; stamped < 2; ++stamped) {
      const void* f = ws ? (stamped ? (const void*)ew_warp_specialized_st : (const void*)ew_warp_specialized)
                         : (stamped ? (const void*)ew_tma_pipelined_st : (const void*)ew_tma_pipelined);
      CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      int nlb = cs.nlb, nsb = cs.nsb, xb = cs.xb;
      void* args[] = {&ta, &tbm, &tcm, &tiles, &nlb, &nsb, &xb, &yb, &times, &err, &st};
      for (int rep = -1; rep < REPS; ++rep) {
        CK(cudaMemset(st, 0, stn * 8));
        CK(cudaLaunchKernel(f, cs.grid, threads, args, smem, 0));
        CK(cudaDeviceSynchronize());
        int herr = 0;
        CK(cudaMemcpy(&herr, err, 4, cudaMemcpyDeviceToHost));
        if (herr) printf("# ERROR timeout %s\n", cs.sched);
        if (rep < 0) continue;
        CK(cudaMemcpy(ht.data(), times, ht.size() * 8, cudaMemcpyDeviceToHost));
        char name[96];
        snprintf(name, sizeof name, "%s.tile_%dx128.nlb_%d.nsb_%d.grid_%d", cs.sched, cs.xb, cs.nlb, cs.nsb, cs.grid);
        std::vector<double> spans;
        for (int k = 0; k < cs.grid; ++k) {
          u64 s0 = ~0ull, s1 = 0;
          for (int w = 0; w < threads / 32; ++w) {
            s0 = std::min(s0, ht[k * 64 + w * 4]);
            s1 = std::max(s1, ht[k * 64 + w * 4 + 1]);
          }
          spans.push_back((double)(s1 - s0));
          if (stamped && k < 2) {  // the first two CTAs' stamps
            if (k == 0) CK(cudaMemcpy(hst.data(), st, stn * 8, cudaMemcpyDeviceToHost));
            for (int w = 0; w < threads / 32; ++w)
              for (int t = 0; t < tiles; ++t)
                for (int q = 0; q < NST; ++q) {
                  u64 v = hst[(((u64)k * 12 + w) * tiles + t) * NST + q];
                  if (v) printf("%s %d %d %d %d %d %lld\n", name, rep, k, w, t, q, (long long)(v - s0));
                }
          }
        }
        std::sort(spans.begin(), spans.end());
        printf("%s-%s %d %.0f\n", name, stamped ? "stamped" : "plain", rep, spans[spans.size() / 2]);
      }
    }
  }
  return 0;
}
