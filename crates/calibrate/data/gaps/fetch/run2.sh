#!/bin/bash
# Device machine, from this folder: the second run (the pairs with the co-runner's trips,
# the load issue beside co-runners of several shapes).
# Usage: bash run2.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env2.txt" 2>&1
nvcc -O3 -arch=sm_90a -DPART=4 -o /tmp/ic4 icache_loop.cu > /tmp/bic4.log 2>&1 &
nvcc -O3 -arch=sm_90a -o /tmp/ti2 tma_issue2.cu -lcuda > /tmp/bti2.log 2>&1 &
wait
cat /tmp/bic4.log /tmp/bti2.log > "$D/build2.log"
/tmp/ic4 > "$D/icache2.txt" 2>&1
/tmp/ti2 > "$D/issue2.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env2.txt"
{ echo "######## ic4"; cuobjdump -sass /tmp/ic4; echo "######## ti2"; cuobjdump -sass /tmp/ti2; } > "$D/sass2.txt" 2>&1
gzip -9 "$D/sass2.txt"
head -40 "$D/build2.log"
cat "$D/icache2.txt" "$D/issue2.txt"
