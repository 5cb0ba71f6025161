#!/usr/bin/env python3
"""Per-read latency as the slope over the chain length K of each window's median.
Usage: python3 analyze.py RAW (raw.txt or .gz: 'O<level> <kernel> <launch> <64 window cycles>').
Rep 0 of each launch ('first') is kept apart: the first read of a constant in a launch.
For `chain` the cold half (reps 0-31, new 64-byte lines) and the warm half (the same lines
again) are apart. Pooled over launches 1 and 2 (launch 0 also warms the instruction cache)."""
import sys, re, statistics, gzip
from collections import defaultdict

def lines(path):
    return (gzip.open if path.endswith(".gz") else open)(path, "rt")

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))]

rows = defaultdict(lambda: defaultdict(list))  # (level, read, u, part) -> K -> samples
first = defaultdict(list)
for line in lines(sys.argv[1]):
    f = line.split()
    lvl, kn, launch, vals = f[0], f[1], int(f[2]), [int(x) for x in f[3:]]
    m = re.match(r"k_(\w+)_u(\d)_k(\d+)", kn)
    read, u, k = m.group(1), int(m.group(2)), int(m.group(3))
    first[(lvl, read, u, k)].append(vals[0])
    if launch == 0:
        continue
    if read == "chain":
        h = len(vals) // 2
        rows[(lvl, read, u, "cold")][k] += vals[1:h]
        rows[(lvl, read, u, "warm")][k] += vals[h:]
    else:
        rows[(lvl, read, u, "rest")][k] += vals[1:]

def fit(xs, ys):
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx

print("level read u part | K: median (p10-p90) ... | slope/read, intercept, max |resid| | first (launch 0,1,2) at K=1")
for key in sorted(rows):
    lvl, read, u, part = key
    ks = sorted(rows[key])
    meds = [statistics.median(rows[key][k]) for k in ks]
    b, a = fit(ks, meds)
    res = max(abs(m - (a + b * k)) for k, m in zip(ks, meds))
    cells = " ".join(f"{k}:{m:g}({pct(rows[key][k], .1)}-{pct(rows[key][k], .9)})" for k, m in zip(ks, meds))
    fr = first[(lvl, read, u, 1)]
    print(f"{lvl} {read:8} u{u} {part:4} | {cells} | {b:6.2f} {a:6.1f} {res:5.1f} | {fr}")

# -O1 and -O3 unroll the reps loop four times, so each rep phase (rep mod 4) is its own
# window of SASS: print each phase's median (launches 1 and 2) to read with that SASS.
print("\nlevel kernel | median by rep phase 0..3 (rep mod 4; the unrolled loop's four windows)")
ph = defaultdict(list)
for line in lines(sys.argv[1]):
    f = line.split()
    if f[0] == "O0" or int(f[2]) == 0 or "chain" in f[1]:
        continue
    v = [int(x) for x in f[3:]]
    for p in range(4):
        ph[(f[0], f[1], p)] += v[4 + p :: 4]
for lvl, kn in sorted({(a, b) for a, b, _ in ph}):
    print(f"{lvl} {kn:18} | " + " ".join(f"{statistics.median(ph[(lvl, kn, p)]):g}" for p in range(4)))
