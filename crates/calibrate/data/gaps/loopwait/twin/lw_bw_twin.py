import re,sys
lst={}
order=[]
for l in open('bw.lst'):
    a=int(l[:5],16); st=int(l.split()[1][1:]); ins=l.split(None,5)[5].strip()
    lst[a]=(st,ins); order.append(a)
def rng(lo,hi): return [a for a in order if lo<=a<=hi]
def path(mode):
    stamp = mode&1; copy = mode<2
    p = rng(0x510,0x5c0)+rng(0x6b0,0x6f0)+rng(0x700,0x7b0)
    if copy: p += rng(0x7c0,0x8d0)
    p += rng(0x8e0,0x930)
    if stamp: p += rng(0x940,0xa20)
    p += rng(0xa30,0xad0)
    return p
def twin(mode, n=512, S=4, C=8192):
    stamp = mode&1; copy = mode<2
    out=[]; loaded=[]
    taken={0x5c0, 0xad0} | ({0x930} if not stamp else set()) | ({0x7b0} if not copy else set())
    for a in path(mode):
        st,ins=lst[a]
        bare=re.sub(r'^@!?U?P\w+\s+','',ins)
        guard=re.match(r'^@(!?)(U?P\w+)\s',ins)
        op=bare.split()[0]
        if 'TRYWAIT' in op: t='SYNCS.PHASECHK.TRANS64.TRYWAIT mb[i % S], parity=(i / S) & 1'
        elif op=='SYNCS.ARRIVE.TRANS64.A1T0':
            t='SYNCS.ARRIVE.TRANS64 mb[i % S]' if (not copy) else 'NOP'
        elif op=='SYNCS.ARRIVE.TRANS64': t='SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i % S], bytes=C'
        elif op.startswith('UBLKCP'): t='UBLKCP.S.G s[(i % S) * C], A[((i + S) * C) % R], bytes=C, bar=mb[i % S]'
        elif 'CLOCK' in bare: t='IADD3 R99, RZ, RZ, RZ'
        elif 'BRA' in op: t='BRA' if a in taken else 'NOP'
        elif op in ('LDC','LDC.64'):
            regs=[r.strip() for r in bare.split(None,1)[1].split(',')]
            loaded.append(regs[0]); off=bare.rsplit('[',1)[1].rstrip(']')
            t=f'{op} {regs[0]}, {off}'
        else:
            regs=[r.strip().replace('.reuse','') for r in bare.split(None,1)[1].split(',')] if ' ' in bare else []
            rd=[r for r in regs[1:] if r in loaded]
            if rd and op.startswith('ISETP'): t=f'ISETP.NE.AND {regs[0]}, PT, {rd[0]}, RZ, PT'
            elif rd: t=f'IADD3 RZ, {rd[0]}, RZ, RZ'
            else: t='NOP'
            if regs and regs[0] in loaded: loaded.remove(regs[0])
        if st>1: t += (', ' if ' ' in t else ' ')+f'stall={st}'
        out.append('    '+t)
    R=1<<20
    hdr=f"""kernel lw_bw
launch cta_threads=32 regs=32 smem={S*C} grid=1
buffer A size={R}
shared s size={S*C}
mbarrier mb[{S}] count=1
param S={S} C={C} R={R}
role main warps=0..0
  loop i 0..S
"""
    pro = "    SYNCS.ARRIVE.TRANS64.EXPECT_TX mb[i], bytes=C\n    UBLKCP.S.G s[i * C], A[i * C], bytes=C, bar=mb[i]\n" if copy else "    SYNCS.ARRIVE.TRANS64 mb[i]\n"
    return hdr+pro+f"  loop i 0..{n}\n"+'\n'.join(out)+"\n  EXIT\n"
for mode in range(4):
    open(f'tw/lw_bw{mode}.txt','w').write(twin(mode))
print(open('tw/lw_bw1.txt').read())
