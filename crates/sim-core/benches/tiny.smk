kernel tiny
launch cta_threads=32 regs=32 smem=0 grid=1
role main warps=0..0
  FFMA R1, R2, R3, R4
  EXIT
