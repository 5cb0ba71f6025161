#!/bin/bash
# issue 30: where the pingpong loop spends its cycles (pp, nobar, timelines). Usage: bash run.sh OUTDIR
set -u
out=$1
date -u +%Y-%m-%dT%H:%M:%SZ > $out/env.txt
nvidia-smi -q >> $out/env.txt 2>&1
nvcc --version >> $out/env.txt 2>&1
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o pingpong_tl pingpong_tl.cu > $out/build.txt 2>&1
rc=$?
tail -30 $out/build.txt
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; exit 1; }
cuobjdump -sass pingpong_tl | gzip > $out/pingpong_tl.sass.gz
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $out/smi.csv 2>&1 &
smi=$!
sleep 0.3
timeout 120 ./pingpong_tl $out 2>&1 | tee $out/summary.txt
echo "rc=${PIPESTATUS[0]}" | tee -a $out/summary.txt
kill $smi
date -u +%Y-%m-%dT%H:%M:%SZ >> $out/env.txt
