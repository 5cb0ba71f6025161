// smsim calibrate, issue 25 (data/gaps/ldsw2/): what a wide shared load's latency is to
// an FADD and to another load's address, and what the streaming kernel's piece costs
// with its address path uniform or vector.
// Part 1, k_use<V, USE, WIDX>: W warps (1, or 4 on the four sub-partitions), each a
// dependent chain of conflict-free shared loads of V words a thread (LDS, LDS.64,
// LDS.128), word WIDX of the load the next address, through USE: 0 nothing (the load's
// register is the next address), 1 one FMUL (x 1.0, a kernel argument: the address
// bits pass unchanged, a denormal, no ftz), 2 two FMULs. The other words are kept live
// off the chain (IADD3), so ptxas keeps the width. Cycles a link = (T(512) - T(256)) /
// 256, medians of 7 launches after a warm-up.
// Part 2, k_piece<MODE>: the validation kernel ew_tma_pipelined's adds (kernels/
// stream.cu: 16 pieces under `if (j < q)`, each two float4 loads from stage s = t % nlb
// and four adds, sums stored as the kernel does) without the copies: clock reads around
// the pieces every tile, summed; per tile = (S(64 tiles) - S(32)) / 32. MODE 0 as the
// kernel (uniform address path), 1 the stage offset made per-thread (+ a loaded zero:
// a vector address path), 2 one load a piece (a + constant), 3 float (LDS.32) pairs.
#include <cstdio>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
typedef unsigned int u32;

__device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
__device__ __forceinline__ u32 clk32() {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}

// p * one as floats, on the bits (one = 1.0, a kernel argument: p unchanged, a denormal,
// no ftz). An FMUL, not an FADD: ptxas folds `add.rn.f32` of a runtime value into the
// load's address as an integer add (`LDS R, [R+UR]`, no FADD left: the first run of this
// kernel, h200-20261128T174506Z, faulted on it); FMUL and FADD are both the FMA pipe's.
__device__ __forceinline__ u32 fmul_bits(u32 p, u32 zf) {
  u32 r;
  asm volatile("{\n\t.reg .f32 a, b;\n\tmov.b32 a, %1;\n\tmov.b32 b, %2;\n\tmul.rn.f32 a, a, b;\n\tmov.b32 %0, a;\n\t}"
               : "=r"(r) : "r"(p), "r"(zf));
  return r;
}

template <int V, int USE, int WIDX>
__global__ void k_use(int iters, u32 zf, u64* out, u32* sink) {
  __shared__ __align__(16) u32 s[4 * 32 * 4];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  u32 a0 = (u32)__cvta_generic_to_shared(&s[w * 128 + lane * V]);
  for (int k = 0; k < V; ++k) s[w * 128 + lane * V + k] = k == WIDX ? a0 : 1u;
  __syncthreads();
  u32 p = a0, acc = 0, x = 0, y = 0, z = 0;
  u64 t0 = clk();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (V == 4) {
        if (WIDX == 0)
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(p), "=r"(x), "=r"(y), "=r"(z)::"memory");
        else
          asm volatile("ld.shared.v4.u32 {%1, %2, %3, %0}, [%0];" : "+r"(p), "=r"(x), "=r"(y), "=r"(z)::"memory");
        acc += x + y + z;
      } else if (V == 2) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(p), "=r"(x)::"memory");
        acc += x;
      } else {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
      }
      if (USE >= 1) p = fmul_bits(p, zf);
      if (USE >= 2) p = fmul_bits(p, zf);
    }
  }
  u64 t1 = clk();
  if (lane == 0) out[w] = t1 - t0;
  if ((acc ^ p) == 0x12345678u) sink[threadIdx.x] = acc;
}

