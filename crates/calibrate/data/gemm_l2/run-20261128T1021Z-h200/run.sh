#!/bin/bash
set -u
D=$(cd "$(dirname "$0")" && pwd); OUT=${1:?out}
lib=$(ls /usr/local/cuda/lib64/libnvrtc.so.13* 2>/dev/null | head -1)
[ -z "$lib" ] && lib=$(find /usr /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
{ date -u; nvidia-smi -q; } > "$OUT/env.txt" 2>&1
timeout 420 "$D/calibrate-collect" --validation --only gemm_mainloop --out-dir "$OUT" --dump-dir /tmp/cub 2> "$OUT/gemm.log"
echo "rc=$?" >> "$OUT/gemm.log"
{ date -u; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$OUT/env.txt" 2>&1
tail -5 "$OUT/gemm.log"; ls -la "$OUT"
