#!/bin/bash
# Device machine, from this folder: builds lanewait.cu, runs it, keeps its SASS.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -arch=sm_90a -o /tmp/lanewait lanewait.cu > "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
cat "$D/build.log"
cuobjdump -sass /tmp/lanewait > "$D/sass.txt" 2>&1
timeout 300 /tmp/lanewait > "$D/lanewait.txt" 2>&1; echo "rc=$?" >> "$D/lanewait.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
gzip -9 "$D/sass.txt"
cat "$D/lanewait.txt"
grep -m2 "GPU UUID\|Serial" "$D/env.txt"
