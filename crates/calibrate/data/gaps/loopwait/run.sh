#!/bin/bash
# Device machine, from this folder: builds loopwait.cu, runs it, keeps its SASS.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -arch=sm_90a -o /tmp/loopwait loopwait.cu > "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
cat "$D/build.log"
cuobjdump -sass /tmp/loopwait > "$D/sass.txt" 2>&1
timeout 200 /tmp/loopwait > "$D/loopwait.txt" 2>&1; echo "rc=$?" >> "$D/loopwait.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
gzip -9 "$D/sass.txt"
cat "$D/loopwait.txt"
grep -m2 "GPU UUID\|Serial" "$D/env.txt"
