# A loop's guarded branch, taken every EVERY-th iteration (never with TAKE=0): a taken
# branch waits for its target's fetch, one not taken costs its issue slot.
#   smsim compare examples/gaps/guarded_branch.smk@TAKE=0 \
#     examples/gaps/guarded_branch.smk@EVERY=4 examples/gaps/guarded_branch.smk@EVERY=1
kernel guarded_branch
launch cta_threads=32 regs=32 smem=0 grid=1
param N=256 EVERY=1 TAKE=1
pred P1 = TAKE & (i % EVERY == 0)
role main warps=0..0
  loop i 0..N
    FADD R1, R2, R3
    @P1 BRA
  EXIT
