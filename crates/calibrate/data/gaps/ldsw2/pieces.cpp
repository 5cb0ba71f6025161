// smsim calibrate, issue 25, ldsw2/ (from tploop/tploop.cpp: cases 16, 32, 64 x 128 at
// 1 CTA, and the kernels _nsv and _ns1 of pieces_kernels.cu): the tma-pipelined validation kernel compiled as the
// collector compiles it (NVRTC, --gpu-architecture=sm_90a --std=c++17): kernels/stream.cu
// alone (the plain kernel, whose SASS the twin follows) and with tploop_kernels.cu
// (`ew_tma_pipelined_acc`: nine per-segment cycle sums a warp). Output lines:
//   CASE-plain REP span                  the plain kernel's CTA span (as the collector)
//   CASE-acc REP span
//   CASE-acc REP CTA WARP S0 .. S8 TILES  the segment sums (cycles over all tiles)
//   CASE-ns ...                          the same without the bulk store (`_acc_ns`)
// CASE = tma-pipelined.tile_XBx128.nlb_N.nsb_M.grid_G.tiles_T
// Usage: tploop KERNELS_DIR ACC_KERNELS OUTDIR (cubins written there).
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>

#define CK(x)                                                                                  \
  do {                                                                                         \
    CUresult _r = (x);                                                                         \
    if (_r != CUDA_SUCCESS) { fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)_r); exit(1); } \
  } while (0)

static std::string slurp(const std::string& p) {
  std::ifstream f(p);
  if (!f) { fprintf(stderr, "cannot read %s\n", p.c_str()); exit(1); }
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

static CUmodule build(const std::string& src, const char* name, const std::string& out) {
  nvrtcProgram p;
  if (nvrtcCreateProgram(&p, src.c_str(), name, 0, nullptr, nullptr) != NVRTC_SUCCESS) exit(2);
  const char* opts[] = {"--gpu-architecture=sm_90a", "--std=c++17"};
  nvrtcResult r = nvrtcCompileProgram(p, 2, opts);
  size_t n = 0;
  nvrtcGetProgramLogSize(p, &n);
  std::string log(n, '\0');
  nvrtcGetProgramLog(p, &log[0]);
  if (r != NVRTC_SUCCESS) { fprintf(stderr, "%s: %s\n", name, log.c_str()); exit(3); }
  nvrtcGetCUBINSize(p, &n);
  std::vector<char> cubin(n);
  nvrtcGetCUBIN(p, cubin.data());
  FILE* f = fopen((out + "/" + name + ".cubin").c_str(), "wb");
  fwrite(cubin.data(), 1, n, f);
  fclose(f);
  CUmodule m;
  CK(cuModuleLoadData(&m, cubin.data()));
  return m;
}

struct alignas(64) TmapT { unsigned long long d[16]; };

static TmapT tmap(CUdeviceptr base, cuuint64_t width, cuuint64_t height, cuuint32_t bw, cuuint32_t bh) {
  CUtensorMap tm;
  cuuint64_t dims[2] = {width, height};
  cuuint64_t strides[1] = {width * 4};
  cuuint32_t boxd[2] = {bw, bh};
  cuuint32_t estr[2] = {1, 1};
  CK(cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, (void*)base, dims, strides, boxd, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  TmapT t;
  memcpy(&t, &tm, sizeof t);
  return t;
}

int main(int argc, char** argv) {
  if (argc < 4) return 1;
  std::string kdir = argv[1], out = argv[3];
  std::string stream = slurp(kdir + "/stream.cu");
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUmodule plain = build(stream, "validation_stream", out);
  CUmodule acc = build(stream + "\n" + slurp(argv[2]), "validation_stream_acc", out);
  const unsigned long long YN = 8192;
  const int REPS = 7;
  size_t bytes = 8ull * 64 * YN * 4;
  CUdeviceptr a, b, c, times, st, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemAlloc(&c, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  CK(cuMemAlloc(&times, 8 * 64 * 8));
  size_t stn = 8 * 4 * 16;  // u32
  CK(cuMemAlloc(&st, stn * 4));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  std::vector<unsigned> hst(stn);
  std::vector<unsigned long long> ht(8 * 64);
  struct Case { int xb, nlb, nsb, grid, tiles; };
  std::vector<Case> cases;
  for (int tiles : {32, 64})
    for (int xb : {16, 32, 64}) cases.push_back({xb, 2, 1, 1, tiles});
  for (auto& cs : cases) {
    int yb = 128, tiles = cs.tiles;
    cuuint64_t rows = (cuuint64_t)cs.grid * cs.xb;
    TmapT ta = tmap(a, YN, rows, yb, cs.xb), tbm = tmap(b, YN, rows, yb, cs.xb), tcm = tmap(c, YN, rows, yb, cs.xb);
    unsigned tb = cs.xb * yb * 4;
    unsigned smem = 1024 + (2 * cs.nlb + cs.nsb) * tb + 8 * (2 * cs.nlb + 2 * cs.nsb);
    int threads = 128;
    char name[128];
    snprintf(name, sizeof name, "tma-pipelined.tile_%dx128.nlb_%d.nsb_%d.grid_%d.tiles_%d", cs.xb, cs.nlb, cs.nsb, cs.grid, tiles);
    for (int s = 0; s < 5; ++s) {
      CUfunction f;
      const char* fns[5] = {"ew_tma_pipelined", "ew_tma_pipelined_acc", "ew_tma_pipelined_acc_ns",
                            "ew_tma_pipelined_acc_nsv", "ew_tma_pipelined_acc_ns1"};
      const char* labs[5] = {"plain", "acc", "ns", "nsv", "ns1"};
      const char *fn = fns[s], *lab = labs[s];
      CK(cuModuleGetFunction(&f, s ? acc : plain, fn));
      CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
      int nlb = cs.nlb, nsb = cs.nsb, xb = cs.xb;
      void* args[] = {&ta, &tbm, &tcm, &tiles, &nlb, &nsb, &xb, &yb, &times, &err, &st};
      for (int rep = -1; rep < REPS; ++rep) {
        CK(cuMemsetD32(st, 0, stn));
        CK(cuLaunchKernel(f, cs.grid, 1, 1, threads, 1, 1, smem, 0, args, nullptr));
        CK(cuCtxSynchronize());
        int herr = 0;
        CK(cuMemcpyDtoH(&herr, err, 4));
        if (herr) printf("# ERROR timeout %s\n", name);
        if (rep < 0) continue;
        CK(cuMemcpyDtoH(ht.data(), times, ht.size() * 8));
        if (s) CK(cuMemcpyDtoH(hst.data(), st, stn * 4));
        std::vector<double> spans;
        for (int k = 0; k < cs.grid; ++k) {
          unsigned long long s0 = ~0ull, s1 = 0;
          for (int w = 0; w < threads / 32; ++w) {
            s0 = std::min(s0, ht[k * 64 + w * 4]);
            s1 = std::max(s1, ht[k * 64 + w * 4 + 1]);
          }
          spans.push_back((double)(s1 - s0));
          if (s && k < 2)
            for (int w = 0; w < 4; ++w) {
              printf("%s-%s %d %d %d", name, lab, rep, k, w);
              for (int q = 0; q < 10; ++q) printf(" %u", hst[((size_t)k * 4 + w) * 16 + q]);
              printf("\n");
            }
        }
        std::sort(spans.begin(), spans.end());
        printf("%s-%s %d %.0f\n", name, lab, rep, spans[spans.size() / 2]);
      }
    }
  }
  return 0;
}
