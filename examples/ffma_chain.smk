# ffma_chain: one warp, a chain of N dependent FFMAs.
#
# Each FFMA reads the R1 the previous one wrote, so the warp issues one FFMA per FMA
# latency: the run time is N x the FMA pipe's latency. The microbenchmark behind the
# profile's fixed-latency numbers.
kernel ffma_chain
launch cta_threads=32 regs=16 smem=0 grid=1
param N=1024
work flops=2 * 32 * N

role main warps=0..0
  MOV R1, 1.0
  MOV R2, 0.999
  MOV R3, 0.5
  loop i 0..N
    FFMA R1, R1, R2, R3
  EXIT
