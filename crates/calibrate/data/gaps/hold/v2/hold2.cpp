// Host of the second hold probe (v2/hold2_kernels.cu appended to kernels/stream.cu, NVRTC
// with the collector's options). Output lines (cycles, relative to warp 0's I0):
//   XB OP NW NSTS WAITER DELAY REP  I1  D  WAKE  P0_0 DUR_0 [P0_i DUR_i ...]
// Usage: hold2 KERNELS_DIR PROBE_KERNELS OUTDIR (cubin written there).
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
  CUmodule m = build(slurp(kdir + "/stream.cu") + "\n" + slurp(argv[2]), "hold2", out);
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, "ew_hold2"));
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
  const int REPS = 5;
  int yb = 128;
  for (int xb : {32, 64}) {
    TmapT ta = tmap(a, YN, 64, yb, xb), tbm = tmap(b, YN, 64, yb, xb);
    unsigned tb = xb * yb * 4;
    // C region: 4 warps x 8 KiB (16 STS.128 each) beyond the two load buffers
    unsigned ctile = tb > 32768 ? tb : 32768;
    unsigned smem = 1024 + 2 * tb + ctile + 64;
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    for (int op : {3, 7, 8, 9})
      for (int nw : {1, 4})
        for (int nsts : {8, 16})
          for (int waiter : {0, 1})
            for (int delay = 0; delay <= 1200; delay += 50) {
              if (op == 8 && nsts == 16) continue;  // no STS: one row
              if (op == 7 && waiter) continue;      // no arrive: nothing to wait for
              void* args[] = {&ta, &tbm, &xb, &yb, &op, &nw, &nsts, &waiter, &delay, &o, &err};
              for (int rep = -1; rep < REPS; ++rep) {
                CK(cuMemsetD32(o, 0, 32));
                CK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, smem, 0, args, nullptr));
                CK(cuCtxSynchronize());
                int herr = 0;
                CK(cuMemcpyDtoH(&herr, err, 4));
                if (herr) { printf("# ERROR %d xb %d op %d nw %d nsts %d waiter %d delay %d\n", herr, xb, op, nw, nsts, waiter, delay); CK(cuMemsetD32(err, 0, 1)); }
                if (rep < 0) continue;  // the first launch warms L2 with the boxes
                unsigned long long h[16];
                CK(cuMemcpyDtoH(h, o, 16 * 8));
                long long i0 = (long long)h[0];
                printf("%d %d %d %d %d %d %d %lld %lld %lld", xb, op, nw, nsts, waiter, delay, rep, (long long)h[1] - i0,
                       (long long)h[2] - i0, waiter ? (long long)h[12] - i0 : 0ll);
                for (int i = 0; i < nw; ++i)
                  printf(" %lld %lld", (long long)h[3 + 2 * i] - i0, (long long)(h[4 + 2 * i] - h[3 + 2 * i]));
                printf("\n");
              }
            }
  }
  return 0;
}
