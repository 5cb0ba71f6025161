// smsim calibrate, issue 25 (data/gaps/ldsw/): the latency of a wide shared load. W warps
// (1 or 4, one per sub-partition), each a dependent chain of conflict-free shared loads
// of V 32-bit words per thread (ld.shared.u32 / .v2 / .v4: LDS, LDS.64, LDS.128), the
// loaded word the next address (no instruction between); PAIR 1: two such chains
// interleaved (two loads back to back, each waiting for its own previous one), as the
// streaming kernel's pieces issue their LDS.128 pair. Printed per warp: cycles per link,
// (T(512 links) - T(256)) / 256, medians of 7 launches after a warm-up.
// Build: nvcc -O3 -arch=sm_90a -o /tmp/ldsw ldsw.cu
#include <cstdio>
#include <vector>
#include <algorithm>
typedef unsigned long long u64;

__device__ __forceinline__ u64 clk() {
  u64 c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

template <int V, int PAIR>
__global__ void k_chase(int iters, u64* out, unsigned* sink) {
  __shared__ __align__(16) unsigned s[2 * 32 * 4 * 4];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  // each warp's own 512-byte slots (two per warp for the pair), each word the slot's address
  for (int k = 0; k < V; ++k) {
    unsigned a0 = (unsigned)__cvta_generic_to_shared(&s[(2 * w) * 128 + lane * V]);
    unsigned a1 = (unsigned)__cvta_generic_to_shared(&s[(2 * w + 1) * 128 + lane * V]);
    s[(2 * w) * 128 + lane * V + k] = a0;
    s[(2 * w + 1) * 128 + lane * V + k] = a1;
  }
  __syncthreads();
  unsigned p = (unsigned)__cvta_generic_to_shared(&s[(2 * w) * 128 + lane * V]);
  unsigned q = (unsigned)__cvta_generic_to_shared(&s[(2 * w + 1) * 128 + lane * V]);
  unsigned x = 0, y = 0, z = 0, e = 0, f = 0, g = 0;
  u64 t0 = clk();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (V == 4) {
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(p), "=r"(x), "=r"(y), "=r"(z)::"memory");
        if (PAIR) asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(q), "=r"(e), "=r"(f), "=r"(g)::"memory");
      } else if (V == 2) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(p), "=r"(x)::"memory");
        if (PAIR) asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(q), "=r"(e)::"memory");
      } else {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
        if (PAIR) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(q)::"memory");
      }
    }
  }
  u64 t1 = clk();
  if (lane == 0) out[w] = t1 - t0;
  if ((x ^ y ^ z ^ e ^ f ^ g ^ p ^ q) == 0x12345678u) sink[threadIdx.x] = x;
}

static u64* d_out;
static unsigned* d_sink;
template <int V, int PAIR>
static void run(int warps) {
  auto t = [&](int iters) {
    std::vector<std::vector<u64>> v(warps);
    for (int r = 0; r < 8; ++r) {
      k_chase<V, PAIR><<<1, 32 * warps>>>(iters, d_out, d_sink);
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
  // 8 links an iteration: 32 and 64 iterations are 256 and 512 links
  auto a = t(32), b = t(64);
  printf("chase V %d pair %d warps %d :", V, PAIR, warps);
  for (int w = 0; w < warps; ++w) printf(" w%d %.2f", w, (double)(b[w] - a[w]) / 256.0);
  printf("   (T256 w0 %llu, T512 w0 %llu)\n", a[0], b[0]);
}

// Run 2: every component of every load kept (an IADD3 chain off the critical path), so
// that ptxas keeps each link at its width (run 1's chains were narrowed to LDS.32 but
// the last of each 8, whose 32-bit loads then read at a 16- or 8-byte lane stride); lane
// stride S words, so LDS.32 at S 2 and 4 has 2- and 4-way bank conflicts.
template <int V, int S, int PAIR>
__global__ void k_wide(int iters, u64* out, unsigned* sink) {
  __shared__ __align__(16) unsigned s[2 * 32 * 4 * 4];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int k = 0; k < V; ++k) {
    unsigned a0 = (unsigned)__cvta_generic_to_shared(&s[(2 * w) * 128 + lane * S]);
    unsigned a1 = (unsigned)__cvta_generic_to_shared(&s[(2 * w + 1) * 128 + lane * S]);
    s[(2 * w) * 128 + lane * S + k] = k == 0 ? a0 : 1u;
    s[(2 * w + 1) * 128 + lane * S + k] = k == 0 ? a1 : 1u;
  }
  __syncthreads();
  unsigned p = (unsigned)__cvta_generic_to_shared(&s[(2 * w) * 128 + lane * S]);
  unsigned q = (unsigned)__cvta_generic_to_shared(&s[(2 * w + 1) * 128 + lane * S]);
  unsigned acc = 0, x, y, z;
  u64 t0 = clk();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (V == 4) {
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(p), "=r"(x), "=r"(y), "=r"(z)::"memory");
        acc += x + y + z;
        if (PAIR) {
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(q), "=r"(x), "=r"(y), "=r"(z)::"memory");
          acc += x + y + z;
        }
      } else if (V == 2) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(p), "=r"(x)::"memory");
        acc += x;
        if (PAIR) {
          asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(q), "=r"(x)::"memory");
          acc += x;
        }
      } else {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
        if (PAIR) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(q)::"memory");
      }
    }
  }
  u64 t1 = clk();
  if (lane == 0) out[w] = t1 - t0;
  if ((acc ^ p ^ q) == 0x12345678u) sink[threadIdx.x] = acc;
}

template <int V, int S, int PAIR>
static void run2(int warps) {
  auto t = [&](int iters) {
    std::vector<std::vector<u64>> v(warps);
    for (int r = 0; r < 8; ++r) {
      k_wide<V, S, PAIR><<<1, 32 * warps>>>(iters, d_out, d_sink);
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
  printf("wide V %d S %d pair %d warps %d :", V, S, PAIR, warps);
  for (int w = 0; w < warps; ++w) printf(" w%d %.2f", w, (double)(b[w] - a[w]) / 256.0);
  printf("   (T256 w0 %llu, T512 w0 %llu)\n", a[0], b[0]);
}

int main() {
  cudaMalloc(&d_out, 8 * 4);
  cudaMalloc(&d_sink, 128 * 4);
  for (int warps = 1; warps <= 4; warps += 3) {
    run<1, 0>(warps); run<2, 0>(warps); run<4, 0>(warps);
    run<1, 1>(warps); run<2, 1>(warps); run<4, 1>(warps);
  }
  for (int warps = 1; warps <= 4; warps += 3) {
    run2<1, 1, 0>(warps); run2<1, 2, 0>(warps); run2<1, 4, 0>(warps);
    run2<2, 2, 0>(warps); run2<4, 4, 0>(warps); run2<4, 4, 1>(warps); run2<2, 2, 1>(warps);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("# %s\n", cudaGetErrorString(e));
  return 0;
}
