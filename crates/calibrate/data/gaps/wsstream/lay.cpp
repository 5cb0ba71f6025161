// smsim calibrate, issue 25 (wsstream/, second run): the TMA-streaming validation kernels of
// kernels/stream.cu, compiled as the collector compiles them (NVRTC, sm_90a), with their shared
// memory laid out otherwise: the source's EW_PROLOGUE layout line replaced by one that reads
// g_lay = {P, Q, F}: P bytes before everything, Q bytes between the load buffers and the
// store buffer(s), F = 1 the store buffer(s) first. F = 0, P = Q = 0 is the validation layout
// (sA at 0, sB at NLB x TB, sC at 2 x NLB x TB). Output lines:
//   SCHED.tile_XBx128.nlb_N.nsb_M.P_p.Q_q.F_f REP span
// Usage: lay KERNELS_DIR OUTDIR (cubins written there).
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
  if (argc < 3) return 1;
  std::string kdir = argv[1], out = argv[2];
  std::string stream = slurp(kdir + "/stream.cu");
  const std::string line = "u32 oA = 0, oB = nlb * tb, oC = 2 * nlb * tb, bars = base + (2 * nlb + nsb) * tb;";
  const std::string lay =
      "u32 oA = g_lay[2] ? g_lay[0] + nsb * tb : g_lay[0], oB = oA + nlb * tb, "
      "oC = g_lay[2] ? g_lay[0] : oB + nlb * tb + g_lay[1], "
      "bars = base + g_lay[0] + g_lay[1] * (1 - g_lay[2]) + (2 * nlb + nsb) * tb;";
  size_t at = stream.find(line);
  if (at == std::string::npos) { fprintf(stderr, "layout line not found\n"); return 4; }
  std::string moved = stream;
  moved.replace(at, line.size(), lay);
  const std::string mp = "#define EW_MAX_PIECES 16";
  size_t at2 = moved.find(mp);
  if (at2 == std::string::npos) { fprintf(stderr, "EW_MAX_PIECES not found\n"); return 5; }
  moved.insert(at2 + mp.size(), "\n__device__ int g_lay[3];");
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUmodule m = build(moved, "validation_stream_lay", out);
  CUdeviceptr glay;
  size_t glayn = 0;
  CK(cuModuleGetGlobal(&glay, &glayn, m, "g_lay"));
  const unsigned long long YN = 4096;
  const int REPS = 7;
  size_t bytes = 8ull * 64 * YN * 4;
  CUdeviceptr a, b, c, times, st, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemAlloc(&c, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  CK(cuMemAlloc(&times, 8 * 64 * 8));
  CK(cuMemAlloc(&st, 8 * 12 * 32 * 4));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  std::vector<unsigned long long> ht(8 * 64);
  const int K = 1024;
  struct Case { bool ws; int xb, nlb, nsb, P, Q, F; };
  std::vector<Case> cases = {
      {true, 32, 2, 1, 0, 0, 0},       {true, 32, 2, 1, 0, 16 * K, 0},  {true, 32, 2, 1, 0, 32 * K, 0},
      {true, 32, 2, 1, 0, 48 * K, 0},  {true, 32, 2, 1, 0, 64 * K, 0},  {true, 32, 2, 1, 0, 80 * K, 0},
      {true, 32, 2, 1, 64 * K, 0, 0},  {true, 32, 2, 1, 128 * K, 0, 0}, {true, 32, 2, 1, 0, 0, 1},
      {true, 32, 2, 1, 112 * K, 0, 1}, {true, 32, 2, 2, 0, 0, 0},       {true, 32, 2, 2, 0, 64 * K, 0},
      {true, 32, 3, 1, 0, 0, 0},       {true, 32, 3, 1, 0, 32 * K, 0},  {true, 64, 2, 1, 0, 0, 0},
      {true, 64, 2, 1, 0, 32 * K, 0},  {true, 64, 2, 1, 0, 0, 1},       {true, 64, 2, 2, 0, 0, 0},
      {true, 64, 3, 1, 0, 0, 0},       {false, 32, 2, 1, 0, 0, 0},      {false, 32, 2, 1, 0, 64 * K, 0},
      {false, 32, 2, 1, 0, 0, 1},      {false, 32, 2, 1, 64 * K, 0, 0}, {false, 64, 2, 1, 0, 0, 0},
      {false, 64, 2, 1, 0, 0, 1},      {false, 64, 2, 1, 0, 32 * K, 0},
  };

  for (auto& cs : cases) {
    int yb = 128, tiles = (int)(YN / yb), grid = 1;
    cuuint64_t rows = (cuuint64_t)grid * cs.xb;
    TmapT ta = tmap(a, YN, rows, yb, cs.xb), tbm = tmap(b, YN, rows, yb, cs.xb), tcm = tmap(c, YN, rows, yb, cs.xb);
    unsigned tb = cs.xb * yb * 4;
    unsigned smem = 1024 + cs.P + (cs.F ? 0 : cs.Q) + (2 * cs.nlb + cs.nsb) * tb + 8 * (2 * cs.nlb + 2 * cs.nsb);
    int threads = cs.ws ? 256 : 128;
    char name[160];
    snprintf(name, sizeof name, "%s.tile_%dx128.nlb_%d.nsb_%d.P_%d.Q_%d.F_%d", cs.ws ? "warp-specialized" : "tma-pipelined",
             cs.xb, cs.nlb, cs.nsb, cs.P / K, cs.Q / K, cs.F);
    if (smem > 232448) { printf("# skip %s: %u bytes\n", name, smem); continue; }
    int lay3[3] = {cs.P, cs.Q, cs.F};
    CK(cuMemcpyHtoD(glay, lay3, sizeof lay3));
    CUfunction f;
    CK(cuModuleGetFunction(&f, m, cs.ws ? "ew_warp_specialized" : "ew_tma_pipelined"));
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    int nlb = cs.nlb, nsb = cs.nsb, xb = cs.xb;
    void* args[] = {&ta, &tbm, &tcm, &tiles, &nlb, &nsb, &xb, &yb, &times, &err, &st};
    for (int rep = -1; rep < REPS; ++rep) {
      CK(cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, smem, 0, args, nullptr));
      CK(cuCtxSynchronize());
      int herr = 0;
      CK(cuMemcpyDtoH(&herr, err, 4));
      if (herr) { printf("# ERROR timeout %s\n", name); CK(cuMemsetD32(err, 0, 1)); }
      if (rep < 0) continue;
      CK(cuMemcpyDtoH(ht.data(), times, ht.size() * 8));
      unsigned long long s0 = ~0ull, s1 = 0;
      for (int w = 0; w < threads / 32; ++w) {
        s0 = std::min(s0, ht[w * 4]);
        s1 = std::max(s1, ht[w * 4 + 1]);
      }
      printf("%s %d %.0f\n", name, rep, (double)(s1 - s0));
    }
  }
  return 0;
}
