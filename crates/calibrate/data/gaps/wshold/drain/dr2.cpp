// smsim calibrate, issue 25, wshold/drain/: host of the write-queue drain probe, run 2
// (dr2_kernels.cu appended to kernels/stream.cu, NVRTC with the collector's options
// --gpu-architecture=sm_90a --std=c++17). From wshold/queue/qw2.cpp.
// Output lines: NCOPY BDELAY NSTS RD POFS_KiB DELAY POLL REP  IB I1 D C  then for warps
// 4..7: P0 SE R; every time in cycles after I0 (warp 0's clock before the expect_tx); IB 0
// without box B, C 0 without the poller, P0 SE R 0 with nsts 0.
// Usage: dr2 KERNELS_DIR PROBE_KERNELS OUTDIR (cubin written there).
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUmodule m = build(slurp(kdir + "/stream.cu") + "\n" + slurp(argv[2]), "dr2", out);
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, "dr2_probe"));
  const unsigned long long YN = 4096;
  size_t bytes = 64ull * YN * 4;
  CUdeviceptr a, b, o, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  const int NO = 8 + 4 * 4;
  CK(cuMemAlloc(&o, NO * 8));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  const int yb = 128, xb = 64;
  const unsigned smem = 1024 + 192 * 1024;
  CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  TmapT ta = tmap(a, YN, 64, yb, xb), tbm = tmap(b, YN, 64, yb, xb);
  int xbv = xb, ybv = yb;
  auto run = [&](int ncopy, int bdelay, int nsts, int rd, int pofs, int delay, int poll, int reps) {
    void* args[] = {&ta, &tbm, &xbv, &ybv, &ncopy, &bdelay, &nsts, &rd, &pofs, &delay, &poll, &o, &err};
    for (int rep = -1; rep < reps; ++rep) {
      CK(cuMemsetD32(o, 0, NO * 2));
      CK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, smem, 0, args, nullptr));
      CK(cuCtxSynchronize());
      int herr = 0;
      CK(cuMemcpyDtoH(&herr, err, 4));
      if (herr) { printf("# ERROR %d ncopy %d bdelay %d nsts %d rd %d pofs %d delay %d poll %d\n", herr, ncopy, bdelay, nsts, rd, pofs, delay, poll); CK(cuMemsetD32(err, 0, 1)); }
      if (rep < 0) continue;  // the first launch warms L2 with the boxes
      unsigned long long h[NO];
      CK(cuMemcpyDtoH(h, o, NO * 8));
      long long i0 = (long long)h[0];
      auto rel = [&](unsigned long long t) { return t ? (long long)t - i0 : 0ll; };
      printf("%d %d %d %d %d %d %d %d  %lld %lld %lld %lld", ncopy, bdelay, nsts, rd, pofs / 1024, delay, poll, rep, rel(h[1]), rel(h[2]), rel(h[3]), rel(h[4]));
      for (int w = 0; w < 4; ++w) printf("  %lld %lld %lld", rel(h[8 + 4 * w]), rel(h[9 + 4 * w]), rel(h[10 + 4 * w]));
      printf("\n");
    }
  };
  const int K = 1024;
  // 0. the copies' completion alone (poller, no STS): A; A and B with B at 0/200/400
  run(1, 0, 0, 0, 48 * K, 0, 1, 15);
  for (int bdelay : {0, 200, 400}) run(2, bdelay, 0, 0, 48 * K, 0, 1, 15);
  // 1. beside A (48 KiB), A alone and no copy
  for (int nsts : {1, 4, 16})
    for (int rd : {0, 1, 2}) {
      for (int delay = 0; delay <= 800; delay += 25) run(1, 0, nsts, rd, 48 * K, delay, 0, 5);
      for (int delay : {0, 300, 600}) run(0, 0, nsts, rd, 48 * K, delay, 0, 5);
    }
  // 2. beside B (160 KiB), B issued 0 / 200 / 400 after A's start
  for (int bdelay : {0, 200, 400})
    for (int nsts : {1, 16})
      for (int rd : {1, 2})
        for (int delay = 0; delay <= 1200; delay += 40) run(2, bdelay, nsts, rd, 160 * K, delay, 0, 5);
  for (int nsts : {1, 16})
    for (int rd : {1, 2})
      for (int delay : {0, 600, 1200}) run(0, 0, nsts, rd, 160 * K, delay, 0, 5);
  return 0;
}
