# Usage: python3 phases.py STAMPS(.gz) [CASE-SUBSTRING]. Reads a stamps3 file; prints, per case and kernel, each warp's stamps of tiles 12 and 13
# relative to compute warp 4's (or warp 0's) tile-12 loop top, median over the launches.
import sys, collections, statistics, gzip
rows = collections.defaultdict(list)
opener = gzip.open if sys.argv[1].endswith('.gz') else open
for line in opener(sys.argv[1], 'rt'):
    f = line.split()
    if len(f) != 7: continue
    name, rep, cta, warp, tile, k, clk = f[0], *map(int, f[1:])
    if cta != 0: continue
    rows[(name, rep)].append((warp, tile, k, clk))
out = collections.defaultdict(lambda: collections.defaultdict(list))
for (name, rep), st in rows.items():
    ref_w = 4 if name.startswith("warp") else 0
    ref = [c for w, t, k, c in st if w == ref_w and t == 12 and k == 0][0]
    for w, t, k, c in st:
        out[name][(w, t, k)].append(((c - ref + 2**31) % 2**32) - 2**31)
for name in sorted(out):
    if len(sys.argv) > 2 and sys.argv[2] not in name: continue
    print("##", name)
    d = out[name]
    for w in sorted({w for w, _, _ in d}):
        for t in (12, 13):
            ks = sorted(k for ww, tt, k in d if ww == w and tt == t)
            order = {0:0, 9:1, 1:2, 2:3, 3:4, 4:5, 10:6, 5:7, 6:8, 7:9, 8:10}
            ks.sort(key=lambda k: order.get(k, k))
            print(f" w{w} t{t} " + " ".join(f"{k}:{int(statistics.median(d[(w,t,k)]))}" for k in ks))
