# What issue 25 item 8 asked the format to say, in one streaming kernel:
# uniform registers, predicates with a declared truth, a bulk store with its
# `.READ` wait, LDG.E.STRONG.GPU, addresses from a permutation, a buffer partly
# warm in L2.  `smsim run examples/format_gaps.smk`
kernel format_gaps
launch cta_threads=160 regs=64 smem=49152 grid=132
buffer IN size=64MiB warm=8MiB          # the first 8 MiB start in L2
buffer OUT size=64MiB
buffer TABLE size=64KiB warm=64KiB     # the whole table starts in L2
shared tile size=32768
shared stage size=16384
mbarrier full[2] count=1
mbarrier empty[2] count=4
param K=16
pred P1 = (warp == 1) & (k % 4 == 3)    # one warp stores every fourth tile
pred UP0 = k + 1 < K                    # the back branch: taken but the last time

role producer warps=0..0
  loop k 0..K
    SYNCS.PHASECHK.TRANS64.TRYWAIT empty[k % 2], parity=((k / 2) & 1) ^ 1
    SYNCS.ARRIVE.TRANS64.EXPECT_TX full[k % 2], bytes=16384
    UBLKCP.S.G tile[(k % 2) * 16384], IN[(cta * K + k) * 16384], bytes=16384, bar=full[k % 2]
  EXIT

role consumer warps=1..4
  ULDC.64 UR4, 0x210                    # the uniform datapath: no vector register bank
  S2UR UR6, SR_CTAID_X
  UIMAD UR8, UR6, UR4, URZ
  loop k 0..K
    SYNCS.PHASECHK.TRANS64.TRYWAIT full[k % 2], parity=(k / 2) & 1
    LDS R8, tile[(k % 2) * 16384 + (warp - 1) * 4096 + lane * 4]
    FFMA R9, R8, UR4, R9
    LDG.E.STRONG.GPU R10, TABLE[perm(k + cta * K, 512) * 128]   # L2 every time
    FADD R9, R9, R10
    SYNCS.ARRIVE.TRANS64 empty[k % 2]
    STS stage[(warp - 1) * 4096 + lane * 4], R9
    @P1 UBLKCP.G.S OUT[(cta * K + k) * 16384], stage[0], bytes=16384
    @P1 UTMACMDFLUSH
    @P1 DEPBAR.LE.READ SB1, 0           # stage may be written again
    UIADD3 UR8, UR8, 0x1, URZ
    @UP0 BRA
  EXIT
