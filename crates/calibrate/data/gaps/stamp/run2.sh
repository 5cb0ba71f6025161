#!/bin/bash
# Device machine, from this folder: the NVRTC build (as the collector compiles) of the
# validation kernels and their register-stamped copies. Usage: KDIR=... bash run2.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env2.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/ew_nvrtc ew_stamp_nvrtc.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build2.log" || { cat "$D/build2.log"; exit 1; }
mkdir -p /tmp/cub
/tmp/ew_nvrtc "${KDIR:-../../../kernels}" ew_stamp_nvrtc_kernels.cu /tmp/cub > "$D/stamps2.txt" 2> "$D/run2.log"; echo "rc=$?" >> "$D/run2.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env2.txt"
for f in /tmp/cub/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done > "$D/sass2.txt" 2>&1
gzip -9 "$D/stamps2.txt" "$D/sass2.txt"
gzip -dc "$D/stamps2.txt.gz" | grep -- "-plain\|-stamped" | awk '{k=$1; v[k]=v[k]" "$3} END {for (k in v) print k, v[k]}' | sort
cat "$D/run2.log"
