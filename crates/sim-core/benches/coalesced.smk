kernel coalesced_bench
launch cta_threads=1024 regs=32 smem=0 grid=1
buffer A size=8MiB
param ITERS=2000
role main warps=0..31
  loop i 0..ITERS
    LDG.E R1, A[(i * 32 + warp) * 128 + lane * 4]
    FFMA R1, R1, R2, R3
  EXIT
