#!/bin/bash
# Compares builds of the `speed` example on a noisy machine: the binaries alternate run
# by run (ROUNDS rounds, default 40; each the fastest of 3 runs of a kernel), pinned to
# one core (CORE, default 0), and each binary's time over the first's is taken per
# round: the median of those ratios is the measure (a shared VM slows every binary
# together, by up to 2x, so the fastest time alone misleads).
#   scripts/speed-ab.sh target/before/speed target/after/speed
# Run from the repository root (the kernels are crates/sim-core/benches/*.smk).
# KERNELS picks kernels (default: chain gemm issue coalesced). Needs python3 and taskset.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SPEED_BINARY SPEED_BINARY..." >&2; exit 2; }
R=${ROUNDS:-40}
KS=${KERNELS:-chain gemm issue coalesced}
CORE=${CORE:-0}
raw=$(mktemp)
for k in $KS; do
  for r in $(seq "$R"); do
    for b in "$@"; do
      ms=$(taskset -c "$CORE" "$b" "$k" 3 | awk '{print $7}')
      echo "$k $r $b $ms" >> "$raw"
    done
  done
done
python3 - "$raw" "$@" <<'PY'
import sys, collections, statistics
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
t = collections.defaultdict(dict)
for k, r, n, v in rows:
    t[(k, r)][n] = float(v)
for k in dict.fromkeys(x[0] for x in rows):
    rounds = [d for (kk, _), d in t.items() if kk == k]
    print(k)
    for n in names:
        fastest = min(d[n] for d in rounds)
        ratio = statistics.median(d[n] / d[names[0]] for d in rounds)
        print(f"  {n}: fastest {fastest:.2f} ms, median time ratio {ratio:.3f}")
PY
rm -f "$raw"
