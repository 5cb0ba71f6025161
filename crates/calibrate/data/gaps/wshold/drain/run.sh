#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): the write-queue
# drain probe. Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/dr dr.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
mkdir -p /tmp/drcub
/tmp/dr . dr_kernels.cu /tmp/drcub > "$D/dr.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
cuobjdump -sass /tmp/drcub/dr.cubin | gzip -9 > "$D/sass.txt.gz"
cat "$D/run.log"; wc -l "$D/dr.txt"
python3 dr.py "$D/dr.txt" > "$D/table.txt" 2>&1 || true
head -c 6000 "$D/table.txt"
gzip -9 "$D/dr.txt"
