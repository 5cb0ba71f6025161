# A control code's stall count is 4 bits in SASS: 0 to 15 cycles.
kernel stall_out_of_range
launch cta_threads=32 regs=32 smem=0 grid=1
role main warps=0..0
  FFMA R1, R2, R3, R4, stall=16
  EXIT
