// smsim calibrate, issue 25 (stsissue/allstamp/): the warp-specialized validation kernel
// compiled as the collector compiles it (NVRTC, --gpu-architecture=sm_90a --std=c++17):
// kernels/stream.cu alone (`ew_warp_specialized`) and with ws_all_kernels.cu (`ew_ws_all`:
// every tile stamped into shared memory at 128 KiB, no branch a stamp). From
// wsstream/ws_stamp.cpp. Output lines:
//   CASE-plain REP span                       the validation kernel's CTA span
//   CASE-all REP span
//   CASE-all REP CTA WARP TILE K CLOCK        (32-bit %clock)
// Usage: ws_all KERNELS_DIR STAMP_KERNELS OUTDIR (cubins written there).
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
  CUmodule stamped = build(stream + "\n" + slurp(argv[2]), "validation_stream_wsall", out);
  CUdeviceptr gt0;
  size_t gt0n = 0;
  CK(cuModuleGetGlobal(&gt0, &gt0n, stamped, "g_t0"));
  const unsigned long long YN = 4096;
  const int REPS = 7;
  size_t bytes = 8ull * 64 * YN * 4;
  CUdeviceptr a, b, c, times, st, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemAlloc(&c, bytes));
  {
    // every element of tile t's columns holds t + 1, so a watcher can tell its bytes
    std::vector<float> h(bytes / 4);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i % YN) / 128 + 1);
    CK(cuMemcpyHtoD(a, h.data(), bytes));
    CK(cuMemcpyHtoD(b, h.data(), bytes));
  }
  CK(cuMemAlloc(&times, 8 * 64 * 8));
  size_t stn = 8 * 12 * 512;  // u32
  CK(cuMemAlloc(&st, stn * 4));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  std::vector<unsigned> hst(stn);
  std::vector<unsigned long long> ht(8 * 64);
  struct Case { int xb, nlb, nsb; };
  std::vector<Case> cases = {{32, 2, 1}, {64, 2, 1}, {32, 3, 1}, {32, 2, 2}};
  for (auto& cs : cases) {
    int yb = 128, tiles = (int)(YN / yb), grid = 1;
    cuuint64_t rows = (cuuint64_t)grid * cs.xb;
    TmapT ta = tmap(a, YN, rows, yb, cs.xb), tbm = tmap(b, YN, rows, yb, cs.xb), tcm = tmap(c, YN, rows, yb, cs.xb);
    unsigned tb = cs.xb * yb * 4;
    unsigned smem = std::max(1024 + (2 * cs.nlb + cs.nsb) * tb + 8 * (2 * cs.nlb + 2 * cs.nsb), 1024u + 131072u + 12u * 2048u);
    unsigned smem_plain = 1024 + (2 * cs.nlb + cs.nsb) * tb + 8 * (2 * cs.nlb + 2 * cs.nsb);
    int threads = 256;
    char name[96];
    snprintf(name, sizeof name, "warp-specialized.tile_%dx128.nlb_%d.nsb_%d.grid_%d", cs.xb, cs.nlb, cs.nsb, grid);
    // (kernel, T0): the plain kernel once, then each stamped kernel at two T0
    struct Run { int s; int t0; };
    std::vector<Run> runs = {{0, 12}, {1, 12}, {0, 12}};
    for (auto& rn : runs) {
      CUfunction f;
      const char* fn = rn.s == 0 ? "ew_warp_specialized" : "ew_ws_all";
      unsigned sm = rn.s ? smem : smem_plain;
      CK(cuModuleGetFunction(&f, rn.s ? stamped : plain, fn));
      CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sm));
      CK(cuMemcpyHtoD(gt0, &rn.t0, sizeof(int)));
      int nlb = cs.nlb, nsb = cs.nsb, xb = cs.xb;
      void* args[] = {&ta, &tbm, &tcm, &tiles, &nlb, &nsb, &xb, &yb, &times, &err, &st};
      char tag[128];
      snprintf(tag, sizeof tag, "%s-%s", name, rn.s ? "all" : "plain");
      for (int rep = -1; rep < REPS; ++rep) {
        CK(cuMemsetD32(st, 0, stn));
        CK(cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, sm, 0, args, nullptr));
        CK(cuCtxSynchronize());
        int herr = 0;
        CK(cuMemcpyDtoH(&herr, err, 4));
        if (herr) printf("# ERROR timeout %s\n", tag);
        if (rep < 0) continue;
        CK(cuMemcpyDtoH(ht.data(), times, ht.size() * 8));
        if (rn.s) CK(cuMemcpyDtoH(hst.data(), st, stn * 4));
        unsigned long long s0 = ~0ull, s1 = 0;
        for (int w = 0; w < threads / 32; ++w) {
          s0 = std::min(s0, ht[w * 4]);
          s1 = std::max(s1, ht[w * 4 + 1]);
        }
        if (rn.s)
          for (int w = 0; w < threads / 32; ++w)
            for (int q = 0; q < 512; ++q) {
              unsigned v = hst[(size_t)w * 512 + q];
              if (v) printf("%s %d %d %d %d %d %u\n", tag, rep, 0, w, q % 32, q / 32, v);
            }
        printf("%s %d %.0f\n", tag, rep, (double)(s1 - s0));
      }
    }
  }
  return 0;
}
