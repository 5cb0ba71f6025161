# 32 warps of independent FFMAs reading a constant from a uniform register: the two
# vector sources sit in different register banks, so every sub-partition issues one
# FFMA a cycle.  Against ffma_vector.smk (the constant in a vector register):
#   smsim compare examples/gaps/ffma_uniform.smk examples/gaps/ffma_vector.smk
kernel ffma_uniform
launch cta_threads=1024 regs=64 smem=0 grid=1
role main warps=0..31
  ULDC UR4, 0x210
  loop i 0..32
    FFMA R1, R3, UR4, R6
    FFMA R5, R7, UR4, R10
  EXIT
