"""The timeline stamps of run-*/tl.csv, summarized: `python3 analyze.py RUNDIR`.

Per stamped variant (steps (TLCH + 1) * 64 + 0..3, the first rep), per step and
warpgroup, the median over its 4 warps of: the HGMMAs' issue (b: after the sync, to c:
after the arrive), the warpgroup's own P V done (e: after wait_group 0), its softmax
(e to f) and P's conversion with O's rescale (f to g), and the span between one
warpgroup's P V done and the other's (a block of the tensor core: 16 m64n128k16, 1024
cycles of tensor time, plus whatever the core lost or idled).
"""
import csv, statistics, sys

rows = list(csv.DictReader(open(sys.argv[1] + "/tl.csv")))
for var in sorted({r["variant"] for r in rows}):
    if var.startswith("np"):
        continue  # np's stamps leave out its softmax (see pingpong_split.cu)
    R = [r for r in rows if r["variant"] == var and r["rep"] == "0"]
    base = min(int(r["a"]) for r in R)
    med = {}
    for wg in (0, 1):
        for k in range(4):
            ws = [r for r in R if int(r["warp"]) // 4 == wg and int(r["step"]) == k]
            med[wg, k] = {c: statistics.median(int(r[c]) - base for r in ws) for c in "abcdefg"}
    print(var)
    print("  step wg   issue(b-c)  P V done(e)  softmax(e-f)  convert(f-g)  block since other's e")
    ends = sorted((m["e"], wg, k) for (wg, k), m in med.items())
    prev = {}
    for i, (e, wg, k) in enumerate(ends):
        m = med[wg, k]
        block = e - ends[i - 1][0] if i else float("nan")
        print(f"  {k:4} {wg:2} {m['c'] - m['b']:12.0f} {e:12.0f} {m['f'] - m['e']:13.0f} {m['g'] - m['f']:13.0f} {block:22.0f}")
