// smsim issue 25 (branch lockstep): what 132 SMs reading the same L2 lines at the same
// moment cost, in isolation. The chip stream of chip.cu / gemm_l2's chip4.cu (one thread
// per CTA keeping S tensor copies in flight), every timed launch after a launch of itself
// (the gemm validation kernels' protocol, gemm_l2 fm1), with:
//   mode 0: the CTA's own 128 rows from HBM (16 KiB boxes of 128-byte rows; baseline),
//   mode 1: only the tile every CTA reads (the b_shared B tile: 256 rows of 128 bytes,
//           8 KiB apart, a new 128-byte column every k-step; 2 MiB in all, warm in L2),
//   mode 2: own rows then the tile on one mbarrier (the b_shared gemm's stage),
//   mode 3: only a contiguous tile (32 KiB of consecutive lines, a new 32 KiB every
//           k-step: bw.tma.l2.chip.same_data's layout),
//   mode 4: own rows then the contiguous tile,
//   mode 5: the tile first, then own rows (the a_shared gemm's stage: a 16 KiB tile of 128
//           rows, own boxes of 256 rows, 32 KiB),
//   mode 6: mode 2 with the own rows' column j mod 8 (own lines in L2 after the launch
//           before: the b_shared_k1024 gemm, whose A panels are in L2),
//   mode 7: own boxes of 256 rows (32 KiB), column j mod 8, no tile: own lines that hit
//           in L2 (branch hbmshare: do gaps between copies buy L2 hits what they buy
//           lines from HBM?).
// `./lockstep OUTDIR 2` runs the second set of cases (run_lockstep.sh OUT 2), `3` the
// third (branch hbmshare: own copies from HBM and from L2 with gaps between them).
// rot 0: at k-step j every CTA reads the tile's slab j (same lines at the same program
// point); rot 1: CTA c reads slab (j + c) mod 64 (the same bytes in another order).
// sync 1: the CTAs leave a grid barrier (an atomic counter) together before the first
// copy; sync 0: they start as the launch places them.
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o lockstep lockstep.cu -lcuda
// Run: ./lockstep OUTDIR (writes stream.jsonl, per_kstep.csv; prints a summary).
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
#define DEV static __device__ __forceinline__
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
DEV u64 clk() { u64 c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory"); return c; }
DEV u64 gtime() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory"); return t; }
DEV u32 smid() { u32 r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
DEV u32 smaddr(const void* p) {
  u32 r;
  asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(r) : "l"(p));
  return r;
}
DEV void tma_2d(u32 dst, const CUtensorMap* tm, int x, int y, u32 bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(dst), "l"((u64)tm), "r"(x), "r"(y), "r"(bar) : "memory");
}
DEV void expect(u32 b, u32 n) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(b), "r"(n) : "memory");
}
DEV u32 mbar_try(u32 bar, u32 parity) {
  u32 ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\tselp.u32 %0, 1, 0, P;\n\t}"
               : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}

