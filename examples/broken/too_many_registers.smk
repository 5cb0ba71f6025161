# Broken on purpose: the consumer keeps its accumulator in R104..R231, but the launch
# gives every thread 168 registers.
kernel too_many_registers
launch cta_threads=128 regs=168 smem=49152 grid=1
shared sA size=16384
shared sB size=32768

role consumer warps=0..3
  WARPGROUP.ARRIVE
  HGMMA.64x256x16.F32.BF16 R104, sA[0], sB[0], gsb0
  WARPGROUP.DEPBAR.LE gsb0, 0
  EXIT
