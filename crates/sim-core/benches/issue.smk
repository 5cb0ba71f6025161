kernel issue_bench
launch cta_threads=1024 regs=32 smem=0 grid=1
param ITERS=2000
role main warps=0..31
  loop i 0..ITERS
    FFMA R1, R1, R2, R3
    FFMA R1, R1, R2, R3
  EXIT
