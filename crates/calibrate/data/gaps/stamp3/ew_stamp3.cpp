// smsim calibrate, issue 25 (third stamp run: ew_stamp3_kernels.cu; ws also *_stw, a watcher warp): the TMA-streaming validation kernels compiled as the collector
// compiles them (NVRTC, --gpu-architecture=sm_90a --std=c++17): kernels/stream.cu alone
// (the validation kernels, whose SASS the twins follow) and with the stamped kernels of
// ew_stamp_nvrtc_kernels.cu (tiles 12 and 13, stamps in registers). Output lines:
//   CASE-plain REP span            the validation kernel's CTA span (as the collector)
//   CASE-stamped REP span
//   CASE REP CTA WARP TILE K CLOCK  (32-bit %clock, tile 12 or 13)
// Usage: ew_stamp_nvrtc KERNELS_DIR STAMP_KERNELS OUTDIR (cubins written there).
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
  CUmodule stamped = build(stream + "\n" + slurp(argv[2]), "validation_stream_stamped", out);
  const unsigned long long YN = 4096;
  const int REPS = 5;
  size_t bytes = 8ull * 64 * YN * 4;
  CUdeviceptr a, b, c, times, st, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemAlloc(&c, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  CK(cuMemAlloc(&times, 8 * 64 * 8));
  size_t stn = 8 * 12 * 32;  // u32
  CK(cuMemAlloc(&st, stn * 4));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  std::vector<unsigned> hst(stn);
  std::vector<unsigned long long> ht(8 * 64);
  struct Case { const char* sched; int xb, nlb, nsb, grid; };
  std::vector<Case> cases;
  for (int grid : {1, 8})
    for (const char* sc : {"tma-pipelined", "warp-specialized"})
      for (int xb : {32, 64})
        for (int nsb : {1, 2}) {
          if (grid == 8 && (nsb == 2 || xb == 64)) continue;
          cases.push_back({sc, xb, 2, nsb, grid});
        }
  for (auto& cs : cases) {
    int yb = 128, tiles = (int)(YN / yb);
    cuuint64_t rows = (cuuint64_t)cs.grid * cs.xb;
    TmapT ta = tmap(a, YN, rows, yb, cs.xb), tbm = tmap(b, YN, rows, yb, cs.xb), tcm = tmap(c, YN, rows, yb, cs.xb);
    unsigned tb = cs.xb * yb * 4;
    unsigned smem = 1024 + (2 * cs.nlb + cs.nsb) * tb + 8 * (2 * cs.nlb + 2 * cs.nsb);
    bool ws = cs.sched[0] == 'w';
    int threads = ws ? 256 : 128;
    char name[96];
    snprintf(name, sizeof name, "%s.tile_%dx128.nlb_%d.nsb_%d.grid_%d", cs.sched, cs.xb, cs.nlb, cs.nsb, cs.grid);
    for (int s = 0; s < (ws ? 3 : 2); ++s) {
      CUfunction f;
      std::string fn = std::string(ws ? "ew_warp_specialized" : "ew_tma_pipelined") + (s == 1 ? "_st" : s == 2 ? "_stw" : "");
      CK(cuModuleGetFunction(&f, s ? stamped : plain, fn.c_str()));
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
            for (int w = 0; w < threads / 32; ++w)
              for (int q = 0; q < 32; ++q) {
                unsigned v = hst[((size_t)k * 12 + w) * 32 + q];
                if (v && q != 31) printf("%s%s %d %d %d %d %d %u\n", name, s == 2 ? "-w" : "", rep, k, w, 12 + q / 16, q % 16, v);
              }
        }
        std::sort(spans.begin(), spans.end());
        printf("%s-%s %d %.0f\n", name, s == 2 ? "watched" : s ? "stamped" : "plain", rep, spans[spans.size() / 2]);
      }
    }
  }
  return 0;
}
