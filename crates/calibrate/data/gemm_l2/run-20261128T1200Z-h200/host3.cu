// gemmshared (issue 25): the shared-operand gemm kernels with per-k-step stamps, on the
// device at hand (an H200 this session: ratios within this run only).
// Set k: b_shared (every CTA the same B tile of 256 rows, its own 128 rows of A) at K 1024,
// 1280, 1536 (A 33, 41, 49.5 MiB: the footprint against the L2's size), static-v1 and ws at
// PIPE 2 and 4, static-v2 at PIPE 2, 132 CTAs; and at one CTA (K 1024).
// Set a: a_shared (every CTA the same A tile of 128 rows, its own 256 rows of B from HBM),
// K 4096, static-v2, static-v1 and ws at PIPE 2, 132 CTAs, with the stage's two copies in
// the collector's order (A, the shared tile, first) and swapped (B, the own box, first).
// Every timed launch follows a launch of itself (val.gemm_mainloop's protocol): one
// launch, then 5 timed. Writes summary.csv (per case and rep: the median and max CTA span
// in cycles, the launch's %globaltimer span, the clock, the CTAs' start and end spread in
// ns), kstep.csv (per case, rep, k: medians over CTAs of the consumer's arrival at and
// release from the full-barrier wait and the issue of stage k's copies, cycles from the
// CTA's first clock read), cta.csv (rep 2's stamps of every CTA).
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "stamped3.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CKD(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1); } } while (0)
static const size_t MIB = 1 << 20;

__global__ void fill32(unsigned* p, size_t n, unsigned v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}

