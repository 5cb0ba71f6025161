#!/bin/bash
# issue 25 (branch chip): build and run chip.cu on the device. Usage: bash run.sh OUTDIR
set -u
out=$1
date -u +%Y-%m-%dT%H:%M:%SZ > $out/env.txt
nvidia-smi -q >> $out/env.txt 2>&1
nvcc --version >> $out/env.txt 2>&1
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/chip chip.cu -lcuda > $out/build.txt 2>&1 || nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/chip chip.cu -L/usr/local/cuda/lib64/stubs -lcuda >> $out/build.txt 2>&1
rc=$?
tail -20 $out/build.txt
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; exit 1; }
cuobjdump -sass /tmp/chip | gzip > $out/chip.sass.gz
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 20 > $out/smi.csv 2>&1 &
smi=$!
sleep 0.3
timeout 300 /tmp/chip $out 2>&1 | tee $out/summary.txt
echo "rc=${PIPESTATUS[0]}" | tee -a $out/summary.txt
kill $smi
gzip $out/clock.csv $out/smi.csv
date -u +%Y-%m-%dT%H:%M:%SZ >> $out/env.txt
