# Broken on purpose: warps 2 and 3 are claimed by both roles.
kernel overlapping_roles
launch cta_threads=256 regs=32 smem=0 grid=1

role producer warps=0..3
  NOP
  EXIT

role consumer warps=2..7
  NOP
  EXIT
