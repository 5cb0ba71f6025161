#!/bin/bash
# Runs calibrate-collect on the device machine (CUDA driver + NVRTC, no Rust) and
# records the environment. Usage (from the repository root, binary built here and
# carried in .device-bin/):
#   bash crates/calibrate/scripts/device-collect.sh .device-bin/calibrate-collect "$OUT" [extra args]
# Writes to OUTDIR: env.txt (tools, nvidia-smi -q), run.log, <gpu>-<UTC>.json, sass.txt
# (cuobjdump -sass and -res-usage of the cubins that ran).
set -u
BIN=${1:?binary}
DST=${2:?output folder}
shift 2
{
  echo "== date (UTC)"; date -u +%Y-%m-%dT%H:%M:%SZ
  echo "== tools"
  for t in nvcc cuobjdump nvdisasm ncu nvidia-smi; do printf '%s: ' "$t"; command -v "$t" || echo missing; done
  nvcc --version 2>&1 | tail -2
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvidia-smi --query-gpu (before)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,pstate --format=csv
  echo "== nvidia-smi -q"; nvidia-smi -q
} > "$DST/env.txt" 2>&1
lib=$(ls /usr/local/cuda/lib64/libnvrtc.so.13* /usr/local/cuda*/targets/x86_64-linux/lib/libnvrtc.so.13* 2>/dev/null | head -1)
[ -z "$lib" ] && lib=$(find /usr /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -1)
echo "== libnvrtc: $lib" >> "$DST/env.txt"
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
timeout 540 "$BIN" --out-dir "$DST" --dump-dir /tmp/calibrate-cubins "$@" 2> "$DST/run.log"
echo "rc=$?" >> "$DST/run.log"
{
  for f in /tmp/calibrate-cubins/*.cubin; do
    echo "######## $(basename "$f")"; cuobjdump -res-usage "$f"; cuobjdump -sass "$f"
  done
} > "$DST/sass.txt" 2>&1
{
  echo "== nvidia-smi --query-gpu (after)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,pstate --format=csv
} >> "$DST/env.txt" 2>&1
grep -E "^\[calibrate\]|ERROR|rc=" "$DST/run.log" | tail -40
