# Broken on purpose: `t` is used after its loop has ended, and `NTILES` is no parameter.
kernel unknown_variable
launch cta_threads=32 regs=32 smem=0 grid=1
buffer X global size=64KiB
param TILES=8

role main warps=0..0
  loop t 0..TILES
    LDG.E R4, X[(t * 32 + lane) * 4]
  STG.E X[(t * 32 + lane) * 4], R4
  loop u 0..NTILES
    NOP
  EXIT
