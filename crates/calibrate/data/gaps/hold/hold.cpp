// Host of the hold probe (hold_kernels.cu appended to kernels/stream.cu, NVRTC with the
// collector's options, as stamp3/ew_stamp3.cpp). Output lines:
//   XB PW OP DELAY REP  I1-I0  D-I0  P0-I0  P1-P0
// (cycles; XB 0: no copies). Usage: hold KERNELS_DIR PROBE_KERNELS OUTDIR (cubin written there).
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
  CUmodule m = build(slurp(kdir + "/stream.cu") + "\n" + slurp(argv[2]), "hold", out);
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, "ew_hold"));
  const unsigned long long YN = 4096;
  size_t bytes = 64ull * YN * 4;
  CUdeviceptr a, b, o, err;
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemsetD32(a, 0x3F800000u, bytes / 4));
  CK(cuMemsetD32(b, 0x3F800000u, bytes / 4));
  CK(cuMemAlloc(&o, 64));
  CK(cuMemAlloc(&err, 4));
  CK(cuMemsetD32(err, 0, 1));
  const int REPS = 5;
  int yb = 128;
  for (int xbc : {0, 32, 64}) {
    int xb = xbc ? xbc : 32;
    TmapT ta = tmap(a, YN, 64, yb, xb), tbm = tmap(b, YN, 64, yb, xb);
    unsigned tb = xb * yb * 4;
    unsigned smem = 1024 + 3 * tb + 64;
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    for (int pw : {4, 7})
      for (int op = 0; op < 8; ++op)
        for (int delay = 0; delay <= 1200; delay += 50) {
          if (xbc == 0 && delay > 0) continue;  // no copies: the operation alone, once
          void* args[] = {&ta, &tbm, &xb, &yb, &xbc, &op, &pw, &delay, &o, &err};
          for (int rep = -1; rep < REPS; ++rep) {
            CK(cuMemsetD32(o, 0, 16));
            CK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, smem, 0, args, nullptr));
            CK(cuCtxSynchronize());
            int herr = 0;
            CK(cuMemcpyDtoH(&herr, err, 4));
            if (herr) { printf("# ERROR %d xb %d pw %d op %d delay %d\n", herr, xbc, pw, op, delay); CK(cuMemsetD32(err, 0, 1)); }
            if (rep < 0) continue;  // the first launch warms L2 with the boxes
            unsigned long long h[8];
            CK(cuMemcpyDtoH(h, o, 64));
            long long i0 = (long long)h[0];
            printf("%d %d %d %d %d %lld %lld %lld %lld\n", xbc, pw, op, delay, rep, (long long)h[1] - i0,
                   (long long)h[2] - i0, (long long)h[3] - i0, (long long)(h[4] - h[3]));
          }
        }
  }
  return 0;
}
