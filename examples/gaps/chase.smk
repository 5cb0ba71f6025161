# A dependent chase of N loads of 4-byte words in a 4 MiB buffer warm in L2: in order
# (SCRAMBLE=0) 31 of every 32 loads hit the line the one before brought into L1;
# through a seeded permutation of the buffer's words (SCRAMBLE=1: the next address
# comes from a table) nearly every load is a line L1 does not hold.
#   smsim compare examples/gaps/chase.smk@SCRAMBLE=0 examples/gaps/chase.smk@SCRAMBLE=1
kernel chase
launch cta_threads=32 regs=32 smem=0 grid=1
buffer A size=4MiB warm=4MiB
param N=16384 WORDS=1048576 SCRAMBLE=1
role main warps=0..0
  loop i 0..N
    LDG.E R1, A[(SCRAMBLE * perm(i, WORDS) + (1 - SCRAMBLE) * i) * 4]
  EXIT
