#!/usr/bin/env python3
"""Read each kernel's loop from the SASS and set the GPU's cycles an iteration beside two
register-bank models. Usage: banks.py SASS.txt OUT.txt (OUT: fbank.txt / fbank2.txt, whose
summary gives cycles an instruction; 64 FADD/FFMA an iteration).

Bank of R n: n mod 2. An operand read from the reuse cache (same register, same slot, the
previous instruction flagged it .reuse) reads no bank.
  engine: an instruction takes 1 + (most reads in one bank - 1) cycles to dispatch
          (reg_banks 2, reg_bank_ports 1, reg_bank_conflict_cycles 1, per instruction)
  port:   each bank serves one read a cycle, in order; an instruction issues at the
          earliest cycle t (one a cycle at most) such that all its reads are served by
          t + w, w = max(1, most reads in one bank - 1) (a bank's reads may spill one cycle
          into the next instruction's)
Predicted cycles an iteration = the conflict-free loop's measured cycles (fa_diff) plus the
model's extra cycles over one a cycle for the loop's instructions, ports idle at its head
(the loop's back branch stalls longer than any backlog)."""
import re, sys
from collections import Counter

def loops(path):
    fn, body = None, {}
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            fn = m.group(1); body[fn] = []; continue
        m = re.search(r"/\*([0-9a-f]{4})\*/\s+(.*?);", line)
        if m and fn:
            body[fn].append((int(m.group(1), 16), m.group(2).strip()))
    out = {}
    for fn, ins in body.items():
        loop = None
        for pc, t in ins:
            b = re.match(r"(@!?U?P\d+ )?BRA (0x[0-9a-f]+)", t)
            if b and int(b.group(2), 16) < pc:
                loop = (int(b.group(2), 16), pc)
        if loop:
            out[fn] = [t for pc, t in ins if loop[0] <= pc <= loop[1]]
    return out

def reads(seq):
    """Each instruction's banks read (a list of 0/1), the reuse cache applied."""
    cache, res = {}, []
    for t in seq:
        m = re.match(r"(FADD|FFMA)\s+R\d+,\s*(.*)", t)
        if not m:
            res.append([]); cache = {}; continue
        banks = []
        for slot, s in enumerate(x.strip() for x in m.group(2).split(",")):
            r = re.match(r"-?R(\d+)(\.reuse)?$", s)
            if not r:
                continue
            reg = int(r.group(1))
            if cache.get(slot) != reg:
                banks.append(reg % 2)
            if r.group(2):
                cache[slot] = reg
            else:
                cache.pop(slot, None)
        res.append(banks)
    return res

def engine_extra(rs):
    return sum(max(Counter(b).values()) - 1 for b in rs if b)

def port_extra(rs):
    free = [0, 0]  # next cycle each bank's port is free
    t = -1
    for b in rs:
        t += 1
        w = max(1, max(Counter(b).values()) - 1) if b else 1
        while True:
            f, ok = list(free), True
            for k in b:
                if f[k] > t + w:
                    ok = False; break
                f[k] = max(f[k], t) + 1
            if ok:
                free = f; break
            t += 1
    return t + 1 - len(rs)

def measured(path):
    m = {}
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[1] == "1" and not line.startswith("#") and "." in p[2]:
            m[p[0]] = float(p[2]) * 64
    return m

seqs, meas = loops(sys.argv[1]), measured(sys.argv[2])
base = meas["fa_diff"]
print(f"{'kernel':10s} {'conflicted':>10s} {'GPU':>7s} {'engine':>7s} {'port':>7s}   (cycles an iteration, one warp)")
for fn in sorted(seqs):
    if fn not in meas:
        continue
    rs = reads(seqs[fn])
    n = sum(1 for b in rs if b and max(Counter(b).values()) > 1)
    print(f"{fn:10s} {n:10d} {meas[fn]:7.1f} {base + engine_extra(rs):7.1f} {base + port_extra(rs):7.1f}")
