#!/bin/bash
# gemmshared (issue 25): build host3.cu (+ stamped3.cu) on the device and run it; everything
# into one tar under OUT. Usage: bash run3.sh OUT
set -u
D=$(cd "$(dirname "$0")" && pwd); OUT=${1:?out}; W=$OUT/w; mkdir -p "$W"
export PATH=/usr/local/cuda/bin:$PATH
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi -q; } > "$W/env.txt" 2>&1
nvcc --version > "$W/build.txt" 2>&1
F="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/gshared3 $D/host3.cu"
nvcc $F -lcuda >> "$W/build.txt" 2>&1 || nvcc $F -L/usr/local/cuda/lib64/stubs -lcuda >> "$W/build.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; grep -i error "$W/build.txt" | head -30; tar -C "$OUT" -czf "$OUT/run.tgz" w; exit 1; }
grep -A2 "vgs_" "$W/build.txt" | grep -i "registers\|spill" | head -6
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > "$W/smi.csv" 2>&1 &
SMI=$!
sleep 0.3
timeout 240 /tmp/gshared3 "$W" > "$W/stdout.txt" 2> "$W/stderr.txt"; echo "rc=$?" >> "$W/stdout.txt"
kill $SMI
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$W/env.txt" 2>&1
cat "$W/stdout.txt" | tail -5; tail -5 "$W/stderr.txt"
cut -d, -f1-15 "$W/summary.csv" | head -80
gzip -9 "$W/cta.csv" "$W/kstep.csv" "$W/smi.csv" "$W/env.txt"
tar -C "$OUT" -czf "$OUT/run.tgz" w && rm -rf "$W"
ls -la "$OUT"
