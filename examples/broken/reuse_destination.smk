# `.reuse` belongs to source operands: the destination is written, not read.
kernel reuse_destination
launch cta_threads=32 regs=32 smem=0 grid=1
role main warps=0..0
  FFMA R1.reuse, R2, R3.reuse, R4
  EXIT
