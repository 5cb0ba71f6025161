#!/usr/bin/env python3
"""Per-STS issue stamps of the 16-STS points (wshold/drain/): python3 drs.py dr.txt.gz

A held STS shows as a long gap before the NEXT STS's issue stamp (each iteration costs ~28
cycles without a copy). Per point and warp: the gaps over 60 cycles as `j:gap@t` (the stall
after STS j, ending at t cycles after I0); medians of the 5 launches."""
import gzip
import statistics as st
import sys
from collections import defaultdict

rows = defaultdict(list)
for line in gzip.open(sys.argv[1], "rt"):
    f = [int(x) for x in line.split()]
    if f[2] == 16:
        rows[tuple(f[:6])].append(f[7:])
for k in sorted(rows):
    ncopy, bdelay, nsts, rd, pofs, delay = k
    if rd == 1:
        continue
    nr = 1 if rd == 2 else nsts
    m = [st.median(c) for c in zip(*rows[k])]
    x, out = 3, []
    for w in range(4):
        s = [m[x]] + m[x + 1 : x + 1 + nsts]
        x += 3 + nsts + nr
        g = [f"{j - 1}:{s[j] - s[j - 1]:.0f}@{s[j]:.0f}" for j in range(2, len(s)) if s[j] - s[j - 1] > 60]
        out.append(f"w{w} P0 {s[0]:.0f} " + " ".join(g))
    print(f"nc {ncopy} bd {bdelay} rd {rd} pofs {pofs} delay {delay} IB {m[0]:.0f} | " + " | ".join(out))
