#!/bin/bash
# Device machine, from this folder: nvcc -O3 -arch=sm_90a predsts.cu; its output and SASS.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -arch=sm_90a -o /tmp/predsts predsts.cu 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
/tmp/predsts > "$D/predsts.txt" 2>&1; echo "rc=$?" >> "$D/predsts.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
cuobjdump -sass /tmp/predsts > "$D/sass.txt" 2>&1
grep -n "STS\|MEMBAR\|CS2R\|S2UR" "$D/sass.txt" | head -40
cat "$D/predsts.txt"