static CUtensorMap tmap(void* base, uint64_t width, uint64_t height, uint32_t bw, uint32_t bh) {
  CUtensorMap tm;
  cuuint64_t dims[2] = {width, height}, strides[1] = {width * 2};
  cuuint32_t box[2] = {bw, bh}, es[2] = {1, 1};
  CKD(cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return tm;
}

typedef unsigned long long u64h;

int main(int argc, char** argv) {
  std::string out = argc > 1 ? argv[1] : ".";
  CK(cudaSetDevice(0));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  printf("L2 bytes %d\n", l2);
  unsigned char *arena;
  u64 *times, *st;
  float* sink;
  int* err;
  CK(cudaMalloc(&arena, 1024 * MIB));
  CK(cudaMalloc(&times, 132 * 64 * 8));
  CK(cudaMalloc(&st, 132 * 3 * 64 * 8));
  CK(cudaMalloc(&sink, 132 * 384 * 4));
  CK(cudaMalloc(&err, 4));
  CK(cudaMemset(err, 0, 4));
  fill32<<<1024, 256>>>((unsigned*)arena, 1024 * MIB / 4, 0x3F803F81u);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const size_t B_OFF = 512 * MIB;
  FILE* fs = fopen((out + "/summary.csv").c_str(), "w");
  FILE* fk = fopen((out + "/kstep.csv").c_str(), "w");
  FILE* fc = fopen((out + "/cta.csv").c_str(), "w");
  const char* H = "set,kernel,pipe,grid,K,swap";
  fprintf(fs, "%s,rep,median_cta_cycles,max_cta_cycles,launch_ns,mhz,start_spread_ns,end_spread_ns,err\n", H);
  fprintf(fk, "%s,rep,k,arrive,release,issue\n", H);
  fprintf(fc, "%s,cta,smid,k,arrive,release,issue\n", H);
  struct Cfg { const char* set; const char* name; void* fn; int threads; int pipe; int m, n, k, swap; };
  std::vector<Cfg> cfgs;
  void* v1 = (void*)vgs_static_v1; void* v2 = (void*)vgs_static_v2; void* ws = (void*)vgs_ws;
  for (int k : {1024, 1280, 1536}) {
    for (int p : {2, 4}) {
      cfgs.push_back({"k", "static-v1", v1, 256, p, 16896, 256, k, 0});
      cfgs.push_back({"k", "ws", ws, 384, p, 16896, 256, k, 0});
    }
    cfgs.push_back({"k", "static-v2", v2, 256, 2, 16896, 256, k, 0});
  }
  cfgs.push_back({"k", "static-v1", v1, 256, 2, 128, 256, 1024, 0});
  cfgs.push_back({"k", "ws", ws, 384, 2, 128, 256, 1024, 0});
  cfgs.push_back({"k", "static-v2", v2, 256, 2, 128, 256, 1024, 0});
  for (int swap : {0, 1}) {
    cfgs.push_back({"a", "static-v2", v2, 256, 2, 128, 33792, 4096, swap});
    cfgs.push_back({"a", "static-v1", v1, 256, 2, 128, 33792, 4096, swap});
    cfgs.push_back({"a", "ws", ws, 384, 2, 128, 33792, 4096, swap});
  }
  const int reps = 5;
  for (auto& c : cfgs) {
    int smem = c.pipe * 49152 + 1024 + 128;
    CK(cudaFuncSetAttribute(c.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaMemcpyToSymbol(g_swap, &c.swap, sizeof(int)));
    int mt = c.m / 128, grid = mt * (c.n / 256), kt = c.k / 64;
    CUtensorMap ta = tmap(arena, c.k, c.m, 64, 128), tb = tmap(arena + B_OFF, c.k, c.n, 64, 256);
    auto launch = [&]() {
      int pipe = c.pipe, ktv = kt, mtv = mt;
      void* args[] = {&ta, &tb, &pipe, &ktv, &mtv, &times, &sink, &err, &st};
      CK(cudaLaunchKernel(c.fn, dim3(grid), dim3(c.threads), args, smem, 0));
    };
    launch();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
      launch();
      CK(cudaDeviceSynchronize());
      int herr = 0;
      CK(cudaMemcpy(&herr, err, 4, cudaMemcpyDeviceToHost));
      std::vector<u64> t(132 * 64), sv(132 * 3 * 64);
      CK(cudaMemcpy(t.data(), times, t.size() * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(sv.data(), st, sv.size() * 8, cudaMemcpyDeviceToHost));
      int warps = c.threads / 32;
      std::vector<double> spans;
      u64 g0 = ~0ull, g1 = 0, s0 = ~0ull, s1 = 0, e0 = ~0ull, e1 = 0;
      for (int b = 0; b < grid; ++b) {
        u64 a0 = ~0ull, a1 = 0, b0 = ~0ull, b1 = 0;
        for (int w = 0; w < warps; ++w) {
          u64* q = &t[b * 64 + w * 4];
          a0 = std::min(a0, q[0]); a1 = std::max(a1, q[1]);
          b0 = std::min(b0, q[2]); b1 = std::max(b1, q[3]);
        }
        g0 = std::min(g0, b0); g1 = std::max(g1, b1);
        s0 = std::min(s0, b0); s1 = std::max(s1, b0);
        e0 = std::min(e0, b1); e1 = std::max(e1, b1);
        spans.push_back(double(a1 - a0));
      }
      std::sort(spans.begin(), spans.end());
      double med = spans[spans.size() / 2], mx = spans.back();
      char key[128];
      snprintf(key, sizeof key, "%s,%s,%d,%d,%d,%d", c.set, c.name, c.pipe, grid, c.k, c.swap);
      fprintf(fs, "%s,%d,%.0f,%.0f,%llu,%.1f,%llu,%llu,%d\n", key, r, med, mx, (u64h)(g1 - g0),
              mx / double(g1 - g0) * 1000.0, (u64h)(s1 - s0), (u64h)(e1 - e0), herr);
      for (int k = 0; k < kt; ++k) {
        double v[3];
        for (int j = 0; j < 3; ++j) {
          std::vector<double> x;
          for (int b = 0; b < grid; ++b) x.push_back(double(sv[b * 3 * kt + j * kt + k]));
          std::sort(x.begin(), x.end());
          v[j] = x[x.size() / 2];
        }
        fprintf(fk, "%s,%d,%d,%.0f,%.0f,%.0f\n", key, r, k, v[0], v[1], v[2]);
      }
      if (r == 2)
        for (int b = 0; b < grid; ++b)
          for (int k = 0; k < kt; ++k)
            fprintf(fc, "%s,%d,%llu,%d,%llu,%llu,%llu\n", key, b, (u64h)t[b * 64 + 63], k,
                    (u64h)sv[b * 3 * kt + k], (u64h)sv[b * 3 * kt + kt + k], (u64h)sv[b * 3 * kt + 2 * kt + k]);
      CK(cudaMemset(err, 0, 4));
    }
    fflush(fs);
    printf("%s %s pipe %d grid %d K %d swap %d done\n", c.set, c.name, c.pipe, grid, c.k, c.swap);
    fflush(stdout);
  }
  fclose(fs); fclose(fk); fclose(fc);
  return 0;
}
