#!/usr/bin/env python3
"""Table of the write-queue window probe (wshold/queue/): python3 qw.py qw.txt[.gz]

A: per box size and count, `full`'s place and the poller, medians of I1 (issue done), D
(warp 0's try_wait return) and C (the polling warp's sight of completion), cycles after
warp 0's clock before expect_tx. Sweeps: per delay, the probe's start P0, its duration,
and its end less the completion (C with the poller, else D) (medians of 5); `held` when
the duration exceeds the same operation's median without a copy by more than 20."""
import gzip
import statistics as st
import sys
from collections import defaultdict

path = sys.argv[1]
rows = (gzip.open if path.endswith(".gz") else open)(path, "rt")
runs = defaultdict(list)
for line in rows:
    if line.startswith("#"):
        print(line.rstrip())
        continue
    f = [int(x) for x in line.split()]
    runs[tuple(f[:8])].append(f[9:])
med = st.median
print("A: poll fofs xb ncopy bytes | I1 D C (medians of 15)")
for k in sorted(runs, key=lambda k: (k[6], k[5], k[0], k[1])):
    xb, n, op, nsts, pofs, fofs, poll, delay = k
    if op == 0:
        v = runs[k]
        print(f"  {poll} {fofs:3d}K {xb:5d} {n} {xb % 1000 * 512 * n:6d} | {med([r[0] for r in v]):6.0f} {med([r[1] for r in v]):6.0f} {med([r[2] for r in v]):6.0f}")
base = defaultdict(list)
for k, v in runs.items():
    if k[1] == 0 and k[2] > 0:
        base[k[2:7]].extend(r[4] for r in v)
base = {k: med(v) for k, v in base.items()}
groups = defaultdict(list)
for k, v in runs.items():
    if k[1] > 0 and k[2] > 0:
        groups[k[:7]].append((k[7], v))
for g in sorted(groups):
    xb, n, op, nsts, pofs, fofs, poll = g
    b = base.get(g[2:], 0)
    ref = "C" if poll else "D"
    print(f"S: xb {xb} ncopy {n} op {op} nsts {nsts} pofs {pofs}K fofs {fofs}K poll {poll} (alone {b:.0f}): delay P0 dur end-{ref} {ref} [held]")
    held = []
    for delay, v in sorted(groups[g]):
        p0, dur = med([r[3] for r in v]), med([r[4] for r in v])
        c = med([r[2] if poll else r[1] for r in v])
        h = dur > b + 20
        if h:
            held.append((p0, p0 + dur - c))
        print(f"  {delay:5d} {p0:6.0f} {dur:6.0f} {p0 + dur - c:+6.0f} {c:6.0f} {'held' if h else ''}")
    if held:
        print(f"  held for P0 in {min(h[0] for h in held):.0f}..{max(h[0] for h in held):.0f}, ending {min(h[1] for h in held):+.0f}..{max(h[1] for h in held):+.0f} against {ref}")
