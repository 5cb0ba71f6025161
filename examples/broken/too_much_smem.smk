# Broken on purpose: five 48 KiB stages are 240 KiB, more than a block may use.
kernel too_much_smem
launch cta_threads=128 regs=64 smem=240KiB grid=132
shared stages size=245760

role main warps=0..3
  STS stages[warp * 128 + lane * 4], R0
  EXIT
