#!/bin/bash
# Device machine, from this folder: nvcc -O3 -arch=sm_90a stsread.cu; its output and SASS.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -arch=sm_90a -o /tmp/stsread stsread.cu 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
/tmp/stsread > "$D/stsread.txt" 2>&1; echo "rc=$?" >> "$D/stsread.txt"
/tmp/stsread > "$D/stsread2.txt" 2>&1; echo "rc=$?" >> "$D/stsread2.txt"
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
cuobjdump -sass /tmp/stsread > "$D/sass.txt" 2>&1
grep -c "STS" "$D/sass.txt"
cat "$D/stsread.txt"
