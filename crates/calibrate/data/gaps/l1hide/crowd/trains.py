#!/usr/bin/env python3
"""How the warps end in each state: per launch, the warps sorted by their last stamp
(c1); the spread of the ends (last - first), the median gap between consecutive ends,
and the share of consecutive ends on the same sub-partition (%warpid % 4; 1/4 if the
order ignored the SMSPs). Grouped by variant, point and state (uncrowded: cycles a line
below 1.06). Usage: python3 trains.py h200-...out.gz"""
import gzip
import sys
from collections import defaultdict
from statistics import median

from summarize import EDGE, ITERS

rows = defaultdict(list)
for line in gzip.open(sys.argv[1], "rt"):
    f = line.split()
    if not f or f[0] != "L":
        continue
    key = (int(f[1]), f[2], int(f[3]), int(f[4]), int(f[5]))
    rows[key].append((int(f[6]), int(f[8]), int(f[9]), int(f[10])))
agg = defaultdict(list)
for (p, name, W, K, r), ws in rows.items():
    x = sum(c1 - c0 for (_, c0, c1, _) in ws) / len(ws) / ITERS / (32 * W)
    state = "uncrowded" if x < EDGE else "crowded"
    ends = sorted(ws, key=lambda t: t[2])
    gaps = [b[2] - a[2] for a, b in zip(ends, ends[1:])]
    same = sum(1 for a, b in zip(ends, ends[1:]) if a[3] % 4 == b[3] % 4) / len(gaps)
    agg[(name, W, K, state)].append((ends[-1][2] - ends[0][2], median(gaps), same))
print("| variant | W | K | state | launches | end spread | median end gap | same-SMSP next |")
print("|---|---|---|---|---|---|---|---|")
for (name, W, K, state), v in sorted(agg.items()):
    print(f"| {name} | {W} | {K} | {state} | {len(v)} | {median(a for a, _, _ in v):.0f} | "
          f"{median(b for _, b, _ in v):.0f} | {median(c for _, _, c in v):.2f} |")
