#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): the NVRTC build of
# the validation kernels and their register-stamped copies (ew_stamp3_kernels.cu).
# Usage: KDIR=. bash run3.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env3.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/ew3 ew_stamp3.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build3.log" || { cat "$D/build3.log"; exit 1; }
mkdir -p /tmp/cub3
/tmp/ew3 "${KDIR:-../../../kernels}" ew_stamp3_kernels.cu /tmp/cub3 > "$D/stamps3.txt" 2> "$D/run3.log"; echo "rc=$?" >> "$D/run3.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env3.txt"
for f in /tmp/cub3/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done > "$D/sass3.txt" 2>&1
gzip -9 "$D/sass3.txt"
grep -- "-plain\|-stamped\|-watched" "$D/stamps3.txt" | awk '{k=$1; v[k]=v[k]" "$3} END {for (k in v) print k, v[k]}' | sort
head -c 3000 "$D/run3.log"
