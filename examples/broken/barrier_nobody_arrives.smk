# Broken on purpose: the consumers wait on `ready`, but the producer fills shared
# memory with plain stores and never arrives on it, so the wait never returns.
kernel barrier_nobody_arrives
launch cta_threads=160 regs=32 smem=4096 grid=1
shared buf size=4096
mbarrier ready count=1

role producer warps=0..0
  loop j 0..8
    STS.128 buf[j * 512 + lane * 16], R4
  EXIT

role consumer warps=1..4
  SYNCS.PHASECHK.TRANS64.TRYWAIT ready[0], parity=0
  LDS R4, buf[(warp - 1) * 128 + lane * 4]
  EXIT
