# Broken on purpose: a four-deep ring indexed modulo 8.
kernel mbarrier_index
launch cta_threads=64 regs=32 smem=65536 grid=1
buffer IN global size=1MiB
shared stage size=65536
mbarrier full[4] count=1
param ITERS=64

role producer warps=0..0
  loop i 0..ITERS
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[i % 8], bytes=16384
    UBLKCP.S.G stage[(i % 4) * 16384], IN[i * 16384], bytes=16384, bar=full[i % 8]
  EXIT

role consumer warps=1..1
  loop i 0..ITERS
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[i % 4], parity=(i / 4) & 1
  EXIT
