# Usage: python3 table.py STAMPS(.gz). Per case: the spans (median of 7 launches) and, relative
# to E (the last compute warp's `empty` arrive of tile T0, its K3), the load warp's issue of tile
# T0 + 2's copies, the compute warps' tail of tile T0 (min..max over warps 4-7), the store warp's
# tile T0, the watcher's first poll seeing tile T0 + 2's bytes (`-w` only; polls ~130 cycles
# apart, so each is a bound from above), medians over the launches.
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
    for rep, d in st[name].items():
        t0 = min(t for _, t, _ in d)
        e = max(d[(w, t0, 3)] for w in range(4, 8))
        for key, c in d.items():
            rows[key[0], key[1] - t0, key[2]].append(rel(c, e))
    m = lambda w, dt, k: int(med(rows[(w, dt, k)])) if rows.get((w, dt, k)) else None
    rng = lambda k: f"{min(m(w, 0, k) for w in range(4, 8))}..{max(m(w, 0, k) for w in range(4, 8))}"
    print(f"## {name}")
    print(f"  load T0+2: empty returned {m(0, 0, 4)}, expect_tx {m(0, 0, 8)}, UTMALDG A {m(0, 0, 9)}, B {m(0, 0, 5)}")
    print(f"  compute T0: c_empty returned {rng(4)}, STS issued {rng(10)}, fence {rng(5)}, c_full arrive {rng(6)}")
    print(f"  store T0: c_full returned {m(1, 0, 1)}, store issued {m(1, 0, 2)}, read done {m(1, 0, 3)}, c_empty arrive {m(1, 0, 4)}")
    if rows.get((2, 0, 6)):
        print(f"  watcher T0+2 seen: A first {m(2, 0, 6)}, A last {m(2, 0, 7)}, B first {m(2, 0, 8)}, B last {m(2, 0, 9)}; full returned {m(2, 0, 1)}")
