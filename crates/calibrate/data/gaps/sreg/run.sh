#!/bin/bash
# Device machine, from this folder: builds every sreg_NAME.cu at three ptxas levels (-O3,
# -O1, -O0: -O3 may merge or hoist repeated reads; -O0 keeps each as written), keeps the
# SASS of each, runs each. Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
B=/tmp/sreg; mkdir -p $B
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
for f in sreg_*.cu; do n=${f%.cu}; for o in 3 1 0; do
  echo "nvcc -O3 -arch=sm_90a -Xptxas -O$o -o $B/$n.O$o $f"
done; done > $B/cmds
# 16 cores: build in parallel; a read whose file fails to build is lost alone
xargs -P 16 -I{} sh -c '{} > /tmp/sreg/$(echo "{}" | md5sum | cut -c1-8).log 2>&1 || echo "FAILED: {}"' < $B/cmds > "$D/build.txt" 2>&1
cat $B/*.log >> "$D/build.txt"; cat "$D/build.txt" | head -40
for o in 3 1 0; do
  for f in sreg_*.cu; do n=${f%.cu}; [ -x $B/$n.O$o ] || continue
    echo "=== $n.O$o"; cuobjdump -sass $B/$n.O$o; done > "$D/sass_O$o.txt" 2>&1
done
: > "$D/raw.txt"
for o in 3 1 0; do
  for f in sreg_*.cu; do n=${f%.cu}; [ -x $B/$n.O$o ] || continue
    echo "=== $n.O$o"; timeout 60 $B/$n.O$o $B/raw.$n.O$o | sed "s/^/O$o /"; echo "rc=${PIPESTATUS[0]}"
    sed "s/^/O$o /" $B/raw.$n.O$o >> "$D/raw.txt"
  done
done > "$D/summary.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,uuid --format=csv >> "$D/env.txt"
gzip -9 "$D"/sass_O*.txt
grep -c "rest\|cold" "$D/summary.txt"; grep "rc=[^0]\|FAILED" "$D/summary.txt" "$D/build.txt" | head
grep "k_.*_u0_k[18] rest launch 1\|k_.*_u1_k[18] rest launch 1" "$D/summary.txt" | head -80
grep -m2 "GPU UUID\|Serial" "$D/env.txt"
