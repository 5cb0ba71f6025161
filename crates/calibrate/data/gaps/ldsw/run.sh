#!/bin/bash
# Device machine, from this folder: bash run.sh OUTDIR (one tar of everything).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
T=$(date -u +%Y%m%dT%H%M%SZ)
W=/tmp/ldsw; mkdir -p $W
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > $W/env.txt 2>&1
nvcc -O3 -arch=sm_90a -o $W/ldsw ldsw.cu > $W/build.log 2>&1
$W/ldsw > $W/ldsw.txt 2>&1
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/env.txt 2>&1
cuobjdump -sass $W/ldsw > $W/sass.txt 2>&1; gzip -9 $W/sass.txt
cd $W && tar czf "$D/h200-$T-ldsw.tgz" env.txt build.log ldsw.txt sass.txt.gz
cat $W/build.log | head -30; cat $W/ldsw.txt
