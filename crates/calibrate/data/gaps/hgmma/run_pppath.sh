#!/bin/bash
# ties5/pppath: one call. bash .device/ties5/run_pppath.sh "$OUT"
OUT=$1
cd "$(dirname "$0")"
ST=h200-$(date -u +%Y%m%dT%H%M%SZ)
{ date -u; nvcc --version; nvidia-smi -q; nvidia-smi --query-gpu=name,uuid,serial,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv; } > "$OUT/$ST-env.txt" 2>&1
t0=$SECONDS
nvcc -O3 -Xptxas -v -gencode arch=compute_90a,code=sm_90a -o pq pppath.cu > "$OUT/$ST-build.txt" 2>&1
rc=$?
t1=$SECONDS
echo "build rc $rc, $((t1 - t0)) s" >> "$OUT/$ST-build.txt"
if [ $rc -ne 0 ]; then cat "$OUT/$ST-build.txt"; exit 1; fi
grep -E "C7514|registers|spill" "$OUT/$ST-build.txt" | head -20
cuobjdump -sass pq | gzip > "$OUT/$ST-sass.txt.gz"
./pq > pppath.txt 2>&1
echo "run rc $?" >> pppath.txt
cp pppath.txt "$OUT/$ST-pppath.txt"
{ echo "after:"; date -u; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$OUT/$ST-env.txt"
cat pppath.txt
head -5 "$OUT/$ST-env.txt"; grep -E "Product Name|GPU UUID|Driver Version|Serial Number" "$OUT/$ST-env.txt"
