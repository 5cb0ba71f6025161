#!/usr/bin/env python3
"""Excess over the no-copy run (wshold/drain/): python3 drx.py dr.txt.gz

For every point with a copy: P0 (min over warps), and the first / median / last write time
(R: each STS's read-after-write return; rd 2: each warp's fence end) less P0, minus the same
figure without a copy (ncopy 0, same nsts, rd, pofs; averaged over its delays): the cycles
the copies add. Also each warp's last STS issue less P0, minus the same without a copy."""
import gzip
import statistics as st
import sys
from collections import defaultdict

rows = defaultdict(list)
for line in gzip.open(sys.argv[1], "rt"):
    if line.startswith("#"):
        continue
    f = [int(x) for x in line.split()]
    rows[tuple(f[:6])].append(f[7:])


def summary(k, v):
    ncopy, bdelay, nsts, rd, pofs, delay = k
    nr = 1 if rd == 2 else nsts
    m = [st.median(c) for c in zip(*v)]
    x, p0s, ws, iss = 3, [], [], []
    for w in range(4):
        p0 = m[x]
        s = m[x + 1 : x + 1 + nsts]
        r = m[x + 2 + nsts : x + 2 + nsts + nr]
        x += 3 + nsts + nr
        p0s.append(p0)
        iss.append(s[-1] - p0)
        ws.extend(r)
    p = min(p0s)
    ws.sort()
    return p, m[0], m[2], [ws[0] - p, ws[len(ws) // 2] - p, ws[-1] - p], max(iss)


base = defaultdict(list)
for k, v in rows.items():
    if k[0] == 0:
        base[k[2:5]].append(summary(k, v))
bm = {g: ([st.mean(s[3][i] for s in L) for i in range(3)], st.mean(s[4] for s in L)) for g, L in base.items()}
print("ncopy bdelay nsts rd pofs | delay P0 IB D | write first/med/last - P0 (no copy) | excess first med last | issue excess")
last = None
for k in sorted(rows):
    if k[0] == 0:
        continue
    g = k[:5]
    if g != last:
        b = bm[k[2:5]]
        print(f"== ncopy {k[0]} bdelay {k[1]} nsts {k[2]} rd {k[3]} pofs {k[4]}K   no copy: {b[0][0]:.0f} {b[0][1]:.0f} {b[0][2]:.0f}, issue {b[1]:.0f}")
        last = g
    p, ib, d, w, iss = summary(k, rows[k])
    ex = [w[i] - b[0][i] for i in range(3)]
    print(f"  {k[5]:5d} {p:5.0f} {ib:4.0f} {d:5.0f} | {w[0]:5.0f} {w[1]:5.0f} {w[2]:5.0f} | {ex[0]:+5.0f} {ex[1]:+5.0f} {ex[2]:+5.0f} | {iss - b[1]:+5.0f}")
