// bshared: where the warm b_shared PIPE 2 gemm launch loses its time (issue 25).
// The collector's vg_static_v1 / vg_ws (stamped.cu, made by make_stamped.py) with per-k-step
// clock64 stamps, timed after six L2 histories. Writes summary.csv (per config, state, rep:
// the median CTA's span, its clock from %globaltimer) and kstep.csv (per config, state,
// rep, k: medians over CTAs of the consumer's arrival at and release from the full-barrier
// wait, and the issue of stage k's copies), cta.csv (rep 2's stamps of every CTA).
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>
#include "stamped.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CKD(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1); } } while (0)
static const size_t MIB = 1 << 20;

// Reads n u32 (a clean flush: L2 ends full of clean lines of this buffer).
__global__ void read_flush(const unsigned* p, size_t n, unsigned* sink) {
  unsigned a = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a += __ldcg(p + i);
  if (a == 0x12345u) sink[0] = a;
}

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

int main(int argc, char** argv) {
  std::string out = argc > 1 ? argv[1] : ".";
  CK(cudaSetDevice(0));
  char* arena; unsigned *flush, *usink; u64 *times, *st; float* sink; int* err;
  const size_t FLUSH = 256 * MIB;
  CK(cudaMalloc(&arena, 1024 * MIB));
  CK(cudaMalloc(&flush, FLUSH));
  CK(cudaMalloc(&usink, 64));
  CK(cudaMalloc(&times, 132 * 64 * 8));
  CK(cudaMalloc(&st, 132 * 3 * 64 * 8));
  CK(cudaMalloc(&sink, 132 * 384 * 4));
  CK(cudaMalloc(&err, 4));
  CK(cudaMemset(err, 0, 4));
  fill32<<<1024, 256>>>((unsigned*)arena, 1024 * MIB / 4, 0x3F803F81u);
  CK(cudaGetLastError());
  CK(cudaMemset(flush, 0, FLUSH));
  CK(cudaDeviceSynchronize());
  FILE* fs = fopen((out + "/summary.csv").c_str(), "w");
  FILE* fk = fopen((out + "/kstep.csv").c_str(), "w");
  FILE* fc = fopen((out + "/cta.csv").c_str(), "w");
  fprintf(fs, "kernel,pipe,grid,state,rep,median_cta_cycles,max_cta_cycles,launch_ns,mhz,err\n");
  fprintf(fk, "kernel,pipe,grid,state,rep,k,arrive,release,issue\n");
  fprintf(fc, "kernel,pipe,grid,state,cta,smid,k,arrive,release,issue\n");
  const size_t K = 4096, B_OFF = 512 * MIB, A_OTHER = 256 * MIB;
  // states: warm = after a launch of itself (val.gemm_mainloop's protocol); warm_2ms = the
  // same and 2 ms on the host; flushed = 256 MiB memset, 2 ms, one-CTA launch (the
  // collector's); readflush = a 256 MiB read (L2 clean), one-CTA launch; warm_other = after
  // a full launch of itself on an A 256 MiB further on (L2 full of clean A lines of another
  // panel); flushed_full = memset, 2 ms, a full launch of itself, then the timed launch.
  const char* states[] = {"warm", "warm_2ms", "flushed", "readflush", "warm_other", "flushed_full"};
  struct Cfg { const char* name; void* fn; int threads; int pipe; int grid; };
  std::vector<Cfg> cfgs;
  for (int g : {132, 66})
    for (int p : {2, 4}) {
      if (g == 66 && p == 4) continue;
      cfgs.push_back({"static-v1", (void*)vgs_static_v1, 256, p, g});
      cfgs.push_back({"ws", (void*)vgs_ws, 384, p, g});
    }
  const int reps = 5, kt = K / 64;
  for (auto& c : cfgs) {
    int smem = c.pipe * 49152 + 1024 + 128;
    CK(cudaFuncSetAttribute(c.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    size_t M = 128 * (size_t)c.grid;
    int mt = M / 128;
    CUtensorMap ta = tmap(arena, K, M, 64, 128), tb = tmap(arena + B_OFF, K, 256, 64, 256);
    CUtensorMap ta2 = tmap(arena + A_OTHER, K, M, 64, 128);
    auto launch = [&](int grid, CUtensorMap* a) {
      int pipe = c.pipe, ktv = kt, mtv = mt;
      void* args[] = {a, &tb, &pipe, &ktv, &mtv, &times, &sink, &err, &st};
      CK(cudaLaunchKernel(c.fn, dim3(grid), dim3(c.threads), args, smem, 0));
    };
    for (const char* state : states) {
      std::string s = state;
      for (int r = 0; r < reps; ++r) {
        if (s == "warm") { if (r == 0) launch(c.grid, &ta); }
        else if (s == "warm_2ms") { launch(c.grid, &ta); CK(cudaDeviceSynchronize()); std::this_thread::sleep_for(std::chrono::microseconds(2000)); }
        else if (s == "flushed" || s == "flushed_full") {
          CK(cudaMemset(flush, 0x5a, FLUSH)); CK(cudaDeviceSynchronize());
          std::this_thread::sleep_for(std::chrono::microseconds(2000));
          launch(s == "flushed" ? 1 : c.grid, &ta);
        } else if (s == "readflush") {
          read_flush<<<132 * 4, 512>>>(flush, FLUSH / 4, usink); launch(1, &ta);
        } else if (s == "warm_other") { launch(c.grid, &ta2); }
        CK(cudaDeviceSynchronize());
        launch(c.grid, &ta);
        CK(cudaDeviceSynchronize());
        int herr = 0;
        CK(cudaMemcpy(&herr, err, 4, cudaMemcpyDeviceToHost));
        std::vector<u64> t(132 * 64), sv(132 * 3 * 64);
        CK(cudaMemcpy(t.data(), times, t.size() * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(sv.data(), st, sv.size() * 8, cudaMemcpyDeviceToHost));
        int warps = c.threads / 32;
        std::vector<double> spans;
        u64 g0 = ~0ull, g1 = 0;
        for (int b = 0; b < c.grid; ++b) {
          u64 a0 = ~0ull, a1 = 0;
          for (int w = 0; w < warps; ++w) {
            u64* q = &t[b * 64 + w * 4];
            a0 = std::min(a0, q[0]); a1 = std::max(a1, q[1]);
            g0 = std::min(g0, q[2]); g1 = std::max(g1, q[3]);
          }
          spans.push_back(double(a1 - a0));
        }
        std::sort(spans.begin(), spans.end());
        double med = spans[spans.size() / 2], mx = spans.back();
        fprintf(fs, "%s,%d,%d,%s,%d,%.0f,%.0f,%llu,%.1f,%d\n", c.name, c.pipe, c.grid, state, r, med, mx,
                (unsigned long long)(g1 - g0), mx / double(g1 - g0) * 1000.0, herr);
        for (int k = 0; k < kt; ++k) {
          double v[3];
          for (int j = 0; j < 3; ++j) {
            std::vector<double> x;
            for (int b = 0; b < c.grid; ++b) x.push_back(double(sv[b * 3 * kt + j * kt + k]));
            std::sort(x.begin(), x.end());
            v[j] = x[x.size() / 2];
          }
          fprintf(fk, "%s,%d,%d,%s,%d,%d,%.0f,%.0f,%.0f\n", c.name, c.pipe, c.grid, state, r, k, v[0], v[1], v[2]);
        }
        if (r == 2)
          for (int b = 0; b < c.grid; ++b)
            for (int k = 0; k < kt; ++k)
              fprintf(fc, "%s,%d,%d,%s,%d,%llu,%d,%llu,%llu,%llu\n", c.name, c.pipe, c.grid, state, b,
                      (unsigned long long)t[b * 64 + 63], k, (unsigned long long)sv[b * 3 * kt + k],
                      (unsigned long long)sv[b * 3 * kt + kt + k], (unsigned long long)sv[b * 3 * kt + 2 * kt + k]);
        CK(cudaMemset(err, 0, 4));
      }
      fflush(fs);
      printf("%s pipe %d grid %d %s done\n", c.name, c.pipe, c.grid, state);
      fflush(stdout);
    }
  }
  fclose(fs); fclose(fk); fclose(fc);
  return 0;
}
