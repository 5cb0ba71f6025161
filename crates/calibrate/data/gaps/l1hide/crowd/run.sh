#!/bin/bash
# The device call (from the repository root of /work/main, carry .device/l1sets3):
#   bash .device/l1sets3/run.sh
# Builds crowd.cu with nvcc for sm_90a, runs it (12 launches a point, two passes),
# and tars the output, nvidia-smi -q, the SASS and the summary into $OUT/crowd.tgz.
set -u
cd "$(dirname "$0")"
D=$OUT/crowd
mkdir -p "$D"
date -u +%Y%m%dT%H%M%SZ > "$D/date.txt"
nvidia-smi -q > "$D/env.txt" 2>&1
nvcc --version >> "$D/env.txt" 2>&1
if ! nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o /tmp/crowd crowd.cu > "$D/build.log" 2>&1; then
  cat "$D/build.log"; cd "$OUT" && tar czf crowd.tgz crowd; exit 1
fi
cuobjdump --dump-sass /tmp/crowd > "$D/sass.txt" 2>&1
/tmp/crowd 12 > "$D/crowd.out" 2> "$D/crowd.err"; echo "rc $?" >> "$D/crowd.err"
cat "$D/crowd.err"
python3 summarize.py "$D/crowd.out" > "$D/summary.txt" 2>&1
head -45 "$D/summary.txt"
nvidia-smi -q -d CLOCK > "$D/env_after.txt" 2>&1
cd "$OUT" && tar czf crowd.tgz crowd && rm -rf crowd
