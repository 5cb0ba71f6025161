// L2 pointer-chase latency per SM: does the L2 latency depend on which SM asks?
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#define CK(x) do{cudaError_t e=(x); if(e){printf("err %s line %d\n",cudaGetErrorString(e),__LINE__); exit(1);}}while(0)
__global__ void chase(const unsigned* __restrict__ next, unsigned steps, int target, unsigned long long* out, unsigned* sink){
  if (threadIdx.x != 0) return;
  unsigned smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (target >= 0 && (int)smid != target) return;
  unsigned p = (blockIdx.x * 977u) % 32768u * 32u;
  for (unsigned i = 0; i < 512; ++i) { asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(next + p)); }
  long long t0 = clock64();
  for (unsigned i = 0; i < steps; ++i) { asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(next + p)); }
  long long t1 = clock64();
  out[2*blockIdx.x] = smid; out[2*blockIdx.x+1] = (unsigned long long)(t1 - t0);
  if (p == 0xffffffff) sink[0] = p;
}
int main(){
  const unsigned lines = 32768; // 4 MiB at 128 B
  std::vector<unsigned> perm(lines); for (unsigned i=0;i<lines;++i) perm[i]=i;
  std::mt19937 rng(7); std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<unsigned> next(lines*32, 0);
  for (unsigned i=0;i<lines;++i) next[perm[i]*32] = perm[(i+1)%lines]*32;
  unsigned *d; unsigned long long* o; unsigned* s;
  CK(cudaMalloc(&d, next.size()*4)); CK(cudaMemcpy(d, next.data(), next.size()*4, cudaMemcpyHostToDevice));
  int nsm; cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
  int grid = nsm * 2;
  CK(cudaMalloc(&o, grid*16)); CK(cudaMalloc(&s, 4));
  const unsigned steps = 4096;
  std::vector<unsigned long long> h(grid*2);
  // warm L2
  chase<<<grid,32>>>(d, steps, -1, o, s); CK(cudaDeviceSynchronize());
  // concurrent: every CTA chases at once (light load: one load in flight per CTA)
  for (int rep=0; rep<3; ++rep){
    CK(cudaMemset(o, 0, grid*16));
    chase<<<grid,32>>>(d, steps, -1, o, s); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), o, grid*16, cudaMemcpyDeviceToHost));
    for (int b=0;b<grid;++b) printf("conc %d %llu %.2f\n", rep, h[2*b], h[2*b+1]/(double)steps);
  }
  // alone: one SM at a time
  for (int t=0; t<nsm; ++t){
    CK(cudaMemset(o, 0, grid*16));
    chase<<<grid,32>>>(d, steps, t, o, s); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), o, grid*16, cudaMemcpyDeviceToHost));
    for (int b=0;b<grid;++b) if (h[2*b+1]) { printf("alone %d %llu %.2f\n", t, h[2*b], h[2*b+1]/(double)steps); break; }
  }
  // a one-CTA launch: which SM does it land on?
  for (int rep=0; rep<5; ++rep){
    CK(cudaMemset(o, 0, grid*16));
    chase<<<1,32>>>(d, steps, -1, o, s); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), o, 16, cudaMemcpyDeviceToHost));
    printf("single %d %llu %.2f\n", rep, h[0], h[1]/(double)steps);
  }
  return 0;
}
