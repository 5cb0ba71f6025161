#!/usr/bin/env python3
"""The stamped build's SASS as its twins read it (data/gaps/hgmma/README.md).

`python3 twin_sass.py DUMP.sass.txt.gz > OUT.sass.txt`: the `cuobjdump -sass` dump with each
k-step's raw-record region (a forward `@P BRA` over four or more `STG`, no synchronization,
copy or MMA inside; lane 0 stores its stamps there on 6 of the 64 k-steps) left out, so the
twin, which issues a region of scalar code inline, runs the path the GPU runs on the other
58. Every other line passes unchanged."""
import gzip, re, sys

ANCHORS = ("SYNCS", "HGMMA", "WARPGROUP", "BAR.", "UTMALDG", "UBLKCP")
src = sys.argv[1]
lines = (gzip.open if src.endswith(".gz") else open)(src, "rt").read().split("\n")
addr_re = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s*(.*?);")
# (line index, address, instruction) of every instruction line
ins = [(i, int(m.group(1), 16), m.group(2).strip()) for i, l in enumerate(lines) if (m := addr_re.match(l))]
drop = set()
for n, (i, a, t) in enumerate(ins):
    m = re.match(r"@!?P\d BRA (0x[0-9a-f]+)$", t)
    if not m or int(m.group(1), 16) <= a:
        continue
    target = int(m.group(1), 16)
    inside = []
    for j, b, u in ins[n + 1:]:
        if b >= target:
            break
        inside.append((j, u))
    bare = [u.split(" ", 1)[1] if u.startswith("@") else u for _, u in inside]
    if sum(u.startswith("STG") for u in bare) >= 4 and not any(u.startswith(ANCHORS) for u in bare):
        for j, _ in inside:
            drop.update((j, j + 1))  # the instruction and its second control line
sys.stdout.write("\n".join(l for k, l in enumerate(lines) if k not in drop))
