#!/bin/bash
# Device machine, from this folder: builds and runs region.cu, then lanewait.cu again (a
# second GPU for the first call's figures), keeping both SASS dumps.
# Usage: bash run2.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -arch=sm_90a -o /tmp/region region.cu > "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
nvcc -O3 -arch=sm_90a -o /tmp/lanewait lanewait.cu >> "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
cat "$D/build.log"
{ cuobjdump -sass /tmp/region; cuobjdump -sass /tmp/lanewait; } > "$D/sass.txt" 2>&1
timeout 120 /tmp/region > "$D/region.txt" 2>&1; echo "rc=$?" >> "$D/region.txt"
timeout 200 /tmp/lanewait > "$D/lanewait.txt" 2>&1; echo "rc=$?" >> "$D/lanewait.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
gzip -9 "$D/sass.txt"
cat "$D/region.txt"
grep "^lane0\|^warp " "$D/lanewait.txt" | head -30
grep -m2 "GPU UUID\|Serial" "$D/env.txt"
