#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): the NVRTC build of
# the warp-specialized validation kernel and its copy stamped at every tile (ws_all_kernels.cu).
# Usage: KDIR=. bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/wsall ws_all.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
mkdir -p /tmp/cubws
/tmp/wsall "${KDIR:-../../../../kernels}" ws_all_kernels.cu /tmp/cubws > "$D/stamps.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
for f in /tmp/cubws/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done > "$D/sass.txt" 2>&1
gzip -9 "$D/sass.txt" "$D/stamps.txt"
zcat "$D/stamps.txt.gz" | awk 'NF == 3 {v[$1] = v[$1] " " $3} END {for (k in v) print k, v[k]}' | sort
zcat "$D/stamps.txt.gz" | grep "^#" | head
head -c 3000 "$D/run.log"
