# mbarrier_pingpong: a producer warp and four consumer warps pass STAGES shared-memory
# buffers back and forth over full/empty mbarrier pairs.
#
# The producer waits until a stage is empty, announces the bytes it is about to copy
# (SYNCS.ARRIVE.EXPECT_TX) and starts a bulk copy (UBLKCP) that completes them on the
# stage's `full` barrier. The consumers wait on `full`, read the stage from shared
# memory, and each arrives on `empty` so the producer can refill it. Phase parities
# flip every time the ring wraps; the producer's first wait on an empty barrier uses
# parity 1, which a fresh mbarrier has already completed.
kernel mbarrier_pingpong
launch cta_threads=160 regs=64 smem=65536 grid=132
buffer IN global size=132MiB     # 132 CTAs x 64 iterations x 16 KiB
buffer OUT global size=264KiB    # 132 CTAs x 4 warps x 32 lanes x 16 bytes
shared stage size=65536          # STAGES x STAGE_BYTES
mbarrier full[4] count=1         # the producer's expect-tx arrival (plus the bytes)
mbarrier empty[4] count=4        # one arrival per consumer warp
param STAGES=4 ITERS=64 STAGE_BYTES=16384
work bytes=STAGE_BYTES * ITERS

role producer warps=0..0
  loop i 0..ITERS
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[i % STAGES], parity=((i / STAGES) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[i % STAGES], bytes=STAGE_BYTES
    UBLKCP.S.G stage[(i % STAGES) * STAGE_BYTES], IN[(cta * ITERS + i) * STAGE_BYTES], bytes=STAGE_BYTES, bar=full[i % STAGES]
  EXIT

role consumer warps=1..4
  MOV R8, RZ
  MOV R9, RZ
  MOV R10, RZ
  MOV R11, RZ
  loop i 0..ITERS
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[i % STAGES], parity=(i / STAGES) & 1
    # Each consumer warp reads a quarter of the stage, 512 bytes per instruction.
    loop j 0..8
      LDS.128 R4, stage[(i % STAGES) * STAGE_BYTES + ((warp - 1) * 8 + j) * 512 + lane * 16]
      FADD R8, R8, R4
      FADD R9, R9, R5
      FADD R10, R10, R6
      FADD R11, R11, R7
    SYNCS.ARRIVE.TRANS64 empty[i % STAGES]
  STG.E.128 OUT[((cta * 4 + warp - 1) * 32 + lane) * 16], R8
  EXIT
