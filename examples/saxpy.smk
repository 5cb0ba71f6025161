# saxpy: Y = a * X + Y, data-parallel.
#
# Eight warps, one role. Each CTA walks TILES tiles of 256 threads x 16 bytes; each
# thread loads four floats of X and Y with 128-bit loads, does four FFMAs and stores
# four floats back. Coalesced: a warp's 32 lanes touch 512 contiguous bytes.
kernel saxpy
launch cta_threads=256 regs=32 smem=0 grid=264
buffer X global size=16896KiB    # 264 CTAs x 16 tiles x 256 threads x 16 bytes
buffer Y global size=16896KiB
param TILES=16
work flops=2 * 4 * 256 * TILES bytes=3 * 16 * 256 * TILES

role main warps=0..7
  MOV R2, 2.0                      # a
  loop t 0..TILES
    LDG.E.128 R4, X[((cta * TILES + t) * 256 + warp * 32 + lane) * 16]
    LDG.E.128 R8, Y[((cta * TILES + t) * 256 + warp * 32 + lane) * 16]
    FFMA R8, R2, R4, R8
    FFMA R9, R2, R5, R9
    FFMA R10, R2, R6, R10
    FFMA R11, R2, R7, R11
    STG.E.128 Y[((cta * TILES + t) * 256 + warp * 32 + lane) * 16], R8
  EXIT
