# (examples/runtime: kernels the checker accepts that fail at run time.)
# Valid to the checker, stuck at run time: only warp 0 reaches the CTA-wide barrier,
# so warp 1 exits and warp 0 waits forever. `smsim run` reports the deadlock.
kernel runtime_deadlock
launch cta_threads=64 regs=32 smem=0 grid=1
role main warps=0..1
  if warp == 0
    BAR.SYNC 0
  EXIT
