# Usage: python3 phases.py STAMPS(.gz) [CASE-SUBSTRING]. Reads wsstream/'s stamps; prints, per
# case and kernel, each warp's stamps of tiles T0 and T0 + 1 relative to compute warp 4's
# tile-T0 loop top, median over the launches (K numbers: ws_stamp_kernels.cu's header).
import sys, collections, statistics, gzip
rows = collections.defaultdict(list)
opener = gzip.open if sys.argv[1].endswith('.gz') else open
for line in opener(sys.argv[1], 'rt'):
    f = line.split()
    if len(f) != 7: continue
    name, rep, cta, warp, tile, k, clk = f[0], *map(int, f[1:])
    rows[(name, rep)].append((warp, tile, k, clk))
out = collections.defaultdict(lambda: collections.defaultdict(list))
for (name, rep), st in rows.items():
    t0 = min(t for _, t, _, _ in st)
    ref = [c for w, t, k, c in st if w == 4 and t == t0 and k == 0][0]
    for w, t, k, c in st:
        if w == 2 and k == 10: continue  # the watcher's poll count / poll start
        out[name][(w, t - t0, k)].append(((c - ref + 2**31) % 2**32) - 2**31)
order = {0: 0, 9: 1, 1: 2, 6: 3, 7: 4, 2: 5, 3: 6, 4: 7, 8: 8, 10: 9, 5: 10}
for name in sorted(out):
    if len(sys.argv) > 2 and sys.argv[2] not in name: continue
    print("##", name)
    d = out[name]
    for w in sorted({w for w, _, _ in d}):
        for t in (0, 1):
            ks = sorted((k for ww, tt, k in d if ww == w and tt == t), key=lambda k: order.get(k, k))
            if ks:
                print(f" w{w} T0+{t} " + " ".join(f"{k}:{int(statistics.median(d[(w, t, k)]))}" for k in ks))
