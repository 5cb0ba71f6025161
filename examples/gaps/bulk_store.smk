# One warp writes a tile to shared memory and stores it out with a bulk store, K
# times; before it writes the tile again it waits for the store to have read shared
# memory (READ=1: DEPBAR.LE.READ, wait_group.read) or to have completed (READ=0).
#   smsim compare examples/gaps/bulk_store.smk@READ=1 examples/gaps/bulk_store.smk@READ=0
kernel bulk_store
launch cta_threads=32 regs=32 smem=16384 grid=1
buffer C size=4MiB
shared s size=8192
param K=64 READ=1
pred P0 = READ
pred P1 = READ == 0
role main warps=0..0
  loop k 0..K
    STS.128 s[lane * 16], R4
    UBLKCP.G.S C[k * 8192], s[0], bytes=8192
    UTMACMDFLUSH
    @P0 DEPBAR.LE.READ SB1, 0
    @P1 DEPBAR.LE SB1, 0
  EXIT
