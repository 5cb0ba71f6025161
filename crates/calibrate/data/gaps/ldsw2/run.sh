#!/bin/bash
# Device machine, from a folder holding ldsw2.cu, pieces.cpp, pieces_kernels.cu and
# kernels/stream.cu's copy stream.cu: bash run.sh OUTDIR (one tar of everything).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
T=$(date -u +%Y%m%dT%H%M%SZ)
W=/tmp/ldsw2; mkdir -p $W/cub
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > $W/env.txt 2>&1
nvcc -O3 -arch=sm_90a -o $W/ldsw2 ldsw2.cu > $W/build.log 2>&1
nvcc -O2 -std=c++17 -o $W/pieces pieces.cpp -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc >> $W/build.log 2>&1
$W/ldsw2 > $W/ldsw2.txt 2>&1
$W/pieces . pieces_kernels.cu $W/cub > $W/pieces.txt 2> $W/pieces.log; echo "rc=$?" >> $W/pieces.log
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/env.txt 2>&1
cuobjdump -sass $W/ldsw2 > $W/sass.txt 2>&1
for f in $W/cub/*.cubin; do echo "######## $(basename $f)"; cuobjdump -res-usage -sass "$f"; done >> $W/sass.txt 2>&1
gzip -9 $W/sass.txt; gzip -9 $W/pieces.txt
cd $W && tar czf "$D/h200-$T-ldsw2.tgz" env.txt build.log ldsw2.txt pieces.txt.gz pieces.log sass.txt.gz
cat build.log | head -30; cat ldsw2.txt; cat pieces.log
zcat pieces.txt.gz | grep -c .