#define SHARED0 33792
#define SLABS 64
#define KSTEPS 64
// Per CTA: issue clock, done clock, done globaltimer per k-step; then c0, c1, g0, g1, smid.
#define REC (3 * KSTEPS + 5)
extern "C" __global__ void __launch_bounds__(32, 1) tma_lock(const __grid_constant__ CUtensorMap mp, const __grid_constant__ CUtensorMap mq,
                                                           const __grid_constant__ CUtensorMap mf, int p_rows, int q_rows, int stages, int mode,
                                                           int rot, int sync, int think, u32* ctr, u64* rec, int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) u64 bars[8];
  if (threadIdx.x != 0) return;
  u32 base = (smaddr(dsm) + 1023) & ~1023u;
  bool own = mode == 0 || mode == 2 || mode == 4 || mode == 5 || mode == 6 || mode == 7;
  bool tile = mode != 0 && mode != 7, flat = mode == 3 || mode == 4, tile_first = mode == 5;
  int own_cols = mode == 6 || mode == 7 ? 8 : SLABS;
  u32 pbytes = own ? p_rows * 128 : 0, qbytes = tile ? q_rows * 128 : 0;
  // where the tile lands in the stage: after the own rows, or first (mode 5)
  u32 qoff = tile_first ? 0 : pbytes, poff = tile_first ? qbytes : 0;
  u32 slot = pbytes + qbytes;
  for (int s = 0; s < 8; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smaddr(&bars[s])) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
  int row = blockIdx.x * p_rows;
  u64* mine = rec + (u64)blockIdx.x * REC;
  if (sync) {
    atomicAdd(ctr, 1u);
    volatile u32* v = ctr;
    u64 t0 = clk();
    while (*v < gridDim.x) {
      if (clk() - t0 > 50000000ull) { err[0] = 2; break; }
    }
  }
  u64 c0 = clk(), g0 = gtime();
  auto issue = [&](int j) {
    int s = j % stages;
    u32 bar = smaddr(&bars[s]);
    expect(bar, slot);
    mine[3 * j] = clk();
    int slab = (j + rot * (int)blockIdx.x) % SLABS;
    if (tile_first) tma_2d(base + s * slot + qoff, &mq, slab * 64, SHARED0, bar);
    if (own) tma_2d(base + s * slot + poff, &mp, (j % own_cols) * 64, row, bar);
    if (tile && !tile_first) {
      if (flat) tma_2d(base + s * slot + qoff, &mf, 0, slab * q_rows, bar);
      else tma_2d(base + s * slot + qoff, &mq, slab * 64, SHARED0, bar);
    }
  };
  for (int j = 0; j < stages && j < KSTEPS; ++j) issue(j);
  for (int j = 0; j < KSTEPS; ++j) {
    int s = j % stages;
    u32 bar = smaddr(&bars[s]), par = (j / stages) & 1;
    u64 t0 = clk();
    while (!mbar_try(bar, par)) {
      if (clk() - t0 > 50000000ull) { err[0] = 1; break; }
    }
    u64 done = clk();
    mine[3 * j + 1] = done;
    mine[3 * j + 2] = gtime();
    // a consumer's work on the stage before it is refilled
    while (clk() - done < (u64)think) {}
    if (j + stages < KSTEPS) issue(j + stages);
  }
  u64 c1 = clk(), g1 = gtime();
  mine[3 * KSTEPS] = c0; mine[3 * KSTEPS + 1] = c1; mine[3 * KSTEPS + 2] = g0; mine[3 * KSTEPS + 3] = g1;
  mine[3 * KSTEPS + 4] = smid();
}

