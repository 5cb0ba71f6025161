# A dependent chase over 16 KiB, three passes: LDG.E hits L1 after the first pass,
# LDG.E.STRONG.GPU (__ldcg) is not allocated in L1 and pays L2 every time.
#   smsim compare examples/gaps/strong_gpu.smk@STRONG=0 examples/gaps/strong_gpu.smk@STRONG=1
kernel strong_gpu
launch cta_threads=32 regs=32 smem=0 grid=1
buffer A size=16KiB
param STRONG=1
pred P0 = STRONG
pred P1 = STRONG == 0
role main warps=0..0
  loop p 0..3
    loop i 0..128
      @P0 LDG.E.STRONG.GPU R1, A[i * 128]
      @P1 LDG.E R1, A[i * 128]
  EXIT
