// gaps/stsissue (issue 25): is predsts/'s 8.25 cycles a real STS.128 an issue cost, or
// the wait of a later instruction that overwrites the STS's source registers (STS sets a
// read scoreboard, SB1 in predsts/'s SASS, and ptxas makes the next writer of R7 wait on
// it)? W warps (warp w on sub-partition w % 4), 64 iterations each of: clock, 16 STS,
// clock, __threadfence_block, clock. Kernels:
//   slots    predsts/'s kernel (16 slots `if (j < q)` of one float4 rewritten between)
//   distinct 16 slots `if (j < q)` of 16 float4 loaded before the loop, never rewritten
//   chain    16 STS.128 of v, each followed by v.x += 1 (a write to a stored register)
//   chain32  16 STS.32 of x, each followed by x += 1
//   chain64  16 STS.64 of (x, y), each followed by x += 1
// Printed per (kernel, W, q): medians over warps and iterations 4.. of the 16 stores'
// window (first to second clock) and of the fence (second to third), with p10 and p90.
#include <cstdio>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;
__device__ __forceinline__ u64 clk() { u64 c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory"); return c; }
#define REC(i) if (lane == 0) { out[(warp * iters + i) * 2] = t1 - t0; out[(warp * iters + i) * 2 + 1] = t2 - t1; }

extern "C" __global__ void __launch_bounds__(512, 1) k_slots(int q, int iters, u64* out, const float4* in) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float4 v = make_float4(lane, warp, q, 1.f);
  unsigned char* base = sm + warp * 8192;
  for (int i = 0; i < iters; ++i) {
    u64 t0 = clk();
#pragma unroll
    for (int j = 0; j < 16; ++j)
      if (j < q) *(float4*)(base + j * 512 + lane * 16) = v;
    u64 t1 = clk();
    __threadfence_block();
    u64 t2 = clk();
    REC(i)
    v.x += 1.f;
  }
}

extern "C" __global__ void __launch_bounds__(512, 1) k_distinct(int q, int iters, u64* out, const float4* in) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned char* base = sm + warp * 8192;
  float4 v[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) v[j] = in[j * 32 + lane];
  // untimed: every value arrived (each STS waits for its load) before the first clock
#pragma unroll
  for (int j = 0; j < 16; ++j) *(float4*)(base + j * 512 + lane * 16) = v[j];
  __syncwarp();
  for (int i = 0; i < iters; ++i) {
    u64 t0 = clk();
#pragma unroll
    for (int j = 0; j < 16; ++j)
      if (j < q) *(float4*)(base + j * 512 + lane * 16) = v[j];
    u64 t1 = clk();
    __threadfence_block();
    u64 t2 = clk();
    REC(i)
  }
}

extern "C" __global__ void __launch_bounds__(512, 1) k_chain(int q, int iters, u64* out, const float4* in) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float4 v = make_float4(lane, warp, q, 1.f);
  unsigned char* base = sm + warp * 8192;
  for (int i = 0; i < iters; ++i) {
    u64 t0 = clk();
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      *(float4*)(base + j * 512 + lane * 16) = v;
      v.x += 1.f;
    }
    u64 t1 = clk();
    __threadfence_block();
    u64 t2 = clk();
    REC(i)
  }
  if (v.x == -1.f) out[0] = 0;
}

extern "C" __global__ void __launch_bounds__(512, 1) k_chain32(int q, int iters, u64* out, const float4* in) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float x = lane + q;
  unsigned char* base = sm + warp * 8192;
  for (int i = 0; i < iters; ++i) {
    u64 t0 = clk();
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      *(float*)(base + j * 128 + lane * 4) = x;
      x += 1.f;
    }
    u64 t1 = clk();
    __threadfence_block();
    u64 t2 = clk();
    REC(i)
  }
  if (x == -1.f) out[0] = 0;
}

extern "C" __global__ void __launch_bounds__(512, 1) k_chain64(int q, int iters, u64* out, const float4* in) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float2 v = make_float2(lane + q, warp);
  unsigned char* base = sm + warp * 8192;
  for (int i = 0; i < iters; ++i) {
    u64 t0 = clk();
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      *(float2*)(base + j * 256 + lane * 8) = v;
      v.x += 1.f;
    }
    u64 t1 = clk();
    __threadfence_block();
    u64 t2 = clk();
    REC(i)
  }
  if (v.x == -1.f) out[0] = 0;
}

typedef void (*Kern)(int, int, u64*, const float4*);

int main() {
  const int iters = 64;
  u64* d;
  float4* in;
  cudaMalloc(&d, 16 * iters * 2 * sizeof(u64));
  cudaMalloc(&in, 16 * 32 * sizeof(float4));
  cudaMemset(in, 0, 16 * 32 * sizeof(float4));
  struct { const char* name; Kern k; std::vector<int> qs; } ks[] = {
      {"slots", k_slots, {0, 8, 16}},
      {"distinct", k_distinct, {0, 8, 16}},
      {"chain", k_chain, {16}},
      {"chain32", k_chain32, {16}},
      {"chain64", k_chain64, {16}},
  };
  for (auto& K : ks) {
    cudaFuncSetAttribute(K.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 16 * 8192);
    for (int w : {1, 2, 4, 8, 16})
      for (int q : K.qs) {
        std::vector<u64> h(16 * iters * 2);
        for (int rep = 0; rep < 3; ++rep) K.k<<<1, 32 * w, w * 8192>>>(q, iters, d, in);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("# error %s\n", cudaGetErrorString(e)); return 1; }
        cudaMemcpy(h.data(), d, h.size() * sizeof(u64), cudaMemcpyDeviceToHost);
        std::vector<u64> a, b;
        for (int x = 0; x < w; ++x)
          for (int i = 4; i < iters; ++i) { a.push_back(h[(x * iters + i) * 2]); b.push_back(h[(x * iters + i) * 2 + 1]); }
        std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
        printf("%-8s warps %2d q %2d window %llu (p10 %llu p90 %llu) fence %llu (p10 %llu p90 %llu)\n", K.name, w, q,
               a[a.size() / 2], a[a.size() / 10], a[a.size() * 9 / 10], b[b.size() / 2], b[b.size() / 10],
               b[b.size() * 9 / 10]);
      }
  }
  return 0;
}
