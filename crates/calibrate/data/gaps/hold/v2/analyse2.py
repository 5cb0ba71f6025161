# Usage: python3 analyse2.py HOLD2.txt.gz. Per case (op, probe warps, STS per warp, waiter) and
# delay: the first probe warp's P0 / the last one's end (its hold over the case's duration at delay 0).
import collections,statistics,sys,gzip
d=collections.defaultdict(list)
for l in gzip.open(sys.argv[1],'rt'):
    if l.startswith('#'): print(l.strip()); continue
    f=list(map(int,l.split()))
    xb,op,nw,nsts,waiter,dl,rep,i1,D,wake=f[:10]
    pw=[(f[i],f[i+1]) for i in range(10,len(f),2)]
    d[(xb,op,nw,nsts,waiter,dl)].append((i1,D,wake,pw))
med=statistics.median
for xb in (32,64):
  print(f"=== xb {xb}: per delay: D | op/nw/nsts/waiter: first P0, durations of each warp (median) -> last end")
  for key in sorted({k[1:5] for k in d if k[0]==xb}):
    op,nw,nsts,waiter=key
    rows=[]
    base=None
    for dl in range(0,1250,50):
        r=d[(xb,op,nw,nsts,waiter,dl)]
        D=med([x[1] for x in r])
        p0=med([min(p[0] for p in x[3]) for x in r])
        durs=[med([x[3][i][1] for x in r]) for i in range(nw)]
        end=med([max(p[0]+p[1] for p in x[3]) for x in r])
        if base is None: base=max(durs)
        held=end-p0-base
        rows.append(f"{dl}:{p0:.0f}/{end:.0f}({held:+.0f})")
    print(f" op{op} nw{nw} sts{nsts} w{waiter} base {base:.0f} D~{D:.0f}: "+" ".join(rows[6:20]))
