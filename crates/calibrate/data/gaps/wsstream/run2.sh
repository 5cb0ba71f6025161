#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): the validation
# kernels with their shared memory laid out otherwise (lay.cpp). Usage: KDIR=. bash run2.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env2.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/lay lay.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build2.log" || { cat "$D/build2.log"; exit 1; }
mkdir -p /tmp/cublay
/tmp/lay "${KDIR:-../../../kernels}" /tmp/cublay > "$D/lay.txt" 2> "$D/run2.log"; echo "rc=$?" >> "$D/run2.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env2.txt"
for f in /tmp/cublay/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done > "$D/sass2.txt" 2>&1
gzip -9 "$D/sass2.txt"
awk 'NF == 3 {v[$1] = v[$1] " " $3} END {for (k in v) print k, v[k]}' "$D/lay.txt" | sort
grep "^#" "$D/lay.txt" | head
head -c 3000 "$D/run2.log"
