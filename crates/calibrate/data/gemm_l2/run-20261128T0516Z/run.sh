#!/bin/bash
# bshared (issue 25): build host.cu (+ stamped.cu) on the device and run it. Usage: bash run.sh OUT [HOST]
# (HOST host2.cu for the second call: the rotated k orders, stamped_rot.cu)
set -u
D=$(cd "$(dirname "$0")" && pwd); OUT=${1:?out}; HOST=${2:-host.cu}
export PATH=/usr/local/cuda/bin:$PATH
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi -q; } > "$OUT/env.txt" 2>&1
nvcc --version > "$OUT/build.txt" 2>&1
F="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/bshared $D/$HOST"
nvcc $F -lcuda >> "$OUT/build.txt" 2>&1 || nvcc $F -L/usr/local/cuda/lib64/stubs -lcuda >> "$OUT/build.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "build failed rc=$rc"; grep -i error "$OUT/build.txt" | head -30; exit 1; }
grep -A2 "vgs_" "$OUT/build.txt" | grep -i "registers\|spill" | head -6
cuobjdump -sass /tmp/bshared | gzip > "$OUT/bshared.sass.gz"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > "$OUT/smi.csv" 2>&1 &
SMI=$!
sleep 0.3
timeout 300 /tmp/bshared "$OUT" > "$OUT/stdout.txt" 2> "$OUT/stderr.txt"; echo "rc=$?" >> "$OUT/stdout.txt"
kill $SMI
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$OUT/env.txt" 2>&1
tail -3 "$OUT/stdout.txt"; tail -5 "$OUT/stderr.txt"
gzip -9 "$OUT/cta.csv" "$OUT/env.txt" "$OUT/smi.csv" "$OUT/kstep.csv"
ls -la "$OUT"
