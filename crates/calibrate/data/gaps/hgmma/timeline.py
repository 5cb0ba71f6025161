#!/usr/bin/env python3
"""The producer's timeline against the consumers' (README, "The producer's timeline").

`python3 timeline.py STAMPS` reads `stamps.cu`'s raw lines (`R pipe name nwg rep k q0 q1 q2 |
c0..c4 per warp`, the GPU's, gzipped or not, or `hgtwin`'s with HGTWIN_STAMPS) and prints per
PIPE and variant, over k-steps 8 to 55 and every launch, the median of each stamp less the
last consumer arrive the producer's wait at k waits for (the arrives at ka = k - pipe + 1):
the producer's q1 (its wait's return: the wake), q2 (its copies issued), q0 of k + 1 (its
next stage's division done); each consumer warp's c4 at ka (its arrive), c0, c1, c2 at ka + 1
(its loop top, its head division done, its full wait's return). And per warp the head
division (c1 - c0) and the k-step (c0 to c0)."""
import gzip, sys, statistics as st
from collections import defaultdict

src = sys.argv[1]
rows = defaultdict(dict)  # (pipe, name) -> {(rep, k): (q, c)}
for l in (gzip.open if src.endswith(".gz") else open)(src, "rt"):
    if not l.startswith("R "):
        continue
    a, b = l.split("|")
    t = a.split()
    pipe, name, rep, k = int(t[1]), t[2] + " " + t[3], int(t[4]), int(t[5])
    q = [int(x) for x in t[6:9]]
    c = [int(x) for x in b.split()]
    nw = len(c) // 5
    rows[(pipe, name)][(rep, k)] = (q, [c[5 * w:5 * w + 5] for w in range(nw)])

def d(x, y):  # 32-bit clock difference
    v = (x - y) & 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v

for (pipe, name), r in rows.items():
    reps = sorted({rk[0] for rk in r})
    nw = len(next(iter(r.values()))[1])
    cols = defaultdict(list)
    for rep in reps:
        for k in range(8, 56):
            ka = k - pipe + 1
            q, _ = r[(rep, k)]
            qn, _ = r[(rep, k + 1)]
            _, ca = r[(rep, ka)]
            _, cb = r[(rep, ka + 1)]
            last = max(range(nw), key=lambda w: d(ca[w][4], ca[0][4]))
            A = ca[last][4]
            cols["last warp"].append(4 + last)
            cols["wake q1"].append(d(q[1], A))
            cols["copies q2"].append(d(q[2], A))
            cols["next div q0"].append(d(qn[0], A))
            for w in range(nw):
                cols[f"w{4 + w} arrive"].append(d(ca[w][4], A))
                cols[f"w{4 + w} top"].append(d(cb[w][0], A))
                cols[f"w{4 + w} div"].append(d(cb[w][1], A))
                cols[f"w{4 + w} full"].append(d(cb[w][2], A))
                cols[f"w{4 + w} headdiv"].append(d(cb[w][1], cb[w][0]))
                cols[f"w{4 + w} kstep"].append(d(cb[w][0], ca[w][0]))
    lw = defaultdict(int)
    for w in cols.pop("last warp"):
        lw[w] += 1
    print(f"PIPE {pipe} {name}: last arriving warp {dict(sorted(lw.items()))}")
    print("  " + "  ".join(f"{k} {st.median(v):.0f}" for k, v in cols.items() if k[1] != " " and not k[1].isdigit()))
    for w in range(nw):
        ks = ["arrive", "top", "div", "full", "headdiv", "kstep"]
        print(f"  w{4 + w:2}: " + "  ".join(f"{x} {st.median(cols[f'w{4 + w} {x}']):.0f}" for x in ks))
