#!/usr/bin/env python3
"""Table of the write-queue drain probe (wshold/drain/): python3 dr.py dr.txt[.gz] [-v]

Medians over the 5 launches of a point, element by element, in cycles after I0 (warp 0's
clock before the expect_tx; A issues at ~60). Per point: P0 (warps 4..7's first stamp,
min..max), the STS issue span (last S_j less P0, max over warps), SE (after the last STS),
and the completion: rd 0/1 each STS's R_j (its read-after-write LDS returned), rd 2 the
fence's end; `w` the write times of all warps' STS sorted (first, quartiles, last) and
`dR` the median step between successive R of one warp. -v prints every warp's R_j."""
import gzip
import statistics as st
import sys
from collections import defaultdict

path = sys.argv[1]
verbose = "-v" in sys.argv
rows = defaultdict(list)
for line in (gzip.open if path.endswith(".gz") else open)(path, "rt"):
    if line.startswith("#"):
        print(line.rstrip())
        continue
    f = [int(x) for x in line.split()]
    rows[tuple(f[:7][:6])].append(f[7:])
med = st.median


def mcol(v):
    return [med(c) for c in zip(*v)]


groups = defaultdict(list)
for k, v in rows.items():
    groups[k[:5]].append((k[5], mcol(v)))
print("ncopy bdelay nsts rd pofs: delay | IB D | P0 lo..hi | issue span | SE | writes first q1 med q3 last | dR | END")
for g in sorted(groups):
    ncopy, bdelay, nsts, rd, pofs = g
    nr = 1 if rd == 2 else nsts
    print(f"== ncopy {ncopy} bdelay {bdelay} nsts {nsts} rd {rd} pofs {pofs}K")
    for delay, m in sorted(groups[g]):
        ib, i1, d = m[0], m[1], m[2]
        ws, p0s, spans, ses, ends, steps = [], [], [], [], [], []
        per = []
        x = 3
        for w in range(4):
            p0 = m[x]
            s = m[x + 1 : x + 1 + nsts]
            se = m[x + 1 + nsts]
            r = m[x + 2 + nsts : x + 2 + nsts + nr]
            e = m[x + 2 + nsts + nr]
            x += 3 + nsts + nr
            p0s.append(p0)
            spans.append(s[-1] - p0)
            ses.append(se)
            ends.append(e)
            ws.extend(r)
            per.append((p0, s, r))
            if nr > 1:
                rr = sorted(r)
                steps.extend(b - a for a, b in zip(rr, rr[1:]))
        ws.sort()
        q = lambda f: ws[min(len(ws) - 1, int(f * (len(ws) - 1) + 0.5))]
        dr = f"{med(steps):5.1f}" if steps else "    -"
        print(
            f"  {delay:5d} | {ib:4.0f} {d:5.0f} | {min(p0s):5.0f}..{max(p0s):5.0f} | {max(spans):4.0f} | {max(ses):5.0f} |"
            f" {ws[0]:5.0f} {q(.25):5.0f} {q(.5):5.0f} {q(.75):5.0f} {ws[-1]:5.0f} | {dr} | {max(ends):5.0f}"
        )
        if verbose:
            for w, (p0, s, r) in enumerate(per):
                print(f"      w{w} P0 {p0:.0f} S-P0 {[round(t - p0) for t in s]} R {[round(t) for t in r]}")
