#!/bin/bash
# issue 30 item 1: MUFU beside wgmma. Usage: bash run.sh OUTDIR
out=$1
date -u +%Y-%m-%dT%H:%M:%SZ > $out/env.txt
nvidia-smi >> $out/env.txt 2>&1
nvidia-smi -q >> $out/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $out/smi.csv 2>&1 &
smi=$!
sleep 0.5
timeout 240 ./mufu_tensor $out 2>&1 | tee $out/summary.txt
echo "rc=${PIPESTATUS[0]}" | tee -a $out/summary.txt
sleep 0.3
kill $smi
date -u +%Y-%m-%dT%H:%M:%SZ >> $out/env.txt
