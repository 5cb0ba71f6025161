#!/bin/bash
# issue 30: instructions beside a busy tensor core (beside2.cu). Usage: bash run.sh OUTDIR
set -u
out=$1
date -u +%Y-%m-%dT%H:%M:%SZ > $out/env.txt
nvidia-smi -q >> $out/env.txt 2>&1
nvcc --version >> $out/env.txt 2>&1
( time nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o beside2 beside2.cu ) > $out/build.txt 2>&1
rc=$?
grep -E "C75|spill|stack frame|error" $out/build.txt | sort | uniq -c | head -20
tail -3 $out/build.txt
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; tail -40 $out/build.txt; exit 1; }
cuobjdump -sass beside2 | gzip > $out/beside2.sass.gz
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $out/smi.csv 2>&1 &
smi=$!
sleep 0.3
timeout 200 ./beside2 $out 2>&1 | tee $out/summary.txt
echo "rc=${PIPESTATUS[0]}" | tee -a $out/summary.txt
# The same binary again, seconds later: its summary only.
mkdir -p /tmp/again
timeout 200 ./beside2 /tmp/again > $out/summary2.txt 2>&1
echo "rc=$?" >> $out/summary2.txt
kill $smi
date -u +%Y-%m-%dT%H:%M:%SZ >> $out/env.txt
