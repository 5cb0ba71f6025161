#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): the hold probe.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/hold hold.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
mkdir -p /tmp/holdcub
/tmp/hold . hold_kernels.cu /tmp/holdcub > "$D/hold.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
cuobjdump -sass /tmp/holdcub/hold.cubin | gzip -9 > "$D/hold.sass.txt.gz"
cat "$D/run.log"; wc -l "$D/hold.txt"
# summary: median P1-P0 by case (xb pw op: delays 0, 300, 600, 900)
awk '{k=$1" "$2" "$3" "$4; v[k]=v[k]" "$9} END {for (k in v) print k, v[k]}' "$D/hold.txt" | sort -n -k1 -k2 -k3 -k4 | awk '$4 % 300 == 0' | head -120
