#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): the write-queue
# window probe. Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/qw qw2.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build.log" || { cat "$D/build.log"; exit 1; }
mkdir -p /tmp/qwcub
/tmp/qw . qw2_kernels.cu /tmp/qwcub > "$D/qw.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
cuobjdump -sass /tmp/qwcub/qw.cubin | gzip -9 > "$D/sass.txt.gz"
cat "$D/run.log"; wc -l "$D/qw.txt"
python3 qw.py "$D/qw.txt" || true
gzip -9 "$D/qw.txt"
