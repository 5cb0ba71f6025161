#!/bin/bash
# Device machine, from this folder: the instruction-fetch loops and the load-issue benchmark.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
for p in 0 1 2 3; do nvcc -O3 -arch=sm_90a -DPART=$p -o /tmp/ic$p icache_loop.cu > /tmp/bic$p.log 2>&1 & done
nvcc -O3 -arch=sm_90a -o /tmp/ti tma_issue.cu -lcuda > /tmp/bti.log 2>&1 &
wait
cat /tmp/bic*.log /tmp/bti.log > "$D/build.log"
{ for p in 0 1 2 3; do /tmp/ic$p; done; } > "$D/icache.txt" 2>&1
/tmp/ti > "$D/issue.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
{ for p in 0 1 2 3; do echo "######## ic$p"; cuobjdump -sass /tmp/ic$p; done; echo "######## ti"; cuobjdump -sass /tmp/ti; } > "$D/sass.txt" 2>&1
gzip -9 "$D/sass.txt"
cat "$D/build.log" | head -40
cat "$D/icache.txt" "$D/issue.txt"
