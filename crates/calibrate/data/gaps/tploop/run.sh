#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): builds the
# harness, runs the plain and segment-summed tma-pipelined kernels, keeps their SASS.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/tploop tploop.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc > "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
mkdir -p /tmp/cubtl
/tmp/tploop . tploop_kernels.cu /tmp/cubtl > "$D/tploop.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
for f in /tmp/cubtl/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done > "$D/sass.txt" 2>&1
gzip -9 "$D/sass.txt"
cat "$D/run.log"
grep -c . "$D/tploop.txt"
grep -- "-plain [0-9] [0-9]*$\|-acc [0-9] [0-9]*$\|-ns [0-9] [0-9]*$" "$D/tploop.txt" | awk '{k=$1; v[k]=v[k]" "$3} END {for (k in v) print k, v[k]}' | sort
grep -- "-acc 0 0 \|-ns 0 0 " "$D/tploop.txt"
