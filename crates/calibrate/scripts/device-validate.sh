#!/bin/bash
# Runs the validation kernels on the device machine (never used by the fit) and records
# their SASS and Nsight Compute warp-state ratios. Usage (repository root):
#   bash crates/calibrate/scripts/device-validate.sh .device-bin/calibrate-collect "$OUT"
# Writes: validation JSON (--out-dir), validation.log, validation.sass.txt (cuobjdump),
# ncu.csv (ncu on a --quick run of the same kernels), ncu.log.
set -u
BIN=${1:?binary}
DST=${2:?output folder}
lib=$(ls /usr/local/cuda/lib64/libnvrtc.so.13* 2>/dev/null | head -1)
[ -z "$lib" ] && lib=$(find /usr /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
timeout 300 "$BIN" --validation --out-dir "$DST" --dump-dir /tmp/vcubins 2> "$DST/validation.log"
echo "rc=$?" >> "$DST/validation.log"
for f in /tmp/vcubins/*.cubin; do
  echo "######## $(basename "$f")"; cuobjdump -res-usage "$f"; cuobjdump -sass "$f"
done > "$DST/validation.sass.txt" 2>&1
mkdir -p /tmp/ncu-run
{
  ncu --version
  timeout 400 ncu --clock-control none --kernel-name "regex:vh_chase|vg_" \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__average_warp_latency_per_inst_issued.ratio,sm__cycles_elapsed.avg,smsp__inst_executed.sum,launch__block_size' \
    --csv --log-file "$DST/ncu.csv" "$BIN" --validation --quick --out-dir /tmp/ncu-run
  echo "ncu rc=$?"
} > "$DST/ncu.log" 2>&1
tail -3 "$DST/ncu.log"; grep -E "^\[calibrate\]|ERROR|rc=" "$DST/validation.log" | tail -8
