#!/bin/bash
# Device machine, from a folder holding fbank.cu / fbank2.cu: bash run.sh OUTDIR [fbank|fbank2]
# (one tar of everything: env.txt with nvidia-smi -q, build.log, NAME.txt, sass.txt).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
S=${2:-fbank}
T=$(date -u +%Y%m%dT%H%M%SZ)
W=/tmp/$S; mkdir -p $W
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvcc --version | tail -2; nvidia-smi -q; } > $W/env.txt 2>&1
nvcc -O3 -arch=sm_90a -o $W/$S $S.cu > $W/build.log 2>&1
$W/$S > $W/$S.txt 2>&1; echo "rc=$?" >> $W/build.log
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/env.txt 2>&1
cuobjdump -sass $W/$S > $W/sass.txt 2>&1
cd $W && tar czf "$D/h200-$T-$S.tgz" env.txt build.log $S.txt sass.txt
cat build.log | head -30; grep -A40 summary $S.txt
