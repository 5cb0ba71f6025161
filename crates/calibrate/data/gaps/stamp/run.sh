#!/bin/bash
# Device machine, from this folder: builds ew_stamp.cu, dumps its SASS, runs it.
# Usage: KDIR=path/to/crates/calibrate/kernels bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O3 -std=c++17 -arch=sm_90a -I "${KDIR:-../../../kernels}" -o /tmp/ew_stamp ew_stamp.cu -L/usr/local/cuda/lib64/stubs -lcuda 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
cuobjdump -sass /tmp/ew_stamp > "$D/sass.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
/tmp/ew_stamp > "$D/stamps.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
gzip -9 "$D/stamps.txt" "$D/sass.txt"
grep -- "-plain\|-stamped" <(gzip -dc "$D/stamps.txt.gz") | awk '{k=$1; v[k]=v[k]" "$3} END {for (k in v) print k, v[k]}' | sort
cat "$D/run.log"
