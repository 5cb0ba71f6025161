# Broken on purpose: HGMMA in a role of warps 2..5, which straddles two warpgroups.
kernel hgmma_not_warpgroup
launch cta_threads=256 regs=168 smem=49152 grid=1
shared sA size=16384
shared sB size=32768

role loader warps=0..1
  EXIT

role mma warps=2..5
  WARPGROUP.ARRIVE
  HGMMA.64x128x16.F32.BF16 R24, sA[0], sB[0], gsb0
  WARPGROUP.DEPBAR.LE gsb0, 0
  EXIT

role rest warps=6..7
  EXIT
