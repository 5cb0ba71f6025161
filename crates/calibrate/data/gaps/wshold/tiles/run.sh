#!/bin/bash
# Device machine, from this folder (kernels/stream.cu copied beside it): builds the
# harness, runs the plain and per-tile-timed warp-specialized kernels, keeps their SASS.
# Usage: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/wstile wstile.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc > "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
mkdir -p /tmp/cubwt
/tmp/wstile . ws_tile_kernels.cu /tmp/cubwt > "$D/wstile.txt" 2> "$D/run.log"; echo "rc=$?" >> "$D/run.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env.txt"
for f in /tmp/cubwt/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done > "$D/sass.txt" 2>&1
gzip -9 "$D/sass.txt" "$D/wstile.txt"
cat "$D/run.log"
python3 tiles.py "$D/wstile.txt.gz" || true
