#!/usr/bin/env python3
"""Reads crowd.cu's output (one line per warp per launch) and prints, per variant and
point, the launches of each pass in the uncrowded state (mean warp's own cycles a line
below 1.06, as data/gaps/l1hide/README.md), the median cycles a line of each state, and
the start offsets the delays produced.

Usage: python3 summarize.py crowd.out [--launches]"""
import sys
from collections import defaultdict
from statistics import median

ITERS = 512
EDGE = 1.06  # cycles a line: below, the launch is uncrowded (README's classification)


def read(path):
    launches = defaultdict(list)  # (pass, variant, W, K, launch) -> [(w, s0, c0, c1, hw, d)]
    meta = {}
    order = []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "#" and len(f) == 3 and f[1] != "cols:":
            meta[f[1]] = f[2]
        if f[0] != "L":
            continue
        p, name, W, K, r, w = int(f[1]), f[2], int(f[3]), int(f[4]), int(f[5]), int(f[6])
        s0, c0, c1, hw, d = (int(x) for x in f[7:12])
        key = (p, name, W, K, r)
        if key not in launches:
            order.append(key)
        launches[key].append((w, s0, c0, c1, hw, d))
    return launches, order, meta


def per_line(warps, W):
    spans = [c1 - c0 for (_, _, c0, c1, _, _) in warps]
    return sum(spans) / len(spans) / ITERS / (32 * W)


def main():
    path = sys.argv[1]
    launches, order, meta = read(path)
    for k, v in meta.items():
        print(f"{k}: {v}")
    variants, points = [], []
    for (p, name, W, K, r) in order:
        if name not in variants:
            variants.append(name)
        if (W, K) not in points:
            points.append((W, K))
    # sub-partition check: hardware %warpid % 4 against w % 4
    # (the SMSP is taken as %warpid % 4): does w % 4 pick one SMSP in every launch?
    maps = defaultdict(int)
    for ws in launches.values():
        m = {}
        ok = all(m.setdefault(w % 4, hw % 4) == hw % 4 for (w, _, _, _, hw, _) in ws)
        maps[tuple(sorted(m.items())) if ok else "mixed"] += 1
    for m, n in sorted(maps.items(), key=lambda t: -t[1]):
        print(f"w % 4 -> %warpid % 4 {m}: {n} launches")
    stats = {}
    for (p, name, W, K, r), ws in launches.items():
        x = per_line(ws, W)
        stats.setdefault((name, W, K, p), []).append(x)
    head = "| variant | " + " | ".join(f"{W} w K {K}" for (W, K) in points) + " |"
    print("\nUncrowded launches (cycles a line < %.2f), pass 1 / pass 2, of each pass's:" % EDGE)
    print(head)
    print("|---" * (len(points) + 1) + "|")
    for name in variants:
        cells = []
        for (W, K) in points:
            parts = []
            for p in (0, 1):
                xs = stats.get((name, W, K, p), [])
                parts.append(f"{sum(1 for x in xs if x < EDGE)}" if xs else "-")
            n = len(stats.get((name, W, K, 0), []))
            cells.append(" / ".join(parts) + f" of {n}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nMedian cycles a line, uncrowded ; crowded (both passes):")
    print(head)
    print("|---" * (len(points) + 1) + "|")
    for name in variants:
        cells = []
        for (W, K) in points:
            xs = stats.get((name, W, K, 0), []) + stats.get((name, W, K, 1), [])
            lo = [x for x in xs if x < EDGE]
            hi = [x for x in xs if x >= EDGE]
            a = f"{median(lo):.3f}" if lo else "-"
            b = f"{median(hi):.3f}" if hi else "-"
            cells.append(f"{a} ; {b}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nEvery launch's cycles a line (pass 1, then pass 2), min/max of the set:")
    for name in variants:
        for (W, K) in points:
            for p in (0, 1):
                xs = stats.get((name, W, K, p), [])
                if xs:
                    print(f"{name:14s} W{W:2d} K{K:2d} p{p + 1}: " + " ".join(f"{x:.3f}" for x in xs))
    print("\nStart offsets (median over launches of c0 - min c0, per warp), pass 1:")
    for name in variants:
        (W, K) = points[0]
        offs = defaultdict(list)
        for (p, n2, W2, K2, r), ws in launches.items():
            if (p, n2, W2, K2) != (0, name, W, K):
                continue
            m = min(c0 for (_, _, c0, _, _, _) in ws)
            for (w, _, c0, _, _, _) in ws:
                offs[w].append(c0 - m)
        print(f"{name:14s} W{W} K{K}: " + " ".join(str(int(median(offs[w]))) for w in sorted(offs)))
    if "--launches" in sys.argv:
        pass


if __name__ == "__main__":
    main()
