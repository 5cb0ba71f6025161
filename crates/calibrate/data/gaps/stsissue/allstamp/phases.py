# Usage: python3 phases.py STAMPS(.gz). Per case (stamped at every tile, ws_all_kernels.cu):
# the span, the tile period, and relative to E (the last compute warp's `empty` arrive of
# tile t, its K3) the load warp's tile t + 2 (the copies that land in tile t's tail), the
# compute warps' tail of tile t (min..max over warps 4-7) and the store warp's tile t;
# medians over tiles 4..27 and the 7 launches.
import sys, collections, statistics, gzip
med = statistics.median
spans = collections.defaultdict(list)
st = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in gzip.open(sys.argv[1], 'rt'):
    f = line.split()
    if len(f) == 3:
        spans[f[0]].append(int(f[2]))
    elif len(f) == 7:
        name, rep, _, w, t, k, c = f[0], *map(int, f[1:])
        st[name][rep][(w, t, k)] = c
def rel(c, e): return ((c - e + 2**31) % 2**32) - 2**31
for name in sorted(spans):
    print(f"{name}: span {med(spans[name]):.0f} (min {min(spans[name])}, max {max(spans[name])})")
for name in sorted(st):
    rows = collections.defaultdict(list)
    period = []
    for rep, d in st[name].items():
        for t in range(4, 28):
            if any((w, t, 3) not in d for w in range(4, 8)):
                continue
            e = max(d[(w, t, 3)] for w in range(4, 8))
            period.append(rel(d[(4, t + 1, 0)], d[(4, t, 0)]))
            for (w, tt, k), c in d.items():
                if w >= 4 and tt == t: rows[w, 0, k].append(rel(c, e))
                if w == 0 and tt == t + 2: rows[0, 2, k].append(rel(c, e))
                if w == 1 and tt == t: rows[1, 0, k].append(rel(c, e))
    m = lambda w, dt, k: int(med(rows[(w, dt, k)])) if rows.get((w, dt, k)) else None
    rng = lambda k: f"{min(m(w, 0, k) for w in range(4, 8))}..{max(m(w, 0, k) for w in range(4, 8))}"
    print(f"## {name}: tile period {med(period):.0f}")
    print(f"  load t+2: top {m(0, 2, 0)}, empty returned {m(0, 2, 1)}, expect_tx {m(0, 2, 6)}, UTMALDG A {m(0, 2, 7)}, B {m(0, 2, 2)}")
    print(f"  compute t: top {rng(0)}, full returned {rng(1)}, adds done {rng(2)}, empty arrive {rng(3)}, c_empty returned {rng(4)}, STS issued {rng(10)}, fence {rng(5)}, c_full arrive {rng(6)}")
    print(f"  store t: top {m(1, 0, 0)}, c_full returned {m(1, 0, 1)}, store issued {m(1, 0, 2)}, read done {m(1, 0, 3)}, c_empty arrive {m(1, 0, 4)}")
