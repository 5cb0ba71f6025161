#!/usr/bin/env python3
"""Table of the drain probe's run 2 (wshold/drain/): python3 dr2.py dr2.txt[.gz]

Medians over the launches of a point, cycles after I0 (A issues at ~60). Poller rows: IB
(B's issue), D (lane 0's wait returns) and C (the copies' completion seen by the poller).
STS rows, per delay: P0 (earliest of warps 4..7), and per warp SE-P0 (the STS issue) and
R-P0 (rd 0: the first STS's word read back, rd 1: the last's, rd 2: the fence's end), then
`x` the largest R-P0 less the same without a copy (ncopy 0, same nsts rd pofs), and the
latest R (the last write seen, absolute)."""
import gzip
import statistics as st
import sys
from collections import defaultdict

path = sys.argv[1]
rows = defaultdict(list)
for line in (gzip.open if path.endswith(".gz") else open)(path, "rt"):
    if line.startswith("#"):
        print(line.rstrip())
        continue
    f = [int(x) for x in line.split()]
    rows[tuple(f[:7])].append(f[8:])


def mcol(v):
    return [st.median(c) for c in zip(*v)]


print("completion: ncopy bdelay | IB I1 D C")
for k in sorted(rows):
    if k[6]:
        m = mcol(rows[k])
        print(f"  {k[0]} {k[1]:4d} | {m[0]:5.0f} {m[1]:5.0f} {m[2]:5.0f} {m[3]:5.0f}")
base = defaultdict(list)
for k, v in rows.items():
    if k[0] == 0 and k[2] > 0:
        m = mcol(v)
        base[k[2:5]].append(max(m[4 + 3 * w + 2] - m[4 + 3 * w] for w in range(4)))
base = {g: st.mean(v) for g, v in base.items()}
groups = defaultdict(list)
for k, v in rows.items():
    if k[2] > 0:
        groups[k[:5]].append((k[5], mcol(v)))
for g in sorted(groups):
    ncopy, bdelay, nsts, rd, pofs = g
    b = base.get(g[2:], 0)
    print(f"== ncopy {ncopy} bdelay {bdelay} nsts {nsts} rd {rd} pofs {pofs}K (no copy: R-P0 {b:.0f}): delay IB P0 | SE-P0 x4 | R-P0 x4 | x | last R")
    for delay, m in sorted(groups[g]):
        w = [m[4 + 3 * i : 7 + 3 * i] for i in range(4)]
        p0 = min(x[0] for x in w)
        se = " ".join(f"{x[1] - x[0]:4.0f}" for x in w)
        r = " ".join(f"{x[2] - x[0]:4.0f}" for x in w)
        x = max(y[2] - y[0] for y in w) - b
        print(f"  {delay:5d} {m[0]:4.0f} {p0:5.0f} | {se} | {r} | {x:+5.0f} | {max(y[2] for y in w):5.0f}")
