#!/usr/bin/env python3
"""Rates while overlapped, from mufu_tensor's checkpoints (cp.csv).

For every variant with both roles on one SM: the tensor core's cycles per wgmma over
the tensor chunks that ran entirely while the other warps ran, and the other warps'
cycles per warp-instruction per sub-partition over their chunks that ran entirely while
the tensor warps ran (each chunk is 1/16 of a warp's loop; times are clock64 of the
chunk's end, per warp lane 0). Usage: analyze.py cp.csv
"""
import csv
import statistics
import sys
from collections import defaultdict

NCP = 16
# (tensor warpgroups, wgmma per iteration, tensor iterations, other warpgroups, other iterations)
VARIANTS = {
    "t2+m1.mlong": (2, 4, 2048, 1, 4096),
    "t2+m1.tlong": (2, 4, 4096, 1, 1024),
    "t1+m2.mlong": (1, 4, 2048, 2, 4096),
    "t1+m1.mlong": (1, 4, 2048, 1, 4096),
    "t2rs+m1.mlong": (2, 4, 2048, 1, 4096),
    "t2rs+m1.tlong": (2, 4, 4096, 1, 1024),
    "t2+f1.mlong": (2, 4, 2048, 1, 32768),
    "t2+fmnmx.mlong": (2, 4, 2048, 1, 32768),
    "t2+fmul.mlong": (2, 4, 2048, 1, 32768),
    "t2+lop3.mlong": (2, 4, 2048, 1, 32768),
    "t2+f2fp.mlong": (2, 4, 2048, 1, 32768),
}


def main(path):
    runs = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            c = [int(row[f"c{i}"]) for i in range(NCP + 1)]
            runs[(row["variant"], int(row["rep"]))].append((row["role"], c))
    print(f"{'variant':16} {'rep':>3} {'T cyc/wgmma (overlapped)':>25} {'O cyc/instr/SP (overlapped)':>28}")
    out = defaultdict(lambda: ([], []))
    for (v, rep), warps in sorted(runs.items()):
        if v not in VARIANTS:
            continue
        nt, wpi, ti, nm, mi = VARIANTS[v]
        t = [c for r, c in warps if r == "tensor"]
        o = [c for r, c in warps if r == "other"]
        o_lo, o_hi = max(c[0] for c in o), min(c[NCP] for c in o)
        t_lo, t_hi = max(c[0] for c in t), min(c[NCP] for c in t)
        # Chunks of warp 0 of each role (all warps of a role move together).
        def rate(cs, lo, hi, per_chunk):
            c = cs[0]
            inside = [i for i in range(NCP) if c[i] >= lo and c[i + 1] <= hi]
            if not inside:
                return None
            cyc = sum(c[i + 1] - c[i] for i in inside)
            return cyc / (len(inside) * per_chunk)
        # A tensor chunk is ti/16 iterations of wpi wgmma per warpgroup, nt warpgroups
        # sharing the tensor core; an other chunk mi/16 rounds of 64 instructions per
        # warp, nm warps per sub-partition.
        tr = rate(t, o_lo, o_hi, ti / NCP * wpi * nt)
        orr = rate(o, t_lo, t_hi, mi / NCP * 64 * nm)
        out[v][0].append(tr) if tr else None
        out[v][1].append(orr) if orr else None
        fmt = lambda x: f"{x:.2f}" if x else "-"
        print(f"{v:16} {rep:>3} {fmt(tr):>25} {fmt(orr):>28}")
    print("\nmedians")
    for v, (a, b) in out.items():
        m = lambda x: f"{statistics.median(x):.2f}" if x else "-"
        print(f"{v:16} tensor {m(a):>8}  other {m(b):>8}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cp.csv")
