kernel gemm_bench
launch cta_threads=384 regs=168 smem=196608 grid=1
buffer A size=64MiB
buffer B size=64MiB
shared stage size=196608
mbarrier full[4] count=1
mbarrier empty[4] count=8
param PIPE=4 KT=512
role producer warps=0..0
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % PIPE], parity=((k / PIPE) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % PIPE], bytes=49152
    UTMALDG stage[(k % PIPE) * 49152], A[(k % 256) * 16384], bytes=16384, bar=full[k % PIPE]
    UTMALDG stage[(k % PIPE) * 49152 + 16384], B[(k % 256) * 32768], bytes=32768, bar=full[k % PIPE]
  EXIT
role idle warps=1..3
  EXIT
role consumer warps=4..11
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % PIPE], parity=(k / PIPE) & 1
    WARPGROUP.ARRIVE
    loop j 0..4
      HGMMA.64x256x16.F32.BF16 R24, stage[(k % PIPE) * 49152 + j * 32], stage[(k % PIPE) * 49152 + 16384 + j * 32]
    HGMMA.64x256x16.F32.BF16 R24, stage[(k % PIPE) * 49152], stage[(k % PIPE) * 49152 + 16384], gsb0
    WARPGROUP.DEPBAR.LE gsb0, 0
    SYNCS.ARRIVE.TRANS64 empty[k % PIPE]
  EXIT
