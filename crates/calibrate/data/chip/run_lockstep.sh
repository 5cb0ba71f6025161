#!/bin/bash
# issue 25 (branch lockstep): build and run lockstep.cu on the device.
# Usage: bash run_lockstep.sh OUTDIR [SET] (SET 2: the second set of cases)
set -u
OUT=${1:?out}; D=$(cd "$(dirname "$0")" && pwd); W=/tmp/lockstep_run; mkdir -p $W
export PATH=/usr/local/cuda/bin:$PATH
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi -q; nvcc --version; } > $W/env.txt 2>&1
F="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/lockstep $D/lockstep.cu"
nvcc $F -lcuda > $W/build.txt 2>&1 || nvcc $F -L/usr/local/cuda/lib64/stubs -lcuda >> $W/build.txt 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; grep -i -B2 -A3 error $W/build.txt | head -40; exit 1; }
grep -i "registers\|spill" $W/build.txt | head -4
cuobjdump -sass /tmp/lockstep | gzip > $W/lockstep.sass.gz
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $W/smi.csv 2>&1 &
SMI=$!
sleep 0.3
timeout 240 /tmp/lockstep $W ${2:-1} > $W/summary.txt 2> $W/stderr.txt; echo "rc=$?" >> $W/summary.txt
kill $SMI
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> $W/env.txt 2>&1
gzip -9 $W/env.txt $W/smi.csv $W/per_kstep.csv
cp $W/summary.txt $W/stream.jsonl $OUT/ 2>/dev/null
tar czf $OUT/lockstep_run.tar.gz -C $W .
grep -E "grid 132" $W/summary.txt | head -80; tail -3 $W/summary.txt; tail -5 $W/stderr.txt
