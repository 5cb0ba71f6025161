# A chase over 4 MiB, one line a step, with its first WARM bytes already in L2.
#   smsim compare examples/gaps/warm.smk@WARM=0 examples/gaps/warm.smk@WARM=2097152 \
#     examples/gaps/warm.smk@WARM=4194304
kernel warm
launch cta_threads=32 regs=32 smem=0 grid=1
buffer A size=4MiB warm=WARM
param WARM=2097152
role main warps=0..0
  loop i 0..4096
    LDG.E R1, A[i * 1024]
  EXIT
