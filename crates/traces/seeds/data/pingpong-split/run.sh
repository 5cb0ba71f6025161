#!/bin/bash
# issue 30: the pingpong loop with its softmax split by pipe, and its timeline. Usage: bash run.sh OUTDIR
set -u
out=$1
date -u +%Y-%m-%dT%H:%M:%SZ > $out/env.txt
nvidia-smi -q >> $out/env.txt 2>&1
nvcc --version >> $out/env.txt 2>&1
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o pingpong_split pingpong_split.cu > $out/build.txt 2>&1
rc=$?
# Should the stamped variants not build, the rest without them (-DNO_TL).
if [ $rc -ne 0 ]; then
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -DNO_TL -o pingpong_split pingpong_split.cu >> $out/build.txt 2>&1
  rc=$?
fi
grep -c "0 bytes spill stores" $out/build.txt; grep -E "[1-9][0-9]* bytes (spill|stack)" $out/build.txt
tail -30 $out/build.txt
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; exit 1; }
cuobjdump -sass pingpong_split | gzip > $out/pingpong_split.sass.gz
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $out/smi.csv 2>&1 &
smi=$!
sleep 0.3
timeout 120 ./pingpong_split $out 2>&1 | tee $out/summary.txt
echo "rc=${PIPESTATUS[0]}" | tee -a $out/summary.txt
# The same binary again, seconds later: its summary only (cp.csv and tl.csv are the first run's).
mkdir -p /tmp/again
timeout 120 ./pingpong_split /tmp/again > $out/summary2.txt 2>&1
echo "rc=$?" >> $out/summary2.txt
kill $smi
date -u +%Y-%m-%dT%H:%M:%SZ >> $out/env.txt
