// smsim calibrate, issue 25, wshold/queue/: host of the write-queue window probe, run 2
// (box B at bofs: the 64x128 NLB 3 layout; run 1 is qw.cpp)
// (qw_kernels.cu appended to kernels/stream.cu, NVRTC with the collector's options
// --gpu-architecture=sm_90a --std=c++17). From hold/v2/hold2.cpp.
// Output lines: XB NCOPY OP NSTS POFS_KiB FOFS_KiB POLL DELAY REP  I1 D C P0 P1-P0 (I0 = 0:
// cycles after warp 0's clock before the expect_tx; C the copies' completion seen by the
// polling warp, 0 without it)
// Usage: qw KERNELS_DIR PROBE_KERNELS OUTDIR (cubin written there).
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
  CUmodule m = build(slurp(kdir + "/stream.cu") + "\n" + slurp(argv[2]), "qw", out);
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, "qw_probe"));
  const unsigned long long YN = 4096;
  size_t bytes = 64ull * YN * 4;
  CUdeviceptr a, b, o, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  CK(cuMemAlloc(&o, 16 * 8));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  const int yb = 128;
  const unsigned smem = 1024 + 192 * 1024;
  CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  int bofs = 0;
  auto run = [&](int xb, int ncopy, int op, int nsts, int pofs, int fofs, int poll, int delay, int reps) {
    TmapT ta = tmap(a, YN, 64, yb, xb), tbm = tmap(b, YN, 64, yb, xb);
    void* args[] = {&ta, &tbm, (void*)&xb, (void*)&yb, &ncopy, &op, &nsts, &pofs, &fofs, &poll, &bofs, &delay, &o, &err};
    for (int rep = -1; rep < reps; ++rep) {
      CK(cuMemsetD32(o, 0, 32));
      CK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, smem, 0, args, nullptr));
      CK(cuCtxSynchronize());
      int herr = 0;
      CK(cuMemcpyDtoH(&herr, err, 4));
      if (herr) { printf("# ERROR %d xb %d ncopy %d op %d nsts %d pofs %d fofs %d poll %d delay %d\n", herr, xb, ncopy, op, nsts, pofs, fofs, poll, delay); CK(cuMemsetD32(err, 0, 1)); }
      if (rep < 0) continue;  // the first launch warms L2 with the boxes
      unsigned long long h[16];
      CK(cuMemcpyDtoH(h, o, 16 * 8));
      long long i0 = (long long)h[0];
      printf("%d %d %d %d %d %d %d %d %d %lld %lld %lld %lld %lld\n", xb + 1000 * (bofs / 1024), ncopy, op, nsts, pofs / 1024, fofs / 1024, poll, delay, rep,
             (long long)h[1] - i0, (long long)h[2] - i0, poll ? (long long)h[3] - i0 : 0ll, (long long)h[4] - i0, (long long)(h[5] - h[4]));
    }
  };
  const int K = 1024;
  // Run 2 (wshold/queue/ item 3): box B in the other half (bofs 128 KiB), as the 64x128
  // NLB 3 kernel's B stages at 128 and 160 KiB beside its store buffer; the probe beside B
  // (160 KiB) or beside A (48 KiB). XB printed as xb + 1000 x bofs in KiB.
  for (int xb : {32, 64}) {
    bofs = 128 * K;
    run(xb, 2, 0, 0, 48 * K, 176 * K, 0, 0, 15);
    run(xb, 2, 0, 0, 48 * K, 176 * K, 1, 0, 15);
    for (int op : {3, 4})
      for (int pofs : {48 * K, 160 * K}) {
        for (int delay = 0; delay <= 1400; delay += 20) run(xb, 2, op, 8, pofs, 176 * K, 0, delay, 5);
        for (int delay = 0; delay <= 1200; delay += 400) run(xb, 0, op, 8, pofs, 176 * K, 0, delay, 5);
      }
    // 16 STS.128 a warp as the 64x128 kernel's (op 2 with nsts 8 is 8; op 3 is 8: the
    // nearest is op 3 here)
  }
  bofs = 0;
  return 0;
}
