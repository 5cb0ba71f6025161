#!/usr/bin/env python3
"""The figures of README.md's run-20261128T0516Z section, from the files in this folder.

Per call, per (rotation, kernel, PIPE, grid, L2 state): the median over reps of the median
CTA's span (cycles; call 1 has no summary.csv, the device tool did not return it: there the
median CTA's release of the last stage stands in) and of the clock (MHz, clock64 over
%globaltimer); the k-step time (release[k] - release[k-1], medians over CTAs) over k-steps
1-15, 16-47, 48-63; the stage latency (release[k] - issue[k]) over k 16-63; and from rep 2's
per-CTA stamps the spread of the CTAs' releases (max - min) at k-steps 0, 8, 32, 63.
Usage: python3 analyze.py [call1 call2 call3]"""
import csv, gzip, os, statistics as st, sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def key_of(r):
    return (r.get("rota", "0") + "/" + r.get("rotb", "0"), r["kernel"], r["pipe"], r["grid"], r["state"])


def call(name):
    d = os.path.join(HERE, name)
    ks = defaultdict(dict)
    for r in csv.DictReader(gzip.open(os.path.join(d, "kstep.csv.gz"), "rt")):
        ks[key_of(r) + (int(r["rep"]),)][int(r["k"])] = r
    span, mhz = defaultdict(list), defaultdict(list)
    summ = os.path.join(d, "summary.csv")
    if os.path.exists(summ):
        for r in csv.DictReader(open(summ)):
            span[key_of(r)].append(float(r["median_cta_cycles"]))
            mhz[key_of(r)].append(float(r["mhz"]))
            assert r["err"] == "0", r
    steps = defaultdict(list)
    for k, v in ks.items():
        kt = len(v)
        rel = [float(v[i]["release"]) for i in range(kt)]
        iss = [float(v[i]["issue"]) for i in range(kt)]
        step = [rel[i] - rel[i - 1] for i in range(1, kt)]
        steps[k[:-1]].append((st.mean(step[0:15]), st.mean(step[15:47]), st.mean(step[47:]),
                              st.mean(rel[i] - iss[i] for i in range(16, kt))))
        if not os.path.exists(summ):
            span[k[:-1]].append(rel[-1])
    spread = defaultdict(dict)
    rel = defaultdict(lambda: defaultdict(list))
    for r in csv.DictReader(gzip.open(os.path.join(d, "cta_k.csv.gz"), "rt")):
        rel[key_of(r)][int(r["k"])].append(int(r["release"]))
    for k, v in rel.items():
        spread[k] = {i: max(v[i]) - min(v[i]) for i in (0, 8, 32, 63)}
    print(f"== {name}")
    print("rotA/rotB kernel PIPE grid state | span kcyc: median [min..max] of reps | MHz | "
          "k-step cycles 1-15/16-47/48-63 | stage latency 16-63 | CTA spread at k 0/8/32/63 (rep 2)")
    for k in span:
        s, m, p = span[k], mhz.get(k), [round(st.median(x[i] for x in steps[k])) for i in range(4)]
        sp = spread.get(k, {})
        print(f"{' '.join(k)} | {st.median(s)/1e3:.1f} [{min(s)/1e3:.1f}..{max(s)/1e3:.1f}] | "
              f"{round(st.median(m)) if m else '-'} | {p[0]}/{p[1]}/{p[2]} | {p[3]} | "
              f"{'/'.join(str(sp.get(i, '-')) for i in (0, 8, 32, 63))}")


for c in sys.argv[1:] or ["call1", "call2", "call3"]:
    call(c)
