// smsim calibrate, issue 25, wshold/drain/: host of the write-queue drain probe
// (dr_kernels.cu appended to kernels/stream.cu, NVRTC with the collector's options
// --gpu-architecture=sm_90a --std=c++17). From wshold/queue/qw2.cpp.
// Output lines: NCOPY BDELAY NSTS RD POFS_KiB DELAY REP  IB I1 D  then for warps 4..7:
// P0 S_0..S_{n-1} SE R_0..R_{n-1} END (rd 2: one R, the fence's end); every time in cycles
// after I0 (warp 0's clock before the expect_tx); IB 0 without box B.
// Usage: dr KERNELS_DIR PROBE_KERNELS OUTDIR (cubin written there).
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
  CUmodule m = build(slurp(kdir + "/stream.cu") + "\n" + slurp(argv[2]), "dr", out);
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, "dr_probe"));
  const unsigned long long YN = 4096;
  size_t bytes = 64ull * YN * 4;
  CUdeviceptr a, b, o, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  const int NO = 8 + 40 * 4;
  CK(cuMemAlloc(&o, NO * 8));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  const int yb = 128, xb = 64;
  const unsigned smem = 1024 + 192 * 1024;
  CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  TmapT ta = tmap(a, YN, 64, yb, xb), tbm = tmap(b, YN, 64, yb, xb);
  int xbv = xb, ybv = yb;
  auto run = [&](int ncopy, int bdelay, int nsts, int rd, int pofs, int delay, int reps) {
    void* args[] = {&ta, &tbm, &xbv, &ybv, &ncopy, &bdelay, &nsts, &rd, &pofs, &delay, &o, &err};
    for (int rep = -1; rep < reps; ++rep) {
      CK(cuMemsetD32(o, 0, NO * 2));
      CK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, smem, 0, args, nullptr));
      CK(cuCtxSynchronize());
      int herr = 0;
      CK(cuMemcpyDtoH(&herr, err, 4));
      if (herr) { printf("# ERROR %d ncopy %d bdelay %d nsts %d rd %d pofs %d delay %d\n", herr, ncopy, bdelay, nsts, rd, pofs, delay); CK(cuMemsetD32(err, 0, 1)); }
      if (rep < 0) continue;  // the first launch warms L2 with the boxes
      unsigned long long h[NO];
      CK(cuMemcpyDtoH(h, o, NO * 8));
      long long i0 = (long long)h[0];
      auto rel = [&](unsigned long long t) { return t ? (long long)t - i0 : 0ll; };
      printf("%d %d %d %d %d %d %d  %lld %lld %lld", ncopy, bdelay, nsts, rd, pofs / 1024, delay, rep, rel(h[1]), rel(h[2]), rel(h[3]));
      int nr = rd == 2 ? 1 : nsts;
      for (int w = 0; w < 4; ++w) {
        const unsigned long long* q = h + 8 + 40 * w;
        printf("  %lld", rel(q[0]));
        for (int j = 0; j < nsts; ++j) printf(" %lld", rel(q[1 + j]));
        printf(" %lld", rel(q[17]));
        for (int j = 0; j < nr; ++j) printf(" %lld", rel(q[18 + j]));
        printf(" %lld", rel(q[34]));
      }
      printf("\n");
    }
  };
  const int K = 1024;
  // 1. beside box A in its half (pofs 48 KiB), alone (ncopy 1) and without a copy (0)
  for (int nsts : {1, 4, 16})
    for (int rd : {0, 1, 2}) {
      for (int delay = 0; delay <= 600; delay += 50) run(1, 0, nsts, rd, 48 * K, delay, 5);
      for (int delay : {0, 200, 400}) run(0, 0, nsts, rd, 48 * K, delay, 5);
    }
  // 2. box B in the other half issued bdelay after A's start: the STS beside B (160 KiB)
  for (int bdelay : {0, 100, 200})
    for (int nsts : {1, 16})
      for (int rd : {0, 2})
        for (int delay = 0; delay <= 1000; delay += 40) run(2, bdelay, nsts, rd, 160 * K, delay, 5);
  for (int nsts : {1, 16})
    for (int rd : {0, 2}) {
      for (int delay : {0, 200, 400, 600, 800}) run(1, 0, nsts, rd, 160 * K, delay, 5);  // B absent
      for (int delay : {0, 400, 800}) run(0, 0, nsts, rd, 160 * K, delay, 5);
    }
  // 3. with B, the STS beside A (48 KiB): does B's issue move A's hold
  for (int bdelay : {0, 200})
    for (int delay = 0; delay <= 600; delay += 50) run(2, bdelay, 16, 0, 48 * K, delay, 5);
  return 0;
}