#define NP 16
template <int MODE>
__global__ void __launch_bounds__(128, 1) k_piece(int tiles, int q, int nlb, const int* zero, float cst, u64* out) {
  extern __shared__ __align__(128) unsigned char sm[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const u32 tb = 4 * NP * 512;  // the 64x128 tile: 4 warps x 16 pieces x 512 B
  const u32 oA = 0, oB = tb * nlb, oC = 2 * tb * nlb;
  for (u32 i = threadIdx.x; i < 3 * tb * nlb / 4; i += blockDim.x) ((float*)sm)[i] = (float)(i & 7);
  __syncthreads();
  const int zv = zero[threadIdx.x];
  u32 sum = 0;
  for (int t = 0; t < tiles; ++t) {
    int s = t % nlb;
    if (MODE == 1) s += zv;
    float4 acc[NP];
    u32 c0 = clk32();
#pragma unroll
    for (int j = 0; j < NP; ++j) {
      if (j < q) {
        if (MODE == 3) {
          u32 off = (warp * q + j) * 128 + lane * 4;
          float a = *(const float*)(sm + oA + s * tb + off);
          float b = *(const float*)(sm + oB + s * tb + off);
          acc[j] = make_float4(a + b, 0, 0, 0);
        } else {
          u32 off = (warp * q + j) * 512 + lane * 16;
          float4 a = *(const float4*)(sm + oA + s * tb + off);
          if (MODE == 2) {
            acc[j] = make_float4(a.x + cst, a.y + cst, a.z + cst, a.w + cst);
          } else {
            float4 b = *(const float4*)(sm + oB + s * tb + off);
            acc[j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
          }
        }
      }
    }
    u32 c1 = clk32();
    sum += c1 - c0;
    asm volatile("bar.sync 1, %0;" ::"r"(blockDim.x) : "memory");
#pragma unroll
    for (int j = 0; j < NP; ++j) {
      if (j < q) {
        if (MODE == 3)
          *(float*)(sm + oC + s * tb + (warp * q + j) * 128 + lane * 4) = acc[j].x;
        else
          *(float4*)(sm + oC + s * tb + (warp * q + j) * 512 + lane * 16) = acc[j];
      }
    }
    asm volatile("bar.sync 1, %0;" ::"r"(blockDim.x) : "memory");
  }
  if (lane == 0) out[warp] = sum;
}

static u64* d_out;
static u32* d_sink;
static int* d_zero;

template <int V, int USE, int WIDX>
static void run_use(int warps) {
  auto t = [&](int iters) {
    std::vector<std::vector<u64>> v(warps);
    for (int r = 0; r < 8; ++r) {
      k_use<V, USE, WIDX><<<1, 32 * warps>>>(iters, 0x3f800000u, d_out, d_sink);
      u64 h[4] = {0, 0, 0, 0};
      cudaMemcpy(h, d_out, 8 * warps, cudaMemcpyDeviceToHost);
      if (r > 0)
        for (int w = 0; w < warps; ++w) v[w].push_back(h[w]);
    }
    std::vector<u64> m(warps);
    for (int w = 0; w < warps; ++w) {
      std::sort(v[w].begin(), v[w].end());
      m[w] = v[w][v[w].size() / 2];
    }
    return m;
  };
  auto a = t(32), b = t(64);
  printf("use V %d USE %d WIDX %d warps %d :", V, USE, WIDX, warps);
  for (int w = 0; w < warps; ++w) printf(" w%d %.2f", w, (double)(b[w] - a[w]) / 256.0);
  printf("   (T256 w0 %llu, T512 w0 %llu)\n", a[0], b[0]);
}

template <int MODE>
static void run_piece(int warps, int q, int nlb) {
  const int smem = 3 * 4 * NP * 512 * nlb;
  cudaFuncSetAttribute(k_piece<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  auto t = [&](int tiles) {
    std::vector<std::vector<u64>> v(warps);
    for (int r = 0; r < 8; ++r) {
      cudaMemset(d_out, 0, 8 * 9);
      k_piece<MODE><<<1, 32 * warps, smem>>>(tiles, q, nlb, d_zero, 1.0f, d_out);
      u64 h[9] = {0};
      cudaMemcpy(h, d_out, 8 * 9, cudaMemcpyDeviceToHost);
      if (r > 0)
        for (int w = 0; w < warps; ++w) v[w].push_back(h[w]);
    }
    std::vector<u64> m(warps);
    for (int w = 0; w < warps; ++w) {
      std::sort(v[w].begin(), v[w].end());
      m[w] = v[w][v[w].size() / 2];
    }
    return m;
  };
  auto a = t(32), b = t(64);
  printf("piece MODE %d warps %d q %d nlb %d : adds a tile", MODE, warps, q, nlb);
  for (int w = 0; w < warps; ++w) printf(" w%d %.2f", w, (double)(b[w] - a[w]) / 32.0);
  printf("   (S32 w0 %llu, S64 w0 %llu)\n", a[0], b[0]);
}

int main() {
  cudaMalloc(&d_out, 8 * 16);
  cudaMalloc(&d_sink, 128 * 4);
  cudaMalloc(&d_zero, 1024 * 4);
  cudaMemset(d_zero, 0, 1024 * 4);
  for (int warps = 1; warps <= 4; warps += 3) {
    run_use<1, 0, 0>(warps); run_use<1, 1, 0>(warps); run_use<1, 2, 0>(warps);
    run_use<2, 0, 0>(warps); run_use<2, 1, 0>(warps); run_use<2, 2, 0>(warps);
    run_use<4, 0, 0>(warps); run_use<4, 1, 0>(warps); run_use<4, 2, 0>(warps);
    run_use<4, 0, 3>(warps); run_use<4, 1, 3>(warps);
  }
  for (int warps = 1; warps <= 4; warps += 3)
    for (int q = 8; q <= 16; q += 8) {
      run_piece<0>(warps, q, 2); run_piece<1>(warps, q, 2);
      run_piece<2>(warps, q, 2); run_piece<3>(warps, q, 2);
    }
  cudaError_t e = cudaDeviceSynchronize();
  printf("# %s\n", cudaGetErrorString(e));
  return 0;
}
