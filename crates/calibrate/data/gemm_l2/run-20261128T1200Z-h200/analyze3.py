#!/usr/bin/env python3
"""The figures of README.md's run-k1024 section from w/ (summary.csv, kstep.csv.gz):
per case the median over reps of the median CTA's span, cycles per k-step (span / k-steps),
the steady k-step (release[k] - release[k-1], medians over CTAs, k-steps 2 .. kt-1) and the
stage latency (release[k] - issue[k], k-steps pipe .. kt-1: the copies' issue to the
consumer's release from the full barrier), and the CTAs' end spread (ns).
Usage: python3 analyze3.py [DIR]"""
import csv, gzip, os, statistics as st, sys
from collections import defaultdict
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
key = lambda r: (r["set"], r["kernel"], int(r["pipe"]), int(r["grid"]), int(r["K"]), int(r["swap"]))
span, spread = defaultdict(list), defaultdict(list)
for r in csv.DictReader(open(os.path.join(d, "summary.csv"))):
    assert r["err"] == "0", r
    span[key(r)].append(float(r["median_cta_cycles"]))
    spread[key(r)].append(int(r["end_spread_ns"]))
ks = defaultdict(lambda: defaultdict(dict))
for r in csv.DictReader(gzip.open(os.path.join(d, "kstep.csv.gz"), "rt")):
    ks[key(r)][int(r["rep"])][int(r["k"])] = (float(r["arrive"]), float(r["release"]), float(r["issue"]))
print("set kernel PIPE grid K swap | span (median of reps) | per k-step | steady k-step | stage latency | end spread ns")
for k, s in span.items():
    kt = k[4] // 64
    step, lat = [], []
    for rep, v in ks[k].items():
        step.append(st.mean(v[i][1] - v[i - 1][1] for i in range(2, kt)))
        lat.append(st.mean(v[i][1] - v[i][2] for i in range(k[2], kt)))
    print(f"{' '.join(map(str, k))} | {st.median(s):.0f} | {st.median(s) / kt:.0f} | {st.median(step):.0f} | "
          f"{st.median(lat):.0f} | {min(spread[k])}..{max(spread[k])}")
