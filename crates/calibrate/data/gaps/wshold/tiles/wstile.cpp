// smsim calibrate, issue 25, wshold/tiles/ (from wshold/wsacc.cpp): the warp-specialized
// validation kernel compiled as the collector compiles it (NVRTC,
// --gpu-architecture=sm_90a --std=c++17): kernels/stream.cu alone (`ew_warp_specialized`)
// and with ws_tile_kernels.cu (`ew_ws_tile`, `_ns`: every party of a tile timed, tiles
// 16..47 of 64). Output lines:
//   CASE-plain REP span                     the plain kernel's CTA span (as the collector)
//   CASE-LAB REP span                       LAB tile / tilens (no bulk store), c0 / c1
//   CASE-LAB REP cw WARP TILE R0 .. R7      a compute warp's eight clock reads of a tile
//   CASE-LAB REP ld TILE E I                the load warp: empty wait returned, copies issued
//   CASE-LAB REP st TILE F S R              the store warp: c_full returned, store issued, read wait returned
//   CASE-LAB REP ob TILE C                  warp 2: the full phase of the tile seen complete
// CASE = warp-specialized.tile_XBx128.nlb_N.nsb_M.grid_1.tiles_64
// Usage: wstile KERNELS_DIR TILE_KERNELS OUTDIR (cubins written there).
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
  CUmodule acc = build(stream + "\n" + slurp(argv[2]), "validation_stream_wstile", out);
  const unsigned long long YN = 8192;
  const int REPS = 5;
  size_t bytes = 8ull * 64 * YN * 4;
  CUdeviceptr a, b, c, times, st, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemAlloc(&c, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  CK(cuMemAlloc(&times, 8 * 64 * 8));
  size_t stn = 2048;  // u32: ws_tile_kernels.cu's out
  CK(cuMemAlloc(&st, stn * 4));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  std::vector<unsigned> hst(stn);
  std::vector<unsigned long long> ht(8 * 64);
  struct Case { int xb, nlb, nsb, tiles; };
  std::vector<Case> cases;
  for (int tiles : {64}) {
    cases.push_back({32, 2, 1, tiles});
    cases.push_back({32, 2, 2, tiles});
    cases.push_back({32, 3, 1, tiles});
  }
  const int grid = 1, threads = 256;
  for (auto& cs : cases) {
    int yb = 128, tiles = cs.tiles;
    cuuint64_t rows = (cuuint64_t)grid * cs.xb;
    TmapT ta = tmap(a, YN, rows, yb, cs.xb), tbm = tmap(b, YN, rows, yb, cs.xb), tcm = tmap(c, YN, rows, yb, cs.xb);
    unsigned tb = cs.xb * yb * 4;
    unsigned bars = 8 * (2 * cs.nlb + 2 * cs.nsb);
    unsigned smem0 = 1024 + (2 * cs.nlb + cs.nsb) * tb + bars;
    unsigned smem1 = 1024 + 131072 + cs.nsb * tb + bars;
    char name[128];
    snprintf(name, sizeof name, "warp-specialized.tile_%dx128.nlb_%d.nsb_%d.grid_%d.tiles_%d", cs.xb, cs.nlb, cs.nsb, grid, tiles);
    // (kernel, layout): the plain kernel, then acc and ns in the validation layout (c0)
    // and with the store buffers at 128 KiB (c1); the plain kernel again at the end
    struct Run { int k; int cpos; const char* lab; };
    std::vector<Run> runs = {{0, 0, "plain"}, {1, 0, "tile-c0"}, {2, 0, "tilens-c0"}, {1, 1, "tile-c1"}, {2, 1, "tilens-c1"}};
    for (auto& rn : runs) {
      CUfunction f;
      const char* fn = rn.k == 0 ? "ew_warp_specialized" : rn.k == 1 ? "ew_ws_tile" : "ew_ws_tile_ns";
      unsigned smem = rn.cpos ? smem1 : smem0;
      CK(cuModuleGetFunction(&f, rn.k ? acc : plain, fn));
      CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
      int nlb = cs.nlb, nsb = cs.nsb, xb = cs.xb, cpos = rn.cpos;
      void* args0[] = {&ta, &tbm, &tcm, &tiles, &nlb, &nsb, &xb, &yb, &times, &err};
      void* args1[] = {&ta, &tbm, &tcm, &tiles, &nlb, &nsb, &xb, &yb, &times, &err, &st, &cpos};
      for (int rep = -1; rep < REPS; ++rep) {
        CK(cuMemsetD32(st, 0, stn));
        CK(cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, smem, 0, rn.k ? args1 : args0, nullptr));
        CK(cuCtxSynchronize());
        int herr = 0;
        CK(cuMemcpyDtoH(&herr, err, 4));
        if (herr) printf("# ERROR timeout %s-%s\n", name, rn.lab);
        if (rep < 0) continue;
        CK(cuMemcpyDtoH(ht.data(), times, ht.size() * 8));
        if (rn.k) CK(cuMemcpyDtoH(hst.data(), st, stn * 4));
        unsigned long long s0 = ~0ull, s1 = 0;
        for (int w = 0; w < threads / 32; ++w) {
          s0 = std::min(s0, ht[w * 4]);
          s1 = std::max(s1, ht[w * 4 + 1]);
        }
        if (rn.k) {
          for (int w = 0; w < 4; ++w)
            for (int l = 0; l < 32; ++l) {
              printf("%s-%s %d cw %d %d", name, rn.lab, rep, w + 4, 16 + l);
              for (int k = 0; k < 8; ++k) printf(" %u", hst[(size_t)(w * 32 + l) * 8 + k]);
              printf("\n");
            }
          for (int t = 0; t < 64; ++t) {
            printf("%s-%s %d ld %d %u %u\n", name, rn.lab, rep, t, hst[1024 + t * 2], hst[1024 + t * 2 + 1]);
            printf("%s-%s %d st %d %u %u %u\n", name, rn.lab, rep, t, hst[1152 + t * 4], hst[1152 + t * 4 + 1], hst[1152 + t * 4 + 2]);
            printf("%s-%s %d ob %d %u\n", name, rn.lab, rep, t, hst[1408 + t]);
          }
        }
        printf("%s-%s %d %.0f\n", name, rn.lab, rep, (double)(s1 - s0));
      }
    }
  }
  return 0;
}
