# cp_async: an Ampere-style multistage copy pipeline with LDGSTS (cp.async) and
# __syncthreads, the way kernels staged tiles before TMA.
#
# All eight warps copy a 16 KiB tile per stage from global to shared memory with
# 16-byte LDGSTS, commit the stage as a cp.async group (LDGDEPBAR), and keep STAGES - 1
# groups in flight: DEPBAR.LE SB0, N waits until at most N groups are pending. A
# BAR.SYNC makes the landed stage visible to every warp before they read it back.
kernel cp_async
launch cta_threads=256 regs=40 smem=49152 grid=132
buffer IN global size=66MiB      # 132 CTAs x 32 tiles x 16 KiB
shared tile size=49152           # STAGES x 16 KiB
param STAGES=3 TILES=32
work bytes=16384 * TILES

role main warps=0..7
  MOV R8, RZ
  loop s 0..STAGES - 1
    loop j 0..4
      LDGSTS.E.128 tile[s * 16384 + (j * 8 + warp) * 512 + lane * 16], IN[((cta * TILES + s) * 32 + j * 8 + warp) * 512 + lane * 16]
    LDGDEPBAR
  loop t 0..TILES
    if t + STAGES - 1 < TILES
      loop j 0..4
        LDGSTS.E.128 tile[((t + STAGES - 1) % STAGES) * 16384 + (j * 8 + warp) * 512 + lane * 16], IN[((cta * TILES + t + STAGES - 1) * 32 + j * 8 + warp) * 512 + lane * 16]
    LDGDEPBAR
    DEPBAR.LE SB0, 2
    BAR.SYNC 0
    loop j 0..4
      LDS.128 R4, tile[(t % STAGES) * 16384 + (j * 8 + warp) * 512 + lane * 16]
      FADD R8, R8, R4
    BAR.SYNC 0
  EXIT
