# ffma_uniform.smk with the constant in a vector register, as a twin without uniform
# registers writes it: R40 shares bank 0 with R6 and R10, so each FFMA pays a
# register-bank conflict and the sub-partitions issue one FFMA every two cycles.
kernel ffma_vector
launch cta_threads=1024 regs=64 smem=0 grid=1
role main warps=0..31
  MOV R40, 0x210
  loop i 0..32
    FFMA R1, R3, R40, R6
    FFMA R5, R7, R40, R10
  EXIT