// ---------------------------------------------------------------- host
static CUtensorMap tmap(void* base, u64 inner, u64 rows, u64 pitch, u32 box_rows) {
  CUtensorMap m;
  cuuint64_t dims[2] = {inner, rows};
  cuuint64_t strides[1] = {pitch};
  cuuint32_t box[2] = {64, box_rows};
  cuuint32_t es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) { fprintf(stderr, "cuTensorMapEncodeTiled failed %d\n", (int)r); exit(1); }
  return m;
}
static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char** argv) {
  std::string out = argc > 1 ? argv[1] : ".";
  CK(cudaSetDevice(0));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const u64 rows = SHARED0 + 256;
  const int set = argc > 2 ? atoi(argv[2]) : 1;
  void *t, *fl;
  u64* rec; int* err; u32* ctr;
  CK(cudaMalloc(&t, rows * 8192));
  CK(cudaMemset(t, 0x3F, rows * 8192));
  CK(cudaMalloc(&fl, (u64)SLABS * 256 * 128));
  CK(cudaMemset(fl, 0x3F, (u64)SLABS * 256 * 128));
  CK(cudaMalloc(&rec, (u64)sms * REC * 8));
  CK(cudaMalloc(&err, 4));
  CK(cudaMalloc(&ctr, 4));
  CK(cudaMemset(err, 0, 4));
  CK(cudaFuncSetAttribute(tma_lock, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  CUtensorMap mp128 = tmap(t, 4096, rows, 8192, 128), mp256 = tmap(t, 4096, rows, 8192, 256), mq128 = tmap(t, 4096, rows, 8192, 128),
              mq256 = tmap(t, 4096, rows, 8192, 256), mf = tmap(fl, 64, (u64)SLABS * 256, 128, 256);
  FILE* f = fopen((out + "/stream.jsonl").c_str(), "w");
  FILE* fk = fopen((out + "/per_kstep.csv").c_str(), "w");
  fprintf(fk, "mode,rot,sync,stages,grid,think,rep,kstep,step_median_clk,spread_ns,spread_rel_clk\n");
  std::vector<u64> hr((u64)sms * REC);
  struct C { int mode, rot, sync, stages, grid, think; };
  std::vector<C> cases;
  if (set == 1) {
    for (int grid : {132, 66, 33})
      for (int mode : {1, 3, 2, 4, 0})
        for (int stages : {1, 2, 4})
          for (int sync : {1, 0})
            for (int rot : {0, 1}) {
              if (mode == 0 && rot) continue;
              cases.push_back({mode, rot, sync, stages, grid, 0});
              if (grid == 132 && (mode == 1 || mode == 2) && stages == 2) cases.push_back({mode, rot, sync, stages, grid, 1200});
            }
  } else if (set == 3) {
    // own copies with gaps (a consumer's work) between them, from HBM (mode 0: 16 KiB
    // boxes; rot 2: 32 KiB) and from L2 (mode 7: 32 KiB); the b_shared_k1024 stage
    // (mode 6) in step and rotated
    for (int think : {0, 600, 1200, 2400})
      for (int stages : {1, 2}) {
        cases.push_back({0, 2, 0, stages, 132, think});
        cases.push_back({0, 0, 0, stages, 132, think});
        cases.push_back({7, 0, 0, stages, 132, think});
      }
    for (int think : {0, 1200})
      for (int stages : {2, 4})
        for (int rot : {0, 1}) cases.push_back({6, rot, 0, stages, 132, think});
  } else {
    // a consumer's work from none to a serialized schedule's (the gemm's serialized
    // consumers take about 4000 cycles a k-step); the a_shared stage; own rows in L2
    for (int grid : {132, 66})
      for (int think : {0, 1200, 2400, 3600})
        for (int rot : {0, 1}) {
          cases.push_back({2, rot, 0, 2, grid, think});
          if (think <= 1200) cases.push_back({2, rot, 0, 1, grid, think});
          // the own rows alone, at the same think (rot unused)
          if (!rot) cases.push_back({0, 0, 0, 2, grid, think});
          if (!rot && think <= 1200) cases.push_back({0, 0, 0, 1, grid, think});
        }
    for (int mode : {5, 6})
      for (int stages : {1, 2, 4})
        for (int think : {0, 1200})
          for (int rot : {0, 1}) {
            cases.push_back({mode, rot, 0, stages, 132, think});
            // the a_shared stage's own rows alone (mode 0 with rot 2: boxes of 256 rows)
            if (mode == 5 && !rot) cases.push_back({0, 2, 0, stages, 132, think});
          }
  }
  const int REPS = 7;  // the first dropped
  for (auto& c : cases) {
    if (c.grid > sms) continue;
    // rot 2 on mode 0: the a_shared stage's own rows alone (boxes of 256 rows)
    int P = c.mode == 5 || c.mode == 7 || (c.mode == 0 && c.rot == 2) ? 256 : 128, Q = 384 - P;
    bool own = c.mode == 0 || c.mode == 2 || c.mode == 4 || c.mode == 5 || c.mode == 6 || c.mode == 7;
    bool tile = c.mode != 0 && c.mode != 7;
    u32 slot = (own ? P * 128 : 0) + (tile ? Q * 128 : 0);
    const CUtensorMap& mp = P == 256 ? mp256 : mp128;
    const CUtensorMap& mq = Q == 256 ? mq256 : mq128;
    int krot = c.mode == 0 || c.mode == 7 ? 0 : c.rot;
    // at least 130 KiB: one CTA an SM whatever the grid
    u32 smem = std::max<u32>(c.stages * slot + 1024, 130 * 1024);
    std::vector<double> step, lat, rate, mhz, sp0, sp8, sp32, sp63, start_sp, rs8, rs63;
    for (int rep = 0; rep < REPS; ++rep) {
      CK(cudaMemset(ctr, 0, 4));
      tma_lock<<<c.grid, 32, smem>>>(mp, mq, mf, P, Q, c.stages, c.mode, krot, c.sync, c.think, ctr, rec, err);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hr.data(), rec, (u64)c.grid * REC * 8, cudaMemcpyDeviceToHost));
      if (rep == 0) continue;  // after a launch of itself, as the gemm kernels are timed
      std::vector<double> st, mz;
      std::vector<std::vector<double>> by_j(KSTEPS);
      std::vector<std::vector<double>> gt(KSTEPS), rl(KSTEPS);
      std::vector<double> g0s;
      for (int b = 0; b < c.grid; ++b) {
        u64* r = &hr[(u64)b * REC];
        for (int j = 0; j < KSTEPS; ++j) {
          lat.push_back((double)(r[3 * j + 1] - r[3 * j]));
          if (j > 0) by_j[j].push_back((double)(r[3 * j + 1] - r[3 * (j - 1) + 1]));
          gt[j].push_back((double)r[3 * j + 2]);
          rl[j].push_back((double)(r[3 * j + 1] - r[3 * KSTEPS]));
        }
        // the steady k-step: done[63] - done[7] over 56 k-steps
        st.push_back((double)(r[3 * (KSTEPS - 1) + 1] - r[3 * 7 + 1]) / (KSTEPS - 8));
        rate.push_back((double)slot * KSTEPS / (double)(r[3 * (KSTEPS - 1) + 1] - r[0]));
        u64 cc0 = r[3 * KSTEPS], cc1 = r[3 * KSTEPS + 1], a0 = r[3 * KSTEPS + 2], a1 = r[3 * KSTEPS + 3];
        mz.push_back((double)(cc1 - cc0) / (double)(a1 - a0) * 1000.0);
        g0s.push_back((double)a0);
      }
      auto spread = [&](int j) { auto& v = gt[j]; return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end()); };
      // the same in clock64 from each CTA's own start (the gemm_l2 stamps' measure)
      auto spread_rel = [&](int j) { auto& v = rl[j]; return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end()); };
      rs8.push_back(spread_rel(8)); rs63.push_back(spread_rel(63));
      step.push_back(median(st));
      mhz.push_back(median(mz));
      sp0.push_back(spread(0)); sp8.push_back(spread(8)); sp32.push_back(spread(32)); sp63.push_back(spread(63));
      start_sp.push_back(*std::max_element(g0s.begin(), g0s.end()) - *std::min_element(g0s.begin(), g0s.end()));
      for (int j = 1; j < KSTEPS; ++j)
        fprintf(fk, "%d,%d,%d,%d,%d,%d,%d,%d,%.1f,%.0f,%.0f\n", c.mode, c.rot, c.sync, c.stages, c.grid, c.think, rep, j, median(by_j[j]), spread(j), spread_rel(j));
    }
    int e = 0;
    CK(cudaMemcpy(&e, err, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemset(err, 0, 4));
    double ms = median(step), mhz_m = median(mhz);
    double tile_chip = tile ? (double)c.grid * Q * 128 / ms : 0, own_chip = own ? (double)c.grid * P * 128 / ms : 0;
    std::string steps = "[";
    for (size_t i = 0; i < step.size(); ++i) steps += (i ? ", " : "") + std::to_string((int)step[i]);
    steps += "]";
    fprintf(f, "{\"mode\": %d, \"rot\": %d, \"sync\": %d, \"stages\": %d, \"grid\": %d, \"think\": %d, \"p_rows\": %d, \"q_rows\": %d, \"bytes_per_stage\": %u, "
               "\"kstep_clk\": %.1f, \"kstep_clk_reps\": %s, \"lat_median\": %.1f, \"sm_bytes_per_clk\": %.2f, "
               "\"tile_chip_bytes_per_clk\": %.1f, \"own_chip_bytes_per_clk\": %.1f, \"mhz\": %.1f, "
               "\"spread_ns_start\": %.0f, \"spread_ns_k0\": %.0f, \"spread_ns_k8\": %.0f, \"spread_ns_k32\": %.0f, \"spread_ns_k63\": %.0f, \"spread_rel_clk_k8\": %.0f, \"spread_rel_clk_k63\": %.0f, \"err\": %d}\n",
            c.mode, c.rot, c.sync, c.stages, c.grid, c.think, own ? P : 0, tile ? Q : 0, slot, ms, steps.c_str(), median(lat), median(rate), tile_chip, own_chip, mhz_m,
            median(start_sp), median(sp0), median(sp8), median(sp32), median(sp63), median(rs8), median(rs63), e);
    printf("mode %d rot %d sync %d S %d grid %3d think %4d: k-step %7.0f [%6.0f..%6.0f] clk, tile %7.1f own %6.1f B/clk chip, %4.0f MHz, spread ns start %5.0f k8 %5.0f k63 %5.0f, rel clk k8 %6.0f k63 %6.0f%s\n",
           c.mode, c.rot, c.sync, c.stages, c.grid, c.think, ms, *std::min_element(step.begin(), step.end()), *std::max_element(step.begin(), step.end()),
           tile_chip, own_chip, mhz_m, median(start_sp), median(sp8), median(sp63), median(rs8), median(rs63), e ? " ERR" : "");
    fflush(stdout);
  }
  fclose(fk);
  fclose(f);
  return 0;
}
