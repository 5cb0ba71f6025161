#!/bin/bash
# Device machine, from this folder: builds wake.cu, runs it, keeps its SASS.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -arch=sm_90a -o /tmp/wake wake.cu > "$D/build.log" 2>&1
cat "$D/build.log"
timeout 120 /tmp/wake > "$D/wake.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
cuobjdump -sass /tmp/wake > "$D/sass.txt" 2>&1
gzip -9 "$D/sass.txt"
cat "$D/wake.txt"
# the wait loops ptxas emits
zcat "$D/sass.txt.gz" | grep -n "SYNCS\|NANOSLEEP\|BRA\|Function" | head -120
