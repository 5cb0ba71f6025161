#!/bin/bash
# issue 25 (branch share4): the gemm kernels under other L2 states and the chip stream's
# two copies timed apart, in one device call. Usage, from .device/share4 (this folder's
# run.sh and chip3.cu beside a release calibrate-collect): bash run.sh OUTDIR
set -u
out=$1
w=/tmp/share4run; mkdir -p $w
date -u +%Y-%m-%dT%H:%M:%SZ > $w/env.txt
nvidia-smi -q >> $w/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $w/smi.csv 2>&1 &
smi=$!
# 1. the gemm kernels: val.gemm_mainloop (the committed protocol) and val.gemm_l2
./calibrate-collect --validation --only gemm_mainloop,gemm_l2 --out $out/gemm_l2.json 2>&1 | tee $w/collect.log | grep -v "^    val.gemm_mainloop" | tail -40
echo "collect rc=${PIPESTATUS[0]}"
# 2. the chip stream (chip3.cu)
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/chip3 chip3.cu -lcuda > $w/build.txt 2>&1 || nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/chip3 chip3.cu -L/usr/local/cuda/lib64/stubs -lcuda >> $w/build.txt 2>&1
rc=$?
tail -5 $w/build.txt
if [ $rc -eq 0 ]; then
  mkdir -p $w/chip3
  timeout 240 /tmp/chip3 $w/chip3 2>&1 | tee $w/chip3/summary.txt
  echo "chip3 rc=${PIPESTATUS[0]}" | tee -a $w/chip3/summary.txt
else
  echo "chip3 build failed rc=$rc"; cat $w/build.txt | head -30
fi
kill $smi
date -u +%Y-%m-%dT%H:%M:%SZ >> $w/env.txt
cp $w/collect.log $out/ 2>/dev/null
tar czf $out/rest.tar.gz -C $w env.txt smi.csv build.txt chip3 2>/dev/null
ls -la $out
