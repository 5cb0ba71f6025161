# gemm_ws: a warp-specialized Hopper GEMM mainloop, C = A x B in BF16 with FP32
# accumulators, one 128x256 output tile per CTA.
#
# Warp 0 is the producer: for each 64-wide K block it waits for a free stage of the
# PIPE-stage ring, announces 48 KiB on the stage's `full` mbarrier and issues two TMA
# loads (a 128x64 tile of A, a 256x64 tile of B). Warps 1..3 only fill out the
# producer's warpgroup (setmaxnreg acts on whole warpgroups) and exit.
#
# Warps 4..11 are two consumer warpgroups; each owns 64 rows of the tile and keeps a
# 64x256 FP32 accumulator in R24..R151 (128 registers a thread). Per K block they wait
# on `full`, issue four HGMMA.64x256x16 (the last one closes the wgmma group with
# gsb0), wait until at most one group is in flight and release the previous stage on
# `empty`. setmaxnreg moves registers from the producer warpgroup (40 each) to the
# consumers (232 each): 128 x 40 + 256 x 232 = 384 x 168, the launch's allocation.
#
# The epilogue stores the tile with 16-byte stores, one per four accumulators; the
# register it names stands for the four it would store.
kernel gemm_ws
launch cta_threads=384 regs=168 smem=196608 grid=132
buffer A global size=12MiB       # M x K = 1536 x 4096 BF16
buffer B global size=22MiB       # N x K = 2816 x 4096 BF16
buffer C global size=16896KiB    # M x N = 1536 x 2816 FP32
shared sA size=65536             # PIPE x 128 x 64 x 2 bytes
shared sB size=131072            # PIPE x 256 x 64 x 2 bytes
mbarrier full[4] count=1
mbarrier empty[4] count=8
param PIPE=4 KT=64 MTILES=12
work flops=2 * 128 * 256 * 64 * KT bytes=(16384 + 32768) * KT + 131072

role producer warps=0..0 maxnreg=40
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % PIPE], parity=((k / PIPE) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % PIPE], bytes=49152
    UTMALDG.2D sA[(k % PIPE) * 16384], A[((cta % MTILES) * KT + k) * 16384], bytes=16384, bar=full[k % PIPE]
    UTMALDG.2D sB[(k % PIPE) * 32768], B[((cta / MTILES) * KT + k) * 32768], bytes=32768, bar=full[k % PIPE]
  EXIT

role idle warps=1..3 maxnreg=40
  EXIT

role consumer warps=4..11 maxnreg=232
  loop k 0..KT
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % PIPE], parity=(k / PIPE) & 1
    WARPGROUP.ARRIVE
    HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192], sB[(k % PIPE) * 32768]
    HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192 + 32], sB[(k % PIPE) * 32768 + 32]
    HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192 + 64], sB[(k % PIPE) * 32768 + 64]
    HGMMA.64x256x16.F32.BF16 R24, sA[(k % PIPE) * 16384 + (warpgroup - 1) * 8192 + 96], sB[(k % PIPE) * 32768 + 96], gsb0
    WARPGROUP.DEPBAR.LE gsb0, 1
    if k > 0
      SYNCS.ARRIVE.TRANS64 empty[(k + PIPE - 1) % PIPE]
  WARPGROUP.DEPBAR.LE gsb0, 0
  loop c 0..32
    STG.E.128 C[(((cta * 8 + warp - 4) * 32 + c) * 32 + lane) * 16], R24
  EXIT
