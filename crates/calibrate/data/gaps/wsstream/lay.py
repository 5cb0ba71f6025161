# Usage: python3 lay.py LAY(.txt.gz). Per kernel and layout (P bytes before everything, Q between
# the load buffers and the store buffer(s), F store buffer(s) first): the median span of 7
# launches, where each buffer lies (KiB from the aligned base) and the change from the
# validation layout (P = Q = F = 0) of the same kernel.
import sys, gzip, statistics, collections
rows = collections.defaultdict(list)
for line in gzip.open(sys.argv[1], 'rt'):
    f = line.split()
    if len(f) == 3 and not line.startswith('#'):
        rows[f[0]].append(int(f[2]))
def parse(n):
    d = dict(x.split('_', 1) for x in n.split('.')[1:] if '_' in x)
    xb = int(d['tile'].split('x')[0])
    return n.split('.')[0], xb, int(d['nlb']), int(d['nsb']), int(d['P']), int(d['Q']), int(d['F'])
base = {}
for n, v in rows.items():
    s, xb, nlb, nsb, P, Q, F = parse(n)
    if P == Q == F == 0: base[(s, xb, nlb, nsb)] = statistics.median(v)
for n in sorted(rows, key=parse):
    s, xb, nlb, nsb, P, Q, F = parse(n)
    tb = xb * 128 * 4 // 1024
    oA = P + nsb * tb if F else P
    oB = oA + nlb * tb
    oC = P if F else oB + nlb * tb + Q
    m = statistics.median(rows[n])
    b = base[(s, xb, nlb, nsb)]
    print(f"{s:17} {xb}x128 NLB {nlb} NSB {nsb}  sA {oA:3}-{oA + nlb * tb:3}  sB {oB:3}-{oB + nlb * tb:3}  "
          f"sC {oC:3}-{oC + nsb * tb:3}  {m:7.0f}  {100 * (m / b - 1):+6.1f}%")
