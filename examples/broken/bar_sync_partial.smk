# Broken on purpose: `BAR.SYNC 0` counts every thread of the CTA, but only the
# consumer role ever reaches it; the producer warp exits without arriving.
kernel bar_sync_partial
launch cta_threads=288 regs=32 smem=0 grid=1

role producer warps=0..0
  EXIT

role consumer warps=1..8
  NOP
  BAR.SYNC 0
  EXIT
