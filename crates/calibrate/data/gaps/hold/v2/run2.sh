#!/bin/bash
# Device machine, from the folder holding v2/ and stream.cu: the second hold probe.
# Usage: bash v2/run2.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > "$D/env2.txt" 2>&1
nvcc -O2 -std=c++17 -o /tmp/hold2 v2/hold2.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc 2> "$D/build2.log" || { cat "$D/build2.log"; exit 1; }
mkdir -p /tmp/hold2cub
/tmp/hold2 . v2/hold2_kernels.cu /tmp/hold2cub > "$D/hold2.txt" 2> "$D/run2.log"; echo "rc=$?" >> "$D/run2.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$D/env2.txt"
nvidia-smi --query-gpu=uuid,serial,driver_version --format=csv >> "$D/env2.txt"
cuobjdump -sass /tmp/hold2cub/hold2.cubin | gzip -9 > "$D/hold2.sass.txt.gz"
cat "$D/run2.log"; wc -l "$D/hold2.txt"; grep -c ERROR "$D/hold2.txt"
# op 3, nw 4, waiter 1: the last probe warp's end by delay
awk '$2==3 && $3==4 && $5==1 {m=0; for(i=11;i<=NF;i+=2){e=$i+$(i+1); if(e>m)m=e}; print $1, $4, $6, $7, $9, m}' "$D/hold2.txt" | awk '$4==0' | head -110
